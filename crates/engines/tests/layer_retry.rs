//! The retry layer: what is retried, how long it waits, and the budget.

mod layer_engines;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferret_core::conformance::{Conformance, Expect};
use ferret_core::layer::{EngineExt, TimeoutLayer};
use ferret_core::testing::{CountingEngine, FailingEngine, FlakyEngine, SlowEngine, StaticEngine};
use ferret_core::{Engine, EngineError, EngineRequest, ErrorKind};
use ferret_engines::layers::{Jitter, Retry, RetryBudget, RetryLayer, RetryPolicy};
use layer_engines::{bot, rate_limited};
use tokio::time::Instant;

fn policy(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        base: Duration::from_millis(100),
        cap: Duration::from_secs(1),
        max_attempts,
        max_retry_after: Duration::from_secs(30),
    }
}

fn req() -> EngineRequest {
    EngineRequest::new("rust retry")
}

#[tokio::test(start_paused = true)]
async fn temporary_failures_are_retried_until_success() {
    let flaky = FlakyEngine::new("flaky", 2, EngineError::transport("reset"), 3);
    let e = Retry::new(flaky.clone()).with_policy(policy(3));
    let r = e.search(&req()).await.unwrap();
    assert_eq!(r.hits.len(), 3);
    assert_eq!(flaky.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn persistent_failures_are_returned_at_once() {
    for error in [
        bot(),
        EngineError::parse("bad json"),
        EngineError::Auth {
            message: "no key".into(),
        },
    ] {
        let kind = error.kind();
        let flaky = FlakyEngine::new("flaky", 1, error, 3);
        let e = Retry::new(flaky.clone()).with_policy(policy(5));
        let err = e.search(&req()).await.unwrap_err();
        assert_eq!(err.kind(), kind);
        assert_eq!(flaky.calls(), 1, "{kind} must not be retried");
    }
}

#[tokio::test(start_paused = true)]
async fn the_final_failure_is_persistent() {
    let counting = CountingEngine::new(FailingEngine::new("down", EngineError::transport("503")));
    let e = Retry::new(counting.clone()).with_policy(policy(3));
    let err = e.search(&req()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(
        !err.is_temporary(),
        "an outer retry must not multiply attempts"
    );
    assert_eq!(counting.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn waits_are_drawn_below_doubling_ceilings() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let jitter = Jitter::from_fn(move |ceiling| {
        log.lock().unwrap().push(ceiling);
        ceiling / 2
    });
    let counting = CountingEngine::new(FailingEngine::new("down", EngineError::transport("x")));
    let e = Retry::new(counting.clone())
        .with_policy(policy(4))
        .with_jitter(jitter);
    let start = Instant::now();
    e.search(&req()).await.unwrap_err();
    let ceilings: Vec<u128> = seen.lock().unwrap().iter().map(|d| d.as_millis()).collect();
    assert_eq!(ceilings, vec![100, 200, 400]);
    assert_eq!(start.elapsed(), Duration::from_millis(50 + 100 + 200));
}

#[tokio::test(start_paused = true)]
async fn retry_after_is_waited_for() {
    let flaky = FlakyEngine::new("limited", 1, rate_limited(Some(Duration::from_secs(2))), 1);
    let e = Retry::new(flaky.clone())
        .with_policy(policy(3))
        .with_jitter(Jitter::none());
    let start = Instant::now();
    e.search(&req()).await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_secs(2));
    assert_eq!(flaky.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_beyond_the_bound_ends_the_retries() {
    let flaky = FlakyEngine::new(
        "limited",
        1,
        rate_limited(Some(Duration::from_secs(120))),
        1,
    );
    let e = Retry::new(flaky.clone()).with_policy(policy(3));
    let start = Instant::now();
    let err = e.search(&req()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RateLimited);
    assert_eq!(err.retry_after(), Some(Duration::from_secs(120)));
    assert_eq!(flaky.calls(), 1);
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn per_attempt_timeouts_are_retried() {
    let counting = CountingEngine::new(
        SlowEngine::hanging("hang").layer(TimeoutLayer::new(Duration::from_millis(50))),
    );
    let e = Retry::new(counting.clone()).with_policy(policy(3));
    let err = e.search(&req()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert_eq!(counting.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn the_budget_caps_retries_at_a_fraction_of_calls() {
    let budget = Arc::new(RetryBudget::new(Duration::from_secs(10), 0.0, 0.2));
    let counting = CountingEngine::new(FailingEngine::new("down", EngineError::transport("x")));
    let e = Retry::new(counting.clone())
        .with_policy(policy(3))
        .with_budget(budget)
        .with_jitter(Jitter::from_fn(|_| Duration::ZERO));
    for _ in 0..100 {
        e.search(&req()).await.unwrap_err();
    }
    // Without a budget: 300 calls. With 20 % of 100 calls: at most 120.
    let calls = counting.calls();
    assert!((110..=120).contains(&calls), "{calls} inner calls");
}

#[tokio::test(start_paused = true)]
async fn the_budget_refills_as_the_window_slides() {
    let budget = Arc::new(RetryBudget::new(Duration::from_secs(10), 0.1, 0.0));
    assert_eq!(budget.remaining(), 1);
    assert!(budget.withdraw());
    assert!(!budget.withdraw());
    tokio::time::advance(Duration::from_secs(11)).await;
    assert!(budget.withdraw());
}

#[tokio::test(start_paused = true)]
async fn clones_share_one_budget() {
    // A floor of one retry per 10 s window and nothing per call.
    let budget = Arc::new(RetryBudget::new(Duration::from_secs(10), 0.1, 0.0));
    let counting = CountingEngine::new(FailingEngine::new("down", EngineError::transport("x")));
    let a = Retry::new(counting.clone())
        .with_policy(policy(3))
        .with_budget(budget);
    let b = a.clone();
    assert!(Arc::ptr_eq(a.budget(), b.budget()));
    a.search(&req()).await.unwrap_err();
    assert_eq!(counting.calls(), 2, "one retry paid from the budget");
    b.search(&req()).await.unwrap_err();
    assert_eq!(counting.calls(), 3, "the clone finds the budget spent");
}

#[tokio::test(start_paused = true)]
async fn the_layer_gives_each_engine_its_own_budget_unless_shared() {
    let layer = RetryLayer::new();
    let a = StaticEngine::new("a", 1).layer(layer.clone());
    let b = StaticEngine::new("b", 1).layer(layer);
    assert!(!Arc::ptr_eq(a.budget(), b.budget()));
    let shared = RetryLayer::new().with_budget(Arc::new(RetryBudget::default()));
    let a = StaticEngine::new("a", 1).layer(shared.clone());
    let b = StaticEngine::new("b", 1).layer(shared);
    assert!(Arc::ptr_eq(a.budget(), b.budget()));
}

#[tokio::test(start_paused = true)]
async fn conforms_on_success_and_on_the_kinds_it_returns() {
    Conformance::new("rust")
        .check(&StaticEngine::new("static", 5).layer(RetryLayer::new()))
        .await
        .assert_passed();
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::Transport))
        .check(&FailingEngine::new("down", EngineError::transport("x")).layer(RetryLayer::new()))
        .await
        .assert_passed();
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::BotDetected))
        .check(&FailingEngine::new("ddg", bot()).layer(RetryLayer::new()))
        .await
        .assert_passed();
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::Timeout))
        .check(
            &SlowEngine::hanging("hang")
                .layer(TimeoutLayer::new(Duration::from_millis(20)))
                .layer(RetryLayer::new()),
        )
        .await
        .assert_passed();
}
