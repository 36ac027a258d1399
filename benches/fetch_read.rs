//! The cost of reading a fetched page, without the network: what the fetch
//! ladder does to every HTTP or browser response after the bytes arrive.
//!
//! - `fetch_read/from_html/<page>`: `ferret::evidence::fetch::from_html` —
//!   extraction, verdict score, quality signals and the content-safety scan
//!   (hidden text, link farms, injection phrases) — on real captured pages
//!   from `$FERRET_SHARED/fixtures/sites` (Wikipedia article, HN thread with
//!   566 comments, GitHub issue page);
//! - `fetch_read/safety/<page>`: `safety::scan` alone on the same pages
//!   (without a page URL, so every absolute link counts as outbound);
//! - `fetch_read/assess`: `verify::assess` on 20 000 characters of text.
//!
//! `cargo bench --bench fetch_read`. Without the fixtures the page benches
//! print a skip line.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ferret::evidence::fetch::{FetchOptions, from_html};
use ferret::evidence::safety;
use ferret::evidence::verify::{Source, VerifyInput, assess};

#[path = "support/site_pages.rs"]
mod site_pages;

fn bench_pages(c: &mut Criterion) {
    let Some(pages) = site_pages::load() else {
        return;
    };
    let pages: Vec<(&str, String, &str)> =
        pages.into_iter().map(|p| (p.name, p.html, p.url)).collect();
    let options = FetchOptions::default();
    let mut group = c.benchmark_group("fetch_read/from_html");
    for (name, html, url) in &pages {
        group.throughput(Throughput::Bytes(html.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), html, |b, html| {
            b.iter(|| black_box(from_html(black_box(html), Some(url), &options)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("fetch_read/safety");
    for (name, html, url) in &pages {
        let page = from_html(html, Some(url), &options);
        group.throughput(Throughput::Bytes(html.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), html, |b, html| {
            b.iter(|| {
                black_box(safety::scan(
                    black_box(&page.text),
                    Some(black_box(html)),
                    None,
                ))
            })
        });
    }
    group.finish();
}

fn bench_assess(c: &mut Criterion) {
    let text = "Caffeine delays sleep by blocking adenosine receptors; log in rarely. ".repeat(300);
    c.bench_function("fetch_read/assess", |b| {
        b.iter(|| {
            black_box(assess(&VerifyInput {
                status: Some(200),
                title: Some("Caffeine and sleep"),
                text: black_box(&text),
                raw_chars: Some(80_000),
                meta_count: 3,
                source: Source::Fetch,
                unrendered_js_shell: false,
                unsupported_content: false,
            }))
        })
    });
}

criterion_group!(benches, bench_pages, bench_assess);
criterion_main!(benches);
