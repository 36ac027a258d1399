//! Behaviour of `ferret_extract::highlights`: BM25 passage selection,
//! constraint coverage, the focus filter and the top-paragraph trim.

use std::path::PathBuf;

use ferret_extract::highlights::{
    FOCUS_FALLBACK_CHARS, HighlightError, HighlightOptions, Highlights, TOP_PARAGRAPHS,
    count_tokens, focus, highlights, highlights_for_constraints, passages, query_terms,
    top_paragraphs,
};
use ferret_extract::{ExtractOptions, extract};

fn assert_verbatim(text: &str, h: &Highlights) {
    let mut last_end = 0;
    for hl in &h.highlights {
        assert_eq!(
            &text[hl.start..hl.end],
            hl.text,
            "highlight is a verbatim slice"
        );
        assert!(hl.start >= last_end, "document order, no overlap");
        last_end = hl.end;
    }
    assert!(h.used_tokens <= h.budget_tokens);
}

const PAGE: &str = "Ferret is a library for evidence-grade web search.\n\n\
The cache keeps results for one hour by default. Stale entries are refreshed in the background.\n\n\
Installation takes a minute: add the crate and build.\n\n\
The circuit breaker opens after three bot detections within an hour and stays open for thirty seconds.\n\n\
Contributors are welcome; see the guide.";

#[test]
fn best_matching_paragraph_is_selected_verbatim() {
    let h = highlights(
        PAGE,
        "when does the circuit breaker open?",
        &HighlightOptions::default(),
    );
    assert_verbatim(PAGE, &h);
    let first = &h.highlights[0];
    assert!(first.text.starts_with("The circuit breaker opens"));
    assert!(first.matched_terms.contains(&"circuit".to_owned()));
    assert!(first.matched_terms.contains(&"breaker".to_owned()));
    assert!(first.score > 0.0);
}

#[test]
fn passages_that_match_nothing_are_never_highlights() {
    let h = highlights(PAGE, "circuit breaker", &HighlightOptions::default());
    assert_eq!(
        h.highlights.len(),
        1,
        "only one paragraph mentions the breaker"
    );
    let none = highlights(PAGE, "kubernetes operator", &HighlightOptions::default());
    assert!(none.highlights.is_empty());
    assert_eq!(none.used_tokens, 0);
}

#[test]
fn output_keeps_document_order_not_score_order() {
    let text = "alpha beta gamma delta.\n\nNothing here.\n\nbeta beta beta beta beta.";
    let h = highlights(text, "beta", &HighlightOptions::default());
    assert_eq!(h.highlights.len(), 2);
    assert!(h.highlights[0].start < h.highlights[1].start);
    assert!(
        h.highlights[1].score > h.highlights[0].score,
        "the later one scores higher"
    );
}

#[test]
fn rare_terms_outweigh_common_ones() {
    // "rust" is in every paragraph, "borrow" in one: IDF is computed within the page.
    let text = "Rust is fast. Rust is popular. Rust rust rust.\n\n\
                Rust has a borrow checker.\n\n\
                Rust compiles with cargo. Rust rust.";
    let h = highlights(
        text,
        "rust borrow",
        &HighlightOptions::default().with_budget_tokens(6),
    );
    assert_eq!(h.highlights.len(), 1);
    assert_eq!(h.highlights[0].text, "Rust has a borrow checker.");
}

#[test]
fn budget_limits_what_is_selected() {
    let para = "The breaker opens after three detections.";
    let text = [para; 30].join("\n\n");
    let opts = HighlightOptions::default().with_budget_tokens(20);
    let h = highlights(&text, "breaker detections", &opts);
    assert_verbatim(&text, &h);
    assert_eq!(h.budget_tokens, 20);
    assert_eq!(h.used_tokens, 18, "three six-token paragraphs fit in 20");
    assert_eq!(h.highlights.len(), 3);
    // Ties go to the earlier passage.
    assert_eq!(h.highlights[0].start, 0);
}

#[test]
fn default_budget_is_500_tokens() {
    let para = "Evidence about the breaker threshold and its cool-down schedule is here.";
    let text = [para; 200].join("\n\n");
    let h = highlights(&text, "breaker threshold", &HighlightOptions::default());
    assert_eq!(h.budget_tokens, 500);
    assert!(h.used_tokens <= 500);
    assert!(
        h.used_tokens > 480,
        "the budget is filled: {}",
        h.used_tokens
    );
}

#[test]
fn zero_budget_selects_nothing() {
    let h = highlights(
        PAGE,
        "cache",
        &HighlightOptions::default().with_budget_tokens(0),
    );
    assert!(h.highlights.is_empty());
}

#[test]
fn long_paragraphs_become_sentence_windows() {
    let filler = "This sentence is about something else entirely and has twelve words. ";
    let mut text = filler.repeat(20);
    text.push_str("The quota resets at midnight UTC every day. ");
    text.push_str(&filler.repeat(20));
    let opts = HighlightOptions::default()
        .with_max_passage_tokens(30)
        .unwrap();
    let h = highlights(&text, "quota resets midnight", &opts);
    assert_verbatim(&text, &h);
    assert_eq!(h.highlights.len(), 1);
    let hl = &h.highlights[0];
    assert!(
        hl.text
            .contains("The quota resets at midnight UTC every day.")
    );
    assert!(hl.tokens <= 30);
    assert!(h.passages_considered > 10);
}

#[test]
fn list_items_and_table_rows_are_split_at_lines() {
    let rows: Vec<String> = (0..40)
        .map(|i| format!("Plan {i} | {i} users | storage {i} GB"))
        .collect();
    let mut text = rows.join("\n");
    text.push_str("\nEnterprise | unlimited users | SSO included");
    let opts = HighlightOptions::default()
        .with_max_passage_tokens(20)
        .unwrap();
    let h = highlights(&text, "SSO enterprise", &opts);
    assert_verbatim(&text, &h);
    assert_eq!(h.highlights.len(), 1);
    assert!(h.highlights[0].text.ends_with("SSO included"));
    assert!(h.highlights[0].tokens <= 20);
}

#[test]
fn every_passage_fits_the_cap() {
    let text = "word ".repeat(1000) + "\n\n" + &"长".repeat(300);
    for r in passages(&text, 50) {
        assert!(count_tokens(&text[r.clone()]) <= 50);
        assert_eq!(text[r.clone()].trim(), &text[r]);
    }
}

#[test]
fn cjk_queries_match_through_bigrams() {
    let text = "这是一个关于天气的段落。\n\nRust 的异步编程模型基于 Future 和执行器。\n\n另一段讲的是烹饪。";
    let h = highlights(text, "Rust 异步编程", &HighlightOptions::default());
    assert_verbatim(text, &h);
    assert_eq!(h.highlights.len(), 1);
    assert!(h.highlights[0].text.contains("异步编程"));
    assert!(h.highlights[0].matched_terms.contains(&"异步".to_owned()));
    assert!(h.highlights[0].matched_terms.contains(&"编程".to_owned()));
}

#[test]
fn cjk_characters_count_as_tokens_in_the_budget() {
    assert_eq!(count_tokens("异步编程 is fun"), 6);
    let text = "异步编程很有趣。".repeat(10);
    let h = highlights(
        &text,
        "异步",
        &HighlightOptions::default().with_budget_tokens(40),
    );
    assert!(h.used_tokens <= 40);
    assert!(!h.highlights.is_empty());
}

#[test]
fn query_terms_drop_stopwords_but_never_everything() {
    assert_eq!(
        query_terms("what is the circuit breaker"),
        vec!["circuit", "breaker"]
    );
    assert_eq!(query_terms("the who"), vec!["the", "who"]);
    assert_eq!(query_terms("什么是异步"), vec!["异步"]);
}

#[test]
fn each_constraint_gets_its_own_best_passage() {
    // The cache paragraph dominates by score; the budget still reserves a
    // passage for the weaker constraint.
    let text = "The cache TTL is one hour. The cache cache cache TTL TTL.\n\n\
                The cache TTL is documented here too, cache TTL.\n\n\
                Quotas reset daily.";
    let opts = HighlightOptions::default().with_budget_tokens(15);
    let h = highlights_for_constraints(text, &["cache TTL", "quota reset"], &opts);
    assert_verbatim(text, &h);
    assert!(
        h.highlights
            .iter()
            .any(|hl| hl.text == "Quotas reset daily.")
    );
    let quota = h
        .highlights
        .iter()
        .find(|hl| hl.text == "Quotas reset daily.")
        .unwrap();
    assert_eq!(quota.constraints, vec![1]);
    assert!(h.highlights.iter().any(|hl| hl.constraints == vec![0]));
    assert_eq!(h.terms, vec!["cache", "ttl", "quota", "reset"]);
}

#[test]
fn passage_matching_several_constraints_lists_them_all() {
    let text = "Breaker opens after three detections; quota resets daily.\n\nUnrelated.";
    let h = highlights_for_constraints(
        text,
        &["breaker detections", "quota resets"],
        &HighlightOptions::default(),
    );
    assert_eq!(h.highlights.len(), 1);
    assert_eq!(h.highlights[0].constraints, vec![0, 1]);
}

#[test]
fn invalid_options_are_typed_errors() {
    assert_eq!(
        HighlightOptions::default().with_bm25(-1.0, 0.75),
        Err(HighlightError::Bm25 { k1: -1.0, b: 0.75 })
    );
    assert!(HighlightOptions::default().with_bm25(1.2, 1.5).is_err());
    assert!(
        HighlightOptions::default()
            .with_bm25(f64::NAN, 0.5)
            .is_err()
    );
    assert_eq!(
        HighlightOptions::default().with_max_passage_tokens(2),
        Err(HighlightError::PassageCap(2))
    );
    let ok = HighlightOptions::default().with_bm25(1.2, 0.5).unwrap();
    assert_eq!((ok.k1(), ok.b()), (1.2, 0.5));
}

#[test]
fn bm25_b_zero_ignores_passage_length() {
    let text = "cache\n\ncache and many other words that make this passage long";
    let opts = HighlightOptions::default().with_bm25(1.5, 0.0).unwrap();
    let h = highlights(text, "cache", &opts);
    assert_eq!(h.highlights.len(), 2);
    assert!((h.highlights[0].score - h.highlights[1].score).abs() < 1e-12);
    let normal = highlights(text, "cache", &HighlightOptions::default());
    assert!(normal.highlights[0].score > normal.highlights[1].score);
}

// --- focus -------------------------------------------------------------------

fn long_para(word: &str) -> String {
    format!("This paragraph talks about {word} at length. ").repeat(6)
}

#[test]
fn focus_keeps_paragraphs_with_the_keyword() {
    let text = [
        long_para("tokio"),
        long_para("serde"),
        long_para("Tokio runtimes"),
    ]
    .join("\n\n");
    let f = focus(&text, "TOKIO");
    assert!(f.matched);
    assert_eq!(f.ranges.len(), 2);
    for r in &f.ranges {
        assert!(text[r.clone()].to_lowercase().contains("tokio"));
    }
    assert!(!f.text.contains("serde"));
    assert_eq!(
        f.text,
        format!(
            "{}\n\n{}",
            &text[f.ranges[0].clone()],
            &text[f.ranges[1].clone()]
        )
    );
}

#[test]
fn focus_falls_back_when_matches_are_short() {
    let text = format!("{}\n\ntokio.\n\n{}", long_para("serde"), long_para("rayon"));
    let f = focus(&text, "tokio");
    assert!(!f.matched, "one short match is under 200 chars");
    assert_eq!(f.text, text);
}

#[test]
fn focus_falls_back_to_the_first_8000_chars() {
    let text = "é".repeat(9000);
    let f = focus(&text, "absent");
    assert!(!f.matched);
    assert_eq!(f.text.chars().count(), FOCUS_FALLBACK_CHARS);
    assert_eq!(f.ranges, vec![0..FOCUS_FALLBACK_CHARS * 2]);
}

#[test]
fn focus_matches_cjk_substrings() {
    let para = "关于异步运行时的讨论很长。".repeat(20);
    let text = format!("{para}\n\n无关的段落。");
    let f = focus(&text, "运行时");
    assert!(f.matched);
    assert_eq!(f.text, para);
}

#[test]
fn focus_with_empty_keyword_is_the_fallback() {
    let f = focus(PAGE, "  ");
    assert!(!f.matched);
    assert_eq!(f.text, PAGE);
}

// --- top paragraphs ----------------------------------------------------------

#[test]
fn top_paragraphs_keeps_the_best_twenty_in_order() {
    let mut paras: Vec<String> = (0..60)
        .map(|i| format!("Filler paragraph number {i}."))
        .collect();
    for i in (5..60).step_by(10) {
        paras[i] = format!("Paragraph {i} mentions the borrow checker.");
    }
    let text = paras.join("\n\n");
    let top = top_paragraphs(&text, "borrow checker", TOP_PARAGRAPHS);
    assert_eq!(top.total, 60);
    assert_eq!(top.paragraphs.len(), 20);
    let starts: Vec<usize> = top.paragraphs.iter().map(|p| p.start).collect();
    let mut sorted = starts.clone();
    sorted.sort_unstable();
    assert_eq!(starts, sorted, "document order");
    let matching = top
        .paragraphs
        .iter()
        .filter(|p| p.text.contains("borrow"))
        .count();
    assert_eq!(matching, 6, "every matching paragraph is kept");
    for p in &top.paragraphs {
        assert_eq!(&text[p.start..p.end], p.text);
    }
}

#[test]
fn top_paragraphs_without_matches_keeps_the_first() {
    let text: String = (0..30)
        .map(|i| format!("Para {i}."))
        .collect::<Vec<_>>()
        .join("\n\n");
    let top = top_paragraphs(&text, "nothing matches", 20);
    assert_eq!(top.paragraphs.len(), 20);
    assert_eq!(top.paragraphs[0].text, "Para 0.");
    assert_eq!(top.paragraphs[19].text, "Para 19.");
    assert!(top.text().starts_with("Para 0.\n\nPara 1."));
}

// --- on a real page ----------------------------------------------------------

fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    dir.is_dir().then_some(dir)
}

#[test]
fn wikipedia_article_highlights_are_verbatim_and_on_topic() {
    let Some(dir) = shared_dir() else {
        eprintln!("skipped: ../shared not present");
        return;
    };
    let path = dir.join("fixtures/sites/wikipedia-article-rust-programming-language-2026-04.html");
    let html = std::fs::read_to_string(path).expect("fixture readable");
    let page = extract(&html, None, &ExtractOptions::default());
    let h = highlights(
        &page.text,
        "ownership borrow checker lifetimes",
        &HighlightOptions::default(),
    );
    assert_verbatim(&page.text, &h);
    assert!(!h.highlights.is_empty());
    assert!(
        h.used_tokens <= 500 && h.used_tokens > 200,
        "used {}",
        h.used_tokens
    );
    assert!(
        h.highlights
            .iter()
            .any(|hl| hl.text.to_lowercase().contains("borrow checker")),
        "a passage about the borrow checker is selected"
    );
    let top = top_paragraphs(&page.text, "ownership borrow checker", TOP_PARAGRAPHS);
    assert_eq!(top.paragraphs.len(), TOP_PARAGRAPHS.min(top.total));
    assert!(top.paragraphs.iter().any(|p| p.text.contains("borrow")));
    let f = focus(&page.text, "Cargo");
    assert!(f.matched);
    assert!(f.text.contains("Cargo"));
}
