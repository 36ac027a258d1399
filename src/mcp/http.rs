//! Streamable HTTP at `/mcp`: bound to loopback unless remote access is
//! asked for, and then only with a bearer token (`FERRET_MCP_TOKEN`);
//! requests without it get 401.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::{McpError, McpServer};
use crate::agent::Toolbox;

/// Where and how the HTTP transport listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// The address to bind (port 0 picks a free one).
    pub addr: SocketAddr,
    /// Accept a non-loopback address (needs `token`).
    pub allow_remote: bool,
    /// The bearer token every request must carry; required for a remote
    /// bind, optional on loopback.
    pub token: Option<String>,
}

impl HttpOptions {
    /// Loopback only, no token.
    pub fn loopback(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            allow_remote: false,
            token: None,
        }
    }

    /// Refuse a non-loopback bind without `allow_remote`, and a remote bind
    /// without a token.
    pub fn check(&self) -> Result<(), McpError> {
        let remote = !self.addr.ip().is_loopback();
        if remote && !self.allow_remote {
            return Err(McpError::Config(format!(
                "{} is not a loopback address: pass --allow-remote and set FERRET_MCP_TOKEN to serve other machines",
                self.addr
            )));
        }
        if remote && self.token.as_deref().is_none_or(|t| t.trim().is_empty()) {
            return Err(McpError::Config(
                "--allow-remote needs a bearer token: set FERRET_MCP_TOKEN".into(),
            ));
        }
        Ok(())
    }
}

/// A bound HTTP transport, ready to [`run`](HttpServer::run).
#[derive(Debug)]
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    stop: CancellationToken,
}

/// Check `options`, bind, and build the `/mcp` service over `tools`.
pub async fn bind(tools: Arc<Toolbox>, options: &HttpOptions) -> Result<HttpServer, McpError> {
    options.check()?;
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|e| McpError::Transport(format!("cannot bind {}: {e}", options.addr)))?;
    let stop = CancellationToken::new();
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    if options.allow_remote {
        // Remote clients name this machine by its own host names; the
        // bearer token is what admits them.
        config = config.disable_allowed_hosts();
    }
    let server = McpServer::new(tools);
    let service: StreamableHttpService<McpServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = options.token.clone().filter(|t| !t.trim().is_empty()) {
        let token: Arc<str> = Arc::from(token);
        router = router.layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let token = token.clone();
                async move { require_token(&token, req, next).await }
            },
        ));
    }
    Ok(HttpServer {
        listener,
        router,
        stop,
    })
}

impl HttpServer {
    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, McpError> {
        self.listener
            .local_addr()
            .map_err(|e| McpError::Transport(e.to_string()))
    }

    /// A token that stops the server when cancelled.
    pub fn stopper(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Serve until stopped.
    pub async fn run(self) -> Result<(), McpError> {
        let stop = self.stop.clone();
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move { stop.cancelled_owned().await })
            .await
            .map_err(|e| McpError::Transport(e.to_string()))
    }
}

/// 401 unless the request carries `Authorization: Bearer <token>`.
async fn require_token(token: &str, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(given) if same_secret(given.as_bytes(), token.as_bytes()) => next.run(req).await,
        _ => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "a bearer token is required (Authorization: Bearer <FERRET_MCP_TOKEN>)",
        )
            .into_response(),
    }
}

/// Compare two secrets in time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_bind_needs_allow_remote_and_a_token() {
        let remote: SocketAddr = "0.0.0.0:0".parse().unwrap();
        assert!(HttpOptions::loopback(remote).check().is_err());
        let mut options = HttpOptions {
            allow_remote: true,
            ..HttpOptions::loopback(remote)
        };
        assert!(
            options
                .check()
                .unwrap_err()
                .to_string()
                .contains("FERRET_MCP_TOKEN")
        );
        options.token = Some("s3cret".into());
        assert!(options.check().is_ok());
        assert!(
            HttpOptions::loopback("127.0.0.1:0".parse().unwrap())
                .check()
                .is_ok()
        );
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
    }
}
