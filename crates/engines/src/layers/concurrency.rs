//! [`ConcurrencyLimit`]: at most N calls of an engine in flight.
//!
//! **When to use it**: when a service allows a few parallel requests (an API
//! plan's concurrency, a local index's worker pool) but not an unbounded
//! burst, or to share one limit between several engines that hit the same
//! backend ([`ConcurrencyLimitLayer::shared`]).
//!
//! **Where it sits**: like [`Throttle`](super::Throttle), inside
//! [`Retry`](super::Retry) and outside the per-attempt timeout. The permit
//! is held for the *whole* call, from the moment it is acquired until the
//! inner engine has answered (or the call is dropped), so a long call keeps
//! counting against the limit — the `object_store` `LimitStore` rule.

use std::sync::Arc;

use async_trait::async_trait;
use ferret_core::layer::Layer;
use ferret_core::{Engine, EngineCapabilities, EngineError, EngineRequest, EngineResponse};
use tokio::sync::Semaphore;

/// An engine with a bound on calls in flight. Clones share the bound.
#[derive(Debug, Clone)]
pub struct ConcurrencyLimit<E> {
    inner: E,
    semaphore: Arc<Semaphore>,
}

impl<E: Engine> ConcurrencyLimit<E> {
    /// At most `limit` (at least 1) calls of `inner` at once.
    pub fn new(inner: E, limit: usize) -> Self {
        ConcurrencyLimit::with_semaphore(inner, Arc::new(Semaphore::new(limit.max(1))))
    }

    /// Share `semaphore` with other engines.
    pub fn with_semaphore(inner: E, semaphore: Arc<Semaphore>) -> Self {
        ConcurrencyLimit { inner, semaphore }
    }

    /// Permits free right now.
    pub fn available_permits(&self) -> usize {
        self.semaphore.available_permits()
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine> Engine for ConcurrencyLimit<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        // The semaphore is never closed, so acquiring only fails if someone
        // closed a shared one: report it instead of panicking.
        let _permit = self
            .semaphore
            .acquire()
            .await
            .map_err(|_| EngineError::Transport {
                message: format!("{}: the concurrency limit was closed", self.inner.name()),
                temporary: false,
            })?;
        self.inner.search(request).await
    }
}

/// A [`Layer`] that builds [`ConcurrencyLimit`] engines: each with its own
/// limit ([`ConcurrencyLimitLayer::new`]) or all sharing one
/// ([`ConcurrencyLimitLayer::shared`]).
#[derive(Debug, Clone)]
pub struct ConcurrencyLimitLayer {
    limit: usize,
    shared: Option<Arc<Semaphore>>,
}

impl ConcurrencyLimitLayer {
    /// A separate limit of `limit` calls for each wrapped engine.
    pub fn new(limit: usize) -> Self {
        ConcurrencyLimitLayer {
            limit: limit.max(1),
            shared: None,
        }
    }

    /// One limit of `limit` calls shared by every wrapped engine.
    pub fn shared(limit: usize) -> Self {
        ConcurrencyLimitLayer {
            limit: limit.max(1),
            shared: Some(Arc::new(Semaphore::new(limit.max(1)))),
        }
    }
}

impl<E: Engine> Layer<E> for ConcurrencyLimitLayer {
    type Engine = ConcurrencyLimit<E>;

    fn layer(&self, inner: E) -> ConcurrencyLimit<E> {
        match &self.shared {
            Some(s) => ConcurrencyLimit::with_semaphore(inner, s.clone()),
            None => ConcurrencyLimit::new(inner, self.limit),
        }
    }
}
