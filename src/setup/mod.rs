//! Everything the environment configures, built in one place: the engines
//! ([`env`](crate::env)), the local index under `FERRET_HOME` (seeded from
//! the user guide embedded in this crate), the search cache, the shared
//! circuit-breaker state, and the adaptive fetcher with its browser.
//!
//! The CLI, the MCP server and an agent's `main` all start here, so that a
//! search from any of them sees the same engines and the same index.
//!
//! - [`configured`]: a [`Configured`] Ferret and what it noted on the way.
//! - [`fetch_setup`]: a [`FetchSetup`], the fetcher and the browser it may start.
//! - [`guide`]: the embedded user guide.

pub mod guide;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ferret_engines::cache::SearchCache;
use ferret_evidence::fetch::{BrowserMode, CacheMode, Fetcher};

use crate::{Ferret, FerretBuilder, FerretError};

/// Read an environment variable of this process (empty counts as unset).
pub fn env_var(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.trim().is_empty())
}

/// `FERRET_HOME`, else `~/.local/share/ferret`, created if missing.
pub fn home() -> Result<PathBuf, FerretError> {
    let home = crate::env::ferret_home(env_var).ok_or_else(|| FerretError::Io {
        path: "FERRET_HOME".into(),
        message: "set FERRET_HOME (or HOME) so Ferret knows where to keep its data".into(),
    })?;
    std::fs::create_dir_all(&home).map_err(|e| FerretError::Io {
        path: home.display().to_string(),
        message: format!("cannot create the Ferret home: {e}"),
    })?;
    Ok(home)
}

/// A Ferret built from the environment, and what happened on the way.
pub struct Configured {
    /// The facade, ready to search.
    pub ferret: Ferret,
    /// Engines that are off, one note each (how to turn them on).
    pub notes: Vec<String>,
    /// Parts that could not be opened (the search still works without
    /// them): a cache, the local index, the shared breaker state.
    pub warnings: Vec<String>,
    /// When the local index was empty and has just been seeded with the
    /// user guide: how many pages, from which folder.
    pub seeded: Option<(u64, PathBuf)>,
    /// The local index the facade searches (shared), to read its hits'
    /// files back.
    #[cfg(feature = "local-index")]
    pub local: Option<ferret_engines::local_index::LocalIndex>,
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configured")
            .field("ferret", &self.ferret)
            .field("notes", &self.notes)
            .field("warnings", &self.warnings)
            .finish()
    }
}

/// Build the Ferret this environment configures: the network engines of
/// [`crate::env::engines_from_env`], the local index at
/// `$FERRET_HOME/index`, the cache, and `deadline` as the global deadline.
pub async fn configured(deadline: Option<Duration>) -> Result<Configured, FerretError> {
    let found = crate::env::engines_from_env(env_var)?;
    let home = home()?;
    let mut builder: FerretBuilder = Ferret::builder();
    let mut warnings = Vec::new();
    #[cfg(feature = "local-index")]
    let (local, seeded) = match open_local_index(&home).await {
        Ok((index, seeded)) => {
            builder = builder.engine(index.clone());
            (Some(index), seeded)
        }
        Err(e) => {
            warnings.push(format!("local index unavailable: {e}"));
            (None, None)
        }
    };
    #[cfg(not(feature = "local-index"))]
    let seeded = None;
    let health_store = health_store(&home, &mut warnings).await;
    let network = network_health(&found.engines, health_store.clone());
    builder = builder.engines(found.engines.into_iter().map(|e| with_health(e, &network)));
    if let Some(d) = deadline {
        builder = builder.deadline(d);
    }
    if let Some(cache) = open_cache(&home, &mut warnings).await {
        builder = builder.cache(cache);
    }
    builder = builder.breaker_store(health_store);
    Ok(Configured {
        ferret: builder.build()?,
        notes: found.notes,
        warnings,
        seeded,
        #[cfg(feature = "local-index")]
        local,
    })
}

/// Where engine health lives (the circuit breakers' state and the
/// connectivity verdicts): Redis when `FERRET_REDIS_URL` is set (feature
/// `redis`), so concurrent processes share what they learn; else SQLite at
/// `$FERRET_HOME/health.db` (feature `sqlite`), so the next run remembers
/// it; else this process's memory. A store that cannot be opened is a
/// warning.
async fn health_store(
    home: &Path,
    warnings: &mut Vec<String>,
) -> Arc<dyn ferret_engines::layers::BreakerStore> {
    #[cfg(feature = "redis")]
    if let Some(url) = env_var("FERRET_REDIS_URL") {
        match ferret_engines::layers::RedisBreakerStore::connect(&url).await {
            Ok(store) => return Arc::new(store),
            Err(e) => warnings.push(format!("shared circuit-breaker state unavailable: {e}")),
        }
    }
    #[cfg(feature = "sqlite")]
    {
        let path = home.join("health.db");
        match ferret_engines::layers::breaker::SqliteBreakerStore::open_async(&path).await {
            Ok(store) => return Arc::new(store),
            Err(e) => warnings.push(format!("engine health {} unavailable: {e}", path.display())),
        }
    }
    let _ = (home, warnings);
    Arc::new(ferret_engines::layers::MemoryBreakerStore::new())
}

/// Each network engine's base URL: the variable that moves it and its
/// default (what the connectivity probe dials).
const ENGINE_ENDPOINTS: &[(&str, &[&str], &str)] = &[
    (
        "duckduckgo",
        &["DUCKDUCKGO_API_BASE"],
        ferret_engines::duckduckgo::DuckDuckGoEngine::DEFAULT_BASE_URL,
    ),
    (
        "bing",
        &["BING_API_BASE"],
        ferret_engines::bing::BingEngine::DEFAULT_BASE_URL,
    ),
    (
        "wikipedia",
        &["WIKIPEDIA_API_BASE"],
        "https://en.wikipedia.org",
    ),
    (
        "github",
        &["GITHUB_API_BASE"],
        ferret_engines::github::GithubEngine::DEFAULT_BASE_URL,
    ),
    (
        "brave",
        &["BRAVE_API_BASE"],
        ferret_engines::brave::BraveEngine::DEFAULT_BASE_URL,
    ),
    (
        "exa",
        &["EXA_API_BASE", "EXA_API_URL"],
        ferret_engines::exa::ExaEngine::DEFAULT_BASE_URL,
    ),
    (
        "tavily",
        &["TAVILY_API_BASE"],
        ferret_engines::tavily::TavilyEngine::DEFAULT_BASE_URL,
    ),
    (
        "grok",
        &["GROK_API_URL"],
        ferret_engines::llm::GrokEngine::DEFAULT_BASE_URL,
    ),
    ("searxng", &["SEARXNG_URL"], ""),
];

/// The run's connectivity verdict over `engines`' hosts, kept in `store`.
/// `FERRET_PROBE_MS` sets the probe's bound (default 700; 0 turns the
/// probe and the health checks off).
fn network_health(
    engines: &[ferret_core::DynEngine],
    store: Arc<dyn ferret_engines::layers::BreakerStore>,
) -> Option<Arc<ferret_engines::health::NetworkHealth>> {
    use ferret_engines::health::{HealthConfig, NetworkHealth, ProbeTarget};
    let mut config = HealthConfig::default();
    if let Some(ms) = env_var("FERRET_PROBE_MS").and_then(|v| v.trim().parse::<u64>().ok()) {
        if ms == 0 {
            return None;
        }
        config.probe_timeout = Duration::from_millis(ms);
    }
    let mut health = NetworkHealth::new(store).with_config(config);
    for engine in engines {
        let Some((_, vars, default)) = ENGINE_ENDPOINTS
            .iter()
            .find(|(n, _, _)| *n == engine.name())
        else {
            continue;
        };
        let base = vars
            .iter()
            .find_map(|v| env_var(v))
            .unwrap_or_else(|| default.to_string());
        if let Some(target) = ProbeTarget::from_url(&base) {
            health = health.with_target(engine.name(), target);
        }
    }
    Some(Arc::new(health))
}

/// `engine` behind the run's health checks (innermost, see
/// [`ferret_engines::health`]).
fn with_health(
    engine: ferret_core::DynEngine,
    network: &Option<Arc<ferret_engines::health::NetworkHealth>>,
) -> ferret_core::DynEngine {
    match network {
        Some(n) => Arc::new(ferret_engines::health::Reachable::new(engine, n.clone())),
        None => engine,
    }
}

/// The search cache: Redis when `FERRET_REDIS_URL` is set (feature
/// `redis`), else SQLite at `$FERRET_HOME/cache.db` (feature `sqlite`).
/// `FERRET_NO_CACHE=1` turns caching off. A cache that cannot be opened is
/// a warning, never a failed search.
async fn open_cache(home: &Path, warnings: &mut Vec<String>) -> Option<Arc<dyn SearchCache>> {
    if env_var("FERRET_NO_CACHE").is_some_and(|v| crate::env::truthy(&v)) {
        return None;
    }
    #[cfg(feature = "redis")]
    if let Some(url) = env_var("FERRET_REDIS_URL") {
        match ferret_engines::cache::redis::RedisCache::connect(&url).await {
            Ok(c) => return Some(Arc::new(c)),
            Err(e) => warnings.push(format!("Redis cache unavailable ({e}); using SQLite")),
        }
    }
    #[cfg(feature = "sqlite")]
    {
        let path = home.join("cache.db");
        match ferret_engines::cache::sqlite::SqliteCache::open(&path) {
            Ok(c) => return Some(Arc::new(c)),
            Err(e) => warnings.push(format!("cache {} unavailable: {e}", path.display())),
        }
    }
    let _ = (home, warnings);
    None
}

/// How long a process waits for another one that is seeding the index.
#[cfg(feature = "local-index")]
const SEED_WAIT: Duration = Duration::from_secs(60);

/// The local index at `$FERRET_HOME/index`. When it is empty, it is seeded
/// from the user guide (written out under `$FERRET_HOME/guide` from the
/// copy embedded in this crate), so that a fresh offline machine answers
/// from something real. Concurrent first runs wait for the one that seeds.
#[cfg(feature = "local-index")]
pub async fn open_local_index(
    home: &Path,
) -> Result<
    (
        ferret_engines::local_index::LocalIndex,
        Option<(u64, PathBuf)>,
    ),
    FerretError,
> {
    use ferret_engines::local_index::LocalIndex;
    let guide = guide::write_to(home)?;
    let (index, report) = LocalIndex::open_seeded(home.join("index"), &guide, SEED_WAIT)
        .await
        .map_err(|e| FerretError::LocalIndex(e.to_string()))?;
    Ok((index, report.map(|r| (r.documents, guide))))
}

/// The adaptive fetcher an environment configures, and the browser it may
/// start. Call [`FetchSetup::shutdown`] at the end.
pub struct FetchSetup {
    /// The fetcher.
    pub fetcher: Fetcher,
    #[cfg(feature = "browser")]
    runtime: Option<Arc<ferret_browser::ChromiumRuntime>>,
}

impl std::fmt::Debug for FetchSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchSetup").finish_non_exhaustive()
    }
}

impl FetchSetup {
    /// A setup around a fetcher built elsewhere (no browser of its own to
    /// close).
    pub fn new(fetcher: Fetcher) -> Self {
        FetchSetup {
            fetcher,
            #[cfg(feature = "browser")]
            runtime: None,
        }
    }

    /// The browser the fetcher may start (shared with site-skill tools).
    #[cfg(feature = "browser")]
    pub fn runtime(&self) -> Option<Arc<ferret_browser::ChromiumRuntime>> {
        self.runtime.clone()
    }

    /// Close the browser if one was started.
    pub async fn shutdown(self) {
        #[cfg(feature = "browser")]
        if let Some(rt) = self.runtime {
            use ferret_browser::BrowserRuntime;
            let _ = rt.shutdown().await;
        }
    }
}

/// Which browser a fetch may open (feature `browser`).
#[cfg(feature = "browser")]
pub type BrowserConfig = ferret_browser::ChromiumConfig;
/// Which browser a fetch may open (nothing without the `browser` feature).
#[cfg(not(feature = "browser"))]
pub type BrowserConfig = ();

/// The fetcher for `mode`: the URL guard from the environment
/// (`FERRET_ALLOW_PRIVATE_URLS`, `FERRET_STRICT_SSRF`), `GITHUB_TOKEN` and
/// `GITHUB_API_BASE` for the GitHub API, and — unless `mode` is
/// [`BrowserMode::Never`] — the browser `browser` configures, started only if
/// a page needs it.
pub fn fetch_setup(mode: BrowserMode, browser: BrowserConfig) -> Result<FetchSetup, FerretError> {
    fetch_setup_cached(mode, browser, CacheMode::On)
}

/// [`fetch_setup`] with the page cache used as `cache` says: the HTTP
/// step's answers are kept in `$FERRET_HOME/pages.db` (feature `sqlite`),
/// or on the Redis server of `FERRET_REDIS_URL` (feature `redis`);
/// `FERRET_NO_CACHE=1` turns it off. A page cache that cannot be opened is
/// a logged warning; the fetcher works without it.
pub fn fetch_setup_cached(
    mode: BrowserMode,
    browser: BrowserConfig,
    cache: CacheMode,
) -> Result<FetchSetup, FerretError> {
    let guard = ferret_core::guard::UrlGuard::from_env();
    let builder = with_page_cache(Fetcher::builder(), cache);
    build_fetch_setup(builder, mode, browser, guard)
}

/// `builder` with the page cache under `FERRET_HOME` and `mode` as its
/// default use, when it can be opened.
fn with_page_cache(
    builder: ferret_evidence::fetch::FetcherBuilder,
    mode: CacheMode,
) -> ferret_evidence::fetch::FetcherBuilder {
    if env_var("FERRET_NO_CACHE").is_some_and(|v| crate::env::truthy(&v)) {
        return builder;
    }
    #[cfg(any(feature = "sqlite", feature = "redis"))]
    match open_page_cache() {
        Some(Ok(cache)) => return builder.page_cache(cache).cache_mode(mode),
        Some(Err(e)) => tracing::warn!("page cache unavailable ({e}); fetching without it"),
        None => {}
    }
    let _ = mode;
    builder
}

/// The page cache: on the Redis server of `FERRET_REDIS_URL` when it is
/// set (feature `redis`; connected on first use), else
/// `$FERRET_HOME/pages.db` (feature `sqlite`); `None` with neither.
#[cfg(any(feature = "sqlite", feature = "redis"))]
fn open_page_cache() -> Option<Result<ferret_evidence::fetch::PageCache, String>> {
    #[cfg(feature = "redis")]
    if let Some(url) = env_var("FERRET_REDIS_URL") {
        return Some(ferret_evidence::fetch::PageCache::redis(&url).map_err(|e| e.to_string()));
    }
    #[cfg(feature = "sqlite")]
    {
        Some(home().map_err(|e| e.to_string()).and_then(|h| {
            ferret_evidence::fetch::PageCache::open(h.join("pages.db")).map_err(|e| e.to_string())
        }))
    }
    #[cfg(not(feature = "sqlite"))]
    None
}

/// [`fetch_setup`] with the URL guard `guard` instead of the one the
/// environment configures: a program (or a test serving pages on loopback
/// with `UrlGuard::default().allow_private(true)`) decides which addresses
/// the fetcher may reach without touching the process environment.
pub fn fetch_setup_with_guard(
    mode: BrowserMode,
    browser: BrowserConfig,
    guard: ferret_core::guard::UrlGuard,
) -> Result<FetchSetup, FerretError> {
    build_fetch_setup(Fetcher::builder(), mode, browser, guard)
}

/// The fetcher `builder` finishes with `guard`, `mode`, the browser and the
/// GitHub settings of the environment.
fn build_fetch_setup(
    builder: ferret_evidence::fetch::FetcherBuilder,
    mode: BrowserMode,
    browser: BrowserConfig,
    guard: ferret_core::guard::UrlGuard,
) -> Result<FetchSetup, FerretError> {
    let mut builder = builder
        .guard(guard)
        .browser_mode(mode)
        .github_token(env_var("GITHUB_TOKEN"));
    if let Some(base) = env_var("GITHUB_API_BASE") {
        builder = builder.endpoints(ferret_evidence::fetch::endpoints::Endpoints {
            github_api: base,
            ..Default::default()
        });
    }
    #[cfg(feature = "browser")]
    let runtime = if mode == BrowserMode::Never {
        None
    } else {
        let rt = ferret_browser::ChromiumRuntime::new(browser)
            .map_err(|e| FerretError::Browser(e.to_string()))?;
        let rt = Arc::new(rt);
        builder = builder.browser(rt.clone());
        Some(rt)
    };
    #[cfg(not(feature = "browser"))]
    {
        let () = browser;
        if mode == BrowserMode::Required {
            return Err(FerretError::Browser(
                "a required browser needs the `browser` feature".into(),
            ));
        }
    }
    let fetcher = builder
        .build()
        .map_err(|e| FerretError::Browser(e.to_string()))?;
    Ok(FetchSetup {
        fetcher,
        #[cfg(feature = "browser")]
        runtime,
    })
}

/// The browser configuration of this environment (`FERRET_CHROMIUM`,
/// `FERRET_CDP_URL`, `FERRET_BROWSER_RUNTIME`, …) with the profile under
/// `FERRET_HOME`.
#[cfg(feature = "browser")]
pub fn browser_from_env() -> Result<BrowserConfig, FerretError> {
    Ok(ferret_browser::ChromiumConfig::from_env()
        .map_err(|e| FerretError::Browser(e.to_string()))?
        .home(home()?))
}

/// Reads a local-index hit (`https://local.invalid/…`) back from its
/// indexed file, and only from an indexed file: research's reader for the
/// local index's results.
#[cfg(feature = "local-index")]
#[derive(Debug, Clone)]
pub struct IndexedFiles(pub ferret_engines::local_index::LocalIndex);

#[cfg(feature = "local-index")]
impl ferret_evidence::research::LocalDocuments for IndexedFiles {
    fn path_for_url(&self, url: &str) -> Option<PathBuf> {
        self.0.indexed_path_for_url(url)
    }
}
