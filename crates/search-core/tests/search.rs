//! The search pipeline (plan → fanout → fuse → `ferret.search.v1`) through
//! its public API, with the real heuristic planner, the real fusion and the
//! in-process testing engines.

use ferret_core::Provenance;
use ferret_core::Runtime;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{TimeZone, Utc};
use ferret_core::fanout::{Fanout, FanoutError, Progress, ProgressEvent};
use ferret_core::plan::PlanError;
use ferret_core::response::{EVIDENCE_POLICY, SEARCH_SCHEMA};
use ferret_core::rows::normalize_rows;
use ferret_core::search::{SearchError, SearchOptions, Searcher};
use ferret_core::testing::{FailingEngine, SlowEngine, StaticEngine};
use ferret_core::{
    DropReason, Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineReport,
    EngineRequest, EngineResponse, EngineStatus, ErrorKind, Freshness, Intent, Mode,
    SearchResponse, Weights,
};
use serde_json::json;

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap()
}

fn options() -> SearchOptions {
    SearchOptions::new().with_now(now())
}

fn report<'a>(response: &'a SearchResponse, name: &str) -> &'a EngineReport {
    response
        .engines
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no report for {name}: {:?}", response.engines))
}

/// Records every request it receives and answers with fixed hits.
#[derive(Debug, Clone)]
struct RecordingEngine {
    name: String,
    kind: EngineKind,
    hits: Vec<EngineHit>,
    seen: Arc<Mutex<Vec<EngineRequest>>>,
}

impl RecordingEngine {
    fn new(name: &str, kind: EngineKind, hits: Vec<EngineHit>) -> Self {
        RecordingEngine {
            name: name.into(),
            kind,
            hits,
            seen: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn requests(&self) -> Vec<EngineRequest> {
        let mut seen = self.seen.lock().unwrap().clone();
        seen.sort_by(|a, b| a.query.cmp(&b.query));
        seen
    }
}

#[async_trait]
impl Engine for RecordingEngine {
    fn name(&self) -> &str {
        &self.name
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(self.kind)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        self.seen.lock().unwrap().push(request.clone());
        Ok(EngineResponse::new(
            Provenance::public(Runtime::Http),
            self.hits
                .iter()
                .take(request.max_results)
                .cloned()
                .collect(),
        ))
    }
}

/// An answer engine (Tavily-like) that writes an answer.
#[derive(Debug)]
struct AnsweringEngine;

#[async_trait]
impl Engine for AnsweringEngine {
    fn name(&self) -> &str {
        "tavily"
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Answer)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        let mut response = EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![EngineHit::new(
                1,
                "https://developer.mozilla.org/en-US/docs/Web/API/WebTransport",
                "WebTransport - Web APIs | MDN",
                "The WebTransport interface provides functionality to enable a user agent to connect to an HTTP/3 server.",
            )],
        );
        response.answer = Some(format!("{} is a web API over HTTP/3.", request.query));
        Ok(response)
    }
}

fn web_hits() -> Vec<EngineHit> {
    vec![
        EngineHit::new(
            1,
            "https://tokio.rs/tokio/tutorial",
            "Tutorial | Tokio - An asynchronous Rust runtime",
            "Tokio is an asynchronous runtime for the Rust programming language.",
        ),
        EngineHit::new(
            2,
            "https://www.reddit.com/r/rust/comments/abc/which_async_runtime/",
            "Which async runtime should I use? : r/rust",
            "Discussion of tokio, async-std and smol runtimes for async Rust.",
        ),
        EngineHit::new(
            3,
            "https://docs.rs/tokio/latest/tokio/runtime/index.html",
            "tokio::runtime - Rust",
            "The Tokio runtime: an I/O driver, a scheduler and a timer for async Rust.",
        ),
    ]
}

fn neural_hits() -> Vec<EngineHit> {
    vec![
        EngineHit::new(
            1,
            "https://docs.rs/tokio/latest/tokio/runtime/index.html?utm_source=exa",
            "tokio::runtime",
            "Runtime module docs for async Rust.",
        ),
        EngineHit::new(
            2,
            "https://rust-lang.github.io/async-book/",
            "Asynchronous Programming in Rust",
            "The async book explains futures, executors and async runtimes in Rust.",
        ),
    ]
}

// --- the envelope -----------------------------------------------------------

#[tokio::test]
async fn a_search_plans_fans_out_and_fuses_into_the_envelope() {
    let brave = RecordingEngine::new("brave", EngineKind::Web, web_hits());
    let exa = RecordingEngine::new("exa", EngineKind::Neural, neural_hits());
    let fanout = Fanout::builder()
        .engine(brave.clone())
        .engine(exa.clone())
        .engine(AnsweringEngine)
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let response = searcher
        .search(
            "rust async runtime",
            &options().with_intent(Intent::Exploratory),
        )
        .await
        .unwrap();

    assert_eq!(response.schema, SEARCH_SCHEMA);
    assert_eq!(response.evidence_policy, EVIDENCE_POLICY);
    assert_eq!(response.query, "rust async runtime");
    assert_eq!(response.intent, Intent::Exploratory);
    // The planner's sub-queries were each sent to every running engine.
    assert!(!response.sub_queries.is_empty());
    assert_eq!(response.sub_queries[0], "rust async runtime");
    let sent: Vec<String> = brave.requests().into_iter().map(|r| r.query).collect();
    let mut planned = response.sub_queries.clone();
    planned.sort();
    assert_eq!(sent, planned);

    // One report per configured engine, in configuration order.
    let names: Vec<&str> = response.engines.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["brave", "exa", "tavily"]);
    assert_eq!(report(&response, "brave").status, EngineStatus::Ok);
    assert_eq!(report(&response, "brave").calls, response.sub_queries.len());

    // The docs.rs page came from both engines and was merged by canonical URL.
    let docs = response
        .results
        .iter()
        .find(|r| r.url.contains("docs.rs/tokio"))
        .expect("docs.rs result");
    let engines = docs.consensus_engines();
    assert!(
        engines.contains(&"brave") && engines.contains(&"exa"),
        "{engines:?}"
    );
    assert_eq!(
        response
            .results
            .iter()
            .filter(|r| r.url.contains("docs.rs/tokio"))
            .count(),
        1
    );
    // Results are ordered by their final score.
    for pair in response.results.windows(2) {
        assert!(pair[0].scores.final_score >= pair[1].scores.final_score);
    }
    assert!(!response.deadline_hit);
}

#[tokio::test]
async fn the_intent_decides_the_mode_and_the_mode_decides_the_engines() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 2))
        .engine(
            StaticEngine::new("exa", 2)
                .with_capabilities(EngineCapabilities::new(EngineKind::Neural)),
        )
        .engine(AnsweringEngine)
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();

    // Factual → answer mode: Tavily runs, Exa does not.
    let factual = searcher
        .search("what is WebTransport", &options())
        .await
        .unwrap();
    assert_eq!(factual.intent, Intent::Factual);
    assert_eq!(factual.mode, Mode::Answer);
    assert_eq!(report(&factual, "tavily").status, EngineStatus::Ok);
    assert_eq!(report(&factual, "exa").status, EngineStatus::Skipped);
    assert!(!factual.answers.is_empty());
    assert_eq!(factual.answers[0].engine, "tavily");

    // The caller's mode wins over the intent's.
    let fast = searcher
        .search("what is WebTransport", &options().with_mode(Mode::Fast))
        .await
        .unwrap();
    assert_eq!(fast.mode, Mode::Fast);
    assert_eq!(report(&fast, "tavily").status, EngineStatus::Skipped);
    assert_eq!(report(&fast, "exa").status, EngineStatus::Ok);
    assert!(fast.answers.is_empty());
}

#[tokio::test]
async fn options_reach_every_engine_request() {
    let brave = RecordingEngine::new("brave", EngineKind::Web, web_hits());
    let fanout = Fanout::builder().engine(brave.clone()).build().unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let response = searcher
        .search(
            "tokio runtime",
            &options()
                .with_intent(Intent::News)
                .with_freshness(Some(Freshness::Pm))
                .with_max_results(2)
                .with_language("de")
                .with_site("docs.rs")
                .with_sub_queries(["tokio runtime", "  tokio   1.40 release "]),
        )
        .await
        .unwrap();
    assert_eq!(
        response.sub_queries,
        vec![
            "tokio runtime".to_string(),
            "tokio 1.40 release".to_string()
        ]
    );
    assert_eq!(response.freshness, Some(Freshness::Pm));
    let requests = brave.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(r.intent, Some(Intent::News));
        assert_eq!(r.mode, response.mode);
        assert_eq!(r.freshness, Some(Freshness::Pm));
        assert_eq!(r.max_results, 2);
        assert_eq!(r.language.as_deref(), Some("de"));
        assert_eq!(r.site.as_deref(), Some("docs.rs"));
    }
    assert_eq!(report(&response, "brave").count, 4);
}

#[tokio::test]
async fn freshness_can_be_turned_off() {
    let brave = RecordingEngine::new("brave", EngineKind::Web, web_hits());
    let fanout = Fanout::builder().engine(brave.clone()).build().unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let with_plan = searcher
        .search("rust news this week", &options().with_max_sub_queries(1))
        .await
        .unwrap();
    assert_eq!(with_plan.intent, Intent::News);
    assert!(with_plan.freshness.is_some(), "news plans a window");
    let off = searcher
        .search(
            "rust news this week",
            &options().with_max_sub_queries(1).with_freshness(None),
        )
        .await
        .unwrap();
    assert_eq!(off.freshness, None);
    assert!(brave.requests().iter().any(|r| r.freshness.is_none()));
}

// --- failures never fail the search --------------------------------------------

#[tokio::test(start_paused = true)]
async fn failing_and_hanging_engines_leave_partial_results() {
    let fanout = Fanout::builder()
        .engine(RecordingEngine::new("brave", EngineKind::Web, web_hits()))
        .engine(FailingEngine::new(
            "ddg",
            EngineError::BotDetected {
                message: "anomaly page".into(),
            },
        ))
        .engine(SlowEngine::hanging("hangs"))
        .timeout(Duration::from_secs(30))
        .deadline(Duration::from_secs(3))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let response = searcher
        .search("rust async runtime", &options().with_max_sub_queries(2))
        .await
        .unwrap();
    assert!(response.deadline_hit);
    assert_eq!(response.results.len(), 3);
    assert_eq!(report(&response, "brave").status, EngineStatus::Ok);
    let ddg = report(&response, "ddg");
    assert_eq!(ddg.status, EngineStatus::Error);
    assert_eq!(ddg.error_kind, Some(ErrorKind::BotDetected));
    let hangs = report(&response, "hangs");
    assert_eq!(hangs.status, EngineStatus::Timeout);
    assert!(
        hangs
            .message
            .as_deref()
            .unwrap()
            .contains("global deadline")
    );
    assert!(
        response
            .warnings
            .iter()
            .any(|w| w.contains("global deadline"))
    );
    assert_eq!(response.elapsed_ms, 3000);
}

// --- errors -------------------------------------------------------------------

#[tokio::test]
async fn an_unknown_engine_name_is_an_error() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 1))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let err = searcher
        .search("rust", &options().with_engines(["bing"]))
        .await
        .unwrap_err();
    assert!(matches!(
        &err,
        SearchError::Fanout(FanoutError::UnknownEngines { unknown, known })
            if unknown == &["bing"] && known == &["brave"]
    ));
    assert_eq!(
        err.to_string(),
        "unknown engine `bing`; configured engines: brave"
    );
}

#[tokio::test]
async fn an_empty_query_is_a_plan_error() {
    let searcher = Searcher::builder().build();
    let err = searcher.search("   ", &options()).await.unwrap_err();
    assert_eq!(err, SearchError::Plan(PlanError::EmptyQuery));
}

#[tokio::test]
async fn out_of_range_options_are_errors_naming_the_option() {
    let searcher = Searcher::builder().build();
    for (opts, option) in [
        (options().with_max_results(0), "max_results"),
        (options().with_max_results(1000), "max_results"),
        (options().with_limit(0), "limit"),
        (options().with_sub_queries(["  ", ""]), "sub_queries"),
        (options().with_deadline(Duration::ZERO), "deadline"),
    ] {
        let err = searcher.search("rust", &opts).await.unwrap_err();
        assert!(
            matches!(err, SearchError::InvalidOption { option: o, .. } if o == option),
            "{err}"
        );
    }
    let err = searcher
        .search("rust", &options().with_max_sub_queries(0))
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        SearchError::Plan(PlanError::InvalidOption { .. })
    ));
}

// --- the caller's rows ----------------------------------------------------------

fn stdin_rows() -> serde_json::Value {
    json!({
        "results": [
            {"url": "https://tokio.rs/tokio/tutorial", "title": "Tokio tutorial", "snippet": "Learn async Rust with Tokio."},
            {"link": "https://blog.rust-lang.org/2026/01/01/async.html", "title": "Async Rust in 2026", "description": "Where async Rust stands."},
            {"title": "no url at all"},
            {"url": "https://tokio.rs/tokio/tutorial#setup", "title": "Tokio tutorial again"}
        ]
    })
}

#[tokio::test]
async fn rows_are_fused_with_engine_results() {
    let fanout = Fanout::builder()
        .engine(RecordingEngine::new("brave", EngineKind::Web, web_hits()))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let rows = normalize_rows(&stdin_rows(), "rust async runtime");
    assert_eq!(rows.dropped.len(), 2);
    let response = searcher
        .search_with_calls(
            "rust async runtime",
            rows.calls,
            rows.dropped,
            &options().with_max_sub_queries(1),
        )
        .await
        .unwrap();
    let names: Vec<&str> = response.engines.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["brave", "rows"]);
    let rows_report = report(&response, "rows");
    assert_eq!(rows_report.status, EngineStatus::Ok);
    assert_eq!(rows_report.count, 2);
    // The tutorial came from brave and from the rows: one result, two engines.
    let tutorial = response
        .results
        .iter()
        .find(|r| r.url.contains("tokio.rs/tokio/tutorial"))
        .unwrap();
    assert_eq!(tutorial.consensus_engines(), vec!["brave", "rows"]);
    assert_eq!(response.results.len(), 4);
    let reasons: Vec<DropReason> = response.dropped.iter().map(|d| d.reason).collect();
    assert_eq!(
        reasons,
        vec![DropReason::MissingOrInvalidUrl, DropReason::DuplicateUrl]
    );
}

#[tokio::test]
async fn rows_alone_are_fused_when_no_engine_runs() {
    let brave = RecordingEngine::new("brave", EngineKind::Web, web_hits());
    let fanout = Fanout::builder().engine(brave.clone()).build().unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let rows = normalize_rows(&stdin_rows(), "rust async runtime");
    let response = searcher
        .search_with_calls(
            "rust async runtime",
            rows.calls,
            rows.dropped,
            &options().without_engines(),
        )
        .await
        .unwrap();
    assert!(brave.requests().is_empty());
    assert_eq!(report(&response, "brave").status, EngineStatus::Skipped);
    assert_eq!(response.results.len(), 2);
    assert!(
        response
            .results
            .iter()
            .all(|r| r.consensus_engines() == ["rows"]),
        "{:?}",
        response.results
    );
    assert!(
        !response.warnings.iter().any(|w| w.contains("skipped")),
        "{:?}",
        response.warnings
    );

    // A searcher with no engines at all fuses rows the same way.
    let bare = Searcher::builder().build();
    let rows = normalize_rows(&stdin_rows(), "rust async runtime");
    let response = bare
        .search_with_calls("rust async runtime", rows.calls, Vec::new(), &options())
        .await
        .unwrap();
    assert_eq!(response.results.len(), 2);
    assert_eq!(response.engines.len(), 1);
    assert!(response.warnings.is_empty(), "{:?}", response.warnings);
}

#[tokio::test]
async fn with_no_engine_and_no_rows_the_response_says_nothing_was_searched() {
    let searcher = Searcher::builder().build();
    let response = searcher.search("rust", &options()).await.unwrap();
    assert!(response.results.is_empty());
    assert!(
        response
            .warnings
            .iter()
            .any(|w| w.contains("no engines are configured")),
        "{:?}",
        response.warnings
    );
}

#[tokio::test]
async fn hits_without_a_usable_url_are_reported_as_dropped() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::with_hits(
            "brave",
            vec![
                EngineHit::new(1, "https://tokio.rs/", "Tokio", "async runtime"),
                EngineHit::new(2, "not a url", "Broken", "a broken hit"),
            ],
        ))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let response = searcher
        .search("tokio", &options().with_sub_queries(["tokio"]))
        .await
        .unwrap();
    assert_eq!(response.results.len(), 1);
    assert_eq!(response.dropped.len(), 1);
    assert_eq!(response.dropped[0].engine.as_deref(), Some("brave"));
    assert_eq!(response.dropped[0].url.as_deref(), Some("not a url"));
    assert_eq!(response.dropped[0].reason, DropReason::MissingOrInvalidUrl);
}

// --- scoring inputs ---------------------------------------------------------------

#[tokio::test]
async fn caller_domain_boosts_raise_authority() {
    let fanout = Fanout::builder()
        .engine(RecordingEngine::new("brave", EngineKind::Web, web_hits()))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let base = options()
        .with_intent(Intent::Exploratory)
        .with_sub_queries(["rust async runtime"]);
    let plain = searcher.search("rust async runtime", &base).await.unwrap();
    let boosted = searcher
        .search(
            "rust async runtime",
            &base.clone().with_domain_boosts(["reddit.com"]),
        )
        .await
        .unwrap();
    let authority = |r: &SearchResponse| {
        r.results
            .iter()
            .find(|x| x.url.contains("reddit.com"))
            .unwrap()
            .scores
            .authority
    };
    assert!(
        authority(&boosted) > authority(&plain),
        "{} vs {}",
        authority(&boosted),
        authority(&plain)
    );
}

#[tokio::test]
async fn caller_weights_replace_the_intents() {
    let fanout = Fanout::builder()
        .engine(RecordingEngine::new("brave", EngineKind::Web, web_hits()))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let keyword_only = searcher
        .search(
            "rust async runtime",
            &options()
                .with_sub_queries(["rust async runtime"])
                .with_weights(Weights::new(1.0, 0.0, 0.0)),
        )
        .await
        .unwrap();
    for r in &keyword_only.results {
        let intent_half = r.scores.final_score - 0.5 * r.scores.rrf / max_rrf(&keyword_only);
        assert!(
            (intent_half - 0.5 * r.scores.keyword).abs() < 1e-9,
            "{}: {:?}",
            r.url,
            r.scores
        );
    }
}

fn max_rrf(r: &SearchResponse) -> f64 {
    r.results.iter().map(|x| x.scores.rrf).fold(0.0, f64::max)
}

#[tokio::test]
async fn limit_keeps_the_best_results() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 8))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let all = searcher
        .search("rust", &options().with_sub_queries(["rust"]))
        .await
        .unwrap();
    let two = searcher
        .search("rust", &options().with_sub_queries(["rust"]).with_limit(2))
        .await
        .unwrap();
    assert_eq!(all.results.len(), 8);
    assert_eq!(two.results, all.results[..2].to_vec());
}

#[tokio::test(start_paused = true)]
async fn the_same_search_gives_the_same_results_whatever_the_finish_order() {
    let build = |delays: [u64; 2]| {
        let fanout = Fanout::builder()
            .engine(RecordingEngine::new("brave", EngineKind::Web, web_hits()))
            .engine(
                StaticEngine::with_hits("exa", neural_hits())
                    .with_capabilities(EngineCapabilities::new(EngineKind::Neural))
                    .with_delay(Duration::from_millis(delays[0])),
            )
            .engine(StaticEngine::new("searxng", 4).with_delay(Duration::from_millis(delays[1])))
            .build()
            .unwrap();
        Searcher::builder().fanout(fanout).build()
    };
    let a = build([10, 900])
        .search("rust async runtime", &options())
        .await
        .unwrap();
    let b = build([900, 10])
        .search("rust async runtime", &options())
        .await
        .unwrap();
    assert_eq!(a.results, b.results);
}

// --- progress and serde ---------------------------------------------------------

#[tokio::test]
async fn progress_runs_from_planned_to_fused() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 3))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let response = searcher
        .search(
            "rust async runtime",
            &options().with_progress(Progress::channel(tx)),
        )
        .await
        .unwrap();
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    assert!(matches!(
        &events[0],
        ProgressEvent::Planned { sub_queries, .. } if *sub_queries == response.sub_queries
    ));
    assert!(matches!(
        events.last().unwrap(),
        ProgressEvent::Fused { results, .. } if *results == response.results.len()
    ));
    let finished = events
        .iter()
        .filter(|e| matches!(e, ProgressEvent::EngineFinished { .. }))
        .count();
    assert_eq!(finished, response.sub_queries.len());
    assert!(matches!(
        events[events.len() - 2],
        ProgressEvent::FanoutFinished { .. }
    ));
}

#[tokio::test(start_paused = true)]
async fn the_response_round_trips_through_json() {
    let fanout = Fanout::builder()
        .engine(RecordingEngine::new("brave", EngineKind::Web, web_hits()))
        .engine(AnsweringEngine)
        .engine(FailingEngine::new(
            "ddg",
            EngineError::RateLimited {
                retry_after: None,
                message: "slow down".into(),
            },
        ))
        .engine(SlowEngine::hanging("hangs"))
        .deadline(Duration::from_secs(1))
        .build()
        .unwrap();
    let searcher = Searcher::builder().fanout(fanout).build();
    let rows = normalize_rows(&stdin_rows(), "what is tokio");
    let response = searcher
        .search_with_calls("what is tokio", rows.calls, rows.dropped, &options())
        .await
        .unwrap();
    assert!(!response.results.is_empty());
    assert!(!response.answers.is_empty());
    assert!(!response.dropped.is_empty());
    let json = serde_json::to_string_pretty(&response).unwrap();
    let back: SearchResponse = serde_json::from_str(&json).unwrap();
    assert_eq!(back, response);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["schema"], "ferret.search.v1");
    assert_eq!(value["evidence_policy"], "snippets-are-not-final-evidence");
    assert_eq!(value["deadline_hit"], true);
    let ddg = value["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "ddg")
        .unwrap();
    assert_eq!(ddg["status"], "error");
    assert_eq!(ddg["error_kind"], "rate_limited");
}
