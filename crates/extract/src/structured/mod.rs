//! Structured extraction to the caller's JSON Schema, fail-closed and
//! without a language model (the CLI's `extract --schema`).
//!
//! [`extract_structured`] (or a reusable [`StructuredExtractor`]) looks at
//! the page's structures in order — JSON-LD first (every block, `@graph`
//! flattened, nested typed nodes too, `@id` references resolved), then HTML
//! tables (header-row records, key-column records, caption or nearest
//! heading as context) — and maps each candidate onto the schema:
//!
//! - property names match case- and format-insensitively (`priceCurrency` ~
//!   `price_currency` ~ "Price currency"), with a few schema.org aliases
//!   (`title` ~ `headline`, `ingredients` ~ `recipeIngredient`); a property
//!   missing on a JSON-LD node is looked for in its nested objects
//!   (`price` in `offers.price`, `author_name` as `author.name`);
//! - values are coerced only where it is safe: `"$1,299.00"` → 1299 for a
//!   number, `"Yes"`/`"No"`/`✓` → a boolean, a `Person` → its `name` for a
//!   string, a single value → a one-item array; dates stay strings;
//! - the candidate that fills the most properties wins (JSON-LD before
//!   tables on a tie), and only if every required property is satisfied and
//!   the result validates against the full schema with the `jsonschema`
//!   crate. Otherwise the verdict is `no_mappable_structure` and nothing is
//!   returned as data.
//!
//! Supported schema subset: `type` (object, array, string, number, integer,
//! boolean, null, or a list of them), `properties`, `required`, `items`,
//! `minItems`, `maxItems`, `enum`, `additionalProperties` as a boolean, and
//! annotations (`title`, `description`, `$schema`, …). Anything else
//! (`pattern`, `$ref`, `oneOf`, `format`, …) is listed in
//! [`StructuredOutcome::unsupported_keywords`] with its JSON pointer: it is
//! not used for mapping, but the final validation still enforces it where
//! `jsonschema` can, so a result never violates the schema. A schema whose root is not an object
//! or array, or that is malformed, gives `input_unreadable` with the reason.
//!
//! The fetch verdicts (`fetch_blocked`, `fetch_failed`) are set by the
//! caller from its fetch: see [`StructuredOutcome::fetch_blocked`] and
//! friends. Envelope: `ferret.extract.v1`.

mod coerce;
mod json_ld;
mod map;
mod names;
mod schema;
mod tables;

use scraper::Html;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use url::Url;

use crate::nesting::{Bounded, bound_markup};
use crate::{ExtractOptions, extract_bounded};
use map::Mapper;
use schema::{Kind, Shape};

/// Schema.org types that describe the site or the page's furniture rather
/// than its subject; on a tie they rank after the page's main entity.
pub const SITE_TYPES: &[&str] = &[
    "WebSite",
    "WebPage",
    "Organization",
    "Corporation",
    "NewsMediaOrganization",
    "BreadcrumbList",
    "ListItem",
    "SearchAction",
    "EntryPoint",
    "ImageObject",
    "SiteNavigationElement",
    "WPHeader",
    "WPFooter",
    "WPSideBar",
    "ContactPoint",
    "ReadAction",
    "InteractionCounter",
];

/// The envelope's `schema` value.
pub const EXTRACT_SCHEMA: &str = "ferret.extract.v1";

/// At most this many candidates are mapped per page.
pub const MAX_CANDIDATES: usize = 400;
/// At most this many candidate reports are kept in the outcome.
pub const MAX_CANDIDATE_REPORTS: usize = 20;

/// The outcome of an extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractVerdict {
    /// A candidate satisfied every required property and the result
    /// validates against the schema.
    Extracted,
    /// No candidate could be mapped onto the schema.
    NoMappableStructure,
    /// The fetch was refused (challenge, login wall, 403/429…); set by the
    /// caller.
    FetchBlocked,
    /// The fetch failed (network, timeout, 5xx…); set by the caller.
    FetchFailed,
    /// The schema (or the input file) could not be read.
    InputUnreadable,
}

/// Where the data came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructureSource {
    /// A JSON-LD block.
    JsonLd,
    /// An HTML table.
    Table,
}

/// A schema keyword outside the supported subset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsupportedKeyword {
    /// JSON pointer of the keyword in the schema (`/properties/sku/pattern`).
    pub pointer: String,
    /// The keyword (`pattern`).
    pub keyword: String,
    /// What happens with it.
    pub note: String,
}

impl UnsupportedKeyword {
    pub(crate) fn new(pointer: &str, keyword: &str, note: &str) -> Self {
        UnsupportedKeyword {
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
            note: note.to_owned(),
        }
    }
}

/// How one candidate fared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CandidateReport {
    /// JSON-LD or table.
    pub source: StructureSource,
    /// Which node or table (`JSON-LD Product`, `table 2 rows ("Pricing")`).
    pub label: String,
    /// It satisfied the schema.
    pub accepted: bool,
    /// Scalar values it filled.
    pub filled: usize,
    /// Required properties it lacks (JSON pointers into the data).
    pub missing: Vec<String>,
    /// Values it had that could not be used, and validation errors.
    pub errors: Vec<String>,
}

/// The `ferret.extract.v1` envelope.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StructuredOutcome {
    /// Always [`EXTRACT_SCHEMA`].
    pub schema: String,
    /// What happened.
    pub verdict: ExtractVerdict,
    /// The page's address, when known.
    pub url: Option<String>,
    /// The extracted data; `null` unless the verdict is `extracted`.
    pub data: Value,
    /// Where the data came from (set when extracted).
    pub source: Option<StructureSource>,
    /// How many candidates were mapped.
    pub candidates_considered: usize,
    /// Required properties the closest candidate lacked (JSON pointers into
    /// the data, `/*` for array items). Empty when extracted.
    pub missing: Vec<String>,
    /// Schema keywords outside the supported subset.
    pub unsupported_keywords: Vec<UnsupportedKeyword>,
    /// Things the caller should know (values joined or truncated, optional
    /// properties left out, unparseable JSON-LD blocks…).
    pub warnings: Vec<String>,
    /// Why the verdict is not `extracted`.
    pub reason: Option<String>,
    /// The best candidates and how they fared (at most
    /// [`MAX_CANDIDATE_REPORTS`]).
    pub candidates: Vec<CandidateReport>,
}

impl StructuredOutcome {
    fn empty(verdict: ExtractVerdict, url: Option<&str>, reason: Option<String>) -> Self {
        StructuredOutcome {
            schema: EXTRACT_SCHEMA.to_owned(),
            verdict,
            url: url.map(str::to_owned),
            data: Value::Null,
            source: None,
            candidates_considered: 0,
            missing: Vec::new(),
            unsupported_keywords: Vec::new(),
            warnings: Vec::new(),
            reason,
            candidates: Vec::new(),
        }
    }

    /// The fetch was refused (challenge, login wall, 403/429…).
    pub fn fetch_blocked(url: Option<&str>, reason: impl Into<String>) -> Self {
        Self::empty(ExtractVerdict::FetchBlocked, url, Some(reason.into()))
    }

    /// The fetch failed (network error, timeout, 5xx…).
    pub fn fetch_failed(url: Option<&str>, reason: impl Into<String>) -> Self {
        Self::empty(ExtractVerdict::FetchFailed, url, Some(reason.into()))
    }

    /// The schema or the input could not be read.
    pub fn input_unreadable(url: Option<&str>, reason: impl Into<String>) -> Self {
        Self::empty(ExtractVerdict::InputUnreadable, url, Some(reason.into()))
    }

    /// True when the verdict is `extracted`.
    pub fn is_extracted(&self) -> bool {
        self.verdict == ExtractVerdict::Extracted
    }
}

/// The schema could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// Not a usable schema for extraction (wrong root, malformed keyword).
    #[error("unusable extraction schema: {0}")]
    Malformed(String),
    /// The `jsonschema` crate could not compile it.
    #[error("the schema is not valid JSON Schema ({0}); fix or remove that keyword")]
    Invalid(String),
}

/// A schema read once and used for many pages.
pub struct StructuredExtractor {
    shape: Shape,
    unsupported: Vec<UnsupportedKeyword>,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for StructuredExtractor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StructuredExtractor")
            .field("unsupported", &self.unsupported)
            .finish_non_exhaustive()
    }
}

struct Candidate {
    source: StructureSource,
    label: String,
    value: Value,
    fuzzy_keys: bool,
    /// The schema's title/description names the node's type or the table's
    /// context.
    hinted: bool,
    /// A JSON-LD node of a [`SITE_TYPES`] type.
    site_furniture: bool,
}

struct Evaluated {
    report: CandidateReport,
    data: Option<Value>,
    warnings: Vec<String>,
    hinted: bool,
    site_furniture: bool,
    order: usize,
}

impl StructuredExtractor {
    /// Reads and compiles `schema`.
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        let read = schema::read(schema).map_err(SchemaError::Malformed)?;
        let validator =
            jsonschema::validator_for(schema).map_err(|e| SchemaError::Invalid(e.to_string()))?;
        Ok(StructuredExtractor {
            shape: read.shape,
            unsupported: read.unsupported,
            validator,
        })
    }

    /// Keywords of the schema outside the supported subset.
    pub fn unsupported_keywords(&self) -> &[UnsupportedKeyword] {
        &self.unsupported
    }

    /// Extracts from a page's HTML (JSON-LD is read with
    /// [`crate::extract`]).
    pub fn extract(&self, html: &str, url: Option<&Url>) -> StructuredOutcome {
        let options = ExtractOptions {
            markdown: false,
            links: false,
            max_text_chars: Some(1),
        };
        let bounded = bound_markup(html, &Default::default());
        let page = extract_bounded(&bounded.html, url, &options);
        let warnings: Vec<String> = page
            .json_ld_errors
            .iter()
            .map(|e| {
                format!(
                    "JSON-LD block {} could not be parsed and was skipped: {}",
                    e.index, e.message
                )
            })
            .collect();
        self.run(&bounded, url, &page.json_ld, warnings)
    }

    /// Extracts when the caller already has the page's JSON-LD blocks (from
    /// [`crate::Extracted::json_ld`]); `html` is read for tables.
    pub fn extract_with_json_ld(
        &self,
        html: &str,
        url: Option<&Url>,
        json_ld: &[Value],
    ) -> StructuredOutcome {
        self.run(
            &bound_markup(html, &Default::default()),
            url,
            json_ld,
            Vec::new(),
        )
    }

    /// Extracts from `bounded`, the page's markup held to the parser's
    /// bounds once for both its JSON-LD and its tables.
    fn run(
        &self,
        bounded: &Bounded<'_>,
        url: Option<&Url>,
        json_ld: &[Value],
        mut warnings: Vec<String>,
    ) -> StructuredOutcome {
        let candidates = self.capped_candidates(bounded, json_ld, &mut warnings);
        let mut evaluated: Vec<Evaluated> = candidates
            .into_iter()
            .enumerate()
            .map(|(order, c)| self.evaluate(c, order))
            .collect();
        let considered = evaluated.len();
        evaluated.sort_by(best_first);
        let reports: Vec<CandidateReport> = evaluated
            .iter()
            .take(MAX_CANDIDATE_REPORTS)
            .map(|e| e.report.clone())
            .collect();

        let mut out = StructuredOutcome::empty(
            ExtractVerdict::NoMappableStructure,
            url.map(Url::as_str),
            None,
        );
        out.unsupported_keywords = self.unsupported.clone();
        out.candidates_considered = considered;
        out.candidates = reports;
        match evaluated.into_iter().next() {
            Some(best) if best.data.is_some() => {
                out.verdict = ExtractVerdict::Extracted;
                out.source = Some(best.report.source);
                out.data = best.data.unwrap_or(Value::Null);
                warnings.extend(best.warnings);
            }
            Some(best) => {
                out.missing = best.report.missing.clone();
                out.reason = Some(closest_reason(&best.report));
            }
            None => {
                out.missing = self.root_required();
                out.reason = Some(if bounded.html.trim().is_empty() {
                    "the page is empty".to_owned()
                } else {
                    "the page has no JSON-LD node or table that could hold the schema's data"
                        .to_owned()
                });
            }
        }
        out.warnings = warnings;
        out
    }

    /// The page's candidates, at most [`MAX_CANDIDATES`]; warns when the
    /// page was cut (too deep, too many structures).
    fn capped_candidates(
        &self,
        bounded: &Bounded<'_>,
        json_ld: &[Value],
        warnings: &mut Vec<String>,
    ) -> Vec<Candidate> {
        warnings.extend(bounded.warnings());
        let mut candidates = self.candidates(&bounded.html, json_ld);
        if candidates.len() > MAX_CANDIDATES {
            warnings.push(format!(
                "the page has {} candidate structures; only the first {MAX_CANDIDATES} were considered",
                candidates.len()
            ));
            candidates.truncate(MAX_CANDIDATES);
        }
        candidates
    }

    fn root_required(&self) -> Vec<String> {
        self.shape
            .record_shape()
            .map(|s| {
                let prefix = if std::ptr::eq(s, &self.shape) {
                    ""
                } else {
                    "/*"
                };
                s.required
                    .iter()
                    .map(|r| format!("{prefix}/{}", schema::escape_pointer(r)))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn evaluate(&self, c: Candidate, order: usize) -> Evaluated {
        let mut mapper = Mapper::new(c.fuzzy_keys);
        let result = mapper.map_root(&c.value, &self.shape);
        let mut report = CandidateReport {
            source: c.source,
            label: c.label,
            accepted: false,
            filled: mapper.filled,
            missing: Vec::new(),
            errors: Vec::new(),
        };
        let mut warnings = mapper.warnings;
        let data = match result {
            Ok(mut data) => {
                let mut failures = self.validate(&data);
                // An optional property that breaks a keyword the mapper does
                // not read (a `pattern`, a `format`…) is left out rather
                // than failing the whole candidate.
                if !failures.is_empty()
                    && let Some(dropped) = self.drop_optional(&mut data, &failures)
                {
                    failures = self.validate(&data);
                    if failures.is_empty() {
                        for d in dropped {
                            warnings.push(format!(
                                "{d}: optional property left out because it fails the schema"
                            ));
                        }
                    }
                }
                if failures.is_empty() {
                    report.accepted = true;
                    Some(data)
                } else {
                    report.errors = failures.into_iter().map(|(_, msg)| msg).collect();
                    None
                }
            }
            Err(f) => {
                report.missing = f.missing;
                report.errors = f.errors;
                None
            }
        };
        Evaluated {
            report,
            data,
            warnings,
            hinted: c.hinted,
            site_furniture: c.site_furniture,
            order,
        }
    }

    /// Validation errors as (instance path, message), at most 10.
    fn validate(&self, data: &Value) -> Vec<(String, String)> {
        self.validator
            .iter_errors(data)
            .take(10)
            .map(|e| {
                let at = e.instance_path().as_str().to_owned();
                let shown = if at.is_empty() {
                    "/".to_owned()
                } else {
                    at.clone()
                };
                (at, format!("{shown}: fails schema validation: {e}"))
            })
            .collect()
    }

    /// Removes the optional properties the failures point into; `None` when
    /// a failure is not inside an optional property of a record.
    fn drop_optional(
        &self,
        data: &mut Value,
        failures: &[(String, String)],
    ) -> Option<Vec<String>> {
        let record = self.shape.record_shape()?;
        let is_array = !std::ptr::eq(record, &self.shape);
        let mut targets: Vec<(Option<usize>, String)> = Vec::new();
        for (path, _) in failures {
            let mut segs = path
                .split('/')
                .skip(1)
                .map(|s| s.replace("~1", "/").replace("~0", "~"));
            let index = if is_array {
                Some(segs.next()?.parse::<usize>().ok()?)
            } else {
                None
            };
            let prop = segs.next()?;
            if record.required.contains(&prop) {
                return None;
            }
            if !targets.contains(&(index, prop.clone())) {
                targets.push((index, prop));
            }
        }
        let mut dropped = Vec::new();
        for (index, prop) in targets {
            let obj = match index {
                Some(i) => data.get_mut(i)?.as_object_mut()?,
                None => data.as_object_mut()?,
            };
            obj.remove(&prop)?;
            dropped.push(match index {
                Some(i) => format!("/{i}/{}", schema::escape_pointer(&prop)),
                None => format!("/{}", schema::escape_pointer(&prop)),
            });
        }
        Some(dropped)
    }

    /// Every structure of the page that could hold the schema's data, in
    /// page order within each kind: for an object schema the JSON-LD nodes,
    /// lists wrapped as a list property, and single table records; for an
    /// array schema the JSON-LD lists and whole tables. The markup is
    /// already within the parser's bounds ([`crate::nesting`]).
    fn candidates(&self, bounded_html: &str, json_ld: &[Value]) -> Vec<Candidate> {
        let nodes = json_ld::typed_nodes(json_ld);
        let doc = Html::parse_document(bounded_html);
        let tables = tables::read_tables(&doc);
        let hints = Hints::new(&self.shape.hint);
        let mut out = Vec::new();
        let kinds = self.shape.effective_kinds();
        let array_lists = json_ld::array_candidates(&nodes);
        if kinds.contains(&Kind::Object) {
            out.extend(node_candidates(&nodes, &hints));
            for (name, sub) in &self.shape.properties {
                if sub.allows(Kind::Array) {
                    out.extend(wrapped_candidates(name, &array_lists, &tables, &hints));
                }
            }
            out.extend(record_candidates(&tables, &hints));
        }
        if kinds.contains(&Kind::Array) {
            out.extend(list_candidates(&array_lists, &tables, &hints));
        }
        out
    }
}

/// What the schema's title and description say it is about, for marking
/// the candidates it names.
struct Hints {
    /// The words of the hint, lowercased.
    words: Vec<String>,
    /// The property names those words stand for.
    names: Vec<String>,
}

impl Hints {
    fn new(hint: &str) -> Self {
        let words = names::words(&hint.to_lowercase());
        let names = words.iter().flat_map(|w| names::wanted(w)).collect();
        Hints { words, names }
    }

    /// The hint names one of a node's types.
    fn names_type(&self, types: &[String]) -> bool {
        types
            .iter()
            .any(|t| self.words.iter().any(|w| *w == t.to_lowercase()))
    }

    /// The hint shares a word longer than three letters with a table's
    /// context.
    fn names_context(&self, ctx: &Option<String>) -> bool {
        ctx.as_deref().is_some_and(|c| {
            names::words(c)
                .iter()
                .any(|w| w.len() > 3 && self.words.contains(w))
        })
    }
}

/// A list is named by the schema when the schema's title or the wrapping
/// property names its key or its nodes' type (`ingredients` ~
/// `recipeIngredient`, `products` ~ `Product`).
fn names_list(wanted_names: &[String], list: &json_ld::ArrayCandidate) -> bool {
    wanted_names.contains(&names::normalize(&list.name))
}

/// `table 2 rows ("Pricing")`: the table's number, what of it, and its
/// context when it has one.
fn table_label(t: &tables::Table, what: &str) -> String {
    match &t.context {
        Some(c) => format!("table {} {what} (\"{}\")", t.number, short(c)),
        None => format!("table {} {what}", t.number),
    }
}

/// Each typed JSON-LD node as a record.
fn node_candidates(nodes: &[json_ld::Node], hints: &Hints) -> Vec<Candidate> {
    nodes
        .iter()
        .map(|n| Candidate {
            source: StructureSource::JsonLd,
            label: format!("JSON-LD {}", n.label),
            value: n.value.clone(),
            fuzzy_keys: false,
            hinted: hints.names_type(&n.types),
            site_furniture: n.types.iter().all(|t| SITE_TYPES.contains(&t.as_str())),
        })
        .collect()
}

/// Each JSON-LD list and each table's rows and columns wrapped as the list
/// property `name`: a wrapper object around a list, `{"plans": [...]}`.
fn wrapped_candidates(
    name: &str,
    array_lists: &[json_ld::ArrayCandidate],
    tables: &[tables::Table],
    hints: &Hints,
) -> Vec<Candidate> {
    let wanted = names::wanted(name);
    let mut out = Vec::new();
    for list in array_lists {
        out.push(Candidate {
            source: StructureSource::JsonLd,
            label: format!("JSON-LD {} as {name}", list.label),
            value: wrap(name, list.value.clone()),
            fuzzy_keys: false,
            hinted: names_list(&wanted, list) || names_list(&hints.names, list),
            site_furniture: false,
        });
    }
    for t in tables {
        for (what, list) in [("rows", &t.rows), ("columns", &t.columns)] {
            if let Some(list) = list {
                out.push(Candidate {
                    source: StructureSource::Table,
                    label: format!("{} as {name}", table_label(t, what)),
                    value: wrap(name, Value::Array(list.clone())),
                    fuzzy_keys: true,
                    hinted: hints.names_context(&t.context),
                    site_furniture: false,
                });
            }
        }
    }
    out
}

/// Each row record and each column record of every table.
fn record_candidates(tables: &[tables::Table], hints: &Hints) -> Vec<Candidate> {
    let mut out = Vec::new();
    for t in tables {
        for (what, list) in [("row", &t.rows), ("column", &t.columns)] {
            for (i, record) in list.iter().flatten().enumerate() {
                out.push(Candidate {
                    source: StructureSource::Table,
                    label: table_label(t, &format!("{what} {}", i + 1)),
                    value: record.clone(),
                    fuzzy_keys: true,
                    hinted: hints.names_context(&t.context),
                    site_furniture: false,
                });
            }
        }
    }
    out
}

/// Each JSON-LD list and each table's rows and columns as an array.
fn list_candidates(
    array_lists: &[json_ld::ArrayCandidate],
    tables: &[tables::Table],
    hints: &Hints,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for list in array_lists {
        out.push(Candidate {
            source: StructureSource::JsonLd,
            label: format!("JSON-LD {}", list.label),
            value: list.value.clone(),
            fuzzy_keys: false,
            hinted: names_list(&hints.names, list),
            site_furniture: false,
        });
    }
    for t in tables {
        for (what, list) in [("rows", &t.rows), ("columns", &t.columns)] {
            if let Some(list) = list {
                out.push(Candidate {
                    source: StructureSource::Table,
                    label: table_label(t, what),
                    value: Value::Array(list.clone()),
                    fuzzy_keys: true,
                    hinted: hints.names_context(&t.context),
                    site_furniture: false,
                });
            }
        }
    }
    out
}

fn wrap(name: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(name.to_owned(), v);
    Value::Object(m)
}

fn short(s: &str) -> String {
    let t: String = s.chars().take(60).collect();
    if t.len() < s.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// Best first: accepted, named by the schema, most filled, the page's
/// subject before site furniture, JSON-LD, fewest missing, page order.
fn best_first(a: &Evaluated, b: &Evaluated) -> std::cmp::Ordering {
    b.data
        .is_some()
        .cmp(&a.data.is_some())
        .then(b.hinted.cmp(&a.hinted))
        .then(b.report.filled.cmp(&a.report.filled))
        .then(a.site_furniture.cmp(&b.site_furniture))
        .then(source_rank(a.report.source).cmp(&source_rank(b.report.source)))
        .then(a.report.missing.len().cmp(&b.report.missing.len()))
        .then(a.order.cmp(&b.order))
}

/// Why nothing was extracted, told by the closest candidate: its label,
/// what it lacks and its first error.
fn closest_reason(report: &CandidateReport) -> String {
    let mut why = format!(
        "no candidate satisfied the schema; the closest was {}",
        report.label
    );
    if !report.missing.is_empty() {
        why.push_str(&format!(", missing {}", report.missing.join(", ")));
    }
    if let Some(e) = report.errors.first() {
        why.push_str(&format!("; {e}"));
    }
    why
}

fn source_rank(s: StructureSource) -> u8 {
    match s {
        StructureSource::JsonLd => 0,
        StructureSource::Table => 1,
    }
}

/// Extracts data matching `schema` from a page (see the module docs). A
/// schema that cannot be used gives `input_unreadable` with the reason.
pub fn extract_structured(html: &str, url: Option<&Url>, schema: &Value) -> StructuredOutcome {
    match StructuredExtractor::new(schema) {
        Ok(x) => x.extract(html, url),
        Err(e) => StructuredOutcome::input_unreadable(url.map(Url::as_str), e.to_string()),
    }
}
