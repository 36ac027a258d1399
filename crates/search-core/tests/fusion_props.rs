//! Invariants of `fuse` over generated engine calls: the output does not
//! depend on the order of the calls, no input hit is lost, and every score
//! is finite and in range.

use ferret_core::Runtime;
use std::collections::HashMap;

use chrono::{TimeZone, Utc};
use ferret_core::canonical::{CanonicalOptions, canonical_url};
use ferret_core::fusion::{Fused, FusionOptions, fuse};
use ferret_core::near_dup::NearDupOptions;
use ferret_core::{EngineCall, EngineHit, EngineResponse, Provenance};
use proptest::prelude::*;

const ENGINES: &[&str] = &["brave", "exa", "wikipedia", "reddit", "ego_browser_bing"];
const SUB_QUERIES: &[&str] = &["rust async", "rust async runtime", "tokio 教程"];
const HOSTS: &[&str] = &[
    "en.wikipedia.org",
    "github.com",
    "docs.example.co.uk",
    "blog.example.com",
    "someone.github.io",
    "news.site.example",
];
const WORDS: &[&str] = &[
    "rust", "async", "runtime", "tokio", "future", "poll", "waker", "task", "异步", "编程", "the",
    "of", "and", "a", "Async", "|",
];
const DATES: &[&str] = &[
    "2026-06-01",
    "3 days ago",
    "Mar 3, 2024",
    "2024年3月5日",
    "not a date",
    "",
];
const BAD_URLS: &[&str] = &[
    "",
    "not a url",
    "ftp://x.example/",
    "javascript:void(0)",
    "https://",
];

fn url_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (0..HOSTS.len(), 0u8..6, 0u8..16).prop_map(|(h, path, variant)| {
            let mut u = format!("https://{}/p/{path}", HOSTS[h]);
            if variant & 1 != 0 {
                u.push('/');
            }
            if variant & 2 != 0 {
                u = u.replacen("https://", "http://", 1);
            }
            if variant & 4 != 0 {
                u = u.replacen("://", "://www.", 1);
            }
            if variant & 8 != 0 {
                u.push_str("?utm_source=feed&utm_medium=rss");
            }
            u
        }),
        1 => (0..BAD_URLS.len()).prop_map(|i| BAD_URLS[i].to_string()),
    ]
}

fn text_strategy(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(0..WORDS.len(), 0..max)
        .prop_map(|ws| ws.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" "))
}

fn hit_strategy() -> impl Strategy<Value = EngineHit> {
    (
        0u32..12,
        url_strategy(),
        text_strategy(8),
        // Many hits share one long text, so near-duplicates happen.
        prop_oneof![
            text_strategy(30),
            Just(
                "rust async runtime tokio future poll waker task the of and a rust async"
                    .to_string()
            )
        ],
        prop::option::of(0..DATES.len()),
    )
        .prop_map(|(rank, url, title, snippet, date)| {
            let mut h = EngineHit::new(rank, url, title, snippet);
            h.published_at = date.map(|d| DATES[d].to_string());
            h
        })
}

fn call_strategy() -> impl Strategy<Value = EngineCall> {
    (
        0..ENGINES.len(),
        0..SUB_QUERIES.len(),
        prop::collection::vec(hit_strategy(), 0..10),
        0u8..4,
    )
        .prop_map(|(e, q, hits, login)| {
            let mut response = EngineResponse::new(Provenance::public(Runtime::Http), hits);
            if login == 0 {
                response.provenance = Provenance::login(Runtime::ChromiumAttached);
            } else if login == 1 {
                response.provenance = Provenance::login(Runtime::ChromiumAttached);
                response.provenance.merge_with_public_ok = false;
            }
            EngineCall {
                engine: ENGINES[e].to_string(),
                sub_query: SUB_QUERIES[q].to_string(),
                sub_query_index: q,
                response,
            }
        })
}

fn options() -> FusionOptions {
    FusionOptions::new("rust async 异步编程")
        .with_now(Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap())
        .with_domain_boosts(["github.com"])
}

/// A deterministic permutation of `v` from `seed`.
fn shuffled<T: Clone>(v: &[T], seed: u64) -> Vec<T> {
    let mut out = v.to_vec();
    let mut s = seed | 1;
    for i in (1..out.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.swap(i, (s % (i as u64 + 1)) as usize);
    }
    out
}

fn in_unit(x: f64) -> bool {
    x.is_finite() && (0.0..=1.0 + 1e-12).contains(&x)
}

fn check_scores(f: &Fused) -> Result<(), TestCaseError> {
    for r in &f.results {
        let s = r.scores;
        prop_assert!(s.rrf.is_finite() && s.rrf > 0.0, "rrf {}", s.rrf);
        for (name, x) in [
            ("keyword", s.keyword),
            ("freshness", s.freshness),
            ("authority", s.authority),
            ("intent", s.intent),
            ("final", s.final_score),
        ] {
            prop_assert!(in_unit(x), "{name} = {x}");
        }
    }
    for w in f.results.windows(2) {
        prop_assert!(w[0].scores.final_score >= w[1].scores.final_score);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn order_of_calls_does_not_matter(calls in prop::collection::vec(call_strategy(), 0..8), seed in any::<u64>()) {
        let o = options();
        let a = fuse(&calls, &o);
        let b = fuse(&shuffled(&calls, seed), &o);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn no_hit_is_lost(calls in prop::collection::vec(call_strategy(), 0..8)) {
        let f = fuse(&calls, &options());
        // Every hit is a source of exactly one result or near-duplicate, or
        // is listed as unresolvable.
        let mut sources: HashMap<(String, String, u32, String), usize> = HashMap::new();
        for r in &f.results {
            for s in r.sources.iter().chain(r.near_duplicates.iter().flat_map(|n| &n.sources)) {
                *sources.entry((s.engine.to_string(), s.sub_query.to_string(), s.rank, s.url.to_string())).or_default() += 1;
            }
        }
        let mut unresolvable: HashMap<(String, String, usize), usize> = HashMap::new();
        for u in &f.unresolvable {
            *unresolvable.entry((u.engine.clone(), u.sub_query.clone(), u.index)).or_default() += 1;
        }
        let mut expected_sources: HashMap<(String, String, u32, String), usize> = HashMap::new();
        let mut expected_unresolvable: HashMap<(String, String, usize), usize> = HashMap::new();
        let mut urls_out: Vec<&str> = f.results.iter().map(|r| r.url.as_str()).collect();
        urls_out.extend(f.results.iter().flat_map(|r| r.near_duplicates.iter().map(|n| n.url.as_str())));
        for c in &calls {
            for (i, h) in c.response.hits.iter().enumerate() {
                let rank = if h.rank == 0 { i as u32 + 1 } else { h.rank };
                match canonical_url(&h.url, CanonicalOptions::default()) {
                    Ok(canon) => {
                        prop_assert!(urls_out.contains(&canon.as_str()), "{} lost", h.url);
                        *expected_sources.entry((c.engine.clone(), c.sub_query.clone(), rank, h.url.to_string())).or_default() += 1;
                    }
                    Err(_) => {
                        *expected_unresolvable.entry((c.engine.clone(), c.sub_query.clone(), i)).or_default() += 1;
                    }
                }
            }
        }
        prop_assert_eq!(sources, expected_sources);
        prop_assert_eq!(unresolvable, expected_unresolvable);
        let total: usize = calls.iter().map(|c| c.response.hits.len()).sum();
        prop_assert_eq!(f.stats.input_hits, total);
    }

    #[test]
    fn scores_are_finite_and_in_range(calls in prop::collection::vec(call_strategy(), 0..8), k in -5.0f64..200.0, share in -0.5f64..1.5) {
        let f = fuse(&calls, &options().with_rrf_k(k).with_rank_share(share));
        check_scores(&f)?;
    }

    #[test]
    fn login_data_never_ends_up_in_a_public_result(calls in prop::collection::vec(call_strategy(), 0..8)) {
        let f = fuse(&calls, &options());
        for r in &f.results {
            if r.provenance.is_login() {
                continue;
            }
            for s in r.sources.iter().chain(r.near_duplicates.iter().flat_map(|n| &n.sources)) {
                // A public result's sources all came from public calls.
                let from_public = calls.iter().any(|c| {
                    !c.response.provenance.is_login()
                        && *c.engine == *s.engine
                        && *c.sub_query == *s.sub_query
                        && c.response.hits.iter().any(|h| h.url == s.url)
                });
                prop_assert!(from_public, "{:?} in a public result", s);
            }
        }
    }

    #[test]
    fn without_near_duplicates_only_the_clustering_changes(calls in prop::collection::vec(call_strategy(), 0..8)) {
        // Fingerprints computed (keyword coverage taken from the same pass)
        // but no result eligible, against no fingerprints at all.
        let never = NearDupOptions { min_features: u32::MAX, ..NearDupOptions::default() };
        let fingerprinted = fuse(&calls, &options().with_near_dup(Some(never)));
        let plain = fuse(&calls, &options().with_near_dup(None));
        prop_assert_eq!(fingerprinted, plain);
    }
}
