//! Layers: engines that wrap an engine and are engines themselves.
//!
//! Every layer here implements [`ferret_core::layer::Layer`], forwards
//! `name` and `capabilities` explicitly (changing them only when that is its
//! job, as [`Throttle`] does for its result cap), validates the request
//! before doing any work of its own, and passes
//! [`ferret_core::conformance::Conformance`]. Policy is read from typed error
//! facts ([`EngineError::kind`], [`EngineError::is_temporary`],
//! [`EngineError::retry_after`]), never from message text.
//!
//! | layer | module | what it is for |
//! |---|---|---|
//! | [`Cache`] | [`cache`] | read-through / write-through [`crate::cache::SearchCache`], never errors, never login data |
//! | [`SingleFlight`] | [`single_flight`] | identical concurrent requests share one call |
//! | [`CircuitBreaker`] | [`breaker`] | stop calling an engine that is blocking us (bot detection, 403, 429, captcha) |
//! | [`Retry`] | [`retry`] | retry temporary failures with jittered backoff and a shared budget |
//! | [`Throttle`] | [`throttle`] | result cap, one call in flight, minimum interval between calls |
//! | [`ConcurrencyLimit`] | [`concurrency`] | at most N calls in flight, permit held for the whole call |
//! | [`Recorder`](crate::replay::Recorder) | [`crate::replay`] | record every answer to disk for offline replay |
//! | [`Timeout`] | `ferret_core::layer` | bound each call |
//!
//! ## Where each layer sits
//!
//! The recommended stack, outermost first (the first layer sees the call
//! first):
//!
//! ```text
//! Cache ─► SingleFlight ─► CircuitBreaker ─► Retry ─► Throttle / ConcurrencyLimit ─► Timeout ─► engine
//! ```
//!
//! - **Cache outermost**: a hit skips everything, including the breaker; a
//!   miss pays for the whole stack once.
//! - **SingleFlight under the cache**: concurrent misses for the same request
//!   collapse into one call down the stack.
//! - **CircuitBreaker outside Retry**: one logical call counts once toward
//!   the breaker, and an open breaker costs no retries. (Retry never retries
//!   `circuit_open`, `bot_detected` or `captcha`: they are not temporary.)
//! - **Retry outside Throttle**: every attempt waits its turn and keeps the
//!   minimum interval, so retries cannot hammer a scraped page.
//! - **Timeout innermost**: it bounds each attempt, not the wait for a
//!   throttle slot. A timeout *outside* Retry bounds the whole retried call
//!   and cancels retries mid-flight.
//! - **Recorder** goes directly around the engine to record what the service
//!   said, or outermost to record what the whole stack answered.
//!
//! ```
//! use std::time::Duration;
//! use ferret_core::layer::{EngineExt, TimeoutLayer};
//! use ferret_core::testing::StaticEngine;
//! use ferret_engines::layers::{CircuitBreakerLayer, RetryLayer, SingleFlightLayer, ThrottleLayer};
//!
//! let engine = StaticEngine::new("demo", 5)
//!     .layer(TimeoutLayer::new(Duration::from_secs(8)))
//!     .layer(ThrottleLayer::new())
//!     .layer(RetryLayer::new())
//!     .layer(CircuitBreakerLayer::in_memory())
//!     .layer(SingleFlightLayer::new());
//! # let _ = engine;
//! ```
//!
//! [`EngineError::kind`]: ferret_core::EngineError::kind
//! [`EngineError::is_temporary`]: ferret_core::EngineError::is_temporary
//! [`EngineError::retry_after`]: ferret_core::EngineError::retry_after

pub mod breaker;
pub mod cache;
pub mod concurrency;
pub mod retry;
pub mod single_flight;
pub mod throttle;

#[cfg(feature = "redis")]
pub use breaker::RedisBreakerStore;
pub use breaker::{
    BreakerConfig, BreakerState, BreakerStore, BreakerStoreError, CircuitBreaker,
    CircuitBreakerLayer, Clock, MemoryBreakerStore, SystemClock, TokioClock, Trip,
};
pub use cache::{Cache, CacheLayer, CacheStats};
pub use concurrency::{ConcurrencyLimit, ConcurrencyLimitLayer};
pub use ferret_core::layer::{EngineExt, Layer, Timeout, TimeoutLayer};
pub use retry::{Jitter, Retry, RetryBudget, RetryLayer, RetryPolicy};
pub use single_flight::{SingleFlight, SingleFlightLayer};
pub use throttle::{Throttle, ThrottleConfig, ThrottleLayer};
