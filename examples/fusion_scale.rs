//! Fusion at scale: wall time and peak memory of `fuse` on the synthetic
//! input of `shared/bench/peers/fusion_peers.py` (8 engines × N results).
//!
//! ```text
//! cargo run --release --example fusion_scale -- --per-engine 125000 [--runs 3] [--no-near-dup]
//! cargo run --release --example fusion_scale -- --per-engine 50 --digest
//! cargo run --release --example fusion_scale -- --per-engine 1250 --output-digest
//! ```
//!
//! Prints one JSON line: input size, the number of distinct canonical URLs
//! ("truth"), results, near-duplicates folded, each run's time, and memory:
//! CPU time of each run (all threads, from `/proc/self/stat`, 10 ms
//! resolution: wall time on a shared machine includes waiting for a core),
//! and memory:
//! the resident set before fusing, the peak while fusing (the kernel's
//! high-water mark, reset through `/proc/self/clear_refs` after the input is
//! built), and the difference per input hit. `--digest` prints the input's
//! digest instead, to check it against the Python generator;
//! `--output-digest` adds the digest of the fused output's JSON
//! (`output_digest`), to check that a change to fusion left its output
//! byte for byte the same.
//! `scripts/bench-fusion` runs this at 10k, 100k and 1M hits.

use std::process::ExitCode;
use std::time::Instant;

use ferret::core::freshness::parse_date;
use ferret::core::fusion::{FusionOptions, fuse};

#[path = "../benches/support/fusion_input.rs"]
mod fusion_input;

/// A `/proc/self/status` field in kB (Linux), if readable.
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

/// CPU time of the whole process (all threads, exited ones included) in ms,
/// from `/proc/self/stat` (clock ticks, usually 10 ms), so the numbers mean
/// something on a machine busy with other work.
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may contain spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) * 10.0)
}

/// Reset the peak-RSS mark (Linux ≥ 4.0); false when not possible.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

struct Args {
    per_engine: usize,
    runs: usize,
    near_dup: bool,
    digest: bool,
    output_digest: bool,
}

/// FNV-1a over `bytes`.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        per_engine: 125_000,
        runs: 3,
        near_dup: true,
        digest: false,
        output_digest: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<usize, String> {
            it.next()
                .ok_or(format!("{name} needs a number"))?
                .parse()
                .map_err(|e| format!("{name}: {e}"))
        };
        match a.as_str() {
            "--per-engine" => args.per_engine = value("--per-engine")?,
            "--runs" => args.runs = value("--runs")?.max(1),
            "--no-near-dup" => args.near_dup = false,
            "--digest" => args.digest = true,
            "--output-digest" => args.output_digest = true,
            other => {
                return Err(format!(
                    "unknown argument {other:?}; use --per-engine N [--runs R] [--no-near-dup] [--digest] [--output-digest]"
                ));
            }
        }
    }
    if args.per_engine == 0 {
        return Err("--per-engine must be at least 1".into());
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fusion_scale: {e}");
            return ExitCode::from(2);
        }
    };
    let t = Instant::now();
    let (input, truth) = fusion_input::make_input(args.per_engine, 1);
    if args.digest {
        println!(
            "{{\"per_engine\":{},\"truth\":{},\"digest\":\"{:016x}\"}}",
            args.per_engine,
            truth,
            fusion_input::digest(&input)
        );
        return ExitCode::SUCCESS;
    }
    let calls = fusion_input::into_engine_calls(input);
    let gen_ms = t.elapsed().as_secs_f64() * 1e3;
    let hits = args.per_engine * fusion_input::ENGINES.len();

    let base = FusionOptions::new(fusion_input::QUERY);
    let now = parse_date("2026-11-29T00:00:00Z", base.now).expect("a valid date");
    let mut options = base.with_now(now);
    if !args.near_dup {
        options = options.with_near_dup(None);
    }

    let mut times = Vec::with_capacity(args.runs);
    let mut cpu_times = Vec::with_capacity(args.runs);
    let mut rss_before = 0;
    let mut peak = 0;
    let mut summary = (0, 0, 0, 0);
    let mut output_digest = String::new();
    for _ in 0..args.runs {
        rss_before = status_kb("VmRSS:").unwrap_or(0);
        let peak_ok = reset_peak();
        let cpu = cpu_ms();
        let t = Instant::now();
        let fused = fuse(&calls, &options);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(a), Some(b)) = (cpu, cpu_ms()) {
            cpu_times.push(b - a);
        }
        peak = if peak_ok {
            status_kb("VmHWM:").unwrap_or(0)
        } else {
            0
        };
        summary = (
            fused.stats.merged,
            fused.results.len(),
            fused.stats.near_duplicates,
            fused.unresolvable.len(),
        );
        if args.output_digest {
            let json = serde_json::to_string(&fused).unwrap_or_default();
            output_digest = format!(",\"output_digest\":\"{:016x}\"", fnv(json.as_bytes()));
        }
        drop(fused);
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let extra_kb = peak.saturating_sub(rss_before);
    let times_json: Vec<String> = times.iter().map(|t| format!("{t:.1}")).collect();
    let cpu_json: Vec<String> = cpu_times.iter().map(|t| format!("{t:.0}")).collect();
    println!(
        "{{\"hits\":{hits},\"per_engine\":{},\"truth\":{truth},\"merged\":{},\"results\":{},\"near_duplicates\":{},\"unresolvable\":{},\"near_dup\":{},\"gen_ms\":{gen_ms:.0},\"fuse_ms\":[{}],\"fuse_cpu_ms\":[{}],\"min_ms\":{:.1},\"median_ms\":{median:.1},\"rss_before_kb\":{rss_before},\"peak_rss_kb\":{peak},\"peak_extra_kb\":{extra_kb},\"extra_bytes_per_hit\":{:.0}{output_digest}}}",
        args.per_engine,
        summary.0,
        summary.1,
        summary.2,
        summary.3,
        args.near_dup,
        times_json.join(","),
        cpu_json.join(","),
        sorted[0],
        extra_kb as f64 * 1024.0 / hits as f64,
    );
    ExitCode::SUCCESS
}
