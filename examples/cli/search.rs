//! `ferret search "<q>"`: plan, fan out, fuse; `--stdin-results` fuses rows
//! read from stdin (an agent's own search results) as one more engine.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use ferret::core::fanout::{Progress, ProgressEvent};
use ferret::core::rows::normalize_rows_str;
use ferret::core::search::SearchOptions;
use ferret::core::{EngineStatus, Freshness, Intent, Mode, SearchResponse};

use crate::output::ReportFormat;
use crate::output::{CliError, CmdResult, clip, comma_list, print_json};

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query.
    query: String,
    /// Read result rows (JSON) from stdin and fuse them.
    #[arg(long)]
    stdin_results: bool,
    /// Use this intent instead of classifying.
    #[arg(long)]
    intent: Option<Intent>,
    /// fast, deep or answer (default: the intent's).
    #[arg(long)]
    mode: Option<Mode>,
    /// A recency window: pd, pw, pm, py (default: the intent's).
    #[arg(long)]
    freshness: Option<Freshness>,
    /// Only results published on or after this day (YYYY-MM-DD). Replaces
    /// the intent's recency window unless --freshness is given too.
    #[arg(long, value_name = "YYYY-MM-DD")]
    since: Option<chrono::NaiveDate>,
    /// Only results published on or before this day (YYYY-MM-DD).
    #[arg(long, value_name = "YYYY-MM-DD")]
    until: Option<chrono::NaiveDate>,
    /// Only results from these domains (comma separated; subdomains count).
    #[arg(long, value_delimiter = ',', value_name = "DOMAINS")]
    site: Vec<String>,
    /// No results from these domains (comma separated; subdomains count).
    #[arg(long, value_delimiter = ',', value_name = "DOMAINS")]
    exclude_site: Vec<String>,
    /// Ask for results in this language (en, de, zh-CN, …).
    #[arg(long)]
    lang: Option<String>,
    /// Ask for results for this country (a two-letter code: US, DE, JP).
    #[arg(long)]
    region: Option<String>,
    /// Safe search: off, moderate or strict (default: each engine's own).
    #[arg(long, value_name = "LEVEL")]
    safe: Option<ferret::core::SafeSearch>,
    /// Ask each engine for this result page (1 is the first).
    #[arg(long, value_name = "N")]
    page: Option<u32>,
    /// Only these engines (comma separated).
    #[arg(long, value_delimiter = ',')]
    engines: Vec<String>,
    /// Hits to ask each engine for, per sub-query.
    #[arg(long)]
    num: Option<usize>,
    /// Show at most this many results.
    #[arg(long)]
    limit: Option<usize>,
    /// Domains whose authority gets +0.2 (comma separated).
    #[arg(long, value_delimiter = ',')]
    domain_boost: Vec<String>,
    /// Re-rank with a goggle: a built-in name (general-tech, academic,
    /// product-research, security, zh-tech) or a .goggle file.
    #[arg(long)]
    goggle: Option<String>,
    /// Global deadline in seconds (default 20).
    #[arg(long)]
    timeout: Option<f64>,
    /// Present the results by size: up to 5 listed with
    /// their sources and scores, 6–15 grouped by theme, more summarised as
    /// themes plus the top 5; conflicting sources flagged. With `--json`,
    /// prints `ferret.presentation.v1` instead of the search envelope.
    #[arg(long)]
    present: bool,
    /// Print the `ferret.search.v1` envelope.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    output: crate::output::FormatArgs,
}

pub async fn run(args: SearchArgs) -> CmdResult {
    // A flag value the search cannot use is a usage error.
    let mut options = search_options(&args).map_err(CliError::usage)?;
    let format = args.output.format(args.json);
    let budget = args.output.budget()?;
    let engines = comma_list(&args.engines);
    let setup = crate::setup::build(args.timeout, args.json || crate::progress::is_quiet()).await?;
    let ferret = &setup.ferret;
    if !args.json && !setup.notes.is_empty() {
        crate::progress::note(setup.notes.join("; "));
    }

    let mut row_warnings = Vec::new();
    let response = if args.stdin_results {
        let rows = read_stdin_rows(&args.query)?;
        row_warnings = rows.warnings.clone();
        if engines.is_empty() {
            options = options.without_engines();
        } else {
            options = options.with_engines(engines);
        }
        ferret
            .search_with_calls(&args.query, rows.calls, rows.dropped, &options)
            .await?
    } else {
        if !engines.is_empty() {
            options = options.with_engines(engines);
        }
        ferret.search(&args.query, &options).await?
    };

    let mut response = response;
    response.warnings.extend(row_warnings);
    response.warnings.extend(setup.notes);
    if args.present {
        return print_presentation(&response, format == ReportFormat::Json);
    }
    match format {
        ReportFormat::Json => return print_json(&with_until(&response)),
        ReportFormat::Compact => say!(
            "{}",
            ferret::agent::compact::search::render(&response, budget).text
        ),
        ReportFormat::Text => print_human(&response),
    }
    Ok(ExitCode::SUCCESS)
}

/// The search options the flags ask for, with a progress line per failing
/// engine on stderr.
fn search_options(args: &SearchArgs) -> Result<SearchOptions, String> {
    // The flags an agent's `search` tool also takes are parsed by its input
    // type, so the CLI and the tools accept the same values.
    let input = ferret::agent::inputs::SearchInput {
        query: args.query.clone(),
        mode: args.mode,
        intent: args.intent,
        freshness: args.freshness,
        site: comma_list(&args.site),
        exclude_site: comma_list(&args.exclude_site),
        since: args.since.map(|d| d.to_string()),
        until: args.until.map(|d| d.to_string()),
        lang: args.lang.clone(),
        region: args.region.clone(),
        safe: args.safe,
        page: args.page,
        ..Default::default()
    };
    let mut options = input
        .controlled(SearchOptions::new())
        .map_err(|e| e.message)?;
    if let Some(n) = args.num {
        options = options.with_max_results(n);
    }
    if let Some(n) = args.limit {
        options = options.with_limit(n);
    }
    let boosts = comma_list(&args.domain_boost);
    if !boosts.is_empty() {
        options = options.with_domain_boosts(boosts);
    }
    if let Some(t) = args.timeout {
        if !(t.is_finite() && t > 0.0) {
            return Err(format!(
                "--timeout must be a positive number of seconds, not {t}"
            ));
        }
        options = options.with_deadline(Duration::from_secs_f64(t));
    }
    if let Some(g) = &args.goggle {
        let goggle = ferret::core::goggles::Goggle::resolve(g).map_err(|e| e.to_string())?;
        options = options.with_goggle(goggle);
    }
    let failed_once = std::sync::Mutex::new(std::collections::HashSet::new());
    Ok(options.with_progress(Progress::callback(move |event| {
        // One line per failing engine: its later failures add nothing new.
        if let ProgressEvent::EngineFailed { engine, .. } = event {
            let mut seen = failed_once.lock().unwrap_or_else(|p| p.into_inner());
            if !seen.insert(engine.clone()) {
                return;
            }
        }
        print_progress(event)
    })))
}

/// The rows an agent piped in, normalised; empty stdin is no rows (with a
/// warning). Stdin that cannot be read, or is not JSON, is an input error.
/// Each warning is also printed on stderr.
fn read_stdin_rows(query: &str) -> Result<ferret::core::rows::NormalizedRows, CliError> {
    let text = crate::output::read_stdin()?;
    if !text.trim().is_empty()
        && let Err(e) = serde_json::from_str::<serde_json::Value>(&text)
    {
        return Err(CliError::input(format!(
            "stdin is not JSON ({e}); expected result rows: an array, or an object holding one under `results`"
        )));
    }
    let rows = normalize_rows_str(&text, query);
    for w in &rows.warnings {
        crate::progress::warn(w);
    }
    Ok(rows)
}

/// `--present`: the answer-ready presentation, as JSON or Markdown.
fn print_presentation(response: &SearchResponse, json: bool) -> CmdResult {
    use ferret::evidence::presentation::{PresentOptions, present};
    let presentation = present(response, &PresentOptions::default()).map_err(|e| e.to_string())?;
    if json {
        return print_json(&presentation);
    }
    for line in presentation.to_markdown().lines() {
        say!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn print_progress(event: &ProgressEvent) {
    match event {
        ProgressEvent::Planned {
            intent,
            mode,
            sub_queries,
        } => crate::progress::note(format_args!(
            "plan: intent {intent}, mode {mode}, {} sub-quer{}",
            sub_queries.len(),
            if sub_queries.len() == 1 { "y" } else { "ies" }
        )),
        ProgressEvent::EngineFailed {
            engine,
            sub_query,
            message,
            ..
        } => crate::progress::note(format_args!(
            "{engine} failed on {sub_query:?}: {}",
            clip(message, 140)
        )),
        ProgressEvent::DeadlineReached { deadline_ms, .. } => crate::progress::note(format_args!(
            "global deadline of {deadline_ms} ms reached; returning partial results"
        )),
        _ => {}
    }
}

fn print_human(r: &SearchResponse) {
    say!(
        "{} — intent {}, mode {}{}; {} result{} in {} ms",
        r.query,
        r.intent,
        r.mode,
        r.freshness
            .map(|f| format!(", freshness {f}"))
            .unwrap_or_default(),
        r.results.len(),
        if r.results.len() == 1 { "" } else { "s" },
        r.elapsed_ms
    );
    say!();
    for (i, res) in r.results.iter().enumerate() {
        print_result(i + 1, res);
    }
    if !r.results.is_empty() {
        say!();
    }
    for e in &r.engines {
        print_engine(e);
    }
    if !r.discarded.is_empty() {
        say!(
            "discarded by the goggle{}: {}",
            r.goggle
                .as_deref()
                .map(|g| format!(" {g}"))
                .unwrap_or_default(),
            r.discarded.len()
        );
    }
    if !r.dropped.is_empty() {
        say!("dropped rows: {}", r.dropped.len());
        for d in r.dropped.iter().take(10) {
            say!(
                "  row {}: {} {}",
                d.index,
                d.reason.as_str(),
                d.url.as_deref().unwrap_or("")
            );
        }
    }
    for w in r.warnings.iter().filter(|w| !w.contains(": off (")) {
        say!("warning: {w}");
    }
    say!("note: snippets are search diagnostics, not evidence; fetch pages to verify.");
}

/// One fused result: title, URL, snippet, sources with scores, duplicates and flags.
fn print_result(number: usize, res: &ferret::core::SearchResult) {
    say!("{:>2}. {}", number, clip(&res.title, 100));
    say!("    {}", res.original_url);
    if !res.snippet.is_empty() {
        say!("    {}", clip(&res.snippet, 160));
    }
    let sources: Vec<String> = res
        .sources
        .iter()
        .map(|s| format!("{}#{}", s.engine, s.rank))
        .collect();
    say!(
        "    [{}]  score {:.3} (rrf {:.4}, keyword {:.2}, freshness {:.2}, authority {:.2})",
        sources.join(", "),
        res.scores.final_score,
        res.scores.rrf,
        res.scores.keyword,
        res.scores.freshness,
        res.scores.authority
    );
    if !res.near_duplicates.is_empty() {
        say!("    + {} near-duplicate(s)", res.near_duplicates.len());
    }
    for f in &res.flags {
        say!("    {f}");
    }
}

/// One engine's line: its status, time and message.
fn print_engine(e: &ferret::core::EngineReport) {
    let status = match e.status {
        EngineStatus::Ok => format!("ok, {} hits", e.count),
        EngineStatus::Error => format!(
            "error ({})",
            e.error_kind.map(|k| k.as_str()).unwrap_or("unknown")
        ),
        EngineStatus::Timeout => "timeout".to_string(),
        EngineStatus::Skipped => "skipped".to_string(),
        EngineStatus::CircuitOpen => "circuit open".to_string(),
    };
    let msg = e
        .message
        .as_deref()
        .map(|m| format!(" — {}", clip(m, 110)))
        .unwrap_or_default();
    say!("engine {:<11} {status}, {} ms{msg}", e.name, e.elapsed_ms);
    if !e.unsupported.is_empty() {
        say!(
            "       {:<11} not pushed down: {}",
            "",
            e.unsupported.join(", ")
        );
    }
}

/// The envelope as JSON, each engine skipped for a while (an open breaker,
/// a cool-down, an offline or unreachable verdict) carrying `until`: when
/// it will be called again (RFC 3339), read from its message.
fn with_until(response: &ferret::core::SearchResponse) -> serde_json::Value {
    let mut value = serde_json::to_value(response).unwrap_or_default();
    if let Some(engines) = value["engines"].as_array_mut() {
        for engine in engines {
            let until = engine["message"]
                .as_str()
                .and_then(ferret::engines::health::until_in);
            if let (Some(until), Some(map)) = (until, engine.as_object_mut()) {
                map.insert("until".into(), until.into());
            }
        }
    }
    value
}
