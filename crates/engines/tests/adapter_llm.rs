//! The Grok engine and its chat-completions client against a local
//! OpenAI-compatible server: the request (model, temperature, max_tokens,
//! key, prompt with the current time), plain JSON and SSE answers, reasoning
//! blocks and fences, http-only links, errors and conformance.

mod adapter_support;

use std::sync::Arc;

use adapter_support::{check_status_mapping, received, search_err};
use ferret_core::conformance::Conformance;
use ferret_core::{Engine, EngineRequest, ErrorKind, Freshness};
use ferret_engines::http::FixedClock;
use ferret_engines::llm::{ChatClient, ChatMessage, GrokEngine};
use serde_json::{Value, json};
use wiremock::matchers::{any, body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// What the model "says": reasoning, then fenced JSON with one bad link.
const MODEL_TEXT: &str = "<think>The user wants recent Rust releases.</think>\n```json\n{\"results\":[\
{\"title\":\"Announcing Rust 1.95.0\",\"url\":\"https://blog.rust-lang.org/2026/01/01/Rust-1.95.0/\",\"snippet\":\"The Rust team is happy to announce 1.95.0\",\"published_date\":\"2026-01-01\"},\
{\"title\":\"Bogus\",\"url\":\"file:///etc/passwd\",\"snippet\":\"\"},\
{\"title\":\"Rust releases\",\"url\":\"https://releases.rs/\",\"snippet\":\"Release notes\",\"published_date\":null}]}\n```";

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_785_000_000,
        "model": "grok-4.1-fast",
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": content },
            "finish_reason": "stop"
        }],
        "usage": { "prompt_tokens": 120, "completion_tokens": 80, "total_tokens": 200 }
    })
}

/// The same text as an SSE stream of small deltas.
fn sse(content: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = content.chars().collect();
    for chunk in chars.chunks(17) {
        let piece: String = chunk.iter().collect();
        let event = json!({
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [{ "index": 0, "delta": { "content": piece }, "finish_reason": null }]
        });
        out.push_str(&format!("data: {event}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

fn grok(base: &str) -> GrokEngine {
    GrokEngine::builder()
        .api_url(format!("{base}/v1"))
        .api_key("xai-test")
        .clock(Arc::new(FixedClock::at_date(2026, 7, 25)))
        .build()
        .unwrap()
}

#[tokio::test]
async fn grok_posts_model_sampling_key_and_a_timed_prompt() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer xai-test"))
        .and(body_partial_json(json!({
            "model": "grok-4.1-fast",
            "max_tokens": 2048,
            "stream": false
        })))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(MODEL_TEXT)))
        .expect(1)
        .mount(&server)
        .await;
    let req = EngineRequest::new("latest Rust release").with_max_results(5);
    grok(&server.uri()).search(&req).await.unwrap();
    server.verify().await;
    let body: Value = serde_json::from_slice(&received(&server).await[0].body).unwrap();
    assert!((body["temperature"].as_f64().unwrap() - 0.1).abs() < 1e-6);
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(
        system.contains("Current time: 2026-07-25T00:00:00Z"),
        "{system}"
    );
    assert!(system.contains("at most 5 results"), "{system}");
    assert_eq!(body["messages"][1]["content"], "latest Rust release");
}

#[tokio::test]
async fn grok_leaves_the_time_out_of_timeless_queries() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(MODEL_TEXT)))
        .mount(&server)
        .await;
    let engine = grok(&server.uri());
    engine
        .search(&EngineRequest::new("what is a monad"))
        .await
        .unwrap();
    engine
        .search(&EngineRequest::new("Rust 最新进展"))
        .await
        .unwrap();
    engine
        .search(&EngineRequest::new("what is a monad").with_freshness(Freshness::Pd))
        .await
        .unwrap();
    let prompts: Vec<String> = received(&server)
        .await
        .iter()
        .map(|r| {
            let v: Value = serde_json::from_slice(&r.body).unwrap();
            v["messages"][0]["content"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(!prompts[0].contains("Current time"));
    assert!(prompts[1].contains("Current time"));
    assert!(prompts[2].contains("Current time") && prompts[2].contains("past 1 day(s)"));
}

#[tokio::test]
async fn grok_reads_json_answers_keeping_only_http_links() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(MODEL_TEXT)))
        .mount(&server)
        .await;
    let r = grok(&server.uri())
        .search(&EngineRequest::new("latest Rust release"))
        .await
        .unwrap();
    let urls: Vec<&str> = r.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://blog.rust-lang.org/2026/01/01/Rust-1.95.0/",
            "https://releases.rs/"
        ]
    );
    assert_eq!(r.hits[0].title, "Announcing Rust 1.95.0");
    assert_eq!(r.hits[0].published_at.as_deref(), Some("2026-01-01"));
    assert_eq!(r.hits[1].rank, 3);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("#2"));
    assert_eq!(r.provenance.runtime, "llm");
}

#[tokio::test]
async fn grok_reads_sse_streams() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_raw(sse(MODEL_TEXT), "text/event-stream"))
        .mount(&server)
        .await;
    let r = grok(&server.uri())
        .search(&EngineRequest::new("latest Rust release"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 2);
    assert_eq!(r.hits[1].url, "https://releases.rs/");
}

#[tokio::test]
async fn grok_prose_answers_give_their_links_with_a_warning() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(
            "I found [the Rust blog](https://blog.rust-lang.org/) and https://releases.rs/.",
        )))
        .mount(&server)
        .await;
    let r = grok(&server.uri())
        .search(&EngineRequest::new("rust releases"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 2);
    assert_eq!(r.hits[0].title, "the Rust blog");
    assert!(r.warnings[0].contains("did not answer JSON"));
}

#[tokio::test]
async fn grok_without_a_key_fails_with_auth_and_sends_nothing() {
    let server = MockServer::start().await;
    let engine = GrokEngine::builder().api_url(server.uri()).build().unwrap();
    let e = search_err(&engine, &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Auth);
    assert!(e.to_string().contains("GROK_API_KEY"), "{e}");
    assert!(received(&server).await.is_empty());
}

#[tokio::test]
async fn grok_maps_statuses_and_unreadable_bodies() {
    check_status_mapping(grok, &[]).await;
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html>proxy page</html>", "text/html"),
        )
        .mount(&server)
        .await;
    let e = search_err(&grok(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert!(e.to_string().contains("Grok"), "{e}");
}

#[tokio::test]
async fn the_chat_client_is_usable_on_its_own() {
    let server = MockServer::start().await;
    Mock::given(path("/api/chat/completions"))
        .and(body_partial_json(
            json!({"model": "local-model", "temperature": 0.5}),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion("pong")))
        .expect(1)
        .mount(&server)
        .await;
    let client = ChatClient::builder()
        .base_url(format!("{}/api/chat/completions", server.uri()))
        .model("local-model")
        .temperature(0.5)
        .build()
        .unwrap();
    let text = client
        .complete(&[ChatMessage::system("be brief"), ChatMessage::user("ping")])
        .await
        .unwrap();
    assert_eq!(text, "pong");
    let sent = &received(&server).await[0];
    assert!(
        sent.headers.get("authorization").is_none(),
        "no key, no header"
    );
    assert!(
        ChatClient::builder().build().is_err(),
        "a model is required"
    );
}

#[tokio::test]
async fn grok_conforms() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(MODEL_TEXT)))
        .mount(&server)
        .await;
    Conformance::new("latest Rust release")
        .check(&grok(&server.uri()))
        .await
        .assert_passed();
}
