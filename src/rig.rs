//! Ferret's tools for rig agents (feature `rig`): [`SearchTool`],
//! [`FetchTool`] and [`ResearchTool`] implement rig-core's [`PortableTool`],
//! so a rig agent registers them like any of its own tools.
//!
//! ```no_run
//! # async fn demo() -> Result<(), ferret::FerretError> {
//! use std::sync::Arc;
//!
//! let toolbox = Arc::new(ferret::agent::Toolbox::from_env().await?);
//! let (search, fetch, research) = ferret::rig::tools(toolbox);
//! // rig_agent::AgentBuilder::new(model).tool(search).tool(fetch).tool(research)
//! # let _ = (search, fetch, research);
//! # Ok(()) }
//! ```
//!
//! - Each tool's name, description and JSON Schema are the agent tool
//!   table's ([`crate::agent::definition`]), the ones the MCP server lists.
//! - A call runs through [`Toolbox::call_tool`]: the arguments are parsed
//!   there, strictly, so arguments that do not fit the input fail as a
//!   `ferret.error.v1` `invalid_input` failure, the same as over MCP (only
//!   text that is not JSON at all is refused by rig itself).
//! - The model reads the toolbox's text: the compact answer within
//!   `max_tokens`, or the whole envelope as JSON with `detail: "full"`. It is
//!   a text block because the compact answer is written to be read, and
//!   most providers turn a JSON block into its JSON text anyway.
//! - A failure reaches rig as a [`ToolExecutionError`]: rig's kind for its
//!   policies (retries, telemetry), the Ferret kind as its code, the
//!   `ferret.error.v1` object as what the model reads, and the [`ToolError`]
//!   itself as its source (`downcast_ref::<ToolError>()`).

use std::sync::Arc;

use rig_core::tool::{PortableTool, ToolErrorKind, ToolExecutionError, ToolOutput};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::agent::inputs::{FetchInput, ResearchInput, SearchInput};
use crate::agent::{CallContext, ErrorKind, ToolError, Toolbox};

/// A tool's arguments: an input a Rust caller built (`SearchInput { .. }.into()`),
/// or the JSON a model sent, which the toolbox parses strictly when the
/// tool runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Arguments<T>(Sent<T>);

#[derive(Debug, Clone, PartialEq)]
enum Sent<T> {
    Input(T),
    Json(Value),
}

impl<T> From<T> for Arguments<T> {
    fn from(input: T) -> Self {
        Arguments(Sent::Input(input))
    }
}

impl<T> Arguments<T> {
    /// Arguments as JSON, checked against the input type only when the tool
    /// runs.
    pub fn from_json(json: Value) -> Self {
        Arguments(Sent::Json(json))
    }
}

impl<T: Serialize> Arguments<T> {
    /// The arguments as the JSON the toolbox reads.
    fn into_json(self) -> Result<Value, ToolError> {
        match self.0 {
            Sent::Input(input) => serde_json::to_value(input).map_err(|e| {
                ToolError::new(
                    ErrorKind::Internal,
                    format!("cannot write the arguments: {e}"),
                )
            }),
            Sent::Json(json) => Ok(json),
        }
    }
}

/// Any JSON value is accepted here: whether it fits the input is the
/// toolbox's judgement, reported as a `ferret.error.v1` failure.
impl<'de, T> Deserialize<'de> for Arguments<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from_json)
    }
}

/// One Ferret tool as a rig tool: a struct over the toolbox and its
/// `PortableTool` impl, all of it read from the tool table.
macro_rules! rig_tool {
    ($(#[$doc:meta])* $tool:ident, $name:literal, $input:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $tool {
            toolbox: Arc<Toolbox>,
        }

        impl $tool {
            /// The tool over `toolbox`.
            pub fn new(toolbox: Arc<Toolbox>) -> Self {
                $tool { toolbox }
            }
        }

        impl PortableTool for $tool {
            const NAME: &'static str = $name;
            type Args = Arguments<$input>;
            type Output = String;
            type Error = ToolError;

            fn description(&self) -> String {
                description(Self::NAME)
            }

            fn parameters(&self) -> Value {
                parameters(Self::NAME)
            }

            fn map_error(&self, error: ToolError) -> ToolExecutionError {
                execution_error(error)
            }

            async fn call(&self, args: Self::Args) -> Result<String, ToolError> {
                run(&self.toolbox, Self::NAME, args.into_json()?).await
            }
        }
    };
}

rig_tool!(
    /// `search` for rig: many engines at once, fused and deduplicated.
    SearchTool,
    "search",
    SearchInput
);

rig_tool!(
    /// `fetch` for rig: one page's verdict, highlights and main text.
    FetchTool,
    "fetch",
    FetchInput
);

rig_tool!(
    /// `research` for rig: a question answered with proof from fetched pages.
    ResearchTool,
    "research",
    ResearchInput
);

/// The three tools over one toolbox, to register each with a rig agent
/// (`AgentBuilder::tool`) or a rig tool set.
pub fn tools(toolbox: Arc<Toolbox>) -> (SearchTool, FetchTool, ResearchTool) {
    (
        SearchTool::new(toolbox.clone()),
        FetchTool::new(toolbox.clone()),
        ResearchTool::new(toolbox),
    )
}

/// The tool table's description of `name`.
fn description(name: &str) -> String {
    crate::agent::definition(name)
        .map(|d| d.description.clone())
        .unwrap_or_default()
}

/// The tool table's input schema of `name`.
fn parameters(name: &str) -> Value {
    crate::agent::definition(name)
        .map(|d| d.input_schema.clone())
        .unwrap_or_else(|| serde_json::json!({"type": "object"}))
}

/// Run `name` through the toolbox; the model reads its text.
async fn run(toolbox: &Toolbox, name: &str, input: Value) -> Result<String, ToolError> {
    let output = toolbox
        .call_tool(name, input, &CallContext::default())
        .await?;
    Ok(output.text)
}

/// A Ferret failure as rig's error: rig's kind, the Ferret kind as the
/// code, the `ferret.error.v1` object for the model, the error as source.
fn execution_error(error: ToolError) -> ToolExecutionError {
    ToolExecutionError::new(rig_kind(error.kind), error.to_string())
        .with_code(error.kind.as_str())
        .with_model_output(ToolOutput::json(error.to_json()))
        .with_source(error)
}

/// The rig kind closest to a Ferret kind (rig decides retries by it).
fn rig_kind(kind: ErrorKind) -> ToolErrorKind {
    match kind {
        ErrorKind::UnknownTool => ToolErrorKind::NotFound,
        ErrorKind::InvalidInput => ToolErrorKind::InvalidArgs,
        ErrorKind::Guard | ErrorKind::ProModeRequired => ToolErrorKind::PermissionDenied,
        ErrorKind::Fetch => ToolErrorKind::Network,
        ErrorKind::Engine => ToolErrorKind::Provider,
        ErrorKind::Timeout => ToolErrorKind::Timeout,
        ErrorKind::Cancelled => ToolErrorKind::Cancelled,
        ErrorKind::Browser | ErrorKind::Internal => ToolErrorKind::Other,
    }
}
