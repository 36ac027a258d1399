//! Main-content extraction speed on the article-extraction benchmark pages.
//!
//! Reads the 181 real pages from `$FERRET_SHARED/bench/article-extraction/html`
//! (or `<workspace>/../shared/...`), decompressed once with `gzip -dc` before
//! any timing, then measures `ferret::evidence::extract::extract`:
//!
//! - `extract/page/<size>`: five representative pages (the smallest, the
//!   quartiles and the largest by HTML size);
//! - `extract/all_pages`: one pass over all pages; the throughput line is
//!   pages per second.
//!
//! `cargo bench --bench extract`. Without the pages it prints a skip line.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ferret::evidence::extract::{ExtractOptions, extract};

fn pages_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("bench/article-extraction/html");
    dir.is_dir().then_some(dir)
}

/// (file stem, HTML) of every page, sorted by name.
fn load_pages() -> Option<Vec<(String, String)>> {
    let dir = pages_dir()?;
    let mut pages = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".html.gz"))
        .collect();
    entries.sort();
    for path in entries {
        let out = Command::new("gzip").arg("-dc").arg(&path).output().ok()?;
        if !out.status.success() {
            return None;
        }
        let name = path.file_name()?.to_string_lossy().replace(".html.gz", "");
        pages.push((name, String::from_utf8_lossy(&out.stdout).into_owned()));
    }
    (!pages.is_empty()).then_some(pages)
}

fn bench_extract(c: &mut Criterion) {
    let Some(pages) = load_pages() else {
        eprintln!("skipped: ../shared not present (or gzip missing); set FERRET_SHARED");
        return;
    };
    let options = ExtractOptions::default();

    let mut by_size: Vec<&(String, String)> = pages.iter().collect();
    by_size.sort_by_key(|(_, html)| html.len());
    let mut group = c.benchmark_group("extract/page");
    for q in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let (_, html) = by_size[((by_size.len() - 1) as f64 * q).round() as usize];
        group.throughput(Throughput::Bytes(html.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{}KiB", html.len() / 1024)),
            html,
            |b, html| b.iter(|| extract(black_box(html), None, &options)),
        );
    }
    group.finish();

    let mut group = c.benchmark_group("extract");
    group.sample_size(10);
    group.throughput(Throughput::Elements(pages.len() as u64));
    group.bench_function("all_pages", |b| {
        b.iter(|| {
            for (_, html) in &pages {
                black_box(extract(black_box(html), None, &options));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_extract);
criterion_main!(benches);
