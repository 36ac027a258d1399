//! A polite fetcher against local servers: the honest user agent,
//! robots.txt (rules, caching, caps, server errors, a hanging file), and
//! the per-host limiter.

mod fetch_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use ferret_evidence::fetch::{DEFAULT_USER_AGENT, FetchError, FetchOptions, WarningCode};
use ferret_evidence::verify::Verdict;
use fetch_support::*;

fn html(body: String) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body)
}

fn text(body: String) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/plain")], body)
}

/// A site with `robots` as its robots.txt (counted in `robots_hits`), an
/// article at `/article` and `/private/page` (counted in `page_hits`).
async fn site(robots: &'static str, robots_hits: Hits, page_hits: Hits) -> std::net::SocketAddr {
    let router = Router::new()
        .route(
            "/robots.txt",
            get(move || {
                robots_hits.hit();
                async move { text(robots.to_string()) }
            }),
        )
        .route(
            "/article",
            get(|| async { html(article("Caffeine and sleep", 30)) }),
        )
        .route(
            "/private/page",
            get(move || {
                page_hits.hit();
                async { html(article("Private", 30)) }
            }),
        );
    serve(router).await
}

const ROBOTS: &str = "User-agent: *\nDisallow: /private/\n";

#[test]
fn the_default_user_agent_names_ferret_and_where_to_read_about_it() {
    assert!(
        DEFAULT_USER_AGENT.starts_with("Ferret/"),
        "{DEFAULT_USER_AGENT}"
    );
    assert!(
        DEFAULT_USER_AGENT.contains("(+https://github.com/ferret-search/ferret)"),
        "{DEFAULT_USER_AGENT}"
    );
}

#[tokio::test]
async fn page_fetches_send_the_configured_user_agent() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let record = seen.clone();
    let router = Router::new().route(
        "/article",
        get(move |headers: HeaderMap| {
            let ua = headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            record.lock().unwrap().push(ua);
            async { html(article("Caffeine and sleep", 30)) }
        }),
    );
    let addr = serve(router).await;
    let url = public_url(addr, "/article");
    let fetcher = public_fetcher().build().unwrap();
    assert_eq!(fetcher.user_agent(), DEFAULT_USER_AGENT);
    fetcher.fetch(&url, &FetchOptions::default()).await.unwrap();
    let custom = fetcher
        .to_builder()
        .user_agent("MyAgent/1.0")
        .build()
        .unwrap();
    custom.fetch(&url, &FetchOptions::default()).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![DEFAULT_USER_AGENT.to_string(), "MyAgent/1.0".into()]
    );
}

#[tokio::test]
async fn a_disallowed_page_is_not_fetched_and_names_the_rule() {
    let (robots_hits, page_hits) = (Hits::default(), Hits::default());
    let addr = site(ROBOTS, robots_hits.clone(), page_hits.clone()).await;
    let fetcher = public_fetcher().build().unwrap();
    let err = fetcher
        .fetch(&public_url(addr, "/private/page"), &FetchOptions::default())
        .await
        .unwrap_err();
    let FetchError::RobotsDisallowed {
        rule, robots_url, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(rule, "Disallow: /private/ (User-agent: *)");
    assert!(robots_url.ends_with("/robots.txt"), "{robots_url}");
    assert_eq!(err.verdict(), Verdict::RobotsDisallowed);
    assert_eq!(err.code(), "robots_disallowed");
    assert!(!err.is_temporary());
    assert_eq!(page_hits.get(), 0);
    // Allowed pages are fetched; robots.txt was read once for both.
    let page = fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap();
    assert!(page.verdict.is_ok());
    assert_eq!(robots_hits.get(), 1);
}

#[tokio::test]
async fn ignoring_robots_fetches_the_page() {
    let (robots_hits, page_hits) = (Hits::default(), Hits::default());
    let addr = site(ROBOTS, robots_hits.clone(), page_hits.clone()).await;
    let fetcher = public_fetcher().respect_robots(false).build().unwrap();
    let page = fetcher
        .fetch(&public_url(addr, "/private/page"), &FetchOptions::default())
        .await
        .unwrap();
    assert!(page.verdict.is_ok());
    assert_eq!(page_hits.get(), 1);
    assert_eq!(robots_hits.get(), 0);
}

#[test]
fn the_verdict_serialises_in_snake_case() {
    assert_eq!(
        serde_json::to_string(&Verdict::RobotsDisallowed).unwrap(),
        "\"robots_disallowed\""
    );
    assert_eq!(
        "robots_disallowed".parse::<Verdict>().unwrap(),
        Verdict::RobotsDisallowed
    );
    assert!(Verdict::ALL.contains(&Verdict::RobotsDisallowed));
    let _ = WarningCode::RobotsDisallowed;
}

#[tokio::test]
async fn a_missing_robots_txt_allows_everything() {
    let router = Router::new().route("/private/page", get(|| async { html(article("Open", 30)) }));
    let addr = serve(router).await;
    let page = public_fetcher()
        .build()
        .unwrap()
        .fetch(&public_url(addr, "/private/page"), &FetchOptions::default())
        .await
        .unwrap();
    assert!(page.verdict.is_ok());
}

#[tokio::test]
async fn a_server_error_on_robots_txt_disallows_for_now() {
    let page_hits = Hits::default();
    let hits = page_hits.clone();
    let router = Router::new()
        .route(
            "/robots.txt",
            get(|| async { (StatusCode::SERVICE_UNAVAILABLE, "down") }),
        )
        .route(
            "/article",
            get(move || {
                hits.hit();
                async { html(article("A", 30)) }
            }),
        );
    let addr = serve(router).await;
    let err = public_fetcher()
        .build()
        .unwrap()
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap_err();
    let FetchError::RobotsDisallowed { rule, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(rule.contains("HTTP 503"), "{rule}");
    assert_eq!(page_hits.get(), 0);
}

#[tokio::test]
async fn a_ten_megabyte_robots_txt_is_read_only_up_to_its_cap() {
    // A rule at the start, 10 MB of comments, then a rule past the cap.
    let mut big = String::from("User-agent: *\nDisallow: /early\n");
    let filler = "# padding padding padding padding padding padding padding\n";
    while big.len() < 10 * 1024 * 1024 {
        big.push_str(filler);
    }
    big.push_str("Disallow: /late\n");
    let big: &'static str = Box::leak(big.into_boxed_str());
    let router = Router::new()
        .route(
            "/robots.txt",
            get(move || async move { text(big.to_string()) }),
        )
        .route("/early", get(|| async { html(article("E", 30)) }))
        .route("/late", get(|| async { html(article("L", 30)) }));
    let addr = serve(router).await;
    let fetcher = public_fetcher().build().unwrap();
    let err = fetcher
        .fetch(&public_url(addr, "/early"), &FetchOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, FetchError::RobotsDisallowed { .. }),
        "{err:?}"
    );
    let page = fetcher
        .fetch(&public_url(addr, "/late"), &FetchOptions::default())
        .await
        .unwrap();
    assert!(page.verdict.is_ok());
}

#[tokio::test]
async fn a_hanging_robots_txt_is_bounded_by_the_timeout() {
    let router = Router::new()
        .route(
            "/robots.txt",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "never"
            }),
        )
        .route("/article", get(|| async { html(article("A", 30)) }));
    let addr = serve(router).await;
    let fetcher = public_fetcher()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err:?}");
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
}
