//! The SQLite cache backend against a real SQLite file: the cache
//! conformance suite, persistence across a restart and across processes,
//! expiry, eviction to 80 % of the cap, the gzip threshold, bad files and
//! rows, and that a slow database never blocks the async runtime.
#![cfg(feature = "sqlite")]

use ferret_core::Provenance;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ferret_core::testing::{CountingEngine, StaticEngine};
use ferret_core::{Engine, EngineHit, EngineRequest, EngineResponse, Runtime};
use ferret_engines::cache::conformance::CacheConformance;
use ferret_engines::cache::{
    CacheError, CacheKey, CachedResponse, SearchCache, SearchCacheExt, SqliteCache,
    SqliteCacheOptions,
};
use ferret_engines::layers::Cache;

const HOUR: Duration = Duration::from_secs(3600);

fn key(q: &str) -> CacheKey {
    CacheKey::for_request("brave", &EngineRequest::new(q))
}

/// An answer with `n` hits; each hit adds about 120 bytes of JSON. It is
/// stamped with a fixed time: `Utc::now()` serialises with 0, 3, 6 or 9
/// fractional digits (trailing zeros dropped), which made "equal" entries
/// differ by a few bytes now and then.
fn value(tag: &str, n: u32) -> CachedResponse {
    let hits = (1..=n)
        .map(|i| {
            EngineHit::new(
                i,
                format!("https://{tag}.example/page/{i}"),
                format!("{tag} result number {i}"),
                format!("a snippet about {tag}, hit {i}"),
            )
        })
        .collect();
    let mut value = CachedResponse::new(
        "brave",
        EngineResponse::new(Provenance::public(Runtime::Http), hits),
    );
    value.stored_at =
        chrono::DateTime::from_timestamp(1_780_000_000, 123_456_789).expect("a valid instant");
    value
}

fn raw(path: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn
}

#[tokio::test]
async fn passes_the_cache_conformance_suite() {
    let dir = tempfile::tempdir().unwrap();
    let cache = SqliteCache::open(dir.path().join("cache.db")).unwrap();
    CacheConformance::new().check(&cache).await.assert_passed();
}

#[tokio::test]
async fn opening_creates_missing_directories_and_uses_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/cache.db");
    let cache = SqliteCache::open(&path).unwrap();
    cache.put(&key("q"), value("q", 1), HOUR).await.unwrap();
    assert!(path.is_file());
    let mode: String = raw(&path)
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(cache.path(), path);
}

#[tokio::test]
async fn entries_survive_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let stored = value("persist", 3);
    {
        let cache = SqliteCache::open(&path).unwrap();
        cache
            .put(&key("persist"), stored.clone(), HOUR)
            .await
            .unwrap();
    }
    let reopened = SqliteCache::open_async(&path, SqliteCacheOptions::default())
        .await
        .unwrap();
    assert_eq!(reopened.get(&key("persist")).await.unwrap(), Some(stored));
    assert_eq!(reopened.get(&key("other")).await.unwrap(), None);
}

const CHILD_DB: &str = "FERRET_TEST_SQLITE_CHILD_DB";

/// The write half runs in a child process (this test binary, re-run with
/// [`CHILD_DB`] set); the parent reads the entry after the child exited.
#[tokio::test]
async fn an_entry_written_by_another_process_is_read_after_it_exits() {
    if let Ok(path) = std::env::var(CHILD_DB) {
        let cache = SqliteCache::open(&path).unwrap();
        cache
            .put(&key("from the child"), value("child", 2), HOUR)
            .await
            .unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "an_entry_written_by_another_process_is_read_after_it_exits",
            "--test-threads=1",
        ])
        .env(CHILD_DB, &path)
        .status()
        .unwrap();
    assert!(status.success(), "child process failed: {status}");
    let cache = SqliteCache::open(&path).unwrap();
    let got = cache.get(&key("from the child")).await.unwrap().unwrap();
    assert_eq!(got.response.hits.len(), 2);
    assert_eq!(got.response.hits[0].url, "https://child.example/page/1");
}

#[tokio::test]
async fn expired_entries_are_misses_and_are_purged_lazily_or_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let cache = SqliteCache::open(dir.path().join("cache.db")).unwrap();
    for q in ["a", "b", "c"] {
        cache
            .put(&key(q), value(q, 1), Duration::from_millis(150))
            .await
            .unwrap();
    }
    cache
        .put(&key("long"), value("long", 1), HOUR)
        .await
        .unwrap();
    let info = cache.entry_info(&key("a")).await.unwrap().unwrap();
    let ttl = info.expires_at - info.created_at;
    assert_eq!(ttl.num_milliseconds(), 150);
    assert_eq!(info.engine, "brave");

    tokio::time::sleep(Duration::from_millis(400)).await;
    let stats = cache.stats().await.unwrap();
    assert_eq!((stats.entries, stats.expired), (4, 3));

    // Lazily: reading an expired entry is a miss and deletes it.
    assert_eq!(cache.get(&key("a")).await.unwrap(), None);
    assert_eq!(cache.entry_info(&key("a")).await.unwrap(), None);
    // On demand: the rest go at once.
    assert_eq!(cache.purge_expired().await.unwrap(), 2);
    let stats = cache.stats().await.unwrap();
    assert_eq!((stats.entries, stats.expired), (1, 0));
    assert!(cache.get(&key("long")).await.unwrap().is_some());
    // A zero TTL removes the entry instead of storing it.
    cache
        .put(&key("long"), value("x", 1), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(cache.get(&key("long")).await.unwrap(), None);
}

#[tokio::test]
async fn payloads_above_the_threshold_are_gzipped_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let cache = SqliteCache::open(&path).unwrap();
    let small = value("s", 1);
    let big = value("b", 40);
    assert!(serde_json::to_vec(&small).unwrap().len() <= 1024);
    assert!(serde_json::to_vec(&big).unwrap().len() > 1024);
    cache.put(&key("small"), small.clone(), HOUR).await.unwrap();
    cache.put(&key("big"), big.clone(), HOUR).await.unwrap();

    let small_info = cache.entry_info(&key("small")).await.unwrap().unwrap();
    let big_info = cache.entry_info(&key("big")).await.unwrap().unwrap();
    assert!(!small_info.compressed);
    assert!(big_info.compressed);
    assert!(big_info.size < serde_json::to_vec(&big).unwrap().len() as u64 / 2);

    // What is on disk: JSON for the small one, a gzip stream for the big one.
    let conn = raw(&path);
    let blob = |k: &CacheKey| -> Vec<u8> {
        conn.query_row(
            "SELECT payload FROM ferret_cache WHERE key = ?1",
            [k.as_str()],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(blob(&key("small"))[0], b'{');
    assert_eq!(&blob(&key("big"))[..2], &[0x1f, 0x8b]);

    assert_eq!(cache.get(&key("small")).await.unwrap(), Some(small));
    assert_eq!(cache.get(&key("big")).await.unwrap(), Some(big));

    // The threshold is configurable.
    let never = SqliteCache::open_with(
        dir.path().join("plain.db"),
        SqliteCacheOptions::default().compress_above(usize::MAX),
    )
    .unwrap();
    never.put(&key("big"), value("b", 40), HOUR).await.unwrap();
    assert!(
        !never
            .entry_info(&key("big"))
            .await
            .unwrap()
            .unwrap()
            .compressed
    );
}

#[tokio::test]
async fn past_the_cap_least_recently_used_entries_are_evicted_to_80_percent() {
    let dir = tempfile::tempdir().unwrap();
    let options = SqliteCacheOptions::default()
        .max_bytes(12_000)
        .compress_above(usize::MAX);
    let cache = SqliteCache::open_with(dir.path().join("cache.db"), options).unwrap();
    let name = |i: usize| format!("entry {i}");

    // Every entry has the same size (about 1 KB).
    let mut size = 0;
    for i in 0..8 {
        cache
            .put(&key(&name(i)), value("e", 8), HOUR)
            .await
            .unwrap();
        size = cache
            .entry_info(&key(&name(i)))
            .await
            .unwrap()
            .unwrap()
            .size;
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    assert!((900..1500).contains(&size), "entry size {size}");
    assert_eq!(cache.stats().await.unwrap().bytes, 8 * size);

    // Reading entry 0 makes it recently used; entry 1 is now the oldest.
    assert!(cache.get(&key(&name(0))).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(3)).await;

    let mut evicted_at = None;
    for i in 8..30 {
        cache
            .put(&key(&name(i)), value("e", 8), HOUR)
            .await
            .unwrap();
        let stats = cache.stats().await.unwrap();
        assert!(stats.bytes <= 12_000, "{} bytes after put {i}", stats.bytes);
        if evicted_at.is_none() && stats.entries < i as u64 + 1 {
            // The put that crossed the cap evicted down to at most 80 %,
            // oldest access first: entry 1 went, entry 0 (read) stayed.
            assert!(stats.bytes <= 9_600, "{} bytes after eviction", stats.bytes);
            assert!(stats.bytes > 9_600 - size, "evicted more than needed");
            assert!(cache.entry_info(&key(&name(1))).await.unwrap().is_none());
            assert!(cache.entry_info(&key(&name(0))).await.unwrap().is_some());
            evicted_at = Some(i);
        }
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    let evicted_at = evicted_at.expect("the cap was never enforced");
    assert_eq!(
        evicted_at as u64,
        12_000 / size,
        "evicted before the cap was crossed"
    );
    assert!(cache.get(&key(&name(1))).await.unwrap().is_none());
    assert!(cache.get(&key(&name(29))).await.unwrap().is_some());

    // An answer too big for the cache is refused with a typed error.
    let huge = SqliteCache::open_with(
        dir.path().join("tiny.db"),
        SqliteCacheOptions::default()
            .max_bytes(2_000)
            .compress_above(usize::MAX),
    )
    .unwrap();
    let err = huge
        .put(&key("huge"), value("h", 40), HOUR)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            CacheError::Backend {
                backend: "sqlite",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("max_bytes"), "{err}");
    assert_eq!(huge.get(&key("huge")).await.unwrap(), None);
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_a_clear_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    std::fs::write(
        &path,
        b"this is not a SQLite database, just some text ".repeat(100),
    )
    .unwrap();
    let err = SqliteCache::open(&path).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            CacheError::Backend {
                backend: "sqlite",
                ..
            }
        ),
        "{text}"
    );
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("not a readable SQLite database"), "{text}");
    assert!(text.contains("delete the file"), "{text}");

    // A directory where the file should be.
    let err = SqliteCache::open(dir.path()).unwrap_err();
    assert!(err.to_string().contains("is a directory"), "{err}");

    // Another program's SQLite database is left alone.
    let foreign = dir.path().join("other.db");
    raw(&foreign)
        .execute_batch("CREATE TABLE invoices (id INTEGER PRIMARY KEY);")
        .unwrap();
    let err = SqliteCache::open(&foreign).unwrap_err();
    assert!(err.to_string().contains("another program"), "{err}");
    let tables: i64 = raw(&foreign)
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type='table'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 1);

    // A file from a newer schema is refused rather than misread.
    let newer = dir.path().join("newer.db");
    drop(SqliteCache::open(&newer).unwrap());
    raw(&newer).pragma_update(None, "user_version", 99).unwrap();
    let err = SqliteCache::open(&newer).unwrap_err();
    assert!(err.to_string().contains("newer Ferret"), "{err}");
}

#[tokio::test]
async fn an_undecodable_row_is_reported_once_then_a_miss_and_the_layer_calls_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let cache = Arc::new(SqliteCache::open(&path).unwrap());
    let counting = CountingEngine::new(StaticEngine::new("brave", 3));
    let layer = Cache::new(counting.clone(), cache.clone() as Arc<dyn SearchCache>);
    let request = EngineRequest::new("rust");
    let k = layer.key_for(&request);
    layer.search(&request).await.unwrap();
    assert_eq!(layer.stats().stores, 1);

    // Damage the stored payload behind the cache's back.
    raw(&path)
        .execute(
            "UPDATE ferret_cache SET payload = ?2 WHERE key = ?1",
            rusqlite::params![k.as_str(), vec![0x1f_u8, 0x8b, 1, 2, 3]],
        )
        .unwrap();
    // The search still succeeds: the engine is called and the answer re-cached.
    let answer = layer.search(&request).await.unwrap();
    assert_eq!(answer.hits.len(), 3);
    assert_eq!(counting.calls(), 2);
    assert_eq!(layer.stats().backend_errors, 1);
    assert!(cache.get(&k).await.unwrap().is_some());

    // Directly: Corrupt once, then a miss.
    raw(&path)
        .execute(
            "UPDATE ferret_cache SET payload = X'7B6E6F' WHERE key = ?1",
            [k.as_str()],
        )
        .unwrap();
    let err = cache.get(&k).await.unwrap_err();
    assert!(
        matches!(
            err,
            CacheError::Corrupt {
                backend: "sqlite",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(cache.get(&k).await.unwrap(), None);
}

#[tokio::test]
async fn the_cache_layer_answers_repeats_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let counting = CountingEngine::new(StaticEngine::new("brave", 4));
    {
        let cache: Arc<dyn SearchCache> = Arc::new(SqliteCache::open(&path).unwrap());
        let layer = Cache::new(counting.clone(), cache);
        layer.search(&EngineRequest::new("tokio")).await.unwrap();
    }
    // A new process-lifetime: the answer is still there.
    let cache: Arc<dyn SearchCache> = Arc::new(SqliteCache::open(&path).unwrap());
    let layer = Cache::new(counting.clone(), cache);
    let again = layer.search(&EngineRequest::new("  TOKIO ")).await.unwrap();
    assert_eq!(again.hits.len(), 4);
    assert_eq!(counting.calls(), 1);
    assert_eq!(layer.stats().hits, 1);
}

/// On a single-threaded runtime, a put waiting for another process's write
/// lock must not stop other tasks: SQLite work runs off the runtime.
#[tokio::test(flavor = "current_thread")]
async fn a_locked_database_does_not_block_the_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let cache = SqliteCache::open(&path).unwrap();

    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let locker_path = path.clone();
    let locker = std::thread::spawn(move || {
        let conn = raw(&locker_path);
        conn.execute_batch("BEGIN EXCLUSIVE;").unwrap();
        locked_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        conn.execute_batch("COMMIT;").unwrap();
    });
    locked_rx.recv().unwrap();

    let put = tokio::spawn({
        let cache = cache.clone();
        async move { cache.put(&key("waits"), value("w", 1), HOUR).await }
    });
    let ticks = Arc::new(AtomicUsize::new(0));
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        ticks.fetch_add(1, Ordering::Relaxed);
    }
    assert!(!put.is_finished(), "the put should still wait for the lock");
    assert_eq!(ticks.load(Ordering::Relaxed), 10);
    release_tx.send(()).unwrap();
    put.await.unwrap().unwrap();
    locker.join().unwrap();
    assert!(cache.get(&key("waits")).await.unwrap().is_some());
}

#[tokio::test]
async fn clones_share_one_file_and_concurrent_writers_do_not_lose_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let a = SqliteCache::open(&path).unwrap();
    let b = SqliteCache::open(&path).unwrap();
    let mut tasks = Vec::new();
    for i in 0..40 {
        let cache = if i % 2 == 0 { a.clone() } else { b.clone() };
        tasks.push(tokio::spawn(async move {
            cache.put(&key(&format!("c{i}")), value("c", 2), HOUR).await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    assert_eq!(a.stats().await.unwrap().entries, 40);
    for i in 0..40 {
        assert!(b.get(&key(&format!("c{i}"))).await.unwrap().is_some());
    }
}
