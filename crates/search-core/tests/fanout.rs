//! The fanout, through its public API, with the in-process testing engines.
//! Time-dependent tests run on tokio's paused clock, so durations are exact
//! and the tests take no wall time.

use ferret_core::Provenance;
use ferret_core::Runtime;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::fanout::{
    Fanout, FanoutError, FanoutOutcome, FanoutRequest, PendingCall, Progress, ProgressEvent,
};
use ferret_core::testing::{CountingEngine, FailingEngine, FlakyEngine, SlowEngine, StaticEngine};
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineReport, EngineRequest,
    EngineResponse, EngineStatus, ErrorKind, Intent, Mode,
};
use tokio::time::Instant;

const SECOND: Duration = Duration::from_secs(1);

fn report<'a>(outcome: &'a FanoutOutcome, name: &str) -> &'a EngineReport {
    outcome
        .reports
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no report for {name}: {:?}", outcome.reports))
}

fn kind_engine(name: &str, kind: EngineKind) -> StaticEngine {
    StaticEngine::new(name, 2).with_capabilities(EngineCapabilities::new(kind))
}

fn one_query(mode: Mode) -> FanoutRequest {
    FanoutRequest::from_queries(mode, ["rust async runtime"])
}

/// An engine that records how many of its calls run at once.
#[derive(Debug, Clone)]
struct GaugeEngine {
    name: String,
    delay: Duration,
    current: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

impl GaugeEngine {
    fn new(name: &str, delay: Duration, current: Arc<AtomicUsize>, peak: Arc<AtomicUsize>) -> Self {
        GaugeEngine {
            name: name.into(),
            delay,
            current,
            peak,
        }
    }
}

#[async_trait]
impl Engine for GaugeEngine {
    fn name(&self) -> &str {
        &self.name
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        let now = self.current.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(self.delay).await;
        self.current.fetch_sub(1, Ordering::SeqCst);
        Ok(EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![EngineHit::new(
                1,
                format!("https://{}.example/{}", self.name, request.query.len()),
                "gauge",
                "",
            )],
        ))
    }
}

/// An engine whose call never ends and which notes when its future is dropped.
#[derive(Debug, Clone)]
struct DropWatchEngine {
    dropped: Arc<AtomicBool>,
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[async_trait]
impl Engine for DropWatchEngine {
    fn name(&self) -> &str {
        "watched"
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, _request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        let _guard = SetOnDrop(Arc::clone(&self.dropped));
        std::future::pending::<()>().await;
        Ok(EngineResponse::empty(Provenance::public(Runtime::Http)))
    }
}

/// An engine with a bug: it panics on every call.
#[derive(Debug)]
struct PanickingEngine;

#[async_trait]
impl Engine for PanickingEngine {
    fn name(&self) -> &str {
        "buggy"
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, _request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        panic!("index out of range in the result parser");
    }
}

/// An engine that returns an AI answer and a warning with its hits.
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
            vec![EngineHit::new(1, "https://tavily.example/a", "A", "")],
        );
        response.answer = Some(format!("answer to {}", request.query));
        response.warnings.push("freshness not pushed down".into());
        Ok(response)
    }
}

/// An engine that echoes the request it received as a hit title.
#[derive(Debug)]
struct EchoEngine;

#[async_trait]
impl Engine for EchoEngine {
    fn name(&self) -> &str {
        "echo"
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        Ok(EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![EngineHit::new(
                1,
                "https://echo.example/",
                serde_json::to_string(request).map_err(|e| EngineError::parse(e.to_string()))?,
                "",
            )],
        ))
    }
}

// --- concurrency -----------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn eight_engines_with_delay_d_finish_in_about_d() {
    let d = Duration::from_millis(300);
    let mut builder = Fanout::builder();
    for i in 0..8 {
        builder = builder.engine(StaticEngine::new(format!("e{i}"), 3).with_delay(d));
    }
    let fanout = builder.build().unwrap();
    let t0 = Instant::now();
    let outcome = fanout.run(&one_query(Mode::Deep)).await.unwrap();
    let took = t0.elapsed();
    assert!(took >= d, "{took:?}");
    assert!(took < 2 * d, "ran one after another: {took:?}");
    assert_eq!(outcome.calls.len(), 8);
    assert!(
        outcome
            .reports
            .iter()
            .all(|r| r.status == EngineStatus::Ok && r.count == 3)
    );
    assert!(!outcome.deadline_hit);
}

#[tokio::test(start_paused = true)]
async fn concurrency_limit_bounds_calls_in_flight() {
    let current = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let d = Duration::from_millis(100);
    let mut builder = Fanout::builder().concurrency(3);
    for i in 0..4 {
        builder = builder.engine(GaugeEngine::new(
            &format!("g{i}"),
            d,
            Arc::clone(&current),
            Arc::clone(&peak),
        ));
    }
    let fanout = builder.build().unwrap();
    let request = FanoutRequest::from_queries(Mode::Fast, ["a", "bb", "ccc"]);
    let t0 = Instant::now();
    let outcome = fanout.run(&request).await.unwrap();
    assert_eq!(peak.load(Ordering::SeqCst), 3);
    assert_eq!(outcome.calls.len(), 12);
    // 12 calls, 3 at a time, 100 ms each.
    assert_eq!(t0.elapsed(), 4 * d);
}

#[tokio::test(start_paused = true)]
async fn default_concurrency_is_eight() {
    let current = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let mut builder = Fanout::builder();
    for i in 0..12 {
        builder = builder.engine(GaugeEngine::new(
            &format!("g{i}"),
            Duration::from_millis(10),
            Arc::clone(&current),
            Arc::clone(&peak),
        ));
    }
    let fanout = builder.build().unwrap();
    assert_eq!(fanout.concurrency(), 8);
    fanout.run(&one_query(Mode::Fast)).await.unwrap();
    assert_eq!(peak.load(Ordering::SeqCst), 8);
}

// --- timeouts and the deadline ----------------------------------------------

#[tokio::test(start_paused = true)]
async fn per_engine_timeout_reports_timeout_while_others_return() {
    let fanout = Fanout::builder()
        .engine(SlowEngine::new("slow", Duration::from_secs(60)))
        .engine(StaticEngine::new("fast", 4))
        .timeout(SECOND)
        .build()
        .unwrap();
    let outcome = fanout.run(&one_query(Mode::Fast)).await.unwrap();
    let slow = report(&outcome, "slow");
    assert_eq!(slow.status, EngineStatus::Timeout);
    assert_eq!(slow.error_kind, Some(ErrorKind::Timeout));
    assert_eq!(slow.message.as_deref(), Some("timed out after 1000 ms"));
    assert_eq!(slow.elapsed_ms, 1000);
    assert_eq!((slow.calls, slow.failed_calls), (1, 1));
    assert_eq!(report(&outcome, "fast").status, EngineStatus::Ok);
    assert_eq!(outcome.calls.len(), 1);
    assert_eq!(outcome.calls[0].engine, "fast");
    assert!(!outcome.deadline_hit);
}

#[tokio::test(start_paused = true)]
async fn default_timeouts_are_8_s_and_20_s_for_llm_backed_engines() {
    let mut llm_caps = EngineCapabilities::new(EngineKind::Llm);
    llm_caps.llm_backed = true;
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("web", 1).with_delay(Duration::from_secs(9)))
        .engine(
            StaticEngine::new("grok", 1)
                .with_capabilities(llm_caps)
                .with_delay(Duration::from_secs(15)),
        )
        .deadline(Duration::from_secs(60))
        .build()
        .unwrap();
    assert_eq!(fanout.timeout_for("web"), Some(Duration::from_secs(8)));
    assert_eq!(fanout.timeout_for("grok"), Some(Duration::from_secs(20)));
    let outcome = fanout.run(&one_query(Mode::Deep)).await.unwrap();
    assert_eq!(report(&outcome, "web").status, EngineStatus::Timeout);
    assert_eq!(report(&outcome, "grok").status, EngineStatus::Ok);
}

#[tokio::test(start_paused = true)]
async fn per_engine_override_beats_the_kind_default() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("patient", 1).with_delay(Duration::from_secs(12)))
        .engine(StaticEngine::new("hasty", 1).with_delay(Duration::from_secs(2)))
        .engine_timeout("patient", Duration::from_secs(15))
        .engine_timeout("hasty", SECOND)
        .build()
        .unwrap();
    let outcome = fanout.run(&one_query(Mode::Fast)).await.unwrap();
    assert_eq!(report(&outcome, "patient").status, EngineStatus::Ok);
    assert_eq!(report(&outcome, "hasty").status, EngineStatus::Timeout);
}

#[tokio::test(start_paused = true)]
async fn global_deadline_returns_partial_results_and_cancels_hanging_calls() {
    let dropped = Arc::new(AtomicBool::new(false));
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 3))
        .engine(SlowEngine::hanging("hangs"))
        .engine(DropWatchEngine {
            dropped: Arc::clone(&dropped),
        })
        .engine(StaticEngine::new("late", 2).with_delay(Duration::from_secs(5)))
        .timeout(Duration::from_secs(30))
        .deadline(Duration::from_secs(2))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let outcome = fanout.run(&one_query(Mode::Fast)).await.unwrap();
    assert_eq!(t0.elapsed(), Duration::from_secs(2));
    assert!(outcome.deadline_hit);
    assert!(
        dropped.load(Ordering::SeqCst),
        "the hanging call was not cancelled"
    );

    assert_eq!(report(&outcome, "brave").status, EngineStatus::Ok);
    assert_eq!(outcome.calls.len(), 1);
    for name in ["hangs", "watched", "late"] {
        let r = report(&outcome, name);
        assert_eq!(r.status, EngineStatus::Timeout, "{name}");
        assert_eq!(r.error_kind, Some(ErrorKind::Timeout));
        let message = r.message.as_deref().unwrap();
        assert!(message.contains("global deadline of 2 s"), "{message}");
        assert_eq!(r.elapsed_ms, 2000);
    }
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("global deadline") && w.contains("3 calls were cancelled")),
        "{:?}",
        outcome.warnings
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_deadline_overrides_the_configured_one() {
    let fanout = Fanout::builder()
        .engine(SlowEngine::hanging("hangs"))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let outcome = fanout
        .run(&one_query(Mode::Fast).with_deadline(Duration::from_millis(250)))
        .await
        .unwrap();
    assert_eq!(t0.elapsed(), Duration::from_millis(250));
    assert!(outcome.deadline_hit);
    assert!(
        report(&outcome, "hangs")
            .message
            .as_deref()
            .unwrap()
            .contains("250 ms")
    );
}

#[tokio::test(start_paused = true)]
async fn calls_waiting_for_a_slot_at_the_deadline_are_reported_as_timeouts() {
    let fanout = Fanout::builder()
        .engine(SlowEngine::hanging("first"))
        .engine(StaticEngine::new("queued", 2))
        .concurrency(1)
        .deadline(SECOND)
        .build()
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let outcome = fanout
        .run_with_progress(&one_query(Mode::Fast), &Progress::channel(tx))
        .await
        .unwrap();
    let queued = report(&outcome, "queued");
    assert_eq!(queued.status, EngineStatus::Timeout);
    assert_eq!(queued.elapsed_ms, 0);
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    assert!(
        !events.iter().any(
            |e| matches!(e, ProgressEvent::EngineStarted { engine, .. } if engine == "queued")
        )
    );
    let pending = events
        .iter()
        .find_map(|e| match e {
            ProgressEvent::DeadlineReached { pending, .. } => Some(pending.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        pending,
        vec![
            PendingCall {
                engine: "first".into(),
                sub_query: "rust async runtime".into(),
                sub_query_index: 0
            },
            PendingCall {
                engine: "queued".into(),
                sub_query: "rust async runtime".into(),
                sub_query_index: 0
            },
        ]
    );
}

// --- failures ---------------------------------------------------------------

fn error_of(kind: ErrorKind) -> EngineError {
    let message = format!("{kind} from the test");
    match kind {
        ErrorKind::RateLimited => EngineError::RateLimited {
            retry_after: Some(Duration::from_secs(3)),
            message,
        },
        ErrorKind::BotDetected => EngineError::BotDetected { message },
        ErrorKind::Captcha => EngineError::Captcha { message },
        ErrorKind::AccessDenied => EngineError::AccessDenied { message },
        ErrorKind::Auth => EngineError::Auth { message },
        ErrorKind::Quota => EngineError::Quota { message },
        ErrorKind::Timeout => EngineError::Timeout { after: SECOND },
        ErrorKind::Transport => EngineError::transport(message),
        ErrorKind::Parse => EngineError::parse(message),
        ErrorKind::InvalidQuery => EngineError::invalid_query(message),
        ErrorKind::Unsupported => EngineError::Unsupported { message },
        ErrorKind::CircuitOpen => EngineError::CircuitOpen {
            retry_after: Some(Duration::from_secs(30)),
            message,
        },
    }
}

#[tokio::test]
async fn failing_engines_are_reported_with_their_error_kind() {
    let mut builder = Fanout::builder().engine(StaticEngine::new("healthy", 2));
    for kind in ErrorKind::ALL {
        builder = builder.engine(FailingEngine::new(format!("fails-{kind}"), error_of(kind)));
    }
    let fanout = builder.build().unwrap();
    let outcome = fanout
        .run(&FanoutRequest::from_queries(Mode::Fast, ["q1", "q2"]))
        .await
        .unwrap();
    assert_eq!(report(&outcome, "healthy").status, EngineStatus::Ok);
    assert_eq!(outcome.calls.len(), 2);
    for kind in ErrorKind::ALL {
        let error = error_of(kind);
        let r = report(&outcome, &format!("fails-{kind}"));
        let expected_status = match kind {
            ErrorKind::Timeout => EngineStatus::Timeout,
            ErrorKind::CircuitOpen => EngineStatus::CircuitOpen,
            _ => EngineStatus::Error,
        };
        assert_eq!(r.status, expected_status, "{kind}");
        assert_eq!(r.error_kind, Some(kind));
        assert_eq!((r.calls, r.failed_calls, r.count), (2, 2, 0));
        assert_eq!(
            r.message.as_deref(),
            Some(format!("2 of 2 calls failed; first (sub-query 0): {error}").as_str())
        );
    }
    assert_eq!(outcome.failures.len(), 2 * ErrorKind::ALL.len());
}

#[tokio::test]
async fn an_engine_with_one_successful_call_is_ok_with_its_failures_counted() {
    let flaky = FlakyEngine::new("flaky", 1, EngineError::transport("503"), 3);
    let fanout = Fanout::builder()
        .engine(flaky.clone())
        .concurrency(1)
        .build()
        .unwrap();
    let outcome = fanout
        .run(&FanoutRequest::from_queries(
            Mode::Fast,
            ["first", "second"],
        ))
        .await
        .unwrap();
    let r = report(&outcome, "flaky");
    assert_eq!(r.status, EngineStatus::Ok);
    assert_eq!(r.error_kind, None);
    assert_eq!((r.calls, r.failed_calls, r.count), (2, 1, 3));
    assert!(
        r.message
            .as_deref()
            .unwrap()
            .contains("1 of 2 calls failed")
    );
    assert_eq!(flaky.calls(), 2);
    assert_eq!(outcome.calls.len(), 1);
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(outcome.failures[0].kind, Some(ErrorKind::Transport));
}

#[tokio::test]
async fn a_panicking_engine_is_reported_not_propagated() {
    let fanout = Fanout::builder()
        .engine(PanickingEngine)
        .engine(StaticEngine::new("brave", 2))
        .build()
        .unwrap();
    let outcome = fanout.run(&one_query(Mode::Fast)).await.unwrap();
    let r = report(&outcome, "buggy");
    assert_eq!(r.status, EngineStatus::Error);
    assert_eq!(r.error_kind, None);
    let message = r.message.as_deref().unwrap();
    assert!(message.contains("panicked"), "{message}");
    assert!(
        message.contains("index out of range in the result parser"),
        "{message}"
    );
    assert_eq!(report(&outcome, "brave").status, EngineStatus::Ok);
    assert_eq!(outcome.calls.len(), 1);
}

// --- the mode matrix ----------------------------------------------------------

const ALL_KINDS: [EngineKind; 10] = [
    EngineKind::Web,
    EngineKind::Neural,
    EngineKind::Answer,
    EngineKind::Llm,
    EngineKind::Scraper,
    EngineKind::Reference,
    EngineKind::Code,
    EngineKind::Local,
    EngineKind::External,
    EngineKind::Browser,
];

/// The documented mode matrix, written out independently of the library's table.
fn expected_runs(kind: EngineKind, mode: Mode, neural_configured: bool) -> bool {
    match kind {
        EngineKind::Neural => matches!(mode, Mode::Fast | Mode::Deep),
        EngineKind::Answer => matches!(mode, Mode::Answer | Mode::Deep),
        EngineKind::Llm => mode == Mode::Deep || (mode == Mode::Fast && !neural_configured),
        _ => true,
    }
}

#[tokio::test]
async fn mode_matrix_for_every_kind_and_mode() {
    for neural_configured in [true, false] {
        for &kind in &ALL_KINDS {
            for &mode in Mode::ALL {
                let mut builder = Fanout::builder().engine(kind_engine("probe", kind));
                if neural_configured && kind != EngineKind::Neural {
                    builder = builder.engine(kind_engine("exa", EngineKind::Neural));
                }
                let fanout = builder.build().unwrap();
                let outcome = fanout.run(&one_query(mode)).await.unwrap();
                let r = report(&outcome, "probe");
                let runs = expected_runs(kind, mode, neural_configured);
                if runs {
                    assert_eq!(r.status, EngineStatus::Ok, "{kind:?} in {mode}");
                    assert_eq!(r.calls, 1);
                } else {
                    assert_eq!(r.status, EngineStatus::Skipped, "{kind:?} in {mode}");
                    assert_eq!(r.calls, 0);
                    let reason = r.message.as_deref().unwrap();
                    assert!(reason.contains(&format!("mode {mode}")), "{reason}");
                }
            }
        }
    }
}

#[tokio::test]
async fn fast_mode_falls_back_to_the_llm_engine_only_without_a_neural_engine() {
    let without = Fanout::builder()
        .engine(kind_engine("brave", EngineKind::Web))
        .engine(kind_engine("grok", EngineKind::Llm))
        .engine(kind_engine("tavily", EngineKind::Answer))
        .build()
        .unwrap();
    let outcome = without.run(&one_query(Mode::Fast)).await.unwrap();
    assert_eq!(report(&outcome, "grok").status, EngineStatus::Ok);
    assert_eq!(report(&outcome, "tavily").status, EngineStatus::Skipped);

    let with = Fanout::builder()
        .engine(kind_engine("brave", EngineKind::Web))
        .engine(kind_engine("exa", EngineKind::Neural))
        .engine(kind_engine("grok", EngineKind::Llm))
        .build()
        .unwrap();
    let outcome = with.run(&one_query(Mode::Fast)).await.unwrap();
    assert_eq!(report(&outcome, "exa").status, EngineStatus::Ok);
    let grok = report(&outcome, "grok");
    assert_eq!(grok.status, EngineStatus::Skipped);
    assert_eq!(
        grok.message.as_deref(),
        Some("mode fast uses llm engines only when no neural engine is configured, and `exa` is")
    );
}

#[tokio::test]
async fn an_engine_of_several_kinds_runs_when_any_kind_does() {
    let mut caps = EngineCapabilities::new(EngineKind::Answer);
    caps.kinds.push(EngineKind::Web);
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("hybrid", 1).with_capabilities(caps))
        .build()
        .unwrap();
    let outcome = fanout.run(&one_query(Mode::Fast)).await.unwrap();
    assert_eq!(report(&outcome, "hybrid").status, EngineStatus::Ok);
}

// --- explicit selection -------------------------------------------------------

#[tokio::test]
async fn explicitly_selected_engines_run_whatever_the_mode() {
    let fanout = Fanout::builder()
        .engine(kind_engine("brave", EngineKind::Web))
        .engine(kind_engine("exa", EngineKind::Neural))
        .engine(kind_engine("tavily", EngineKind::Answer))
        .build()
        .unwrap();
    let request = one_query(Mode::Fast).with_engines(["Tavily", " exa "]);
    let outcome = fanout.run(&request).await.unwrap();
    assert_eq!(report(&outcome, "tavily").status, EngineStatus::Ok);
    assert_eq!(report(&outcome, "exa").status, EngineStatus::Ok);
    let brave = report(&outcome, "brave");
    assert_eq!(brave.status, EngineStatus::Skipped);
    assert_eq!(
        brave.message.as_deref(),
        Some("not selected (engines chosen: Tavily,exa)")
    );
    let engines: Vec<&str> = outcome.calls.iter().map(|c| c.engine.as_str()).collect();
    assert_eq!(engines, vec!["exa", "tavily"]);
}

#[tokio::test]
async fn an_empty_selection_runs_nothing_and_says_so() {
    let counting = CountingEngine::new(StaticEngine::new("brave", 2));
    let fanout = Fanout::builder().engine(counting.clone()).build().unwrap();
    let outcome = fanout
        .run(&one_query(Mode::Fast).with_engines(Vec::<String>::new()))
        .await
        .unwrap();
    assert_eq!(counting.calls(), 0);
    assert_eq!(report(&outcome, "brave").status, EngineStatus::Skipped);
    assert!(outcome.calls.is_empty());
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("every engine was skipped")),
        "{:?}",
        outcome.warnings
    );
}

#[tokio::test]
async fn unknown_engine_names_are_an_error_listing_the_known_ones() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 1))
        .engine(StaticEngine::new("exa", 1))
        .build()
        .unwrap();
    let err = fanout
        .run(&one_query(Mode::Fast).with_engines(["brave", "bing", "yandex"]))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        FanoutError::UnknownEngines {
            unknown: vec!["bing".into(), "yandex".into()],
            known: vec!["brave".into(), "exa".into()],
        }
    );
    assert_eq!(
        err.to_string(),
        "unknown engines `bing`, `yandex`; configured engines: brave, exa"
    );
}

// --- configuration errors ----------------------------------------------------

#[test]
fn builder_rejects_bad_configuration() {
    let dup = Fanout::builder()
        .engine(StaticEngine::new("brave", 1))
        .engine(StaticEngine::new("brave", 2))
        .build()
        .unwrap_err();
    assert_eq!(
        dup,
        FanoutError::DuplicateEngine {
            name: "brave".into()
        }
    );
    assert_eq!(
        Fanout::builder().concurrency(0).build().unwrap_err(),
        FanoutError::ZeroConcurrency
    );
    assert!(matches!(
        Fanout::builder()
            .deadline(Duration::ZERO)
            .build()
            .unwrap_err(),
        FanoutError::ZeroDuration { .. }
    ));
    let unknown = Fanout::builder()
        .engine(StaticEngine::new("brave", 1))
        .engine_timeout("exa", SECOND)
        .build()
        .unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "a timeout is set for engine `exa`, which is not configured; configured engines: brave"
    );
}

#[tokio::test]
async fn no_sub_queries_is_an_error() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 1))
        .build()
        .unwrap();
    let err = fanout
        .run(&FanoutRequest::new(Mode::Fast, Vec::new()))
        .await
        .unwrap_err();
    assert_eq!(err, FanoutError::NoSubQueries);
}

// --- order, answers, warnings --------------------------------------------------

/// A small deterministic generator for "random" delays.
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

#[tokio::test(start_paused = true)]
async fn calls_come_in_configuration_order_whatever_the_finish_order() {
    for mut seed in [1_u64, 7, 42, 1234, 99_999] {
        let names: Vec<String> = (0..6).map(|i| format!("engine-{i}")).collect();
        let mut builder = Fanout::builder();
        for name in &names {
            let delay = Duration::from_millis(lcg(&mut seed) % 1000);
            builder = builder.engine(StaticEngine::new(name.clone(), 2).with_delay(delay));
        }
        let fanout = builder.build().unwrap();
        let queries = ["alpha", "beta", "gamma"];
        let outcome = fanout
            .run(&FanoutRequest::from_queries(Mode::Deep, queries))
            .await
            .unwrap();
        let got: Vec<(String, usize, String)> = outcome
            .calls
            .iter()
            .map(|c| (c.engine.clone(), c.sub_query_index, c.sub_query.clone()))
            .collect();
        let want: Vec<(String, usize, String)> = names
            .iter()
            .flat_map(|n| {
                queries
                    .iter()
                    .enumerate()
                    .map(move |(i, q)| (n.clone(), i, q.to_string()))
            })
            .collect();
        assert_eq!(got, want, "seed {seed}");
        let report_names: Vec<&str> = outcome.reports.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            report_names,
            names.iter().map(String::as_str).collect::<Vec<_>>()
        );
    }
}

#[tokio::test]
async fn requests_are_sent_with_the_fanout_mode_and_their_options() {
    let fanout = Fanout::builder().engine(EchoEngine).build().unwrap();
    let request = FanoutRequest::new(
        Mode::Deep,
        vec![
            EngineRequest::new("rust news")
                .with_intent(Intent::News)
                .with_max_results(5),
        ],
    );
    let outcome = fanout.run(&request).await.unwrap();
    let sent: EngineRequest =
        serde_json::from_str(&outcome.calls[0].response.hits[0].title).unwrap();
    assert_eq!(sent.mode, Mode::Deep);
    assert_eq!(sent.intent, Some(Intent::News));
    assert_eq!(sent.max_results, 5);
}

#[tokio::test]
async fn answers_and_engine_warnings_are_collected() {
    let fanout = Fanout::builder().engine(AnsweringEngine).build().unwrap();
    let outcome = fanout
        .run(&FanoutRequest::from_queries(Mode::Answer, ["what is rrf"]))
        .await
        .unwrap();
    assert_eq!(outcome.answers.len(), 1);
    assert_eq!(outcome.answers[0].engine, "tavily");
    assert_eq!(outcome.answers[0].text, "answer to what is rrf");
    assert_eq!(
        outcome.warnings,
        vec!["tavily: freshness not pushed down".to_string()]
    );
}

// --- progress -------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn progress_events_come_in_a_sensible_order() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 2).with_delay(Duration::from_millis(30)))
        .engine(kind_engine("tavily", EngineKind::Answer))
        .engine(FailingEngine::new(
            "ddg",
            EngineError::BotDetected {
                message: "anomaly page".into(),
            },
        ))
        .engine(SlowEngine::hanging("hangs"))
        .deadline(SECOND)
        .build()
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let request = FanoutRequest::from_queries(Mode::Fast, ["q0", "q1"]);
    let outcome = fanout
        .run_with_progress(&request, &Progress::channel(tx))
        .await
        .unwrap();
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }

    // Skips first.
    assert_eq!(
        events[0],
        ProgressEvent::EngineSkipped {
            engine: "tavily".into(),
            reason: "mode fast does not use answer engines (answer engines run in: deep, answer)"
                .into()
        }
    );
    // Every started call ends (finished or failed) after it starts, except
    // the ones the deadline cancelled.
    for (engine, qi) in [("brave", 0), ("brave", 1), ("ddg", 0), ("ddg", 1)] {
        let start = events
            .iter()
            .position(|e| matches!(e, ProgressEvent::EngineStarted { engine: n, sub_query_index: i, .. } if n == engine && *i == qi))
            .unwrap_or_else(|| panic!("no start for {engine}/{qi}"));
        let end = events
            .iter()
            .position(|e| match e {
                ProgressEvent::EngineFinished {
                    engine: n,
                    sub_query_index: i,
                    ..
                }
                | ProgressEvent::EngineFailed {
                    engine: n,
                    sub_query_index: i,
                    ..
                } => n == engine && *i == qi,
                _ => false,
            })
            .unwrap_or_else(|| panic!("no end for {engine}/{qi}"));
        assert!(start < end, "{engine}/{qi}");
    }
    assert!(events.iter().any(|e| matches!(
        e,
        ProgressEvent::EngineFailed { engine, kind: Some(ErrorKind::BotDetected), .. } if engine == "ddg"
    )));
    assert!(events.iter().any(|e| matches!(
        e,
        ProgressEvent::EngineFinished { engine, count: 2, elapsed_ms: 30, .. } if engine == "brave"
    )));
    // The deadline, then the end.
    let n = events.len();
    assert!(matches!(
        &events[n - 2],
        ProgressEvent::DeadlineReached { deadline_ms: 1000, pending } if pending.len() == 2
    ));
    assert_eq!(
        events[n - 1],
        ProgressEvent::FanoutFinished {
            elapsed_ms: 1000,
            ok_calls: 2,
            failed_calls: 4,
            deadline_hit: true,
        }
    );
    assert!(outcome.deadline_hit);
}

#[tokio::test]
async fn progress_goes_to_a_callback_too() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let progress = Progress::callback(move |e: &ProgressEvent| {
        sink.lock()
            .unwrap()
            .push(serde_json::to_value(e).unwrap()["type"].clone());
    });
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 1))
        .build()
        .unwrap();
    fanout
        .run_with_progress(&one_query(Mode::Fast), &progress)
        .await
        .unwrap();
    let types: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        types,
        vec!["engine_started", "engine_finished", "fanout_finished"]
    );
}

// --- serde ------------------------------------------------------------------------

#[test]
fn progress_events_round_trip_with_a_snake_case_type_tag() {
    let events = vec![
        ProgressEvent::Planned {
            intent: Intent::Status,
            mode: Mode::Deep,
            sub_queries: vec!["deno latest 2026".into()],
        },
        ProgressEvent::EngineStarted {
            engine: "exa".into(),
            sub_query: "q".into(),
            sub_query_index: 0,
        },
        ProgressEvent::EngineFinished {
            engine: "exa".into(),
            sub_query: "q".into(),
            sub_query_index: 0,
            count: 5,
            elapsed_ms: 12,
        },
        ProgressEvent::EngineFailed {
            engine: "ddg".into(),
            sub_query: "q".into(),
            sub_query_index: 1,
            kind: Some(ErrorKind::RateLimited),
            message: "rate limited: slow down".into(),
            elapsed_ms: 3,
        },
        ProgressEvent::EngineFailed {
            engine: "buggy".into(),
            sub_query: "q".into(),
            sub_query_index: 1,
            kind: None,
            message: "engine panicked".into(),
            elapsed_ms: 0,
        },
        ProgressEvent::EngineSkipped {
            engine: "tavily".into(),
            reason: "mode fast does not use answer engines".into(),
        },
        ProgressEvent::DeadlineReached {
            deadline_ms: 20_000,
            pending: vec![PendingCall {
                engine: "grok".into(),
                sub_query: "q".into(),
                sub_query_index: 0,
            }],
        },
        ProgressEvent::FanoutFinished {
            elapsed_ms: 20_000,
            ok_calls: 3,
            failed_calls: 1,
            deadline_hit: true,
        },
        ProgressEvent::Fused {
            results: 12,
            elapsed_ms: 20_004,
        },
    ];
    let expected_tags = [
        "planned",
        "engine_started",
        "engine_finished",
        "engine_failed",
        "engine_failed",
        "engine_skipped",
        "deadline_reached",
        "fanout_finished",
        "fused",
    ];
    for (event, tag) in events.iter().zip(expected_tags) {
        let json = serde_json::to_value(event).unwrap();
        assert_eq!(json["type"], tag);
        let back: ProgressEvent = serde_json::from_value(json).unwrap();
        assert_eq!(&back, event);
    }
    let failed = serde_json::to_value(&events[3]).unwrap();
    assert_eq!(failed["kind"], "rate_limited");
    assert!(
        serde_json::to_value(&events[4])
            .unwrap()
            .get("kind")
            .is_none()
    );
}

#[tokio::test(start_paused = true)]
async fn outcome_round_trips_through_json() {
    let fanout = Fanout::builder()
        .engine(StaticEngine::new("brave", 2))
        .engine(AnsweringEngine)
        .engine(FailingEngine::new("quota", error_of(ErrorKind::Quota)))
        .engine(SlowEngine::hanging("hangs"))
        .deadline(SECOND)
        .build()
        .unwrap();
    let outcome = fanout.run(&one_query(Mode::Deep)).await.unwrap();
    let json = serde_json::to_string(&outcome).unwrap();
    let back: FanoutOutcome = serde_json::from_str(&json).unwrap();
    assert_eq!(back, outcome);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["reports"][2]["status"], "error");
    assert_eq!(value["reports"][2]["error_kind"], "quota");
    assert_eq!(value["reports"][3]["status"], "timeout");
}

#[test]
fn decide_explains_every_engine_without_running_anything() {
    let fanout = Fanout::builder()
        .engine(kind_engine("brave", EngineKind::Web))
        .engine(kind_engine("tavily", EngineKind::Answer))
        .build()
        .unwrap();
    let decisions = fanout.decide(Mode::Fast, None).unwrap();
    assert_eq!(decisions.len(), 2);
    assert!(decisions[0].runs && decisions[0].reason.is_none());
    assert!(!decisions[1].runs);
    assert!(decisions[1].reason.as_deref().unwrap().contains("answer"));
    assert_eq!(fanout.engine_names(), vec!["brave", "tavily"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn works_on_a_multi_threaded_runtime() {
    let fanout = Fanout::builder()
        .engine(PanickingEngine)
        .engine(StaticEngine::new("brave", 2))
        .engine(FailingEngine::new("ddg", error_of(ErrorKind::BotDetected)))
        .build()
        .unwrap();
    let outcome = fanout
        .run(&FanoutRequest::from_queries(Mode::Deep, ["a", "b", "c"]))
        .await
        .unwrap();
    let statuses: Vec<EngineStatus> = outcome.reports.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        vec![EngineStatus::Error, EngineStatus::Ok, EngineStatus::Error]
    );
    assert_eq!(outcome.calls.len(), 3);
    assert_eq!(outcome.failures.len(), 6);
}
