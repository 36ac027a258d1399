//! Property: every quote the binder returns is a verbatim slice of its
//! cited item's fetched text, at most 80 characters, at the recorded
//! offsets — and the checker agrees.

use ferret_core::Provenance;
use ferret_core::Runtime;
use ferret_evidence::citations::{CitationOptions, bind_claims, check_citations};
use ferret_evidence::evidence_item::EvidenceItem;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "tokio",
    "runtime",
    "async",
    "Rust",
    "scheduler",
    "threads",
    "work-stealing",
    "latency",
    "the",
    "of",
    "and",
    "is",
    "node.js",
    "C++",
    "v1.2",
    "don't",
    "调度器",
    "工作窃取",
    "线程",
    "任务",
    "异步",
    "运行时",
    "性能",
    "데이터",
    "é",
    "naïve",
    "supercalifragilisticexpialidocious-\
     and-an-even-longer-hyphenated-compound-word-that-exceeds-eighty-characters-easily",
];
const SEPARATORS: &[&str] = &[
    " ", " ", " ", ", ", ". ", "。", "！", "\n", "\n\n", "; ", "  ", "\t",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec((0..WORDS.len(), 0..SEPARATORS.len()), 0..120).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(w, s)| format!("{}{}", WORDS[w], SEPARATORS[s]))
            .collect()
    })
}

fn claim() -> impl Strategy<Value = String> {
    prop::collection::vec(0..WORDS.len(), 1..8).prop_map(|ws| {
        ws.into_iter()
            .map(|w| WORDS[w])
            .collect::<Vec<_>>()
            .join(" ")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_quote_is_verbatim_in_its_source(
        texts in prop::collection::vec((text(), any::<bool>()), 1..5),
        claims in prop::collection::vec(claim(), 1..6),
    ) {
        let items: Vec<EvidenceItem> = texts
            .iter()
            .enumerate()
            .map(|(n, (t, fetched))| {
                let item = EvidenceItem::new(format!("e{n}"), format!("https://site{n}.example/p"), Provenance::public(Runtime::Http))
                    .expect("url");
                if *fetched { item.with_fetched_text(t.clone()) } else { item }
            })
            .collect();
        let report = bind_claims(&claims, &items, &CitationOptions::default()).expect("bind");
        prop_assert_eq!(report.citations.len(), claims.len());
        for c in &report.citations {
            prop_assert!(c.quote.is_some() != c.unciteable.is_some());
            if let Some(q) = &c.quote {
                let item = items.iter().find(|i| i.id == q.evidence_id).expect("cited item");
                prop_assert!(item.fetched);
                prop_assert_eq!(item.text.get(q.start..q.end), Some(q.text.as_str()));
                prop_assert!(item.text.contains(&q.text));
                prop_assert!(q.text.chars().count() <= 80);
                prop_assert!(!q.text.trim().is_empty());
            }
        }
        prop_assert!(check_citations(&report.citations, &items).is_ok());
    }
}
