//! Exa: `POST /search` with the key in `x-api-key`.
//!
//! The request body follows the retrieval lane of each intent:
//!
//! | Request | `type` |
//! |---|---|
//! | intent `resource` | `instant` |
//! | intent `status` or `news` | `fast` |
//! | intent `exploratory` in `deep` mode | `deep` |
//! | anything else | `auto` |
//!
//! plus `numResults` (at most 100), `contents.highlights.maxCharacters =
//! 1200` (so snippets are never empty), `startPublishedDate` for a
//! freshness window (midnight UTC, `days` days before the injectable
//! clock's now) or for a `since` day (which replaces the window),
//! `endPublishedDate` for an `until` day (its last millisecond, UTC),
//! `includeDomains` and `excludeDomains`, and `userLocation` (the region's
//! two-letter code). Snippets come
//! from `highlights`, else `summary`, else `text` (cut to 1200 chars).

use std::time::Duration;

use async_trait::async_trait;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse, Intent, Mode,
};
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::controls::iso_day;
use crate::http::json_api::{self, ApiKey};
use crate::http::{
    ConfigError, HitCollector, HttpClient, Service, ServiceConfig, SharedClock, clock,
};

/// How Exa is named in errors.
pub const SERVICE: Service = Service {
    display: "Exa API",
    credential_hint: Some("set EXA_API_KEY (keys: https://dashboard.exa.ai/api-keys)"),
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: ExaEngine::DEFAULT_BASE_URL,
    timeout: Duration::from_secs(20),
    body_limit: HttpClient::DEFAULT_BODY_LIMIT,
    user_agent: HttpClient::DEFAULT_USER_AGENT,
};

/// The longest snippet taken from `text` when there are no highlights.
const SNIPPET_CHARS: usize = 1200;

/// The controls Exa pushes down.
const CONTROLS: ControlSet = ControlSet::of(&[
    Control::IncludeDomains,
    Control::ExcludeDomains,
    Control::Freshness,
    Control::Since,
    Control::Until,
    Control::Region,
]);

/// Exa's search `type` for a request (see the module docs).
pub fn search_type(intent: Option<Intent>, mode: Mode) -> &'static str {
    match (intent, mode) {
        (Some(Intent::Resource), _) => "instant",
        (Some(Intent::Status | Intent::News), _) => "fast",
        (Some(Intent::Exploratory), Mode::Deep) => "deep",
        _ => "auto",
    }
}

/// The Exa neural search engine (`exa`).
#[derive(Debug, Clone)]
pub struct ExaEngine {
    http: HttpClient,
    endpoint: Url,
    api_key: Option<String>,
    clock: SharedClock,
    highlight_chars: u32,
}

/// Builder for [`ExaEngine`].
#[derive(Debug, Clone)]
pub struct ExaBuilder {
    service: ServiceConfig,
    clock: SharedClock,
    highlight_chars: u32,
}

impl Default for ExaBuilder {
    fn default() -> Self {
        ExaBuilder {
            service: ServiceConfig::new(),
            clock: clock::system(),
            highlight_chars: 1200,
        }
    }
}

impl ExaBuilder {
    common_setters!();

    /// The API key (`EXA_API_KEY`). Without one, searches fail with an
    /// `Auth` error saying to set it.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.service = self.service.api_key(key);
        self
    }

    /// The clock freshness windows are computed from (default: system).
    pub fn clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// `contents.highlights.maxCharacters` (default 1200).
    pub fn highlight_chars(mut self, chars: u32) -> Self {
        self.highlight_chars = chars.max(1);
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<ExaEngine, ConfigError> {
        Ok(ExaEngine {
            http: self.service.client(&DEFAULTS)?,
            endpoint: self.service.endpoint(&DEFAULTS, "/search")?,
            api_key: self.service.key().map(str::to_string),
            clock: self.clock,
            highlight_chars: self.highlight_chars,
        })
    }
}

impl ExaEngine {
    /// The public API.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.exa.ai";
    /// The most results one call returns.
    pub const MAX_RESULTS: usize = 100;

    /// A builder with the defaults.
    pub fn builder() -> ExaBuilder {
        ExaBuilder::default()
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
    pub fn request_body(&self, request: &EngineRequest) -> Value {
        let mut body = json!({
            "query": request.query.trim(),
            "type": search_type(request.intent, request.mode),
            "numResults": request.max_results.min(Self::MAX_RESULTS),
            "contents": { "highlights": { "maxCharacters": self.highlight_chars } },
        });
        if let Some(since) = request.since {
            body["startPublishedDate"] = json!(format!("{}T00:00:00.000Z", iso_day(since)));
        } else if let Some(f) = request.freshness {
            let start = clock::days_before(self.clock.now(), f.days());
            body["startPublishedDate"] = json!(format!("{}T00:00:00.000Z", clock::iso_date(start)));
        }
        if let Some(until) = request.until {
            body["endPublishedDate"] = json!(format!("{}T23:59:59.999Z", iso_day(until)));
        }
        let include = request.included_domains();
        if !include.is_empty() {
            body["includeDomains"] = json!(include);
        }
        if !request.exclude_domains.is_empty() {
            body["excludeDomains"] = json!(request.exclude_domains);
        }
        if let Some(region) = &request.region {
            body["userLocation"] = json!(region.trim().to_ascii_uppercase());
        }
        body
    }
}

#[async_trait]
impl Engine for ExaEngine {
    fn name(&self) -> &str {
        "exa"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            site_filter: true,
            max_results: Self::MAX_RESULTS,
            ..EngineCapabilities::new(EngineKind::Neural).with_controls(CONTROLS)
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
            &self.request_body(request),
            ApiKey::Header("x-api-key", key),
        );
        let body: ExaBody = json_api::call(&self.http, call, &SERVICE).await?;
        tracing::debug!(
            engine = "exa",
            resolved_type = body.resolved_search_type.as_deref().unwrap_or("?"),
            request_id = body.request_id.as_deref().unwrap_or("?"),
            "exa answered"
        );
        Ok(collect(body, request.max_results))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExaBody {
    #[serde(default)]
    results: Vec<ExaResult>,
    #[serde(default)]
    resolved_search_type: Option<String>,
    #[serde(default)]
    request_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExaResult {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    url: String,
    #[serde(default)]
    published_date: Option<String>,
    #[serde(default)]
    highlights: Vec<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

/// Parse an Exa `/search` body into at most `max` hits.
pub fn parse_response(body: &[u8], max: usize) -> Result<EngineResponse, EngineError> {
    let body: ExaBody = serde_json::from_slice(body)
        .map_err(|e| EngineError::parse(format!("Exa API body is not the expected JSON: {e}")))?;
    Ok(collect(body, max))
}

fn collect(body: ExaBody, max: usize) -> EngineResponse {
    let mut hits = HitCollector::new("exa", max);
    for (i, r) in body.results.iter().enumerate() {
        let snippet = if !r.highlights.is_empty() {
            r.highlights.join(" … ")
        } else if let Some(summary) = r.summary.as_deref().filter(|s| !s.trim().is_empty()) {
            summary.to_string()
        } else {
            r.text
                .as_deref()
                .unwrap_or_default()
                .chars()
                .take(SNIPPET_CHARS)
                .collect()
        };
        hits.push(
            i + 1,
            &r.url,
            r.title.as_deref().unwrap_or_default(),
            &snippet,
            r.published_date.as_deref().and_then(clock::normalize_iso),
        );
    }
    hits.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_type_follows_the_intent_table() {
        assert_eq!(search_type(Some(Intent::Resource), Mode::Deep), "instant");
        assert_eq!(search_type(Some(Intent::Status), Mode::Fast), "fast");
        assert_eq!(search_type(Some(Intent::News), Mode::Deep), "fast");
        assert_eq!(search_type(Some(Intent::Exploratory), Mode::Deep), "deep");
        assert_eq!(search_type(Some(Intent::Exploratory), Mode::Fast), "auto");
        assert_eq!(search_type(Some(Intent::Factual), Mode::Answer), "auto");
        assert_eq!(search_type(None, Mode::Deep), "auto");
    }

    #[test]
    fn snippets_fall_back_from_highlights_to_summary_to_text() {
        let body = br#"{"results":[
            {"title":"H","url":"https://h.example/","highlights":["one","two"]},
            {"title":"S","url":"https://s.example/","highlights":[],"summary":"sum"},
            {"title":null,"url":"https://t.example/","text":"full text","publishedDate":"2024-02-03T00:00:00.000Z"}]}"#;
        let r = parse_response(body, 10).unwrap();
        assert_eq!(r.hits[0].snippet, "one … two");
        assert_eq!(r.hits[1].snippet, "sum");
        assert_eq!(r.hits[2].snippet, "full text");
        assert_eq!(r.hits[2].title, "https://t.example/");
        assert_eq!(
            r.hits[2].published_at.as_deref(),
            Some("2024-02-03T00:00:00Z")
        );
    }
}
