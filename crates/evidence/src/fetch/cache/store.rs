//! [`PageCache`]: the SQLite file behind the page cache (see the parent
//! module for the rules).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ferret_core::Provenance;
use reqwest::header::HeaderMap;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use url::Url;

use crate::fetch::http::cache_directive;

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

/// A failure of the page cache itself (never of the fetch).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageCacheError {
    /// The file could not be opened, read or written.
    #[error("page cache {path} failed: {message}")]
    Backend {
        /// The cache file.
        path: String,
        /// What went wrong and what to do.
        message: String,
    },
    /// The entry is login data; the cache only keeps the public partition.
    #[error("the page cache refuses login data: {reason}")]
    LoginPartitionRejected {
        /// Why it is login data.
        reason: String,
    },
}

/// Settings of a [`PageCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageCacheOptions {
    /// Freshness of a page without `Cache-Control` or `Expires` (1 h).
    pub default_ttl: Duration,
    /// The longest freshness honoured (1 day).
    pub max_ttl: Duration,
    /// Bodies longer than this are not kept (2 MiB).
    pub max_entry_bytes: usize,
    /// The most body bytes kept in all; past it the oldest entries go until
    /// 80 % is left (200 MB).
    pub max_total_bytes: u64,
}

impl Default for PageCacheOptions {
    fn default() -> Self {
        PageCacheOptions {
            default_ttl: Duration::from_secs(3600),
            max_ttl: Duration::from_secs(24 * 3600),
            max_entry_bytes: 2 * 1024 * 1024,
            max_total_bytes: 200 * 1024 * 1024,
        }
    }
}

/// What a [`PageCache`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageCacheStats {
    /// Entries, fresh or stale.
    pub entries: u64,
    /// Body bytes kept.
    pub bytes: u64,
}

/// The key of one kept page: the URL and what changes its answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PageKey(String);

impl PageKey {
    /// The key of `url` fetched with `user_agent` and a body cap of
    /// `body_limit` bytes (the fragment never reaches the server).
    pub fn new(url: &Url, user_agent: &str, body_limit: usize) -> Self {
        let mut url = url.clone();
        url.set_fragment(None);
        PageKey(format!("{url}\n{user_agent}\n{body_limit}"))
    }

    /// The key as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A kept HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedPage {
    /// The HTTP status (200).
    pub status: u16,
    /// The URL that answered, after redirects.
    pub final_url: String,
    /// Redirect hops followed.
    pub redirects: Vec<String>,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `ETag`, for `If-None-Match`.
    pub etag: Option<String>,
    /// `Last-Modified`, for `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// `Cache-Control`.
    pub cache_control: Option<String>,
    /// `Expires`.
    pub expires: Option<String>,
    /// Whether the body was cut at the cap.
    pub truncated: bool,
    /// When it was fetched (or last revalidated), ms since the Unix epoch.
    pub fetched_at: u64,
    /// Fresh until then, ms since the Unix epoch.
    pub fresh_until: u64,
    /// The body bytes (not in the JSON column; stored apart).
    #[serde(skip)]
    pub body: Vec<u8>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

impl CachedPage {
    /// The answer `r` as a page fetched now; `None` when it must not be
    /// kept (not a 200, or `no-store`).
    pub(crate) fn from_response(r: &crate::fetch::http::Response) -> Option<Self> {
        let cache_control = header(&r.headers, "cache-control");
        let no_store = cache_control
            .as_deref()
            .is_some_and(|cc| cache_directive(cc, "no-store").is_some());
        if r.status != 200 || no_store {
            return None;
        }
        Some(CachedPage {
            status: r.status,
            final_url: r.final_url.to_string(),
            redirects: r.redirects.clone(),
            content_type: r.content_type.clone(),
            etag: header(&r.headers, "etag"),
            last_modified: header(&r.headers, "last-modified"),
            cache_control,
            expires: header(&r.headers, "expires"),
            truncated: r.truncated,
            fetched_at: now_ms(),
            fresh_until: 0,
            body: r.body.clone(),
        })
    }

    /// Take the freshness headers of a `304` answer (they may move the
    /// expiry or change the validators) and mark it fetched now.
    pub(crate) fn revalidated(mut self, headers: &HeaderMap) -> Self {
        for (name, field) in [
            ("etag", &mut self.etag),
            ("last-modified", &mut self.last_modified),
            ("cache-control", &mut self.cache_control),
            ("expires", &mut self.expires),
        ] {
            if let Some(v) = header(headers, name) {
                *field = Some(v);
            }
        }
        self.fetched_at = now_ms();
        self
    }

    /// The kept answer as the HTTP step's response.
    pub(crate) fn to_response(&self) -> Result<crate::fetch::http::Response, url::ParseError> {
        Ok(crate::fetch::http::Response {
            final_url: Url::parse(&self.final_url)?,
            status: self.status,
            content_type: self.content_type.clone(),
            body: self.body.clone(),
            truncated: self.truncated,
            redirects: self.redirects.clone(),
            // A cut body was cut at the cap, so its length is the cap.
            limit: self.body.len(),
            headers: HeaderMap::new(),
            retry_after: None,
        })
    }

    /// Whether it is still fresh now.
    pub fn is_fresh(&self) -> bool {
        self.fresh_until > now_ms()
    }

    /// The conditional headers that ask whether it changed.
    pub(crate) fn validators(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(e) = &self.etag {
            out.push(("if-none-match", e.clone()));
        }
        if let Some(m) = &self.last_modified {
            out.push(("if-modified-since", m.clone()));
        }
        out
    }

    /// How long it stays fresh from `fetched_at` under `options`.
    fn freshness(&self, options: &PageCacheOptions) -> Duration {
        let cc = self.cache_control.as_deref().unwrap_or_default();
        if cache_directive(cc, "no-cache").is_some() {
            return Duration::ZERO;
        }
        let max_age = cache_directive(cc, "s-maxage")
            .or_else(|| cache_directive(cc, "max-age"))
            .flatten()
            .and_then(crate::fetch::http::delta_seconds);
        let expires = || {
            let at = chrono::DateTime::parse_from_rfc2822(self.expires.as_deref()?.trim()).ok()?;
            let at = u64::try_from(at.timestamp_millis()).unwrap_or(0);
            Some(Duration::from_millis(at.saturating_sub(self.fetched_at)))
        };
        max_age
            .or_else(expires)
            .unwrap_or(options.default_ttl)
            .min(options.max_ttl)
    }
}

/// Fetched pages in a SQLite file (clones share the connection).
#[derive(Clone)]
pub struct PageCache {
    conn: Arc<Mutex<Connection>>,
    path: PathBuf,
    options: PageCacheOptions,
}

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageCache")
            .field("path", &self.path)
            .field("options", &self.options)
            .finish()
    }
}

impl PageCache {
    /// Open (or create) the cache file at `path` with default options,
    /// creating missing parent directories.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, PageCacheError> {
        PageCache::open_with(path, PageCacheOptions::default())
    }

    /// [`PageCache::open`] with `options`.
    pub fn open_with(
        path: impl AsRef<Path>,
        options: PageCacheOptions,
    ) -> Result<Self, PageCacheError> {
        let path = path.as_ref().to_path_buf();
        let fail = |message: String| PageCacheError::Backend {
            path: path.display().to_string(),
            message,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| fail(format!("cannot create its directory: {e}")))?;
        }
        let conn = Connection::open(&path).map_err(|e| fail(advice(&e)))?;
        init(&conn).map_err(|e| fail(advice(&e)))?;
        Ok(PageCache {
            conn: Arc::new(Mutex::new(conn)),
            path,
            options,
        })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The settings.
    pub fn options(&self) -> PageCacheOptions {
        self.options
    }

    /// The page kept under `key`, fresh or stale.
    pub async fn get(&self, key: &PageKey) -> Result<Option<CachedPage>, PageCacheError> {
        let key = key.as_str().to_string();
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

    /// Keep `page` under `key` (it was read with `provenance`). Login data
    /// is refused; a body over the entry cap is silently not kept. Returns
    /// the page with its freshness set.
    pub async fn put(
        &self,
        key: &PageKey,
        mut page: CachedPage,
        provenance: &Provenance,
    ) -> Result<CachedPage, PageCacheError> {
        if provenance.is_login() {
            return Err(PageCacheError::LoginPartitionRejected {
                reason: format!(
                    "provenance is login data (search_partition={:?}, login_state_used={})",
                    provenance.search_partition, provenance.login_state_used
                ),
            });
        }
        page.fresh_until = page.fetched_at + self.freshness_ms(&page);
        if page.body.len() > self.options.max_entry_bytes {
            return Ok(page);
        }
        let key = key.as_str().to_string();
        let stored = page.clone();
        let options = self.options;
        self.run(move |conn| write(conn, &key, &stored, &options))
            .await?;
        Ok(page)
    }

    fn freshness_ms(&self, page: &CachedPage) -> u64 {
        page.freshness(&self.options).as_millis() as u64
    }

    /// Entries and bytes kept.
    pub async fn stats(&self) -> Result<PageCacheStats, PageCacheError> {
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
        let path = self.path.display().to_string();
        let joined = tokio::task::spawn_blocking(move || f(&mut lock(&conn))).await;
        match joined {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(PageCacheError::Backend {
                path,
                message: advice(&e),
            }),
            Err(e) => Err(PageCacheError::Backend {
                path,
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

/// The search cache's connection settings, and the table.
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
