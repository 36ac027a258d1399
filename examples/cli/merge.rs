//! `ferret merge --public F --login F`: the public + login merge
//! (`ferret.merge.v1`). Not gated by pro mode: it reads two files and
//! fetches nothing.

use std::path::PathBuf;

use clap::Args;

use crate::output::CmdResult;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Public results: `ferret search --json`, `ferret browser search|fetch|act --json`,
    /// `ferret fetch --format json`, or a bare array of {url, title, snippet}.
    #[arg(long, value_name = "FILE")]
    public: PathBuf,
    /// Login-partition results (the same shapes), e.g. from
    /// `ferret browser search --persistent --json`.
    #[arg(long, value_name = "FILE")]
    login: PathBuf,
    /// Print the `ferret.merge.v1` JSON.
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "browser")]
pub async fn run(args: MergeArgs) -> CmdResult {
    use std::process::ExitCode;

    let report = ferret::browser::merge::merge_files(&args.public, &args.login)?;
    if args.json {
        return crate::output::print_json(&report);
    }
    for line in report.to_human().lines() {
        say!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "browser"))]
pub async fn run(_args: MergeArgs) -> CmdResult {
    Err("this build has no browser crate: rebuild with the `browser` feature".into())
}
