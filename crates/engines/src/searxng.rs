//! SearXNG: `GET /search?format=json` on an instance you run or trust
//! (`SEARXNG_URL`; there is no public default).
//!
//! Request: `q` (with ` site:<host>` operators for the domains to include
//! and ` -site:<host>` for those to exclude, which SearXNG hands to its
//! upstream engines), `format=json`, `pageno` (the page, 1 by default),
//! `time_range` (`day`/`week`/`month`/`year`; SearXNG has no date range,
//! so since/until are not pushed down), `language` and `safesearch`
//! (`0`/`1`/`2`). Response: `results[]` →
//! hits (`content` is the snippet, `publishedDate` the date), the first of
//! `answers` → [`EngineResponse::answer`], and every entry of
//! `unresponsive_engines` → a warning (`searxng: upstream engine brave
//! unresponsive: Suspended: too many requests`).
//!
//! SearXNG answers `403 Forbidden` to `format=json` unless the instance
//! enables JSON output; that 403 becomes an
//! [`AccessDenied`](EngineError::AccessDenied) error saying so and how to
//! fix it (`search.formats: [html, json]` in `settings.yml`).

use std::time::Duration;

use async_trait::async_trait;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse, Freshness, SafeSearch,
};
use serde::Deserialize;
use serde_json::Value;
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::controls::with_site_operators;
use crate::http::json_api::{self, ApiKey};
use crate::http::{
    ConfigError, Fetched, HitCollector, HttpClient, Service, ServiceConfig, clock, markers,
};

/// How SearXNG is named in errors.
pub const SERVICE: Service = Service {
    display: "SearXNG",
    credential_hint: None,
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: "",
    timeout: Duration::from_secs(15),
    body_limit: HttpClient::DEFAULT_BODY_LIMIT,
    user_agent: HttpClient::DEFAULT_USER_AGENT,
};

/// SearXNG's `time_range` for a freshness window.
pub fn time_range(freshness: Freshness) -> &'static str {
    match freshness {
        Freshness::Pd => "day",
        Freshness::Pw => "week",
        Freshness::Pm => "month",
        Freshness::Py => "year",
    }
}

/// SearXNG's `safesearch` for a level.
pub fn safe_search(level: SafeSearch) -> &'static str {
    match level {
        SafeSearch::Off => "0",
        SafeSearch::Moderate => "1",
        SafeSearch::Strict => "2",
    }
}

/// The controls SearXNG pushes down.
const CONTROLS: ControlSet = ControlSet::of(&[
    Control::IncludeDomains,
    Control::ExcludeDomains,
    Control::Freshness,
    Control::Language,
    Control::SafeSearch,
    Control::Page,
]);

/// A SearXNG metasearch engine (`searxng`).
#[derive(Debug, Clone)]
pub struct SearxngEngine {
    http: HttpClient,
    endpoint: Url,
}

/// Builder for [`SearxngEngine`]; the base URL is required.
#[derive(Debug, Clone, Default)]
pub struct SearxngBuilder {
    service: ServiceConfig,
}

impl SearxngBuilder {
    common_setters!();

    /// Build the engine; fails without a base URL.
    pub fn build(self) -> Result<SearxngEngine, ConfigError> {
        if self.service.configured_base().is_none() {
            return Err(ConfigError::MissingBaseUrl {
                service: "SearXNG",
                hint: "SEARXNG_URL, e.g. http://localhost:8888",
            });
        }
        Ok(SearxngEngine {
            http: self.service.client(&DEFAULTS)?,
            endpoint: self.service.endpoint(&DEFAULTS, "/search")?,
        })
    }
}

impl SearxngEngine {
    /// The most results kept from one page.
    pub const MAX_RESULTS: usize = 20;

    /// A builder (set [`SearxngBuilder::base_url`]).
    pub fn builder() -> SearxngBuilder {
        SearxngBuilder::default()
    }

    /// The URL searches go to.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// The query parameters sent for `request`.
    pub fn request_params(request: &EngineRequest) -> Vec<(&'static str, String)> {
        let mut params: Vec<(&str, String)> = vec![
            ("q", with_site_operators(&request.query, request)),
            ("format", "json".into()),
            ("pageno", request.page_number().to_string()),
        ];
        if let Some(f) = request.freshness {
            params.push(("time_range", time_range(f).into()));
        }
        if let Some(lang) = &request.language {
            params.push(("language", lang.trim().to_string()));
        }
        if let Some(level) = request.safe_search {
            params.push(("safesearch", safe_search(level).into()));
        }
        params
    }

    fn forbidden(&self, fetched: &Fetched) -> EngineError {
        if let Some(block) = markers::block_page(&fetched.body).filter(|_| fetched.is_html()) {
            return block.into_error("SearXNG answered HTTP 403");
        }
        EngineError::AccessDenied {
            message: format!(
                "SearXNG at {} refused format=json (HTTP 403): JSON output is disabled on this \
                 instance. Enable it in the instance's settings.yml with `search: formats: [html, \
                 json]` and restart SearXNG",
                self.endpoint
            ),
        }
    }
}

#[async_trait]
impl Engine for SearxngEngine {
    fn name(&self) -> &str {
        "searxng"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            site_filter: true,
            max_results: Self::MAX_RESULTS,
            ..EngineCapabilities::new(EngineKind::Web).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let params = Self::request_params(request);
        let call = json_api::get(&self.http, &self.endpoint, &params, ApiKey::None);
        let fetched = self.http.send(call).await?;
        if fetched.status == 403 {
            return Err(self.forbidden(&fetched));
        }
        if fetched.is_success() && fetched.is_html() {
            return Err(EngineError::parse(format!(
                "SearXNG at {} answered HTML instead of JSON; check the URL points at the \
                 instance root and that `search.formats` in settings.yml includes json",
                self.endpoint
            )));
        }
        let body: SearxngBody = json_api::answer(&fetched, &SERVICE)?;
        Ok(collect(body, request.max_results))
    }
}

#[derive(Debug, Deserialize)]
struct SearxngBody {
    #[serde(default)]
    results: Vec<SearxngResult>,
    #[serde(default)]
    answers: Vec<Value>,
    #[serde(default)]
    unresponsive_engines: Vec<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearxngResult {
    #[serde(default)]
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    published_date: Option<String>,
}

/// Parse a SearXNG `format=json` body into at most `max` hits, the first
/// answer and warnings for unresponsive upstream engines.
pub fn parse_response(body: &[u8], max: usize) -> Result<EngineResponse, EngineError> {
    let body: SearxngBody = serde_json::from_slice(body)
        .map_err(|e| EngineError::parse(format!("SearXNG body is not the expected JSON: {e}")))?;
    Ok(collect(body, max))
}

fn collect(body: SearxngBody, max: usize) -> EngineResponse {
    let mut hits = HitCollector::new("searxng", max);
    for (i, r) in body.results.iter().enumerate() {
        hits.push(
            i + 1,
            &r.url,
            &r.title,
            r.content.as_deref().unwrap_or_default(),
            r.published_date.as_deref().and_then(clock::normalize_iso),
        );
    }
    for entry in &body.unresponsive_engines {
        let (name, why) = match entry {
            Value::Array(pair) => (
                pair.first().and_then(Value::as_str).unwrap_or("?"),
                pair.get(1)
                    .and_then(Value::as_str)
                    .unwrap_or("no reason given"),
            ),
            Value::String(name) => (name.as_str(), "no reason given"),
            _ => ("?", "no reason given"),
        };
        hits.warn(format!(
            "searxng: upstream engine {name} unresponsive: {why}"
        ));
    }
    let mut response = hits.finish();
    response.answer = body.answers.iter().find_map(|a| match a {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("answer").and_then(Value::as_str).map(str::to_string),
        _ => None,
    });
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_base_url_is_a_config_error_naming_the_variable() {
        let e = SearxngEngine::builder().build().unwrap_err();
        assert!(e.to_string().contains("SEARXNG_URL"), "{e}");
    }

    #[test]
    fn answers_and_unresponsive_engines() {
        let body = br#"{"results":[{"url":"https://a.example/","title":"A","content":"c","publishedDate":"2025-01-02T03:04:05"}],
            "answers":[{"answer":"42"}],"unresponsive_engines":[["brave","Suspended: too many requests"]]}"#;
        let r = parse_response(body, 10).unwrap();
        assert_eq!(
            r.hits[0].published_at.as_deref(),
            Some("2025-01-02T03:04:05")
        );
        assert_eq!(r.answer.as_deref(), Some("42"));
        assert_eq!(
            r.warnings,
            ["searxng: upstream engine brave unresponsive: Suspended: too many requests"]
        );
    }
}
