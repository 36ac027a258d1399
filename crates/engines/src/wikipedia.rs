//! Wikipedia's keyless search: the MediaWiki Action API
//! `GET /w/api.php?action=query&list=search&format=json&srsearch=…&srlimit=…`.
//!
//! The language edition is a subdomain (`en.wikipedia.org`, set with
//! [`WikipediaBuilder::language`]). When the engine talks to Wikipedia
//! itself (no explicit base URL), a request's language switches the
//! edition; an explicit base URL (a mirror, a test server) is always used
//! as is. A page after the first is asked for with `sroffset`.
//!
//! Hits: `title`, the article URL `<origin>/wiki/<Title_with_underscores>`,
//! the `snippet` with `<span class="searchmatch">` and entities removed,
//! and the last-edit `timestamp` as `published_at`. API errors arrive as
//! `200` with an `error` object: `maxlag`/`ratelimited` →
//! [`RateLimited`](EngineError::RateLimited), others →
//! [`InvalidQuery`](EngineError::InvalidQuery).

use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineKind, EngineRequest,
    EngineResponse,
};
use reqwest::header::ACCEPT;
use serde::Deserialize;
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters, join_endpoint};
use crate::http::{
    ConfigError, HitCollector, HttpClient, Service, ServiceConfig, clock, inline_html, status,
};

/// How Wikipedia is named in errors.
pub const SERVICE: Service = Service {
    display: "Wikipedia API",
    credential_hint: None,
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: "https://en.wikipedia.org",
    timeout: Duration::from_secs(15),
    body_limit: HttpClient::DEFAULT_BODY_LIMIT,
    user_agent: HttpClient::DEFAULT_USER_AGENT,
};

const API_PATH: &str = "/w/api.php";

/// The controls Wikipedia pushes down: the language (as the edition) and
/// the page.
const CONTROLS: ControlSet = ControlSet::of(&[Control::Language, Control::Page]);

/// Whether `code` looks like a Wikipedia language subdomain (`en`, `zh`,
/// `simple`, `zh-yue`, `be-tarask`).
fn is_edition(code: &str) -> bool {
    (2..=12).contains(&code.len())
        && code.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        && !code.starts_with('-')
        && !code.ends_with('-')
}

/// The Wikipedia search engine (`wikipedia`).
#[derive(Debug, Clone)]
pub struct WikipediaEngine {
    http: HttpClient,
    endpoint: Url,
    follows_language: bool,
}

/// Builder for [`WikipediaEngine`].
#[derive(Debug, Clone)]
pub struct WikipediaBuilder {
    service: ServiceConfig,
    language: String,
}

impl Default for WikipediaBuilder {
    fn default() -> Self {
        WikipediaBuilder {
            service: ServiceConfig::new(),
            language: "en".into(),
        }
    }
}

impl WikipediaBuilder {
    common_setters!();

    /// The default edition's language subdomain (default `en`).
    pub fn language(mut self, code: impl Into<String>) -> Self {
        self.language = code.into().trim().to_ascii_lowercase();
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<WikipediaEngine, ConfigError> {
        if !is_edition(&self.language) {
            return Err(ConfigError::InvalidOption(format!(
                "{:?} is not a Wikipedia language code (like en, de, zh, simple)",
                self.language
            )));
        }
        let (endpoint, follows_language) = match self.service.configured_base() {
            Some(_) => (self.service.endpoint(&DEFAULTS, API_PATH)?, false),
            None => (
                join_endpoint(
                    &format!("https://{}.wikipedia.org", self.language),
                    API_PATH,
                )?,
                true,
            ),
        };
        Ok(WikipediaEngine {
            http: self.service.client(&DEFAULTS)?,
            endpoint,
            follows_language,
        })
    }
}

impl WikipediaEngine {
    /// The most results one call returns (`srlimit` allows up to 500; a
    /// search page needs far fewer).
    pub const MAX_RESULTS: usize = 50;

    /// A builder with the defaults.
    pub fn builder() -> WikipediaBuilder {
        WikipediaBuilder::default()
    }

    /// The API URL searches go to by default.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    fn endpoint_for(&self, request: &EngineRequest) -> Url {
        let edition = request
            .language
            .as_deref()
            .map(|l| {
                l.split(['-', '_'])
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase()
            })
            .filter(|code| self.follows_language && is_edition(code));
        match edition {
            Some(code) => join_endpoint(&format!("https://{code}.wikipedia.org"), API_PATH)
                .unwrap_or_else(|_| self.endpoint.clone()),
            None => self.endpoint.clone(),
        }
    }
}

#[async_trait]
impl Engine for WikipediaEngine {
    fn name(&self) -> &str {
        "wikipedia"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            max_results: Self::MAX_RESULTS,
            ..EngineCapabilities::new(EngineKind::Reference).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let endpoint = self.endpoint_for(request);
        let limit = request.max_results.min(Self::MAX_RESULTS);
        let mut params = vec![
            ("action", "query".to_string()),
            ("list", "search".to_string()),
            ("format", "json".to_string()),
            ("formatversion", "2".to_string()),
            ("srsearch", request.query.trim().to_string()),
            ("srlimit", limit.to_string()),
            ("srprop", "snippet|timestamp".to_string()),
            ("utf8", "1".to_string()),
        ];
        if request.page_number() > 1 {
            params.push(("sroffset", request.offset(limit).to_string()));
        }
        let call = self
            .http
            .get(endpoint.clone())
            .query(&params)
            .header(ACCEPT, "application/json");
        let fetched = self.http.send(call).await?;
        status::check(&fetched, &SERVICE)?;
        let body: WikiBody = fetched.json(&SERVICE)?;
        let mut response = collect(body, &endpoint, request.max_results, &fetched.headers)?;
        if let Some(f) = request.freshness {
            response.warnings.push(format!(
                "wikipedia: freshness {f} not pushed down (the search API has no date filter)"
            ));
        }
        if let Some(site) = &request.site {
            response.warnings.push(format!(
                "wikipedia: site restriction {site} not applied (this engine only searches Wikipedia)"
            ));
        }
        Ok(response)
    }
}

#[derive(Debug, Deserialize)]
struct WikiBody {
    #[serde(default)]
    query: Option<WikiQuery>,
    #[serde(default)]
    error: Option<WikiError>,
}

#[derive(Debug, Deserialize)]
struct WikiQuery {
    #[serde(default)]
    search: Vec<WikiHit>,
}

#[derive(Debug, Deserialize)]
struct WikiHit {
    #[serde(default)]
    title: String,
    #[serde(default)]
    snippet: String,
    #[serde(default)]
    timestamp: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WikiError {
    #[serde(default)]
    code: String,
    #[serde(default)]
    info: String,
}

/// The article URL for `title` on the wiki whose API is `api`.
pub fn article_url(api: &Url, title: &str) -> String {
    let path = title
        .trim()
        .replace(' ', "_")
        .replace('%', "%25")
        .replace('?', "%3F")
        .replace('#', "%23");
    api.join(&format!("/wiki/{path}"))
        .map(|u| u.to_string())
        .unwrap_or_else(|_| format!("{}/wiki/{path}", api.origin().ascii_serialization()))
}

/// Parse an `action=query&list=search` body (format version 1 or 2) from
/// the wiki whose API is `api` into at most `max` hits.
pub fn parse_response(body: &[u8], api: &Url, max: usize) -> Result<EngineResponse, EngineError> {
    let body: WikiBody = serde_json::from_slice(body).map_err(|e| {
        EngineError::parse(format!("Wikipedia API body is not the expected JSON: {e}"))
    })?;
    collect(body, api, max, &reqwest::header::HeaderMap::new())
}

fn collect(
    body: WikiBody,
    api: &Url,
    max: usize,
    headers: &reqwest::header::HeaderMap,
) -> Result<EngineResponse, EngineError> {
    if let Some(err) = body.error {
        let message = format!("Wikipedia API error {}: {}", err.code, err.info);
        return Err(match err.code.as_str() {
            "maxlag" | "ratelimited" => EngineError::RateLimited {
                retry_after: status::retry_after(headers, SystemTime::now()),
                message,
            },
            _ => EngineError::invalid_query(message),
        });
    }
    let Some(query) = body.query else {
        return Err(EngineError::parse(
            "Wikipedia API body has neither `query` nor `error`",
        ));
    };
    let mut hits = HitCollector::new("wikipedia", max);
    for (i, h) in query.search.iter().enumerate() {
        hits.push(
            i + 1,
            &article_url(api, &h.title),
            &h.title,
            &inline_html::to_text(&h.snippet),
            h.timestamp.as_deref().and_then(clock::normalize_iso),
        );
    }
    Ok(hits.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::ErrorKind;

    fn api() -> Url {
        Url::parse("https://en.wikipedia.org/w/api.php").unwrap()
    }

    #[test]
    fn article_urls_from_titles() {
        assert_eq!(
            article_url(&api(), "Rust (programming language)"),
            "https://en.wikipedia.org/wiki/Rust_(programming_language)"
        );
        assert_eq!(
            article_url(&api(), "What? (film)"),
            "https://en.wikipedia.org/wiki/What%3F_(film)"
        );
        assert_eq!(
            article_url(&api(), "Ünïcode"),
            "https://en.wikipedia.org/wiki/%C3%9Cn%C3%AFcode"
        );
    }

    #[test]
    fn api_errors_are_typed() {
        let e = parse_response(
            br#"{"error":{"code":"maxlag","info":"Waiting"}}"#,
            &api(),
            5,
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::RateLimited);
        let e = parse_response(
            br#"{"error":{"code":"nosrsearch","info":"missing"}}"#,
            &api(),
            5,
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidQuery);
        assert_eq!(
            parse_response(b"{}", &api(), 5).unwrap_err().kind(),
            ErrorKind::Parse
        );
    }

    #[test]
    fn request_language_switches_the_edition_only_without_an_explicit_base() {
        let wiki = WikipediaEngine::builder().language("de").build().unwrap();
        assert_eq!(
            wiki.endpoint().as_str(),
            "https://de.wikipedia.org/w/api.php"
        );
        let req = EngineRequest::new("x").with_language("zh-CN");
        assert_eq!(
            wiki.endpoint_for(&req).as_str(),
            "https://zh.wikipedia.org/w/api.php"
        );
        let local = WikipediaEngine::builder()
            .base_url("http://127.0.0.1:9")
            .build()
            .unwrap();
        assert_eq!(
            local.endpoint_for(&req).as_str(),
            "http://127.0.0.1:9/w/api.php"
        );
        assert!(WikipediaEngine::builder().language("EN!").build().is_err());
    }
}
