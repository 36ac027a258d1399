//! [`Timeout`]: bound every call of an engine by a duration.
//!
//! Use it innermost to bound each attempt, or outside a retry layer to bound
//! the whole retried call. An expired call is [`EngineError::Timeout`], which
//! is temporary. Dropping the inner future cancels the engine's work.

use std::time::Duration;

use async_trait::async_trait;

use crate::engine::{Engine, EngineCapabilities, EngineRequest, EngineResponse};
use crate::error::EngineError;

use super::Layer;

/// An engine whose calls fail with [`EngineError::Timeout`] after `duration`.
#[derive(Debug, Clone)]
pub struct Timeout<E> {
    inner: E,
    duration: Duration,
}

impl<E: Engine> Timeout<E> {
    /// Wrap `inner` with a per-call time budget.
    pub fn new(inner: E, duration: Duration) -> Self {
        Timeout { inner, duration }
    }

    /// The per-call budget.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }
}

#[async_trait]
impl<E: Engine> Engine for Timeout<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        match tokio::time::timeout(self.duration, self.inner.search(request)).await {
            Ok(result) => result,
            Err(_) => Err(EngineError::Timeout {
                after: self.duration,
            }),
        }
    }
}

/// A [`Layer`] that builds [`Timeout`] engines.
#[derive(Debug, Clone, Copy)]
pub struct TimeoutLayer {
    duration: Duration,
}

impl TimeoutLayer {
    /// A layer bounding each call by `duration`.
    pub fn new(duration: Duration) -> Self {
        TimeoutLayer { duration }
    }
}

impl<E: Engine> Layer<E> for TimeoutLayer {
    type Engine = Timeout<E>;
    fn layer(&self, inner: E) -> Timeout<E> {
        Timeout::new(inner, self.duration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::layer::EngineExt;
    use crate::testing::{SlowEngine, StaticEngine};

    #[tokio::test]
    async fn fast_engine_passes_through() {
        let e = StaticEngine::new("s", 3).layer(TimeoutLayer::new(Duration::from_secs(1)));
        let r = e.search(&EngineRequest::new("q")).await.unwrap();
        assert_eq!(r.hits.len(), 3);
        assert_eq!(e.name(), "s");
    }

    #[tokio::test(start_paused = true)]
    async fn slow_engine_times_out_with_typed_error() {
        let e = SlowEngine::new("slow", Duration::from_secs(60))
            .layer(TimeoutLayer::new(Duration::from_millis(50)));
        let err = e.search(&EngineRequest::new("q")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout);
        assert!(err.is_temporary());
    }
}
