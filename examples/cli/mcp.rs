//! `ferret mcp`: serve the agent tools over MCP (stdio, or streamable HTTP
//! with `--http`).

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;

use crate::output::CmdResult;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio
    /// (e.g. 127.0.0.1:8931).
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// Accept a non-loopback --http address; needs FERRET_MCP_TOKEN, which
    /// every request must then carry as `Authorization: Bearer …`.
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// Report a failure to start as a ferret.error.v1 object on stdout.
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "mcp")]
pub async fn run(args: McpArgs) -> CmdResult {
    use ferret::mcp::http::{self, HttpOptions};
    let options = args.http.map(|addr| HttpOptions {
        addr,
        allow_remote: args.allow_remote,
        token: crate::setup::env("FERRET_MCP_TOKEN"),
    });
    if let Some(o) = &options {
        o.check().map_err(crate::output::CliError::usage)?;
    }
    let tools = Arc::new(
        ferret::agent::Toolbox::from_env()
            .await
            .map_err(|e| e.to_string())?,
    );
    match options {
        None => ferret::mcp::serve_stdio(tools)
            .await
            .map_err(|e| e.to_string())?,
        Some(o) => {
            let server = http::bind(tools, &o).await.map_err(|e| e.to_string())?;
            let addr = server.local_addr().map_err(|e| e.to_string())?;
            crate::progress::note(format!("serving MCP at http://{addr}/mcp"));
            server.run().await.map_err(|e| e.to_string())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "mcp"))]
pub async fn run(_args: McpArgs) -> CmdResult {
    Err("this build has no MCP server: rebuild with the `mcp` feature".into())
}
