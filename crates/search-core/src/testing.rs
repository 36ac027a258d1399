//! Small in-process engines with known behaviour, for tests, benches, demos
//! and the conformance suite: [`StaticEngine`] (fixed hits), [`SlowEngine`]
//! (answers after a delay, or never), [`FailingEngine`] (always one error),
//! [`FlakyEngine`] (fails a number of times, then succeeds) and
//! [`CountingEngine`] (counts calls to an inner engine).
//!
//! They do no I/O, so any test of fanout, fusion or layers can use them.

use crate::provenance::{Provenance, Runtime};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use crate::engine::{
    Engine, EngineCapabilities, EngineHit, EngineKind, EngineRequest, EngineResponse,
};
use crate::error::EngineError;

/// Returns the same hits for every query (up to `max_results`).
///
/// With [`StaticEngine::new`] the hits are `https://<name>.example/r/<i>`
/// with titles and snippets that contain the query.
#[derive(Debug, Clone)]
pub struct StaticEngine {
    name: String,
    hits: Option<Vec<EngineHit>>,
    count: usize,
    capabilities: EngineCapabilities,
    delay: Option<Duration>,
}

impl StaticEngine {
    /// An engine named `name` returning `count` generated hits.
    pub fn new(name: impl Into<String>, count: usize) -> Self {
        StaticEngine {
            name: name.into(),
            hits: None,
            count,
            capabilities: EngineCapabilities::new(EngineKind::Web),
            delay: None,
        }
    }

    /// An engine returning exactly `hits` (ranks as given).
    pub fn with_hits(name: impl Into<String>, hits: Vec<EngineHit>) -> Self {
        let count = hits.len();
        StaticEngine {
            name: name.into(),
            hits: Some(hits),
            count,
            capabilities: EngineCapabilities::new(EngineKind::Web),
            delay: None,
        }
    }

    /// Replace the capabilities.
    pub fn with_capabilities(mut self, capabilities: EngineCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Answer after `delay` (tokio time, so paused-clock tests are instant).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }
}

#[async_trait]
impl Engine for StaticEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.capabilities.clone()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        if let Some(d) = self.delay {
            tokio::time::sleep(d).await;
        }
        let hits: Vec<EngineHit> = match &self.hits {
            Some(hits) => hits.iter().take(request.max_results).cloned().collect(),
            None => (1..=self.count.min(request.max_results))
                .map(|i| {
                    EngineHit::new(
                        i as u32,
                        format!("https://{}.example/r/{i}", self.name),
                        format!("{} result {i} for {}", self.name, request.query),
                        format!("Snippet {i} about {}", request.query),
                    )
                })
                .collect(),
        };
        Ok(EngineResponse::new(Provenance::public(Runtime::Http), hits))
    }
}

/// Answers with one hit after `delay`; with [`Duration::MAX`] it never answers.
#[derive(Debug, Clone)]
pub struct SlowEngine {
    name: String,
    delay: Duration,
}

impl SlowEngine {
    /// An engine that sleeps `delay` before answering.
    pub fn new(name: impl Into<String>, delay: Duration) -> Self {
        SlowEngine {
            name: name.into(),
            delay,
        }
    }

    /// An engine that never answers.
    pub fn hanging(name: impl Into<String>) -> Self {
        SlowEngine::new(name, Duration::MAX)
    }
}

#[async_trait]
impl Engine for SlowEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        if self.delay == Duration::MAX {
            std::future::pending::<()>().await;
        }
        tokio::time::sleep(self.delay).await;
        Ok(EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![EngineHit::new(
                1,
                format!("https://{}.example/slow", self.name),
                format!("slow answer for {}", request.query),
                String::new(),
            )],
        ))
    }
}

/// Fails every valid request with a clone of one error.
#[derive(Debug, Clone)]
pub struct FailingEngine {
    name: String,
    error: EngineError,
}

impl FailingEngine {
    /// An engine that always fails with `error`.
    pub fn new(name: impl Into<String>, error: EngineError) -> Self {
        FailingEngine {
            name: name.into(),
            error,
        }
    }
}

#[async_trait]
impl Engine for FailingEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        Err(self.error.clone())
    }
}

/// Fails its first `failures` calls with `error`, then delegates to a
/// [`StaticEngine`] with the same name.
#[derive(Debug, Clone)]
pub struct FlakyEngine {
    inner: StaticEngine,
    error: EngineError,
    failures: usize,
    calls: Arc<AtomicUsize>,
}

impl FlakyEngine {
    /// An engine that fails `failures` times with `error` and then returns
    /// `hits` generated hits.
    pub fn new(name: impl Into<String>, failures: usize, error: EngineError, hits: usize) -> Self {
        FlakyEngine {
            inner: StaticEngine::new(name, hits),
            error,
            failures,
            calls: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// How many valid calls it has received.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Engine for FlakyEngine {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        if n < self.failures {
            return Err(self.error.clone());
        }
        self.inner.search(request).await
    }
}

/// Counts the calls that reach an inner engine (clones share the count).
#[derive(Debug, Clone)]
pub struct CountingEngine<E> {
    inner: E,
    calls: Arc<AtomicUsize>,
}

impl<E: Engine> CountingEngine<E> {
    /// Wrap `inner`.
    pub fn new(inner: E) -> Self {
        CountingEngine {
            inner,
            calls: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Calls received so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl<E: Engine> Engine for CountingEngine<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.search(request).await
    }
}
