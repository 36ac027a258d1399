//! GitHub's search API: `GET /search/issues` and `GET /search/repositories`
//! (`Accept: application/vnd.github+json`, `X-GitHub-Api-Version`, and
//! `Authorization: Bearer $GITHUB_TOKEN` when a token is configured).
//!
//! [`GithubScope`] chooses issues, repositories, or both (two concurrent
//! calls, interleaved issue, repository, issue, … ; when one of the two
//! fails the other's hits come back with a warning naming the failure).
//!
//! GitHub now rejects issue searches without `is:issue` or
//! `is:pull-request` (HTTP 422), so `is:issue` is appended unless the
//! query already has an `is:`/`type:` issue-kind qualifier. A freshness
//! window becomes `updated:>=YYYY-MM-DD` (issues) or `pushed:>=YYYY-MM-DD`
//! (repositories), computed from an injectable clock; a since/until range
//! replaces it as `updated:SINCE..UNTIL` (or `>=SINCE`, `<=UNTIL`), and
//! `pushed:` likewise. A page after the first is sent as `page`.
//!
//! Rate limits: GitHub answers an exhausted quota with 403 or 429 and
//! `x-ratelimit-remaining: 0`; that becomes
//! [`RateLimited`](EngineError::RateLimited) with `retry_after` up to
//! `x-ratelimit-reset` (or `Retry-After` for secondary limits).

use std::time::Duration;

use async_trait::async_trait;
use ferret_core::{
    Control, ControlSet, Engine, EngineCapabilities, EngineError, EngineHit, EngineKind,
    EngineRequest, EngineResponse, Provenance, Runtime,
};
use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use url::Url;

use crate::http::config::{ServiceDefaults, common_setters};
use crate::http::controls::iso_day;
use crate::http::{
    ConfigError, HitCollector, HttpClient, Service, ServiceConfig, SharedClock, clock, status,
};

/// How GitHub is named in errors.
pub const SERVICE: Service = Service {
    display: "GitHub API",
    credential_hint: Some(
        "set GITHUB_TOKEN (a token also raises the search limit from 10 to 30 requests a minute)",
    ),
};

const DEFAULTS: ServiceDefaults = ServiceDefaults {
    base_url: GithubEngine::DEFAULT_BASE_URL,
    timeout: Duration::from_secs(15),
    body_limit: HttpClient::DEFAULT_BODY_LIMIT,
    user_agent: HttpClient::DEFAULT_USER_AGENT,
};

/// The REST API version sent in `X-GitHub-Api-Version`.
pub const API_VERSION: &str = "2022-11-28";

const ISSUE_KIND_QUALIFIERS: &[&str] = &[
    "is:issue",
    "is:pr",
    "is:pull-request",
    "type:issue",
    "type:pr",
];

/// The controls GitHub pushes down.
const CONTROLS: ControlSet = ControlSet::of(&[
    Control::Freshness,
    Control::Since,
    Control::Until,
    Control::Page,
]);

/// What the engine searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GithubScope {
    /// Issues (`is:issue` unless the query names a kind).
    Issues,
    /// Repositories.
    Repositories,
    /// Both, interleaved (default).
    #[default]
    Both,
}

/// The GitHub search engine (`github`).
#[derive(Debug, Clone)]
pub struct GithubEngine {
    http: HttpClient,
    issues: Url,
    repositories: Url,
    token: Option<String>,
    scope: GithubScope,
    clock: SharedClock,
}

/// Builder for [`GithubEngine`].
#[derive(Debug, Clone)]
pub struct GithubBuilder {
    service: ServiceConfig,
    scope: GithubScope,
    clock: SharedClock,
}

impl Default for GithubBuilder {
    fn default() -> Self {
        GithubBuilder {
            service: ServiceConfig::new(),
            scope: GithubScope::default(),
            clock: clock::system(),
        }
    }
}

impl GithubBuilder {
    common_setters!();

    /// A token (`GITHUB_TOKEN`); optional, searches work without one at a
    /// lower rate limit.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.service = self.service.api_key(token);
        self
    }

    /// What to search (default [`GithubScope::Both`]).
    pub fn scope(mut self, scope: GithubScope) -> Self {
        self.scope = scope;
        self
    }

    /// The clock freshness windows are computed from (default: system).
    pub fn clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// Build the engine.
    pub fn build(self) -> Result<GithubEngine, ConfigError> {
        Ok(GithubEngine {
            http: self.service.client(&DEFAULTS)?,
            issues: self.service.endpoint(&DEFAULTS, "/search/issues")?,
            repositories: self.service.endpoint(&DEFAULTS, "/search/repositories")?,
            token: self.service.key().map(str::to_string),
            scope: self.scope,
            clock: self.clock,
        })
    }
}

impl GithubEngine {
    /// The public API.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.github.com";
    /// The most results one call returns (`per_page` maximum).
    pub const MAX_RESULTS: usize = 100;

    /// A builder with the defaults.
    pub fn builder() -> GithubBuilder {
        GithubBuilder::default()
    }

    /// What the engine searches.
    pub fn scope(&self) -> GithubScope {
        self.scope
    }

    /// The `q` sent to `/search/issues`.
    pub fn issue_query(&self, request: &EngineRequest) -> String {
        let mut q = request.query.trim().to_string();
        let has_kind = q.split_whitespace().any(|w| {
            let w = w.to_ascii_lowercase();
            ISSUE_KIND_QUALIFIERS.iter().any(|k| w == *k)
        });
        if !has_kind {
            q.push_str(" is:issue");
        }
        if let Some(range) = self.date_qualifier(request) {
            q.push_str(&format!(" updated:{range}"));
        }
        q
    }

    /// The `q` sent to `/search/repositories`.
    pub fn repository_query(&self, request: &EngineRequest) -> String {
        let mut q = request.query.trim().to_string();
        if let Some(range) = self.date_qualifier(request) {
            q.push_str(&format!(" pushed:{range}"));
        }
        q
    }

    /// The value of a date qualifier: `SINCE..UNTIL`, `>=SINCE` or
    /// `<=UNTIL` for a since/until range, else `>=` the freshness window's
    /// first day.
    fn date_qualifier(&self, request: &EngineRequest) -> Option<String> {
        match (request.since, request.until) {
            (Some(since), Some(until)) => Some(format!("{}..{}", iso_day(since), iso_day(until))),
            (Some(since), None) => Some(format!(">={}", iso_day(since))),
            (None, Some(until)) => Some(format!("<={}", iso_day(until))),
            (None, None) => request.freshness.map(|f| {
                let since = clock::iso_date(clock::days_before(self.clock.now(), f.days()));
                format!(">={since}")
            }),
        }
    }

    async fn get<T: DeserializeOwned>(
        &self,
        endpoint: &Url,
        q: String,
        per_page: usize,
        page: u32,
    ) -> Result<T, EngineError> {
        let mut params = vec![("q", q), ("per_page", per_page.to_string())];
        if page > 1 {
            params.push(("page", page.to_string()));
        }
        let mut call = self
            .http
            .get(endpoint.clone())
            .query(&params)
            .header(ACCEPT, "application/vnd.github+json")
            .header("X-GitHub-Api-Version", API_VERSION);
        if let Some(token) = &self.token {
            call = call.header(AUTHORIZATION, format!("Bearer {token}"));
        }
        let fetched = self.http.send(call).await?;
        status::check(&fetched, &SERVICE)?;
        fetched.json(&SERVICE)
    }

    async fn issues(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        let per_page = request.max_results.min(Self::MAX_RESULTS);
        let body: SearchBody<IssueItem> = self
            .get(
                &self.issues,
                self.issue_query(request),
                per_page,
                request.page_number(),
            )
            .await?;
        Ok(collect_issues(body, request.max_results))
    }

    async fn repositories(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        let per_page = request.max_results.min(Self::MAX_RESULTS);
        let body: SearchBody<RepoItem> = self
            .get(
                &self.repositories,
                self.repository_query(request),
                per_page,
                request.page_number(),
            )
            .await?;
        Ok(collect_repositories(body, request.max_results))
    }
}

#[async_trait]
impl Engine for GithubEngine {
    fn name(&self) -> &str {
        "github"
    }

    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities {
            freshness: true,
            max_results: Self::MAX_RESULTS,
            ..EngineCapabilities::new(EngineKind::Code).with_controls(CONTROLS)
        }
    }

    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        request.validate()?;
        let mut response = match self.scope {
            GithubScope::Issues => self.issues(request).await?,
            GithubScope::Repositories => self.repositories(request).await?,
            GithubScope::Both => {
                let (issues, repos) =
                    futures::join!(self.issues(request), self.repositories(request));
                match (issues, repos) {
                    (Ok(i), Ok(r)) => interleave(i, r, request.max_results),
                    (Ok(mut i), Err(e)) => {
                        i.warnings.push(format!(
                            "github: repository search failed ({e}); issues only"
                        ));
                        i
                    }
                    (Err(e), Ok(mut r)) => {
                        r.warnings.push(format!(
                            "github: issue search failed ({e}); repositories only"
                        ));
                        r
                    }
                    (Err(e), Err(_)) => return Err(e),
                }
            }
        };
        if let Some(site) = &request.site {
            response.warnings.push(format!(
                "github: site restriction {site} not applied (this engine only searches GitHub)"
            ));
        }
        Ok(response)
    }
}

/// Issue hits and repository hits alternated (issue first), re-ranked
/// 1, 2, 3, …, at most `max`.
fn interleave(issues: EngineResponse, repos: EngineResponse, max: usize) -> EngineResponse {
    let mut hits: Vec<EngineHit> = Vec::new();
    let mut a = issues.hits.into_iter();
    let mut b = repos.hits.into_iter();
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            break;
        }
        hits.extend(x);
        hits.extend(y);
    }
    hits.truncate(max);
    for (i, h) in hits.iter_mut().enumerate() {
        h.rank = i as u32 + 1;
    }
    let mut warnings = issues.warnings;
    warnings.extend(repos.warnings);
    EngineResponse {
        hits,
        answer: None,
        warnings,
        provenance: Provenance::public(Runtime::Http),
    }
}

#[derive(Debug, Deserialize)]
struct SearchBody<T> {
    #[serde(default)]
    incomplete_results: bool,
    #[serde(default = "Vec::new")]
    items: Vec<T>,
}

#[derive(Debug, Deserialize)]
struct IssueItem {
    #[serde(default)]
    html_url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    comments: Option<u64>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    repository_url: Option<String>,
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct RepoItem {
    #[serde(default)]
    html_url: String,
    #[serde(default)]
    full_name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    stargazers_count: Option<u64>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    pushed_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
}

const BODY_CHARS: usize = 280;

fn incomplete_warning(hits: &mut HitCollector, incomplete: bool) {
    if incomplete {
        hits.warn("github: GitHub timed out part of the search; results are incomplete");
    }
}

fn collect_issues(body: SearchBody<IssueItem>, max: usize) -> EngineResponse {
    let mut hits = HitCollector::new("github", max);
    incomplete_warning(&mut hits, body.incomplete_results);
    for (i, item) in body.items.iter().enumerate() {
        let repo = item
            .repository_url
            .as_deref()
            .and_then(|u| u.split("/repos/").nth(1))
            .unwrap_or_default();
        let kind = if item.pull_request.is_some() {
            "pull request"
        } else {
            "issue"
        };
        let text: String = item
            .body
            .as_deref()
            .unwrap_or_default()
            .chars()
            .take(BODY_CHARS)
            .collect();
        let mut meta = vec![kind.to_string()];
        if !repo.is_empty() {
            meta.insert(0, repo.to_string());
        }
        if let Some(state) = &item.state {
            meta.push(state.clone());
        }
        if let Some(n) = item.comments {
            meta.push(format!("{n} comments"));
        }
        let snippet = format!("{} — {text}", meta.join(" · "));
        hits.push(
            i + 1,
            &item.html_url,
            &item.title,
            snippet.trim_end_matches([' ', '—']),
            item.created_at.as_deref().and_then(clock::normalize_iso),
        );
    }
    hits.finish()
}

fn collect_repositories(body: SearchBody<RepoItem>, max: usize) -> EngineResponse {
    let mut hits = HitCollector::new("github", max);
    incomplete_warning(&mut hits, body.incomplete_results);
    for (i, item) in body.items.iter().enumerate() {
        let mut parts: Vec<String> = Vec::new();
        if let Some(d) = item.description.as_deref().filter(|d| !d.trim().is_empty()) {
            parts.push(d.trim().to_string());
        }
        if let Some(stars) = item.stargazers_count {
            parts.push(format!("★ {stars}"));
        }
        if let Some(lang) = &item.language {
            parts.push(lang.clone());
        }
        let date = item
            .pushed_at
            .as_deref()
            .or(item.updated_at.as_deref())
            .and_then(clock::normalize_iso);
        hits.push(
            i + 1,
            &item.html_url,
            &item.full_name,
            &parts.join(" · "),
            date,
        );
    }
    hits.finish()
}

/// Parse a `/search/issues` body into at most `max` hits.
pub fn parse_issues(body: &[u8], max: usize) -> Result<EngineResponse, EngineError> {
    let body = serde_json::from_slice(body).map_err(|e| {
        EngineError::parse(format!(
            "GitHub issue search body is not the expected JSON: {e}"
        ))
    })?;
    Ok(collect_issues(body, max))
}

/// Parse a `/search/repositories` body into at most `max` hits.
pub fn parse_repositories(body: &[u8], max: usize) -> Result<EngineResponse, EngineError> {
    let body = serde_json::from_slice(body).map_err(|e| {
        EngineError::parse(format!(
            "GitHub repository search body is not the expected JSON: {e}"
        ))
    })?;
    Ok(collect_repositories(body, max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::FixedClock;
    use ferret_core::Freshness;
    use std::sync::Arc;

    fn engine() -> GithubEngine {
        GithubEngine::builder()
            .clock(Arc::new(FixedClock::at_date(2026, 7, 25)))
            .build()
            .unwrap()
    }

    #[test]
    fn issue_queries_name_a_kind_and_a_window() {
        let g = engine();
        assert_eq!(
            g.issue_query(&EngineRequest::new("tokio panic")),
            "tokio panic is:issue"
        );
        assert_eq!(
            g.issue_query(&EngineRequest::new("tokio is:pr")),
            "tokio is:pr"
        );
        assert_eq!(
            g.issue_query(&EngineRequest::new("x").with_freshness(Freshness::Pw)),
            "x is:issue updated:>=2026-07-18"
        );
        assert_eq!(
            g.repository_query(&EngineRequest::new("x").with_freshness(Freshness::Pm)),
            "x pushed:>=2026-06-25"
        );
    }

    #[test]
    fn repositories_parse_with_description_stars_and_language() {
        let body = br#"{"total_count":1,"incomplete_results":true,"items":[{"full_name":"tokio-rs/tokio",
            "html_url":"https://github.com/tokio-rs/tokio","description":"A runtime","stargazers_count":30000,
            "language":"Rust","pushed_at":"2026-07-01T10:00:00Z"}]}"#;
        let r = parse_repositories(body, 5).unwrap();
        assert_eq!(r.hits[0].title, "tokio-rs/tokio");
        assert_eq!(r.hits[0].snippet, "A runtime · ★ 30000 · Rust");
        assert_eq!(
            r.hits[0].published_at.as_deref(),
            Some("2026-07-01T10:00:00Z")
        );
        assert!(r.warnings[0].contains("incomplete"));
    }

    #[test]
    fn interleaving_alternates_and_reranks() {
        let mk = |urls: &[&str]| {
            EngineResponse::new(
                Provenance::public(Runtime::Http),
                urls.iter()
                    .enumerate()
                    .map(|(i, u)| EngineHit::new(i as u32 + 1, *u, "t", ""))
                    .collect(),
            )
        };
        let r = interleave(
            mk(&["https://i/1", "https://i/2", "https://i/3"]),
            mk(&["https://r/1"]),
            3,
        );
        let urls: Vec<&str> = r.hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls, ["https://i/1", "https://r/1", "https://i/2"]);
        assert_eq!(r.hits.iter().map(|h| h.rank).collect::<Vec<_>>(), [1, 2, 3]);
    }
}
