//! [`PageCache`]: where the page cache keeps its pages (see the parent
//! module for the rules), and what it keeps ([`CachedPage`] under a
//! [`PageKey`]).
//!
//! - `sqlite`: one file ([`PageCache::open`]; the CLI's
//!   `$FERRET_HOME/pages.db`).
//! - `redis` (feature `page-cache-redis`): one server shared by every
//!   process that reaches it ([`PageCache::redis`]; the CLI's
//!   `FERRET_REDIS_URL`).
//!
//! Both apply the same rules: the login refusal, the entry cap and the
//! freshness are decided here, before a backend sees the page.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ferret_core::Provenance;
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use url::Url;

use crate::http::cache_directive;

#[cfg(feature = "page-cache-redis")]
mod redis;
mod sqlite;

#[cfg(feature = "page-cache-redis")]
pub use redis::{RETRY_AFTER as REDIS_RETRY_AFTER, STALE_KEPT as REDIS_STALE_KEPT};

/// A failure of the page cache itself (never of the fetch).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageCacheError {
    /// The file or server could not be opened, read or written.
    #[error("page cache {location} failed: {message}")]
    Backend {
        /// The cache file, or the Redis server (without its password).
        location: String,
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
    /// 80 % is left (200 MB). SQLite only: Redis is bounded by its own
    /// `maxmemory` policy.
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
    pub(crate) fn from_response(r: &crate::http::Response) -> Option<Self> {
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
    pub(crate) fn to_response(&self) -> Result<crate::http::Response, url::ParseError> {
        Ok(crate::http::Response {
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
            .and_then(crate::http::delta_seconds);
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

/// Where the pages are kept.
#[derive(Clone)]
enum Backend {
    Sqlite(sqlite::SqlitePages),
    #[cfg(feature = "page-cache-redis")]
    Redis(redis::RedisPages),
}

/// Fetched pages in a SQLite file or a Redis server (clones share the
/// connection).
#[derive(Clone)]
pub struct PageCache {
    backend: Backend,
    options: PageCacheOptions,
}

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageCache")
            .field("backend", &self.backend_name())
            .field("location", &self.location())
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
        Ok(PageCache {
            backend: Backend::Sqlite(sqlite::SqlitePages::open(path.as_ref())?),
            options,
        })
    }

    /// The cache on the Redis server at `url` (`redis://host:port/db`),
    /// with default options. Only the URL is checked here: the connection
    /// is made on first use, and a server that cannot be reached is a
    /// warning on each fetch, which goes on without the cache.
    #[cfg(feature = "page-cache-redis")]
    pub fn redis(url: &str) -> Result<Self, PageCacheError> {
        PageCache::redis_with(url, PageCacheOptions::default())
    }

    /// [`PageCache::redis`] with `options`.
    #[cfg(feature = "page-cache-redis")]
    pub fn redis_with(url: &str, options: PageCacheOptions) -> Result<Self, PageCacheError> {
        Ok(PageCache {
            backend: Backend::Redis(redis::RedisPages::new(url)?),
            options,
        })
    }

    /// Put Redis keys under `namespace` instead of `ferret` (separate
    /// fleets, or tests sharing one server); no effect on a SQLite cache.
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        let namespace = namespace.into();
        match &mut self.backend {
            Backend::Sqlite(_) => drop(namespace),
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(r) => r.set_namespace(namespace),
        }
        self
    }

    /// `sqlite` or `redis`.
    pub fn backend_name(&self) -> &'static str {
        match &self.backend {
            Backend::Sqlite(_) => "sqlite",
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(_) => "redis",
        }
    }

    /// The cache file, or the Redis server without its password.
    pub fn location(&self) -> String {
        match &self.backend {
            Backend::Sqlite(s) => s.path().display().to_string(),
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(r) => r.location().to_string(),
        }
    }

    /// The cache file (`None` for Redis).
    pub fn path(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Sqlite(s) => Some(s.path()),
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(_) => None,
        }
    }

    /// The Redis key that holds `key`'s page (`None` for SQLite).
    pub fn redis_key(&self, key: &PageKey) -> Option<String> {
        match &self.backend {
            Backend::Sqlite(_) => {
                let _ = key;
                None
            }
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(r) => Some(r.redis_key(key.as_str())),
        }
    }

    /// The settings.
    pub fn options(&self) -> PageCacheOptions {
        self.options
    }

    /// The page kept under `key`, fresh or stale.
    pub async fn get(&self, key: &PageKey) -> Result<Option<CachedPage>, PageCacheError> {
        match &self.backend {
            Backend::Sqlite(s) => s.get(key.as_str()).await,
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(r) => r.get(key.as_str()).await,
        }
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
        page.fresh_until = page.fetched_at + page.freshness(&self.options).as_millis() as u64;
        if page.body.len() > self.options.max_entry_bytes {
            return Ok(page);
        }
        match &self.backend {
            Backend::Sqlite(s) => s.put(key.as_str(), page.clone(), self.options).await?,
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(r) => r.put(key.as_str(), &page).await?,
        }
        Ok(page)
    }

    /// Entries and body bytes kept.
    pub async fn stats(&self) -> Result<PageCacheStats, PageCacheError> {
        match &self.backend {
            Backend::Sqlite(s) => s.stats().await,
            #[cfg(feature = "page-cache-redis")]
            Backend::Redis(r) => r.stats().await,
        }
    }
}
