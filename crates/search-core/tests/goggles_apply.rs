//! Applying a goggle to fused results: FinalScore (−position + goggle
//! weight + source weight), ties, discards kept aside, `[low source quality]`,
//! the conflict flags, and the goggle option of the search pipeline.

use chrono::{TimeZone, Utc};
use ferret_core::Runtime;
use ferret_core::fanout::Fanout;
use ferret_core::goggles::conflict::{Claim, Disagreement};
use ferret_core::goggles::{
    Applied, FLAG_CONFLICT, FLAG_LOW_SOURCE_QUALITY, FLAG_T1_VS_COMMUNITY, Goggle, SourceTier,
    Verdict, apply, goggle_weight,
};
use ferret_core::search::{SearchOptions, Searcher};
use ferret_core::testing::StaticEngine;
use ferret_core::{EngineHit, Provenance, Scores, SearchResponse, SearchResult};

const HEADER: &str =
    "! name: test\n! description: a test goggle\n! public: false\n! author: tests\n";

fn goggle(body: &str) -> Goggle {
    Goggle::parse(&format!("{HEADER}{body}")).unwrap_or_else(|e| panic!("{body:?}: {e}"))
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

fn urls(applied: &Applied) -> Vec<&str> {
    applied.results.iter().map(|r| r.url.as_str()).collect()
}

fn by_url<'a>(applied: &'a Applied, url: &str) -> &'a SearchResult {
    applied
        .results
        .iter()
        .find(|r| r.url == url)
        .unwrap_or_else(|| panic!("{url} not in results"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

// --- weights and tiers -------------------------------------------------------------------

#[test]
fn goggle_weights_follow_the_source_table_scaled_by_strength() {
    assert_eq!(goggle_weight(&Verdict::Neutral), 0.0);
    assert_eq!(
        goggle_weight(&Verdict::Boost {
            strength: 1,
            rule: 0
        }),
        2.0
    );
    assert_eq!(
        goggle_weight(&Verdict::Boost {
            strength: 3,
            rule: 0
        }),
        6.0
    );
    assert_eq!(
        goggle_weight(&Verdict::Downrank {
            strength: 1,
            rule: 0
        }),
        -1.0
    );
    assert_eq!(
        goggle_weight(&Verdict::Downrank {
            strength: 4,
            rule: 0
        }),
        -4.0
    );
    assert_eq!(
        goggle_weight(&Verdict::Discard { rule: 0 }),
        f64::NEG_INFINITY
    );
}

#[test]
fn source_tiers_come_from_the_authority_table() {
    for (url, tier) in [
        ("https://github.com/x", SourceTier::T1),
        ("https://docs.python.org/3/", SourceTier::T1),
        ("https://docs.example.org/guide", SourceTier::T1),
        ("https://www.reddit.com/r/rust", SourceTier::T2),
        ("https://cs.mit.edu/x", SourceTier::T2),
        ("https://medium.com/@me/x", SourceTier::T3),
        ("https://me.github.io/x", SourceTier::T3),
        ("https://blog.example.org/x", SourceTier::T3),
        ("https://example.com/x", SourceTier::T4),
    ] {
        assert_eq!(SourceTier::of_url(url), tier, "{url}");
    }
    let weights: Vec<f64> = [
        SourceTier::T1,
        SourceTier::T2,
        SourceTier::T3,
        SourceTier::T4,
    ]
    .iter()
    .map(|t| t.weight())
    .collect();
    assert_eq!(weights, [10.0, 3.0, 1.0, 0.1]);
}

// --- FinalScore ---------------------------------------------------------------------------

#[test]
fn final_score_is_minus_position_plus_goggle_plus_source_weight() {
    let g =
        goggle("$boost,site=a.example\n$downrank=4,site=medium.com\n$boost=3,site=reddit.com\n");
    let mut fused = vec![
        result("https://a.example/x", "alpha one"),
        result("https://github.com/x", "beta two"),
        result("https://medium.com/x", "gamma three"),
        result("https://www.reddit.com/r/x", "delta four"),
    ];
    fused[2].scores.rrf = 0.25;
    fused[2].scores.authority = 0.6;
    let applied = apply(&g, fused);
    assert_eq!(
        urls(&applied),
        [
            "https://github.com/x",
            "https://www.reddit.com/r/x",
            "https://a.example/x",
            "https://medium.com/x"
        ]
    );
    let expect = [
        ("https://a.example/x", 2.0, -1.0 + 2.0 + 0.1),
        ("https://github.com/x", 0.0, -2.0 + 10.0),
        ("https://medium.com/x", -4.0, -3.0 - 4.0 + 1.0),
        ("https://www.reddit.com/r/x", 6.0, -4.0 + 6.0 + 3.0),
    ];
    for (url, weight, score) in expect {
        let r = by_url(&applied, url);
        assert_eq!(r.scores.goggle, Some(weight), "{url}");
        assert!(
            close(r.scores.final_score, score),
            "{url}: {}",
            r.scores.final_score
        );
    }
    // Every other component is kept.
    let medium = by_url(&applied, "https://medium.com/x");
    assert_eq!((medium.scores.rrf, medium.scores.authority), (0.25, 0.6));
    assert!(applied.discarded.is_empty());
    assert!(applied.warnings.is_empty());
}

#[test]
fn equal_final_scores_keep_the_original_rank() {
    // Position 1 downranked (−1 − 1 + 0.1) ties position 2 (−2 + 0.1).
    let g = goggle("$downrank,site=first.example\n");
    let applied = apply(
        &g,
        vec![
            result("https://first.example/", "alpha one"),
            result("https://second.example/", "beta two"),
            result("https://third.example/", "gamma three"),
        ],
    );
    assert_eq!(
        urls(&applied),
        [
            "https://first.example/",
            "https://second.example/",
            "https://third.example/"
        ]
    );
    assert_eq!(
        applied.results[0].scores.final_score,
        applied.results[1].scores.final_score
    );
}

#[test]
fn a_neutral_goggle_keeps_the_fused_order_within_a_tier() {
    let g = goggle("$boost,site=unrelated.example\n");
    let fused: Vec<SearchResult> = (1..=5)
        .map(|i| {
            result(
                &format!("https://site{i}.example/"),
                &format!("word{i} term{i}"),
            )
        })
        .collect();
    let applied = apply(&g, fused.clone());
    let want: Vec<&str> = fused.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls(&applied), want);
    assert!(applied.results.iter().all(|r| r.scores.goggle == Some(0.0)));
}

// --- discards ----------------------------------------------------------------------------

#[test]
fn discarded_results_leave_the_results_but_are_listed_with_their_rule() {
    let g = goggle("$boost,site=keep.example\n/ads/$discard\n");
    let applied = apply(
        &g,
        vec![
            result("https://spam.example/ads/1", "alpha one"),
            result("https://keep.example/", "beta two"),
        ],
    );
    assert_eq!(urls(&applied), ["https://keep.example/"]);
    assert_eq!(applied.discarded.len(), 1);
    let d = &applied.discarded[0];
    assert_eq!(d.result.url, "https://spam.example/ads/1");
    assert_eq!((d.position, d.line), (1, 6));
    assert_eq!(d.instruction, "/ads/$discard");
    assert_eq!(d.result.scores.goggle, None);
    assert!(d.result.flags.is_empty(), "{:?}", d.result.flags);
    assert!(
        applied
            .warnings
            .iter()
            .any(|w| w.contains("discarded 1 result")),
        "{:?}",
        applied.warnings
    );
}

#[test]
fn a_generic_discard_names_itself_as_the_rule() {
    let g = goggle("$discard\n$boost,site=keep.example\n");
    let applied = apply(
        &g,
        vec![
            result("https://other.example/", "alpha one"),
            result("https://keep.example/", "beta two"),
        ],
    );
    assert_eq!(urls(&applied), ["https://keep.example/"]);
    assert_eq!(applied.discarded[0].instruction, "$discard");
    assert_eq!(applied.discarded[0].line, 5);
}

#[test]
fn when_only_discarded_sources_remain_they_are_flagged_low_quality() {
    let applied = apply(
        &Goggle::builtin("zh-tech").unwrap(),
        vec![
            result("https://www.toutiao.com/a/1", "Rust 异步"),
            result("https://www.360doc.com/content/1.shtml", "Rust 异步"),
        ],
    );
    assert!(applied.results.is_empty());
    assert_eq!(applied.discarded.len(), 2);
    for d in &applied.discarded {
        assert_eq!(d.result.flags, [FLAG_LOW_SOURCE_QUALITY]);
    }
    assert!(
        applied
            .warnings
            .iter()
            .any(|w| w.starts_with(FLAG_LOW_SOURCE_QUALITY)),
        "{:?}",
        applied.warnings
    );
}

// --- conflicts ------------------------------------------------------------------------------

const T1_SAYS: &str = "Python asyncio supports structured concurrency with TaskGroup";
const T2_DENIES: &str = "Python asyncio does not support structured concurrency";
const T2_DENIES_TOO: &str = "Python asyncio doesn't support structured concurrency";
const T1_URL: &str = "https://docs.python.org/3/library/asyncio-task.html";

/// Unrelated filler results, so the T1 result sits at a low position.
fn fillers(n: usize) -> Vec<SearchResult> {
    (0..n)
        .map(|i| {
            result(
                &format!("https://filler{i}.example/"),
                &format!("unrelated{i} subject{i}"),
            )
        })
        .collect()
}

#[test]
fn a_t1_result_contradicted_by_two_t2_results_is_kept_first_and_flagged() {
    let mut fused = vec![
        result("https://www.reddit.com/r/python/1", T2_DENIES),
        result("https://news.ycombinator.com/item?id=1", T2_DENIES_TOO),
    ];
    fused.extend(fillers(9));
    fused.push(result(T1_URL, T1_SAYS));
    let applied = apply(&goggle("$boost,site=unrelated.example\n"), fused);
    assert_eq!(applied.results[0].url, T1_URL);
    assert_eq!(applied.results[0].flags, [FLAG_T1_VS_COMMUNITY]);
    for url in [
        "https://www.reddit.com/r/python/1",
        "https://news.ycombinator.com/item?id=1",
    ] {
        assert_eq!(by_url(&applied, url).flags, [FLAG_T1_VS_COMMUNITY], "{url}");
    }
    // The order still follows `final`.
    assert!(
        applied
            .results
            .windows(2)
            .all(|w| w[0].scores.final_score >= w[1].scores.final_score)
    );
    assert!(applied.results[5].flags.is_empty());
}

#[test]
fn one_contradicting_t2_result_loses_to_t1_without_a_flag() {
    let mut fused = vec![result("https://www.reddit.com/r/python/1", T2_DENIES)];
    fused.extend(fillers(10));
    fused.push(result(T1_URL, T1_SAYS));
    let applied = apply(&goggle("$boost,site=unrelated.example\n"), fused);
    assert_eq!(applied.results[0].url, T1_URL);
    assert!(applied.results.iter().all(|r| r.flags.is_empty()));
}

#[test]
fn a_t1_result_beats_any_number_of_lower_tier_results() {
    let mut fused: Vec<SearchResult> = (0..4)
        .map(|i| result(&format!("https://blog{i}.example/post"), T2_DENIES))
        .collect();
    fused.push(result("https://medium.com/@x/post", T2_DENIES_TOO));
    fused.extend(fillers(10));
    fused.push(result(T1_URL, T1_SAYS));
    let g = goggle("$boost=10,site=blog0.example\n");
    let applied = apply(&g, fused);
    assert_eq!(applied.results[0].url, T1_URL);
    assert!(applied.results.iter().all(|r| r.flags.is_empty()));
}

#[test]
fn two_disagreeing_t1_results_are_both_flagged_as_a_conflict() {
    let applied = apply(
        &goggle("$boost,site=unrelated.example\n"),
        vec![
            result(T1_URL, T1_SAYS),
            result("https://github.com/python/cpython/issues/1", T2_DENIES),
            result("https://example.com/x", "unrelated words here"),
        ],
    );
    assert_eq!(by_url(&applied, T1_URL).flags, [FLAG_CONFLICT]);
    assert_eq!(
        by_url(&applied, "https://github.com/python/cpython/issues/1").flags,
        [FLAG_CONFLICT]
    );
    assert!(by_url(&applied, "https://example.com/x").flags.is_empty());
}

#[test]
fn agreeing_results_are_neither_flagged_nor_moved() {
    let mut fused = vec![result(
        "https://www.reddit.com/r/python/1",
        "Python asyncio supports structured concurrency well",
    )];
    fused.extend(fillers(10));
    fused.push(result(T1_URL, T1_SAYS));
    let applied = apply(&goggle("$boost,site=unrelated.example\n"), fused);
    assert_eq!(applied.results[0].url, "https://www.reddit.com/r/python/1");
    assert!(applied.results.iter().all(|r| r.flags.is_empty()));
}

#[test]
fn negation_disagrees_only_about_the_same_subject() {
    let a = Claim::new("Python supports tail call optimization", "");
    let b = Claim::new("Python does not support tail call optimization", "");
    assert_eq!(a.disagrees_with(&b), Some(Disagreement::Polarity));
    let other = Claim::new("Go does not have generics before 1.18", "");
    assert_eq!(a.disagrees_with(&other), None);
    let cjk_yes = Claim::new("Python 支持尾递归优化", "");
    let cjk_no = Claim::new("Python 不支持尾递归优化", "");
    assert!(cjk_no.is_negated() && !cjk_yes.is_negated());
    assert_eq!(
        cjk_yes.disagrees_with(&cjk_no),
        Some(Disagreement::Polarity)
    );
}

#[test]
fn different_numbers_for_the_same_quantity_disagree() {
    let a = Claim::new("Default timeout is 30 seconds", "");
    let b = Claim::new("Default timeout is 60 seconds", "");
    assert!(matches!(
        a.disagrees_with(&b),
        Some(Disagreement::Numbers { ref key, .. }) if key == "timeout"
    ));
    let same = Claim::new("Default timeout is 30 seconds", "set it in config");
    assert_eq!(a.disagrees_with(&same), None);
    let a = Claim::new(
        "Tokio default worker threads",
        "worker threads = 4 by default",
    );
    let b = Claim::new(
        "Tokio default worker threads",
        "worker threads = 8 on this machine",
    );
    assert!(a.disagrees_with(&b).is_some());
    let a = Claim::new("Redis 默认超时", "默认超时为30秒");
    let b = Claim::new("Redis 默认超时", "默认超时为0秒");
    assert!(matches!(
        a.disagrees_with(&b),
        Some(Disagreement::Numbers { .. })
    ));
}

#[test]
fn version_numbers_alone_are_not_a_disagreement() {
    let a = Claim::new("Rust 1.75 release notes", "");
    let b = Claim::new("Rust 1.74 release notes", "");
    assert!(a.same_subject(&b));
    assert_eq!(a.disagrees_with(&b), None);
}

// --- the search pipeline -------------------------------------------------------------------

fn hits() -> Vec<EngineHit> {
    vec![
        EngineHit::new(
            1,
            "https://www.toutiao.com/article/7/",
            "Rust 异步运行时",
            "toutiao",
        ),
        EngineHit::new(
            2,
            "https://example.com/rust-async",
            "Rust async runtimes compared",
            "x",
        ),
        EngineHit::new(
            3,
            "https://medium.com/@me/rust-async",
            "Rust async on Medium",
            "y",
        ),
        EngineHit::new(
            4,
            "https://github.com/tokio-rs/tokio",
            "tokio-rs/tokio",
            "z",
        ),
        EngineHit::new(
            5,
            "https://www.360doc.com/content/1.shtml",
            "Rust 异步",
            "farm",
        ),
    ]
}

async fn search(hits: Vec<EngineHit>, options: SearchOptions) -> SearchResponse {
    let fanout = Fanout::builder()
        .engine(StaticEngine::with_hits("brave", hits))
        .build()
        .unwrap();
    Searcher::builder()
        .fanout(fanout)
        .build()
        .search("rust async runtime", &options)
        .await
        .unwrap()
}

fn options() -> SearchOptions {
    SearchOptions::new()
        .with_now(Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap())
        .with_sub_queries(["rust async runtime"])
}

#[tokio::test]
async fn the_search_pipeline_applies_a_goggle_after_fusion() {
    let general = Goggle::builtin("general-tech").unwrap();
    let response = search(hits(), options().with_goggle(general)).await;
    assert_eq!(response.goggle.as_deref(), Some("general-tech"));
    assert_eq!(response.results[0].url, "https://github.com/tokio-rs/tokio");
    let discarded: Vec<&str> = response
        .discarded
        .iter()
        .map(|d| d.result.original_url.as_str())
        .collect();
    assert_eq!(discarded.len(), 2, "{discarded:?}");
    assert!(discarded.iter().any(|u| u.contains("toutiao.com")));
    assert!(discarded.iter().any(|u| u.contains("360doc.com")));
    assert!(response.results.iter().all(|r| !r.url.contains("toutiao")));
    assert!(response.results.iter().all(|r| r.scores.goggle.is_some()));
    assert!(
        response
            .results
            .windows(2)
            .all(|w| w[0].scores.final_score >= w[1].scores.final_score)
    );
    assert!(
        response
            .warnings
            .iter()
            .any(|w| w.contains("discarded 2 results"))
    );

    let json = serde_json::to_value(&response).unwrap();
    assert_eq!(json["goggle"], "general-tech");
    assert_eq!(json["discarded"].as_array().unwrap().len(), 2);
    let back: SearchResponse = serde_json::from_value(json).unwrap();
    assert_eq!(back, response);
}

#[tokio::test]
async fn the_limit_applies_after_the_goggle() {
    let general = Goggle::builtin("general-tech").unwrap();
    let response = search(hits(), options().with_goggle(general).with_limit(1)).await;
    assert_eq!(response.results.len(), 1);
    assert_eq!(response.results[0].url, "https://github.com/tokio-rs/tokio");
    assert_eq!(response.discarded.len(), 2);
}

#[tokio::test]
async fn without_a_goggle_nothing_is_discarded_or_weighted() {
    let response = search(hits(), options()).await;
    assert_eq!(response.goggle, None);
    assert!(response.discarded.is_empty());
    assert_eq!(response.results.len(), 5);
    assert!(response.results.iter().all(|r| r.scores.goggle.is_none()));
    let json = serde_json::to_value(&response).unwrap();
    assert!(json.get("discarded").is_none() && json.get("goggle").is_none());
}

#[tokio::test]
async fn a_search_whose_sources_are_all_discarded_says_so() {
    let farm = vec![
        EngineHit::new(1, "https://www.toutiao.com/article/7/", "Rust 异步", "a"),
        EngineHit::new(
            2,
            "https://www.360doc.com/content/1.shtml",
            "Rust 运行时",
            "b",
        ),
    ];
    let zh = Goggle::builtin("zh-tech").unwrap();
    let response = search(farm, options().with_goggle(zh)).await;
    assert!(response.results.is_empty());
    assert_eq!(response.discarded.len(), 2);
    assert!(
        response.discarded.iter().all(|d| d
            .result
            .flags
            .iter()
            .any(|f| f == FLAG_LOW_SOURCE_QUALITY))
    );
    assert!(
        response
            .warnings
            .iter()
            .any(|w| w.starts_with(FLAG_LOW_SOURCE_QUALITY))
    );
}
