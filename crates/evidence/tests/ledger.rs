//! The constraint ledger through its public API: only fetched page text is
//! evidence, support and refutation come from the judgement, a refuted
//! mandatory constraint is contested and keeps the ledger from ready,
//! quotes are verbatim, and the anchor, rivals, disconfirmation, scores
//! and JSON shape hold.

use ferret_core::plan::{Constraint, HeuristicPlanner, PlanOptions};
use ferret_core::{Provenance, Runtime};
use ferret_evidence::ledger::{
    Claim, ConstraintStatus, EvidenceScore, Judge, Judged, Judgement, Ledger, LedgerStatus,
    MAX_QUOTE_CHARS, PageEvidence, ReadText, ScoreComponent,
};

static PUBLIC: Provenance = Provenance::public(Runtime::Http);

const QUESTION: &str =
    "Is the Lumen 3 telescope mirror made of beryllium and cooled below 40 kelvin?";

fn constraint(id: &str, text: &str, mandatory: bool) -> Constraint {
    Constraint::new(id, text, mandatory)
}

fn plan_ledger() -> Ledger {
    let plan = HeuristicPlanner::new()
        .plan_sync(QUESTION, &PlanOptions::new())
        .expect("plan");
    Ledger::new(&plan)
}

fn page<'a>(url: &'a str, title: &'a str, text: &'a str) -> PageEvidence<'a> {
    PageEvidence::new(url, title, text, &PUBLIC)
}

#[test]
fn an_empty_page_supports_nothing() {
    let mut ledger = plan_ledger();
    let outcome = ledger.add_page(&page("https://lumen.example/a", "", ""));
    assert!(outcome.supported.is_empty());
    assert!(!ledger.ready);
    assert_eq!(ledger.status, LedgerStatus::InsufficientEvidence);
    assert_eq!(ledger.pending.len(), ledger.constraints.len());
    assert_eq!(ledger.pages_read, 1);
}

#[test]
fn a_title_that_states_the_claim_is_not_evidence() {
    let mut ledger = Ledger::from_constraints(&[constraint(
        "c1",
        "The Lumen 3 mirror is made of beryllium",
        true,
    )]);
    ledger.add_page(&page(
        "https://a.example/",
        "The Lumen 3 mirror is made of beryllium",
        "This page talks about gardening and the weather in spring.",
    ));
    assert_eq!(ledger.constraints[0].status, ConstraintStatus::Pending);
}

#[test]
fn a_page_stating_every_constraint_completes_the_ledger_with_verbatim_quotes() {
    let mut ledger = plan_ledger();
    let text = "The Lumen 3 telescope has a primary mirror made of beryllium segments.\n\n\
                A cryocooler keeps the Lumen 3 telescope mirror cooled below 40 kelvin during observations.";
    let outcome = ledger.add_page(&page("https://lumen.example/mirror", "Lumen 3", text));
    assert!(ledger.ready, "{:#?}", ledger.constraints);
    assert_eq!(ledger.status, LedgerStatus::Complete);
    assert_eq!(outcome.newly_supported.len(), ledger.constraints.len());
    for c in &ledger.constraints {
        let e = &c.evidence[0];
        assert_eq!(e.judgement, Judgement::Supports);
        assert_eq!(&text[e.quote.start..e.quote.end], e.quote.text);
        assert!(e.quote.text.chars().count() <= MAX_QUOTE_CHARS);
        assert_eq!(e.provenance, PUBLIC);
    }
}

#[test]
fn a_refuting_page_makes_the_constraint_contested_and_the_ledger_not_ready() {
    let mut ledger = Ledger::from_constraints(&[constraint(
        "c1",
        "The clinic recorded 64 animal cases in 2023",
        true,
    )]);
    ledger.add_page(&page(
        "https://a.example/",
        "",
        "The clinic recorded 64 animal cases in 2023, the report said.",
    ));
    assert!(ledger.ready);
    let outcome = ledger.add_page(&page(
        "https://b.example/",
        "",
        "The clinic recorded 46 animal cases in 2023.",
    ));
    assert_eq!(outcome.contradicting, vec!["c1".to_string()]);
    let c1 = ledger.constraint("c1").unwrap();
    assert_eq!(c1.status, ConstraintStatus::Contested);
    assert_eq!(c1.evidence.len(), 1);
    assert_eq!(c1.refutations.len(), 1);
    assert!(
        c1.refutations[0]
            .reason
            .starts_with("number_mismatch: 46 vs 64"),
        "{}",
        c1.refutations[0].reason
    );
    assert!(!ledger.ready);
    assert_eq!(ledger.contested, vec!["c1".to_string()]);
    assert_eq!(ledger.disconfirm.contradicting[0].url, "https://b.example/");
    assert!(
        ledger.disconfirm.contradicting[0]
            .quote
            .contains("46 animal cases")
    );
    assert_eq!(ledger.summary().contested, vec!["c1".to_string()]);
}

#[test]
fn an_on_topic_page_that_does_not_state_the_claim_does_not_count() {
    let mut ledger = Ledger::from_constraints(&[constraint(
        "c1",
        "The Lumen 3 mirror is made of beryllium",
        true,
    )]);
    ledger.add_page(&page(
        "https://a.example/",
        "",
        "The Lumen 3 telescope opened in 2024. Its builders considered beryllium, glass and aluminium for many parts.",
    ));
    let c1 = &ledger.constraints[0];
    assert_eq!(c1.status, ConstraintStatus::Pending);
    assert!(c1.evidence.is_empty() && c1.refutations.is_empty());
}

#[test]
fn support_across_two_sentences_is_weak_and_still_counts() {
    let mut ledger = Ledger::from_constraints(&[constraint(
        "c1",
        "The Larkspur cooperative paid a dividend of 42 credits",
        true,
    )]);
    ledger.add_page(&page(
        "https://a.example/",
        "",
        "The Larkspur cooperative met on Monday. It paid members a dividend of 42 credits.",
    ));
    let c1 = &ledger.constraints[0];
    assert_eq!(c1.status, ConstraintStatus::Weak, "{c1:#?}");
    assert!(ledger.ready && ledger.weak);
    assert_eq!(ledger.weak_constraints, vec!["c1".to_string()]);
}

#[test]
fn optional_constraints_never_block_readiness() {
    let mut ledger = Ledger::from_constraints(&[
        constraint("c1", "The mirror segments are made of beryllium", true),
        constraint("c2", "ideally a gold coating", false),
    ]);
    ledger.add_page(&page(
        "https://a.example/",
        "",
        "The mirror segments are made of beryllium.",
    ));
    assert!(ledger.ready);
    assert_eq!(ledger.optional_pending, vec!["c2".to_string()]);
    assert!(ledger.pending.is_empty());
}

#[test]
fn quotes_stay_short_and_hold_the_stating_sentence() {
    let filler = "Unrelated words about gardening and weather. ".repeat(30);
    let text = format!(
        "beryllium appears here. {filler} The mirror segments use beryllium for stiffness. {filler} segments again."
    );
    let mut ledger =
        Ledger::from_constraints(&[constraint("c1", "The mirror segments use beryllium", true)]);
    ledger.add_page(&page("https://a.example/", "", &text));
    let q = &ledger.constraints[0].evidence[0].quote;
    assert!(q.text.chars().count() <= MAX_QUOTE_CHARS);
    assert_eq!(&text[q.start..q.end], q.text);
    assert!(
        q.text
            .contains("The mirror segments use beryllium for stiffness."),
        "{q:?}"
    );
}

#[test]
fn a_copy_that_agrees_counts_once_and_a_copy_that_disagrees_refutes() {
    let mut ledger = Ledger::from_constraints(&[constraint(
        "c1",
        "The mirror segments are made of beryllium",
        true,
    )]);
    let text = "The mirror segments are made of beryllium.";
    ledger.add_page(&page("https://a.example/", "", text));
    ledger.add_page(
        &page("https://mirror.example/reprint", "", text).with_copy_of("https://a.example/"),
    );
    let c1 = &ledger.constraints[0];
    assert_eq!(c1.evidence.len(), 1);
    assert_eq!(
        c1.evidence[0].also_at,
        vec!["https://mirror.example/reprint".to_string()]
    );
    ledger.add_page(
        &page(
            "https://edited.example/",
            "",
            "The mirror segments are not made of beryllium.",
        )
        .with_copy_of("https://a.example/"),
    );
    assert_eq!(ledger.constraints[0].status, ConstraintStatus::Contested);
}

#[test]
fn the_anchor_is_the_longest_mandatory_constraint() {
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
    assert!(!ledger.rivals.sufficient);
    ledger.register_rivals(["Node.js", "Bun", "  "]);
    assert_eq!(ledger.rivals.names.len(), 3);
    assert!(ledger.rivals.sufficient);
    ledger.add_page(&page(
        "https://bench.example/",
        "",
        "Bun starts faster than Node.js in this benchmark.",
    ));
    let urls = |name: &str| {
        ledger
            .rivals
            .mentions
            .iter()
            .find(|m| m.name == name)
            .unwrap()
            .urls
            .clone()
    };
    assert_eq!(urls("Bun"), vec!["https://bench.example/".to_string()]);
    assert_eq!(urls("Node.js").len(), 1);
}

#[test]
fn disconfirm_pages_are_tracked_and_an_empty_one_is_not_a_check() {
    let mut ledger = plan_ledger();
    assert!(!ledger.disconfirm.queries.is_empty());
    ledger.add_page(&page("https://x.example/", "", "  ").with_disconfirm(true));
    assert!(!ledger.disconfirm.checked);
    ledger.add_page(
        &page(
            "https://myth.example/",
            "",
            "Contrary to reports, the Lumen 3 telescope mirror is not made of beryllium; it is glass.",
        )
        .with_disconfirm(true),
    );
    assert!(ledger.disconfirm.checked);
    assert_eq!(
        ledger.disconfirm.pages,
        vec!["https://myth.example/".to_string()]
    );
    let refuted: Vec<_> = ledger
        .constraints
        .iter()
        .filter(|c| c.status == ConstraintStatus::Contested)
        .collect();
    assert_eq!(refuted.len(), 1, "{:#?}", ledger.constraints);
    assert!(refuted[0].refutations[0].from_disconfirm);
    assert!(refuted[0].refutations[0].reason.starts_with("negated"));
}

/// A judge that refutes everything, to show the ledger takes the plug-in's
/// verdict.
struct Contrarian;

impl Judge for Contrarian {
    fn judge(&self, _claim: &Claim, page: &ReadText<'_>) -> Judged {
        Judged {
            judgement: Judgement::Refutes,
            reason: "contrarian".into(),
            window: Some(0..page.page().text.len()),
            matched: Vec::new(),
            strength: 1.0,
        }
    }
}

#[test]
fn the_ledger_takes_the_plugged_in_judgement_and_keeps_the_best_score() {
    let mut ledger =
        Ledger::from_constraints(&[constraint("c1", "beryllium mirror segments", true)]);
    ledger.add_page_scored(
        &page("https://a.example/", "", "beryllium mirror segments"),
        &Contrarian,
        &mut |_| None,
    );
    assert_eq!(ledger.constraints[0].status, ConstraintStatus::Contested);
    assert_eq!(ledger.constraints[0].refutations[0].reason, "contrarian");

    let mut ledger = Ledger::from_constraints(&[constraint(
        "c1",
        "The mirror segments are made of beryllium",
        true,
    )]);
    let mut next = 0.4;
    let mut scorer = |_: &ferret_evidence::ledger::ScoreRequest<'_>| {
        next += 0.2;
        Some(EvidenceScore {
            scorer: "test".into(),
            score: next,
            components: vec![ScoreComponent::weighted("x", next, 1.0, "")],
        })
    };
    let judge = ferret_evidence::ledger::DefaultJudge;
    for url in ["https://a.example/", "https://b.example/"] {
        ledger.add_page_scored(
            &page(url, "", "The mirror segments are made of beryllium."),
            &judge,
            &mut scorer,
        );
    }
    let c = &ledger.constraints[0];
    assert_eq!(c.evidence.len(), 2);
    assert!((c.best_score.unwrap() - 0.8).abs() < 1e-9);
    assert_eq!(c.evidence[0].score.as_ref().unwrap().scorer, "test");
}

#[test]
fn the_ledger_round_trips_through_json() {
    let mut ledger = Ledger::from_constraints(&[constraint(
        "c1",
        "The Lumen 3 telescope mirror is made of beryllium",
        true,
    )]);
    ledger.add_page(&page(
        "https://a.example/",
        "t",
        "The Lumen 3 telescope mirror is made of beryllium.",
    ));
    ledger.add_page(&page(
        "https://b.example/",
        "t",
        "The Lumen 3 telescope mirror is not made of beryllium.",
    ));
    let json = serde_json::to_value(&ledger).unwrap();
    assert_eq!(json["schema"], "ferret.ledger.v1");
    assert_eq!(json["constraints"][0]["status"], "contested");
    assert_eq!(
        json["constraints"][0]["evidence"][0]["judgement"],
        "supports"
    );
    assert_eq!(
        json["constraints"][0]["refutations"][0]["judgement"],
        "refutes"
    );
    assert_eq!(json["constraints"][0]["facts"][0], "Lumen");
    let back: Ledger = serde_json::from_value(json).unwrap();
    assert_eq!(back, ledger);
}
