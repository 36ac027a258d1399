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
use ferret_fetch::verify::Verdict;
use ferret_fetch::{DEFAULT_USER_AGENT, FetchError, FetchOptions, WarningCode};
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

// ---- Proxies --------------------------------------------------------------

mod proxy {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};
    use url::{Position, Url};

    /// A tiny forward proxy on loopback: absolute-URI requests are
    /// forwarded (every name is its own "resolution" to 127.0.0.1),
    /// CONNECT is tunnelled, and every request line is recorded. A hanging
    /// proxy reads the request and never answers.
    pub struct TestProxy {
        pub url: String,
        pub seen: Arc<Mutex<Vec<String>>>,
    }

    impl TestProxy {
        pub fn seen(&self) -> Vec<String> {
            self.seen.lock().unwrap().clone()
        }
    }

    pub async fn start(hang: bool) -> TestProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let record = seen.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(handle(client, record.clone(), hang));
            }
        });
        TestProxy {
            url: format!("http://{addr}"),
            seen,
        }
    }

    /// Reads up to the end of the request head: (head, bytes after it).
    async fn read_head(client: &mut TcpStream) -> Option<(String, Vec<u8>)> {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = client.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            buf.extend_from_slice(&chunk[..n]);
            if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..at]).into_owned();
                return Some((head, buf[at + 4..].to_vec()));
            }
        }
    }

    async fn handle(mut client: TcpStream, seen: Arc<Mutex<Vec<String>>>, hang: bool) {
        let Some((head, rest)) = read_head(&mut client).await else {
            return;
        };
        let mut lines = head.split("\r\n");
        let first = lines.next().unwrap_or_default().to_string();
        let mut parts = first.split(' ');
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        seen.lock().unwrap().push(format!("{method} {target}"));
        if hang {
            tokio::time::sleep(Duration::from_secs(60)).await;
            return;
        }
        if method == "CONNECT" {
            let port: u16 = target.rsplit(':').next().unwrap().parse().unwrap();
            let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", port)).await else {
                return;
            };
            let _ = client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await;
            let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            return;
        }
        let Ok(url) = Url::parse(target) else {
            return;
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", port)).await else {
            let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n").await;
            return;
        };
        let mut request = format!("{method} {} HTTP/1.1\r\n", &url[Position::BeforePath..]);
        for line in lines {
            let lower = line.to_ascii_lowercase();
            if !lower.starts_with("connection:") && !lower.starts_with("proxy-connection:") {
                request.push_str(line);
                request.push_str("\r\n");
            }
        }
        request.push_str("Connection: close\r\n\r\n");
        let _ = upstream.write_all(request.as_bytes()).await;
        let _ = upstream.write_all(&rest).await;
        let _ = tokio::io::copy(&mut upstream, &mut client).await;
        let _ = client.shutdown().await;
    }
}

use ferret_core::guard::{GuardReason, UrlGuard};
use ferret_core::politeness::ProxyConfig;

/// A site with an article and redirects to private addresses.
async fn proxied_site() -> std::net::SocketAddr {
    let redirect = |to: &'static str| {
        get(move || async move { (StatusCode::FOUND, [(header::LOCATION, to)]) })
    };
    let router = Router::new()
        .route(
            "/article",
            get(|| async { html(article("Caffeine and sleep", 30)) }),
        )
        .route("/to-private", redirect("http://10.0.0.1/secret"))
        .route(
            "/to-metadata",
            redirect("http://169.254.169.254/latest/meta-data"),
        );
    serve(router).await
}

#[tokio::test]
async fn a_fetch_through_the_proxy_reaches_the_page() {
    let addr = proxied_site().await;
    let proxy = proxy::start(false).await;
    let fetcher = public_fetcher()
        .proxy(Some(ProxyConfig::all(&proxy.url).unwrap()))
        .build()
        .unwrap();
    let url = public_url(addr, "/article");
    let page = fetcher.fetch(&url, &FetchOptions::default()).await.unwrap();
    assert!(page.verdict.is_ok(), "{:?}", page.verdict);
    let seen = proxy.seen();
    assert!(seen.contains(&format!("GET {url}")), "{seen:?}");
    assert!(
        seen.contains(&format!("GET {}", public_url(addr, "/robots.txt"))),
        "robots.txt goes through the proxy too: {seen:?}"
    );
}

#[tokio::test]
async fn a_redirect_to_a_private_address_is_refused_before_the_proxy_sees_it() {
    let addr = proxied_site().await;
    let proxy = proxy::start(false).await;
    let fetcher = public_fetcher()
        .proxy(Some(ProxyConfig::all(&proxy.url).unwrap()))
        .build()
        .unwrap();
    for (path, private) in [
        ("/to-private", "10.0.0.1"),
        ("/to-metadata", "169.254.169.254"),
    ] {
        let err = fetcher
            .fetch(&public_url(addr, path), &FetchOptions::default())
            .await
            .unwrap_err();
        let FetchError::RedirectBlocked { error, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(
            error.reason,
            GuardReason::PrivateOrLocalHostBlocked,
            "{err}"
        );
        let seen = proxy.seen();
        assert!(seen.iter().all(|s| !s.contains(private)), "{seen:?}");
        assert!(seen.iter().any(|s| s.ends_with(path)), "{seen:?}");
    }
}

#[tokio::test]
async fn strict_mode_judges_a_proxied_name_before_sending() {
    let addr = proxied_site().await;
    let proxy = proxy::start(false).await;
    // The name is pinned to loopback: Ferret's own resolution is private.
    let fetcher = public_fetcher()
        .guard(UrlGuard::new().strict(true))
        .proxy(Some(ProxyConfig::all(&proxy.url).unwrap()))
        .build()
        .unwrap();
    let err = fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap_err();
    let error = err.guard_error().unwrap_or_else(|| panic!("{err:?}"));
    assert_eq!(error.reason, GuardReason::BlockedByStrictSsrf, "{err}");
    assert!(proxy.seen().is_empty(), "{:?}", proxy.seen());
}

#[tokio::test]
async fn a_hanging_proxy_is_a_timeout_within_the_budget() {
    let addr = proxied_site().await;
    let proxy = proxy::start(true).await;
    let fetcher = public_fetcher()
        .timeout(Duration::from_millis(400))
        .proxy(Some(ProxyConfig::all(&proxy.url).unwrap()))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err:?}");
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    assert!(!proxy.seen().is_empty());
}

#[tokio::test]
async fn no_proxy_hosts_go_direct() {
    let addr = proxied_site().await;
    let proxy = proxy::start(false).await;
    let config = ProxyConfig::all(&proxy.url)
        .unwrap()
        .no_proxy(&format!("other.example, {PUBLIC_HOST}"));
    let fetcher = public_fetcher().proxy(Some(config)).build().unwrap();
    let page = fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap();
    assert!(page.verdict.is_ok());
    assert!(proxy.seen().is_empty(), "{:?}", proxy.seen());
}

// ---- The per-host limiter -------------------------------------------------

use ferret_core::politeness::{HostLimiter, HostLimits};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a counting server saw: the most requests in flight at once and
/// when each request started.
#[derive(Clone, Default)]
struct Load {
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    starts: Arc<Mutex<Vec<Instant>>>,
}

impl Load {
    async fn serve(&self, body: String) -> String {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.starts.lock().unwrap().push(Instant::now());
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        body
    }

    /// The most request starts within any window of 900 ms: starts the
    /// limiter spaces 250 ms apart reach the server with some delay each, so
    /// five of them can land a few ms under a second apart on a loaded
    /// machine; 100 ms is left for that, and a limiter that does not space
    /// starts at all still shows all of them in one window.
    fn max_per_second(&self) -> usize {
        let mut starts = self.starts.lock().unwrap().clone();
        starts.sort();
        (0..starts.len())
            .map(|i| {
                starts[i..]
                    .iter()
                    .take_while(|t| t.duration_since(starts[i]) < Duration::from_millis(900))
                    .count()
            })
            .max()
            .unwrap_or(0)
    }
}

#[tokio::test]
async fn parallel_fetches_never_exceed_the_per_host_limits() {
    let load = Load::default();
    let (pages, robots) = (load.clone(), load.clone());
    let router = Router::new()
        .route(
            "/robots.txt",
            get(move || {
                let robots = robots.clone();
                async move { text(robots.serve("User-agent: *\nAllow: /\n".into()).await) }
            }),
        )
        .route(
            "/page/{n}",
            get(move || {
                let pages = pages.clone();
                async move { html(pages.serve(article("Caffeine and sleep", 30)).await) }
            }),
        );
    let addr = serve(router).await;
    let fetcher = public_fetcher()
        .host_limiter(Some(HostLimiter::new(HostLimits::default())))
        .build()
        .unwrap();
    let urls: Vec<String> = (0..10)
        .map(|n| public_url(addr, &format!("/page/{n}")))
        .collect();
    let options = FetchOptions::default();
    let results = futures::future::join_all(urls.iter().map(|u| fetcher.fetch(u, &options))).await;
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
    assert_eq!(
        load.starts.lock().unwrap().len(),
        11,
        "ten pages and one robots.txt"
    );
    assert!(load.max_in_flight.load(Ordering::SeqCst) <= 2);
    assert!(load.max_per_second() <= 4, "{}", load.max_per_second());
}

#[tokio::test]
async fn retry_after_pauses_the_host_and_is_reported() {
    let router = Router::new()
        .route(
            "/busy",
            get(|| async {
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, "1")],
                    "slow down",
                )
            }),
        )
        .route("/article", get(|| async { html(article("A", 30)) }));
    let addr = serve(router).await;
    let fetcher = public_fetcher()
        .host_limiter(Some(HostLimiter::new(HostLimits::default())))
        .build()
        .unwrap();
    let err = fetcher
        .fetch(&public_url(addr, "/busy"), &FetchOptions::default())
        .await
        .unwrap_err();
    let page = err.page().unwrap_or_else(|| panic!("{err:?}"));
    let warning = page
        .warnings
        .iter()
        .find(|w| w.code == WarningCode::RetryAfter)
        .unwrap_or_else(|| panic!("{:?}", page.warnings));
    assert!(warning.detail.contains("1000 ms"), "{}", warning.detail);
    let t0 = Instant::now();
    fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap();
    assert!(
        t0.elapsed() >= Duration::from_millis(800),
        "{:?}",
        t0.elapsed()
    );
}

#[tokio::test]
async fn a_paused_host_never_waits_past_the_request_deadline() {
    let router = Router::new()
        .route(
            "/busy",
            get(|| async {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, "30")],
                    "",
                )
            }),
        )
        .route("/article", get(|| async { html(article("A", 30)) }));
    let addr = serve(router).await;
    let fetcher = public_fetcher()
        .timeout(Duration::from_millis(500))
        .host_limiter(Some(HostLimiter::new(HostLimits::default())))
        .build()
        .unwrap();
    let _ = fetcher
        .fetch(&public_url(addr, "/busy"), &FetchOptions::default())
        .await;
    let t0 = Instant::now();
    let err = fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err:?}");
    assert!(
        t0.elapsed() < Duration::from_millis(400),
        "{:?}",
        t0.elapsed()
    );
}
