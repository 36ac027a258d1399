//! [`Retry`]: try a call again when it failed for a temporary reason.
//!
//! **When to use it**: around any network engine, so a dropped connection, a
//! 5xx, a short rate limit or a per-attempt timeout does not lose that
//! engine's results.
//!
//! **Where it sits**: inside [`CircuitBreaker`](super::CircuitBreaker) (one
//! logical call counts once toward the breaker) and outside
//! [`Throttle`](super::Throttle) and the per-attempt
//! [`Timeout`](ferret_core::layer::Timeout). A timeout placed *outside* the
//! retry bounds the whole retried call and cancels the retries mid-flight.
//!
//! **Policy** (typed facts only):
//! - only errors with [`EngineError::is_temporary`] are retried (rate limits,
//!   timeouts, temporary transport failures); everything else is returned at
//!   once;
//! - waits are exponential with *full jitter*: before retry `n` (1-based)
//!   the layer sleeps a random duration in `[0, min(cap, base·2ⁿ⁻¹)]`;
//! - when the error carries [`EngineError::retry_after`], the wait is at
//!   least that long; a `retry_after` longer than
//!   [`RetryPolicy::max_retry_after`] ends the retries at once (waiting that
//!   long inside one search is pointless; the breaker and the caller see the
//!   error instead);
//! - every retry must be paid from a [`RetryBudget`] shared by all clones of
//!   the layer's engine: retries are limited to a fraction of the recent
//!   calls plus a small floor, so a failing service is not hammered;
//! - the final failure goes through [`EngineError::into_persistent`], so an
//!   outer retry does not multiply the attempts.
//!
//! Randomness is injectable ([`Jitter`]) and all waiting uses tokio's clock,
//! so tests run deterministically under paused time.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::layer::Layer;
use ferret_core::{Engine, EngineCapabilities, EngineError, EngineRequest, EngineResponse};
use tokio::time::Instant;

/// How many attempts, and how long to wait between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The backoff ceiling before the first retry; it doubles each retry.
    pub base: Duration,
    /// The largest backoff ceiling.
    pub cap: Duration,
    /// Attempts in total, the first call included (1 = never retry).
    pub max_attempts: u32,
    /// The longest `retry_after` the layer will wait for; a longer one ends
    /// the retries.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    /// 3 attempts, backoff ceilings 250 ms then 500 ms (capped at 8 s),
    /// `retry_after` honoured up to 30 s.
    fn default() -> Self {
        RetryPolicy {
            base: Duration::from_millis(250),
            cap: Duration::from_secs(8),
            max_attempts: 3,
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The backoff ceiling before retry `n` (1-based): `min(cap, base·2ⁿ⁻¹)`.
    pub fn ceiling(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        self.base.saturating_mul(factor).min(self.cap)
    }
}

/// Chooses the actual wait below a backoff ceiling.
///
/// [`Jitter::full`] (the default) draws uniformly from `[0, ceiling]`;
/// [`Jitter::none`] always waits the ceiling; [`Jitter::from_fn`] injects any
/// rule (tests use it to make waits deterministic).
#[derive(Clone)]
pub struct Jitter(Arc<dyn Fn(Duration) -> Duration + Send + Sync>);

impl Jitter {
    /// Full jitter: a uniform draw from `[0, ceiling]`.
    pub fn full() -> Self {
        Jitter(Arc::new(|ceiling: Duration| {
            let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
            Duration::from_nanos(fastrand::u64(0..=nanos))
        }))
    }

    /// No jitter: always wait the full ceiling.
    pub fn none() -> Self {
        Jitter(Arc::new(|ceiling| ceiling))
    }

    /// A custom rule; results above the ceiling are clamped to it.
    pub fn from_fn(f: impl Fn(Duration) -> Duration + Send + Sync + 'static) -> Self {
        Jitter(Arc::new(f))
    }

    /// The wait for `ceiling`.
    pub fn wait(&self, ceiling: Duration) -> Duration {
        (self.0)(ceiling).min(ceiling)
    }
}

impl Default for Jitter {
    fn default() -> Self {
        Jitter::full()
    }
}

impl fmt::Debug for Jitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Jitter(..)")
    }
}

/// A budget that limits retries to a fraction of recent calls plus a floor
/// (tower's `TpsBudget` idea).
///
/// Every first attempt deposits one call; every retry withdraws one token.
/// Within the sliding window `ttl`, retries are allowed while
/// `withdrawals < floor(min_per_sec·ttl) + floor(ratio·deposits)`. When a
/// service fails every call, retries settle at `ratio` of the traffic (plus
/// the floor) instead of multiplying it by `max_attempts`.
#[derive(Debug)]
pub struct RetryBudget {
    ttl: Duration,
    min_per_sec: f64,
    ratio: f64,
    slots: Mutex<VecDeque<Slot>>,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    start: Instant,
    deposits: u64,
    withdrawals: u64,
}

const BUDGET_SLOTS: u32 = 10;

impl RetryBudget {
    /// A budget over a sliding window `ttl` allowing `min_per_sec` retries
    /// per second regardless of traffic, plus `ratio` (0.0–1.0+) retries per
    /// recent call. Negative or non-finite numbers are treated as 0.
    pub fn new(ttl: Duration, min_per_sec: f64, ratio: f64) -> Self {
        let clean = |x: f64| if x.is_finite() && x > 0.0 { x } else { 0.0 };
        RetryBudget {
            ttl: ttl.max(Duration::from_millis(BUDGET_SLOTS as u64)),
            min_per_sec: clean(min_per_sec),
            ratio: clean(ratio),
            slots: Mutex::new(VecDeque::new()),
        }
    }

    /// Record a first attempt.
    pub fn deposit(&self) {
        self.with_current(|slot| slot.deposits += 1);
    }

    /// Take one retry token; false when the budget is spent.
    pub fn withdraw(&self) -> bool {
        let allowed = self.allowed_retries();
        let mut ok = false;
        self.with_slots(|slots| {
            let used: u64 = slots.iter().map(|s| s.withdrawals).sum();
            if used < allowed
                && let Some(last) = slots.back_mut()
            {
                last.withdrawals += 1;
                ok = true;
            }
        });
        ok
    }

    /// Retries still available in the current window.
    pub fn remaining(&self) -> u64 {
        let allowed = self.allowed_retries();
        let mut used = 0;
        self.with_slots(|slots| used = slots.iter().map(|s| s.withdrawals).sum());
        allowed.saturating_sub(used)
    }

    fn allowed_retries(&self) -> u64 {
        let mut deposits = 0;
        self.with_slots(|slots| deposits = slots.iter().map(|s| s.deposits).sum());
        let floor = (self.min_per_sec * self.ttl.as_secs_f64()).floor();
        let share = (self.ratio * deposits as f64).floor();
        (floor + share) as u64
    }

    fn with_current(&self, f: impl FnOnce(&mut Slot)) {
        self.with_slots(|slots| {
            if let Some(last) = slots.back_mut() {
                f(last);
            }
        });
    }

    /// Run `f` on the window after expiring old slots and making sure the
    /// newest slot covers now.
    fn with_slots(&self, f: impl FnOnce(&mut VecDeque<Slot>)) {
        let now = Instant::now();
        let width = self.ttl / BUDGET_SLOTS;
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        while slots
            .front()
            .is_some_and(|s| now.duration_since(s.start) >= self.ttl)
        {
            slots.pop_front();
        }
        if slots
            .back()
            .is_none_or(|s| now.duration_since(s.start) >= width)
        {
            slots.push_back(Slot {
                start: now,
                deposits: 0,
                withdrawals: 0,
            });
        }
        f(&mut slots);
    }
}

impl Default for RetryBudget {
    /// A 10 s window, a floor of 1 retry per second, and 20 % of calls.
    fn default() -> Self {
        RetryBudget::new(Duration::from_secs(10), 1.0, 0.2)
    }
}

/// An engine whose temporary failures are retried (see the module docs).
#[derive(Debug, Clone)]
pub struct Retry<E> {
    inner: E,
    policy: RetryPolicy,
    budget: Arc<RetryBudget>,
    jitter: Jitter,
}

impl<E: Engine> Retry<E> {
    /// Wrap `inner` with the default policy, a fresh budget and full jitter.
    pub fn new(inner: E) -> Self {
        Retry {
            inner,
            policy: RetryPolicy::default(),
            budget: Arc::new(RetryBudget::default()),
            jitter: Jitter::full(),
        }
    }

    /// Replace the policy.
    pub fn with_policy(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Use (and share) `budget`.
    pub fn with_budget(mut self, budget: Arc<RetryBudget>) -> Self {
        self.budget = budget;
        self
    }

    /// Replace the jitter rule.
    pub fn with_jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self
    }

    /// The policy in force.
    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// The budget (shared by clones).
    pub fn budget(&self) -> &Arc<RetryBudget> {
        &self.budget
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// How long to wait before retry `retry` after `error`, or `None` when
    /// the error's `retry_after` is beyond the policy's bound.
    fn wait_for(&self, retry: u32, error: &EngineError) -> Option<Duration> {
        let backoff = self.jitter.wait(self.policy.ceiling(retry));
        match error.retry_after() {
            Some(asked) if asked > self.policy.max_retry_after => None,
            Some(asked) => Some(asked.max(backoff)),
            None => Some(backoff),
        }
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine> Engine for Retry<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        self.budget.deposit();
        let mut attempt: u32 = 1;
        loop {
            let error = match self.inner.search(request).await {
                Ok(response) => return Ok(response),
                Err(e) if !e.is_temporary() => return Err(e),
                Err(e) => e,
            };
            if attempt >= self.policy.max_attempts.max(1) {
                tracing::debug!(engine = self.name(), attempt, kind = %error.kind(), "retries exhausted");
                return Err(error.into_persistent());
            }
            let Some(wait) = self.wait_for(attempt, &error) else {
                tracing::debug!(engine = self.name(), kind = %error.kind(), "retry_after beyond the bound; not retrying");
                return Err(error.into_persistent());
            };
            if !self.budget.withdraw() {
                tracing::warn!(engine = self.name(), kind = %error.kind(), "retry budget spent; not retrying");
                return Err(error.into_persistent());
            }
            tracing::debug!(engine = self.name(), attempt, wait_ms = wait.as_millis() as u64, kind = %error.kind(), "retrying");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }
}

/// A [`Layer`] that builds [`Retry`] engines.
///
/// Each wrapped engine gets its own budget unless one is given with
/// [`RetryLayer::with_budget`], in which case all engines wrapped by this
/// layer share it.
#[derive(Debug, Clone, Default)]
pub struct RetryLayer {
    policy: RetryPolicy,
    budget: Option<Arc<RetryBudget>>,
    jitter: Jitter,
}

impl RetryLayer {
    /// The default policy, per-engine budgets, full jitter.
    pub fn new() -> Self {
        RetryLayer::default()
    }

    /// Replace the policy.
    pub fn with_policy(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Share `budget` between every engine this layer wraps.
    pub fn with_budget(mut self, budget: Arc<RetryBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Replace the jitter rule.
    pub fn with_jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self
    }
}

impl<E: Engine> Layer<E> for RetryLayer {
    type Engine = Retry<E>;

    fn layer(&self, inner: E) -> Retry<E> {
        let budget = self
            .budget
            .clone()
            .unwrap_or_else(|| Arc::new(RetryBudget::default()));
        Retry::new(inner)
            .with_policy(self.policy)
            .with_budget(budget)
            .with_jitter(self.jitter.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_double_up_to_the_cap() {
        let p = RetryPolicy {
            base: Duration::from_millis(100),
            cap: Duration::from_millis(500),
            ..RetryPolicy::default()
        };
        let c: Vec<u128> = (1..=5).map(|n| p.ceiling(n).as_millis()).collect();
        assert_eq!(c, vec![100, 200, 400, 500, 500]);
    }

    #[test]
    fn full_jitter_stays_below_the_ceiling() {
        let j = Jitter::full();
        for _ in 0..1000 {
            assert!(j.wait(Duration::from_millis(7)) <= Duration::from_millis(7));
        }
        assert_eq!(
            Jitter::from_fn(|_| Duration::from_secs(9)).wait(Duration::from_secs(1)),
            Duration::from_secs(1)
        );
    }
}
