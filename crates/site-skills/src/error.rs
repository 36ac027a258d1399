//! [`SkillError`]: why a site-skill call was refused or failed. Each message
//! says what was wrong and what to do; code matches on the variant, and
//! [`SkillError::code`] gives a stable snake_case code for envelopes.

use std::time::Duration;

use ferret_browser::BrowserError;
use serde::{Deserialize, Serialize};

use crate::args::ArgProblem;
use crate::manifest::ValueType;
use crate::violation::ValidationError;

/// What a site-skill call can fail with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SkillError {
    /// A package failed validation.
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    /// No installed package has this id.
    #[error("no site skill {id:?} is installed (installed: {}); run `ferret skills list`", .installed.join(", "))]
    UnknownSite {
        /// The id asked for.
        id: String,
        /// The installed ids.
        installed: Vec<String>,
    },
    /// The package does not declare this browser tool, so it cannot run.
    #[error(
        "site skill {site:?} declares no browser tool {tool:?}; only declared tools run \
         (declared: {})",
        .declared.join(", ")
    )]
    UndeclaredTool {
        /// The package id.
        site: String,
        /// The tool asked for.
        tool: String,
        /// The declared tool names.
        declared: Vec<String>,
    },
    /// The URL is not an absolute URL with a host.
    #[error("{url:?} is not a usable URL: {message}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// Site skills only navigate to HTTPS.
    #[error("{url} is not HTTPS; site skills only open https:// pages")]
    NotHttps {
        /// The URL.
        url: String,
    },
    /// The URL carries a user name or password.
    #[error("{url} carries credentials; remove the user:password@ part")]
    Credentials {
        /// The URL (credentials redacted).
        url: String,
    },
    /// No installed package covers the URL's hostname.
    #[error(
        "no installed site skill covers {host} ({url}); install a package that declares it, or \
         use a plain fetch"
    )]
    NotCovered {
        /// The URL.
        url: String,
        /// Its hostname.
        host: String,
    },
    /// The navigation ended on a page no installed skill covers (a redirect
    /// or script took it elsewhere), or on a non-HTTPS page.
    #[error(
        "navigation to {requested} ended on {landed}, which {}; the page was not used",
        if *.https { "no installed site skill covers" } else { "is not HTTPS" }
    )]
    LeftCoveredDomains {
        /// The URL asked for.
        requested: String,
        /// Where the tab ended up.
        landed: String,
        /// Whether the landing page was HTTPS.
        https: bool,
    },
    /// The active page is not on a domain the package covers.
    #[error(
        "the current page {url} is outside site skill {site:?}'s domains ({}); navigate_site to \
         one of them first",
        .domains.join(", ")
    )]
    DomainMismatch {
        /// The package id.
        site: String,
        /// The page's URL.
        url: String,
        /// The package's domains.
        domains: Vec<String>,
    },
    /// No page is open in the task space yet.
    #[error("no page is open in task space {space:?}; call navigate_site first")]
    NoPage {
        /// The task space.
        space: String,
    },
    /// The arguments do not fit the tool's schema.
    #[error(
        "invalid arguments for {site}.{tool}: {}",
        .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    InvalidArgs {
        /// The package id.
        site: String,
        /// The tool.
        tool: String,
        /// Every problem found.
        problems: Vec<ArgProblem>,
    },
    /// The tool returned a value of another type than it declares.
    #[error(
        "{site}.{tool} returned {got} but declares {}; the result was discarded",
        .expected.as_str()
    )]
    ReturnType {
        /// The package id.
        site: String,
        /// The tool.
        tool: String,
        /// The declared type.
        expected: ValueType,
        /// The JSON type returned.
        got: String,
    },
    /// The page script failed (threw, or its bundle has no such function);
    /// `reason` is its message.
    #[error("{site}.{tool} failed: {reason}")]
    ToolFailed {
        /// The package id.
        site: String,
        /// The tool.
        tool: String,
        /// Why, in the script's words.
        reason: String,
    },
    /// A call took longer than its budget.
    #[error("{operation} took longer than {} s; the page is slow or stuck — retry", .after.as_secs())]
    Timeout {
        /// What was being done.
        operation: String,
        /// The budget.
        after: Duration,
    },
    /// The browser failed.
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// Bad input to a library entry point (unparsable `--args` JSON …).
    #[error("invalid input: {message}")]
    InvalidInput {
        /// What is wrong.
        message: String,
    },
    /// A native adapter or command is unknown or failed.
    #[error("{message}")]
    Native {
        /// What happened.
        message: String,
    },
}

impl SkillError {
    /// A short snake_case code for envelopes.
    pub fn code(&self) -> &'static str {
        match self {
            SkillError::Invalid(_) => "invalid_package",
            SkillError::UnknownSite { .. } => "unknown_site",
            SkillError::UndeclaredTool { .. } => "undeclared_tool",
            SkillError::BadUrl { .. } => "bad_url",
            SkillError::NotHttps { .. } => "not_https",
            SkillError::Credentials { .. } => "credentials_in_url",
            SkillError::NotCovered { .. } => "domain_not_covered",
            SkillError::LeftCoveredDomains { .. } => "left_covered_domains",
            SkillError::DomainMismatch { .. } => "domain_mismatch",
            SkillError::NoPage { .. } => "no_page",
            SkillError::InvalidArgs { .. } => "invalid_args",
            SkillError::ReturnType { .. } => "return_type",
            SkillError::ToolFailed { .. } => "tool_failed",
            SkillError::Timeout { .. } => "timeout",
            SkillError::Browser(e) => e.code(),
            SkillError::InvalidInput { .. } => "invalid_input",
            SkillError::Native { .. } => "native_error",
        }
    }

    /// The failure as the envelope an agent or the CLI gets
    /// (`ferret.skills.error.v1`).
    pub fn envelope(&self) -> ErrorEnvelope {
        ErrorEnvelope {
            schema: ErrorEnvelope::SCHEMA.to_string(),
            code: self.code().to_string(),
            reason: self.to_string(),
        }
    }
}

/// A failure as JSON: `{schema, code, reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorEnvelope {
    /// `ferret.skills.error.v1`.
    pub schema: String,
    /// [`SkillError::code`].
    pub code: String,
    /// The message.
    pub reason: String,
}

impl ErrorEnvelope {
    /// The schema name.
    pub const SCHEMA: &'static str = "ferret.skills.error.v1";
}
