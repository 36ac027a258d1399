//! URL candidates: the rows a research run may fetch, from a search
//! response or from a caller's own result rows (`ferret.results.v1`, seed
//! 003's `research normalize-results`).
//!
//! Candidates are *leads*, never evidence: their titles and snippets are
//! kept as diagnostics (`evidence_policy: snippets-are-not-final-evidence`)
//! and never reach the ledger.
//!
//! - From a search ([`NormalizedResults::from_search`]): the fused results
//!   in order, each with its engines, the sub-queries that found it and the
//!   fusion's 0–1 intent score.
//! - From rows ([`normalize_results`], [`NormalizedResults::from_rows`]):
//!   the rows' accepted shapes are [`ferret_core::rows`]'s. The caller's order is kept: rows are taken by
//!   their rank within their engine, engines interleaved in order of first
//!   appearance (rank 1 of every engine, then rank 2 …); a URL that several
//!   engines returned is one candidate with all of them (canonical URL).
//!   Dropped rows are listed with their reason, never lost.
//! - From JSON a host wrote ([`NormalizedResults::from_json`]): a
//!   `ferret.results.v1` envelope, a `ferret.search.v1` response (`ferret
//!   search --json`), or raw rows.

use ferret_core::canonical::{CanonicalOptions, canonical_url};
use ferret_core::response::{DroppedRow, EVIDENCE_POLICY, SEARCH_SCHEMA, SearchResponse};
use ferret_core::rows::{NormalizedRows, normalize_rows_str, normalize_rows_with};
use ferret_core::{Provenance, ProvenanceClaim, Runtime};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ResearchError;

/// The schema name of [`NormalizedResults`].
pub const RESULTS_SCHEMA: &str = "ferret.results.v1";

/// One URL candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    /// 1-based position among the candidates.
    pub rank: u32,
    /// The URL to fetch (as the engine or caller gave it).
    pub url: String,
    /// Its canonical form (the dedup key).
    pub canonical_url: String,
    /// The search title (a diagnostic, never evidence).
    #[serde(default)]
    pub title: String,
    /// The search snippet (a diagnostic, never evidence).
    #[serde(default)]
    pub snippet: String,
    /// Publication date as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// The engines (or row sources) that returned it.
    #[serde(default)]
    pub engines: Vec<String>,
    /// The queries that found it.
    #[serde(default)]
    pub sub_queries: Vec<String>,
    /// The search's own 0–1 relevance, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Who read the row (its title and snippet): a fused result's
    /// provenance, or what the caller's row claims. A row written without
    /// provenance fields is public data the caller supplied (runtime
    /// `rows`); one with any login marker is login.
    #[serde(default = "caller_rows", deserialize_with = "claimed_provenance")]
    pub provenance: Provenance,
}

/// The provenance of a row that says nothing about itself.
fn caller_rows() -> Provenance {
    Provenance::public(Runtime::Rows)
}

/// A row's provenance read as a claim: lenient, and login whenever any
/// field says so.
fn claimed_provenance<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Provenance, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(ProvenanceClaim::from_value(&value)
        .resolve(Runtime::Rows, None)
        .provenance)
}

/// The `ferret.results.v1` envelope: URL candidates for a research run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NormalizedResults {
    /// Always [`RESULTS_SCHEMA`].
    pub schema: String,
    /// The question they were found for.
    pub query: String,
    /// Where they came from (`--backend`, or `ferret-search`); provenance
    /// only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// Always `snippets-are-not-final-evidence`.
    pub evidence_policy: String,
    /// The candidates, best first.
    pub results: Vec<ResultRow>,
    /// Input rows that were not used, and why.
    #[serde(default)]
    pub dropped: Vec<DroppedRow>,
    /// Things the caller should know.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Rows in the input (results merged across engines count once per
    /// row).
    #[serde(default)]
    pub input_rows: usize,
}

impl NormalizedResults {
    /// No candidates.
    pub fn empty(query: impl Into<String>) -> Self {
        NormalizedResults {
            schema: RESULTS_SCHEMA.to_string(),
            query: query.into(),
            backend: None,
            evidence_policy: EVIDENCE_POLICY.to_string(),
            results: Vec::new(),
            dropped: Vec::new(),
            warnings: Vec::new(),
            input_rows: 0,
        }
    }

    /// Candidates from normalised rows, in the caller's order (see the
    /// module docs).
    pub fn from_rows(rows: NormalizedRows, query: &str, backend: Option<&str>) -> Self {
        let mut out = Self::empty(query);
        out.backend = backend.map(str::to_string).filter(|b| !b.trim().is_empty());
        out.input_rows = rows.input_rows;
        out.dropped = rows.dropped;
        out.warnings = rows.warnings;
        let longest = rows
            .calls
            .iter()
            .map(|c| c.response.hits.len())
            .max()
            .unwrap_or(0);
        for position in 0..longest {
            for call in &rows.calls {
                let Some(hit) = call.response.hits.get(position) else {
                    continue;
                };
                let canonical = canonical_url(&hit.url, CanonicalOptions::default())
                    .unwrap_or_else(|_| hit.url.to_string());
                if let Some(existing) = out
                    .results
                    .iter_mut()
                    .find(|r| r.canonical_url == canonical)
                {
                    existing.provenance = existing.provenance.join(&call.response.provenance);
                    push_unique(&mut existing.engines, &call.engine);
                    push_unique(&mut existing.sub_queries, &call.sub_query);
                    if existing.snippet.len() < hit.snippet.len() {
                        existing.snippet = hit.snippet.to_string();
                    }
                    if existing.title.len() < hit.title.len() {
                        existing.title = hit.title.to_string();
                    }
                    if existing.published_at.is_none() {
                        existing.published_at = hit.published_at.clone();
                    }
                    continue;
                }
                out.results.push(ResultRow {
                    rank: u32::try_from(out.results.len() + 1).unwrap_or(u32::MAX),
                    url: hit.url.to_string(),
                    canonical_url: canonical,
                    title: hit.title.to_string(),
                    snippet: hit.snippet.to_string(),
                    published_at: hit.published_at.clone(),
                    engines: vec![call.engine.clone()],
                    sub_queries: vec![call.sub_query.clone()],
                    score: None,
                    provenance: call.response.provenance.clone(),
                });
            }
        }
        out
    }

    /// Candidates from a search response, in its order.
    pub fn from_search(response: &SearchResponse) -> Self {
        let mut out = Self::empty(response.query.clone());
        out.backend = Some("ferret-search".to_string());
        out.dropped = response.dropped.clone();
        out.warnings = response.warnings.clone();
        out.input_rows = response.results.len() + response.dropped.len();
        for (i, r) in response.results.iter().enumerate() {
            let mut engines = Vec::new();
            let mut sub_queries = Vec::new();
            for s in &r.sources {
                push_unique(&mut engines, &s.engine);
                push_unique(&mut sub_queries, &s.sub_query);
            }
            out.results.push(ResultRow {
                rank: u32::try_from(i + 1).unwrap_or(u32::MAX),
                url: r.original_url.to_string(),
                canonical_url: r.url.clone(),
                title: r.title.to_string(),
                snippet: r.snippet.to_string(),
                published_at: r.published_at.clone(),
                engines,
                sub_queries,
                score: Some(r.scores.intent),
                provenance: r.provenance.clone(),
            });
        }
        out
    }

    /// Appends the rows of `rows` whose URL (or canonical URL) is not
    /// already a candidate, ranked after the last one; returns how many.
    pub fn append_new(&mut self, rows: Vec<ResultRow>) -> usize {
        let mut added = 0;
        for mut row in rows {
            let known = self
                .results
                .iter()
                .any(|r| r.url == row.url || r.canonical_url == row.canonical_url);
            if known {
                continue;
            }
            row.rank = u32::try_from(self.results.len() + 1).unwrap_or(u32::MAX);
            self.results.push(row);
            added += 1;
        }
        added
    }

    /// Candidates from JSON a host wrote: a `ferret.results.v1` envelope, a
    /// `ferret.search.v1` response, or raw rows (normalised with `query`).
    /// Fails only when the text claims one of our schemas but does not fit
    /// it; anything else that is not rows gives an empty set with a
    /// warning, as `--stdin-results` does.
    pub fn from_json(text: &str, query: &str) -> Result<Self, ResearchError> {
        if let Ok(value) = serde_json::from_str::<Value>(text)
            && let Some(schema) = value.get("schema").and_then(Value::as_str)
        {
            if schema == RESULTS_SCHEMA {
                return serde_json::from_value(value).map_err(|e| ResearchError::InvalidInput {
                    what: "results",
                    reason: format!(
                        "a {RESULTS_SCHEMA} envelope that does not fit its schema: {e}"
                    ),
                });
            }
            if schema == SEARCH_SCHEMA {
                let response: SearchResponse =
                    serde_json::from_value(value).map_err(|e| ResearchError::InvalidInput {
                        what: "results",
                        reason: format!(
                            "a {SEARCH_SCHEMA} response that does not fit its schema: {e}"
                        ),
                    })?;
                return Ok(Self::from_search(&response));
            }
        }
        Ok(normalize_results(text, query, None))
    }
}

fn push_unique(list: &mut Vec<String>, value: &str) {
    if !list.iter().any(|v| v == value) {
        list.push(value.to_string());
    }
}

/// `ferret research normalize-results`: the caller's result rows (JSON
/// text) as URL candidates. `backend` labels provenance only (rows that
/// name no engine are attributed to it). Empty input, invalid JSON or an
/// unsupported envelope give an empty set with a warning.
pub fn normalize_results(text: &str, query: &str, backend: Option<&str>) -> NormalizedResults {
    let rows = match backend.map(str::trim).filter(|b| !b.is_empty()) {
        Some(label) => match serde_json::from_str::<Value>(text) {
            Ok(value) => normalize_rows_with(&value, query, label),
            Err(_) => normalize_rows_str(text, query),
        },
        None => normalize_rows_str(text, query),
    };
    NormalizedResults::from_rows(rows, query, backend)
}
