//! The JSON API adapters (Brave, Exa, Tavily, SearXNG, Wikipedia, GitHub)
//! against a local server serving the real captures: request construction
//! checked on the server side, parsing checked against the capture, every
//! error mapping, and the conformance suite.

mod adapter_support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use adapter_support::{check_status_mapping, received, search_err};
use ferret_core::conformance::Conformance;
use ferret_core::{Engine, EngineRequest, ErrorKind, Freshness, Intent, Mode};
use ferret_engines::brave::BraveEngine;
use ferret_engines::exa::ExaEngine;
use ferret_engines::github::{GithubEngine, GithubScope};
use ferret_engines::http::FixedClock;
use ferret_engines::searxng::SearxngEngine;
use ferret_engines::tavily::TavilyEngine;
use ferret_engines::wikipedia::WikipediaEngine;
use serde_json::{Value, json};
use wiremock::matchers::{any, body_partial_json, header, method, path, query_param as qp};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn json_response(body: Vec<u8>) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "application/json")
}

fn clock_2026_07_25() -> Arc<FixedClock> {
    Arc::new(FixedClock::at_date(2026, 7, 25))
}

// ───────────────────────────── Brave ─────────────────────────────

const BRAVE_CAPTURE: &str = "api/brave-search-api-web-q-laravel-2024-03.json";

fn brave(base: &str) -> BraveEngine {
    BraveEngine::builder()
        .base_url(base)
        .api_key("test-brave-key")
        .build()
        .unwrap()
}

#[tokio::test]
async fn brave_sends_token_query_count_freshness_and_language() {
    let body = fixture_or_skip!(BRAVE_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/res/v1/web/search"))
        .and(header("x-subscription-token", "test-brave-key"))
        .and(header("accept", "application/json"))
        .and(qp("q", "Laravel"))
        .and(qp("count", "5"))
        .and(qp("freshness", "pw"))
        .and(qp("search_lang", "en"))
        .respond_with(json_response(body))
        .expect(1)
        .mount(&server)
        .await;
    let req = EngineRequest::new("Laravel")
        .with_max_results(5)
        .with_freshness(Freshness::Pw)
        .with_language("en-US");
    let r = brave(&server.uri()).search(&req).await.unwrap();
    assert_eq!(r.hits.len(), 5);
    server.verify().await;
}

#[tokio::test]
async fn brave_parses_the_laravel_capture() {
    let body = fixture_or_skip!(BRAVE_CAPTURE);
    let capture: Value = serde_json::from_slice(&body).unwrap();
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body))
        .mount(&server)
        .await;
    let r = brave(&server.uri())
        .search(&EngineRequest::new("Laravel").with_max_results(20))
        .await
        .unwrap();
    let results = capture["web"]["results"].as_array().unwrap();
    assert_eq!(results.len(), 17);
    assert_eq!(r.hits.len(), 17, "warnings: {:?}", r.warnings);
    assert_eq!(
        r.hits[0].title,
        "Laravel - The PHP Framework For Web Artisans"
    );
    assert_eq!(r.hits[0].url, "https://laravel.com/");
    assert!(
        r.hits[0]
            .snippet
            .starts_with("Laravel is a PHP web application framework with expressive"),
        "{}",
        r.hits[0].snippet
    );
    assert_eq!(
        r.hits[0].published_at.as_deref(),
        Some("2023-05-01T20:10:05")
    );
    assert_eq!(r.hits[1].url, "https://en.wikipedia.org/wiki/Laravel");
    for (hit, raw) in r.hits.iter().zip(results) {
        assert_eq!(hit.url, raw["url"].as_str().unwrap());
        assert!(!hit.snippet.contains("<strong>"), "{}", hit.snippet);
    }
    let ranks: Vec<u32> = r.hits.iter().map(|h| h.rank).collect();
    assert_eq!(ranks, (1..=17).collect::<Vec<u32>>());
    assert!(r.hits.iter().filter(|h| h.published_at.is_none()).count() == 4);
}

#[tokio::test]
async fn brave_pushes_a_site_restriction_into_the_query() {
    let body = fixture_or_skip!(BRAVE_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(qp("q", "Laravel site:laravel.com"))
        .respond_with(json_response(body))
        .expect(1)
        .mount(&server)
        .await;
    brave(&server.uri())
        .search(&EngineRequest::new("Laravel").with_site("laravel.com"))
        .await
        .unwrap();
    server.verify().await;
}

#[tokio::test]
async fn brave_without_a_key_fails_with_auth_naming_the_variable_and_sends_nothing() {
    let server = MockServer::start().await;
    let engine = BraveEngine::builder()
        .base_url(server.uri())
        .build()
        .unwrap();
    let e = search_err(&engine, &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Auth);
    assert!(e.to_string().contains("BRAVE_API_KEY"), "{e}");
    assert!(received(&server).await.is_empty());
}

#[tokio::test]
async fn brave_maps_statuses_and_a_422_bad_token() {
    check_status_mapping(brave, &[]).await;
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(422).set_body_raw(
            r#"{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."}}"#,
            "application/json",
        ))
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Auth);
    assert!(e.to_string().contains("BRAVE_API_KEY"), "{e}");
}

#[tokio::test]
async fn brave_conforms() {
    let body = fixture_or_skip!(BRAVE_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body))
        .mount(&server)
        .await;
    Conformance::new("Laravel")
        .check(&brave(&server.uri()))
        .await
        .assert_passed();
}

// ───────────────────────────── Exa ─────────────────────────────

/// An Exa `/search` answer in the shape of Exa's public API reference
/// (written from that reference: no real captured answer is available).
fn exa_body() -> Value {
    json!({
        "requestId": "b5947044c4b78efa9552a7c89b306d95",
        "resolvedSearchType": "neural",
        "searchType": "fast",
        "results": [
            {
                "id": "https://arxiv.org/abs/2307.06435",
                "title": "A Comprehensive Overview of Large Language Models",
                "url": "https://arxiv.org/abs/2307.06435",
                "publishedDate": "2023-11-16T01:36:32.547Z",
                "author": "Humza Naveed, University of Engineering and Technology (UET), Lahore, Pakistan",
                "highlights": ["Such applications have made LLMs a core part of modern NLP research."],
                "highlightScores": [0.4600165784358978]
            },
            {
                "id": "https://blog.example.com/llm-survey",
                "title": "LLM survey notes",
                "url": "https://blog.example.com/llm-survey",
                "publishedDate": null,
                "author": null,
                "summary": "A summary of recent surveys."
            },
            {
                "id": "mailto:someone@example.com",
                "title": "Not a web page",
                "url": "mailto:someone@example.com",
                "highlights": ["x"]
            }
        ],
        "costDollars": { "total": 0.005, "search": { "neural": 0.005 } }
    })
}

fn exa(base: &str) -> ExaEngine {
    ExaEngine::builder()
        .base_url(base)
        .api_key("test-exa-key")
        .clock(clock_2026_07_25())
        .build()
        .unwrap()
}

#[tokio::test]
async fn exa_posts_type_highlights_and_start_date_with_the_key_header() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/search"))
        .and(header("x-api-key", "test-exa-key"))
        .and(body_partial_json(json!({
            "query": "LLM survey",
            "type": "fast",
            "numResults": 5,
            "contents": { "highlights": { "maxCharacters": 1200 } },
            "startPublishedDate": "2026-07-18T00:00:00.000Z",
            "includeDomains": ["arxiv.org"]
        })))
        .respond_with(ResponseTemplate::new(200).set_body_json(exa_body()))
        .expect(1)
        .mount(&server)
        .await;
    let req = EngineRequest::new("LLM survey")
        .with_intent(Intent::Status)
        .with_freshness(Freshness::Pw)
        .with_site("arxiv.org")
        .with_max_results(5);
    exa(&server.uri()).search(&req).await.unwrap();
    server.verify().await;
}

#[tokio::test]
async fn exa_search_type_follows_the_intent() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(exa_body()))
        .mount(&server)
        .await;
    let engine = exa(&server.uri());
    let cases = [
        (Some(Intent::Resource), Mode::Fast, "instant"),
        (Some(Intent::News), Mode::Deep, "fast"),
        (Some(Intent::Exploratory), Mode::Deep, "deep"),
        (Some(Intent::Comparison), Mode::Deep, "auto"),
        (None, Mode::Fast, "auto"),
    ];
    for (intent, mode, _) in cases {
        let mut req = EngineRequest::new("LLM survey").with_mode(mode);
        req.intent = intent;
        engine.search(&req).await.unwrap();
    }
    let sent: Vec<String> = received(&server)
        .await
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            assert!(body.get("startPublishedDate").is_none());
            body["type"].as_str().unwrap().to_string()
        })
        .collect();
    let expected: Vec<&str> = cases.iter().map(|c| c.2).collect();
    assert_eq!(sent, expected);
}

#[tokio::test]
async fn exa_parses_the_documented_response_shape() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(exa_body()))
        .mount(&server)
        .await;
    let r = exa(&server.uri())
        .search(&EngineRequest::new("LLM survey"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 2);
    assert_eq!(
        r.hits[0].title,
        "A Comprehensive Overview of Large Language Models"
    );
    assert_eq!(
        r.hits[0].snippet,
        "Such applications have made LLMs a core part of modern NLP research."
    );
    assert_eq!(
        r.hits[0].published_at.as_deref(),
        Some("2023-11-16T01:36:32Z")
    );
    assert_eq!(r.hits[1].snippet, "A summary of recent surveys.");
    assert_eq!(
        r.warnings.len(),
        1,
        "the mailto row is reported: {:?}",
        r.warnings
    );
    assert!(r.warnings[0].contains("#3"));
}

#[tokio::test]
async fn exa_maps_statuses_and_missing_key() {
    check_status_mapping(exa, &[]).await;
    let e = search_err(
        &ExaEngine::builder()
            .base_url("http://127.0.0.1:9")
            .build()
            .unwrap(),
        &EngineRequest::new("x"),
    )
    .await;
    assert_eq!(e.kind(), ErrorKind::Auth);
    assert!(e.to_string().contains("EXA_API_KEY"), "{e}");
}

#[tokio::test]
async fn exa_conforms() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(exa_body()))
        .mount(&server)
        .await;
    Conformance::new("LLM survey")
        .check(&exa(&server.uri()))
        .await
        .assert_passed();
}

// ───────────────────────────── Tavily ─────────────────────────────

const TAVILY_CAPTURE: &str =
    "api/tavily-search-response-q-transformer-architectures-2026-03.derived.json";

fn tavily(base: &str) -> TavilyEngine {
    TavilyEngine::builder()
        .base_url(base)
        .api_key("tvly-test")
        .build()
        .unwrap()
}

#[tokio::test]
async fn tavily_posts_bearer_depth_answer_and_window() {
    let body = fixture_or_skip!(TAVILY_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/search"))
        .and(header("authorization", "Bearer tvly-test"))
        .and(body_partial_json(json!({
            "query": "transformer architectures",
            "max_results": 5,
            "search_depth": "basic",
            "include_answer": true,
            "topic": "general",
            "days": 30,
            "time_range": "month",
            "include_domains": ["arxiv.org"]
        })))
        .respond_with(json_response(body))
        .expect(1)
        .mount(&server)
        .await;
    let req = EngineRequest::new("transformer architectures")
        .with_mode(Mode::Answer)
        .with_freshness(Freshness::Pm)
        .with_site("arxiv.org")
        .with_max_results(5);
    tavily(&server.uri()).search(&req).await.unwrap();
    server.verify().await;
    let sent: Value = serde_json::from_slice(&received(&server).await[0].body).unwrap();
    assert!(
        sent.get("api_key").is_none(),
        "the key travels only in the header"
    );
}

#[tokio::test]
async fn tavily_parses_the_capture_and_carries_the_answer() {
    let body = fixture_or_skip!(TAVILY_CAPTURE);
    let mut capture: Value = serde_json::from_slice(&body).unwrap();
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body.clone()))
        .mount(&server)
        .await;
    let engine = tavily(&server.uri());
    let r = engine
        .search(&EngineRequest::new("transformer architectures"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 5);
    assert_eq!(
        r.hits[0].title,
        "Deep Dive into Transformer Architectures for Long-Term ..."
    );
    assert_eq!(r.hits[0].url, "https://arxiv.org/abs/2507.13043");
    assert!(
        r.hits[0]
            .snippet
            .starts_with("# Title:The Power of Architecture")
    );
    assert_eq!(r.hits[3].url, "https://www.arxiv.org/abs/2601.03290");
    assert_eq!(r.answer, None, "the capture's answer is null");

    // The same capture with an answer filled in, as answer mode returns it.
    capture["answer"] = json!("Transformers use self-attention.");
    server.reset().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(capture))
        .mount(&server)
        .await;
    let r = engine
        .search(&EngineRequest::new("transformer architectures").with_mode(Mode::Answer))
        .await
        .unwrap();
    assert_eq!(
        r.answer.as_deref(),
        Some("Transformers use self-attention.")
    );
}

#[tokio::test]
async fn tavily_maps_statuses_and_its_432_quota() {
    check_status_mapping(tavily, &[]).await;
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(432).set_body_raw(
            r#"{"detail":{"error":"This request exceeds your plan's set usage limit."}}"#,
            "application/json",
        ))
        .mount(&server)
        .await;
    let e = search_err(&tavily(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Quota);
}

#[tokio::test]
async fn tavily_conforms() {
    let body = fixture_or_skip!(TAVILY_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body))
        .mount(&server)
        .await;
    Conformance::new("transformer architectures")
        .check(&tavily(&server.uri()))
        .await
        .assert_passed();
}

// ───────────────────────────── SearXNG ─────────────────────────────

const SEARXNG_CAPTURE: &str =
    "api/searxng-format-json-q-severance-with-unresponsive-engines-2026-08.json";

fn searxng(base: &str) -> SearxngEngine {
    SearxngEngine::builder().base_url(base).build().unwrap()
}

#[tokio::test]
async fn searxng_asks_for_json_with_page_window_and_language() {
    let body = fixture_or_skip!(SEARXNG_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/searxng/search"))
        .and(qp("q", "shows like severance"))
        .and(qp("format", "json"))
        .and(qp("pageno", "1"))
        .and(qp("time_range", "year"))
        .and(qp("language", "en"))
        .respond_with(json_response(body))
        .expect(1)
        .mount(&server)
        .await;
    let engine = searxng(&format!("{}/searxng", server.uri()));
    let req = EngineRequest::new("shows like severance")
        .with_freshness(Freshness::Py)
        .with_language("en");
    engine.search(&req).await.unwrap();
    server.verify().await;
}

#[tokio::test]
async fn searxng_parses_results_and_reports_unresponsive_engines() {
    let body = fixture_or_skip!(SEARXNG_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body))
        .mount(&server)
        .await;
    let r = searxng(&server.uri())
        .search(&EngineRequest::new("shows like severance"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 6);
    assert_eq!(
        r.hits[0].title,
        "What other shows do you rate as highly as (or close to) Severance?"
    );
    assert!(
        r.hits[0]
            .url
            .starts_with("https://www.reddit.com/r/SeveranceAppleTVPlus/comments/1idlrtq/")
    );
    assert_eq!(
        r.hits[1].url,
        "https://editorial.rottentomatoes.com/article/10-shows-to-watch-if-you-love-severance/"
    );
    assert!(r.hits[0].snippet.starts_with("30 Jan 2025 ... Succession"));
    assert_eq!(
        r.warnings,
        [
            "searxng: upstream engine brave unresponsive: Suspended: too many requests",
            "searxng: upstream engine duckduckgo unresponsive: CAPTCHA",
            "searxng: upstream engine startpage unresponsive: Suspended: CAPTCHA",
        ]
    );
}

#[tokio::test]
async fn searxng_403_says_json_output_is_disabled_and_how_to_enable_it() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(403).set_body_raw(
            "<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>",
            "text/html",
        ))
        .mount(&server)
        .await;
    let e = search_err(&searxng(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::AccessDenied);
    let text = e.to_string();
    assert!(text.contains("JSON output is disabled"), "{text}");
    assert!(
        text.contains("settings.yml") && text.contains("formats: [html, json]"),
        "{text}"
    );
}

#[tokio::test]
async fn searxng_html_instead_of_json_is_a_parse_error() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("<html><body>results</body></html>", "text/html"),
        )
        .mount(&server)
        .await;
    let e = search_err(&searxng(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Parse);
}

#[tokio::test]
async fn searxng_maps_other_statuses() {
    check_status_mapping(searxng, &[403]).await;
}

#[tokio::test]
async fn searxng_conforms() {
    let body = fixture_or_skip!(SEARXNG_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body))
        .mount(&server)
        .await;
    Conformance::new("shows like severance")
        .check(&searxng(&server.uri()))
        .await
        .assert_passed();
}

// ───────────────────────────── Wikipedia ─────────────────────────────

const WIKI_CAPTURE: &str = "api/wikipedia-search-api-list-search-caffeine-sleep-2026-07.json";

fn wikipedia(base: &str) -> WikipediaEngine {
    WikipediaEngine::builder().base_url(base).build().unwrap()
}

#[tokio::test]
async fn wikipedia_queries_the_action_api() {
    let body = fixture_or_skip!(WIKI_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/w/api.php"))
        .and(qp("action", "query"))
        .and(qp("list", "search"))
        .and(qp("format", "json"))
        .and(qp("srsearch", "caffeine sleep"))
        .and(qp("srlimit", "3"))
        .respond_with(json_response(body))
        .expect(1)
        .mount(&server)
        .await;
    wikipedia(&server.uri())
        .search(&EngineRequest::new("caffeine sleep").with_max_results(3))
        .await
        .unwrap();
    server.verify().await;
}

#[tokio::test]
async fn wikipedia_parses_the_capture_into_article_urls() {
    let body = fixture_or_skip!(WIKI_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body))
        .mount(&server)
        .await;
    let r = wikipedia(&server.uri())
        .search(&EngineRequest::new("caffeine sleep").with_freshness(Freshness::Pw))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 1);
    let hit = &r.hits[0];
    assert_eq!(hit.title, "Caffeine-induced sleep disorder");
    assert_eq!(
        hit.url,
        format!("{}/wiki/Caffeine-induced_sleep_disorder", server.uri())
    );
    assert!(
        hit.snippet
            .starts_with("Caffeine-induced sleep disorder was a psychiatric disorder"),
        "{}",
        hit.snippet
    );
    assert!(!hit.snippet.contains("searchmatch"));
    assert_eq!(hit.published_at.as_deref(), Some("2025-10-01T15:56:11Z"));
    assert!(
        r.warnings.iter().any(|w| w.contains("freshness")),
        "{:?}",
        r.warnings
    );
}

#[tokio::test]
async fn wikipedia_api_errors_and_statuses_are_typed() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("retry-after", "5")
                .set_body_json(json!({"error":{"code":"maxlag","info":"Waiting for a database server: 7 seconds lagged."}})),
        )
        .mount(&server)
        .await;
    let e = search_err(&wikipedia(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::RateLimited);
    assert_eq!(e.retry_after(), Some(Duration::from_secs(5)));
    check_status_mapping(wikipedia, &[]).await;
}

#[tokio::test]
async fn wikipedia_conforms() {
    let body = fixture_or_skip!(WIKI_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(json_response(body))
        .mount(&server)
        .await;
    Conformance::new("caffeine sleep")
        .check(&wikipedia(&server.uri()))
        .await
        .assert_passed();
}

// ───────────────────────────── GitHub ─────────────────────────────

const GITHUB_CAPTURE: &str = "api/github-search-issues-octokit-fixtures.json";

/// The `response` of the octokit recording.
fn github_issues_body(bytes: &[u8]) -> Value {
    let recording: Value = serde_json::from_slice(bytes).unwrap();
    recording[0]["response"].clone()
}

/// A `/search/repositories` answer in the shape of GitHub's REST docs.
fn github_repos_body() -> Value {
    json!({
        "total_count": 2,
        "incomplete_results": false,
        "items": [
            {
                "id": 3081286, "name": "sesame", "full_name": "octokit-fixture-org/sesame",
                "html_url": "https://github.com/octokit-fixture-org/sesame",
                "description": "Open sesame", "stargazers_count": 12, "language": "Ruby",
                "pushed_at": "2017-10-10T16:00:00Z", "updated_at": "2017-10-10T16:00:00Z"
            },
            {
                "id": 3081287, "name": "sesame-seeds", "full_name": "octokit-fixture-org/sesame-seeds",
                "html_url": "https://github.com/octokit-fixture-org/sesame-seeds",
                "description": null, "stargazers_count": 0, "language": null,
                "pushed_at": null, "updated_at": "2017-10-11T16:00:00Z"
            }
        ]
    })
}

fn github(base: &str, scope: GithubScope, token: Option<&str>) -> GithubEngine {
    let mut b = GithubEngine::builder()
        .base_url(base)
        .scope(scope)
        .clock(clock_2026_07_25());
    if let Some(t) = token {
        b = b.token(t);
    }
    b.build().unwrap()
}

#[tokio::test]
async fn github_issue_search_sends_headers_token_and_is_issue() {
    let bytes = fixture_or_skip!(GITHUB_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/search/issues"))
        .and(header("accept", "application/vnd.github+json"))
        .and(header("x-github-api-version", "2022-11-28"))
        .and(header("authorization", "Bearer ghp_test"))
        .and(qp(
            "q",
            "sesame repo:octokit-fixture-org/search-issues is:issue updated:>=2026-06-25",
        ))
        .and(qp("per_page", "10"))
        .respond_with(ResponseTemplate::new(200).set_body_json(github_issues_body(&bytes)))
        .expect(1)
        .mount(&server)
        .await;
    let req = EngineRequest::new("sesame repo:octokit-fixture-org/search-issues")
        .with_freshness(Freshness::Pm);
    github(&server.uri(), GithubScope::Issues, Some("ghp_test"))
        .search(&req)
        .await
        .unwrap();
    server.verify().await;
}

#[tokio::test]
async fn github_parses_the_octokit_recording() {
    let bytes = fixture_or_skip!(GITHUB_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(path("/search/issues"))
        .respond_with(ResponseTemplate::new(200).set_body_json(github_issues_body(&bytes)))
        .mount(&server)
        .await;
    let r = github(&server.uri(), GithubScope::Issues, None)
        .search(&EngineRequest::new("sesame"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 2);
    assert_eq!(r.hits[0].title, "Sesame seeds split without a pop!");
    assert_eq!(
        r.hits[0].url,
        "https://github.com/octokit-fixture-org/search-issues/issues/2"
    );
    assert!(
        r.hits[0]
            .snippet
            .starts_with("octokit-fixture-org/search-issues · issue · open · 42 comments — I’ve waited all year long"),
        "{}",
        r.hits[0].snippet
    );
    assert_eq!(
        r.hits[0].published_at.as_deref(),
        Some("2017-10-10T16:00:00Z")
    );
    assert_eq!(r.hits[1].title, "The doors don’t open");
    let sent = &received(&server).await[0];
    assert!(
        sent.headers.get("authorization").is_none(),
        "no token, no header"
    );
}

#[tokio::test]
async fn github_both_scopes_interleave_and_survive_one_failure() {
    let bytes = fixture_or_skip!(GITHUB_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(path("/search/issues"))
        .respond_with(ResponseTemplate::new(200).set_body_json(github_issues_body(&bytes)))
        .mount(&server)
        .await;
    Mock::given(path("/search/repositories"))
        .and(qp("q", "sesame"))
        .respond_with(ResponseTemplate::new(200).set_body_json(github_repos_body()))
        .mount(&server)
        .await;
    let engine = github(&server.uri(), GithubScope::Both, None);
    let r = engine.search(&EngineRequest::new("sesame")).await.unwrap();
    let urls: Vec<&str> = r.hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://github.com/octokit-fixture-org/search-issues/issues/2",
            "https://github.com/octokit-fixture-org/sesame",
            "https://github.com/octokit-fixture-org/search-issues/issues/1",
            "https://github.com/octokit-fixture-org/sesame-seeds",
        ]
    );
    assert_eq!(r.hits[1].snippet, "Open sesame · ★ 12 · Ruby");
    assert_eq!(
        r.hits[3].published_at.as_deref(),
        Some("2017-10-11T16:00:00Z")
    );

    server.reset().await;
    Mock::given(path("/search/issues"))
        .respond_with(ResponseTemplate::new(200).set_body_json(github_issues_body(&bytes)))
        .mount(&server)
        .await;
    Mock::given(path("/search/repositories"))
        .respond_with(ResponseTemplate::new(500).set_body_string("boom"))
        .mount(&server)
        .await;
    let r = engine.search(&EngineRequest::new("sesame")).await.unwrap();
    assert_eq!(r.hits.len(), 2);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("repository search failed")),
        "{:?}",
        r.warnings
    );
}

#[tokio::test]
async fn github_exhausted_rate_limit_is_rate_limited_until_the_reset() {
    let server = MockServer::start().await;
    let reset = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 60;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("x-ratelimit-limit", "10")
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-reset", reset.to_string().as_str())
                .set_body_json(json!({
                    "message": "API rate limit exceeded for 127.0.0.1.",
                    "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"
                })),
        )
        .mount(&server)
        .await;
    let e = search_err(
        &github(&server.uri(), GithubScope::Issues, None),
        &EngineRequest::new("x"),
    )
    .await;
    assert_eq!(e.kind(), ErrorKind::RateLimited);
    let wait = e.retry_after().unwrap();
    assert!(
        wait <= Duration::from_secs(60) && wait >= Duration::from_secs(50),
        "{wait:?}"
    );
}

#[tokio::test]
async fn github_validation_failures_and_statuses_are_typed() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(422).set_body_json(json!({
            "message": "Validation Failed",
            "errors": [{"message": "The listed users and repositories cannot be searched", "resource": "Search", "field": "q", "code": "invalid"}]
        })))
        .mount(&server)
        .await;
    let e = search_err(
        &github(&server.uri(), GithubScope::Issues, None),
        &EngineRequest::new("repo:nobody/nothing"),
    )
    .await;
    assert_eq!(e.kind(), ErrorKind::InvalidQuery);
    check_status_mapping(|b: &str| github(b, GithubScope::Issues, Some("t")), &[]).await;
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(401).set_body_json(json!({"message": "Bad credentials"})),
        )
        .mount(&server)
        .await;
    let e = search_err(
        &github(&server.uri(), GithubScope::Issues, Some("bad")),
        &EngineRequest::new("x"),
    )
    .await;
    assert!(e.to_string().contains("GITHUB_TOKEN"), "{e}");
}

#[tokio::test]
async fn github_conforms() {
    let bytes = fixture_or_skip!(GITHUB_CAPTURE);
    let server = MockServer::start().await;
    Mock::given(path("/search/issues"))
        .respond_with(ResponseTemplate::new(200).set_body_json(github_issues_body(&bytes)))
        .mount(&server)
        .await;
    Mock::given(path("/search/repositories"))
        .respond_with(ResponseTemplate::new(200).set_body_json(github_repos_body()))
        .mount(&server)
        .await;
    Conformance::new("sesame")
        .check(&github(&server.uri(), GithubScope::Both, None))
        .await
        .assert_passed();
}
