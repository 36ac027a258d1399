//! The page cache of the HTTP step against a local server that counts
//! requests: hits, expiry, revalidation (ETag and Last-Modified), refresh
//! and off, the login refusal, and a cache that fails without failing the
//! fetch. The behaviours run on both stores: a SQLite file, and (feature
//! `page-cache-redis`) a real redis-server whose URL is in
//! `FERRET_TEST_REDIS_URL` (`scripts/test` starts one).
#![cfg(feature = "page-cache")]

mod fetch_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use ferret_core::{Provenance, Runtime};
use ferret_fetch::cache::{CachedPage, PageCacheError, PageKey};
use ferret_fetch::{
    CacheMode, CacheStatus, FetchOptions, Fetcher, PageCache, PageCacheOptions, WarningCode,
};
use fetch_support::*;

/// The conditional headers the server saw, one entry per request.
type Seen = Arc<Mutex<Vec<(Option<String>, Option<String>)>>>;

const ETAG: &str = "\"v1\"";
const MODIFIED: &str = "Tue, 01 Dec 2026 10:00:00 GMT";

/// `/fresh` (max-age 600), `/short` (max-age 1, ETag), `/dated` (no-cache,
/// Last-Modified), `/nostore`; each answers 304 to a matching validator.
async fn site(hits: Hits, seen: Seen) -> std::net::SocketAddr {
    let page = |title: &str| article(title, 20);
    let answer = move |headers: HeaderMap, cc: &'static str, title: String| {
        hits.hit();
        let inm = headers
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let ims = headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        seen.lock().unwrap().push((inm.clone(), ims.clone()));
        if inm.as_deref() == Some(ETAG) || ims.as_deref() == Some(MODIFIED) {
            return (StatusCode::NOT_MODIFIED, [(header::CACHE_CONTROL, cc)]).into_response();
        }
        (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, cc),
                (header::ETAG, ETAG),
                (header::LAST_MODIFIED, MODIFIED),
            ],
            title,
        )
            .into_response()
    };
    let (a, b, c, d) = (answer.clone(), answer.clone(), answer.clone(), answer);
    let (fresh_page, short_page, dated_page, private_page) = (
        page("Fresh page"),
        page("Short page"),
        page("Dated page"),
        page("Private page"),
    );
    serve(
        Router::new()
            .route(
                "/fresh",
                get(move |h: HeaderMap| async move { a(h, "max-age=600", fresh_page) }),
            )
            .route(
                "/short",
                get(move |h: HeaderMap| async move { b(h, "max-age=1", short_page) }),
            )
            .route(
                "/dated",
                get(move |h: HeaderMap| async move { c(h, "no-cache", dated_page) }),
            )
            .route(
                "/nostore",
                get(move |h: HeaderMap| async move { d(h, "no-store", private_page) }),
            ),
    )
    .await
}

/// Where a fixture keeps its pages.
#[derive(Debug, Clone, Copy)]
enum Store {
    Sqlite,
    #[cfg(feature = "page-cache-redis")]
    Redis,
}

/// The Redis server of the test run (`scripts/test` starts one).
#[cfg(feature = "page-cache-redis")]
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
#[cfg(feature = "page-cache-redis")]
fn namespace() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "ferret-test-pages-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// A new, empty cache in `store` (`None` when Redis is not available).
fn new_cache(store: Store, dir: &std::path::Path) -> Option<PageCache> {
    match store {
        Store::Sqlite => Some(PageCache::open(dir.join("pages.db")).unwrap()),
        #[cfg(feature = "page-cache-redis")]
        Store::Redis => Some(
            PageCache::redis(&redis_url()?)
                .unwrap()
                .with_namespace(namespace()),
        ),
    }
}

struct Fixture {
    addr: std::net::SocketAddr,
    hits: Hits,
    seen: Seen,
    cache: PageCache,
    fetcher: Fetcher,
    _dir: tempfile::TempDir,
}

async fn fixture(store: Store) -> Option<Fixture> {
    let hits = Hits::default();
    let seen = Seen::default();
    let addr = site(hits.clone(), seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let cache = new_cache(store, dir.path())?;
    let fetcher = public_fetcher().page_cache(cache.clone()).build().unwrap();
    Some(Fixture {
        addr,
        hits,
        seen,
        cache,
        fetcher,
        _dir: dir,
    })
}

impl Fixture {
    async fn fetch(&self, path: &str, options: &FetchOptions) -> ferret_fetch::FetchedPage {
        self.fetcher
            .fetch(&public_url(self.addr, path), options)
            .await
            .expect("fetch")
    }
}

/// Each behaviour as one test per store.
macro_rules! on_each_store {
    ($($name:ident),* $(,)?) => {
        mod sqlite_store {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(super::fixture(super::Store::Sqlite).await.unwrap()).await
                }
            )*
        }
        #[cfg(feature = "page-cache-redis")]
        mod redis_store {
            $(
                #[tokio::test]
                async fn $name() {
                    if let Some(f) = super::fixture(super::Store::Redis).await {
                        super::$name(f).await
                    }
                }
            )*
        }
    };
}

on_each_store!(
    a_fresh_page_is_served_again_without_a_request,
    past_max_age_the_page_is_revalidated_with_its_etag,
    a_no_cache_page_is_revalidated_with_last_modified_on_every_read,
    refresh_skips_the_read_and_keeps_the_new_answer_and_off_bypasses,
    no_store_pages_are_never_kept,
    login_data_is_refused_and_never_read_back,
);

async fn a_fresh_page_is_served_again_without_a_request(f: Fixture) {
    let first = f.fetch("/fresh", &FetchOptions::default()).await;
    assert_eq!(first.cache, Some(CacheStatus::Miss));
    assert_eq!(f.hits.get(), 1);
    let second = f.fetch("/fresh", &FetchOptions::default()).await;
    assert_eq!(second.cache, Some(CacheStatus::Hit));
    assert_eq!(f.hits.get(), 1, "the second fetch made no request");
    assert_eq!(second.text, first.text);
    assert_eq!(second.title.as_deref(), Some("Fresh page"));
    // The fragment never reaches the server: same entry.
    let third = f.fetch("/fresh#part", &FetchOptions::default()).await;
    assert_eq!(third.cache, Some(CacheStatus::Hit));
    let json = serde_json::to_value(&second).unwrap();
    assert_eq!(json["cache"], "hit");
}

async fn past_max_age_the_page_is_revalidated_with_its_etag(f: Fixture) {
    let first = f.fetch("/short", &FetchOptions::default()).await;
    assert_eq!(first.cache, Some(CacheStatus::Miss));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let again = f.fetch("/short", &FetchOptions::default()).await;
    assert_eq!(again.cache, Some(CacheStatus::Revalidated));
    assert_eq!(f.hits.get(), 2);
    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen[0], (None, None), "the first request was unconditional");
    assert_eq!(seen[1].0.as_deref(), Some(ETAG), "If-None-Match sent");
    assert_eq!(again.text, first.text, "the kept body is served");
    assert_eq!(again.status, Some(200));
}

async fn a_no_cache_page_is_revalidated_with_last_modified_on_every_read(f: Fixture) {
    f.fetch("/dated", &FetchOptions::default()).await;
    let again = f.fetch("/dated", &FetchOptions::default()).await;
    assert_eq!(again.cache, Some(CacheStatus::Revalidated));
    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        seen[1].1.as_deref(),
        Some(MODIFIED),
        "If-Modified-Since sent"
    );
    assert_eq!(again.title.as_deref(), Some("Dated page"));
}

async fn refresh_skips_the_read_and_keeps_the_new_answer_and_off_bypasses(f: Fixture) {
    f.fetch("/fresh", &FetchOptions::default()).await;
    let refreshed = f
        .fetch(
            "/fresh",
            &FetchOptions::default().with_cache_mode(CacheMode::Refresh),
        )
        .await;
    assert_eq!(refreshed.cache, Some(CacheStatus::Refreshed));
    assert_eq!(f.hits.get(), 2);
    assert_eq!(f.seen.lock().unwrap()[1], (None, None), "unconditional");
    let off = f
        .fetch(
            "/fresh",
            &FetchOptions::default().with_cache_mode(CacheMode::Off),
        )
        .await;
    assert_eq!(off.cache, Some(CacheStatus::Bypass));
    assert_eq!(f.hits.get(), 3);
    let hit = f.fetch("/fresh", &FetchOptions::default()).await;
    assert_eq!(hit.cache, Some(CacheStatus::Hit));
    assert_eq!(f.hits.get(), 3);
}

async fn no_store_pages_are_never_kept(f: Fixture) {
    f.fetch("/nostore", &FetchOptions::default()).await;
    let again = f.fetch("/nostore", &FetchOptions::default()).await;
    assert_eq!(again.cache, Some(CacheStatus::Miss));
    assert_eq!(f.hits.get(), 2);
}

async fn login_data_is_refused_and_never_read_back(f: Fixture) {
    let cache = &f.cache;
    let url = url::Url::parse("https://example.com/account").unwrap();
    let key = PageKey::new(&url, "ua", 1024);
    let page: CachedPage = serde_json::from_value(serde_json::json!({
        "status": 200, "final_url": url.as_str(), "redirects": [], "content_type": "text/html",
        "etag": null, "last_modified": null, "cache_control": null, "expires": null,
        "truncated": false, "fetched_at": 0, "fresh_until": 0
    }))
    .unwrap();
    for login in [
        Provenance::login(Runtime::ChromiumManaged),
        Provenance::login(Runtime::ChromiumAttached),
    ] {
        let err = cache.put(&key, page.clone(), &login).await.unwrap_err();
        assert!(
            matches!(err, PageCacheError::LoginPartitionRejected { .. }),
            "{err}"
        );
    }
    assert_eq!(cache.get(&key).await.unwrap(), None);
    assert_eq!(cache.stats().await.unwrap().entries, 0);
    let public = Provenance::public(Runtime::Http);
    cache.put(&key, page, &public).await.unwrap();
    assert!(cache.get(&key).await.unwrap().is_some());
}

#[tokio::test]
async fn a_cache_that_fails_is_a_warning_and_the_fetch_still_works() {
    let hits = Hits::default();
    let addr = site(hits.clone(), Seen::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pages.db");
    let cache = PageCache::open(&path).unwrap();
    let fetcher = public_fetcher().page_cache(cache).build().unwrap();
    // Another program breaks the file under the open cache.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE ferret_pages; CREATE TABLE other (x);")
        .unwrap();
    let page = fetcher
        .fetch(&public_url(addr, "/fresh"), &FetchOptions::default())
        .await
        .expect("the fetch does not fail with the cache");
    assert_eq!(page.title.as_deref(), Some("Fresh page"));
    assert!(
        page.has_warning(WarningCode::CacheFailed),
        "{:?}",
        page.warnings
    );
    // A file that is not a database cannot be opened: a typed error.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    std::fs::write(&path, vec![b'x'; 8192]).unwrap();
    let err = PageCache::open(&path).unwrap_err();
    assert!(err.to_string().contains("pages.db"), "{err}");
}

#[tokio::test]
async fn entries_over_the_cap_are_not_kept_and_the_total_is_bounded() {
    let hits = Hits::default();
    let addr = site(hits.clone(), Seen::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let tiny = PageCacheOptions {
        max_entry_bytes: 64,
        ..PageCacheOptions::default()
    };
    let cache = PageCache::open_with(dir.path().join("pages.db"), tiny).unwrap();
    let fetcher = public_fetcher().page_cache(cache.clone()).build().unwrap();
    for _ in 0..2 {
        fetcher
            .fetch(&public_url(addr, "/fresh"), &FetchOptions::default())
            .await
            .unwrap();
    }
    assert_eq!(hits.get(), 2, "too big to keep");
    assert_eq!(cache.stats().await.unwrap().entries, 0);

    let probe = PageCache::open(dir.path().join("probe.db")).unwrap();
    let fetcher = public_fetcher().page_cache(probe.clone()).build().unwrap();
    fetcher
        .fetch(&public_url(addr, "/fresh"), &FetchOptions::default())
        .await
        .unwrap();
    let one = probe.stats().await.unwrap().bytes;
    // Room for two pages, not three.
    let cap = one * 5 / 2;
    let small_total = PageCacheOptions {
        max_total_bytes: cap,
        ..PageCacheOptions::default()
    };
    let cache = PageCache::open_with(dir.path().join("bounded.db"), small_total).unwrap();
    let fetcher = public_fetcher().page_cache(cache.clone()).build().unwrap();
    for path in ["/fresh", "/short", "/dated"] {
        fetcher
            .fetch(&public_url(addr, path), &FetchOptions::default())
            .await
            .unwrap();
    }
    let stats = cache.stats().await.unwrap();
    assert!(stats.bytes <= cap, "{stats:?} over {cap}");
    assert!((1..3).contains(&stats.entries), "{stats:?}");
}

/// The Redis keys of `cache`'s pages.
#[cfg(feature = "page-cache-redis")]
async fn page_keys(url: &str, cache: &PageCache) -> Vec<String> {
    let any = PageKey::new(&url::Url::parse("http://any/").unwrap(), "", 0);
    let full = cache.redis_key(&any).unwrap();
    let prefix = &full[..full.find(":page:").unwrap() + ":page:".len()];
    redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut raw_redis(url).await)
        .await
        .unwrap()
}

/// A raw connection to the test run's Redis server.
#[cfg(feature = "page-cache-redis")]
async fn raw_redis(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

#[cfg(feature = "page-cache-redis")]
#[tokio::test]
async fn redis_shares_pages_between_caches_and_keeps_them_for_revalidation() {
    let Some(url) = redis_url() else { return };
    let ns = namespace();
    let hits = Hits::default();
    let addr = site(hits.clone(), Seen::default()).await;
    let first = PageCache::redis(&url).unwrap().with_namespace(&ns);
    let fetcher = public_fetcher().page_cache(first.clone()).build().unwrap();
    let page = fetcher
        .fetch(&public_url(addr, "/fresh"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.cache, Some(CacheStatus::Miss));
    let stats = first.stats().await.unwrap();
    assert_eq!(stats.entries, 1);
    assert!(stats.bytes > 100, "{stats:?}");

    // Another cache on the same server (another process, another machine)
    // is served the page without a request.
    let second = PageCache::redis(&url).unwrap().with_namespace(&ns);
    let other = public_fetcher().page_cache(second.clone()).build().unwrap();
    let again = other
        .fetch(&public_url(addr, "/fresh"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(again.cache, Some(CacheStatus::Hit));
    assert_eq!(hits.get(), 1);
    assert_eq!(again.text, page.text);

    // Redis keeps it past its 600 s of freshness, for revalidation.
    let keys = page_keys(&url, &second).await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    let rkey = &keys[0];
    assert!(rkey.starts_with(&format!("{ns}:page:")), "{rkey}");
    let pttl: i64 = redis::cmd("PTTL")
        .arg(rkey)
        .query_async(&mut raw_redis(&url).await)
        .await
        .unwrap();
    let expected =
        (Duration::from_secs(600) + ferret_fetch::cache::REDIS_STALE_KEPT).as_millis() as i64;
    assert!(
        (expected - 60_000..=expected).contains(&pttl),
        "PTTL {pttl}, expected about {expected}"
    );

    // Another namespace on the same server sees nothing.
    let apart = PageCache::redis(&url).unwrap().with_namespace(namespace());
    assert_eq!(apart.stats().await.unwrap().entries, 0);
    let elsewhere = public_fetcher().page_cache(apart).build().unwrap();
    let fetched = elsewhere
        .fetch(&public_url(addr, "/fresh"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(fetched.cache, Some(CacheStatus::Miss));
}

#[cfg(feature = "page-cache-redis")]
#[tokio::test]
async fn an_unreadable_redis_entry_is_reported_deleted_and_fetched_again() {
    let Some(f) = fixture(Store::Redis).await else {
        return;
    };
    f.fetch("/fresh", &FetchOptions::default()).await;
    let url = redis_url().unwrap();
    let mut raw = raw_redis(&url).await;
    let keys = page_keys(&url, &f.cache).await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    let () = redis::cmd("HSET")
        .arg(&keys[0])
        .arg("page")
        .arg("{not json")
        .query_async(&mut raw)
        .await
        .unwrap();
    let page = f.fetch("/fresh", &FetchOptions::default()).await;
    assert!(
        page.has_warning(WarningCode::CacheFailed),
        "{:?}",
        page.warnings
    );
    assert_eq!(page.title.as_deref(), Some("Fresh page"));
    assert_eq!(f.hits.get(), 2, "fetched again");
    // The bad entry was replaced by the new answer.
    let third = f.fetch("/fresh", &FetchOptions::default()).await;
    assert_eq!(third.cache, Some(CacheStatus::Hit));
}

#[cfg(feature = "page-cache-redis")]
#[tokio::test]
async fn an_unreachable_redis_is_a_warning_and_is_left_alone_for_a_while() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let cache = PageCache::redis(&format!("redis://:hunter2@127.0.0.1:{port}/")).unwrap();
    assert_eq!(cache.backend_name(), "redis");
    assert!(
        !cache.location().contains("hunter2"),
        "{}",
        cache.location()
    );
    let hits = Hits::default();
    let addr = site(hits.clone(), Seen::default()).await;
    let fetcher = public_fetcher().page_cache(cache).build().unwrap();
    for round in 0..2 {
        let page = fetcher
            .fetch(&public_url(addr, "/fresh"), &FetchOptions::default())
            .await
            .expect("the fetch does not fail with the cache");
        assert_eq!(page.title.as_deref(), Some("Fresh page"));
        let warning = page
            .warnings
            .iter()
            .find(|w| w.code == WarningCode::CacheFailed)
            .unwrap_or_else(|| panic!("no cache warning: {:?}", page.warnings));
        assert!(!warning.detail.contains("hunter2"), "{}", warning.detail);
        if round == 1 {
            assert!(
                warning.detail.contains("not tried again"),
                "{}",
                warning.detail
            );
        }
    }
    assert_eq!(hits.get(), 2);
    // A URL that is not a Redis URL is a typed error at once.
    let err = PageCache::redis("http://127.0.0.1:1/").unwrap_err();
    assert!(matches!(err, PageCacheError::Backend { .. }), "{err}");
}
