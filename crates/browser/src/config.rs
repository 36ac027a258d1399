//! [`ChromiumConfig`]: which browser to run, with which profile, and the time
//! budgets. The environment is read only by [`ChromiumConfig::from_env`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use ferret_core::Partition;
use ferret_core::guard::UrlGuard;

use crate::error::BrowserError;

/// The environment variable naming the Chromium executable.
pub const CHROMIUM_ENV: &str = "FERRET_CHROMIUM";
/// The environment variable naming a running browser's CDP endpoint.
pub const CDP_URL_ENV: &str = "FERRET_CDP_URL";
/// The environment variable choosing the runtime: `auto`, `managed` or
/// `attached`.
pub const RUNTIME_ENV: &str = "FERRET_BROWSER_RUNTIME";
/// The environment variable declaring what partition the attached endpoint
/// reads in: `login` (the default: the user's own browser) or `public` (a
/// pool of clean browsers without any user session).
pub const CDP_PARTITION_ENV: &str = "FERRET_CDP_PARTITION";
/// The environment variable declaring that the attached endpoint's egress
/// is already controlled (`controlled`): only then is a public pool used in
/// strict mode.
pub const CDP_EGRESS_ENV: &str = "FERRET_CDP_EGRESS";
/// The environment variable naming Ferret's data folder.
pub const HOME_ENV: &str = "FERRET_HOME";
/// Where Chromium is looked for last, when neither `FERRET_CHROMIUM` nor
/// `PATH` names one (see [`find_chromium`]).
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";
/// The executable names [`find_chromium`] looks for on `PATH`, in order.
pub const CHROMIUM_NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "chrome"];
/// The persistent profile's folder name under the Ferret home.
pub const PROFILE_DIR_NAME: &str = "browser-profile";

/// The Chromium executable to launch, read through `lookup` (an environment
/// lookup such as `|k| std::env::var(k).ok()`):
///
/// 1. `FERRET_CHROMIUM` when set: a path is used as given (a launch then
///    says when nothing is there); a bare name is looked up on `PATH` first;
/// 2. else the first of [`CHROMIUM_NAMES`] (`chromium`, `chromium-browser`,
///    `google-chrome`, `chrome`) that is an executable regular file in a
///    `PATH` directory, directories in their order;
/// 3. else [`DEFAULT_CHROMIUM`] when it is an executable file.
///
/// `None` when none of them is found. Symbolic links are followed (a
/// `chromium` link to the real binary counts); empty `PATH` entries are
/// skipped rather than read as the current directory.
pub fn find_chromium(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let path_var = lookup("PATH").unwrap_or_default();
    if let Some(given) = lookup(CHROMIUM_ENV).filter(|v| !v.trim().is_empty()) {
        let bare_name = !given.contains(std::path::is_separator);
        let on_path = bare_name.then(|| which(&given, &path_var)).flatten();
        return Some(on_path.unwrap_or_else(|| PathBuf::from(given)));
    }
    CHROMIUM_NAMES
        .iter()
        .find_map(|name| which(name, &path_var))
        .or_else(|| is_executable(Path::new(DEFAULT_CHROMIUM)).then(|| DEFAULT_CHROMIUM.into()))
}

/// The first `PATH` directory (in `path_var`) holding an executable file
/// called `name`.
fn which(name: &str, path_var: &str) -> Option<PathBuf> {
    let file_name = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    std::env::split_paths(path_var)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(&file_name))
        .find(|candidate| is_executable(candidate))
}

/// A regular file (after following links) that may be executed.
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Which runtime to run (`--runtime`, `FERRET_BROWSER_RUNTIME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RuntimeChoice {
    /// Launch Chromium from [`ChromiumConfig::executable`]; attach to
    /// [`ChromiumConfig::endpoint`] (when given) only if it cannot start.
    #[default]
    Auto,
    /// Only a Chromium Ferret launches from [`ChromiumConfig::executable`].
    Managed,
    /// Only the running browser at [`ChromiumConfig::endpoint`].
    Attached,
}

impl RuntimeChoice {
    /// `auto`, `managed` or `attached`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeChoice::Auto => "auto",
            RuntimeChoice::Managed => "managed",
            RuntimeChoice::Attached => "attached",
        }
    }
}

impl std::fmt::Display for RuntimeChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RuntimeChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(RuntimeChoice::Auto),
            "managed" => Ok(RuntimeChoice::Managed),
            "attached" => Ok(RuntimeChoice::Attached),
            other => Err(format!(
                "unknown browser runtime {other:?}: use auto, managed or attached"
            )),
        }
    }
}

/// Which browser profile a managed runtime uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Profile {
    /// A fresh temporary profile per launch, deleted at shutdown: the public
    /// partition, no gate.
    Ephemeral,
    /// A profile kept on disk (cookies and logins survive): the login
    /// partition, refused unless pro mode is on.
    Persistent {
        /// The profile folder.
        dir: PathBuf,
    },
}

impl Profile {
    /// The persistent profile under a Ferret home:
    /// `<home>/browser-profile`.
    pub fn persistent_in(home: &Path) -> Self {
        Profile::Persistent {
            dir: home.join(PROFILE_DIR_NAME),
        }
    }
}

/// Everything a [`crate::ChromiumRuntime`] needs.
#[derive(Debug, Clone)]
pub struct ChromiumConfig {
    /// Managed, attached or auto.
    pub runtime: RuntimeChoice,
    /// The Chromium a managed runtime launches (never downloaded).
    pub executable: PathBuf,
    /// The running browser's CDP endpoint (`http://host:port` or `ws://…`)
    /// an attached runtime reaches.
    pub endpoint: Option<String>,
    /// The partition an attached browser reads in: [`Partition::Login`]
    /// (the default: the user's own browser, with its sessions; needs pro
    /// mode) or [`Partition::Public`] for an endpoint declared to be a pool
    /// of clean browsers without any user session (no pro mode; its reads
    /// are public and cache eligible).
    pub attached_partition: Partition,
    /// The attached endpoint already refuses private and local addresses
    /// on its own (a pool behind its own egress filter). Ferret cannot put
    /// a browser it did not launch behind its egress proxy, so in strict
    /// mode a public pool is used only when this is declared.
    pub attached_egress_controlled: bool,
    /// The profile a managed browser uses.
    pub profile: Profile,
    /// Ferret's data folder (pro-mode state, persistent profile).
    pub home: PathBuf,
    /// Run without a window (default). A visible window needs a display.
    pub headless: bool,
    /// The URL guard every navigation, API call and subrequest goes through.
    pub guard: UrlGuard,
    /// Budget for starting or attaching to the browser.
    pub launch_timeout: Duration,
    /// Budget for one CDP call (open a tab, evaluate, click …).
    pub call_timeout: Duration,
    /// Budget for loading a page (navigation plus its wait).
    pub page_load_timeout: Duration,
    /// Default tab bound of a task space.
    pub max_tabs: usize,
    /// Chromium `--host-resolver-rules` (e.g. `MAP example.com 127.0.0.1`),
    /// for tests that give local pages real-looking names.
    pub host_resolver_rules: Option<String>,
    /// More Chromium switches, without leading dashes (`lang=de`,
    /// `proxy-server=…`).
    pub extra_args: Vec<String>,
    /// Window / viewport size.
    pub window_size: (u32, u32),
}

impl ChromiumConfig {
    /// A managed runtime on an ephemeral profile launching `executable`.
    pub fn managed(executable: impl Into<PathBuf>) -> Self {
        ChromiumConfig {
            runtime: RuntimeChoice::Managed,
            executable: executable.into(),
            endpoint: None,
            attached_partition: Partition::Login,
            attached_egress_controlled: false,
            profile: Profile::Ephemeral,
            home: default_home(None),
            headless: true,
            guard: UrlGuard::new(),
            launch_timeout: Duration::from_secs(20),
            call_timeout: Duration::from_secs(10),
            page_load_timeout: Duration::from_secs(30),
            max_tabs: crate::TaskSpaceSpec::DEFAULT_MAX_TABS,
            host_resolver_rules: None,
            extra_args: Vec::new(),
            window_size: (1280, 900),
        }
    }

    /// An attached runtime reaching `endpoint` (`http://host:port` or
    /// `ws://…`).
    pub fn attached(endpoint: impl Into<String>) -> Self {
        ChromiumConfig {
            runtime: RuntimeChoice::Attached,
            endpoint: Some(endpoint.into()),
            ..Self::managed(DEFAULT_CHROMIUM)
        }
    }

    /// Configuration from the environment: `FERRET_BROWSER_RUNTIME`
    /// (`auto`, the default, `managed` or `attached`), the executable
    /// [`find_chromium`] finds (`FERRET_CHROMIUM`, then `PATH`, then
    /// `/usr/bin/chromium`, which is also what a launch names when nothing
    /// is found), `FERRET_CDP_URL` (the attached
    /// endpoint; auto falls back to it), `FERRET_CDP_PARTITION` (`login`,
    /// the default, or `public` for a declared pool of clean browsers),
    /// `FERRET_HOME` (default `~/.local/share/ferret`), and the guard from
    /// `FERRET_ALLOW_PRIVATE_URLS` / `FERRET_STRICT_SSRF`. For the edges of
    /// a program only (CLI, examples).
    ///
    /// Errors: an unknown runtime or partition name.
    pub fn from_env() -> Result<Self, BrowserError> {
        Self::from_env_with(|name| std::env::var(name).ok())
    }

    /// Like [`ChromiumConfig::from_env`], reading variables through `lookup`.
    pub fn from_env_with(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, BrowserError> {
        let non_empty = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let executable = find_chromium(&lookup).unwrap_or_else(|| PathBuf::from(DEFAULT_CHROMIUM));
        let home =
            default_home(non_empty(HOME_ENV).map(PathBuf::from).or_else(|| {
                non_empty("HOME").map(|h| PathBuf::from(h).join(".local/share/ferret"))
            }));
        let mut config = Self::managed(executable);
        config.runtime = match non_empty(RUNTIME_ENV) {
            Some(r) => r
                .parse()
                .map_err(|e: String| BrowserError::invalid(format!("{RUNTIME_ENV}: {e}")))?,
            None => RuntimeChoice::Auto,
        };
        config.endpoint = non_empty(CDP_URL_ENV);
        config.attached_egress_controlled =
            non_empty(CDP_EGRESS_ENV).is_some_and(|v| v.trim().eq_ignore_ascii_case("controlled"));
        if let Some(p) = non_empty(CDP_PARTITION_ENV) {
            config.attached_partition = p
                .parse()
                .map_err(|e: String| BrowserError::invalid(format!("{CDP_PARTITION_ENV}: {e}")))?;
        }
        config.home = home;
        config.guard = UrlGuard::from_env_with(&lookup);
        Ok(config)
    }

    /// Run `choice` (e.g. from `--runtime`, which wins over the
    /// environment).
    pub fn runtime(mut self, choice: RuntimeChoice) -> Self {
        self.runtime = choice;
        self
    }

    /// Declare what partition the attached browser reads in (see
    /// [`ChromiumConfig::attached_partition`]).
    pub fn attached_as(mut self, partition: Partition) -> Self {
        self.attached_partition = partition;
        self
    }

    /// The partition a browser of `kind` reads in under this
    /// configuration: an attached browser's is [`Self::attached_partition`],
    /// a managed one's its profile's.
    pub fn partition_of(&self, kind: crate::RuntimeKind) -> Partition {
        match (kind, &self.profile) {
            (crate::RuntimeKind::Attached, _) => self.attached_partition,
            (crate::RuntimeKind::Managed, Profile::Persistent { .. }) => Partition::Login,
            (crate::RuntimeKind::Managed, Profile::Ephemeral) => Partition::Public,
        }
    }

    /// Use the persistent profile under [`ChromiumConfig::home`] (the login
    /// partition; needs pro mode).
    pub fn persistent(mut self) -> Self {
        self.profile = Profile::persistent_in(&self.home);
        self
    }

    /// Set the Ferret home.
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = home.into();
        self
    }

    /// Set the URL guard.
    pub fn guard(mut self, guard: UrlGuard) -> Self {
        self.guard = guard;
        self
    }

    /// Set `--host-resolver-rules`.
    pub fn host_resolver_rules(mut self, rules: impl Into<String>) -> Self {
        self.host_resolver_rules = Some(rules.into());
        self
    }

    /// Set the per-call timeout.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Set the page-load timeout.
    pub fn page_load_timeout(mut self, timeout: Duration) -> Self {
        self.page_load_timeout = timeout;
        self
    }

    /// Set the launch timeout.
    pub fn launch_timeout(mut self, timeout: Duration) -> Self {
        self.launch_timeout = timeout;
        self
    }

    /// The partition this configuration produces before any browser runs:
    /// an attached choice reads in [`Self::attached_partition`], a
    /// persistent profile in `login`, otherwise `public` (auto counts as a
    /// managed launch until it falls back to attaching).
    pub fn partition(&self) -> Partition {
        match self.runtime {
            RuntimeChoice::Attached => self.partition_of(crate::RuntimeKind::Attached),
            RuntimeChoice::Managed | RuntimeChoice::Auto => {
                self.partition_of(crate::RuntimeKind::Managed)
            }
        }
    }
}

impl Default for ChromiumConfig {
    fn default() -> Self {
        Self::managed(DEFAULT_CHROMIUM)
    }
}

/// `$FERRET_HOME` as given, else `~/.local/share/ferret`, else a folder in
/// the temp dir.
fn default_home(given: Option<PathBuf>) -> PathBuf {
    given.unwrap_or_else(|| {
        std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".local/share/ferret"))
            .unwrap_or_else(|| std::env::temp_dir().join("ferret"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_env_reads_only_the_lookup() {
        let config = ChromiumConfig::from_env_with(|name| match name {
            "FERRET_CHROMIUM" => Some("/opt/chrome".into()),
            "FERRET_CDP_URL" => Some("http://127.0.0.1:9222".into()),
            "FERRET_HOME" => Some("/data/ferret".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(config.runtime, RuntimeChoice::Auto);
        assert_eq!(config.executable, PathBuf::from("/opt/chrome"));
        assert_eq!(config.endpoint.as_deref(), Some("http://127.0.0.1:9222"));
        assert_eq!(config.home, PathBuf::from("/data/ferret"));
        assert_eq!(config.partition(), Partition::Public);
        let p = config.persistent();
        assert_eq!(
            p.profile,
            Profile::Persistent {
                dir: "/data/ferret/browser-profile".into()
            }
        );
        assert_eq!(p.partition(), Partition::Login);
    }

    #[test]
    fn defaults_without_environment() {
        let config =
            ChromiumConfig::from_env_with(|name| (name == "HOME").then(|| "/home/u".to_string()))
                .unwrap();
        assert_eq!(config.runtime, RuntimeChoice::Auto);
        assert_eq!(config.executable, PathBuf::from(DEFAULT_CHROMIUM));
        assert_eq!(config.endpoint, None);
        assert_eq!(config.home, PathBuf::from("/home/u/.local/share/ferret"));
        assert!(!config.guard.allows_private());
        assert_eq!(
            ChromiumConfig::attached("ws://x").partition(),
            Partition::Login
        );
    }

    #[test]
    fn the_runtime_and_the_attached_partition_come_from_the_environment() {
        let config = ChromiumConfig::from_env_with(|name| match name {
            "FERRET_BROWSER_RUNTIME" => Some("Attached".into()),
            "FERRET_CDP_URL" => Some("http://127.0.0.1:9222".into()),
            "FERRET_CDP_PARTITION" => Some("public".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(config.runtime, RuntimeChoice::Attached);
        assert_eq!(config.partition(), Partition::Public);
        let bad = ChromiumConfig::from_env_with(|name| {
            (name == "FERRET_BROWSER_RUNTIME").then(|| "remote".to_string())
        });
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("auto, managed or attached")
        );
        let bad = ChromiumConfig::from_env_with(|name| {
            (name == "FERRET_CDP_PARTITION").then(|| "shared".to_string())
        });
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("FERRET_CDP_PARTITION")
        );
    }

    /// A folder holding an executable script `name` (and the folder).
    #[cfg(unix)]
    fn fake_executable(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let file = dir.join(name);
        std::fs::write(&file, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        file
    }

    /// A lookup answering only `vars`.
    fn env_of(vars: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[cfg(unix)]
    #[test]
    fn chromium_is_found_on_path_in_name_order() {
        let tmp = tempfile::tempdir().unwrap();
        let (first, second) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::create_dir_all(&first).unwrap();
        std::fs::create_dir_all(&second).unwrap();
        let chrome = fake_executable(&first, "google-chrome");
        let chromium = fake_executable(&second, "chromium");
        let path = std::env::join_paths([&first, &second]).unwrap();
        let path = path.to_string_lossy().into_owned();
        // `chromium` comes before `google-chrome` in the name order, even in
        // a later PATH directory.
        let found = find_chromium(env_of(vec![("PATH", path.clone())]));
        assert_eq!(found, Some(chromium.clone()));
        std::fs::remove_file(&chromium).unwrap();
        let found = find_chromium(env_of(vec![("PATH", path.clone())]));
        assert_eq!(found, Some(chrome));
        // The configuration uses what was found.
        let config = ChromiumConfig::from_env_with(env_of(vec![("PATH", path)])).unwrap();
        assert_eq!(config.executable, first.join("google-chrome"));
    }

    #[cfg(unix)]
    #[test]
    fn path_entries_that_are_not_executable_files_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        // A folder called chromium, and a chromium-browser without the x bit.
        std::fs::create_dir_all(dir.join("chromium")).unwrap();
        std::fs::write(dir.join("chromium-browser"), "not a program").unwrap();
        let chrome = fake_executable(dir, "chrome");
        let path = format!("::{}", dir.display());
        assert_eq!(find_chromium(env_of(vec![("PATH", path)])), Some(chrome));
    }

    #[cfg(unix)]
    #[test]
    fn ferret_chromium_wins_over_path() {
        let tmp = tempfile::tempdir().unwrap();
        let on_path = fake_executable(tmp.path(), "chromium");
        let custom = fake_executable(tmp.path(), "my-browser");
        let path = tmp.path().display().to_string();
        let given = |value: String| {
            find_chromium(env_of(vec![("PATH", path.clone()), (CHROMIUM_ENV, value)]))
        };
        // A path is used as given, even one where nothing is.
        assert_eq!(
            given("/opt/nowhere/chrome".into()),
            Some("/opt/nowhere/chrome".into())
        );
        // A bare name is looked up on PATH.
        assert_eq!(given("my-browser".into()), Some(custom));
        assert_eq!(given("not-installed".into()), Some("not-installed".into()));
        // Empty counts as unset.
        assert_eq!(given("  ".into()), Some(on_path));
    }

    #[test]
    fn without_path_only_the_default_location_is_tried() {
        let tmp = tempfile::tempdir().unwrap();
        let found = find_chromium(env_of(vec![("PATH", tmp.path().display().to_string())]));
        let default_exists = is_executable(Path::new(DEFAULT_CHROMIUM));
        assert_eq!(
            found,
            default_exists.then(|| PathBuf::from(DEFAULT_CHROMIUM))
        );
        let config = ChromiumConfig::from_env_with(env_of(vec![])).unwrap();
        assert_eq!(config.executable, PathBuf::from(DEFAULT_CHROMIUM));
    }

    #[test]
    fn a_managed_choice_ignores_the_attached_partition() {
        let config = ChromiumConfig::managed("/usr/bin/chromium").attached_as(Partition::Public);
        assert_eq!(config.partition(), Partition::Public);
        assert_eq!(
            config.partition_of(crate::RuntimeKind::Attached),
            Partition::Public
        );
        let login = ChromiumConfig::attached("http://127.0.0.1:1");
        assert_eq!(
            login.partition_of(crate::RuntimeKind::Attached),
            Partition::Login
        );
    }
}
