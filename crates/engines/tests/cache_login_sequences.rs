//! Login isolation over whole histories, on every cache backend (memory;
//! SQLite with feature `sqlite`; Redis with feature `redis` when
//! `FERRET_TEST_REDIS_URL` is set).
//!
//! A random sequence of operations is driven through the real parts:
//!
//! - **read**: an engine answers, public or login (any login marker);
//! - **merge**: two payloads are fused (`fusion::fuse`), printed as a
//!   `ferret.search.v1` response and read back as rows
//!   (`rows::normalize_rows`), the way results are fed back into Ferret —
//!   each engine call of the result is a new payload;
//! - **claim**: a payload is printed as rows that claim to be public
//!   (`search_partition: public`, no other field) and read back;
//! - **write**: a payload is put into every backend, directly and through
//!   the `Cache` layer.
//!
//! The test keeps its own taint model — a payload is login-derived when any
//! read it was built from was login — and checks that a login-derived
//! payload is never stored (every put refused with the typed error, every
//! get empty), that the provenance it carries still says login, and that
//! public payloads are stored and read back unchanged.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use ferret_core::fusion::{FusionOptions, fuse};
use ferret_core::response::{EngineCall, SEARCH_SCHEMA};
use ferret_core::rows::normalize_rows;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    Partition, Provenance, Runtime,
};
use ferret_engines::cache::{
    CacheError, CacheKey, CachedResponse, MemoryCache, SearchCache, SearchCacheExt,
};
use ferret_engines::layers::Cache;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

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
                .with_namespace(format!("ferret-test-seq-{:08x}", fastrand::u32(..))),
        )),
        _ => eprintln!(
            "skipped the Redis backend: FERRET_TEST_REDIS_URL not set (scripts/test starts a \
             redis-server)"
        ),
    }
    out
}

/// One step of a history. Indices are taken modulo the payloads so far.
#[derive(Debug, Clone)]
enum Op {
    Read { login: u8, hits: u8 },
    Merge(usize, usize),
    Claim(usize),
    Write(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..6, 1u8..6).prop_map(|(login, hits)| Op::Read { login, hits }),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Merge(a, b)),
        1 => any::<usize>().prop_map(Op::Claim),
        3 => any::<usize>().prop_map(Op::Write),
    ]
}

/// A read's provenance: `login` 0–1 public, 2–5 one login marker each.
fn read_provenance(login: u8) -> Provenance {
    let mut p = Provenance::public(Runtime::Http);
    match login {
        0 => {}
        1 => p = Provenance::public(Runtime::ChromiumManaged),
        2 => p = Provenance::login(Runtime::ChromiumAttached),
        3 => p.search_partition = Partition::Login,
        4 => p.login_state_used = true,
        _ => p.cache_eligible = false,
    }
    p
}

/// A payload and the test's own verdict on it.
#[derive(Debug, Clone)]
struct Payload {
    engine: String,
    response: EngineResponse,
    tainted: bool,
}

fn read(n: usize, login: u8, hits: u8) -> Payload {
    let provenance = read_provenance(login);
    let hits = (1..=u32::from(hits))
        .map(|i| {
            EngineHit::new(
                i,
                format!("https://site{}.example/page/{i}", n % 3),
                format!("title {n} {i}"),
                format!("snippet {n} {i}"),
            )
        })
        .collect();
    Payload {
        engine: format!("engine{}", n % 4),
        response: EngineResponse::new(provenance.clone(), hits),
        tainted: login >= 2,
    }
}

fn call(p: &Payload) -> EngineCall {
    EngineCall {
        engine: p.engine.clone(),
        sub_query: "q".into(),
        sub_query_index: 0,
        response: p.response.clone(),
    }
}

/// Fuse two payloads, print the response as `ferret.search.v1`, read it
/// back as rows: one payload per engine call.
fn merge(a: &Payload, b: &Payload) -> Vec<Payload> {
    let fused = fuse(&[call(a), call(b)], &FusionOptions::default());
    let envelope = json!({
        "schema": SEARCH_SCHEMA,
        "results": serde_json::to_value(&fused.results).unwrap(),
    });
    normalize_rows(&envelope, "q")
        .calls
        .into_iter()
        .map(|c| {
            // Each fused result is built from the hits of both inputs with
            // that URL; a result is tainted when any of its inputs is.
            let tainted = c.response.hits.iter().any(|h| {
                [a, b]
                    .iter()
                    .any(|p| p.tainted && p.response.hits.iter().any(|x| same_page(&x.url, &h.url)))
            });
            Payload {
                engine: c.engine,
                response: c.response,
                tainted,
            }
        })
        .collect()
}

fn same_page(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Print a payload as rows that claim to be public, and read them back.
fn claim_public(p: &Payload) -> Vec<Payload> {
    let rows: Vec<Value> = p
        .response
        .hits
        .iter()
        .map(|h| {
            json!({
                "url": h.url.to_string(),
                "title": h.title.to_string(),
                "engine": p.engine,
                "search_partition": "public",
                "login_state_used": p.response.provenance.login_state_used,
                "cache_eligible": p.response.provenance.cache_eligible,
                "auth_partition": p.response.provenance.auth_partition,
            })
        })
        .collect();
    // The rows come inside the envelope they were printed with.
    let envelope = json!({
        "results": rows,
        "provenance": serde_json::to_value(&p.response.provenance).unwrap(),
    });
    normalize_rows(&envelope, "q")
        .calls
        .into_iter()
        .map(|c| Payload {
            engine: c.engine,
            response: c.response,
            tainted: p.tainted,
        })
        .collect()
}

#[derive(Debug)]
struct Fixed(Payload);

#[async_trait]
impl Engine for Fixed {
    fn name(&self) -> &str {
        &self.0.engine
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        Ok(self.0.response.clone())
    }
}

async fn write(
    cache: &Arc<dyn SearchCache>,
    p: &Payload,
    n: u64,
    counts: &Counts,
) -> Result<(), TestCaseError> {
    let b = cache.backend_name();
    prop_assert_eq!(
        p.response.provenance.is_login(),
        p.tainted,
        "{}: the provenance lost the taint: {:?}",
        b,
        p
    );
    let key = CacheKey::for_request(&p.engine, &EngineRequest::new(format!("seq {n}")));
    let value = CachedResponse::new(p.engine.clone(), p.response.clone());
    let put = cache
        .put(&key, value.clone(), std::time::Duration::from_secs(600))
        .await;
    let back = cache
        .get(&key)
        .await
        .map_err(|e| TestCaseError::fail(format!("{b}: {e}")))?;
    if p.tainted {
        prop_assert!(
            matches!(put, Err(CacheError::LoginPartitionRejected { .. })),
            "{b}: a login-derived put gave {put:?}"
        );
        prop_assert_eq!(back, None, "{}: login-derived data was stored", b);
        counts.refused.fetch_add(1, Ordering::Relaxed);
    } else {
        prop_assert!(put.is_ok(), "{b}: a public put failed: {put:?}");
        prop_assert_eq!(back.as_ref(), Some(&value), "{}: public data changed", b);
        counts.stored.fetch_add(1, Ordering::Relaxed);
    }
    let layer = Cache::new(Fixed(p.clone()), cache.clone());
    let request = EngineRequest::new(format!("layer seq {n}"));
    let got = layer
        .search(&request)
        .await
        .map_err(|e| TestCaseError::fail(format!("{b}: {e}")))?;
    prop_assert_eq!(got.provenance.is_login(), p.tainted);
    let cached = cache
        .get(&layer.key_for(&request))
        .await
        .map_err(|e| TestCaseError::fail(format!("{b}: {e}")))?;
    prop_assert_eq!(
        cached.is_some(),
        !p.tainted,
        "{}: the layer stored {:?}",
        b,
        p
    );
    Ok(())
}

#[derive(Default)]
struct Counts {
    refused: AtomicU64,
    stored: AtomicU64,
    merged_login: AtomicU64,
}

#[test]
fn no_history_of_reads_merges_and_writes_stores_login_derived_data() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let backends = rt.block_on(backends(dir.path()));
    let counter = AtomicU64::new(0);
    let counts = Counts::default();
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&prop::collection::vec(op(), 1..24), |ops| {
        let mut payloads: Vec<Payload> = Vec::new();
        for (i, op) in ops.into_iter().enumerate() {
            match op {
                Op::Read { login, hits } => payloads.push(read(i, login, hits)),
                Op::Merge(a, b) if !payloads.is_empty() => {
                    let (a, b) = (&payloads[a % payloads.len()], &payloads[b % payloads.len()]);
                    if a.tainted || b.tainted {
                        counts.merged_login.fetch_add(1, Ordering::Relaxed);
                    }
                    let merged = merge(a, b);
                    payloads.extend(merged);
                }
                Op::Claim(a) if !payloads.is_empty() => {
                    let claimed = claim_public(&payloads[a % payloads.len()]);
                    payloads.extend(claimed);
                }
                Op::Write(a) if !payloads.is_empty() => {
                    let p = payloads[a % payloads.len()].clone();
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    rt.block_on(async {
                        for cache in &backends {
                            write(cache, &p, n, &counts).await?;
                        }
                        Ok::<(), TestCaseError>(())
                    })?;
                }
                _ => {}
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // Every side of the property was exercised.
    assert!(
        counts.refused.load(Ordering::Relaxed) > 10,
        "too few login writes"
    );
    assert!(
        counts.stored.load(Ordering::Relaxed) > 10,
        "too few public writes"
    );
    assert!(
        counts.merged_login.load(Ordering::Relaxed) > 5,
        "too few login merges"
    );
    for cache in &backends {
        rt.block_on(cache.clear()).unwrap();
    }
}
