//! [`SqliteBreakerStore`]: breaker state in a SQLite file, so what one run
//! learns about an engine (blocked, unreachable) holds for the next run and
//! for every process sharing the file (feature `sqlite`; the CLI keeps it at
//! `$FERRET_HOME/health.db`).
//!
//! - **Safe across processes**: compare-and-swap runs in one
//!   `BEGIN IMMEDIATE` transaction (the write lock is taken before the
//!   value is read), so concurrent processes never lose each other's
//!   updates; WAL journal and a 5 s busy timeout, as the search cache.
//! - **Forgets**: every value carries an expiry (the TTL the breaker asks
//!   for); an expired value reads as absent and is deleted when next
//!   written. Expiry follows the store's [`Clock`] (wall time by default).
//! - **Off the runtime**: every SQLite call runs on tokio's blocking pool.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::sqlite_file::BUSY_TIMEOUT;
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::store::{BreakerStore, BreakerStoreError, Clock, SystemClock};

const STORE: &str = "sqlite";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS ferret_breaker (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);
";

/// Breaker state in a SQLite file (clones share the connection).
#[derive(Clone)]
pub struct SqliteBreakerStore {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for SqliteBreakerStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteBreakerStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn backend(message: impl Into<String>) -> BreakerStoreError {
    BreakerStoreError::Backend {
        store: STORE,
        message: message.into(),
    }
}

/// An error from the database at `path`, with what to do about it.
fn db_error(path: &Path, e: &rusqlite::Error) -> BreakerStoreError {
    backend(crate::sqlite_file::explain(path, e, "engine health"))
}

impl SqliteBreakerStore {
    /// Open (or create) the store at `path`, creating missing parent
    /// directories. Blocks for the few milliseconds opening takes.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, BreakerStoreError> {
        let path = path.as_ref().to_path_buf();
        crate::sqlite_file::prepare_path(&path, "health.db").map_err(backend)?;
        let conn = open_ready(&path).map_err(|e| db_error(&path, &e))?;
        Ok(SqliteBreakerStore {
            conn: Arc::new(Mutex::new(conn)),
            path,
            clock: Arc::new(SystemClock),
        })
    }

    /// [`SqliteBreakerStore::open`] on tokio's blocking pool.
    pub async fn open_async(path: impl AsRef<Path>) -> Result<Self, BreakerStoreError> {
        let path = path.as_ref().to_path_buf();
        tokio::task::spawn_blocking(move || SqliteBreakerStore::open(path))
            .await
            .map_err(|e| backend(format!("the open task failed: {e}")))?
    }

    /// Judge expiry by `clock` instead of the wall clock (tests under
    /// paused tokio time pass a [`TokioClock`](super::TokioClock)).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Run `f` on the connection with the current time in ms, on the
    /// blocking pool.
    async fn run<T, F>(&self, f: F) -> Result<T, BreakerStoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, i64) -> rusqlite::Result<T> + Send + 'static,
    {
        let conn = self.conn.clone();
        let now = i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX);
        let result = tokio::task::spawn_blocking(move || f(&mut lock(&conn), now))
            .await
            .map_err(|e| backend(format!("a breaker store task failed: {e}")))?;
        result.map_err(|e| db_error(&self.path, &e))
    }
}

/// The connection, even if a previous holder panicked (SQLite's own
/// transactions keep the file consistent).
fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Opens and initialises the file. Switching a new file to WAL while
/// another process does the same can fail with "locked" at once, without
/// waiting on the busy handler: such an open is retried until
/// [`BUSY_TIMEOUT`].
fn open_ready(path: &Path) -> rusqlite::Result<Connection> {
    let started = std::time::Instant::now();
    loop {
        let attempt = Connection::open(path).and_then(|conn| init(&conn).map(|()| conn));
        match attempt {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// The connection settings the search cache uses, and the table.
fn init(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!(%mode, "SQLite breaker store could not switch to WAL; using {mode}");
    }
    conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
    conn.execute_batch(SCHEMA)
}

/// The live value under `key` at `now` (expired values read as absent).
fn live_value(conn: &Connection, key: &str, now: i64) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT value FROM ferret_breaker WHERE key = ?1 AND expires_at > ?2",
        params![key, now],
        |r| r.get(0),
    )
    .optional()
}

/// Compare-and-swap inside one write transaction.
fn swap(
    conn: &mut Connection,
    key: &str,
    expected: Option<&str>,
    new: Option<&str>,
    expires_at: i64,
    now: i64,
) -> rusqlite::Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if live_value(&tx, key, now)?.as_deref() != expected {
        return Ok(false);
    }
    match new {
        Some(v) => tx.execute(
            "INSERT INTO ferret_breaker (key, value, expires_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
            params![key, v, expires_at],
        )?,
        None => tx.execute("DELETE FROM ferret_breaker WHERE key = ?1", params![key])?,
    };
    // Forget other engines' expired values while the lock is held.
    tx.execute(
        "DELETE FROM ferret_breaker WHERE expires_at <= ?1",
        params![now],
    )?;
    tx.commit()?;
    Ok(true)
}

#[async_trait]
impl BreakerStore for SqliteBreakerStore {
    fn store_name(&self) -> &'static str {
        STORE
    }

    async fn load(&self, key: &str) -> Result<Option<String>, BreakerStoreError> {
        let key = key.to_string();
        self.run(move |conn, now| live_value(conn, &key, now)).await
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&str>,
        new: Option<&str>,
        ttl: Duration,
    ) -> Result<bool, BreakerStoreError> {
        let key = key.to_string();
        let expected = expected.map(str::to_string);
        let new = new.map(str::to_string);
        let ttl_ms = i64::try_from(ttl.as_millis().max(1)).unwrap_or(i64::MAX);
        self.run(move |conn, now| {
            let expires_at = now.saturating_add(ttl_ms);
            swap(
                conn,
                &key,
                expected.as_deref(),
                new.as_deref(),
                expires_at,
                now,
            )
        })
        .await
    }
}
