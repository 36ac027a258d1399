//! `ferret research "<question>"`: the research loop — plan, search (or the
//! caller's rows with `--stdin-results`), fetch the top candidates, build
//! the constraint ledger, plan browser work, optionally escalate to a
//! language model (`--deep`), and decide whether the evidence is
//! sufficient (`ferret.research.v1`).
//!
//! The loop's steps are subcommands that read and write the same JSON,
//! so a host can run any step itself:
//!
//! ```text
//! ferret research plan "<question>"                          > plan.json     (ferret.plan.v1)
//! ferret research normalize-results --query Q < rows.json    > results.json  (ferret.results.v1)
//! ferret research enrich-fetch --plan plan.json --results results.json > enrichment.json
//! ferret research browse-plan --plan plan.json --enrichment enrichment.json (ferret.browse-plan.v1)
//! ```
//!
//! The question is positional; the four step words are subcommands (a
//! question that is exactly one of those words can be given after `--`).
//! The steps always print JSON. A file argument may be `-` for stdin (one
//! at most). Input that is not JSON, or a document of another schema, is a
//! one-line error naming the input; a report is printed with exit 0 even
//! when the decision is `insufficient` — the decision is in the report.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use ferret::core::Intent;
use ferret::core::fanout::{Progress, ProgressEvent};
use ferret::core::plan::{PLAN_SCHEMA, Plan, PlanOptions};
use ferret::core::response::SEARCH_SCHEMA;
use ferret::core::search::SearchOptions;
use ferret::engines::llm::{ChatClient, GrokEngine};
use ferret::evidence::fetch::BrowserMode;
use ferret::evidence::research::{
    self, BROWSE_PLAN_SCHEMA, BrowsePlanOptions, DeepEscalation, ENRICHMENT_SCHEMA, EnrichOptions,
    Enrichment, NormalizedResults, RESEARCH_SCHEMA, RESULTS_SCHEMA, Research, ResearchOptions,
    ResearchReport,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::output::ReportFormat;
use crate::output::{CliError, CmdResult, clip, comma_list, print_json};

/// The vendor `--deep` asks when `--vendor` is not given.
const DEFAULT_VENDOR: &str = "grok";

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    subcommand_value_name = "STEP",
    subcommand_help_heading = "Steps (each reads and writes the loop's JSON)"
)]
pub struct ResearchArgs {
    #[command(subcommand)]
    step: Option<Step>,
    #[command(flatten)]
    run: RunArgs,
}

/// The whole loop.
#[derive(Debug, Args)]
struct RunArgs {
    /// The question (a question that is exactly a step word goes after `--`).
    #[arg(required = true)]
    question: Option<String>,
    /// Read the candidates from stdin instead of searching: result rows
    /// (JSON), a `ferret.results.v1` envelope, or `ferret search --json`.
    #[arg(long)]
    stdin_results: bool,
    /// Candidates to fetch (1–50).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=50))]
    max_results: u16,
    /// auto (escalate to the browser when a page needs it), never, or required.
    #[arg(long, default_value = "auto")]
    browser: BrowserMode,
    /// When fetched pages leave mandatory constraints pending, ask a language
    /// model (OpenAI-compatible endpoint from <VENDOR>_API_URL, _API_KEY, _MODEL).
    #[arg(long)]
    deep: bool,
    /// The deep-escalation vendor label (grok, chatgpt, gemini …; default grok).
    #[arg(long, requires = "deep")]
    vendor: Option<String>,
    /// Only these engines (comma separated).
    #[arg(long, value_delimiter = ',', conflicts_with = "stdin_results")]
    engines: Vec<String>,
    /// The search's global deadline in seconds (default 20).
    #[arg(long)]
    timeout: Option<f64>,
    /// Rounds of search → fetch → judge while the evidence is not
    /// sufficient (1–10; 1 is a single pass).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=10))]
    rounds: u16,
    /// Start no new round after this many seconds.
    #[arg(long)]
    deadline: Option<f64>,
    /// Keep each readable page's full text in the report.
    #[arg(long)]
    text: bool,
    /// Print the `ferret.research.v1` report.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    output: crate::output::FormatArgs,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
    #[command(flatten)]
    cache: crate::setup::CacheChoice,
    #[command(flatten)]
    polite: crate::setup::PoliteArgs,
}

#[derive(Debug, Subcommand)]
enum Step {
    /// Plan a question: constraints, focused queries, anchor, rivals
    /// (`ferret.plan.v1`).
    Plan(PlanStepArgs),
    /// Turn result rows (JSON) into URL candidates (`ferret.results.v1`).
    NormalizeResults(NormalizeArgs),
    /// Fetch the top candidates and build the constraint ledger
    /// (`ferret.enrichment.v1`).
    EnrichFetch(EnrichArgs),
    /// Plan browser work for what fetching could not verify
    /// (`ferret.browse-plan.v1`).
    BrowsePlan(BrowsePlanArgs),
}

#[derive(Debug, Args)]
struct PlanStepArgs {
    /// The question.
    question: String,
    /// Use this intent instead of classifying.
    #[arg(long)]
    intent: Option<Intent>,
    /// Accepted for symmetry: the steps always print JSON.
    #[arg(long, hide = true)]
    json: bool,
}

#[derive(Debug, Args)]
struct NormalizeArgs {
    /// The rows: a JSON file, or `-` for stdin.
    #[arg(long, default_value = "-")]
    file: String,
    /// The question the rows answer.
    #[arg(long, default_value = "")]
    query: String,
    /// A provenance label for rows that name no engine (e.g. brave).
    #[arg(long)]
    backend: Option<String>,
    /// Accepted for symmetry: the steps always print JSON.
    #[arg(long, hide = true)]
    json: bool,
}

#[derive(Debug, Args)]
struct EnrichArgs {
    /// The plan (`ferret.plan.v1`, or a `ferret.research.v1` report); `-` for stdin.
    #[arg(long)]
    plan: String,
    /// The candidates (`ferret.results.v1`, `ferret.search.v1` or raw rows); `-` for stdin.
    #[arg(long)]
    results: String,
    /// never (the step's default), auto or required.
    #[arg(long, default_value = "never")]
    browser: BrowserMode,
    /// Candidates to fetch (1–50).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=50))]
    max_results: u16,
    /// Keep each readable page's full text.
    #[arg(long)]
    text: bool,
    /// Accepted for symmetry: the steps always print JSON.
    #[arg(long, hide = true)]
    json: bool,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
    #[command(flatten)]
    cache: crate::setup::CacheChoice,
    #[command(flatten)]
    polite: crate::setup::PoliteArgs,
}

#[derive(Debug, Args)]
struct BrowsePlanArgs {
    /// The plan (`ferret.plan.v1`, or a `ferret.research.v1` report); `-` for stdin.
    #[arg(long)]
    plan: String,
    /// The enrichment (`ferret.enrichment.v1`, or a `ferret.research.v1` report); `-` for stdin.
    #[arg(long)]
    enrichment: String,
    /// Accepted for symmetry: the steps always print JSON.
    #[arg(long, hide = true)]
    json: bool,
}

pub async fn run(args: ResearchArgs) -> CmdResult {
    match args.step {
        Some(Step::Plan(a)) => run_plan(a),
        Some(Step::NormalizeResults(a)) => run_normalize(a),
        Some(Step::EnrichFetch(a)) => run_enrich(a).await,
        Some(Step::BrowsePlan(a)) => run_browse_plan(a),
        None => run_loop(args.run).await,
    }
}

// ---------------------------------------------------------------- the loop

async fn run_loop(args: RunArgs) -> CmdResult {
    let question = args.question.clone().unwrap_or_default();
    if question.trim().is_empty() {
        return Err(CliError::usage(
            "the question is empty: ask something, e.g. ferret research \"…\"",
        ));
    }
    args.output.budget()?;
    let deep = if args.deep {
        let vendor = args.vendor.as_deref().unwrap_or(DEFAULT_VENDOR);
        Some(deep_escalation(vendor, crate::setup::env)?)
    } else {
        None
    };
    let options = research_options(&args, deep.is_some())?;

    // Read the rows before anything starts, so bad input fails fast.
    let rows = if args.stdin_results {
        Some(read_results("stdin", &read_stdin()?, &question)?)
    } else {
        None
    };

    let fetch = args.polite.apply(crate::setup::fetch_setup_cached(
        args.browser,
        &args.choice,
        &args.cache,
    )?)?;
    let fetcher = fetch.fetcher.clone();
    let report = match rows {
        Some(results) => {
            crate::progress::step(fetch_step(&args));
            let mut builder = Research::builder(fetcher);
            if let Some(d) = deep {
                builder = builder.deep(d);
            }
            builder
                .build()
                .run_with_results(&question, results, &options)
                .await
                .map_err(CliError::from)
        }
        None => research_with_engines(&args, &question, fetcher, deep, &options).await,
    };
    fetch.shutdown().await;
    crate::progress::done();
    let report = report?;
    match args.output.format(args.json) {
        ReportFormat::Json => return print_json(&report),
        ReportFormat::Compact => say!(
            "{}",
            ferret::agent::compact::research::render(&report, args.output.budget()?).text
        ),
        ReportFormat::Text => print_report(&report),
    }
    Ok(ExitCode::SUCCESS)
}

/// The research options the flags ask for (the search step's engines,
/// timeout and progress included).
fn research_options(args: &RunArgs, deep: bool) -> Result<ResearchOptions, CliError> {
    let mut search = SearchOptions::new();
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0) {
            return Err(CliError::usage(format!(
                "--timeout must be a positive number of seconds, not {t}"
            )));
        }
        search = search.with_deadline(Duration::from_secs_f64(t));
    }
    let engines = comma_list(&args.engines);
    if !engines.is_empty() {
        search = search.with_engines(engines);
    }
    search = search.with_progress(search_progress(fetch_step(args)));
    let mut options = ResearchOptions::new()
        .with_browser(args.browser)
        .with_max_results(usize::from(args.max_results))
        .with_deep(deep)
        .with_text(args.text)
        .with_rounds(usize::from(args.rounds))
        .with_search(search);
    if let Some(d) = args.deadline {
        if !(d.is_finite() && d > 0.0) {
            return Err(CliError::usage(format!(
                "--deadline must be a positive number of seconds, not {d}"
            )));
        }
        options = options.with_deadline(Duration::from_secs_f64(d));
    }
    Ok(options)
}

/// Search with the configured engines (and the local index), then research.
async fn research_with_engines(
    args: &RunArgs,
    question: &str,
    fetcher: ferret::evidence::fetch::Fetcher,
    deep: Option<DeepEscalation>,
    options: &ResearchOptions,
) -> Result<ResearchReport, CliError> {
    let setup = crate::setup::build(args.timeout, args.json || crate::progress::is_quiet()).await?;
    if !args.json && !setup.notes.is_empty() {
        crate::progress::note(setup.notes.join("; "));
    }
    crate::progress::step("searching…");
    let mut builder = setup.ferret.research(fetcher);
    #[cfg(feature = "local-index")]
    if let Some(index) = setup.local {
        builder = builder.local_documents(std::sync::Arc::new(IndexedFiles(index)));
    }
    if let Some(d) = deep {
        builder = builder.deep(d);
    }
    Ok(builder.build().run(question, options).await?)
}

/// Reads a local-index hit (`https://local.invalid/…`) from its indexed
/// file, and only from an indexed file.
#[cfg(feature = "local-index")]
#[derive(Debug)]
struct IndexedFiles(ferret::engines::local_index::LocalIndex);

#[cfg(feature = "local-index")]
impl research::LocalDocuments for IndexedFiles {
    fn path_for_url(&self, url: &str) -> Option<std::path::PathBuf> {
        self.0.indexed_path_for_url(url)
    }
}

/// The fetch step's progress line: how many candidates, and whether
/// Chromium is (or may be) started for them.
fn fetch_step(args: &RunArgs) -> String {
    let n = args.max_results;
    let candidates = if n == 1 { "candidate" } else { "candidates" };
    match args.browser {
        BrowserMode::Required => format!("launching Chromium to fetch up to {n} {candidates}…"),
        BrowserMode::Auto => {
            format!("fetching up to {n} {candidates} (Chromium starts if a page needs it)…")
        }
        BrowserMode::Never => format!("fetching up to {n} {candidates}…"),
    }
}

/// The search step's progress (each round searches again): a step when a
/// search is planned, engine calls answered on the spinner, the fetch step
/// once the results are fused; one note per failing engine (its later
/// failures add nothing) and one when the deadline cuts the search short.
fn search_progress(fetch_step: String) -> Progress {
    let seen = std::sync::Mutex::new(std::collections::HashSet::new());
    // Engine calls (started, ended) in the current search.
    let calls = std::sync::Mutex::new((0usize, 0usize));
    Progress::callback(move |event| {
        let mut calls = calls.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            ProgressEvent::Planned { sub_queries, .. } => {
                *calls = (0, 0);
                crate::progress::step(format_args!(
                    "searching: {} sub-quer{}…",
                    sub_queries.len(),
                    if sub_queries.len() == 1 { "y" } else { "ies" }
                ));
            }
            ProgressEvent::EngineStarted { .. } => calls.0 += 1,
            ProgressEvent::EngineFinished { .. } => calls.1 += 1,
            ProgressEvent::EngineFailed {
                engine, message, ..
            } => {
                calls.1 += 1;
                let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
                if seen.insert(engine.clone()) {
                    crate::progress::note(format_args!("{engine} failed: {}", clip(message, 140)));
                }
            }
            ProgressEvent::DeadlineReached { deadline_ms, .. } => crate::progress::note(
                format_args!("search deadline of {deadline_ms} ms reached; using what arrived"),
            ),
            ProgressEvent::Fused { results, .. } => crate::progress::step(format_args!(
                "{results} result{} found; {fetch_step}",
                if *results == 1 { "" } else { "s" }
            )),
            _ => {}
        }
        if matches!(
            event,
            ProgressEvent::EngineStarted { .. }
                | ProgressEvent::EngineFinished { .. }
                | ProgressEvent::EngineFailed { .. }
        ) {
            let (started, ended) = *calls;
            crate::progress::tick(format_args!(
                "searching: {ended}/{started} engine calls answered…"
            ));
        }
    })
}

/// The environment-variable prefix of a vendor label (`grok` → `GROK`,
/// `my-llm` → `MY_LLM`).
fn env_prefix(vendor: &str) -> Result<String, CliError> {
    let ok = !vendor.is_empty()
        && vendor
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok {
        return Err(CliError::usage(format!(
            "--vendor {vendor:?} is not a vendor label: use letters, digits, '-' or '_' (e.g. grok, chatgpt, gemini)"
        )));
    }
    Ok(vendor.to_ascii_uppercase().replace('-', "_"))
}

/// Deep escalation for `vendor`, configured the way the Grok engine is:
/// `<VENDOR>_API_URL` (required), `<VENDOR>_API_KEY` (sent when set),
/// `<VENDOR>_MODEL` (required, except `grok`, whose default model is used).
/// A model that is not configured is an engine failure.
fn deep_escalation(
    vendor: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<DeepEscalation, CliError> {
    let prefix = env_prefix(vendor)?;
    let var = |suffix: &str| format!("{prefix}_{suffix}");
    let url = lookup(&var("API_URL")).ok_or_else(|| {
        CliError::engine(format!(
            "--deep needs an OpenAI-compatible endpoint for {vendor}: set {} (and {}, {})",
            var("API_URL"),
            var("API_KEY"),
            var("MODEL")
        ))
    })?;
    let model = lookup(&var("MODEL"))
        .or_else(|| (prefix == "GROK").then(|| GrokEngine::DEFAULT_MODEL.to_string()))
        .ok_or_else(|| {
            CliError::engine(format!(
                "--deep --vendor {vendor} needs a model: set {}",
                var("MODEL")
            ))
        })?;
    let mut builder = ChatClient::builder().base_url(url).model(model);
    if let Some(key) = lookup(&var("API_KEY")) {
        builder = builder.api_key(key);
    }
    let client = builder.build().map_err(|e| {
        CliError::engine(format!("cannot configure deep escalation ({vendor}): {e}"))
    })?;
    Ok(DeepEscalation::new(client, vendor))
}

// ---------------------------------------------------------------- the steps

fn run_plan(args: PlanStepArgs) -> CmdResult {
    let mut options = PlanOptions::new();
    if let Some(intent) = args.intent {
        options = options.with_intent(intent);
    }
    let plan = research::plan_with(&args.question, &options)?;
    print_json(&plan)
}

fn run_normalize(args: NormalizeArgs) -> CmdResult {
    let (label, text) = read_inputs(&[&args.file])?.remove(0);
    check_json(&label, &text)?;
    let results = research::normalize_results(&text, &args.query, args.backend.as_deref());
    for w in &results.warnings {
        crate::progress::warn(w);
    }
    print_json(&results)
}

async fn run_enrich(args: EnrichArgs) -> CmdResult {
    let mut inputs = read_inputs(&[&args.plan, &args.results])?.into_iter();
    let (plan_label, plan_text) = inputs.next().unwrap_or_default();
    let (results_label, results_text) = inputs.next().unwrap_or_default();
    let plan = read_plan(&plan_label, &plan_text)?;
    let results = read_results(&results_label, &results_text, &plan.query)?;
    let options = EnrichOptions::new()
        .with_browser(args.browser)
        .with_max_results(usize::from(args.max_results))
        .with_text(args.text);
    let fetch = args.polite.apply(crate::setup::fetch_setup_cached(
        args.browser,
        &args.choice,
        &args.cache,
    )?)?;
    let enrichment = research::enrich_fetch(&fetch.fetcher, &plan, &results, &options).await;
    fetch.shutdown().await;
    print_json(&enrichment?)
}

fn run_browse_plan(args: BrowsePlanArgs) -> CmdResult {
    let mut inputs = read_inputs(&[&args.plan, &args.enrichment])?.into_iter();
    let (plan_label, plan_text) = inputs.next().unwrap_or_default();
    let (enrichment_label, enrichment_text) = inputs.next().unwrap_or_default();
    let plan = read_plan(&plan_label, &plan_text)?;
    let enrichment: Enrichment = read_document(
        &enrichment_label,
        &enrichment_text,
        ENRICHMENT_SCHEMA,
        "enrichment",
    )?;
    let browse = research::browse_plan(&plan, &enrichment, &BrowsePlanOptions::default());
    debug_assert_eq!(browse.schema, BROWSE_PLAN_SCHEMA);
    print_json(&browse)
}

// ---------------------------------------------------------------- inputs

fn read_stdin() -> Result<String, CliError> {
    crate::output::read_stdin()
}

/// Reads each path (`-`: stdin, at most once) as `(label, text)`.
fn read_inputs(paths: &[&str]) -> Result<Vec<(String, String)>, CliError> {
    if paths.iter().filter(|p| **p == "-").count() > 1 {
        return Err(CliError::input(
            "only one input can be read from stdin (-); give the others as files",
        ));
    }
    paths
        .iter()
        .map(|p| {
            if *p == "-" {
                Ok(("stdin".to_string(), read_stdin()?))
            } else {
                crate::output::read_file(std::path::Path::new(p)).map(|t| (p.to_string(), t))
            }
        })
        .collect()
}

/// The text parsed as JSON, or a one-line error naming `label`. Empty
/// input is allowed (it holds no rows).
fn check_json(label: &str, text: &str) -> Result<Option<Value>, CliError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|e| CliError::input(format!("{label} is not JSON: {e}")))
}

/// Candidates from `text`: result rows, a `ferret.results.v1` envelope or
/// a `ferret.search.v1` response. Not JSON, or another Ferret schema, is an
/// error; empty input is no candidates (with a warning).
fn read_results(label: &str, text: &str, query: &str) -> Result<NormalizedResults, CliError> {
    let value = check_json(label, text)?;
    if let Some(schema) = value
        .as_ref()
        .and_then(|v| v.get("schema"))
        .and_then(Value::as_str)
        && schema != RESULTS_SCHEMA
        && schema != SEARCH_SCHEMA
    {
        return Err(CliError::input(format!(
            "{label} is a {schema} document; expected result rows, a {RESULTS_SCHEMA} envelope or a {SEARCH_SCHEMA} response"
        )));
    }
    let results = NormalizedResults::from_json(text, query)
        .map_err(|e| CliError::input(format!("{label}: {e}")))?;
    for w in &results.warnings {
        crate::progress::warn(format_args!("{label}: {w}"));
    }
    Ok(results)
}

/// A plan from `text`: a `ferret.plan.v1` document, or the plan inside a
/// `ferret.research.v1` report.
fn read_plan(label: &str, text: &str) -> Result<Plan, CliError> {
    read_document(label, text, PLAN_SCHEMA, "plan")
}

/// A `schema` document from `text` (or the `field` of a
/// `ferret.research.v1` report), with a one-line error naming `label` when
/// it is not JSON, of another schema, or does not fit.
fn read_document<T: DeserializeOwned>(
    label: &str,
    text: &str,
    schema: &str,
    field: &str,
) -> Result<T, CliError> {
    let value = check_json(label, text)?.ok_or_else(|| format!("{label} is empty"));
    let value = value.map_err(CliError::input)?;
    let found = value.get("schema").and_then(Value::as_str);
    let doc = match found {
        Some(s) if s == schema => Ok(value),
        Some(RESEARCH_SCHEMA) => value
            .get(field)
            .cloned()
            .ok_or_else(|| format!("{label} is a {RESEARCH_SCHEMA} report without its {field}")),
        Some(other) => Err(format!("{label} is a {other} document; expected {schema}")),
        None => Err(format!(
            "{label} has no \"schema\" field; expected a {schema} document"
        )),
    }
    .map_err(CliError::input)?;
    serde_json::from_value(doc)
        .map_err(|e| CliError::input(format!("{label} does not fit {schema}: {e}")))
}

// ---------------------------------------------------------------- output

fn print_report(r: &ResearchReport) {
    print_summary(r);
    print_rounds(r);
    say!();
    print_constraints(r);
    say!();
    print_candidates(r);
    say!();
    print_escalation(r);
    print_deep(r);
    print_caveats_and_warnings(r);
}

/// The query, the evidence verdict and the ledger line.
fn print_summary(r: &ResearchReport) {
    let ledger = &r.enrichment.ledger;
    let mandatory = ledger.constraints.iter().filter(|c| c.mandatory).count();
    let supported = ledger
        .constraints
        .iter()
        .filter(|c| c.mandatory && c.status.is_supported())
        .count();
    say!("{}", r.query);
    say!(
        "evidence: {} — {}",
        r.evidence_status.as_str(),
        r.agent_action
    );
    say!(
        "ledger:   {} ({supported}/{mandatory} mandatory constraint{} supported by fetched pages; {} page{} read; {} ms)",
        ledger.status.as_str(),
        if mandatory == 1 { "" } else { "s" },
        ledger.pages_read,
        if ledger.pages_read == 1 { "" } else { "s" },
        r.elapsed_ms
    );
}

/// One line per round, when there was more than one.
fn print_rounds(r: &ResearchReport) {
    if r.rounds.len() > 1 {
        for round in &r.rounds {
            let changed: Vec<String> = round
                .changed
                .iter()
                .map(|c| format!("{} → {}", c.id, c.to.as_str()))
                .collect();
            say!(
                "round {}: {} quer{}, {} page{} read{}; {}",
                round.round,
                round.queries.len(),
                if round.queries.len() == 1 { "y" } else { "ies" },
                round.pages_read.len(),
                if round.pages_read.len() == 1 { "" } else { "s" },
                if changed.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", changed.join(", "))
                },
                round.status.as_str()
            );
        }
    }
}

/// Each planned constraint with its status, first quote and refutations.
fn print_constraints(r: &ResearchReport) {
    let ledger = &r.enrichment.ledger;
    if ledger.constraints.is_empty() {
        say!("constraints: none planned");
    } else {
        say!("constraints:");
    }
    for c in &ledger.constraints {
        let status = c.status.as_str();
        let mut marks = Vec::new();
        if !c.mandatory {
            marks.push("optional");
        }
        if ledger.anchor.as_deref() == Some(c.id.as_str()) {
            marks.push("anchor");
        }
        let marks = if marks.is_empty() {
            String::new()
        } else {
            format!(" [{}]", marks.join(", "))
        };
        say!("  {:<3} {status:<9} {}{marks}", c.id, clip(&c.text, 100));
        if let Some(e) = c.evidence.first() {
            // Whitespace collapsed for display; the JSON keeps the verbatim slice.
            say!("      \"{}\"", clip(&e.quote.text, 240));
            let more = if c.evidence.len() > 1 {
                format!(" (+{} more page(s))", c.evidence.len() - 1)
            } else {
                String::new()
            };
            say!("      — {}{more}", e.url);
        }
        for e in &c.refutations {
            say!(
                "      refuted ({}): \"{}\"",
                e.reason,
                clip(&e.quote.text, 240)
            );
            say!("      — {}", e.url);
        }
    }
}

/// The fetched candidates as a table, then the skipped results.
fn print_candidates(r: &ResearchReport) {
    let candidates = &r.enrichment.candidates;
    if candidates.is_empty() {
        say!("candidates: none fetched ({} found)", r.search.results);
    } else {
        say!(
            "candidates ({} fetched of {} found):",
            candidates.len(),
            r.search.results
        );
        say!(
            "  {:>4}  {:<16} {:<15} {:<9} url",
            "rank",
            "verdict",
            "source",
            "supports"
        );
        for c in candidates {
            let verdict = c.verdict.map(|v| v.as_str()).unwrap_or("unknown");
            let source = c.source.map(|s| s.as_str()).unwrap_or("unknown");
            let supports = if c.constraint_ids.is_empty() {
                "-".to_string()
            } else {
                c.constraint_ids.join(",")
            };
            say!(
                "  {:>4}  {verdict:<16} {source:<15} {supports:<9} {}",
                c.rank,
                c.final_url
            );
            if let Some(e) = &c.error {
                say!("        {}", clip(e, 140));
            }
        }
    }
    for s in &r.enrichment.skipped {
        say!(
            "  skipped #{} {} ({})",
            s.rank,
            s.url,
            serde_json::to_value(s.reason)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        );
    }
}

/// The planned browser actions, or that none are needed.
fn print_escalation(r: &ResearchReport) {
    if r.escalation.needed {
        say!(
            "escalation: {} browser action{} planned{}",
            r.escalation.total_actions,
            if r.escalation.total_actions == 1 {
                ""
            } else {
                "s"
            },
            if r.escalation.total_actions > r.escalation.actions.len() {
                format!(
                    " (first {} shown; all in --json browse_plan)",
                    r.escalation.actions.len()
                )
            } else {
                String::new()
            }
        );
        for a in &r.escalation.actions {
            let reasons: Vec<&str> = a.reasons.iter().map(|x| x.as_str()).collect();
            say!(
                "  {:<6} #{} {} — {}",
                serde_json::to_value(a.priority)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                a.rank,
                a.url,
                reasons.join(", ")
            );
            if let Some(cmd) = a.commands.first() {
                say!("         run: {cmd}");
            }
        }
    } else {
        say!("escalation: none needed");
    }
}

/// The deep-research answer, when one was asked for.
fn print_deep(r: &ResearchReport) {
    if let Some(d) = &r.deep {
        say!();
        say!("deep ({}, {}):", d.vendor, d.model);
        match (&d.text, &d.error) {
            (Some(text), _) => {
                say!("  {}", clip(text, 600));
                if !d.urls.is_empty() {
                    say!("  cites: {}", d.urls.join(", "));
                }
            }
            (None, Some(e)) => say!("  no text: {}", clip(e, 200)),
            (None, None) => say!("  no text"),
        }
    }
}

/// Caveats, warnings (minus the engines-off notes), dropped rows and the closing note.
fn print_caveats_and_warnings(r: &ResearchReport) {
    if !r.caveats.is_empty() {
        say!();
        say!("caveats:");
        for c in &r.caveats {
            say!("  - {c}");
        }
    }
    let mut warnings: Vec<&String> = r.search.warnings.iter().collect();
    warnings.extend(&r.enrichment.warnings);
    for w in warnings.into_iter().filter(|w| !w.contains(": off (")) {
        say!("warning: {w}");
    }
    if !r.search.dropped.is_empty() {
        say!("dropped rows: {}", r.search.dropped.len());
    }
    say!("note: only fetched page text supports a constraint; titles and snippets never do.");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_labels_map_to_env_prefixes() {
        assert_eq!(env_prefix("grok").unwrap(), "GROK");
        assert_eq!(env_prefix("my-llm").unwrap(), "MY_LLM");
        assert!(env_prefix("a b").is_err());
        assert!(env_prefix("").is_err());
    }

    #[test]
    fn deep_needs_an_endpoint_and_a_model() {
        let none = |_: &str| None;
        let err = deep_escalation("grok", none).unwrap_err();
        assert!(err.message.contains("GROK_API_URL"), "{err}");
        assert_eq!(err.kind, crate::output::ErrorKind::Engine);
        let url_only = |k: &str| (k == "CHATGPT_API_URL").then(|| "http://127.0.0.1:9/v1".into());
        let err = deep_escalation("chatgpt", url_only).unwrap_err();
        assert!(err.message.contains("CHATGPT_MODEL"), "{err}");
        assert_eq!(
            deep_escalation("a b", none).unwrap_err().kind,
            crate::output::ErrorKind::Usage
        );
        let grok = |k: &str| (k == "GROK_API_URL").then(|| "http://127.0.0.1:9/v1".into());
        let deep = deep_escalation("grok", grok).unwrap();
        assert_eq!(deep.vendor(), "grok");
        assert_eq!(deep.client().model(), GrokEngine::DEFAULT_MODEL);
    }
}
