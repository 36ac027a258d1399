//! Property tests of the fanout: for any mix of engines that answer, fail,
//! run late or hang, on any sub-queries, the outcome is exactly what the
//! timeouts and the deadline imply — calls in configuration order, one
//! report per engine with the right status, counts and kinds.
//!
//! Each case runs on a paused tokio clock, so times are exact.

use ferret_core::Provenance;
use ferret_core::Runtime;
use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::fanout::{Fanout, FanoutRequest};
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    EngineStatus, ErrorKind, Mode,
};
use proptest::prelude::*;

/// What one call does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Script {
    /// Answer with `hits` hits after `delay_ms`.
    Answer { delay_ms: u64, hits: usize },
    /// Fail with the `kind`-th error kind after `delay_ms`.
    Fail { delay_ms: u64, kind: usize },
    /// Never answer.
    Hang,
}

fn error_of(kind: ErrorKind) -> EngineError {
    let message = format!("{kind} (scripted)");
    match kind {
        ErrorKind::RateLimited => EngineError::RateLimited {
            retry_after: None,
            message,
        },
        ErrorKind::BotDetected => EngineError::BotDetected { message },
        ErrorKind::Captcha => EngineError::Captcha { message },
        ErrorKind::AccessDenied => EngineError::AccessDenied { message },
        ErrorKind::Auth => EngineError::Auth { message },
        ErrorKind::Quota => EngineError::Quota { message },
        ErrorKind::Timeout => EngineError::Timeout {
            after: Duration::from_millis(1),
        },
        ErrorKind::Transport => EngineError::transport(message),
        ErrorKind::Parse => EngineError::parse(message),
        ErrorKind::InvalidQuery => EngineError::invalid_query(message),
        ErrorKind::Unsupported => EngineError::Unsupported { message },
        ErrorKind::CircuitOpen => EngineError::CircuitOpen {
            retry_after: None,
            message,
        },
    }
}

/// An engine that follows a script per sub-query text.
#[derive(Debug)]
struct ScriptedEngine {
    name: String,
    scripts: HashMap<String, Script>,
}

#[async_trait]
impl Engine for ScriptedEngine {
    fn name(&self) -> &str {
        &self.name
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        match self.scripts[&request.query] {
            Script::Answer { delay_ms, hits } => {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                Ok(EngineResponse::new(
                    Provenance::public(Runtime::Http),
                    (1..=hits)
                        .map(|i| {
                            EngineHit::new(
                                i as u32,
                                format!("https://{}.example/{}/{i}", self.name, request.query),
                                "t",
                                "s",
                            )
                        })
                        .collect(),
                ))
            }
            Script::Fail { delay_ms, kind } => {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                Err(error_of(ErrorKind::ALL[kind]))
            }
            Script::Hang => std::future::pending().await,
        }
    }
}

/// Delays that never coincide with a timeout or the deadline (all of which
/// are multiples of 100 ms), so there are no ties to break.
fn delay() -> impl Strategy<Value = u64> {
    (0u64..250).prop_map(|k| k * 10 + 3)
}

fn script() -> impl Strategy<Value = Script> {
    prop_oneof![
        4 => (delay(), 0usize..5).prop_map(|(delay_ms, hits)| Script::Answer { delay_ms, hits }),
        3 => (delay(), 0..ErrorKind::ALL.len()).prop_map(|(delay_ms, kind)| Script::Fail { delay_ms, kind }),
        1 => Just(Script::Hang),
    ]
}

/// Scripts for 1–5 engines × 1–3 sub-queries.
fn table() -> impl Strategy<Value = Vec<Vec<Script>>> {
    (1usize..4, 1usize..6).prop_flat_map(|(queries, engines)| {
        prop::collection::vec(prop::collection::vec(script(), queries), engines)
    })
}

/// How a call is expected to end.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expected {
    Hits(usize),
    Failed(ErrorKind),
    TimedOut,
    Cancelled,
}

fn expected(script: Script, timeout_ms: u64, deadline_ms: u64) -> (Expected, u64) {
    let (end, at) = match script {
        Script::Answer { delay_ms, hits } if delay_ms < timeout_ms => {
            (Expected::Hits(hits), delay_ms)
        }
        Script::Fail { delay_ms, kind } if delay_ms < timeout_ms => {
            (Expected::Failed(ErrorKind::ALL[kind]), delay_ms)
        }
        _ => (Expected::TimedOut, timeout_ms),
    };
    if at >= deadline_ms {
        (Expected::Cancelled, deadline_ms)
    } else {
        (end, at)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn outcome_matches_what_timeouts_and_the_deadline_imply(
        table in table(),
        timeout_ms in prop_oneof![Just(500u64), Just(1200), Just(3000)],
        deadline_ms in prop_oneof![Just(800u64), Just(2000), Just(2600)],
    ) {
        let n_queries = table[0].len();
        let queries: Vec<String> = (0..n_queries).map(|i| format!("q{i}")).collect();
        let names: Vec<String> = (0..table.len()).map(|i| format!("e{i}")).collect();

        let mut builder = Fanout::builder()
            .timeout(Duration::from_millis(timeout_ms))
            .deadline(Duration::from_millis(deadline_ms))
            .concurrency(64);
        for (name, row) in names.iter().zip(&table) {
            builder = builder.engine(ScriptedEngine {
                name: name.clone(),
                scripts: queries.iter().cloned().zip(row.iter().copied()).collect(),
            });
        }
        let fanout = builder.build().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        let (outcome, took) = runtime.block_on(async {
            let t0 = tokio::time::Instant::now();
            let outcome = fanout
                .run(&FanoutRequest::from_queries(Mode::Deep, queries.clone()))
                .await
                .unwrap();
            (outcome, t0.elapsed())
        });

        let ends: Vec<Vec<(Expected, u64)>> = table
            .iter()
            .map(|row| row.iter().map(|s| expected(*s, timeout_ms, deadline_ms)).collect())
            .collect();

        // Deadline and total time.
        let any_cancelled = ends.iter().flatten().any(|(e, _)| *e == Expected::Cancelled);
        prop_assert_eq!(outcome.deadline_hit, any_cancelled);
        let last = ends.iter().flatten().map(|(_, at)| *at).max().unwrap();
        prop_assert_eq!(took, Duration::from_millis(last));

        // Successful calls, in configuration order.
        let want_calls: Vec<(String, usize, usize)> = names
            .iter()
            .zip(&ends)
            .flat_map(|(name, row)| {
                row.iter().enumerate().filter_map(move |(qi, (e, _))| match e {
                    Expected::Hits(n) => Some((name.clone(), qi, *n)),
                    _ => None,
                })
            })
            .collect();
        let got_calls: Vec<(String, usize, usize)> = outcome
            .calls
            .iter()
            .map(|c| (c.engine.clone(), c.sub_query_index, c.response.hits.len()))
            .collect();
        prop_assert_eq!(got_calls, want_calls);

        // One report per engine with the implied status.
        prop_assert_eq!(outcome.reports.len(), names.len());
        for ((name, row), report) in names.iter().zip(&ends).zip(&outcome.reports) {
            prop_assert_eq!(&report.name, name);
            prop_assert_eq!(report.calls, n_queries);
            let ok = row.iter().filter(|(e, _)| matches!(e, Expected::Hits(_))).count();
            prop_assert_eq!(report.failed_calls, n_queries - ok);
            let hits: usize = row
                .iter()
                .map(|(e, _)| if let Expected::Hits(n) = e { *n } else { 0 })
                .sum();
            prop_assert_eq!(report.count, hits);
            prop_assert_eq!(report.elapsed_ms, row.iter().map(|(_, at)| *at).max().unwrap());
            let kinds: Vec<ErrorKind> = row
                .iter()
                .filter_map(|(e, _)| match e {
                    Expected::Hits(_) => None,
                    Expected::Failed(k) => Some(*k),
                    Expected::TimedOut | Expected::Cancelled => Some(ErrorKind::Timeout),
                })
                .collect();
            let (status, kind) = if ok > 0 {
                (EngineStatus::Ok, None)
            } else if kinds.iter().all(|k| *k == ErrorKind::Timeout) {
                (EngineStatus::Timeout, Some(ErrorKind::Timeout))
            } else if kinds.iter().all(|k| *k == ErrorKind::CircuitOpen) {
                (EngineStatus::CircuitOpen, Some(ErrorKind::CircuitOpen))
            } else {
                // The cause: neither a timeout nor a circuit that another
                // failure opened, when there is one.
                let cause = kinds
                    .iter()
                    .copied()
                    .find(|k| !matches!(k, ErrorKind::Timeout | ErrorKind::CircuitOpen))
                    .or_else(|| kinds.iter().copied().find(|k| *k != ErrorKind::Timeout));
                (EngineStatus::Error, cause)
            };
            prop_assert_eq!(report.status, status, "{}: {:?}", name, row);
            prop_assert_eq!(report.error_kind, kind, "{}: {:?}", name, row);
        }
        prop_assert_eq!(
            outcome.failures.len(),
            outcome.reports.iter().map(|r| r.failed_calls).sum::<usize>()
        );
    }
}
