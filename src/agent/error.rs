//! [`ToolError`]: why a tool call failed, as a typed kind and one line —
//! the `ferret.error.v1` object agents read.

use serde::{Deserialize, Serialize};

/// The schema of a serialised [`ToolError`].
pub const ERROR_SCHEMA: &str = "ferret.error.v1";

/// What kind of failure a tool call met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// No tool of that name.
    UnknownTool,
    /// The arguments do not fit the tool's input schema, or a value is
    /// out of range.
    InvalidInput,
    /// The URL guard refused the address (private, local, special-use, …).
    Guard,
    /// The page could not be fetched or read (transport, status, redirects).
    Fetch,
    /// Every engine failed, or the search could not run.
    Engine,
    /// The call ran out of time.
    Timeout,
    /// The browser is not available or failed.
    Browser,
    /// The call would read in the login partition, which needs pro mode;
    /// only the person can switch it on, with `ferret pro enable`.
    ProModeRequired,
    /// The client cancelled the call.
    Cancelled,
    /// Anything else (a bug or an unusable environment).
    Internal,
}

impl ErrorKind {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Guard => "guard",
            ErrorKind::Fetch => "fetch",
            ErrorKind::Engine => "engine",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Browser => "browser",
            ErrorKind::ProModeRequired => "pro_mode_required",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Internal => "internal",
        }
    }
}

/// A failed tool call: `{"schema":"ferret.error.v1","kind":…,"message":…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}: {message}", kind.as_str())]
pub struct ToolError {
    /// Always [`ERROR_SCHEMA`].
    pub schema: String,
    /// What kind of failure.
    pub kind: ErrorKind,
    /// One line: what failed and what to do about it.
    pub message: String,
    /// The tool that failed, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl ToolError {
    /// A failure of `kind`; `message` is cut to its first line.
    pub fn new(kind: ErrorKind, message: impl AsRef<str>) -> Self {
        let line = message.as_ref().lines().next().unwrap_or("").trim();
        ToolError {
            schema: ERROR_SCHEMA.to_string(),
            kind,
            message: line.to_string(),
            tool: None,
        }
    }

    /// An [`ErrorKind::InvalidInput`] failure.
    pub fn invalid(message: impl AsRef<str>) -> Self {
        Self::new(ErrorKind::InvalidInput, message)
    }

    /// The same failure, naming the tool.
    pub fn in_tool(mut self, tool: &str) -> Self {
        self.tool = Some(tool.to_string());
        self
    }

    /// The error as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_else(|_| serde_json::json!({"schema": ERROR_SCHEMA}))
    }
}

impl From<ferret_evidence::fetch::FetchError> for ToolError {
    fn from(e: ferret_evidence::fetch::FetchError) -> Self {
        use ferret_evidence::fetch::FetchError;
        let kind = if e.guard_error().is_some() {
            ErrorKind::Guard
        } else {
            match &e {
                FetchError::Timeout { .. } => ErrorKind::Timeout,
                FetchError::BrowserUnavailable { .. } | FetchError::BrowserFailed { .. } => {
                    browser_kind(&e.to_string())
                }
                FetchError::File { .. } => ErrorKind::InvalidInput,
                _ => ErrorKind::Fetch,
            }
        };
        ToolError::new(kind, e.to_string())
    }
}

impl From<crate::FerretError> for ToolError {
    fn from(e: crate::FerretError) -> Self {
        use crate::FerretError;
        use ferret_core::search::SearchError;
        let kind = match &e {
            FerretError::Search(SearchError::InvalidOption { .. })
            | FerretError::Search(SearchError::Control(_))
            | FerretError::Search(SearchError::Plan(_)) => ErrorKind::InvalidInput,
            FerretError::Search(_) | FerretError::Fanout(_) | FerretError::Config { .. } => {
                ErrorKind::Engine
            }
            FerretError::Browser(m) => browser_kind(m),
            _ => ErrorKind::Internal,
        };
        ToolError::new(kind, e.to_string())
    }
}

/// A browser failure, or the login partition's refusal without pro mode.
pub(crate) fn browser_kind(message: &str) -> ErrorKind {
    if message.contains("pro mode") {
        ErrorKind::ProModeRequired
    } else {
        ErrorKind::Browser
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_object_has_the_schema_kind_and_one_line() {
        let e =
            ToolError::new(ErrorKind::Guard, "blocked: 10.0.0.1 is private\nmore").in_tool("fetch");
        let v = e.to_json();
        assert_eq!(v["schema"], ERROR_SCHEMA);
        assert_eq!(v["kind"], "guard");
        assert_eq!(v["message"], "blocked: 10.0.0.1 is private");
        assert_eq!(v["tool"], "fetch");
    }
}
