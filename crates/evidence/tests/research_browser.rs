//! The research loop with a real headless Chromium: a page whose text only
//! JavaScript writes leaves its constraint pending with `--browser never`
//! (browse-needed) and supports it with `--browser auto` (sufficient).
//! Skipped only when `FERRET_SKIP_BROWSER_TESTS=1`; a missing Chromium is a
//! failure (as in ferret-browser's own tests).
#![cfg(feature = "browser")]

mod research_support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ferret_browser::{BrowserRuntime, ChromiumConfig, ChromiumRuntime};
use ferret_core::guard::UrlGuard;
use ferret_evidence::fetch::{BrowserMode, Source};
use ferret_evidence::research::{EvidenceStatus, Research, ResearchOptions, normalize_results};
use ferret_evidence::verify::Verdict;
use research_support::*;

#[tokio::test]
async fn a_javascript_only_page_is_browse_needed_with_never_and_supported_with_auto() {
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
    let web = LocalWeb::start().await;
    let mirror = web.url("lang.example", "/lumen/mirror");
    let spa = web.url("spa.example", "/spa/lumen");
    let rows = rows(&[
        (&mirror, "Lumen 3 mirror", ""),
        (&spa, "Lumen 3 cryogenics", ""),
    ]);

    let home =
        std::env::temp_dir().join(format!("ferret-research-chromium-{}", std::process::id()));
    let rules = HOSTS
        .iter()
        .map(|h| format!("MAP {h} 127.0.0.1"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut config = ChromiumConfig::managed(&chromium)
        .host_resolver_rules(rules)
        .guard(UrlGuard::new())
        .page_load_timeout(Duration::from_secs(30))
        .launch_timeout(Duration::from_secs(30));
    config.home = home.clone();
    let runtime = Arc::new(ChromiumRuntime::new(config).expect("runtime"));
    let fetcher = fetcher_builder()
        .browser(runtime.clone())
        .build()
        .expect("fetcher");
    let research = Research::builder(fetcher).build();

    let base = ResearchOptions::new().with_text(true).with_now(now());
    let never = research
        .run_with_results(
            QUESTION,
            normalize_results(&rows, QUESTION, None),
            &base.clone().with_browser(BrowserMode::Never),
        )
        .await;
    let auto = research
        .run_with_results(
            QUESTION,
            normalize_results(&rows, QUESTION, None),
            &base.with_browser(BrowserMode::Auto),
        )
        .await;
    runtime.shutdown().await.expect("shutdown");
    let _ = std::fs::remove_dir_all(&home);

    let never = never.expect("research runs");
    assert_eq!(never.evidence_status, EvidenceStatus::BrowseNeeded);
    assert_eq!(never.ledger.pending, vec!["c2".to_string()]);
    let shell = &never.enrichment.candidates[1];
    assert_eq!(shell.verdict, Some(Verdict::BrowserRequired));
    assert!(!shell.chrome_used);

    let auto = auto.expect("research runs");
    assert_eq!(
        auto.evidence_status,
        EvidenceStatus::Sufficient,
        "{:#?}",
        auto.enrichment.candidates
    );
    let rendered = &auto.enrichment.candidates[1];
    assert!(rendered.ok, "{rendered:#?}");
    assert!(rendered.chrome_used);
    assert!(rendered.chrome_required);
    assert_eq!(rendered.source, Some(Source::Browser));
    let c2 = auto.enrichment.ledger.constraint("c2").unwrap();
    let evidence = &c2.evidence[0];
    assert_eq!(evidence.url, spa);
    assert_eq!(evidence.source, "browser");
    assert!(
        evidence.quote.text.contains("cooled below 40 kelvin"),
        "{:?}",
        evidence.quote
    );
    let text = rendered.text.as_deref().expect("text kept");
    assert_eq!(
        &text[evidence.quote.start..evidence.quote.end],
        evidence.quote.text
    );
}
