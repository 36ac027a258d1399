//! Tavily: `POST /search` with `Authorization: Bearer <key>`.
//!
//! Body: `query`, `max_results` (at most 20), `search_depth` (`advanced` in
//! `deep` mode, else `basic`), `include_answer` (true in `answer` mode; the
//! answer goes to [`EngineResponse::answer`]), `topic` (`news` for the news
//! intent, else `general`), and for a freshness window both `days`
//! (1/7/30/365; Tavily honours it for news) and
//! `time_range` (`day`/`week`/`month`/`year`, which Tavily honours for every
//! topic), `include_domains` and `exclude_domains`, `start_date` and
//! `end_date` (`YYYY-MM-DD`) for a since/until range (which then replaces
//! the freshness window), and `country` (Tavily's lowercase country name,
//! from the request's region, for the `general` topic only; a region
//! without a name here is not sent and a warning says so). Tavily's own
//! usage-limit statuses 432 and 433 map to `Quota`.

use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse, Freshness, Intent, Mode,
};
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::controls::iso_day;
use crate::http::json_api::{self, ApiKey};
use crate::http::{ConfigError, HitCollector, HttpClient, Service, ServiceConfig, clock};

/// How Tavily is named in errors.
pub const SERVICE: Service = Service {
    display: "Tavily API",
    credential_hint: Some("set TAVILY_API_KEY (keys: https://app.tavily.com)"),
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: TavilyEngine::DEFAULT_BASE_URL,
    timeout: Duration::from_secs(20),
    body_limit: HttpClient::DEFAULT_BODY_LIMIT,
    user_agent: HttpClient::DEFAULT_USER_AGENT,
};

/// Tavily's `time_range` for a freshness window.
pub fn time_range(freshness: Freshness) -> &'static str {
    match freshness {
        Freshness::Pd => "day",
        Freshness::Pw => "week",
        Freshness::Pm => "month",
        Freshness::Py => "year",
    }
}

/// Tavily's `country` names by ISO 3166-1 code.
const COUNTRIES: &[(&str, &str)] = &[
    ("AR", "argentina"),
    ("AT", "austria"),
    ("AU", "australia"),
    ("BE", "belgium"),
    ("BR", "brazil"),
    ("CA", "canada"),
    ("CH", "switzerland"),
    ("CN", "china"),
    ("CZ", "czech republic"),
    ("DE", "germany"),
    ("DK", "denmark"),
    ("ES", "spain"),
    ("FI", "finland"),
    ("FR", "france"),
    ("GB", "united kingdom"),
    ("GR", "greece"),
    ("IE", "ireland"),
    ("IL", "israel"),
    ("IN", "india"),
    ("IT", "italy"),
    ("JP", "japan"),
    ("KR", "south korea"),
    ("MX", "mexico"),
    ("NL", "netherlands"),
    ("NO", "norway"),
    ("NZ", "new zealand"),
    ("PL", "poland"),
    ("PT", "portugal"),
    ("RU", "russia"),
    ("SE", "sweden"),
    ("SG", "singapore"),
    ("TR", "turkey"),
    ("TW", "taiwan"),
    ("UA", "ukraine"),
    ("US", "united states"),
    ("ZA", "south africa"),
];

/// Tavily's `country` for a region code, if it has one here.
pub fn country(region: &str) -> Option<&'static str> {
    let code = region.trim().to_ascii_uppercase();
    COUNTRIES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// The controls Tavily pushes down.
const CONTROLS: ControlSet = ControlSet::of(&[
    Control::IncludeDomains,
    Control::ExcludeDomains,
    Control::Freshness,
    Control::Since,
    Control::Until,
    Control::Region,
]);

/// The Tavily answer engine (`tavily`).
#[derive(Debug, Clone)]
pub struct TavilyEngine {
    http: HttpClient,
    endpoint: Url,
    api_key: Option<String>,
}

/// Builder for [`TavilyEngine`].
#[derive(Debug, Clone, Default)]
pub struct TavilyBuilder {
    service: ServiceConfig,
}

impl TavilyBuilder {
    common_setters!();

    /// The API key (`TAVILY_API_KEY`, `tvly-…`). Without one, searches fail
    /// with an `Auth` error saying to set it.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.service = self.service.api_key(key);
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<TavilyEngine, ConfigError> {
        Ok(TavilyEngine {
            http: self.service.client(&DEFAULTS)?,
            endpoint: self.service.endpoint(&DEFAULTS, "/search")?,
            api_key: self.service.key().map(str::to_string),
        })
    }
}

impl TavilyEngine {
    /// The public API.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.tavily.com";
    /// The most results one call returns.
    pub const MAX_RESULTS: usize = 20;

    /// A builder with the defaults.
    pub fn builder() -> TavilyBuilder {
        TavilyBuilder::default()
    }

    /// The URL searches go to.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// Whether a key is configured.
    pub fn has_api_key(&self) -> bool {
        self.api_key.is_some()
    }

    /// The JSON body sent for `request`.
    pub fn request_body(request: &EngineRequest) -> Value {
        let mut body = json!({
            "query": request.query.trim(),
            "max_results": request.max_results.min(Self::MAX_RESULTS),
            "search_depth": if request.mode == Mode::Deep { "advanced" } else { "basic" },
            "include_answer": request.mode == Mode::Answer,
            "topic": if request.intent == Some(Intent::News) { "news" } else { "general" },
        });
        match (request.since, request.until, request.freshness) {
            (None, None, Some(f)) => {
                body["days"] = json!(f.days());
                body["time_range"] = json!(time_range(f));
            }
            (since, until, _) => {
                if let Some(day) = since {
                    body["start_date"] = json!(iso_day(day));
                }
                if let Some(day) = until {
                    body["end_date"] = json!(iso_day(day));
                }
            }
        }
        let include = request.included_domains();
        if !include.is_empty() {
            body["include_domains"] = json!(include);
        }
        if !request.exclude_domains.is_empty() {
            body["exclude_domains"] = json!(request.exclude_domains);
        }
        if let Some(name) = request.region.as_deref().and_then(country)
            && request.intent != Some(Intent::News)
        {
            body["country"] = json!(name);
        }
        body
    }

    /// Warnings for a region that [`Self::request_body`] could not send.
    fn region_warnings(request: &EngineRequest) -> Vec<String> {
        let Some(region) = &request.region else {
            return Vec::new();
        };
        if country(region).is_none() {
            vec![format!(
                "tavily: no Tavily country name for region {region}; searched without country"
            )]
        } else if request.intent == Some(Intent::News) {
            vec![format!(
                "tavily: region {region} not sent (Tavily takes a country for general searches only)"
            )]
        } else {
            Vec::new()
        }
    }
}

#[async_trait]
impl Engine for TavilyEngine {
    fn name(&self) -> &str {
        "tavily"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            site_filter: true,
            max_results: Self::MAX_RESULTS,
            ..EngineCapabilities::new(EngineKind::Answer).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let key = self
            .api_key
            .as_deref()
            .ok_or_else(|| SERVICE.missing_key())?;
        let call = json_api::post(
            &self.http,
            &self.endpoint,
            &Self::request_body(request),
            ApiKey::Bearer(key),
        );
        let body: TavilyBody = json_api::call(&self.http, call, &SERVICE).await?;
        let mut response = collect(body, request.max_results);
        response.warnings.extend(Self::region_warnings(request));
        Ok(response)
    }
}

#[derive(Debug, Deserialize)]
struct TavilyBody {
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    results: Vec<TavilyResult>,
}

#[derive(Debug, Deserialize)]
struct TavilyResult {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    published_date: Option<String>,
}

/// Parse a Tavily `/search` body into at most `max` hits and the answer.
pub fn parse_response(body: &[u8], max: usize) -> Result<EngineResponse, EngineError> {
    let body: TavilyBody = serde_json::from_slice(body).map_err(|e| {
        EngineError::parse(format!("Tavily API body is not the expected JSON: {e}"))
    })?;
    Ok(collect(body, max))
}

/// Tavily's news dates are RFC 1123 (`Tue, 17 Sep 2024 13:32:45 GMT`);
/// ISO dates pass through.
fn published(date: &str) -> Option<String> {
    clock::normalize_iso(date).or_else(|| {
        httpdate::parse_http_date(date.trim())
            .ok()
            .map(|t: SystemTime| clock::iso_datetime(t))
    })
}

fn collect(body: TavilyBody, max: usize) -> EngineResponse {
    let mut hits = HitCollector::new("tavily", max);
    for (i, r) in body.results.iter().enumerate() {
        hits.push(
            i + 1,
            &r.url,
            &r.title,
            &r.content,
            r.published_date.as_deref().and_then(published),
        );
    }
    let mut response = hits.finish();
    response.answer = body.answer.filter(|a| !a.trim().is_empty());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_mode_asks_for_an_answer_and_news_uses_the_news_topic() {
        let req = EngineRequest::new("q")
            .with_mode(Mode::Answer)
            .with_intent(Intent::News)
            .with_freshness(Freshness::Pw);
        let body = TavilyEngine::request_body(&req);
        assert_eq!(body["include_answer"], true);
        assert_eq!(body["topic"], "news");
        assert_eq!(body["days"], 7);
        assert_eq!(body["time_range"], "week");
        assert_eq!(body["search_depth"], "basic");
        let deep = TavilyEngine::request_body(&EngineRequest::new("q").with_mode(Mode::Deep));
        assert_eq!(deep["search_depth"], "advanced");
        assert_eq!(deep["include_answer"], false);
        assert!(deep.get("days").is_none());
    }

    #[test]
    fn news_dates_become_iso() {
        assert_eq!(
            published("Tue, 17 Sep 2024 13:32:45 GMT").as_deref(),
            Some("2024-09-17T13:32:45Z")
        );
        assert_eq!(published("2024-09-17").as_deref(), Some("2024-09-17"));
        assert_eq!(published("soon"), None);
    }
}
