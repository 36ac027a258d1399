//! `fuse` through its public API: canonical merging, weighted RRF computed by
//! hand, the intent and final scores, tie-breaks, provenance, unresolvable
//! hits and near-duplicate clusters.

use ferret_core::Runtime;
use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};
use ferret_core::authority::AuthorityRule;
use ferret_core::fusion::{EngineWeights, Fused, FusionOptions, fuse};
use ferret_core::near_dup::{Fingerprint, NearDupOptions};
use ferret_core::{EngineCall, EngineHit, EngineResponse, Provenance, Weights};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap()
}

fn opts(query: &str) -> FusionOptions {
    FusionOptions::new(query).with_now(now())
}

fn hit(rank: u32, url: &str, title: &str, snippet: &str) -> EngineHit {
    EngineHit::new(rank, url, title, snippet)
}

/// Hits ranked 1.. in the order given, with distinct short texts.
fn ranked(urls: &[&str]) -> Vec<EngineHit> {
    urls.iter()
        .enumerate()
        .map(|(i, u)| hit(i as u32 + 1, u, &format!("title {u}"), "snippet"))
        .collect()
}

fn call(engine: &str, sub_query: &str, hits: Vec<EngineHit>) -> EngineCall {
    EngineCall {
        engine: engine.to_string(),
        sub_query: sub_query.to_string(),
        sub_query_index: 0,
        response: EngineResponse::new(Provenance::public(Runtime::Http), hits),
    }
}

fn login_call(engine: &str, hits: Vec<EngineHit>, merge_ok: bool) -> EngineCall {
    let mut c = call(engine, "q", hits);
    c.response.provenance = Provenance::login(Runtime::ChromiumAttached);
    c.response.provenance.merge_with_public_ok = merge_ok;
    c
}

fn rrf_of(f: &Fused, url: &str) -> f64 {
    f.results
        .iter()
        .find(|r| r.url == url)
        .unwrap_or_else(|| panic!("{url} not in results"))
        .scores
        .rrf
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

// ---------------------------------------------------------------- RRF

#[test]
fn weighted_rrf_matches_the_formula_by_hand() {
    let calls = [
        call(
            "brave",
            "q",
            ranked(&[
                "https://a.example/",
                "https://b.example/",
                "https://c.example/",
            ]),
        ),
        call(
            "wikipedia",
            "q",
            ranked(&["https://b.example/", "https://a.example/"]),
        ),
    ];
    let f = fuse(&calls, &opts("q"));
    assert!(close(
        rrf_of(&f, "https://a.example"),
        1.0 / 61.0 + 1.4 / 62.0
    ));
    assert!(close(
        rrf_of(&f, "https://b.example"),
        1.0 / 62.0 + 1.4 / 61.0
    ));
    assert!(close(rrf_of(&f, "https://c.example"), 1.0 / 63.0));
    assert!(close(f.stats.rrf_max, 1.0 / 62.0 + 1.4 / 61.0));
}

#[test]
fn each_engine_and_sub_query_pair_counts_its_best_rank_once() {
    let calls = [
        // The same URL twice in one answer: only rank 2 counts.
        call(
            "brave",
            "q1",
            ranked(&[
                "https://x.example/1",
                "https://a.example/",
                "https://x.example/2",
                "http://www.a.example",
            ]),
        ),
        // The same engine on another sub-query counts again.
        call(
            "brave",
            "q2",
            ranked(&[
                "https://x.example/3",
                "https://x.example/4",
                "https://a.example",
            ]),
        ),
    ];
    let f = fuse(&calls, &opts("q"));
    assert!(close(
        rrf_of(&f, "https://a.example"),
        1.0 / 62.0 + 1.0 / 63.0
    ));
    let a = f
        .results
        .iter()
        .find(|r| r.url == "https://a.example")
        .unwrap();
    assert_eq!(a.sources.len(), 3, "every source hit is kept");
}

#[test]
fn k_and_engine_weights_are_configurable() {
    let calls = [call("brave", "q", ranked(&["https://a.example/"]))];
    let o = opts("q")
        .with_rrf_k(10.0)
        .with_engine_weights(EngineWeights::new().with("Brave", 2.0));
    let f = fuse(&calls, &o);
    assert!(close(rrf_of(&f, "https://a.example"), 2.0 / 11.0));
}

#[test]
fn default_engine_weights_follow_argo() {
    let w = EngineWeights::new();
    for (engine, weight) in [
        ("wikipedia", 1.4),
        ("wikipedia-zh", 1.4),
        ("arxiv", 1.3),
        ("semantic_scholar", 1.3),
        ("github", 1.2),
        ("pypi", 1.2),
        ("npm", 1.2),
        ("crates_io", 1.2),
        ("mdn", 1.2),
        ("stackoverflow", 1.1),
        ("brave", 1.0),
        ("exa", 1.0),
        ("hacker_news", 0.8),
        ("zhihu", 0.8),
        ("v2ex", 0.8),
        ("twitter", 0.7),
        ("reddit", 0.7),
        ("bilibili", 0.7),
        ("weibo", 0.7),
        ("xiaohongshu", 0.7),
    ] {
        assert_eq!(w.weight(engine), weight, "{engine}");
    }
    assert_eq!(w.clone().with("wikipedia", 0.5).weight("Wikipedia"), 0.5);
}

#[test]
fn bad_options_are_replaced_and_reported() {
    let calls = [call("brave", "q", ranked(&["https://a.example/"]))];
    let o = opts("q").with_rrf_k(0.0).with_rank_share(3.0);
    let f = fuse(&calls, &o);
    assert_eq!(f.warnings.len(), 2, "{:?}", f.warnings);
    assert!(f.warnings[0].contains("rrf_k"));
    assert!(close(rrf_of(&f, "https://a.example"), 1.0 / 61.0));
}

// ---------------------------------------------------------------- merging

#[test]
fn url_variants_merge_into_one_result_with_every_source() {
    let mut dated = hit(
        3,
        "http://www.example.com/post?utm_source=feed&utm_medium=rss",
        "Post",
        "A much longer snippet about the post",
    );
    dated.published_at = Some("2 days ago".into());
    let calls = [
        call(
            "brave",
            "q",
            vec![hit(
                2,
                "https://example.com/post/",
                "The full post title",
                "short",
            )],
        ),
        call(
            "exa",
            "q",
            vec![hit(
                1,
                "https://example.com/post#comments",
                "Post",
                "snippet",
            )],
        ),
        call("tavily", "q", vec![dated]),
    ];
    let f = fuse(&calls, &opts("q"));
    assert_eq!(f.results.len(), 1);
    let r = &f.results[0];
    assert_eq!(r.url, "https://example.com/post");
    assert_eq!(
        r.original_url, "https://example.com/post#comments",
        "best-ranked hit's URL"
    );
    assert_eq!(r.title, "The full post title");
    assert_eq!(r.snippet, "A much longer snippet about the post");
    assert_eq!(r.published_at.as_deref(), Some("2026-06-13T12:00:00Z"));
    assert_eq!(r.domain, "example.com");
    let engines: Vec<(&str, u32)> = r.sources.iter().map(|s| (&*s.engine, s.rank)).collect();
    assert_eq!(engines, [("exa", 1), ("brave", 2), ("tavily", 3)]);
    assert_eq!(r.consensus_engines(), ["exa", "brave", "tavily"]);
}

#[test]
fn hits_without_a_canonical_form_are_reported_not_dropped() {
    let calls = [call(
        "brave",
        "q",
        vec![
            hit(1, "not a url", "t", "s"),
            hit(2, "https://ok.example/", "t", "s"),
            hit(3, "ftp://files.example/x", "t", "s"),
            hit(4, "", "t", "s"),
        ],
    )];
    let f = fuse(&calls, &opts("q"));
    assert_eq!(f.results.len(), 1);
    let bad: Vec<(&str, usize)> = f
        .unresolvable
        .iter()
        .map(|u| (u.url.as_str(), u.index))
        .collect();
    assert_eq!(
        bad,
        [("not a url", 0), ("ftp://files.example/x", 2), ("", 3)]
    );
    assert!(
        f.unresolvable[1].reason.contains("ftp"),
        "{}",
        f.unresolvable[1].reason
    );
    let row = f.unresolvable[0].to_dropped_row();
    assert_eq!((row.index, row.engine.as_deref()), (0, Some("brave")));
    assert_eq!(f.stats.input_hits, 4);
}

#[test]
fn no_calls_give_no_results() {
    let f = fuse(&[], &opts("anything"));
    assert!(f.results.is_empty() && f.unresolvable.is_empty());
}

// ---------------------------------------------------------------- scores

#[test]
fn keyword_is_the_share_of_query_terms_found_including_cjk() {
    let calls = [call(
        "brave",
        "q",
        vec![
            hit(1, "https://a.example/", "Rust 异步编程指南", "tokio"),
            hit(2, "https://b.example/", "Rust basics", "nothing else"),
        ],
    )];
    // Terms: rust, 异步, 步编, 编程.
    let f = fuse(&calls, &opts("Rust 异步编程"));
    let kw = |u: &str| {
        f.results
            .iter()
            .find(|r| r.url == u)
            .unwrap()
            .scores
            .keyword
    };
    assert_eq!(kw("https://a.example"), 1.0);
    assert_eq!(kw("https://b.example"), 0.25);
    let basis = f.results[0].score_basis.as_ref().unwrap();
    assert_eq!((basis.keyword_terms_found, basis.keyword_terms), (4, 4));
}

#[test]
fn final_score_is_half_normalised_rrf_and_half_intent() {
    let mut dated = hit(
        1,
        "https://en.wikipedia.org/wiki/Rust",
        "Rust (programming language)",
        "Rust is a language",
    );
    dated.published_at = Some("2026-06-10".into());
    let calls = [call(
        "brave",
        "q",
        vec![
            dated,
            hit(2, "https://blog.example.com/rust", "Learning Go", "a post"),
        ],
    )];
    let weights = Weights::new(0.4, 0.1, 0.5); // factual
    let f = fuse(
        &calls,
        &opts("rust language")
            .with_weights(weights)
            .with_near_dup(None),
    );
    let top = &f.results[0];
    assert_eq!(top.url, "https://en.wikipedia.org/wiki/Rust");
    let s = top.scores;
    assert_eq!((s.keyword, s.freshness, s.authority), (1.0, 0.9, 1.0));
    assert!(close(s.intent, 0.4 * 1.0 + 0.1 * 0.9 + 0.5 * 1.0));
    assert!(close(s.final_score, 0.5 * 1.0 + 0.5 * s.intent));

    let second = &f.results[1];
    let s2 = second.scores;
    // No term found, no date or year, blog.* pattern.
    assert_eq!((s2.keyword, s2.freshness, s2.authority), (0.0, 0.5, 0.6));
    assert!(close(
        s2.final_score,
        0.5 * (61.0 / 62.0) + 0.5 * (0.1 * 0.5 + 0.5 * 0.6)
    ));
    let basis = second.score_basis.as_ref().unwrap();
    assert_eq!(
        basis.authority_rule,
        AuthorityRule::Pattern {
            pattern: "blog.*".into()
        }
    );
}

#[test]
fn domain_boost_raises_authority_and_can_change_the_order() {
    let calls = [call(
        "brave",
        "q",
        ranked(&["https://a.example/", "https://b.example/"]),
    )];
    let plain = fuse(&calls, &opts("q"));
    assert_eq!(plain.results[0].url, "https://a.example");
    let boosted = fuse(&calls, &opts("q").with_domain_boosts(["b.example"]));
    assert_eq!(boosted.results[0].url, "https://b.example");
    let b = &boosted.results[0];
    assert!(close(b.scores.authority, 0.6));
    assert_eq!(
        b.score_basis.as_ref().unwrap().boosted_by.as_deref(),
        Some("b.example")
    );
}

#[test]
fn ties_break_by_rrf_then_best_rank_then_url() {
    // Same engine weight, same rank in two sub-queries, same texts' scores:
    // only the canonical URL separates them.
    let calls = [
        call("brave", "q1", vec![hit(1, "https://z.example/", "t", "s")]),
        call("exa", "q2", vec![hit(1, "https://m.example/", "t", "s")]),
    ];
    let f = fuse(&calls, &opts("q").with_near_dup(None));
    let urls: Vec<&str> = f.results.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls, ["https://m.example", "https://z.example"]);
    assert_eq!(f.results[0].scores, f.results[1].scores);

    // A higher RRF wins when the final scores tie: rank share 0 makes the
    // final score the intent score alone.
    let calls = [call(
        "brave",
        "q",
        ranked(&["https://z.example/", "https://m.example/"]),
    )];
    let f = fuse(&calls, &opts("q").with_rank_share(0.0).with_near_dup(None));
    let urls: Vec<&str> = f.results.iter().map(|r| r.url.as_str()).collect();
    assert_eq!(urls, ["https://z.example", "https://m.example"]);
}

// ---------------------------------------------------------------- provenance

#[test]
fn login_hits_make_the_merged_result_login() {
    let calls = [
        call(
            "brave",
            "q",
            ranked(&["https://a.example/", "https://b.example/"]),
        ),
        login_call("ego_browser_bing", ranked(&["https://a.example"]), true),
    ];
    let f = fuse(&calls, &opts("q"));
    let a = f
        .results
        .iter()
        .find(|r| r.url == "https://a.example")
        .unwrap();
    assert!(a.provenance.is_login());
    assert!(!a.provenance.cache_eligible);
    assert_eq!(a.flags, ["dual-sourced"]);
    let b = f
        .results
        .iter()
        .find(|r| r.url == "https://b.example")
        .unwrap();
    assert!(!b.provenance.is_login());
}

#[test]
fn login_hits_that_may_not_merge_stay_separate() {
    let calls = [
        call("brave", "q", ranked(&["https://a.example/"])),
        login_call("ego", ranked(&["https://a.example"]), false),
    ];
    let f = fuse(&calls, &opts("q"));
    assert_eq!(f.results.len(), 2);
    let logins: Vec<bool> = f.results.iter().map(|r| r.provenance.is_login()).collect();
    assert_eq!(logins, [false, true], "public first on a tie");
    assert!(f.results.iter().all(|r| r.sources.len() == 1));
}

// ---------------------------------------------------------------- near-duplicates

const ARTICLE: &str = "The Rust release team announced version 1.80 today with lazy cell and lazy lock \
                       stabilised, exclusive range patterns and checked cfg names and values.";

#[test]
fn mirrored_pages_fold_into_the_best_scored_one() {
    let calls = [
        call(
            "brave",
            "q",
            vec![hit(
                1,
                "https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html",
                "Announcing Rust 1.80.0",
                ARTICLE,
            )],
        ),
        call(
            "exa",
            "q",
            vec![
                hit(
                    1,
                    "https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html",
                    "Announcing Rust 1.80.0",
                    ARTICLE,
                ),
                hit(
                    2,
                    "https://mirror.example.net/rust-1.80",
                    "Announcing Rust 1.80.0 | Mirror",
                    ARTICLE,
                ),
            ],
        ),
    ];
    let f = fuse(&calls, &opts("rust 1.80"));
    assert_eq!(f.results.len(), 1, "{:#?}", f.results);
    let r = &f.results[0];
    assert_eq!(
        r.url,
        "https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html"
    );
    assert_eq!(r.near_duplicates.len(), 1);
    let nd = &r.near_duplicates[0];
    assert_eq!(nd.url, "https://mirror.example.net/rust-1.80");
    assert_eq!(nd.original_url, "https://mirror.example.net/rust-1.80");
    assert!(nd.distance <= 3);
    assert_eq!(nd.sources.len(), 1);
    assert_eq!((&*nd.sources[0].engine, nd.sources[0].rank), ("exa", 2));
    assert_eq!(f.stats.near_duplicates, 1);
}

const BOILERPLATE: &str = "Example Corp builds cloud software for teams of every size. Start your free trial \
                           today and see why thousands of companies trust Example Corp with their data.";

const PAGES: &[&str] = &[
    "Pricing",
    "Careers",
    "About us",
    "Contact sales",
    "Security",
    "Blog",
    "Customers",
    "Partners",
    "Press",
    "Status",
    "Integrations",
    "Enterprise",
    "Startups",
    "Education",
    "Legal",
    "Privacy",
];

#[test]
fn pages_sharing_only_site_boilerplate_do_not_merge() {
    // Pages of one site whose snippet is the same long boilerplate sentence.
    let hits: Vec<EngineHit> = PAGES
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let slug = p.to_lowercase().replace(' ', "-");
            hit(
                i as u32 + 1,
                &format!("https://example.com/{slug}"),
                &format!("{p} - Example Corp"),
                BOILERPLATE,
            )
        })
        .collect();
    // Some pairs' fingerprints are within the threshold: the boilerplate
    // outweighs the one distinct title word...
    let fps: Vec<Fingerprint> = hits
        .iter()
        .map(|h| Fingerprint::of(&h.title, &h.snippet))
        .collect();
    let close_pairs = (0..fps.len())
        .flat_map(|i| (i + 1..fps.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| fps[i].distance(&fps[j]) <= 3)
        .count();
    assert!(
        close_pairs > 0,
        "no pair is close; the test would prove nothing"
    );
    // ...yet every page stays its own result, because the titles differ.
    let f = fuse(&[call("brave", "q", hits)], &opts("example corp"));
    assert_eq!(f.results.len(), PAGES.len());
    assert!(f.results.iter().all(|r| r.near_duplicates.is_empty()));
}

#[test]
fn short_texts_never_cluster() {
    let calls = [call(
        "brave",
        "q",
        vec![
            hit(1, "https://a.example/", "Home", "Welcome"),
            hit(2, "https://b.example/", "Home", "Welcome"),
        ],
    )];
    let f = fuse(&calls, &opts("q"));
    assert_eq!(f.results.len(), 2);
}

#[test]
fn login_and_public_copies_do_not_cluster() {
    let calls = [
        call(
            "brave",
            "q",
            vec![hit(
                1,
                "https://a.example/post",
                "Announcing Rust 1.80.0",
                ARTICLE,
            )],
        ),
        login_call(
            "ego",
            vec![hit(
                1,
                "https://b.example/post",
                "Announcing Rust 1.80.0",
                ARTICLE,
            )],
            true,
        ),
    ];
    let f = fuse(&calls, &opts("q"));
    assert_eq!(f.results.len(), 2);
    // With two public copies they would.
    let calls = [
        call(
            "brave",
            "q",
            vec![hit(
                1,
                "https://a.example/post",
                "Announcing Rust 1.80.0",
                ARTICLE,
            )],
        ),
        call(
            "exa",
            "q",
            vec![hit(
                1,
                "https://b.example/post",
                "Announcing Rust 1.80.0",
                ARTICLE,
            )],
        ),
    ];
    assert_eq!(fuse(&calls, &opts("q")).results.len(), 1);
}

#[test]
fn a_copy_whose_title_ends_with_its_site_name_still_folds() {
    let calls = [
        call(
            "brave",
            "q",
            vec![hit(
                1,
                "https://a.example/post",
                "Announcing Rust 1.80.0",
                ARTICLE,
            )],
        ),
        call(
            "exa",
            "q",
            vec![hit(
                1,
                "https://b.example/post",
                "Announcing Rust 1.80.0 – B News",
                ARTICLE,
            )],
        ),
    ];
    let f = fuse(&calls, &opts("q"));
    assert_eq!(f.results.len(), 1);
    assert_eq!(f.results[0].near_duplicates[0].distance, 0);
}

#[test]
fn near_dup_clustering_can_be_turned_off_or_tightened() {
    let calls = [
        call(
            "brave",
            "q",
            vec![hit(
                1,
                "https://a.example/post",
                "Announcing Rust 1.80.0",
                ARTICLE,
            )],
        ),
        call(
            "exa",
            "q",
            vec![hit(
                1,
                "https://b.example/post",
                "Announcing Rust 1.80.0 | B",
                ARTICLE,
            )],
        ),
    ];
    assert_eq!(fuse(&calls, &opts("q")).results.len(), 1);
    assert_eq!(
        fuse(&calls, &opts("q").with_near_dup(None)).results.len(),
        2
    );
    let exact_titles = NearDupOptions {
        cross_site_title_similarity: 1.0,
        ..NearDupOptions::default()
    };
    assert_eq!(
        fuse(&calls, &opts("q").with_near_dup(Some(exact_titles)))
            .results
            .len(),
        2
    );
    let long_texts_only = NearDupOptions {
        min_features: 100,
        ..NearDupOptions::default()
    };
    assert_eq!(
        fuse(&calls, &opts("q").with_near_dup(Some(long_texts_only)))
            .results
            .len(),
        2
    );
}

#[test]
fn site_names_are_cut_from_titles_for_fingerprints() {
    use ferret_core::near_dup::title_without_site_name as cut;
    assert_eq!(
        cut("Announcing Rust 1.80.0 | Mirror"),
        "Announcing Rust 1.80.0"
    );
    assert_eq!(
        cut("Rust (programming language) - Wikipedia"),
        "Rust (programming language)"
    );
    assert_eq!(cut("Rust 异步编程_知乎"), "Rust 异步编程");
    assert_eq!(cut("A - B - The Long Site Name"), "A - B");
    assert_eq!(
        cut("Well-known title-case words"),
        "Well-known title-case words"
    );
    assert_eq!(
        cut("Title | this tail is far too long to be a site name"),
        "Title | this tail is far too long to be a site name"
    );
    assert_eq!(cut(" | Site"), "| Site");
}

// ---------------------------------------------------------------- real capture

#[test]
fn a_real_brave_answer_fuses_with_its_dates_parsed() {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let path = dir.join("fixtures/api/brave-search-api-web-q-laravel-2024-03.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: ../shared not present");
        return;
    };
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let hits: Vec<EngineHit> = json["web"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut h = hit(
                i as u32 + 1,
                r["url"].as_str().unwrap(),
                r["title"].as_str().unwrap_or_default(),
                r["description"].as_str().unwrap_or_default(),
            );
            h.published_at = r["page_age"].as_str().map(str::to_string);
            h
        })
        .collect();
    let n = hits.len();
    let dated = hits.iter().filter(|h| h.published_at.is_some()).count();
    let captured = Utc.with_ymd_and_hms(2024, 3, 29, 20, 0, 0).unwrap();
    let calls = [
        call("brave", "laravel", hits.clone()),
        call("searxng", "laravel", hits),
    ];
    let f = fuse(
        &calls,
        &FusionOptions::new("laravel")
            .with_now(captured)
            .with_near_dup(None),
    );
    assert_eq!(f.results.len(), n);
    assert!(f.unresolvable.is_empty());
    assert!(f.results.iter().all(|r| r.sources.len() == 2));
    let with_dates = f
        .results
        .iter()
        .filter(|r| r.published_at.is_some())
        .count();
    assert_eq!(with_dates, dated);
    // laravel.com is first for both engines: it has the largest RRF; its
    // page_age becomes an RFC 3339 date.
    let laravel = f
        .results
        .iter()
        .find(|r| r.url == "https://laravel.com")
        .unwrap();
    assert_eq!(laravel.scores.rrf, f.stats.rrf_max);
    assert!(close(laravel.scores.rrf, 2.0 / 61.0));
    assert_eq!(laravel.scores.keyword, 1.0);
    assert_eq!(
        laravel.published_at.as_deref(),
        Some("2023-05-01T20:10:05Z")
    );
    // Wikipedia's article (rank 2, two days old, tier 1) outranks it on the
    // intent half of the score.
    assert_eq!(f.results[0].url, "https://en.wikipedia.org/wiki/Laravel");
    let basis = f.results[0].score_basis.as_ref().unwrap();
    assert_eq!(basis.best_rank, 2);
}

// ------------------------------------------------------------ call order

#[test]
fn a_large_fusion_does_not_depend_on_the_order_of_the_calls() {
    // Thousands of hits, with shared URLs,
    // variants, invalid URLs and near-duplicate texts.
    let n = 6_000;
    let calls: Vec<EngineCall> = (0..4)
        .map(|e| {
            let hits = (0..n / 4 + 200)
                .map(|i| {
                    let id = if i % 5 == 0 { i } else { e * n + i };
                    let mut url = if e % 2 == 0 {
                        format!("https://site{}.example.org/page/{id}", id % 97)
                    } else {
                        format!("http://www.site{}.example.org/page/{id}/", id % 97)
                    };
                    if i % 17 == 0 {
                        url.push_str(&format!("?utm_source=feed&b={}&a=1", e % 2));
                    }
                    if i % 101 == 0 {
                        url = format!("mailto:someone{id}@example.org");
                    }
                    let text = if id % 7 == 0 {
                        ARTICLE.to_string()
                    } else {
                        format!("page {id} about rust {}", id % 13)
                    };
                    hit(i as u32 + 1, &url, &format!("Title {}", id % 11), &text)
                })
                .collect();
            call(&format!("engine{e}"), "q", hits)
        })
        .collect();
    let one = fuse(&calls, &opts("rust page"));
    let hits = one.stats.input_hits;
    assert!((6_000..8_000).contains(&hits), "{hits}");
    assert!(one.stats.merged > 2 * 2_000, "{}", one.stats.merged);
    assert!(one.stats.near_duplicates > 0);
    assert!(!one.unresolvable.is_empty());
    let mut reversed = calls.clone();
    reversed.reverse();
    assert_eq!(one, fuse(&reversed, &opts("rust page")));
}

#[test]
fn thousands_of_boilerplate_pages_stay_apart() {
    // Every page's fingerprint is close to the others': the work is bounded
    // by the bucket scan cap, and the title check keeps them apart.
    let hits: Vec<EngineHit> = (0..3000)
        .map(|i| {
            hit(
                i + 1,
                &format!("https://example.com/page/{i}"),
                &format!("Page {i} - Example Corp"),
                BOILERPLATE,
            )
        })
        .collect();
    let f = fuse(&[call("brave", "q", hits)], &opts("example corp"));
    assert_eq!(f.results.len(), 3000);
    assert_eq!(f.stats.near_duplicates, 0);
}
