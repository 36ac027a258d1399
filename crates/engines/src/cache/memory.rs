//! [`MemoryCache`]: an in-process [`SearchCache`] on moka's future cache,
//! with a TTL per entry and a bounded number of entries.
//!
//! Use it as the L1 of a process (1,000 entries by default) or alone for a single agent. Entries vanish when their
//! TTL ends or when the cache is full and moka evicts the least useful ones.
//! Like every backend it stores only [`AdmittedEntry`]s, so it never holds
//! login data.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use moka::Expiry;
use moka::future::Cache as MokaCache;

use super::{AdmittedEntry, CacheError, CacheKey, CachedResponse, SearchCache};

#[derive(Debug)]
struct Stored {
    value: CachedResponse,
    ttl: Duration,
}

/// Expires each entry after its own TTL.
struct PerEntryTtl;

impl Expiry<CacheKey, Arc<Stored>> for PerEntryTtl {
    fn expire_after_create(
        &self,
        _key: &CacheKey,
        value: &Arc<Stored>,
        _created_at: Instant,
    ) -> Option<Duration> {
        Some(value.ttl)
    }

    fn expire_after_update(
        &self,
        _key: &CacheKey,
        value: &Arc<Stored>,
        _updated_at: Instant,
        _duration_until_expiry: Option<Duration>,
    ) -> Option<Duration> {
        Some(value.ttl)
    }
}

/// An in-memory cache of engine answers (clones share the entries).
#[derive(Clone)]
pub struct MemoryCache {
    entries: MokaCache<CacheKey, Arc<Stored>>,
    capacity: u64,
}

impl std::fmt::Debug for MemoryCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryCache")
            .field("capacity", &self.capacity)
            .field("entries", &self.entries.entry_count())
            .finish()
    }
}

impl MemoryCache {
    /// The default number of entries.
    pub const DEFAULT_CAPACITY: u64 = 1_000;

    /// A cache of [`MemoryCache::DEFAULT_CAPACITY`] entries.
    pub fn new() -> Self {
        MemoryCache::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A cache of at most `capacity` entries.
    pub fn with_capacity(capacity: u64) -> Self {
        MemoryCache {
            entries: MokaCache::builder()
                .max_capacity(capacity)
                .expire_after(PerEntryTtl)
                .build(),
            capacity,
        }
    }

    /// Entries currently held (approximate until pending work has run; see
    /// [`MemoryCache::run_pending_tasks`]).
    pub fn len(&self) -> u64 {
        self.entries.entry_count()
    }

    /// Whether it holds no entries (approximate, like [`MemoryCache::len`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Apply pending evictions and expirations now.
    pub async fn run_pending_tasks(&self) {
        self.entries.run_pending_tasks().await;
    }
}

impl Default for MemoryCache {
    fn default() -> Self {
        MemoryCache::new()
    }
}

#[async_trait]
impl SearchCache for MemoryCache {
    fn backend_name(&self) -> &'static str {
        "memory"
    }

    async fn get(&self, key: &CacheKey) -> Result<Option<CachedResponse>, CacheError> {
        Ok(self.entries.get(key).await.map(|s| s.value.clone()))
    }

    async fn put_admitted(&self, entry: AdmittedEntry) -> Result<(), CacheError> {
        let (key, value, ttl) = entry.into_parts();
        if ttl.is_zero() {
            self.entries.remove(&key).await;
            return Ok(());
        }
        self.entries
            .insert(key, Arc::new(Stored { value, ttl }))
            .await;
        Ok(())
    }

    async fn delete(&self, key: &CacheKey) -> Result<bool, CacheError> {
        Ok(self.entries.remove(key).await.is_some())
    }

    async fn clear(&self) -> Result<(), CacheError> {
        self.entries.invalidate_all();
        self.entries.run_pending_tasks().await;
        Ok(())
    }
}
