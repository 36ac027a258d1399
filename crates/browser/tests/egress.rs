//! The managed browser has one way out: every connection goes through
//! Ferret's egress proxy and the URL guard. A real Chromium renders a
//! hostile page (on a public-looking name that the proxy's resolver rules
//! map to a loopback server) that tries to reach loopback by every route
//! the `Fetch` interception does not see — WebSockets (`127.0.0.1`,
//! `localhost`, `[::1]`), EventSource, a worker's own WebSocket and fetch,
//! preconnect and DNS prefetch — while canary servers count every TCP
//! connection they accept. None may arrive. A WebSocket to an allowed name
//! does connect (through the proxy: Chromium itself resolves no name).
//! Strict mode refuses a public name that resolves to loopback, as the HTTP
//! path does, and a public attached pool unless its egress is declared
//! controlled.

mod support;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use ferret_browser::modes::{self, FetchRequest};
use ferret_browser::{
    BrowserError, BrowserRuntime, ChromiumConfig, ChromiumRuntime, RenderOptions, WaitFor,
};
use ferret_core::Partition;
use ferret_core::guard::UrlGuard;

/// Accepts TCP connections and counts them; never answers.
struct Canary {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl Canary {
    fn start(addr: &str) -> Option<Self> {
        let listener = TcpListener::bind(addr).ok()?;
        let port = listener.local_addr().ok()?.port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                held.push(stream);
            }
        });
        Some(Canary { port, accepted })
    }

    fn count(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

fn hostile_page(v4: u16, v6: Option<u16>, allowed: u16) -> String {
    let v6 = v6
        .map(|p| format!("try {{ new WebSocket('ws://[::1]:{p}/'); }} catch (e) {{}}"))
        .unwrap_or_default();
    format!(
        r#"<!doctype html><html><head><title>Hostile</title>
<link rel="preconnect" href="http://127.0.0.1:{v4}">
<link rel="dns-prefetch" href="http://localhost:{v4}">
</head><body><main><h1>An ordinary looking article</h1>
<p>Nothing to see here, only a page that tries to reach the machine it is read on.</p></main>
<script>
try {{ new WebSocket('ws://127.0.0.1:{v4}/'); }} catch (e) {{}}
try {{ new WebSocket('ws://localhost:{v4}/'); }} catch (e) {{}}
{v6}
try {{ new EventSource('http://127.0.0.1:{v4}/events'); }} catch (e) {{}}
try {{ new Worker('/worker.js?port={v4}'); }} catch (e) {{}}
try {{ new WebSocket('ws://allowed.example:{allowed}/'); }} catch (e) {{}}
setTimeout(() => {{ document.body.dataset.done = '1'; }}, 2500);
</script></body></html>"#
    )
}

const WORKER: &str = r#"
const port = new URL(self.location.href).searchParams.get('port');
try { new WebSocket('ws://127.0.0.1:' + port + '/'); } catch (e) {}
fetch('http://127.0.0.1:' + port + '/from-worker').catch(() => {});
"#;

fn router(page: String, hits: Arc<AtomicUsize>) -> Router {
    Router::new()
        .route(
            "/hostile",
            get(move || {
                let page = page.clone();
                async move { Html(page) }
            }),
        )
        .route(
            "/worker.js",
            get(|| async { ([(header::CONTENT_TYPE, "text/javascript")], WORKER).into_response() }),
        )
        .route(
            "/plain",
            get(move || {
                hits.fetch_add(1, Ordering::SeqCst);
                async { Html("<html><body><main><p>PLAIN PAGE BODY</p></main></body></html>") }
            }),
        )
}

fn config(guard: UrlGuard, home: &std::path::Path) -> ChromiumConfig {
    let mut c = support::test_config().guard(guard).home(home);
    c.call_timeout = Duration::from_secs(15);
    c
}

async fn nothing_reaches_loopback(page_url: &str, canaries: &[&Canary], allowed: &Canary) {
    let home = tempfile::tempdir().expect("home");
    let rt = ChromiumRuntime::new(config(UrlGuard::new(), home.path())).expect("runtime");
    let options = RenderOptions {
        wait: WaitFor::Selector {
            css: "body[data-done]".into(),
        },
        timeout: Some(Duration::from_secs(20)),
        include_html: false,
    };
    let page = rt
        .render("egress", page_url, &options)
        .await
        .expect("render");
    // Give late connection attempts a moment to arrive if they could.
    tokio::time::sleep(Duration::from_millis(500)).await;
    rt.shutdown().await.expect("shutdown");
    for c in canaries {
        assert_eq!(
            c.count(),
            0,
            "a loopback canary on port {} was reached",
            c.port
        );
    }
    assert!(
        allowed.count() >= 1,
        "the WebSocket to an allowed name never arrived: {:?}",
        page.blocked
    );
    let egress: Vec<&str> = page
        .blocked
        .iter()
        .filter(|b| b.resource_type == "egress")
        .map(|b| b.url.as_str())
        .collect();
    assert!(
        !egress.is_empty(),
        "no egress refusal reported: {:?}",
        page.blocked
    );
    assert!(page.main_text.contains("ordinary looking article"));
}

async fn strict_mode_refuses_a_public_name_that_resolves_to_loopback(
    base: &str,
    hits: &AtomicUsize,
) {
    let home = tempfile::tempdir().expect("home");
    let strict = UrlGuard::new().strict(true);
    let rt = ChromiumRuntime::new(config(strict, home.path())).expect("runtime");
    let before = hits.load(Ordering::SeqCst);
    let err = modes::fetch(&rt, &FetchRequest::new(format!("{base}/plain")))
        .await
        .expect_err("strict mode must refuse example.com -> 127.0.0.1");
    rt.shutdown().await.expect("shutdown");
    assert_eq!(hits.load(Ordering::SeqCst), before, "the page was served");
    let text = err.to_string();
    assert!(
        text.contains("blocked_by_strict_ssrf")
            || text.contains("127.0.0.1")
            || text.contains("ERR_"),
        "{text}"
    );

    // The same name outside strict mode is read (through the proxy's rule).
    let rt = ChromiumRuntime::new(config(UrlGuard::new(), home.path())).expect("runtime");
    let page = modes::fetch(&rt, &FetchRequest::new(format!("{base}/plain")))
        .await
        .expect("non-strict fetch");
    rt.shutdown().await.expect("shutdown");
    assert!(page.content.contains("PLAIN PAGE BODY"));
}

async fn a_public_pool_needs_controlled_egress_in_strict_mode() {
    let home = tempfile::tempdir().expect("home");
    let pool = |controlled: bool| {
        let mut c = ChromiumConfig::attached("http://127.0.0.1:9")
            .home(home.path())
            .guard(UrlGuard::new().strict(true))
            .attached_as(Partition::Public)
            .launch_timeout(Duration::from_secs(2));
        c.attached_egress_controlled = controlled;
        c
    };
    let rt = ChromiumRuntime::new(pool(false)).expect("a public pool needs no pro mode");
    let err = rt.status().await.expect_err("refused");
    assert!(matches!(err, BrowserError::AttachFailed { .. }), "{err:?}");
    assert!(err.to_string().contains("FERRET_CDP_EGRESS"), "{err}");
    let rt = ChromiumRuntime::new(pool(true)).expect("runtime");
    let err = rt.status().await.expect_err("nothing listens on port 9");
    assert!(!err.to_string().contains("FERRET_CDP_EGRESS"), "{err}");
}

fn main() {
    if support::skip_requested() {
        return;
    }
    let tokio = support::tokio_runtime();
    let code = tokio.block_on(async {
        let v4 = Canary::start("127.0.0.1:0").expect("a loopback canary");
        let v6 = Canary::start("[::1]:0");
        let allowed = Canary::start("127.0.0.1:0").expect("a second canary");
        let hits = Arc::new(AtomicUsize::new(0));
        let page = hostile_page(v4.port, v6.as_ref().map(|c| c.port), allowed.port);
        let addr: SocketAddr = support::serve(router(page, hits.clone())).await;
        let base = format!("http://example.com:{}", addr.port());
        let mut canaries = vec![&v4];
        canaries.extend(v6.as_ref());
        let mut h = support::Harness::new();
        h.run(
            "websockets_eventsource_workers_and_preconnects_never_reach_loopback",
            nothing_reaches_loopback(&format!("{base}/hostile"), &canaries, &allowed),
        )
        .await;
        h.run(
            "strict_mode_refuses_a_public_name_that_resolves_to_loopback",
            strict_mode_refuses_a_public_name_that_resolves_to_loopback(&base, &hits),
        )
        .await;
        h.run(
            "a_public_pool_needs_controlled_egress_in_strict_mode",
            a_public_pool_needs_controlled_egress_in_strict_mode(),
        )
        .await;
        h.finish()
    });
    std::process::exit(code);
}
