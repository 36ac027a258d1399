//! `ferret`: the command line, thin glue over the library.
//!
//! Every command prints for a person by default and its JSON envelope with
//! `--json`; progress and logs go to stderr; a failure is one
//! `ferret: error:` line on stderr (and a `ferret.error.v1` object on
//! stdout with `--json`) and a non-zero exit: 2 for a usage error, 1 for
//! any other failure. Run `cargo run --example ferret -- --help`; install
//! with `cargo install --path . --example ferret`.

/// `println!` that ends the process quietly when stdout is a closed pipe
/// (`ferret … | head`) instead of panicking.
macro_rules! say {
    () => { $crate::output::write_line(format_args!("")) };
    ($($arg:tt)*) => { $crate::output::write_line(format_args!($($arg)*)) };
}

#[path = "cli/browser.rs"]
mod browser;
#[path = "cli/check_url.rs"]
mod check_url;
#[path = "cli/evidence.rs"]
mod evidence;
#[path = "cli/index.rs"]
mod index;
#[path = "cli/mcp.rs"]
mod mcp;
#[path = "cli/merge.rs"]
mod merge;
#[path = "cli/output.rs"]
mod output;
#[path = "cli/plan.rs"]
mod plan;
#[path = "cli/progress.rs"]
mod progress;
#[path = "cli/research.rs"]
mod research;
#[path = "cli/search.rs"]
mod search;
#[path = "cli/setup.rs"]
mod setup;
#[path = "cli/skills.rs"]
mod skills;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Evidence-grade web search for AI agents.
#[derive(Debug, Parser)]
#[command(name = "ferret", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// More log lines on stderr: -v info, -vv debug, -vvv trace (Ferret's
    /// own crates; RUST_LOG, when set, wins).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only errors and warnings on stderr: no progress, no notes.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Send engine calls and page fetches through this proxy (http, https
    /// or socks5 URL; default: HTTPS_PROXY / HTTP_PROXY / ALL_PROXY, with
    /// NO_PROXY). The URL guard still checks every target.
    #[arg(long, global = true, value_name = "URL")]
    proxy: Option<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Classify a query's intent and plan its sub-queries and constraints.
    Plan(plan::PlanArgs),
    /// Search: plan, fan out to engines, fuse and deduplicate.
    Search(search::SearchArgs),
    /// Fetch a page (public endpoint, HTTP, or the browser) and extract its text.
    Fetch(evidence::FetchArgs),
    /// Judge whether a page's fetched content is usable evidence.
    Verify(evidence::VerifyArgs),
    /// Extract structured data matching a JSON Schema (fails closed).
    Extract(evidence::ExtractArgs),
    /// Typed references of a GitHub issue or pull request.
    Refs(evidence::RefsArgs),
    /// Research a question: fetch the top candidates, build the constraint
    /// ledger, and decide whether the evidence is sufficient.
    Research(research::ResearchArgs),
    /// Check a URL against the URL guard (SSRF rules).
    CheckUrl(check_url::CheckUrlArgs),
    /// Manage the local index (the offline default engine).
    Index(index::IndexArgs),
    /// Drive headless Chromium: status, search, fetch, act, api, login.
    Browser(browser::BrowserArgs),
    /// Merge public and login-partition results, keeping them apart (ferret.merge.v1).
    Merge(merge::MergeArgs),
    /// Pro mode: the gate for logged-in browser sessions.
    Pro(browser::ProArgs),
    /// Site skills: validated site packages run in the browser.
    Skills(skills::SkillsArgs),
    /// Serve the agent tools over MCP (stdio; --http for streamable HTTP).
    Mcp(mcp::McpArgs),
}

fn main() -> ExitCode {
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = output::wants_json(&raw);
    let cli = match Cli::try_parse_from(&raw) {
        Ok(cli) => cli,
        Err(e) => return output::clap_error(e, json),
    };
    progress::init(progress::Verbosity {
        verbose: cli.verbose,
        quiet: cli.quiet,
    });
    if let Err(error) = setup::install_proxy(cli.proxy.as_deref()) {
        return error.report(json);
    }
    let result = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(run(cli.command)),
        Err(e) => Err(output::CliError::internal(format!(
            "cannot start the async runtime: {e}"
        ))),
    };
    progress::done();
    match result {
        Ok(code) => code,
        Err(error) => error.report(json),
    }
}

/// Run one command.
async fn run(command: Command) -> output::CmdResult {
    match command {
        Command::Plan(args) => plan::run(args).await,
        Command::Search(args) => search::run(args).await,
        Command::CheckUrl(args) => check_url::run(args).await,
        Command::Fetch(args) => evidence::run_fetch(args).await,
        Command::Verify(args) => evidence::run_verify(args).await,
        Command::Extract(args) => evidence::run_extract(args).await,
        Command::Refs(args) => evidence::run_refs(args).await,
        Command::Research(args) => research::run(args).await,
        Command::Index(args) => index::run(args).await,
        Command::Browser(args) => browser::run(args).await,
        Command::Merge(args) => merge::run(args).await,
        Command::Pro(args) => browser::run_pro(args).await,
        Command::Skills(args) => skills::run(args).await,
        Command::Mcp(args) => mcp::run(args).await,
    }
}
