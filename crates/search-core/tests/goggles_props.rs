//! Property tests: the goggle parser and matcher never panic, the matcher
//! agrees with a plain memoised reference matcher, pathological patterns on
//! long URLs finish (the matcher is O(text × pattern) by construction), and
//! applying a goggle loses no result.

use ferret_core::Runtime;
use std::collections::HashMap;

use ferret_core::goggles::{Goggle, Pattern, Subject, apply};
use ferret_core::{Provenance, Scores, SearchResult};
use proptest::prelude::*;

const HEADER: &str = "! name: p\n! description: p\n! public: true\n! author: p\n";

/// The reference: the pattern's meaning written directly as a memoised
/// recursion over (pattern position, text position).
fn reference(pattern: &str, text: &str) -> Option<bool> {
    let mut body = pattern;
    let start = body.starts_with('|');
    if start {
        body = &body[1..];
    }
    let end = body.ends_with('|');
    if end {
        body = &body[..body.len() - 1];
    }
    if body.is_empty() {
        return None;
    }
    let p: Vec<char> = body
        .chars()
        .flat_map(|c| {
            let v: Vec<char> = if c == '*' || c == '^' {
                vec![c]
            } else {
                c.to_lowercase().collect()
            };
            v
        })
        .collect();
    let t: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
    let sep = |c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '%' | '-'));
    fn go(
        pi: usize,
        ti: usize,
        p: &[char],
        t: &[char],
        end: bool,
        sep: &dyn Fn(char) -> bool,
        memo: &mut HashMap<(usize, usize), bool>,
    ) -> bool {
        if let Some(&v) = memo.get(&(pi, ti)) {
            return v;
        }
        let n = t.len();
        let v = if pi == p.len() {
            !end || ti == n
        } else {
            match p[pi] {
                '*' => (ti..=n).any(|k| go(pi + 1, k, p, t, end, sep, memo)),
                '^' => {
                    (ti < n && sep(t[ti]) && go(pi + 1, ti + 1, p, t, end, sep, memo))
                        || (ti == n && go(pi + 1, n, p, t, end, sep, memo))
                }
                c => ti < n && t[ti] == c && go(pi + 1, ti + 1, p, t, end, sep, memo),
            }
        };
        memo.insert((pi, ti), v);
        v
    }
    let mut memo = HashMap::new();
    let starts = if start { 0..=0 } else { 0..=t.len() };
    let mut found = false;
    for s in starts {
        if go(0, s, &p, &t, end, &sep, &mut memo) {
            found = true;
            break;
        }
    }
    Some(found)
}

fn result(url: &str, title: &str) -> SearchResult {
    SearchResult {
        url: url.to_string(),
        original_url: url.into(),
        title: title.into(),
        snippet: Default::default(),
        published_at: None,
        domain: String::new(),
        sources: Vec::new(),
        scores: Scores::default(),
        score_basis: None,
        near_duplicates: Vec::new(),
        flags: Vec::new(),
        provenance: Provenance::public(Runtime::Http),
    }
}

fn instruction_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-c/.^*|]{1,8}",
        "[a-c/.^*|]{0,6}\\$(boost|downrank|discard|intitle|inurl|site=[a-c]{1,3}\\.(com|io))(,(boost=[0-9]{1,2}|downrank=[0-9]{1,2}|discard|site=[a-c]{1,3}\\.com|incontent|frob)){0,3}",
        "\\$(discard|boost=[1-9]|downrank)(,site=[a-c]{1,3}\\.(com|io))?",
        "! [a-z_]{1,8}: [ -~]{0,20}",
        "[ -~]{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn parsing_arbitrary_text_never_panics(text in any::<String>()) {
        let _ = Goggle::parse(&text);
        let _ = Goggle::parse(&format!("{HEADER}{text}"));
    }

    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = Goggle::parse_bytes(&bytes);
    }

    #[test]
    fn goggle_like_files_parse_or_fail_with_line_numbered_errors(
        lines in proptest::collection::vec(instruction_line(), 0..12)
    ) {
        let text = format!("{HEADER}{}\n", lines.join("\n"));
        match Goggle::parse(&text) {
            Ok(g) => {
                for i in g.instructions() {
                    prop_assert!(i.line() > 4);
                }
            }
            Err(errors) => {
                prop_assert!(!errors.errors().is_empty());
                for e in errors.errors() {
                    prop_assert!(e.line <= 4 + lines.len());
                    prop_assert!(!e.message.is_empty());
                }
                let mut sorted = errors.errors().to_vec();
                sorted.sort_by_key(|e| e.line);
                prop_assert_eq!(sorted, errors.errors().to_vec());
            }
        }
    }

    #[test]
    fn the_matcher_agrees_with_the_reference(
        pattern in "[aAb./^*|?-]{1,10}",
        text in "[aAb./?_%-]{0,14}",
    ) {
        match (Pattern::parse(&pattern), reference(&pattern, &text)) {
            (Ok(p), Some(want)) => prop_assert_eq!(p.matches(&text), want, "{} on {}", pattern, text),
            (Err(_), None) => {}
            (got, want) => prop_assert!(false, "{:?} vs {:?}", got, want),
        }
    }

    #[test]
    fn matching_arbitrary_patterns_and_texts_never_panics(pattern in any::<String>(), text in any::<String>()) {
        if let Ok(p) = Pattern::parse(&pattern) {
            let _ = p.matches(&text);
        }
    }

    #[test]
    fn verdicts_never_panic_and_apply_loses_no_result(
        lines in proptest::collection::vec(instruction_line(), 0..10),
        urls in proptest::collection::vec("https?://[a-c]{1,3}\\.(com|io)(/[a-c./^?=]{0,10})?", 0..12),
        titles in proptest::collection::vec("[a-c 不是支持]{0,16}", 12),
    ) {
        let Ok(g) = Goggle::parse(&format!("{HEADER}{}\n", lines.join("\n"))) else {
            return Ok(());
        };
        let results: Vec<SearchResult> = urls
            .iter()
            .zip(&titles)
            .map(|(u, t)| result(u, t))
            .collect();
        for r in &results {
            let _ = g.verdict(&Subject::of_result(r));
        }
        let n = results.len();
        let applied = apply(&g, results);
        prop_assert_eq!(applied.results.len() + applied.discarded.len(), n);
        prop_assert!(applied
            .results
            .windows(2)
            .all(|w| w[0].scores.final_score >= w[1].scores.final_score));
        prop_assert!(applied.results.iter().all(|r| r.scores.goggle.is_some_and(f64::is_finite)));
        let mut positions: Vec<usize> = applied.discarded.iter().map(|d| d.position).collect();
        positions.dedup();
        prop_assert_eq!(positions.len(), applied.discarded.len());
    }
}

/// Patterns that make naive backtracking matchers explode, on a 2,000
/// character URL. The matcher is O(n·m) per pattern by construction (see
/// `goggles::pattern`), so this finishes; the assertions check it answers
/// correctly.
#[test]
fn pathological_patterns_on_a_long_url_finish_with_the_right_answer() {
    let url = format!("https://a.example/{}", "a".repeat(2_000));
    let cases = [
        ("a*a*b", false),
        ("a*a*a", true),
        ("|https://*a*a|", true),
        ("*a*^", true),
        ("a^a^", false),
        ("|*a*b|", false),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", false),
    ];
    for (pattern, want) in cases {
        let p = Pattern::parse(pattern).unwrap();
        assert_eq!(p.matches(&url), want, "{pattern}");
        assert_eq!(
            reference(pattern, &url),
            Some(want),
            "{pattern} (reference)"
        );
    }
    // Beyond the parser's limits the matcher stays polynomial too.
    let many = format!("{}b", "a*".repeat(60));
    assert!(!Pattern::parse(&many).unwrap().matches(&url));
    let g = Goggle::parse(&format!("{HEADER}a*a*b$discard\n*a*^$boost=2\n")).unwrap();
    let subject = Subject::new(&url, &"标题".repeat(1_000), &"a".repeat(2_000));
    assert!(!g.verdict(&subject).is_discard());
}
