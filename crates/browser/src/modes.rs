//! The four browser modes — `search`, `fetch`, `act`, `api` — plus
//! `status`, each a function over any [`BrowserRuntime`] returning a serde
//! envelope with a `schema` field and the provenance fields. The CLI
//! (`ferret browser …`) prints these envelopes.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use ferret_core::{Partition, Provenance};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use url::Url;

use crate::chromium::ChromiumRuntime;
use crate::config::{ChromiumConfig, RuntimeChoice};
use crate::content;
use crate::error::BrowserError;
use crate::pro_mode::{self, ProModeStatus};
use crate::quality::{self, Quality};
use crate::runtime::{
    BlockedRequest, BrowserRuntime, RenderOptions, RenderedPage, RuntimeKind, RuntimeStatus,
    TaskSpaceSpec, WaitFor,
};
use crate::scripts;
use crate::serp::{self, RawRow, SerpDropped, SerpEngine, SerpRow, SerpStatus, TimeWindow};

/// Responses of `api` longer than this many characters are truncated
/// (about 100 KB).
pub const API_MAX_CHARS: usize = 100_000;

/// Results per search by default.
pub const DEFAULT_N: usize = 8;

/// `search`: which engine, how many, which window.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// The query.
    pub query: String,
    /// The engine (default Bing).
    pub engine: SerpEngine,
    /// Results wanted (default 8).
    pub n: usize,
    /// Publication window, pushed down to the engine and post-filtered.
    pub window: Option<TimeWindow>,
    /// The task space.
    pub space: TaskSpaceSpec,
    /// Another base URL for the result page (a mirror, or a local server in
    /// tests); `None` uses the engine's own.
    pub base_url: Option<String>,
}

impl SearchRequest {
    /// A Bing search for `query` with the defaults.
    pub fn new(query: impl Into<String>) -> Self {
        SearchRequest {
            query: query.into(),
            engine: SerpEngine::default(),
            n: DEFAULT_N,
            window: None,
            space: TaskSpaceSpec::default(),
            base_url: None,
        }
    }

    /// Set the engine.
    pub fn engine(mut self, engine: SerpEngine) -> Self {
        self.engine = engine;
        self
    }

    /// Set `n`.
    pub fn n(mut self, n: usize) -> Self {
        self.n = n;
        self
    }

    /// Set the window.
    pub fn window(mut self, window: Option<TimeWindow>) -> Self {
        self.window = window;
        self
    }

    /// Set the task space.
    pub fn space(mut self, space: TaskSpaceSpec) -> Self {
        self.space = space;
        self
    }

    /// Set the base URL.
    pub fn base_url(mut self, base: impl Into<String>) -> Self {
        self.base_url = Some(base.into());
        self
    }
}

/// `ferret.browser.search.v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchOutput {
    /// `ferret.browser.search.v1`.
    pub schema: String,
    /// The query.
    pub query: String,
    /// `browser_<engine>` (e.g. `browser_bing`).
    pub engine: String,
    /// `ferret-browser`.
    pub source: String,
    /// The result page URL.
    pub url: String,
    /// What kind of page came back.
    pub status: SerpStatus,
    /// What was recognised for `no_results` / `blocked`.
    pub status_marker: Option<String>,
    /// The results.
    pub results: Vec<SerpRow>,
    /// `results.len()`.
    pub count: usize,
    /// Rows left out and why.
    pub dropped: SerpDropped,
    /// The engine's row selectors matched nothing and any `h2 a, h3 a` was used.
    pub fallback_selectors: bool,
    /// The window that was applied.
    pub window: Option<TimeWindow>,
    /// `browser`.
    pub fetch_method: String,
    /// Wall time.
    pub elapsed_ms: u64,
    /// Partition and runtime.
    #[serde(flatten)]
    pub provenance: Provenance,
}

impl SearchOutput {
    /// `Err(SerpBlocked)` for a block / captcha page, else `Ok(self)`.
    pub fn into_result(self) -> Result<SearchOutput, BrowserError> {
        if self.status == SerpStatus::Blocked {
            return Err(BrowserError::SerpBlocked {
                engine: self.engine.clone(),
                marker: self.status_marker.clone().unwrap_or_default(),
            });
        }
        Ok(self)
    }
}

/// Run a search in the browser: open the result page, extract rows with the
/// engine's selectors, classify the page.
pub async fn search(
    rt: &dyn BrowserRuntime,
    req: &SearchRequest,
) -> Result<SearchOutput, BrowserError> {
    if req.query.trim().is_empty() {
        return Err(BrowserError::invalid("the search query is empty"));
    }
    if req.n == 0 {
        return Err(BrowserError::invalid("n must be at least 1"));
    }
    let start = Instant::now();
    let now = Utc::now();
    let url = req.engine.search_url(
        &req.query,
        req.window.as_ref(),
        req.base_url.as_deref(),
        now,
    )?;
    rt.open_space(&req.space).await?;
    let name = &req.space.name;
    rt.navigate(name, url.as_str(), &WaitFor::Load).await?;
    let spec = req.engine.spec();
    let arg = json!({"item": spec.item, "link": spec.link, "snippet": spec.snippet});
    let raw = rt
        .evaluate(name, &scripts::call(scripts::SERP, &arg))
        .await?;
    let rows: Vec<RawRow> = raw
        .get("items")
        .cloned()
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| BrowserError::Script {
            message: format!("SERP rows had an unexpected shape: {e}"),
        })?
        .unwrap_or_default();
    let s = |k: &str| raw.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let (status, marker) = serp::classify(
        req.engine,
        rows.len(),
        &s("url"),
        &s("title"),
        &s("text_head"),
        raw.get("has_captcha")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    );
    let (results, dropped) = serp::finish_rows(req.engine, rows, req.window.as_ref(), req.n);
    Ok(SearchOutput {
        schema: "ferret.browser.search.v1".into(),
        query: req.query.clone(),
        engine: format!("browser_{}", req.engine),
        source: "ferret-browser".into(),
        url: url.to_string(),
        status,
        status_marker: marker,
        count: results.len(),
        results,
        dropped,
        fallback_selectors: raw
            .get("fallback")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        window: req.window,
        fetch_method: "browser".into(),
        elapsed_ms: start.elapsed().as_millis() as u64,
        provenance: rt.provenance(),
    })
}

/// `fetch`: a URL, optional focus keyword, cap.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchRequest {
    /// The page.
    pub url: String,
    /// Keep only paragraphs with this keyword (`--focus`).
    pub focus: Option<String>,
    /// Cap on `content` (default 60 000 characters).
    pub max_chars: usize,
    /// What to wait for (default: settled).
    pub wait: WaitFor,
    /// Budget (`None`: the runtime's page-load timeout).
    pub timeout: Option<Duration>,
    /// Hand back the rendered HTML (for the evidence crate's extractor).
    pub include_html: bool,
    /// The task space.
    pub space: TaskSpaceSpec,
}

impl FetchRequest {
    /// Fetch `url` with the defaults.
    pub fn new(url: impl Into<String>) -> Self {
        FetchRequest {
            url: url.into(),
            focus: None,
            max_chars: content::FETCH_MAX_CHARS,
            wait: WaitFor::default(),
            timeout: None,
            include_html: true,
            space: TaskSpaceSpec::default(),
        }
    }

    /// Set the focus keyword.
    pub fn focus(mut self, keyword: impl Into<String>) -> Self {
        self.focus = Some(keyword.into());
        self
    }

    /// Set the wait.
    pub fn wait(mut self, wait: WaitFor) -> Self {
        self.wait = wait;
        self
    }

    /// Set the task space.
    pub fn space(mut self, space: TaskSpaceSpec) -> Self {
        self.space = space;
        self
    }

    /// Set the cap.
    pub fn max_chars(mut self, max: usize) -> Self {
        self.max_chars = max;
        self
    }
}

/// `ferret.browser.fetch.v1` (the fields the HTTP fetch path also fills, plus the
/// browser's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FetchOutput {
    /// `ferret.browser.fetch.v1`.
    pub schema: String,
    /// The URL asked for.
    pub url: String,
    /// Where the page ended up.
    pub final_url: String,
    /// The main document's HTTP status, when seen.
    pub status: Option<u16>,
    /// `document.title`.
    pub title: String,
    /// The extracted text (focus applied, capped).
    pub content: String,
    /// Words in `content` (CJK characters count one each).
    pub word_count: usize,
    /// `content` was cut at the cap.
    pub truncated: bool,
    /// The focus keyword, if any.
    pub focus: Option<String>,
    /// The keyword paragraphs were used (false: fallback to the start).
    pub focus_matched: bool,
    /// Which container the text came from (`article`, `main`, `body` …).
    pub main_source: String,
    /// The rendered HTML (when asked for).
    pub html: Option<String>,
    /// Quality signals.
    pub quality: Quality,
    /// Requests the URL guard blocked while loading.
    pub blocked_requests: Vec<BlockedRequest>,
    /// Whether the wait condition was met.
    pub wait_satisfied: bool,
    /// `browser`.
    pub fetch_method: String,
    /// Wall time.
    pub elapsed_ms: u64,
    /// Partition and runtime.
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// Shape a rendered page into a fetch envelope.
pub fn fetch_output(
    page: RenderedPage,
    focus: Option<&str>,
    max_chars: usize,
    include_html: bool,
) -> FetchOutput {
    let main = content::tidy(&page.main_text);
    let (text, focus_matched) = match focus {
        Some(k) => content::focus(&main, k),
        None => (main, false),
    };
    let truncated = text.chars().count() > max_chars;
    let text = if truncated {
        serp::cut(&text, max_chars)
    } else {
        text
    };
    let quality = quality::assess(&page.title, &text);
    FetchOutput {
        schema: "ferret.browser.fetch.v1".into(),
        url: page.requested_url,
        final_url: page.final_url,
        status: page.http_status,
        title: page.title,
        word_count: content::word_count(&text),
        content: text,
        truncated,
        focus: focus.map(str::to_string),
        focus_matched,
        main_source: page.main_source,
        html: if include_html { page.html } else { None },
        quality,
        blocked_requests: page.blocked,
        wait_satisfied: page.wait_satisfied,
        fetch_method: "browser".into(),
        elapsed_ms: page.elapsed_ms,
        provenance: page.provenance,
    }
}

/// Fetch a page in the browser: render, extract the main text, apply
/// focus and the cap, judge quality.
pub async fn fetch(
    rt: &dyn BrowserRuntime,
    req: &FetchRequest,
) -> Result<FetchOutput, BrowserError> {
    rt.open_space(&req.space).await?;
    let page = rt
        .render(
            &req.space.name,
            &req.url,
            &RenderOptions {
                wait: req.wait.clone(),
                timeout: req.timeout,
                include_html: req.include_html,
            },
        )
        .await?;
    Ok(fetch_output(
        page,
        req.focus.as_deref(),
        req.max_chars,
        req.include_html,
    ))
}

/// `act`: search, open the top result(s), fetch them.
#[derive(Debug, Clone, PartialEq)]
pub struct ActRequest {
    /// The search.
    pub search: SearchRequest,
    /// Focus keyword for the opened pages.
    pub focus: Option<String>,
    /// How many top results to open (`None`: 1, or 5 with a time window).
    pub open: Option<usize>,
    /// Cap per page (default 30 000).
    pub max_chars: usize,
    /// What to wait for on opened pages.
    pub wait: WaitFor,
}

impl ActRequest {
    /// Act on `search` with the defaults.
    pub fn new(search: SearchRequest) -> Self {
        ActRequest {
            search,
            focus: None,
            open: None,
            max_chars: content::ACT_MAX_CHARS,
            wait: WaitFor::default(),
        }
    }
}

/// One opened result that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActFailure {
    /// The URL.
    pub url: String,
    /// The error code (`timeout`, `blocked_by_guard` …).
    pub code: String,
    /// The message.
    pub error: String,
}

/// `ferret.browser.act.v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActOutput {
    /// `ferret.browser.act.v1`.
    pub schema: String,
    /// The query.
    pub query: String,
    /// The search envelope's engine.
    pub engine: String,
    /// The search results.
    pub results: Vec<SerpRow>,
    /// The search page's status.
    pub search_status: SerpStatus,
    /// The first opened page that worked.
    pub detail: Option<FetchOutput>,
    /// Every opened page that worked, in result order.
    pub details: Vec<FetchOutput>,
    /// Opened pages that failed.
    pub failures: Vec<ActFailure>,
    /// Wall time.
    pub elapsed_ms: u64,
    /// Partition and runtime.
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// Search, then open the top result (5 when a time window is set) and
/// fetch it, concurrently within the space's tab bound.
pub async fn act(rt: &dyn BrowserRuntime, req: &ActRequest) -> Result<ActOutput, BrowserError> {
    let start = Instant::now();
    let found = search(rt, &req.search).await?;
    let open = req
        .open
        .unwrap_or(if req.search.window.is_some() { 5 } else { 1 })
        .max(1);
    let targets: Vec<String> = found
        .results
        .iter()
        .take(open)
        .map(|r| r.url.clone())
        .collect();
    let fetches = targets.iter().map(|url| {
        let fr = FetchRequest {
            url: url.clone(),
            focus: req.focus.clone(),
            max_chars: req.max_chars,
            wait: req.wait.clone(),
            timeout: None,
            include_html: false,
            space: req.search.space.clone(),
        };
        async move { (fr.url.clone(), fetch(rt, &fr).await) }
    });
    let mut details = Vec::new();
    let mut failures = Vec::new();
    for (url, result) in futures::future::join_all(fetches).await {
        match result {
            Ok(out) => details.push(out),
            Err(e) => failures.push(ActFailure {
                url,
                code: e.code().into(),
                error: e.to_string(),
            }),
        }
    }
    Ok(ActOutput {
        schema: "ferret.browser.act.v1".into(),
        query: found.query,
        engine: found.engine,
        results: found.results,
        search_status: found.status,
        detail: details.first().cloned(),
        details,
        failures,
        elapsed_ms: start.elapsed().as_millis() as u64,
        provenance: rt.provenance(),
    })
}

/// `api`: a same-origin request from a page of the site, with its cookies.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    /// The API URL.
    pub api_url: String,
    /// The page to call it from (default: the API URL's `scheme://host`).
    pub origin: Option<String>,
    /// HTTP method (default GET).
    pub method: String,
    /// Request body.
    pub body: Option<String>,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The task space.
    pub space: TaskSpaceSpec,
}

impl ApiRequest {
    /// GET `api_url` from its own origin.
    pub fn new(api_url: impl Into<String>) -> Self {
        ApiRequest {
            api_url: api_url.into(),
            origin: None,
            method: "GET".into(),
            body: None,
            headers: Vec::new(),
            space: TaskSpaceSpec::default(),
        }
    }

    /// Set the origin page.
    pub fn origin(mut self, origin: impl Into<String>) -> Self {
        self.origin = Some(origin.into());
        self
    }

    /// Set the task space.
    pub fn space(mut self, space: TaskSpaceSpec) -> Self {
        self.space = space;
        self
    }
}

/// `ferret.browser.api.v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiOutput {
    /// `ferret.browser.api.v1`.
    pub schema: String,
    /// The API URL.
    pub api_url: String,
    /// The page it was called from.
    pub page_url: String,
    /// That page's title.
    pub page_title: String,
    /// The HTTP status (absent on a network error).
    pub status: Option<u16>,
    /// The response's content type.
    pub content_type: Option<String>,
    /// Parsed JSON, the text, or the error message.
    pub data: Value,
    /// `json`, `text` or `error`, with `_truncated` when cut.
    pub data_type: String,
    /// The response was longer than 100 000 characters and was cut.
    pub truncated: bool,
    /// `browser_api`.
    pub fetch_method: String,
    /// Wall time.
    pub elapsed_ms: u64,
    /// Partition and runtime.
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// `scheme://host[:port]/` of `url`.
pub fn origin_of(url: &str) -> Result<String, BrowserError> {
    let u =
        Url::parse(url).map_err(|e| BrowserError::invalid(format!("bad API URL {url:?}: {e}")))?;
    match u.origin() {
        url::Origin::Tuple(..) => Ok(format!("{}/", u.origin().ascii_serialization())),
        url::Origin::Opaque(_) => Err(BrowserError::invalid(format!(
            "API URL {url:?} has no origin; use an absolute http(s) URL"
        ))),
    }
}

/// Call an API from a page of its site: the page is opened (unless the space
/// is already on that origin) and `fetch()` runs inside it, so the site's
/// cookies go along. Errors inside the page (CORS, network, a guard block)
/// come back as `data_type: "error"`, not as a failed call.
pub async fn api(rt: &dyn BrowserRuntime, req: &ApiRequest) -> Result<ApiOutput, BrowserError> {
    let start = Instant::now();
    let origin = match &req.origin {
        Some(o) => o.clone(),
        None => origin_of(&req.api_url)?,
    };
    let method = req.method.trim().to_ascii_uppercase();
    if method.is_empty() || !method.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(BrowserError::invalid(format!(
            "bad HTTP method {:?}",
            req.method
        )));
    }
    rt.open_space(&req.space).await?;
    let name = &req.space.name;
    let wanted_origin = origin_of(&origin)?;
    let here = rt.current_page(name).await?;
    let same = here
        .as_ref()
        .and_then(|p| origin_of(&p.url).ok())
        .is_some_and(|o| o == wanted_origin);
    if !same {
        rt.navigate(name, &origin, &WaitFor::Load).await?;
    }
    let page = rt.current_page(name).await?.unwrap_or(crate::PageInfo {
        url: origin.clone(),
        title: String::new(),
    });
    let headers: serde_json::Map<String, Value> = req
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let arg = json!({"url": req.api_url, "method": method, "body": req.body, "headers": headers});
    // The API URL is checked before the page is asked (a refusal is an
    // error, never an answer); the page's request is checked again by the
    // interception and the egress proxy.
    rt_guard_check(rt, &req.api_url)?;
    let r = rt
        .evaluate(name, &scripts::call(scripts::API_FETCH, &arg))
        .await?;
    let (data, data_type, truncated, status, content_type) = api_data(&r);
    Ok(ApiOutput {
        schema: "ferret.browser.api.v1".into(),
        api_url: req.api_url.clone(),
        page_url: page.url,
        page_title: page.title,
        status,
        content_type,
        data,
        data_type,
        truncated,
        fetch_method: "browser_api".into(),
        elapsed_ms: start.elapsed().as_millis() as u64,
        provenance: rt.provenance(),
    })
}

fn rt_guard_check(rt: &dyn BrowserRuntime, url: &str) -> Result<(), BrowserError> {
    rt.guard()
        .check(url)
        .map(|_| ())
        .map_err(BrowserError::from)
}

type ApiData = (Value, String, bool, Option<u16>, Option<String>);

/// Normalise the page's answer: JSON when it parses (or says it is JSON),
/// text otherwise, `error` for failures; cut over [`API_MAX_CHARS`].
fn api_data(r: &Value) -> ApiData {
    if let Some(err) = r.get("error").and_then(Value::as_str) {
        return (
            Value::String(err.to_string()),
            "error".into(),
            false,
            None,
            None,
        );
    }
    let status = r
        .get("status")
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok());
    let ctype = r
        .get("content_type")
        .and_then(Value::as_str)
        .map(str::to_string);
    let text = r.get("text").and_then(Value::as_str).unwrap_or("");
    let looks_json = ctype.as_deref().is_some_and(|c| c.contains("json"));
    if text.chars().count() > API_MAX_CHARS {
        let cut = serp::cut(text, API_MAX_CHARS);
        let kind = if looks_json || serde_json::from_str::<Value>(text).is_ok() {
            "json_truncated"
        } else {
            "text_truncated"
        };
        return (Value::String(cut), kind.into(), true, status, ctype);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) if looks_json || text.trim_start().starts_with(['{', '[']) => {
            (v, "json".into(), false, status, ctype)
        }
        _ => (
            Value::String(text.to_string()),
            "text".into(),
            false,
            status,
            ctype,
        ),
    }
}

/// `ferret.browser.status.v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusOutput {
    /// `ferret.browser.status.v1`.
    pub schema: String,
    /// The runtime asked for: `auto`, `managed` or `attached`.
    pub choice: String,
    /// The runtime the choice runs (when it could be reached).
    pub runtime: Option<RuntimeStatus>,
    /// Why it could not, if it could not.
    pub error: Option<String>,
    /// Each runtime probed on its own: usable or why not.
    pub runtimes: RuntimeProbes,
    /// Pro mode.
    pub pro_mode: ProModeStatus,
    /// When this was taken.
    pub checked_at: DateTime<Utc>,
}

/// Both runtimes, each probed on its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeProbes {
    /// A Chromium Ferret launches.
    pub managed: RuntimeProbe,
    /// The browser at `FERRET_CDP_URL`.
    pub attached: RuntimeProbe,
}

/// One runtime's probe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeProbe {
    /// It started (or answered) and can be used now.
    pub usable: bool,
    /// Why not, and what to do, when it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The browser's product string, when it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The executable (managed) or the endpoint (attached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The partition its reads belong to.
    pub partition: Partition,
    /// Its reads need pro mode (the login partition).
    pub needs_pro_mode: bool,
}

/// Report the runtime (connecting to it) and pro mode. A runtime that cannot
/// start is reported, not returned as an error.
pub async fn status(rt: &dyn BrowserRuntime, home: &std::path::Path) -> StatusOutput {
    let (runtime, error) = match rt.status().await {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(e.to_string())),
    };
    StatusOutput {
        schema: "ferret.browser.status.v1".into(),
        choice: String::new(),
        runtime,
        error,
        runtimes: RuntimeProbes {
            managed: RuntimeProbe::unprobed(Partition::Public),
            attached: RuntimeProbe::unprobed(Partition::Login),
        },
        pro_mode: pro_mode::status(home),
        checked_at: Utc::now(),
    }
}

/// `ferret browser status`: the runtime `config` chooses (connecting to
/// it), and each runtime probed on its own — a managed launch, and the
/// attached endpoint (connected to only when pro mode allows it or it is a
/// declared public pool; otherwise only checked for an answer on its port).
pub async fn status_of(config: &ChromiumConfig) -> StatusOutput {
    let (managed, attached) = tokio::join!(probe_managed(config), probe_attached(config));
    let mut out = match ChromiumRuntime::new(config.clone()) {
        Ok(rt) => {
            let out = status(&rt, &config.home).await;
            let _ = rt.shutdown().await;
            out
        }
        Err(e) => StatusOutput {
            error: Some(e.to_string()),
            ..status_unconnected(&config.home)
        },
    };
    out.choice = config.runtime.as_str().to_string();
    out.runtimes = RuntimeProbes { managed, attached };
    out
}

fn status_unconnected(home: &std::path::Path) -> StatusOutput {
    StatusOutput {
        schema: "ferret.browser.status.v1".into(),
        choice: String::new(),
        runtime: None,
        error: None,
        runtimes: RuntimeProbes {
            managed: RuntimeProbe::unprobed(Partition::Public),
            attached: RuntimeProbe::unprobed(Partition::Login),
        },
        pro_mode: pro_mode::status(home),
        checked_at: Utc::now(),
    }
}

impl RuntimeProbe {
    fn unprobed(partition: Partition) -> Self {
        RuntimeProbe {
            usable: false,
            reason: Some("not probed".into()),
            version: None,
            location: None,
            partition,
            needs_pro_mode: partition == Partition::Login,
        }
    }
}

async fn probe_managed(config: &ChromiumConfig) -> RuntimeProbe {
    let partition = config.partition_of(RuntimeKind::Managed);
    let managed = config.clone().runtime(RuntimeChoice::Managed);
    let mut probe = RuntimeProbe {
        location: Some(config.executable.display().to_string()),
        ..RuntimeProbe::unprobed(partition)
    };
    probe_with(managed, &mut probe).await;
    probe
}

async fn probe_attached(config: &ChromiumConfig) -> RuntimeProbe {
    let partition = config.attached_partition;
    let mut probe = RuntimeProbe::unprobed(partition);
    let Some(endpoint) = config.endpoint.clone() else {
        probe.reason = Some(format!(
            "no endpoint: set {} to the DevTools address of a running browser",
            crate::config::CDP_URL_ENV
        ));
        return probe;
    };
    probe.location = Some(endpoint.clone());
    if partition == Partition::Login && !pro_mode::is_enabled(&config.home) {
        probe.reason = Some(format!(
            "{}; pro mode is off, so Ferret does not connect to it: turn pro mode on with `{}`",
            answers_on_port(&endpoint).await,
            pro_mode::ENABLE_COMMAND
        ));
        return probe;
    }
    let attached = config.clone().runtime(RuntimeChoice::Attached);
    probe_with(attached, &mut probe).await;
    probe
}

/// Connects a runtime for `config`, records its version or why it failed,
/// and shuts it down.
async fn probe_with(config: ChromiumConfig, probe: &mut RuntimeProbe) {
    let rt = match ChromiumRuntime::new(config) {
        Ok(rt) => rt,
        Err(e) => {
            probe.reason = Some(e.to_string());
            return;
        }
    };
    match rt.status().await {
        Ok(s) => {
            probe.usable = true;
            probe.reason = None;
            probe.version = s.browser_version;
        }
        Err(e) => probe.reason = Some(e.to_string()),
    }
    let _ = rt.shutdown().await;
}

/// Whether something accepts connections at the endpoint's host and port
/// (without speaking to it).
async fn answers_on_port(endpoint: &str) -> String {
    let Some(addr) = url::Url::parse(endpoint)
        .ok()
        .and_then(|u| Some(format!("{}:{}", u.host_str()?, u.port_or_known_default()?)))
    else {
        return format!("{endpoint:?} is not a URL");
    };
    let connect = tokio::net::TcpStream::connect(addr.clone());
    match tokio::time::timeout(std::time::Duration::from_secs(2), connect).await {
        Ok(Ok(_)) => format!("something answers at {addr}"),
        Ok(Err(e)) => format!("nothing answers at {addr} ({e})"),
        Err(_) => format!("nothing answers at {addr} (no answer within 2 s)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_data_kinds() {
        let (d, t, tr, s, _) = api_data(
            &json!({"status": 200, "content_type": "application/json", "text": "{\"a\":1}"}),
        );
        assert_eq!(
            (d, t.as_str(), tr, s),
            (json!({"a": 1}), "json", false, Some(200))
        );
        let (d, t, ..) =
            api_data(&json!({"status": 200, "content_type": "text/plain", "text": "hi"}));
        assert_eq!((d, t.as_str()), (json!("hi"), "text"));
        let (_, t, ..) = api_data(&json!({"error": "Failed to fetch"}));
        assert_eq!(t, "error");
        let big = format!("[{}]", vec!["1"; 60_000].join(","));
        let (d, t, tr, ..) =
            api_data(&json!({"status": 200, "content_type": "application/json", "text": big}));
        assert_eq!((t.as_str(), tr), ("json_truncated", true));
        assert_eq!(d.as_str().unwrap().chars().count(), API_MAX_CHARS);
        let (_, t, ..) = api_data(
            &json!({"status": 200, "content_type": "text/html", "text": "x".repeat(API_MAX_CHARS + 1)}),
        );
        assert_eq!(t, "text_truncated");
    }

    #[test]
    fn origins() {
        assert_eq!(
            origin_of("https://www.zhihu.com/api/v4/x?q=1").unwrap(),
            "https://www.zhihu.com/"
        );
        assert_eq!(
            origin_of("http://example.com:8080/a").unwrap(),
            "http://example.com:8080/"
        );
        assert!(origin_of("not a url").is_err());
        assert!(origin_of("data:text/plain,hi").is_err());
    }
}
