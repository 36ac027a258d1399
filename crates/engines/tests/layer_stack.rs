//! The recommended stack, outermost first:
//! Cache ─► SingleFlight ─► CircuitBreaker ─► Retry ─► Throttle ─► Timeout ─► engine.

mod layer_engines;

use std::sync::Arc;
use std::time::Duration;

use ferret_core::conformance::Conformance;
use ferret_core::layer::{EngineExt, TimeoutLayer};
use ferret_core::{Engine, EngineError, EngineKind, EngineRequest, ErrorKind};
use ferret_engines::cache::{MemoryCache, SearchCache};
use ferret_engines::layers::{
    CacheLayer, CircuitBreakerLayer, Jitter, RetryLayer, SingleFlightLayer, ThrottleLayer,
    TokioClock,
};
use layer_engines::{Switch, bot};

fn stack(engine: Switch) -> impl Engine + 'static {
    let cache: Arc<dyn SearchCache> = Arc::new(MemoryCache::new());
    engine
        .layer(TimeoutLayer::new(Duration::from_secs(8)))
        .layer(ThrottleLayer::new())
        .layer(RetryLayer::new().with_jitter(Jitter::none()))
        .layer(CircuitBreakerLayer::in_memory().clock(Arc::new(TokioClock::new())))
        .layer(SingleFlightLayer::new())
        .layer(CacheLayer::new(cache))
}

#[tokio::test(start_paused = true)]
async fn concurrent_identical_searches_cost_one_call_and_repeats_cost_none() {
    let ddg = Switch::new("ddg")
        .kind(EngineKind::Scraper, 30)
        .delay(Duration::from_millis(200));
    let engine = Arc::new(stack(ddg.clone()));
    assert_eq!(engine.name(), "ddg");
    assert_eq!(
        engine.capabilities().max_results,
        10,
        "the throttle's cap shows through"
    );
    let calls: Vec<_> = (0..10)
        .map(|_| {
            let e = engine.clone();
            tokio::spawn(async move { e.search(&EngineRequest::new("rust")).await })
        })
        .collect();
    for c in calls {
        assert_eq!(c.await.unwrap().unwrap().hits.len(), 10);
    }
    assert_eq!(ddg.calls(), 1);
    engine.search(&EngineRequest::new("RUST ")).await.unwrap();
    assert_eq!(ddg.calls(), 1, "served from the cache");
}

#[tokio::test(start_paused = true)]
async fn a_blocking_engine_is_suspended_without_retries() {
    let ddg = Switch::new("ddg");
    ddg.fail_with(bot());
    let engine = stack(ddg.clone());
    for q in ["a", "b", "c"] {
        let err = engine.search(&EngineRequest::new(q)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BotDetected);
    }
    assert_eq!(ddg.calls(), 3, "bot detection is never retried");
    let err = engine.search(&EngineRequest::new("d")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CircuitOpen);
    assert_eq!(ddg.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn transient_failures_are_retried_inside_the_breaker() {
    let brave = Switch::new("brave");
    brave.fail_with(EngineError::transport("reset"));
    let engine = stack(brave.clone());
    let err = engine.search(&EngineRequest::new("q")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert!(!err.is_temporary());
    assert_eq!(brave.calls(), 3);
    brave.succeed();
    assert_eq!(
        engine
            .search(&EngineRequest::new("q"))
            .await
            .unwrap()
            .hits
            .len(),
        10
    );
}

#[tokio::test]
async fn the_whole_stack_conforms() {
    Conformance::new("rust")
        .check(&stack(Switch::new("web")))
        .await
        .assert_passed();
}
