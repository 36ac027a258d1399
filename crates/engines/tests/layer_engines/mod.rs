//! Small in-process engines the layer tests share: one whose outcome can be
//! switched while it runs, and one that records when calls start and how
//! many are in flight.

#![allow(dead_code)]

use ferret_core::Provenance;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::{
    Engine, EngineCapabilities, EngineError, EngineHit, EngineKind, EngineRequest, EngineResponse,
    Runtime,
};
use tokio::time::Instant;

/// An engine that answers after `delay` with either hits or the error set
/// by [`Switch::fail_with`]; it counts calls, records start times and the
/// peak number of calls in flight. Clones share everything.
#[derive(Debug, Clone)]
pub struct Switch {
    name: String,
    kinds: Vec<EngineKind>,
    max_results: usize,
    delay: Duration,
    error: Arc<Mutex<Option<EngineError>>>,
    calls: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    starts: Arc<Mutex<Vec<Instant>>>,
}

impl Switch {
    pub fn new(name: &str) -> Self {
        Switch {
            name: name.to_string(),
            kinds: vec![EngineKind::Web],
            max_results: 10,
            delay: Duration::ZERO,
            error: Arc::new(Mutex::new(None)),
            calls: Arc::new(AtomicUsize::new(0)),
            in_flight: Arc::new(AtomicUsize::new(0)),
            peak: Arc::new(AtomicUsize::new(0)),
            starts: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn kind(mut self, kind: EngineKind, max_results: usize) -> Self {
        self.kinds = vec![kind];
        self.max_results = max_results;
        self
    }

    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn fail_with(&self, error: EngineError) {
        *self.error.lock().unwrap() = Some(error);
    }

    pub fn succeed(&self) {
        *self.error.lock().unwrap() = None;
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    pub fn starts(&self) -> Vec<Instant> {
        self.starts.lock().unwrap().clone()
    }
}

struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait]
impl Engine for Switch {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            kinds: self.kinds.clone(),
            max_results: self.max_results,
            ..EngineCapabilities::new(EngineKind::Web)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.starts.lock().unwrap().push(Instant::now());
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        let _guard = InFlight(&self.in_flight);
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        if let Some(e) = self.error.lock().unwrap().clone() {
            return Err(e);
        }
        let n = request.max_results.min(30);
        let hits = (1..=n)
            .map(|i| {
                EngineHit::new(
                    i as u32,
                    format!("https://{}.example/{i}", self.name),
                    format!("{} {i}", request.query),
                    "snippet",
                )
            })
            .collect();
        Ok(EngineResponse::new(Provenance::public(Runtime::Http), hits))
    }
}

pub fn bot() -> EngineError {
    EngineError::BotDetected {
        message: "anomaly page".into(),
    }
}

pub fn captcha() -> EngineError {
    EngineError::Captcha {
        message: "captcha form".into(),
    }
}

pub fn rate_limited(retry_after: Option<Duration>) -> EngineError {
    EngineError::RateLimited {
        retry_after,
        message: "429".into(),
    }
}

pub fn denied() -> EngineError {
    EngineError::AccessDenied {
        message: "403".into(),
    }
}
