//! Search controls pushed down by each adapter, checked on the side of a
//! loopback server that records every request: domains to include and
//! exclude, a since/until range, language, region, safe search and page,
//! in each service's own parameters; and the controls each engine declares.

mod adapter_support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use adapter_support::{query_param, received, search_err};
use chrono::NaiveDate;
use ferret_core::{
    Control, ControlSet, Engine, EngineRequest, ErrorKind, Freshness, Intent, SafeSearch,
};
use ferret_engines::bing::BingEngine;
use ferret_engines::brave::BraveEngine;
use ferret_engines::duckduckgo::DuckDuckGoEngine;
use ferret_engines::exa::ExaEngine;
use ferret_engines::github::{GithubEngine, GithubScope};
use ferret_engines::http::FixedClock;
use ferret_engines::searxng::SearxngEngine;
use ferret_engines::tavily::TavilyEngine;
use ferret_engines::wikipedia::WikipediaEngine;
use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn clock() -> Arc<FixedClock> {
    Arc::new(FixedClock::at_date(2026, 7, 25))
}

/// Every control at once: two domains in, one out, the first half of
/// 2025, German from Germany, strict, page 3.
fn every_control(query: &str) -> EngineRequest {
    EngineRequest::new(query)
        .with_include_domains(["docs.rs", "rust-lang.org"])
        .with_exclude_domains(["reddit.com"])
        .with_since(day("2025-01-01"))
        .with_until(day("2025-06-30"))
        .with_language("de")
        .with_region("DE")
        .with_safe_search(SafeSearch::Strict)
        .with_page(3)
}

const SITES: &str = "(site:docs.rs OR site:rust-lang.org) -site:reddit.com";

/// A server answering every request with `body` (`content_type`), and the
/// one request it received after `search` ran.
async fn recorded<F, Fut>(body: &str, content_type: &str, search: F) -> Request
where
    F: FnOnce(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), content_type),
        )
        .mount(&server)
        .await;
    search(server.uri()).await;
    let mut requests = received(&server).await;
    assert_eq!(requests.len(), 1, "expected one request");
    requests.remove(0)
}

fn param(request: &Request, name: &str) -> String {
    query_param(request, name).unwrap_or_else(|| panic!("no {name} in {}", request.url))
}

fn body_json(request: &Request) -> Value {
    serde_json::from_slice(&request.body).expect("a JSON body")
}

/// The form fields of a `POST` with an urlencoded body.
fn form_field(request: &Request, name: &str) -> Option<String> {
    url::form_urlencoded::parse(&request.body)
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

// ───────────────────────────── Brave ─────────────────────────────

fn brave(base: &str) -> BraveEngine {
    BraveEngine::builder()
        .base_url(base)
        .api_key("test-brave-key")
        .country("us")
        .clock(clock())
        .build()
        .unwrap()
}

#[tokio::test]
async fn brave_sends_sites_date_range_country_safesearch_and_offset() {
    let r = recorded(
        r#"{"web":{"results":[]}}"#,
        "application/json",
        |base| async move {
            brave(&base).search(&every_control("tokio")).await.unwrap();
        },
    )
    .await;
    assert_eq!(param(&r, "q"), format!("tokio {SITES}"));
    assert_eq!(param(&r, "freshness"), "2025-01-01to2025-06-30");
    assert_eq!(param(&r, "search_lang"), "de");
    assert_eq!(param(&r, "country"), "de", "the request's region wins");
    assert_eq!(param(&r, "safesearch"), "strict");
    assert_eq!(param(&r, "offset"), "2");
}

#[tokio::test]
async fn brave_fills_an_open_range_from_its_clock_and_keeps_its_country() {
    let r = recorded(
        r#"{"web":{"results":[]}}"#,
        "application/json",
        |base| async move {
            let req = EngineRequest::new("tokio")
                .with_since(day("2026-01-01"))
                .with_freshness(Freshness::Pw);
            brave(&base).search(&req).await.unwrap();
        },
    )
    .await;
    assert_eq!(param(&r, "freshness"), "2026-01-01to2026-07-25");
    assert_eq!(param(&r, "country"), "us");
    assert_eq!(query_param(&r, "offset"), None, "page 1 sends no offset");
}

#[tokio::test]
async fn brave_refuses_a_page_past_its_tenth_without_sending_anything() {
    let server = MockServer::start().await;
    let e = search_err(
        &brave(&server.uri()),
        &EngineRequest::new("tokio").with_page(11),
    )
    .await;
    assert_eq!(e.kind(), ErrorKind::InvalidQuery);
    assert!(e.to_string().contains("pages 1 to 10"), "{e}");
    assert!(received(&server).await.is_empty());
}

// ───────────────────────────── SearXNG ─────────────────────────────

#[tokio::test]
async fn searxng_sends_sites_in_the_query_with_safesearch_and_pageno() {
    let r = recorded(r#"{"results":[]}"#, "application/json", |base| async move {
        let engine = SearxngEngine::builder().base_url(base).build().unwrap();
        let response = engine.search(&every_control("tokio")).await.unwrap();
        assert!(response.warnings.is_empty(), "{:?}", response.warnings);
    })
    .await;
    assert_eq!(param(&r, "q"), format!("tokio {SITES}"));
    assert_eq!(param(&r, "pageno"), "3");
    assert_eq!(param(&r, "safesearch"), "2");
    assert_eq!(param(&r, "language"), "de");
    assert_eq!(
        query_param(&r, "time_range"),
        None,
        "no date range in SearXNG"
    );
}

// ───────────────────────────── Tavily ─────────────────────────────

fn tavily(base: &str) -> TavilyEngine {
    TavilyEngine::builder()
        .base_url(base)
        .api_key("tvly-test")
        .build()
        .unwrap()
}

#[tokio::test]
async fn tavily_sends_domain_lists_dates_and_country() {
    let r = recorded(r#"{"results":[]}"#, "application/json", |base| async move {
        let req = every_control("tokio").with_freshness(Freshness::Pw);
        tavily(&base).search(&req).await.unwrap();
    })
    .await;
    let body = body_json(&r);
    assert_eq!(body["include_domains"], json!(["docs.rs", "rust-lang.org"]));
    assert_eq!(body["exclude_domains"], json!(["reddit.com"]));
    assert_eq!(body["start_date"], "2025-01-01");
    assert_eq!(body["end_date"], "2025-06-30");
    assert_eq!(body["country"], "germany");
    assert!(
        body.get("days").is_none() && body.get("time_range").is_none(),
        "{body}"
    );
}

#[tokio::test]
async fn tavily_says_when_a_region_has_no_country_or_the_topic_is_news() {
    for (req, words) in [
        (
            EngineRequest::new("tokio").with_region("VA"),
            "no Tavily country",
        ),
        (
            EngineRequest::new("tokio")
                .with_region("US")
                .with_intent(Intent::News),
            "general searches only",
        ),
    ] {
        let server = MockServer::start().await;
        Mock::given(any())
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_raw(br#"{"results":[]}"#.to_vec(), "application/json"),
            )
            .mount(&server)
            .await;
        let response = tavily(&server.uri()).search(&req).await.unwrap();
        assert!(
            response.warnings.iter().any(|w| w.contains(words)),
            "{:?}",
            response.warnings
        );
        let body = body_json(&received(&server).await[0]);
        assert!(body.get("country").is_none(), "{body}");
    }
}

// ───────────────────────────── Exa ─────────────────────────────

#[tokio::test]
async fn exa_sends_domain_lists_published_dates_and_user_location() {
    let r = recorded(r#"{"results":[]}"#, "application/json", |base| async move {
        let engine = ExaEngine::builder()
            .base_url(base)
            .api_key("test-exa-key")
            .clock(clock())
            .build()
            .unwrap();
        let req = every_control("tokio").with_freshness(Freshness::Pw);
        engine.search(&req).await.unwrap();
    })
    .await;
    let body = body_json(&r);
    assert_eq!(body["includeDomains"], json!(["docs.rs", "rust-lang.org"]));
    assert_eq!(body["excludeDomains"], json!(["reddit.com"]));
    assert_eq!(body["startPublishedDate"], "2025-01-01T00:00:00.000Z");
    assert_eq!(body["endPublishedDate"], "2025-06-30T23:59:59.999Z");
    assert_eq!(body["userLocation"], "DE");
}

// ───────────────────────────── Wikipedia ─────────────────────────────

#[tokio::test]
async fn wikipedia_asks_for_a_later_page_with_sroffset() {
    let r = recorded(
        r#"{"query":{"search":[]}}"#,
        "application/json",
        |base| async move {
            let engine = WikipediaEngine::builder().base_url(base).build().unwrap();
            let req = EngineRequest::new("tokio").with_max_results(5).with_page(3);
            engine.search(&req).await.unwrap();
        },
    )
    .await;
    assert_eq!(param(&r, "srlimit"), "5");
    assert_eq!(param(&r, "sroffset"), "10");
}

// ───────────────────────────── GitHub ─────────────────────────────

#[tokio::test]
async fn github_turns_the_date_range_into_qualifiers_and_sends_the_page() {
    let r = recorded(r#"{"items":[]}"#, "application/json", |base| async move {
        let engine = GithubEngine::builder()
            .base_url(base)
            .scope(GithubScope::Issues)
            .clock(clock())
            .build()
            .unwrap();
        let req = every_control("tokio").with_freshness(Freshness::Pw);
        engine.search(&req).await.unwrap();
    })
    .await;
    assert_eq!(
        param(&r, "q"),
        "tokio is:issue updated:2025-01-01..2025-06-30"
    );
    assert_eq!(param(&r, "page"), "3");
    let engine = GithubEngine::builder().clock(clock()).build().unwrap();
    let until_only = EngineRequest::new("tokio").with_until(day("2024-12-31"));
    assert_eq!(
        engine.repository_query(&until_only),
        "tokio pushed:<=2024-12-31"
    );
}

// ───────────────────────────── DuckDuckGo ─────────────────────────────

#[tokio::test]
async fn duckduckgo_sends_the_region_and_safe_search_but_no_site_operators() {
    let page = r#"<div id="links"><div class="no-results">No results.</div></div>"#;
    let r = recorded(page, "text/html", |base| async move {
        let engine = DuckDuckGoEngine::builder().base_url(base).build().unwrap();
        let response = engine.search(&every_control("tokio")).await.unwrap();
        assert!(response.hits.is_empty());
    })
    .await;
    assert_eq!(form_field(&r, "q").as_deref(), Some("tokio"));
    assert_eq!(form_field(&r, "kl").as_deref(), Some("de-de"));
    assert_eq!(form_field(&r, "kp").as_deref(), Some("1"));
}

#[test]
fn duckduckgo_regions_follow_the_country_then_the_language() {
    use ferret_engines::duckduckgo::region_for_country;
    assert_eq!(region_for_country("GB", None), Some("uk-en"));
    assert_eq!(region_for_country("tw", Some("zh-TW")), Some("tw-tzh"));
    assert_eq!(region_for_country("US", Some("de")), Some("us-en"));
    assert_eq!(region_for_country("VA", Some("it")), None);
}

// ───────────────────────────── Bing ─────────────────────────────

#[tokio::test]
async fn bing_sends_sites_country_adult_filter_first_and_a_day_range() {
    let page = r#"<ol id="b_results"><li class="b_no">There are no results</li></ol>"#;
    let r = recorded(page, "text/html", |base| async move {
        let engine = BingEngine::builder()
            .base_url(base)
            .clock(clock())
            .build()
            .unwrap();
        engine.search(&every_control("tokio")).await.unwrap();
    })
    .await;
    assert_eq!(param(&r, "q"), format!("tokio {SITES}"));
    assert_eq!(param(&r, "cc"), "DE");
    assert_eq!(param(&r, "adlt"), "strict");
    assert_eq!(param(&r, "first"), "21");
    // 2025-01-01 and 2025-06-30 in days since 1970.
    assert_eq!(param(&r, "filters"), "ex1:\"ez5_20089_20269\"");
}

// ───────────────────────────── Local index ─────────────────────────────

#[cfg(feature = "local-index")]
#[tokio::test]
async fn local_index_filters_by_modification_day_and_pages() {
    use ferret_engines::local_index::LocalIndex;
    let docs = tempfile::tempdir().unwrap();
    let index_dir = tempfile::tempdir().unwrap();
    let at = |days: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(days * 86_400);
    // 20089 is 2025-01-01.
    for (name, modified) in [
        ("old", at(20_000)),
        ("mid", at(20_100)),
        ("new", at(20_300)),
    ] {
        let path = docs.path().join(format!("{name}.md"));
        std::fs::write(&path, format!("# {name}\n\ntokio runtime notes\n")).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(modified)
            .unwrap();
    }
    let index = LocalIndex::open(index_dir.path()).unwrap();
    index.add_dir(docs.path()).await.unwrap();
    let titles = |r: ferret_core::EngineResponse| -> Vec<String> {
        r.hits.iter().map(|h| h.title.to_string()).collect()
    };
    let ranged = EngineRequest::new("tokio")
        .with_since(day("2025-01-01"))
        .with_until(day("2025-06-30"));
    assert_eq!(titles(index.search(&ranged).await.unwrap()), ["mid"]);
    let first = EngineRequest::new("tokio").with_max_results(1);
    let page_one = titles(index.search(&first).await.unwrap());
    let page_two = titles(index.search(&first.clone().with_page(2)).await.unwrap());
    assert_eq!(page_one.len(), 1);
    assert_eq!(page_two.len(), 1);
    assert_ne!(page_one, page_two);
}

// ───────────────────────────── What each engine declares ─────────────────────────────

#[test]
fn each_engine_declares_the_controls_it_pushes_down() {
    use Control as C;
    let base = "http://127.0.0.1:9";
    let everything = ControlSet::of(&Control::ALL);
    let cases: Vec<(Box<dyn Engine>, ControlSet)> = vec![
        (Box::new(brave(base)), everything),
        (
            Box::new(BingEngine::builder().base_url(base).build().unwrap()),
            everything,
        ),
        (
            Box::new(SearxngEngine::builder().base_url(base).build().unwrap()),
            ControlSet::of(&[
                C::IncludeDomains,
                C::ExcludeDomains,
                C::Freshness,
                C::Language,
                C::SafeSearch,
                C::Page,
            ]),
        ),
        (
            Box::new(tavily(base)),
            ControlSet::of(&[
                C::IncludeDomains,
                C::ExcludeDomains,
                C::Freshness,
                C::Since,
                C::Until,
                C::Region,
            ]),
        ),
        (
            Box::new(ExaEngine::builder().base_url(base).build().unwrap()),
            ControlSet::of(&[
                C::IncludeDomains,
                C::ExcludeDomains,
                C::Freshness,
                C::Since,
                C::Until,
                C::Region,
            ]),
        ),
        (
            Box::new(DuckDuckGoEngine::builder().base_url(base).build().unwrap()),
            ControlSet::of(&[C::Freshness, C::Language, C::Region, C::SafeSearch]),
        ),
        (
            Box::new(WikipediaEngine::builder().base_url(base).build().unwrap()),
            ControlSet::of(&[C::Language, C::Page]),
        ),
        (
            Box::new(GithubEngine::builder().base_url(base).build().unwrap()),
            ControlSet::of(&[C::Freshness, C::Since, C::Until, C::Page]),
        ),
    ];
    for (engine, expected) in cases {
        let caps = engine.capabilities();
        assert_eq!(caps.controls, expected, "{}", engine.name());
        let ignored = caps.ignored(everything, 2);
        assert_eq!(
            ignored,
            everything.difference(expected),
            "{} ignores what it does not declare",
            engine.name()
        );
    }
}
