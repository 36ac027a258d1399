//! Fanout wall time: 8 in-process engines that each answer after a fixed
//! delay `d`, run through `ferret_core::fanout`. A search should take no
//! longer than the slowest engine: target median ≤ d + 5 ms.
//!
//! `cargo bench --bench fanout` — groups `fanout/bare` (engines as they are)
//! and `fanout/layered` (each engine behind the recommended stack: timeout,
//! throttle, retry, circuit breaker, single-flight; the cache is left out so
//! every iteration reaches the engines). Before criterion's runs the bench
//! prints a verdict line per case with the median of 101 timed searches.
//! The 1,000-concurrent-search load run and its peak RSS are
//! `cargo run --release --example fanout_load`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ferret::core::fanout::{Fanout, FanoutRequest};
use ferret::core::layer::{EngineExt, TimeoutLayer};
use ferret::core::testing::StaticEngine;
use ferret::core::{DynEngine, EngineStatus, Mode};
use ferret::engines::layers::{
    CircuitBreakerLayer, RetryLayer, SingleFlightLayer, ThrottleConfig, ThrottleLayer,
};

const ENGINES: usize = 8;
const DELAYS_MS: [u64; 2] = [20, 50];
const SLACK: Duration = Duration::from_millis(5);

fn bare(delay: Duration) -> Vec<DynEngine> {
    (0..ENGINES)
        .map(|i| {
            Arc::new(StaticEngine::new(format!("engine{i}"), 10).with_delay(delay)) as DynEngine
        })
        .collect()
}

fn layered(delay: Duration) -> Vec<DynEngine> {
    // Unserialised throttle: concurrent benchmark iterations must not queue.
    let throttle = ThrottleLayer::with_config(ThrottleConfig {
        max_results: Some(10),
        serialize: false,
        min_interval: Duration::ZERO,
    });
    (0..ENGINES)
        .map(|i| {
            let e = StaticEngine::new(format!("engine{i}"), 10)
                .with_delay(delay)
                .layer(TimeoutLayer::new(Duration::from_secs(8)))
                .layer(throttle)
                .layer(RetryLayer::new())
                .layer(CircuitBreakerLayer::in_memory())
                .layer(SingleFlightLayer::new());
            Arc::new(e) as DynEngine
        })
        .collect()
}

fn fanout(engines: Vec<DynEngine>) -> Fanout {
    Fanout::builder()
        .engines(engines)
        .build()
        .expect("a valid fanout")
}

fn request() -> FanoutRequest {
    FanoutRequest::from_queries(Mode::Deep, ["rust async runtime"])
}

async fn search(f: &Fanout, req: &FanoutRequest) {
    let outcome = f.run(req).await.expect("the fanout runs");
    assert!(
        outcome.reports.iter().all(|r| r.status == EngineStatus::Ok),
        "every engine answers: {:?}",
        outcome.reports
    );
    assert_eq!(outcome.calls.len(), ENGINES);
}

/// Median wall time of `n` sequential searches.
fn median_wall(rt: &tokio::runtime::Runtime, f: &Fanout, n: usize) -> Duration {
    let req = request();
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            rt.block_on(search(f, &req));
            start.elapsed()
        })
        .collect();
    times.sort();
    times[n / 2]
}

fn bench_fanout(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    for (group_name, make) in [
        ("bare", bare as fn(Duration) -> Vec<DynEngine>),
        ("layered", layered),
    ] {
        let mut group = c.benchmark_group(format!("fanout/{group_name}"));
        group.sample_size(30);
        group.measurement_time(Duration::from_secs(4));
        for d in DELAYS_MS {
            let delay = Duration::from_millis(d);
            let f = fanout(make(delay));
            let median = median_wall(&rt, &f, 101);
            let verdict = if median <= delay + SLACK {
                "ok"
            } else {
                "OVER TARGET"
            };
            eprintln!(
                "fanout/{group_name}: 8 engines × {d} ms → median {:.2} ms (target ≤ {} ms): {verdict}",
                median.as_secs_f64() * 1e3,
                d + SLACK.as_millis() as u64
            );
            let req = request();
            group.bench_with_input(BenchmarkId::new("8_engines_ms", d), &d, |b, _| {
                b.to_async(&rt).iter(|| search(&f, &req));
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_fanout);
criterion_main!(benches);
