//! [`ChromiumRuntime`]: [`BrowserRuntime`] on a managed Chromium (launched
//! from a path, its own profile folder per launch) or an attached one (a
//! running browser's CDP endpoint).
//!
//! Robustness rules — a browser can hang, crash or be killed at any moment,
//! and none of that may hang a caller or leave a process behind:
//! - the CDP handler is driven by its own task for the browser's whole life
//!   (an undriven handler stalls every call);
//! - every CDP call runs under `tokio::time::timeout`, and every operation
//!   races a death watch on the browser process, so a killed browser fails
//!   the call with [`BrowserError::BrowserDied`] at once;
//! - a dead browser is torn down (handler aborted, process group killed) and
//!   the next call launches a new one;
//! - a managed browser runs in its own process group, and its stderr is
//!   drained for its whole life (a full pipe would block it);
//! - request interception is turned on per page, so an attached browser's
//!   other tabs are never paused; JavaScript dialogs are accepted at once (an
//!   open dialog blocks every evaluation);
//! - shutdown closes the browser, kills its process group and deletes the
//!   temporary profile.

pub(crate) mod process;
mod space;
mod tab;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::input::{DispatchKeyEventParams, DispatchKeyEventType};
use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::layout::Point;
use chromiumoxide::page::ScreenshotParams;
use ferret_core::{Partition, Provenance};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use crate::config::{ChromiumConfig, Profile, RuntimeChoice};
use crate::egress::{EgressProxy, ResolverRules};
use crate::error::BrowserError;
use crate::pro_mode;
use crate::runtime::{
    BrowserRuntime, PageInfo, RenderOptions, RenderedPage, RuntimeKind, RuntimeStatus,
    ScrollOptions, ScrollReport, ScrollStop, Snapshot, Target, TaskSpaceInfo, TaskSpaceSpec,
    WaitFor,
};
use crate::scripts;
use process::Launched;
use space::Space;
use tab::Tab;

/// A connected browser: the CDP client, its handler task, the process (when
/// managed) and the open task spaces.
#[derive(Debug)]
struct Session {
    kind: RuntimeKind,
    browser: Browser,
    handler: JoinHandle<()>,
    handler_done: Arc<AtomicBool>,
    process: Mutex<Option<Launched>>,
    pid: Option<u32>,
    version: String,
    spaces: tokio::sync::Mutex<HashMap<String, Arc<Space>>>,
    dead: AtomicBool,
    /// The proxy every connection of a managed browser goes through.
    egress: Option<EgressProxy>,
}

impl Session {
    /// Why the browser is dead, if it is.
    fn death(&self) -> Option<String> {
        if self.dead.load(Ordering::Relaxed) {
            return Some("the browser connection was lost".into());
        }
        if let Ok(mut p) = self.process.lock()
            && let Some(launched) = p.as_mut()
            && let Some(why) = launched.exited()
        {
            self.dead.store(true, Ordering::Relaxed);
            return Some(why);
        }
        if self.handler_done.load(Ordering::Relaxed) {
            self.dead.store(true, Ordering::Relaxed);
            return Some("the CDP connection closed".into());
        }
        None
    }

    /// Resolves when the browser is seen dead (checked every 50 ms).
    async fn died(&self) -> String {
        loop {
            if let Some(why) = self.death() {
                return why;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Close what this runtime opened; end a managed browser for good.
    async fn teardown(&self, graceful: bool) {
        let spaces: Vec<Arc<Space>> = self.spaces.lock().await.drain().map(|(_, s)| s).collect();
        let launched = self.process.lock().ok().and_then(|mut p| p.take());
        let alive = self.death().is_none();
        if graceful && alive {
            if self.kind == RuntimeKind::Attached {
                for space in &spaces {
                    space.close(&self.browser, Duration::from_secs(3)).await;
                }
            } else {
                let _ = tokio::time::timeout(
                    Duration::from_secs(3),
                    self.browser.execute(
                        chromiumoxide::cdp::browser_protocol::browser::CloseParams::default(),
                    ),
                )
                .await;
            }
        }
        drop(spaces);
        if let Some(mut launched) = launched {
            if graceful && alive {
                let _ = tokio::time::timeout(Duration::from_secs(3), launched.child.wait()).await;
            }
            launched.kill().await;
        }
        self.handler.abort();
        self.dead.store(true, Ordering::Relaxed);
    }
}

/// A [`BrowserRuntime`] on Chromium.
///
/// ```no_run
/// # async fn demo() -> Result<(), ferret_browser::BrowserError> {
/// use ferret_browser::{BrowserRuntime, ChromiumConfig, ChromiumRuntime, RenderOptions};
/// let runtime = ChromiumRuntime::new(ChromiumConfig::from_env()?)?;
/// let page = runtime
///     .render("ferret", "https://example.com/", &RenderOptions::default())
///     .await?;
/// println!("{}", page.main_text);
/// runtime.shutdown().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct ChromiumRuntime {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: ChromiumConfig,
    session: tokio::sync::Mutex<Option<Arc<Session>>>,
    /// Specs of spaces opened through this runtime, re-opened after a
    /// relaunch.
    specs: Mutex<HashMap<String, TaskSpaceSpec>>,
    /// 0 = none yet, 1 = managed, 2 = attached.
    last_kind: AtomicU8,
    launches: AtomicU64,
    last_pid: Mutex<Option<u32>>,
    /// Profile folders of every managed launch.
    profiles: Mutex<Vec<PathBuf>>,
    shut_down: AtomicBool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Not shut down: make sure no browser outlives us.
        if let Ok(guard) = self.session.try_lock()
            && let Some(session) = guard.as_ref()
        {
            session.handler.abort();
            let launched = session.process.lock().ok().and_then(|mut p| p.take());
            match launched {
                Some(mut launched) => launched.kill_now(),
                None => {
                    if let Some(pid) = session.pid {
                        process::kill_group(pid);
                    }
                }
            }
        }
    }
}

fn kind_code(kind: RuntimeKind) -> u8 {
    match kind {
        RuntimeKind::Managed => 1,
        RuntimeKind::Attached => 2,
    }
}

impl ChromiumRuntime {
    /// A runtime for `config`. Nothing is launched until the first call.
    /// A persistent profile or an attached runtime (the login partition) is
    /// refused here, and at every call, unless pro mode is on.
    pub fn new(config: ChromiumConfig) -> Result<Self, BrowserError> {
        if config.partition() == Partition::Login {
            pro_mode::require(&config.home, login_what(&config))?;
        }
        Ok(ChromiumRuntime {
            inner: Arc::new(Inner {
                config,
                session: tokio::sync::Mutex::new(None),
                specs: Mutex::new(HashMap::new()),
                last_kind: AtomicU8::new(0),
                launches: AtomicU64::new(0),
                last_pid: Mutex::new(None),
                profiles: Mutex::new(Vec::new()),
                shut_down: AtomicBool::new(false),
            }),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ChromiumConfig {
        &self.inner.config
    }

    /// The managed browser's process id (`None` before launch or when
    /// attached). Its helpers share its process group.
    pub fn browser_pid(&self) -> Option<u32> {
        self.inner.last_pid.lock().ok().and_then(|p| *p)
    }

    /// The profile folders of every managed launch so far (temporary ones
    /// are deleted at shutdown). Chromium's crash handlers name their folder
    /// in `--database=`, which is how a test recognises them.
    pub fn profile_dirs(&self) -> Vec<PathBuf> {
        self.inner
            .profiles
            .lock()
            .map(|p| p.clone())
            .unwrap_or_default()
    }

    /// How many browsers were launched or attached so far.
    pub fn launches(&self) -> u64 {
        self.inner.launches.load(Ordering::Relaxed)
    }

    /// The runtime that ran last (`None` before the first call).
    pub fn runtime_kind(&self) -> Option<RuntimeKind> {
        match self.inner.last_kind.load(Ordering::Relaxed) {
            1 => Some(RuntimeKind::Managed),
            2 => Some(RuntimeKind::Attached),
            _ => None,
        }
    }

    /// The partition of the browser that runs now (before the first call:
    /// the configured choice's).
    fn current_partition(&self) -> Partition {
        match self.runtime_kind() {
            Some(kind) => self.inner.config.partition_of(kind),
            None => self.inner.config.partition(),
        }
    }

    fn gate(&self) -> Result<(), BrowserError> {
        if self.inner.shut_down.load(Ordering::Relaxed) {
            return Err(BrowserError::ShutDown);
        }
        if self.current_partition() == Partition::Login {
            pro_mode::require(&self.inner.config.home, login_what(&self.inner.config))?;
        }
        Ok(())
    }

    /// The live session, launching or attaching first if there is none or
    /// the last one died.
    async fn session(&self) -> Result<Arc<Session>, BrowserError> {
        self.gate()?;
        let mut slot = self.inner.session.lock().await;
        if let Some(session) = slot.as_ref() {
            match session.death() {
                None => return Ok(session.clone()),
                Some(why) => {
                    tracing::warn!(target: "ferret_browser", "browser died ({why}); relaunching");
                    let dead = slot.take();
                    if let Some(dead) = dead {
                        dead.teardown(false).await;
                    }
                }
            }
        }
        let session = Arc::new(self.connect().await?);
        self.inner.launches.fetch_add(1, Ordering::Relaxed);
        self.inner
            .last_kind
            .store(kind_code(session.kind), Ordering::Relaxed);
        if let Ok(mut p) = self.inner.last_pid.lock() {
            *p = session.pid;
        }
        *slot = Some(session.clone());
        Ok(session)
    }

    async fn connect(&self) -> Result<Session, BrowserError> {
        let config = &self.inner.config;
        match (config.runtime, config.endpoint.as_deref()) {
            (RuntimeChoice::Managed, _) | (RuntimeChoice::Auto, None) => {
                self.launch_managed(&config.executable).await
            }
            (RuntimeChoice::Attached, Some(endpoint)) => self.attach(endpoint).await,
            (RuntimeChoice::Attached, None) => Err(BrowserError::NoRuntime {
                message: format!(
                    "the attached runtime needs the browser's DevTools endpoint: set {} \
                     (e.g. http://127.0.0.1:9222, from a Chrome started with \
                     --remote-debugging-port=9222)",
                    crate::config::CDP_URL_ENV
                ),
            }),
            (RuntimeChoice::Auto, Some(endpoint)) => {
                match self.launch_managed(&config.executable).await {
                    Ok(session) => Ok(session),
                    Err(managed_err) => self.fall_back_to_attached(endpoint, managed_err).await,
                }
            }
        }
    }

    /// Auto's fallback when Chromium could not start: the attached browser,
    /// behind the pro-mode gate when it reads in the login partition.
    async fn fall_back_to_attached(
        &self,
        endpoint: &str,
        managed_err: BrowserError,
    ) -> Result<Session, BrowserError> {
        let config = &self.inner.config;
        if config.attached_partition == Partition::Login {
            pro_mode::require(
                &config.home,
                "falling back to the attached browser (FERRET_CDP_URL)",
            )
            .map_err(|gate| BrowserError::NoRuntime {
                message: format!("managed: {managed_err}; attached: {gate}"),
            })?;
        }
        self.attach(endpoint)
            .await
            .map_err(|attach_err| BrowserError::NoRuntime {
                message: format!("managed: {managed_err}; attached: {attach_err}"),
            })
    }

    fn handler_config(&self) -> HandlerConfig {
        let c = &self.inner.config;
        HandlerConfig {
            viewport: None,
            request_intercept: false,
            // Our own timeouts bound every call; the handler's must not cut a
            // long in-page wait short.
            request_timeout: c.page_load_timeout.max(c.call_timeout) + Duration::from_secs(5),
            ..HandlerConfig::default()
        }
    }

    async fn launch_managed(&self, executable: &std::path::Path) -> Result<Session, BrowserError> {
        let config = &self.inner.config;
        let rules = ResolverRules::parse(config.host_resolver_rules.as_deref().unwrap_or(""));
        let egress = EgressProxy::start(config.guard.clone(), rules)
            .await
            .map_err(|e| BrowserError::LaunchFailed {
                path: executable.to_path_buf(),
                message: format!("could not start its egress proxy on loopback: {e}"),
            })?;
        let mut launched = process::launch(config, executable, Some(&egress)).await?;
        if let Ok(mut p) = self.inner.profiles.lock() {
            p.push(launched.profile_path().to_path_buf());
        }
        let connected = tokio::time::timeout(
            config.launch_timeout,
            Browser::connect_with_config(launched.ws_url.clone(), self.handler_config()),
        )
        .await;
        let (browser, handler) = match connected {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => {
                launched.kill().await;
                return Err(BrowserError::LaunchFailed {
                    path: executable.to_path_buf(),
                    message: format!("could not connect to its DevTools endpoint: {e}"),
                });
            }
            Err(_) => {
                launched.kill().await;
                return Err(BrowserError::LaunchFailed {
                    path: executable.to_path_buf(),
                    message: "its DevTools endpoint did not answer".into(),
                });
            }
        };
        let pid = Some(launched.pid);
        self.finish_connect(
            RuntimeKind::Managed,
            browser,
            handler,
            Some(launched),
            pid,
            Some(egress),
        )
        .await
    }

    async fn attach(&self, endpoint: &str) -> Result<Session, BrowserError> {
        let config = &self.inner.config;
        let failed = |message: String| BrowserError::AttachFailed {
            endpoint: endpoint.to_string(),
            message,
        };
        if config.guard.is_strict()
            && config.attached_partition == Partition::Public
            && !config.attached_egress_controlled
        {
            return Err(failed(format!(
                "strict mode: a browser Ferret did not launch resolves names and connects by \
                 itself, so its connections cannot be held to the URL guard; use the managed \
                 runtime, or declare the pool's egress as controlled ({}=controlled) if it \
                 already refuses private addresses",
                crate::config::CDP_EGRESS_ENV
            )));
        }
        let lower = endpoint.to_ascii_lowercase();
        if !(lower.starts_with("http://")
            || lower.starts_with("https://")
            || lower.starts_with("ws://")
            || lower.starts_with("wss://"))
        {
            return Err(failed(
                "the endpoint must be http://host:port or a ws:// URL".into(),
            ));
        }
        let connected = tokio::time::timeout(
            config.launch_timeout,
            Browser::connect_with_config(endpoint.to_string(), self.handler_config()),
        )
        .await;
        let (browser, handler) = match connected {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => return Err(failed(e.to_string())),
            Err(_) => return Err(failed("no answer within the launch timeout".into())),
        };
        self.finish_connect(RuntimeKind::Attached, browser, handler, None, None, None)
            .await
    }

    async fn finish_connect(
        &self,
        kind: RuntimeKind,
        browser: Browser,
        mut handler: chromiumoxide::Handler,
        launched: Option<Launched>,
        pid: Option<u32>,
        egress: Option<EgressProxy>,
    ) -> Result<Session, BrowserError> {
        let handler_done = Arc::new(AtomicBool::new(false));
        let done = handler_done.clone();
        let handler_task = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                if let Err(e) = event {
                    tracing::debug!(target: "ferret_browser", "CDP handler stopped: {e}");
                    break;
                }
            }
            done.store(true, Ordering::Relaxed);
        });
        let session = Session {
            kind,
            browser,
            handler: handler_task,
            handler_done,
            process: Mutex::new(launched),
            pid,
            version: String::new(),
            spaces: tokio::sync::Mutex::new(HashMap::new()),
            dead: AtomicBool::new(false),
            egress,
        };
        match tokio::time::timeout(self.inner.config.call_timeout, session.browser.version()).await
        {
            Ok(Ok(v)) => Ok(Session {
                version: v.product,
                ..session
            }),
            Ok(Err(e)) => {
                session.teardown(false).await;
                Err(BrowserError::cdp("reading the browser version", e))
            }
            Err(_) => {
                session.teardown(false).await;
                Err(BrowserError::Timeout {
                    operation: "reading the browser version".into(),
                    after: self.inner.config.call_timeout,
                })
            }
        }
    }

    /// Run `op` on the live session, racing the browser's death. A call
    /// that fails while the browser is dead reports
    /// [`BrowserError::BrowserDied`].
    async fn run<T, F, Fut>(&self, what: &str, op: F) -> Result<T, BrowserError>
    where
        F: FnOnce(Arc<Session>) -> Fut,
        Fut: std::future::Future<Output = Result<T, BrowserError>>,
    {
        let session = self.session().await?;
        let watch = session.clone();
        let result = tokio::select! {
            r = op(session.clone()) => r,
            why = watch.died() => Err(BrowserError::BrowserDied { operation: what.to_string(), message: why }),
        };
        match result {
            Err(e @ BrowserError::BrowserDied { .. }) => Err(e),
            Err(e @ (BrowserError::Timeout { .. } | BrowserError::Cdp { .. })) => {
                if let Some(why) = self.probe_dead(&session).await {
                    Err(BrowserError::BrowserDied {
                        operation: what.to_string(),
                        message: why,
                    })
                } else {
                    Err(e)
                }
            }
            other => other,
        }
    }

    /// After a failed call: is the browser dead? (An attached browser is
    /// probed with a version request.)
    async fn probe_dead(&self, session: &Session) -> Option<String> {
        if let Some(why) = session.death() {
            return Some(why);
        }
        if session.kind == RuntimeKind::Attached {
            let probe =
                tokio::time::timeout(Duration::from_secs(2), session.browser.version()).await;
            if !matches!(probe, Ok(Ok(_))) {
                session.dead.store(true, Ordering::Relaxed);
                return Some("the attached browser stopped answering".into());
            }
        }
        None
    }

    fn remember(&self, spec: &TaskSpaceSpec) {
        if let Ok(mut specs) = self.inner.specs.lock() {
            specs.insert(spec.name.clone(), spec.clone());
        }
    }

    fn spec_for(&self, name: &str) -> TaskSpaceSpec {
        self.inner
            .specs
            .lock()
            .ok()
            .and_then(|s| s.get(name).cloned())
            .unwrap_or_else(|| TaskSpaceSpec::new(name).max_tabs(self.inner.config.max_tabs))
    }

    /// The space called `name` in `session`, opened (or re-opened after a
    /// relaunch) if needed.
    async fn space(&self, session: &Session, name: &str) -> Result<Arc<Space>, BrowserError> {
        if name.trim().is_empty() {
            return Err(BrowserError::invalid("the task space name is empty"));
        }
        let spec = self.spec_for(name);
        self.open_in(session, &spec).await
    }

    async fn open_in(
        &self,
        session: &Session,
        spec: &TaskSpaceSpec,
    ) -> Result<Arc<Space>, BrowserError> {
        let mut spaces = session.spaces.lock().await;
        if let Some(space) = spaces.get(&spec.name) {
            return Ok(space.clone());
        }
        let isolated = session.kind == RuntimeKind::Managed
            && matches!(self.inner.config.profile, Profile::Ephemeral);
        let space = Space::open(
            &session.browser,
            spec.clone(),
            isolated,
            self.inner.config.call_timeout,
        )
        .await?;
        let space = Arc::new(space);
        spaces.insert(spec.name.clone(), space.clone());
        self.remember(spec);
        Ok(space)
    }

    async fn active_tab(&self, session: &Session, name: &str) -> Result<Arc<Tab>, BrowserError> {
        let space = self.space(session, name).await?;
        space
            .active(
                &session.browser,
                &self.inner.config.guard,
                self.inner.config.call_timeout,
            )
            .await
    }

    /// What this runtime reads as now: the browser that runs (or, before
    /// the first call, the one the configuration would start).
    fn provenance_now(&self) -> Provenance {
        let kind = self
            .runtime_kind()
            .unwrap_or(match self.inner.config.runtime {
                RuntimeChoice::Attached => RuntimeKind::Attached,
                RuntimeChoice::Managed | RuntimeChoice::Auto => RuntimeKind::Managed,
            });
        self.provenance_of(kind)
    }

    /// What a read by a browser of `kind` is: its runtime, and the
    /// partition the configuration gives that kind.
    fn provenance_of(&self, kind: RuntimeKind) -> Provenance {
        Provenance::of(self.inner.config.partition_of(kind), kind.runtime())
    }
}

fn login_what(config: &ChromiumConfig) -> &'static str {
    match (config.runtime, &config.profile) {
        (RuntimeChoice::Attached, _) => "attaching to a running browser",
        _ => "the persistent browser profile",
    }
}

/// Evaluate `expression` in `page` (promises awaited, value returned as
/// JSON) within `budget`.
pub(crate) async fn evaluate(
    page: &chromiumoxide::Page,
    expression: String,
    budget: Duration,
    what: &str,
) -> Result<Value, BrowserError> {
    let params = EvaluateParams::builder()
        .expression(expression)
        .await_promise(true)
        .return_by_value(true)
        .build()
        .map_err(|e| BrowserError::cdp(what, e))?;
    let response = tokio::time::timeout(budget, page.execute(params))
        .await
        .map_err(|_| BrowserError::Timeout {
            operation: what.to_string(),
            after: budget,
        })?
        .map_err(|e| BrowserError::cdp(what, e))?;
    if let Some(ex) = &response.result.exception_details {
        let message = ex
            .exception
            .as_ref()
            .and_then(|e| e.description.clone())
            .unwrap_or_else(|| ex.text.clone());
        return Err(BrowserError::Script { message });
    }
    Ok(response.result.result.value.clone().unwrap_or(Value::Null))
}

/// An evaluation that failed because the page navigated away under it (a
/// reload, a redirect by script): worth running again in the new document.
fn is_context_lost(e: &BrowserError) -> bool {
    let msg = match e {
        BrowserError::Cdp { message, .. } | BrowserError::Script { message } => message,
        _ => return false,
    };
    [
        "Execution context was destroyed",
        "Cannot find context",
        "Inspected target navigated",
        "Promise was collected",
        "context with specified id",
    ]
    .iter()
    .any(|m| msg.contains(m))
}

/// [`evaluate`], run again (until `budget` is spent) when the document is
/// replaced during the evaluation.
async fn evaluate_across_navigation(
    page: &chromiumoxide::Page,
    expression: &(dyn Fn(Duration) -> String + Sync),
    budget: Duration,
    floor: Duration,
    what: &str,
) -> Result<Value, BrowserError> {
    let start = Instant::now();
    loop {
        let left = budget.saturating_sub(start.elapsed());
        match evaluate(page, expression(left), left.max(floor), what).await {
            Err(e) if is_context_lost(&e) && left > Duration::from_millis(300) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => return other,
        }
    }
}

/// The longest a settled / network-idle wait lasts before the page is read
/// as it is.
pub const SETTLE_CAP: Duration = Duration::from_secs(10);

fn wait_arg(wait: &WaitFor, max: Duration) -> Value {
    // Leave time to read the page after an in-page wait gives up.
    let margin = (max / 4).min(Duration::from_secs(1));
    let max_ms = max.saturating_sub(margin).as_millis() as u64;
    match wait {
        WaitFor::DomReady => json!({"kind": "dom_ready", "max_ms": max_ms}),
        WaitFor::Load => json!({"kind": "load", "max_ms": max_ms}),
        WaitFor::Selector { css } => json!({"kind": "selector", "css": css, "max_ms": max_ms}),
        WaitFor::NetworkIdle { .. } => json!({"kind": "network_idle", "max_ms": max_ms}),
        WaitFor::Settled { quiet_ms } => {
            json!({"kind": "settled", "quiet_ms": quiet_ms, "max_ms": max_ms})
        }
    }
}

/// Wait in `tab` until `wait` holds or `budget` runs out; returns whether it
/// held. DOM conditions are watched inside the page; network quiet is read
/// from the tab's watcher.
async fn wait_in(tab: &Tab, wait: &WaitFor, budget: Duration) -> Result<bool, BrowserError> {
    let start = Instant::now();
    // A page that never settles (a ticking clock, a long poll) is read after
    // SETTLE_CAP rather than at the end of the page budget.
    let budget = match wait {
        WaitFor::Settled { .. } | WaitFor::NetworkIdle { .. } => budget.min(SETTLE_CAP),
        _ => budget,
    };
    let slack = Duration::from_secs(2);
    let network_quiet = match wait {
        WaitFor::NetworkIdle { idle_ms } => Some(Duration::from_millis(*idle_ms)),
        WaitFor::Settled { quiet_ms } => Some(Duration::from_millis(*quiet_ms)),
        _ => None,
    };
    loop {
        let left = budget.saturating_sub(start.elapsed());
        let value = evaluate_across_navigation(
            &tab.page,
            &|left| scripts::call(scripts::WAIT, &wait_arg(wait, left)),
            left,
            slack,
            "waiting in the page",
        )
        .await?;
        let met = value.get("met").and_then(Value::as_bool).unwrap_or(false);
        let Some(quiet) = network_quiet else {
            return Ok(met);
        };
        if !met {
            return Ok(false);
        }
        // The DOM condition holds; now the network must be quiet too.
        let mut waited = false;
        loop {
            let q = tab.state.network_quiet_for();
            if q >= quiet {
                break;
            }
            if start.elapsed() >= budget {
                return Ok(false);
            }
            waited = true;
            tokio::time::sleep((quiet - q).min(Duration::from_millis(100))).await;
        }
        // Settled: if requests finished meanwhile, they may have changed the
        // DOM; confirm it is still quiet.
        if !waited || matches!(wait, WaitFor::NetworkIdle { .. }) {
            return Ok(true);
        }
    }
}

/// One render's time: its start, its whole budget and the floor of each CDP
/// call.
struct RenderClock {
    start: Instant,
    /// Requests blocked from here on belong to this render.
    blocked_since: std::time::Instant,
    budget: Duration,
    call_timeout: Duration,
}

impl RenderClock {
    /// What is left of the budget.
    fn left(&self) -> Duration {
        self.budget.saturating_sub(self.start.elapsed())
    }
}

/// Navigate `tab` to `url`, wait as `options` ask and read the page — the
/// wait and the read in one evaluation when the wait can run in the page.
async fn render_on_tab(
    tab: &Tab,
    url: &str,
    options: &RenderOptions,
    clock: &RenderClock,
    egress: Option<&EgressProxy>,
    provenance: Provenance,
) -> Result<RenderedPage, BrowserError> {
    goto(tab, url, clock.left(), egress).await?;
    let left = clock.left();
    let met = match &options.wait {
        // One round trip: wait and read in the same evaluation.
        WaitFor::DomReady | WaitFor::Load | WaitFor::Selector { .. } => None,
        other => Some(wait_in(tab, other, left).await?),
    };
    let read_arg = json!({"include_html": options.include_html, "clean": true});
    let expression = |left: Duration| match met {
        Some(_) => scripts::call(scripts::READ, &read_arg),
        None => format!(
            "{}.then(w => Object.assign({}, {{met: w.met}}))",
            scripts::call(scripts::WAIT, &wait_arg(&options.wait, left)),
            scripts::call(scripts::READ, &read_arg)
        ),
    };
    let read = evaluate_across_navigation(
        &tab.page,
        &expression,
        clock.left(),
        clock.call_timeout,
        "reading the page",
    )
    .await?;
    let final_url = str_field(&read, "url");
    let met = met.unwrap_or_else(|| read.get("met").and_then(Value::as_bool).unwrap_or(false));
    Ok(RenderedPage {
        requested_url: url.to_string(),
        http_status: tab.state.document_status(&final_url),
        final_url,
        title: str_field(&read, "title"),
        main_text: str_field(&read, "main_text"),
        main_source: str_field(&read, "main_source"),
        body_text: str_field(&read, "body_text"),
        html: read.get("html").and_then(Value::as_str).map(str::to_string),
        wait_satisfied: met,
        blocked: blocked_during(tab, egress, clock.blocked_since),
        elapsed_ms: clock.start.elapsed().as_millis() as u64,
        provenance,
    })
}

/// Navigate `tab` to `url` within `budget`; a guard-blocked main document
/// becomes [`BrowserError::Blocked`].
async fn goto(
    tab: &Tab,
    url: &str,
    budget: Duration,
    egress: Option<&EgressProxy>,
) -> Result<(), BrowserError> {
    tab.state.reset();
    let started = std::time::Instant::now();
    let result = tokio::time::timeout(budget, tab.page.goto(url)).await;
    // The document refused by the tab's interception, or by the egress
    // proxy (strict mode's resolved-address check happens only there).
    let blocked_doc = || {
        tab.state
            .blocked()
            .into_iter()
            .find(|b| b.resource_type == "Document")
            .or_else(|| egress.and_then(|e| e.refusal_of_origin(url, started)))
    };
    match result {
        Err(_) => Err(BrowserError::Timeout {
            operation: format!("navigate {url}"),
            after: budget,
        }),
        Ok(Err(e)) => {
            if let Some(b) = blocked_doc() {
                return Err(blocked_error(&b));
            }
            Err(BrowserError::Navigation {
                url: url.to_string(),
                message: e.to_string(),
            })
        }
        Ok(Ok(_)) => {
            if let Some(b) = blocked_doc() {
                // The document (or a redirect hop) was refused: Chromium shows
                // its error page, or the proxy's refusal, instead.
                let now = tokio::time::timeout(Duration::from_secs(2), tab.page.url())
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .flatten();
                let refused_page = now.as_deref().is_none_or(|u| {
                    u.starts_with("chrome-error:")
                        || egress.is_some_and(|e| e.refusal_of_origin(u, started).is_some())
                });
                if refused_page {
                    return Err(blocked_error(&b));
                }
            }
            Ok(())
        }
    }
}

/// What the guard blocked while a page rendered: the tab's intercepted
/// requests, and what the egress proxy refused meanwhile (WebSockets,
/// workers, preconnects, addresses strict mode refused).
fn blocked_during(
    tab: &Tab,
    egress: Option<&EgressProxy>,
    since: std::time::Instant,
) -> Vec<crate::runtime::BlockedRequest> {
    let mut blocked = tab.state.blocked();
    for refused in egress.map(|e| e.refusals_since(since)).unwrap_or_default() {
        if !blocked.iter().any(|b| b.url == refused.url) {
            blocked.push(refused);
        }
    }
    blocked
}

fn blocked_error(b: &crate::runtime::BlockedRequest) -> BrowserError {
    BrowserError::Blocked {
        guard: ferret_core::guard::UrlGuard::new()
            .check(&b.url)
            .err()
            .unwrap_or_else(|| ferret_core::guard::GuardError {
                reason: b.reason,
                url: b.url.clone(),
                detail: "refused by the URL guard".into(),
            }),
    }
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

fn target_arg(target: &Target) -> Value {
    match target {
        Target::Ref(n) => json!({"by": "ref", "value": n}),
        Target::Css(css) => json!({"by": "css", "value": css}),
        Target::Text(text) => json!({"by": "text", "value": text}),
    }
}

#[async_trait]
impl BrowserRuntime for ChromiumRuntime {
    fn partition(&self) -> Partition {
        self.current_partition()
    }

    fn provenance(&self) -> Provenance {
        self.provenance_now()
    }

    fn guard(&self) -> &ferret_core::guard::UrlGuard {
        &self.inner.config.guard
    }

    async fn status(&self) -> Result<RuntimeStatus, BrowserError> {
        let config = &self.inner.config;
        let executable = (config.runtime != RuntimeChoice::Attached)
            .then(|| config.executable.display().to_string());
        let endpoint = config.endpoint.clone();
        let mut status = RuntimeStatus {
            runtime: self.runtime_kind(),
            partition: self.current_partition(),
            connected: false,
            browser_version: None,
            pid: None,
            executable,
            endpoint,
            launches: self.launches(),
            spaces: Vec::new(),
        };
        let session = self.session().await?;
        status.connected = session.death().is_none();
        status.runtime = Some(session.kind);
        status.partition = self.current_partition();
        status.browser_version = Some(session.version.clone());
        status.pid = session.pid;
        status.launches = self.launches();
        status.spaces = self.list_spaces().await;
        Ok(status)
    }

    async fn open_space(&self, spec: &TaskSpaceSpec) -> Result<TaskSpaceInfo, BrowserError> {
        if spec.name.trim().is_empty() {
            return Err(BrowserError::invalid("the task space name is empty"));
        }
        let spec = spec.clone().max_tabs(spec.max_tabs);
        self.remember(&spec);
        self.run(
            &format!("open task space {:?}", spec.name),
            |s| async move {
                let space = self.open_in(&s, &spec).await?;
                Ok(space.info())
            },
        )
        .await
    }

    async fn close_space(&self, name: &str) -> Result<(), BrowserError> {
        if let Ok(mut specs) = self.inner.specs.lock() {
            specs.remove(name);
        }
        let session = self.inner.session.lock().await.clone();
        let Some(session) = session else {
            return Ok(());
        };
        let space = session.spaces.lock().await.remove(name);
        if let Some(space) = space {
            space
                .close(&session.browser, self.inner.config.call_timeout)
                .await;
        }
        Ok(())
    }

    async fn complete_space(&self, name: &str) -> Result<bool, BrowserError> {
        let keep = self
            .inner
            .specs
            .lock()
            .ok()
            .and_then(|s| s.get(name).map(|spec| spec.keep))
            .unwrap_or(false);
        if keep {
            return Ok(false);
        }
        self.close_space(name).await?;
        Ok(true)
    }

    async fn list_spaces(&self) -> Vec<TaskSpaceInfo> {
        let session = self.inner.session.lock().await.clone();
        let Some(session) = session else {
            return Vec::new();
        };
        let spaces = session.spaces.lock().await;
        let mut out: Vec<TaskSpaceInfo> = spaces.values().map(|s| s.info()).collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    async fn render(
        &self,
        space: &str,
        url: &str,
        options: &RenderOptions,
    ) -> Result<RenderedPage, BrowserError> {
        self.inner.config.guard.check(url)?;
        let budget = options
            .timeout
            .unwrap_or(self.inner.config.page_load_timeout);
        let call_timeout = self.inner.config.call_timeout;
        self.run(&format!("render {url}"), |session| async move {
            let clock = RenderClock {
                start: Instant::now(),
                blocked_since: std::time::Instant::now(),
                budget,
                call_timeout,
            };
            // The browser that serves this render, not the one configured:
            // auto may have fallen back to the attached browser.
            let provenance = self.provenance_of(session.kind);
            let space = self.space(&session, space).await?;
            let lease = tokio::time::timeout(
                budget,
                space.lease(&session.browser, &self.inner.config.guard, call_timeout),
            )
            .await
            .map_err(|_| BrowserError::Timeout {
                operation: format!("waiting for a free tab in {:?}", space.spec.name),
                after: budget,
            })??;
            let tab = lease.tab();
            let outcome = render_on_tab(
                tab,
                url,
                options,
                &clock,
                session.egress.as_ref(),
                provenance,
            )
            .await;
            match &outcome {
                Ok(_)
                | Err(BrowserError::Blocked { .. })
                | Err(BrowserError::Navigation { .. }) => lease.give_back(),
                Err(_) => lease.discard(call_timeout),
            }
            outcome
        })
        .await
    }

    async fn navigate(
        &self,
        space: &str,
        url: &str,
        wait: &WaitFor,
    ) -> Result<PageInfo, BrowserError> {
        self.inner.config.guard.check(url)?;
        let budget = self.inner.config.page_load_timeout;
        self.run(&format!("navigate {url}"), |session| async move {
            let start = Instant::now();
            let tab = self.active_tab(&session, space).await?;
            goto(&tab, url, budget, session.egress.as_ref()).await?;
            wait_in(&tab, wait, budget.saturating_sub(start.elapsed())).await?;
            page_info(&tab, self.inner.config.call_timeout).await
        })
        .await
    }

    async fn wait(
        &self,
        space: &str,
        wait: &WaitFor,
        timeout: Option<Duration>,
    ) -> Result<bool, BrowserError> {
        let budget = timeout.unwrap_or(self.inner.config.page_load_timeout);
        self.run("wait", |session| async move {
            let tab = self.active_tab(&session, space).await?;
            wait_in(&tab, wait, budget).await
        })
        .await
    }

    async fn evaluate(&self, space: &str, script: &str) -> Result<Value, BrowserError> {
        let budget = self.inner.config.page_load_timeout;
        self.run("evaluate", |session| async move {
            let tab = self.active_tab(&session, space).await?;
            evaluate(&tab.page, script.to_string(), budget, "evaluate").await
        })
        .await
    }

    async fn current_page(&self, space: &str) -> Result<Option<PageInfo>, BrowserError> {
        self.run("current page", |session| async move {
            let space = self.space(&session, space).await?;
            match space.active_if_open().await {
                None => Ok(None),
                Some(tab) => page_info(&tab, self.inner.config.call_timeout)
                    .await
                    .map(Some),
            }
        })
        .await
    }

    async fn html(&self, space: &str) -> Result<String, BrowserError> {
        let budget = self.inner.config.call_timeout;
        self.run("read html", |session| async move {
            let tab = self.active_tab(&session, space).await?;
            let v = evaluate(
                &tab.page,
                "document.documentElement ? document.documentElement.outerHTML : ''".into(),
                budget,
                "read html",
            )
            .await?;
            Ok(v.as_str().unwrap_or("").to_string())
        })
        .await
    }

    async fn click(&self, space: &str, target: &Target) -> Result<(), BrowserError> {
        let budget = self.inner.config.call_timeout;
        self.run(&format!("click {target}"), |session| async move {
            let tab = self.active_tab(&session, space).await?;
            let mut arg = target_arg(target);
            arg["focus"] = json!(false);
            let at = evaluate(
                &tab.page,
                scripts::call(scripts::LOCATE, &arg),
                budget,
                "locating an element",
            )
            .await?;
            if !at.get("found").and_then(Value::as_bool).unwrap_or(false) {
                return Err(BrowserError::ElementNotFound {
                    target: target.to_string(),
                });
            }
            let point = Point {
                x: at.get("x").and_then(Value::as_f64).unwrap_or(0.0),
                y: at.get("y").and_then(Value::as_f64).unwrap_or(0.0),
            };
            tokio::time::timeout(budget, tab.page.click(point))
                .await
                .map_err(|_| BrowserError::Timeout {
                    operation: format!("click {target}"),
                    after: budget,
                })?
                .map_err(|e| BrowserError::cdp(format!("click {target}"), e))?;
            Ok(())
        })
        .await
    }

    async fn fill(&self, space: &str, target: &Target, value: &str) -> Result<(), BrowserError> {
        let budget = self.inner.config.call_timeout;
        self.run(&format!("fill {target}"), |session| async move {
            let tab = self.active_tab(&session, space).await?;
            let mut arg = target_arg(target);
            arg["text"] = json!(value);
            let r = evaluate(
                &tab.page,
                scripts::call(scripts::FILL, &arg),
                budget,
                "filling an input",
            )
            .await?;
            if r.get("found").and_then(Value::as_bool).unwrap_or(false) {
                Ok(())
            } else {
                Err(BrowserError::ElementNotFound {
                    target: target.to_string(),
                })
            }
        })
        .await
    }

    async fn press(&self, space: &str, key: &str) -> Result<(), BrowserError> {
        let Some(def) = chromiumoxide::keys::get_key_definition(key) else {
            return Err(BrowserError::invalid(format!(
                "unknown key {key:?}; use a DOM key name such as Enter, Tab, Escape, ArrowDown or a single character"
            )));
        };
        let budget = self.inner.config.call_timeout;
        self.run(&format!("press {key}"), |session| async move {
            let tab = self.active_tab(&session, space).await?;
            let text = def
                .text
                .map(str::to_string)
                .or_else(|| (def.key.chars().count() == 1).then(|| def.key.to_string()));
            let down_type = if text.is_some() {
                DispatchKeyEventType::KeyDown
            } else {
                DispatchKeyEventType::RawKeyDown
            };
            let build = |t: DispatchKeyEventType, with_text: bool| {
                let mut b = DispatchKeyEventParams::builder()
                    .r#type(t)
                    .key(def.key)
                    .code(def.code)
                    .windows_virtual_key_code(def.key_code)
                    .native_virtual_key_code(def.key_code);
                if with_text && let Some(text) = &text {
                    b = b.text(text.clone());
                }
                b.build().map_err(|e| BrowserError::cdp("press", e))
            };
            for params in [
                build(down_type, true)?,
                build(DispatchKeyEventType::KeyUp, false)?,
            ] {
                tokio::time::timeout(budget, tab.page.execute(params))
                    .await
                    .map_err(|_| BrowserError::Timeout {
                        operation: format!("press {key}"),
                        after: budget,
                    })?
                    .map_err(|e| BrowserError::cdp(format!("press {key}"), e))?;
            }
            Ok(())
        })
        .await
    }

    async fn scroll_until(
        &self,
        space: &str,
        options: &ScrollOptions,
    ) -> Result<ScrollReport, BrowserError> {
        let call_timeout = self.inner.config.call_timeout;
        self.run("scroll until", |session| async move {
            let tab = self.active_tab(&session, space).await?;
            let arg = json!({
                "load_more": options.load_more,
                "items": options.item_selector,
                "stall_ms": options.stall_ms,
            });
            let mut report = ScrollReport {
                rounds: 0,
                clicks: 0,
                items: 0,
                stopped: ScrollStop::MaxRounds,
            };
            let mut stalls = 0;
            while report.rounds < options.max_rounds {
                report.rounds += 1;
                let r = evaluate(
                    &tab.page,
                    scripts::call(scripts::SCROLL_ROUND, &arg),
                    Duration::from_millis(options.stall_ms) + call_timeout,
                    "scrolling",
                )
                .await?;
                let before = r.get("before").and_then(Value::as_u64).unwrap_or(0);
                let after = r.get("after").and_then(Value::as_u64).unwrap_or(0);
                if r.get("clicked").and_then(Value::as_bool).unwrap_or(false) {
                    report.clicks += 1;
                }
                report.items = after;
                if let Some(max) = options.max_items
                    && options.item_selector.is_some()
                    && after >= u64::from(max)
                {
                    report.stopped = ScrollStop::MaxItems;
                    return Ok(report);
                }
                if after > before {
                    stalls = 0;
                } else {
                    stalls += 1;
                    if stalls >= options.max_stalls.max(1) {
                        report.stopped = ScrollStop::Stalled;
                        return Ok(report);
                    }
                }
            }
            Ok(report)
        })
        .await
    }

    async fn snapshot(&self, space: &str) -> Result<Snapshot, BrowserError> {
        let budget = self.inner.config.call_timeout;
        self.run("snapshot", |session| async move {
            let tab = self.active_tab(&session, space).await?;
            let v = evaluate(
                &tab.page,
                scripts::call(scripts::SNAPSHOT, &json!({"max_chars": 200_000})),
                budget,
                "snapshot",
            )
            .await?;
            serde_json::from_value::<Snapshot>(v).map_err(|e| BrowserError::Script {
                message: format!("snapshot returned an unexpected shape: {e}"),
            })
        })
        .await
    }

    async fn screenshot(&self, space: &str, full_page: bool) -> Result<Vec<u8>, BrowserError> {
        let budget = self.inner.config.page_load_timeout;
        self.run("screenshot", |session| async move {
            let tab = self.active_tab(&session, space).await?;
            let params = ScreenshotParams::builder()
                .format(CaptureScreenshotFormat::Png)
                .full_page(full_page)
                .build();
            tokio::time::timeout(budget, tab.page.screenshot(params))
                .await
                .map_err(|_| BrowserError::Timeout {
                    operation: "screenshot".into(),
                    after: budget,
                })?
                .map_err(|e| BrowserError::cdp("screenshot", e))
        })
        .await
    }

    async fn shutdown(&self) -> Result<(), BrowserError> {
        self.inner.shut_down.store(true, Ordering::Relaxed);
        let session = self.inner.session.lock().await.take();
        if let Some(session) = session {
            session.teardown(true).await;
        }
        Ok(())
    }
}

async fn page_info(tab: &Tab, budget: Duration) -> Result<PageInfo, BrowserError> {
    let v = evaluate(
        &tab.page,
        "({url: location.href, title: document.title || ''})".into(),
        budget,
        "reading the page location",
    )
    .await?;
    Ok(PageInfo {
        url: str_field(&v, "url"),
        title: str_field(&v, "title"),
    })
}
