//! The Redis cache backend against a real redis-server (URL in
//! `FERRET_TEST_REDIS_URL`; `scripts/test` starts one): the cache
//! conformance suite, native TTLs, key namespacing, gzip, bad values, and a
//! cache that fails mid-run without failing searches.
#![cfg(feature = "redis")]

use ferret_core::Provenance;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferret_core::testing::{CountingEngine, StaticEngine};
use ferret_core::{Engine, EngineHit, EngineRequest, EngineResponse, Runtime};
use ferret_engines::cache::conformance::CacheConformance;
use ferret_engines::cache::{
    CacheError, CacheKey, CachedResponse, RedisCache, SearchCache, SearchCacheExt,
};
use ferret_engines::layers::Cache;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

const HOUR: Duration = Duration::from_secs(3600);

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

/// A namespace of this test's own, so parallel tests and runs never meet.
fn namespace(test: &str) -> String {
    format!("ferret-test-{test}-{:08x}", fastrand::u32(..))
}

async fn cache(url: &str, ns: &str) -> RedisCache {
    RedisCache::connect(url)
        .await
        .expect("connect to FERRET_TEST_REDIS_URL")
        .with_namespace(ns)
}

async fn raw(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

fn key(q: &str) -> CacheKey {
    CacheKey::for_request("brave", &EngineRequest::new(q))
}

fn value(tag: &str, n: u32) -> CachedResponse {
    let hits = (1..=n)
        .map(|i| {
            EngineHit::new(
                i,
                format!("https://{tag}.example/page/{i}"),
                format!("{tag} result {i}"),
                format!("a snippet about {tag}, hit {i}"),
            )
        })
        .collect();
    CachedResponse::new(
        "brave",
        EngineResponse::new(Provenance::public(Runtime::Http), hits),
    )
}

#[tokio::test]
async fn passes_the_cache_conformance_suite() {
    let Some(url) = redis_url() else { return };
    let cache = cache(&url, &namespace("conformance")).await;
    CacheConformance::new().check(&cache).await.assert_passed();
}

#[tokio::test]
async fn entries_live_under_the_namespace_with_a_native_ttl() {
    let Some(url) = redis_url() else { return };
    let ns = namespace("ttl");
    let cache = cache(&url, &ns).await;
    let k = key("tokio");
    let rkey = format!("{ns}:cache:{k}");
    assert_eq!(cache.redis_key(&k), rkey);

    cache
        .put(&k, value("t", 2), Duration::from_secs(90))
        .await
        .unwrap();
    let mut conn = raw(&url).await;
    let pttl: i64 = redis::cmd("PTTL")
        .arg(&rkey)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!((85_000..=90_000).contains(&pttl), "PTTL {pttl}");

    // Redis itself expires short entries.
    let short = key("short");
    cache
        .put(&short, value("s", 1), Duration::from_millis(150))
        .await
        .unwrap();
    assert!(cache.get(&short).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let exists: i64 = redis::cmd("EXISTS")
        .arg(cache.redis_key(&short))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(exists, 0);
    assert_eq!(cache.get(&short).await.unwrap(), None);
    cache.clear().await.unwrap();
}

#[tokio::test]
async fn the_default_namespace_is_ferret() {
    let Some(url) = redis_url() else { return };
    let cache = RedisCache::connect(&url).await.unwrap();
    assert_eq!(cache.namespace(), "ferret");
    assert_eq!(
        cache.redis_key(&key("q")),
        format!("ferret:cache:{}", key("q"))
    );
}

#[tokio::test]
async fn clear_removes_only_its_own_namespace() {
    let Some(url) = redis_url() else { return };
    let base = namespace("clear");
    // A glob character in a namespace must not widen what clear matches.
    let a = cache(&url, &format!("{base}-a*")).await;
    let b = cache(&url, &format!("{base}-ab")).await;
    a.put(&key("one"), value("a", 1), HOUR).await.unwrap();
    b.put(&key("one"), value("b", 1), HOUR).await.unwrap();
    let mut conn = raw(&url).await;
    let other = format!("{base}-a*:breaker:brave");
    redis::cmd("SET")
        .arg(&other)
        .arg("x")
        .arg("EX")
        .arg(60)
        .query_async::<()>(&mut conn)
        .await
        .unwrap();

    a.clear().await.unwrap();
    assert_eq!(a.get(&key("one")).await.unwrap(), None);
    assert!(b.get(&key("one")).await.unwrap().is_some());
    let kept: Option<String> = redis::cmd("GET")
        .arg(&other)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(kept.as_deref(), Some("x"));

    b.clear().await.unwrap();
    redis::cmd("DEL")
        .arg(&other)
        .query_async::<i64>(&mut conn)
        .await
        .unwrap();
}

#[tokio::test]
async fn clear_handles_more_keys_than_one_scan_round() {
    let Some(url) = redis_url() else { return };
    let cache = cache(&url, &namespace("bulk")).await;
    for i in 0..1_200 {
        cache
            .put(&key(&format!("k{i}")), value("k", 1), HOUR)
            .await
            .unwrap();
    }
    cache.clear().await.unwrap();
    let mut conn = raw(&url).await;
    let pattern = format!("{}:cache:*", cache.namespace());
    let (_, left): (u64, Vec<String>) = redis::cmd("SCAN")
        .arg(0)
        .arg("MATCH")
        .arg(&pattern)
        .arg("COUNT")
        .arg(100_000)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(left.is_empty(), "{} keys left", left.len());
}

#[tokio::test]
async fn payloads_above_one_kib_are_gzipped() {
    let Some(url) = redis_url() else { return };
    let cache = cache(&url, &namespace("gzip")).await;
    let small = value("s", 1);
    let big = value("b", 40);
    cache.put(&key("small"), small.clone(), HOUR).await.unwrap();
    cache.put(&key("big"), big.clone(), HOUR).await.unwrap();
    let mut conn = raw(&url).await;
    let stored = |k: CacheKey| {
        let rkey = cache.redis_key(&k);
        let mut conn = conn.clone();
        async move {
            redis::cmd("GET")
                .arg(rkey)
                .query_async::<Vec<u8>>(&mut conn)
                .await
                .unwrap()
        }
    };
    assert_eq!(stored(key("small")).await[0], b'{');
    let big_bytes = stored(key("big")).await;
    assert_eq!(&big_bytes[..2], &[0x1f, 0x8b]);
    assert!(big_bytes.len() < serde_json::to_vec(&big).unwrap().len() / 2);
    assert_eq!(cache.get(&key("small")).await.unwrap(), Some(small));
    assert_eq!(cache.get(&key("big")).await.unwrap(), Some(big));

    // A bad value is reported once as Corrupt, deleted, then a miss.
    redis::cmd("SET")
        .arg(cache.redis_key(&key("bad")))
        .arg("{not json")
        .query_async::<()>(&mut conn)
        .await
        .unwrap();
    let err = cache.get(&key("bad")).await.unwrap_err();
    assert!(
        matches!(
            err,
            CacheError::Corrupt {
                backend: "redis",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(cache.get(&key("bad")).await.unwrap(), None);
    cache.clear().await.unwrap();
}

#[tokio::test]
async fn an_unreachable_server_is_a_typed_error() {
    // A port nothing listens on (bound, then released).
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let err = RedisCache::connect(&format!("redis://127.0.0.1:{port}/"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            CacheError::Backend {
                backend: "redis",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("cannot connect"), "{err}");

    let err = RedisCache::connect("http://not-redis").await.unwrap_err();
    assert!(err.to_string().contains("invalid Redis URL"), "{err}");
}

/// A TCP proxy in front of the real server that can be cut.
struct Proxy {
    url: String,
    tasks: Arc<Mutex<Vec<AbortHandle>>>,
}

impl Proxy {
    async fn start(target: &str) -> Proxy {
        let parsed = url::Url::parse(target).unwrap();
        let upstream = format!(
            "{}:{}",
            parsed.host_str().unwrap_or("127.0.0.1"),
            parsed.port().unwrap_or(6379)
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!(
            "redis://{}{}",
            listener.local_addr().unwrap(),
            parsed.path()
        );
        let tasks: Arc<Mutex<Vec<AbortHandle>>> = Arc::default();
        let inner = tasks.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let conn = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                inner.lock().unwrap().push(conn.abort_handle());
            }
        });
        tasks.lock().unwrap().push(accept.abort_handle());
        Proxy { url, tasks }
    }

    fn cut(&self) {
        for t in self.tasks.lock().unwrap().drain(..) {
            t.abort();
        }
    }
}

#[tokio::test]
async fn a_cache_that_goes_away_never_fails_a_search() {
    let Some(url) = redis_url() else { return };
    let proxy = Proxy::start(&url).await;
    let ns = namespace("cut");
    let backend: Arc<dyn SearchCache> = Arc::new(cache(&proxy.url, &ns).await);
    let counting = CountingEngine::new(StaticEngine::new("brave", 3));
    let layer = Cache::new(counting.clone(), backend.clone());
    let request = EngineRequest::new("rust");
    layer.search(&request).await.unwrap();
    layer.search(&request).await.unwrap();
    assert_eq!((counting.calls(), layer.stats().hits), (1, 1));

    proxy.cut();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let answer = layer.search(&request).await.unwrap();
    assert_eq!(answer.hits.len(), 3);
    assert_eq!(counting.calls(), 2);
    let stats = layer.stats();
    assert!(stats.backend_errors >= 1, "{stats:?}");
    assert_eq!(layer.name(), "brave");

    // Directly, the failure is a typed backend error.
    let err = backend.get(&key("rust")).await.unwrap_err();
    assert!(
        matches!(
            err,
            CacheError::Backend {
                backend: "redis",
                ..
            }
        ),
        "{err}"
    );

    cache(&url, &ns).await.clear().await.unwrap();
}
