//! Fault injection through the public API: slow, limited, broken,
//! truncated, oversized, blocking and dripping servers each give the right
//! typed error, and a fanout with one faulty engine still returns the
//! healthy engine's results within its deadline.

mod adapter_support;

use std::io::Write;
use std::time::{Duration, SystemTime};

use adapter_support::search_err;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::response::Response;
use axum::routing::any as axum_any;
use ferret_core::fanout::{Fanout, FanoutRequest};
use ferret_core::{Engine, EngineError, EngineRequest, EngineStatus, ErrorKind, Mode};
use ferret_engines::bing::BingEngine;
use ferret_engines::brave::BraveEngine;
use ferret_engines::duckduckgo::DuckDuckGoEngine;
use ferret_engines::tavily::TavilyEngine;
use futures::stream;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn brave(base: &str) -> BraveEngine {
    BraveEngine::builder()
        .base_url(base)
        .api_key("k")
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

fn brave_body() -> serde_json::Value {
    json!({
        "type": "search",
        "web": { "results": [
            { "title": "Tokio tutorial", "url": "https://tokio.rs/tokio/tutorial", "description": "Learn <strong>async</strong> Rust" },
            { "title": "Async book", "url": "https://rust-lang.github.io/async-book/", "description": "Asynchronous programming in Rust" }
        ]}
    })
}

/// Serve `router` on a loopback port; returns the base URL.
async fn serve(router: Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{addr}")
}

/// A body of `total` bytes (or endless with `None`) in 64 KiB chunks.
fn big_body(prefix: &'static [u8], total: Option<usize>) -> Body {
    let chunk = Bytes::from(vec![b' '; 64 * 1024]);
    let s = stream::unfold(0usize, move |sent| {
        let chunk = chunk.clone();
        async move {
            if total.is_some_and(|t| sent >= t) {
                return None;
            }
            let piece = if sent == 0 {
                Bytes::from_static(prefix)
            } else {
                chunk
            };
            Some((
                Ok::<Bytes, std::io::Error>(piece.clone()),
                sent + piece.len(),
            ))
        }
    });
    Body::from_stream(s)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn compressed_bodies_are_asked_for_and_decoded() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-encoding", "gzip")
                .set_body_raw(
                    gzip(brave_body().to_string().as_bytes()),
                    "application/json",
                ),
        )
        .mount(&server)
        .await;
    let r = brave(&server.uri())
        .search(&EngineRequest::new("rust async"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 2);
    assert_eq!(r.hits[0].snippet, "Learn async Rust");
    let sent = &server.received_requests().await.unwrap()[0];
    let accept = sent
        .headers
        .get("accept-encoding")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(accept.contains("gzip") && accept.contains("br"), "{accept}");
    let agent = sent.headers.get("user-agent").unwrap().to_str().unwrap();
    assert!(agent.starts_with("ferret/"), "{agent}");
}

#[tokio::test]
async fn a_compression_bomb_is_capped_after_decompression() {
    let mut inflated = br#"{"web":{"results":["#.to_vec();
    inflated.resize(20 << 20, b' ');
    let bomb = gzip(&inflated);
    assert!(bomb.len() < 1 << 20, "the compressed body is small");
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-encoding", "gzip")
                .set_body_raw(bomb, "application/json"),
        )
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert!(e.to_string().contains("4194304 bytes"), "{e}");
}

#[tokio::test]
async fn a_slow_server_is_a_timeout_with_the_budget() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(brave_body())
                .set_delay(Duration::from_secs(10)),
        )
        .mount(&server)
        .await;
    let engine = BraveEngine::builder()
        .base_url(server.uri())
        .api_key("k")
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let e = search_err(&engine, &EngineRequest::new("rust async")).await;
    assert_eq!(
        e,
        EngineError::Timeout {
            after: Duration::from_millis(300)
        }
    );
    assert!(e.is_temporary());
}

#[tokio::test]
async fn a_429_carries_retry_after_in_seconds_or_as_a_date() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "2")
                .set_body_string("slow down"),
        )
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::RateLimited);
    assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));

    server.reset().await;
    let at = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(90));
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", at.as_str())
                .set_body_string("slow down"),
        )
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("x")).await;
    let wait = e.retry_after().unwrap();
    assert!(
        wait > Duration::from_secs(80) && wait <= Duration::from_secs(90),
        "{wait:?}"
    );
}

#[tokio::test]
async fn a_500_is_a_temporary_transport_error() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(500).set_body_string("oops"))
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Transport);
    assert!(e.is_temporary());
}

#[tokio::test]
async fn malformed_json_is_a_parse_error() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            r#"{"web": {"results": [{"title": "x",}"#,
            "application/json",
        ))
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert!(e.to_string().contains("Brave"), "{e}");
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_is_a_temporary_transport_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let mut seen = Vec::new();
                while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n";
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(br#"{"web":{"results":[{"title":"#).await;
                let _ = socket.flush().await;
                // Dropping the socket closes the connection mid-body.
            });
        }
    });
    let e = search_err(&brave(&format!("http://{addr}")), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Transport, "{e}");
    assert!(e.is_temporary());
    assert!(e.to_string().contains("broke"), "{e}");
}

#[tokio::test]
async fn a_20_mb_json_body_is_cut_off_at_the_cap() {
    let base = serve(Router::new().fallback(axum_any(|| async {
        Response::builder()
            .header("content-type", "application/json")
            .body(big_body(br#"{"web":{"results":["#, Some(20 << 20)))
            .unwrap()
    })))
    .await;
    let e = search_err(&brave(&base), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert!(e.to_string().contains("4194304 bytes"), "{e}");
}

#[tokio::test]
async fn an_endless_body_is_cut_off_too_so_reading_is_incremental() {
    let base = serve(Router::new().fallback(axum_any(|| async {
        Response::builder()
            .header("content-type", "application/json")
            .body(big_body(br#"{"web":{"results":["#, None))
            .unwrap()
    })))
    .await;
    let engine = BraveEngine::builder()
        .base_url(&base)
        .api_key("k")
        .body_limit(1 << 20)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let e = search_err(&engine, &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert!(e.to_string().contains("1048576 bytes"), "{e}");
}

#[tokio::test]
async fn an_oversized_result_page_is_parsed_up_to_the_cap_with_a_warning() {
    const PAGE_HEAD: &[u8] = br#"<html><body><ol id="b_results"><li class="b_algo"><h2><a href="https://tokio.rs/">Tokio async runtime</a></h2><div class="b_caption"><p>An async runtime for Rust</p></div></li>"#;
    let base = serve(Router::new().fallback(axum_any(|| async {
        Response::builder()
            .header("content-type", "text/html")
            .body(big_body(PAGE_HEAD, Some(20 << 20)))
            .unwrap()
    })))
    .await;
    let engine = BingEngine::builder().base_url(&base).build().unwrap();
    let r = engine
        .search(&EngineRequest::new("rust async runtime"))
        .await
        .unwrap();
    assert_eq!(r.hits.len(), 1);
    assert_eq!(r.hits[0].url, "https://tokio.rs/");
    assert!(
        r.warnings.iter().any(|w| w.contains("cut off")),
        "{:?}",
        r.warnings
    );
}

#[tokio::test]
async fn a_captcha_or_challenge_page_is_typed() {
    let Some(anomaly) =
        adapter_support::fixture("serp/duckduckgo-lite-anomaly-challenge-2026-07.html")
    else {
        return;
    };
    let Some(sorry) =
        adapter_support::fixture("serp/google-sorry-recaptcha-block-page-2020-10.html")
    else {
        return;
    };
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_raw(anomaly, "text/html"))
        .mount(&server)
        .await;
    let ddg = DuckDuckGoEngine::builder()
        .base_url(server.uri())
        .build()
        .unwrap();
    let e = search_err(&ddg, &EngineRequest::new("rust async")).await;
    assert_eq!(e.kind(), ErrorKind::BotDetected);
    assert!(!e.is_temporary());

    server.reset().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(403).set_body_raw(sorry, "text/html"))
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("rust async")).await;
    assert_eq!(e.kind(), ErrorKind::Captcha, "{e}");
}

#[tokio::test]
async fn a_body_dripping_one_byte_a_second_times_out() {
    let base = serve(Router::new().fallback(axum_any(|| async {
        let drip = stream::unfold(0u32, |n| async move {
            if n > 0 {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            (n < 120).then(|| (Ok::<Bytes, std::io::Error>(Bytes::from_static(b" ")), n + 1))
        });
        Response::builder()
            .header("content-type", "application/json")
            .body(Body::from_stream(drip))
            .unwrap()
    })))
    .await;
    let engine = BraveEngine::builder()
        .base_url(&base)
        .api_key("k")
        .timeout(Duration::from_millis(1500))
        .build()
        .unwrap();
    let e = search_err(&engine, &EngineRequest::new("x")).await;
    assert_eq!(
        e,
        EngineError::Timeout {
            after: Duration::from_millis(1500)
        }
    );
}

#[tokio::test]
async fn a_refused_connection_is_a_temporary_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let e = search_err(&brave(&format!("http://{addr}")), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Transport, "{e}");
    assert!(e.is_temporary());
    assert!(e.to_string().contains("could not connect"), "{e}");
}

#[tokio::test]
async fn a_redirect_to_another_site_is_refused() {
    let server = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(302).insert_header("location", "http://169.254.169.254/latest"),
        )
        .mount(&server)
        .await;
    let e = search_err(&brave(&server.uri()), &EngineRequest::new("x")).await;
    assert_eq!(e.kind(), ErrorKind::Transport, "{e}");
    assert!(!e.is_temporary());
    assert!(e.to_string().contains("refused"), "{e}");
}

#[tokio::test]
async fn a_fanout_with_faulty_engines_still_returns_the_healthy_results() {
    let healthy = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_json(brave_body()))
        .mount(&healthy)
        .await;
    let broken = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(500).set_body_string("down"))
        .mount(&broken)
        .await;
    let hanging = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string("<html></html>")
                .set_delay(Duration::from_secs(60)),
        )
        .mount(&hanging)
        .await;
    let tavily = TavilyEngine::builder()
        .base_url(broken.uri())
        .api_key("tvly-k")
        .build()
        .unwrap();
    let bing = BingEngine::builder()
        .base_url(hanging.uri())
        .build()
        .unwrap();
    let fanout = Fanout::builder()
        .engine(brave(&healthy.uri()))
        .engine(tavily)
        .engine(bing)
        .timeout(Duration::from_secs(1))
        .deadline(Duration::from_secs(10))
        .build()
        .unwrap();
    let outcome = fanout
        .run(
            &FanoutRequest::from_queries(Mode::Deep, ["rust async"])
                .with_engines(["brave", "tavily", "bing"]),
        )
        .await
        .unwrap();
    assert!(!outcome.deadline_hit);
    let brave_call = outcome
        .calls
        .iter()
        .find(|c| c.engine == "brave")
        .expect("brave answered");
    assert_eq!(brave_call.response.hits.len(), 2);
    assert_eq!(
        brave_call.response.hits[0].url,
        "https://tokio.rs/tokio/tutorial"
    );
    let status = |name: &str| {
        outcome
            .reports
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no report for {name}"))
            .clone()
    };
    assert_eq!(status("brave").status, EngineStatus::Ok);
    let t = status("tavily");
    assert_eq!(t.status, EngineStatus::Error);
    assert_eq!(t.error_kind, Some(ErrorKind::Transport));
    let b = status("bing");
    assert_eq!(b.status, EngineStatus::Timeout);
    assert!(outcome.elapsed_ms < 10_000);
}
