//! The throttle: result cap for scrapers, one call in flight, spacing.

mod layer_engines;

use std::sync::Arc;
use std::time::Duration;

use ferret_core::conformance::Conformance;
use ferret_core::layer::EngineExt;
use ferret_core::testing::StaticEngine;
use ferret_core::{Engine, EngineKind, EngineRequest};
use ferret_engines::layers::{Throttle, ThrottleConfig, ThrottleLayer};
use layer_engines::Switch;

#[tokio::test]
async fn scrapers_are_capped_at_10_results_and_say_so() {
    let ddg = Switch::new("ddg").kind(EngineKind::Scraper, 50);
    let t = Throttle::new(ddg);
    assert_eq!(t.capabilities().max_results, 10);
    let r = t
        .search(&EngineRequest::new("rust").with_max_results(25))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 10);
    assert!(
        r.warnings.iter().any(|w| w.contains("capped at 10")),
        "{:?}",
        r.warnings
    );
    let small = t
        .search(&EngineRequest::new("rust").with_max_results(4))
        .await
        .unwrap();
    assert_eq!(small.hits.len(), 4);
    assert!(small.warnings.is_empty(), "nothing was clamped");
}

#[tokio::test]
async fn other_kinds_are_not_capped_by_default() {
    let brave = Switch::new("brave").kind(EngineKind::Web, 20);
    let t = Throttle::new(brave);
    assert_eq!(t.capabilities().max_results, 20);
    let r = t
        .search(&EngineRequest::new("rust").with_max_results(20))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 20);
}

#[tokio::test(start_paused = true)]
async fn calls_are_serialized() {
    let e = Switch::new("ddg").delay(Duration::from_millis(100));
    let t = Arc::new(Throttle::new(e.clone()));
    let calls: Vec<_> = (0..5)
        .map(|i| {
            let t = t.clone();
            tokio::spawn(async move { t.search(&EngineRequest::new(format!("q{i}"))).await })
        })
        .collect();
    for c in calls {
        c.await.unwrap().unwrap();
    }
    assert_eq!(e.peak(), 1);
    assert_eq!(e.calls(), 5);
}

#[tokio::test(start_paused = true)]
async fn without_serialization_calls_overlap() {
    let e = Switch::new("ddg").delay(Duration::from_millis(100));
    let t = Arc::new(Throttle::with_config(
        e.clone(),
        ThrottleConfig {
            max_results: None,
            serialize: false,
            min_interval: Duration::ZERO,
        },
    ));
    let calls: Vec<_> = (0..5)
        .map(|i| {
            let t = t.clone();
            tokio::spawn(async move { t.search(&EngineRequest::new(format!("q{i}"))).await })
        })
        .collect();
    for c in calls {
        c.await.unwrap().unwrap();
    }
    assert_eq!(e.peak(), 5);
}

#[tokio::test(start_paused = true)]
async fn calls_start_at_least_the_interval_apart() {
    let e = Switch::new("ddg");
    let t = Arc::new(Throttle::with_config(
        e.clone(),
        ThrottleConfig {
            max_results: Some(10),
            serialize: false,
            min_interval: Duration::from_secs(2),
        },
    ));
    let calls: Vec<_> = (0..4)
        .map(|i| {
            let t = t.clone();
            tokio::spawn(async move { t.search(&EngineRequest::new(format!("q{i}"))).await })
        })
        .collect();
    for c in calls {
        c.await.unwrap().unwrap();
    }
    let mut starts = e.starts();
    starts.sort();
    let gaps: Vec<Duration> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps.len(), 3);
    for g in gaps {
        assert!(g >= Duration::from_secs(2), "gap {g:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn clones_share_the_gate() {
    let e = Switch::new("ddg").delay(Duration::from_millis(50));
    let a = Throttle::new(e.clone());
    let b = a.clone();
    let (one, two) = (EngineRequest::new("one"), EngineRequest::new("two"));
    let (ra, rb) = tokio::join!(a.search(&one), b.search(&two));
    ra.unwrap();
    rb.unwrap();
    assert_eq!(e.peak(), 1);
}

#[tokio::test]
async fn conforms() {
    Conformance::new("rust")
        .check(&StaticEngine::new("static", 5).layer(ThrottleLayer::new()))
        .await
        .assert_passed();
    Conformance::new("rust")
        .check(
            &Switch::new("ddg")
                .kind(EngineKind::Scraper, 30)
                .layer(ThrottleLayer::new()),
        )
        .await
        .assert_passed();
}
