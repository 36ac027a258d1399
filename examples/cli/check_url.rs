//! `ferret check-url <url>`: the URL guard's verdict.

use std::process::ExitCode;

use clap::Args;
use ferret::core::guard::UrlGuard;

use crate::output::{CmdResult, print_json};

#[derive(Debug, Args)]
pub struct CheckUrlArgs {
    /// The URL to check.
    url: String,
    /// Also resolve the host and check every address (strict SSRF mode).
    #[arg(long)]
    strict: bool,
    /// Print the JSON verdict.
    #[arg(long)]
    json: bool,
}

pub async fn run(args: CheckUrlArgs) -> CmdResult {
    let guard = UrlGuard::from_env().strict(args.strict || UrlGuard::from_env().is_strict());
    let verdict = if guard.is_strict() {
        guard.verdict_resolved(&args.url).await
    } else {
        guard.verdict(&args.url)
    };
    if args.json {
        print_json(&verdict)?;
    } else if verdict.allowed {
        say!("allowed: {}", verdict.url);
        say!("  {}", verdict.detail);
        if !verdict.resolved.is_empty() {
            say!("  resolved: {}", verdict.resolved.join(", "));
        }
    } else {
        let reason = verdict.reason.map(|r| r.as_str()).unwrap_or("blocked");
        say!("blocked ({reason}): {}", verdict.url);
        say!("  {}", verdict.detail);
    }
    Ok(if verdict.allowed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
