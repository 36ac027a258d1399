//! Fusion speed on the synthetic input of `shared/bench/peers/fusion_peers.py`
//! (8 engines × N results, ~30 % from a shared pool, URL variants), generated
//! here exactly as the Python peers generate it.
//!
//! `cargo bench --bench fusion` — target: 8×50 under 200 µs. The 1,000,000-hit
//! run and peak memory are measured by `examples/fusion_scale.rs` (see
//! `scripts/bench-fusion`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ferret::core::freshness::parse_date;
use ferret::core::fusion::{FusionOptions, fuse};

#[path = "support/fusion_input.rs"]
mod fusion_input;

/// Fixed options (a fixed "now", so runs are comparable).
fn options() -> FusionOptions {
    let o = FusionOptions::new(fusion_input::QUERY);
    let now = parse_date("2026-11-29T00:00:00Z", o.now).expect("a valid date");
    o.with_now(now)
}

fn bench_fusion(c: &mut Criterion) {
    let mut group = c.benchmark_group("fuse");
    for per_engine in [50usize, 250, 1250, 12_500] {
        let (input, truth) = fusion_input::make_input(per_engine, 1);
        let calls = fusion_input::engine_calls(&input);
        let total = per_engine * fusion_input::ENGINES.len();
        let fused = fuse(&calls, &options());
        assert_eq!(fused.stats.merged, truth, "every URL variant merges");
        group.throughput(Throughput::Elements(total as u64));
        if total > 5_000 {
            group.sample_size(10);
            group.measurement_time(Duration::from_secs(15));
        } else {
            group.sample_size(100);
            group.measurement_time(Duration::from_secs(5));
        }
        let id = format!("8x{per_engine}");
        // The fused output is dropped outside the timed region, as the Python
        // peers' results are freed after their timer stops.
        let full = options();
        group.bench_with_input(BenchmarkId::new("full", &id), &calls, |b, calls| {
            b.iter_with_large_drop(|| fuse(black_box(calls), &full))
        });
        if per_engine == 50 {
            let no_nd = options().with_near_dup(None);
            group.bench_with_input(BenchmarkId::new("no_near_dup", &id), &calls, |b, calls| {
                b.iter_with_large_drop(|| fuse(black_box(calls), &no_nd))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_fusion);
criterion_main!(benches);
