//! The research loop end to end against a local web (127.0.0.1 under
//! public-looking names): the evidence decision, the ledger fed only by
//! fetched pages, browse plans, deep escalation through a local
//! OpenAI-compatible server, the search path with a real `Searcher`, and
//! the step-by-step JSON surface.

mod research_support;

use ferret_core::Provenance;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::post;
use ferret_core::fanout::Fanout;
use ferret_core::search::{SearchOptions, Searcher};
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    Runtime,
};
use ferret_engines::llm::ChatClient;
use ferret_evidence::fetch::BrowserMode;
use ferret_evidence::ledger::{ConstraintStatus, LedgerStatus};
use ferret_evidence::research::{
    self, BrowsePlanOptions, BrowseReason, DeepEscalation, EnrichOptions, Enrichment,
    EvidenceStatus, LocalDocuments, NextStepKind, NormalizedResults, ReadFrom, Research,
    ResearchError, ResearchOptions, ResearchReport, SkipReason, browse_plan, normalize_results,
};
use ferret_evidence::verify::Verdict;
use research_support::*;
use serde_json::{Value, json};

fn options() -> ResearchOptions {
    ResearchOptions::new()
        .with_browser(BrowserMode::Never)
        .with_text(true)
        .with_now(now())
}

async fn run_rows(
    research: &Research,
    items: &[(&str, &str, &str)],
    options: &ResearchOptions,
) -> ResearchReport {
    let results = normalize_results(&rows(items), QUESTION, None);
    research
        .run_with_results(QUESTION, results, options)
        .await
        .expect("research runs")
}

/// Every ledger quote (support and refutation) is a verbatim slice of its
/// page's fetched text, and at most 200 characters.
fn assert_quotes_verbatim(report: &ResearchReport) {
    for c in &report.enrichment.ledger.constraints {
        for e in c.evidence.iter().chain(&c.refutations) {
            let candidate = report
                .enrichment
                .candidates
                .iter()
                .find(|cand| cand.final_url == e.url)
                .expect("the evidence names a fetched candidate");
            let field = candidate.text.as_deref().expect("text kept");
            assert_eq!(&field[e.quote.start..e.quote.end], e.quote.text);
            assert!(e.quote.text.chars().count() <= 200);
        }
    }
}

#[tokio::test]
async fn constraints_supported_by_fetched_pages_are_sufficient() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let mirror = web.url("lang.example", "/lumen/mirror");
    let cryo = web.url("news.example", "/lumen/cryo");
    let report = run_rows(
        &research,
        &[
            (&mirror, "Lumen 3 mirror", "about the mirror"),
            (&cryo, "Cooling", "about cooling"),
        ],
        &options(),
    )
    .await;

    assert_eq!(report.schema, "ferret.research.v1");
    assert_eq!(
        report.evidence_status,
        EvidenceStatus::Sufficient,
        "{:#?}",
        report.ledger
    );
    assert_eq!(report.agent_action, "answer from fetched evidence");
    assert!(report.ledger.ready);
    assert_eq!(report.ledger.status, LedgerStatus::Complete);
    assert_eq!(
        report.ledger.supported,
        vec!["c1".to_string(), "c2".to_string()]
    );
    assert!(report.deep.is_none());

    let ledger = &report.enrichment.ledger;
    let c1 = ledger.constraint("c1").unwrap();
    assert_eq!(c1.status, ConstraintStatus::Supported);
    assert_eq!(c1.evidence[0].url, mirror);
    assert!(
        c1.evidence[0]
            .quote
            .text
            .contains("primary mirror made of beryllium")
    );
    let c2 = ledger.constraint("c2").unwrap();
    assert_eq!(c2.evidence.len(), 1);
    assert_eq!(c2.evidence[0].url, cryo);
    assert!(c2.evidence[0].quote.text.contains("cooled below 40 kelvin"));
    assert_quotes_verbatim(&report);

    // Candidates carry rank, URL, verdict and score fields.
    let first = &report.enrichment.candidates[0];
    assert_eq!(first.rank, 1);
    assert_eq!(first.url, mirror);
    assert_eq!(first.verdict, Some(Verdict::StrongOk));
    assert!(first.ok);
    assert_eq!(first.read_from, ReadFrom::Web);
    assert!(
        first
            .text_excerpt
            .as_deref()
            .unwrap()
            .starts_with("The Lumen 3 telescope")
    );
    assert_eq!(first.constraint_ids, vec!["c1".to_string()]);
    assert!(!first.highlights.is_empty());
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["evidence_status"], "sufficient");
    assert_eq!(json["enrichment"]["candidates"][0]["verdict"], "strong_ok");
    assert_eq!(json["enrichment"]["candidates"][0]["source"], "fetch");
    assert_eq!(json["escalation"]["needed"], false);
    assert_eq!(json["deep"], Value::Null);

    // The default scorer graded each piece of support, every component shown.
    let score = c1.evidence[0].score.as_ref().expect("scored");
    assert_eq!(score.scorer, "selection_x_absorption_v2.2");
    for name in [
        "selection",
        "absorption",
        "freshness",
        "original",
        "authority",
        "term_coverage",
    ] {
        assert!(
            score.component(name).is_some(),
            "{name} missing: {score:#?}"
        );
    }
    let weighted: f64 = score
        .components
        .iter()
        .filter_map(|c| c.weight.map(|w| w * c.value))
        .sum();
    assert!((weighted - score.score).abs() < 0.002, "{score:#?}");
    // Published 2026-03-10, "now" 2026-06-01: an exact date this year.
    assert_eq!(score.component("freshness").unwrap().value, 0.9);
    let cross = c1.cross_validation.as_ref().expect("cross-validated");
    assert_eq!((cross.matching, cross.total), (1, 2));
    assert_eq!(cross.level, "weak");

    // Citations bind each constraint to a ≤ 80-character verbatim quote.
    let citations = report.enrichment.citations.as_ref().expect("citations");
    assert_eq!(citations.cited, 2, "{citations:#?}");
    for c in &citations.citations {
        let q = c.quote.as_ref().unwrap();
        assert!(q.text.chars().count() <= 80);
    }
    assert!(report.enrichment.gaps.is_some());
}

#[tokio::test]
async fn a_constraint_only_search_snippets_mention_is_not_supported() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let mirror = web.url("lang.example", "/lumen/mirror");
    let press = web.url("blog.example", "/lumen/press");
    // The press page's search title and snippet claim the cooling; the page
    // itself never mentions it.
    let report = run_rows(
        &research,
        &[
            (&mirror, "Lumen 3 mirror", ""),
            (
                &press,
                "Lumen 3 is cooled below 40 kelvin",
                "The Lumen 3 mirror is cooled below 40 kelvin by a cryocooler.",
            ),
        ],
        &options(),
    )
    .await;
    assert!(!report.ledger.ready);
    assert_eq!(report.ledger.pending, vec!["c2".to_string()]);
    assert_eq!(report.ledger.status, LedgerStatus::InsufficientEvidence);
    // Both pages read strongly, nothing for a browser to do: insufficient.
    assert!(report.enrichment.candidates.iter().all(|c| c.ok));
    assert_eq!(report.evidence_status, EvidenceStatus::Insufficient);
    assert_eq!(
        report.agent_action,
        "find better candidates or use justified deep escalation"
    );
    let c2 = report.enrichment.ledger.constraint("c2").unwrap();
    assert!(c2.evidence.is_empty());
    assert!(
        report.enrichment.candidates[1]
            .snippet
            .contains("cooled below 40 kelvin")
    );
    assert_eq!(
        report.enrichment.next_step.kind,
        NextStepKind::BrowseCandidates
    );
}

#[tokio::test]
async fn does_not_let_search_result_titles_satisfy_constraints_when_fetched_page_evidence_is_empty()
{
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let empty = web.url("empty.example", "/empty");
    let report = run_rows(
        &research,
        &[(
            &empty,
            "Lumen 3 telescope mirror made of beryllium, cooled below 40 kelvin",
            "Lumen 3 telescope mirror made of beryllium and cooled below 40 kelvin.",
        )],
        &options(),
    )
    .await;
    assert!(report.enrichment.ledger.supported.is_empty());
    assert_eq!(
        report.ledger.pending,
        vec!["c1".to_string(), "c2".to_string()]
    );
    let candidate = &report.enrichment.candidates[0];
    assert!(!candidate.ok);
    // An empty page with pending constraints: fetch is insufficient, so
    // the browser should look.
    assert_eq!(report.evidence_status, EvidenceStatus::BrowseNeeded);
    assert!(
        report.escalation.actions[0]
            .reasons
            .contains(&BrowseReason::FetchInsufficientOrConstraintsPending)
    );
}

#[tokio::test]
async fn a_javascript_only_page_without_a_browser_needs_browsing() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let mirror = web.url("lang.example", "/lumen/mirror");
    let spa = web.url("spa.example", "/spa/lumen");
    let report = run_rows(
        &research,
        &[
            (&mirror, "Lumen 3 mirror", ""),
            (&spa, "Lumen 3 cryogenics", "cooled below 40 kelvin"),
        ],
        &options(),
    )
    .await;
    let candidate = &report.enrichment.candidates[1];
    assert_eq!(
        candidate.verdict,
        Some(Verdict::BrowserRequired),
        "{candidate:#?}"
    );
    assert!(candidate.chrome_required);
    assert!(!candidate.ok);
    assert_eq!(report.ledger.pending, vec!["c2".to_string()]);
    assert_eq!(report.evidence_status, EvidenceStatus::BrowseNeeded);
    assert_eq!(
        report.agent_action,
        "execute or hand off the proposed browser actions"
    );
    assert!(report.escalation.needed);
    let action = &report.escalation.actions[0];
    assert_eq!(action.url, spa);
    assert!(action.reasons.contains(&BrowseReason::DynamicPageState));
    assert!(
        action
            .commands
            .iter()
            .any(|c| c.starts_with("ferret browser fetch"))
    );
    assert_eq!(action.verify.pending_constraint_ids, vec!["c2".to_string()]);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["evidence_status"], "browse-needed");
    assert_eq!(
        json["escalation"]["actions"][0]["reasons"][0],
        "dynamic-page-state"
    );
    assert_eq!(json["escalation"]["actions"][0]["priority"], "high");
}

/// A local OpenAI-compatible server answering every completion with
/// `answer` (or failing with `status`), recording the requests.
async fn chat_server(answer: &'static str, status: StatusCode) -> (String, Arc<Mutex<Vec<Value>>>) {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let router = Router::new()
        .route(
            "/v1/chat/completions",
            post(
                move |State(seen): State<Arc<Mutex<Vec<Value>>>>, Json(body): Json<Value>| async move {
                    seen.lock().unwrap().push(body);
                    if status != StatusCode::OK {
                        return (status, "upstream exploded").into_response();
                    }
                    Json(json!({
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "model": "local-test",
                        "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": answer}}]
                    }))
                    .into_response()
                },
            ),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (format!("http://127.0.0.1:{}/v1", addr.port()), seen)
}

fn deep_research(base: &str) -> Research {
    let client = ChatClient::builder()
        .base_url(base)
        .model("local-test")
        .build()
        .expect("chat client");
    Research::builder(fetcher())
        .deep(DeepEscalation::new(client, "grok"))
        .build()
}

#[tokio::test]
async fn deep_escalation_with_text_makes_an_unready_ledger_partial() {
    let web = LocalWeb::start().await;
    let (base, seen) = chat_server(
        "<think>checking</think>The cryocooler holds 38 K, per https://lumen.example/specs/cooling.",
        StatusCode::OK,
    )
    .await;
    let research = deep_research(&base);
    let mirror = web.url("lang.example", "/lumen/mirror");
    let report = run_rows(
        &research,
        &[(&mirror, "Lumen 3 mirror", "")],
        &options().with_deep(true),
    )
    .await;

    assert_eq!(report.evidence_status, EvidenceStatus::Partial);
    let deep = report.deep.as_ref().expect("deep ran");
    assert_eq!(deep.vendor, "grok");
    assert_eq!(deep.model, "local-test");
    assert_eq!(
        deep.text.as_deref(),
        Some("The cryocooler holds 38 K, per https://lumen.example/specs/cooling.")
    );
    assert!(deep.error.is_none());
    assert_eq!(
        deep.urls,
        vec!["https://lumen.example/specs/cooling".to_string()]
    );
    assert_eq!(deep.asked_about, vec!["c2".to_string()]);
    // The ledger is untouched by model output.
    assert_eq!(report.ledger.pending, vec!["c2".to_string()]);
    assert!(
        report
            .caveats
            .iter()
            .any(|c| c.contains("not proven by fetched pages") && c.contains("c2"))
    );

    let requests = seen.lock().unwrap();
    assert_eq!(requests.len(), 1);
    let prompt = requests[0]["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("## Still Unresolved\n1. cooled below 40 kelvin"),
        "{prompt}"
    );
    assert!(prompt.contains(&mirror), "{prompt}");
    assert!(prompt.contains("Distinguish confirmed facts from inference."));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["deep"]["vendor"], "grok");
    assert_eq!(json["evidence_status"], "partial");
}

#[tokio::test]
async fn deep_escalation_never_runs_when_the_ledger_is_ready() {
    let web = LocalWeb::start().await;
    let (base, seen) = chat_server("unused", StatusCode::OK).await;
    let research = deep_research(&base);
    let mirror = web.url("lang.example", "/lumen/mirror");
    let cryo = web.url("news.example", "/lumen/cryo");
    let report = run_rows(
        &research,
        &[(&mirror, "", ""), (&cryo, "", "")],
        &options().with_deep(true),
    )
    .await;
    assert_eq!(report.evidence_status, EvidenceStatus::Sufficient);
    assert!(report.deep.is_none());
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_failing_deep_escalation_is_reported_and_does_not_count() {
    let web = LocalWeb::start().await;
    let (base, _) = chat_server("", StatusCode::INTERNAL_SERVER_ERROR).await;
    let research = deep_research(&base);
    let mirror = web.url("lang.example", "/lumen/mirror");
    let report = run_rows(&research, &[(&mirror, "", "")], &options().with_deep(true)).await;
    let deep = report.deep.as_ref().expect("deep ran");
    assert!(deep.text.is_none());
    assert!(deep.error.as_deref().is_some_and(|e| !e.is_empty()));
    assert_eq!(report.evidence_status, EvidenceStatus::Insufficient);
    assert!(
        report
            .caveats
            .iter()
            .any(|c| c.contains("deep escalation (grok) gave no text"))
    );
}

#[tokio::test]
async fn serp_pages_are_skipped_and_redirect_wrappers_followed_to_their_target() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let mirror = web.url("lang.example", "/lumen/mirror");
    let wrapped = format!("https://www.google.com/url?q={mirror}");
    let serp = "https://www.google.com/search?q=lumen+3+mirror";
    let report = run_rows(
        &research,
        &[
            (serp, "Lumen 3 mirror - Google Search", "beryllium"),
            (&wrapped, "Lumen 3 mirror", ""),
        ],
        &options().with_max_results(1),
    )
    .await;
    assert_eq!(report.enrichment.skipped.len(), 1);
    assert_eq!(
        report.enrichment.skipped[0].reason,
        SkipReason::SerpOrJumpUrl
    );
    assert_eq!(report.enrichment.skipped[0].url, serp);
    assert_eq!(report.enrichment.candidates.len(), 1);
    let candidate = &report.enrichment.candidates[0];
    assert_eq!(candidate.url, mirror);
    assert_eq!(candidate.unwrapped_from.as_deref(), Some(wrapped.as_str()));
    assert!(candidate.ok);
    assert_eq!(report.ledger.supported, vec!["c1".to_string()]);
}

#[derive(Debug)]
struct OneFile(PathBuf);

impl LocalDocuments for OneFile {
    fn path_for_url(&self, url: &str) -> Option<PathBuf> {
        url.ends_with("/notes/lumen.html").then(|| self.0.clone())
    }
}

#[tokio::test]
async fn local_index_hits_are_read_from_their_files_or_skipped() {
    let dir = std::env::temp_dir().join(format!("ferret-research-local-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lumen.html");
    std::fs::write(
        &file,
        article(
            "Lumen 3 notes",
            "2026-01-05",
            &["My notes: the Lumen 3 telescope mirror is made of beryllium, and it is cooled below 40 kelvin."],
        ),
    )
    .unwrap();
    let local_url = "https://local.invalid/home/me/notes/lumen.html";
    let other_local = "https://local.invalid/home/me/notes/other.html";
    let items = [(local_url, "notes", ""), (other_local, "other", "")];

    let without = Research::builder(fetcher()).build();
    let report = run_rows(&without, &items, &options()).await;
    assert!(report.enrichment.candidates.is_empty());
    assert!(
        report
            .enrichment
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::LocalDocumentWithoutReader)
    );

    let with = Research::builder(fetcher())
        .local_documents(Arc::new(OneFile(file.clone())))
        .build();
    let report = run_rows(&with, &items, &options()).await;
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.enrichment.candidates.len(), 1);
    let candidate = &report.enrichment.candidates[0];
    assert_eq!(candidate.read_from, ReadFrom::LocalFile);
    assert_eq!(candidate.url, local_url);
    assert_eq!(
        report.enrichment.skipped[0].reason,
        SkipReason::LocalDocumentNotIndexed
    );
    assert_eq!(
        report.evidence_status,
        EvidenceStatus::Sufficient,
        "{:#?}",
        report.enrichment.candidates
    );
}

#[tokio::test]
async fn a_local_document_that_does_not_support_the_question_gets_no_browser_action() {
    let dir = std::env::temp_dir().join(format!("ferret-research-local-nb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lumen.html");
    std::fs::write(
        &file,
        article(
            "Garden notes",
            "2026-01-05",
            &["Tomatoes need sun and water every day of the summer."],
        ),
    )
    .unwrap();
    let local_url = "https://local.invalid/home/me/notes/lumen.html";
    let research = Research::builder(fetcher())
        .local_documents(Arc::new(OneFile(file.clone())))
        .build();
    let report = run_rows(&research, &[(local_url, "notes", "")], &options()).await;
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.enrichment.candidates.len(), 1);
    assert!(!report.enrichment.ledger.ready);
    // A browser cannot read a file on disk any better than the reader did.
    assert!(
        report
            .browse_plan
            .actions
            .iter()
            .all(|a| a.url != local_url),
        "{:#?}",
        report.browse_plan.actions
    );
    assert_eq!(report.evidence_status, EvidenceStatus::Insufficient);
}

#[tokio::test]
async fn fetches_run_concurrently_within_the_bound_and_keep_rank_order() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let urls: Vec<String> = (1..=5)
        .map(|i| web.url("slow.example", &format!("/slow/{i}")))
        .collect();
    let items: Vec<(&str, &str, &str)> = urls.iter().map(|u| (u.as_str(), "", "")).collect();
    let report = run_rows(&research, &items, &options().with_concurrency(2)).await;
    assert_eq!(web.in_flight.total(), 5);
    assert!(
        web.in_flight.max() <= 2,
        "{} in flight",
        web.in_flight.max()
    );
    let ranks: Vec<u32> = report
        .enrichment
        .candidates
        .iter()
        .map(|c| c.rank)
        .collect();
    assert_eq!(ranks, vec![1, 2, 3, 4, 5]);
    let fetched: Vec<&str> = report
        .enrichment
        .candidates
        .iter()
        .map(|c| c.url.as_str())
        .collect();
    assert_eq!(fetched, urls.iter().map(String::as_str).collect::<Vec<_>>());
}

#[tokio::test]
async fn only_the_top_max_results_candidates_are_fetched() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let urls: Vec<String> = (1..=7)
        .map(|i| web.url("slow.example", &format!("/slow/{i}")))
        .collect();
    let items: Vec<(&str, &str, &str)> = urls.iter().map(|u| (u.as_str(), "", "")).collect();
    let report = run_rows(&research, &items, &options().with_rounds(1)).await;
    assert_eq!(report.enrichment.fetch_policy.max_results, 5);
    assert_eq!(report.enrichment.candidates.len(), 5);
    assert_eq!(web.in_flight.total(), 5);
    assert_eq!(report.rounds.len(), 1);
    assert_eq!(report.stopped, Some(research::StopReason::RoundsUsed));
}

#[tokio::test]
async fn a_later_round_reads_the_rows_the_first_left_unread() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let urls: Vec<String> = (1..=7)
        .map(|i| web.url("slow.example", &format!("/slow/{i}")))
        .collect();
    let items: Vec<(&str, &str, &str)> = urls.iter().map(|u| (u.as_str(), "", "")).collect();
    let report = run_rows(&research, &items, &options()).await;
    assert_eq!(report.rounds.len(), 2, "{:?}", report.rounds);
    assert_eq!(report.rounds[0].pages_read.len(), 5);
    assert_eq!(report.rounds[1].pages_read.len(), 2);
    assert_eq!(report.enrichment.candidates.len(), 7);
    assert_eq!(web.in_flight.total(), 7, "no page is fetched twice");
    assert_eq!(report.stopped, Some(research::StopReason::NothingNew));
}

/// An engine that answers each query from a table of (query word, hits).
#[derive(Debug)]
struct TableEngine {
    calls: AtomicUsize,
    direct: Vec<EngineHit>,
    disconfirm: Vec<EngineHit>,
}

#[async_trait]
impl Engine for TableEngine {
    fn name(&self) -> &str {
        "table"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let hits = if request.query.contains(" not ") {
            self.disconfirm.clone()
        } else {
            self.direct.clone()
        };
        Ok(EngineResponse::new(Provenance::public(Runtime::Http), hits))
    }
}

#[tokio::test]
async fn a_full_run_searches_the_focused_queries_and_tracks_disconfirmation() {
    let web = LocalWeb::start().await;
    let mirror = web.url("lang.example", "/lumen/mirror");
    let cryo = web.url("news.example", "/lumen/cryo");
    let myth = web.url("myth.example", "/lumen/myth");
    let engine = Arc::new(TableEngine {
        calls: AtomicUsize::new(0),
        direct: vec![
            EngineHit::new(
                1,
                mirror.clone(),
                "Lumen 3 primary mirror design",
                "beryllium",
            ),
            EngineHit::new(2, cryo.clone(), "Keeping Lumen 3 cold", "cooling"),
        ],
        disconfirm: vec![EngineHit::new(
            1,
            myth.clone(),
            "Lumen 3 myths",
            "not beryllium",
        )],
    });
    let fanout = Fanout::builder()
        .dyn_engine(engine.clone())
        .build()
        .expect("fanout");
    let searcher = Searcher::builder().fanout(fanout).build();
    let research = Research::builder(fetcher()).searcher(searcher).build();
    let report = research
        .run(
            QUESTION,
            &options().with_search(SearchOptions::new().with_engines(["table"])),
        )
        .await
        .expect("research runs");

    let plan = research::plan_with(
        QUESTION,
        &ferret_core::plan::PlanOptions::new().with_now(now()),
    )
    .unwrap();
    assert_eq!(report.rounds[0].queries, Research::search_queries(&plan));
    assert_eq!(report.search.sub_queries[0], QUESTION);
    assert!(
        report
            .search
            .sub_queries
            .iter()
            .any(|q| plan.disconfirm_queries.contains(q))
    );
    assert_eq!(report.search.backend, "ferret-search");
    assert!(engine.calls.load(Ordering::SeqCst) >= 3);

    // The myth page refutes c1: never sufficient, partial with both
    // quotes and their pages.
    assert_eq!(
        report.evidence_status,
        EvidenceStatus::Partial,
        "{:#?}",
        report.ledger
    );
    let contested = report
        .caveats
        .iter()
        .find(|c| c.starts_with("c1 is contested"))
        .expect("a contested caveat");
    assert!(
        contested.contains(&myth) && contested.contains(&mirror),
        "{contested}"
    );
    let myth_candidate = report
        .enrichment
        .candidates
        .iter()
        .find(|c| c.url == myth)
        .expect("the disconfirm page was fetched");
    assert!(myth_candidate.from_disconfirm);
    let ledger = &report.enrichment.ledger;
    assert!(ledger.disconfirm.checked);
    assert_eq!(ledger.disconfirm.pages, vec![myth.clone()]);
    assert_eq!(ledger.disconfirm.contradicting.len(), 1);
    assert_eq!(ledger.disconfirm.contradicting[0].constraint_id, "c1");
    assert!(report.ledger.contested.contains(&"c1".to_string()));
    // The gap ledger sees the disconfirm page as counter-evidence.
    let gaps = report.enrichment.gaps.as_ref().unwrap();
    let c1 = gaps.subjects.iter().find(|s| s.id == "c1").unwrap();
    assert!(!c1.counter_evidence_ids.is_empty(), "{gaps:#?}");
}

#[tokio::test]
async fn the_steps_run_one_by_one_through_json() {
    let web = LocalWeb::start().await;
    let mirror = web.url("lang.example", "/lumen/mirror");
    let spa = web.url("spa.example", "/spa/lumen");

    // research plan
    let plan = research::plan(QUESTION).unwrap();
    let plan_json = serde_json::to_string(&plan).unwrap();
    assert!(plan_json.contains("\"schema\":\"ferret.plan.v1\""));
    let plan: ferret_core::plan::Plan = serde_json::from_str(&plan_json).unwrap();

    // research normalize-results --backend brave
    let raw = json!({"web": {"results": [
        {"url": mirror, "title": "Lumen 3 mirror", "description": "beryllium"},
        {"link": spa, "name": "Lumen 3 cryogenics", "snippet": "cooling"},
        {"url": "ftp://nope.example/file", "title": "dropped"},
        {"url": mirror, "title": "duplicate"}
    ]}});
    let results = normalize_results(&raw.to_string(), &plan.query, Some("brave"));
    assert_eq!(results.schema, "ferret.results.v1");
    assert_eq!(results.backend.as_deref(), Some("brave"));
    assert_eq!(results.evidence_policy, "snippets-are-not-final-evidence");
    assert_eq!(results.results.len(), 2);
    assert_eq!(results.results[0].engines, vec!["brave".to_string()]);
    assert_eq!(results.dropped.len(), 2);
    let results_json = serde_json::to_string(&results).unwrap();
    let results = NormalizedResults::from_json(&results_json, &plan.query).unwrap();

    // research enrich-fetch: the browser default is never.
    let options = EnrichOptions::default().with_text(true).with_now(now());
    assert_eq!(options.browser, BrowserMode::Never);
    let enrichment = research::enrich_fetch(&fetcher(), &plan, &results, &options)
        .await
        .unwrap();
    assert_eq!(enrichment.schema, "ferret.enrichment.v1");
    assert_eq!(enrichment.fetch_policy.browser, BrowserMode::Never);
    assert_eq!(enrichment.ledger.pending, vec!["c2".to_string()]);
    let enrichment_json = serde_json::to_string(&enrichment).unwrap();
    let back: Enrichment = serde_json::from_str(&enrichment_json).unwrap();
    assert_eq!(back, enrichment);

    // research browse-plan, from the JSON a host kept.
    let browse = browse_plan(&plan, &back, &BrowsePlanOptions::default());
    assert_eq!(
        browse,
        browse_plan(&plan, &enrichment, &BrowsePlanOptions::default())
    );
    assert_eq!(browse.schema, "ferret.browse-plan.v1");
    assert!(browse.needs_browse);
    assert_eq!(browse.actions[0].url, spa);
    assert_eq!(browse.summary.pending, vec!["c2".to_string()]);
    let status = research::decide(&back.ledger, None, &browse);
    assert_eq!(status, EvidenceStatus::BrowseNeeded);
    let json = serde_json::to_value(&browse).unwrap();
    assert_eq!(
        json["summary"]["ledger_status_before_browse"],
        "insufficient-evidence"
    );
}

#[tokio::test]
async fn a_search_response_is_accepted_as_results() {
    let web = LocalWeb::start().await;
    let mirror = web.url("lang.example", "/lumen/mirror");
    let engine = ferret_core::testing::StaticEngine::with_hits(
        "brave",
        vec![EngineHit::new(
            1,
            mirror.clone(),
            "Lumen 3 mirror",
            "beryllium",
        )],
    );
    let fanout = Fanout::builder().engine(engine).build().unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let response = searcher
        .search(QUESTION, &SearchOptions::new().with_engines(["brave"]))
        .await
        .unwrap();
    let text = serde_json::to_string(&response).unwrap();
    let results = NormalizedResults::from_json(&text, QUESTION).unwrap();
    assert_eq!(results.backend.as_deref(), Some("ferret-search"));
    assert_eq!(results.results[0].url, mirror);
    assert!(results.results[0].score.is_some());
    let broken = r#"{"schema": "ferret.results.v1", "results": 3}"#;
    assert!(matches!(
        NormalizedResults::from_json(broken, QUESTION),
        Err(ResearchError::InvalidInput { .. })
    ));
    let garbage = NormalizedResults::from_json("not json", QUESTION).unwrap();
    assert!(garbage.results.is_empty());
    assert!(!garbage.warnings.is_empty());
}

#[tokio::test]
async fn bad_options_are_typed_errors() {
    let research = Research::builder(fetcher()).build();
    let empty = NormalizedResults::empty(QUESTION);
    let err = research
        .run_with_results(QUESTION, empty.clone(), &options().with_max_results(0))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            ResearchError::InvalidOption {
                option: "max_results",
                ..
            }
        ),
        "{err}"
    );
    let err = research
        .run_with_results(QUESTION, empty.clone(), &options().with_deep(true))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ResearchError::InvalidOption { option: "deep", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("no chat client"));
    let err = research.run(QUESTION, &options()).await.unwrap_err();
    assert!(matches!(err, ResearchError::NoSearcher));
    let err = research
        .run_with_results("   ", empty, &options())
        .await
        .unwrap_err();
    assert!(matches!(err, ResearchError::Plan(_)), "{err}");
}

#[tokio::test]
async fn no_candidates_at_all_is_insufficient_with_a_warning() {
    let research = Research::builder(fetcher()).build();
    let report = research
        .run_with_results(QUESTION, normalize_results("", QUESTION, None), &options())
        .await
        .unwrap();
    assert_eq!(report.evidence_status, EvidenceStatus::Insufficient);
    assert!(report.enrichment.candidates.is_empty());
    assert!(!report.search.warnings.is_empty());
    assert!(
        report
            .enrichment
            .warnings
            .iter()
            .any(|w| w.contains("no URL candidates"))
    );
}

#[tokio::test]
async fn an_http_error_page_is_a_verdict_not_an_error() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let forbidden = web.url("lang.example", "/forbidden");
    let report = run_rows(&research, &[(&forbidden, "t", "")], &options()).await;
    let c = &report.enrichment.candidates[0];
    assert!(!c.ok);
    assert_eq!(c.status, Some(403));
    assert_eq!(c.verdict, Some(Verdict::Blocked));
    assert!(c.error.as_deref().is_some_and(|e| e.contains("403")));
    assert_eq!(report.evidence_status, EvidenceStatus::BrowseNeeded);
}

#[tokio::test]
async fn browser_required_without_a_browser_plans_browser_work() {
    let web = LocalWeb::start().await;
    let research = Research::builder(fetcher()).build();
    let mirror = web.url("lang.example", "/lumen/mirror");
    let report = run_rows(
        &research,
        &[(&mirror, "Lumen 3 mirror", "")],
        &options().with_browser(BrowserMode::Required),
    )
    .await;
    let c = &report.enrichment.candidates[0];
    assert!(!c.ok);
    assert!(c.chrome_required, "{c:#?}");
    assert!(c.error.is_some());
    assert_eq!(
        report.enrichment.fetch_policy.browser,
        BrowserMode::Required
    );
    assert_eq!(report.evidence_status, EvidenceStatus::BrowseNeeded);
    assert!(
        report.escalation.actions[0]
            .reasons
            .contains(&BrowseReason::DynamicPageState)
    );
}
