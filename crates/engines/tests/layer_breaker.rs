//! The circuit breaker with the in-memory store: what opens it, how long it
//! stays open, the half-open probe, resets, and fail-open on store errors.

mod layer_engines;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::conformance::{Conformance, Expect};
use ferret_core::layer::EngineExt;
use ferret_core::testing::{FailingEngine, StaticEngine};
use ferret_core::{Engine, EngineError, EngineRequest, ErrorKind};
use ferret_engines::layers::{
    BreakerConfig, BreakerStore, BreakerStoreError, CircuitBreaker, CircuitBreakerLayer,
    MemoryBreakerStore, TokioClock,
};
use layer_engines::{Switch, bot, captcha, denied, rate_limited};

fn breaker(engine: Switch) -> CircuitBreaker<Switch> {
    CircuitBreaker::new(engine).with_clock(Arc::new(TokioClock::new()))
}

fn req() -> EngineRequest {
    EngineRequest::new("site:docs.rs tokio")
}

async fn kind_of(e: &impl Engine) -> Result<usize, ErrorKind> {
    e.search(&req())
        .await
        .map(|r| r.hits.len())
        .map_err(|e| e.kind())
}

async fn open_for(e: &impl Engine) -> Duration {
    match e.search(&req()).await {
        Err(EngineError::CircuitOpen {
            retry_after: Some(d),
            ..
        }) => d,
        other => panic!("expected circuit_open with retry_after, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn three_bot_detections_within_an_hour_open_it_for_30_seconds() {
    let ddg = Switch::new("ddg");
    ddg.fail_with(bot());
    let b = breaker(ddg.clone());
    for _ in 0..3 {
        assert_eq!(kind_of(&b).await, Err(ErrorKind::BotDetected));
    }
    assert_eq!(open_for(&b).await, Duration::from_secs(30));
    assert_eq!(ddg.calls(), 3, "an open breaker makes no call");
    let state = b.state().await.unwrap();
    assert_eq!(state.breaks, 1);
    assert_eq!(state.opened_by, Some(ErrorKind::BotDetected));
}

#[tokio::test(start_paused = true)]
async fn failures_older_than_the_window_do_not_count() {
    let ddg = Switch::new("ddg");
    ddg.fail_with(bot());
    let b = breaker(ddg.clone());
    kind_of(&b).await.unwrap_err();
    kind_of(&b).await.unwrap_err();
    tokio::time::advance(Duration::from_secs(3601)).await;
    kind_of(&b).await.unwrap_err();
    assert_eq!(
        kind_of(&b).await,
        Err(ErrorKind::BotDetected),
        "2 within the last hour: still closed"
    );
    assert_eq!(ddg.calls(), 4);
}

#[tokio::test(start_paused = true)]
async fn suspensions_step_30s_2min_10min_and_stay_there() {
    let ddg = Switch::new("ddg");
    ddg.fail_with(bot());
    let b = breaker(ddg.clone());
    for _ in 0..3 {
        kind_of(&b).await.unwrap_err();
    }
    let mut seen = vec![open_for(&b).await.as_secs()];
    for _ in 0..3 {
        tokio::time::advance(Duration::from_secs(seen[seen.len() - 1])).await;
        // The half-open probe fails again: the breaker reopens a step higher.
        assert_eq!(kind_of(&b).await, Err(ErrorKind::BotDetected));
        seen.push(open_for(&b).await.as_secs());
    }
    assert_eq!(seen, vec![30, 120, 600, 600]);
}

#[tokio::test(start_paused = true)]
async fn a_success_resets_failures_and_break_count() {
    let ddg = Switch::new("ddg");
    let b = breaker(ddg.clone());
    ddg.fail_with(bot());
    kind_of(&b).await.unwrap_err();
    kind_of(&b).await.unwrap_err();
    ddg.succeed();
    kind_of(&b).await.unwrap();
    ddg.fail_with(bot());
    kind_of(&b).await.unwrap_err();
    kind_of(&b).await.unwrap_err();
    assert_eq!(
        kind_of(&b).await,
        Err(ErrorKind::BotDetected),
        "the count restarted after the success"
    );
    // That third failure opened it (break 1); the probe fails (break 2) ...
    open_for(&b).await;
    tokio::time::advance(Duration::from_secs(30)).await;
    kind_of(&b).await.unwrap_err();
    assert_eq!(open_for(&b).await, Duration::from_secs(120));
    // ... then a successful probe closes it and forgets the breaks.
    tokio::time::advance(Duration::from_secs(120)).await;
    ddg.succeed();
    kind_of(&b).await.unwrap();
    assert_eq!(b.state().await.unwrap(), Default::default());
    ddg.fail_with(bot());
    for _ in 0..3 {
        kind_of(&b).await.unwrap_err();
    }
    assert_eq!(
        open_for(&b).await,
        Duration::from_secs(30),
        "back to the first step"
    );
}

#[tokio::test(start_paused = true)]
async fn a_captcha_suspends_for_an_hour_at_once() {
    let ddg = Switch::new("ddg");
    ddg.fail_with(captcha());
    let b = breaker(ddg.clone());
    assert_eq!(kind_of(&b).await, Err(ErrorKind::Captcha));
    assert_eq!(open_for(&b).await, Duration::from_secs(3600));
}

#[tokio::test(start_paused = true)]
async fn forbidden_and_rate_limited_suspend_for_3_minutes_or_retry_after_when_longer() {
    for (error, expected) in [
        (denied(), 180),
        (rate_limited(None), 180),
        (rate_limited(Some(Duration::from_secs(20))), 180),
        (rate_limited(Some(Duration::from_secs(900))), 900),
    ] {
        let e = Switch::new("brave");
        e.fail_with(error);
        let b = breaker(e.clone());
        kind_of(&b).await.unwrap_err();
        assert_eq!(open_for(&b).await, Duration::from_secs(expected));
        assert_eq!(e.calls(), 1);
    }
}

#[tokio::test(start_paused = true)]
async fn other_kinds_never_open_it() {
    for error in [
        EngineError::transport("reset"),
        EngineError::Timeout {
            after: Duration::from_secs(8),
        },
        EngineError::parse("bad"),
        EngineError::Quota {
            message: "out of credit".into(),
        },
    ] {
        let kind = error.kind();
        let e = Switch::new("exa");
        e.fail_with(error);
        let b = breaker(e.clone());
        for _ in 0..10 {
            assert_eq!(kind_of(&b).await, Err(kind));
        }
        assert_eq!(e.calls(), 10, "{kind} must not trip the breaker");
    }
}

#[tokio::test(start_paused = true)]
async fn only_one_probe_goes_through_when_half_open() {
    let ddg = Switch::new("ddg").delay(Duration::from_secs(2));
    ddg.fail_with(bot());
    let b = Arc::new(breaker(ddg.clone()));
    for _ in 0..3 {
        kind_of(&*b).await.unwrap_err();
    }
    tokio::time::advance(Duration::from_secs(30)).await;
    ddg.succeed();
    let calls: Vec<_> = (0..5)
        .map(|_| {
            let b = b.clone();
            tokio::spawn(async move { b.search(&req()).await })
        })
        .collect();
    let mut ok = 0;
    let mut refused = 0;
    for c in calls {
        match c.await.unwrap() {
            Ok(_) => ok += 1,
            Err(EngineError::CircuitOpen { retry_after, .. }) => {
                assert!(retry_after.is_some_and(|d| d > Duration::ZERO));
                refused += 1;
            }
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!((ok, refused), (1, 4));
    assert_eq!(ddg.calls(), 4, "3 failures + 1 probe");
    assert_eq!(kind_of(&*b).await, Ok(10), "the successful probe closed it");
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_probe_frees_its_lease() {
    let ddg = Switch::new("ddg").delay(Duration::from_secs(5));
    ddg.fail_with(bot());
    let b = breaker(ddg.clone());
    for _ in 0..3 {
        kind_of(&b).await.unwrap_err();
    }
    tokio::time::advance(Duration::from_secs(30)).await;
    ddg.succeed();
    let cancelled = tokio::time::timeout(Duration::from_millis(10), b.search(&req())).await;
    assert!(cancelled.is_err(), "the probe was cancelled");
    // Let the guard's release task run.
    tokio::task::yield_now().await;
    tokio::task::yield_now().await;
    assert_eq!(b.state().await.unwrap().probe_until, None);
    assert_eq!(
        kind_of(&b).await,
        Ok(10),
        "the next call probes and closes it"
    );
}

#[tokio::test(start_paused = true)]
async fn a_probe_failing_with_an_ignored_kind_keeps_it_half_open() {
    let ddg = Switch::new("ddg");
    ddg.fail_with(bot());
    let b = breaker(ddg.clone());
    for _ in 0..3 {
        kind_of(&b).await.unwrap_err();
    }
    tokio::time::advance(Duration::from_secs(30)).await;
    ddg.fail_with(EngineError::transport("reset"));
    assert_eq!(kind_of(&b).await, Err(ErrorKind::Transport));
    ddg.succeed();
    assert_eq!(kind_of(&b).await, Ok(10));
}

#[tokio::test(start_paused = true)]
async fn every_number_is_configurable() {
    let config = BreakerConfig {
        failure_threshold: 2,
        failure_window: Duration::from_secs(60),
        suspensions: vec![Duration::from_secs(5), Duration::from_secs(7)],
        counted: vec![ErrorKind::BotDetected, ErrorKind::Parse],
        suspend_on: vec![(ErrorKind::Captcha, Duration::from_secs(11))],
        ..BreakerConfig::default()
    };
    let e = Switch::new("ddg");
    let b = breaker(e.clone()).with_config(config);
    e.fail_with(EngineError::parse("garbled"));
    kind_of(&b).await.unwrap_err();
    kind_of(&b).await.unwrap_err();
    assert_eq!(open_for(&b).await, Duration::from_secs(5));
    tokio::time::advance(Duration::from_secs(5)).await;
    e.fail_with(captcha());
    kind_of(&b).await.unwrap_err();
    assert_eq!(open_for(&b).await, Duration::from_secs(11));
    // 403 is not in this table.
    let e = Switch::new("brave");
    e.fail_with(denied());
    let b = breaker(e.clone()).with_config(BreakerConfig {
        suspend_on: vec![],
        ..BreakerConfig::default()
    });
    for _ in 0..5 {
        assert_eq!(kind_of(&b).await, Err(ErrorKind::AccessDenied));
    }
}

#[tokio::test(start_paused = true)]
async fn breakers_sharing_a_store_share_state_per_engine_name() {
    let store: Arc<dyn BreakerStore> = Arc::new(MemoryBreakerStore::new());
    let layer = CircuitBreakerLayer::with_store(store).clock(Arc::new(TokioClock::new()));
    let ddg = Switch::new("ddg");
    ddg.fail_with(bot());
    let first = ddg.clone().layer(layer.clone());
    let second = Switch::new("ddg").layer(layer.clone());
    let other = Switch::new("bing").layer(layer);
    for _ in 0..3 {
        kind_of(&first).await.unwrap_err();
    }
    assert_eq!(kind_of(&second).await, Err(ErrorKind::CircuitOpen));
    assert_eq!(
        kind_of(&other).await,
        Ok(10),
        "another engine is unaffected"
    );
}

#[tokio::test(start_paused = true)]
async fn reset_closes_it() {
    let ddg = Switch::new("ddg");
    ddg.fail_with(captcha());
    let b = breaker(ddg.clone());
    kind_of(&b).await.unwrap_err();
    ddg.succeed();
    assert_eq!(kind_of(&b).await, Err(ErrorKind::CircuitOpen));
    b.reset().await.unwrap();
    assert_eq!(kind_of(&b).await, Ok(10));
}

/// A store whose backend is down.
#[derive(Debug)]
struct DownStore;

#[async_trait]
impl BreakerStore for DownStore {
    fn store_name(&self) -> &'static str {
        "down"
    }
    async fn load(&self, _key: &str) -> Result<Option<String>, BreakerStoreError> {
        Err(BreakerStoreError::Backend {
            store: "down",
            message: "connection refused".into(),
        })
    }
    async fn compare_and_swap(
        &self,
        _key: &str,
        _expected: Option<&str>,
        _new: Option<&str>,
        _ttl: Duration,
    ) -> Result<bool, BreakerStoreError> {
        Err(BreakerStoreError::Backend {
            store: "down",
            message: "connection refused".into(),
        })
    }
}

#[tokio::test(start_paused = true)]
async fn a_failing_store_lets_calls_through() {
    let e = Switch::new("ddg");
    let b = breaker(e.clone()).with_store(Arc::new(DownStore));
    assert_eq!(kind_of(&b).await, Ok(10));
    e.fail_with(bot());
    for _ in 0..5 {
        assert_eq!(kind_of(&b).await, Err(ErrorKind::BotDetected));
    }
}

#[tokio::test(start_paused = true)]
async fn conforms_closed_open_and_on_ignored_kinds() {
    Conformance::new("rust")
        .check(&StaticEngine::new("static", 5).layer(CircuitBreakerLayer::in_memory()))
        .await
        .assert_passed();

    let ddg = Switch::new("ddg");
    ddg.fail_with(captcha());
    let b = breaker(ddg.clone());
    kind_of(&b).await.unwrap_err();
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::CircuitOpen))
        .check(&b)
        .await
        .assert_passed();

    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::Timeout))
        .check(
            &FailingEngine::new(
                "slow",
                EngineError::Timeout {
                    after: Duration::from_secs(1),
                },
            )
            .layer(CircuitBreakerLayer::in_memory()),
        )
        .await
        .assert_passed();
}
