//! The page cache in Redis (feature `page-cache-redis`), shared by every
//! process that reaches one server.
//!
//! - Each page is one hash, `<namespace>:page:<page key>` (namespace
//!   `ferret` by default), with the fields `page` (the JSON of the
//!   [`CachedPage`] without its body) and `body` (the bytes), written with
//!   its expiry in one `MULTI`.
//! - A page is kept [`STALE_KEPT`] past its freshness, so a stale page can
//!   still be revalidated with its validators; Redis's own expiry removes
//!   it after that. The total is bounded by the server's `maxmemory`
//!   policy, not by [`PageCacheOptions::max_total_bytes`].
//! - The connection is made on first use (a fetcher is built without
//!   waiting for the server). A server that cannot be reached is a
//!   [`PageCacheError::Backend`] within about a second; after such a
//!   failure the cache is not tried again for [`RETRY_AFTER`], so a down
//!   server costs each fetch nothing but a warning.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::OnceCell;

use super::{CachedPage, PageCacheError, PageCacheStats};

/// How long a page stays in Redis past its freshness, for revalidation.
pub const STALE_KEPT: Duration = Duration::from_secs(7 * 24 * 3600);

/// How long a server that could not be reached is left alone.
pub const RETRY_AFTER: Duration = Duration::from_secs(30);

/// Keys read per `SCAN` round of the stats.
const SCAN_BATCH: usize = 500;

/// One Redis server's pages (clones share the connection).
#[derive(Clone)]
pub(super) struct RedisPages {
    client: ::redis::Client,
    conn: Arc<OnceCell<ConnectionManager>>,
    failed_at: Arc<Mutex<Option<Instant>>>,
    namespace: String,
    /// The URL without its password, for messages.
    location: String,
}

impl RedisPages {
    /// The pages of the server at `url` (`redis://host:port/db`); nothing
    /// is sent until the first use.
    pub(super) fn new(url: &str) -> Result<Self, PageCacheError> {
        let location = redacted(url);
        let client = ::redis::Client::open(url).map_err(|e| PageCacheError::Backend {
            location: location.clone(),
            message: format!("invalid Redis URL: {e}; expected redis://host:port/db"),
        })?;
        Ok(RedisPages {
            client,
            conn: Arc::new(OnceCell::new()),
            failed_at: Arc::new(Mutex::new(None)),
            namespace: "ferret".to_string(),
            location,
        })
    }

    /// Keys under `namespace` instead of `ferret`.
    pub(super) fn set_namespace(&mut self, namespace: String) {
        self.namespace = namespace;
    }

    /// The server, without its password.
    pub(super) fn location(&self) -> &str {
        &self.location
    }

    /// The Redis key of the page key `key`.
    pub(super) fn redis_key(&self, key: &str) -> String {
        format!("{}:page:{key}", self.namespace)
    }

    /// The page kept under `key`, fresh or stale. An entry that cannot be
    /// read back is deleted and reported.
    pub(super) async fn get(&self, key: &str) -> Result<Option<CachedPage>, PageCacheError> {
        let mut conn = self.connection().await?;
        let rkey = self.redis_key(key);
        let (meta, body): (Option<Vec<u8>>, Option<Vec<u8>>) = ::redis::cmd("HMGET")
            .arg(&rkey)
            .arg("page")
            .arg("body")
            .query_async(&mut conn)
            .await
            .map_err(|e| self.failed(e))?;
        let (Some(meta), Some(body)) = (meta, body) else {
            return Ok(None);
        };
        match serde_json::from_slice::<CachedPage>(&meta) {
            Ok(mut page) => {
                page.body = body;
                Ok(Some(page))
            }
            Err(e) => {
                let _: Result<i64, _> = ::redis::cmd("DEL").arg(&rkey).query_async(&mut conn).await;
                Err(self.backend(format!("entry {rkey} is unreadable ({e}); it was deleted")))
            }
        }
    }

    /// Keep `page` under `key` until [`STALE_KEPT`] past its freshness.
    pub(super) async fn put(&self, key: &str, page: &CachedPage) -> Result<(), PageCacheError> {
        let mut conn = self.connection().await?;
        let meta = serde_json::to_vec(page).map_err(|e| self.backend(e.to_string()))?;
        let fresh_ms = page.fresh_until.saturating_sub(page.fetched_at);
        let keep_ms = fresh_ms.saturating_add(STALE_KEPT.as_millis() as u64);
        let rkey = self.redis_key(key);
        ::redis::pipe()
            .atomic()
            .cmd("DEL")
            .arg(&rkey)
            .ignore()
            .cmd("HSET")
            .arg(&rkey)
            .arg("page")
            .arg(meta)
            .arg("body")
            .arg(&page.body)
            .ignore()
            .cmd("PEXPIRE")
            .arg(&rkey)
            .arg(keep_ms)
            .ignore()
            .query_async::<()>(&mut conn)
            .await
            .map_err(|e| self.failed(e))
    }

    /// Entries and body bytes under this namespace (a `SCAN`).
    pub(super) async fn stats(&self) -> Result<PageCacheStats, PageCacheError> {
        let mut conn = self.connection().await?;
        let pattern = format!("{}:page:*", glob_escaped(&self.namespace));
        let mut stats = PageCacheStats::default();
        let mut cursor: u64 = 0;
        loop {
            let (next, keys): (u64, Vec<String>) = ::redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(SCAN_BATCH)
                .query_async(&mut conn)
                .await
                .map_err(|e| self.failed(e))?;
            for key in keys {
                let len: u64 = ::redis::cmd("HSTRLEN")
                    .arg(&key)
                    .arg("body")
                    .query_async(&mut conn)
                    .await
                    .map_err(|e| self.failed(e))?;
                stats.entries += 1;
                stats.bytes += len;
            }
            if next == 0 {
                return Ok(stats);
            }
            cursor = next;
        }
    }

    /// The connection, made on first use; refused for [`RETRY_AFTER`]
    /// after the server could not be reached.
    async fn connection(&self) -> Result<ConnectionManager, PageCacheError> {
        let failed = *self.failed_at.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = failed.filter(|at| at.elapsed() < RETRY_AFTER) {
            let wait = RETRY_AFTER.saturating_sub(at.elapsed()).as_secs().max(1);
            return Err(self.backend(format!(
                "the server could not be reached; not tried again for {wait} s"
            )));
        }
        if let Some(conn) = self.conn.get() {
            return Ok(conn.clone());
        }
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(200))
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_response_timeout(Some(Duration::from_secs(1)));
        let made = self
            .conn
            .get_or_try_init(|| self.client.get_connection_manager_with_config(config))
            .await;
        made.cloned().map_err(|e| {
            self.mark_failed();
            self.backend(format!(
                "cannot connect: {e}; is redis-server running there? (pages are fetched \
                 without the cache)"
            ))
        })
    }

    fn mark_failed(&self) {
        *self.failed_at.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    }

    /// A command that failed; a dropped connection counts as unreachable.
    fn failed(&self, e: ::redis::RedisError) -> PageCacheError {
        if e.is_connection_dropped() || e.is_connection_refusal() || e.is_timeout() {
            self.mark_failed();
        }
        self.backend(e.to_string())
    }

    fn backend(&self, message: String) -> PageCacheError {
        PageCacheError::Backend {
            location: self.location.clone(),
            message,
        }
    }
}

/// `url` without its password.
fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        Ok(u) => u.to_string(),
        Err(_) => url.to_string(),
    }
}

/// `text` with the `SCAN MATCH` wildcards escaped.
fn glob_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
