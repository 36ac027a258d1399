//! Properties of the verdict: total, never panicking, always in the
//! vocabulary, consistent with its own score; and the safety scanner never
//! panics on arbitrary text or markup.

use ferret_extract::safety::{scan_html, scan_text};
use ferret_fetch::verify::{
    STRONG_OK_MIN_SCORE, Source, Verdict, VerifyInput, WEAK_OK_MIN_SCORE, assess,
};
use proptest::prelude::*;

fn any_source() -> impl Strategy<Value = Source> {
    prop::sample::select(Source::ALL.to_vec())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        // Marker-rich text near the length thresholds.
        (
            prop::sample::select(vec![
                "sign in",
                "log in",
                "captcha",
                "subscribe",
                "cloudflare",
                "members only",
                "",
            ]),
            0usize..2200
        )
            .prop_map(|(m, n)| format!("{m} {}", "a".repeat(n))),
        "[ a-zA-Z\\n\\t中文]{0,300}",
    ]
}

proptest! {
    #[test]
    fn verdicts_are_total_and_consistent(
        text in any_text(),
        title in proptest::option::of(any::<String>()),
        status in proptest::option::of(0u16..1000),
        raw in proptest::option::of(0usize..100_000),
        meta in 0u8..=255,
        source in any_source(),
        shell in any::<bool>(),
        unsupported in any::<bool>(),
    ) {
        let input = VerifyInput {
            status,
            title: title.as_deref(),
            text: &text,
            raw_chars: raw,
            meta_count: meta,
            source,
            unrendered_js_shell: shell,
            unsupported_content: unsupported,
        };
        let a = assess(&input);
        prop_assert!(Verdict::ALL.contains(&a.verdict));
        prop_assert_eq!(a.ok, matches!(a.verdict, Verdict::StrongOk | Verdict::WeakOk));
        prop_assert!(a.score.density <= 20 && a.score.length <= 45 && a.score.meta <= 15);
        prop_assert!((0.0..=1.0).contains(&a.score.density_ratio));
        if a.verdict == Verdict::StrongOk {
            prop_assert!(a.score.total >= STRONG_OK_MIN_SCORE);
        }
        if a.verdict == Verdict::WeakOk {
            prop_assert!(a.score.total >= WEAK_OK_MIN_SCORE && a.score.total < STRONG_OK_MIN_SCORE);
        }
        if status.is_some_and(|s| s >= 400) || unsupported {
            prop_assert_eq!(a.score.total, 0);
            prop_assert!(!a.ok);
        }
        if unsupported {
            prop_assert_eq!(a.verdict, Verdict::Unsupported);
        }
        // Serialising and reading back keeps the verdict.
        let json = serde_json::to_string(&a).unwrap();
        let back: ferret_fetch::verify::Assessment = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back.verdict, a.verdict);
    }

    #[test]
    fn the_safety_scanner_never_panics(text in any::<String>(), tagged in "[\\u{E0000}-\\u{E007F}\\u{200B}\\u{202E}a-z ]{0,80}") {
        let _ = scan_text(&text);
        let _ = scan_text(&format!("{text}{tagged}"));
        let _ = scan_html(&text, None);
        let html = format!("<div style=\"display:none\">{text}</div><a href=\"{tagged}\">{text}</a>");
        let _ = scan_html(&html, None);
    }
}
