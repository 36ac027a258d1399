//! Goggles cannot hold a search: the prefilter that skips instructions whose
//! required literal is absent gives exactly the verdict of trying every
//! instruction (proptest), a goggle at the documented limits (4,000
//! instructions of 491 characters with the most wildcards and carets
//! allowed, under 2 MiB) is applied to 50 results within the deadline, and
//! a deadline that has passed stops matching with a warning instead of
//! running on.

use std::time::{Duration, Instant};

use ferret_core::goggles::{Goggle, MAX_FILE_BYTES, Subject, apply_until};
use ferret_core::{Provenance, Runtime, Scores, SearchResult};
use proptest::prelude::*;

const HEADER: &str =
    "! name: limits\n! description: at the limits\n! public: false\n! author: tests\n";

fn result(i: usize) -> SearchResult {
    let url = format!(
        "https://site{}.example/path/{i}/page-{}?q=a{i}",
        i % 7,
        i * 31
    );
    SearchResult {
        url: url.clone(),
        original_url: url.into(),
        title: format!("Result {i} about segments and wildcards").into(),
        snippet: format!("Snippet {i} with some words that patterns might look for.").into(),
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

/// One instruction of 491 characters: two `*`, two `^`, long literal runs
/// that share a prefix with the result URLs (so they are never rejected by
/// their first characters alone).
fn heavy_line(i: usize) -> String {
    let run = |n: usize, c: char| std::iter::repeat_n(c, n).collect::<String>();
    let line = format!(
        "|https://site{}.example/path/*{}^{}*{}^{}$boost=2",
        i % 7,
        run(110, 'a'),
        run(110, 'b'),
        run(110, 'c'),
        run(120 - (i % 10), 'd'),
    );
    line
}

#[test]
fn a_goggle_at_the_documented_limits_is_applied_within_the_deadline() {
    let mut text = String::from(HEADER);
    for i in 0..4_000 {
        text.push_str(&heavy_line(i));
        text.push('\n');
    }
    assert!(text.len() <= MAX_FILE_BYTES, "{} bytes", text.len());
    let goggle = Goggle::parse(&text).expect("within every limit");
    let results: Vec<SearchResult> = (0..50).map(result).collect();
    let budget = Duration::from_secs(5);
    let started = Instant::now();
    let applied = apply_until(&goggle, results, Some(started + budget));
    let took = started.elapsed();
    assert_eq!(applied.results.len() + applied.discarded.len(), 50);
    assert!(took < budget + Duration::from_secs(1), "took {took:?}");
}

#[test]
fn a_passed_deadline_stops_matching_and_says_so() {
    let goggle = Goggle::parse(&format!("{HEADER}/path/$boost=3\n")).unwrap();
    let results: Vec<SearchResult> = (0..10).map(result).collect();
    let applied = apply_until(&goggle, results, Some(Instant::now()));
    assert_eq!(applied.results.len(), 10);
    assert!(applied.results.iter().all(|r| r.scores.goggle == Some(0.0)));
    assert!(
        applied.warnings.iter().any(|w| w.contains("deadline")),
        "{:?}",
        applied.warnings
    );
}

fn instruction() -> impl Strategy<Value = String> {
    let pattern = "[ab/.^*|-]{1,8}";
    let action = prop_oneof![
        Just("$boost=2".to_string()),
        Just("$downrank=3".to_string()),
        Just("$discard".to_string()),
        Just("$boost=1,site=ab.example".to_string()),
        Just("$intitle,boost=4".to_string()),
        Just("$indescription,downrank".to_string()),
    ];
    prop_oneof![
        (pattern, action).prop_map(|(p, a)| format!("{p}{a}")),
        Just("$boost=5,site=ab.example".to_string()),
        Just("$discard,site=b.example".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Skipping instructions whose literal is absent never changes the
    /// verdict.
    #[test]
    fn the_prefilter_gives_the_verdict_of_trying_every_instruction(
        lines in prop::collection::vec(instruction(), 1..20),
        url in "https://[ab]{1,3}\\.example/[ab/.-]{0,12}",
        title in "[ab .-]{0,12}",
        description in "[ab .-]{0,12}",
    ) {
        let text = format!("{HEADER}{}\n", lines.join("\n"));
        let Ok(goggle) = Goggle::parse(&text) else { return Ok(()); };
        let subject = Subject::new(&url, &title, &description);
        prop_assert_eq!(
            goggle.verdict(&subject),
            goggle.verdict_trying_every_instruction(&subject)
        );
    }
}
