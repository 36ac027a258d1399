//! Goggle speed: parsing a goggle shaped like Brave's largest example
//! (hacker_news.goggle: 6,239 instructions, 97 % `$boost=N,site=D`, the
//! rest `/path/$boost=3,site=D`, `*rust*$boost,site=…`, `-rs^$boost=2,…`
//! and `$discard,site=D`), generated here; applying it (FinalScore,
//! discards, conflict flags) to 50 fused results; and matching pathological
//! patterns on a 2,000-character URL.
//!
//! `cargo bench --bench goggles` — targets: parse under 10 ms, apply to 50
//! results under 2 ms (it includes the pairwise conflict check, here at its
//! worst: every title shares a subject), each pathological match under 1 ms.

use ferret::core::Runtime;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ferret::core::goggles::{Goggle, Pattern, apply};
use ferret::core::{Provenance, Scores, SearchResult};

const INSTRUCTIONS: usize = 6_239;

fn goggle_text() -> String {
    let mut text = String::from(
        "! name: bench\n! description: synthetic, shaped like Brave's largest example\n\
         ! public: false\n! author: ferret benches\n\n",
    );
    for i in 0..INSTRUCTIONS {
        let line = match i % 100 {
            0 => format!("/posts/{i}/$boost=3,site=site{i}.example"),
            1 => "*rust*$boost,site=github.com".to_string(),
            2 => format!("-rs{i}^$boost=2,site=github.com"),
            3..=15 => format!("$discard,site=spam{i}.example"),
            _ => format!("$boost={},site=site{i}.example", 1 + i % 4),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

fn results(n: usize) -> Vec<SearchResult> {
    (0..n)
        .map(|i| {
            let url = match i % 5 {
                0 => format!("https://site{}.example/posts/{i}/", i * 100),
                1 => format!("https://github.com/org{i}/tool{i}-rs"),
                2 => format!("https://spam{}.example/x", i * 100 + 3),
                3 => format!("https://docs.python.org/3/library/m{i}.html"),
                _ => format!("https://blog{i}.example/rust-async-{i}"),
            };
            SearchResult {
                url: url.clone(),
                original_url: url.into(),
                title: format!("Result {i} about rust async runtimes").into(),
                snippet: format!("The default worker count is {i} on this machine.").into(),
                published_at: None,
                domain: String::new(),
                sources: Vec::new(),
                scores: Scores::default(),
                score_basis: None,
                near_duplicates: Vec::new(),
                flags: Vec::new(),
                provenance: Provenance::public(Runtime::Http),
            }
        })
        .collect()
}

fn bench_goggles(c: &mut Criterion) {
    let text = goggle_text();
    let goggle = Goggle::parse(&text).expect("the synthetic goggle parses");
    assert_eq!(goggle.instructions().len(), INSTRUCTIONS);
    c.bench_function("goggle/parse_6239", |b| {
        b.iter(|| Goggle::parse(black_box(&text)))
    });

    let fused = results(50);
    let applied = apply(&goggle, fused.clone());
    assert_eq!(applied.results.len() + applied.discarded.len(), 50);
    assert!(!applied.discarded.is_empty());
    c.bench_function("goggle/apply_50", |b| {
        b.iter_batched(
            || fused.clone(),
            |fused| apply(&goggle, fused),
            criterion::BatchSize::SmallInput,
        )
    });

    let url = format!("https://a.example/{}", "a".repeat(2_000));
    for pattern in [
        "a*a*b",
        "|*a*b|",
        "a^a^",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
    ] {
        let compiled = Pattern::parse(pattern).expect("a valid pattern");
        assert!(!compiled.matches(&url));
        c.bench_function(&format!("goggle/match_2000/{pattern}"), |b| {
            b.iter(|| compiled.matches(black_box(&url)))
        });
    }
}

criterion_group!(benches, bench_goggles);
criterion_main!(benches);
