//! The per-host limiter in the engines' HTTP client: concurrency and rate
//! per host under parallel calls, `Retry-After` pauses, the scraped engines
//! on the process-wide limiter, and calls through a proxy.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use ferret_core::politeness::{HostLimiter, HostLimits, ProxyConfig};
use ferret_core::{Engine, EngineRequest};
use ferret_engines::bing::BingEngine;
use ferret_engines::http::HttpClient;
use url::Url;

/// What a counting server saw: the most requests in flight at once and
/// when each started.
#[derive(Clone, Default)]
struct Load {
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    starts: Arc<Mutex<Vec<Instant>>>,
}

impl Load {
    async fn hit(&self) {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.starts.lock().unwrap().push(Instant::now());
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    fn count(&self) -> usize {
        self.starts.lock().unwrap().len()
    }

    /// The most request starts within any one-second window.
    fn max_per_second(&self) -> usize {
        let mut starts = self.starts.lock().unwrap().clone();
        starts.sort();
        (0..starts.len())
            .map(|i| {
                starts[i..]
                    .iter()
                    .take_while(|t| t.duration_since(starts[i]) < Duration::from_millis(990))
                    .count()
            })
            .max()
            .unwrap_or(0)
    }
}

async fn serve(router: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    addr
}

/// A server whose every path is counted and answers a small HTML page.
async fn counting_server(load: Load) -> SocketAddr {
    let router = Router::new().fallback(move || {
        let load = load.clone();
        async move {
            load.hit().await;
            (
                [(header::CONTENT_TYPE, "text/html")],
                "<html><body>nothing</body></html>",
            )
        }
    });
    serve(router).await
}

#[tokio::test]
async fn parallel_calls_never_exceed_the_per_host_limits() {
    let load = Load::default();
    let addr = counting_server(load.clone()).await;
    let client = HttpClient::builder()
        .host_limiter(Some(HostLimiter::new(HostLimits::default())))
        .build()
        .unwrap();
    let url = Url::parse(&format!("http://{addr}/search")).unwrap();
    let calls = (0..10).map(|_| client.send(client.get(url.clone())));
    let results = futures::future::join_all(calls).await;
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
    assert_eq!(load.count(), 10);
    assert!(load.max_in_flight.load(Ordering::SeqCst) <= 2);
    assert!(load.max_per_second() <= 4, "{}", load.max_per_second());
}

#[tokio::test]
async fn retry_after_pauses_the_host() {
    let router = Router::new()
        .route(
            "/busy",
            get(|| async {
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, "1")],
                    "",
                )
            }),
        )
        .route("/ok", get(|| async { "ok".into_response() }));
    let addr = serve(router).await;
    let client = HttpClient::builder()
        .host_limiter(Some(HostLimiter::new(HostLimits::default())))
        .build()
        .unwrap();
    let busy = client
        .send(client.get(Url::parse(&format!("http://{addr}/busy")).unwrap()))
        .await
        .unwrap();
    assert_eq!(busy.status, 429);
    let t0 = Instant::now();
    client
        .send(client.get(Url::parse(&format!("http://{addr}/ok")).unwrap()))
        .await
        .unwrap();
    assert!(
        t0.elapsed() >= Duration::from_millis(800),
        "{:?}",
        t0.elapsed()
    );
    // A call whose budget ends before the host's pause fails at once.
    assert_eq!(client.pause_for_test(&addr), Duration::from_secs(30));
    let short = client.with_timeout(Duration::from_millis(300));
    let t0 = Instant::now();
    let err = short
        .send(short.get(Url::parse(&format!("http://{addr}/ok")).unwrap()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ferret_core::EngineError::Timeout { .. }),
        "{err:?}"
    );
    assert!(
        t0.elapsed() < Duration::from_millis(250),
        "{:?}",
        t0.elapsed()
    );
}

/// Pauses `addr`'s host in the client's limiter for 30 s.
trait PauseForTest {
    fn pause_for_test(&self, addr: &SocketAddr) -> Duration;
}

impl PauseForTest for HttpClient {
    fn pause_for_test(&self, addr: &SocketAddr) -> Duration {
        let url = Url::parse(&format!("http://{addr}/")).unwrap();
        self.host_limiter()
            .expect("a limiter")
            .pause(&url, Duration::from_secs(30), None)
    }
}

#[tokio::test]
async fn a_scraped_engine_waits_on_the_process_wide_limiter() {
    let load = Load::default();
    let addr = counting_server(load.clone()).await;
    let engine = BingEngine::builder()
        .base_url(format!("http://{addr}"))
        .build()
        .unwrap();
    let request = EngineRequest::new("does caffeine affect sleep");
    let calls = (0..6).map(|_| engine.search(&request));
    let _ = futures::future::join_all(calls).await;
    assert_eq!(load.count(), 6);
    assert!(load.max_in_flight.load(Ordering::SeqCst) <= 2);
    assert!(load.max_per_second() <= 4, "{}", load.max_per_second());
}

#[tokio::test]
async fn calls_go_through_the_configured_proxy() {
    // The "proxy" is a counting server: an absolute-URI GET reaches it.
    let load = Load::default();
    let proxy = counting_server(load.clone()).await;
    let client = HttpClient::builder()
        .proxy(Some(ProxyConfig::all(&format!("http://{proxy}")).unwrap()))
        .build()
        .unwrap();
    let fetched = client
        .send(client.get(Url::parse("http://engine.example/search?q=x").unwrap()))
        .await
        .unwrap();
    assert_eq!(fetched.status, 200);
    assert_eq!(load.count(), 1);
    // NO_PROXY sends the host direct (here: a closed loopback port).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let direct = HttpClient::builder()
        .proxy(Some(
            ProxyConfig::all(&format!("http://{proxy}"))
                .unwrap()
                .no_proxy("127.0.0.1"),
        ))
        .timeout(Duration::from_secs(3))
        .build()
        .unwrap();
    let err = direct
        .send(direct.get(Url::parse(&format!("http://127.0.0.1:{port}/search")).unwrap()))
        .await;
    assert!(err.is_err());
    assert_eq!(load.count(), 1);
}
