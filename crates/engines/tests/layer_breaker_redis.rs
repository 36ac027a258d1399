//! The circuit breaker's Redis store against a real redis-server (URL in
//! `FERRET_TEST_REDIS_URL`; `scripts/test` starts one): a fleet of agents
//! sharing one Redis backs off together.
#![cfg(feature = "redis")]

mod layer_engines;

use std::sync::Arc;
use std::time::Duration;

use ferret_core::conformance::{Conformance, Expect};
use ferret_core::{Engine, EngineRequest, ErrorKind};
use ferret_engines::layers::{BreakerConfig, BreakerStore, CircuitBreaker, RedisBreakerStore};
use layer_engines::{Switch, bot, captcha};

fn redis_url() -> Option<String> {
    match std::env::var("FERRET_TEST_REDIS_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            eprintln!(
                "skipped: FERRET_TEST_REDIS_URL not set (scripts/test starts a redis-server)"
            );
            None
        }
    }
}

/// A store with a namespace of its own, so parallel tests and runs never
/// see each other's keys. Each call opens its own connection, like a
/// separate agent would.
async fn store(url: &str, namespace: &str) -> Arc<RedisBreakerStore> {
    Arc::new(
        RedisBreakerStore::connect(url)
            .await
            .expect("connect to FERRET_TEST_REDIS_URL")
            .with_namespace(namespace),
    )
}

fn namespace(test: &str) -> String {
    format!("ferret-test-{test}-{:08x}", fastrand::u32(..))
}

async fn kind_of(e: &impl Engine) -> Result<usize, ErrorKind> {
    e.search(&EngineRequest::new("rust"))
        .await
        .map(|r| r.hits.len())
        .map_err(|e| e.kind())
}

#[tokio::test]
async fn two_breakers_sharing_redis_see_each_others_open_state() {
    let Some(url) = redis_url() else { return };
    let ns = namespace("shared");
    let agent_a = Switch::new("ddg");
    agent_a.fail_with(bot());
    let agent_b = Switch::new("ddg");
    let a = CircuitBreaker::new(agent_a.clone()).with_store(store(&url, &ns).await);
    let b = CircuitBreaker::new(agent_b.clone()).with_store(store(&url, &ns).await);

    for _ in 0..3 {
        assert_eq!(kind_of(&a).await, Err(ErrorKind::BotDetected));
    }
    assert_eq!(kind_of(&b).await, Err(ErrorKind::CircuitOpen));
    assert_eq!(
        agent_b.calls(),
        0,
        "agent B never called the blocked engine"
    );
    let state = b.state().await.unwrap();
    assert_eq!(state.breaks, 1);
    assert_eq!(state.opened_by, Some(ErrorKind::BotDetected));
}

#[tokio::test]
async fn keys_are_namespaced_by_engine_and_expire() {
    let Some(url) = redis_url() else { return };
    let ns = namespace("keys");
    let s = store(&url, &ns).await;
    let e = Switch::new("bing");
    e.fail_with(captcha());
    let b = CircuitBreaker::new(e).with_store(s.clone());
    kind_of(&b).await.unwrap_err();

    let key = s.key_for("bing");
    assert_eq!(key, format!("{ns}:breaker:bing"));
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let ttl_ms: i64 = redis::cmd("PTTL")
        .arg(&key)
        .query_async(&mut conn)
        .await
        .unwrap();
    // A captcha opens for 1 h; the state outlives it by the failure window.
    assert!(ttl_ms > 3_600_000, "TTL {ttl_ms} ms");
    assert!(ttl_ms <= 2 * 3_600_000 + 60_000, "TTL {ttl_ms} ms");
    let raw: Option<String> = redis::cmd("GET")
        .arg(&key)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(raw.unwrap().contains("\"opened_by\":\"captcha\""));
    let other: Option<String> = s.load("ddg").await.unwrap();
    assert_eq!(other, None, "other engines have their own keys");
}

#[tokio::test]
async fn a_success_anywhere_closes_it_for_everyone() {
    let Some(url) = redis_url() else { return };
    let ns = namespace("reset");
    let config = BreakerConfig {
        suspensions: vec![Duration::from_millis(200)],
        ..BreakerConfig::default()
    };
    let failing = Switch::new("ddg");
    failing.fail_with(bot());
    let healthy = Switch::new("ddg");
    let a = CircuitBreaker::new(failing.clone())
        .with_store(store(&url, &ns).await)
        .with_config(config.clone());
    let b = CircuitBreaker::new(healthy.clone())
        .with_store(store(&url, &ns).await)
        .with_config(config);
    for _ in 0..3 {
        kind_of(&a).await.unwrap_err();
    }
    assert_eq!(kind_of(&b).await, Err(ErrorKind::CircuitOpen));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(kind_of(&b).await, Ok(10), "B's probe succeeds");
    failing.succeed();
    assert_eq!(kind_of(&a).await, Ok(10), "A sees the breaker closed");
    assert_eq!(a.state().await.unwrap(), Default::default());
}

#[tokio::test]
async fn concurrent_failures_from_two_agents_are_all_counted() {
    let Some(url) = redis_url() else { return };
    let ns = namespace("cas");
    let config = BreakerConfig {
        failure_threshold: 100,
        ..BreakerConfig::default()
    };
    let make = |s: Arc<RedisBreakerStore>| {
        let e = Switch::new("ddg");
        e.fail_with(bot());
        Arc::new(
            CircuitBreaker::new(e)
                .with_store(s)
                .with_config(config.clone()),
        )
    };
    let a = make(store(&url, &ns).await);
    let b = make(store(&url, &ns).await);
    let mut tasks = Vec::new();
    for i in 0..20 {
        let engine = if i % 2 == 0 { a.clone() } else { b.clone() };
        tasks.push(tokio::spawn(async move { kind_of(&*engine).await }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), Err(ErrorKind::BotDetected));
    }
    assert_eq!(
        a.state().await.unwrap().failures.len(),
        20,
        "no update was lost"
    );
}

#[tokio::test]
async fn conforms_with_the_redis_store() {
    let Some(url) = redis_url() else { return };
    let ns = namespace("conformance");
    let healthy = CircuitBreaker::new(Switch::new("web")).with_store(store(&url, &ns).await);
    Conformance::new("rust")
        .check(&healthy)
        .await
        .assert_passed();

    let blocked = Switch::new("ddg");
    blocked.fail_with(captcha());
    let b = CircuitBreaker::new(blocked).with_store(store(&url, &ns).await);
    kind_of(&b).await.unwrap_err();
    Conformance::new("rust")
        .expect(Expect::Error(ErrorKind::CircuitOpen))
        .check(&b)
        .await
        .assert_passed();
}

#[tokio::test]
async fn an_unreachable_redis_is_a_typed_error() {
    let err = RedisBreakerStore::connect("redis://127.0.0.1:1/")
        .await
        .unwrap_err();
    assert!(err.to_string().contains("redis"), "{err}");
}
