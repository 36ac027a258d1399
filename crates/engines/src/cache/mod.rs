//! Caches of engine answers: the [`SearchCache`] trait, its login guard,
//! keys ([`CacheKey`]), TTL tiers ([`TtlPolicy`]) and backends
//! ([`MemoryCache`]; SQLite and Redis backends plug in the same way).
//!
//! A cache stores [`CachedResponse`]s — an engine's [`EngineResponse`] with
//! its [`Provenance`] — under a [`CacheKey`] for a TTL. The
//! [`Cache`](crate::layers::Cache) layer puts one in front of an engine.
//!
//! ## The login guard
//!
//! Login-partition data is never written to a cache, whatever the caller
//! does. The rule is enforced in exactly one place, [`AdmittedEntry::admit`],
//! and the type system routes every write through it:
//!
//! - a backend implements [`SearchCache::put_admitted`], which only accepts
//!   an [`AdmittedEntry`];
//! - an [`AdmittedEntry`] can only be built by [`AdmittedEntry::admit`],
//!   which refuses login data with [`CacheError::LoginPartitionRejected`]
//!   and has no way to change its value afterwards;
//! - callers write with [`SearchCacheExt::put`], a blanket method no backend
//!   can override.
//!
//! Login data is anything whose provenance says so
//! ([`Provenance::is_login`]: login partition, login state used, an
//! `auth_partition` starting with `login`, or `cache_eligible = false`), or
//! whose runtime or engine is one that only ever runs with a user's session
//! ([`LOGIN_ENGINE_MARKERS`], such as `ego-browser`).

pub mod conformance;
mod key;
pub mod memory;
#[cfg(any(feature = "sqlite", feature = "redis"))]
mod payload;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "sqlite")]
pub mod sqlite;
mod ttl;

use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use ferret_core::{EngineResponse, Provenance};
use serde::{Deserialize, Serialize};

#[cfg(feature = "redis")]
pub use self::redis::RedisCache;
pub use key::{CacheKey, KEY_LEN, KEY_VERSION, normalize_query};
pub use memory::MemoryCache;
#[cfg(any(feature = "sqlite", feature = "redis"))]
pub use payload::COMPRESS_ABOVE;
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteCache, SqliteCacheOptions, SqliteCacheStats, SqliteEntryInfo};
pub use ttl::{FINANCIAL_WORDS, FRESHNESS_WORDS, INTENT_TIERS, TTL_TIERS, TtlPolicy, TtlTier};

pub(crate) use key::hex_prefix;

/// Engine names that always carry a user's session: data from them is
/// login data even if its provenance flags were lost. (An attached browser
/// is judged by its provenance alone: the user's own browser reads in the
/// login partition, a declared pool of clean browsers in the public one.)
pub const LOGIN_ENGINE_MARKERS: &[&str] = &["ego-browser", "ego_browser"];

/// A cache failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    /// The value is login-partition data, which no cache may hold.
    #[error(
        "refused to cache {key}: {reason}; login-partition data is never written to a cache \
         (pass it through to the caller instead)"
    )]
    LoginPartitionRejected {
        /// The key that was to be written.
        key: String,
        /// Which provenance marker made it login data.
        reason: String,
    },
    /// A key read back from storage is not a valid cache key.
    #[error(
        "invalid cache key {key:?}: expected {} lowercase hex characters",
        KEY_LEN
    )]
    InvalidKey {
        /// The offending text.
        key: String,
    },
    /// The backend failed.
    #[error("cache backend {backend} failed: {message}")]
    Backend {
        /// Which backend (`memory`, `sqlite`, `redis`).
        backend: &'static str,
        /// What went wrong.
        message: String,
    },
    /// A stored value could not be read back.
    #[error("cache backend {backend} holds an unreadable value for {key}: {message}; delete it")]
    Corrupt {
        /// Which backend.
        backend: &'static str,
        /// The key.
        key: String,
        /// What was wrong.
        message: String,
    },
}

/// A cached engine answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedResponse {
    /// The engine that answered.
    pub engine: String,
    /// Its answer, with its provenance.
    pub response: EngineResponse,
    /// When it was stored.
    pub stored_at: DateTime<Utc>,
}

impl CachedResponse {
    /// `engine`'s `response`, stored now.
    pub fn new(engine: impl Into<String>, response: EngineResponse) -> Self {
        CachedResponse {
            engine: engine.into(),
            response,
            stored_at: Utc::now(),
        }
    }

    /// The answer's provenance.
    pub fn provenance(&self) -> &Provenance {
        &self.response.provenance
    }

    /// Why this is login data, or `None` when it may be cached.
    pub fn login_marker(&self) -> Option<String> {
        login_marker(&self.engine, self.provenance())
    }
}

/// Why data from `engine` with `provenance` is login data, if it is.
pub fn login_marker(engine: &str, provenance: &Provenance) -> Option<String> {
    if provenance.is_login() {
        let p = provenance;
        return Some(format!(
            "provenance is login data (search_partition={:?}, login_state_used={}, \
             auth_partition={:?}, cache_eligible={})",
            p.search_partition, p.login_state_used, p.auth_partition, p.cache_eligible
        ));
    }
    let engine = engine.to_ascii_lowercase();
    LOGIN_ENGINE_MARKERS
        .iter()
        .find(|m| engine.contains(*m))
        .map(|m| format!("engine {m:?} always uses a login session"))
}

/// A value that passed the login guard: the only thing a backend can store.
///
/// Built only by [`AdmittedEntry::admit`]; its fields cannot be changed
/// afterwards.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmittedEntry {
    key: CacheKey,
    value: CachedResponse,
    ttl: Duration,
}

impl AdmittedEntry {
    /// The guard: admit `value` under `key` for `ttl`, or refuse it with
    /// [`CacheError::LoginPartitionRejected`] when it is login data.
    pub fn admit(key: CacheKey, value: CachedResponse, ttl: Duration) -> Result<Self, CacheError> {
        if let Some(reason) = value.login_marker() {
            return Err(CacheError::LoginPartitionRejected {
                key: key.to_string(),
                reason,
            });
        }
        Ok(AdmittedEntry { key, value, ttl })
    }

    /// The key.
    pub fn key(&self) -> &CacheKey {
        &self.key
    }

    /// The value.
    pub fn value(&self) -> &CachedResponse {
        &self.value
    }

    /// How long to keep it.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Key, value and TTL, for a backend to store.
    pub fn into_parts(self) -> (CacheKey, CachedResponse, Duration) {
        (self.key, self.value, self.ttl)
    }
}

/// A store of cached engine answers with per-entry TTLs.
///
/// Backends implement the four required methods; writes reach them only as
/// [`AdmittedEntry`]s, so no backend can hold login data. Write with
/// [`SearchCacheExt::put`]. Run [`conformance::CacheConformance::check`] against every
/// backend.
#[async_trait]
pub trait SearchCache: Send + Sync + Debug {
    /// The backend's name (`memory`, `sqlite`, `redis`).
    fn backend_name(&self) -> &'static str;

    /// The live entry for `key`, if any (expired entries are misses).
    async fn get(&self, key: &CacheKey) -> Result<Option<CachedResponse>, CacheError>;

    /// Store an admitted entry, replacing any entry under its key.
    async fn put_admitted(&self, entry: AdmittedEntry) -> Result<(), CacheError>;

    /// Remove `key`; whether an entry was there.
    async fn delete(&self, key: &CacheKey) -> Result<bool, CacheError>;

    /// Remove every entry.
    async fn clear(&self) -> Result<(), CacheError>;
}

/// The write path of every [`SearchCache`]: the login guard, then the
/// backend. Implemented for every cache; it cannot be overridden.
#[async_trait]
pub trait SearchCacheExt: SearchCache {
    /// Store `value` under `key` for `ttl`, unless it is login data
    /// ([`CacheError::LoginPartitionRejected`]).
    async fn put(
        &self,
        key: &CacheKey,
        value: CachedResponse,
        ttl: Duration,
    ) -> Result<(), CacheError> {
        let entry = AdmittedEntry::admit(key.clone(), value, ttl)?;
        self.put_admitted(entry).await
    }
}

impl<C: SearchCache + ?Sized> SearchCacheExt for C {}

#[async_trait]
impl<C: SearchCache + ?Sized> SearchCache for std::sync::Arc<C> {
    fn backend_name(&self) -> &'static str {
        (**self).backend_name()
    }
    async fn get(&self, key: &CacheKey) -> Result<Option<CachedResponse>, CacheError> {
        (**self).get(key).await
    }
    async fn put_admitted(&self, entry: AdmittedEntry) -> Result<(), CacheError> {
        (**self).put_admitted(entry).await
    }
    async fn delete(&self, key: &CacheKey) -> Result<bool, CacheError> {
        (**self).delete(key).await
    }
    async fn clear(&self) -> Result<(), CacheError> {
        (**self).clear().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::Runtime;

    #[test]
    fn the_guard_refuses_every_login_marker() {
        let key = CacheKey::for_request("e", &ferret_core::EngineRequest::new("q"));
        let public = CachedResponse::new(
            "e",
            EngineResponse::empty(Provenance::public(Runtime::Http)),
        );
        assert!(AdmittedEntry::admit(key.clone(), public, Duration::from_secs(1)).is_ok());

        let mut login = CachedResponse::new(
            "e",
            EngineResponse::empty(Provenance::public(Runtime::Http)),
        );
        login.response.provenance = Provenance::login(Runtime::ChromiumManaged);
        let err = AdmittedEntry::admit(key.clone(), login, Duration::from_secs(1)).unwrap_err();
        assert!(
            matches!(err, CacheError::LoginPartitionRejected { .. }),
            "{err}"
        );

        // The user's own browser reads login data; a declared public pool
        // of attached browsers reads public data, which may be cached.
        let user = CachedResponse::new(
            "e",
            EngineResponse::empty(Provenance::login(Runtime::ChromiumAttached)),
        );
        assert!(AdmittedEntry::admit(key.clone(), user, Duration::from_secs(1)).is_err());
        let pool = CachedResponse::new(
            "e",
            EngineResponse::empty(Provenance::public(Runtime::ChromiumAttached)),
        );
        assert!(AdmittedEntry::admit(key.clone(), pool, Duration::from_secs(1)).is_ok());

        let ego = CachedResponse::new(
            "ego_browser_bing",
            EngineResponse::empty(Provenance::public(Runtime::Http)),
        );
        assert!(AdmittedEntry::admit(key, ego, Duration::from_secs(1)).is_err());
    }
}
