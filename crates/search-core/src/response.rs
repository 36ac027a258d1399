//! The `ferret.search.v1` envelope: [`SearchResponse`], with one
//! [`EngineReport`] per engine and the [`DroppedRow`]s that did not make it.

use serde::{Deserialize, Serialize};

use crate::engine::EngineResponse;
use crate::error::ErrorKind;
use crate::query::{Freshness, Intent, Mode};
use crate::result::SearchResult;

/// The schema name of [`SearchResponse`].
pub const SEARCH_SCHEMA: &str = "ferret.search.v1";

/// The evidence policy every search envelope states: snippets are candidate
/// diagnostics; only fetched page text is evidence.
pub const EVIDENCE_POLICY: &str = "snippets-are-not-final-evidence";

/// How one engine fared in a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineStatus {
    /// At least one call succeeded.
    Ok,
    /// Every call failed (see `error_kind`).
    Error,
    /// Every call ran out of time (its own timeout or the global deadline).
    Timeout,
    /// Not run: the mode does not use it, or it is not configured.
    Skipped,
    /// Not run: its circuit breaker is open.
    CircuitOpen,
}

/// One engine's part in a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineReport {
    /// The engine's name.
    pub name: String,
    /// Overall status.
    pub status: EngineStatus,
    /// The error kind when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// A one-line explanation for failures and skips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Wall time spent on this engine's calls (the longest call), in ms.
    pub elapsed_ms: u64,
    /// Hits returned over all its calls.
    pub count: usize,
    /// Calls made (one per sub-query).
    #[serde(default)]
    pub calls: usize,
    /// Calls that failed.
    #[serde(default)]
    pub failed_calls: usize,
    /// The controls the caller asked for that this engine does not push
    /// down to its service (names from [`crate::controls::Control`]), in
    /// [`crate::controls::Control::ALL`] order. The domain and date ones
    /// still hold: they are applied to the fused results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsupported: Vec<String>,
}

impl EngineReport {
    /// A report for an engine that was not run, with the reason.
    pub fn skipped(name: impl Into<String>, reason: impl Into<String>) -> Self {
        EngineReport {
            name: name.into(),
            status: EngineStatus::Skipped,
            error_kind: None,
            message: Some(reason.into()),
            elapsed_ms: 0,
            count: 0,
            calls: 0,
            failed_calls: 0,
            unsupported: Vec::new(),
        }
    }
}

/// Why an input row (or a fused result) was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DropReason {
    /// No URL, or not an absolute http(s) URL.
    #[serde(rename = "missing-or-invalid-url")]
    MissingOrInvalidUrl,
    /// The same URL already came from the same engine.
    #[serde(rename = "duplicate-url")]
    DuplicateUrl,
    /// A fused result on a domain the caller excluded.
    #[serde(rename = "excluded-domain")]
    ExcludedDomain,
    /// A fused result on none of the domains the caller included.
    #[serde(rename = "outside-included-domains")]
    OutsideIncludedDomains,
    /// A fused result published before the caller's `since` date.
    #[serde(rename = "published-before-since")]
    PublishedBeforeSince,
    /// A fused result published after the caller's `until` date.
    #[serde(rename = "published-after-until")]
    PublishedAfterUntil,
}

impl DropReason {
    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::MissingOrInvalidUrl => "missing-or-invalid-url",
            DropReason::DuplicateUrl => "duplicate-url",
            DropReason::ExcludedDomain => "excluded-domain",
            DropReason::OutsideIncludedDomains => "outside-included-domains",
            DropReason::PublishedBeforeSince => "published-before-since",
            DropReason::PublishedAfterUntil => "published-after-until",
        }
    }
}

/// An input row that was dropped, and why: a caller's row or engine hit
/// that could not be used, or a fused result that the search's domain or
/// date controls ruled out (see [`crate::controls::ResultFilters`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DroppedRow {
    /// 0-based position of the row in its input (for a fused result the
    /// controls ruled out: its position among the fused results).
    pub index: usize,
    /// The engine the row belonged to, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// The URL as given, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Why it was dropped.
    pub reason: DropReason,
}

/// The answer to a search: fused results, per-engine reports, dropped rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResponse {
    /// Always [`SEARCH_SCHEMA`].
    pub schema: String,
    /// The query as asked.
    pub query: String,
    /// The intent used for scoring.
    pub intent: Intent,
    /// The mode used.
    pub mode: Mode,
    /// The freshness window, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
    /// The sub-queries that were sent.
    pub sub_queries: Vec<String>,
    /// Fused results, best first.
    pub results: Vec<SearchResult>,
    /// One report per engine, in configuration order.
    pub engines: Vec<EngineReport>,
    /// Input rows that were not used.
    #[serde(default)]
    pub dropped: Vec<DroppedRow>,
    /// The name of the goggle applied ([`crate::search::SearchOptions::goggle`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goggle: Option<String>,
    /// Results the goggle discarded, each with the instruction that did it
    /// (never in `results`, never lost).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discarded: Vec<crate::goggles::Discarded>,
    /// AI answers that engines returned (not evidence), by engine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<EngineAnswer>,
    /// Things the caller should know.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Always [`EVIDENCE_POLICY`].
    pub evidence_policy: String,
    /// Whether the global deadline cut the search short.
    #[serde(default)]
    pub deadline_hit: bool,
    /// Total wall time in ms.
    pub elapsed_ms: u64,
}

/// An answer text one engine returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineAnswer {
    /// The engine's name.
    pub engine: String,
    /// The sub-query it answered.
    pub sub_query: String,
    /// The text.
    pub text: String,
}

/// One successful engine call as the fanout hands it to fusion: which
/// engine, which sub-query, and what it returned. The fanout emits calls in
/// configuration order (engine order × sub-query order), never in the order
/// they finished, so fusion is deterministic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineCall {
    /// The engine's name.
    pub engine: String,
    /// The sub-query text sent.
    pub sub_query: String,
    /// Position of the sub-query in the plan (0-based).
    pub sub_query_index: usize,
    /// What the engine returned.
    pub response: EngineResponse,
}
