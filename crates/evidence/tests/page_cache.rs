//! The page cache of the HTTP step against a local server that counts
//! requests: hits, expiry, revalidation (ETag and Last-Modified), refresh
//! and off, the login refusal, and a cache that fails without failing the
//! fetch.
#![cfg(feature = "page-cache")]

mod fetch_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use ferret_core::{Provenance, Runtime};
use ferret_evidence::fetch::cache::{CachedPage, PageCacheError, PageKey};
use ferret_evidence::fetch::{
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

struct Fixture {
    addr: std::net::SocketAddr,
    hits: Hits,
    seen: Seen,
    fetcher: Fetcher,
    _dir: tempfile::TempDir,
}

async fn fixture() -> Fixture {
    let hits = Hits::default();
    let seen = Seen::default();
    let addr = site(hits.clone(), seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let cache = PageCache::open(dir.path().join("pages.db")).unwrap();
    let fetcher = public_fetcher().page_cache(cache).build().unwrap();
    Fixture {
        addr,
        hits,
        seen,
        fetcher,
        _dir: dir,
    }
}

impl Fixture {
    async fn fetch(
        &self,
        path: &str,
        options: &FetchOptions,
    ) -> ferret_evidence::fetch::FetchedPage {
        self.fetcher
            .fetch(&public_url(self.addr, path), options)
            .await
            .expect("fetch")
    }
}

#[tokio::test]
async fn a_fresh_page_is_served_again_without_a_request() {
    let f = fixture().await;
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

#[tokio::test]
async fn past_max_age_the_page_is_revalidated_with_its_etag() {
    let f = fixture().await;
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

#[tokio::test]
async fn a_no_cache_page_is_revalidated_with_last_modified_on_every_read() {
    let f = fixture().await;
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

#[tokio::test]
async fn refresh_skips_the_read_and_keeps_the_new_answer_and_off_bypasses() {
    let f = fixture().await;
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

#[tokio::test]
async fn no_store_pages_are_never_kept() {
    let f = fixture().await;
    f.fetch("/nostore", &FetchOptions::default()).await;
    let again = f.fetch("/nostore", &FetchOptions::default()).await;
    assert_eq!(again.cache, Some(CacheStatus::Miss));
    assert_eq!(f.hits.get(), 2);
}

#[tokio::test]
async fn login_data_is_refused_and_never_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let cache = PageCache::open(dir.path().join("pages.db")).unwrap();
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
