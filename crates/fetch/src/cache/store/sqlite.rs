//! The page cache in a SQLite file: one row per page, the body as a blob,
//! the oldest rows evicted past the total cap.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::{CachedPage, PageCacheError, PageCacheOptions, PageCacheStats};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS ferret_pages (
    key          TEXT PRIMARY KEY NOT NULL,
    fetched_at   INTEGER NOT NULL,
    fresh_until  INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    page         TEXT NOT NULL,
    body         BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS ferret_pages_fetched ON ferret_pages (fetched_at);
";

/// How long a call waits for another process holding the write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The file and its connection (clones share it).
#[derive(Clone)]
pub(super) struct SqlitePages {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
}

impl SqlitePages {
    /// Open (or create) the file at `path` and its parent directories.
    pub(super) fn open(path: &Path) -> Result<Self, PageCacheError> {
        let fail = |message: String| PageCacheError::Backend {
            location: path.display().to_string(),
            message,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| fail(format!("cannot create its directory: {e}")))?;
        }
        let conn = Connection::open(path).map_err(|e| fail(advice(&e)))?;
        init(&conn).map_err(|e| fail(advice(&e)))?;
        Ok(SqlitePages {
            conn: Arc::new(Mutex::new(conn)),
            path: path.to_path_buf(),
        })
    }

    /// The file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The page kept under `key`, fresh or stale.
    pub(super) async fn get(&self, key: &str) -> Result<Option<CachedPage>, PageCacheError> {
        let key = key.to_string();
        self.run(move |conn| {
            let row: Option<(String, Vec<u8>, i64)> = conn
                .query_row(
                    "SELECT page, body, fresh_until FROM ferret_pages WHERE key = ?1",
                    params![key],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            Ok(row.and_then(|(page, body, fresh_until)| {
                let mut page: CachedPage = serde_json::from_str(&page).ok()?;
                page.body = body;
                page.fresh_until = fresh_until.max(0) as u64;
                Some(page)
            }))
        })
        .await
    }

    /// Keep `page` under `key` and the total under the cap.
    pub(super) async fn put(
        &self,
        key: &str,
        page: CachedPage,
        options: PageCacheOptions,
    ) -> Result<(), PageCacheError> {
        let key = key.to_string();
        self.run(move |conn| write(conn, &key, &page, &options))
            .await
    }

    /// Entries and bytes kept.
    pub(super) async fn stats(&self) -> Result<PageCacheStats, PageCacheError> {
        self.run(|conn| {
            conn.query_row(
                "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM ferret_pages",
                [],
                |r| {
                    Ok(PageCacheStats {
                        entries: r.get::<_, i64>(0)?.max(0) as u64,
                        bytes: r.get::<_, i64>(1)?.max(0) as u64,
                    })
                },
            )
        })
        .await
    }

    /// Run `f` on the connection, on the blocking pool.
    async fn run<T, F>(&self, f: F) -> Result<T, PageCacheError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let conn = self.conn.clone();
        let location = self.path.display().to_string();
        let joined = tokio::task::spawn_blocking(move || f(&mut lock(&conn))).await;
        match joined {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(PageCacheError::Backend {
                location,
                message: advice(&e),
            }),
            Err(e) => Err(PageCacheError::Backend {
                location,
                message: format!("a cache task failed: {e}"),
            }),
        }
    }
}

/// The connection, even if a previous holder panicked.
fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An SQLite error with what to do about it.
fn advice(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => format!(
            "not a readable SQLite database ({e}); delete the file (it only holds cached \
             pages) or choose another path"
        ),
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen) => {
            format!("cannot write it ({e}); check the file and directory permissions")
        }
        _ => e.to_string(),
    }
}

/// The connection settings, and the table.
fn init(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
    conn.execute_batch(SCHEMA)
}

/// Write one entry and keep the total under the cap, in one transaction.
fn write(
    conn: &mut Connection,
    key: &str,
    page: &CachedPage,
    options: &PageCacheOptions,
) -> rusqlite::Result<()> {
    let meta = serde_json::to_string(page).unwrap_or_default();
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute(
        "INSERT INTO ferret_pages (key, fetched_at, fresh_until, size, page, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(key) DO UPDATE SET fetched_at = excluded.fetched_at,
           fresh_until = excluded.fresh_until, size = excluded.size,
           page = excluded.page, body = excluded.body",
        params![
            key,
            page.fetched_at as i64,
            page.fresh_until as i64,
            page.body.len() as i64,
            meta,
            page.body
        ],
    )?;
    evict_oldest(&tx, options)?;
    tx.commit()
}

/// Past the total cap, delete the oldest entries until 80 % of it is left.
fn evict_oldest(conn: &Connection, options: &PageCacheOptions) -> rusqlite::Result<()> {
    let total = |conn: &Connection| -> rusqlite::Result<u64> {
        conn.query_row("SELECT COALESCE(SUM(size), 0) FROM ferret_pages", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| n.max(0) as u64)
    };
    let mut bytes = total(conn)?;
    if bytes <= options.max_total_bytes {
        return Ok(());
    }
    let target = options.max_total_bytes / 10 * 8;
    while bytes > target {
        let oldest: Option<(String, i64)> = conn
            .query_row(
                "SELECT key, size FROM ferret_pages ORDER BY fetched_at ASC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((key, size)) = oldest else { break };
        conn.execute("DELETE FROM ferret_pages WHERE key = ?1", params![key])?;
        bytes = bytes.saturating_sub(size.max(0) as u64);
    }
    Ok(())
}
