//! Progress events for front ends: [`ProgressEvent`] and where they go,
//! [`Progress`] (an unbounded channel or a callback).
//!
//! Events are serialisable with a snake_case `type` tag, so a CLI can print
//! them as JSON lines and an agent can stream them:
//!
//! ```json
//! {"type":"engine_finished","engine":"brave","sub_query":"rust async","sub_query_index":0,"count":10,"elapsed_ms":412}
//! ```

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedSender;

use crate::error::ErrorKind;
use crate::query::{Intent, Mode};

/// A call that was still running (or waiting for a concurrency slot) when
/// the global deadline hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The engine's name.
    pub engine: String,
    /// The sub-query text.
    pub sub_query: String,
    /// Position of the sub-query in the plan (0-based).
    pub sub_query_index: usize,
}

/// Something a search did, as it happened.
///
/// Within one search the order is: `planned` (from the search pipeline),
/// every `engine_skipped` in configuration order, then `engine_started` and
/// `engine_finished` / `engine_failed` as calls run (a call's start always
/// comes before its end), then `deadline_reached` if the global deadline
/// cut the fanout short, then `fanout_finished`, then `fused` (from the
/// pipeline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProgressEvent {
    /// The query was planned.
    Planned {
        /// The intent used.
        intent: Intent,
        /// The mode used.
        mode: Mode,
        /// The sub-queries to send.
        sub_queries: Vec<String>,
    },
    /// An engine call began (it had a concurrency slot).
    EngineStarted {
        /// The engine's name.
        engine: String,
        /// The sub-query text.
        sub_query: String,
        /// Position of the sub-query in the plan (0-based).
        sub_query_index: usize,
    },
    /// An engine call succeeded.
    EngineFinished {
        /// The engine's name.
        engine: String,
        /// The sub-query text.
        sub_query: String,
        /// Position of the sub-query in the plan (0-based).
        sub_query_index: usize,
        /// Hits returned.
        count: usize,
        /// Time the call took, in ms.
        elapsed_ms: u64,
    },
    /// An engine call failed, timed out or panicked.
    EngineFailed {
        /// The engine's name.
        engine: String,
        /// The sub-query text.
        sub_query: String,
        /// Position of the sub-query in the plan (0-based).
        sub_query_index: usize,
        /// The error kind; absent when the engine panicked (a bug in its
        /// adapter, not a typed failure).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<ErrorKind>,
        /// What went wrong.
        message: String,
        /// Time the call took, in ms.
        elapsed_ms: u64,
    },
    /// An engine does not run in this search.
    EngineSkipped {
        /// The engine's name.
        engine: String,
        /// Why.
        reason: String,
    },
    /// The global deadline hit; these calls were cancelled.
    DeadlineReached {
        /// The deadline, in ms.
        deadline_ms: u64,
        /// The calls that had not answered.
        pending: Vec<PendingCall>,
    },
    /// Every engine call has ended (or was cancelled).
    FanoutFinished {
        /// Time the fanout took, in ms.
        elapsed_ms: u64,
        /// Successful calls.
        ok_calls: usize,
        /// Failed, timed-out or cancelled calls.
        failed_calls: usize,
        /// Whether the global deadline cut it short.
        deadline_hit: bool,
    },
    /// The results were fused.
    Fused {
        /// Number of fused results.
        results: usize,
        /// Time the whole search took so far, in ms.
        elapsed_ms: u64,
    },
}

type Callback = Arc<dyn Fn(&ProgressEvent) + Send + Sync>;

#[derive(Clone)]
enum Sink {
    Channel(UnboundedSender<ProgressEvent>),
    Callback(Callback),
}

/// Where progress events go: nowhere (the default), an unbounded channel, or
/// a callback.
///
/// Events are sent from the tasks that run engine calls, so a callback must
/// be quick and must not block. A channel whose receiver is gone is ignored:
/// progress never fails a search.
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Sink>,
}

impl Progress {
    /// Discard events.
    pub fn none() -> Self {
        Progress::default()
    }

    /// Send events into `sender`.
    pub fn channel(sender: UnboundedSender<ProgressEvent>) -> Self {
        Progress {
            sink: Some(Sink::Channel(sender)),
        }
    }

    /// Call `callback` with every event.
    pub fn callback(callback: impl Fn(&ProgressEvent) + Send + Sync + 'static) -> Self {
        Progress {
            sink: Some(Sink::Callback(Arc::new(callback))),
        }
    }

    /// Whether events go anywhere.
    pub fn is_active(&self) -> bool {
        self.sink.is_some()
    }

    /// Deliver one event.
    pub fn emit(&self, event: ProgressEvent) {
        match &self.sink {
            None => {}
            Some(Sink::Channel(tx)) => {
                let _ = tx.send(event);
            }
            Some(Sink::Callback(f)) => f(&event),
        }
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.sink {
            None => "none",
            Some(Sink::Channel(_)) => "channel",
            Some(Sink::Callback(_)) => "callback",
        };
        f.debug_struct("Progress").field("sink", &kind).finish()
    }
}
