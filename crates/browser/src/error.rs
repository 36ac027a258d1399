//! [`BrowserError`]: the typed failure of a browser call. Each message says
//! what went wrong and what to do about it; code matches on the variant.

use std::path::PathBuf;
use std::time::Duration;

use ferret_core::guard::{GuardError, GuardReason};

/// What a browser call can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BrowserError {
    /// No Chromium executable at the configured path.
    #[error(
        "no Chromium executable at {}: install Chromium (Debian: `apt-get install chromium`) \
         or point FERRET_CHROMIUM / ChromiumConfig::executable at a Chrome or Chromium binary",
        .path.display()
    )]
    NotFound {
        /// The path that was tried.
        path: PathBuf,
    },
    /// Chromium was found but did not start (or did not open its DevTools
    /// endpoint in time).
    #[error(
        "Chromium at {} failed to start: {message}; check that it runs \
         (`{} --headless --version`), that the profile directory is not in use by another \
         browser, and that there is enough memory",
        .path.display(), .path.display()
    )]
    LaunchFailed {
        /// The executable that was started.
        path: PathBuf,
        /// What happened (the browser's last stderr lines, an exit status or
        /// a timeout).
        message: String,
    },
    /// Connecting to a running browser's CDP endpoint failed.
    #[error(
        "could not attach to the browser at {endpoint}: {message}; start Chrome with \
         --remote-debugging-port=9222 and set FERRET_CDP_URL=http://127.0.0.1:9222 (or a ws:// URL)"
    )]
    AttachFailed {
        /// The endpoint that was tried.
        endpoint: String,
        /// What failed.
        message: String,
    },
    /// Neither a managed nor an attached runtime is available.
    #[error("no browser runtime available: {message}")]
    NoRuntime {
        /// Why each candidate failed.
        message: String,
    },
    /// A call did not finish within its time budget.
    #[error(
        "{operation} timed out after {} ms; the page or browser is slow or stuck — retry, or \
         raise the timeout",
        .after.as_millis()
    )]
    Timeout {
        /// What was being done (e.g. `navigate https://…`).
        operation: String,
        /// The budget that ran out.
        after: Duration,
    },
    /// The browser process exited or its connection closed during the call.
    /// The next call relaunches a managed browser.
    #[error(
        "the browser died during {operation}: {message}; the next call relaunches a managed \
         browser (an attached one must be restarted by its owner)"
    )]
    BrowserDied {
        /// What was being done.
        operation: String,
        /// What was observed (exit status, closed connection).
        message: String,
    },
    /// The URL guard refused a navigation, API call or subrequest.
    #[error("navigation blocked: {guard}")]
    Blocked {
        /// The guard's verdict (reason code, URL, detail, hint).
        guard: GuardError,
    },
    /// The call needs the login partition and pro mode is off.
    #[error(
        "{what} uses the login partition (a persistent profile or an attached browser) and pro \
         mode is off; only a person may turn it on, with `ferret pro enable`"
    )]
    ProModeRequired {
        /// What was refused.
        what: String,
    },
    /// The Chrome DevTools Protocol returned an error.
    #[error("CDP error during {operation}: {message}")]
    Cdp {
        /// What was being done.
        operation: String,
        /// The protocol's message.
        message: String,
    },
    /// The page failed to load (DNS, connection refused, HTTP error page …).
    #[error("navigation to {url} failed: {message}")]
    Navigation {
        /// The URL that was loaded.
        url: String,
        /// Chromium's error text (e.g. `net::ERR_CONNECTION_REFUSED`).
        message: String,
    },
    /// A script evaluated in the page threw.
    #[error("script error: {message}")]
    Script {
        /// The exception text.
        message: String,
    },
    /// An element reference or selector matched nothing.
    #[error("no element matches {target}; take a fresh snapshot and use one of its [ref=N] ids")]
    ElementNotFound {
        /// The target as given.
        target: String,
    },
    /// No task space of that name exists.
    #[error("no task space named {name:?}; open it first (BrowserRuntime::open_space)")]
    NoSuchSpace {
        /// The name asked for.
        name: String,
    },
    /// The caller passed something unusable (empty query, bad option).
    #[error("invalid input: {message}")]
    InvalidInput {
        /// What is wrong.
        message: String,
    },
    /// The search engine answered with a captcha / block page.
    #[error(
        "{engine} served a block or captcha page ({marker}); wait, use another engine, or sign \
         in through the login partition"
    )]
    SerpBlocked {
        /// The engine.
        engine: String,
        /// What was recognised.
        marker: String,
    },
    /// The runtime was shut down.
    #[error("the browser runtime was shut down; create a new one")]
    ShutDown,
    /// A local file (profile, pro-mode state) could not be read or written.
    #[error("{action} {}: {message}", .path.display())]
    Io {
        /// What was being done (`writing pro-mode state`).
        action: String,
        /// The file.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
}

impl BrowserError {
    /// The guard's reason when this is a [`BrowserError::Blocked`].
    pub fn guard_reason(&self) -> Option<GuardReason> {
        match self {
            BrowserError::Blocked { guard } => Some(guard.reason),
            _ => None,
        }
    }

    /// True for failures that a later retry may not repeat (timeouts, a
    /// dead browser, transient CDP errors).
    pub fn is_temporary(&self) -> bool {
        matches!(
            self,
            BrowserError::Timeout { .. }
                | BrowserError::BrowserDied { .. }
                | BrowserError::Cdp { .. }
                | BrowserError::Navigation { .. }
                | BrowserError::SerpBlocked { .. }
        )
    }

    /// A short snake_case code for JSON envelopes.
    pub fn code(&self) -> &'static str {
        match self {
            BrowserError::NotFound { .. } => "not_found",
            BrowserError::LaunchFailed { .. } => "launch_failed",
            BrowserError::AttachFailed { .. } => "attach_failed",
            BrowserError::NoRuntime { .. } => "no_runtime",
            BrowserError::Timeout { .. } => "timeout",
            BrowserError::BrowserDied { .. } => "browser_died",
            BrowserError::Blocked { .. } => "blocked_by_guard",
            BrowserError::ProModeRequired { .. } => "pro_mode_required",
            BrowserError::Cdp { .. } => "cdp_error",
            BrowserError::Navigation { .. } => "navigation_failed",
            BrowserError::Script { .. } => "script_error",
            BrowserError::ElementNotFound { .. } => "element_not_found",
            BrowserError::NoSuchSpace { .. } => "no_such_space",
            BrowserError::InvalidInput { .. } => "invalid_input",
            BrowserError::SerpBlocked { .. } => "serp_blocked",
            BrowserError::ShutDown => "shut_down",
            BrowserError::Io { .. } => "io_error",
        }
    }

    pub(crate) fn cdp(operation: impl Into<String>, err: impl std::fmt::Display) -> Self {
        BrowserError::Cdp {
            operation: operation.into(),
            message: err.to_string(),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        BrowserError::InvalidInput {
            message: message.into(),
        }
    }
}

impl From<GuardError> for BrowserError {
    fn from(guard: GuardError) -> Self {
        BrowserError::Blocked { guard }
    }
}
