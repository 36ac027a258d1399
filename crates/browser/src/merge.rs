//! The public + login merge (`ferret merge --public F --login F`):
//! the results of an ordinary public search and of a logged-in browser
//! search, side by side in one `ferret.merge.v1` report for analysis,
//! without letting login data pass for public data.
//!
//! # Inputs
//!
//! [`MergeInput`] reads what Ferret itself prints with `--json`:
//!
//! | schema | command | items |
//! |---|---|---|
//! | `ferret.search.v1` | `ferret search` | one `serp` item per fused result (`original_url`, title, snippet, engines, per-result provenance) |
//! | `ferret.browser.search.v1` | `ferret browser search` | one `serp` item per row (url, title, snippet, published_at) |
//! | `ferret.browser.fetch.v1` | `ferret browser fetch` | one `body` item (url, title, content) |
//! | `ferret.browser.act.v1` | `ferret browser act` | the rows as `serp` items, then every opened page in `details` as a `body` item |
//! | `ferret.fetch.v1` | `ferret fetch` | one `body` item (url, title, text) |
//! | (a JSON array) | anything | one `serp` item per `{url, title, snippet}` object |
//!
//! Any other JSON is a [`MergeError`] that names the input and lists what
//! is accepted. Unknown fields are ignored; a row without a `url` string is
//! an error naming the row.
//!
//! # Sides and provenance
//!
//! The side an input is passed as is authoritative, with one exception
//! that only ever makes data *less* shareable:
//!
//! - Every item of the login input gets login provenance
//!   ([`Provenance::login`]: `login_state_used`, `auth_partition` `login` —
//!   or the file's own `login:<site>` label — and `cache_eligible: false`),
//!   whatever its file says. A file whose provenance says public (a public
//!   search passed as `--login`), or that has none, is still treated as
//!   login, and the report carries a warning saying so.
//! - Items of the public input get public provenance
//!   ([`Provenance::public`]), unless their file marks them as login data
//!   (any marker [`Provenance::is_login`] knows). Login data passed as
//!   `--public` keeps login provenance (never cache eligible), is counted
//!   in `isolation.public_cache_eligible = false`, and is warned about.
//!
//! The provenance's `runtime` is the file's, or `unknown` when it has none.
//!
//! # Matching, conflicts, snippets
//!
//! Items are matched on [`canonical_url`] (with its default options). It
//! lowercases the host and drops the fragment and the `utm_*`, `spm`,
//! `fbclid` and `gclid` parameters; it also drops a leading `www.`,
//! maps `http` to `https`, sorts the query and removes more tracking
//! parameters. The original URL is kept on every item. An item whose URL
//! has no canonical form (not http(s), empty) is kept, unmatched, with a
//! warning.
//!
//! Public and login items with the same canonical URL are all kept, each
//! with `dual_sourced: true`; nothing is folded or overwritten. For each
//! dual-sourced URL and each kind present on both sides, the first public
//! and the first login title are compared after collapsing whitespace and
//! lowercasing; when they differ the pair goes into
//! [`MergeReport::conflicts`]. A `serp` title is never compared with a
//! `body` title (a result page's title and a page's `<title>` differ as a
//! rule), and an empty title is no disagreement.
//!
//! Snippets are cut on character boundaries: [`SERP_SNIPPET_CHARS`] for
//! `serp` items, [`BODY_SNIPPET_CHARS`] of the page text for `body` items;
//! `snippet_truncated` says when a cut happened.
//!
//! # Order
//!
//! Items are grouped by canonical URL and the groups come
//! in order of first appearance: the public input's items in their input
//! order, then the login input's. Within a group the public items come
//! first, then the login items, each in input order — so a dual-sourced
//! pair sits together, at the public item's position. Input order is the
//! file's order: result rows by rank, then page bodies. The merge is a pure
//! function of its inputs: the same inputs give the same report.
//!
//! Merging is not gated by pro mode: it reads files and opens no browser.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use ferret_core::canonical::{CanonicalOptions, canonical_url};
use ferret_core::rows::json_kind;
use ferret_core::{Partition, Provenance, ProvenanceClaim, Runtime};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::serp::cut;

/// The schema name of [`MergeReport`].
pub const MERGE_SCHEMA: &str = "ferret.merge.v1";

/// Characters of a `serp` item's snippet kept.
pub const SERP_SNIPPET_CHARS: usize = 500;

/// Characters of a `body` item's page text kept as its snippet.
pub const BODY_SNIPPET_CHARS: usize = 800;

/// The schemas [`MergeInput`] accepts, and which shape each is.
pub const ACCEPTED_SCHEMAS: &[(&str, InputShape)] = &[
    ("ferret.search.v1", InputShape::Search),
    ("ferret.browser.search.v1", InputShape::BrowserSearch),
    ("ferret.browser.fetch.v1", InputShape::BrowserFetch),
    ("ferret.browser.act.v1", InputShape::BrowserAct),
    ("ferret.fetch.v1", InputShape::Fetch),
];

/// What the accepted inputs are, for error messages.
const EXPECTED: &str = "the JSON printed by `ferret search --json` (ferret.search.v1), \
`ferret browser search|fetch|act --json` (ferret.browser.search.v1, ferret.browser.fetch.v1, \
ferret.browser.act.v1) or `ferret fetch --json` (ferret.fetch.v1), or a JSON array of \
{url, title, snippet} objects";

/// Which Ferret output an input was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputShape {
    /// `ferret.search.v1` (`ferret search --json`).
    Search,
    /// `ferret.browser.search.v1` (`ferret browser search --json`).
    BrowserSearch,
    /// `ferret.browser.fetch.v1` (`ferret browser fetch --json`).
    BrowserFetch,
    /// `ferret.browser.act.v1` (`ferret browser act`).
    BrowserAct,
    /// `ferret.fetch.v1` (`ferret fetch --json`).
    Fetch,
    /// A bare JSON array of `{url, title, snippet}` objects.
    Array,
}

impl InputShape {
    /// The schema name, or `array` for a bare array.
    pub fn as_str(self) -> &'static str {
        ACCEPTED_SCHEMAS
            .iter()
            .find(|(_, shape)| *shape == self)
            .map(|(name, _)| *name)
            .unwrap_or("array")
    }
}

/// Whether an item is a search result row or a fetched page's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// A result row: title and snippet.
    Serp,
    /// A fetched page: title and the start of its text.
    Body,
}

impl ItemKind {
    /// `serp` or `body`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Serp => "serp",
            ItemKind::Body => "body",
        }
    }

    /// How many characters of text this kind keeps as its snippet.
    pub fn snippet_cap(self) -> usize {
        match self {
            ItemKind::Serp => SERP_SNIPPET_CHARS,
            ItemKind::Body => BODY_SNIPPET_CHARS,
        }
    }
}

/// `public` or `login`.
fn side_name(side: Partition) -> &'static str {
    match side {
        Partition::Public => "public",
        Partition::Login => "login",
    }
}

/// Why an input could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// The file could not be read.
    #[error("cannot read the {input}: {message}; check the path and that the file is readable")]
    Read {
        /// Which input (side and file).
        input: String,
        /// The I/O error.
        message: String,
    },
    /// The text is not JSON.
    #[error("the {input} is not valid JSON ({message}); expected {EXPECTED}")]
    Json {
        /// Which input (side and file).
        input: String,
        /// The parser's message.
        message: String,
    },
    /// An object whose `schema` is not one merge reads.
    #[error("the {input} has schema {schema:?}, which merge does not read; expected {EXPECTED}")]
    UnknownSchema {
        /// Which input (side and file).
        input: String,
        /// The schema found.
        schema: String,
    },
    /// JSON of another shape (an object without `schema`, a string, …).
    #[error("the {input} is {found}; expected {EXPECTED}")]
    UnknownShape {
        /// Which input (side and file).
        input: String,
        /// What was found instead.
        found: String,
    },
    /// A known schema with a missing or wrongly typed field.
    #[error("the {input} ({schema}) is malformed at {at}: {message}")]
    Malformed {
        /// Which input (side and file).
        input: String,
        /// The schema (or `array`).
        schema: String,
        /// Where: `results[3]`, `details[0]`, `the envelope`, …
        at: String,
        /// What was wrong.
        message: String,
    },
}

/// One item read from an input, before merging.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputItem {
    /// `serp` or `body`.
    pub kind: ItemKind,
    /// 1-based position among the input's items of this kind, in file order.
    pub rank_in_source: usize,
    /// The URL as the input gave it.
    pub url: String,
    /// Where a fetched page ended up, when the input says and it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// The title.
    pub title: String,
    /// The whole snippet (`serp`) or page text (`body`), uncut.
    pub text: String,
    /// Publication date, when the input gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// Engines that returned it (`ferret.search.v1` sources, or the
    /// envelope's engine).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<String>,
    /// A fetched page's quality block, as the input had it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<Value>,
    /// The provenance fields the input gave this item (its own, or its
    /// envelope's).
    #[serde(default)]
    pub file_provenance: ProvenanceClaim,
}

/// One side's input: its items and where they came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeInput {
    /// The side it was read as (used in messages; [`merge`] goes by
    /// argument position).
    pub side: Partition,
    /// How it is named in messages: `public input`, `login input /tmp/l.json`.
    pub label: String,
    /// Which Ferret output it was.
    pub shape: InputShape,
    /// The query, when the input has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The engine, when the input names one (`browser_bing`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// The items, in file order: result rows, then page bodies.
    pub items: Vec<InputItem>,
}

impl MergeInput {
    /// Read `text` as the `side` input (named `public input` / `login
    /// input` in errors).
    pub fn from_json(text: &str, side: Partition) -> Result<MergeInput, MergeError> {
        Self::from_json_named(text, side, None)
    }

    /// Read `text` as the `side` input; `name` (a file path) is used in
    /// errors and warnings.
    pub fn from_json_named(
        text: &str,
        side: Partition,
        name: Option<&str>,
    ) -> Result<MergeInput, MergeError> {
        let label = input_label(side, name);
        let value: Value = serde_json::from_str(text).map_err(|e| MergeError::Json {
            input: label.clone(),
            message: e.to_string(),
        })?;
        Self::from_value(value, side, label)
    }

    /// Read the file at `path` as the `side` input.
    pub fn from_path(path: &Path, side: Partition) -> Result<MergeInput, MergeError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| MergeError::Read {
            input: input_label(side, Some(&name)),
            message: e.to_string(),
        })?;
        Self::from_json_named(&text, side, Some(&name))
    }

    /// Read an already parsed JSON value; `label` names it in errors.
    pub fn from_value(
        value: Value,
        side: Partition,
        label: impl Into<String>,
    ) -> Result<MergeInput, MergeError> {
        let label = label.into();
        let reader = Reader { label: &label };
        let shape = reader.shape(&value)?;
        let (query, engine, items) = match shape {
            InputShape::Search => reader.search(value)?,
            InputShape::BrowserSearch => reader.browser_search(value)?,
            InputShape::BrowserFetch | InputShape::Fetch => reader.one_page(shape, value)?,
            InputShape::BrowserAct => reader.browser_act(value)?,
            InputShape::Array => reader.array(value)?,
        };
        Ok(MergeInput {
            side,
            label,
            shape,
            query,
            engine,
            items: number(items),
        })
    }
}

fn input_label(side: Partition, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("{} input {n}", side_name(side)),
        None => format!("{} input", side_name(side)),
    }
}

/// Give every item its 1-based rank among the items of its kind.
fn number(mut items: Vec<InputItem>) -> Vec<InputItem> {
    let (mut serp, mut body) = (0, 0);
    for item in &mut items {
        let counter = match item.kind {
            ItemKind::Serp => &mut serp,
            ItemKind::Body => &mut body,
        };
        *counter += 1;
        item.rank_in_source = *counter;
    }
    items
}

// ---- input views: the fields merge reads, leniently ----

#[derive(Deserialize)]
struct SearchView {
    query: Option<String>,
    results: Vec<Value>,
}

#[derive(Deserialize)]
struct FusedRowView {
    url: String,
    original_url: Option<String>,
    title: Option<String>,
    snippet: Option<String>,
    published_at: Option<String>,
    #[serde(default)]
    sources: Vec<SourceView>,
    provenance: Option<ProvenanceClaim>,
}

#[derive(Deserialize)]
struct SourceView {
    engine: String,
}

#[derive(Deserialize)]
struct EnvelopeView {
    query: Option<String>,
    engine: Option<String>,
    results: Vec<Value>,
    #[serde(default)]
    details: Vec<Value>,
    #[serde(flatten)]
    provenance: ProvenanceClaim,
}

#[derive(Deserialize)]
struct RowView {
    url: String,
    title: Option<String>,
    snippet: Option<String>,
    published_at: Option<String>,
    engine: Option<String>,
    provenance: Option<ProvenanceClaim>,
    #[serde(flatten)]
    flat_provenance: ProvenanceClaim,
}

#[derive(Deserialize)]
struct PageView {
    url: String,
    final_url: Option<String>,
    title: Option<String>,
    /// `ferret.browser.fetch.v1`.
    content: Option<String>,
    /// `ferret.fetch.v1`.
    text: Option<String>,
    published_at: Option<String>,
    quality: Option<Value>,
    provenance: Option<ProvenanceClaim>,
    #[serde(flatten)]
    flat_provenance: ProvenanceClaim,
}

type Parsed = (Option<String>, Option<String>, Vec<InputItem>);

struct Reader<'a> {
    label: &'a str,
}

impl Reader<'_> {
    fn shape(&self, value: &Value) -> Result<InputShape, MergeError> {
        match value {
            Value::Array(_) => Ok(InputShape::Array),
            Value::Object(map) => match map.get("schema") {
                Some(Value::String(schema)) => ACCEPTED_SCHEMAS
                    .iter()
                    .find(|(name, _)| name == schema)
                    .map(|(_, shape)| *shape)
                    .ok_or_else(|| MergeError::UnknownSchema {
                        input: self.label.to_string(),
                        schema: schema.clone(),
                    }),
                Some(other) => Err(MergeError::UnknownShape {
                    input: self.label.to_string(),
                    found: format!("an object whose `schema` is {}", json_kind(other)),
                }),
                None => Err(MergeError::UnknownShape {
                    input: self.label.to_string(),
                    found: "an object without a `schema` field".to_string(),
                }),
            },
            other => Err(MergeError::UnknownShape {
                input: self.label.to_string(),
                found: json_kind(other).to_string(),
            }),
        }
    }

    fn parse<T: DeserializeOwned>(
        &self,
        shape: InputShape,
        at: &str,
        value: Value,
    ) -> Result<T, MergeError> {
        serde_json::from_value(value).map_err(|e| MergeError::Malformed {
            input: self.label.to_string(),
            schema: shape.as_str().to_string(),
            at: at.to_string(),
            message: e.to_string(),
        })
    }

    fn search(&self, value: Value) -> Result<Parsed, MergeError> {
        let shape = InputShape::Search;
        let env: SearchView = self.parse(shape, "the envelope", value)?;
        let mut items = Vec::with_capacity(env.results.len());
        for (i, row) in env.results.into_iter().enumerate() {
            let row: FusedRowView = self.parse(shape, &format!("results[{i}]"), row)?;
            let mut engines: Vec<String> = Vec::new();
            for s in row.sources {
                if !engines.contains(&s.engine) {
                    engines.push(s.engine);
                }
            }
            items.push(InputItem {
                kind: ItemKind::Serp,
                rank_in_source: 0,
                url: row
                    .original_url
                    .filter(|u| !u.trim().is_empty())
                    .unwrap_or(row.url),
                final_url: None,
                title: row.title.unwrap_or_default(),
                text: row.snippet.unwrap_or_default(),
                published_at: row.published_at,
                engines,
                quality: None,
                file_provenance: row.provenance.unwrap_or_default(),
            });
        }
        Ok((env.query, None, items))
    }

    fn rows(
        &self,
        shape: InputShape,
        rows: Vec<Value>,
        engine: Option<&str>,
        envelope: &ProvenanceClaim,
        at: &str,
    ) -> Result<Vec<InputItem>, MergeError> {
        let mut items = Vec::with_capacity(rows.len());
        for (i, row) in rows.into_iter().enumerate() {
            let row: RowView = self.parse(shape, &format!("{at}[{i}]"), row)?;
            let provenance = row
                .provenance
                .unwrap_or_default()
                .or(&row.flat_provenance)
                .or(envelope);
            items.push(InputItem {
                kind: ItemKind::Serp,
                rank_in_source: 0,
                url: row.url,
                final_url: None,
                title: row.title.unwrap_or_default(),
                text: row.snippet.unwrap_or_default(),
                published_at: row.published_at,
                engines: row
                    .engine
                    .or_else(|| engine.map(str::to_string))
                    .into_iter()
                    .collect(),
                quality: None,
                file_provenance: provenance,
            });
        }
        Ok(items)
    }

    fn page(
        &self,
        shape: InputShape,
        at: &str,
        value: Value,
        envelope: &ProvenanceClaim,
    ) -> Result<InputItem, MergeError> {
        let page: PageView = self.parse(shape, at, value)?;
        let provenance = page
            .provenance
            .unwrap_or_default()
            .or(&page.flat_provenance)
            .or(envelope);
        let final_url = page
            .final_url
            .filter(|f| !f.trim().is_empty() && *f != page.url);
        Ok(InputItem {
            kind: ItemKind::Body,
            rank_in_source: 0,
            url: page.url,
            final_url,
            title: page.title.unwrap_or_default(),
            text: page.content.or(page.text).unwrap_or_default(),
            published_at: page.published_at,
            engines: Vec::new(),
            quality: page.quality,
            file_provenance: provenance,
        })
    }

    fn browser_search(&self, value: Value) -> Result<Parsed, MergeError> {
        let shape = InputShape::BrowserSearch;
        let env: EnvelopeView = self.parse(shape, "the envelope", value)?;
        let items = self.rows(
            shape,
            env.results,
            env.engine.as_deref(),
            &env.provenance,
            "results",
        )?;
        Ok((env.query, env.engine, items))
    }

    /// A one-page envelope (`ferret browser fetch`, `ferret fetch`).
    fn one_page(&self, shape: InputShape, value: Value) -> Result<Parsed, MergeError> {
        let item = self.page(shape, "the envelope", value, &ProvenanceClaim::default())?;
        Ok((None, None, vec![item]))
    }

    fn browser_act(&self, value: Value) -> Result<Parsed, MergeError> {
        let shape = InputShape::BrowserAct;
        let env: EnvelopeView = self.parse(shape, "the envelope", value)?;
        let mut items = self.rows(
            shape,
            env.results,
            env.engine.as_deref(),
            &env.provenance,
            "results",
        )?;
        for (i, detail) in env.details.into_iter().enumerate() {
            items.push(self.page(shape, &format!("details[{i}]"), detail, &env.provenance)?);
        }
        Ok((env.query, env.engine, items))
    }

    fn array(&self, value: Value) -> Result<Parsed, MergeError> {
        let Value::Array(rows) = value else {
            return Err(MergeError::UnknownShape {
                input: self.label.to_string(),
                found: json_kind(&value).to_string(),
            });
        };
        let items = self.rows(
            InputShape::Array,
            rows,
            None,
            &ProvenanceClaim::default(),
            "",
        )?;
        Ok((None, None, items))
    }
}

// ---- the report ----

/// One item of the merged report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedItem {
    /// Which input it came from: `public` or `login` (the argument it was
    /// passed as).
    pub side: Partition,
    /// `serp` or `body`.
    pub kind: ItemKind,
    /// 1-based position among its input's items of the same kind.
    pub rank_in_source: usize,
    /// The URL as the input gave it.
    pub url: String,
    /// The match key ([`canonical_url`]); `None` when the URL has no
    /// canonical form (the item is then matched with nothing).
    pub canonical_url: Option<String>,
    /// Where a fetched page ended up, when different from `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// The title.
    pub title: String,
    /// The snippet (`serp`, at most [`SERP_SNIPPET_CHARS`] characters) or
    /// the start of the page text (`body`, at most [`BODY_SNIPPET_CHARS`]).
    pub snippet: String,
    /// The snippet was cut.
    pub snippet_truncated: bool,
    /// Publication date, when the input gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// Engines that returned it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<String>,
    /// A fetched page's quality block, as the input had it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<Value>,
    /// The same canonical URL is also on the other side.
    pub dual_sourced: bool,
    /// Where it came from and what may be done with it (login items are
    /// never cache eligible).
    pub provenance: Provenance,
}

/// Differing titles for one URL found on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitleConflict {
    /// The canonical URL.
    pub url: String,
    /// The kind of the two items compared.
    pub kind: ItemKind,
    /// The public item's title.
    pub public_title: String,
    /// The login item's title.
    pub login_title: String,
    /// The public item's URL as given.
    pub public_url: String,
    /// The login item's URL as given.
    pub login_url: String,
}

/// Counts over the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MergeCounts {
    /// Items from the public input.
    pub public: usize,
    /// Items from the login input.
    pub login: usize,
    /// All items (`public + login`: nothing is folded).
    pub items: usize,
    /// Canonical URLs present on both sides.
    pub dual_sourced: usize,
    /// Items flagged `dual_sourced`.
    pub dual_sourced_items: usize,
    /// Entries in `conflicts`.
    pub conflicts: usize,
    /// Items whose URL has no canonical form (matched with nothing).
    pub unmatched: usize,
}

/// What may be cached (the report's `isolation` block).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Isolation {
    /// Every public-side item is cache eligible (`true` unless the public
    /// input carried login data).
    pub public_cache_eligible: bool,
    /// Always `false`: login items are never cache eligible.
    pub login_cache_eligible: bool,
    /// Always `false`: the report holds login data, so it is for analysis
    /// only and never goes into a shared cache.
    pub report_cache_eligible: bool,
    /// The rule in words.
    pub note: String,
}

/// One input as the report describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSummary {
    /// How it was named (`login input /tmp/l.json`).
    pub label: String,
    /// The schema it had (`ferret.search.v1`, … or `array`).
    pub schema: String,
    /// Its query, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Its engine, if it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Items read from it.
    pub items: usize,
}

/// Both inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeInputs {
    /// The public input.
    pub public: InputSummary,
    /// The login input.
    pub login: InputSummary,
}

/// The `ferret.merge.v1` report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergeReport {
    /// Always [`MERGE_SCHEMA`].
    pub schema: String,
    /// The public input's query, else the login input's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Every item of both inputs, in the module's documented order.
    pub items: Vec<MergedItem>,
    /// Differing titles for URLs on both sides.
    pub conflicts: Vec<TitleConflict>,
    /// Counts.
    pub counts: MergeCounts,
    /// What may be cached.
    pub isolation: Isolation,
    /// The two inputs.
    pub inputs: MergeInputs,
    /// Things the reader should know (provenance that disagreed with the
    /// side, URLs without a canonical form, different queries).
    pub warnings: Vec<String>,
}

const ISOLATION_NOTE: &str = "login items are never written to a shared cache; \
this report holds login data and is for analysis only";

/// Merge the `public` and `login` inputs. The arguments' positions decide
/// the sides (see the module docs for provenance, matching and order).
pub fn merge(public: &MergeInput, login: &MergeInput) -> MergeReport {
    let mut warnings = side_mismatch_warnings(public, login);
    let mut items: Vec<MergedItem> = Vec::with_capacity(public.items.len() + login.items.len());
    for (input, side) in [(public, Partition::Public), (login, Partition::Login)] {
        read_side(input, side, &mut items, &mut warnings);
    }
    if let (Some(p), Some(l)) = (&public.query, &login.query)
        && p.trim() != l.trim()
    {
        warnings.push(format!(
            "the inputs answer different queries: public {p:?}, login {l:?}"
        ));
    }

    let (items, conflicts, dual_urls) = order_and_flag(items);
    let counts = MergeCounts {
        public: public.items.len(),
        login: login.items.len(),
        items: items.len(),
        dual_sourced: dual_urls,
        dual_sourced_items: items.iter().filter(|i| i.dual_sourced).count(),
        conflicts: conflicts.len(),
        unmatched: items.iter().filter(|i| i.canonical_url.is_none()).count(),
    };
    let public_cache_eligible = items
        .iter()
        .filter(|i| i.side == Partition::Public)
        .all(|i| i.provenance.cache_eligible);
    MergeReport {
        schema: MERGE_SCHEMA.to_string(),
        query: public.query.clone().or_else(|| login.query.clone()),
        items,
        conflicts,
        counts,
        isolation: Isolation {
            public_cache_eligible,
            login_cache_eligible: false,
            report_cache_eligible: false,
            note: ISOLATION_NOTE.to_string(),
        },
        inputs: MergeInputs {
            public: summary(public),
            login: summary(login),
        },
        warnings,
    }
}

/// A warning for each input read as one side but passed as the other (the
/// position wins).
fn side_mismatch_warnings(public: &MergeInput, login: &MergeInput) -> Vec<String> {
    let mut warnings = Vec::new();
    for (input, side) in [(public, Partition::Public), (login, Partition::Login)] {
        if input.side != side {
            warnings.push(format!(
                "the {} was read as the {} side but passed as the {} input; it is treated as {}",
                input.label,
                side_name(input.side),
                side_name(side),
                side_name(side),
            ));
        }
    }
    warnings
}

/// Append one input's items as `side`, with their provenance, canonical URL
/// and capped snippet; warn about provenance that disagreed with the side and
/// URLs without a canonical form.
fn read_side(
    input: &MergeInput,
    side: Partition,
    items: &mut Vec<MergedItem>,
    warnings: &mut Vec<String>,
) {
    let mut provenance_notes = ProvenanceNotes::default();
    let mut no_canonical: Vec<String> = Vec::new();
    for item in &input.items {
        let provenance = item_provenance(side, &item.file_provenance, &mut provenance_notes);
        let canonical = match canonical_url(&item.url, CanonicalOptions::default()) {
            Ok(c) => Some(c),
            Err(e) => {
                no_canonical.push(format!(
                    "{} #{} {:?} ({e})",
                    item.kind.as_str(),
                    item.rank_in_source,
                    item.url
                ));
                None
            }
        };
        items.push(merged_item(item, side, canonical, provenance));
    }
    provenance_notes.warn(&input.label, side, warnings);
    if !no_canonical.is_empty() {
        warnings.push(format!(
            "{} item(s) of the {} have no canonical URL and are kept unmatched: {}",
            no_canonical.len(),
            input.label,
            no_canonical.join("; ")
        ));
    }
}

fn merged_item(
    item: &InputItem,
    side: Partition,
    canonical_url: Option<String>,
    provenance: Provenance,
) -> MergedItem {
    let snippet = cut(&item.text, item.kind.snippet_cap());
    MergedItem {
        side,
        kind: item.kind,
        rank_in_source: item.rank_in_source,
        url: item.url.clone(),
        canonical_url,
        final_url: item.final_url.clone(),
        title: item.title.clone(),
        snippet_truncated: snippet.len() < item.text.len(),
        snippet,
        published_at: item.published_at.clone(),
        engines: item.engines.clone(),
        quality: item.quality.clone(),
        dual_sourced: false,
        provenance,
    }
}

/// Put the items in group order (public before login within a group), flag
/// the groups on both sides as dual sourced and collect their title
/// conflicts. Returns the items, the conflicts and the dual-sourced URL count.
fn order_and_flag(mut items: Vec<MergedItem>) -> (Vec<MergedItem>, Vec<TitleConflict>, usize) {
    let groups = group(&items);
    let mut conflicts = Vec::new();
    let mut order = Vec::with_capacity(items.len());
    let mut dual_urls = 0;
    for g in &groups {
        let dual = !g.public.is_empty() && !g.login.is_empty();
        if dual {
            dual_urls += 1;
            for &i in g.public.iter().chain(&g.login) {
                items[i].dual_sourced = true;
            }
            conflicts.extend(title_conflicts(&items, g));
        }
        order.extend(g.public.iter().chain(&g.login).copied());
    }
    let mut slots: Vec<Option<MergedItem>> = items.into_iter().map(Some).collect();
    let items = order.into_iter().filter_map(|i| slots[i].take()).collect();
    (items, conflicts, dual_urls)
}

/// Read both files and merge them: the whole `ferret merge --public F
/// --login F` in one call.
pub fn merge_files(public: &Path, login: &Path) -> Result<MergeReport, MergeError> {
    let public = MergeInput::from_path(public, Partition::Public)?;
    let login = MergeInput::from_path(login, Partition::Login)?;
    Ok(merge(&public, &login))
}

fn summary(input: &MergeInput) -> InputSummary {
    InputSummary {
        label: input.label.clone(),
        schema: input.shape.as_str().to_string(),
        query: input.query.clone(),
        engine: input.engine.clone(),
        items: input.items.len(),
    }
}

/// How many items' file provenance disagreed with their side.
#[derive(Default)]
struct ProvenanceNotes {
    /// Login-side items whose file said public.
    login_said_public: usize,
    /// Login-side items without any provenance.
    login_missing: usize,
    /// Login-side items whose file said `merge_with_public_ok: false`.
    login_no_merge: usize,
    /// Public-side items whose file said login.
    public_said_login: usize,
}

impl ProvenanceNotes {
    fn warn(&self, label: &str, side: Partition, warnings: &mut Vec<String>) {
        match side {
            Partition::Login => {
                if self.login_said_public > 0 {
                    warnings.push(format!(
                        "{} item(s) of the {label} carry provenance that does not mark login data \
                         (e.g. auth_partition=public); they are treated as login data (never cache eligible) because they were passed as the login \
                         input — check that the files were not swapped",
                        self.login_said_public
                    ));
                }
                if self.login_missing > 0 {
                    warnings.push(format!(
                        "{} item(s) of the {label} carry no provenance; they are treated as login \
                         data because they were passed as the login input",
                        self.login_missing
                    ));
                }
                if self.login_no_merge > 0 {
                    warnings.push(format!(
                        "{} item(s) of the {label} say merge_with_public_ok=false; they are in \
                         the report because the file was passed explicitly",
                        self.login_no_merge
                    ));
                }
            }
            Partition::Public => {
                if self.public_said_login > 0 {
                    warnings.push(format!(
                        "{} item(s) of the {label} carry login provenance; they keep it (never \
                         cache eligible) although they were passed as the public input — check \
                         that the files were not swapped",
                        self.public_said_login
                    ));
                }
            }
        }
    }
}

fn item_provenance(
    side: Partition,
    file: &ProvenanceClaim,
    notes: &mut ProvenanceNotes,
) -> Provenance {
    let runtime = file
        .runtime
        .as_deref()
        .and_then(Runtime::parse)
        .unwrap_or(Runtime::Unknown);
    let says_login = file.says_login();
    if side == Partition::Public && !says_login {
        return Provenance::public(runtime);
    }
    match side {
        Partition::Public => notes.public_said_login += 1,
        Partition::Login if file.is_empty() => notes.login_missing += 1,
        Partition::Login if !says_login => notes.login_said_public += 1,
        Partition::Login => {}
    }
    let mut p = Provenance::login(runtime);
    if let Some(label) = file
        .auth_partition
        .as_deref()
        .filter(|a| a.starts_with("login"))
    {
        p.auth_partition = label.to_string().into();
    }
    if file.merge_with_public_ok == Some(false) {
        p.merge_with_public_ok = false;
        if side == Partition::Login {
            notes.login_no_merge += 1;
        }
    }
    p
}

/// Items sharing a canonical URL (or one item without one), by index.
struct Group {
    public: Vec<usize>,
    login: Vec<usize>,
}

/// Group items by canonical URL, groups in order of first appearance.
fn group(items: &[MergedItem]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut by_url: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let at = match item.canonical_url.as_deref() {
            Some(key) => *by_url.entry(key).or_insert_with(|| {
                groups.push(Group {
                    public: Vec::new(),
                    login: Vec::new(),
                });
                groups.len() - 1
            }),
            None => {
                groups.push(Group {
                    public: Vec::new(),
                    login: Vec::new(),
                });
                groups.len() - 1
            }
        };
        match item.side {
            Partition::Public => groups[at].public.push(i),
            Partition::Login => groups[at].login.push(i),
        }
    }
    groups
}

/// A title compared for conflicts: whitespace collapsed, lowercased.
fn normalized_title(title: &str) -> String {
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// For each kind on both sides of a dual-sourced group: the first public
/// and first login item with a title, if their titles differ.
fn title_conflicts(items: &[MergedItem], g: &Group) -> Vec<TitleConflict> {
    let first = |members: &[usize], kind: ItemKind| {
        members
            .iter()
            .map(|&i| &items[i])
            .find(|it| it.kind == kind && !it.title.trim().is_empty())
    };
    [ItemKind::Serp, ItemKind::Body]
        .into_iter()
        .filter_map(|kind| {
            let p = first(&g.public, kind)?;
            let l = first(&g.login, kind)?;
            (normalized_title(&p.title) != normalized_title(&l.title)).then(|| TitleConflict {
                url: p.canonical_url.clone().unwrap_or_default(),
                kind,
                public_title: p.title.clone(),
                login_title: l.title.clone(),
                public_url: p.url.clone(),
                login_url: l.url.clone(),
            })
        })
        .collect()
}

impl MergeReport {
    /// The items of one side, in report order.
    pub fn side(&self, side: Partition) -> impl Iterator<Item = &MergedItem> {
        self.items.iter().filter(move |i| i.side == side)
    }

    /// The report for a person: a summary line, the items (side, kind,
    /// rank, dual-sourced mark, title, URL), the conflicts, the isolation
    /// rule and the warnings. Ends with a newline.
    pub fn to_human(&self) -> String {
        let mut out = String::new();
        let c = &self.counts;
        let _ = writeln!(
            out,
            "merge{}: {} public + {} login items, {} URL(s) on both sides, {} title conflict(s)",
            self.query
                .as_deref()
                .map(|q| format!(" for {q:?}"))
                .unwrap_or_default(),
            c.public,
            c.login,
            c.dual_sourced,
            c.conflicts
        );
        for (n, item) in self.items.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>3}. [{} {} #{}]{} {}\n     {}",
                n + 1,
                side_name(item.side),
                item.kind.as_str(),
                item.rank_in_source,
                if item.dual_sourced { " [both]" } else { "" },
                if item.title.trim().is_empty() {
                    "(no title)"
                } else {
                    item.title.trim()
                },
                item.url
            );
        }
        if !self.conflicts.is_empty() {
            let _ = writeln!(out, "title conflicts:");
            for conflict in &self.conflicts {
                let _ = writeln!(
                    out,
                    "  {} ({})\n    public: {}\n    login:  {}",
                    conflict.url,
                    conflict.kind.as_str(),
                    conflict.public_title,
                    conflict.login_title
                );
            }
        }
        let _ = writeln!(
            out,
            "isolation: public items {}cache eligible; login items never; {}",
            if self.isolation.public_cache_eligible {
                ""
            } else {
                "NOT all "
            },
            self.isolation.note
        );
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        out
    }
}
