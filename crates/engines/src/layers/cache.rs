//! [`Cache`]: answer repeated requests from a [`SearchCache`].
//!
//! **When to use it**: in front of any paid, slow or bot-sensitive engine,
//! and everywhere agents repeat themselves. Read-through: a live entry is
//! returned without calling the engine. Write-through: a successful answer is
//! stored for the TTL its [`TtlPolicy`] chooses (by freshness tier).
//!
//! **Where it sits**: outermost, so a hit skips every other layer; put
//! [`SingleFlight`](super::SingleFlight) right inside it so concurrent misses
//! share one call.
//!
//! **Never cached**: errors (a failure is retried next time), invalid
//! requests, and login-partition answers. A login answer is passed through to
//! the caller untouched, but the cache's guard refuses it: the refusal is
//! logged (`tracing` warning) and counted ([`CacheStats::login_refusals`]).
//! An entry that reads back as login data (written by something else) is
//! deleted and treated as a miss. A failing cache backend never fails a
//! search: it is logged, counted, and the engine is called.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use ferret_core::layer::Layer;
use ferret_core::{Engine, EngineCapabilities, EngineError, EngineRequest, EngineResponse};

use crate::cache::{CacheError, CacheKey, CachedResponse, SearchCache, SearchCacheExt, TtlPolicy};

/// Counters of one [`Cache`] layer (clones share them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Requests answered from the cache.
    pub hits: u64,
    /// Requests that went to the engine.
    pub misses: u64,
    /// Answers written to the cache.
    pub stores: u64,
    /// Login answers the guard refused (passed through, not stored), plus
    /// login entries found on read and deleted.
    pub login_refusals: u64,
    /// Backend failures (logged; the search went on).
    pub backend_errors: u64,
}

#[derive(Debug, Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    stores: AtomicU64,
    login_refusals: AtomicU64,
    backend_errors: AtomicU64,
}

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// An engine behind a read-through / write-through cache.
#[derive(Debug, Clone)]
pub struct Cache<E> {
    inner: E,
    cache: Arc<dyn SearchCache>,
    policy: Arc<TtlPolicy>,
    counters: Arc<Counters>,
}

impl<E: Engine> Cache<E> {
    /// Cache `inner`'s answers in `cache` with the default TTL tiers.
    pub fn new(inner: E, cache: Arc<dyn SearchCache>) -> Self {
        Cache {
            inner,
            cache,
            policy: Arc::new(TtlPolicy::default()),
            counters: Arc::new(Counters::default()),
        }
    }

    /// Choose TTLs with `policy`.
    pub fn with_policy(mut self, policy: TtlPolicy) -> Self {
        self.policy = Arc::new(policy);
        self
    }

    /// The counters so far.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        CacheStats {
            hits: c.hits.load(Ordering::Relaxed),
            misses: c.misses.load(Ordering::Relaxed),
            stores: c.stores.load(Ordering::Relaxed),
            login_refusals: c.login_refusals.load(Ordering::Relaxed),
            backend_errors: c.backend_errors.load(Ordering::Relaxed),
        }
    }

    /// The backend.
    pub fn cache(&self) -> &Arc<dyn SearchCache> {
        &self.cache
    }

    /// The key this layer uses for `request`.
    pub fn key_for(&self, request: &EngineRequest) -> CacheKey {
        CacheKey::for_request(self.inner.name(), request)
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    async fn lookup(&self, key: &CacheKey) -> Option<EngineResponse> {
        match self.cache.get(key).await {
            Ok(Some(entry)) => {
                if let Some(reason) = entry.login_marker() {
                    bump(&self.counters.login_refusals);
                    tracing::warn!(engine = self.inner.name(), %key, %reason, "cache held login data; deleting it");
                    if let Err(e) = self.cache.delete(key).await {
                        bump(&self.counters.backend_errors);
                        tracing::warn!(engine = self.inner.name(), error = %e, "cache delete failed");
                    }
                    return None;
                }
                Some(entry.response)
            }
            Ok(None) => None,
            Err(e) => {
                bump(&self.counters.backend_errors);
                tracing::warn!(engine = self.inner.name(), error = %e, "cache read failed; calling the engine");
                None
            }
        }
    }

    async fn store(&self, key: &CacheKey, request: &EngineRequest, response: &EngineResponse) {
        let ttl = self.policy.ttl(request, response);
        let value = CachedResponse::new(self.inner.name(), response.clone());
        match self.cache.put(key, value, ttl).await {
            Ok(()) => bump(&self.counters.stores),
            Err(CacheError::LoginPartitionRejected { reason, .. }) => {
                bump(&self.counters.login_refusals);
                tracing::warn!(engine = self.inner.name(), %key, %reason, "login answer passed through but not cached");
            }
            Err(e) => {
                bump(&self.counters.backend_errors);
                tracing::warn!(engine = self.inner.name(), error = %e, "cache write failed");
            }
        }
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine> Engine for Cache<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let key = self.key_for(request);
        if let Some(hit) = self.lookup(&key).await {
            bump(&self.counters.hits);
            return Ok(hit);
        }
        bump(&self.counters.misses);
        let response = self.inner.search(request).await?;
        self.store(&key, request, &response).await;
        Ok(response)
    }
}

/// A [`Layer`] that builds [`Cache`] engines sharing one backend and policy.
#[derive(Debug, Clone)]
pub struct CacheLayer {
    cache: Arc<dyn SearchCache>,
    policy: TtlPolicy,
}

impl CacheLayer {
    /// Cache in `cache` with the default TTL tiers.
    pub fn new(cache: Arc<dyn SearchCache>) -> Self {
        CacheLayer {
            cache,
            policy: TtlPolicy::default(),
        }
    }

    /// Choose TTLs with `policy`.
    pub fn with_policy(mut self, policy: TtlPolicy) -> Self {
        self.policy = policy;
        self
    }
}

impl<E: Engine> Layer<E> for CacheLayer {
    type Engine = Cache<E>;

    fn layer(&self, inner: E) -> Cache<E> {
        Cache::new(inner, self.cache.clone()).with_policy(self.policy.clone())
    }
}
