//! The tools' inputs: one type per tool, deserialised strictly (unknown
//! fields are errors) and described by the JSON Schema generated from the
//! type itself, so the schema an agent sees is the type Ferret parses.

use std::time::Duration;

use ferret_core::search::SearchOptions;
use ferret_core::{Freshness, Intent, Mode};
use ferret_evidence::fetch::{BrowserMode, CacheMode, FetchOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ToolError;

/// How much a tool returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    /// A digest sized for a model: at most `max_tokens` (estimated).
    #[default]
    Compact,
    /// The whole envelope (`ferret.search.v1`, `ferret.fetch.v1`, …).
    Full,
}

/// The default budget of a compact answer, in estimated tokens.
pub const DEFAULT_MAX_TOKENS: usize = 2_000;
/// The smallest budget a caller may ask for.
pub const MIN_MAX_TOKENS: usize = 200;
/// The largest budget a caller may ask for.
pub const MAX_MAX_TOKENS: usize = 100_000;

/// The budget a caller asked for, checked against the allowed range.
pub fn budget(max_tokens: Option<u32>) -> Result<usize, ToolError> {
    let n = max_tokens.map_or(DEFAULT_MAX_TOKENS, |n| n as usize);
    if (MIN_MAX_TOKENS..=MAX_MAX_TOKENS).contains(&n) {
        Ok(n)
    } else {
        Err(ToolError::invalid(format!(
            "max_tokens must be between {MIN_MAX_TOKENS} and {MAX_MAX_TOKENS}, not {n}"
        )))
    }
}

/// `search`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchInput {
    /// The question or keywords, as a person would type them.
    pub query: String,
    /// fast (one quick pass), deep (every engine) or answer (engines that
    /// answer). Default: chosen from the query's intent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Override the classified intent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<Intent>,
    /// Only these engines (names as the engine reports give them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<String>,
    /// How many results to return (1–50, default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num: Option<u32>,
    /// Which page of results (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// A recency window: pd, pw, pm or py (past day, week, month, year).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
    /// Only results from these domains (e.g. "docs.rs").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub site: Vec<String>,
    /// No results from these domains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_site: Vec<String>,
    /// Only results published on or after this date (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Only results published on or before this date (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Language of the results (e.g. "en", "de").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Region as a country code (e.g. "us", "jp").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Safe search: off, moderate or strict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safe: Option<ferret_core::controls::SafeSearch>,
    /// compact (default) or full.
    #[serde(default)]
    pub detail: Detail,
    /// The compact answer's budget in estimated tokens (200–100000, default 2000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// The largest `num` a search may ask for.
pub const MAX_NUM: u32 = 50;

impl SearchInput {
    /// The search options this input asks for.
    pub fn options(&self) -> Result<SearchOptions, ToolError> {
        if self.query.trim().is_empty() {
            return Err(ToolError::invalid("the query is empty"));
        }
        let mut options = SearchOptions::new();
        if !self.engines.is_empty() {
            options = options.with_engines(self.engines.clone());
        }
        if let Some(n) = self.num {
            if !(1..=MAX_NUM).contains(&n) {
                return Err(ToolError::invalid(format!(
                    "num must be between 1 and {MAX_NUM}, not {n}"
                )));
            }
            options = options.with_limit(n as usize);
        }
        self.controlled(options)
    }

    /// `options` with this input's mode, intent, freshness and result
    /// controls (the query, engines and count are left to the caller).
    pub fn controlled(&self, mut options: SearchOptions) -> Result<SearchOptions, ToolError> {
        if let Some(m) = self.mode {
            options = options.with_mode(m);
        }
        if let Some(i) = self.intent {
            options = options.with_intent(i);
        }
        if self.freshness.is_some() {
            options = options.with_freshness(self.freshness);
        }
        controls(self, options)
    }
}

/// The result controls: domains, dates, language, region, safe search,
/// page. What an engine cannot do is applied after fusion or named in its
/// report; values the search cannot use fail it with a typed error.
fn controls(input: &SearchInput, options: SearchOptions) -> Result<SearchOptions, ToolError> {
    let mut options = options
        .with_include_domains(input.site.clone())
        .with_exclude_domains(input.exclude_site.clone());
    if let Some(day) = &input.since {
        options = options.with_since(date("since", day)?);
    }
    if let Some(day) = &input.until {
        options = options.with_until(date("until", day)?);
    }
    if let Some(l) = &input.lang {
        options = options.with_language(l.clone());
    }
    if let Some(r) = &input.region {
        options = options.with_region(r.clone());
    }
    if let Some(level) = input.safe {
        options = options.with_safe_search(level);
    }
    if let Some(page) = input.page {
        options = options.with_page(page);
    }
    Ok(options)
}

/// A `YYYY-MM-DD` date.
fn date(name: &str, text: &str) -> Result<chrono::NaiveDate, ToolError> {
    chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").map_err(|_| {
        ToolError::invalid(format!("{name} must be a date as YYYY-MM-DD, not {text:?}"))
    })
}

/// `fetch`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchInput {
    /// The page: an http(s) URL.
    pub url: String,
    /// A question: the passages most relevant to it come first (highlights).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Keep only paragraphs with this keyword.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<String>,
    /// auto (HTTP first, the browser when the page needs it), never or required.
    #[serde(default)]
    pub browser: BrowserMode,
    /// compact (default) or full.
    #[serde(default)]
    pub detail: Detail,
    /// The compact answer's budget in estimated tokens (200–100000, default 2000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// The page cache: on (a fresh kept page is served, a stale one
    /// revalidated), off, or refresh (fetch anew and keep). Default: the
    /// server's setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheMode>,
}

impl FetchInput {
    /// The fetch options this input asks for.
    pub fn options(&self) -> FetchOptions {
        let mut options = FetchOptions::default().with_browser(self.browser);
        if let Some(mode) = self.cache {
            options = options.with_cache_mode(mode);
        }
        if let Some(f) = &self.focus {
            options = options.with_focus(f.clone());
        }
        if let Some(q) = &self.query {
            options = options.with_query(q.clone());
        }
        options
    }
}

/// `verify`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyInput {
    /// The page to judge: an http(s) URL.
    pub url: String,
    /// auto, never or required.
    #[serde(default)]
    pub browser: BrowserMode,
    /// The page cache: on, off or refresh. Default: the server's setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheMode>,
}

impl VerifyInput {
    /// The fetch options this input asks for.
    pub fn options(&self) -> FetchOptions {
        let options = FetchOptions::default().with_browser(self.browser);
        match self.cache {
            Some(mode) => options.with_cache_mode(mode),
            None => options,
        }
    }
}

/// `extract`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractInput {
    /// The page: an http(s) URL.
    pub url: String,
    /// The JSON Schema (object, properties, required, type, enum, items)
    /// the data must satisfy. Unsupported keywords are reported.
    pub schema: serde_json::Value,
    /// auto, never or required.
    #[serde(default)]
    pub browser: BrowserMode,
}

/// `research`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResearchInput {
    /// The question whose answer must be proven by fetched pages.
    pub question: String,
    /// Your own search results to judge instead of searching: an array of
    /// rows ({url, title, snippet}), a ferret.results.v1 envelope or a
    /// ferret.search.v1 response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<serde_json::Value>,
    /// Only these engines for the search step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<String>,
    /// How many candidates to fetch (1–20; default: the research default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_results: Option<u32>,
    /// Rounds of searching for what is still missing (1 is a single pass;
    /// default: the research default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// The whole call's deadline in seconds (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_seconds: Option<f64>,
    /// auto, never or required.
    #[serde(default)]
    pub browser: BrowserMode,
    /// compact (default) or full.
    #[serde(default)]
    pub detail: Detail,
    /// The compact answer's budget in estimated tokens (200–100000, default 2000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// The default deadline of a research call.
pub const DEFAULT_RESEARCH_DEADLINE: Duration = Duration::from_secs(60);

impl ResearchInput {
    /// The research options this input asks for.
    /// The search step reports to `progress`.
    pub fn options(
        &self,
        progress: ferret_core::fanout::Progress,
    ) -> Result<ferret_evidence::research::ResearchOptions, ToolError> {
        if self.question.trim().is_empty() {
            return Err(ToolError::invalid("the question is empty"));
        }
        let in_range = |name: &str, v: Option<u32>, max: usize| match v {
            Some(n) if !(1..=max).contains(&(n as usize)) => Err(ToolError::invalid(format!(
                "{name} must be between 1 and {max}, not {n}"
            ))),
            other => Ok(other.map(|n| n as usize)),
        };
        let max_results = in_range("max_results", self.max_results, MAX_CANDIDATES)?;
        let rounds = in_range("rounds", self.rounds, ferret_evidence::research::MAX_ROUNDS)?;
        let deadline = match self.deadline_seconds {
            Some(d) if !(d.is_finite() && d > 0.0 && d <= 3_600.0) => {
                return Err(ToolError::invalid(format!(
                    "deadline_seconds must be a positive number up to 3600, not {d}"
                )));
            }
            Some(d) => Duration::from_secs_f64(d),
            None => DEFAULT_RESEARCH_DEADLINE,
        };
        let mut search = SearchOptions::new().with_progress(progress);
        if !self.engines.is_empty() {
            search = search.with_engines(self.engines.clone());
        }
        let mut options = ferret_evidence::research::ResearchOptions::new()
            .with_browser(self.browser)
            .with_deadline(deadline)
            .with_search(search);
        if let Some(n) = max_results {
            options = options.with_max_results(n);
        }
        if let Some(n) = rounds {
            options = options.with_rounds(n);
        }
        Ok(options)
    }
}

/// The most candidates one research call may fetch.
pub const MAX_CANDIDATES: usize = 20;

/// `plan`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanInput {
    /// The question or keywords.
    pub query: String,
    /// Override the classified intent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<Intent>,
    /// At most this many sub-queries (1–8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sub_queries: Option<u32>,
}

impl PlanInput {
    /// The search options the plan is made for.
    pub fn options(&self) -> Result<SearchOptions, ToolError> {
        if self.query.trim().is_empty() {
            return Err(ToolError::invalid("the query is empty"));
        }
        let mut options = SearchOptions::new();
        if let Some(i) = self.intent {
            options = options.with_intent(i);
        }
        match self.max_sub_queries {
            Some(n) if !(1..=8).contains(&n) => Err(ToolError::invalid(format!(
                "max_sub_queries must be between 1 and 8, not {n}"
            ))),
            Some(n) => Ok(options.with_max_sub_queries(n as usize)),
            None => Ok(options),
        }
    }
}
