//! The cost of the research loop's own work on a fetched page (no network):
//! reading a page into the constraint ledger — the page split into
//! sentences once, each constraint judged (supports / refutes / unrelated)
//! over one sentence or two adjacent ones, the verbatim quote for each
//! verdict — and grading each piece of support with the default
//! Selection × Absorption scorer.
//!
//! - `research/ledger/<page>`: a fresh ledger for a three-constraint plan,
//!   one page added with the scorer, on real captured pages from
//!   `$FERRET_SHARED/fixtures/sites` (Wikipedia article, HN thread with 566
//!   comments, GitHub issue page), text extracted once beforehand;
//! - `research/ledger/synthetic_200k`: the same on 200 000 characters of
//!   prose that mentions every term many times (the quote search's worst
//!   case: the occurrence cap per term is reached).
//!
//! `cargo bench --bench research`. Without the fixtures the page benches
//! print a skip line.

use std::hint::black_box;

use chrono::{TimeZone, Utc};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ferret::core::plan::{HeuristicPlanner, Plan, PlanOptions};
use ferret::core::{Provenance, Runtime};
use ferret::evidence::fetch::{FetchOptions, from_html};
use ferret::evidence::ledger::{Ledger, PageEvidence};
use ferret::evidence::scorer::{EvidenceScorer, ScoreInput, ScorerJudge, SelectionAbsorption};

const QUESTION: &str = "Rust programming language with memory safety without a garbage collector, \
    first stable release 1.0 in 2015, and ownership and borrowing rules";

#[path = "support/site_pages.rs"]
mod site_pages;

static PUBLIC: Provenance = Provenance::public(Runtime::Http);

fn read_page(plan: &Plan, url: &str, title: &str, text: &str) -> Ledger {
    let scorer = SelectionAbsorption::new();
    let now = Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap();
    let mut ledger = Ledger::new(plan);
    let page = PageEvidence::new(url, title, text, &PUBLIC);
    ledger.add_page_scored(&page, &ScorerJudge(&scorer), &mut |req| {
        Some(scorer.score(&ScoreInput::from_request(req, None, None, now)))
    });
    ledger
}

fn bench_ledger(c: &mut Criterion) {
    let plan = HeuristicPlanner::new()
        .plan_sync(QUESTION, &PlanOptions::new())
        .expect("plan");
    let mut group = c.benchmark_group("research/ledger");

    let synthetic = "Rust reached its first stable release, 1.0, in 2015. Ownership and borrowing \
        rules give memory safety without a garbage collector, which is why the language is used \
        for systems programming. "
        .repeat(1000);
    let synthetic: String = synthetic.chars().take(200_000).collect();
    group.throughput(Throughput::Bytes(synthetic.len() as u64));
    group.bench_function("synthetic_200k", |b| {
        b.iter(|| {
            black_box(read_page(
                &plan,
                "https://example.com/rust",
                "Rust",
                black_box(&synthetic),
            ))
        })
    });

    if let Some(pages) = site_pages::load() {
        let options = FetchOptions::default();
        for site_pages::SitePage { name, html, url } in &pages {
            let page = from_html(html, Some(url), &options);
            let title = page.title.clone().unwrap_or_default();
            group.throughput(Throughput::Bytes(page.text.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(name), &page.text, |b, text| {
                b.iter(|| black_box(read_page(&plan, url, &title, black_box(text))))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_ledger);
criterion_main!(benches);
