//! Query planning: from a query to a [`Plan`] (`ferret.plan.v1`): intent,
//! mode, freshness, weights, sub-queries for the engines
//! and, for the research step, constraints, an anchor, rivals and focused
//! queries.
//!
//! - [`Planner`] is the trait a planner implements (an LLM planner can
//!   replace the heuristic one); [`HeuristicPlanner`] is the built-in one,
//!   with a synchronous [`HeuristicPlanner::plan_sync`].
//! - Sub-queries ([`expand`]): the original query; an English variant of a
//!   Chinese query from the built-in glossary ([`glossary`]); the intent's
//!   expansions (factual "definition" / "explained overview", status year +
//!   "latest" / "update release", comparison split three ways, tutorial
//!   "tutorial" / "guide step by step", exploratory overview / ecosystem /
//!   use cases, news `"news this week <year>"` / "announcement latest",
//!   resource "official documentation" / "github"); a technical-synonym
//!   variant ([`synonyms`]). Deduplicated, capped (default 4), and whatever
//!   the cap cut is listed in [`Plan::dropped`].
//! - Constraints ([`constraints`]): the question split on numbering,
//!   separators and conjunctions (English, Chinese, Korean), clauses of ≥ 4
//!   characters, at most 8 (the rest become facets), each with its matching
//!   terms (CJK via [`crate::tokenize`]).
//! - Focused queries ([`focused`]): at most 3, each at most 12 terms, with
//!   purposes `discovery | verification | source-restricted-discovery |
//!   original-source-verification | era-sweep | disconfirm`; a question
//!   with a claim to check always keeps its disconfirm query.
//!
//! The current year (for "latest 2026") comes from [`PlanOptions::now`], so
//! plans are reproducible in tests.

pub mod comparison;
pub mod constraints;
mod cues;
pub mod expand;
pub mod focused;
pub mod glossary;
pub mod synonyms;

pub use ferret_text::{facts, stopwords};

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Serialize};

use crate::engine::EngineRequest;
use crate::intent::{self, Signal};
use crate::query::{Freshness, Intent, Mode, Weights};
use crate::tokenize::is_cjk;

/// The schema name of [`Plan`].
pub const PLAN_SCHEMA: &str = "ferret.plan.v1";
/// The longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 2000;
/// The default cap on sub-queries.
pub const DEFAULT_MAX_SUB_QUERIES: usize = 4;
/// The most sub-queries a caller may ask for.
pub const MAX_SUB_QUERIES_LIMIT: usize = 16;
/// At most this many constraints; further clauses become facets.
pub const MAX_CONSTRAINTS: usize = 8;
/// At most this many focused queries.
pub const MAX_FOCUSED_QUERIES: usize = 3;
/// At most this many terms in one focused query.
pub const MAX_FOCUSED_TERMS: usize = 12;
/// A clause shorter than this (in characters) is not a constraint of its own.
pub const MIN_CLAUSE_CHARS: usize = 4;

/// Whether the plan's intent was classified or given by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentSource {
    /// Chosen by the classifier from the query's signal words.
    Classified,
    /// Given in [`PlanOptions::intent`].
    Override,
}

/// Why a sub-query was planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubQueryPurpose {
    /// The query as given.
    Original,
    /// The query with technical synonyms expanded (k8s → Kubernetes).
    Synonyms,
    /// The English variant of a Chinese query.
    Translation,
    /// Factual: "X definition".
    Definition,
    /// Factual: "X explained overview".
    Explained,
    /// Status: `"X latest <year>"`.
    Latest,
    /// Status: "X update release".
    Update,
    /// Comparison: "A vs B".
    HeadToHead,
    /// Comparison: "A advantages features", one per side.
    Advantages,
    /// Tutorial: "X tutorial".
    Tutorial,
    /// Tutorial: "X guide step by step".
    Guide,
    /// Exploratory: "X overview".
    Overview,
    /// Exploratory: "X ecosystem".
    Ecosystem,
    /// Exploratory: "X use cases".
    UseCases,
    /// News: `"X news this week <year>"`.
    News,
    /// News: "X announcement latest".
    Announcement,
    /// Resource: "X official documentation".
    Documentation,
    /// Resource: "X github".
    Repository,
}

/// One query to send to the engines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubQuery {
    /// The query text.
    pub text: String,
    /// Why it was planned.
    pub purpose: SubQueryPurpose,
    /// Its language (`en`, `zh`, `ja`, `ko`) when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

/// One fact the answer must establish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraint {
    /// `c1`, `c2`, … in question order.
    pub id: String,
    /// The clause as written.
    pub text: String,
    /// Matching terms: its numbers, dates and times whole, then tokens of
    /// ≥ 2 characters minus stopwords; CJK as character bigrams.
    pub terms: Vec<String>,
    /// The terms that are its *facts* — numbers, dates, times and names,
    /// as written — which evidence must state (the other terms are
    /// context). See [`facts::facts_of`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<String>,
    /// Whether the evidence must support it (false for "ideally / 最好").
    pub mandatory: bool,
}

impl Constraint {
    /// A constraint on `text`, with its terms and facts.
    pub fn new(id: impl Into<String>, text: impl Into<String>, mandatory: bool) -> Self {
        let text = text.into();
        Constraint {
            id: id.into(),
            terms: constraints::terms(&text),
            facts: constraints::facts(&text),
            mandatory,
            text,
        }
    }
}

/// Why a focused query was planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FocusedPurpose {
    /// Find candidates: the anchor terms.
    Discovery,
    /// Check the other constraints against the anchor.
    Verification,
    /// Look on official sources only.
    SourceRestrictedDiscovery,
    /// Find the original (primary) source.
    OriginalSourceVerification,
    /// Look for the earliest occurrence, against recency bias.
    EraSweep,
    /// Look for a different answer or a refutation, against confirmation bias.
    Disconfirm,
}

impl FocusedPurpose {
    /// The name used in JSON (`discovery`, `source-restricted-discovery` …).
    pub fn as_str(self) -> &'static str {
        match self {
            FocusedPurpose::Discovery => "discovery",
            FocusedPurpose::Verification => "verification",
            FocusedPurpose::SourceRestrictedDiscovery => "source-restricted-discovery",
            FocusedPurpose::OriginalSourceVerification => "original-source-verification",
            FocusedPurpose::EraSweep => "era-sweep",
            FocusedPurpose::Disconfirm => "disconfirm",
        }
    }
}

/// A short keyword query for the research step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FocusedQuery {
    /// The terms joined by spaces.
    pub text: String,
    /// The terms (at most [`MAX_FOCUSED_TERMS`]).
    pub terms: Vec<String>,
    /// Why it was planned.
    pub purpose: FocusedPurpose,
    /// The constraints it targets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraint_ids: Vec<String>,
}

/// What kind of planned item a cap cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DroppedKind {
    /// A sub-query over [`PlanOptions::max_sub_queries`].
    SubQuery,
    /// A focused query over [`MAX_FOCUSED_QUERIES`].
    FocusedQuery,
}

/// A planned item that a cap cut, with the reason (nothing is cut silently).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanDrop {
    /// What was cut.
    pub kind: DroppedKind,
    /// Its text.
    pub text: String,
    /// Why.
    pub reason: String,
}

/// A query plan: the `ferret.plan.v1` envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Always [`PLAN_SCHEMA`].
    pub schema: String,
    /// The query, whitespace-normalised (signal offsets refer to this text).
    pub query: String,
    /// The intent.
    pub intent: Intent,
    /// Whether the intent was classified or overridden.
    pub intent_source: IntentSource,
    /// Why the classifier chose its intent.
    pub intent_reason: String,
    /// Every signal word the classifier matched.
    pub signals: Vec<Signal>,
    /// Which engines take part.
    pub mode: Mode,
    /// The recency window to push down, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
    /// Why that window.
    pub freshness_reason: String,
    /// Score weights.
    pub weights: Weights,
    /// Domains to boost for this intent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub domain_boost: Vec<String>,
    /// The query's language (`en`, `zh`, `ja`, `ko`) when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The query without its signal words: what it is about.
    pub topic: String,
    /// Queries for the engines, the original first.
    pub sub_queries: Vec<SubQuery>,
    /// Facts the answer must establish.
    pub constraints: Vec<Constraint>,
    /// Clauses beyond [`MAX_CONSTRAINTS`], and dates or quoted titles of a
    /// one-clause question: hints for the research step, not checked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facets: Vec<String>,
    /// The id of the anchor constraint: the longest mandatory one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Entities that compete for the answer (the sides of a comparison).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rivals: Vec<String>,
    /// Whether the question carries a claim to check (then a disconfirm
    /// query is always among the focused queries).
    pub has_claim: bool,
    /// Keyword queries for the research step (≤ 3, each ≤ 12 terms).
    pub focused_queries: Vec<FocusedQuery>,
    /// Every disconfirm query planned, even one the focused cap cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disconfirm_queries: Vec<String>,
    /// Planned items that a cap cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<PlanDrop>,
}

impl Plan {
    /// An engine request for `sub_query` carrying this plan's intent, mode,
    /// freshness and the sub-query's language.
    pub fn request_for(&self, sub_query: &SubQuery) -> EngineRequest {
        let mut request = EngineRequest::new(sub_query.text.clone())
            .with_intent(self.intent)
            .with_mode(self.mode);
        if let Some(f) = self.freshness {
            request = request.with_freshness(f);
        }
        if let Some(lang) = &sub_query.lang {
            request = request.with_language(lang.clone());
        }
        request
    }

    /// One engine request per sub-query (see [`Self::request_for`]).
    pub fn requests(&self) -> Vec<EngineRequest> {
        self.sub_queries
            .iter()
            .map(|s| self.request_for(s))
            .collect()
    }
}

/// Options for planning.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PlanOptions {
    /// Use this intent instead of classifying.
    pub intent: Option<Intent>,
    /// "Now", for the year in status and news sub-queries; `None` means the
    /// system clock.
    pub now: Option<DateTime<Utc>>,
    /// The most sub-queries to plan (1–16, default 4).
    pub max_sub_queries: usize,
    /// Whether to add an English variant of a Chinese query (default true).
    pub english_variant: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            intent: None,
            now: None,
            max_sub_queries: DEFAULT_MAX_SUB_QUERIES,
            english_variant: true,
        }
    }
}

impl PlanOptions {
    /// Default options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Use `intent` instead of classifying.
    pub fn with_intent(mut self, intent: Intent) -> Self {
        self.intent = Some(intent);
        self
    }

    /// Fix "now" (for reproducible plans).
    pub fn with_now(mut self, now: DateTime<Utc>) -> Self {
        self.now = Some(now);
        self
    }

    /// Cap the number of sub-queries.
    pub fn with_max_sub_queries(mut self, n: usize) -> Self {
        self.max_sub_queries = n;
        self
    }

    /// Turn the English variant of Chinese queries on or off.
    pub fn with_english_variant(mut self, on: bool) -> Self {
        self.english_variant = on;
        self
    }

    /// The current year, from [`Self::now`] or the system clock.
    pub fn year(&self) -> i32 {
        self.now.unwrap_or_else(Utc::now).year()
    }

    fn validate(&self) -> Result<(), PlanError> {
        if !(1..=MAX_SUB_QUERIES_LIMIT).contains(&self.max_sub_queries) {
            return Err(PlanError::InvalidOption {
                option: "max_sub_queries",
                reason: format!(
                    "{} is out of range; use 1 to {MAX_SUB_QUERIES_LIMIT}",
                    self.max_sub_queries
                ),
            });
        }
        Ok(())
    }
}

/// Why a query could not be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// Nothing but whitespace.
    #[error("the query is empty; pass the words to search for")]
    EmptyQuery,
    /// Over [`MAX_QUERY_CHARS`].
    #[error(
        "the query is {chars} characters long, over the limit of {max}; shorten it or split it into several searches"
    )]
    QueryTooLong {
        /// Its length in characters.
        chars: usize,
        /// The limit.
        max: usize,
    },
    /// No letter or digit at all (only punctuation or symbols).
    #[error("the query {query:?} has no letters or digits; pass words to search for")]
    NoSearchableText {
        /// The query as given.
        query: String,
    },
    /// A [`PlanOptions`] value out of range.
    #[error("invalid plan option {option}: {reason}")]
    InvalidOption {
        /// The option's name.
        option: &'static str,
        /// What is wrong and what to use instead.
        reason: String,
    },
    /// Another planner (e.g. an LLM) failed.
    #[error("planner {planner} failed: {message}")]
    Planner {
        /// The planner's name.
        planner: String,
        /// What went wrong.
        message: String,
    },
}

/// Something that turns a query into a [`Plan`]. The heuristic planner is
/// [`HeuristicPlanner`]; an LLM-backed planner can take its place.
#[async_trait]
pub trait Planner: Send + Sync {
    /// Plan `query`.
    async fn plan(&self, query: &str, options: &PlanOptions) -> Result<Plan, PlanError>;
}

#[async_trait]
impl<P: Planner + ?Sized> Planner for Arc<P> {
    async fn plan(&self, query: &str, options: &PlanOptions) -> Result<Plan, PlanError> {
        (**self).plan(query, options).await
    }
}

#[async_trait]
impl<P: Planner + ?Sized> Planner for Box<P> {
    async fn plan(&self, query: &str, options: &PlanOptions) -> Result<Plan, PlanError> {
        (**self).plan(query, options).await
    }
}

/// The built-in planner: signal-word classification, table-driven
/// expansion, rule-based constraint splitting. No I/O; microseconds per query.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicPlanner;

impl HeuristicPlanner {
    /// A heuristic planner.
    pub fn new() -> Self {
        HeuristicPlanner
    }

    /// Plan `query` synchronously.
    pub fn plan_sync(&self, query: &str, options: &PlanOptions) -> Result<Plan, PlanError> {
        options.validate()?;
        let query = normalize_query(query)?;
        let _span = tracing::debug_span!("plan").entered();

        let classification = intent::classify(&query);
        let (intent, intent_source) = match options.intent {
            Some(i) => (i, IntentSource::Override),
            None => (classification.intent, IntentSource::Classified),
        };
        let row = intent::profile(intent);
        let freshness = classification.freshness_for(intent);

        let expansion = expand::sub_queries(&query, intent, &classification, options);
        let extraction = constraints::extract(&query);
        let anchor = constraints::anchor(&extraction.constraints);
        let research = focused::plan(&query, &extraction.constraints);

        let mut dropped = expansion.dropped;
        dropped.extend(research.dropped);

        tracing::debug!(
            intent = intent.as_str(),
            sub_queries = expansion.sub_queries.len(),
            constraints = extraction.constraints.len(),
            "planned"
        );
        Ok(Plan {
            schema: PLAN_SCHEMA.to_string(),
            intent,
            intent_source,
            intent_reason: classification.reason.clone(),
            signals: classification.signals,
            mode: row.mode,
            freshness: freshness.window,
            freshness_reason: freshness.reason,
            weights: row.weights,
            domain_boost: row.domain_boost.iter().map(|d| d.to_string()).collect(),
            language: language_of(&query).map(str::to_string),
            topic: expansion.topic,
            sub_queries: expansion.sub_queries,
            constraints: extraction.constraints,
            facets: extraction.facets,
            anchor,
            rivals: expansion.rivals,
            has_claim: research.has_claim,
            focused_queries: research.queries,
            disconfirm_queries: research.disconfirm,
            dropped,
            query,
        })
    }
}

#[async_trait]
impl Planner for HeuristicPlanner {
    async fn plan(&self, query: &str, options: &PlanOptions) -> Result<Plan, PlanError> {
        self.plan_sync(query, options)
    }
}

/// Collapse whitespace and control characters to single spaces, trim, and
/// check the length and content.
fn normalize_query(query: &str) -> Result<String, PlanError> {
    let chars = query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(PlanError::QueryTooLong {
            chars,
            max: MAX_QUERY_CHARS,
        });
    }
    let mut out = String::with_capacity(query.len());
    for word in query.split(|c: char| c.is_whitespace() || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        return Err(PlanError::EmptyQuery);
    }
    if !out.chars().any(char::is_alphanumeric) {
        return Err(PlanError::NoSearchableText {
            query: query.to_string(),
        });
    }
    Ok(out)
}

/// Hangul → `ko`, kana → `ja`, other CJK → `zh`, Latin letters → `en`.
pub(crate) fn language_of(text: &str) -> Option<&'static str> {
    let mut han = false;
    let mut latin = false;
    for c in text.chars() {
        match c as u32 {
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => return Some("ko"),
            0x3040..=0x30FF => return Some("ja"),
            _ if is_cjk(c) => han = true,
            _ if c.is_ascii_alphabetic() => latin = true,
            _ => {}
        }
    }
    if han {
        Some("zh")
    } else if latin {
        Some("en")
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
