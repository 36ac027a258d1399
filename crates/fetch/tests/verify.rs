//! The page verdicts and score, branch by branch and threshold by
//! threshold, and `Fetcher::verify` (`ferret.verify.v1`) against a local
//! server.

mod fetch_support;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::routing::get;
use ferret_fetch::verify::{
    MarkerKind, STRONG_OK_MIN_SCORE, Source, Verdict, VerifyInput, VerifyReport, WEAK_OK_MIN_SCORE,
    assess, find_markers,
};
use ferret_fetch::{BrowserMode, FetchOptions};
use fetch_support::*;

fn text_of(chars: usize, marker: &str) -> String {
    const WORDS: &[&str] = &[
        "the", "river", "carried", "seven", "boats", "past", "an", "old", "mill", "where",
        "millers", "ground", "barley", "for", "bread", "every", "autumn", "morning",
    ];
    // Real words (one letter repeated is not text), single spaces, no
    // space at either end: the length survives whitespace normalisation.
    let mut t = String::from(marker);
    let mut i = 0;
    while t.chars().count() < chars + 1 {
        if !t.is_empty() && !t.ends_with(' ') {
            t.push(' ');
        }
        t.push_str(WORDS[i % WORDS.len()]);
        i += 1;
    }
    let mut out: String = t.chars().take(chars).collect();
    if out.ends_with(' ') {
        out.pop();
        out.push('s');
    }
    out
}

/// Fetch source, title (8), 3 meta signals (15), density 1 (20): 55 points
/// plus ⌊len/80⌋.
fn rich<'a>(text: &'a str) -> VerifyInput<'a> {
    VerifyInput {
        status: Some(200),
        title: Some("A readable title"),
        text,
        raw_chars: None,
        meta_count: 3,
        source: Source::Fetch,
        unrendered_js_shell: false,
        unsupported_content: false,
    }
}

#[test]
fn score_is_the_sum_of_its_parts() {
    let text = text_of(4000, "");
    let a = assess(&rich(&text));
    assert_eq!(a.score.length, 45, "min(45, 4000/80=50)");
    assert_eq!(a.score.density, 20);
    assert_eq!(a.score.title, 8);
    assert_eq!(a.score.meta, 15);
    assert_eq!(a.score.trust, 12);
    assert_eq!(a.score.marker_penalty, 0);
    assert_eq!(a.score.total, 100);
    assert_eq!(a.verdict, Verdict::StrongOk);
    assert!(a.ok);
}

#[test]
fn meta_points_are_capped_at_fifteen() {
    let text = text_of(800, "");
    let mut input = rich(&text);
    input.meta_count = 4;
    assert_eq!(assess(&input).score.meta, 15);
    input.meta_count = 1;
    assert_eq!(assess(&input).score.meta, 5);
}

#[test]
fn short_titles_earn_nothing() {
    let text = text_of(800, "");
    let mut input = rich(&text);
    input.title = Some("Seven c");
    assert_eq!(assess(&input).score.title, 0);
    input.title = Some("Eight ch");
    assert_eq!(assess(&input).score.title, 8);
}

#[test]
fn density_is_text_chars_over_raw_document_chars() {
    let text = text_of(500, "");
    let mut input = rich(&text);
    input.raw_chars = Some(1000);
    let a = assess(&input);
    assert!((a.score.density_ratio - 0.5).abs() < 1e-9);
    assert_eq!(a.score.density, 10);
    input.raw_chars = None;
    assert_eq!(assess(&input).score.density, 20, "API text has density 1");
    input.raw_chars = Some(100);
    assert_eq!(assess(&input).score.density, 20, "clamped to 1");
}

#[test]
fn source_trust_table_is_the_documented_one() {
    let expected = [
        (Source::PublicEndpoint, 20),
        (Source::NetworkApi, 16),
        (Source::HumanResolved, 14),
        (Source::Fetch, 12),
        (Source::BrowserUser, 11),
        (Source::Browser, 10),
        (Source::Metadata, 6),
        (Source::ThirdParty, 5),
        (Source::Reader, 4),
    ];
    for (source, trust) in expected {
        assert_eq!(source.trust(), trust, "{source}");
    }
}

/// Reader source (4) + density 1 (20) + ⌊len/80⌋: total = 24 + len/80.
fn plain(text: &str) -> VerifyInput<'_> {
    VerifyInput::text(text, Source::Reader)
}

#[test]
fn fifty_is_strong_and_forty_nine_weak() {
    let at = text_of(26 * 80, "");
    let a = assess(&plain(&at));
    assert_eq!(a.score.total, STRONG_OK_MIN_SCORE);
    assert_eq!(a.verdict, Verdict::StrongOk);
    let below = text_of(26 * 80 - 1, "");
    let b = assess(&plain(&below));
    assert_eq!(b.score.total, STRONG_OK_MIN_SCORE - 1);
    assert_eq!(b.verdict, Verdict::WeakOk);
}

#[test]
fn twenty_is_weak_and_nineteen_thin() {
    // 40 chars of 50 raw → density 0.8 → 16; + reader 4 = 20.
    let text = text_of(40, "");
    let mut input = plain(&text);
    input.raw_chars = Some(50);
    let a = assess(&input);
    assert_eq!(a.score.total, WEAK_OK_MIN_SCORE);
    assert_eq!(a.verdict, Verdict::WeakOk);
    // 40 / 53 → 0.7547 → 15 → 19.
    input.raw_chars = Some(53);
    let b = assess(&input);
    assert_eq!(b.score.total, WEAK_OK_MIN_SCORE - 1);
    assert_eq!(b.verdict, Verdict::Thin);
    assert!(b.reason.contains("40 characters"), "{}", b.reason);
    assert!(!b.ok);
}

#[test]
fn a_low_score_pulled_down_by_wall_markers_is_blocked_not_thin() {
    // Long enough to pass the challenge rule's length limit, but the
    // marker's penalty leaves the score under the bar.
    let text = text_of(1200, "Checking your browser before accessing. ");
    let mut input = plain(&text);
    input.raw_chars = Some(120_000);
    let a = assess(&input);
    assert!(a.score.marker_penalty > 0);
    assert!(a.score.total < WEAK_OK_MIN_SCORE, "{:?}", a.score);
    assert_eq!(a.verdict, Verdict::Blocked);
}

#[test]
fn auth_marker_under_1500_chars_is_auth_required() {
    let text = text_of(1499, "Please sign in to read the rest. ");
    assert_eq!(assess(&rich(&text)).verdict, Verdict::AuthRequired);
    let long = text_of(1500, "Please sign in to read the rest. ");
    let a = assess(&rich(&long));
    // 18 + 20 + 8 + 15 + 12 = 73, − 35 for the auth marker.
    assert_eq!(a.score.marker_penalty, 35);
    assert_eq!(a.score.total, 38);
    assert_eq!(a.verdict, Verdict::WeakOk);
}

#[test]
fn paywall_marker_under_1500_chars_is_paywall() {
    let text = text_of(1499, "Subscribe now for full access. ");
    assert_eq!(assess(&rich(&text)).verdict, Verdict::Paywall);
    let long = text_of(1500, "Subscribe now for full access. ");
    let a = assess(&rich(&long));
    assert_eq!(a.score.total, 73 - 25);
    assert_eq!(a.verdict, Verdict::WeakOk);
}

#[test]
fn challenge_marker_under_1000_chars_is_challenge() {
    let text = text_of(999, "Please solve the captcha below. ");
    assert_eq!(assess(&rich(&text)).verdict, Verdict::Challenge);
    let long = text_of(1000, "Please solve the captcha below. ");
    let a = assess(&rich(&long));
    // 12 + 20 + 8 + 15 + 12 = 67, − 25.
    assert_eq!(a.score.total, 42);
    assert_eq!(a.verdict, Verdict::WeakOk);
}

#[test]
fn auth_beats_paywall_beats_challenge() {
    let text = "captcha. subscribe. log in.";
    assert_eq!(assess(&rich(text)).verdict, Verdict::AuthRequired);
    let text = "captcha. subscribe.";
    assert_eq!(assess(&rich(text)).verdict, Verdict::Paywall);
}

#[test]
fn each_matching_pattern_takes_its_penalty() {
    let text = text_of(4000, "captcha and cloudflare and a security check. ");
    let a = assess(&rich(&text));
    assert_eq!(a.markers.len(), 3);
    assert_eq!(a.score.marker_penalty, 75);
    assert_eq!(a.score.total, 25);
}

#[test]
fn markers_use_ascii_word_boundaries() {
    assert!(find_markers("captchas everywhere").is_empty());
    assert!(find_markers("login page").is_empty());
    assert!(find_markers("subscribed users").is_empty());
    let cjk = find_markers("请sign in后继续");
    assert_eq!(cjk.len(), 1);
    assert_eq!(cjk[0].kind, MarkerKind::Auth);
    let kinds: Vec<MarkerKind> = find_markers("Attention Required! | Cloudflare")
        .into_iter()
        .map(|m| m.kind)
        .collect();
    assert_eq!(kinds, vec![MarkerKind::Challenge, MarkerKind::Challenge]);
}

#[test]
fn markers_in_the_title_count() {
    let text = text_of(300, "");
    let mut input = rich(&text);
    input.title = Some("Just a moment... Checking your browser");
    assert_eq!(assess(&input).verdict, Verdict::Challenge);
}

#[test]
fn text_length_is_measured_after_whitespace_normalisation() {
    // 1600 raw characters, but only 1499 after collapsing the padding.
    let mut text = text_of(1400, "Log in to continue. ");
    text.push_str(&" ".repeat(200));
    text.push_str(&text_of(98, "y"));
    let a = assess(&rich(&text));
    assert_eq!(a.score.text_chars, 1499);
    assert_eq!(a.verdict, Verdict::AuthRequired);
}

#[test]
fn error_statuses_score_zero_and_map_to_verdicts() {
    let long = text_of(4000, "");
    let with_marker = text_of(4000, "Log in to see this. ");
    let challenge = text_of(4000, "Checking your browser. ");
    let cases: [(u16, &str, Verdict); 8] = [
        (401, &long, Verdict::AuthRequired),
        (402, &long, Verdict::Paywall),
        (403, &challenge, Verdict::Challenge),
        (403, &with_marker, Verdict::Challenge),
        (403, &long, Verdict::Blocked),
        (429, &challenge, Verdict::Blocked),
        (404, &with_marker, Verdict::AuthRequired),
        (500, &long, Verdict::Blocked),
    ];
    for (status, text, verdict) in cases {
        let mut input = rich(text);
        input.status = Some(status);
        let a = assess(&input);
        assert_eq!(a.verdict, verdict, "HTTP {status}");
        assert_eq!(a.score.total, 0, "HTTP {status}");
        assert!(a.score.zeroed_by_status);
        assert_eq!(a.reason, format!("http-{status}"));
    }
}

#[test]
fn unsupported_content_is_unsupported() {
    let mut input = rich("");
    input.unsupported_content = true;
    let a = assess(&input);
    assert_eq!(a.verdict, Verdict::Unsupported);
    assert!(!a.ok);
}

#[test]
fn an_unrendered_javascript_shell_needs_a_browser() {
    let mut input = rich("Loading…");
    input.raw_chars = Some(5000);
    input.unrendered_js_shell = true;
    let a = assess(&input);
    assert_eq!(
        a.score.total, 35,
        "title 8 + meta 15 + trust 12: weak_ok by score alone"
    );
    assert_eq!(a.verdict, Verdict::BrowserRequired);
    // A shell that still scores strong (it is not really empty) stays ok.
    let text = text_of(4000, "");
    let mut input = rich(&text);
    input.unrendered_js_shell = true;
    assert_eq!(assess(&input).verdict, Verdict::StrongOk);
    // Marker verdicts come first.
    let mut input = rich("Please sign in");
    input.unrendered_js_shell = true;
    assert_eq!(assess(&input).verdict, Verdict::AuthRequired);
}

#[test]
fn verdict_names_round_trip() {
    for v in Verdict::ALL {
        assert_eq!(v.as_str().parse::<Verdict>().unwrap(), v);
        assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        assert_eq!(v.is_ok(), matches!(v, Verdict::StrongOk | Verdict::WeakOk));
    }
    let err = "unknown".parse::<Verdict>().unwrap_err();
    assert!(err.to_string().contains("strong_ok"));
    let third: Source = serde_json::from_str("\"third_party_reader\"").unwrap();
    assert_eq!(third, Source::ThirdParty);
    assert_eq!(
        serde_json::to_value(Source::ThirdParty).unwrap(),
        "third_party"
    );
}

// ---------------------------------------------------------------------------
// Fetcher::verify against a local server

async fn verify_server() -> std::net::SocketAddr {
    let router = Router::new()
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
                    "<html><head><title>Just a moment...</title></head><body><p>Checking your \
                     browser before accessing public.example.</p></body></html>",
                )
            }),
        )
        .route(
            "/login",
            get(|| async {
                (
                    StatusCode::UNAUTHORIZED,
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><body><p>Members area.</p></body></html>",
                )
            }),
        )
        .route(
            "/image",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], vec![0x89u8, b'P', b'N', b'G']) }),
        )
        .route(
            "/shell",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><head><title>App</title><script src=\"/a.js\"></script>\
                     <script src=\"/b.js\"></script></head><body><div id=\"root\"></div>\
                     <noscript>You need to enable JavaScript to run this app.</noscript></body></html>",
                )
            }),
        );
    serve(router).await
}

#[tokio::test]
async fn verify_reports_a_readable_page_as_strong() {
    let addr = verify_server().await;
    let fetcher = public_fetcher().build().unwrap();
    let url = public_url(addr, "/article");
    let report = fetcher.verify(&url).await;
    assert_eq!(report.schema, "ferret.verify.v1");
    assert_eq!(report.verdict, Verdict::StrongOk, "{report:#?}");
    assert!(report.ok);
    assert_eq!(report.source, Some(Source::Fetch));
    assert_eq!(report.url, url);
    assert_eq!(report.final_url, url);
    assert_eq!(report.title.as_deref(), Some("Caffeine and sleep"));
    assert_eq!(report.text_excerpt.chars().count(), 1200);
    assert!(!report.text_excerpt.contains("  "));
    assert!(!report.chrome_used);
    assert_eq!(report.status, Some(200));
    assert_eq!(report.score.meta, 15);
}

#[tokio::test]
async fn verify_maps_a_403_challenge_and_a_401() {
    let addr = verify_server().await;
    let fetcher = public_fetcher().build().unwrap();
    let report = fetcher.verify(&public_url(addr, "/challenge")).await;
    assert_eq!(report.verdict, Verdict::Challenge);
    assert_eq!(report.status, Some(403));
    assert_eq!(report.score.total, 0);
    assert!(!report.ok);
    let report = fetcher.verify(&public_url(addr, "/login")).await;
    assert_eq!(report.verdict, Verdict::AuthRequired);
    assert_eq!(report.status, Some(401));
}

#[tokio::test]
async fn verify_never_fails_guard_refusals_are_blocked() {
    let addr = verify_server().await;
    let fetcher = public_fetcher().build().unwrap();
    let report = fetcher.verify(&loopback_url(addr, "/article")).await;
    assert_eq!(report.verdict, Verdict::Blocked);
    assert_eq!(report.source, None);
    assert_eq!(report.title, None);
    assert_eq!(report.final_url, report.url);
    assert_eq!(report.reason, "blocked_by_guard");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["source"], "unknown");
    assert_eq!(json["title"], serde_json::Value::Null);
    assert_eq!(json["warnings"][0]["code"], "fetch_failed");
    let back: VerifyReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, report);
}

#[tokio::test]
async fn verify_calls_other_schemes_unsupported_and_dead_servers_errors() {
    let fetcher = public_fetcher().build().unwrap();
    let report = fetcher.verify("ftp://public.example/file.txt").await;
    assert_eq!(report.verdict, Verdict::Unsupported);
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let report = fetcher
        .verify(&format!("http://{PUBLIC_HOST}:{port}/"))
        .await;
    assert_eq!(report.verdict, Verdict::Error);
    assert_eq!(report.reason, "transport");
}

#[tokio::test]
async fn verify_calls_images_unsupported() {
    let addr = verify_server().await;
    let fetcher = public_fetcher().build().unwrap();
    let report = fetcher.verify(&public_url(addr, "/image")).await;
    assert_eq!(report.verdict, Verdict::Unsupported);
    assert_eq!(report.source, Some(Source::Fetch));
}

#[tokio::test]
async fn verify_says_browser_required_for_a_shell_when_browsers_are_off() {
    let addr = verify_server().await;
    let fetcher = public_fetcher().build().unwrap();
    let report = fetcher
        .verify_with(
            &public_url(addr, "/shell"),
            &FetchOptions::default().with_browser(BrowserMode::Never),
        )
        .await;
    assert_eq!(report.verdict, Verdict::BrowserRequired);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.detail.contains("browser mode is never")),
        "{:?}",
        report.warnings
    );
}
