//! The keyless HTML scrapers (DuckDuckGo, Bing) against a local server
//! serving the real result-page captures: request construction, parsing,
//! challenge pages, unrelated and empty pages, errors and conformance.

mod adapter_support;

use std::sync::Arc;

use adapter_support::{check_status_mapping, query_param, received, search_err};
use ferret_core::conformance::Conformance;
use ferret_core::{Engine, EngineRequest, ErrorKind, Freshness};
use ferret_engines::bing::BingEngine;
use ferret_engines::duckduckgo::{DuckDuckGoEngine, FormMethod};
use ferret_engines::http::FixedClock;
use wiremock::matchers::{any, body_string_contains, header, method, path, query_param as qp};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn html(body: Vec<u8>) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/html; charset=utf-8")
}

// ───────────────────────────── DuckDuckGo ─────────────────────────────

const DDG_PAGE: &str = "serp/duckduckgo-html-q-does-caffeine-affect-sleep-2026-07.html";
const DDG_ANOMALY: &str = "serp/duckduckgo-lite-anomaly-challenge-2026-07.html";

fn ddg(base: &str) -> DuckDuckGoEngine {
    DuckDuckGoEngine::builder().base_url(base).build().unwrap()
}

#[tokio::test]
async fn duckduckgo_posts_the_form_to_html() {
    let page = fixture_or_skip!(DDG_PAGE);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/html/"))
        .and(header("content-type", "application/x-www-form-urlencoded"))
        .and(body_string_contains("q=does+caffeine+affect+sleep"))
        .and(body_string_contains("df=w"))
        .and(body_string_contains("kl=us-en"))
        .respond_with(html(page))
        .expect(1)
        .mount(&server)
        .await;
    let req = EngineRequest::new("does caffeine affect sleep")
        .with_freshness(Freshness::Pw)
        .with_language("en-US");
    ddg(&server.uri()).search(&req).await.unwrap();
    server.verify().await;
}

#[tokio::test]
async fn duckduckgo_can_use_get() {
    let page = fixture_or_skip!(DDG_PAGE);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/html/"))
        .and(qp("q", "does caffeine affect sleep"))
        .respond_with(html(page))
        .expect(1)
        .mount(&server)
        .await;
    let engine = DuckDuckGoEngine::builder()
        .base_url(server.uri())
        .method(FormMethod::Get)
        .build()
        .unwrap();
    engine
        .search(&EngineRequest::new("does caffeine affect sleep"))
        .await
        .unwrap();
    server.verify().await;
}

#[tokio::test]
async fn duckduckgo_parses_the_capture_and_unwraps_uddg() {
    let page = fixture_or_skip!(DDG_PAGE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    let r = ddg(&server.uri())
        .search(&EngineRequest::new("does caffeine affect sleep"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 9);
    assert_eq!(r.hits[0].title, "Caffeine and Sleep Problems");
    assert_eq!(
        r.hits[0].url,
        "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"
    );
    assert!(
        r.hits[0]
            .snippet
            .starts_with("Drinking caffeine too close to bedtime can keep you awake."),
        "{}",
        r.hits[0].snippet
    );
    assert_eq!(
        r.hits[0].published_at.as_deref(),
        Some("2025-07-16T00:00:00")
    );
    assert_eq!(
        r.hits[3].url,
        "https://pmc.ncbi.nlm.nih.gov/articles/PMC6292246/"
    );
    assert_eq!(
        r.hits[8].title,
        "How Caffeine Affects Sleep: When to Cut Off"
    );
    assert!(r.hits.iter().all(|h| !h.url.contains("duckduckgo.com")));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[tokio::test]
async fn duckduckgo_anomaly_page_is_bot_detection() {
    let page = fixture_or_skip!(DDG_ANOMALY);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(202).set_body_raw(page, "text/html"))
        .mount(&server)
        .await;
    let engine = ddg(&server.uri());
    let e = search_err(&engine, &EngineRequest::new("does caffeine affect sleep")).await;
    assert_eq!(e.kind(), ErrorKind::BotDetected);
    assert!(!e.to_string().contains("site:"));
    let e = search_err(&engine, &EngineRequest::new("tokio site:docs.rs")).await;
    assert_eq!(e.kind(), ErrorKind::BotDetected);
    assert!(e.to_string().contains("`site:`"), "{e}");
}

#[tokio::test]
async fn duckduckgo_does_not_push_a_site_restriction_and_says_so() {
    let page = fixture_or_skip!(DDG_PAGE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    let r = ddg(&server.uri())
        .search(&EngineRequest::new("does caffeine affect sleep").with_site("nih.gov"))
        .await
        .unwrap();
    assert!(
        r.warnings[0].contains("site restriction"),
        "{:?}",
        r.warnings
    );
    let body = String::from_utf8(received(&server).await[0].body.clone()).unwrap();
    assert!(!body.contains("site"), "{body}");
}

#[tokio::test]
async fn duckduckgo_maps_statuses() {
    check_status_mapping(ddg, &[]).await;
}

#[tokio::test]
async fn duckduckgo_conforms() {
    let page = fixture_or_skip!(DDG_PAGE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    Conformance::new("does caffeine affect sleep")
        .check(&ddg(&server.uri()))
        .await
        .assert_passed();
}

// ───────────────────────────── Bing ─────────────────────────────

const BING_CAFFEINE: &str = "serp/bing-q-does-caffeine-affect-sleep-2026-07.html";
const BING_JS: &str = "serp/bing-http-q-javascript-tutorial-2026-04.html";
const BING_NO_RESULTS: &str = "serp/bing-nojs-no-results-2021-01.html";
const GOOGLE_SORRY: &str = "serp/google-sorry-recaptcha-block-page-2020-10.html";

fn bing(base: &str) -> BingEngine {
    BingEngine::builder()
        .base_url(base)
        .clock(Arc::new(FixedClock::at_date(2026, 7, 25)))
        .build()
        .unwrap()
}

#[tokio::test]
async fn bing_sends_query_count_language_and_freshness_filter() {
    let page = fixture_or_skip!(BING_CAFFEINE);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/search"))
        .and(qp(
            "q",
            "does caffeine affect sleep site:sleepfoundation.org",
        ))
        .and(qp("count", "10"))
        .and(qp("setlang", "en"))
        .and(qp("filters", "ex1:\"ez2\""))
        .respond_with(html(page))
        .expect(1)
        .mount(&server)
        .await;
    let req = EngineRequest::new("does caffeine affect sleep")
        .with_site("sleepfoundation.org")
        .with_language("en")
        .with_freshness(Freshness::Pw)
        .with_max_results(50);
    let r = bing(&server.uri()).search(&req).await.unwrap();
    assert_eq!(r.hits.len(), 10);
    server.verify().await;
}

#[tokio::test]
async fn bing_year_window_is_a_custom_day_range() {
    let page = fixture_or_skip!(BING_CAFFEINE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    bing(&server.uri())
        .search(&EngineRequest::new("does caffeine affect sleep").with_freshness(Freshness::Py))
        .await
        .unwrap();
    let sent = &received(&server).await[0];
    // 2026-07-25 is day 20659 since 1970.
    assert_eq!(
        query_param(sent, "filters").as_deref(),
        Some("ex1:\"ez5_20294_20659\"")
    );
}

#[tokio::test]
async fn bing_parses_the_caffeine_capture_and_unwraps_ck_links() {
    let page = fixture_or_skip!(BING_CAFFEINE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    let r = bing(&server.uri())
        .search(&EngineRequest::new("does caffeine affect sleep"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 10);
    assert_eq!(r.hits[0].title, "Caffeine and Sleep Problems");
    assert_eq!(
        r.hits[0].url,
        "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep"
    );
    assert_eq!(r.hits[0].published_at.as_deref(), Some("2025-07-16"));
    assert!(
        r.hits[0]
            .snippet
            .starts_with("Drinking caffeine too close to bedtime"),
        "{}",
        r.hits[0].snippet
    );
    assert_eq!(
        r.hits[2].url,
        "https://scienceinsights.org/how-caffeine-affects-sleep-from-brain-chemistry-to-bedtime/"
    );
    assert_eq!(r.hits[4].published_at, None, "the PMC caption has no date");
    assert_eq!(r.hits[9].url, "https://sleep.me/post/caffeine-and-sleep");
    assert!(r.hits.iter().all(|h| !h.url.contains("bing.com")));
}

#[tokio::test]
async fn bing_parses_the_javascript_tutorial_capture() {
    let page = fixture_or_skip!(BING_JS);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    let r = bing(&server.uri())
        .search(&EngineRequest::new("javascript tutorial"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 10);
    assert_eq!(r.hits[0].title, "JavaScript Tutorial - W3Schools");
    assert_eq!(r.hits[0].url, "https://www.w3schools.com/Js/");
    assert_eq!(r.hits[1].url, "https://www.w3schools.com/");
    assert_eq!(
        r.hits[9].url,
        "https://support.w3schools.com/hc/en-gb/articles/4410407881489-Tutorial-Learn-JavaScript"
    );
}

#[tokio::test]
async fn bing_rejects_a_page_unrelated_to_the_query() {
    let page = fixture_or_skip!(BING_CAFFEINE);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    let r = bing(&server.uri())
        .search(&EngineRequest::new("rust borrow checker lifetimes"))
        .await
        .unwrap();
    assert!(r.hits.is_empty());
    assert!(r.warnings[0].contains("share no term"), "{:?}", r.warnings);
}

#[tokio::test]
async fn bing_no_results_page_is_ok_and_empty() {
    let page = fixture_or_skip!(BING_NO_RESULTS);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    let r = bing(&server.uri())
        .search(&EngineRequest::new("sfl234dsf14sfj323JJJJJfa345fdf45"))
        .await
        .unwrap();
    assert!(r.hits.is_empty());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[tokio::test]
async fn bing_captcha_page_is_a_captcha_error() {
    let page = fixture_or_skip!(GOOGLE_SORRY);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    let e = search_err(&bing(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Captcha);
}

#[tokio::test]
async fn bing_maps_statuses() {
    check_status_mapping(bing, &[]).await;
}

#[tokio::test]
async fn bing_conforms() {
    let page = fixture_or_skip!(BING_JS);
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(html(page))
        .mount(&server)
        .await;
    Conformance::new("javascript tutorial")
        .check(&bing(&server.uri()))
        .await
        .assert_passed();
}
