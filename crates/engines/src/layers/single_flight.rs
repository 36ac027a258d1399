//! [`SingleFlight`]: identical concurrent requests share one call.
//!
//! **When to use it**: when several sub-queries, agents or tasks of one
//! process may ask the same engine the same thing at the same moment (a plan
//! that repeats a query, a retried search, many agents behind one server).
//! Only one call goes down the stack; every caller gets a clone of its
//! outcome — an error is shared too.
//!
//! **Where it sits**: just inside [`Cache`](super::Cache) (concurrent
//! misses collapse into one call) and outside
//! [`CircuitBreaker`](super::CircuitBreaker), so the breaker counts the
//! shared call once.
//!
//! "Identical" means an equal [`EngineRequest`] (every field). The shared
//! call is driven by whichever caller is polling it, so a cancelled first
//! caller does not strand the others; when every caller has gone, the call
//! is dropped (cancelled) and the next identical request starts afresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use ferret_core::layer::Layer;
use ferret_core::{Engine, EngineCapabilities, EngineError, EngineRequest, EngineResponse};
use futures::FutureExt;
use futures::future::{BoxFuture, Shared, WeakShared};

type Outcome = Result<EngineResponse, EngineError>;
/// The shared output is an `Arc`, so waiters clone a pointer; the last one
/// out takes the outcome without copying it.
type Flight = Shared<BoxFuture<'static, Arc<Outcome>>>;

/// The in-flight table. Finished flights are removed by their callers;
/// flights every caller abandoned are swept when the table has doubled
/// since the last sweep (amortised O(1) per call).
#[derive(Debug, Default)]
struct Flights {
    map: HashMap<EngineRequest, WeakShared<BoxFuture<'static, Arc<Outcome>>>>,
    sweep_at: usize,
}

const MIN_SWEEP: usize = 64;

/// An engine that coalesces identical concurrent requests. Clones share the
/// in-flight table.
#[derive(Debug)]
pub struct SingleFlight<E> {
    inner: Arc<E>,
    flights: Arc<Mutex<Flights>>,
}

impl<E> Clone for SingleFlight<E> {
    fn clone(&self) -> Self {
        SingleFlight {
            inner: self.inner.clone(),
            flights: self.flights.clone(),
        }
    }
}

impl<E: Engine + 'static> SingleFlight<E> {
    /// Wrap `inner`.
    pub fn new(inner: E) -> Self {
        SingleFlight {
            inner: Arc::new(inner),
            flights: Arc::new(Mutex::new(Flights::default())),
        }
    }

    /// Requests with a call in flight right now.
    pub fn in_flight(&self) -> usize {
        let flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        flights
            .map
            .values()
            .filter(|w| w.upgrade().is_some())
            .count()
    }

    /// The wrapped engine.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// Join the flight for `request`, starting one if none is alive.
    fn join(&self, request: &EngineRequest) -> Flight {
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(flight) = flights.map.get(request).and_then(WeakShared::upgrade) {
            return flight;
        }
        if flights.map.len() >= flights.sweep_at.max(MIN_SWEEP) {
            flights.map.retain(|_, w| w.upgrade().is_some());
            flights.sweep_at = flights.map.len() * 2;
        }
        let inner = self.inner.clone();
        let owned = request.clone();
        let flight: Flight = async move { Arc::new(inner.search(&owned).await) }
            .boxed()
            .shared();
        if let Some(weak) = flight.downgrade() {
            flights.map.insert(request.clone(), weak);
        }
        flight
    }

    /// Forget `flight` once it has finished, unless a newer one replaced it.
    fn land(&self, request: &EngineRequest, flight: &Flight) {
        let mut flights = self.flights.lock().unwrap_or_else(|p| p.into_inner());
        let same = flights
            .map
            .get(request)
            .and_then(WeakShared::upgrade)
            .is_some_and(|current| current.ptr_eq(flight));
        if same {
            flights.map.remove(request);
        }
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<E: Engine + 'static> Engine for SingleFlight<E> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> EngineCapabilities {
        self.inner.capabilities()
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let flight = self.join(request);
        let outcome = flight.clone().await;
        self.land(request, &flight);
        drop(flight);
        Arc::try_unwrap(outcome).unwrap_or_else(|shared| (*shared).clone())
    }
}

/// A [`Layer`] that builds [`SingleFlight`] engines.
#[derive(Debug, Clone, Copy, Default)]
pub struct SingleFlightLayer;

impl SingleFlightLayer {
    /// The layer.
    pub fn new() -> Self {
        SingleFlightLayer
    }
}

impl<E: Engine + 'static> Layer<E> for SingleFlightLayer {
    type Engine = SingleFlight<E>;

    fn layer(&self, inner: E) -> SingleFlight<E> {
        SingleFlight::new(inner)
    }
}
