//! Single-flight: identical concurrent requests share one call.

mod layer_engines;

use std::sync::Arc;
use std::time::Duration;

use ferret_core::conformance::{Conformance, Expect};
use ferret_core::layer::EngineExt;
use ferret_core::testing::{CountingEngine, StaticEngine};
use ferret_core::{Engine, EngineRequest, ErrorKind};
use ferret_engines::layers::{SingleFlight, SingleFlightLayer};
use layer_engines::{Switch, bot};

fn slow(name: &str) -> CountingEngine<StaticEngine> {
    CountingEngine::new(StaticEngine::new(name, 3).with_delay(Duration::from_millis(100)))
}

#[tokio::test(start_paused = true)]
async fn ten_identical_concurrent_calls_make_one_inner_call() {
    let counting = slow("brave");
    let sf = Arc::new(SingleFlight::new(counting.clone()));
    let calls: Vec<_> = (0..10)
        .map(|_| {
            let sf = sf.clone();
            tokio::spawn(async move { sf.search(&EngineRequest::new("rust async")).await })
        })
        .collect();
    let mut answers = Vec::new();
    for c in calls {
        answers.push(c.await.unwrap().unwrap());
    }
    assert_eq!(counting.calls(), 1);
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(sf.in_flight(), 0, "the finished flight is forgotten");
}

#[tokio::test(start_paused = true)]
async fn different_requests_make_separate_calls() {
    let counting = slow("brave");
    let sf = SingleFlight::new(counting.clone());
    let a = EngineRequest::new("rust async");
    let b = EngineRequest::new("rust async").with_max_results(3);
    let c = EngineRequest::new("tokio");
    let (ra, rb, rc) = tokio::join!(sf.search(&a), sf.search(&b), sf.search(&c));
    ra.unwrap();
    rb.unwrap();
    rc.unwrap();
    assert_eq!(counting.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn an_error_is_shared_too() {
    let e = Switch::new("ddg").delay(Duration::from_millis(100));
    e.fail_with(bot());
    let sf = SingleFlight::new(e.clone());
    let req = EngineRequest::new("q");
    let outcomes = futures::future::join_all((0..6).map(|_| sf.search(&req))).await;
    assert_eq!(e.calls(), 1);
    for o in outcomes {
        assert_eq!(o.unwrap_err().kind(), ErrorKind::BotDetected);
    }
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_leader_does_not_strand_followers() {
    let counting = slow("brave");
    let sf = Arc::new(SingleFlight::new(counting.clone()));
    let leader = {
        let sf = sf.clone();
        tokio::spawn(async move { sf.search(&EngineRequest::new("q")).await })
    };
    tokio::time::sleep(Duration::from_millis(10)).await;
    let followers: Vec<_> = (0..3)
        .map(|_| {
            let sf = sf.clone();
            tokio::spawn(async move { sf.search(&EngineRequest::new("q")).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(10)).await;
    leader.abort();
    assert!(leader.await.unwrap_err().is_cancelled());
    for f in followers {
        assert_eq!(f.await.unwrap().unwrap().hits.len(), 3);
    }
    assert_eq!(
        counting.calls(),
        1,
        "the followers finished the leader's call"
    );
}

#[tokio::test(start_paused = true)]
async fn when_every_caller_is_gone_the_next_call_starts_afresh() {
    let counting = slow("brave");
    let sf = SingleFlight::new(counting.clone());
    let gone = tokio::time::timeout(
        Duration::from_millis(10),
        sf.search(&EngineRequest::new("q")),
    )
    .await;
    assert!(gone.is_err());
    assert_eq!(sf.in_flight(), 0);
    let r = sf.search(&EngineRequest::new("q")).await.unwrap();
    assert_eq!(r.hits.len(), 3);
    assert_eq!(counting.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn sequential_identical_calls_are_not_cached() {
    let counting = slow("brave");
    let sf = SingleFlight::new(counting.clone());
    sf.search(&EngineRequest::new("q")).await.unwrap();
    sf.search(&EngineRequest::new("q")).await.unwrap();
    assert_eq!(counting.calls(), 2);
}

#[tokio::test]
async fn conforms_on_success_and_error() {
    Conformance::new("rust")
        .check(&StaticEngine::new("static", 5).layer(SingleFlightLayer::new()))
        .await
        .assert_passed();
    let e = Switch::new("ddg");
    e.fail_with(bot());
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::BotDetected))
        .check(&e.layer(SingleFlightLayer::new()))
        .await
        .assert_passed();
}
