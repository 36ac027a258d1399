//! [`Ferret`] and its [`FerretBuilder`]: engines behind their default layer
//! stacks, a cache, timeouts, a planner — one object an agent keeps.

use std::sync::Arc;
use std::time::Duration;

use ferret_core::fanout::Fanout;
use ferret_core::plan::{Plan, Planner};
use ferret_core::response::{DroppedRow, EngineCall};
use ferret_core::search::{SearchOptions, Searcher};
use ferret_core::{DynEngine, Engine, EngineKind, SearchResponse};
use ferret_engines::cache::SearchCache;
use ferret_engines::layers::{
    BreakerStore, Cache, CircuitBreaker, MemoryBreakerStore, Retry, SingleFlight, Throttle,
};

use crate::error::FerretError;

/// How an engine added to the builder is wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stack {
    /// The default stack for the engine's kind (see [`FerretBuilder::engine`]).
    Default,
    /// No layers: the engine is used as given.
    Bare,
}

/// Builds a [`Ferret`].
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use ferret::Ferret;
/// use ferret::core::search::SearchOptions;
/// use ferret::core::testing::StaticEngine;
///
/// let ferret = Ferret::builder()
///     .engine(StaticEngine::new("brave", 5))
///     .engine(StaticEngine::new("wikipedia", 3))
///     .build()
///     .unwrap();
/// let response = ferret.search("rust async runtime", &SearchOptions::new()).await.unwrap();
/// assert_eq!(response.schema, "ferret.search.v1");
/// # });
/// ```
#[derive(Default)]
pub struct FerretBuilder {
    engines: Vec<(DynEngine, Stack)>,
    cache: Option<Arc<dyn SearchCache>>,
    breaker_store: Option<Arc<dyn BreakerStore>>,
    planner: Option<Arc<dyn Planner>>,
    timeout: Option<Duration>,
    llm_timeout: Option<Duration>,
    deadline: Option<Duration>,
    concurrency: Option<usize>,
    notes: Vec<String>,
}

impl std::fmt::Debug for FerretBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FerretBuilder")
            .field(
                "engines",
                &self
                    .engines
                    .iter()
                    .map(|(e, _)| e.name())
                    .collect::<Vec<_>>(),
            )
            .field("cache", &self.cache.is_some())
            .field("timeout", &self.timeout)
            .field("deadline", &self.deadline)
            .finish()
    }
}

impl FerretBuilder {
    /// Add an engine behind the default layer stack for its kind, outermost
    /// first:
    ///
    /// - network engines: `Cache` (when a cache is set) → `SingleFlight` →
    ///   `CircuitBreaker` → `Retry` → engine;
    /// - scraped result pages (kind `scraper`) also get `Throttle` (10
    ///   results, one call in flight, a minimum interval) under `Retry`;
    /// - `local` and `external` engines (an index on this machine, the
    ///   caller's rows) are used as they are.
    ///
    /// The fanout bounds every call by the engine's timeout.
    pub fn engine(mut self, engine: impl Engine + 'static) -> Self {
        self.engines.push((Arc::new(engine), Stack::Default));
        self
    }

    /// Add a shared engine behind the default stack.
    pub fn dyn_engine(mut self, engine: DynEngine) -> Self {
        self.engines.push((engine, Stack::Default));
        self
    }

    /// Add an engine with no layers at all.
    pub fn bare_engine(mut self, engine: impl Engine + 'static) -> Self {
        self.engines.push((Arc::new(engine), Stack::Bare));
        self
    }

    /// Add several shared engines behind the default stack.
    pub fn engines(mut self, engines: impl IntoIterator<Item = DynEngine>) -> Self {
        self.engines
            .extend(engines.into_iter().map(|e| (e, Stack::Default)));
        self
    }

    /// Cache network engines' answers in `cache` (login-partition answers are
    /// never stored, whatever the cache).
    pub fn cache(mut self, cache: Arc<dyn SearchCache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Keep circuit-breaker state in `store` (e.g. Redis, so a fleet of
    /// agents backs off together). Default: in memory, per process.
    pub fn breaker_store(mut self, store: Arc<dyn BreakerStore>) -> Self {
        self.breaker_store = Some(store);
        self
    }

    /// Plan with `planner` instead of the heuristic planner.
    pub fn planner(mut self, planner: impl Planner + 'static) -> Self {
        self.planner = Some(Arc::new(planner));
        self
    }

    /// Per-engine call timeout (default 8 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Per-call timeout of LLM-backed engines (default 20 s).
    pub fn llm_timeout(mut self, timeout: Duration) -> Self {
        self.llm_timeout = Some(timeout);
        self
    }

    /// The global deadline of a search (default 20 s).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// At most this many engine calls in flight (default 8).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = Some(n);
        self
    }

    /// A note to report with every search (e.g. "brave: off (set
    /// BRAVE_API_KEY)").
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Build.
    pub fn build(self) -> Result<Ferret, FerretError> {
        let store: Arc<dyn BreakerStore> = self
            .breaker_store
            .unwrap_or_else(|| Arc::new(MemoryBreakerStore::new()));
        let mut fanout = Fanout::builder();
        if let Some(t) = self.timeout {
            fanout = fanout.timeout(t);
        }
        if let Some(t) = self.llm_timeout {
            fanout = fanout.llm_timeout(t);
        }
        if let Some(d) = self.deadline {
            fanout = fanout.deadline(d);
        }
        if let Some(n) = self.concurrency {
            fanout = fanout.concurrency(n);
        }
        for (engine, stack) in self.engines {
            let layered = match stack {
                Stack::Bare => engine,
                Stack::Default => default_stack(engine, self.cache.as_ref(), &store),
            };
            fanout = fanout.dyn_engine(layered);
        }
        let fanout = fanout.build()?;
        let mut searcher = Searcher::builder().fanout(fanout);
        if let Some(p) = self.planner {
            searcher = searcher.shared_planner(p);
        }
        Ok(Ferret {
            searcher: searcher.build(),
            notes: self.notes,
        })
    }
}

/// Wrap `engine` in the default stack for its kind (see
/// [`FerretBuilder::engine`]).
pub fn default_stack(
    engine: DynEngine,
    cache: Option<&Arc<dyn SearchCache>>,
    breaker_store: &Arc<dyn BreakerStore>,
) -> DynEngine {
    let caps = engine.capabilities();
    if caps.is(EngineKind::Local) || caps.is(EngineKind::External) {
        return engine;
    }
    let inner: DynEngine = if caps.is(EngineKind::Scraper) {
        Arc::new(Throttle::new(engine))
    } else {
        engine
    };
    let retried = Retry::new(inner);
    let broken = CircuitBreaker::new(retried).with_store(breaker_store.clone());
    let single = SingleFlight::new(broken);
    match cache {
        Some(c) => Arc::new(Cache::new(single, c.clone())),
        None => Arc::new(single),
    }
}

/// Ferret: plan, search many engines, fuse. Cheap to share (`Arc` it).
pub struct Ferret {
    searcher: Searcher,
    notes: Vec<String>,
}

impl std::fmt::Debug for Ferret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ferret")
            .field("engines", &self.engine_names())
            .finish()
    }
}

impl Ferret {
    /// A builder with no engines.
    pub fn builder() -> FerretBuilder {
        FerretBuilder::default()
    }

    /// The configured engines' names, in report order.
    pub fn engine_names(&self) -> Vec<String> {
        self.searcher.fanout().engine_names()
    }

    /// Notes about the configuration (engines that are off and why).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The underlying searcher.
    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// A research runner ([`ferret_evidence::research`]) that finds its
    /// candidates with this Ferret's searcher and fetches them with
    /// `fetcher`. Add a scorer, a local-document reader or deep escalation
    /// on the returned builder, then `build()` and `run(question, &options)`.
    pub fn research(
        &self,
        fetcher: ferret_evidence::fetch::Fetcher,
    ) -> ferret_evidence::research::ResearchBuilder {
        ferret_evidence::research::Research::builder(fetcher).searcher(self.searcher.clone())
    }

    /// Plan `query` without searching (`ferret.plan.v1`).
    pub async fn plan(&self, query: &str, options: &SearchOptions) -> Result<Plan, FerretError> {
        Ok(self.searcher.plan(query, options).await?)
    }

    /// Search: plan, fan out, fuse (`ferret.search.v1`). Engine failures are
    /// reports in the response, never errors.
    pub async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<SearchResponse, FerretError> {
        self.search_with_calls(query, Vec::new(), Vec::new(), options)
            .await
    }

    /// Search and fuse the caller's own results (`extra_calls`, e.g. from
    /// [`ferret_core::rows::normalize_rows_str`]) with the engines'.
    pub async fn search_with_calls(
        &self,
        query: &str,
        extra_calls: Vec<EngineCall>,
        dropped: Vec<DroppedRow>,
        options: &SearchOptions,
    ) -> Result<SearchResponse, FerretError> {
        let mut response = self
            .searcher
            .search_with_calls(query, extra_calls, dropped, options)
            .await?;
        response.warnings.extend(self.notes.iter().cloned());
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::testing::{FailingEngine, StaticEngine};
    use ferret_core::{EngineError, EngineStatus};

    #[tokio::test]
    async fn a_failing_engine_is_reported_and_the_others_answer() {
        let ferret = Ferret::builder()
            .engine(StaticEngine::new("good", 4))
            .engine(FailingEngine::new(
                "bad",
                EngineError::Auth {
                    message: "set BAD_API_KEY".into(),
                },
            ))
            .note("extra: off (set EXTRA_KEY)")
            .build()
            .unwrap();
        let r = ferret
            .search("rust", &SearchOptions::new().with_max_sub_queries(1))
            .await
            .unwrap();
        assert!(!r.results.is_empty());
        let bad = r.engines.iter().find(|e| e.name == "bad").unwrap();
        assert_eq!(bad.status, EngineStatus::Error);
        assert!(r.warnings.iter().any(|w| w.contains("EXTRA_KEY")));
    }

    #[test]
    fn duplicate_engine_names_are_a_build_error() {
        let err = Ferret::builder()
            .engine(StaticEngine::new("same", 1))
            .engine(StaticEngine::new("same", 1))
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("same"), "{err}");
    }
}
