//! [`Throttle`]: be polite to one engine — cap results, one call in flight,
//! and a minimum interval between calls (the #24 wrapper's throttle).
//!
//! **When to use it**: around scraped result pages (DuckDuckGo, Bing) and
//! any service that punishes bursts or pagination. For scrapers the default
//! caps `max_results` at 10, which removes the paging bursts that trigger
//! bot detection; the engine's capabilities report the cap.
//!
//! **Where it sits**: inside [`Retry`](super::Retry), so every attempt waits
//! its turn and keeps the interval; outside the per-attempt
//! [`Timeout`](ferret_core::layer::Timeout), so waiting for a turn does not
//! eat into the call's time budget.
//!
//! The interval is measured start to start: at most one call *starts* per
//! `min_interval`. With `serialize` on (the default) the next call also waits
//! for the previous one to finish. A clamped request gets a warning on its
//! response, so the cap is never silent.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::layer::Layer;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest, EngineResponse,
};
use tokio::time::Instant;

/// The throttle's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleConfig {
    /// The most results one call may ask for (`None`: no cap).
    pub max_results: Option<usize>,
    /// Whether calls run one at a time.
    pub serialize: bool,
    /// The least time between the starts of two calls.
    pub min_interval: Duration,
}

impl ThrottleConfig {
    /// The result cap for scraped engines (one result page).
    pub const SCRAPER_MAX_RESULTS: usize = 10;

    /// The default for an engine with `capabilities`: a cap of 10 for
    /// scrapers (none otherwise), serialized calls, no interval.
    pub fn for_capabilities(capabilities: &EngineCapabilities) -> Self {
        ThrottleConfig {
            max_results: capabilities
                .is(EngineKind::Scraper)
                .then_some(Self::SCRAPER_MAX_RESULTS),
            serialize: true,
            min_interval: Duration::ZERO,
        }
    }
}

#[derive(Debug)]
struct Gate {
    /// Held for a whole call when serializing.
    turn: tokio::sync::Mutex<()>,
    /// When the next call may start.
    next_start: std::sync::Mutex<Option<Instant>>,
}

/// An engine whose calls are capped, serialized and spaced (see the module
/// docs). Clones share the same gate.
#[derive(Debug, Clone)]
pub struct Throttle<E> {
    inner: E,
    config: ThrottleConfig,
    gate: Arc<Gate>,
}

impl<E: Engine> Throttle<E> {
    /// Throttle `inner` with the default for its capabilities.
    pub fn new(inner: E) -> Self {
        let config = ThrottleConfig::for_capabilities(&inner.capabilities());
        Throttle::with_config(inner, config)
    }

    /// Throttle `inner` with `config`.
    pub fn with_config(inner: E, config: ThrottleConfig) -> Self {
        Throttle {
            inner,
            config: ThrottleConfig {
                max_results: config.max_results.map(|n| n.max(1)),
                ..config
            },
            gate: Arc::new(Gate {
                turn: tokio::sync::Mutex::new(()),
                next_start: std::sync::Mutex::new(None),
            }),
        }
    }

    /// The settings in force.
    pub fn config(&self) -> &ThrottleConfig {
        &self.config
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// Reserve the next start slot and wait for it.
    async fn wait_for_slot(&self) {
        if self.config.min_interval.is_zero() {
            return;
        }
        let start = {
            let mut next = self
                .gate
                .next_start
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let start = next.map_or(now, |n| n.max(now));
            *next = Some(start + self.config.min_interval);
            start
        };
        tokio::time::sleep_until(start).await;
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine> Engine for Throttle<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        let mut caps = self.inner.capabilities();
        if let Some(cap) = self.config.max_results {
            caps.max_results = caps.max_results.min(cap);
        }
        caps
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let clamped = self
            .config
            .max_results
            .filter(|&cap| request.max_results > cap);
        let capped;
        let request = match clamped {
            Some(cap) => {
                capped = request.clone().with_max_results(cap);
                &capped
            }
            None => request,
        };
        let _turn = if self.config.serialize {
            Some(self.gate.turn.lock().await)
        } else {
            None
        };
        self.wait_for_slot().await;
        let mut response = self.inner.search(request).await?;
        if let Some(cap) = clamped {
            response.warnings.push(format!(
                "{}: max_results capped at {cap} by the throttle",
                self.inner.name()
            ));
        }
        Ok(response)
    }
}

/// A [`Layer`] that builds [`Throttle`] engines, each with its own gate.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThrottleLayer {
    config: Option<ThrottleConfig>,
}

impl ThrottleLayer {
    /// Per-engine defaults ([`ThrottleConfig::for_capabilities`]).
    pub fn new() -> Self {
        ThrottleLayer::default()
    }

    /// The same `config` for every engine.
    pub fn with_config(config: ThrottleConfig) -> Self {
        ThrottleLayer {
            config: Some(config),
        }
    }
}

impl<E: Engine> Layer<E> for ThrottleLayer {
    type Engine = Throttle<E>;

    fn layer(&self, inner: E) -> Throttle<E> {
        match self.config {
            Some(config) => Throttle::with_config(inner, config),
            None => Throttle::new(inner),
        }
    }
}
