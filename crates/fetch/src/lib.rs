//! # ferret-fetch
//!
//! A URL in, trustworthy page text out: the network side of reading a page.
//! The crate, by module:
//! - the fetch ladder (this page): [`Fetcher`], [`FetchOptions`],
//!   [`FetchedPage`] (`ferret.fetch.v1`), [`FetchError`], reading saved pages
//!   ([`from_html`], [`fetch_from_file`]);
//! - [`endpoints`]: the public APIs read instead of their pages;
//! - [`cache`]: the page cache of the HTTP step (SQLite, Redis);
//! - [`verdict`]: the verdict rules (the score, markers, verdict order);
//! - [`verify`]: the `ferret.verify.v1` report of one URL;
//! - [`refs`]: typed references of a GitHub issue or pull request;
//! - [`structured`]: structured extraction from a URL (a fetch, then
//!   `ferret_extract::structured`).
//!
//! Reading the bytes (extraction, bounds, highlights, the safety scan) is
//! `ferret-extract`'s; this crate fetches them and judges the reading.
//!
//! The adaptive fetch ladder: a URL in, a [`FetchedPage`]
//! (`ferret.fetch.v1`) out — text, metadata, a verdict, quality and
//! content-safety signals — fetched safely.
//!
//! [`Fetcher::fetch`] climbs, stopping at the first step that yields
//! readable evidence:
//!
//! 1. **Public endpoint** ([`endpoints`]): sites with an official API are
//!    read through it — GitHub repositories, issues, pull requests and files
//!    (`api.github.com`, `raw.githubusercontent.com`), Wikipedia articles
//!    (the Action API's plain-text extract, the REST summary as fallback),
//!    arXiv abstracts (the export API), Hacker News threads (Algolia, ≤ 200
//!    comments flattened), Reddit threads (`.json?limit=500&depth=4`), npm,
//!    PyPI and crates.io packages.
//! 2. **Plain HTTP** (`http`): reqwest over rustls, 15 s, at most 1 MiB of
//!    body (read as a stream and cut, with a warning — never an error), at
//!    most 5 redirects followed by hand, each hop checked by the URL guard;
//!    gzip, brotli and deflate; the charset from the header, a BOM, a
//!    `<meta>` tag, or a UTF-8 / windows-1252 guess; then
//!    [`crate::extract::extract`].
//!    A PDF (by `Content-Type` or by its `%PDF-` bytes) is read by the
//!    PDF reader instead, under a cap of its own (20 MiB): the pages' text
//!    with their spans in [`FetchedPage::pdf`] (see [`PdfInfo`]).
//! 3. **Browser** (feature `browser`; a caller-supplied
//!    `Arc<dyn ferret_browser::BrowserRuntime>`): with [`BrowserMode::Auto`]
//!    the ladder escalates when the HTTP page is an empty JavaScript shell, a
//!    challenge page (or a 403), or reads below `weak_ok`, and records why in
//!    [`FetchedPage::escalation`]; [`BrowserMode::Required`] goes straight to
//!    the browser; [`BrowserMode::Never`] never does. The rendered HTML goes
//!    through the same extraction. When both an HTTP and a browser reading
//!    exist the better one is returned ([`crate::verify::Assessment::better_than`]).
//!
//! **Safety.** Every URL — the page, every public-endpoint call, every
//! redirect hop — passes [`UrlGuard::check`]. In strict mode
//! ([`UrlGuard::strict`]) the HTTP client's resolver checks every address a
//! host resolves to *at connection time* ([`UrlGuard::check_addrs`]), so the
//! connection is pinned to checked addresses and a DNS answer that changes
//! between check and connect cannot reach a private address.
//! [`FetcherBuilder::resolve`] pins a host to fixed addresses (reqwest's
//! `resolve`, also judged in strict mode) — tests use it to give a local
//! server a public-looking name. A guard refusal is never routed around: a
//! refused redirect fails the fetch, it does not escalate to the browser.
//! Only the configured proxy is used ([`FetcherBuilder::proxy`]); with one,
//! every target and hop is still judged before the request is sent, and in
//! strict mode a proxied name is resolved and judged by Ferret first.
//! Page fetches respect robots.txt ([`FetcherBuilder::respect_robots`]).
//!
//! Every page is scored by [`crate::verify`] and scanned by
//! [`crate::safety`]; findings become [`Warning`]s, the text is never
//! altered. [`from_html`] and [`fetch_from_file`] run the same reading on
//! HTML you already have, without any network.

use ferret_extract::budget::PageBudget;
use ferret_extract::{self as extract, budget, highlights, nesting, pool, safety};

pub mod refs;
pub mod structured;
pub mod verdict;
pub mod verify;

mod batch;
pub mod cache;
mod document;
pub mod endpoints;
mod error;
mod focus;
mod http;
mod ladder;
mod page;
mod pdf;
mod quality;
mod resolver;
mod robots;
mod sniff;

#[cfg(feature = "browser")]
mod browser;

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use ferret_core::guard::UrlGuard;
use ferret_core::politeness::{HostLimiter, ProxyConfig};
use serde::{Deserialize, Serialize};

pub use crate::verdict::Source;
pub use batch::{fetch_files, fetch_from_reader};
pub use cache::{CacheMode, CacheStatus, InvalidCacheMode};
#[cfg(feature = "page-cache")]
pub use cache::{PageCache, PageCacheOptions};
pub use document::{fetch_from_file, fetch_from_file_limited, from_html};
pub use endpoints::Endpoints;
pub use error::FetchError;
pub use page::{
    Attempt, AttemptOutcome, Escalation, EscalationReason, FETCH_SCHEMA, FetchedPage, FocusReport,
    Quality, THIN_CHARS, Warning, WarningCode,
};
pub use pdf::{
    DEFAULT_PDF_BODY_LIMIT, MAX_INFLATED_STREAM, MAX_PDF_PAGES, PAGE_SEPARATOR, PageSpan, PdfInfo,
    PdfProblem,
};
pub use quality::{
    AUTH_WALL_WORDS, CHALLENGE_WORDS, MARKER_MAX_CHARS, PAYWALL_WORDS, assess_quality,
};
pub use robots::{ROBOTS_BODY_LIMIT, ROBOTS_DEFAULT_TTL, ROBOTS_ERROR_TTL};
pub(crate) use sniff::degenerate_text;

/// Default time budget of an HTTP fetch (whole redirect chain and body)
/// and of each public-endpoint call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// Default time budget of a browser render.
pub const DEFAULT_BROWSER_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on a page body (bytes after decompression).
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
/// Default cap on a public-endpoint response (bytes after decompression);
/// package registries answer with large documents.
pub const DEFAULT_API_BODY_LIMIT: usize = 8 * 1024 * 1024;
/// Default number of redirects followed.
pub const DEFAULT_MAX_REDIRECTS: usize = 5;
/// Default task space for browser renders.
pub const DEFAULT_BROWSER_SPACE: &str = "ferret-fetch";
/// Default `User-Agent` for pages: Ferret names itself honestly, with its
/// version and where to read about it — `Ferret/<version> (+<repository>)`.
/// Change it with [`FetcherBuilder::user_agent`] (the CLI reads
/// `FERRET_USER_AGENT`). The browser step keeps Chromium's own.
pub const DEFAULT_USER_AGENT: &str = concat!(
    "Ferret/",
    env!("CARGO_PKG_VERSION"),
    " (+",
    env!("CARGO_PKG_REPOSITORY"),
    ")"
);
/// The product token robots.txt groups are matched against
/// (`User-agent: Ferret`).
pub const ROBOTS_TOKEN: &str = "Ferret";
/// The environment variable the CLI reads for the page `User-Agent`
/// (libraries take [`FetcherBuilder::user_agent`]).
pub const USER_AGENT_ENV: &str = "FERRET_USER_AGENT";
/// A desktop-Chrome `User-Agent`, for callers that choose to look like a
/// browser (not the default).
pub const BROWSER_LIKE_USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
/// Default `User-Agent` for public APIs, which ask clients to name
/// themselves.
pub const DEFAULT_API_USER_AGENT: &str = concat!(
    "ferret/",
    env!("CARGO_PKG_VERSION"),
    " (+https://github.com/ferret-search/ferret)"
);

/// When the ladder may use a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum BrowserMode {
    /// HTTP first; escalate to the browser when the page needs it.
    #[default]
    Auto,
    /// Never use a browser.
    Never,
    /// Only the browser (public endpoints and HTTP are skipped).
    Required,
}

impl BrowserMode {
    /// `auto`, `never` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            BrowserMode::Auto => "auto",
            BrowserMode::Never => "never",
            BrowserMode::Required => "required",
        }
    }
}

impl fmt::Display for BrowserMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not a browser mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown browser mode {0:?}: use auto, never or required")]
pub struct InvalidBrowserMode(pub String);

impl FromStr for BrowserMode {
    type Err = InvalidBrowserMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(BrowserMode::Auto),
            "never" => Ok(BrowserMode::Never),
            "required" => Ok(BrowserMode::Required),
            _ => Err(InvalidBrowserMode(s.to_string())),
        }
    }
}

/// Per-call options of [`Fetcher::fetch`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchOptions {
    /// Keep only the paragraphs containing this keyword (the CLI's
    /// `--focus`); see [`FocusReport`]. The verdict is computed on the full
    /// text.
    pub focus: Option<String>,
    /// The question the page is read for: when set, the passages of the
    /// text most relevant to it are selected into
    /// [`FetchedPage::highlights`] ([`crate::highlights::highlights`], BM25,
    /// default budget).
    pub query: Option<String>,
    /// Produce [`FetchedPage::markdown`]. Default `true`.
    pub markdown: bool,
    /// Return the raw (decoded or rendered) HTML in [`FetchedPage::html`].
    /// Default `false`.
    pub include_html: bool,
    /// Cap the extracted text at this many characters (a warning says so).
    pub max_text_chars: Option<usize>,
    /// Override the fetcher's browser mode for this call.
    pub browser: Option<BrowserMode>,
    /// Try the site's public API first. Default `true`.
    pub public_endpoints: bool,
    /// What reading the page may cost: element and text caps before
    /// parsing, and a time budget per stage (past it the verdict is
    /// `too_complex`). Default [`PageBudget::default`].
    #[serde(default)]
    pub budget: PageBudget,
    /// How the HTTP step uses the fetcher's page cache, if it has one
    /// ([`cache`]); `None`: the fetcher's default
    /// ([`FetcherBuilder::cache_mode`], `on`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_mode: Option<CacheMode>,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            focus: None,
            query: None,
            markdown: true,
            include_html: false,
            max_text_chars: None,
            browser: None,
            public_endpoints: true,
            budget: PageBudget::default(),
            cache_mode: None,
        }
    }
}

impl FetchOptions {
    /// Sets [`FetchOptions::budget`].
    pub fn with_budget(mut self, budget: PageBudget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets [`FetchOptions::focus`].
    pub fn with_focus(mut self, keyword: impl Into<String>) -> Self {
        self.focus = Some(keyword.into());
        self
    }

    /// Sets [`FetchOptions::query`].
    pub fn with_query(mut self, query: impl Into<String>) -> Self {
        self.query = Some(query.into());
        self
    }

    /// Sets [`FetchOptions::browser`].
    pub fn with_browser(mut self, mode: BrowserMode) -> Self {
        self.browser = Some(mode);
        self
    }

    /// Sets [`FetchOptions::include_html`].
    pub fn with_html(mut self, include: bool) -> Self {
        self.include_html = include;
        self
    }

    /// Sets [`FetchOptions::public_endpoints`].
    pub fn with_public_endpoints(mut self, enabled: bool) -> Self {
        self.public_endpoints = enabled;
        self
    }

    /// Sets [`FetchOptions::cache_mode`].
    pub fn with_cache_mode(mut self, mode: CacheMode) -> Self {
        self.cache_mode = Some(mode);
        self
    }

    /// Sets [`FetchOptions::max_text_chars`].
    pub fn with_max_text_chars(mut self, max: usize) -> Self {
        self.max_text_chars = Some(max);
        self
    }
}

/// The fetch configuration (see [`FetcherBuilder`] for each field).
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) guard: UrlGuard,
    pub(crate) timeout: Duration,
    pub(crate) browser_timeout: Duration,
    pub(crate) body_limit: usize,
    pub(crate) pdf_body_limit: usize,
    pub(crate) api_body_limit: usize,
    pub(crate) max_redirects: usize,
    pub(crate) user_agent: String,
    pub(crate) api_user_agent: String,
    pub(crate) browser_mode: BrowserMode,
    pub(crate) browser_space: String,
    pub(crate) endpoints: Endpoints,
    pub(crate) public_endpoints: bool,
    pub(crate) github_token: Option<String>,
    #[cfg(feature = "page-cache")]
    pub(crate) page_cache: Option<PageCache>,
    pub(crate) cache_mode: CacheMode,
    pub(crate) resolve: HashMap<String, Vec<SocketAddr>>,
    pub(crate) respect_robots: bool,
    pub(crate) proxy: Option<ProxyConfig>,
    pub(crate) host_limiter: Option<HostLimiter>,
    /// Shared by the fetchers [`Fetcher::to_builder`] derives.
    pub(crate) robots: robots::RobotsCache,
}

/// The adaptive fetcher. Cheap to clone (shared client and configuration).
#[derive(Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    client: http::Client,
    #[cfg(feature = "browser")]
    browser: Option<Arc<dyn ferret_browser::BrowserRuntime>>,
}

impl fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Fetcher");
        d.field("guard", &self.inner.config.guard)
            .field("timeout", &self.inner.config.timeout)
            .field("body_limit", &self.inner.config.body_limit)
            .field("max_redirects", &self.inner.config.max_redirects)
            .field("browser_mode", &self.inner.config.browser_mode);
        #[cfg(feature = "browser")]
        d.field("browser", &self.inner.browser.is_some());
        d.finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A fetcher with the defaults and `guard`.
    pub fn new(guard: UrlGuard) -> Result<Self, FetchError> {
        Self::builder().guard(guard).build()
    }

    /// A builder with the defaults: the default guard (private addresses
    /// blocked), 15 s, 1 MiB, 5 redirects, browser mode `auto` (no runtime
    /// unless one is given), the real public endpoints.
    pub fn builder() -> FetcherBuilder {
        FetcherBuilder::default()
    }

    /// A builder holding this fetcher's configuration (and browser
    /// runtime), to build a variant: another user agent, robots policy or
    /// proxy. The variant gets its own HTTP client.
    pub fn to_builder(&self) -> FetcherBuilder {
        FetcherBuilder {
            config: self.inner.config.clone(),
            #[cfg(feature = "browser")]
            browser: self.inner.browser.clone(),
        }
    }

    /// The `User-Agent` page fetches send.
    pub fn user_agent(&self) -> &str {
        &self.inner.config.user_agent
    }

    /// The URL guard every request goes through.
    pub fn guard(&self) -> &UrlGuard {
        &self.inner.config.guard
    }

    /// The configured browser mode.
    pub fn browser_mode(&self) -> BrowserMode {
        self.inner.config.browser_mode
    }

    /// Whether a browser runtime is available to the ladder.
    pub fn has_browser(&self) -> bool {
        #[cfg(feature = "browser")]
        {
            self.inner.browser.is_some()
        }
        #[cfg(not(feature = "browser"))]
        {
            false
        }
    }

    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }

    pub(crate) fn client(&self) -> &http::Client {
        &self.inner.client
    }

    #[cfg(feature = "browser")]
    pub(crate) fn runtime(&self) -> Option<&Arc<dyn ferret_browser::BrowserRuntime>> {
        self.inner.browser.as_ref()
    }
}

/// Builds a [`Fetcher`].
#[derive(Clone)]
pub struct FetcherBuilder {
    config: Config,
    #[cfg(feature = "browser")]
    browser: Option<Arc<dyn ferret_browser::BrowserRuntime>>,
}

impl fmt::Debug for FetcherBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FetcherBuilder")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Default for FetcherBuilder {
    fn default() -> Self {
        FetcherBuilder {
            config: Config {
                guard: UrlGuard::default(),
                timeout: DEFAULT_TIMEOUT,
                browser_timeout: DEFAULT_BROWSER_TIMEOUT,
                body_limit: DEFAULT_BODY_LIMIT,
                pdf_body_limit: DEFAULT_PDF_BODY_LIMIT,
                api_body_limit: DEFAULT_API_BODY_LIMIT,
                max_redirects: DEFAULT_MAX_REDIRECTS,
                user_agent: DEFAULT_USER_AGENT.to_string(),
                api_user_agent: DEFAULT_API_USER_AGENT.to_string(),
                browser_mode: BrowserMode::Auto,
                browser_space: DEFAULT_BROWSER_SPACE.to_string(),
                endpoints: Endpoints::default(),
                public_endpoints: true,
                github_token: None,
                #[cfg(feature = "page-cache")]
                page_cache: None,
                cache_mode: CacheMode::On,
                resolve: HashMap::new(),
                respect_robots: true,
                proxy: ferret_core::politeness::default_proxy(),
                host_limiter: Some(HostLimiter::global()),
                robots: robots::RobotsCache::default(),
            },
            #[cfg(feature = "browser")]
            browser: None,
        }
    }
}

impl FetcherBuilder {
    /// The URL guard (default: [`UrlGuard::default`], private addresses
    /// blocked, no DNS checks).
    pub fn guard(mut self, guard: UrlGuard) -> Self {
        self.config.guard = guard;
        self
    }

    /// Time budget of an HTTP fetch and of each public-endpoint call
    /// (default 15 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.config.timeout = timeout;
        self
    }

    /// Time budget of a browser render (default 30 s).
    pub fn browser_timeout(mut self, timeout: Duration) -> Self {
        self.config.browser_timeout = timeout;
        self
    }

    /// Cap on a page body in bytes (default 1 MiB). Longer bodies are cut
    /// with a [`WarningCode::BodyTruncated`] warning.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.config.body_limit = bytes.max(1);
        self
    }

    /// Cap on a PDF body in bytes (default 20 MiB), used instead of
    /// [`FetcherBuilder::body_limit`] when the `Content-Type` or the first
    /// bytes (`%PDF-`) say PDF. A PDF cut at the cap cannot be read (its
    /// cross-reference table is at the end): it is `unsupported`, problem
    /// [`PdfProblem::Truncated`], with a [`WarningCode::BodyTruncated`]
    /// warning.
    pub fn pdf_body_limit(mut self, bytes: usize) -> Self {
        self.config.pdf_body_limit = bytes.max(1);
        self
    }

    /// Cap on a public-endpoint response in bytes (default 8 MiB).
    pub fn api_body_limit(mut self, bytes: usize) -> Self {
        self.config.api_body_limit = bytes.max(1);
        self
    }

    /// Redirects followed before [`FetchError::TooManyRedirects`]
    /// (default 5).
    pub fn max_redirects(mut self, max: usize) -> Self {
        self.config.max_redirects = max;
        self
    }

    /// `User-Agent` for page fetches (default [`DEFAULT_USER_AGENT`]); a
    /// blank value keeps the current one. robots.txt rules are still
    /// matched against [`ROBOTS_TOKEN`].
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        let user_agent = user_agent.into();
        if !user_agent.trim().is_empty() {
            self.config.user_agent = user_agent.trim().to_string();
        }
        self
    }

    /// [`FetcherBuilder::user_agent`] from `FERRET_USER_AGENT` when it is
    /// set and not blank (for the edges of a program: the CLI, examples).
    pub fn user_agent_from_env(self) -> Self {
        match std::env::var(USER_AGENT_ENV) {
            Ok(ua) => self.user_agent(ua),
            Err(_) => self,
        }
    }

    /// `User-Agent` for public-endpoint calls.
    pub fn api_user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.config.api_user_agent = user_agent.into();
        self
    }

    /// The default browser mode (default `auto`).
    pub fn browser_mode(mut self, mode: BrowserMode) -> Self {
        self.config.browser_mode = mode;
        self
    }

    /// The browser runtime the ladder's browser step uses. Nothing is
    /// launched until a page needs it (the runtime launches lazily).
    #[cfg(feature = "browser")]
    pub fn browser(mut self, runtime: Arc<dyn ferret_browser::BrowserRuntime>) -> Self {
        self.browser = Some(runtime);
        self
    }

    /// The task space browser renders run in (default `ferret-fetch`).
    pub fn browser_space(mut self, name: impl Into<String>) -> Self {
        self.config.browser_space = name.into();
        self
    }

    /// Where the public endpoints live (tests point them at a local server).
    pub fn endpoints(mut self, endpoints: Endpoints) -> Self {
        self.config.endpoints = endpoints;
        self
    }

    /// Use public endpoints at all (default `true`).
    pub fn public_endpoints(mut self, enabled: bool) -> Self {
        self.config.public_endpoints = enabled;
        self
    }

    /// A GitHub token sent (as `Authorization: Bearer`) to the GitHub API
    /// endpoint only. Read `GITHUB_TOKEN` at the edge and pass it here.
    pub fn github_token(mut self, token: Option<String>) -> Self {
        self.config.github_token = token.filter(|t| !t.trim().is_empty());
        self
    }

    /// Keep HTTP answers in `cache` and serve them again while fresh
    /// (see [`cache`]; per call: [`FetchOptions::cache_mode`]).
    #[cfg(feature = "page-cache")]
    pub fn page_cache(mut self, cache: PageCache) -> Self {
        self.config.page_cache = Some(cache);
        self
    }

    /// How calls use the page cache unless their options say otherwise
    /// (default [`CacheMode::On`]).
    pub fn cache_mode(mut self, mode: CacheMode) -> Self {
        self.config.cache_mode = mode;
        self
    }

    /// Resolve `host` to `addr` instead of asking DNS (the URL's port
    /// replaces the address's); `*` pins every host without a pin of its
    /// own. In strict mode the address is still judged by the guard. Call
    /// again to add addresses.
    pub fn resolve(mut self, host: &str, addr: IpAddr) -> Self {
        self.config
            .resolve
            .entry(host.trim_end_matches('.').to_ascii_lowercase())
            .or_default()
            .push(SocketAddr::new(addr, 0));
        self
    }

    /// Respect the sites' robots.txt for page fetches (default `true`): a
    /// page it disallows for Ferret is not fetched, by plain HTTP or the
    /// browser, and the fetch fails with [`FetchError::RobotsDisallowed`]
    /// (verdict `robots_disallowed`). Public endpoints are APIs and are
    /// never robots-checked. Turn it off only for a fetch a person asked
    /// for explicitly (the CLI's `--ignore-robots`).
    pub fn respect_robots(mut self, respect: bool) -> Self {
        self.config.respect_robots = respect;
        self
    }

    /// The proxy page fetches, robots.txt and public-endpoint calls go
    /// through (`None`: direct). Default: the process-wide one
    /// ([`ferret_core::politeness::set_process_proxy`]), else the
    /// environment's (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`,
    /// also in lower case). The URL guard still checks every target and
    /// redirect hop before the request is sent; in strict mode a proxied
    /// target's name is resolved and judged by Ferret first (the proxy may
    /// resolve it differently — see docs/safety.md). The browser step
    /// keeps its own egress.
    pub fn proxy(mut self, proxy: Option<ProxyConfig>) -> Self {
        self.config.proxy = proxy;
        self
    }

    /// The per-host limiter the HTTP step, robots.txt reads and
    /// public-endpoint calls wait on (`None`: no limit). Default: the
    /// process-wide [`HostLimiter::global`] — 2 requests in flight and 4
    /// starts a second per host, shared with the scraped engines. A 429 or
    /// 503 with `Retry-After` pauses the host (at most 60 s) and the page
    /// carries a [`WarningCode::RetryAfter`] warning; a request whose turn
    /// would come after its deadline fails at once as a timeout.
    pub fn host_limiter(mut self, limiter: Option<HostLimiter>) -> Self {
        self.config.host_limiter = limiter;
        self
    }

    /// Builds the fetcher (and its HTTP client).
    pub fn build(self) -> Result<Fetcher, FetchError> {
        let client = http::build_client(&self.config)?;
        Ok(Fetcher {
            inner: Arc::new(Inner {
                config: self.config,
                client,
                #[cfg(feature = "browser")]
                browser: self.browser,
            }),
        })
    }
}
