//! The default evidence scorer (the weighted Selection × Absorption)
//! through the public API, and a custom scorer plugged into a research run.

mod research_support;

use std::sync::Arc;

use chrono::{TimeZone, Utc};
use ferret_core::plan::Constraint;
use ferret_evidence::fetch::BrowserMode;
use ferret_evidence::ledger::{
    CrossValidation, EvidenceScore, Ledger, LedgerConstraint, ScoreComponent,
};
use ferret_evidence::research::{Research, ResearchOptions, normalize_results};
use ferret_evidence::scorer::selection_absorption::{evidence_freshness, source_authority};
use ferret_evidence::scorer::serp::is_serp_or_jump_url;
use ferret_evidence::scorer::signals::absorption;
use ferret_evidence::scorer::{EvidenceScorer, PageSupport, ScoreInput, SelectionAbsorption};
use research_support::*;

fn input<'a>(
    url: &'a str,
    title: &'a str,
    passage: &'a str,
    terms: &'a [String],
    matched: &'a [String],
) -> ScoreInput<'a> {
    ScoreInput {
        constraint_id: "c1",
        constraint_text: "beryllium mirror segments",
        terms,
        matched_terms: matched,
        passage,
        url,
        title,
        text: passage,
        published_at: None,
        original_score: None,
        now: Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap(),
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_final_score_is_the_weighted_sum_of_its_components() {
    let terms = strings(&["beryllium", "mirror", "segments"]);
    let matched = strings(&["beryllium", "mirror"]);
    let scorer = SelectionAbsorption::new();
    let score = scorer.score(&input(
        "https://en.wikipedia.org/wiki/Beryllium",
        "Beryllium",
        "Beryllium is defined as a chemical element; mirror segments made of it weigh 40% less than glass.",
        &terms,
        &matched,
    ));
    let get = |n: &str| score.component(n).unwrap().value;
    // Wikipedia is a tier-1 domain in the authority table.
    assert_eq!(get("selection"), 1.0);
    // base .15 + numbers .22 + definition .18 + length .05
    assert!((get("absorption") - 0.60).abs() < 1e-9, "{score:#?}");
    assert_eq!(get("freshness"), 0.5);
    assert_eq!(get("original"), 0.5);
    assert!((get("term_coverage") - 2.0 / 3.0).abs() < 0.001);
    let expected = 0.40 * 1.0 + 0.35 * 0.60 + 0.15 * 0.5 + 0.10 * 0.5;
    assert!(
        (score.score - expected).abs() < 0.001,
        "{} vs {expected}",
        score.score
    );
    assert_eq!(score.scorer, "selection_x_absorption_v2.2");
}

#[test]
fn serp_urls_are_capped_and_never_evidence() {
    assert!(is_serp_or_jump_url(
        "https://www.bing.com/search?q=beryllium"
    ));
    let terms = strings(&["beryllium"]);
    let score = SelectionAbsorption::new().score(&input(
        "https://www.bing.com/search?q=beryllium",
        "beryllium - Search",
        "beryllium",
        &terms,
        &terms,
    ));
    assert_eq!(score.component("authority").unwrap().value, 0.12);
    assert!(score.component("selection").unwrap().value <= 0.15);
}

#[test]
fn documentation_and_paper_paths_add_to_authority() {
    let plain = source_authority("https://example.com/guide/intro");
    let docs = source_authority("https://example.com/docs/intro");
    let paper = source_authority("https://example.com/abs/2401.00001");
    assert!((docs.score - plain.score - 0.05).abs() < 1e-9);
    assert!((paper.score - plain.score - 0.05).abs() < 1e-9);
    assert!(docs.reason.contains("documentation path"));
}

#[test]
fn freshness_follows_the_age_ladder() {
    let now = Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap();
    let url = "https://example.com/a";
    let f = |date: Option<&str>, text: &str| evidence_freshness(date, "", text, url, now).score;
    assert_eq!(f(Some("2026-02-01"), ""), 0.9);
    assert_eq!(f(Some("2025-02-01"), ""), 0.8);
    assert_eq!(f(Some("2024-02-01"), ""), 0.65);
    assert_eq!(f(Some("2021-02-01"), ""), 0.45);
    assert_eq!(f(Some("2015-02-01"), ""), 0.25);
    assert_eq!(f(None, "published in 2026"), 0.85);
    assert_eq!(f(None, "on 2026-03-04 the team"), 0.9);
    assert_eq!(f(None, "nothing dated"), 0.5);
    assert_eq!(f(None, "the latest figures"), 0.6);
    assert_eq!(f(None, "growth since 2019 has been steady"), 0.5);
}

#[test]
fn absorption_signals_are_reported() {
    let a = absorption("Step 1: how to polish a mirror.", "Q: polishing?");
    assert!(a.signals.contains(&"how_to".to_string()));
    assert!(a.qa_format);
}

fn ledger_constraint() -> LedgerConstraint {
    Ledger::from_constraints(&[Constraint::new("c1", "beryllium mirror", true)])
        .constraints
        .remove(0)
}

#[test]
fn cross_validation_levels_count_supporting_domains() {
    let scorer = SelectionAbsorption::new();
    let c = ledger_constraint();
    let page = |url, supports| PageSupport { url, supports };
    let strong = scorer
        .cross_validate(
            &c,
            &[
                page("https://a.example/1", true),
                page("https://b.example/1", true),
                page("https://c.example/1", true),
                page("https://c.example/2", true),
            ],
        )
        .unwrap();
    assert_eq!((strong.level.as_str(), strong.score), ("strong", 0.9));
    assert_eq!(strong.domains.len(), 3);
    let same_site = scorer
        .cross_validate(
            &c,
            &[
                page("https://a.example/1", true),
                page("https://a.example/2", true),
                page("https://a.example/3", true),
            ],
        )
        .unwrap();
    assert_eq!(same_site.level, "weak", "one domain is never corroboration");
    let moderate = scorer
        .cross_validate(
            &c,
            &[
                page("https://a.example/1", true),
                page("https://b.example/1", true),
                page("https://c.example/1", false),
            ],
        )
        .unwrap();
    assert_eq!((moderate.level.as_str(), moderate.score), ("moderate", 0.7));
    let minimal = scorer
        .cross_validate(
            &c,
            &[
                page("https://a.example/1", true),
                page("https://b.example/1", false),
                page("https://c.example/1", false),
            ],
        )
        .unwrap();
    assert_eq!((minimal.level.as_str(), minimal.score), ("minimal", 0.3));
    let alone = scorer
        .cross_validate(&c, &[page("https://a.example/1", true)])
        .unwrap();
    assert_eq!((alone.level.as_str(), alone.score), ("insufficient", 0.3));
}

#[test]
fn high_stakes_boosts_corroborated_evidence() {
    let cross = |level: &str| CrossValidation {
        level: level.into(),
        score: 0.0,
        matching: 0,
        total: 0,
        domains: Vec::new(),
        detail: String::new(),
    };
    let base = EvidenceScore {
        scorer: "x".into(),
        score: 0.5,
        components: Vec::new(),
    };
    let mut s = base.clone();
    SelectionAbsorption::new().adjust(&mut s, "https://a.example/", &cross("strong"));
    assert_eq!(s.score, 0.5, "off unless high stakes");
    let high = SelectionAbsorption::new().high_stakes(true);
    let mut s = base.clone();
    high.adjust(&mut s, "https://a.example/", &cross("strong"));
    assert!((s.score - 0.55).abs() < 1e-9);
    let mut s = base.clone();
    high.adjust(&mut s, "https://a.example/", &cross("moderate"));
    assert!((s.score - 0.52).abs() < 1e-9);
    assert!(s.component("consensus_boost").is_some());
}

/// Scores everything 0.42, to show a scorer plugs in.
#[derive(Debug)]
struct Flat;

impl EvidenceScorer for Flat {
    fn name(&self) -> &str {
        "flat"
    }

    fn score(&self, input: &ScoreInput<'_>) -> EvidenceScore {
        EvidenceScore {
            scorer: "flat".into(),
            score: 0.42,
            components: vec![ScoreComponent::weighted(
                "constant",
                0.42,
                1.0,
                format!("{} on {}", input.constraint_id, input.url),
            )],
        }
    }
}

#[tokio::test]
async fn a_custom_scorer_plugs_into_the_research_run() {
    let web = LocalWeb::start().await;
    let mirror = web.url("lang.example", "/lumen/mirror");
    let research = Research::builder(fetcher()).scorer(Arc::new(Flat)).build();
    let report = research
        .run_with_results(
            QUESTION,
            normalize_results(&rows(&[(&mirror, "", "")]), QUESTION, None),
            &ResearchOptions::new()
                .with_browser(BrowserMode::Never)
                .with_now(now()),
        )
        .await
        .unwrap();
    assert_eq!(report.enrichment.scorer, "flat");
    let c1 = report.enrichment.ledger.constraint("c1").unwrap();
    assert_eq!(c1.best_score, Some(0.42));
    assert_eq!(c1.evidence[0].score.as_ref().unwrap().scorer, "flat");
    assert!(
        c1.cross_validation.is_none(),
        "Flat has no notion of cross-validation"
    );
}
