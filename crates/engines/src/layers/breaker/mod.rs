//! [`CircuitBreaker`]: stop calling an engine that is blocking us, and back
//! off longer each time it does.
//!
//! **When to use it**: around every engine that can detect bots or rate
//! limit — scraped pages above all (DuckDuckGo, Bing), but also APIs that
//! answer 403/429. With a shared [`BreakerStore`] (Redis, feature `redis`) a
//! whole fleet of agents backs off together; with a SQLite file (feature
//! `sqlite`) the next run of a program remembers what this one learnt.
//!
//! **Where it sits**: outside [`Retry`](super::Retry) (a retried call counts
//! once; an open breaker costs no retries), inside
//! [`SingleFlight`](super::SingleFlight) and [`Cache`](super::Cache) (cache
//! hits need no breaker).
//!
//! ## What trips it
//!
//! Each error is classified by [`BreakerConfig::trip`] from its kind alone
//! (the table is data: [`BreakerConfig::counted`] and
//! [`BreakerConfig::suspend_on`]):
//!
//! | kind | effect (defaults) |
//! |---|---|
//! | `bot_detected` | **counted**: 3 within 1 h open the breaker for 30 s, then 2 min, then 10 min (stepping by break count, staying at the last step) |
//! | `captcha` | suspends at once for 1 h |
//! | `access_denied` (403), `rate_limited` (429) | suspend at once for 3 min |
//! | everything else (`timeout`, `transport`, `parse`, `auth`, `quota`, `invalid_query`, `unsupported`, `circuit_open`) | ignored: the breaker cannot help, other layers handle them |
//!
//! Only `bot_detected` counts toward the threshold; 403, 429
//! and captchas suspend directly. A `retry_after` on the error lengthens a
//! suspension when it is longer (bounded by
//! [`BreakerConfig::max_retry_after`]). Any success resets everything:
//! failures, break count and suspension.
//!
//! ## Half-open
//!
//! When a suspension ends, exactly one call (the *probe*) goes through; the
//! others get [`EngineError::CircuitOpen`] with a `retry_after` until the
//! probe's lease ends. A probe that succeeds closes the breaker; one that
//! fails with a counted or suspending kind opens it again at the next step;
//! one that fails otherwise (or is cancelled) frees the lease so the next
//! call probes.
//!
//! ## State
//!
//! The state ([`BreakerState`]) is JSON in a [`BreakerStore`] under the
//! engine's name, updated by compare-and-swap, with a TTL of the failure
//! window past the end of any suspension: an idle breaker is forgotten. If
//! the store fails, the breaker logs it and lets calls through.

pub mod conformance;
mod store;

#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::layer::Layer;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineRequest, EngineResponse, ErrorKind,
};
use serde::{Deserialize, Serialize};

#[cfg(feature = "redis")]
pub use self::redis::RedisBreakerStore;
#[cfg(feature = "sqlite")]
pub use self::sqlite::SqliteBreakerStore;
pub use store::{
    BreakerStore, BreakerStoreError, Clock, MemoryBreakerStore, SystemClock, TokioClock,
};

/// The default suspension ladder for counted failures: 30 s, 2 min, 10 min.
pub const DEFAULT_SUSPENSIONS: [Duration; 3] = [
    Duration::from_secs(30),
    Duration::from_secs(120),
    Duration::from_secs(600),
];

/// Kinds that suspend the engine at once, and for how long.
pub const DIRECT_SUSPENSIONS: [(ErrorKind, Duration); 3] = [
    (ErrorKind::Captcha, Duration::from_secs(3600)),
    (ErrorKind::AccessDenied, Duration::from_secs(180)),
    (ErrorKind::RateLimited, Duration::from_secs(180)),
];

/// What one failure does to the breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trip {
    /// Nothing.
    Ignore,
    /// It counts toward the threshold within the window.
    Count,
    /// It suspends the engine at once for at least this long.
    Suspend(Duration),
}

/// The breaker's numbers and its error table. Every field is public and
/// every number configurable; [`Default`] gives the values in the module
/// table.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakerConfig {
    /// Counted failures within [`BreakerConfig::failure_window`] that open
    /// the breaker (3).
    pub failure_threshold: u32,
    /// The sliding window for counted failures (1 h).
    pub failure_window: Duration,
    /// Suspension for the 1st, 2nd, … break; the last repeats
    /// ([`DEFAULT_SUSPENSIONS`]).
    pub suspensions: Vec<Duration>,
    /// Kinds that count toward the threshold (`bot_detected`).
    pub counted: Vec<ErrorKind>,
    /// Kinds that suspend at once, with their suspension
    /// ([`DIRECT_SUSPENSIONS`]).
    pub suspend_on: Vec<(ErrorKind, Duration)>,
    /// The longest `retry_after` honoured when it exceeds a suspension (1 day).
    pub max_retry_after: Duration,
    /// How long a half-open probe holds its lease before another call may
    /// probe (60 s); set it above the engine's timeout.
    pub probe_lease: Duration,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            failure_threshold: 3,
            failure_window: Duration::from_secs(3600),
            suspensions: DEFAULT_SUSPENSIONS.to_vec(),
            counted: vec![ErrorKind::BotDetected],
            suspend_on: DIRECT_SUSPENSIONS.to_vec(),
            max_retry_after: Duration::from_secs(24 * 3600),
            probe_lease: Duration::from_secs(60),
        }
    }
}

impl BreakerConfig {
    /// What `error` does to the breaker, from its kind and `retry_after`.
    pub fn trip(&self, error: &EngineError) -> Trip {
        let kind = error.kind();
        if let Some((_, base)) = self.suspend_on.iter().find(|(k, _)| *k == kind) {
            let asked = error
                .retry_after()
                .map(|d| d.min(self.max_retry_after))
                .unwrap_or_default();
            return Trip::Suspend((*base).max(asked));
        }
        if self.counted.contains(&kind) {
            return Trip::Count;
        }
        Trip::Ignore
    }

    /// The suspension for break number `n` (1-based).
    pub fn suspension_for_break(&self, n: u32) -> Duration {
        let i = (n.max(1) as usize - 1).min(self.suspensions.len().saturating_sub(1));
        self.suspensions
            .get(i)
            .copied()
            .unwrap_or(Duration::from_secs(30))
    }
}

/// One engine's breaker state, as stored (JSON). Times are ms since the Unix
/// epoch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakerState {
    /// Counted failures inside the window, oldest first.
    #[serde(default)]
    pub failures: Vec<u64>,
    /// Breaks on counted failures since the last success (steps the ladder).
    #[serde(default)]
    pub breaks: u32,
    /// Calls are refused until then; once past, the breaker is half-open.
    #[serde(default)]
    pub open_until: Option<u64>,
    /// The kind that opened it last.
    #[serde(default)]
    pub opened_by: Option<ErrorKind>,
    /// A half-open probe holds the lease until then.
    #[serde(default)]
    pub probe_until: Option<u64>,
}

impl BreakerState {
    /// Whether calls are refused at `now_ms` (open, not yet half-open).
    pub fn is_open_at(&self, now_ms: u64) -> bool {
        self.open_until.is_some_and(|t| t > now_ms)
    }

    /// Whether the suspension is over and a probe may go through.
    pub fn is_half_open_at(&self, now_ms: u64) -> bool {
        self.open_until.is_some_and(|t| t <= now_ms)
    }

    /// How long until calls may go through again.
    pub fn remaining_at(&self, now_ms: u64) -> Duration {
        Duration::from_millis(self.open_until.unwrap_or(0).saturating_sub(now_ms))
    }
}

/// How a call was let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Admission {
    /// Closed and the stored state was empty.
    ClosedClean,
    /// Closed with some failures recorded.
    Closed,
    /// The half-open probe; holds the lease until this time.
    Probe(u64),
    /// The store failed; the call goes through unchecked.
    Unchecked,
}

/// How many times a compare-and-swap is retried under contention before the
/// update is given up (and logged).
const CAS_ATTEMPTS: u32 = 32;

/// A short random pause before compare-and-swap attempt `attempt` (0-based),
/// so agents that collided do not collide again in lockstep.
async fn cas_backoff(attempt: u32) {
    if attempt > 0 {
        let ceiling = 200u64 << attempt.min(6);
        tokio::time::sleep(Duration::from_micros(fastrand::u64(0..=ceiling))).await;
    }
}

/// An engine guarded by a circuit breaker (see the module docs).
#[derive(Debug, Clone)]
pub struct CircuitBreaker<E> {
    inner: E,
    key: String,
    store: Arc<dyn BreakerStore>,
    config: Arc<BreakerConfig>,
    clock: Arc<dyn Clock>,
}

impl<E: Engine> CircuitBreaker<E> {
    /// Guard `inner` with the default config and a private in-memory store.
    pub fn new(inner: E) -> Self {
        let key = inner.name().to_string();
        CircuitBreaker {
            inner,
            key,
            store: Arc::new(MemoryBreakerStore::new()),
            config: Arc::new(BreakerConfig::default()),
            clock: Arc::new(SystemClock),
        }
    }

    /// Keep state in `store` (shared with every breaker using it).
    pub fn with_store(mut self, store: Arc<dyn BreakerStore>) -> Self {
        self.store = store;
        self
    }

    /// Replace the config.
    pub fn with_config(mut self, config: BreakerConfig) -> Self {
        self.config = Arc::new(config);
        self
    }

    /// Read time from `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Store state under `key` instead of the engine's name (e.g. two
    /// accounts of one service).
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = key.into();
        self
    }

    /// The config in force.
    pub fn config(&self) -> &BreakerConfig {
        &self.config
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// The current state (empty when none is stored).
    pub async fn state(&self) -> Result<BreakerState, BreakerStoreError> {
        Ok(self.load().await?.1)
    }

    /// Close the breaker and forget every failure.
    pub async fn reset(&self) -> Result<(), BreakerStoreError> {
        for attempt in 0..CAS_ATTEMPTS {
            cas_backoff(attempt).await;
            let (raw, _) = self.load().await?;
            if raw.is_none()
                || self
                    .store
                    .compare_and_swap(&self.key, raw.as_deref(), None, Duration::ZERO)
                    .await?
            {
                return Ok(());
            }
        }
        Err(contention(self.store.store_name(), &self.key))
    }

    async fn load(&self) -> Result<(Option<String>, BreakerState), BreakerStoreError> {
        let raw = self.store.load(&self.key).await?;
        let state = match raw.as_deref().map(serde_json::from_str::<BreakerState>) {
            None => BreakerState::default(),
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                tracing::warn!(engine = %self.key, error = %e, "unreadable breaker state; treating as closed");
                BreakerState::default()
            }
        };
        Ok((raw, state))
    }

    fn ttl_for(&self, state: &BreakerState, now: u64) -> Duration {
        self.config.failure_window + state.remaining_at(now) + self.config.probe_lease
    }

    /// Apply `change` to the stored state with compare-and-swap; `change`
    /// returns `None` to delete the state.
    async fn update(
        &self,
        change: impl Fn(BreakerState, u64) -> Option<BreakerState>,
    ) -> Result<(), BreakerStoreError> {
        for attempt in 0..CAS_ATTEMPTS {
            cas_backoff(attempt).await;
            let (raw, state) = self.load().await?;
            let now = self.clock.now_ms();
            let new = change(state, now);
            let encoded = new
                .as_ref()
                .map(|s| serde_json::to_string(s).unwrap_or_default());
            if encoded.as_deref() == raw.as_deref() {
                return Ok(());
            }
            let ttl = new
                .as_ref()
                .map(|s| self.ttl_for(s, now))
                .unwrap_or_default();
            if self
                .store
                .compare_and_swap(&self.key, raw.as_deref(), encoded.as_deref(), ttl)
                .await?
            {
                return Ok(());
            }
        }
        Err(contention(self.store.store_name(), &self.key))
    }

    fn open_error(&self, state: &BreakerState, now: u64) -> EngineError {
        let why = match state.opened_by {
            Some(ErrorKind::BotDetected) | None => format!(
                "{} bot detections within {} s (break {})",
                self.config.failure_threshold,
                self.config.failure_window.as_secs(),
                state.breaks
            ),
            Some(kind) => format!("a {kind} answer"),
        };
        EngineError::CircuitOpen {
            retry_after: Some(state.remaining_at(now)),
            message: format!(
                "{} is suspended until {} after {why}; try again later or use other engines",
                self.inner.name(),
                crate::health::format_until(state.open_until.unwrap_or(now))
            ),
        }
    }

    async fn admit(&self) -> Result<Admission, EngineError> {
        for attempt in 0..CAS_ATTEMPTS {
            cas_backoff(attempt).await;
            let (raw, state) = match self.load().await {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!(engine = %self.key, error = %e, "breaker store failed; letting the call through");
                    return Ok(Admission::Unchecked);
                }
            };
            let now = self.clock.now_ms();
            if state.is_open_at(now) {
                return Err(self.open_error(&state, now));
            }
            if !state.is_half_open_at(now) {
                return Ok(if raw.is_none() {
                    Admission::ClosedClean
                } else {
                    Admission::Closed
                });
            }
            if let Some(lease) = state.probe_until.filter(|&p| p > now) {
                return Err(EngineError::CircuitOpen {
                    retry_after: Some(Duration::from_millis(lease - now)),
                    message: format!(
                        "{} is half-open and a probe call is in flight; try again later",
                        self.inner.name()
                    ),
                });
            }
            let lease = now + self.config.probe_lease.as_millis() as u64;
            let probing = BreakerState {
                probe_until: Some(lease),
                ..state.clone()
            };
            let encoded = serde_json::to_string(&probing).unwrap_or_default();
            match self
                .store
                .compare_and_swap(
                    &self.key,
                    raw.as_deref(),
                    Some(&encoded),
                    self.ttl_for(&probing, now),
                )
                .await
            {
                Ok(true) => return Ok(Admission::Probe(lease)),
                Ok(false) => continue,
                Err(e) => {
                    tracing::warn!(engine = %self.key, error = %e, "breaker store failed; letting the call through");
                    return Ok(Admission::Unchecked);
                }
            }
        }
        tracing::warn!(engine = %self.key, "breaker state under heavy contention; letting the call through");
        Ok(Admission::Unchecked)
    }

    async fn record(
        &self,
        admission: Admission,
        outcome: &Result<EngineResponse, EngineError>,
    ) -> Result<(), BreakerStoreError> {
        let probe = match admission {
            Admission::Probe(lease) => Some(lease),
            _ => None,
        };
        let error = match outcome {
            Ok(_) if admission == Admission::ClosedClean => return Ok(()),
            Ok(_) => return self.update(|_, _| None).await,
            Err(e) => e,
        };
        let config = &self.config;
        match config.trip(error) {
            Trip::Ignore => match probe {
                Some(lease) => self.update(|s, _| Some(release_probe(s, lease))).await,
                None => Ok(()),
            },
            Trip::Count => {
                let kind = error.kind();
                self.update(|mut s, now| {
                    let horizon = now.saturating_sub(config.failure_window.as_millis() as u64);
                    s.failures.retain(|&t| t > horizon);
                    s.failures.push(now);
                    if probe.is_some() || s.failures.len() >= config.failure_threshold as usize {
                        s.breaks += 1;
                        let until = now + config.suspension_for_break(s.breaks).as_millis() as u64;
                        s.open_until = Some(s.open_until.unwrap_or(0).max(until));
                        s.opened_by = Some(kind);
                        s.failures.clear();
                        s.probe_until = None;
                    } else if let Some(lease) = probe {
                        s = release_probe(s, lease);
                    }
                    Some(s)
                })
                .await
            }
            Trip::Suspend(d) => {
                let kind = error.kind();
                self.update(|mut s, now| {
                    let until = now + d.as_millis() as u64;
                    s.open_until = Some(s.open_until.unwrap_or(0).max(until));
                    s.opened_by = Some(kind);
                    s.probe_until = None;
                    Some(s)
                })
                .await
            }
        }
    }
}

fn release_probe(mut s: BreakerState, lease: u64) -> BreakerState {
    if s.probe_until == Some(lease) {
        s.probe_until = None;
    }
    s
}

fn contention(store: &'static str, key: &str) -> BreakerStoreError {
    BreakerStoreError::Backend {
        store,
        message: format!("state of {key} changed {CAS_ATTEMPTS} times during one update"),
    }
}

/// Frees a probe's lease if the probe call is dropped before it finishes.
struct ProbeGuard {
    store: Arc<dyn BreakerStore>,
    key: String,
    lease: Option<u64>,
    ttl: Duration,
}

impl Drop for ProbeGuard {
    fn drop(&mut self) {
        let Some(lease) = self.lease.take() else {
            return;
        };
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let store = self.store.clone();
        let key = std::mem::take(&mut self.key);
        let ttl = self.ttl;
        handle.spawn(async move {
            for attempt in 0..CAS_ATTEMPTS {
                cas_backoff(attempt).await;
                let Ok(raw) = store.load(&key).await else {
                    return;
                };
                let Some(state) = raw
                    .as_deref()
                    .and_then(|r| serde_json::from_str::<BreakerState>(r).ok())
                else {
                    return;
                };
                if state.probe_until != Some(lease) {
                    return;
                }
                let freed = release_probe(state, lease);
                let encoded = serde_json::to_string(&freed).unwrap_or_default();
                if let Ok(true) = store
                    .compare_and_swap(&key, raw.as_deref(), Some(&encoded), ttl)
                    .await
                {
                    return;
                }
            }
        });
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine> Engine for CircuitBreaker<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let admission = self.admit().await?;
        let mut guard = ProbeGuard {
            store: self.store.clone(),
            key: self.key.clone(),
            lease: match admission {
                Admission::Probe(lease) => Some(lease),
                _ => None,
            },
            ttl: self.config.failure_window + self.config.probe_lease,
        };
        let outcome = self.inner.search(request).await;
        if admission != Admission::Unchecked
            && let Err(e) = self.record(admission, &outcome).await
        {
            tracing::warn!(engine = %self.key, error = %e, "could not record the call in the breaker store");
        }
        guard.lease = None;
        if let Err(e) = &outcome
            && self.config.trip(e) != Trip::Ignore
        {
            tracing::info!(engine = self.inner.name(), kind = %e.kind(), "breaker recorded a failure");
        }
        outcome
    }
}

/// A [`Layer`] that builds [`CircuitBreaker`] engines sharing one store,
/// config and clock (state is kept per engine name).
#[derive(Debug, Clone)]
pub struct CircuitBreakerLayer {
    store: Arc<dyn BreakerStore>,
    config: Arc<BreakerConfig>,
    clock: Arc<dyn Clock>,
}

impl CircuitBreakerLayer {
    /// Breakers sharing a fresh in-memory store, default config, system clock.
    pub fn in_memory() -> Self {
        CircuitBreakerLayer::with_store(Arc::new(MemoryBreakerStore::new()))
    }

    /// Breakers keeping state in `store` (e.g. a
    /// [`RedisBreakerStore`] shared by a
    /// fleet).
    pub fn with_store(store: Arc<dyn BreakerStore>) -> Self {
        CircuitBreakerLayer {
            store,
            config: Arc::new(BreakerConfig::default()),
            clock: Arc::new(SystemClock),
        }
    }

    /// Replace the config.
    pub fn config(mut self, config: BreakerConfig) -> Self {
        self.config = Arc::new(config);
        self
    }

    /// Read time from `clock`.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }
}

impl<E: Engine> Layer<E> for CircuitBreakerLayer {
    type Engine = CircuitBreaker<E>;

    fn layer(&self, inner: E) -> CircuitBreaker<E> {
        CircuitBreaker {
            key: inner.name().to_string(),
            inner,
            store: self.store.clone(),
            config: self.config.clone(),
            clock: self.clock.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_classifies_by_kind() {
        let c = BreakerConfig::default();
        let bot = EngineError::BotDetected {
            message: String::new(),
        };
        assert_eq!(c.trip(&bot), Trip::Count);
        let captcha = EngineError::Captcha {
            message: String::new(),
        };
        assert_eq!(c.trip(&captcha), Trip::Suspend(Duration::from_secs(3600)));
        let slow = EngineError::RateLimited {
            retry_after: Some(Duration::from_secs(600)),
            message: String::new(),
        };
        assert_eq!(c.trip(&slow), Trip::Suspend(Duration::from_secs(600)));
        let short = EngineError::RateLimited {
            retry_after: Some(Duration::from_secs(5)),
            message: String::new(),
        };
        assert_eq!(c.trip(&short), Trip::Suspend(Duration::from_secs(180)));
        assert_eq!(c.trip(&EngineError::transport("x")), Trip::Ignore);
    }

    #[test]
    fn the_ladder_steps_and_stays_at_the_last_rung() {
        let c = BreakerConfig::default();
        let steps: Vec<u64> = (1..=5)
            .map(|n| c.suspension_for_break(n).as_secs())
            .collect();
        assert_eq!(steps, vec![30, 120, 600, 600, 600]);
    }
}
