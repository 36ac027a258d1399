//! Invariants of `ferret_extract::highlights` on arbitrary text.

use ferret_extract::highlights::{
    HighlightOptions, count_tokens, focus, highlights, highlights_for_constraints, passages,
    top_paragraphs,
};
use proptest::prelude::*;

/// Text mixing words, CJK, punctuation, blank lines and odd whitespace.
fn page_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-zA-Z]{1,10}",
        2 => "[异步编程运行时天气。，]{1,6}",
        1 => "[.!?;:,'\"()\\-]",
        2 => Just(" ".to_owned()),
        1 => Just("\n".to_owned()),
        1 => Just("\n\n".to_owned()),
        1 => Just("\t \u{a0}".to_owned()),
        1 => "[éüß€😀]{1,3}",
        1 => "[0-9]{1,5}",
    ];
    proptest::collection::vec(piece, 0..300).prop_map(|v| v.concat())
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z ]{0,30}",
        "[异步编程运行时 ]{0,8}",
        Just(String::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn highlights_are_verbatim_ordered_and_within_budget(
        text in page_text(),
        q in query(),
        budget in 0usize..200,
        cap in 8usize..60,
    ) {
        let opts = HighlightOptions::default()
            .with_budget_tokens(budget)
            .with_max_passage_tokens(cap)
            .unwrap();
        let h = highlights(&text, &q, &opts);
        prop_assert!(h.used_tokens <= budget);
        prop_assert_eq!(h.used_tokens, h.highlights.iter().map(|x| x.tokens).sum::<usize>());
        let mut last = 0;
        for hl in &h.highlights {
            prop_assert!(hl.start >= last);
            prop_assert!(hl.end <= text.len());
            prop_assert_eq!(&text[hl.start..hl.end], hl.text.as_str());
            prop_assert_eq!(count_tokens(&hl.text), hl.tokens);
            prop_assert!(hl.tokens <= cap.min(budget));
            prop_assert!(hl.score > 0.0);
            prop_assert!(!hl.matched_terms.is_empty());
            last = hl.end;
        }
    }

    #[test]
    fn constraint_highlights_are_verbatim_and_within_budget(
        text in page_text(),
        qs in proptest::collection::vec(query(), 0..5),
        budget in 0usize..300,
    ) {
        let opts = HighlightOptions::default().with_budget_tokens(budget);
        let h = highlights_for_constraints(&text, &qs, &opts);
        prop_assert!(h.used_tokens <= budget);
        let mut last = 0;
        for hl in &h.highlights {
            prop_assert!(hl.start >= last);
            prop_assert_eq!(&text[hl.start..hl.end], hl.text.as_str());
            prop_assert!(!hl.constraints.is_empty());
            prop_assert!(hl.constraints.iter().all(|&c| c < qs.len()));
            last = hl.end;
        }
    }

    #[test]
    fn passages_cover_all_non_space_text_within_the_cap(text in page_text(), cap in 1usize..40) {
        let ps = passages(&text, cap);
        let mut last = 0;
        let mut covered = 0;
        for r in &ps {
            prop_assert!(r.start >= last && r.start < r.end);
            prop_assert!(count_tokens(&text[r.clone()]) <= cap);
            covered += text[r.clone()].chars().filter(|c| !c.is_whitespace()).count();
            last = r.end;
        }
        prop_assert_eq!(covered, text.chars().filter(|c| !c.is_whitespace()).count());
    }

    #[test]
    fn focus_ranges_are_verbatim(text in page_text(), kw in "[a-z异步]{0,3}") {
        let f = focus(&text, &kw);
        for r in &f.ranges {
            prop_assert!(text.get(r.clone()).is_some());
        }
        if !f.matched {
            prop_assert!(text.starts_with(&f.text));
        }
    }

    #[test]
    fn top_paragraphs_are_verbatim_and_capped(text in page_text(), q in query(), limit in 0usize..25) {
        let top = top_paragraphs(&text, &q, limit);
        prop_assert!(top.paragraphs.len() <= limit);
        prop_assert_eq!(top.paragraphs.len(), limit.min(top.total));
        for p in &top.paragraphs {
            prop_assert_eq!(&text[p.start..p.end], p.text.as_str());
        }
    }
}
