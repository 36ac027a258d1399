//! `ferret fetch`, `ferret verify`, `ferret extract`, `ferret refs`: one URL
//! (or a saved page) turned into trustworthy text.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use ferret::evidence::fetch::{self, BrowserMode, FetchOptions};

use crate::output::{CliError, CmdResult, print_json};

/// How `ferret fetch` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Only the extracted main text.
    Text,
    /// The main text as Markdown.
    Markdown,
    /// Sized for a model within `--max-tokens`: the verdict, highlights
    /// first, then the main text cut at the budget.
    Compact,
    /// The `ferret.fetch.v1` envelope.
    Json,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The page to fetch.
    #[arg(required_unless_present = "from_file", conflicts_with = "from_file")]
    url: Option<String>,
    /// Read saved pages instead (no network): one or more files, `-` for
    /// stdin. Several pages are read in parallel and printed in order (with
    /// `--json`, one envelope per line).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    from_file: Vec<std::path::PathBuf>,
    /// The saved page's original address (for relative links and the site
    /// name); one page only.
    #[arg(long = "url", value_name = "URL", requires = "from_file")]
    page_url: Option<String>,
    /// auto (escalate when needed), never, or required.
    #[arg(long, default_value = "auto")]
    browser: BrowserMode,
    /// Keep only paragraphs with this keyword.
    #[arg(long)]
    focus: Option<String>,
    /// Select the passages most relevant to this question (highlights).
    #[arg(long)]
    query: Option<String>,
    /// text, markdown, compact or json.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// The compact rendering's budget in estimated tokens (200–100000,
    /// default 2000).
    #[arg(long, value_name = "N")]
    max_tokens: Option<u32>,
    /// Same as `--format json`.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
    #[command(flatten)]
    cache: crate::setup::CacheChoice,
    #[command(flatten)]
    polite: crate::setup::PoliteArgs,
}

pub async fn run_fetch(args: FetchArgs) -> CmdResult {
    // The same input type as the agents' `fetch` tool.
    let input = ferret::agent::inputs::FetchInput {
        url: args.url.clone().unwrap_or_default(),
        query: args.query.clone(),
        focus: args.focus.clone(),
        browser: args.browser,
        ..Default::default()
    };
    let options = input.options();
    let format = if args.json {
        Format::Json
    } else {
        args.format.unwrap_or(Format::Text)
    };
    let budget = crate::output::compact_budget(args.max_tokens)?;
    let page = if !args.from_file.is_empty() {
        return print_saved_pages(&args, &options, format, budget);
    } else {
        let setup = args.polite.apply(crate::setup::fetch_setup_cached(
            args.browser,
            &args.choice,
            &args.cache,
        )?)?;
        crate::progress::step(fetch_step(&input.url, args.browser));
        let result = setup.fetcher.fetch(&input.url, &options).await;
        setup.shutdown().await;
        crate::progress::done();
        result?
    };
    print_page(&page, format, budget)
}

/// `fetch --from-file`: every saved page (or stdin for `-`), read in
/// parallel and printed in order. A file that cannot be read is reported and
/// the others still print; the exit code is then 1.
fn print_saved_pages(
    args: &FetchArgs,
    options: &FetchOptions,
    format: Format,
    budget: usize,
) -> CmdResult {
    let paths = &args.from_file;
    if args.page_url.is_some() && paths.len() > 1 {
        return Err(CliError::usage(
            "--url names one saved page's address; give one --from-file with it",
        ));
    }
    if paths.len() == 1 {
        return print_page(
            &read_saved(&paths[0], args.page_url.as_deref(), options)?,
            format,
            budget,
        );
    }
    let is_stdin = |p: &std::path::PathBuf| p.as_os_str() == "-";
    let mut stdin = paths
        .iter()
        .any(is_stdin)
        .then(|| read_saved("-".as_ref(), None, options));
    let files: Vec<&std::path::PathBuf> = paths.iter().filter(|p| !is_stdin(p)).collect();
    let mut read = fetch::fetch_files(&files, options).into_iter();
    let mut failed = 0usize;
    for path in paths {
        let page = if is_stdin(path) {
            stdin
                .take()
                .unwrap_or_else(|| Err(CliError::usage("stdin (`-`) can be read only once")))
        } else {
            read.next()
                .map(|r| r.map_err(CliError::from))
                .unwrap_or_else(|| Err(CliError::internal("a saved page was not read")))
        };
        match page {
            Ok(page) if format == Format::Json => crate::output::write_line(format_args!(
                "{}",
                serde_json::to_string(&page).unwrap_or_default()
            )),
            Ok(page) => {
                say!("==> {} <==", path.display());
                print_page(&page, format, budget)?;
            }
            Err(e) => {
                failed += 1;
                crate::progress::warn(format_args!("{}: {}", path.display(), e.message));
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One saved page: a file, or stdin for `-` (read with the same body cap).
fn read_saved(
    path: &std::path::Path,
    url: Option<&str>,
    options: &FetchOptions,
) -> Result<fetch::FetchedPage, CliError> {
    if path.as_os_str() == "-" {
        let stdin = std::io::stdin().lock();
        Ok(fetch::fetch_from_reader(
            stdin,
            url,
            options,
            fetch::DEFAULT_BODY_LIMIT,
        )?)
    } else {
        Ok(fetch::fetch_from_file(path, url, options)?)
    }
}

/// The fetched page in `format`.
fn print_page(page: &fetch::FetchedPage, format: Format, budget: usize) -> CmdResult {
    let body = match format {
        Format::Json => return print_json(page),
        Format::Compact => {
            say!(
                "{}",
                ferret::agent::compact::fetch::render(page, budget).text
            );
            return Ok(ExitCode::SUCCESS);
        }
        Format::Markdown => &page.markdown,
        Format::Text => &page.text,
    };
    if page.text.trim().is_empty() {
        crate::progress::warn(format_args!(
            "no main text extracted (verdict {}; {})",
            page.verdict.as_str(),
            page.verdict_reason
        ));
    }
    say!("{body}");
    Ok(ExitCode::SUCCESS)
}

/// The progress line of a fetch: whether Chromium is (or may be) started.
fn fetch_step(url: &str, browser: BrowserMode) -> String {
    match browser {
        BrowserMode::Required => format!("launching Chromium to fetch {url}…"),
        BrowserMode::Auto => format!("fetching {url} (Chromium starts if the page needs it)…"),
        BrowserMode::Never => format!("fetching {url}…"),
    }
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The page to check.
    url: String,
    /// auto (escalate when needed), never, or required.
    #[arg(long, default_value = "auto")]
    browser: BrowserMode,
    /// Print the `ferret.verify.v1` envelope.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
    #[command(flatten)]
    cache: crate::setup::CacheChoice,
    #[command(flatten)]
    polite: crate::setup::PoliteArgs,
}

pub async fn run_verify(args: VerifyArgs) -> CmdResult {
    let setup = args.polite.apply(crate::setup::fetch_setup_cached(
        args.browser,
        &args.choice,
        &args.cache,
    )?)?;
    let report = setup.fetcher.verify(&args.url).await;
    setup.shutdown().await;
    if args.json {
        print_json(&report)?;
    } else {
        say!(
            "{} — {} (ok: {}, source: {}, score {})",
            report.final_url,
            report.verdict.as_str(),
            report.ok,
            report
                .source
                .map(|s| s.as_str().to_string())
                .unwrap_or_else(|| "unknown".into()),
            report.score.total
        );
        say!("  {}", report.reason);
        if let Some(t) = &report.title {
            say!("  title: {t}");
        }
        say!("  {}", crate::output::clip(&report.text_excerpt, 300));
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The page to extract from.
    #[arg(required_unless_present = "from_file", conflicts_with = "from_file")]
    url: Option<String>,
    /// Read a saved page instead (no network).
    #[arg(long)]
    from_file: Option<std::path::PathBuf>,
    /// The JSON Schema (subset) the data must satisfy.
    #[arg(long)]
    schema: std::path::PathBuf,
    /// auto (escalate when needed), never, or required.
    #[arg(long, default_value = "auto")]
    browser: BrowserMode,
    /// Print the `ferret.extract.v1` envelope.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
    #[command(flatten)]
    cache: crate::setup::CacheChoice,
    #[command(flatten)]
    polite: crate::setup::PoliteArgs,
}

pub async fn run_extract(args: ExtractArgs) -> CmdResult {
    use ferret::evidence::structured::{ExtractVerdict, ReadOutcome, StructuredOutcome};
    let url = args.url.as_deref();
    let outcome = match crate::output::read_file(&args.schema)
        .map_err(|e| e.message)
        .and_then(|t| {
            serde_json::from_str::<serde_json::Value>(&t)
                .map_err(|e| format!("{} is not JSON: {e}", args.schema.display()))
        }) {
        Err(reason) => ReadOutcome::new(StructuredOutcome::input_unreadable(url, reason), None),
        Ok(schema) => match &args.from_file {
            Some(path) => extract_file(path, url, &schema),
            None => extract_url(&args, url.unwrap_or_default(), &schema).await,
        },
    };
    if args.json {
        print_json(&outcome)?;
    } else {
        say!("verdict: {}", serde_plain(&outcome.verdict));
        if let Some(r) = &outcome.reason {
            say!("  {r}");
        }
        if outcome.verdict == ExtractVerdict::Extracted {
            say!(
                "{}",
                serde_json::to_string_pretty(&outcome.data).unwrap_or_default()
            );
        }
        for k in &outcome.unsupported_keywords {
            say!(
                "  unsupported schema keyword: {}",
                serde_json::to_string(k).unwrap_or_default()
            );
        }
    }
    Ok(if outcome.verdict == ExtractVerdict::Extracted {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Extract from a saved page (read like an HTTP body: bounded, regular
/// files only).
fn extract_file(
    path: &std::path::Path,
    url: Option<&str>,
    schema: &serde_json::Value,
) -> ferret::evidence::structured::ReadOutcome {
    use ferret::evidence::structured::{ReadOutcome, StructuredOutcome, extract_structured};
    let options = FetchOptions {
        include_html: true,
        ..FetchOptions::default()
    };
    match fetch::fetch_from_file(path, url, &options) {
        Ok(page) => {
            let parsed = url.and_then(|u| url::Url::parse(u).ok());
            let html = page.html.as_deref().unwrap_or_default();
            let outcome = extract_structured(html, parsed.as_ref(), schema);
            ReadOutcome::new(outcome, Some(page.provenance))
        }
        Err(e) => ReadOutcome::new(
            StructuredOutcome::input_unreadable(url, e.to_string()),
            None,
        ),
    }
}

/// Fetch `url` and extract ([`ferret::evidence::structured::extract_from_url`]).
async fn extract_url(
    args: &ExtractArgs,
    url: &str,
    schema: &serde_json::Value,
) -> ferret::evidence::structured::ReadOutcome {
    use ferret::evidence::structured::{ReadOutcome, StructuredOutcome, extract_from_url};
    let setup = match crate::setup::fetch_setup_cached(args.browser, &args.choice, &args.cache)
        .and_then(|setup| args.polite.apply(setup))
    {
        Ok(setup) => setup,
        Err(e) => {
            return ReadOutcome::new(StructuredOutcome::fetch_failed(Some(url), e.message), None);
        }
    };
    let outcome = extract_from_url(&setup.fetcher, url, schema, args.browser).await;
    setup.shutdown().await;
    outcome
}

/// The serde name of a unit enum value.
fn serde_plain<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

#[derive(Debug, Args)]
pub struct RefsArgs {
    /// A GitHub issue or pull request URL.
    url: String,
    /// Print the `ferret.refs.v1` envelope.
    #[arg(long)]
    json: bool,
}

pub async fn run_refs(args: RefsArgs) -> CmdResult {
    let setup = crate::setup::fetch_setup(BrowserMode::Never, &Default::default())?;
    let result = ferret::evidence::refs::fetch_refs(&setup.fetcher, &args.url).await;
    setup.shutdown().await;
    let refs = result?;
    if args.json {
        return print_json(&refs);
    }
    say!(
        "{}#{} — {} references",
        refs.repo,
        refs.number,
        refs.refs.len()
    );
    for r in &refs.refs {
        say!(
            "  {:<10} {}  …{}…",
            serde_plain(&r.kind),
            r.target,
            crate::output::clip(&r.context, 90)
        );
    }
    for w in &refs.warnings {
        say!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}
