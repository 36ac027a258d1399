//! Brave Search API: `GET /res/v1/web/search` with the key in
//! `X-Subscription-Token`.
//!
//! Request: `q` (with ` site:<host>` operators for the domains to include
//! and ` -site:<host>` for those to exclude), `count` (at most 20),
//! `freshness` (`pd`/`pw`/`pm`/`py` as is, or `YYYY-MM-DDtoYYYY-MM-DD` for
//! a since/until range, an open end filled in from the injectable clock),
//! `search_lang` (Brave's codes: `zh-CN` → `zh-hans`, `ja` → `jp`, …; an
//! unsupported language is not sent and a warning says so), `country` (the
//! request's region, else the configured one), `safesearch`
//! (`off`/`moderate`/`strict`) and `offset` (the 0-based page; Brave serves
//! pages 1 to 10, a later page is an `InvalidQuery` error). Response: `web.results[]` → hits, with
//! `<strong>` and entities stripped from `description`, and `page_age`
//! (else an absolute `age` such as `May 1, 2023`) as `published_at`.
//!
//! ```no_run
//! use ferret_engines::brave::BraveEngine;
//! let brave = BraveEngine::builder()
//!     .api_key(std::env::var("BRAVE_API_KEY").unwrap_or_default())
//!     .build()?;
//! # Ok::<(), ferret_engines::http::ConfigError>(())
//! ```

use std::time::Duration;

use async_trait::async_trait;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse,
};
use serde::Deserialize;
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::controls::{Params, closed_range, day_of, iso_day, with_site_operators};
use crate::http::json_api::{self, ApiKey};
use crate::http::{
    ConfigError, HitCollector, HttpClient, Service, ServiceConfig, SharedClock, clock, inline_html,
};

/// How Brave is named in errors.
pub const SERVICE: Service = Service {
    display: "Brave Search API",
    credential_hint: Some("set BRAVE_API_KEY (keys: https://api-dashboard.search.brave.com)"),
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: BraveEngine::DEFAULT_BASE_URL,
    timeout: Duration::from_secs(20),
    body_limit: HttpClient::DEFAULT_BODY_LIMIT,
    user_agent: HttpClient::DEFAULT_USER_AGENT,
};

/// Brave's `search_lang` codes.
const SEARCH_LANGS: &[&str] = &[
    "ar", "eu", "bn", "bg", "ca", "zh-hans", "zh-hant", "hr", "cs", "da", "nl", "en", "en-gb",
    "et", "fi", "fr", "gl", "de", "gu", "he", "hi", "hu", "is", "it", "jp", "kn", "ko", "lv", "lt",
    "ms", "ml", "mr", "nb", "pl", "pt-br", "pt-pt", "pa", "ro", "ru", "sr", "sk", "sl", "es", "sv",
    "ta", "te", "th", "tr", "uk", "vi",
];

/// The controls Brave pushes down.
const CONTROLS: ControlSet = ControlSet::of(&Control::ALL);

/// BCP 47 tags whose Brave code is not their lowercased primary subtag.
const LANG_ALIASES: &[(&str, &str)] = &[
    ("zh", "zh-hans"),
    ("zh-cn", "zh-hans"),
    ("zh-sg", "zh-hans"),
    ("zh-hans", "zh-hans"),
    ("zh-tw", "zh-hant"),
    ("zh-hk", "zh-hant"),
    ("zh-hant", "zh-hant"),
    ("ja", "jp"),
    ("pt", "pt-pt"),
    ("pt-br", "pt-br"),
    ("pt-pt", "pt-pt"),
    ("en-gb", "en-gb"),
    ("no", "nb"),
];

/// Brave's `search_lang` for a BCP 47 tag, if Brave supports it.
pub fn search_lang(tag: &str) -> Option<&'static str> {
    let lower = tag.trim().to_ascii_lowercase().replace('_', "-");
    if let Some((_, code)) = LANG_ALIASES.iter().find(|(t, _)| *t == lower) {
        return Some(code);
    }
    let primary = lower.split('-').next().unwrap_or_default();
    SEARCH_LANGS.iter().copied().find(|c| *c == primary)
}

/// The Brave Search web engine (`brave`).
#[derive(Debug, Clone)]
pub struct BraveEngine {
    http: HttpClient,
    endpoint: Url,
    api_key: Option<String>,
    country: Option<String>,
    clock: SharedClock,
}

/// Builder for [`BraveEngine`].
#[derive(Debug, Clone)]
pub struct BraveBuilder {
    service: ServiceConfig,
    country: Option<String>,
    clock: SharedClock,
}

impl Default for BraveBuilder {
    fn default() -> Self {
        BraveBuilder {
            service: ServiceConfig::new(),
            country: None,
            clock: clock::system(),
        }
    }
}

impl BraveBuilder {
    common_setters!();

    /// The subscription token (`BRAVE_API_KEY`). Without one, searches fail
    /// with an `Auth` error saying to set it.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.service = self.service.api_key(key);
        self
    }

    /// A `country` code (`us`, `de`, …) sent with every search whose
    /// request has no region of its own.
    pub fn country(mut self, country: impl Into<String>) -> Self {
        self.country = Some(country.into());
        self
    }

    /// The clock an open-ended date range ends at (default: system).
    pub fn clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<BraveEngine, ConfigError> {
        Ok(BraveEngine {
            http: self.service.client(&DEFAULTS)?,
            endpoint: self.service.endpoint(&DEFAULTS, "/res/v1/web/search")?,
            api_key: self.service.key().map(str::to_string),
            country: self.country,
            clock: self.clock,
        })
    }
}

impl BraveEngine {
    /// The public API.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.search.brave.com";
    /// The most results one call returns.
    pub const MAX_COUNT: usize = 20;
    /// The largest `offset` (0-based page) Brave accepts.
    pub const MAX_OFFSET: u32 = 9;

    /// A builder with the defaults.
    pub fn builder() -> BraveBuilder {
        BraveBuilder::default()
    }

    /// The URL searches go to.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// Whether a key is configured.
    pub fn has_api_key(&self) -> bool {
        self.api_key.is_some()
    }

    /// The query parameters sent for `request`, and warnings for what
    /// could not be sent; a page past Brave's last is an error.
    pub fn request_params(
        &self,
        request: &EngineRequest,
    ) -> Result<(Params, Vec<String>), EngineError> {
        let mut warnings = Vec::new();
        let q = with_site_operators(&request.query, request);
        let count = request.max_results.min(Self::MAX_COUNT);
        let mut params: Vec<(&str, String)> = vec![("q", q), ("count", count.to_string())];
        if let Some(freshness) = self.freshness(request) {
            params.push(("freshness", freshness));
        }
        if let Some(lang) = &request.language {
            match search_lang(lang) {
                Some(code) => params.push(("search_lang", code.to_string())),
                None => warnings.push(format!(
                    "brave: language {lang:?} is not one Brave supports; searched without search_lang"
                )),
            }
        }
        let country = request.region.as_deref().map(str::to_ascii_lowercase);
        if let Some(country) = country.or_else(|| self.country.clone()) {
            params.push(("country", country));
        }
        if let Some(level) = request.safe_search {
            params.push(("safesearch", level.as_str().to_string()));
        }
        if request.page_number() > 1 {
            params.push(("offset", page_offset(request.page_number())?.to_string()));
        }
        Ok((params, warnings))
    }

    /// `freshness`: a since/until range as `YYYY-MM-DDtoYYYY-MM-DD`, else
    /// the window's own code.
    fn freshness(&self, request: &EngineRequest) -> Option<String> {
        match closed_range(request, day_of(self.clock.now())) {
            Some((since, until)) => Some(format!("{}to{}", iso_day(since), iso_day(until))),
            None => request.freshness.map(|f| f.as_str().to_string()),
        }
    }
}

/// Brave's 0-based `offset` for a 1-based page, if Brave serves it.
fn page_offset(page: u32) -> Result<u32, EngineError> {
    let offset = page.saturating_sub(1);
    if offset > BraveEngine::MAX_OFFSET {
        return Err(EngineError::invalid_query(format!(
            "brave serves result pages 1 to {}; page {page} is past the last",
            BraveEngine::MAX_OFFSET + 1
        )));
    }
    Ok(offset)
}

#[async_trait]
impl Engine for BraveEngine {
    fn name(&self) -> &str {
        "brave"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            site_filter: true,
            max_results: Self::MAX_COUNT,
            ..EngineCapabilities::new(EngineKind::Web).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let key = self
            .api_key
            .as_deref()
            .ok_or_else(|| SERVICE.missing_key())?;
        let (params, mut warnings) = self.request_params(request)?;
        let call = json_api::get(
            &self.http,
            &self.endpoint,
            &params,
            ApiKey::Header("X-Subscription-Token", key),
        );
        let body: BraveBody = json_api::call(&self.http, call, &SERVICE).await?;
        let mut response = collect(body, request.max_results);
        warnings.append(&mut response.warnings);
        response.warnings = warnings;
        Ok(response)
    }
}

#[derive(Debug, Deserialize)]
struct BraveBody {
    #[serde(default)]
    web: Option<Web>,
}

#[derive(Debug, Deserialize)]
struct Web {
    #[serde(default)]
    results: Vec<WebResult>,
}

#[derive(Debug, Deserialize)]
struct WebResult {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    page_age: Option<String>,
    #[serde(default)]
    age: Option<String>,
}

/// Parse a Brave web-search body into at most `max` hits.
pub fn parse_response(body: &[u8], max: usize) -> Result<EngineResponse, EngineError> {
    let body: BraveBody = serde_json::from_slice(body).map_err(|e| {
        EngineError::parse(format!(
            "Brave Search API body is not the expected JSON: {e}"
        ))
    })?;
    Ok(collect(body, max))
}

fn collect(body: BraveBody, max: usize) -> EngineResponse {
    let mut hits = HitCollector::new("brave", max);
    let results = body.web.map(|w| w.results).unwrap_or_default();
    for (i, r) in results.iter().enumerate() {
        let published = r
            .page_age
            .as_deref()
            .and_then(clock::normalize_iso)
            .or_else(|| r.age.as_deref().and_then(clock::parse_month_day_year));
        hits.push(
            i + 1,
            &r.url,
            &inline_html::to_text(&r.title),
            &inline_html::to_text(&r.description),
            published,
        );
    }
    hits.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_map_to_brave_codes() {
        assert_eq!(search_lang("zh-CN"), Some("zh-hans"));
        assert_eq!(search_lang("zh_TW"), Some("zh-hant"));
        assert_eq!(search_lang("ja"), Some("jp"));
        assert_eq!(search_lang("en-US"), Some("en"));
        assert_eq!(search_lang("pt-BR"), Some("pt-br"));
        assert_eq!(search_lang("xx"), None);
    }

    #[test]
    fn parses_results_with_dates_and_markup() {
        let body = br#"{"web":{"results":[
            {"title":"A &amp; B","url":"https://a.example/","description":"<strong>A</strong> x","page_age":"2023-05-01T20:10:05"},
            {"title":"C","url":"https://c.example/","description":"","age":"May 1, 2023"},
            {"title":"D","url":"ftp://d.example/","description":""}]}}"#;
        let r = parse_response(body, 10).unwrap();
        assert_eq!(r.hits.len(), 2);
        assert_eq!(r.hits[0].title, "A & B");
        assert_eq!(r.hits[0].snippet, "A x");
        assert_eq!(
            r.hits[0].published_at.as_deref(),
            Some("2023-05-01T20:10:05")
        );
        assert_eq!(r.hits[1].published_at.as_deref(), Some("2023-05-01"));
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn a_body_without_web_results_is_empty_not_an_error() {
        let r = parse_response(br#"{"type":"search","query":{"original":"x"}}"#, 10).unwrap();
        assert!(r.hits.is_empty());
    }
}
