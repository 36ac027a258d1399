//! Load run: 1,000 concurrent searches, each fanning out to 8 local engines
//! (in-process, answering after a fixed delay behind the recommended layer
//! stack), on one tokio runtime. Prints errors (must be 0), latency
//! percentiles, total wall time and peak RSS (VmHWM from /proc/self/status).
//!
//! ```text
//! cargo run --release --example fanout_load [-- <searches> <delay_ms> [bare]]
//! ```
//! With `bare` the engines run without layers, to show the stack's overhead.
//! Exits non-zero if any search had an engine that did not answer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ferret::core::fanout::{Fanout, FanoutRequest};
use ferret::core::layer::{EngineExt, TimeoutLayer};
use ferret::core::testing::StaticEngine;
use ferret::core::{DynEngine, EngineStatus, Mode};
use ferret::engines::layers::{
    CircuitBreakerLayer, RetryLayer, SingleFlightLayer, ThrottleConfig, ThrottleLayer,
};

const ENGINES: usize = 8;

fn bare_engines(delay: Duration) -> Vec<DynEngine> {
    (0..ENGINES)
        .map(|i| {
            Arc::new(StaticEngine::new(format!("local{i}"), 10).with_delay(delay)) as DynEngine
        })
        .collect()
}

fn engines(delay: Duration) -> Vec<DynEngine> {
    let throttle = ThrottleLayer::with_config(ThrottleConfig {
        max_results: Some(10),
        serialize: false,
        min_interval: Duration::ZERO,
    });
    let breaker = CircuitBreakerLayer::in_memory();
    (0..ENGINES)
        .map(|i| {
            let e = StaticEngine::new(format!("local{i}"), 10)
                .with_delay(delay)
                .layer(TimeoutLayer::new(Duration::from_secs(8)))
                .layer(throttle)
                .layer(RetryLayer::new())
                .layer(breaker.clone())
                .layer(SingleFlightLayer::new());
            Arc::new(e) as DynEngine
        })
        .collect()
}

/// A `/proc/self/status` field in kB.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let searches: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let delay_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let bare = args.next().as_deref() == Some("bare");
    let delay = Duration::from_millis(delay_ms);
    let fanout = Arc::new(
        Fanout::builder()
            .engines(if bare {
                bare_engines(delay)
            } else {
                engines(delay)
            })
            .build()
            .expect("a valid fanout"),
    );
    let rss_before = status_kb("VmRSS:");
    let start = Instant::now();
    let tasks: Vec<_> = (0..searches)
        .map(|i| {
            let f = fanout.clone();
            tokio::spawn(async move {
                // Distinct queries, so single-flight does not merge them.
                let req = FanoutRequest::from_queries(Mode::Deep, [format!("load query {i}")]);
                let t = Instant::now();
                let outcome = f.run(&req).await;
                let ok = outcome.as_ref().is_ok_and(|o| {
                    o.failures.is_empty()
                        && o.calls.len() == ENGINES
                        && o.reports.iter().all(|r| r.status == EngineStatus::Ok)
                });
                (ok, t.elapsed())
            })
        })
        .collect();
    let mut errors = 0usize;
    let mut latencies = Vec::with_capacity(searches);
    for t in tasks {
        match t.await {
            Ok((ok, elapsed)) => {
                errors += usize::from(!ok);
                latencies.push(elapsed);
            }
            Err(_) => errors += 1,
        }
    }
    let wall = start.elapsed();
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "fanout_load: {searches} concurrent searches × {ENGINES} engines × {delay_ms} ms delay ({})",
        if bare {
            "bare engines"
        } else {
            "layered engines"
        }
    );
    println!("errors: {errors}");
    if !latencies.is_empty() {
        println!(
            "latency ms: p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1}",
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.9)),
            ms(percentile(&latencies, 0.99)),
            ms(percentile(&latencies, 1.0))
        );
    }
    println!("total wall: {:.1} ms", ms(wall));
    match (rss_before, status_kb("VmHWM:")) {
        (Some(before), Some(peak)) => {
            println!(
                "peak RSS (VmHWM): {:.1} MiB (RSS before the run {:.1} MiB)",
                peak as f64 / 1024.0,
                before as f64 / 1024.0
            )
        }
        _ => println!("peak RSS: /proc/self/status not available on this system"),
    }
    if errors > 0 {
        std::process::exit(1);
    }
}
