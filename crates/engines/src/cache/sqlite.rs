//! [`SqliteCache`]: the embedded default [`SearchCache`], one SQLite file on
//! disk (feature `sqlite`; the CLI keeps it at `$FERRET_HOME/cache.db`).
//!
//! - **Durable**: entries survive a restart of the process; several processes
//!   may share the file (WAL journal, a 5 s busy timeout).
//! - **Compact**: payloads are JSON, gzip-compressed above 1 KiB
//!   ([`SqliteCacheOptions::compress_above`]).
//! - **Bounded**: when the stored payloads pass [`SqliteCacheOptions::max_bytes`]
//!   (100 MB by default) expired entries are purged, then the least recently used
//!   ones are evicted until 80 % of the cap is left.
//! - **Lazy expiry**: an expired entry is a miss and is deleted when read;
//!   [`SqliteCache::purge_expired`] removes all of them on demand.
//! - **Off the runtime**: every SQLite call runs on tokio's blocking pool,
//!   never on an async worker thread.
//! - **Safe to point at a bad file**: a file that is not a SQLite database,
//!   or is another program's database, is a [`CacheError::Backend`] naming
//!   the path and what to do; a row that cannot be decoded is deleted and
//!   reported once as [`CacheError::Corrupt`].
//!
//! Like every backend it stores only [`AdmittedEntry`]s, so it never holds
//! login data.
//!
//! ```no_run
//! # async fn demo() -> Result<(), ferret_engines::cache::CacheError> {
//! use std::sync::Arc;
//! use ferret_engines::cache::SqliteCache;
//! let cache = Arc::new(SqliteCache::open("/home/me/.local/share/ferret/cache.db")?);
//! println!("{:?}", cache.stats().await?);
//! # Ok(()) }
//! ```

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::sqlite_file::BUSY_TIMEOUT;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::payload::{self, COMPRESS_ABOVE};
use super::{AdmittedEntry, CacheError, CacheKey, CachedResponse, SearchCache};

const BACKEND: &str = "sqlite";

/// The schema version this build writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS ferret_cache (
    key         TEXT PRIMARY KEY NOT NULL,
    engine      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    accessed_at INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    compressed  INTEGER NOT NULL,
    payload     BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS ferret_cache_expires ON ferret_cache (expires_at);
CREATE INDEX IF NOT EXISTS ferret_cache_accessed ON ferret_cache (accessed_at, size);
";

/// Settings of a [`SqliteCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqliteCacheOptions {
    /// The most payload bytes kept; past it the cache evicts down to
    /// [`SqliteCacheOptions::EVICT_TO_PERCENT`] of it. Default 100 MB.
    pub max_bytes: u64,
    /// Payloads longer than this are gzip-compressed. Default 1024.
    pub compress_above: usize,
}

impl SqliteCacheOptions {
    /// The default cap: 100 MB.
    pub const DEFAULT_MAX_BYTES: u64 = 100 * 1024 * 1024;
    /// Eviction stops once this share (in percent) of the cap is left.
    pub const EVICT_TO_PERCENT: u64 = 80;

    /// Set [`SqliteCacheOptions::max_bytes`].
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// Set [`SqliteCacheOptions::compress_above`].
    pub fn compress_above(mut self, bytes: usize) -> Self {
        self.compress_above = bytes;
        self
    }

    fn evict_target(&self) -> u64 {
        self.max_bytes / 100 * Self::EVICT_TO_PERCENT
            + self.max_bytes % 100 * Self::EVICT_TO_PERCENT / 100
    }
}

impl Default for SqliteCacheOptions {
    fn default() -> Self {
        SqliteCacheOptions {
            max_bytes: Self::DEFAULT_MAX_BYTES,
            compress_above: COMPRESS_ABOVE,
        }
    }
}

/// What a [`SqliteCache`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SqliteCacheStats {
    /// Rows, live or expired.
    pub entries: u64,
    /// Rows whose TTL has ended but that were not purged yet.
    pub expired: u64,
    /// Payload bytes stored (after compression).
    pub bytes: u64,
}

/// How one entry is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteEntryInfo {
    /// The engine that answered.
    pub engine: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// When it expires.
    pub expires_at: DateTime<Utc>,
    /// When it was last read or written.
    pub accessed_at: DateTime<Utc>,
    /// Payload bytes stored.
    pub size: u64,
    /// Whether the payload is gzip-compressed.
    pub compressed: bool,
}

/// A cache of engine answers in a SQLite file (clones share the file).
#[derive(Clone)]
pub struct SqliteCache {
    inner: Arc<Inner>,
}

struct Inner {
    conn: Mutex<Connection>,
    path: PathBuf,
    options: SqliteCacheOptions,
}

impl std::fmt::Debug for SqliteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteCache")
            .field("path", &self.inner.path)
            .field("options", &self.inner.options)
            .finish()
    }
}

fn backend(message: impl Into<String>) -> CacheError {
    CacheError::Backend {
        backend: BACKEND,
        message: message.into(),
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn to_time(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// An error from an operation on the open database at `path`.
/// An error from the database at `path`, with what to do about it.
fn db_error(path: &Path, e: &rusqlite::Error) -> CacheError {
    backend(crate::sqlite_file::explain(
        path,
        e,
        "cached search answers",
    ))
}

impl SqliteCache {
    /// Open (or create) the cache file at `path` with default options,
    /// creating missing parent directories. Blocks for the few milliseconds
    /// opening takes; from async code prefer [`SqliteCache::open_async`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, CacheError> {
        SqliteCache::open_with(path, SqliteCacheOptions::default())
    }

    /// [`SqliteCache::open`] with `options`.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: SqliteCacheOptions,
    ) -> Result<Self, CacheError> {
        let path = path.as_ref().to_path_buf();
        crate::sqlite_file::prepare_path(&path, "cache.db").map_err(backend)?;
        let conn = Connection::open(&path).map_err(|e| db_error(&path, &e))?;
        init(&conn, &path)?;
        Ok(SqliteCache {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                path,
                options,
            }),
        })
    }

    /// [`SqliteCache::open_with`] on tokio's blocking pool.
    pub async fn open_async(
        path: impl AsRef<Path>,
        options: SqliteCacheOptions,
    ) -> Result<Self, CacheError> {
        let path = path.as_ref().to_path_buf();
        tokio::task::spawn_blocking(move || SqliteCache::open_with(path, options))
            .await
            .map_err(|e| backend(format!("the open task failed: {e}")))?
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The settings.
    pub fn options(&self) -> SqliteCacheOptions {
        self.inner.options
    }

    /// Counts of entries and bytes.
    pub async fn stats(&self) -> Result<SqliteCacheStats, CacheError> {
        self.run(|conn, _| {
            let now = now_ms();
            conn.query_row(
                "SELECT COUNT(*), COALESCE(SUM(expires_at <= ?1), 0), COALESCE(SUM(size), 0)
                 FROM ferret_cache",
                params![now],
                |r| {
                    Ok(SqliteCacheStats {
                        entries: r.get::<_, i64>(0)?.max(0) as u64,
                        expired: r.get::<_, i64>(1)?.max(0) as u64,
                        bytes: r.get::<_, i64>(2)?.max(0) as u64,
                    })
                },
            )
        })
        .await
    }

    /// How the entry under `key` is stored (expired or not), if present.
    pub async fn entry_info(&self, key: &CacheKey) -> Result<Option<SqliteEntryInfo>, CacheError> {
        let key = key.as_str().to_string();
        self.run(move |conn, _| {
            conn.query_row(
                "SELECT engine, created_at, expires_at, accessed_at, size, compressed
                 FROM ferret_cache WHERE key = ?1",
                params![key],
                |r| {
                    Ok(SqliteEntryInfo {
                        engine: r.get(0)?,
                        created_at: to_time(r.get(1)?),
                        expires_at: to_time(r.get(2)?),
                        accessed_at: to_time(r.get(3)?),
                        size: r.get::<_, i64>(4)?.max(0) as u64,
                        compressed: r.get::<_, i64>(5)? != 0,
                    })
                },
            )
            .optional()
        })
        .await
    }

    /// Delete every expired entry now; how many there were.
    pub async fn purge_expired(&self) -> Result<u64, CacheError> {
        self.run(|conn, _| {
            let n = conn.execute(
                "DELETE FROM ferret_cache WHERE expires_at <= ?1",
                params![now_ms()],
            )?;
            conn.execute_batch("PRAGMA incremental_vacuum;")?;
            Ok(n as u64)
        })
        .await
    }

    /// Run `f` on the connection, on the blocking pool.
    async fn run<T, F>(&self, f: F) -> Result<T, CacheError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &SqliteCacheOptions) -> rusqlite::Result<T> + Send + 'static,
    {
        self.run_checked(move |conn, options| Ok(f(conn, options)))
            .await?
            .map_err(|e| db_error(&self.inner.path, &e))
    }

    /// Run `f`, which may fail with a [`CacheError`] of its own, on the
    /// blocking pool.
    async fn run_checked<T, F>(&self, f: F) -> Result<T, CacheError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &SqliteCacheOptions) -> Result<T, CacheError> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = lock(&inner.conn);
            f(&mut conn, &inner.options)
        })
        .await
        .map_err(|e| backend(format!("a cache task failed: {e}")))?
    }
}

/// The connection, even if a previous holder panicked (SQLite's own
/// transactions keep the file consistent).
fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Check the file is ours (or new), then set it up.
fn init(conn: &Connection, path: &Path) -> Result<(), CacheError> {
    let err = |e: rusqlite::Error| db_error(path, &e);
    conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
    // The first read of the file: fails with NotADatabase on garbage.
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(err)?;
    if version > SCHEMA_VERSION {
        return Err(backend(format!(
            "{} was written by a newer Ferret (cache schema {version}; this build reads \
             {SCHEMA_VERSION}); upgrade Ferret, or delete the file",
            path.display()
        )));
    }
    if version == 0 {
        let foreign: Option<String> = conn
            .query_row(
                "SELECT name FROM sqlite_master
                 WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'ferret_cache'
                 LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        if let Some(table) = foreign {
            return Err(backend(format!(
                "{} is another program's SQLite database (it has a table {table:?}); \
                 choose another cache path",
                path.display()
            )));
        }
        // Only takes effect on a new, empty file.
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")
            .map_err(err)?;
    }
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!(path = %path.display(), %mode, "SQLite cache could not switch to WAL; using {mode}");
    }
    conn.execute_batch("PRAGMA synchronous = NORMAL;")
        .map_err(err)?;
    conn.execute_batch(SCHEMA).map_err(err)?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(err)?;
    Ok(())
}

/// Purge expired rows, then evict least recently used ones until at most
/// the eviction target is left. Runs inside the writing transaction.
fn enforce_cap(conn: &Connection, options: &SqliteCacheOptions) -> rusqlite::Result<()> {
    let total = |conn: &Connection| -> rusqlite::Result<u64> {
        conn.query_row("SELECT COALESCE(SUM(size), 0) FROM ferret_cache", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| n.max(0) as u64)
    };
    let mut bytes = total(conn)?;
    if bytes <= options.max_bytes {
        return Ok(());
    }
    conn.execute(
        "DELETE FROM ferret_cache WHERE expires_at <= ?1",
        params![now_ms()],
    )?;
    bytes = total(conn)?;
    let target = options.evict_target();
    if bytes <= options.max_bytes {
        return Ok(());
    }
    let mut victims = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT key, size FROM ferret_cache ORDER BY accessed_at ASC, created_at ASC",
        )?;
        let mut rows = stmt.query([])?;
        while bytes > target {
            let Some(row) = rows.next()? else { break };
            let key: String = row.get(0)?;
            let size: i64 = row.get(1)?;
            bytes = bytes.saturating_sub(size.max(0) as u64);
            victims.push(key);
        }
    }
    let mut delete = conn.prepare_cached("DELETE FROM ferret_cache WHERE key = ?1")?;
    for key in &victims {
        delete.execute(params![key])?;
    }
    tracing::debug!(
        evicted = victims.len(),
        bytes,
        "SQLite cache evicted to its target"
    );
    Ok(())
}

#[async_trait]
impl SearchCache for SqliteCache {
    fn backend_name(&self) -> &'static str {
        BACKEND
    }

    async fn get(&self, key: &CacheKey) -> Result<Option<CachedResponse>, CacheError> {
        let key = key.as_str().to_string();
        let path = self.inner.path.clone();
        self.run_checked(move |conn, _| {
            let err = |e: rusqlite::Error| db_error(&path, &e);
            let now = now_ms();
            let row: Option<(Vec<u8>, i64)> = conn
                .query_row(
                    "SELECT payload, expires_at FROM ferret_cache WHERE key = ?1",
                    params![key],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .map_err(err)?;
            let Some((bytes, expires_at)) = row else {
                return Ok(None);
            };
            if expires_at <= now {
                conn.execute("DELETE FROM ferret_cache WHERE key = ?1", params![key])
                    .map_err(err)?;
                return Ok(None);
            }
            match payload::decode(&bytes) {
                Ok(value) => {
                    conn.execute(
                        "UPDATE ferret_cache SET accessed_at = ?2 WHERE key = ?1",
                        params![key, now],
                    )
                    .map_err(err)?;
                    Ok(Some(value))
                }
                Err(message) => {
                    conn.execute("DELETE FROM ferret_cache WHERE key = ?1", params![key])
                        .map_err(err)?;
                    Err(CacheError::Corrupt {
                        backend: BACKEND,
                        key,
                        message: format!("{message} (the entry was deleted)"),
                    })
                }
            }
        })
        .await
    }

    async fn put_admitted(&self, entry: AdmittedEntry) -> Result<(), CacheError> {
        let (key, value, ttl) = entry.into_parts();
        let path = self.inner.path.clone();
        self.run_checked(move |conn, options| {
            let err = |e: rusqlite::Error| db_error(&path, &e);
            if ttl.is_zero() {
                conn.execute(
                    "DELETE FROM ferret_cache WHERE key = ?1",
                    params![key.as_str()],
                )
                .map_err(err)?;
                return Ok(());
            }
            let encoded = payload::encode(&value, options.compress_above).map_err(backend)?;
            let size = encoded.bytes.len() as u64;
            if size > options.evict_target() {
                return Err(backend(format!(
                    "the answer for {key} is {size} bytes stored, more than {} bytes \
                     (80 % of the cache's {}-byte cap); not cached — raise max_bytes to keep \
                     answers this large",
                    options.evict_target(),
                    options.max_bytes
                )));
            }
            let now = now_ms();
            let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(err)?;
            tx.execute(
                "INSERT OR REPLACE INTO ferret_cache
                 (key, engine, created_at, expires_at, accessed_at, size, compressed, payload)
                 VALUES (?1, ?2, ?3, ?4, ?3, ?5, ?6, ?7)",
                params![
                    key.as_str(),
                    value.engine,
                    now,
                    now.saturating_add(ttl_ms),
                    size as i64,
                    i64::from(encoded.compressed),
                    encoded.bytes,
                ],
            )
            .map_err(err)?;
            enforce_cap(&tx, options).map_err(err)?;
            tx.commit().map_err(err)?;
            conn.execute_batch("PRAGMA incremental_vacuum;")
                .map_err(err)?;
            Ok(())
        })
        .await
    }

    async fn delete(&self, key: &CacheKey) -> Result<bool, CacheError> {
        let key = key.as_str().to_string();
        self.run(move |conn, _| {
            let live: Option<i64> = conn
                .query_row(
                    "DELETE FROM ferret_cache WHERE key = ?1 RETURNING expires_at",
                    params![key],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(live.is_some_and(|expires_at| expires_at > now_ms()))
        })
        .await
    }

    async fn clear(&self) -> Result<(), CacheError> {
        self.run(|conn, _| {
            conn.execute("DELETE FROM ferret_cache", [])?;
            conn.execute_batch("PRAGMA incremental_vacuum;")
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eviction_target_is_eighty_percent_without_overflow() {
        let o = SqliteCacheOptions::default();
        assert_eq!(o.evict_target(), o.max_bytes * 4 / 5);
        assert_eq!(o.max_bytes(1000).evict_target(), 800);
        assert_eq!(o.max_bytes(7).evict_target(), 5);
        assert!(o.max_bytes(u64::MAX).evict_target() > u64::MAX / 100 * 79);
    }
}
