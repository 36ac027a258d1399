//! The judgement reaching the research decision, end to end over a local
//! web (127.0.0.1 under public-looking names): a refuting page blocks
//! `sufficient`; a reprint counts once and keeps its URL; sources that
//! agree are not contested; a second round searches for what is missing
//! and reads a page the first round did not have; bad input gets a clear
//! status, never a panic.

mod research_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use axum::Router;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use ferret_core::fanout::Fanout;
use ferret_core::search::{SearchOptions, Searcher};
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    Provenance, Runtime,
};
use ferret_evidence::fetch::BrowserMode;
use ferret_evidence::ledger::ConstraintStatus;
use ferret_evidence::research::{
    EvidenceStatus, Research, ResearchError, ResearchOptions, ResearchReport, StopReason,
    normalize_results,
};
use research_support::*;

fn options() -> ResearchOptions {
    ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_text(true)
        .with_now(now())
}

const MIRROR: &str = "The Lumen 3 telescope has a primary mirror made of beryllium segments, chosen for stiffness at low mass.";
const COOLING: &str = "A cryocooler keeps the Lumen 3 instruments cooled below 40 kelvin during every observation run.";
const REFUTES_MIRROR: &str = "Contrary to some reports, the Lumen 3 mirror is not made of beryllium; the segments are a glass ceramic.";
const AGREES_MIRROR: &str = "Built for infrared work, the mirror of the Lumen 3 telescope is made of beryllium, a light and stiff metal.";

/// Serves one page per path: `/a/<name>` for each article below.
async fn web() -> std::net::SocketAddr {
    let page = |title: &'static str, text: &'static str| {
        get(move || async move { Html(article(title, "2026-03-10", &[text])).into_response() })
    };
    let router = Router::new()
        .route("/a/mirror", page("Lumen 3 primary mirror design", MIRROR))
        .route("/a/reprint", page("Lumen 3 primary mirror design", MIRROR))
        .route("/a/cooling", page("Keeping Lumen 3 cold", COOLING))
        .route("/a/myth", page("Lumen 3 myths", REFUTES_MIRROR))
        .route(
            "/a/agrees",
            get(|| async {
                // Its own page, not the shared article template: another
                // site's text, not a reprint.
                Html(format!(
                    "<!doctype html><html lang=\"en\"><head><title>Why beryllium</title></head><body><article><h1>Why beryllium</h1><p>{AGREES_MIRROR}</p><p>Our engineering column looks at how space telescopes are built, tested and flown, one component at a time, with interviews from the teams.</p><p>Next week: sunshields and the thermal budget of large observatories.</p></article></body></html>"
                ))
            }),
        )
        .route(
            "/a/german",
            page(
                "Lumen 3 Spiegel",
                "Der Hauptspiegel des Teleskops besteht aus Segmenten, die für geringe Masse gewählt wurden.",
            ),
        )
        .route(
            "/a/empty",
            get(|| async { Html("<!doctype html><html><head></head><body></body></html>") }),
        );
    serve_router(router).await
}

fn url(addr: std::net::SocketAddr, host: &str, name: &str) -> String {
    format!("http://{host}:{}/a/{name}", addr.port())
}

async fn run_rows(urls: &[String], options: &ResearchOptions) -> ResearchReport {
    let items: Vec<(&str, &str, &str)> = urls.iter().map(|u| (u.as_str(), "", "")).collect();
    let results = normalize_results(&rows(&items), QUESTION, None);
    Research::builder(fetcher())
        .build()
        .run_with_results(QUESTION, results, options)
        .await
        .expect("research runs")
}

#[tokio::test]
async fn a_refuting_page_turns_sufficient_into_partial_with_both_quotes() {
    let addr = web().await;
    let mirror = url(addr, "lang.example", "mirror");
    let cooling = url(addr, "news.example", "cooling");
    let myth = url(addr, "myth.example", "myth");

    let before = run_rows(&[mirror.clone(), cooling.clone()], &options()).await;
    assert_eq!(
        before.evidence_status,
        EvidenceStatus::Sufficient,
        "{:#?}",
        before.ledger
    );

    let after = run_rows(&[mirror.clone(), cooling, myth.clone()], &options()).await;
    assert_eq!(
        after.evidence_status,
        EvidenceStatus::Partial,
        "{:#?}",
        after.ledger
    );
    let c1 = after.enrichment.ledger.constraint("c1").expect("c1");
    assert_eq!(c1.status, ConstraintStatus::Contested);
    assert!(c1.contested);
    let refutation = c1.refutations.first().expect("a refuting quote");
    assert_eq!(refutation.url, myth);
    assert!(
        refutation.reason.starts_with("negated"),
        "{}",
        refutation.reason
    );
    assert!(refutation.quote.text.contains("not made of beryllium"));
    assert!(
        c1.evidence.iter().any(|e| e.url == mirror),
        "the support stays"
    );
    let caveat = after
        .caveats
        .iter()
        .find(|c| c.starts_with("c1 is contested"))
        .expect("a caveat names the conflict");
    assert!(
        caveat.contains(&myth) && caveat.contains(&mirror),
        "{caveat}"
    );
    assert!(caveat.contains("not made of beryllium") && caveat.contains("beryllium segments"));
}

#[tokio::test]
async fn a_reprint_counts_once_and_keeps_its_url() {
    let addr = web().await;
    let mirror = url(addr, "lang.example", "mirror");
    let reprint = url(addr, "blog.example", "reprint");
    let report = run_rows(
        &[mirror.clone(), reprint.clone()],
        &options().with_rounds(1),
    )
    .await;
    let c1 = report.enrichment.ledger.constraint("c1").expect("c1");
    assert_eq!(
        c1.evidence.len(),
        1,
        "one piece of evidence: {:#?}",
        c1.evidence
    );
    assert_eq!(c1.evidence[0].url, mirror);
    assert_eq!(c1.evidence[0].also_at, vec![reprint.clone()]);
    let copy = report
        .enrichment
        .candidates
        .iter()
        .find(|c| c.url == reprint)
        .expect("the reprint was fetched");
    assert_eq!(copy.copy_of.as_deref(), Some(mirror.as_str()));
}

#[tokio::test]
async fn sources_that_agree_are_not_contested() {
    let addr = web().await;
    let report = run_rows(
        &[
            url(addr, "lang.example", "mirror"),
            url(addr, "blog.example", "agrees"),
            url(addr, "news.example", "cooling"),
        ],
        &options(),
    )
    .await;
    assert_eq!(
        report.evidence_status,
        EvidenceStatus::Sufficient,
        "{:#?}",
        report.ledger
    );
    let c1 = report.enrichment.ledger.constraint("c1").expect("c1");
    assert!(!c1.contested && c1.refutations.is_empty(), "{c1:#?}");
    assert_eq!(
        c1.evidence.len(),
        2,
        "two independent pages support c1: {:#?} {:#?}",
        c1.evidence,
        report
            .enrichment
            .candidates
            .iter()
            .map(|c| (&c.url, &c.copy_of))
            .collect::<Vec<_>>()
    );
    assert!(!report.caveats.iter().any(|c| c.contains("contested")));
}

/// An engine that finds only the mirror page for the run's planned
/// queries, and the cooling page for any other query about the cooling.
#[derive(Debug)]
struct TwoRoundEngine {
    mirror: String,
    cooling: String,
    planned: Vec<String>,
    queries: std::sync::Mutex<Vec<String>>,
    calls: AtomicUsize,
}

#[async_trait]
impl Engine for TwoRoundEngine {
    fn name(&self) -> &str {
        "tworound"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.queries.lock().unwrap().push(request.query.clone());
        let follow_up = !self.planned.contains(&request.query) && request.query.contains("kelvin");
        let hit = if follow_up {
            EngineHit::new(
                1,
                self.cooling.clone(),
                "Keeping Lumen 3 cold",
                "cryocooler",
            )
        } else {
            EngineHit::new(1, self.mirror.clone(), "Lumen 3 mirror", "beryllium")
        };
        Ok(EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![hit],
        ))
    }
}

#[tokio::test]
async fn a_second_round_reads_a_new_page_and_becomes_sufficient() {
    let addr = web().await;
    let mirror = url(addr, "lang.example", "mirror");
    let cooling = url(addr, "news.example", "cooling");
    let plan = ferret_evidence::research::plan_with(
        QUESTION,
        &ferret_core::plan::PlanOptions::new().with_now(now()),
    )
    .expect("plan");
    let engine = Arc::new(TwoRoundEngine {
        mirror: mirror.clone(),
        cooling: cooling.clone(),
        planned: Research::search_queries(&plan),
        queries: Default::default(),
        calls: AtomicUsize::new(0),
    });
    let fanout = Fanout::builder()
        .dyn_engine(engine.clone())
        .build()
        .expect("fanout");
    let searcher = Searcher::builder().fanout(fanout).build();
    let research = Research::builder(fetcher()).searcher(searcher).build();
    let search = SearchOptions::new().with_engines(["tworound"]);

    let one = research
        .run(
            QUESTION,
            &options().with_search(search.clone()).with_rounds(1),
        )
        .await
        .expect("one pass runs");
    assert_ne!(one.evidence_status, EvidenceStatus::Sufficient);
    assert_eq!(one.rounds.len(), 1);

    let report = research
        .run(QUESTION, &options().with_search(search))
        .await
        .expect("research runs");
    assert_eq!(
        report.evidence_status,
        EvidenceStatus::Sufficient,
        "{:#?}",
        report.rounds
    );
    assert_eq!(report.rounds.len(), 2);
    assert_eq!(report.stopped, Some(StopReason::Sufficient));
    let second = &report.rounds[1];
    assert!(!second.queries.is_empty());
    assert!(
        second
            .queries
            .iter()
            .all(|q| !report.rounds[0].queries.contains(q))
    );
    assert_eq!(second.pages_read, vec![cooling.clone()]);
    assert!(
        second
            .changed
            .iter()
            .any(|c| c.id == "c2" && c.to == ConstraintStatus::Supported),
        "{second:#?}"
    );
    assert!(!report.rounds[0].pages_read.contains(&cooling));
    let fetched: Vec<&str> = report
        .enrichment
        .candidates
        .iter()
        .map(|c| c.url.as_str())
        .collect();
    assert_eq!(
        fetched,
        vec![mirror.as_str(), cooling.as_str()],
        "the mirror page is read once"
    );
}

#[tokio::test]
async fn rounds_out_of_range_are_a_typed_error() {
    let research = Research::builder(fetcher()).build();
    let results = normalize_results("[]", QUESTION, None);
    let err = research
        .run_with_results(QUESTION, results, &options().with_rounds(0))
        .await
        .expect_err("0 rounds is refused");
    assert!(
        matches!(
            err,
            ResearchError::InvalidOption {
                option: "rounds",
                ..
            }
        ),
        "{err}"
    );
}

#[tokio::test]
async fn empty_and_foreign_pages_leave_the_question_insufficient() {
    let addr = web().await;
    let report = run_rows(
        &[
            url(addr, "empty.example", "empty"),
            url(addr, "lang.example", "german"),
        ],
        &options(),
    )
    .await;
    assert!(
        matches!(
            report.evidence_status,
            EvidenceStatus::Insufficient | EvidenceStatus::BrowseNeeded
        ),
        "{:#?}",
        report.ledger
    );
    assert!(report.ledger.supported.is_empty());
    assert!(!report.agent_action.is_empty());
    assert!(!report.enrichment.ledger.pending.is_empty());
    assert_eq!(report.stopped, Some(StopReason::NothingNew));
}

#[tokio::test]
async fn a_question_with_no_facts_gets_a_clear_status() {
    let addr = web().await;
    let items = [(url(addr, "lang.example", "mirror"), "", "")];
    let items: Vec<(&str, &str, &str)> =
        items.iter().map(|(u, t, s)| (u.as_str(), *t, *s)).collect();
    for question in ["why?", "the of and", "🙂 🙂"] {
        let results = normalize_results(&rows(&items), question, None);
        match Research::builder(fetcher())
            .build()
            .run_with_results(question, results, &options())
            .await
        {
            Ok(report) => {
                assert_ne!(
                    report.evidence_status,
                    EvidenceStatus::Partial,
                    "{question}"
                );
                if report.evidence_status != EvidenceStatus::Sufficient {
                    assert!(!report.agent_action.is_empty());
                }
            }
            Err(e) => assert!(!e.to_string().is_empty(), "{question}"),
        }
    }
}

#[tokio::test]
async fn a_100000_character_question_is_refused_or_answered_never_a_panic() {
    let addr = web().await;
    let question = "Is the Lumen 3 mirror made of beryllium? ".repeat(2_500);
    assert!(question.len() >= 100_000);
    let items = [(url(addr, "lang.example", "mirror"), "", "")];
    let items: Vec<(&str, &str, &str)> =
        items.iter().map(|(u, t, s)| (u.as_str(), *t, *s)).collect();
    let results = normalize_results(&rows(&items), &question, None);
    match Research::builder(fetcher())
        .build()
        .run_with_results(&question, results, &options())
        .await
    {
        Ok(report) => assert!(!report.agent_action.is_empty()),
        Err(e) => assert!(e.to_string().contains("long"), "{e}"),
    }
}
