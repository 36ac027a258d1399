//! The ladder's browser step and its escalation decisions, with a fake
//! `BrowserRuntime` that renders canned HTML (or fails) and records calls.
//! (A real-Chromium escalation is in `fetch_chromium.rs`.)
#![cfg(feature = "browser")]

mod fetch_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use axum::Router;
use axum::http::{StatusCode, header};
use axum::routing::get;
use ferret_browser::{
    BrowserError, BrowserRuntime, PageInfo, RenderOptions, RenderedPage, RuntimeStatus,
    ScrollOptions, ScrollReport, Snapshot, Target, TaskSpaceInfo, TaskSpaceSpec, WaitFor,
};
use ferret_core::guard::UrlGuard;
use ferret_core::{Partition, Provenance, Runtime};
use ferret_fetch::verify::Verdict;
use ferret_fetch::{
    AttemptOutcome, BrowserMode, EscalationReason, FetchError, FetchOptions, Fetcher, Source,
    WarningCode,
};
use fetch_support::*;

#[derive(Debug, Clone)]
enum Behaviour {
    Render { html: String, status: Option<u16> },
    Fail,
}

#[derive(Debug)]
struct FakeRuntime {
    partition: Partition,
    guard: UrlGuard,
    behaviour: Behaviour,
    renders: Mutex<Vec<(String, String)>>,
}

impl FakeRuntime {
    fn new(behaviour: Behaviour) -> Arc<Self> {
        Arc::new(FakeRuntime {
            partition: Partition::Public,
            guard: UrlGuard::new(),
            behaviour,
            renders: Mutex::new(Vec::new()),
        })
    }

    fn login(behaviour: Behaviour) -> Arc<Self> {
        Arc::new(FakeRuntime {
            partition: Partition::Login,
            guard: UrlGuard::new(),
            behaviour,
            renders: Mutex::new(Vec::new()),
        })
    }

    fn rendering(html: impl Into<String>) -> Arc<Self> {
        Self::new(Behaviour::Render {
            html: html.into(),
            status: Some(200),
        })
    }

    fn renders(&self) -> Vec<(String, String)> {
        self.renders.lock().unwrap().clone()
    }
}

fn unused(what: &str) -> BrowserError {
    BrowserError::NoRuntime {
        message: format!("the fake runtime does not implement {what}"),
    }
}

#[async_trait]
impl BrowserRuntime for FakeRuntime {
    fn partition(&self) -> Partition {
        self.partition
    }

    fn provenance(&self) -> Provenance {
        match self.partition {
            Partition::Public => Provenance::public(Runtime::ChromiumManaged),
            Partition::Login => Provenance::login(Runtime::ChromiumAttached),
        }
    }

    fn guard(&self) -> &UrlGuard {
        &self.guard
    }

    async fn status(&self) -> Result<RuntimeStatus, BrowserError> {
        Err(unused("status"))
    }

    async fn open_space(&self, _spec: &TaskSpaceSpec) -> Result<TaskSpaceInfo, BrowserError> {
        Err(unused("open_space"))
    }

    async fn close_space(&self, _name: &str) -> Result<(), BrowserError> {
        Err(unused("close_space"))
    }

    async fn complete_space(&self, _name: &str) -> Result<bool, BrowserError> {
        Err(unused("complete_space"))
    }

    async fn list_spaces(&self) -> Vec<TaskSpaceInfo> {
        Vec::new()
    }

    async fn render(
        &self,
        space: &str,
        url: &str,
        options: &RenderOptions,
    ) -> Result<RenderedPage, BrowserError> {
        assert!(options.include_html, "the ladder asks for the HTML");
        self.renders
            .lock()
            .unwrap()
            .push((space.to_string(), url.to_string()));
        match &self.behaviour {
            Behaviour::Fail => Err(BrowserError::Navigation {
                url: url.to_string(),
                message: "net::ERR_CONNECTION_RESET".into(),
            }),
            Behaviour::Render { html, status } => Ok(RenderedPage {
                requested_url: url.to_string(),
                final_url: url.to_string(),
                title: "Rendered".into(),
                main_text: String::new(),
                main_source: "body".into(),
                body_text: String::new(),
                html: Some(html.clone()),
                http_status: *status,
                wait_satisfied: true,
                blocked: Vec::new(),
                elapsed_ms: 5,
                provenance: self.provenance(),
            }),
        }
    }

    async fn navigate(
        &self,
        _space: &str,
        _url: &str,
        _wait: &WaitFor,
    ) -> Result<PageInfo, BrowserError> {
        Err(unused("navigate"))
    }

    async fn wait(
        &self,
        _space: &str,
        _wait: &WaitFor,
        _timeout: Option<Duration>,
    ) -> Result<bool, BrowserError> {
        Err(unused("wait"))
    }

    async fn evaluate(
        &self,
        _space: &str,
        _script: &str,
    ) -> Result<serde_json::Value, BrowserError> {
        Err(unused("evaluate"))
    }

    async fn current_page(&self, _space: &str) -> Result<Option<PageInfo>, BrowserError> {
        Err(unused("current_page"))
    }

    async fn html(&self, _space: &str) -> Result<String, BrowserError> {
        Err(unused("html"))
    }

    async fn click(&self, _space: &str, _target: &Target) -> Result<(), BrowserError> {
        Err(unused("click"))
    }

    async fn fill(&self, _space: &str, _target: &Target, _value: &str) -> Result<(), BrowserError> {
        Err(unused("fill"))
    }

    async fn press(&self, _space: &str, _key: &str) -> Result<(), BrowserError> {
        Err(unused("press"))
    }

    async fn scroll_until(
        &self,
        _space: &str,
        _options: &ScrollOptions,
    ) -> Result<ScrollReport, BrowserError> {
        Err(unused("scroll_until"))
    }

    async fn snapshot(&self, _space: &str) -> Result<Snapshot, BrowserError> {
        Err(unused("snapshot"))
    }

    async fn screenshot(&self, _space: &str, _full_page: bool) -> Result<Vec<u8>, BrowserError> {
        Err(unused("screenshot"))
    }

    async fn shutdown(&self) -> Result<(), BrowserError> {
        Ok(())
    }
}

const SHELL: &str = "<html><head><title>Dashboard App</title><script src=\"/a.js\"></script>\
    <script src=\"/b.js\"></script><script src=\"/c.js\"></script></head>\
    <body><div id=\"root\"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>";

async fn site(hits: Hits) -> std::net::SocketAddr {
    let router = Router::new()
        .route(
            "/shell",
            get(move || {
                let hits = hits.clone();
                async move {
                    hits.hit();
                    ([(header::CONTENT_TYPE, "text/html")], SHELL)
                }
            }),
        )
        .route(
            "/article",
            get(|| async { ([(header::CONTENT_TYPE, "text/html")], article("Caffeine and sleep", 30)) }),
        )
        .route(
            "/challenge",
            get(|| async {
                (
                    StatusCode::FORBIDDEN,
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><head><title>Attention Required! | Cloudflare</title></head>\
                     <body><p>Please complete the security check to access public.example.</p></body></html>",
                )
            }),
        )
        .route(
            "/thin",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    format!(
                        "<html><head><script>{}</script></head><body><p>Short note.</p></body></html>",
                        "var padding = 1;".repeat(400)
                    ),
                )
            }),
        )
        .route(
            "/signin",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><head><title>Members area</title></head><body><p>Please sign in to \
                     read this discussion.</p></body></html>",
                )
            }),
        )
        .route(
            "/to-private",
            get(|| async { (StatusCode::FOUND, [(header::LOCATION, "http://10.1.2.3/")]) }),
        );
    serve(router).await
}

fn fetcher_with(runtime: Arc<FakeRuntime>, mode: BrowserMode) -> Fetcher {
    public_fetcher()
        .browser(runtime)
        .browser_mode(mode)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_javascript_shell_escalates_to_the_browser() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::rendering(article("Rendered dashboard", 20));
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let url = public_url(addr, "/shell");
    let page = fetcher.fetch(&url, &FetchOptions::default()).await.unwrap();
    assert_eq!(page.source, Source::Browser);
    assert!(page.chrome_used);
    assert_eq!(page.title.as_deref(), Some("Rendered dashboard"));
    assert_eq!(page.verdict, Verdict::StrongOk);
    assert_eq!(page.score.trust, 10);
    let esc = page.escalation.clone().unwrap();
    assert_eq!((esc.from, esc.to), (Source::Fetch, Source::Browser));
    assert_eq!(esc.reason, EscalationReason::JsShell);
    assert_eq!(page.provenance.runtime, "chromium-managed");
    assert_eq!(page.attempts.len(), 2);
    assert_eq!(page.attempts[0].verdict, Some(Verdict::BrowserRequired));
    assert_eq!(
        runtime.renders(),
        vec![("ferret-fetch".to_string(), url.clone())]
    );
}

#[tokio::test]
async fn a_403_challenge_escalates_and_the_browser_reading_wins() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::rendering(article("Behind the challenge", 20));
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(&public_url(addr, "/challenge"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::Browser);
    assert_eq!(page.status, Some(200));
    let esc = page.escalation.unwrap();
    assert_eq!(esc.reason, EscalationReason::Challenge);
    assert!(esc.detail.contains("403"));
    assert_eq!(page.attempts[0].verdict, Some(Verdict::Challenge));
}

#[tokio::test]
async fn a_page_below_weak_ok_escalates_for_low_quality() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::rendering(article("Full story", 20));
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(&public_url(addr, "/thin"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::Browser);
    assert_eq!(
        page.escalation.unwrap().reason,
        EscalationReason::LowQuality
    );
}

#[tokio::test]
async fn a_readable_page_never_starts_the_browser() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::rendering("<p>unused</p>");
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(&public_url(addr, "/article"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::Fetch);
    assert!(runtime.renders().is_empty());
    assert!(!page.chrome_used);
}

#[tokio::test]
async fn never_mode_reports_browser_required_without_rendering() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::rendering(article("Rendered", 20));
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Never);
    let page = fetcher
        .fetch(&public_url(addr, "/shell"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.verdict, Verdict::BrowserRequired);
    assert_eq!(page.source, Source::Fetch);
    assert!(page.has_warning(WarningCode::BrowserUnavailable));
    assert!(runtime.renders().is_empty());
    // The per-call option overrides the fetcher's mode.
    let page = fetcher
        .fetch(
            &public_url(addr, "/shell"),
            &FetchOptions::default().with_browser(BrowserMode::Auto),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::Browser);
}

#[tokio::test]
async fn required_mode_goes_straight_to_the_browser() {
    let hits = Hits::default();
    let addr = site(hits.clone()).await;
    let runtime = FakeRuntime::rendering(article("Rendered", 20));
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Required);
    let page = fetcher
        .fetch(&public_url(addr, "/shell"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::Browser);
    assert_eq!(hits.get(), 0, "no HTTP request was made");
    assert!(page.escalation.is_none());
    assert_eq!(page.attempts.len(), 1);
    // A failing render in required mode is an error (verdict browser_required).
    let failing = fetcher_with(FakeRuntime::new(Behaviour::Fail), BrowserMode::Required);
    let err = failing
        .fetch(&public_url(addr, "/shell"), &FetchOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::BrowserFailed { .. }), "{err:?}");
    assert_eq!(err.verdict(), Verdict::BrowserRequired);
}

#[tokio::test]
async fn a_failed_render_keeps_the_http_reading() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::new(Behaviour::Fail);
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(&public_url(addr, "/shell"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::Fetch);
    assert_eq!(page.verdict, Verdict::BrowserRequired);
    assert!(page.has_warning(WarningCode::BrowserFailed));
    assert_eq!(page.attempts[1].outcome, AttemptOutcome::Failed);
    assert!(page.attempts[1].detail.contains("ERR_CONNECTION_RESET"));
    assert_eq!(runtime.renders().len(), 1);
}

#[tokio::test]
async fn a_worse_browser_reading_loses_to_the_http_one() {
    let addr = site(Hits::default()).await;
    // The browser gets challenged: score 0, below the HTTP reading's 12.
    let runtime = FakeRuntime::rendering(
        "<html><head><title>Just a moment...</title></head><body><p>Checking your browser</p></body></html>",
    );
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(&public_url(addr, "/thin"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::Fetch);
    assert!(
        page.escalation.is_none(),
        "the returned reading was not escalated"
    );
    assert_eq!(page.attempts.len(), 2);
    assert_eq!(page.attempts[1].source, Source::Browser);
    assert_eq!(page.attempts[1].outcome, AttemptOutcome::NotOk);
    assert_eq!(page.attempts[1].verdict, Some(Verdict::Challenge));
    assert_eq!(page.verdict, Verdict::Thin);
}

#[tokio::test]
async fn a_login_partition_browser_reads_login_walls_as_the_user() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::login(Behaviour::Render {
        html: article("The discussion", 20),
        status: Some(200),
    });
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(&public_url(addr, "/signin"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.source, Source::BrowserUser);
    assert_eq!(page.score.trust, 11);
    assert!(page.provenance.is_login());
    let esc = page.escalation.unwrap();
    assert_eq!(esc.reason, EscalationReason::AuthWall);
    assert_eq!(esc.to, Source::BrowserUser);
    // A public browser would not get past a login wall: no escalation.
    let public = FakeRuntime::rendering(article("Unused", 20));
    let fetcher = fetcher_with(public.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(&public_url(addr, "/signin"), &FetchOptions::default())
        .await
        .unwrap();
    assert_eq!(page.verdict, Verdict::AuthRequired);
    assert!(public.renders().is_empty());
}

#[tokio::test]
async fn a_refused_redirect_is_never_retried_in_the_browser() {
    let addr = site(Hits::default()).await;
    let runtime = FakeRuntime::rendering(article("Should not be used", 20));
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let err = fetcher
        .fetch(&public_url(addr, "/to-private"), &FetchOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::RedirectBlocked { .. }), "{err:?}");
    assert!(runtime.renders().is_empty());
}

#[tokio::test]
async fn a_transport_failure_escalates_to_the_browser() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let runtime = FakeRuntime::rendering(article("Reached by the browser", 20));
    let fetcher = fetcher_with(runtime.clone(), BrowserMode::Auto);
    let page = fetcher
        .fetch(
            &format!("http://{PUBLIC_HOST}:{port}/page"),
            &FetchOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(page.source, Source::Browser);
    assert_eq!(
        page.escalation.as_ref().unwrap().reason,
        EscalationReason::HttpFailed
    );
    assert!(page.has_warning(WarningCode::HttpFailed));
}
