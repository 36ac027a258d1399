//! One hostile page never stalls a research run: twenty rows on a local
//! web, four of them hostile (a server that never answers, one that drips
//! a byte a second, a million nested `<div>`s, a million sibling elements)
//! and the rest stating the answer. The run ends within its deadline with a
//! decision about the readable pages and a typed reason for each hostile
//! one.

mod research_support;

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use ferret_evidence::budget::PageBudget;
use ferret_evidence::fetch::{BrowserMode, WarningCode};
use ferret_evidence::research::{
    EnrichedCandidate, EvidenceStatus, Research, ResearchOptions, normalize_results,
};
use ferret_evidence::verify::Verdict;
use research_support::*;

static DEEP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "<html><head><title>Deep</title></head><body>{}The mirror is beryllium.</body></html>",
        "<div>".repeat(1_000_000)
    )
});

static WIDE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "<html><head><title>Wide</title></head><body>{}</body></html>",
        "<p>a</p>".repeat(1_000_000)
    )
});

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

/// A page that says the answer, worded a little differently each time (so
/// that the pages are not copies of one another).
fn answer(n: usize) -> Response {
    html(article(
        &format!("Lumen 3 report {n}"),
        "2026-04-01",
        &[
            &format!("Report {n}: the Lumen 3 telescope mirror is made of beryllium segments."),
            &format!(
                "Report {n}: a cryocooler keeps the Lumen 3 instruments cooled below 40 kelvin."
            ),
        ],
    ))
}

/// One byte a second, forever.
async fn drip() -> Response {
    let bytes = futures::stream::unfold(0u64, |n| async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Some((Ok::<_, std::io::Error>(vec![b'<']), n + 1))
    });
    (
        [(header::CONTENT_TYPE, "text/html")],
        Body::from_stream(bytes),
    )
        .into_response()
}

async fn hostile_web() -> std::net::SocketAddr {
    let router = Router::new()
        .route(
            "/answer/{n}",
            get(|axum::extract::Path(n): axum::extract::Path<usize>| async move { answer(n) }),
        )
        .route(
            "/hang",
            get(|| async {
                std::future::pending::<()>().await;
                html(String::new())
            }),
        )
        .route("/drip", get(drip))
        .route("/deep", get(|| async { html(DEEP.clone()) }))
        .route("/wide", get(|| async { html(WIDE.clone()) }));
    serve_router(router).await
}

fn candidate<'a>(candidates: &'a [EnrichedCandidate], path: &str) -> &'a EnrichedCandidate {
    candidates
        .iter()
        .find(|c| c.url.ends_with(path))
        .unwrap_or_else(|| panic!("no candidate {path}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pages_never_hold_the_decision_past_the_deadline() {
    LazyLock::force(&DEEP);
    LazyLock::force(&WIDE);
    let addr = hostile_web().await;
    let url = |path: &str| format!("http://news.example:{}{path}", addr.port());
    let hostile = ["/hang", "/drip", "/deep", "/wide"];
    let mut items: Vec<(String, String)> = Vec::new();
    for n in 0..16 {
        if n % 4 == 0 {
            let path = hostile[n / 4];
            items.push((url(path), format!("Lumen 3 {path}")));
        }
        items.push((url(&format!("/answer/{n}")), format!("Lumen 3 report {n}")));
    }
    assert_eq!(items.len(), 20);
    let rows: Vec<(&str, &str, &str)> = items
        .iter()
        .map(|(u, t)| (u.as_str(), t.as_str(), ""))
        .collect();
    let results = normalize_results(&rows_json(&rows), QUESTION, None);
    // All twenty pages live on one test host: without lifting the per-host
    // limit, the two hanging pages would hold both of its slots.
    let fetcher = fetcher_builder()
        .timeout(Duration::from_secs(120))
        .host_limiter(None)
        .build()
        .unwrap();
    let deadline = Duration::from_secs(8);
    let options = ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_now(now())
        .with_max_results(20)
        .with_concurrency(8)
        .with_rounds(1)
        .with_deadline(deadline);
    let started = Instant::now();
    let report = Research::builder(fetcher)
        .build()
        .run_with_results(QUESTION, results, &options)
        .await
        .expect("research runs");
    let elapsed = started.elapsed();
    assert!(elapsed < deadline + Duration::from_secs(4), "{elapsed:?}");

    let candidates = &report.enrichment.candidates;
    assert_eq!(candidates.len(), 20);
    for path in ["/hang", "/drip"] {
        let c = candidate(candidates, path);
        assert_eq!(c.verdict, Some(Verdict::Error), "{path}");
        assert_eq!(c.error_kind.as_deref(), Some("timeout"), "{path}");
        assert!(
            c.error.as_deref().unwrap_or_default().contains("deadline"),
            "{path}: {:?}",
            c.error
        );
    }
    for path in ["/deep", "/wide"] {
        let c = candidate(candidates, path);
        let bounded = c.limits.iter().any(|w| w.code == WarningCode::DomFlattened);
        let stopped = c.verdict == Some(Verdict::TooComplex);
        assert!(bounded || stopped, "{path}: {:?} {:?}", c.verdict, c.limits);
        assert!(
            c.limits
                .iter()
                .any(|w| w.code == WarningCode::BodyTruncated),
            "{path}: {:?}",
            c.limits
        );
    }
    let readable = candidates.iter().filter(|c| c.ok).count();
    assert!(readable >= 12, "{readable} readable");
    assert_ne!(
        report.evidence_status,
        EvidenceStatus::Insufficient,
        "{:?}",
        report.ledger
    );
    assert!(
        report
            .enrichment
            .ledger
            .constraints
            .iter()
            .any(|c| !c.evidence.is_empty())
    );
}

#[tokio::test]
async fn a_page_past_its_judging_budget_is_too_complex_and_the_ledger_goes_on_without_it() {
    let addr = hostile_web().await;
    let url = |path: &str| format!("http://news.example:{}{path}", addr.port());
    let (a, b) = (url("/answer/1"), url("/answer/2"));
    let rows = [(a.as_str(), "one", ""), (b.as_str(), "two", "")];
    let results = normalize_results(&rows_json(&rows), QUESTION, None);
    let options = ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_now(now())
        .with_rounds(1)
        .with_page_budget(PageBudget::default().with_time(Duration::ZERO));
    let report = Research::builder(fetcher())
        .build()
        .run_with_results(QUESTION, results, &options)
        .await
        .expect("research runs");
    for c in &report.enrichment.candidates {
        assert_eq!(c.verdict, Some(Verdict::TooComplex), "{c:?}");
        assert!(!c.ok && c.highlights.is_empty() && c.text_excerpt.is_none());
        assert!(
            c.error
                .as_deref()
                .unwrap_or_default()
                .starts_with("too-complex")
        );
    }
    assert!(
        report
            .enrichment
            .ledger
            .constraints
            .iter()
            .all(|c| c.evidence.is_empty())
    );
    assert_ne!(report.evidence_status, EvidenceStatus::Sufficient);
}

#[tokio::test]
async fn a_zero_page_timeout_is_a_typed_option_error() {
    let options = ResearchOptions::new().with_page_timeout(Duration::ZERO);
    let err = Research::builder(fetcher())
        .build()
        .run_with_results(QUESTION, normalize_results("", QUESTION, None), &options)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("page_timeout"), "{err}");
}

fn rows_json(items: &[(&str, &str, &str)]) -> String {
    rows(items)
}
