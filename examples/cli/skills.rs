//! `ferret skills list|show|validate|tools|navigate|run`: site-skill
//! packages (feature `browser`).

use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::output::{CmdResult, print_json};

#[derive(Debug, Args)]
pub struct SkillsArgs {
    #[command(subcommand)]
    command: SkillsCommand,
    /// Print the JSON envelope (list and show print for people otherwise).
    #[arg(long, global = true)]
    json: bool,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
}

#[derive(Debug, Subcommand)]
enum SkillsCommand {
    /// Installed packages (built-in and local overrides) and any problems.
    List,
    /// One package: its notes and tool schemas.
    Show {
        /// The package id.
        id: String,
    },
    /// Validate a package folder.
    Validate {
        /// The package folder (its name must equal the manifest id).
        dir: std::path::PathBuf,
    },
    /// The three agent tools as JSON tool schemas.
    Tools,
    /// Open a URL covered by an installed skill; print its notes and tools.
    Navigate {
        /// An https URL on a covered domain.
        url: String,
    },
    /// Run a declared page tool of a package.
    Run {
        /// The package id.
        site: String,
        /// The tool name.
        tool: String,
        /// Arguments as a JSON object.
        #[arg(long)]
        args: Option<String>,
        /// Navigate here first (a fresh process has no page open).
        #[arg(long)]
        url: Option<String>,
    },
}

#[cfg(feature = "browser")]
pub async fn run(args: SkillsArgs) -> CmdResult {
    use std::sync::Arc;

    use ferret::browser::BrowserRuntime;
    use ferret::site_skills::{SiteTools, commands, registry::Registry};

    let registry = Arc::new(Registry::from_env());
    match args.command {
        SkillsCommand::List => {
            let out = commands::list(&registry, None);
            if args.json {
                return print_json(&out);
            }
            for s in &out.skills {
                say!("{:<14} {}  [{}]", s.id, s.name, s.domains.join(", "));
            }
            for issue in &out.issues {
                say!(
                    "problem: {}",
                    serde_json::to_string(issue).unwrap_or_default()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        SkillsCommand::Show { id } => {
            let out = commands::show(&registry, &id)?;
            print_json(&out)
        }
        SkillsCommand::Validate { dir } => {
            let out = commands::validate(&dir);
            let valid = out.valid;
            if args.json {
                print_json(&out)?;
            } else if valid {
                say!("valid: {}", dir.display());
            } else {
                say!("invalid: {}", dir.display());
                for v in &out.violations {
                    say!("  {}", serde_json::to_string(v).unwrap_or_default());
                }
            }
            Ok(if valid {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        SkillsCommand::Tools => print_json(&ferret::site_skills::agent::tool_definitions()),
        SkillsCommand::Navigate { url } => {
            let runtime = Arc::new(args.choice.runtime()?);
            let tools = SiteTools::new(registry, runtime.clone());
            let out = commands::navigate(&tools, &url).await;
            let _ = runtime.shutdown().await;
            print_json(&out?)
        }
        SkillsCommand::Run {
            site,
            tool,
            args: json_args,
            url,
        } => {
            let parsed = json_args
                .as_deref()
                .map(commands::parse_args_json)
                .transpose()?;
            let runtime = Arc::new(args.choice.runtime()?);
            let tools = SiteTools::new(registry, runtime.clone());
            let out = commands::run(&tools, &site, &tool, parsed.as_ref(), url.as_deref()).await;
            let _ = runtime.shutdown().await;
            print_json(&out?)
        }
    }
}

#[cfg(not(feature = "browser"))]
pub async fn run(_args: SkillsArgs) -> CmdResult {
    Err("this build has no browser: rebuild with the `browser` feature".into())
}
