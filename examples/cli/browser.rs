//! `ferret browser status|search|fetch|act|api|login` and
//! `ferret pro enable|disable|status` (feature `browser`).

use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::output::{CliError, CmdResult, print_json};

#[derive(Debug, Args)]
pub struct BrowserArgs {
    #[command(subcommand)]
    command: BrowserCommand,
    #[command(flatten)]
    choice: crate::setup::BrowserChoice,
    /// Task space name (the same name reuses the same space).
    #[arg(long, global = true)]
    task_space: Option<String>,
    /// Keep the task space open when the command ends.
    #[arg(long, global = true)]
    keep_space: bool,
    /// Work on one site: task space `site:<host>`, kept.
    #[arg(long, global = true)]
    site: Option<String>,
    /// Print the JSON envelope.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum BrowserCommand {
    /// Probe both runtimes (managed Chromium, the attached browser at
    /// FERRET_CDP_URL): usable or why not, version, endpoint; and pro mode.
    Status,
    /// Extract a search-engine result page in the browser.
    Search {
        /// The query.
        query: String,
        /// bing (default), duckduckgo, baidu or google.
        #[arg(long, default_value = "bing")]
        engine: String,
        /// Results wanted.
        #[arg(long, default_value_t = 8)]
        n: usize,
        /// Only results published since (7d, 12h, 1w, 1y or an ISO date).
        #[arg(long)]
        since: Option<String>,
        /// Only results published until.
        #[arg(long)]
        until: Option<String>,
    },
    /// Fetch a page's rendered text.
    Fetch {
        /// The page.
        url: String,
        /// Keep only paragraphs with this keyword.
        #[arg(long)]
        focus: Option<String>,
        /// Include the rendered HTML.
        #[arg(long)]
        html: bool,
    },
    /// Search, open the top result(s), fetch them.
    Act {
        /// The query.
        query: String,
        /// bing (default), duckduckgo, baidu or google.
        #[arg(long, default_value = "bing")]
        engine: String,
        /// Keep only paragraphs with this keyword.
        #[arg(long)]
        focus: Option<String>,
        /// Only results published since.
        #[arg(long)]
        since: Option<String>,
    },
    /// Call a same-origin API from a page of its site, with the page's cookies.
    Api {
        /// The API URL.
        url: String,
        /// The page to call it from (default: the API's scheme://host).
        #[arg(long)]
        origin: Option<String>,
    },
    /// Open a visible window on the persistent profile so a person can sign
    /// in (needs a display and pro mode).
    Login {
        /// The sign-in page.
        url: String,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 600)]
        max_wait: u64,
    },
}

#[derive(Debug, Args)]
pub struct ProArgs {
    #[command(subcommand)]
    command: ProCommand,
    /// Print the JSON envelope.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ProCommand {
    /// Turn pro mode on (only when the user asks for it).
    Enable,
    /// Turn pro mode off.
    Disable,
    /// Is pro mode on?
    Status,
}

#[cfg(feature = "browser")]
pub async fn run_pro(args: ProArgs) -> CmdResult {
    use ferret::browser::pro_mode;
    let home = crate::setup::home()?;
    let status = match args.command {
        ProCommand::Enable => pro_mode::enable(&home)?,
        ProCommand::Disable => pro_mode::disable(&home)?,
        ProCommand::Status => pro_mode::status(&home),
    };
    if args.json {
        return print_json(&status);
    }
    match (status.enabled, status.enabled_at) {
        (true, Some(at)) => say!("pro mode: on (since {at})"),
        (true, None) => say!("pro mode: on"),
        (false, _) => say!("pro mode: off (turn on with `{}`)", status.enable_command),
    }
    if let Some(w) = status.warning {
        say!("warning: {w}");
    }
    say!("state file: {}", status.state_file);
    Ok(ExitCode::SUCCESS)
}

#[cfg(feature = "browser")]
pub async fn run(args: BrowserArgs) -> CmdResult {
    use ferret::browser::modes;
    use ferret::browser::{BrowserRuntime, ChromiumRuntime};

    let home = crate::setup::home()?;
    let config = args.choice.config()?;
    let space = task_space(&args);

    if let BrowserCommand::Login { url, max_wait } = &args.command {
        let has_display = ferret::browser::login::display_available(crate::setup::env);
        let out = ferret::browser::login::login(
            &config,
            url,
            has_display,
            std::time::Duration::from_secs(*max_wait),
        )
        .await?;
        return print_json(&out);
    }

    if let BrowserCommand::Status = &args.command {
        return print_json(&modes::status_of(&config).await);
    }
    let runtime = ChromiumRuntime::new(config)?;
    let result = run_mode(&runtime, &home, args.command, space, args.json).await;
    let _ = runtime.shutdown().await;
    result
}

/// The task space the flags name: `--site` first, then `--task-space`.
#[cfg(feature = "browser")]
fn task_space(args: &BrowserArgs) -> ferret::browser::TaskSpaceSpec {
    use ferret::browser::TaskSpaceSpec;
    let space = match (&args.site, &args.task_space) {
        (Some(host), _) => TaskSpaceSpec::for_site(host),
        (None, Some(name)) => TaskSpaceSpec::new(name.clone()),
        (None, None) => TaskSpaceSpec::default(),
    };
    TaskSpaceSpec {
        keep: space.keep || args.keep_space,
        ..space
    }
}

/// Run one browser mode on a started runtime.
#[cfg(feature = "browser")]
async fn run_mode(
    rt: &ferret::browser::ChromiumRuntime,
    home: &std::path::Path,
    command: BrowserCommand,
    space: ferret::browser::TaskSpaceSpec,
    json: bool,
) -> CmdResult {
    use ferret::browser::modes;
    match command {
        BrowserCommand::Status => {
            let out = modes::status(rt, home).await;
            print_json(&out)
        }
        BrowserCommand::Search {
            query,
            engine: e,
            n,
            since,
            until,
        } => {
            let req = modes::SearchRequest::new(query)
                .engine(serp_engine(&e)?)
                .n(n)
                .window(time_window(since.as_deref(), until.as_deref())?)
                .space(space);
            let out = modes::search(rt, &req).await?;
            if json {
                return print_json(&out);
            }
            print_search(&out);
            Ok(ExitCode::SUCCESS)
        }
        BrowserCommand::Fetch { url, focus, html } => {
            let mut req = modes::FetchRequest::new(url);
            req.focus = focus;
            req.include_html = html;
            req.space = space;
            let out = modes::fetch(rt, &req).await?;
            if json {
                return print_json(&out);
            }
            say!("{}\n{}\n", out.title, out.final_url);
            say!("{}", out.content);
            Ok(ExitCode::SUCCESS)
        }
        BrowserCommand::Act {
            query,
            engine: e,
            focus,
            since,
        } => {
            let search = modes::SearchRequest::new(query)
                .engine(serp_engine(&e)?)
                .window(time_window(since.as_deref(), None)?)
                .space(space);
            let mut req = modes::ActRequest::new(search);
            req.focus = focus;
            let out = modes::act(rt, &req).await?;
            print_json(&out)
        }
        BrowserCommand::Api { url, origin } => {
            let mut req = modes::ApiRequest::new(url);
            req.origin = origin;
            req.space = space;
            let out = modes::api(rt, &req).await?;
            print_json(&out)
        }
        BrowserCommand::Login { .. } => Err(CliError::usage(
            "sign-in runs in its own visible window: use `ferret browser login <url>`",
        )),
    }
}

/// The `--since` / `--until` window, relative to now.
#[cfg(feature = "browser")]
fn time_window(
    since: Option<&str>,
    until: Option<&str>,
) -> Result<Option<ferret::browser::TimeWindow>, CliError> {
    ferret::browser::TimeWindow::parse(since, until, chrono::Utc::now()).map_err(CliError::usage)
}

/// The `--engine` of a browser search (an unknown name is a usage error).
#[cfg(feature = "browser")]
fn serp_engine(name: &str) -> Result<ferret::browser::SerpEngine, CliError> {
    name.parse::<ferret::browser::SerpEngine>()
        .map_err(CliError::usage)
}

/// The human form of a browser search: a header line, then rank, title, URL.
#[cfg(feature = "browser")]
fn print_search(out: &ferret::browser::modes::SearchOutput) {
    say!(
        "{} ({}, {} results, {:?})",
        out.query,
        out.engine,
        out.count,
        out.status
    );
    for r in &out.results {
        say!("{:>2}. {}\n    {}", r.rank, r.title, r.url);
    }
}

#[cfg(not(feature = "browser"))]
pub async fn run(_args: BrowserArgs) -> CmdResult {
    Err(CliError::internal(
        "this build has no browser: rebuild with the `browser` feature",
    ))
}

#[cfg(not(feature = "browser"))]
pub async fn run_pro(_args: ProArgs) -> CmdResult {
    Err(CliError::internal(
        "this build has no browser: rebuild with the `browser` feature",
    ))
}
