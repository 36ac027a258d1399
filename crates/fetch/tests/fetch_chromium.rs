//! One end-to-end escalation on a real headless Chromium: a page whose text
//! only JavaScript writes is fetched over HTTP, recognised as an empty
//! shell, rendered by `ChromiumRuntime`, and read from the rendered HTML.
//! Skipped only when `FERRET_SKIP_BROWSER_TESTS=1`; a missing Chromium is a
//! failure (as in ferret-browser's own tests).
#![cfg(feature = "browser")]

mod fetch_support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::header;
use axum::routing::get;
use ferret_browser::{BrowserRuntime, ChromiumConfig, ChromiumRuntime};
use ferret_core::guard::UrlGuard;
use ferret_fetch::verify::Verdict;
use ferret_fetch::{BrowserMode, EscalationReason, FetchOptions, Source};
use fetch_support::*;

const APP: &str = r#"<!doctype html><html lang="en"><head><title>Sleep Lab Notes</title></head>
<body><div id="root"></div>
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>
  document.addEventListener('DOMContentLoaded', function () {
    setTimeout(function () {
      var root = document.getElementById('root');
      var article = document.createElement('article');
      var h = document.createElement('h1');
      h.textContent = 'Sleep Lab Notes';
      article.appendChild(h);
      for (var i = 0; i < 12; i++) {
        var p = document.createElement('p');
        p.textContent = 'Rendered paragraph ' + i + ': in the sleep laboratory, volunteers who ' +
          'drank coffee six hours before bed fell asleep forty minutes later on average, and ' +
          'their deep sleep was measurably shorter than on the placebo nights.';
        article.appendChild(p);
      }
      root.appendChild(article);
    }, 50);
  });
</script></body></html>"#;

#[tokio::test]
async fn a_javascript_only_page_is_rendered_by_a_real_chromium() {
    if std::env::var("FERRET_SKIP_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        eprintln!("skipped: FERRET_SKIP_BROWSER_TESTS=1");
        return;
    }
    let chromium = std::env::var_os("FERRET_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        chromium.exists(),
        "no Chromium at {} (install it or set FERRET_CHROMIUM; FERRET_SKIP_BROWSER_TESTS=1 skips)",
        chromium.display()
    );
    let router = Router::new().route(
        "/app",
        get(|| async { ([(header::CONTENT_TYPE, "text/html")], APP) }),
    );
    let addr = serve(router).await;

    let home =
        std::env::temp_dir().join(format!("ferret-evidence-chromium-{}", std::process::id()));
    let mut config = ChromiumConfig::managed(&chromium)
        .host_resolver_rules(format!("MAP {PUBLIC_HOST} 127.0.0.1"))
        .guard(UrlGuard::new())
        .page_load_timeout(Duration::from_secs(30))
        .launch_timeout(Duration::from_secs(30));
    config.home = home.clone();
    let runtime = Arc::new(ChromiumRuntime::new(config).expect("runtime"));

    let fetcher = public_fetcher()
        .browser(runtime.clone())
        .browser_mode(BrowserMode::Auto)
        .build()
        .unwrap();
    let result = fetcher
        .fetch(&public_url(addr, "/app"), &FetchOptions::default())
        .await;
    runtime.shutdown().await.expect("shutdown");
    let _ = std::fs::remove_dir_all(&home);

    let page = result.expect("the page is fetched");
    assert_eq!(page.source, Source::Browser, "{:#?}", page.attempts);
    assert!(page.chrome_used);
    let escalation = page.escalation.clone().expect("escalated");
    assert_eq!(escalation.reason, EscalationReason::JsShell);
    assert_eq!(page.attempts[0].verdict, Some(Verdict::BrowserRequired));
    assert!(
        page.text.contains("Rendered paragraph 11"),
        "the script's text was read: {}",
        page.text
    );
    assert!(page.ok, "{:?} {}", page.verdict, page.verdict_reason);
    assert_eq!(page.provenance.runtime, "chromium-managed");
    assert!(!page.provenance.is_login());
}
