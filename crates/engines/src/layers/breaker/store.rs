//! Where breaker state lives: the [`BreakerStore`] trait, the in-process
//! [`MemoryBreakerStore`], and the [`Clock`] the breaker reads time from.
//!
//! A store is a tiny compare-and-swap register per engine holding the
//! breaker's state as a JSON string. All breaker logic runs in Rust in
//! [`CircuitBreaker`](super::CircuitBreaker); a store only has to load a
//! value and replace it if nobody changed it in between. That keeps a shared
//! store (Redis) as correct as the in-memory one when a fleet of agents
//! updates the same engine's state at once.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use tokio::time::Instant;

/// A failure of the store itself (not of the engine).
///
/// The breaker never fails a search because its store failed: it logs the
/// error and lets the call through ("fail open").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BreakerStoreError {
    /// The backend could not be reached or answered with an error.
    #[error("breaker store {store} failed: {message}; check that the store is reachable")]
    Backend {
        /// Which store (`memory`, `redis`).
        store: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// A compare-and-swap register of breaker state, one value per engine key.
///
/// Values are opaque strings (the breaker stores JSON). `ttl` tells the
/// store when an untouched value may be forgotten; forgetting it resets the
/// breaker to closed.
#[async_trait]
pub trait BreakerStore: Send + Sync + Debug {
    /// The store's name for messages and logs (`memory`, `redis`).
    fn store_name(&self) -> &'static str;

    /// The current value for `key`, if any.
    async fn load(&self, key: &str) -> Result<Option<String>, BreakerStoreError>;

    /// Replace the value for `key` with `new` (delete it when `None`) if and
    /// only if it still equals `expected` (`None`: absent). Returns whether
    /// the swap happened.
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&str>,
        new: Option<&str>,
        ttl: Duration,
    ) -> Result<bool, BreakerStoreError>;
}

/// Breaker state kept in this process (shared by every breaker given the
/// same store). Expiry follows tokio's clock.
#[derive(Debug, Default)]
pub struct MemoryBreakerStore {
    values: Mutex<HashMap<String, (String, Instant)>>,
}

impl MemoryBreakerStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryBreakerStore::default()
    }
}

#[async_trait]
impl BreakerStore for MemoryBreakerStore {
    fn store_name(&self) -> &'static str {
        "memory"
    }

    async fn load(&self, key: &str) -> Result<Option<String>, BreakerStoreError> {
        let now = Instant::now();
        let mut values = self.values.lock().unwrap_or_else(|p| p.into_inner());
        match values.get(key) {
            Some((_, expires)) if *expires <= now => {
                values.remove(key);
                Ok(None)
            }
            Some((value, _)) => Ok(Some(value.clone())),
            None => Ok(None),
        }
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&str>,
        new: Option<&str>,
        ttl: Duration,
    ) -> Result<bool, BreakerStoreError> {
        let now = Instant::now();
        let mut values = self.values.lock().unwrap_or_else(|p| p.into_inner());
        let current = values
            .get(key)
            .filter(|(_, expires)| *expires > now)
            .map(|(v, _)| v.as_str());
        if current != expected {
            return Ok(false);
        }
        match new {
            Some(v) => {
                values.insert(key.to_string(), (v.to_string(), now + ttl));
            }
            None => {
                values.remove(key);
            }
        }
        Ok(true)
    }
}

/// Wall-clock time in milliseconds since the Unix epoch, as the breaker
/// reads it. Shared stores need wall time (every agent of a fleet must agree
/// on "open until"); tests inject [`TokioClock`] to follow paused time.
pub trait Clock: Send + Sync + Debug {
    /// Now, in ms since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
}

/// Wall time that advances with tokio's clock: the system time when it was
/// created plus tokio time elapsed since. Under `tokio::time::pause` it moves
/// only when tokio time does, which makes breaker tests deterministic.
#[derive(Debug, Clone, Copy)]
pub struct TokioClock {
    base_ms: u64,
    base: Instant,
}

impl TokioClock {
    /// A clock starting at the current system time.
    pub fn new() -> Self {
        TokioClock {
            base_ms: SystemClock.now_ms(),
            base: Instant::now(),
        }
    }
}

impl Default for TokioClock {
    fn default() -> Self {
        TokioClock::new()
    }
}

impl Clock for TokioClock {
    fn now_ms(&self) -> u64 {
        self.base_ms + Instant::now().duration_since(self.base).as_millis() as u64
    }
}
