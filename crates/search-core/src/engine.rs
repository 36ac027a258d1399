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

use crate::error::EngineError;
use crate::provenance::Provenance;
use crate::query::{Freshness, Intent, Mode};

/// One call to one engine: a single (sub-)query with its options.
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
    /// Restrict to one site (a hostname), when the engine supports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
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
        }
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
