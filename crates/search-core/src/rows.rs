//! External result rows: results a caller already has (an agent's own web
//! search, another tool's output, `ferret search --stdin-results`) turned
//! into [`EngineCall`]s that fusion treats like any engine's answer.
//!
//! The accepted shapes (the `search-results-v1` stdin format):
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
//! Nothing is lost silently: every input row becomes a hit, a
//! [`DroppedRow`] or — past the row limit — a count in
//! [`NormalizedRows::over_limit`] with a warning. Empty input, invalid JSON
//! or an unsupported envelope give an empty set with a warning, never an
//! error. Snippets stay candidate diagnostics, never evidence.
//!
//! ## Limits
//!
//! Rows come from strangers (another tool's output, a pasted file), so the
//! work per input is bounded; nothing past a limit is dropped without a
//! warning saying how much and which limit:
//!
//! - at most [`MAX_ROWS`] rows are read; the rest are not looked at,
//!   counted in [`NormalizedRows::over_limit`] and named in a warning;
//! - at most [`MAX_ENGINES_PER_ROW`] engines are read from one row's
//!   `sources` or `engines` list; the rest are ignored, with a warning;
//! - a URL longer than [`MAX_URL_BYTES`] is not a usable URL: the row is
//!   dropped as [`DropReason::MissingOrInvalidUrl`] (the dropped row keeps
//!   the URL's first [`MAX_URL_BYTES`] bytes), with a warning;
//! - titles are cut to [`MAX_TITLE_CHARS`] characters, snippets to
//!   [`MAX_SNIPPET_CHARS`], engine names, sub-queries and dates to
//!   [`MAX_LABEL_CHARS`] (on a character boundary), with a warning
//!   counting the fields cut.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use url::Url;

use crate::engine::{EngineHit, EngineResponse};
use crate::provenance::{Provenance, ProvenanceClaim, Runtime};
use crate::response::{DropReason, DroppedRow, EngineCall};

/// The engine name of rows that do not name one.
pub const ROWS_ENGINE: &str = "rows";

/// The most rows read from one input. Rows past it are not read: they are
/// counted in [`NormalizedRows::over_limit`] and a warning names the limit.
pub const MAX_ROWS: usize = 1_000;

/// The most engines read from one row's `sources` or `engines` list (a
/// fused result rarely has more than a dozen); the rest are ignored, with a
/// warning.
pub const MAX_ENGINES_PER_ROW: usize = 16;

/// The longest usable URL, in bytes. A row whose URL is longer is dropped as
/// [`DropReason::MissingOrInvalidUrl`], with a warning.
pub const MAX_URL_BYTES: usize = 8 * 1024;

/// The longest title kept, in characters; a longer one is cut, with a
/// warning.
pub const MAX_TITLE_CHARS: usize = 1_000;

/// The longest snippet kept, in characters; a longer one is cut, with a
/// warning.
pub const MAX_SNIPPET_CHARS: usize = 10_000;

/// The longest engine name, sub-query or date kept, in characters; a longer
/// one is cut, with a warning.
pub const MAX_LABEL_CHARS: usize = 256;

/// Keys that can hold the rows array in an envelope object, in the order
/// they are tried (`web.results` is the nested `web` → `results`).
pub(crate) const ENVELOPE_KEYS: &[&str] = &[
    "results",
    "data",
    "items",
    "web.results",
    "organic",
    "enrichment.candidates",
    "candidates",
];

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
pub(crate) const ENGINE_KEYS: &[&str] = &["engine", "source"];

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
    /// How many rows the input held (hits + dropped + over the limit).
    pub input_rows: usize,
    /// Rows past [`MAX_ROWS`] that were not read (a warning says so).
    #[serde(default)]
    pub over_limit: usize,
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
    let envelope = Envelope::of(value, default_engine, query);
    let read = &rows[..rows.len().min(MAX_ROWS)];
    let mut dropped = Vec::new();
    let mut notes = ProvenanceNotes::default();
    let mut cuts = Cuts::default();
    let mut groups = Groups::default();
    for (index, row) in read.iter().enumerate() {
        let row_url = first_string(row, URL_KEYS);
        for reading in envelope.readings(row, &mut notes, &mut cuts) {
            // A source of a fused result keeps the URL its engine gave.
            let raw_url = reading.url.clone().or_else(|| row_url.clone());
            let Some(url) = raw_url
                .as_deref()
                .and_then(|raw| usable_url(raw, &mut cuts))
            else {
                dropped.push(DroppedRow {
                    index,
                    engine: Some(reading.engine),
                    url: raw_url.map(|u| clip_bytes(u, MAX_URL_BYTES)),
                    reason: DropReason::MissingOrInvalidUrl,
                });
                continue;
            };
            let group = groups.get(&reading.engine, &reading.sub_query);
            let given_rank = reading
                .rank
                .or_else(|| row.get("rank").and_then(rank_value));
            let position = group.candidates.len() + 1;
            group.candidates.push(Candidate {
                index,
                // Unranked rows sort at their position among the engine's rows.
                sort_rank: given_rank.unwrap_or(position as f64),
                url,
                raw_url,
                row,
                provenance: reading.provenance,
            });
        }
    }
    let calls = groups
        .list
        .into_iter()
        .flat_map(|g| g.into_calls(&mut dropped, &mut cuts))
        .collect();
    dropped.sort_by_key(|d| d.index);
    let over_limit = rows.len() - read.len();
    let mut warnings = row_warnings(rows.len(), &dropped, notes);
    warnings.extend(limit_warnings(over_limit, &cuts));
    NormalizedRows {
        calls,
        dropped,
        warnings,
        input_rows: rows.len(),
        over_limit,
    }
}

/// What the limits cut while reading (see the module docs), for the
/// warnings.
#[derive(Default)]
struct Cuts {
    /// URLs longer than [`MAX_URL_BYTES`].
    long_urls: usize,
    /// Titles, snippets, engine names, sub-queries and dates cut.
    clipped_fields: usize,
    /// Engines past [`MAX_ENGINES_PER_ROW`] in a row's list.
    extra_engines: usize,
}

impl Cuts {
    /// `text` cut to `max_chars` characters (counted when cut).
    fn clip(&mut self, text: String, max_chars: usize) -> String {
        match text.char_indices().nth(max_chars) {
            None => text,
            Some((at, _)) => {
                self.clipped_fields += 1;
                let mut text = text;
                text.truncate(at);
                text
            }
        }
    }
}

/// The warnings of the limits: rows not read, URLs too long, engines
/// ignored, fields cut.
fn limit_warnings(over_limit: usize, cuts: &Cuts) -> Vec<String> {
    let mut warnings = Vec::new();
    if over_limit > 0 {
        warnings.push(format!(
            "{over_limit} rows past the first {MAX_ROWS} were not read (at most {MAX_ROWS} rows \
             are read from one input); send fewer rows or split the input"
        ));
    }
    if cuts.long_urls > 0 {
        warnings.push(format!(
            "{} rows have a URL longer than {MAX_URL_BYTES} bytes and were dropped as {}",
            cuts.long_urls,
            DropReason::MissingOrInvalidUrl.as_str()
        ));
    }
    if cuts.extra_engines > 0 {
        warnings.push(format!(
            "{} engines past the first {MAX_ENGINES_PER_ROW} of a row's sources or engines were \
             ignored",
            cuts.extra_engines
        ));
    }
    if cuts.clipped_fields > 0 {
        warnings.push(format!(
            "{} fields were cut to their length limit (titles {MAX_TITLE_CHARS}, snippets \
             {MAX_SNIPPET_CHARS}, engine names, sub-queries and dates {MAX_LABEL_CHARS} \
             characters)",
            cuts.clipped_fields
        ));
    }
    warnings
}

/// `text` cut to at most `max` bytes, on a character boundary.
fn clip_bytes(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut at = max;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
    text
}

/// [`clean_url`] for a URL within [`MAX_URL_BYTES`]; a longer one is
/// counted and refused.
fn usable_url(raw: &str, cuts: &mut Cuts) -> Option<String> {
    if raw.len() > MAX_URL_BYTES {
        cuts.long_urls += 1;
        return None;
    }
    clean_url(raw)
}

/// What an envelope says for the rows inside it: the engine of rows that
/// name none (a browser search envelope's `engine`, else the default), and
/// its provenance claim.
struct Envelope {
    engine: String,
    query: String,
    claim: ProvenanceClaim,
    /// The envelope's own provenance, the floor of its rows': a row inside
    /// a login envelope is login whatever it says.
    floor: Option<Provenance>,
}

/// One engine's reading of a row: a row with `sources` (a `ferret.search.v1`
/// result) or `engines` (a research candidate, a merge item) is one hit per
/// engine that returned it.
struct Reading {
    engine: String,
    sub_query: String,
    rank: Option<f64>,
    /// The URL this engine gave, when the row says (a source's `url`).
    url: Option<String>,
    provenance: Provenance,
}

impl Envelope {
    fn of(value: &Value, default_engine: &str, query: &str) -> Self {
        let object = value.as_object();
        let named = object.and_then(|o| first_string_in(o, &["engine"]));
        let engine = match default_engine.trim() {
            "" | ROWS_ENGINE => named.unwrap_or_else(|| ROWS_ENGINE.to_string()),
            label => label.to_string(),
        };
        let claim = object.map(ProvenanceClaim::from_object).unwrap_or_default();
        let floor = (!claim.is_empty()).then(|| claim.resolve(Runtime::Rows, None).provenance);
        Envelope {
            engine,
            query: query.to_string(),
            claim,
            floor,
        }
    }

    /// The engines a row names, each with the provenance it claims (its
    /// source's, else the row's, else the envelope's; never less private
    /// than the envelope).
    fn readings(&self, row: &Value, notes: &mut ProvenanceNotes, cuts: &mut Cuts) -> Vec<Reading> {
        let row_claim = ProvenanceClaim::from_value(row).or(&self.claim);
        let mut named = named_engines(row, &row_claim, cuts);
        let single = named.is_empty();
        if single {
            let engine = first_string(row, ENGINE_KEYS).unwrap_or_else(|| self.engine.clone());
            named.push(Named::engine(
                cuts.clip(engine, MAX_LABEL_CHARS),
                &row_claim,
            ));
        }
        // A row split into its engines keeps its own provenance as the
        // floor of each part: its title and snippet may come from a login
        // hit whichever engine it is read back as.
        let floor = if single {
            self.floor.clone()
        } else {
            let row = row_claim
                .resolve(Runtime::Rows, self.floor.as_ref())
                .provenance;
            Some(row)
                .filter(Provenance::is_login)
                .or_else(|| self.floor.clone())
        };
        named
            .into_iter()
            .map(|n| {
                let resolved = n.claim.resolve(Runtime::Rows, floor.as_ref());
                if let Some(w) = resolved.warning {
                    notes.note(&n.engine, w);
                }
                Reading {
                    engine: n.engine,
                    sub_query: n
                        .sub_query
                        .map(|q| cuts.clip(q, MAX_LABEL_CHARS))
                        .unwrap_or_else(|| self.query.clone()),
                    rank: n.rank,
                    url: n.url,
                    provenance: resolved.provenance,
                }
            })
            .collect()
    }
}

/// The engines a row names in its `sources` (a `ferret.search.v1` result),
/// else its `engines` list (a research candidate, a merge item): at most
/// [`MAX_ENGINES_PER_ROW`], the rest counted in `cuts`. Empty when it names
/// none that way.
fn named_engines(row: &Value, row_claim: &ProvenanceClaim, cuts: &mut Cuts) -> Vec<Named> {
    let mut named: Vec<Named> = Vec::new();
    if let Some(sources) = row.get("sources").and_then(Value::as_array) {
        for source in sources.iter().filter_map(Value::as_object) {
            let Some(engine) = first_string_in(source, &["engine"]) else {
                continue;
            };
            if named.len() == MAX_ENGINES_PER_ROW {
                cuts.extra_engines += 1;
                continue;
            }
            named.push(Named {
                engine: cuts.clip(engine, MAX_LABEL_CHARS),
                sub_query: first_string_in(source, &["sub_query"]),
                rank: source.get("rank").and_then(rank_value),
                url: first_string_in(source, &["url"]),
                claim: ProvenanceClaim::from_object(source).or(row_claim),
            });
        }
    }
    if named.is_empty()
        && let Some(engines) = row.get("engines").and_then(Value::as_array)
    {
        for engine in engines.iter().filter_map(Value::as_str).map(str::trim) {
            if engine.is_empty() {
                continue;
            }
            if named.len() == MAX_ENGINES_PER_ROW {
                cuts.extra_engines += 1;
                continue;
            }
            let engine = cuts.clip(engine.to_string(), MAX_LABEL_CHARS);
            named.push(Named::engine(engine, row_claim));
        }
    }
    named
}

/// An engine a row names, before its claim is resolved.
struct Named {
    engine: String,
    sub_query: Option<String>,
    rank: Option<f64>,
    url: Option<String>,
    claim: ProvenanceClaim,
}

impl Named {
    fn engine(engine: String, claim: &ProvenanceClaim) -> Self {
        Named {
            engine,
            sub_query: None,
            rank: None,
            url: None,
            claim: claim.clone(),
        }
    }
}

/// Provenance claims that were not taken as written, counted per engine.
#[derive(Default)]
struct ProvenanceNotes {
    notes: Vec<(String, String, usize)>,
}

impl ProvenanceNotes {
    fn note(&mut self, engine: &str, warning: String) {
        match self
            .notes
            .iter_mut()
            .find(|(e, w, _)| e == engine && *w == warning)
        {
            Some(entry) => entry.2 += 1,
            None => self.notes.push((engine.to_string(), warning, 1)),
        }
    }
}

/// The rows of one (engine, sub-query), before ranking.
struct Group<'a> {
    engine: String,
    sub_query: String,
    candidates: Vec<Candidate<'a>>,
}

/// The groups in order of their first row, with an index by (engine,
/// sub-query) so finding a row's group does not scan them all.
#[derive(Default)]
struct Groups<'a> {
    list: Vec<Group<'a>>,
    index: HashMap<(String, String), usize>,
}

impl<'a> Groups<'a> {
    /// The group of (`engine`, `sub_query`), made when it is the first row.
    fn get(&mut self, engine: &str, sub_query: &str) -> &mut Group<'a> {
        let key = (engine.to_string(), sub_query.to_string());
        let next = self.list.len();
        let position = *self.index.entry(key).or_insert(next);
        if position == next {
            self.list.push(Group {
                engine: engine.to_string(),
                sub_query: sub_query.to_string(),
                candidates: Vec::new(),
            });
        }
        &mut self.list[position]
    }
}

impl Group<'_> {
    /// The group's hits ranked 1…n by their given rank (ties by input
    /// order), repeats dropped, as one call per provenance (each hit keeps
    /// its rank among all of the engine's rows).
    fn into_calls(mut self, dropped: &mut Vec<DroppedRow>, cuts: &mut Cuts) -> Vec<EngineCall> {
        self.candidates.sort_by(|a, b| {
            a.sort_rank
                .total_cmp(&b.sort_rank)
                .then(a.index.cmp(&b.index))
        });
        let mut seen: HashSet<String> = HashSet::with_capacity(self.candidates.len());
        let mut calls: Vec<EngineCall> = Vec::new();
        for c in self.candidates {
            if seen.contains(&c.url) {
                dropped.push(DroppedRow {
                    index: c.index,
                    engine: Some(self.engine.clone()),
                    url: c.raw_url,
                    reason: DropReason::DuplicateUrl,
                });
                continue;
            }
            seen.insert(c.url.clone());
            let field = |keys: &[&str], max: usize, cuts: &mut Cuts| {
                cuts.clip(first_string(c.row, keys).unwrap_or_default(), max)
            };
            let hit = EngineHit {
                title: field(TITLE_KEYS, MAX_TITLE_CHARS, cuts).into(),
                snippet: field(SNIPPET_KEYS, MAX_SNIPPET_CHARS, cuts).into(),
                published_at: first_date(c.row).map(|d| cuts.clip(d, MAX_LABEL_CHARS)),
                rank: u32::try_from(seen.len()).unwrap_or(u32::MAX),
                url: c.url.into(),
            };
            match calls
                .iter_mut()
                .find(|call| call.response.provenance == c.provenance)
            {
                Some(call) => call.response.hits.push(hit),
                None => calls.push(EngineCall {
                    engine: self.engine.clone(),
                    sub_query: self.sub_query.clone(),
                    sub_query_index: 0,
                    response: EngineResponse::new(c.provenance, vec![hit]),
                }),
            }
        }
        calls
    }
}

fn row_warnings(rows: usize, dropped: &[DroppedRow], notes: ProvenanceNotes) -> Vec<String> {
    let mut warnings = Vec::new();
    if rows == 0 {
        warnings.push("no result rows: the rows array is empty".to_string());
    }
    if !dropped.is_empty() {
        let count = |reason: DropReason| dropped.iter().filter(|d| d.reason == reason).count();
        warnings.push(format!(
            "{} of {} rows dropped ({} {}, {} {})",
            dropped.len(),
            rows,
            count(DropReason::MissingOrInvalidUrl),
            DropReason::MissingOrInvalidUrl.as_str(),
            count(DropReason::DuplicateUrl),
            DropReason::DuplicateUrl.as_str(),
        ));
    }
    for (engine, warning, n) in notes.notes {
        let rows = if n == 1 { "row" } else { "rows" };
        warnings.push(format!("{n} {rows} of {engine}: {warning}"));
    }
    warnings
}

/// A row with a usable URL, before ordering and de-duplication.
struct Candidate<'a> {
    index: usize,
    sort_rank: f64,
    url: String,
    raw_url: Option<String>,
    row: &'a Value,
    provenance: Provenance,
}

fn envelope_list() -> String {
    ENVELOPE_KEYS
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub use ferret_text::json::json_kind;

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
    first_string_in(row.as_object()?, keys)
}

fn first_string_in(map: &Map<String, Value>, keys: &[&str]) -> Option<String> {
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
