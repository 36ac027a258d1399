//! The tool table: each tool's name, title, description for a model (what
//! it is for, what it returns, what it costs) and the JSON Schema of its
//! input, generated from the input type.

use serde::Serialize;
use serde_json::Value;

use super::inputs::{ExtractInput, FetchInput, PlanInput, ResearchInput, SearchInput, VerifyInput};

/// One tool as an agent framework or an MCP client registers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDef {
    /// The tool's name.
    pub name: &'static str,
    /// A short human title.
    pub title: &'static str,
    /// What it is for, what it returns and what it costs.
    pub description: String,
    /// The JSON Schema of its input (an object).
    pub input_schema: Value,
    /// Whether it only reads (never changes anything outside Ferret).
    pub read_only: bool,
}

/// A core tool: name, title, description and its schema's generator.
type CoreTool = (&'static str, &'static str, &'static str, fn() -> Value);

/// The core tools (search, fetch, verify, extract, research, plan).
const CORE: &[CoreTool] = &[
    (
        "search",
        "Web search",
        "Search many engines at once (and the local index), fuse and deduplicate the results. \
         Returns ranked results with title, URL, snippet and why each ranks where it does; \
         engines that failed are named, never fatal. Use it to find candidate pages; use \
         `research` when the answer must be proven. Cost: one round of engine calls, about \
         0.5–3 s; the compact answer fits max_tokens (default 2000).",
        schema::<SearchInput>,
    ),
    (
        "fetch",
        "Fetch a page",
        "Fetch one http(s) page (plain HTTP first, a headless browser only when the page needs \
         JavaScript) and extract its main text. Give `query` to get the most relevant passages \
         first. Returns the verdict (ok, weak_ok, blocked, …), title, highlights and the main \
         text cut at max_tokens. Private and local addresses are refused. Cost: one page, \
         about 0.2–2 s, up to ~10 s with the browser.",
        schema::<FetchInput>,
    ),
    (
        "verify",
        "Is this page usable evidence?",
        "Fetch one page and judge whether it is usable evidence: a verdict (ok, weak_ok, \
         blocked, captcha, paywall, …), a score and the reason. Returns no page text; use \
         `fetch` for that. Cost: one page fetch.",
        schema::<VerifyInput>,
    ),
    (
        "extract",
        "Extract structured data",
        "Fetch one page and extract data matching a JSON Schema from its JSON-LD and tables, \
         without a language model. Fails closed: data is returned only when every required \
         property is found and the result validates. Cost: one page fetch.",
        schema::<ExtractInput>,
    ),
    (
        "research",
        "Research a question",
        "Answer a question with proof: plan its constraints, search (or judge the `results` \
         you give), fetch the top pages, and check each constraint against what the pages \
         actually say. Returns the decision (sufficient or not), each constraint with its \
         verbatim quote and URL, what is still missing and the next action. Cost: several \
         searches and up to max_results page fetches; 5–60 s (deadline_seconds bounds it). \
         Sends progress notifications.",
        schema::<ResearchInput>,
    ),
    (
        "plan",
        "Plan a query",
        "Classify a query's intent and plan its focused sub-queries and the constraints an \
         answer must meet, without searching. Cost: local, under 1 ms.",
        schema::<PlanInput>,
    ),
];

/// The JSON Schema of `T` as a plain object.
/// Sub-schemas are inlined (no `$defs`): every client reads them.
pub fn schema<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut value =
        serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap_or(Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.remove("$schema");
    }
    value
}

/// Every tool: the core ones, then the site-skill tools (feature
/// `browser`). The table (schemas included) is built once per process.
pub fn definitions() -> &'static [ToolDef] {
    static TABLE: std::sync::OnceLock<Vec<ToolDef>> = std::sync::OnceLock::new();
    TABLE.get_or_init(build_table)
}

fn build_table() -> Vec<ToolDef> {
    let mut out: Vec<ToolDef> = CORE
        .iter()
        .map(|(name, title, description, schema)| ToolDef {
            name,
            title,
            description: description.to_string(),
            input_schema: schema(),
            read_only: true,
        })
        .collect();
    out.extend(site_definitions());
    out
}

/// The site-skill tools: navigate a covered site, read its skills, run one
/// of its declared page tools in the browser.
#[cfg(feature = "browser")]
fn site_definitions() -> Vec<ToolDef> {
    use ferret_site_skills::agent::{NAVIGATE_SITE, READ_SITE_SKILLS, RUN_SITE_BROWSER_TOOL};
    ferret_site_skills::agent::tool_definitions()
        .into_iter()
        .filter_map(|d| {
            let (name, title, read_only) = match d.name.as_str() {
                NAVIGATE_SITE => (NAVIGATE_SITE, "Open a covered site", true),
                READ_SITE_SKILLS => (READ_SITE_SKILLS, "Read the site's skills", true),
                RUN_SITE_BROWSER_TOOL => (RUN_SITE_BROWSER_TOOL, "Run a site tool", false),
                _ => return None,
            };
            Some(ToolDef {
                name,
                title,
                description: d.description,
                input_schema: d.parameters,
                read_only,
            })
        })
        .collect()
}

#[cfg(not(feature = "browser"))]
fn site_definitions() -> Vec<ToolDef> {
    Vec::new()
}

/// The definition of the tool called `name`.
pub fn definition(name: &str) -> Option<&'static ToolDef> {
    definitions().iter().find(|d| d.name == name)
}
