//! [`RedisCache`]: a [`SearchCache`] shared by every agent that can reach
//! one Redis server (feature `redis`; the CLI reads the server's URL from
//! `FERRET_REDIS_URL`).
//!
//! - Each entry is one string key, `<namespace>:cache:<cache key>`
//!   (namespace `ferret` by default), holding the JSON of the
//!   [`CachedResponse`], gzip-compressed above 1 KiB.
//! - Expiry is Redis's own: the entry is written with `SET … PX <ttl>`.
//! - [`SearchCache::clear`] removes only this namespace's cache keys (a
//!   `SCAN` + `UNLINK` loop), never the rest of the database.
//! - A slow or unreachable server is a [`CacheError::Backend`] after at most
//!   about a second per command; the [`Cache`](crate::layers::Cache) layer
//!   then calls the engine, so a cache failure never fails a search.
//!
//! Like every backend it stores only [`AdmittedEntry`]s, so it never holds
//! login data.

use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use async_trait::async_trait;

use super::payload::{self, COMPRESS_ABOVE};
use super::{AdmittedEntry, CacheError, CacheKey, CachedResponse, SearchCache};

const BACKEND: &str = "redis";

/// Keys unlinked per `SCAN` round of [`SearchCache::clear`].
const SCAN_BATCH: usize = 500;

fn backend(e: ::redis::RedisError) -> CacheError {
    CacheError::Backend {
        backend: BACKEND,
        message: e.to_string(),
    }
}

/// A cache of engine answers in Redis (clones share the connection).
#[derive(Clone)]
pub struct RedisCache {
    conn: ConnectionManager,
    namespace: String,
    compress_above: usize,
}

impl std::fmt::Debug for RedisCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCache")
            .field("namespace", &self.namespace)
            .field("compress_above", &self.compress_above)
            .finish_non_exhaustive()
    }
}

impl RedisCache {
    /// The default key namespace.
    pub const DEFAULT_NAMESPACE: &'static str = "ferret";

    /// Connect to the Redis server at `url` (`redis://host:port/db`).
    ///
    /// Connecting gives up after about two seconds and every command after
    /// one second: a slow cache must not hold up searches.
    pub async fn connect(url: &str) -> Result<Self, CacheError> {
        let client = ::redis::Client::open(url).map_err(|e| CacheError::Backend {
            backend: BACKEND,
            message: format!("invalid Redis URL {url:?}: {e}; expected redis://host:port/db"),
        })?;
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(400))
            .set_connection_timeout(Some(Duration::from_millis(500)))
            .set_response_timeout(Some(Duration::from_secs(1)));
        let conn = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|e| CacheError::Backend {
                backend: BACKEND,
                message: format!(
                    "cannot connect to {url}: {e}; is redis-server running there? (searches \
                     still work without a cache)"
                ),
            })?;
        Ok(RedisCache::from_manager(conn))
    }

    /// Use an existing connection manager.
    pub fn from_manager(conn: ConnectionManager) -> Self {
        RedisCache {
            conn,
            namespace: Self::DEFAULT_NAMESPACE.to_string(),
            compress_above: COMPRESS_ABOVE,
        }
    }

    /// Put keys under `namespace` instead of `ferret` (separate fleets or
    /// tests on one server).
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// Gzip payloads longer than `bytes` (default 1024).
    pub fn with_compress_above(mut self, bytes: usize) -> Self {
        self.compress_above = bytes;
        self
    }

    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The Redis key holding the entry for `key`.
    pub fn redis_key(&self, key: &CacheKey) -> String {
        format!("{}:cache:{key}", self.namespace)
    }

    /// The `SCAN MATCH` pattern of this namespace's cache keys.
    fn pattern(&self) -> String {
        let mut p = String::with_capacity(self.namespace.len() + 8);
        for c in self.namespace.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                p.push('\\');
            }
            p.push(c);
        }
        p.push_str(":cache:*");
        p
    }
}

#[async_trait]
impl SearchCache for RedisCache {
    fn backend_name(&self) -> &'static str {
        BACKEND
    }

    async fn get(&self, key: &CacheKey) -> Result<Option<CachedResponse>, CacheError> {
        let mut conn = self.conn.clone();
        let rkey = self.redis_key(key);
        let bytes: Option<Vec<u8>> = ::redis::cmd("GET")
            .arg(&rkey)
            .query_async(&mut conn)
            .await
            .map_err(backend)?;
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        match payload::decode(&bytes) {
            Ok(value) => Ok(Some(value)),
            Err(message) => {
                ::redis::cmd("DEL")
                    .arg(&rkey)
                    .query_async::<i64>(&mut conn)
                    .await
                    .map_err(backend)?;
                Err(CacheError::Corrupt {
                    backend: BACKEND,
                    key: rkey,
                    message: format!("{message} (the entry was deleted)"),
                })
            }
        }
    }

    async fn put_admitted(&self, entry: AdmittedEntry) -> Result<(), CacheError> {
        let (key, value, ttl) = entry.into_parts();
        let mut conn = self.conn.clone();
        let rkey = self.redis_key(&key);
        if ttl.is_zero() {
            ::redis::cmd("DEL")
                .arg(&rkey)
                .query_async::<i64>(&mut conn)
                .await
                .map_err(backend)?;
            return Ok(());
        }
        let encoded = payload::encode(&value, self.compress_above).map_err(|message| {
            CacheError::Backend {
                backend: BACKEND,
                message,
            }
        })?;
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        ::redis::cmd("SET")
            .arg(&rkey)
            .arg(encoded.bytes)
            .arg("PX")
            .arg(ttl_ms)
            .query_async::<()>(&mut conn)
            .await
            .map_err(backend)
    }

    async fn delete(&self, key: &CacheKey) -> Result<bool, CacheError> {
        let mut conn = self.conn.clone();
        let removed: i64 = ::redis::cmd("DEL")
            .arg(self.redis_key(key))
            .query_async(&mut conn)
            .await
            .map_err(backend)?;
        Ok(removed > 0)
    }

    async fn clear(&self) -> Result<(), CacheError> {
        let mut conn = self.conn.clone();
        let pattern = self.pattern();
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
                .map_err(backend)?;
            if !keys.is_empty() {
                ::redis::cmd("UNLINK")
                    .arg(&keys)
                    .query_async::<i64>(&mut conn)
                    .await
                    .map_err(backend)?;
            }
            if next == 0 {
                return Ok(());
            }
            cursor = next;
        }
    }
}
