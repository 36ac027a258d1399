//! The [`BrowserRuntime`] trait and its types: the contract the evidence
//! crate (browser step of the fetch ladder) and the site-skills crate
//! (navigate / run page tools) code against. [`crate::ChromiumRuntime`]
//! implements it for a managed or attached Chromium.
//!
//! Everything happens inside a named *task space*: an isolated group of tabs
//! (its own browser context on an ephemeral profile) that is reused by name
//! within a process and closed at the end unless it is kept. Interactive
//! calls (`navigate`, `click`, `snapshot`, `evaluate` …) act on the space's
//! *active tab*; [`BrowserRuntime::render`] loads a URL in one of the space's
//! pooled worker tabs, so several renders run concurrently (bounded by
//! [`TaskSpaceSpec::max_tabs`]).

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use ferret_core::guard::UrlGuard;
use ferret_core::{Partition, Provenance, Runtime};
use serde::{Deserialize, Serialize};

use crate::error::BrowserError;

/// Which runtime ran a call. Serialised as `chromium-managed` /
/// `chromium-attached` (the `runtime` provenance field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RuntimeKind {
    /// A Chromium this process launched from a path.
    #[serde(rename = "chromium-managed")]
    Managed,
    /// A running browser reached over its CDP endpoint.
    #[serde(rename = "chromium-attached")]
    Attached,
}

impl RuntimeKind {
    /// `chromium-managed` or `chromium-attached`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeKind::Managed => "chromium-managed",
            RuntimeKind::Attached => "chromium-attached",
        }
    }

    /// The provenance runtime of a read by this kind of browser.
    pub fn runtime(self) -> Runtime {
        match self {
            RuntimeKind::Managed => Runtime::ChromiumManaged,
            RuntimeKind::Attached => Runtime::ChromiumAttached,
        }
    }
}

impl fmt::Display for RuntimeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a runtime reports about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeStatus {
    /// The runtime that is (or would be) used, when known.
    pub runtime: Option<RuntimeKind>,
    /// `public` (ephemeral profile) or `login` (persistent profile or attached
    /// browser).
    pub partition: Partition,
    /// Whether a browser is connected right now.
    pub connected: bool,
    /// The browser's product string (`Chrome/156.0…`), when connected.
    pub browser_version: Option<String>,
    /// The managed browser's process id.
    pub pid: Option<u32>,
    /// The executable a managed runtime launches.
    pub executable: Option<String>,
    /// The CDP endpoint an attached runtime uses.
    pub endpoint: Option<String>,
    /// How many times a browser was (re)launched or attached.
    pub launches: u64,
    /// Open task spaces.
    pub spaces: Vec<TaskSpaceInfo>,
}

/// How to open (or reuse) a task space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSpaceSpec {
    /// The space's name; the same name reuses the same space.
    pub name: String,
    /// Keep the space open when the task completes
    /// ([`BrowserRuntime::complete_space`]).
    pub keep: bool,
    /// At most this many tabs at once (the active tab plus render workers).
    pub max_tabs: usize,
    /// Open the space's tabs as background tabs of one window instead of
    /// one window per tab (the default). Background tabs are hidden pages:
    /// `document.visibilityState` is `hidden`, animation frames do not run
    /// and visibility-triggered lazy loading never fires, so content a page
    /// builds that way may never appear. In exchange the browser renders
    /// less: measured here, ~130 ms instead of ~230 ms of browser CPU per
    /// fetch with 4 tabs (`scripts/bench-browser`). Only the newest tab of
    /// a shared window is visible.
    #[serde(default)]
    pub background_tabs: bool,
}

impl TaskSpaceSpec {
    /// The default space name (`--task-space` when not given).
    pub const DEFAULT_NAME: &'static str = "ferret";
    /// Default tab bound.
    pub const DEFAULT_MAX_TABS: usize = 4;

    /// A space called `name`, not kept, with the default tab bound.
    pub fn new(name: impl Into<String>) -> Self {
        TaskSpaceSpec {
            name: name.into(),
            keep: false,
            max_tabs: Self::DEFAULT_MAX_TABS,
            background_tabs: false,
        }
    }

    /// The space for repeated work on one site: `site:<host>`, kept
    /// (`--site`).
    pub fn for_site(host: &str) -> Self {
        TaskSpaceSpec {
            name: format!("site:{host}"),
            keep: true,
            max_tabs: Self::DEFAULT_MAX_TABS,
            background_tabs: false,
        }
    }

    /// Set [`TaskSpaceSpec::keep`].
    pub fn keep(mut self, keep: bool) -> Self {
        self.keep = keep;
        self
    }

    /// Set [`TaskSpaceSpec::background_tabs`].
    pub fn background_tabs(mut self, background: bool) -> Self {
        self.background_tabs = background;
        self
    }

    /// Set [`TaskSpaceSpec::max_tabs`] (at least 1).
    pub fn max_tabs(mut self, max_tabs: usize) -> Self {
        self.max_tabs = max_tabs.max(1);
        self
    }
}

impl Default for TaskSpaceSpec {
    fn default() -> Self {
        TaskSpaceSpec::new(Self::DEFAULT_NAME)
    }
}

/// An open task space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSpaceInfo {
    /// Its name.
    pub name: String,
    /// Whether it is kept after the task completes.
    pub keep: bool,
    /// Its tab bound.
    pub max_tabs: usize,
    /// Tabs open now.
    pub open_tabs: usize,
    /// Whether it has its own browser context (ephemeral profiles) or shares
    /// the profile's default one (persistent / attached, to inherit logins).
    pub isolated_context: bool,
}

/// What to wait for after a navigation (or on its own with
/// [`BrowserRuntime::wait`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum WaitFor {
    /// The document has been committed and parsed (`DOMContentLoaded`).
    DomReady,
    /// The window `load` event.
    Load,
    /// An element matching a CSS selector is attached to the DOM (watched
    /// with a MutationObserver inside the page, no polling).
    Selector {
        /// The CSS selector.
        css: String,
    },
    /// No network request in flight for `idle_ms` (after `load`).
    NetworkIdle {
        /// The quiet period.
        idle_ms: u64,
    },
    /// `load`, then neither DOM mutations nor network requests for
    /// `quiet_ms`: the default for pages whose text JavaScript inserts later.
    Settled {
        /// The quiet period.
        quiet_ms: u64,
    },
}

impl WaitFor {
    /// The default settle period.
    pub const DEFAULT_QUIET_MS: u64 = 500;

    /// `Settled` with the default quiet period.
    pub fn settled() -> Self {
        WaitFor::Settled {
            quiet_ms: Self::DEFAULT_QUIET_MS,
        }
    }

    /// `Selector` for `css`.
    pub fn selector(css: impl Into<String>) -> Self {
        WaitFor::Selector { css: css.into() }
    }
}

impl Default for WaitFor {
    fn default() -> Self {
        WaitFor::settled()
    }
}

/// Options for [`BrowserRuntime::render`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RenderOptions {
    /// What to wait for before reading the page.
    pub wait: WaitFor,
    /// Budget for the whole render (navigation, wait, read). `None` uses the
    /// runtime's page-load timeout.
    pub timeout: Option<Duration>,
    /// Also return the rendered HTML (`document.documentElement.outerHTML`).
    pub include_html: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            wait: WaitFor::default(),
            timeout: None,
            include_html: true,
        }
    }
}

/// A page as the browser rendered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RenderedPage {
    /// The URL that was asked for.
    pub requested_url: String,
    /// The URL the page ended on (after redirects and scripts).
    pub final_url: String,
    /// `document.title`.
    pub title: String,
    /// The main text: the semantic container with the longest innerText
    /// after boilerplate is removed, or the body's text.
    pub main_text: String,
    /// Which container the main text came from (`article`, `main`, `body` …).
    pub main_source: String,
    /// `document.body.innerText` of the full page.
    pub body_text: String,
    /// The rendered HTML, when asked for.
    pub html: Option<String>,
    /// The main document's HTTP status, when a response was seen.
    pub http_status: Option<u16>,
    /// Whether the wait condition was met (false: it timed out and the page
    /// was read as it was).
    pub wait_satisfied: bool,
    /// Requests of this page the URL guard blocked (subresources, redirect
    /// hops, scripts' fetches).
    pub blocked: Vec<BlockedRequest>,
    /// Milliseconds from the start of the navigation to the read.
    pub elapsed_ms: u64,
    /// Where it came from (partition and runtime).
    pub provenance: Provenance,
}

/// A request the URL guard stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockedRequest {
    /// The URL.
    pub url: String,
    /// The guard's reason code (`private_or_local_host_blocked` …).
    pub reason: ferret_core::guard::GuardReason,
    /// The request's resource type (`Document`, `XHR`, `Fetch`, `Image` …).
    pub resource_type: String,
}

/// The active tab's location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageInfo {
    /// The current URL.
    pub url: String,
    /// `document.title`.
    pub title: String,
}

/// An element to act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "value")]
pub enum Target {
    /// A `[ref=N]` from the latest [`BrowserRuntime::snapshot`].
    Ref(u32),
    /// The first element matching a CSS selector.
    Css(String),
    /// The first visible interactive element whose text or label contains
    /// this text (case-insensitive).
    Text(String),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Ref(n) => write!(f, "[ref={n}]"),
            Target::Css(css) => write!(f, "selector {css:?}"),
            Target::Text(text) => write!(f, "text {text:?}"),
        }
    }
}

/// How to collect a page that loads more content as it is scrolled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScrollOptions {
    /// A "load more" button to click whenever it is visible.
    pub load_more: Option<String>,
    /// Items to count (e.g. `.feed-item`); without it the page height is
    /// watched.
    pub item_selector: Option<String>,
    /// Stop after this many rounds.
    pub max_rounds: u32,
    /// Stop once this many items are present (needs `item_selector`).
    pub max_items: Option<u32>,
    /// A round without growth for this long counts as a stall.
    pub stall_ms: u64,
    /// Stop after this many stalled rounds in a row.
    pub max_stalls: u32,
}

impl Default for ScrollOptions {
    fn default() -> Self {
        ScrollOptions {
            load_more: None,
            item_selector: None,
            max_rounds: 50,
            max_items: None,
            stall_ms: 1500,
            max_stalls: 2,
        }
    }
}

/// Why scrolling stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScrollStop {
    /// Nothing new appeared for `max_stalls` rounds.
    Stalled,
    /// `max_items` reached.
    MaxItems,
    /// `max_rounds` reached.
    MaxRounds,
}

/// What [`BrowserRuntime::scroll_until`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScrollReport {
    /// Rounds run.
    pub rounds: u32,
    /// "Load more" clicks.
    pub clicks: u32,
    /// Items present at the end (or the page height without a selector).
    pub items: u64,
    /// Why it stopped.
    pub stopped: ScrollStop,
}

/// One interactive element in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotRef {
    /// Its stable reference (`[ref=N]`).
    pub r#ref: u32,
    /// `link`, `button`, `textbox`, `checkbox`, `select` …
    pub role: String,
    /// Its visible text, label, placeholder or value.
    pub name: String,
    /// A link's target.
    pub href: Option<String>,
}

/// A text snapshot of the active tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The page's URL.
    pub url: String,
    /// `document.title`.
    pub title: String,
    /// The page as text, one line per block, interactive elements written as
    /// `[ref=N] role "name"`. References stay the same across snapshots of
    /// an unchanged page.
    pub text: String,
    /// The interactive elements, in document order.
    pub refs: Vec<SnapshotRef>,
}

/// A browser runtime: task spaces on a Chromium, and what can be done in
/// them. Every call is bounded by a timeout and fails with a typed
/// [`BrowserError`]; every navigation and request goes through the URL
/// guard.
#[async_trait]
pub trait BrowserRuntime: Send + Sync + fmt::Debug {
    /// `public` for an ephemeral profile, `login` for a persistent profile or
    /// an attached browser.
    fn partition(&self) -> Partition;

    /// The provenance of what this runtime produces now (its partition and
    /// the runtime that is running).
    fn provenance(&self) -> Provenance;

    /// The URL guard every navigation, API call and subrequest goes through.
    fn guard(&self) -> &UrlGuard;

    /// Connect (launch or attach) if needed and report.
    async fn status(&self) -> Result<RuntimeStatus, BrowserError>;

    /// Open the space named `spec.name`, or return the open one of that name.
    async fn open_space(&self, spec: &TaskSpaceSpec) -> Result<TaskSpaceInfo, BrowserError>;

    /// Close a space's tabs (and its context), whether kept or not.
    async fn close_space(&self, name: &str) -> Result<(), BrowserError>;

    /// The task is done: close the space unless it is kept. Returns whether
    /// it was closed.
    async fn complete_space(&self, name: &str) -> Result<bool, BrowserError>;

    /// Open spaces.
    async fn list_spaces(&self) -> Vec<TaskSpaceInfo>;

    /// Load `url` in a pooled tab of `space`, wait, and read it (text, main
    /// container, HTML). The evidence crate's browser step.
    async fn render(
        &self,
        space: &str,
        url: &str,
        options: &RenderOptions,
    ) -> Result<RenderedPage, BrowserError>;

    /// Load `url` in the space's active tab and wait.
    async fn navigate(
        &self,
        space: &str,
        url: &str,
        wait: &WaitFor,
    ) -> Result<PageInfo, BrowserError>;

    /// Wait in the active tab (up to `timeout`, else the page-load timeout).
    /// Returns whether the condition was met.
    async fn wait(
        &self,
        space: &str,
        wait: &WaitFor,
        timeout: Option<Duration>,
    ) -> Result<bool, BrowserError>;

    /// Evaluate a JavaScript expression in the active tab (promises are
    /// awaited) and return its value as JSON.
    async fn evaluate(&self, space: &str, script: &str) -> Result<serde_json::Value, BrowserError>;

    /// The active tab's URL and title (`None` before any navigation).
    async fn current_page(&self, space: &str) -> Result<Option<PageInfo>, BrowserError>;

    /// The active tab's rendered HTML.
    async fn html(&self, space: &str) -> Result<String, BrowserError>;

    /// Click an element (scrolled into view, real mouse events).
    async fn click(&self, space: &str, target: &Target) -> Result<(), BrowserError>;

    /// Replace an input's value with `value` (input and change events fire).
    async fn fill(&self, space: &str, target: &Target, value: &str) -> Result<(), BrowserError>;

    /// Press a key (`Enter`, `Tab`, `ArrowDown`, `a` …) in the focused element.
    async fn press(&self, space: &str, key: &str) -> Result<(), BrowserError>;

    /// Scroll and click "load more" until nothing new appears.
    async fn scroll_until(
        &self,
        space: &str,
        options: &ScrollOptions,
    ) -> Result<ScrollReport, BrowserError>;

    /// A text snapshot with stable `[ref=N]` element references.
    async fn snapshot(&self, space: &str) -> Result<Snapshot, BrowserError>;

    /// A PNG screenshot of the viewport (or the full page).
    async fn screenshot(&self, space: &str, full_page: bool) -> Result<Vec<u8>, BrowserError>;

    /// Close every space and the browser (an attached browser keeps running;
    /// only the tabs this runtime opened are closed).
    async fn shutdown(&self) -> Result<(), BrowserError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_spaces_open_one_window_per_tab_unless_asked() {
        let spec = TaskSpaceSpec::new("s");
        assert!(!spec.background_tabs);
        assert!(TaskSpaceSpec::for_site("example.com").max_tabs(2).keep);
        assert!(spec.clone().background_tabs(true).background_tabs);
        // Specs written before the field existed read as one window per tab.
        let old: TaskSpaceSpec =
            serde_json::from_str(r#"{"name": "s", "keep": false, "max_tabs": 4}"#).unwrap();
        assert_eq!(old, spec);
    }
}
