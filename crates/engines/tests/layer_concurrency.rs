//! The concurrency limit: a bound on calls in flight, held for the whole call.

mod layer_engines;

use std::sync::Arc;
use std::time::Duration;

use ferret_core::conformance::Conformance;
use ferret_core::layer::EngineExt;
use ferret_core::testing::StaticEngine;
use ferret_core::{Engine, EngineRequest};
use ferret_engines::layers::{ConcurrencyLimit, ConcurrencyLimitLayer};
use layer_engines::Switch;

async fn run_concurrently(engine: Arc<dyn Engine>, n: usize) {
    let calls: Vec<_> = (0..n)
        .map(|i| {
            let e = engine.clone();
            tokio::spawn(async move { e.search(&EngineRequest::new(format!("q{i}"))).await })
        })
        .collect();
    for c in calls {
        c.await.unwrap().unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn at_most_the_limit_is_in_flight() {
    let e = Switch::new("exa").delay(Duration::from_millis(100));
    run_concurrently(Arc::new(ConcurrencyLimit::new(e.clone(), 2)), 8).await;
    assert_eq!(e.peak(), 2);
    assert_eq!(e.calls(), 8);
}

#[tokio::test(start_paused = true)]
async fn the_permit_is_held_until_the_call_returns() {
    let e = Switch::new("exa").delay(Duration::from_secs(1));
    let limit = Arc::new(ConcurrencyLimit::new(e, 1));
    let call = {
        let l = limit.clone();
        tokio::spawn(async move { l.search(&EngineRequest::new("q")).await })
    };
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(limit.available_permits(), 0, "the call is still running");
    call.await.unwrap().unwrap();
    assert_eq!(limit.available_permits(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_call_returns_its_permit() {
    let e = Switch::new("exa").delay(Duration::from_secs(10));
    let limit = ConcurrencyLimit::new(e, 1);
    let cancelled = tokio::time::timeout(
        Duration::from_millis(5),
        limit.search(&EngineRequest::new("q")),
    )
    .await;
    assert!(cancelled.is_err());
    assert_eq!(limit.available_permits(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_shared_layer_bounds_all_its_engines_together() {
    let a = Switch::new("a").delay(Duration::from_millis(100));
    let b = Switch::new("b").delay(Duration::from_millis(100));
    let layer = ConcurrencyLimitLayer::shared(1);
    let la: Arc<dyn Engine> = Arc::new(a.clone().layer(layer.clone()));
    let lb: Arc<dyn Engine> = Arc::new(b.clone().layer(layer));
    tokio::join!(run_concurrently(la, 3), run_concurrently(lb, 3));
    assert_eq!(a.peak(), 1);
    assert_eq!(b.peak(), 1);
    // Per-engine limits are independent.
    let c = Switch::new("c").delay(Duration::from_millis(100));
    let d = Switch::new("d").delay(Duration::from_millis(100));
    let layer = ConcurrencyLimitLayer::new(2);
    let lc: Arc<dyn Engine> = Arc::new(c.clone().layer(layer.clone()));
    let ld: Arc<dyn Engine> = Arc::new(d.clone().layer(layer));
    tokio::join!(run_concurrently(lc, 4), run_concurrently(ld, 4));
    assert_eq!((c.peak(), d.peak()), (2, 2));
}

#[tokio::test]
async fn conforms() {
    Conformance::new("rust")
        .check(&StaticEngine::new("static", 5).layer(ConcurrencyLimitLayer::new(2)))
        .await
        .assert_passed();
}
