//! Result-set presentation through the public API: layouts by size,
//! themes, conflicts, the Markdown shapes and the envelope.

use ferret_core::Runtime;
use ferret_core::provenance::Provenance;
use ferret_core::{Intent, Mode, Scores, SearchResponse, SearchResult, SourceHit};
use ferret_evidence::evidence_item::SourceTier;
use ferret_evidence::presentation::{
    CONFLICT_FLAG, ConflictKind, Layout, PresentOptions, Presentation, T1_VS_COMMUNITY_FLAG,
    present, present_results,
};

fn result(url: &str, title: &str, snippet: &str, engines: &[&str], score: f64) -> SearchResult {
    let host = url::Url::parse(url)
        .expect("url")
        .host_str()
        .unwrap_or_default()
        .to_string();
    SearchResult {
        url: url.to_string(),
        original_url: url.into(),
        title: title.into(),
        snippet: snippet.into(),
        published_at: None,
        domain: host.trim_start_matches("www.").to_string(),
        sources: engines
            .iter()
            .enumerate()
            .map(|(i, e)| SourceHit {
                engine: (*e).into(),
                rank: i as u32 + 1,
                sub_query: "q".into(),
                url: url.into(),
                provenance: Provenance::public(Runtime::Http),
            })
            .collect(),
        scores: Scores {
            final_score: score,
            ..Scores::default()
        },
        score_basis: None,
        near_duplicates: Vec::new(),
        flags: Vec::new(),
        provenance: Provenance::public(Runtime::Http),
    }
}

fn simple(n: usize, title: &str, snippet: &str) -> SearchResult {
    result(
        &format!("https://site{n}.example/page"),
        title,
        snippet,
        &["brave"],
        1.0 - n as f64 / 100.0,
    )
}

fn present_all(query: &str, results: &[SearchResult]) -> Presentation {
    present_results(query, results, &PresentOptions::default()).expect("present")
}

const SCHEDULER: &[(&str, &str)] = &[
    (
        "Inside the Tokio scheduler",
        "How the work-stealing scheduler balances tasks across worker threads.",
    ),
    (
        "Work-stealing in Tokio explained",
        "Worker threads steal tasks; the scheduler keeps queues short.",
    ),
    (
        "Tuning Tokio worker threads",
        "Set worker threads and watch the scheduler steal tasks under load.",
    ),
    (
        "Scheduler internals of async runtimes",
        "A look at work-stealing queues and worker threads in Tokio.",
    ),
    (
        "Why the scheduler steals work",
        "Idle worker threads steal half of a busy queue to balance load.",
    ),
    (
        "Measuring scheduler fairness",
        "Benchmarks of worker threads show the work-stealing queue stays fair.",
    ),
    (
        "LIFO slot in the Tokio scheduler",
        "The scheduler runs a just-woken task first on the same worker thread.",
    ),
    (
        "Blocking tasks and worker threads",
        "spawn_blocking moves work off the scheduler so worker threads keep stealing.",
    ),
];
const TIMEOUTS: &[(&str, &str)] = &[
    (
        "Tokio timeouts and cancellation",
        "Wrap futures in timeout; cancellation drops the future safely.",
    ),
    (
        "Cancellation safety with select",
        "Timeout branches in select need cancellation-safe futures.",
    ),
    (
        "Handling timeout errors in Tokio",
        "A timeout returns Elapsed; cancellation of the inner future follows.",
    ),
    (
        "Graceful cancellation patterns",
        "Combine timeout with cancellation tokens for clean shutdown.",
    ),
    (
        "Deadlines versus timeouts",
        "A deadline is an instant; a timeout is a duration before cancellation.",
    ),
    (
        "Cancellation tokens in practice",
        "Child tokens propagate cancellation; pair them with a timeout per request.",
    ),
    (
        "Testing timeout behaviour",
        "Pause time in tests so every timeout and cancellation path runs quickly.",
    ),
    (
        "Why futures are cancelled on drop",
        "Dropping a future is cancellation; a timeout simply drops it when time is up.",
    ),
];

/// The first `per_theme` results of each theme, interleaved.
fn interleaved(per_theme: usize) -> Vec<SearchResult> {
    SCHEDULER[..per_theme]
        .iter()
        .zip(&TIMEOUTS[..per_theme])
        .flat_map(|(a, b)| [a, b])
        .enumerate()
        .map(|(n, (t, s))| simple(n, t, s))
        .collect()
}

fn themed_results() -> Vec<SearchResult> {
    interleaved(4)
}

#[test]
fn five_or_fewer_results_are_listed_with_engines_and_scores() {
    let results = vec![
        result(
            "https://tokio.rs/",
            "Tokio",
            "An asynchronous runtime for Rust.",
            &["brave", "exa"],
            0.85,
        ),
        result(
            "https://docs.rs/tokio",
            "tokio - Rust",
            "API docs.",
            &["tavily"],
            0.72,
        ),
    ];
    let p = present_all("tokio", &results);
    assert_eq!(p.layout, Layout::List);
    assert!(p.themes.is_empty());
    assert_eq!(
        p.to_markdown(),
        "1. [Tokio](https://tokio.rs/) — An asynchronous runtime for Rust. `[brave, exa]` ⭐0.85\n\
         2. [tokio - Rust](https://docs.rs/tokio) — API docs. `[tavily]` ⭐0.72\n"
    );
}

#[test]
fn six_to_fifteen_results_are_grouped_by_theme() {
    let p = present_all("tokio", &themed_results());
    assert_eq!(p.layout, Layout::Themes);
    let themes: Vec<&Vec<usize>> = p
        .themes
        .iter()
        .filter(|t| !t.other)
        .map(|t| &t.ranks)
        .collect();
    assert_eq!(
        themes,
        vec![&vec![1, 3, 5, 7], &vec![2, 4, 6, 8]],
        "{:#?}",
        p.themes
    );
    assert!(
        p.themes[0]
            .terms
            .iter()
            .any(|t| t == "scheduler" || t == "worker" || t == "thread"),
        "{:?}",
        p.themes[0].terms
    );
    assert!(
        p.themes[1]
            .terms
            .iter()
            .any(|t| t == "cancellation" || t == "timeout"),
        "{:?}",
        p.themes[1].terms
    );
    let md = p.to_markdown();
    assert!(
        md.starts_with(&format!(
            "**Theme 1: {}**\n- [Inside the Tokio scheduler]",
            p.themes[0].label
        )),
        "{md}"
    );
}

#[test]
fn results_that_share_nothing_with_the_others_are_other_results() {
    let mut results = themed_results();
    results.push(simple(
        8,
        "Bread baking at home",
        "Flour, water and a sourdough starter.",
    ));
    let p = present_all("tokio", &results);
    let other = p.themes.last().expect("themes");
    assert!(other.other);
    assert_eq!(other.ranks, vec![9]);
    assert!(
        p.to_markdown()
            .contains("**Other results**\n- [Bread baking at home]")
    );
}

#[test]
fn more_than_fifteen_results_give_themes_and_the_top_five() {
    let results = interleaved(8);
    let p = present_all("tokio", &results);
    assert_eq!(p.layout, Layout::Overview);
    assert_eq!(p.top, vec![1, 2, 3, 4, 5]);
    assert_eq!(p.results.len(), 16);
    let md = p.to_markdown();
    assert!(md.starts_with("16 results from brave in 2 themes."), "{md}");
    assert!(
        md.contains("**Top 5:**\n1. [Inside the Tokio scheduler]"),
        "{md}"
    );
    assert!(
        md.ends_with("Found 16 results covering brave. Which aspect should be explored further?\n"),
        "{md}"
    );
    assert!(
        md.contains("— 8 results (#1, #3, #5, #7, #9, #11, #13, #15)"),
        "{md}"
    );
}

#[test]
fn opposite_claims_are_flagged_as_a_conflict() {
    let results = vec![
        simple(
            0,
            "Bun supports Windows",
            "Bun now supports Windows natively.",
        ),
        simple(
            1,
            "Bun on Windows",
            "Bun does not support Windows yet; use WSL.",
        ),
        simple(2, "Bun install speed", "Installing packages is quick."),
    ];
    let p = present_all("bun windows", &results);
    assert_eq!(p.conflicts.len(), 1, "{:#?}", p.conflicts);
    let c = &p.conflicts[0];
    assert_eq!(c.kind, ConflictKind::Disagreement);
    assert_eq!(c.ranks, vec![1, 2]);
    assert!(c.reason.starts_with("negated"), "{}", c.reason);
    assert_eq!(c.quotes[0].rank, 1);
    assert_eq!(c.quotes[1].rank, 2);
    assert!(
        c.quotes[1].text.contains("does not support Windows"),
        "{:?}",
        c.quotes
    );
    assert_eq!(p.results[0].flags, vec![CONFLICT_FLAG]);
    assert!(p.results[2].flags.is_empty());
}

#[test]
fn antonyms_about_the_same_subject_are_a_conflict() {
    let results = vec![
        simple(
            0,
            "Rust 1.80 compile times",
            "Incremental builds are faster than before.",
        ),
        simple(
            1,
            "Compile time regression",
            "Incremental builds are slower than before.",
        ),
    ];
    let p = present_all("rust compile times", &results);
    assert_eq!(p.conflicts.len(), 1);
    assert!(
        p.conflicts[0].reason.starts_with("reversed"),
        "{}",
        p.conflicts[0].reason
    );
    let quotes: Vec<&str> = p.conflicts[0]
        .quotes
        .iter()
        .map(|q| q.text.as_str())
        .collect();
    assert!(
        quotes.iter().any(|q| q.contains("faster")) && quotes.iter().any(|q| q.contains("slower")),
        "{quotes:?}"
    );
}

#[test]
fn a_denial_about_another_subject_is_no_conflict() {
    let results = vec![
        simple(0, "Deno and npm", "Deno does not use npm by default."),
        simple(1, "Bun and npm", "Bun uses npm packages directly."),
    ];
    let p = present_all("npm support", &results);
    assert!(p.conflicts.is_empty(), "{:#?}", p.conflicts);
}

#[test]
fn sources_that_agree_are_never_flagged() {
    let results = vec![
        simple(0, "Bun and Windows", "Bun now supports Windows natively."),
        simple(
            1,
            "Bun 1.1 release",
            "Bun 1.1 supports Windows natively, the team said.",
        ),
        simple(2, "Cargo", "Cargo does not verify checksums of crates."),
        simple(
            3,
            "Cargo myths",
            "Cargo never verifies checksums of crates.",
        ),
        simple(
            4,
            "Tariffs",
            "The tariffs on $156 billion of goods take effect on Dec. 15.",
        ),
        simple(
            5,
            "Trade",
            "Tariffs on some $156 billion in goods take effect on Dec. 15, officials said.",
        ),
    ];
    let p = present_all("agreement", &results);
    assert!(p.conflicts.is_empty(), "{:#?}", p.conflicts);
}

#[test]
fn a_different_number_is_a_conflict_between_the_two_passages() {
    let results = vec![
        simple(
            0,
            "Tariffs",
            "The tariffs take effect on Dec. 15. They cover $156 billion of goods.",
        ),
        simple(
            1,
            "Trade war",
            "New tariffs take effect on Dec. 1, officials said.",
        ),
    ];
    let p = present_all("tariffs", &results);
    assert_eq!(p.conflicts.len(), 1, "{:#?}", p.conflicts);
    let c = &p.conflicts[0];
    assert!(c.reason.starts_with("date_mismatch"), "{}", c.reason);
    let texts: Vec<&str> = c.quotes.iter().map(|q| q.text.as_str()).collect();
    assert!(
        texts.iter().any(|t| t.contains("Dec. 15")) && texts.iter().any(|t| t.contains("Dec. 1,")),
        "{texts:?}"
    );
}

#[test]
fn a_tier_one_source_against_two_lower_tiers_is_kept_and_flagged() {
    let results = vec![
        result(
            "https://www.reddit.com/r/rust/1",
            "Cargo lockfiles",
            "Cargo does not verify checksums of crates.",
            &["brave"],
            0.9,
        ),
        result(
            "https://doc.rust-lang.org/cargo/",
            "Cargo reference",
            "Cargo verifies checksums of crates from the lockfile.",
            &["exa"],
            0.8,
        ),
        result(
            "https://medium.com/@x/cargo",
            "Cargo security myths",
            "Cargo never verifies checksums of crates.",
            &["brave"],
            0.7,
        ),
    ];
    let p = present_all("cargo checksums", &results);
    assert_eq!(p.results[1].source_tier, SourceTier::T1);
    assert_eq!(p.conflicts.len(), 1, "{:#?}", p.conflicts);
    let c = &p.conflicts[0];
    assert_eq!(c.kind, ConflictKind::TierOneVsCommunity);
    assert_eq!(c.flag, T1_VS_COMMUNITY_FLAG);
    assert_eq!(c.ranks, vec![2, 1, 3]);
    assert_eq!(c.kept_rank, Some(2));
    assert!(
        p.results
            .iter()
            .all(|r| r.flags == vec![T1_VS_COMMUNITY_FLAG])
    );
    assert!(
        p.to_markdown()
            .contains("#2 [Cargo reference](https://doc.rust-lang.org/cargo/) (T1, kept)")
    );
}

#[test]
fn two_tier_one_sources_disagreeing_are_a_plain_conflict() {
    let results = vec![
        result(
            "https://docs.python.org/3/x",
            "asyncio",
            "asyncio supports subinterpreters.",
            &["brave"],
            0.9,
        ),
        result(
            "https://peps.python.org/pep-9999/",
            "PEP",
            "asyncio does not support subinterpreters.",
            &["brave"],
            0.8,
        ),
    ];
    let p = present_all("asyncio subinterpreters", &results);
    assert_eq!(p.conflicts.len(), 1);
    assert_eq!(p.conflicts[0].flag, CONFLICT_FLAG);
    assert_eq!(p.conflicts[0].kept_rank, None);
}

#[test]
fn snippets_are_cut_at_a_word_boundary() {
    let long = "word ".repeat(100);
    let p = present_all("q", &[simple(0, "T", &long)]);
    let snippet = &p.results[0].snippet;
    assert!(snippet.ends_with("word…"), "{snippet}");
    assert!(snippet.chars().count() <= 161);
}

#[test]
fn markdown_escapes_link_text_and_urls() {
    let mut r = simple(0, "[RFC] Async (draft)", "s");
    r.original_url = "https://example.com/a (b)".into();
    let md = present_all("q", &[r]).to_markdown();
    assert!(
        md.starts_with("1. [\\[RFC\\] Async (draft)](https://example.com/a%20%28b%29)"),
        "{md}"
    );
}

#[test]
fn a_search_response_is_presented_as_the_envelope() {
    // Only the envelope's required fields: the rest take their defaults.
    let response: SearchResponse = serde_json::from_value(serde_json::json!({
        "schema": "ferret.search.v1",
        "query": "tokio",
        "intent": Intent::Exploratory,
        "mode": Mode::Deep,
        "sub_queries": ["tokio"],
        "results": themed_results(),
        "engines": [],
        "evidence_policy": "snippets-are-not-final-evidence",
        "elapsed_ms": 5,
    }))
    .expect("a search envelope");
    let p = present(&response, &PresentOptions::default()).expect("present");
    let json = serde_json::to_value(&p).expect("serialise");
    assert_eq!(json["schema"], "ferret.presentation.v1");
    assert_eq!(json["layout"], "themes");
    assert_eq!(json["query"], "tokio");
    assert_eq!(json["results"][0]["source_tier"], "T4");
    let back: Presentation = serde_json::from_value(json).expect("deserialise");
    assert_eq!(back, p);
}

#[test]
fn inconsistent_options_are_refused() {
    let options = PresentOptions {
        list_max: 10,
        themes_max: 5,
        ..PresentOptions::default()
    };
    let err = present_results("q", &[], &options).unwrap_err();
    assert_eq!(err.name, "themes_max");
}
