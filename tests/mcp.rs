//! `ferret mcp` driven by a real MCP client (rmcp's): the stdio transport
//! of the built binary, and the streamable HTTP transport in process,
//! against loopback pages, the local index and in-process engines.

#![cfg(feature = "mcp")]

#[path = "support/process.rs"]
mod process;
#[path = "support/web.rs"]
mod web;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use ferret::agent::Toolbox;
use ferret::core::engine::{
    Engine, EngineCapabilities, EngineHit, EngineKind, EngineRequest, EngineResponse,
};
use ferret::core::testing::StaticEngine;
use ferret::core::{EngineError, Provenance, Runtime};
use ferret::evidence::fetch::{BrowserMode, Fetcher};
use ferret::mcp::http::{self, HttpOptions};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, Request};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use web::{LocalWeb, Response};

type Client = RunningService<RoleClient, ()>;

const ARTICLE: &str = r#"<html><head><title>The Lumen 3 mirror</title>
<script type="application/ld+json">{"@type":"Product","name":"Lumen 3","material":"beryllium"}</script>
</head><body><article><h1>The Lumen 3 mirror</h1>
<p>The Lumen 3 primary mirror is made of beryllium, polished to a figure of 20 nanometres.</p>
<p>It is cooled below 40 kelvin by a passive sunshield, and it weighs 21 kilograms in all.</p>
<p>Engineers chose beryllium for its stiffness at cryogenic temperatures and its low mass.</p>
</article></body></html>"#;

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

async fn call(client: &Client, name: &'static str, arguments: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args(arguments)))
        .await
        .expect("the call is answered")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn error_kind(result: &CallToolResult) -> Option<String> {
    (result.is_error == Some(true)).then(|| {
        result
            .structured_content
            .as_ref()
            .and_then(|s| s["kind"].as_str())
            .unwrap_or("")
            .to_string()
    })
}

/// A loopback site: an article, and a page that never answers in time.
fn site() -> LocalWeb {
    LocalWeb::start(|req| {
        if req.path.starts_with("/slow") {
            std::thread::sleep(Duration::from_secs(20));
        }
        Response::html(ARTICLE)
    })
}

/// An engine whose call never ends, and says whether it was dropped
/// (cancelled) before it ended.
#[derive(Debug, Clone)]
struct HangingEngine {
    dropped: Arc<AtomicBool>,
}

struct DropFlag(Arc<AtomicBool>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[async_trait]
impl Engine for HangingEngine {
    fn name(&self) -> &str {
        "hanging"
    }
    fn capabilities(&self) -> EngineCapabilities {
        EngineCapabilities::new(EngineKind::Web)
    }
    async fn search(&self, _request: &EngineRequest) -> Result<EngineResponse, EngineError> {
        let _flag = DropFlag(self.dropped.clone());
        std::future::pending::<()>().await;
        Ok(EngineResponse::new(
            Provenance::public(Runtime::Http),
            Vec::new(),
        ))
    }
}

/// A fetcher that may read loopback pages (the test's own servers), with
/// no browser.
fn loopback_fetch() -> ferret::setup::FetchSetup {
    let guard = ferret::core::guard::UrlGuard::new().allow_private(true);
    let fetcher = Fetcher::builder()
        .guard(guard)
        .browser_mode(BrowserMode::Never)
        .build()
        .unwrap();
    ferret::setup::FetchSetup::new(fetcher)
}

/// Tools over an in-process engine whose one hit is the loopback article.
fn toolbox(site: &LocalWeb) -> Arc<Toolbox> {
    let hit = EngineHit::new(
        1,
        site.url("/lumen"),
        "The Lumen 3 mirror",
        "made of beryllium",
    );
    let ferret = ferret::Ferret::builder()
        .engine(StaticEngine::with_hits("static", vec![hit]))
        .build()
        .unwrap();
    Arc::new(Toolbox::new(ferret, loopback_fetch()))
}

/// Tools whose only engine never answers.
fn hanging_toolbox(engine: HangingEngine) -> Arc<Toolbox> {
    let ferret = ferret::Ferret::builder()
        .bare_engine(engine)
        .build()
        .unwrap();
    Arc::new(Toolbox::new(ferret, loopback_fetch()))
}

/// Serve `tools` over HTTP on a loopback port; the client connects with
/// `token` when given.
async fn http_client(
    tools: Arc<Toolbox>,
    options: HttpOptions,
    token: Option<&str>,
) -> (Client, String) {
    let server = http::bind(tools, &options).await.unwrap();
    let port = server.local_addr().unwrap().port();
    tokio::spawn(server.run());
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
    if let Some(t) = token {
        config = config.auth_header(t);
    }
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    (client, url)
}

/// Every tool is listed with an object input schema and a description.
async fn assert_tools_listed(client: &Client) {
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "search",
        "fetch",
        "research",
        "verify",
        "extract",
        "plan",
        "navigate_site",
        "read_site_skills",
        "run_site_browser_tool",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    for t in &tools {
        assert_eq!(
            t.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            t.name
        );
        assert!(
            t.description.as_deref().is_some_and(|d| d.len() > 40),
            "{}",
            t.name
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_serves_every_core_tool_against_loopback_pages() {
    let site = site();
    let (client, _) = http_client(
        toolbox(&site),
        HttpOptions::loopback("127.0.0.1:0".parse().unwrap()),
        None,
    )
    .await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("ferret")
    );
    assert_tools_listed(&client).await;

    let search = call(&client, "search", json!({"query": "lumen mirror material"})).await;
    assert_ne!(search.is_error, Some(true), "{}", text(&search));
    let top = site.url("/lumen");
    assert!(text(&search).contains(&top), "{}", text(&search));
    let digest = search.structured_content.clone().unwrap();
    assert_eq!(digest["results"][0]["url"], top.as_str());

    let full = call(
        &client,
        "search",
        json!({"query": "lumen mirror", "detail": "full"}),
    )
    .await;
    assert_eq!(
        full.structured_content.unwrap()["schema"],
        "ferret.search.v1"
    );

    let fetch = call(
        &client,
        "fetch",
        json!({"url": top, "query": "what is the mirror made of"}),
    )
    .await;
    assert_ne!(fetch.is_error, Some(true), "{}", text(&fetch));
    assert!(text(&fetch).contains("beryllium"), "{}", text(&fetch));

    let verify = call(&client, "verify", json!({"url": top, "browser": "never"})).await;
    assert_eq!(
        verify.structured_content.unwrap()["schema"],
        "ferret.verify.v1"
    );

    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}, "material": {"type": "string"}}, "required": ["name", "material"]});
    let extract = call(
        &client,
        "extract",
        json!({"url": top, "schema": schema, "browser": "never"}),
    )
    .await;
    let outcome = extract.structured_content.unwrap();
    assert_eq!(outcome["data"]["material"], "beryllium", "{outcome}");

    let plan = call(
        &client,
        "plan",
        json!({"query": "Is the Lumen 3 mirror made of beryllium?"}),
    )
    .await;
    assert_eq!(plan.structured_content.unwrap()["schema"], "ferret.plan.v1");

    let rows = json!([{"url": top, "title": "The Lumen 3 mirror", "snippet": "beryllium"}]);
    let research = call(
        &client,
        "research",
        json!({
            "question": "Is the Lumen 3 mirror made of beryllium and cooled below 40 kelvin?",
            "results": rows, "browser": "never", "deadline_seconds": 20
        }),
    )
    .await;
    assert_ne!(research.is_error, Some(true), "{}", text(&research));
    let digest = research.structured_content.clone().unwrap();
    assert!(digest["status"].is_string(), "{digest}");
    assert!(text(&research).contains("status:"), "{}", text(&research));
    assert!(
        text(&research).contains(&top),
        "the quote's URL is shown: {}",
        text(&research)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_call_is_an_error_result_and_the_server_keeps_serving() {
    let site = site();
    let (client, _) = http_client(
        toolbox(&site),
        HttpOptions::loopback("127.0.0.1:0".parse().unwrap()),
        None,
    )
    .await;
    let bad = call(&client, "search", json!({"qury": "typo"})).await;
    assert_eq!(
        error_kind(&bad).as_deref(),
        Some("invalid_input"),
        "{}",
        text(&bad)
    );
    assert!(text(&bad).contains("qury"), "{}", text(&bad));
    let unknown = call(&client, "no_such_tool", json!({})).await;
    assert_eq!(error_kind(&unknown).as_deref(), Some("unknown_tool"));
    let budget = call(&client, "search", json!({"query": "x", "max_tokens": 5})).await;
    assert_eq!(error_kind(&budget).as_deref(), Some("invalid_input"));
    let good = call(&client, "search", json!({"query": "lumen"})).await;
    assert_ne!(good.is_error, Some(true));
    client.cancel().await.unwrap();
}

/// `fetch` and `verify` take the page cache's mode per call.
#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_and_verify_choose_the_page_cache_per_call() {
    let site = site();
    let home = process::temp_dir("mcp-page-cache");
    let cache = ferret::evidence::fetch::PageCache::open(home.join("pages.db")).unwrap();
    let fetcher = Fetcher::builder()
        .guard(ferret::core::guard::UrlGuard::new().allow_private(true))
        .browser_mode(BrowserMode::Never)
        .page_cache(cache)
        .build()
        .unwrap();
    let ferret = ferret::Ferret::builder()
        .engine(StaticEngine::with_hits("static", Vec::new()))
        .build()
        .unwrap();
    let tools = Arc::new(Toolbox::new(
        ferret,
        ferret::setup::FetchSetup::new(fetcher),
    ));
    let (client, _) = http_client(
        tools,
        HttpOptions::loopback("127.0.0.1:0".parse().unwrap()),
        None,
    )
    .await;
    let url = site.url("/cached");
    let mut seen = Vec::new();
    for cache in [None, None, Some("refresh"), Some("off")] {
        let mut arguments = json!({"url": url, "detail": "full"});
        if let Some(mode) = cache {
            arguments["cache"] = json!(mode);
        }
        let page = call(&client, "fetch", arguments).await;
        assert_ne!(page.is_error, Some(true), "{}", text(&page));
        seen.push(page.structured_content.unwrap()["cache"].clone());
    }
    assert_eq!(seen, ["miss", "hit", "refreshed", "bypass"]);
    let verify = call(&client, "verify", json!({"url": url, "cache": "on"})).await;
    assert_ne!(verify.is_error, Some(true), "{}", text(&verify));
    let bad = call(&client, "fetch", json!({"url": url, "cache": "sometimes"})).await;
    assert_eq!(
        error_kind(&bad).as_deref(),
        Some("invalid_input"),
        "{}",
        text(&bad)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_long_research_call_stops_its_work() {
    let dropped = Arc::new(AtomicBool::new(false));
    let tools = hanging_toolbox(HangingEngine {
        dropped: dropped.clone(),
    });
    let (client, _) = http_client(
        tools,
        HttpOptions::loopback("127.0.0.1:0".parse().unwrap()),
        None,
    )
    .await;
    let request = ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("research").with_arguments(args(
            json!({"question": "Is the Lumen 3 mirror made of beryllium?", "browser": "never"}),
        )),
    ));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !dropped.load(Ordering::SeqCst),
        "the engine call is still running"
    );
    handle
        .cancel(Some("the user changed their mind".into()))
        .await
        .unwrap();
    let started = Instant::now();
    while !dropped.load(Ordering::SeqCst) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the cancelled call kept running"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let plan = call(&client, "plan", json!({"query": "lumen"})).await;
    assert_ne!(plan.is_error, Some(true));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_bind_needs_the_bearer_token() {
    let site = site();
    let options = HttpOptions {
        addr: "0.0.0.0:0".parse().unwrap(),
        allow_remote: true,
        token: Some("s3cret-token".into()),
    };
    let server = http::bind(toolbox(&site), &options).await.unwrap();
    let port = server.local_addr().unwrap().port();
    tokio::spawn(server.run());
    let url = format!("http://127.0.0.1:{port}/mcp");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let anonymous = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init)
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header("s3cret-token");
    let client = ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    assert_tools_listed(&client).await;
    client.cancel().await.unwrap();
    let refused = HttpOptions {
        token: None,
        ..options
    };
    assert!(http::bind(toolbox(&site), &refused).await.is_err());
}

/// The built binary over stdio, as an agent host spawns it: offline, the
/// local index seeded from the embedded guide, the default URL guard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_binary_answers_from_the_local_index_and_refuses_loopback() {
    let site = site();
    let home = process::temp_dir("mcp-stdio");
    let std_cmd = process::hermetic_command(&home);
    let mut cmd = tokio::process::Command::from(std_cmd);
    cmd.arg("mcp").env("FERRET_OFFLINE", "1");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    assert_tools_listed(&client).await;

    let search = call(
        &client,
        "search",
        json!({"query": "ferret research ledger"}),
    )
    .await;
    assert_ne!(search.is_error, Some(true), "{}", text(&search));
    let digest = search.structured_content.clone().unwrap();
    let top = digest["results"][0]["url"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(top.starts_with("https://local.invalid/"), "{digest}");
    assert!(text(&search).contains(&top));

    let refused = call(&client, "fetch", json!({"url": site.url("/lumen")})).await;
    assert_eq!(
        error_kind(&refused).as_deref(),
        Some("guard"),
        "{}",
        text(&refused)
    );
    assert!(site.requests().is_empty(), "a refused fetch never connects");

    let bad = call(&client, "fetch", json!({})).await;
    assert_eq!(error_kind(&bad).as_deref(), Some("invalid_input"));
    let plan = call(&client, "plan", json!({"query": "tokio vs async-std"})).await;
    assert_ne!(plan.is_error, Some(true));

    let outside = call(
        &client,
        "navigate_site",
        json!({"url": "http://127.0.0.1:9/"}),
    )
    .await;
    assert!(
        error_kind(&outside).is_some(),
        "a page no skill covers is refused: {}",
        text(&outside)
    );
    client.cancel().await.unwrap();
    let _ = std::fs::remove_dir_all(home);
}

#[test]
fn a_remote_http_bind_without_the_flags_is_a_usage_error() {
    let home = process::temp_dir("mcp-usage");
    let out = process::hermetic_command(&home)
        .args(["mcp", "--http", "0.0.0.0:0", "--json"])
        .env("FERRET_OFFLINE", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["schema"], "ferret.error.v1");
    assert_eq!(error["kind"], "usage");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("--allow-remote")
    );
    let out = process::hermetic_command(&home)
        .args(["mcp", "--http", "0.0.0.0:0", "--allow-remote"])
        .env("FERRET_OFFLINE", "1")
        .env_remove("FERRET_MCP_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("FERRET_MCP_TOKEN"));
    let _ = std::fs::remove_dir_all(home);
}

#[test]
fn the_cli_prints_the_compact_rendering_within_its_budget() {
    let home = process::temp_dir("cli-compact");
    let out = process::hermetic_command(&home)
        .args([
            "search",
            "ferret research ledger",
            "--format",
            "compact",
            "--max-tokens",
            "300",
        ])
        .env("FERRET_OFFLINE", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        ferret::agent::compact::estimate_tokens(text.trim_end()) <= 300,
        "{text}"
    );
    assert!(
        text.contains("1. ") && text.contains("https://local.invalid/"),
        "{text}"
    );
    let bad = process::hermetic_command(&home)
        .args(["search", "x", "--format", "compact", "--max-tokens", "5"])
        .env("FERRET_OFFLINE", "1")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(home);
}
