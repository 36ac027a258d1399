//! Properties of presentation: every result appears exactly once, in the
//! results and (beyond a list) in exactly one theme; the layout follows the
//! size; Markdown renders every shown result.

use ferret_core::Runtime;
use ferret_core::provenance::Provenance;
use ferret_core::{Scores, SearchResult, SourceHit};
use ferret_evidence::presentation::{Layout, PresentOptions, present_results};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "tokio",
    "scheduler",
    "runtime",
    "timeout",
    "cancel",
    "bread",
    "flour",
    "not",
    "faster",
    "slower",
    "异步",
    "运行时",
    "调度",
    "[x]",
    "(y)",
    "supports",
    "does",
    "never",
];

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(0..WORDS.len(), 0..max).prop_map(|ws| {
        ws.into_iter()
            .map(|w| WORDS[w])
            .collect::<Vec<_>>()
            .join(" ")
    })
}

fn result(n: usize, title: String, snippet: String) -> SearchResult {
    let url = format!("https://s{n}.example/p");
    SearchResult {
        url: url.clone(),
        original_url: url.as_str().into(),
        title: title.into(),
        snippet: snippet.into(),
        published_at: None,
        domain: format!("s{n}.example"),
        sources: vec![SourceHit {
            engine: "brave".into(),
            rank: 1,
            sub_query: "q".into(),
            url: url.into(),
            provenance: Provenance::public(Runtime::Http),
        }],
        scores: Scores::default(),
        score_basis: None,
        near_duplicates: Vec::new(),
        flags: Vec::new(),
        provenance: Provenance::public(Runtime::Http),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_result_is_shown_once(
        docs in prop::collection::vec((text(6), text(20)), 0..40),
        query in text(3),
    ) {
        let results: Vec<SearchResult> = docs
            .into_iter()
            .enumerate()
            .map(|(n, (t, s))| result(n, t, s))
            .collect();
        let n = results.len();
        let p = present_results(&query, &results, &PresentOptions::default()).expect("present");
        prop_assert_eq!(p.total, n);
        prop_assert_eq!(p.results.iter().map(|r| r.rank).collect::<Vec<_>>(), (1..=n).collect::<Vec<_>>());
        let expected = if n <= 5 { Layout::List } else if n <= 15 { Layout::Themes } else { Layout::Overview };
        prop_assert_eq!(p.layout, expected);
        if p.layout != Layout::List {
            let mut ranks: Vec<usize> = p.themes.iter().flat_map(|t| t.ranks.clone()).collect();
            ranks.sort_unstable();
            prop_assert_eq!(ranks, (1..=n).collect::<Vec<_>>());
            prop_assert!(p.themes.iter().filter(|t| t.other).count() <= 1);
        }
        for c in &p.conflicts {
            prop_assert!(c.ranks.len() >= 2);
            prop_assert!(c.ranks.iter().all(|&r| r >= 1 && r <= n));
        }
        let md = p.to_markdown();
        let shown = match p.layout {
            Layout::Overview => p.top.len(),
            _ => n,
        };
        prop_assert!(md.matches("](https://s").count() >= shown);
    }
}
