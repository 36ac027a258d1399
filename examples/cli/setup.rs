//! Building the [`Ferret`] the CLI uses: engines from environment
//! variables, the local index and the SQLite (or Redis) cache under
//! `FERRET_HOME`.

use std::path::PathBuf;
use std::time::Duration;

use ferret::Ferret;

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
    ferret::setup::env_var(key)
}

/// `FERRET_HOME`, else `~/.local/share/ferret`.
pub fn home() -> Result<PathBuf, String> {
    ferret::setup::home().map_err(|e| e.to_string())
}

/// The engines, cache and timeouts for a search ([`ferret::setup::configured`]).
/// `timeout` is the global deadline in seconds. `quiet` suppresses notes on
/// stderr (warnings are always printed).
pub async fn build(timeout: Option<f64>, quiet: bool) -> Result<Setup, String> {
    let deadline = timeout.map(Duration::from_secs_f64);
    let configured = ferret::setup::configured(deadline)
        .await
        .map_err(|e| e.to_string())?;
    for warning in &configured.warnings {
        crate::progress::warn(warning);
    }
    if let Some((pages, guide)) = &configured.seeded
        && !quiet
    {
        crate::progress::note(format!(
            "the local index was empty: seeded it with Ferret's user guide ({pages} pages from {}); add your own folders with `ferret index add <dir>`",
            guide.display()
        ));
    }
    Ok(Setup {
        ferret: configured.ferret,
        notes: configured.notes,
        #[cfg(feature = "local-index")]
        local: configured.local,
    })
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
        use ferret::browser::RuntimeChoice;
        if self.persistent && self.profile == Some(ProfileArg::Ephemeral) {
            return Err(CliError::usage(
                "--persistent and --profile ephemeral contradict each other",
            ));
        }
        // A bad FERRET_BROWSER_RUNTIME or FERRET_CDP_PARTITION is a setting
        // the user gave, like a flag.
        let mut config = ferret::setup::browser_from_env().map_err(CliError::usage)?;
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

/// The adaptive fetcher the CLI uses ([`ferret::setup::fetch_setup`]) with
/// the browser `choice` picks, started only if a page needs it.
pub use ferret::setup::FetchSetup;

/// Makes `--proxy` (else the proxy environment) the process-wide proxy of
/// every engine and fetch client this run builds. `NO_PROXY` applies to
/// `--proxy` too.
pub fn install_proxy(flag: Option<&str>) -> Result<(), CliError> {
    use ferret::core::politeness::{ProxyConfig, set_process_proxy};
    let proxy = match flag {
        Some(url) => {
            let no_proxy = std::env::var("NO_PROXY")
                .or_else(|_| std::env::var("no_proxy"))
                .unwrap_or_default();
            Some(
                ProxyConfig::all(url)
                    .map_err(CliError::usage)?
                    .no_proxy(&no_proxy),
            )
        }
        None => ProxyConfig::from_env().map_err(CliError::usage)?,
    };
    set_process_proxy(proxy);
    Ok(())
}

/// How the fetch commands treat the sites they read: robots.txt (respected
/// unless a person asks for the page explicitly).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PoliteArgs {
    /// Fetch the page even when the site's robots.txt disallows it for
    /// Ferret (for a page you asked for yourself).
    #[arg(long)]
    pub ignore_robots: bool,
}

impl PoliteArgs {
    /// `setup` with its fetcher rebuilt for these flags (unchanged when
    /// every flag is at its default).
    pub fn apply(&self, mut setup: FetchSetup) -> Result<FetchSetup, CliError> {
        if self.ignore_robots {
            setup.fetcher = setup.fetcher.to_builder().respect_robots(false).build()?;
        }
        Ok(setup)
    }
}

/// [`fetcher`] with its failure's kind: the browser flags are checked
/// first, so contradicting flags stay a usage error and a login partition
/// without pro mode a gate refusal (the runtime is only built, not started).
pub fn fetch_setup(
    mode: ferret::evidence::fetch::BrowserMode,
    choice: &BrowserChoice,
) -> Result<FetchSetup, CliError> {
    check_browser_flags(mode, choice)?;
    fetcher(mode, choice)
}

/// The browser flags' own errors, before anything is built.
fn check_browser_flags(
    mode: ferret::evidence::fetch::BrowserMode,
    choice: &BrowserChoice,
) -> Result<(), CliError> {
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
    let _ = choice;
    Ok(())
}

/// `--cache`: how fetches use the page cache under `FERRET_HOME`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CacheChoice {
    /// on (serve kept pages while fresh, revalidate stale ones), off (no
    /// page cache) or refresh (fetch again and keep the new answer).
    /// Default on.
    #[arg(long = "cache", value_name = "on|off|refresh")]
    pub mode: Option<CacheArg>,
}

/// `--cache`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CacheArg {
    /// Read and write the page cache.
    On,
    /// Neither.
    Off,
    /// Skip the read, keep the new answer.
    Refresh,
}

impl CacheChoice {
    /// The fetch vocabulary's mode.
    pub fn mode(&self) -> ferret::evidence::fetch::CacheMode {
        use ferret::evidence::fetch::CacheMode;
        match self.mode {
            None | Some(CacheArg::On) => CacheMode::On,
            Some(CacheArg::Off) => CacheMode::Off,
            Some(CacheArg::Refresh) => CacheMode::Refresh,
        }
    }
}

/// [`fetch_setup`] with the page cache used as `cache` says.
pub fn fetch_setup_cached(
    mode: ferret::evidence::fetch::BrowserMode,
    choice: &BrowserChoice,
    cache: &CacheChoice,
) -> Result<FetchSetup, CliError> {
    check_browser_flags(mode, choice)?;
    #[cfg(feature = "browser")]
    let browser = choice.config()?;
    #[cfg(not(feature = "browser"))]
    let browser = {
        let _ = choice;
    };
    Ok(ferret::setup::fetch_setup_cached(
        mode,
        browser,
        cache.mode(),
    )?)
}

/// Build the fetcher for `mode` with the browser `choice` picks.
pub fn fetcher(
    mode: ferret::evidence::fetch::BrowserMode,
    choice: &BrowserChoice,
) -> Result<FetchSetup, CliError> {
    #[cfg(feature = "browser")]
    let browser = choice.config()?;
    #[cfg(not(feature = "browser"))]
    let browser = {
        let _ = choice;
    };
    let mut setup = ferret::setup::fetch_setup(mode, browser)?;
    // The page `User-Agent` from FERRET_USER_AGENT (Ferret's own by default).
    if std::env::var_os(ferret::evidence::fetch::USER_AGENT_ENV).is_some() {
        setup.fetcher = setup.fetcher.to_builder().user_agent_from_env().build()?;
    }
    Ok(setup)
}
