//! `ferret mcp`: the [`agent`](crate::agent) tools served over the Model
//! Context Protocol (feature `mcp`, on the `rmcp` crate).
//!
//! - [`McpServer`]: the handler — `tools/list` from
//!   [`crate::agent::definitions`], `tools/call` through
//!   [`Toolbox::call_tool`], progress notifications for long calls, and
//!   cancellation. A failed call is a tool result with `isError: true` and
//!   the `ferret.error.v1` object as its structured content, never a
//!   dropped connection.
//! - [`serve_stdio`]: the stdio transport (what agent hosts spawn).
//! - [`http`]: streamable HTTP at `/mcp`, loopback unless remote access is
//!   asked for with a bearer token.

pub mod http;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::agent::{CallContext, ErrorKind, ToolDef, ToolError, ToolOutput, Toolbox};

/// What the server tells the client about itself.
const INSTRUCTIONS: &str = "Ferret: web search and evidence for agents. Use `search` to find \
    pages, `fetch` to read one, `research` when an answer must be proven by what fetched pages \
    say (it returns each constraint with its quote and URL, and what is still missing). Answers \
    are compact by default (max_tokens, default 2000); pass detail: \"full\" for the whole \
    envelope. Private and local addresses are refused; logged-in browsing needs pro mode, which \
    only the person can switch on with the ferret CLI.";

/// The MCP handler over a [`Toolbox`]. Cheap to clone: each HTTP session
/// shares the same tools.
#[derive(Debug, Clone)]
pub struct McpServer {
    tools: Arc<Toolbox>,
    listed: Arc<Vec<Tool>>,
}

impl McpServer {
    /// A server for `tools`.
    pub fn new(tools: Arc<Toolbox>) -> Self {
        let listed = crate::agent::definitions()
            .iter()
            .map(to_mcp_tool)
            .collect();
        McpServer {
            tools,
            listed: Arc::new(listed),
        }
    }
}

/// A tool definition as MCP lists it.
fn to_mcp_tool(def: &ToolDef) -> Tool {
    let schema = match &def.input_schema {
        Value::Object(map) => map.clone(),
        _ => Default::default(),
    };
    let annotations = ToolAnnotations::with_title(def.title)
        .read_only(def.read_only)
        .destructive(false);
    Tool::new(def.name, def.description.clone(), schema)
        .with_title(def.title)
        .with_annotations(annotations)
}

/// A tool's answer as an MCP result: its text and its structured content.
fn to_result(answer: Result<ToolOutput, ToolError>) -> CallToolResult {
    match answer {
        Ok(out) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(out.text)]);
            result.structured_content = Some(out.structured);
            result
        }
        Err(e) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(format!("error: {e}"))]);
            result.structured_content = Some(e.to_json());
            result
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ferret", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.listed.as_ref().clone(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let input = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let (call, forwarder) = progress_context(&context);
        let answer = tokio::select! {
            biased;
            () = context.ct.cancelled() => {
                Err(ToolError::new(ErrorKind::Cancelled, "the client cancelled the call").in_tool(&request.name))
            }
            answer = self.tools.call_tool(&request.name, input, &call) => answer,
        };
        drop(call);
        if let Some(task) = forwarder {
            let _ = task.await;
        }
        Ok(to_result(answer).into())
    }
}

/// A call context whose progress goes to the client as notifications,
/// when the client asked for them (a progress token), and the task that
/// forwards them (it ends when the context is dropped).
fn progress_context(
    context: &RequestContext<RoleServer>,
) -> (CallContext, Option<tokio::task::JoinHandle<()>>) {
    let Some(token) = context.meta.get_progress_token() else {
        return (CallContext::default(), None);
    };
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let peer = context.peer.clone();
    let task = tokio::spawn(async move {
        while let Some(update) = receiver.recv().await {
            let crate::agent::ProgressUpdate { progress, message } = update;
            let param =
                ProgressNotificationParam::new(token.clone(), progress).with_message(message);
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    let call = CallContext::with_progress(move |update| {
        let _ = sender.send(update);
    });
    (call, Some(task))
}

/// An error of the MCP server itself (not of a tool call).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The transport could not start or failed.
    #[error("MCP transport: {0}")]
    Transport(String),
    /// The HTTP options are unsafe or inconsistent.
    #[error("{0}")]
    Config(String),
}

/// Serve `tools` over stdio until the client closes the connection.
pub async fn serve_stdio(tools: Arc<Toolbox>) -> Result<(), McpError> {
    let service = McpServer::new(tools)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Transport(e.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|e| McpError::Transport(e.to_string()))?;
    Ok(())
}
