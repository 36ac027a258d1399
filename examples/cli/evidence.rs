//! `ferret fetch`, `ferret verify`, `ferret extract`, `ferret refs`: one URL
//! (or a saved page) turned into trustworthy text.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use ferret::evidence::fetch::{self, BrowserMode, FetchOptions};

use crate::output::{CmdResult, print_json};

/// How `ferret fetch` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Only the extracted main text.
    Text,
    /// The main text as Markdown.
    Markdown,
    /// The `ferret.fetch.v1` envelope.
    Json,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The page to fetch.
    #[arg(required_unless_present = "from_file", conflicts_with = "from_file")]
    url: Option<String>,
    /// Read a saved page instead (no network).
    #[arg(long)]
    from_file: Option<std::path::PathBuf>,
    /// auto (escalate when needed), never, or required.
    #[arg(long, default_value = "auto")]
    browser: BrowserMode,
    /// Keep only paragraphs with this keyword.
    #[arg(long)]
    focus: Option<String>,
    /// Select the passages most relevant to this question (highlights).
    #[arg(long)]
    query: Option<String>,
    /// text, markdown or json.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Same as `--format json`.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
}

pub async fn run_fetch(args: FetchArgs) -> CmdResult {
    let mut options = FetchOptions::default();
    if let Some(f) = &args.focus {
        options = options.with_focus(f.clone());
    }
    if let Some(q) = &args.query {
        options = options.with_query(q.clone());
    }
    let format = if args.json {
        Format::Json
    } else {
        args.format.unwrap_or(Format::Text)
    };
    let page = if let Some(path) = &args.from_file {
        fetch::fetch_from_file(path, args.url.as_deref(), &options)?
    } else {
        let url = args.url.as_deref().unwrap_or_default();
        let setup = crate::setup::fetch_setup(args.browser, &args.choice)?;
        crate::progress::step(fetch_step(url, args.browser));
        let result = setup.fetcher.fetch(url, &options).await;
        setup.shutdown().await;
        crate::progress::done();
        result?
    };
    let body = match format {
        Format::Markdown => page.markdown.clone(),
        _ => page.text.clone(),
    };
    match format {
        Format::Json => print_json(&page),
        Format::Text | Format::Markdown => {
            if page.text.trim().is_empty() {
                crate::progress::warn(format_args!(
                    "no main text extracted (verdict {}: {})",
                    page.verdict.as_str(),
                    page.verdict_reason
                ));
            }
            say!("{body}");
            Ok(ExitCode::SUCCESS)
        }
    }
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
}

pub async fn run_verify(args: VerifyArgs) -> CmdResult {
    let setup = crate::setup::fetch_setup(args.browser, &args.choice)?;
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
}

pub async fn run_extract(args: ExtractArgs) -> CmdResult {
    use ferret::evidence::structured::{ExtractVerdict, StructuredOutcome, extract_structured};
    let url = args.url.as_deref();
    let outcome = match std::fs::read_to_string(&args.schema)
        .map_err(|e| format!("cannot read {}: {e}", args.schema.display()))
        .and_then(|t| {
            serde_json::from_str::<serde_json::Value>(&t)
                .map_err(|e| format!("{} is not JSON: {e}", args.schema.display()))
        }) {
        Err(reason) => StructuredOutcome::input_unreadable(url, reason),
        Ok(schema) => match read_html(&args, url).await {
            Ok((html, final_url, provenance)) => {
                let parsed = final_url.as_deref().and_then(|u| url::Url::parse(u).ok());
                extract_structured(&html, parsed.as_ref(), &schema).read_by(provenance)
            }
            Err(outcome) => *outcome,
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

/// The page's HTML, final URL and who read it, for `extract`; or the
/// fail-closed outcome.
async fn read_html(
    args: &ExtractArgs,
    url: Option<&str>,
) -> Result<
    (String, Option<String>, ferret::core::Provenance),
    Box<ferret::evidence::structured::StructuredOutcome>,
> {
    use ferret::core::{Provenance, Runtime};
    use ferret::evidence::structured::StructuredOutcome;
    if let Some(path) = &args.from_file {
        return std::fs::read(path)
            .map(|bytes| {
                (
                    String::from_utf8_lossy(&bytes).into_owned(),
                    url.map(str::to_string),
                    Provenance::public(Runtime::Local),
                )
            })
            .map_err(|e| {
                Box::new(StructuredOutcome::input_unreadable(
                    url,
                    format!("cannot read {}: {e}", path.display()),
                ))
            });
    }
    let url = url.unwrap_or_default();
    let setup = crate::setup::fetcher(args.browser, &args.choice)
        .map_err(|e| Box::new(StructuredOutcome::fetch_failed(Some(url), e)))?;
    let options = FetchOptions {
        include_html: true,
        public_endpoints: false,
        ..FetchOptions::default()
    };
    let result = setup.fetcher.fetch(url, &options).await;
    setup.shutdown().await;
    match result {
        Ok(page) if !page.ok => Err(Box::new(
            StructuredOutcome::fetch_blocked(
                Some(url),
                format!("{}: {}", page.verdict.as_str(), page.verdict_reason),
            )
            .read_by(page.provenance),
        )),
        Ok(page) => Ok((
            page.html.unwrap_or_default(),
            Some(page.final_url),
            page.provenance,
        )),
        Err(e) => {
            let read = e.page().map(|p| p.provenance.clone());
            let blocked = e.page().is_some_and(|p| !p.ok);
            let outcome = if blocked {
                StructuredOutcome::fetch_blocked(Some(url), e.to_string())
            } else {
                StructuredOutcome::fetch_failed(Some(url), e.to_string())
            };
            Err(Box::new(match read {
                Some(p) => outcome.read_by(p),
                None => outcome,
            }))
        }
    }
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
