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

/// The engines, cache and timeouts for a search. `timeout` is the global
/// deadline in seconds.
pub async fn build(timeout: Option<f64>) -> Result<Setup, String> {
    let found = ferret::env::engines_from_env(env).map_err(|e| e.to_string())?;
    let mut builder: FerretBuilder = Ferret::builder().engines(found.engines);
    if let Some(t) = timeout {
        builder = builder.deadline(Duration::from_secs_f64(t));
    }
    let home = home()?;
    std::fs::create_dir_all(&home)
        .map_err(|e| format!("cannot create FERRET_HOME {}: {e}", home.display()))?;
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
