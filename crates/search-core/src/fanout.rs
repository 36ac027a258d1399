//! The fanout: every sub-query × every engine that takes part, run
//! concurrently under per-engine timeouts, a concurrency limit and one global
//! deadline, with one [`EngineReport`] per configured engine.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use ferret_core::fanout::{Fanout, FanoutRequest};
//! use ferret_core::testing::StaticEngine;
//! use ferret_core::{EngineStatus, Mode};
//!
//! let fanout = Fanout::builder()
//!     .engine(StaticEngine::new("brave", 3))
//!     .engine(StaticEngine::new("searxng", 2))
//!     .build()
//!     .unwrap();
//! let outcome = fanout
//!     .run(&FanoutRequest::from_queries(Mode::Fast, ["rust async", "tokio guide"]))
//!     .await
//!     .unwrap();
//! assert_eq!(outcome.calls.len(), 4);
//! assert!(outcome.reports.iter().all(|r| r.status == EngineStatus::Ok));
//! # });
//! ```
//!
//! # Which engines run: the mode → source matrix
//!
//! Decided from each engine's [`EngineCapabilities::kinds`], kept as data
//! in [`MODE_MATRIX`]:
//!
//! | kind                                                       | fast                              | deep | answer |
//! |------------------------------------------------------------|-----------------------------------|------|--------|
//! | web, scraper, reference, code, local, external, browser    | ✅                                | ✅   | ✅     |
//! | neural (Exa)                                               | ✅                                | ✅   | ❌     |
//! | answer (Tavily)                                            | ❌                                | ✅   | ✅     |
//! | llm (Grok)                                                 | only when no neural engine is configured | ✅ | ❌ |
//!
//! An engine with several kinds runs when any of them does; one that
//! declares no kind runs in every mode. Engines the caller names explicitly
//! ([`FanoutRequest::engines`], the CLI's `--engines a,b`) run whatever the
//! mode, and the others are skipped; an unknown name is
//! [`FanoutError::UnknownEngines`], listing the known ones. A skipped engine
//! gets a report with status `skipped` and the reason.
//!
//! # Time
//!
//! - Each call is bounded by its engine's timeout: 8 s by default, 20 s for
//!   engines whose capabilities say `llm_backed`, or a per-engine override.
//!   An expired call is [`EngineError::Timeout`].
//! - At most [`FanoutBuilder::concurrency`] calls are in flight (default 8,
//!   one shared semaphore); the rest wait for a slot.
//! - One global deadline (default 20 s) bounds the whole fanout: calls still
//!   running or waiting are cancelled (their futures dropped), reported as
//!   `timeout` with a message saying the global deadline hit, and the results
//!   that did arrive are returned with [`FanoutOutcome::deadline_hit`] set.
//!
//! # Failure isolation
//!
//! A failing, hanging or panicking engine never fails the fanout: one
//! source's failure never blocks the others. Each call runs in its own
//! tokio task (the fanout needs a tokio runtime with its timer); an engine
//! that panics (a bug in its adapter) is reported as `error` with the panic
//! message. An engine is `ok` when any of its calls succeeded.
//!
//! # Order
//!
//! [`FanoutOutcome::calls`] is in configuration order — engine order, then
//! sub-query order — never the order calls finished, so fusion is
//! deterministic. Reports are in engine configuration order.
//!
//! # Observability
//!
//! Every call runs in a `tracing` span `engine_call` (engine, sub-query
//! index, query) inside a `fanout` span; [`Progress`] streams
//! [`ProgressEvent`]s to a channel or a callback.

mod matrix;
mod progress;

pub use matrix::{MODE_MATRIX, MatrixRow, Participation, participation};
pub use progress::{PendingCall, Progress, ProgressEvent};

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tracing::Instrument;

use crate::engine::{DynEngine, Engine, EngineCapabilities, EngineRequest, EngineResponse};
use crate::error::{EngineError, ErrorKind};
use crate::query::Mode;
use crate::response::{EngineAnswer, EngineCall, EngineReport, EngineStatus};

/// The default per-call timeout of an engine.
pub const DEFAULT_ENGINE_TIMEOUT: Duration = Duration::from_secs(8);
/// The default per-call timeout of an engine whose capabilities say
/// `llm_backed`.
pub const DEFAULT_LLM_TIMEOUT: Duration = Duration::from_secs(20);
/// The default global deadline of one fanout.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(20);
/// The default number of calls in flight at once.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// How long to wait for cancelled calls to be dropped after the deadline.
const CANCEL_GRACE: Duration = Duration::from_millis(50);

/// A fanout that cannot be built or run as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FanoutError {
    /// Two configured engines share a name; reports and `--engines` need
    /// unique names.
    #[error("two engines are named `{name}`; give each engine a unique name")]
    DuplicateEngine {
        /// The repeated name.
        name: String,
    },
    /// A timeout override names an engine that is not configured.
    #[error("a timeout is set for engine `{name}`, which is not configured; {}", known_list(.known))]
    TimeoutForUnknownEngine {
        /// The name given.
        name: String,
        /// The configured engines.
        known: Vec<String>,
    },
    /// A duration was zero.
    #[error("the {what} is 0; give a positive duration")]
    ZeroDuration {
        /// Which duration.
        what: String,
    },
    /// The concurrency limit was zero.
    #[error("the concurrency limit is 0; allow at least one call in flight")]
    ZeroConcurrency,
    /// The caller named engines that are not configured.
    #[error("unknown engine{} {}; {}", if .unknown.len() == 1 { "" } else { "s" }, quoted(.unknown), known_list(.known))]
    UnknownEngines {
        /// The names that matched no engine.
        unknown: Vec<String>,
        /// The configured engines.
        known: Vec<String>,
    },
    /// There was nothing to search for.
    #[error("no sub-queries to run; give at least one query")]
    NoSubQueries,
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        "no engines are configured".to_string()
    } else {
        format!("configured engines: {}", known.join(", "))
    }
}

/// A duration for people: whole seconds as `20 s`, otherwise `1500 ms`.
fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Builds a [`Fanout`]; see [`Fanout::builder`].
#[derive(Debug, Clone)]
pub struct FanoutBuilder {
    engines: Vec<DynEngine>,
    timeout: Duration,
    llm_timeout: Duration,
    overrides: Vec<(String, Duration)>,
    deadline: Duration,
    concurrency: usize,
}

impl Default for FanoutBuilder {
    fn default() -> Self {
        FanoutBuilder {
            engines: Vec::new(),
            timeout: DEFAULT_ENGINE_TIMEOUT,
            llm_timeout: DEFAULT_LLM_TIMEOUT,
            overrides: Vec::new(),
            deadline: DEFAULT_DEADLINE,
            concurrency: DEFAULT_CONCURRENCY,
        }
    }
}

impl FanoutBuilder {
    /// Add an engine (configuration order is the order of calls and reports).
    pub fn engine(mut self, engine: impl Engine + 'static) -> Self {
        self.engines.push(Arc::new(engine));
        self
    }

    /// Add a shared engine.
    pub fn dyn_engine(mut self, engine: DynEngine) -> Self {
        self.engines.push(engine);
        self
    }

    /// Add several shared engines, in order.
    pub fn engines(mut self, engines: impl IntoIterator<Item = DynEngine>) -> Self {
        self.engines.extend(engines);
        self
    }

    /// The per-call timeout of engines that are not LLM-backed (default 8 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The per-call timeout of LLM-backed engines (default 20 s).
    pub fn llm_timeout(mut self, timeout: Duration) -> Self {
        self.llm_timeout = timeout;
        self
    }

    /// The per-call timeout of the engine named `name`, whatever its kind.
    pub fn engine_timeout(mut self, name: impl Into<String>, timeout: Duration) -> Self {
        self.overrides.push((name.into(), timeout));
        self
    }

    /// The global deadline of one fanout (default 20 s).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// The most calls in flight at once (default 8).
    pub fn concurrency(mut self, limit: usize) -> Self {
        self.concurrency = limit;
        self
    }

    /// Check the configuration and build the fanout.
    pub fn build(self) -> Result<Fanout, FanoutError> {
        if self.concurrency == 0 {
            return Err(FanoutError::ZeroConcurrency);
        }
        for (what, d) in [
            ("engine timeout", self.timeout),
            ("LLM engine timeout", self.llm_timeout),
            ("global deadline", self.deadline),
        ] {
            if d.is_zero() {
                return Err(FanoutError::ZeroDuration { what: what.into() });
            }
        }
        let mut slots: Vec<EngineSlot> = Vec::with_capacity(self.engines.len());
        for engine in self.engines {
            let name = engine.name().to_string();
            if slots.iter().any(|s| s.name == name) {
                return Err(FanoutError::DuplicateEngine { name });
            }
            let capabilities = engine.capabilities();
            let timeout = if capabilities.llm_backed {
                self.llm_timeout
            } else {
                self.timeout
            };
            slots.push(EngineSlot {
                name,
                engine,
                capabilities,
                timeout,
            });
        }
        for (name, timeout) in self.overrides {
            if timeout.is_zero() {
                return Err(FanoutError::ZeroDuration {
                    what: format!("timeout of engine `{name}`"),
                });
            }
            match slots.iter_mut().find(|s| s.name == name) {
                Some(slot) => slot.timeout = timeout,
                None => {
                    return Err(FanoutError::TimeoutForUnknownEngine {
                        name,
                        known: slots.iter().map(|s| s.name.clone()).collect(),
                    });
                }
            }
        }
        Ok(Fanout {
            engines: slots,
            deadline: self.deadline,
            concurrency: self.concurrency,
        })
    }
}

#[derive(Debug, Clone)]
struct EngineSlot {
    name: String,
    engine: DynEngine,
    capabilities: EngineCapabilities,
    timeout: Duration,
}

/// Runs sub-queries × engines concurrently; see the [module docs](self).
///
/// Cheap to share: hold it in an `Arc` or clone it (engines are shared).
#[derive(Debug, Clone)]
pub struct Fanout {
    engines: Vec<EngineSlot>,
    deadline: Duration,
    concurrency: usize,
}

impl Fanout {
    /// The global deadline a search gets when it sets none.
    pub fn deadline_budget(&self) -> Duration {
        self.deadline
    }
}

/// One fanout's input: the mode, one request per sub-query, and optionally
/// an explicit engine selection and a deadline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FanoutRequest {
    /// The mode that decides which engines run. Every request is sent with
    /// this mode, whatever its own `mode` field says.
    pub mode: Mode,
    /// One request per sub-query, in plan order.
    pub requests: Vec<EngineRequest>,
    /// Engines named explicitly: only these run, whatever the mode (an
    /// empty list runs none). `None`: the mode matrix decides. Names are
    /// matched case-insensitively.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engines: Option<Vec<String>>,
    /// A global deadline for this fanout instead of the configured one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Duration>,
}

impl FanoutRequest {
    /// A request in `mode` with these per-sub-query requests.
    pub fn new(mode: Mode, requests: Vec<EngineRequest>) -> Self {
        FanoutRequest {
            mode,
            requests,
            engines: None,
            deadline: None,
        }
    }

    /// A request in `mode` with default options for each query.
    pub fn from_queries<I, S>(mode: Mode, queries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let requests = queries
            .into_iter()
            .map(|q| EngineRequest::new(q).with_mode(mode))
            .collect();
        FanoutRequest::new(mode, requests)
    }

    /// Run only these engines, whatever the mode.
    pub fn with_engines<I, S>(mut self, engines: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.engines = Some(engines.into_iter().map(Into::into).collect());
        self
    }

    /// Use this global deadline.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }
}

/// Whether one configured engine runs in a fanout, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineDecision {
    /// The engine's name.
    pub engine: String,
    /// Whether it runs.
    pub runs: bool,
    /// Why it does not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One failed call, with enough detail to explain an engine's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedCall {
    /// The engine's name.
    pub engine: String,
    /// The sub-query text.
    pub sub_query: String,
    /// Position of the sub-query in the plan (0-based).
    pub sub_query_index: usize,
    /// The error kind; absent when the engine panicked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ErrorKind>,
    /// What went wrong.
    pub message: String,
    /// Time the call took, in ms.
    pub elapsed_ms: u64,
}

/// What a fanout produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FanoutOutcome {
    /// Successful calls in configuration order (engine order × sub-query
    /// order), never completion order.
    pub calls: Vec<EngineCall>,
    /// One report per configured engine, in configuration order.
    pub reports: Vec<EngineReport>,
    /// Every failed, timed-out or cancelled call, in configuration order.
    pub failures: Vec<FailedCall>,
    /// AI answers engines returned, in configuration order.
    pub answers: Vec<EngineAnswer>,
    /// Warnings from engines (prefixed with the engine's name) and from the
    /// fanout itself.
    pub warnings: Vec<String>,
    /// Whether the global deadline cut the fanout short.
    pub deadline_hit: bool,
    /// Time the fanout took, in ms.
    pub elapsed_ms: u64,
}

/// How one call ended.
enum CallEnd {
    Ok(EngineResponse),
    Failed(EngineError),
    Panicked(String),
    Deadline,
}

struct CallResult {
    end: CallEnd,
    elapsed: Duration,
}

/// One scheduled call: which engine slot and which sub-query.
struct Scheduled {
    slot: usize,
    sub_query: usize,
    started: Arc<OnceLock<Instant>>,
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}

impl Default for Fanout {
    /// A fanout with no engines and the default settings.
    fn default() -> Self {
        Fanout {
            engines: Vec::new(),
            deadline: DEFAULT_DEADLINE,
            concurrency: DEFAULT_CONCURRENCY,
        }
    }
}

impl Fanout {
    /// A builder with the defaults: no engines, 8 s per call (20 s for
    /// LLM-backed engines), a 20 s deadline, 8 calls in flight.
    pub fn builder() -> FanoutBuilder {
        FanoutBuilder::default()
    }

    /// The configured engines, in order.
    pub fn engines(&self) -> impl Iterator<Item = &DynEngine> {
        self.engines.iter().map(|s| &s.engine)
    }

    /// The configured engines' names, in order.
    pub fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|s| s.name.clone()).collect()
    }

    /// The per-call timeout of the engine named `name`, if it is configured.
    pub fn timeout_for(&self, name: &str) -> Option<Duration> {
        self.engines
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.timeout)
    }

    /// The configured global deadline.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// The configured concurrency limit.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Which engines would run in `mode` (or with this explicit selection),
    /// in configuration order, with the reason for each one skipped.
    pub fn decide(
        &self,
        mode: Mode,
        selection: Option<&[String]>,
    ) -> Result<Vec<EngineDecision>, FanoutError> {
        match selection {
            Some(names) => {
                let names: Vec<&str> = names
                    .iter()
                    .map(|n| n.trim())
                    .filter(|n| !n.is_empty())
                    .collect();
                let unknown: Vec<String> = names
                    .iter()
                    .filter(|n| !self.engines.iter().any(|s| s.name.eq_ignore_ascii_case(n)))
                    .map(|n| n.to_string())
                    .collect();
                if !unknown.is_empty() {
                    return Err(FanoutError::UnknownEngines {
                        unknown,
                        known: self.engine_names(),
                    });
                }
                let listed = names.join(",");
                Ok(self
                    .engines
                    .iter()
                    .map(|s| {
                        let runs = names.iter().any(|n| s.name.eq_ignore_ascii_case(n));
                        EngineDecision {
                            engine: s.name.clone(),
                            runs,
                            reason: (!runs)
                                .then(|| format!("not selected (engines chosen: {listed})")),
                        }
                    })
                    .collect())
            }
            None => {
                let configured: Vec<(&str, EngineCapabilities)> = self
                    .engines
                    .iter()
                    .map(|s| (s.name.as_str(), s.capabilities.clone()))
                    .collect();
                Ok(self
                    .engines
                    .iter()
                    .map(
                        |s| match matrix::decide(&s.capabilities, mode, &configured) {
                            Ok(()) => EngineDecision {
                                engine: s.name.clone(),
                                runs: true,
                                reason: None,
                            },
                            Err(reason) => EngineDecision {
                                engine: s.name.clone(),
                                runs: false,
                                reason: Some(reason),
                            },
                        },
                    )
                    .collect())
            }
        }
    }

    /// Run a fanout without progress events.
    pub async fn run(&self, request: &FanoutRequest) -> Result<FanoutOutcome, FanoutError> {
        self.run_with_progress(request, &Progress::none()).await
    }

    /// Run a fanout, streaming [`ProgressEvent`]s to `progress`.
    ///
    /// Errors only for a request that cannot run at all (no sub-queries, an
    /// unknown engine name); engine failures are reports, never errors.
    pub async fn run_with_progress(
        &self,
        request: &FanoutRequest,
        progress: &Progress,
    ) -> Result<FanoutOutcome, FanoutError> {
        if request.requests.is_empty() {
            return Err(FanoutError::NoSubQueries);
        }
        let deadline_after = request.deadline.unwrap_or(self.deadline);
        if deadline_after.is_zero() {
            return Err(FanoutError::ZeroDuration {
                what: "global deadline".into(),
            });
        }
        let decisions = self.decide(request.mode, request.engines.as_deref())?;
        let span = tracing::info_span!(
            "fanout",
            mode = %request.mode,
            sub_queries = request.requests.len(),
            engines = decisions.iter().filter(|d| d.runs).count(),
        );
        let outcome = self
            .execute(request, &decisions, deadline_after, progress)
            .instrument(span)
            .await;
        Ok(outcome)
    }

    async fn execute(
        &self,
        request: &FanoutRequest,
        decisions: &[EngineDecision],
        deadline_after: Duration,
        progress: &Progress,
    ) -> FanoutOutcome {
        let started = Instant::now();
        let deadline = started
            .checked_add(deadline_after)
            .unwrap_or_else(|| started + Duration::from_secs(86_400 * 365));
        emit_skipped(decisions, progress);
        let requests = requests_in_mode(request);

        let mut in_flight = self.spawn_calls(&requests, decisions, progress);
        let (mut results, deadline_hit) = self
            .join_until(deadline, &mut in_flight, &requests, progress)
            .await;
        cancel_unfinished(in_flight.tasks).await;
        let scheduled = in_flight.scheduled;
        let pending = self.settle_unanswered(&scheduled, &requests, &mut results);
        if deadline_hit {
            tracing::warn!(
                deadline_ms = millis(deadline_after),
                pending = pending.len(),
                "global deadline hit"
            );
            progress.emit(ProgressEvent::DeadlineReached {
                deadline_ms: millis(deadline_after),
                pending: pending.clone(),
            });
        }

        let outcome = self.assemble(Finished {
            requests: &requests,
            decisions,
            scheduled: &scheduled,
            results,
            deadline_hit,
            deadline_after,
            cancelled: pending.len(),
            elapsed: started.elapsed(),
        });
        progress.emit(ProgressEvent::FanoutFinished {
            elapsed_ms: outcome.elapsed_ms,
            ok_calls: outcome.calls.len(),
            failed_calls: outcome.failures.len(),
            deadline_hit,
        });
        outcome
    }

    /// Spawn one task per running engine × sub-query, in that order.
    fn spawn_calls(
        &self,
        requests: &[EngineRequest],
        decisions: &[EngineDecision],
        progress: &Progress,
    ) -> InFlight {
        let semaphore = Arc::new(Semaphore::new(self.concurrency));
        let mut in_flight = InFlight {
            scheduled: Vec::new(),
            tasks: JoinSet::new(),
            task_index: HashMap::new(),
        };
        for (slot_index, slot) in self.engines.iter().enumerate() {
            if !decisions[slot_index].runs {
                continue;
            }
            for (qi, req) in requests.iter().enumerate() {
                let started_at = Arc::new(OnceLock::new());
                let index = in_flight.scheduled.len();
                in_flight.scheduled.push(Scheduled {
                    slot: slot_index,
                    sub_query: qi,
                    started: Arc::clone(&started_at),
                });
                let span = tracing::info_span!(
                    "engine_call",
                    engine = %slot.name,
                    sub_query_index = qi,
                    query = %req.query,
                );
                let task = run_call(
                    slot.clone(),
                    req.clone(),
                    qi,
                    Arc::clone(&semaphore),
                    started_at,
                    progress.clone(),
                )
                .instrument(span);
                let handle = in_flight.tasks.spawn(task);
                in_flight.task_index.insert(handle.id(), index);
            }
        }
        in_flight
    }

    /// Join calls as they finish until all are done or the deadline hits.
    ///
    /// Returns one slot per scheduled call (`None` = still unanswered) and
    /// whether the deadline hit.
    async fn join_until(
        &self,
        deadline: Instant,
        in_flight: &mut InFlight,
        requests: &[EngineRequest],
        progress: &Progress,
    ) -> (Vec<Option<CallResult>>, bool) {
        let mut results: Vec<Option<CallResult>> =
            in_flight.scheduled.iter().map(|_| None).collect();
        loop {
            match tokio::time::timeout_at(deadline, in_flight.tasks.join_next_with_id()).await {
                Ok(None) => return (results, false),
                Ok(Some(Ok((id, result)))) => {
                    if let Some(&i) = in_flight.task_index.get(&id) {
                        results[i] = Some(result);
                    }
                }
                Ok(Some(Err(join_error))) => {
                    let Some(&i) = in_flight.task_index.get(&join_error.id()) else {
                        continue;
                    };
                    let result =
                        self.broken_call(join_error, &in_flight.scheduled[i], requests, progress);
                    results[i] = Some(result);
                }
                Err(_) => return (results, true),
            }
        }
    }

    /// Turn a call whose task panicked or was cancelled into a reported result.
    fn broken_call(
        &self,
        join_error: tokio::task::JoinError,
        s: &Scheduled,
        requests: &[EngineRequest],
        progress: &Progress,
    ) -> CallResult {
        let elapsed = s.started.get().map_or(Duration::ZERO, |t| t.elapsed());
        let message = if join_error.is_panic() {
            format!(
                "engine panicked (a bug in its adapter): {}",
                panic_message(join_error.into_panic())
            )
        } else {
            "engine call was cancelled".to_string()
        };
        let slot = &self.engines[s.slot];
        tracing::error!(engine = %slot.name, sub_query_index = s.sub_query, %message, "engine call panicked");
        progress.emit(ProgressEvent::EngineFailed {
            engine: slot.name.clone(),
            sub_query: requests[s.sub_query].query.clone(),
            sub_query_index: s.sub_query,
            kind: None,
            message: message.clone(),
            elapsed_ms: millis(elapsed),
        });
        CallResult {
            end: CallEnd::Panicked(message),
            elapsed,
        }
    }

    /// Mark every call without an answer as cut by the deadline; list them.
    fn settle_unanswered(
        &self,
        scheduled: &[Scheduled],
        requests: &[EngineRequest],
        results: &mut [Option<CallResult>],
    ) -> Vec<PendingCall> {
        let mut pending = Vec::new();
        for (s, result) in scheduled.iter().zip(results.iter_mut()) {
            if result.is_none() {
                let elapsed = s.started.get().map_or(Duration::ZERO, |t| t.elapsed());
                pending.push(PendingCall {
                    engine: self.engines[s.slot].name.clone(),
                    sub_query: requests[s.sub_query].query.clone(),
                    sub_query_index: s.sub_query,
                });
                *result = Some(CallResult {
                    end: CallEnd::Deadline,
                    elapsed,
                });
            }
        }
        pending
    }

    /// Build the outcome from every call's result, in configuration order.
    fn assemble(&self, finished: Finished<'_>) -> FanoutOutcome {
        let deadline_message = format!(
            "cancelled: the global deadline of {} hit before it answered",
            human_duration(finished.deadline_after)
        );
        let mut per_slot = self.results_per_slot(finished.scheduled, finished.results);
        let mut sink = OutcomeSink::default();
        for (slot_index, slot) in self.engines.iter().enumerate() {
            let decision = &finished.decisions[slot_index];
            if !decision.runs {
                sink.reports.push(EngineReport::skipped(
                    slot.name.clone(),
                    decision.reason.clone().unwrap_or_default(),
                ));
                continue;
            }
            let results = std::mem::take(&mut per_slot[slot_index]);
            sink.add_engine(&slot.name, results, finished.requests, &deadline_message);
        }
        if finished.decisions.iter().all(|d| !d.runs) {
            sink.warnings.push(self.nothing_ran_warning());
        }
        if finished.deadline_hit {
            let cancelled = finished.cancelled;
            sink.warnings.push(format!(
                "the global deadline of {} hit; {cancelled} call{} cancelled and partial results \
                 returned",
                human_duration(finished.deadline_after),
                if cancelled == 1 { " was" } else { "s were" },
            ));
        }
        FanoutOutcome {
            calls: sink.calls,
            reports: sink.reports,
            failures: sink.failures,
            answers: sink.answers,
            warnings: sink.warnings,
            deadline_hit: finished.deadline_hit,
            elapsed_ms: millis(finished.elapsed),
        }
    }

    /// Group results by engine slot, keeping sub-query order (scheduling
    /// order is already engine × sub-query order).
    fn results_per_slot(
        &self,
        scheduled: &[Scheduled],
        results: Vec<Option<CallResult>>,
    ) -> Vec<Vec<(usize, CallResult)>> {
        let mut per_slot: Vec<Vec<(usize, CallResult)>> =
            self.engines.iter().map(|_| Vec::new()).collect();
        for (s, result) in scheduled.iter().zip(results) {
            if let Some(result) = result {
                per_slot[s.slot].push((s.sub_query, result));
            }
        }
        per_slot
    }

    /// The warning for a fanout in which no engine ran.
    fn nothing_ran_warning(&self) -> String {
        if self.engines.is_empty() {
            "no engines are configured; nothing was searched".to_string()
        } else {
            "no configured engine runs in this search; every engine was skipped (see the \
             engine reports)"
                .to_string()
        }
    }
}

/// The calls of one fanout, spawned and not yet joined.
struct InFlight {
    scheduled: Vec<Scheduled>,
    tasks: JoinSet<CallResult>,
    /// Task id → index into `scheduled`.
    task_index: HashMap<tokio::task::Id, usize>,
}

/// Everything [`Fanout::assemble`] needs once the calls are over.
struct Finished<'a> {
    requests: &'a [EngineRequest],
    decisions: &'a [EngineDecision],
    scheduled: &'a [Scheduled],
    results: Vec<Option<CallResult>>,
    deadline_hit: bool,
    deadline_after: Duration,
    /// How many calls the deadline cancelled.
    cancelled: usize,
    elapsed: Duration,
}

/// The outcome's lists, filled engine by engine.
#[derive(Default)]
struct OutcomeSink {
    calls: Vec<EngineCall>,
    reports: Vec<EngineReport>,
    failures: Vec<FailedCall>,
    answers: Vec<EngineAnswer>,
    warnings: Vec<String>,
}

impl OutcomeSink {
    /// File one running engine's results: calls, answers, warnings,
    /// failures and its report.
    fn add_engine(
        &mut self,
        name: &str,
        results: Vec<(usize, CallResult)>,
        requests: &[EngineRequest],
        deadline_message: &str,
    ) {
        let n_calls = results.len();
        let mut count = 0;
        let mut ok_calls = 0;
        let mut longest = Duration::ZERO;
        let mut engine_failures: Vec<FailedCall> = Vec::new();
        for (qi, result) in results {
            longest = longest.max(result.elapsed);
            let sub_query = requests[qi].query.clone();
            let (kind, message) = match result.end {
                CallEnd::Ok(response) => {
                    ok_calls += 1;
                    count += response.hits.len();
                    self.add_response(name, sub_query, qi, response);
                    continue;
                }
                CallEnd::Failed(error) => (Some(error.kind()), error.to_string()),
                CallEnd::Panicked(message) => (None, message),
                CallEnd::Deadline => (Some(ErrorKind::Timeout), deadline_message.to_string()),
            };
            engine_failures.push(FailedCall {
                engine: name.to_string(),
                sub_query,
                sub_query_index: qi,
                kind,
                message,
                elapsed_ms: millis(result.elapsed),
            });
        }
        self.reports.push(report_for(
            name,
            n_calls,
            ok_calls,
            count,
            longest,
            &engine_failures,
        ));
        self.failures.extend(engine_failures);
    }

    /// File one successful call with its answer and warnings.
    fn add_response(
        &mut self,
        name: &str,
        sub_query: String,
        sub_query_index: usize,
        response: EngineResponse,
    ) {
        if let Some(text) = &response.answer {
            self.answers.push(EngineAnswer {
                engine: name.to_string(),
                sub_query: sub_query.clone(),
                text: text.clone(),
            });
        }
        self.warnings
            .extend(response.warnings.iter().map(|w| format!("{name}: {w}")));
        self.calls.push(EngineCall {
            engine: name.to_string(),
            sub_query,
            sub_query_index,
            response,
        });
    }
}

/// Announce every engine the decisions leave out.
fn emit_skipped(decisions: &[EngineDecision], progress: &Progress) {
    for d in decisions.iter().filter(|d| !d.runs) {
        progress.emit(ProgressEvent::EngineSkipped {
            engine: d.engine.clone(),
            reason: d.reason.clone().unwrap_or_default(),
        });
    }
}

/// The request's sub-queries, each carrying the request's mode.
fn requests_in_mode(request: &FanoutRequest) -> Vec<EngineRequest> {
    request
        .requests
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.mode = request.mode;
            r
        })
        .collect()
}

/// Cancel every call still running or waiting, and wait (briefly) for their
/// futures to be dropped so their resources are released before we return.
/// A call that blocks its thread cannot hold us longer.
async fn cancel_unfinished(mut tasks: JoinSet<CallResult>) {
    if !tasks.is_empty() {
        let _ = tokio::time::timeout(CANCEL_GRACE, tasks.shutdown()).await;
    }
    drop(tasks);
}

/// Summarise one engine's calls into its report.
fn report_for(
    name: &str,
    calls: usize,
    ok_calls: usize,
    count: usize,
    longest: Duration,
    failures: &[FailedCall],
) -> EngineReport {
    let failed_calls = failures.len();
    let summary = |f: &FailedCall| {
        if calls > 1 {
            format!(
                "{failed_calls} of {calls} calls failed; first (sub-query {}): {}",
                f.sub_query_index, f.message
            )
        } else {
            f.message.clone()
        }
    };
    let (status, error_kind, message) = if ok_calls > 0 {
        (EngineStatus::Ok, None, failures.first().map(summary))
    } else if failures.iter().all(|f| f.kind == Some(ErrorKind::Timeout)) {
        (
            EngineStatus::Timeout,
            Some(ErrorKind::Timeout),
            failures.first().map(summary),
        )
    } else if failures
        .iter()
        .all(|f| f.kind == Some(ErrorKind::CircuitOpen))
    {
        (
            EngineStatus::CircuitOpen,
            Some(ErrorKind::CircuitOpen),
            failures.first().map(summary),
        )
    } else {
        // The first failure that is neither a timeout nor a circuit opened
        // by another failure of this run explains the error best.
        let cause = |f: &&FailedCall| {
            !matches!(
                f.kind,
                Some(ErrorKind::Timeout) | Some(ErrorKind::CircuitOpen)
            )
        };
        let first = failures
            .iter()
            .find(cause)
            .or_else(|| failures.iter().find(|f| f.kind != Some(ErrorKind::Timeout)))
            .or(failures.first());
        (
            EngineStatus::Error,
            first.and_then(|f| f.kind),
            first.map(summary),
        )
    };
    EngineReport {
        name: name.to_string(),
        status,
        error_kind,
        message,
        elapsed_ms: millis(longest),
        count,
        calls,
        failed_calls,
        unsupported: Vec::new(),
    }
}

/// One call: wait for a slot, run under the engine's timeout, report.
async fn run_call(
    slot: EngineSlot,
    request: EngineRequest,
    sub_query_index: usize,
    semaphore: Arc<Semaphore>,
    started_at: Arc<OnceLock<Instant>>,
    progress: Progress,
) -> CallResult {
    // The semaphore is never closed, so acquiring only waits.
    let _permit = semaphore.acquire_owned().await.ok();
    let t0 = Instant::now();
    let _ = started_at.set(t0);
    progress.emit(ProgressEvent::EngineStarted {
        engine: slot.name.clone(),
        sub_query: request.query.clone(),
        sub_query_index,
    });
    let result = match tokio::time::timeout(slot.timeout, slot.engine.search(&request)).await {
        Ok(result) => result,
        Err(_) => Err(EngineError::Timeout {
            after: slot.timeout,
        }),
    };
    let elapsed = t0.elapsed();
    let end = match result {
        Ok(response) => {
            tracing::debug!(
                count = response.hits.len(),
                elapsed_ms = millis(elapsed),
                "engine call finished"
            );
            progress.emit(ProgressEvent::EngineFinished {
                engine: slot.name.clone(),
                sub_query: request.query.clone(),
                sub_query_index,
                count: response.hits.len(),
                elapsed_ms: millis(elapsed),
            });
            CallEnd::Ok(response)
        }
        Err(error) => {
            tracing::warn!(kind = %error.kind(), %error, elapsed_ms = millis(elapsed), "engine call failed");
            progress.emit(ProgressEvent::EngineFailed {
                engine: slot.name.clone(),
                sub_query: request.query.clone(),
                sub_query_index,
                kind: Some(error.kind()),
                message: error.to_string(),
                elapsed_ms: millis(elapsed),
            });
            CallEnd::Failed(error)
        }
    };
    CallResult { end, elapsed }
}
