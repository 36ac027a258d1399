//! The page cache of the HTTP step: fetched responses kept in a SQLite file
//! ([`PageCache::open`], feature `page-cache`; the CLI keeps it at
//! `$FERRET_HOME/pages.db`) or on a Redis server shared by many processes
//! ([`PageCache::redis`], feature `page-cache-redis`; the CLI uses
//! `FERRET_REDIS_URL` when it is set), so reading a page again costs no
//! request.
//!
//! - **Key**: the URL as parsed (scheme and host lower-cased, default port
//!   dropped, fragment removed) with what changes the answer: the
//!   `User-Agent` and the body cap ([`PageKey`]).
//! - **What is kept**: status, final URL, redirects, content type, the body
//!   bytes (as read, up to the cap), the validators (`ETag`,
//!   `Last-Modified`) and when it was fetched. Only `200` answers are kept;
//!   `Cache-Control: no-store` is honoured.
//! - **Fresh for**: `Cache-Control: max-age` (or `s-maxage`), else
//!   `Expires`, else [`PageCacheOptions::default_ttl`] (1 h); never longer
//!   than [`PageCacheOptions::max_ttl`] (1 day). `no-cache` keeps the
//!   page but revalidates it on every read.
//! - **Revalidation**: past its freshness a page with a validator is asked
//!   for again with `If-None-Match` / `If-Modified-Since`; a `304` refreshes
//!   the entry and serves the kept body ([`CacheStatus::Revalidated`]).
//! - **Public partition only**: an entry is refused unless its provenance
//!   is public ([`Provenance::is_login`](ferret_core::Provenance::is_login),
//!   the rule every Ferret cache applies), and a request carrying
//!   credentials is never looked up nor kept. The HTTP step sends no
//!   cookies and no login state; a browser reading (which may carry the
//!   user's session) never reaches the cache.
//! - **Bounded**: bodies over [`PageCacheOptions::max_entry_bytes`] are not
//!   kept; past [`PageCacheOptions::max_total_bytes`] the oldest entries
//!   are evicted until 80 % of it is left (SQLite; Redis keeps a page
//!   `REDIS_STALE_KEPT` past its freshness and is bounded by its own
//!   `maxmemory`).
//! - **Never fails a fetch**: a cache that cannot be read or written is a
//!   [`WarningCode::CacheFailed`](super::WarningCode::CacheFailed) on the
//!   page, and the page is fetched as if there were no cache.
//!
//! [`CacheMode`] chooses, per fetcher ([`FetcherBuilder::cache_mode`](super::FetcherBuilder::cache_mode))
//! or per call ([`FetchOptions::cache_mode`](super::FetchOptions::cache_mode)):
//! `on` (read and write), `off` (neither), `refresh` (skip the read, write
//! the new answer).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[cfg(feature = "page-cache")]
pub use store::{CachedPage, PageCache, PageCacheError, PageCacheOptions, PageCacheStats, PageKey};
#[cfg(feature = "page-cache-redis")]
pub use store::{REDIS_RETRY_AFTER, REDIS_STALE_KEPT};

/// How one fetch uses the page cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum CacheMode {
    /// Serve a fresh kept page, revalidate a stale one, keep new answers.
    #[default]
    On,
    /// Neither read nor write the cache.
    Off,
    /// Skip the read; keep the new answer.
    Refresh,
}

impl CacheMode {
    /// `on`, `off` or `refresh`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheMode::On => "on",
            CacheMode::Off => "off",
            CacheMode::Refresh => "refresh",
        }
    }
}

impl fmt::Display for CacheMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not a cache mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown cache mode {0:?}: use on, off or refresh")]
pub struct InvalidCacheMode(pub String);

impl FromStr for CacheMode {
    type Err = InvalidCacheMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "on" => Ok(CacheMode::On),
            "off" => Ok(CacheMode::Off),
            "refresh" => Ok(CacheMode::Refresh),
            _ => Err(InvalidCacheMode(s.to_string())),
        }
    }
}

/// How the page cache served a page (the page's `cache` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheStatus {
    /// A fresh kept page; no request was made.
    Hit,
    /// A stale kept page the server confirmed unchanged (`304`).
    Revalidated,
    /// Not kept (or changed): fetched, and kept when it may be.
    Miss,
    /// `refresh`: fetched without reading the cache, and kept.
    Refreshed,
    /// The cache was not used (`off`, credentials, or it failed).
    Bypass,
}

#[cfg(feature = "page-cache")]
mod store;

use super::Fetcher;
use super::error::FetchError;
use super::http::{self, Request, Response};

/// What the HTTP step got, and how the cache served it.
pub(crate) struct Served {
    /// The answer (fetched or kept).
    pub(crate) response: Response,
    /// How the cache served it (`None` without a page cache).
    pub(crate) status: Option<CacheStatus>,
    /// What went wrong with the cache (the fetch went on).
    pub(crate) warnings: Vec<String>,
}

/// The HTTP step's GET, through the fetcher's page cache when it has one.
pub(crate) async fn get(
    fetcher: &Fetcher,
    request: Request<'_>,
    mode: CacheMode,
) -> Result<Served, FetchError> {
    #[cfg(feature = "page-cache")]
    if let Some(cache) = fetcher.config().page_cache.as_ref() {
        return through(cache, fetcher, request, mode).await;
    }
    let _ = mode;
    Ok(Served {
        response: plain(fetcher, request).await?,
        status: None,
        warnings: Vec::new(),
    })
}

/// One GET with the fetcher's client and limits.
async fn plain(fetcher: &Fetcher, request: Request<'_>) -> Result<Response, FetchError> {
    let config = fetcher.config();
    http::get_document(
        fetcher.client(),
        &config.guard,
        config.max_redirects,
        config.timeout,
        request,
        Some(config.pdf_body_limit),
    )
    .await
}

/// Serve from `cache` when it may, else fetch (conditionally when a stale
/// page has validators) and keep the answer.
#[cfg(feature = "page-cache")]
async fn through(
    cache: &PageCache,
    fetcher: &Fetcher,
    request: Request<'_>,
    mode: CacheMode,
) -> Result<Served, FetchError> {
    // Credentials make an answer private: never looked up nor kept.
    if mode == CacheMode::Off || request.bearer.is_some() {
        return Ok(Served {
            response: plain(fetcher, request).await?,
            status: Some(CacheStatus::Bypass),
            warnings: Vec::new(),
        });
    }
    let key = PageKey::new(&request.url, request.user_agent, request.body_limit);
    let mut warnings = Vec::new();
    let kept = match mode {
        CacheMode::On => cache.get(&key).await.unwrap_or_else(|e| {
            warnings.push(e.to_string());
            None
        }),
        CacheMode::Off | CacheMode::Refresh => None,
    };
    let served = |response, status| Served {
        response,
        status: Some(status),
        warnings: Vec::new(),
    };
    if let Some(page) = kept.as_ref().filter(|p| p.is_fresh())
        && let Ok(response) = page.to_response()
    {
        return Ok(served(response, CacheStatus::Hit).with(warnings));
    }
    let validators = kept.as_ref().map(CachedPage::validators);
    let extra_headers = validators.as_deref().unwrap_or_default();
    let response = plain(
        fetcher,
        Request {
            extra_headers,
            ..request
        },
    )
    .await?;
    if response.status == 304
        && let Some(page) = kept
    {
        let page = keep(
            cache,
            &key,
            page.revalidated(&response.headers),
            &mut warnings,
        )
        .await;
        if let Ok(response) = page.to_response() {
            return Ok(served(response, CacheStatus::Revalidated).with(warnings));
        }
    }
    if let Some(page) = CachedPage::from_response(&response) {
        keep(cache, &key, page, &mut warnings).await;
    }
    let status = match mode {
        CacheMode::Refresh => CacheStatus::Refreshed,
        CacheMode::On | CacheMode::Off => CacheStatus::Miss,
    };
    Ok(served(response, status).with(warnings))
}

#[cfg(feature = "page-cache")]
impl Served {
    /// The same, carrying `warnings`.
    fn with(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }
}

/// Keep `page` (read over plain HTTP: the public partition); a failure is a
/// warning. Returns the page with its freshness.
#[cfg(feature = "page-cache")]
async fn keep(
    cache: &PageCache,
    key: &PageKey,
    page: CachedPage,
    warnings: &mut Vec<String>,
) -> CachedPage {
    const HTTP_READ: ferret_core::Provenance =
        ferret_core::Provenance::public(ferret_core::Runtime::Http);
    match cache.put(key, page.clone(), &HTTP_READ).await {
        Ok(p) => p,
        Err(e) => {
            warnings.push(e.to_string());
            page
        }
    }
}
