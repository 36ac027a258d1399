//! Output helpers shared by the commands: JSON envelopes, one-line errors,
//! text wrapping for people.

use std::process::ExitCode;

use serde::Serialize;

/// What a command ends with: its exit code, or the failure to report.
pub type CmdResult = Result<ExitCode, CliError>;

/// The schema of the JSON error a failing command prints with `--json`.
pub const ERROR_SCHEMA: &str = "ferret.error.v1";

/// What kind of failure a command had: the `kind` of `ferret.error.v1`,
/// which also decides the exit code (2 for usage errors, 1 otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad arguments: an unknown flag or value, an unknown engine name, an
    /// empty question, flags that contradict each other.
    Usage,
    /// Input that cannot be used: stdin or a file that is not JSON, a
    /// document of another schema, a file or folder that is not there.
    Input,
    /// A refusal of the URL guard or of the pro-mode gate.
    Guard,
    /// The network failed: DNS, a refused connection, TLS, redirects.
    Network,
    /// A page was reached but not read: an error status, a browser that
    /// could not start or render.
    Fetch,
    /// A search engine or language model failed.
    Engine,
    /// A time budget ran out.
    Timeout,
    /// Anything else: the environment, the file system, a bug.
    Internal,
}

impl ErrorKind {
    /// The name in `ferret.error.v1`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::Input => "input",
            ErrorKind::Guard => "guard",
            ErrorKind::Network => "network",
            ErrorKind::Fetch => "fetch",
            ErrorKind::Engine => "engine",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Internal => "internal",
        }
    }

    /// 2 for a usage error, 1 for any other failure.
    pub fn exit_code(self) -> ExitCode {
        match self {
            ErrorKind::Usage => ExitCode::from(2),
            _ => ExitCode::FAILURE,
        }
    }
}

/// A command's failure: its kind and one line saying what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong (only its first line is printed).
    pub message: String,
}

impl CliError {
    /// A failure of `kind`.
    pub fn new(kind: ErrorKind, message: impl std::fmt::Display) -> Self {
        CliError {
            kind,
            message: message.to_string(),
        }
    }

    /// Bad arguments (exit 2).
    pub fn usage(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    /// Input that cannot be used.
    pub fn input(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Input, message)
    }

    /// A refusal of the URL guard or the pro-mode gate.
    pub fn guard(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Guard, message)
    }

    /// A network failure.
    pub fn network(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Network, message)
    }

    /// A page that was reached but not read.
    pub fn fetch(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Fetch, message)
    }

    /// A failing engine or model.
    pub fn engine(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Engine, message)
    }

    /// A time budget that ran out.
    pub fn timeout(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Timeout, message)
    }

    /// Anything else.
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// The message's first line, trimmed.
    pub fn one_line(&self) -> &str {
        self.message.lines().next().unwrap_or("").trim()
    }

    /// The `ferret.error.v1` object, on one line:
    /// `{"schema":"ferret.error.v1","kind":"usage","message":"…"}`.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct ErrorJson<'a> {
            schema: &'a str,
            kind: &'a str,
            message: &'a str,
        }
        let json = ErrorJson {
            schema: ERROR_SCHEMA,
            kind: self.kind.as_str(),
            message: self.one_line(),
        };
        serde_json::to_string(&json).unwrap_or_default()
    }

    /// Report the failure: the JSON error on stdout when `json`, always the
    /// one `ferret: error:` line on stderr; the exit code of its kind.
    pub fn report(&self, json: bool) -> ExitCode {
        if json {
            write_line(format_args!("{}", self.to_json()));
        }
        eprintln!("ferret: error: {}", self.one_line());
        self.kind.exit_code()
    }
}

/// A plain message is an internal failure; call sites that know better use
/// the kind's constructor.
impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::internal(message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        CliError::internal(message)
    }
}

/// For setup code that still speaks in strings: the message, its kind
/// dropped.
impl From<CliError> for String {
    fn from(error: CliError) -> Self {
        error.message
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Whether the command line asks for JSON: `--json`, `--format json` or
/// `--format=json` before any `--` (after it, words are values). Read from
/// the raw arguments so that even a line clap refuses gets a JSON error.
pub fn wants_json<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> bool {
    let words: Vec<&std::ffi::OsStr> = args.iter().map(AsRef::as_ref).collect();
    let words = words.split(|w| *w == "--").next().unwrap_or(&[]);
    words.iter().enumerate().any(|(i, w)| {
        *w == "--json"
            || *w == "--format=json"
            || (*w == "--format" && words.get(i + 1).is_some_and(|next| *next == "json"))
    })
}

/// Print `value` as pretty JSON on stdout.
pub fn print_json<T: Serialize>(value: &T) -> CmdResult {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::internal(format!("cannot serialise the output: {e}")))?;
    write_line(format_args!("{text}"));
    Ok(ExitCode::SUCCESS)
}

/// Write one line to stdout; a closed pipe (`ferret … | head`) ends the
/// process quietly, any other write error with a one-line message.
pub fn write_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{args}").and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("ferret: error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// Report a command-line parsing error as one line, with the JSON error on
/// stdout when `json` (help and version are printed whole).
pub fn clap_error(e: clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind as Clap;
    match e.kind() {
        Clap::DisplayHelp | Clap::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        // A person gets the help (on stderr); a script the error contract.
        Clap::DisplayHelpOnMissingArgumentOrSubcommand if json => {
            let rendered = e.render().to_string();
            let usage = rendered
                .lines()
                .find_map(|l| l.trim().strip_prefix("Usage:"))
                .map(|u| format!("; usage: {}", u.trim()))
                .unwrap_or_default();
            CliError::usage(format!("a subcommand is missing{usage} (see --help)")).report(true)
        }
        Clap::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => CliError::usage(format!("{} (see --help)", clap_line(&e))).report(json),
    }
}

/// clap's message as one line, without its usage block and its own hint
/// ("For more information, try '--help'."), which ours replaces.
fn clap_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let before_usage = rendered.split("Usage:").next().unwrap_or("");
    let flat = before_usage
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let line = flat.trim_start_matches("error:").trim();
    let line = line
        .split("For more information, try")
        .next()
        .unwrap_or(line)
        .trim();
    if line.is_empty() {
        "invalid arguments".to_string()
    } else {
        line.to_string()
    }
}

// ------------------------------------------------ the library's failures
//
// Each library error keeps its message; its variant decides the kind.

impl From<ferret::core::plan::PlanError> for CliError {
    fn from(e: ferret::core::plan::PlanError) -> Self {
        use ferret::core::plan::PlanError;
        match e {
            PlanError::Planner { .. } => CliError::engine(e),
            _ => CliError::usage(e),
        }
    }
}

impl From<ferret::core::fanout::FanoutError> for CliError {
    fn from(e: ferret::core::fanout::FanoutError) -> Self {
        use ferret::core::fanout::FanoutError;
        match e {
            FanoutError::UnknownEngines { .. } | FanoutError::NoSubQueries => CliError::usage(e),
            _ => CliError::internal(e),
        }
    }
}

impl From<ferret::core::search::SearchError> for CliError {
    fn from(e: ferret::core::search::SearchError) -> Self {
        use ferret::core::search::SearchError;
        match e {
            SearchError::Plan(p) => p.into(),
            SearchError::Fanout(f) => f.into(),
            _ => CliError::usage(e),
        }
    }
}

impl From<ferret::FerretError> for CliError {
    fn from(e: ferret::FerretError) -> Self {
        use ferret::FerretError;
        match e {
            FerretError::Search(s) => s.into(),
            FerretError::Fanout(f) => f.into(),
            _ => CliError::internal(e),
        }
    }
}

impl From<ferret::evidence::FetchError> for CliError {
    fn from(e: ferret::evidence::FetchError) -> Self {
        use ferret::evidence::FetchError;
        match e {
            FetchError::Blocked { .. } | FetchError::RedirectBlocked { .. } => CliError::guard(e),
            FetchError::Timeout { .. } => CliError::timeout(e),
            FetchError::Transport { .. }
            | FetchError::TooManyRedirects { .. }
            | FetchError::InvalidRedirect { .. } => CliError::network(e),
            FetchError::File { .. } => CliError::input(e),
            FetchError::Client { .. } => CliError::internal(e),
            _ => CliError::fetch(e),
        }
    }
}

impl From<ferret::evidence::refs::FetchRefsError> for CliError {
    fn from(e: ferret::evidence::refs::FetchRefsError) -> Self {
        use ferret::evidence::refs::{FetchRefsError, RefsError};
        match e {
            FetchRefsError::Refs(RefsError::NotAThread(_)) => CliError::usage(e),
            FetchRefsError::Refs(_) => CliError::fetch(e),
            FetchRefsError::Fetch { .. } => CliError::network(e),
        }
    }
}

impl From<ferret::evidence::research::ResearchError> for CliError {
    fn from(e: ferret::evidence::research::ResearchError) -> Self {
        use ferret::evidence::research::ResearchError;
        match e {
            ResearchError::Plan(p) => p.into(),
            ResearchError::Search(s) => s.into(),
            ResearchError::InvalidOption { .. } => CliError::usage(e),
            ResearchError::InvalidInput { .. } => CliError::input(e),
            _ => CliError::internal(e),
        }
    }
}

#[cfg(feature = "local-index")]
impl From<ferret::engines::local_index::LocalIndexError> for CliError {
    fn from(e: ferret::engines::local_index::LocalIndexError) -> Self {
        use ferret::engines::local_index::LocalIndexError;
        match e {
            LocalIndexError::NotADirectory { .. } | LocalIndexError::NotARoot { .. } => {
                CliError::input(e)
            }
            LocalIndexError::InvalidBaseUrl { .. } => CliError::usage(e),
            _ => CliError::internal(e),
        }
    }
}

#[cfg(feature = "browser")]
impl From<ferret::browser::BrowserError> for CliError {
    fn from(e: ferret::browser::BrowserError) -> Self {
        use ferret::browser::BrowserError;
        match e {
            BrowserError::Blocked { .. } | BrowserError::ProModeRequired { .. } => {
                CliError::guard(e)
            }
            BrowserError::Timeout { .. } => CliError::timeout(e),
            BrowserError::InvalidInput { .. } => CliError::usage(e),
            BrowserError::Navigation { .. } => CliError::network(e),
            BrowserError::SerpBlocked { .. } => CliError::engine(e),
            BrowserError::Io { .. } => CliError::internal(e),
            _ => CliError::fetch(e),
        }
    }
}

#[cfg(feature = "browser")]
impl From<ferret::browser::MergeError> for CliError {
    fn from(e: ferret::browser::MergeError) -> Self {
        CliError::input(e)
    }
}

#[cfg(feature = "browser")]
impl From<ferret::site_skills::SkillError> for CliError {
    fn from(e: ferret::site_skills::SkillError) -> Self {
        use ferret::site_skills::SkillError;
        match e {
            SkillError::Browser(b) => b.into(),
            SkillError::NotHttps { .. }
            | SkillError::Credentials { .. }
            | SkillError::NotCovered { .. }
            | SkillError::LeftCoveredDomains { .. }
            | SkillError::DomainMismatch { .. } => CliError::guard(e),
            SkillError::UnknownSite { .. }
            | SkillError::UndeclaredTool { .. }
            | SkillError::BadUrl { .. }
            | SkillError::InvalidArgs { .. }
            | SkillError::InvalidInput { .. } => CliError::usage(e),
            SkillError::Invalid(_) => CliError::input(e),
            SkillError::Timeout { .. } => CliError::timeout(e),
            _ => CliError::fetch(e),
        }
    }
}

/// Cut `text` to at most `max` characters on a character boundary, adding
/// an ellipsis when cut.
pub fn clip(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut out: String = flat.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Parse a comma-separated list, dropping empty items.
pub fn comma_list(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// How a report prints: for people, compact (sized for a model: what the
/// MCP tools answer), or its JSON envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// For people (the default).
    Text,
    /// The compact rendering within `--max-tokens`.
    Compact,
    /// The JSON envelope (the same as `--json`).
    Json,
}

/// `--format` and `--max-tokens`, flattened into `search` and `research`.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct FormatArgs {
    /// text (for people), compact (sized for a model) or json.
    #[arg(long, value_enum, value_name = "text|compact|json")]
    pub format: Option<ReportFormat>,
    /// The compact rendering's budget in estimated tokens (200–100000,
    /// default 2000; docs/agents.md says how tokens are estimated).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
}

impl FormatArgs {
    /// The format, `--json` counting as `--format json`.
    pub fn format(&self, json: bool) -> ReportFormat {
        if json {
            ReportFormat::Json
        } else {
            self.format.unwrap_or(ReportFormat::Text)
        }
    }

    /// The compact budget (checked even when another format is printed).
    pub fn budget(&self) -> Result<usize, CliError> {
        compact_budget(self.max_tokens)
    }
}

/// A `--max-tokens` value checked against the allowed range.
pub fn compact_budget(max_tokens: Option<u32>) -> Result<usize, CliError> {
    ferret::agent::inputs::budget(max_tokens).map_err(|e| CliError::usage(e.message))
}

/// The most a JSON input (stdin rows, a plan, results or schema file) may
/// hold; more is a typed input error, never unbounded memory.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Read a whole JSON input named `label`, at most [`MAX_INPUT_BYTES`].
pub fn read_input(label: &str, reader: impl std::io::Read) -> Result<String, CliError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::input(format!("cannot read {label}: {e}")))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(CliError::input(format!(
            "{label} is larger than {} MiB; give fewer rows",
            MAX_INPUT_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| CliError::input(format!("{label} is not UTF-8 text")))
}

/// Read stdin as a JSON input ([`read_input`]).
pub fn read_stdin() -> Result<String, CliError> {
    read_input("stdin", std::io::stdin().lock())
}

/// Read the regular file at `path` as a JSON input ([`read_input`]).
pub fn read_file(path: &std::path::Path) -> Result<String, CliError> {
    let label = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| CliError::input(format!("cannot read {label}: {e}")))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(CliError::input(format!("{label} is not a regular file")));
    }
    read_input(&label, file)
}
