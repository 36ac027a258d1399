//! Intent classification and query planning speed on a mix of 20 English
//! and Chinese queries (plus two Korean and two research-style questions).
//!
//! `cargo bench --bench plan -- --warm-up-time 1 --measurement-time 3` —
//! target: classify + plan under 20 µs per query.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ferret::core::intent::classify;
use ferret::core::plan::{HeuristicPlanner, PlanOptions, constraints, expand, focused};

/// The query mix: every intent, both languages, synonyms, comparisons,
/// numbered research questions.
const QUERIES: &[&str] = &[
    "what is WebTransport",
    "什么是 WebAssembly",
    "Deno latest release",
    "Deno 最新进展",
    "Bun vs Deno",
    "Bun vs Deno 最新对比",
    "Bun 和 Deno 的区别",
    "Should I learn Python or Go for backend?",
    "how to write a Rust CLI",
    "k8s 教程",
    "Rust 异步编程",
    "RISC-V ecosystem",
    "AI news this week",
    "今日 AI 新闻",
    "Anthropic MCP official documentation",
    "Deno 最新版本下载",
    "difference between TCP and UDP",
    "React vs Vue vs Svelte",
    "파이썬과 자바 비교",
    "Find the novel that 1. was published in 1987 2. won the Booker Prize 3) is set in Japan",
    "Is it true that the official Rust logo was first designed in 2010, and that the designer worked at Mozilla?",
    "获得诺贝尔文学奖的日本作家，并且出生于长崎",
];

fn bench_plan(c: &mut Criterion) {
    let planner = HeuristicPlanner::new();
    let opts = PlanOptions::default();
    // Warm the lazily built tables outside the measurement.
    for q in QUERIES {
        planner
            .plan_sync(q, &opts)
            .expect("every bench query plans");
    }

    let mut group = c.benchmark_group("plan");
    group.throughput(Throughput::Elements(QUERIES.len() as u64));
    group.bench_function("classify_mix", |b| {
        b.iter(|| {
            for q in QUERIES {
                black_box(classify(black_box(q)));
            }
        })
    });
    group.bench_function("plan_mix", |b| {
        b.iter(|| {
            for q in QUERIES {
                black_box(planner.plan_sync(black_box(q), &opts).ok());
            }
        })
    });
    group.finish();

    // The planner's steps, over the same mix.
    let mut parts = c.benchmark_group("plan_parts");
    parts.throughput(Throughput::Elements(QUERIES.len() as u64));
    let classified: Vec<_> = QUERIES.iter().map(|q| classify(q)).collect();
    parts.bench_function("sub_queries", |b| {
        b.iter(|| {
            for (q, c) in QUERIES.iter().zip(&classified) {
                black_box(expand::sub_queries(q, c.intent, c, &opts));
            }
        })
    });
    parts.bench_function("constraints", |b| {
        b.iter(|| {
            for q in QUERIES {
                black_box(constraints::extract(black_box(q)));
            }
        })
    });
    let extracted: Vec<_> = QUERIES.iter().map(|q| constraints::extract(q)).collect();
    parts.bench_function("focused", |b| {
        b.iter(|| {
            for (q, e) in QUERIES.iter().zip(&extracted) {
                black_box(focused::plan(q, &e.constraints));
            }
        })
    });
    parts.finish();

    let mut single = c.benchmark_group("plan_one");
    for (name, q) in [
        ("en_comparison", "Bun vs Deno"),
        ("zh_translation", "Rust 异步编程"),
        ("research_question", QUERIES[19]),
    ] {
        single.bench_function(name, |b| {
            b.iter(|| black_box(planner.plan_sync(black_box(q), &opts).ok()))
        });
    }
    single.finish();
}

criterion_group!(benches, bench_plan);
criterion_main!(benches);
