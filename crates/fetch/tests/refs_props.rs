//! `ferret_fetch::refs` never panics on arbitrary text, JSON or HTML,
//! and what it returns is consistent.

use ferret_fetch::refs::{
    ApiThread, RefType, Reference, parse_thread_url, refs_from_api, refs_from_html, refs_in_text,
};
use proptest::prelude::*;
use serde_json::json;

/// Text dense in reference-like pieces.
fn thread_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => "[a-zA-Z ]{1,12}",
        2 => "#[0-9]{1,9}",
        1 => "[a-z]{1,5}/[a-z.]{1,5}#[0-9]{1,4}",
        2 => "[0-9a-f]{5,42}",
        1 => "[a-z]{1,4}/[a-z]{1,4}@[0-9a-f]{7,12}",
        1 => "https?://[a-z.]{1,12}/[a-zA-Z0-9_()#./-]{0,20}",
        1 => "https://github\\.com/[a-z]{1,4}/[a-z]{1,4}/(issues|pull|commit|discussions)/[0-9a-f]{1,10}",
        1 => prop_oneof![
            Just("Duplicate of "), Just("fixes "), Just("See also "), Just("dupe of "),
            Just("closed as duplicate of "), Just("commit "), Just(", "), Just(" and "),
        ].prop_map(String::from),
        1 => prop_oneof![
            Just("```"), Just("`"), Just("\n"), Just("\r\n"), Just("["), Just("]"), Just("("),
            Just(")"), Just("<"), Just(">"), Just("[1]: "), Just("]["), Just("GH-"),
        ].prop_map(String::from),
        1 => "[éü漢字😀\u{200b}]{1,3}",
    ];
    proptest::collection::vec(piece, 0..80).prop_map(|v| v.concat())
}

fn check(refs: &[Reference]) -> Result<(), TestCaseError> {
    for r in refs {
        prop_assert!(r.occurrences >= 1);
        prop_assert!(r.occurrences >= r.sources.len());
        prop_assert!(!r.sources.is_empty());
        prop_assert_eq!(&r.source, &r.sources[0]);
        prop_assert!(!r.target.is_empty());
        prop_assert!(r.context.chars().count() <= 40 + 120 + 40 + 1);
        if r.kind == RefType::Url {
            prop_assert!(r.target.starts_with("http://") || r.target.starts_with("https://"));
        }
    }
    // Deduplicated by type and target.
    for (i, a) in refs.iter().enumerate() {
        for b in &refs[i + 1..] {
            prop_assert!(!(a.kind == b.kind && a.target.eq_ignore_ascii_case(&b.target)));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn text_never_panics(text in thread_text(), any_text in any::<String>()) {
        let t = parse_thread_url("https://github.com/own/repo/issues/7").unwrap();
        check(&refs_in_text(&text, Some(&t), "body"))?;
        check(&refs_in_text(&text, None, "body"))?;
        check(&refs_in_text(&any_text, Some(&t), "body"))?;
    }

    #[test]
    fn api_threads_never_panic(bodies in proptest::collection::vec(thread_text(), 0..4), pr in any::<bool>()) {
        let mut issue = json!({"html_url": "https://github.com/own/repo/issues/7", "body": bodies.first().cloned().unwrap_or_default()});
        if pr {
            issue["pull_request"] = json!({});
        }
        let comments = bodies.iter().skip(1).map(|b| json!({"body": b})).collect();
        let thread = ApiThread { issue: Some(issue), comments, timeline: vec![json!({"event": "cross-referenced", "source": {"issue": {"html_url": bodies.last().cloned().unwrap_or_default()}}})] };
        let r = refs_from_api(&thread, None).unwrap();
        check(&r.refs)?;
        prop_assert!(!r.refs.iter().any(|x| x.target.eq_ignore_ascii_case("own/repo#7")), "no self reference");
    }

    #[test]
    fn html_never_panics(parts in proptest::collection::vec(prop_oneof![
        thread_text(),
        Just("<div class=\"markdown-body\">".to_owned()),
        Just("</div>".to_owned()),
        Just("<a href=\"https://github.com/o/r/pull/3\">".to_owned()),
        Just("<a class=\"user-mention\" href=\"/u\">".to_owned()),
        Just("<a href=\"/o/r/commit/abcdef1234\">".to_owned()),
        Just("</a>".to_owned()),
        Just("<pre><code>".to_owned()),
        Just("</code></pre>".to_owned()),
        Just("<div class=\"TimelineItem\">".to_owned()),
        Just("<br>".to_owned()),
    ], 0..40)) {
        let html = format!("<link rel=canonical href=\"https://github.com/own/repo/pull/7\">{}", parts.concat());
        let r = refs_from_html(&html, None).unwrap();
        check(&r.refs)?;
    }
}
