//! The MCP server's own cost, warm: a client and the server in one process
//! over an in-memory duplex pipe (what stdio carries, without the process
//! boundary) and over streamable HTTP on loopback.
//!
//! - `mcp/<transport>/tools_list`: one `tools/list` round trip;
//! - `mcp/<transport>/search_local`: one `search` call answered by the
//!   local index (seeded with the embedded user guide in a temporary
//!   Ferret home), compact answer, round trip.
//!
//! `cargo bench --bench mcp`.

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use ferret::agent::Toolbox;
use ferret::evidence::fetch::{BrowserMode, Fetcher};
use ferret::mcp::McpServer;
use ferret::mcp::http::{self, HttpOptions};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

type Client = RunningService<RoleClient, ()>;

async fn toolbox(home: &std::path::Path) -> Arc<Toolbox> {
    let (index, _) = ferret::setup::open_local_index(home).await.unwrap();
    let ferret = ferret::Ferret::builder().engine(index).build().unwrap();
    let fetcher = Fetcher::builder()
        .browser_mode(BrowserMode::Never)
        .build()
        .unwrap();
    Arc::new(Toolbox::new(
        ferret,
        ferret::setup::FetchSetup::new(fetcher),
    ))
}

async fn duplex_client(tools: Arc<Toolbox>) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let running = McpServer::new(tools).serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.unwrap()
}

async fn http_client(tools: Arc<Toolbox>) -> Client {
    let server = http::bind(
        tools,
        &HttpOptions::loopback("127.0.0.1:0".parse().unwrap()),
    )
    .await
    .unwrap();
    let port = server.local_addr().unwrap().port();
    tokio::spawn(server.run());
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{port}/mcp"));
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

fn bench_transport(c: &mut Criterion, rt: &tokio::runtime::Runtime, name: &str, client: &Client) {
    let mut group = c.benchmark_group(format!("mcp/{name}"));
    group.bench_function("tools_list", |b| {
        b.to_async(rt)
            .iter(|| async { client.list_all_tools().await.unwrap() })
    });
    let args = json!({"query": "research ledger constraints"})
        .as_object()
        .cloned()
        .unwrap();
    group.bench_function("search_local", |b| {
        b.to_async(rt).iter(|| async {
            let params = CallToolRequestParams::new("search").with_arguments(args.clone());
            client.call_tool(params).await.unwrap()
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let tools = rt.block_on(toolbox(home.path()));
    let duplex = rt.block_on(duplex_client(tools.clone()));
    bench_transport(c, &rt, "duplex", &duplex);
    let http = rt.block_on(http_client(tools));
    bench_transport(c, &rt, "http", &http);
}

criterion_group!(benches, bench);
criterion_main!(benches);
