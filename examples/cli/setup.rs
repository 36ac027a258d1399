//! Building the [`Ferret`] the CLI uses: engines from environment
//! variables, the local index and the SQLite (or Redis) cache under
//! `FERRET_HOME`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ferret::engines::cache::SearchCache;
use ferret::{Ferret, FerretBuilder};

use crate::output::CliError;

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

/// How long a process waits for another one that is seeding the index.
#[cfg(feature = "local-index")]
const SEED_WAIT: Duration = Duration::from_secs(60);

/// The local index at `$FERRET_HOME/index`. When it is empty, it is seeded
/// from Ferret's user guide so that a fresh offline machine answers from
/// something real, and the user is told so. Concurrent first runs wait for
/// the one that seeds (a lock beside the index).
#[cfg(feature = "local-index")]
pub async fn open_local_index(
    home: &std::path::Path,
    quiet: bool,
) -> Result<ferret::engines::local_index::LocalIndex, String> {
    use ferret::engines::local_index::LocalIndex;
    let guide = std::path::Path::new(USER_GUIDE_DIR);
    let (index, report) = LocalIndex::open_seeded(home.join("index"), guide, SEED_WAIT)
        .await
        .map_err(|e| e.to_string())?;
    if let Some(report) = report
        && !quiet
    {
        eprintln!(
            "· the local index was empty: seeded it with Ferret's user guide ({} pages from {}); add your own folders with `ferret index add <dir>`",
            report.documents,
            guide.display()
        );
    }
    Ok(index)
}

/// Which browser a command may open: `--runtime`, `--profile` (and its
/// older spelling `--persistent`). Flattened into every command that may
/// open a browser.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BrowserChoice {
    /// Which browser: auto (launch Chromium; attach to FERRET_CDP_URL only
    /// if it cannot start), managed (only a Chromium Ferret launches) or
    /// attached (only the browser at FERRET_CDP_URL: the user's own, the
    /// login partition, needs pro mode unless FERRET_CDP_PARTITION=public).
    /// Default: FERRET_BROWSER_RUNTIME, else auto.
    #[arg(long, global = true, value_name = "auto|managed|attached")]
    pub runtime: Option<RuntimeArg>,
    /// ephemeral (a fresh profile per launch: the public partition) or
    /// login (the persistent profile under FERRET_HOME: the login
    /// partition, needs pro mode).
    #[arg(long, global = true, value_name = "ephemeral|login")]
    pub profile: Option<ProfileArg>,
    /// The same as `--profile login`.
    #[arg(long, global = true)]
    pub persistent: bool,
}

/// `--runtime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RuntimeArg {
    /// Launch Chromium, else attach.
    Auto,
    /// Only a launched Chromium.
    Managed,
    /// Only the browser at FERRET_CDP_URL.
    Attached,
}

/// `--profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProfileArg {
    /// A fresh temporary profile (public).
    Ephemeral,
    /// The persistent profile under FERRET_HOME (login).
    Login,
}

#[cfg(feature = "browser")]
impl BrowserChoice {
    /// The Chromium configuration: the environment, then these flags.
    pub fn config(&self) -> Result<ferret::browser::ChromiumConfig, CliError> {
        use ferret::browser::{ChromiumConfig, RuntimeChoice};
        if self.persistent && self.profile == Some(ProfileArg::Ephemeral) {
            return Err(CliError::usage(
                "--persistent and --profile ephemeral contradict each other",
            ));
        }
        // A bad FERRET_BROWSER_RUNTIME or FERRET_CDP_PARTITION is a setting
        // the user gave, like a flag.
        let mut config = ChromiumConfig::from_env()
            .map_err(CliError::usage)?
            .home(home()?);
        if let Some(r) = self.runtime {
            config = config.runtime(match r {
                RuntimeArg::Auto => RuntimeChoice::Auto,
                RuntimeArg::Managed => RuntimeChoice::Managed,
                RuntimeArg::Attached => RuntimeChoice::Attached,
            });
        }
        if self.persistent || self.profile == Some(ProfileArg::Login) {
            config = config.persistent();
        }
        Ok(config)
    }

    /// The runtime for these flags (refused here when it reads in the
    /// login partition and pro mode is off).
    pub fn runtime(&self) -> Result<ferret::browser::ChromiumRuntime, CliError> {
        Ok(ferret::browser::ChromiumRuntime::new(self.config()?)?)
    }
}

/// [`fetcher`] with its failure's kind: the browser flags are checked
/// first, so contradicting flags stay a usage error and a login partition
/// without pro mode a gate refusal (the runtime is only built, not started).
pub fn fetch_setup(
    mode: ferret::evidence::fetch::BrowserMode,
    choice: &BrowserChoice,
) -> Result<FetchSetup, CliError> {
    use ferret::evidence::fetch::BrowserMode;
    #[cfg(feature = "browser")]
    if mode != BrowserMode::Never {
        drop(choice.runtime()?);
    }
    #[cfg(not(feature = "browser"))]
    if mode == BrowserMode::Required {
        return Err(CliError::usage(
            "--browser required needs the `browser` feature",
        ));
    }
    fetcher(mode, choice).map_err(CliError::internal)
}

/// The adaptive fetcher the CLI uses: the URL guard from the environment
/// (`FERRET_ALLOW_PRIVATE_URLS`, `FERRET_STRICT_SSRF`), `GITHUB_TOKEN` for the
/// GitHub API, and — with the `browser` feature — the browser `choice`
/// picks, started only if a page needs it. Call [`FetchSetup::shutdown`] at
/// the end.
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

/// Build the fetcher for `mode` with the browser `choice` picks.
pub fn fetcher(
    mode: ferret::evidence::fetch::BrowserMode,
    choice: &BrowserChoice,
) -> Result<FetchSetup, String> {
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
        let rt = Arc::new(choice.runtime()?);
        builder = builder.browser(rt.clone());
        Some(rt)
    };
    #[cfg(not(feature = "browser"))]
    {
        let _ = choice;
        if mode == BrowserMode::Required {
            return Err("--browser required needs the `browser` feature".into());
        }
    }
    let fetcher = builder.build().map_err(|e| e.to_string())?;
    Ok(FetchSetup {
        fetcher,
        #[cfg(feature = "browser")]
        runtime,
    })
}
