//! Every quote in a research output is verbatim: for arbitrary pages served
//! on a local server, each ledger quote, citation quote and highlight is
//! exactly the slice of the fetched text (or title) its offsets name.

mod research_support;

use std::sync::{Arc, LazyLock, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use ferret_evidence::ledger::{Claim, Judgement, PageText, judge::judge};
use ferret_evidence::research::{self, EnrichOptions, normalize_results};
use proptest::prelude::*;
use research_support::*;

const WORDS: &[&str] = &[
    "Lumen",
    "3",
    "telescope",
    "mirror",
    "mirrors",
    "made",
    "of",
    "beryllium",
    "cooled",
    "below",
    "40",
    "kelvin",
    "not",
    "the",
    "a",
    "segments",
    "cryocooler",
    "night",
    "异步",
    "望远镜",
    "é",
    "don't",
    "co-operative",
    "(note)",
    "—",
    "40K",
];

fn sentence() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(proptest::sample::select(WORDS), 3..25),
        proptest::sample::select(vec![".", "!", "?", ";", "。", ""]),
    )
        .prop_map(|(words, end)| format!("{}{end}", words.join(" ")))
}

fn paragraph() -> impl Strategy<Value = String> {
    proptest::collection::vec(sentence(), 1..5).prop_map(|s| s.join(" "))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

struct Server {
    page: Arc<Mutex<String>>,
    base: String,
}

/// One runtime and one server for all cases.
static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
});

static SERVER: LazyLock<Server> = LazyLock::new(|| {
    RUNTIME.block_on(async {
        let page: Arc<Mutex<String>> = Arc::default();
        let router = Router::new()
            .route(
                "/page",
                get(|State(page): State<Arc<Mutex<String>>>| async move {
                    let body = page.lock().unwrap().clone();
                    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
                }),
            )
            .with_state(page.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Server {
            page,
            base: format!("http://lang.example:{}", addr.port()),
        }
    })
});

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_quote_in_the_output_is_verbatim(
        title in sentence(),
        paragraphs in proptest::collection::vec(paragraph(), 1..8),
    ) {
        let body: String = paragraphs.iter().map(|p| format!("<p>{}</p>\n", escape(p))).collect();
        *SERVER.page.lock().unwrap() = format!(
            "<!doctype html><html><head><title>{}</title></head><body><article>{body}</article></body></html>",
            escape(&title)
        );
        let url = format!("{}/page", SERVER.base);
        let plan = research::plan(QUESTION).unwrap();
        let results = normalize_results(&rows(&[(&url, "t", "")]), QUESTION, None);
        let options = EnrichOptions::default().with_text(true).with_now(now());
        let enrichment = RUNTIME
            .block_on(research::enrich_fetch(&fetcher(), &plan, &results, &options))
            .unwrap();
        let candidate = &enrichment.candidates[0];
        let text = candidate.text.clone().unwrap_or_default();
        let title = candidate.fetched_title.as_deref().unwrap_or("");
        for c in &enrichment.ledger.constraints {
            // Not vacuous: the ledger holds evidence exactly when the
            // judgement finds the page supports the constraint.
            if candidate.ok {
                let verdict = judge(&Claim::new(&c.text), &PageText { title, text: &text });
                prop_assert_eq!(verdict.judgement == Judgement::Supports, !c.evidence.is_empty());
                prop_assert_eq!(verdict.judgement == Judgement::Refutes, !c.refutations.is_empty());
            }
            for e in c.evidence.iter().chain(&c.refutations) {
                prop_assert_eq!(&text[e.quote.start..e.quote.end], e.quote.text.as_str());
                prop_assert!(e.quote.text.chars().count() <= 200);
            }
        }
        if let Some(citations) = &enrichment.citations {
            for q in citations.citations.iter().filter_map(|c| c.quote.as_ref()) {
                prop_assert_eq!(&text[q.start..q.end], q.text.as_str());
                prop_assert!(q.text.chars().count() <= 80);
            }
        }
        for h in &candidate.highlights {
            prop_assert_eq!(&text[h.start..h.end], h.text.as_str());
        }
    }
}
