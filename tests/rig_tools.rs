//! Ferret's tools as a rig agent runs them: each tool behind rig-core's tool
//! adapter (an erased handler served under `tool:<name>`, the registration
//! rig's tool sets and tool servers make), called by name with the JSON
//! arguments string a model wrote, and judged by the result rig hands back
//! to the model. Pages come from a loopback server the fetcher's URL guard
//! is told to allow (without touching the process environment).

#![cfg(feature = "rig")]

#[path = "support/web.rs"]
mod web;

use std::sync::Arc;

use ferret::agent::{ErrorKind, ToolError, Toolbox};
use ferret::core::EngineHit;
use ferret::core::guard::UrlGuard;
use ferret::core::testing::StaticEngine;
use ferret::evidence::fetch::BrowserMode;
use ferret::setup::{BrowserConfig, fetch_setup_with_guard};
use rig_core::effect::{EffectKind, FamilyDescriptor, Outcome, tool_key};
use rig_core::serve::adapters::ToolAdapter;
use rig_core::serve::{ErasedHandler, serve_inline};
use rig_core::tool::{ToolErrorKind, ToolResult};
use serde_json::Value;
use web::{LocalWeb, Response};

const PAGE: &str = "<!doctype html><html><head><title>Ferret field notes</title></head><body>\
<article><h1>Ferret field notes</h1>\
<p>The ferret is a small domesticated mammal of the weasel family, kept as a pet and once \
used for hunting rabbits.</p>\
<p>Ferrets sleep between fourteen and eighteen hours a day and are most active at dawn and \
dusk, which makes them crepuscular animals.</p>\
<p>A healthy adult ferret weighs between 0.7 and 2 kilograms; males are larger than females \
and the difference is easy to see.</p>\
</article></body></html>";

/// Ferret's tools registered as rig registers typed tools: a handler per
/// tool, found by its key `tool:<name>`.
struct RigTools(Vec<ErasedHandler>);

impl RigTools {
    fn new(toolbox: Toolbox) -> Self {
        let (search, fetch, research) = ferret::rig::tools(Arc::new(toolbox));
        RigTools(vec![
            ErasedHandler::new(ToolAdapter::new(search)),
            ErasedHandler::new(ToolAdapter::new(fetch)),
            ErasedHandler::new(ToolAdapter::new(research)),
        ])
    }

    fn handler(&self, name: &str) -> &ErasedHandler {
        let key = tool_key(name);
        self.0
            .iter()
            .find(|h| h.descriptor().key == key)
            .unwrap_or_else(|| panic!("no handler under {key:?}"))
    }

    /// Call `name` with `args` as a model wrote them.
    async fn call(&self, name: &str, args: &str) -> ToolResult {
        let effect = EffectKind::ToolCall {
            name: name.to_string(),
            args: args.to_string(),
        };
        match serve_inline(self.handler(name), effect).await {
            Ok(Outcome::ToolResult { result }) => result,
            other => panic!("{name} answered {other:?}"),
        }
    }
}

/// The text the model reads from a successful call.
fn model_text(name: &str, result: &ToolResult) -> String {
    assert!(result.is_success(), "{name} failed: {result:?}");
    result
        .output()
        .as_text()
        .unwrap_or_else(|| panic!("{name} gave no text block"))
        .to_string()
}

/// A toolbox whose engine returns `hits` and whose fetcher may read
/// loopback pages.
fn toolbox(hits: Vec<EngineHit>, allow_loopback: bool) -> Toolbox {
    let ferret = ferret::Ferret::builder()
        .engine(StaticEngine::with_hits("static", hits))
        .build()
        .expect("a ferret over one static engine");
    let guard = UrlGuard::default().allow_private(allow_loopback);
    let fetch = fetch_setup_with_guard(BrowserMode::Never, BrowserConfig::default(), guard)
        .expect("a fetcher without a browser");
    Toolbox::new(ferret, fetch)
}

fn page_server() -> LocalWeb {
    LocalWeb::start(|request| match request.path.as_str() {
        "/ferrets" => Response::html(PAGE),
        _ => Response::not_found(),
    })
}

fn hits(top: &str) -> Vec<EngineHit> {
    vec![
        EngineHit::new(1, top, "Ferret field notes", "How long ferrets sleep"),
        EngineHit::new(
            2,
            "https://other.example/pets",
            "Small pets",
            "Rabbits, ferrets and more",
        ),
    ]
}

#[tokio::test]
async fn each_tool_is_described_by_the_tool_table() {
    let tools = RigTools::new(toolbox(hits("https://a.example/"), false));
    for name in ["search", "fetch", "research"] {
        let def = ferret::agent::definition(name).expect("a core tool");
        let FamilyDescriptor::Tool {
            name: listed,
            description,
            parameters,
            ..
        } = tools.handler(name).descriptor().family
        else {
            panic!("{name} is not served as a tool");
        };
        assert_eq!(listed, name);
        assert_eq!(description, def.description);
        assert_eq!(parameters, def.input_schema);
    }
}

#[tokio::test]
async fn search_through_rig_returns_the_top_result_url() {
    let tools = RigTools::new(toolbox(hits("https://ferrets.example/notes"), false));
    let result = tools
        .call("search", r#"{"query": "how long do ferrets sleep"}"#)
        .await;
    let text = model_text("search", &result);
    let first = text
        .find("https://ferrets.example/notes")
        .expect("the top URL");
    let second = text
        .find("https://other.example/pets")
        .expect("the second URL");
    assert!(first < second, "the top result comes first:\n{text}");
}

#[tokio::test]
async fn fetch_through_rig_returns_the_page_text() {
    let web = page_server();
    let tools = RigTools::new(toolbox(hits("https://a.example/"), true));
    let args = serde_json::json!({"url": web.url("/ferrets"), "browser": "never"}).to_string();
    let text = model_text("fetch", &tools.call("fetch", &args).await);
    assert!(text.contains("Ferret field notes"), "the title:\n{text}");
    assert!(
        text.contains("between fourteen and eighteen hours a day"),
        "the page's text:\n{text}"
    );
}

#[tokio::test]
async fn research_through_rig_judges_the_rows_given_and_decides() {
    let web = page_server();
    let url = web.url("/ferrets");
    let tools = RigTools::new(toolbox(hits(&url), true));
    let args = serde_json::json!({
        "question": "How many hours a day do ferrets sleep?",
        "results": [{"url": url, "title": "Ferret field notes", "snippet": "How long ferrets sleep"}],
        "browser": "never",
        "max_results": 1,
        "rounds": 1,
        "deadline_seconds": 30,
    })
    .to_string();
    let text = model_text("research", &tools.call("research", &args).await);
    let status = text
        .lines()
        .find_map(|l| l.strip_prefix("status: "))
        .unwrap_or_else(|| panic!("a decision:\n{text}"));
    let decision = status.split_whitespace().next().unwrap_or("");
    assert!(
        ["sufficient", "partial", "browse-needed", "insufficient"].contains(&decision),
        "a decision, not {status:?}"
    );
    assert!(
        web.requests().iter().any(|r| r.path == "/ferrets"),
        "the row's page was fetched"
    );
}

#[tokio::test]
async fn an_unknown_argument_comes_back_as_an_invalid_input_failure() {
    let tools = RigTools::new(toolbox(hits("https://a.example/"), false));
    let result = tools
        .call("search", r#"{"query": "ferrets", "colour": "sable"}"#)
        .await;
    assert!(result.is_error(), "a failed call: {result:?}");
    let error = result.error().expect("an execution error");
    assert_eq!(error.kind(), ToolErrorKind::InvalidArgs);
    assert_eq!(error.code(), Some("invalid_input"));
    let cause = error.downcast_ref::<ToolError>().expect("the ferret error");
    assert_eq!(cause.kind, ErrorKind::InvalidInput);

    let seen: &Value = result.output().as_json().expect("a JSON block");
    assert_eq!(seen["schema"], "ferret.error.v1");
    assert_eq!(seen["kind"], "invalid_input");
    assert_eq!(seen["tool"], "search");
    let message = seen["message"].as_str().unwrap_or("");
    assert!(message.contains("colour"), "names the field: {message}");
}

#[tokio::test]
async fn a_refused_address_comes_back_as_a_guard_failure() {
    let web = page_server();
    let tools = RigTools::new(toolbox(hits("https://a.example/"), false));
    let args = serde_json::json!({"url": web.url("/ferrets")}).to_string();
    let result = tools.call("fetch", &args).await;
    let error = result.error().expect("a refused fetch");
    assert_eq!(error.kind(), ToolErrorKind::PermissionDenied);
    assert_eq!(error.code(), Some("guard"));
    let seen = result.output().as_json().expect("a JSON block");
    assert_eq!(seen["kind"], "guard");
    assert!(web.requests().is_empty(), "nothing reached the server");
}
