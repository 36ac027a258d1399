//! External result rows: results a caller already has (an agent's own web
//! search, another tool's output, `ferret search --stdin-results`) turned
//! into [`EngineCall`]s that fusion treats like any engine's answer.
//!
//! The accepted shapes follow agbrowse's `search-results-v1` stdin mode:
//!
//! - rows are a top-level array, or an array under `results`, `data`,
//!   `items`, `web.results` or `organic` (the first of those that holds an
//!   array);
//! - URL keys [`URL_KEYS`], title keys [`TITLE_KEYS`], snippet keys
//!   [`SNIPPET_KEYS`], date keys [`DATE_KEYS`] (the first non-empty one
//!   wins); a row may also name its `engine` (or `source`) and its `rank`
//!   (a number, or a string or float holding one);
//! - only absolute http(s) URLs survive, without their fragment; a row
//!   without one is dropped as [`DropReason::MissingOrInvalidUrl`]; a URL
//!   repeated within one engine's rows is dropped as
//!   [`DropReason::DuplicateUrl`] (the same URL from two engines is
//!   consensus and kept);
//! - rows that name no engine form one engine called [`ROWS_ENGINE`];
//! - within an engine, rows are ordered by their given rank (ties and
//!   unranked rows by input order), and each hit's rank is its 1-based
//!   position among the engine's surviving rows.
//!
//! Nothing is lost silently: every input row becomes a hit or a
//! [`DroppedRow`]. Empty input, invalid JSON or an unsupported envelope
//! give an empty set with a warning, never an error. Snippets stay
//! candidate diagnostics, never evidence.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use crate::engine::{EngineHit, EngineResponse};
use crate::response::{DropReason, DroppedRow, EngineCall};

/// The engine name of rows that do not name one.
pub const ROWS_ENGINE: &str = "rows";

/// Keys that can hold the rows array in an envelope object, in the order
/// they are tried (`web.results` is the nested `web` → `results`).
pub const ENVELOPE_KEYS: &[&str] = &["results", "data", "items", "web.results", "organic"];

/// Keys that can hold a row's URL, in order of preference.
pub const URL_KEYS: &[&str] = &["url", "link", "href", "sourceUrl", "source_url"];

/// Keys that can hold a row's title.
pub const TITLE_KEYS: &[&str] = &["title", "name"];

/// Keys that can hold a row's snippet.
pub const SNIPPET_KEYS: &[&str] = &["snippet", "text", "content", "description", "summary"];

/// Keys that can hold a row's publication date.
pub const DATE_KEYS: &[&str] = &[
    "date",
    "publishedDate",
    "published_date",
    "publishedAt",
    "published_at",
];

/// Keys that can name the engine a row came from.
pub const ENGINE_KEYS: &[&str] = &["engine", "source"];

/// Rows normalised into engine calls, with what was dropped and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct NormalizedRows {
    /// One call per engine, in order of the engine's first row.
    pub calls: Vec<EngineCall>,
    /// Rows that were not used, in input order.
    pub dropped: Vec<DroppedRow>,
    /// Things the caller should know (bad JSON, unsupported envelope,
    /// dropped-row counts).
    pub warnings: Vec<String>,
    /// How many rows the input held (hits + dropped).
    pub input_rows: usize,
}

impl NormalizedRows {
    /// The number of hits over all engines.
    pub fn hit_count(&self) -> usize {
        self.calls.iter().map(|c| c.response.hits.len()).sum()
    }

    /// Whether no row survived.
    pub fn is_empty(&self) -> bool {
        self.hit_count() == 0
    }

    fn empty_with_warning(warning: String) -> Self {
        NormalizedRows {
            warnings: vec![warning],
            ..Default::default()
        }
    }
}

/// Normalise rows given as JSON text (see the module docs). Empty input,
/// invalid JSON or an unsupported envelope give an empty set with a
/// warning. `query` becomes each call's sub-query.
pub fn normalize_rows_str(text: &str, query: &str) -> NormalizedRows {
    if text.trim().is_empty() {
        return NormalizedRows::empty_with_warning(
            "no result rows: the input is empty".to_string(),
        );
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => normalize_rows(&value, query),
        Err(e) => NormalizedRows::empty_with_warning(format!(
            "no result rows: the input is not valid JSON ({e}); expected an array of rows \
             or an object with one under {}",
            envelope_list()
        )),
    }
}

/// Normalise rows given as a JSON value, rows without an engine going to
/// [`ROWS_ENGINE`].
pub fn normalize_rows(value: &Value, query: &str) -> NormalizedRows {
    normalize_rows_with(value, query, ROWS_ENGINE)
}

/// Normalise rows given as a JSON value, rows without an engine going to
/// `default_engine` (e.g. a `--backend` label).
pub fn normalize_rows_with(value: &Value, query: &str, default_engine: &str) -> NormalizedRows {
    let Some(rows) = find_rows(value) else {
        return NormalizedRows::empty_with_warning(format!(
            "no result rows: unsupported envelope ({}); expected an array of rows or an object \
             with one under {}",
            describe(value),
            envelope_list()
        ));
    };
    let default_engine = match default_engine.trim() {
        "" => ROWS_ENGINE,
        name => name,
    };

    let mut dropped = Vec::new();
    // Engines in order of first appearance, each with its candidate rows.
    let mut groups: Vec<(String, Vec<Candidate>)> = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        let engine = first_string(row, ENGINE_KEYS).unwrap_or_else(|| default_engine.to_string());
        let raw_url = first_string(row, URL_KEYS);
        let Some(url) = raw_url.as_deref().and_then(clean_url) else {
            dropped.push(DroppedRow {
                index,
                engine: Some(engine),
                url: raw_url,
                reason: DropReason::MissingOrInvalidUrl,
            });
            continue;
        };
        let position = match groups.iter().position(|(name, _)| *name == engine) {
            Some(p) => p,
            None => {
                groups.push((engine.clone(), Vec::new()));
                groups.len() - 1
            }
        };
        let group = &mut groups[position].1;
        let given_rank = row.get("rank").and_then(rank_value);
        group.push(Candidate {
            index,
            // Unranked rows sort at their position among the engine's rows.
            sort_rank: given_rank.unwrap_or((group.len() + 1) as f64),
            url,
            raw_url,
            row,
        });
    }

    let mut calls = Vec::with_capacity(groups.len());
    for (engine, mut candidates) in groups {
        candidates.sort_by(|a, b| {
            a.sort_rank
                .total_cmp(&b.sort_rank)
                .then(a.index.cmp(&b.index))
        });
        let mut hits: Vec<EngineHit> = Vec::with_capacity(candidates.len());
        for c in candidates {
            if hits.iter().any(|h| h.url == c.url) {
                dropped.push(DroppedRow {
                    index: c.index,
                    engine: Some(engine.clone()),
                    url: c.raw_url,
                    reason: DropReason::DuplicateUrl,
                });
                continue;
            }
            let rank = u32::try_from(hits.len() + 1).unwrap_or(u32::MAX);
            hits.push(EngineHit {
                url: c.url.into(),
                title: first_string(c.row, TITLE_KEYS).unwrap_or_default().into(),
                snippet: first_string(c.row, SNIPPET_KEYS).unwrap_or_default().into(),
                published_at: first_date(c.row),
                rank,
            });
        }
        calls.push(EngineCall {
            engine,
            sub_query: query.to_string(),
            sub_query_index: 0,
            response: EngineResponse::from_hits(hits),
        });
    }
    dropped.sort_by_key(|d| d.index);

    let mut warnings = Vec::new();
    if rows.is_empty() {
        warnings.push("no result rows: the rows array is empty".to_string());
    }
    if !dropped.is_empty() {
        let count = |reason: DropReason| dropped.iter().filter(|d| d.reason == reason).count();
        warnings.push(format!(
            "{} of {} rows dropped ({} {}, {} {})",
            dropped.len(),
            rows.len(),
            count(DropReason::MissingOrInvalidUrl),
            DropReason::MissingOrInvalidUrl.as_str(),
            count(DropReason::DuplicateUrl),
            DropReason::DuplicateUrl.as_str(),
        ));
    }
    NormalizedRows {
        calls,
        dropped,
        warnings,
        input_rows: rows.len(),
    }
}

/// A row with a usable URL, before ordering and de-duplication.
struct Candidate<'a> {
    index: usize,
    sort_rank: f64,
    url: String,
    raw_url: Option<String>,
    row: &'a Value,
}

fn envelope_list() -> String {
    ENVELOPE_KEYS
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What kind of JSON value `value` is, for error messages about JSON a
/// caller handed in ("a string", "an array", "null" …).
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// [`json_kind`], with an object's first keys.
fn describe(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let keys: Vec<&str> = map.keys().take(8).map(String::as_str).collect();
            format!("an object with keys [{}]", keys.join(", "))
        }
        other => json_kind(other).to_string(),
    }
}

/// The rows array: the value itself, or the first envelope key holding an
/// array.
fn find_rows(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(rows) => Some(rows),
        Value::Object(map) => ENVELOPE_KEYS.iter().find_map(|key| {
            let found = match key.split_once('.') {
                Some((outer, inner)) => map.get(outer).and_then(|v| v.get(inner)),
                None => map.get(*key),
            };
            found.and_then(Value::as_array)
        }),
        _ => None,
    }
}

/// The first of `keys` whose value is a non-blank string, trimmed.
fn first_string(row: &Value, keys: &[&str]) -> Option<String> {
    let map = row.as_object()?;
    keys.iter().find_map(|k| match map.get(*k)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    })
}

/// The publication date: the first date key holding a non-blank string,
/// or an integer (a Unix timestamp, kept as its decimal text).
fn first_date(row: &Value) -> Option<String> {
    let map = row.as_object()?;
    DATE_KEYS.iter().find_map(|k| match map.get(*k)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    })
}

/// A rank given as a number or a numeric string; non-finite values are
/// ignored.
fn rank_value(value: &Value) -> Option<f64> {
    let rank = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    rank.is_finite().then_some(rank)
}

/// An absolute http(s) URL with a host, without its fragment.
fn clean_url(raw: &str) -> Option<String> {
    let mut url = Url::parse(raw.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return None;
    }
    url.set_fragment(None);
    Some(url.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numeric_strings_and_floats_are_ranks() {
        assert_eq!(rank_value(&json!(3)), Some(3.0));
        assert_eq!(rank_value(&json!("2")), Some(2.0));
        assert_eq!(rank_value(&json!(" 1.5 ")), Some(1.5));
        assert_eq!(rank_value(&json!("first")), None);
        assert_eq!(rank_value(&json!(null)), None);
    }

    #[test]
    fn clean_url_keeps_only_http_with_a_host() {
        assert_eq!(
            clean_url(" https://Example.com/a#frag ").as_deref(),
            Some("https://example.com/a")
        );
        assert_eq!(clean_url("ftp://example.com/"), None);
        assert_eq!(clean_url("/relative"), None);
        assert_eq!(clean_url("javascript:void(0)"), None);
    }
}
