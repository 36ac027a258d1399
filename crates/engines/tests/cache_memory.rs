//! The memory cache backend: the cache conformance suite, per-entry TTLs,
//! capacity, and the login guard under random provenance.

use std::time::Duration;

use ferret_core::{EngineHit, EngineRequest, EngineResponse, Partition, Provenance, Runtime};
use ferret_engines::cache::conformance::CacheConformance;
use ferret_engines::cache::{
    CacheError, CacheKey, CachedResponse, MemoryCache, SearchCache, SearchCacheExt, login_marker,
};
use proptest::prelude::*;

fn key(q: &str) -> CacheKey {
    CacheKey::for_request("brave", &EngineRequest::new(q))
}

fn value(n: u32) -> CachedResponse {
    let hits = (1..=n)
        .map(|i| EngineHit::new(i, format!("https://a.example/{i}"), "t", "s"))
        .collect();
    CachedResponse::new(
        "brave",
        EngineResponse::new(Provenance::public(Runtime::Http), hits),
    )
}

#[tokio::test]
async fn passes_the_cache_conformance_suite() {
    CacheConformance::new()
        .check(&MemoryCache::new())
        .await
        .assert_passed();
}

#[tokio::test]
async fn each_entry_keeps_its_own_ttl() {
    let cache = MemoryCache::new();
    cache
        .put(&key("short"), value(1), Duration::from_millis(100))
        .await
        .unwrap();
    cache
        .put(&key("long"), value(2), Duration::from_secs(60))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(cache.get(&key("short")).await.unwrap(), None);
    assert_eq!(
        cache
            .get(&key("long"))
            .await
            .unwrap()
            .unwrap()
            .response
            .hits
            .len(),
        2
    );
}

#[tokio::test]
async fn capacity_bounds_the_entries() {
    let cache = MemoryCache::with_capacity(10);
    for i in 0..200 {
        cache
            .put(&key(&format!("q{i}")), value(1), Duration::from_secs(60))
            .await
            .unwrap();
    }
    cache.run_pending_tasks().await;
    assert!(cache.len() <= 10, "{} entries", cache.len());
}

#[tokio::test]
async fn login_data_is_refused_with_a_typed_error_that_says_what_to_do() {
    let cache = MemoryCache::new();
    let mut v = value(3);
    v.response.provenance = Provenance::login(Runtime::ChromiumManaged);
    let err = cache
        .put(&key("q"), v, Duration::from_secs(60))
        .await
        .unwrap_err();
    assert!(matches!(err, CacheError::LoginPartitionRejected { .. }));
    let text = err.to_string();
    assert!(text.contains("never written to a cache"), "{text}");
    assert!(text.contains("login_state_used=true"), "{text}");
    assert_eq!(cache.get(&key("q")).await.unwrap(), None);
}

fn provenance() -> impl Strategy<Value = Provenance> {
    (
        prop_oneof![Just(Partition::Public), Just(Partition::Login)],
        any::<bool>(),
        prop_oneof![
            Just("public".to_string()),
            Just("login".to_string()),
            Just("login:zhihu".to_string()),
            Just("loginless".to_string()),
            Just(String::new()),
            "[a-z:]{0,12}",
        ],
        any::<bool>(),
        any::<bool>(),
        prop_oneof![
            Just("http".to_string()),
            Just("chromium-managed".to_string()),
            Just("chromium-attached".to_string()),
            Just("ego-browser".to_string()),
            Just("replay".to_string()),
            "[a-z-]{0,16}",
        ],
    )
        .prop_map(
            |(
                search_partition,
                login_state_used,
                auth_partition,
                cache_eligible,
                merge,
                runtime,
            )| {
                Provenance {
                    search_partition,
                    login_state_used,
                    auth_partition: auth_partition.into(),
                    cache_eligible,
                    merge_with_public_ok: merge,
                    runtime: Runtime::parse(&runtime).unwrap_or(Runtime::Unknown),
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever provenance a payload carries, the memory backend stores it
    /// only when it is not login data, and never reads back login data.
    #[test]
    fn no_backend_ever_stores_a_login_payload(p in provenance()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let cache = MemoryCache::new();
        let suite = CacheConformance::new();
        // Every payload login_marker flags includes everything is_login flags.
        prop_assert!(!p.is_login() || login_marker("brave", &p).is_some());
        let outcome = rt.block_on(suite.check_provenance(&cache, p));
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}
