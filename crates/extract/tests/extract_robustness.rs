//! `extract` and `extract_bytes` never panic and keep their invariants on
//! any input: arbitrary bytes, arbitrary strings, random tag soup and
//! pathological nesting.

use ferret_extract::{
    self, ExtractOptions, Extracted, decode_html, extract, extract_bytes, normalize_date,
    normalize_language_tag,
};
use proptest::prelude::*;
use url::Url;

/// Invariants every result keeps.
fn check(out: &Extracted) {
    assert_eq!(out.text_chars, out.text.chars().count());
    assert!(
        (0.0..=1.0).contains(&out.link_density),
        "{}",
        out.link_density
    );
    assert_eq!(
        out.text.is_empty(),
        out.strategy == ferret_extract::Strategy::Empty
    );
    assert!(out.meta.count() <= 4);
    for link in &out.links {
        assert!(
            link.url.starts_with("http://") || link.url.starts_with("https://"),
            "{}",
            link.url
        );
    }
    if let Some(date) = &out.published {
        assert!(date.len() >= 10 && date.as_bytes()[4] == b'-', "{date}");
    }
    serde_json::to_string(out).expect("every result serialises");
}

/// Pieces of HTML that exercise the parser and the extractor's special
/// cases, glued together in random order.
fn soup_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<div>".to_owned()),
        Just("</div>".to_owned()),
        Just("<p>".to_owned()),
        Just("</p>".to_owned()),
        Just("<article class=\"post-content\">".to_owned()),
        Just("<ul><li>".to_owned()),
        Just("<ol class=\"related\"><li><a href=\"/x\">A headline link here</a> summary".to_owned()),
        Just("<table><tr><td>".to_owned()),
        Just("</td><th>".to_owned()),
        Just("<pre><code>".to_owned()),
        Just("<blockquote>".to_owned()),
        Just("<h2>".to_owned()),
        Just("<a href=\"https://example.com/a\">".to_owned()),
        Just("<a href=\"javascript:x\">".to_owned()),
        Just("</a>".to_owned()),
        Just("<b><i>".to_owned()),
        Just("<br>".to_owned()),
        Just("<script>var a = '</div>';</script>".to_owned()),
        Just("<script type=\"application/ld+json\">{\"@type\":\"Article\",\"datePublished\":\"2020-01-02\"}</script>".to_owned()),
        Just("<script type=\"application/ld+json\">{broken</script>".to_owned()),
        Just("<style>p{}</style>".to_owned()),
        Just("<!-- comment -->".to_owned()),
        Just("<!--".to_owned()),
        Just("<svg><path d=\"M0\"/></svg>".to_owned()),
        Just("<noscript>enable JavaScript</noscript>".to_owned()),
        Just("<meta property=\"og:title\" content=\"T | Site\">".to_owned()),
        Just("<time datetime=\"2019-02-30\">".to_owned()),
        Just("<div id=\"root\"></div>".to_owned()),
        Just("<div class=\"comments\">".to_owned()),
        Just("<nav>".to_owned()),
        Just("<span style=\"display:none\">".to_owned()),
        Just("<title>".to_owned()),
        Just("<textarea>".to_owned()),
        Just("<table>".to_owned()),
        Just("&amp;&#x1F600;&nbsp;&bogus;".to_owned()),
        "[ -~]{0,40}",
        "\\PC{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048),
                                   header in proptest::option::of("[ -~]{0,40}")) {
        let out = extract_bytes(&bytes, header.as_deref(), None, &ExtractOptions::default());
        check(&out);
        prop_assert!(out.decoded.is_some());
    }

    #[test]
    fn arbitrary_strings_never_panic(html in "\\PC{0,1500}") {
        check(&extract(&html, None, &ExtractOptions::default()));
    }

    #[test]
    fn tag_soup_never_panics(pieces in proptest::collection::vec(soup_piece(), 0..120),
                             max in proptest::option::of(0usize..400)) {
        let html: String = pieces.concat();
        let url = Url::parse("https://example.com/dir/page.html").expect("static URL");
        let options = ExtractOptions { max_text_chars: max, ..ExtractOptions::default() };
        let out = extract(&html, Some(&url), &options);
        check(&out);
        if let Some(max) = max {
            prop_assert!(out.truncated || out.text_chars <= max + 2);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn normalised_dates_are_iso_8601(input in "\\PC{0,40}") {
        if let Some(d) = normalize_date(&input) {
            let date_ok = chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d").is_ok();
            let local_ok = chrono::NaiveDateTime::parse_from_str(&d, "%Y-%m-%dT%H:%M:%S").is_ok();
            let zoned_ok = chrono::DateTime::parse_from_rfc3339(&d).is_ok();
            prop_assert!(date_ok || local_ok || zoned_ok, "{input:?} -> {d:?}");
        }
    }

    #[test]
    fn generated_dates_round_trip(y in 1990i32..2100, m in 1u32..=12, d in 1u32..=28,
                                  h in 0u32..24, min in 0u32..60, s in 0u32..60) {
        let iso = format!("{y:04}-{m:02}-{d:02}");
        prop_assert_eq!(normalize_date(&iso), Some(iso.clone()));
        let stamp = format!("{iso}T{h:02}:{min:02}:{s:02}Z");
        prop_assert_eq!(normalize_date(&stamp), Some(stamp.clone()));
        let slashed = format!("{y:04}/{m:02}/{d:02}");
        prop_assert_eq!(normalize_date(&slashed), Some(iso));
    }

    #[test]
    fn language_tags_are_well_formed(input in "\\PC{0,20}") {
        if let Some(tag) = normalize_language_tag(&input) {
            let primary = tag.split('-').next().unwrap_or("");
            prop_assert!((2..=3).contains(&primary.len()), "{tag}");
            prop_assert!(primary.bytes().all(|b| b.is_ascii_lowercase()), "{tag}");
        }
    }

    #[test]
    fn decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512),
                             header in proptest::option::of("[ -~]{0,60}")) {
        let d = decode_html(&bytes, header.as_deref());
        prop_assert!(!d.encoding.is_empty());
        let replaced = d.html.contains(char::REPLACEMENT_CHARACTER);
        prop_assert!(!d.had_errors || replaced);
    }
}

fn nested(open: &str, close: &str, depth: usize, inner: &str) -> String {
    let mut html = String::with_capacity((open.len() + close.len()) * depth + inner.len());
    for _ in 0..depth {
        html.push_str(open);
    }
    html.push_str(inner);
    for _ in 0..depth {
        html.push_str(close);
    }
    html
}

#[test]
fn hundred_thousand_deep_nesting_of_any_kind_is_handled() {
    let text = "Deeply nested words that should survive the trip through the extractor.";
    for (open, close) in [
        ("<div>", "</div>"),
        ("<span>", "</span>"),
        ("<blockquote>", "</blockquote>"),
        ("<ul><li>", "</li></ul>"),
        ("<x-a>", "</x-a>"),
        ("<a href=\"/x\">", "</a>"),
    ] {
        let out = extract(
            &nested(open, close, 100_000, text),
            None,
            &ExtractOptions::default(),
        );
        check(&out);
        assert!(
            out.text.contains("Deeply nested words"),
            "{open}: {:?}",
            out.text
        );
    }
    // unclosed tags and deep tables
    for html in [
        "<div>".repeat(100_000) + text,
        "<b>".repeat(100_000) + text,
        "<table><tr><td>".repeat(20_000) + text,
    ] {
        let out = extract(&html, None, &ExtractOptions::default());
        check(&out);
        assert!(out.text.contains("Deeply nested words"));
    }
}

#[test]
fn huge_flat_documents_are_handled() {
    let para = "<p>Plenty of ordinary paragraphs, one after the other, with commas, words and sentences.</p>";
    let html = format!(
        "<html><body><article>{}</article></body></html>",
        para.repeat(20_000)
    );
    let out = extract(&html, None, &ExtractOptions::default());
    check(&out);
    assert_eq!(out.blocks.len(), 20_000);
}

#[test]
fn the_text_cap_counts_list_markers() {
    let items: String = (1..=40)
        .map(|n| format!("<li>Item number {n} of the list, with a few words.</li>"))
        .collect();
    let html = format!("<html><body><article><ol>{items}</ol></article></body></html>");
    for max in [5, 60, 200, 700] {
        let options = ExtractOptions {
            max_text_chars: Some(max),
            ..ExtractOptions::default()
        };
        let out = extract(&html, None, &options);
        check(&out);
        assert!(out.truncated, "{max}");
        assert!(out.text_chars <= max + 2, "{max}: {} chars", out.text_chars);
        assert!(out.text.starts_with("1. It"), "{:?}", out.text);
    }
}
