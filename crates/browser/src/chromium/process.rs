//! Starting and ending a managed Chromium: the command line, the DevTools
//! address read from its stderr, liveness, and a shutdown that leaves no
//! process behind (the browser runs in its own process group, which is
//! killed as a whole).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::config::{ChromiumConfig, Profile};
use crate::egress::EgressProxy;
use crate::error::BrowserError;

/// Switches every managed launch gets (without leading dashes; the
/// `--` is added when the command line is built).
pub(crate) const BASE_SWITCHES: &[&str] = &[
    "remote-debugging-port=0",
    "no-first-run",
    "no-default-browser-check",
    "disable-background-networking",
    "disable-component-update",
    "disable-sync",
    "disable-quic",
    "disable-gpu",
    "disable-breakpad",
    "disable-crash-reporter",
    "disable-dev-shm-usage",
    "disable-extensions",
    "disable-default-apps",
    "disable-client-side-phishing-detection",
    "disable-domain-reliability",
    "disable-hang-monitor",
    "disable-popup-blocking",
    "disable-prompt-on-repost",
    "disable-background-timer-throttling",
    "disable-backgrounding-occluded-windows",
    "disable-renderer-backgrounding",
    "metrics-recording-only",
    "password-store=basic",
    "use-mock-keychain",
    "mute-audio",
    // Keep cross-site iframes in the page's process so the page's request
    // interception (the URL guard) sees their requests too.
    "disable-features=Translate,MediaRouter,OptimizationHints,IsolateOrigins,site-per-process,DialMediaRouteProvider,NetworkTimeServiceQuerying,OptimizationGuideModelDownloading,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
    "disable-site-isolation-trials",
];

/// The profile folder of one launch.
#[derive(Debug)]
pub(crate) enum ProfileDir {
    /// Deleted when dropped.
    Temp(tempfile::TempDir),
    /// Kept.
    Kept(PathBuf),
}

impl ProfileDir {
    pub(crate) fn path(&self) -> &Path {
        match self {
            ProfileDir::Temp(t) => t.path(),
            ProfileDir::Kept(p) => p,
        }
    }
}

/// A running managed browser.
#[derive(Debug)]
pub(crate) struct Launched {
    pub(crate) child: Child,
    pub(crate) pid: u32,
    pub(crate) ws_url: String,
    /// Held so a temporary profile lives as long as the browser.
    pub(crate) _profile: ProfileDir,
    crash_dir: PathBuf,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl Launched {
    /// `Some(status)` once the browser process has exited.
    pub(crate) fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(format!("Chromium exited ({status})")),
            Ok(None) => None,
            Err(e) => Some(format!("could not check the Chromium process: {e}")),
        }
    }

    /// The profile folder.
    pub(crate) fn profile_path(&self) -> &Path {
        self._profile.path()
    }

    /// The last lines Chromium wrote to stderr.
    pub(crate) fn stderr_tail(&self) -> String {
        tail_text(&self.stderr_tail)
    }

    /// Kill the process group and the crash handlers without waiting (for
    /// `Drop`; the child is reaped by the runtime in the background).
    pub(crate) fn kill_now(&mut self) {
        kill_group(self.pid);
        let _ = self.child.start_kill();
        kill_crash_handlers(&self.crash_dir);
    }

    /// Kill the whole process group and the crash handlers, then reap the
    /// browser.
    pub(crate) async fn kill(&mut self) {
        kill_group(self.pid);
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        // Helpers that were forking during the first signal.
        kill_group(self.pid);
        kill_crash_handlers(&self.crash_dir);
    }
}

/// Chromium's crash handlers (`chrome_crashpad_handler`) start in process
/// groups of their own and outlive the browser for a while. Each launch
/// points them at its own crash folder (`BREAKPAD_DUMP_LOCATION`), so ours
/// are recognised by their `--database=` argument and ended by pid.
fn kill_crash_handlers(crash_dir: &Path) {
    let needle = format!("--database={}", crash_dir.display());
    for p in crate::procs::all() {
        if p.is_zombie() || !p.name.starts_with("chrome_crashpad") {
            continue;
        }
        let ours =
            crate::procs::cmdline(p.pid).is_some_and(|args| args.iter().any(|a| a == &needle));
        if ours && let Ok(raw) = i32::try_from(p.pid) {
            let _ = nix::sys::signal::kill(Pid::from_raw(raw), Signal::SIGKILL);
        }
    }
}

/// SIGKILL every process in the group led by `pid`.
pub(crate) fn kill_group(pid: u32) {
    if let Ok(raw) = i32::try_from(pid) {
        let _ = killpg(Pid::from_raw(raw), Signal::SIGKILL);
    }
}

fn tail_text(tail: &Mutex<VecDeque<String>>) -> String {
    tail.lock()
        .map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | "))
        .unwrap_or_default()
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Switches a configuration's `extra_args` may not set when the egress
/// proxy is in use: they would route connections around it.
const EGRESS_OWNED: &[&str] = &[
    "proxy-server",
    "proxy-bypass-list",
    "proxy-pac-url",
    "proxy-auto-detect",
    "no-proxy-server",
    "host-resolver-rules",
    "force-webrtc-ip-handling-policy",
];

/// The command-line switches for a launch (each `--name[=value]`). With an
/// egress proxy, every connection goes through it: its switches replace any
/// proxy or resolver setting of the configuration (whose resolver rules the
/// proxy applies instead).
pub(crate) fn switches(
    config: &ChromiumConfig,
    profile_dir: &Path,
    egress: Option<&EgressProxy>,
) -> Vec<String> {
    let mut out: Vec<String> = BASE_SWITCHES.iter().map(|s| format!("--{s}")).collect();
    if config.headless {
        out.push("--headless".into());
        out.push("--hide-scrollbars".into());
    }
    if is_root() {
        out.push("--no-sandbox".into());
    }
    out.push(format!("--user-data-dir={}", profile_dir.display()));
    out.push(format!(
        "--window-size={},{}",
        config.window_size.0, config.window_size.1
    ));
    match egress {
        Some(proxy) => out.extend(proxy.chromium_switches().iter().map(|s| format!("--{s}"))),
        None => {
            if let Some(rules) = &config.host_resolver_rules {
                out.push(format!("--host-resolver-rules={rules}"));
            }
        }
    }
    for extra in &config.extra_args {
        let extra = extra.trim_start_matches('-');
        let name = extra.split('=').next().unwrap_or_default();
        if egress.is_some() && EGRESS_OWNED.contains(&name) {
            tracing::warn!(
                target: "ferret_browser::chromium",
                "ignored --{name}: every connection of the browser goes through Ferret's egress proxy"
            );
            continue;
        }
        if !extra.is_empty() {
            out.push(format!("--{extra}"));
        }
    }
    // No window at start: tabs are opened when a task space needs them.
    out.push("--no-startup-window".into());
    out
}

/// Launch `executable` with the configured profile and wait for its DevTools
/// address; with `egress`, every connection it makes goes through that
/// proxy.
pub(crate) async fn launch(
    config: &ChromiumConfig,
    executable: &Path,
    egress: Option<&EgressProxy>,
) -> Result<Launched, BrowserError> {
    if !executable.is_file() {
        return Err(BrowserError::NotFound {
            path: executable.to_path_buf(),
        });
    }
    let failed = |message: String| BrowserError::LaunchFailed {
        path: executable.to_path_buf(),
        message,
    };
    let profile = profile_dir(&config.profile).map_err(failed)?;
    let crash_dir = match &profile {
        ProfileDir::Temp(t) => t.path().join("ferret-crash"),
        ProfileDir::Kept(dir) => dir.join("Crash Reports"),
    };
    let mut command = Command::new(executable);
    command
        .args(switches(config, profile.path(), egress))
        .env("BREAKPAD_DUMP_LOCATION", &crash_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    let mut child = command
        .spawn()
        .map_err(|e| failed(format!("could not start it: {e}")))?;
    let pid = child.id().unwrap_or(0);
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let (ws_tx, ws_rx) = tokio::sync::oneshot::channel::<String>();
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(drain_stderr(stderr, tail.clone(), ws_tx));
    }
    let launched = Launched {
        child,
        pid,
        ws_url: String::new(),
        _profile: profile,
        crash_dir,
        stderr_tail: tail,
    };
    await_devtools(launched, config.launch_timeout, ws_rx)
        .await
        .map_err(failed)
}

/// The profile folder for a launch: a fresh temporary one, or the persistent
/// folder (created when missing). The error is the failure's message.
fn profile_dir(profile: &Profile) -> Result<ProfileDir, String> {
    match profile {
        Profile::Ephemeral => tempfile::Builder::new()
            .prefix("ferret-chromium-")
            .tempdir()
            .map(ProfileDir::Temp)
            .map_err(|e| format!("could not create a temporary profile: {e}")),
        Profile::Persistent { dir } => {
            std::fs::create_dir_all(dir).map_err(|e| {
                format!("could not create the profile folder {}: {e}", dir.display())
            })?;
            Ok(ProfileDir::Kept(dir.clone()))
        }
    }
}

/// Drain stderr for the browser's whole life (a full pipe would block it);
/// hand over the DevTools address when it appears and keep the last lines
/// for error messages.
async fn drain_stderr(
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
    ws_tx: tokio::sync::oneshot::Sender<String>,
) {
    let mut lines = BufReader::new(stderr).lines();
    let mut ws_tx = Some(ws_tx);
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(at) = line.find("ws://")
            && let Some(tx) = ws_tx.take()
        {
            let _ = tx.send(line[at..].trim().to_string());
            continue;
        }
        tracing::trace!(target: "ferret_browser::chromium", "{line}");
        if let Ok(mut t) = tail.lock() {
            if t.len() >= 12 {
                t.pop_front();
            }
            t.push_back(line);
        }
    }
}

/// Wait up to `timeout` for the DevTools address; on failure the browser is
/// killed and the error is the failure's message (with its stderr tail).
async fn await_devtools(
    mut launched: Launched,
    timeout: Duration,
    ws_rx: tokio::sync::oneshot::Receiver<String>,
) -> Result<Launched, String> {
    match tokio::time::timeout(timeout, ws_rx).await {
        Ok(Ok(ws)) => {
            launched.ws_url = ws;
            Ok(launched)
        }
        Ok(Err(_)) => {
            // stderr closed without an address: the browser exited.
            let _ = tokio::time::timeout(Duration::from_secs(2), launched.child.wait()).await;
            let status = launched.exited().unwrap_or_default();
            let tail = launched.stderr_tail();
            launched.kill().await;
            Err(format!("{status}; stderr: {tail}"))
        }
        Err(_) => {
            let tail = launched.stderr_tail();
            launched.kill().await;
            Err(format!(
                "no DevTools address within {} ms (running as root needs --no-sandbox, which \
                 Ferret adds itself); stderr: {tail}",
                timeout.as_millis()
            ))
        }
    }
}
