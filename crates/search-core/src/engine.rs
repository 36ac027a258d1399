//! The [`Engine`] trait and what flows through it: [`EngineRequest`],
//! [`EngineResponse`], [`EngineHit`] and [`EngineCapabilities`].
//!
//! An engine is anything that answers a query with ranked hits: an HTTP API,
//! a scraped result page, a local index, rows a caller passed in, a browser.
//! A layer (see [`crate::layer`]) wraps an engine and is an engine itself.

use std::fmt::Debug;
use std::sync::Arc;

use crate::text::Text;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use chrono::NaiveDate;

use crate::controls::{Control, ControlSet, SafeSearch};
use crate::error::EngineError;
use crate::provenance::Provenance;
use crate::query::{Freshness, Intent, Mode};

/// One call to one engine: a single (sub-)query with its options.
///
/// The controls (domains, dates, region, safe search, page) are pushed
/// down by engines that declare them in [`EngineCapabilities::controls`];
/// others ignore them, and a search names what each ignored in its report.
/// Unset controls are left out of the JSON form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EngineRequest {
    /// The query text sent to the engine.
    pub query: String,
    /// The intent of the whole search, when known (some engines map it to
    /// their own options, e.g. Exa's `type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<Intent>,
    /// The search mode.
    pub mode: Mode,
    /// A recency window to push down, when the engine supports one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
    /// How many hits to ask for.
    pub max_results: usize,
    /// A preferred language (BCP 47, e.g. `en`, `zh-CN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Restrict to one site (a hostname), when the engine supports it. A
    /// search sets it whenever exactly one domain is included, for engines
    /// that take a single site; [`Self::include_domains`] holds the full list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// Only results from these domains (normalised host names; their
    /// subdomains count too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include_domains: Vec<String>,
    /// No results from these domains (or their subdomains).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_domains: Vec<String>,
    /// Only results published on or after this day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<NaiveDate>,
    /// Only results published on or before this day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<NaiveDate>,
    /// Results for this country (ISO 3166-1 alpha-2, uppercase: `US`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// A safe-search level; `None`: the service's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safe_search: Option<SafeSearch>,
    /// The 1-based result page; `None`: the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

impl EngineRequest {
    /// The default number of hits per engine call.
    pub const DEFAULT_MAX_RESULTS: usize = 10;

    /// A request for `query` in `fast` mode with default options.
    pub fn new(query: impl Into<String>) -> Self {
        EngineRequest {
            query: query.into(),
            intent: None,
            mode: Mode::Fast,
            freshness: None,
            max_results: Self::DEFAULT_MAX_RESULTS,
            language: None,
            site: None,
            include_domains: Vec::new(),
            exclude_domains: Vec::new(),
            since: None,
            until: None,
            region: None,
            safe_search: None,
            page: None,
        }
    }

    /// Set the intent.
    pub fn with_intent(mut self, intent: Intent) -> Self {
        self.intent = Some(intent);
        self
    }

    /// Set the mode.
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Set the freshness window.
    pub fn with_freshness(mut self, freshness: Freshness) -> Self {
        self.freshness = Some(freshness);
        self
    }

    /// Set the number of hits to ask for.
    pub fn with_max_results(mut self, n: usize) -> Self {
        self.max_results = n;
        self
    }

    /// Set the preferred language.
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// Restrict to one site.
    pub fn with_site(mut self, site: impl Into<String>) -> Self {
        self.site = Some(site.into());
        self
    }

    /// Only results from these domains (also sets [`Self::site`] when
    /// there is exactly one, and clears it otherwise).
    pub fn with_include_domains<I, S>(mut self, domains: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.include_domains = domains.into_iter().map(Into::into).collect();
        self.site = match self.include_domains.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        };
        self
    }

    /// No results from these domains.
    pub fn with_exclude_domains<I, S>(mut self, domains: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude_domains = domains.into_iter().map(Into::into).collect();
        self
    }

    /// Only results published on or after `day`.
    pub fn with_since(mut self, day: NaiveDate) -> Self {
        self.since = Some(day);
        self
    }

    /// Only results published on or before `day`.
    pub fn with_until(mut self, day: NaiveDate) -> Self {
        self.until = Some(day);
        self
    }

    /// Results for this country code.
    pub fn with_region(mut self, region: impl Into<String>) -> Self {
        self.region = Some(region.into());
        self
    }

    /// Use this safe-search level.
    pub fn with_safe_search(mut self, level: SafeSearch) -> Self {
        self.safe_search = Some(level);
        self
    }

    /// Ask for this 1-based result page.
    pub fn with_page(mut self, page: u32) -> Self {
        self.page = Some(page);
        self
    }

    /// The domains to include: [`Self::include_domains`], or the single
    /// [`Self::site`] of a request that only sets that.
    pub fn included_domains(&self) -> Vec<&str> {
        if self.include_domains.is_empty() {
            self.site.iter().map(|s| s.trim()).collect()
        } else {
            self.include_domains.iter().map(|s| s.trim()).collect()
        }
    }

    /// The 1-based page asked for (1 when unset).
    pub fn page_number(&self) -> u32 {
        self.page.unwrap_or(1).max(1)
    }

    /// How many results come before the page asked for, at `per_page`
    /// results a page.
    pub fn offset(&self, per_page: usize) -> usize {
        (self.page_number() as usize - 1).saturating_mul(per_page)
    }

    /// Whether a date range (`since` or `until`) is set.
    pub fn has_date_range(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// Check the request is one any engine can be asked: a non-blank query
    /// and at least one result wanted. Engines call this first.
    pub fn validate(&self) -> Result<(), EngineError> {
        if self.query.trim().is_empty() {
            return Err(EngineError::invalid_query("the query is empty"));
        }
        if self.max_results == 0 {
            return Err(EngineError::invalid_query(
                "max_results is 0; ask for at least one result",
            ));
        }
        if self.page == Some(0) {
            return Err(EngineError::invalid_query(
                "page 0 does not exist; pages count from 1",
            ));
        }
        if let (Some(since), Some(until)) = (self.since, self.until)
            && since > until
        {
            return Err(EngineError::invalid_query(format!(
                "since {since} is after until {until}"
            )));
        }
        Ok(())
    }
}

/// One ranked hit as an engine returned it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineHit {
    /// The result URL as the engine gave it (redirect wrappers may still be
    /// present; fusion unwraps and canonicalises).
    pub url: Text,
    /// The result title.
    pub title: Text,
    /// The engine's snippet: a search-result diagnostic, never final evidence.
    pub snippet: Text,
    /// Publication date as given (ISO 8601 date or date-time), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// 1-based position in this engine's answer.
    pub rank: u32,
}

impl EngineHit {
    /// A hit at `rank` with no date.
    pub fn new(
        rank: u32,
        url: impl Into<Text>,
        title: impl Into<Text>,
        snippet: impl Into<Text>,
    ) -> Self {
        EngineHit {
            url: url.into(),
            title: title.into(),
            snippet: snippet.into(),
            published_at: None,
            rank,
        }
    }
}

/// What one engine call returned.
///
/// Its [`Provenance`] is set by the engine that read the hits (there is no
/// default): every [`crate::SourceHit`] fusion makes of these hits carries
/// it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineResponse {
    /// Hits in rank order.
    pub hits: Vec<EngineHit>,
    /// An AI-written answer, from engines that produce one (Tavily's answer
    /// mode, LLM engines). Not evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Things the caller should know (a filter that could not be pushed
    /// down, rows dropped while parsing, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Who read these hits, and what may be done with them.
    pub provenance: Provenance,
}

impl EngineResponse {
    /// A response with these hits, read as `provenance` says (no answer, no
    /// warnings).
    pub fn new(provenance: Provenance, hits: Vec<EngineHit>) -> Self {
        EngineResponse {
            hits,
            answer: None,
            warnings: Vec::new(),
            provenance,
        }
    }

    /// A response without hits, read as `provenance` says.
    pub fn empty(provenance: Provenance) -> Self {
        EngineResponse::new(provenance, Vec::new())
    }
}

/// What sort of source an engine is. The fanout's mode→source matrix is
/// decided from these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// A general web search API (Brave, SearXNG): every mode.
    Web,
    /// A neural / embedding search API (Exa): `fast` and `deep`.
    Neural,
    /// An API that writes an answer with its results (Tavily): `answer` and `deep`.
    Answer,
    /// A language model asked to search (Grok): `deep`, and `fast` only when
    /// no neural engine is available.
    Llm,
    /// A scraped result page (DuckDuckGo HTML, Bing HTML): every mode.
    Scraper,
    /// A reference work's own search (Wikipedia): every mode.
    Reference,
    /// A code host's search (GitHub): every mode.
    Code,
    /// An index on this machine: every mode.
    Local,
    /// Rows supplied by the caller, or replayed recordings: every mode.
    External,
    /// A real browser driving a result page: every mode.
    Browser,
}

/// What an engine can do; the fanout reads this to decide who runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineCapabilities {
    /// The engine's kinds (usually one).
    pub kinds: Vec<EngineKind>,
    /// Whether a freshness window is pushed down to the service.
    pub freshness: bool,
    /// Whether a site restriction is pushed down to the service.
    pub site_filter: bool,
    /// The most hits one call can return.
    pub max_results: usize,
    /// Languages it serves well (empty: any).
    pub languages: Vec<String>,
    /// Whether answers come from a language model (longer default timeout).
    pub llm_backed: bool,
    /// The [`EngineRequest`] controls pushed down to the service. `freshness`
    /// counts as [`Control::Freshness`] and `site_filter` as
    /// [`Control::IncludeDomains`] for a single domain, whether or not they
    /// are listed here.
    #[serde(default, skip_serializing_if = "ControlSet::is_empty")]
    pub controls: ControlSet,
}

impl EngineCapabilities {
    /// Capabilities of a plain engine of one kind: no pushdown, 10 results,
    /// any language, not LLM-backed.
    pub fn new(kind: EngineKind) -> Self {
        EngineCapabilities {
            kinds: vec![kind],
            freshness: false,
            site_filter: false,
            max_results: 10,
            languages: Vec::new(),
            llm_backed: kind == EngineKind::Llm,
            controls: ControlSet::EMPTY,
        }
    }

    /// The same capabilities, pushing down `controls`.
    pub fn with_controls(mut self, controls: ControlSet) -> Self {
        self.controls = controls;
        self
    }

    /// Whether `control` is pushed down (for [`Control::IncludeDomains`]:
    /// with `include_domains` domains to include).
    pub fn supports(&self, control: Control, include_domains: usize) -> bool {
        self.controls.contains(control)
            || (control == Control::Freshness && self.freshness)
            || (control == Control::IncludeDomains && self.site_filter && include_domains <= 1)
    }

    /// The controls of `requested` that the engine ignores; see
    /// [`Self::supports`].
    pub fn ignored(&self, requested: ControlSet, include_domains: usize) -> ControlSet {
        requested
            .iter()
            .filter(|c| !self.supports(*c, include_domains))
            .collect()
    }

    /// Whether the engine is of `kind`.
    pub fn is(&self, kind: EngineKind) -> bool {
        self.kinds.contains(&kind)
    }
}

/// A search engine: a name, what it can do, and an async search call.
///
/// Implementations must not panic on any input: bad requests and bad
/// responses are [`EngineError`]s. Layers forward every method explicitly.
#[async_trait]
pub trait Engine: Send + Sync + Debug {
    /// The engine's stable name (`brave`, `exa`, `local`, …), used in reports,
    /// `--engines` and configuration.
    fn name(&self) -> &str;

    /// What the engine can do.
    fn capabilities(&self) -> EngineCapabilities;

    /// Run one query.
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError>;
}

#[async_trait]
impl<E: Engine + ?Sized> Engine for Arc<E> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn capabilities(&self) -> EngineCapabilities {
        (**self).capabilities()
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        (**self).search(request).await
    }
}

#[async_trait]
impl<E: Engine + ?Sized> Engine for Box<E> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn capabilities(&self) -> EngineCapabilities {
        (**self).capabilities()
    }
    async fn search(&self, request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        (**self).search(request).await
    }
}

/// A shared, type-erased engine, as the fanout holds them.
pub type DynEngine = Arc<dyn Engine>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Runtime;

    #[test]
    fn request_round_trips_and_omits_unset_options() {
        let r = EngineRequest::new("rust async")
            .with_mode(Mode::Deep)
            .with_freshness(Freshness::Pw);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["mode"], "deep");
        assert_eq!(json["freshness"], "pw");
        assert!(json.get("site").is_none());
        let back: EngineRequest = serde_json::from_value(json).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn blank_query_and_zero_results_are_invalid() {
        assert!(EngineRequest::new("   ").validate().is_err());
        assert!(
            EngineRequest::new("x")
                .with_max_results(0)
                .validate()
                .is_err()
        );
        assert!(EngineRequest::new("x").validate().is_ok());
    }

    #[test]
    fn controls_round_trip_and_are_checked() {
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let r = EngineRequest::new("x")
            .with_include_domains(["docs.rs"])
            .with_exclude_domains(["reddit.com"])
            .with_since(day("2025-01-01"))
            .with_region("DE")
            .with_safe_search(SafeSearch::Moderate)
            .with_page(2);
        assert_eq!(r.site.as_deref(), Some("docs.rs"), "one domain is the site");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["since"], "2025-01-01");
        assert_eq!(json["safe_search"], "moderate");
        assert!(json.get("until").is_none());
        let back: EngineRequest = serde_json::from_value(json).unwrap();
        assert_eq!(back, r);
        assert_eq!(r.offset(10), 10);
        assert!(EngineRequest::new("x").with_page(0).validate().is_err());
        let backwards = EngineRequest::new("x")
            .with_since(day("2025-02-01"))
            .with_until(day("2025-01-01"));
        assert!(backwards.validate().is_err());
        let two = EngineRequest::new("x").with_include_domains(["a.example", "b.example"]);
        assert_eq!(two.site, None);
        assert_eq!(two.included_domains(), ["a.example", "b.example"]);
    }

    #[test]
    fn capabilities_count_legacy_flags_as_controls() {
        let mut caps = EngineCapabilities::new(EngineKind::Web);
        caps.freshness = true;
        caps.site_filter = true;
        let asked = ControlSet::of(&[Control::Freshness, Control::IncludeDomains, Control::Page]);
        assert_eq!(caps.ignored(asked, 1), ControlSet::of(&[Control::Page]));
        assert_eq!(
            caps.ignored(asked, 2),
            ControlSet::of(&[Control::IncludeDomains, Control::Page])
        );
        let json = serde_json::to_value(&caps).unwrap();
        assert!(json.get("controls").is_none(), "no controls, no field");
    }

    #[test]
    fn response_round_trips() {
        let mut r = EngineResponse::new(
            Provenance::public(Runtime::Http),
            vec![EngineHit::new(
                1,
                "https://example.com/",
                "Example",
                "An example",
            )],
        );
        r.answer = Some("42".into());
        let json = serde_json::to_string(&r).unwrap();
        let back: EngineResponse = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
    }
}
