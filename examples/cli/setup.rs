//! Building the [`Ferret`] the CLI uses: engines from environment
//! variables, the local index and the SQLite (or Redis) cache under
//! `FERRET_HOME`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ferret::engines::cache::SearchCache;
use ferret::{Ferret, FerretBuilder};

/// What the CLI's engines are built from.
pub struct Setup {
    /// The facade, ready to search.
    pub ferret: Ferret,
    /// Engines that are off, one note each (how to turn them on).
    pub notes: Vec<String>,
    /// The local index the facade searches (shared), to read its hits'
    /// files back (`ferret research`).
    #[cfg(feature = "local-index")]
    pub local: Option<ferret::engines::local_index::LocalIndex>,
}

/// Read an environment variable (empty counts as unset).
pub fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.trim().is_empty())
}

/// `FERRET_HOME`, else `~/.local/share/ferret`.
pub fn home() -> Result<PathBuf, String> {
    ferret::env::ferret_home(env)
        .ok_or_else(|| "set FERRET_HOME (or HOME) so Ferret knows where to keep its data".into())
}

/// Ferret's own user guide, which seeds an empty local index.
pub const USER_GUIDE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs");

/// The engines, cache and timeouts for a search. `timeout` is the global
/// deadline in seconds. `quiet` suppresses notes on stderr.
pub async fn build(timeout: Option<f64>, quiet: bool) -> Result<Setup, String> {
    let found = ferret::env::engines_from_env(env).map_err(|e| e.to_string())?;
    let home = home()?;
    std::fs::create_dir_all(&home)
        .map_err(|e| format!("cannot create FERRET_HOME {}: {e}", home.display()))?;
    let mut builder: FerretBuilder = Ferret::builder();
    #[cfg(feature = "local-index")]
    let mut local = None;
    #[cfg(feature = "local-index")]
    match open_local_index(&home, quiet).await {
        Ok(index) => {
            local = Some(index.clone());
            builder = builder.engine(index);
        }
        Err(e) => eprintln!("ferret: warning: local index unavailable: {e}"),
    }
    #[cfg(not(feature = "local-index"))]
    let _ = quiet;
    builder = builder.engines(found.engines);
    if let Some(t) = timeout {
        builder = builder.deadline(Duration::from_secs_f64(t));
    }
    if let Some(cache) = open_cache(&home).await? {
        builder = builder.cache(cache);
    }
    #[cfg(feature = "redis")]
    if let Some(url) = env("FERRET_REDIS_URL") {
        match ferret::engines::layers::RedisBreakerStore::connect(&url).await {
            Ok(store) => builder = builder.breaker_store(Arc::new(store)),
            Err(e) => eprintln!("ferret: warning: shared circuit-breaker state unavailable: {e}"),
        }
    }
    let ferret = builder.build().map_err(|e| e.to_string())?;
    Ok(Setup {
        ferret,
        notes: found.notes,
        #[cfg(feature = "local-index")]
        local,
    })
}

/// The search cache: Redis when `FERRET_REDIS_URL` is set (feature
/// `redis`), else SQLite at `$FERRET_HOME/cache.db` (feature `sqlite`).
/// `FERRET_NO_CACHE=1` turns caching off. A cache that cannot be opened is
/// a warning, never a failed search.
async fn open_cache(home: &std::path::Path) -> Result<Option<Arc<dyn SearchCache>>, String> {
    if env("FERRET_NO_CACHE").is_some_and(|v| ferret::env::truthy(&v)) {
        return Ok(None);
    }
    #[cfg(feature = "redis")]
    if let Some(url) = env("FERRET_REDIS_URL") {
        match ferret::engines::cache::redis::RedisCache::connect(&url).await {
            Ok(c) => return Ok(Some(Arc::new(c))),
            Err(e) => eprintln!("ferret: warning: Redis cache unavailable ({e}); using SQLite"),
        }
    }
    #[cfg(feature = "sqlite")]
    {
        let path = home.join("cache.db");
        match ferret::engines::cache::sqlite::SqliteCache::open(&path) {
            Ok(c) => return Ok(Some(Arc::new(c))),
            Err(e) => eprintln!("ferret: warning: cache {} unavailable: {e}", path.display()),
        }
    }
    let _ = home;
    Ok(None)
}

/// The local index at `$FERRET_HOME/index`. When it is empty, it is seeded
/// from Ferret's user guide so that a fresh offline machine answers from
/// something real, and the user is told so.
#[cfg(feature = "local-index")]
pub async fn open_local_index(
    home: &std::path::Path,
    quiet: bool,
) -> Result<ferret::engines::local_index::LocalIndex, String> {
    use ferret::engines::local_index::LocalIndex;
    let dir = home.join("index");
    let index = LocalIndex::open(&dir).map_err(|e| e.to_string())?;
    if index.is_empty() {
        let guide = std::path::Path::new(USER_GUIDE_DIR);
        if guide.is_dir() {
            match index.seed_from(guide).await {
                Ok(Some(report)) if !quiet => eprintln!(
                    "· the local index was empty: seeded it with Ferret's user guide ({} pages from {}); add your own folders with `ferret index add <dir>`",
                    report.documents,
                    guide.display()
                ),
                Ok(_) => {}
                Err(e) => eprintln!("ferret: warning: could not seed the local index: {e}"),
            }
        }
    }
    Ok(index)
}

/// The adaptive fetcher the CLI uses: the URL guard from the environment
/// (`FERRET_ALLOW_PRIVATE_URLS`, `FERRET_STRICT_SSRF`), `GITHUB_TOKEN` for the
/// GitHub API, and — with the `browser` feature — a managed Chromium that
/// starts only if a page needs it. Call [`FetchSetup::shutdown`] at the end.
pub struct FetchSetup {
    /// The fetcher.
    pub fetcher: ferret::evidence::fetch::Fetcher,
    #[cfg(feature = "browser")]
    runtime: Option<Arc<ferret::browser::ChromiumRuntime>>,
}

impl FetchSetup {
    /// Close the browser if one was started.
    pub async fn shutdown(self) {
        #[cfg(feature = "browser")]
        if let Some(rt) = self.runtime {
            use ferret::browser::BrowserRuntime;
            let _ = rt.shutdown().await;
        }
    }
}

/// Build the fetcher for `mode`.
pub fn fetcher(mode: ferret::evidence::fetch::BrowserMode) -> Result<FetchSetup, String> {
    use ferret::evidence::fetch::{BrowserMode, Fetcher};
    let guard = ferret::core::guard::UrlGuard::from_env();
    let mut builder = Fetcher::builder()
        .guard(guard)
        .browser_mode(mode)
        .github_token(env("GITHUB_TOKEN"));
    if let Some(base) = env("GITHUB_API_BASE") {
        builder = builder.endpoints(ferret::evidence::fetch::endpoints::Endpoints {
            github_api: base,
            ..Default::default()
        });
    }
    #[cfg(feature = "browser")]
    let runtime = if mode == BrowserMode::Never {
        None
    } else {
        use ferret::browser::{ChromiumConfig, ChromiumRuntime};
        let config = ChromiumConfig::from_env().home(home()?);
        let rt = Arc::new(ChromiumRuntime::new(config).map_err(|e| e.to_string())?);
        builder = builder.browser(rt.clone());
        Some(rt)
    };
    #[cfg(not(feature = "browser"))]
    if mode == BrowserMode::Required {
        return Err("--browser required needs the `browser` feature".into());
    }
    let fetcher = builder.build().map_err(|e| e.to_string())?;
    Ok(FetchSetup {
        fetcher,
        #[cfg(feature = "browser")]
        runtime,
    })
}
