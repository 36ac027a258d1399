//! The constraint ledger through its public API: support only from fetched
//! page text, seed 003's threshold and weak flag, quotes, readiness,
//! anchor, rivals and disconfirmation.

use ferret_core::{Provenance, Runtime};

const PUBLIC: Provenance = Provenance::public(Runtime::Http);

use ferret_core::ledger::{
    ConstraintStatus, EvidenceScore, Ledger, LedgerStatus, PageEvidence, QuoteField,
    ScoreComponent, match_constraint, match_terms, normalize_for_match,
};
use ferret_core::plan::{Constraint, HeuristicPlanner, PlanOptions};

fn constraint(id: &str, text: &str, mandatory: bool) -> Constraint {
    Constraint {
        id: id.into(),
        text: text.into(),
        terms: Vec::new(),
        mandatory,
    }
}

const QUESTION: &str =
    "Is the Lumen 3 telescope mirror made of beryllium and cooled below 40 kelvin?";

fn plan_ledger() -> Ledger {
    let plan = HeuristicPlanner::new()
        .plan_sync(QUESTION, &PlanOptions::new())
        .expect("plan");
    Ledger::new(&plan)
}

#[test]
fn does_not_let_search_result_titles_satisfy_constraints_when_fetched_page_evidence_is_empty() {
    // The search title says everything; the fetched page says nothing. The
    // ledger only ever sees the fetched title and text.
    let mut ledger = plan_ledger();
    let outcome = ledger.add_page(&PageEvidence::new(
        "https://lumen.example/a",
        "",
        "",
        &PUBLIC,
    ));
    assert!(outcome.supported.is_empty());
    assert!(!ledger.ready);
    assert_eq!(ledger.status, LedgerStatus::InsufficientEvidence);
    assert_eq!(ledger.pending, vec!["c1".to_string(), "c2".to_string()]);
    assert!(ledger.supported.is_empty());
    assert_eq!(ledger.pages_read, 1);
}

#[test]
fn fetched_text_supporting_every_constraint_makes_the_ledger_complete() {
    let mut ledger = plan_ledger();
    let text = "The Lumen 3 telescope has a primary mirror made of beryllium segments.\n\n\
                A cryocooler keeps the mirror cooled below 40 kelvin during observations.";
    let outcome = ledger.add_page(&PageEvidence::new(
        "https://lumen.example/mirror",
        "Lumen 3 mirror",
        text,
        &PUBLIC,
    ));
    assert_eq!(
        outcome.newly_supported,
        vec!["c1".to_string(), "c2".to_string()]
    );
    assert!(ledger.ready);
    assert_eq!(ledger.status, LedgerStatus::Complete);
    assert_eq!(serde_json::to_value(ledger.status).unwrap(), "complete");
    for c in &ledger.constraints {
        assert_eq!(c.status, ConstraintStatus::Supported, "{}", c.id);
        let e = &c.evidence[0];
        assert_eq!(e.url, "https://lumen.example/mirror");
        assert_eq!(e.quote.field, QuoteField::Text);
        assert_eq!(&text[e.quote.start..e.quote.end], e.quote.text);
        assert!(e.quote.text.chars().count() <= 200);
        assert!(!e.quote.terms.is_empty());
    }
    let c2 = ledger.constraint("c2").unwrap();
    assert!(c2.evidence[0].quote.text.contains("cooled below 40 kelvin"));
}

#[test]
fn support_needs_min_two_terms_and_is_weak_exactly_at_the_threshold() {
    let terms = match_terms(&constraint("c1", "Rust async runtime tokio", true));
    assert_eq!(terms, vec!["rust", "async", "runtime", "tokio"]);
    let one = match_constraint(&terms, "", "", "tokio is fast");
    assert_eq!((one.hits, one.threshold, one.supported), (1, 2, false));
    let two = match_constraint(&terms, "", "", "tokio is a runtime");
    assert!(two.supported && two.weak);
    let three = match_constraint(&terms, "", "", "tokio is an async runtime");
    assert!(three.supported && !three.weak);
    // A one-term constraint needs one hit, and that hit is weak.
    let single = match_terms(&constraint("c1", "beryllium", true));
    let m = match_constraint(&single, "", "", "Mirror of beryllium.");
    assert!(m.supported && m.weak);
}

#[test]
fn a_constraint_supported_only_by_borderline_pages_is_weak_and_still_counts() {
    let mut ledger = Ledger::from_constraints(&[constraint("c1", "tokio async runtime", true)]);
    ledger.add_page(&PageEvidence::new(
        "https://a.example/",
        "",
        "tokio runtime notes",
        &PUBLIC,
    ));
    assert_eq!(ledger.constraints[0].status, ConstraintStatus::Weak);
    assert!(ledger.ready);
    assert!(ledger.weak);
    assert_eq!(ledger.weak_constraints, vec!["c1".to_string()]);
    assert_eq!(ledger.supported, vec!["c1".to_string()]);
    ledger.add_page(&PageEvidence::new(
        "https://b.example/",
        "",
        "the tokio async runtime",
        &PUBLIC,
    ));
    assert_eq!(ledger.constraints[0].status, ConstraintStatus::Supported);
    assert!(!ledger.weak);
}

#[test]
fn terms_match_whole_words_not_inside_other_words() {
    let terms = match_terms(&constraint("c1", "java go", true));
    let m = match_constraint(&terms, "", "", "javascript and google");
    assert_eq!(m.hits, 0);
    let m = match_constraint(&terms, "", "", "Java, and Go.");
    assert_eq!(m.hits, 2);
}

#[test]
fn cjk_constraints_match_as_substrings() {
    let plan = HeuristicPlanner::new()
        .plan_sync("异步运行时的调度器", &PlanOptions::new())
        .unwrap();
    let mut ledger = Ledger::new(&plan);
    let text = "Tokio 的异步运行时使用工作窃取调度器。";
    ledger.add_page(&PageEvidence::new("https://zh.example/", "", text, &PUBLIC));
    assert!(ledger.ready, "{:#?}", ledger.constraints);
    let q = &ledger.constraints[0].evidence[0].quote;
    assert_eq!(&text[q.start..q.end], q.text);
}

#[test]
fn optional_constraints_never_block_readiness() {
    let mut ledger = Ledger::from_constraints(&[
        constraint("c1", "beryllium mirror segments", true),
        constraint("c2", "ideally a gold coating", false),
    ]);
    ledger.add_page(&PageEvidence::new(
        "https://a.example/",
        "",
        "The mirror segments are beryllium.",
        &PUBLIC,
    ));
    assert!(ledger.ready);
    assert_eq!(ledger.optional_pending, vec!["c2".to_string()]);
    assert!(ledger.pending.is_empty());
}

#[test]
fn a_title_only_match_is_quoted_from_the_title() {
    let mut ledger =
        Ledger::from_constraints(&[constraint("c1", "beryllium mirror segments", true)]);
    let title = "Beryllium mirror segments explained";
    ledger.add_page(&PageEvidence::new(
        "https://a.example/",
        title,
        "This page talks about something else entirely.",
        &PUBLIC,
    ));
    let q = &ledger.constraints[0].evidence[0].quote;
    assert_eq!(q.field, QuoteField::Title);
    assert_eq!(&title[q.start..q.end], q.text);
}

#[test]
fn quotes_stay_within_200_characters_and_pick_the_densest_window() {
    let filler = "Unrelated words about gardening and weather. ".repeat(30);
    let text = format!(
        "beryllium appears here. {filler} The mirror segments use beryllium for stiffness. {filler} segments again."
    );
    let mut ledger =
        Ledger::from_constraints(&[constraint("c1", "beryllium mirror segments", true)]);
    ledger.add_page(&PageEvidence::new("https://a.example/", "", &text, &PUBLIC));
    let q = &ledger.constraints[0].evidence[0].quote;
    assert!(q.text.chars().count() <= 200);
    assert_eq!(&text[q.start..q.end], q.text);
    assert_eq!(q.terms.len(), 3, "{q:?}");
    assert!(
        q.text
            .contains("The mirror segments use beryllium for stiffness.")
    );
}

#[test]
fn the_anchor_is_the_longest_mandatory_constraint() {
    let ledger = plan_ledger();
    assert_eq!(ledger.anchor.as_deref(), Some("c1"));
    let ledger = Ledger::from_constraints(&[
        constraint("c1", "a short one", true),
        constraint("c2", "a much longer optional constraint text", false),
        constraint("c3", "the longest mandatory constraint", true),
    ]);
    assert_eq!(ledger.anchor.as_deref(), Some("c3"));
}

#[test]
fn rivals_are_tracked_and_three_are_required() {
    let plan = HeuristicPlanner::new()
        .plan_sync("Bun vs Deno startup time", &PlanOptions::new())
        .unwrap();
    let mut ledger = Ledger::new(&plan);
    assert_eq!(ledger.rivals.names.len(), 2);
    assert_eq!(ledger.rivals.required, 3);
    assert!(!ledger.rivals.sufficient);
    ledger.register_rivals(["Node.js", "Bun", "  "]);
    assert_eq!(ledger.rivals.names.len(), 3);
    assert!(ledger.rivals.sufficient);
    ledger.add_page(&PageEvidence::new(
        "https://bench.example/",
        "",
        "Bun starts faster than Node.js in this benchmark.",
        &PUBLIC,
    ));
    let bun = ledger
        .rivals
        .mentions
        .iter()
        .find(|m| m.name == "Bun")
        .unwrap();
    assert_eq!(bun.urls, vec!["https://bench.example/".to_string()]);
    let node = ledger
        .rivals
        .mentions
        .iter()
        .find(|m| m.name == "Node.js")
        .unwrap();
    assert_eq!(node.urls.len(), 1);
    assert!(ledger.summary().rivals_sufficient);
}

#[test]
fn disconfirm_pages_are_tracked_and_contradictions_flagged() {
    let mut ledger = plan_ledger();
    assert!(!ledger.disconfirm.queries.is_empty());
    assert!(!ledger.disconfirm.checked);
    let text = "Contrary to reports, the Lumen 3 mirror is not made of beryllium; it is glass.";
    let outcome = ledger.add_page(
        &PageEvidence::new("https://myth.example/", "", text, &PUBLIC).with_disconfirm(true),
    );
    assert!(ledger.disconfirm.checked);
    assert_eq!(
        ledger.disconfirm.pages,
        vec!["https://myth.example/".to_string()]
    );
    assert_eq!(outcome.contradicting, vec!["c1".to_string()]);
    let c1 = ledger.constraint("c1").unwrap();
    assert!(c1.contested);
    assert!(c1.evidence[0].contradicts && c1.evidence[0].from_disconfirm);
    assert_eq!(ledger.disconfirm.contradicting[0].constraint_id, "c1");
    assert_eq!(ledger.summary().contested, vec!["c1".to_string()]);
}

#[test]
fn an_empty_disconfirm_page_does_not_count_as_checked() {
    let mut ledger = plan_ledger();
    ledger.add_page(
        &PageEvidence::new("https://x.example/", "", "  ", &PUBLIC).with_disconfirm(true),
    );
    assert!(!ledger.disconfirm.checked);
}

#[test]
fn scores_are_reported_alongside_and_the_best_is_kept() {
    let mut ledger = Ledger::from_constraints(&[constraint("c1", "beryllium mirror", true)]);
    let mut next = 0.4;
    let mut scorer = |_: &ferret_core::ledger::ScoreRequest<'_>| {
        next += 0.2;
        Some(EvidenceScore {
            scorer: "test".into(),
            score: next,
            components: vec![ScoreComponent::weighted("x", next, 1.0, "")],
        })
    };
    ledger.add_page_scored(
        &PageEvidence::new("https://a.example/", "", "beryllium mirror", &PUBLIC),
        &mut scorer,
    );
    ledger.add_page_scored(
        &PageEvidence::new("https://b.example/", "", "the beryllium mirror", &PUBLIC),
        &mut scorer,
    );
    let c = &ledger.constraints[0];
    assert_eq!(c.evidence.len(), 2);
    assert!((c.best_score.unwrap() - 0.8).abs() < 1e-9);
    assert_eq!(c.evidence[0].score.as_ref().unwrap().scorer, "test");
}

#[test]
fn the_ledger_round_trips_through_json() {
    let mut ledger = plan_ledger();
    ledger.add_page(&PageEvidence::new(
        "https://a.example/",
        "t",
        "The Lumen 3 telescope mirror is made of beryllium.",
        &PUBLIC,
    ));
    let json = serde_json::to_value(&ledger).unwrap();
    assert_eq!(json["schema"], "ferret.ledger.v1");
    assert_eq!(json["status"], "insufficient-evidence");
    assert_eq!(json["constraints"][0]["status"], "supported");
    let back: Ledger = serde_json::from_value(json).unwrap();
    assert_eq!(back, ledger);
}

#[test]
fn normalisation_is_letters_and_digits_lowercased() {
    assert_eq!(
        normalize_for_match("Hello, World! 40K — 异步"),
        "hello world 40k 异步"
    );
    assert_eq!(normalize_for_match("--- ..."), "");
}
