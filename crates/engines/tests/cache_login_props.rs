//! Login isolation across every cache backend (memory; SQLite with feature
//! `sqlite`; Redis with feature `redis` when `FERRET_TEST_REDIS_URL` is
//! set): for random provenance, engine and runtime combinations, nothing
//! that is login data is ever stored — neither by a direct put nor through
//! the `Cache` layer — and public answers round-trip unchanged.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    Partition, Provenance, Runtime,
};
use ferret_engines::cache::{
    CacheError, CacheKey, CachedResponse, MemoryCache, SearchCache, SearchCacheExt, login_marker,
};
use ferret_engines::layers::Cache;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Every backend available in this build and environment.
async fn backends(dir: &std::path::Path) -> Vec<Arc<dyn SearchCache>> {
    #[cfg_attr(not(any(feature = "sqlite", feature = "redis")), allow(unused_mut))]
    let mut out: Vec<Arc<dyn SearchCache>> = vec![Arc::new(MemoryCache::new())];
    #[cfg(feature = "sqlite")]
    out.push(Arc::new(
        ferret_engines::cache::SqliteCache::open(dir.join("cache.db")).unwrap(),
    ));
    #[cfg(not(feature = "sqlite"))]
    let _ = dir;
    #[cfg(feature = "redis")]
    match std::env::var("FERRET_TEST_REDIS_URL") {
        Ok(url) if !url.trim().is_empty() => out.push(Arc::new(
            ferret_engines::cache::RedisCache::connect(&url)
                .await
                .expect("connect to FERRET_TEST_REDIS_URL")
                .with_namespace(format!("ferret-test-login-{:08x}", fastrand::u32(..))),
        )),
        _ => eprintln!(
            "skipped the Redis backend: FERRET_TEST_REDIS_URL not set (scripts/test starts a \
             redis-server)"
        ),
    }
    out
}

fn provenance() -> impl Strategy<Value = Provenance> {
    // Weighted towards public values so both outcomes are common.
    let partition = prop_oneof![3 => Just(Partition::Public), 1 => Just(Partition::Login)];
    let auth = prop_oneof![
        6 => Just("public".to_string()),
        1 => Just("login".to_string()),
        1 => Just("login:zhihu".to_string()),
        1 => Just("loginx".to_string()),
        1 => Just(String::new()),
        1 => Just("Login".to_string()),
        1 => Just("public:login".to_string()),
        2 => "[a-z:]{0,12}",
    ];
    let runtime = prop_oneof![
        3 => Just("http".to_string()),
        1 => Just("local".to_string()),
        1 => Just("replay".to_string()),
        2 => Just("chromium-managed".to_string()),
        1 => Just("chromium-attached".to_string()),
        1 => Just("ego-browser".to_string()),
        1 => Just("Chromium-Attached".to_string()),
        2 => "[a-z-]{1,16}",
    ];
    (
        partition,
        prop::bool::weighted(0.25),
        auth,
        prop::bool::weighted(0.75),
        any::<bool>(),
        runtime,
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

fn engine_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("brave".to_string()),
        2 => Just("local".to_string()),
        1 => Just("ego_browser_bing".to_string()),
        1 => Just("ego-browser".to_string()),
        2 => "[a-z_]{1,12}",
    ]
}

fn answer(provenance: &Provenance, hits: u32) -> EngineResponse {
    let mut r = EngineResponse::new(
        Provenance::public(Runtime::Http),
        (1..=hits)
            .map(|i| {
                EngineHit::new(
                    i,
                    format!("https://p.example/{i}"),
                    format!("title {i}"),
                    "snippet text that is long enough to make big answers cross the gzip threshold",
                )
            })
            .collect(),
    );
    r.provenance = provenance.clone();
    r
}

/// An engine that answers with a given provenance.
#[derive(Debug)]
struct WithProvenance {
    name: String,
    provenance: Provenance,
    hits: u32,
}

#[async_trait]
impl Engine for WithProvenance {
    fn name(&self) -> &str {
        &self.name
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        Ok(answer(&self.provenance, self.hits))
    }
}

#[test]
fn no_backend_ever_stores_login_data_and_public_data_round_trips() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let backends = rt.block_on(backends(dir.path()));
    let counter = AtomicU64::new(0);
    let refused = AtomicU64::new(0);
    let stored = AtomicU64::new(0);

    let mut runner = TestRunner::new(Config {
        cases: 192,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (provenance(), engine_name(), 0u32..30);
    let result = runner.run(&strategy, |(provenance, engine, hits)| {
        let marker = login_marker(&engine, &provenance);
        if provenance.is_login() {
            prop_assert!(marker.is_some(), "is_login() data was not marked");
        }
        let n = counter.fetch_add(1, Ordering::Relaxed);
        rt.block_on(async {
            for cache in &backends {
                let b = cache.backend_name();
                // A direct put.
                let key = CacheKey::for_request(&engine, &EngineRequest::new(format!("q{n}")));
                let value = CachedResponse::new(engine.clone(), answer(&provenance, hits));
                let put = cache
                    .put(&key, value.clone(), std::time::Duration::from_secs(600))
                    .await;
                let back = cache
                    .get(&key)
                    .await
                    .map_err(|e| TestCaseError::fail(format!("{b}: {e}")))?;
                match &marker {
                    Some(_) => {
                        prop_assert!(
                            matches!(put, Err(CacheError::LoginPartitionRejected { .. })),
                            "{b}: login put gave {put:?}"
                        );
                        prop_assert_eq!(back, None, "{}: login data was stored", b);
                    }
                    None => {
                        prop_assert!(put.is_ok(), "{b}: public put failed: {put:?}");
                        prop_assert_eq!(back.as_ref(), Some(&value), "{}: public data changed", b);
                    }
                }

                // Through the Cache layer: the answer reaches the caller
                // either way; only public answers are stored.
                let layer = Cache::new(
                    WithProvenance {
                        name: engine.clone(),
                        provenance: provenance.clone(),
                        hits,
                    },
                    cache.clone(),
                );
                let request = EngineRequest::new(format!("layer q{n}"));
                let got = layer
                    .search(&request)
                    .await
                    .map_err(|e| TestCaseError::fail(format!("{b}: search failed: {e}")))?;
                prop_assert_eq!(&got.provenance, &provenance);
                let cached = cache
                    .get(&layer.key_for(&request))
                    .await
                    .map_err(|e| TestCaseError::fail(format!("{b}: {e}")))?;
                prop_assert_eq!(
                    cached.is_some(),
                    marker.is_none(),
                    "{}: layer stored {:?}",
                    b,
                    marker
                );
                prop_assert_eq!(layer.stats().login_refusals, u64::from(marker.is_some()));
            }
            Ok(())
        })?;
        if marker.is_some() {
            refused.fetch_add(1, Ordering::Relaxed);
        } else {
            stored.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // Both sides of the property were exercised.
    assert!(refused.load(Ordering::Relaxed) > 10, "too few login cases");
    assert!(stored.load(Ordering::Relaxed) > 10, "too few public cases");
    for cache in &backends {
        rt.block_on(cache.clear()).unwrap();
    }
}
