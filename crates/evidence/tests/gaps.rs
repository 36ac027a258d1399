//! The gap ledger through the public API: each gap type, the freshness
//! table and topic classifier, and the envelope.

use chrono::{DateTime, TimeZone, Utc};
use ferret_core::Provenance;
use ferret_core::Runtime;
use ferret_evidence::evidence_item::{Claim, EvidenceItem, QueryRole};
use ferret_evidence::gaps::{
    GapCheck, GapDetail, GapError, GapKind, GapLedger, GapOptions, NO_COUNTER_EVIDENCE_TAG,
    QUESTION_SUBJECT_ID, STALE_TAG, Topic, TopicSource, age_tag, classify_topic, gap_ledger,
};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 7, 1, 0, 0, 0).unwrap()
}

fn item(id: &str, url: &str, text: &str) -> EvidenceItem {
    EvidenceItem::new(id, url, Provenance::public(Runtime::Http))
        .expect("valid URL")
        .with_fetched_text(text)
}

fn kinds(ledger: &GapLedger) -> Vec<GapKind> {
    ledger.gaps.iter().map(|g| g.kind()).collect()
}

const BUN: &str =
    "Bun starts quickly and bundles a fast JavaScript runtime with a package manager.";
const DENO: &str =
    "Deno ships a secure JavaScript runtime with permissions and TypeScript support.";

#[test]
fn a_subject_without_counter_evidence_gets_the_missing_counter_evidence_gap() {
    let subjects = [Claim::new("c1", "Tokio uses a work-stealing scheduler")];
    let items = [
        item(
            "e1",
            "https://tokio.rs/blog",
            "The Tokio scheduler is work-stealing.",
        ),
        item(
            "e2",
            "https://docs.rs/tokio",
            "Tokio's work-stealing scheduler balances tasks.",
        ),
    ];
    let ledger = gap_ledger("Does Tokio use work stealing?", &subjects, &items, now()).unwrap();
    let gap = ledger
        .of_kind(GapKind::MissingCounterEvidence)
        .next()
        .expect("gap");
    assert_eq!(gap.subject_ids, vec!["c1"]);
    assert_eq!(gap.evidence_ids, vec!["e1", "e2"]);
    assert_eq!(gap.tags, vec![NO_COUNTER_EVIDENCE_TAG]);
    assert_eq!(gap.label, "缺反证");
}

#[test]
fn a_counter_evidence_item_about_the_subject_closes_that_gap() {
    let subjects = [Claim::new("c1", "Tokio uses a work-stealing scheduler")];
    let items = [
        item(
            "e1",
            "https://tokio.rs/blog",
            "The Tokio scheduler is work-stealing.",
        ),
        item(
            "e2",
            "https://news.ycombinator.com/item?id=1",
            "Tokio's current_thread scheduler does no work-stealing at all.",
        )
        .with_role(QueryRole::Counter),
    ];
    let ledger = gap_ledger("Does Tokio use work stealing?", &subjects, &items, now()).unwrap();
    assert!(
        !ledger.has(GapKind::MissingCounterEvidence),
        "{:?}",
        kinds(&ledger)
    );
    assert_eq!(ledger.subjects[0].counter_evidence_ids, vec!["e2"]);
}

#[test]
fn a_comparison_without_a_page_mentioning_both_sides_has_no_direct_comparison() {
    let items = [
        item("e1", "https://bun.sh/blog", BUN),
        item("e2", "https://deno.com/blog", DENO),
    ];
    let ledger = gap_ledger("Bun vs Deno", &[], &items, now()).unwrap();
    assert_eq!(ledger.sides, vec!["Bun", "Deno"]);
    let gap = ledger
        .of_kind(GapKind::NoDirectComparison)
        .next()
        .expect("gap");
    assert_eq!(gap.evidence_ids, vec!["e1", "e2"]);
    let GapDetail::NoDirectComparison { sides } = &gap.detail else {
        panic!("wrong detail {:?}", gap.detail);
    };
    assert_eq!(sides[0].evidence_ids, vec!["e1"]);
    assert_eq!(sides[1].evidence_ids, vec!["e2"]);
}

#[test]
fn a_page_mentioning_every_side_is_a_direct_comparison() {
    let items = [
        item("e1", "https://bun.sh/blog", BUN),
        item(
            "e2",
            "https://example.dev/bun-vs-deno",
            "We benchmarked Bun against Deno: Bun starts faster, Deno is stricter.",
        ),
    ];
    let ledger = gap_ledger("Bun vs Deno", &[], &items, now()).unwrap();
    assert!(!ledger.has(GapKind::NoDirectComparison));
}

#[test]
fn given_sides_replace_the_ones_found_in_the_question() {
    let items = [item("e1", "https://bun.sh/blog", BUN)];
    let ledger = GapCheck::new("Which runtime should I pick?", &[], &items)
        .with_sides(["Bun", "Node.js"])
        .run(now())
        .unwrap();
    assert!(ledger.has(GapKind::NoDirectComparison));
    let none = GapCheck::new("Bun vs Deno", &[], &items)
        .with_sides(Vec::<String>::new())
        .run(now())
        .unwrap();
    assert!(!none.has(GapKind::NoDirectComparison));
}

#[test]
fn support_from_one_domain_only_is_a_single_source_gap() {
    let subjects = [Claim::new("c1", "Deno has a permission system")];
    let items = [
        item(
            "e1",
            "https://deno.com/blog/v2",
            "Deno's permission system denies file access.",
        ),
        item(
            "e2",
            "https://docs.deno.com/runtime",
            "The permission system of Deno is opt-in.",
        ),
    ];
    let ledger = gap_ledger("Deno permissions", &subjects, &items, now()).unwrap();
    let gap = ledger.of_kind(GapKind::SingleSource).next().expect("gap");
    assert_eq!(
        gap.detail,
        GapDetail::SingleSource {
            domain: "deno.com".into()
        }
    );
    assert_eq!(gap.evidence_ids, vec!["e1", "e2"]);
}

#[test]
fn support_from_two_domains_is_not_a_single_source() {
    let subjects = [Claim::new("c1", "Deno has a permission system")];
    let items = [
        item(
            "e1",
            "https://deno.com/blog/v2",
            "Deno's permission system denies file access.",
        ),
        item(
            "e2",
            "https://lwn.net/deno",
            "Deno's permission system is opt-in.",
        ),
    ];
    let ledger = gap_ledger("Deno permissions", &subjects, &items, now()).unwrap();
    assert!(!ledger.has(GapKind::SingleSource));
    assert_eq!(ledger.subjects[0].domains, vec!["deno.com", "lwn.net"]);
}

#[test]
fn evidence_older_than_the_topic_limit_is_stale_with_age_tags() {
    let items = [
        item("e1", "https://openai.com/blog", "GPT agents call tools.")
            .with_published_at("2024-05-01"),
        item("e2", "https://example.com/recent", "LLM agents call tools.")
            .with_published_at("2026-05-01"),
    ];
    let ledger = gap_ledger("LLM agents tool calling", &[], &items, now()).unwrap();
    assert_eq!(ledger.topic.topic, Topic::Ai);
    let stale: Vec<_> = ledger.of_kind(GapKind::StaleEvidence).collect();
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].evidence_ids, vec!["e1"]);
    assert_eq!(stale[0].tags, vec!["[age: 2 years]", STALE_TAG]);
    let GapDetail::StaleEvidence {
        max_age_months,
        age_days,
        ..
    } = stale[0].detail
    else {
        panic!("wrong detail");
    };
    assert_eq!(max_age_months, 6);
    assert_eq!(age_days, 791);
}

#[test]
fn the_same_age_is_fresh_for_a_theory_question() {
    let items = [
        item("e1", "https://example.edu/paxos", "Paxos proof of safety.")
            .with_published_at("2024-05-01"),
    ];
    let ledger = gap_ledger("Paxos safety proof", &[], &items, now()).unwrap();
    assert_eq!(ledger.topic.topic, Topic::Theory);
    assert!(!ledger.has(GapKind::StaleEvidence));
}

#[test]
fn a_general_question_has_no_age_limit() {
    let items = [item(
        "e1",
        "https://example.com/bread",
        "Sourdough bread needs a starter.",
    )
    .with_published_at("1999-01-01")];
    let ledger = gap_ledger("sourdough bread starter", &[], &items, now()).unwrap();
    assert_eq!(ledger.topic.topic, Topic::General);
    assert_eq!(ledger.topic.max_age_months, None);
    assert!(!ledger.has(GapKind::StaleEvidence));
}

#[test]
fn a_given_topic_overrides_the_classifier() {
    let items = [item(
        "e1",
        "https://example.com/bread",
        "Sourdough bread needs a starter.",
    )
    .with_published_at("2026-01-01")];
    let ledger = GapCheck::new("sourdough bread starter", &[], &items)
        .with_topic(Topic::CvePatch)
        .run(now())
        .unwrap();
    assert_eq!(ledger.topic.source, TopicSource::Override);
    let gap = ledger
        .of_kind(GapKind::StaleEvidence)
        .next()
        .expect("stale");
    assert_eq!(gap.tags[0], "[age: 5 months]");
}

#[test]
fn items_without_a_readable_date_are_listed_and_never_stale() {
    let items = [
        item("e1", "https://openai.com/blog", "GPT agents call tools."),
        item("e2", "https://openai.com/blog2", "GPT agents call tools.")
            .with_published_at("sometime last spring"),
    ];
    let ledger = gap_ledger("LLM agents", &[], &items, now()).unwrap();
    assert_eq!(ledger.undated_evidence, vec!["e1", "e2"]);
    assert!(!ledger.has(GapKind::StaleEvidence));
}

#[test]
fn topics_follow_the_freshness_by_domain_table() {
    let cases = [
        ("CVE-2024-3094 xz backdoor patch", Topic::CvePatch, Some(3)),
        ("LLM agents in Rust", Topic::Ai, Some(6)),
        ("大模型 推理 优化", Topic::Ai, Some(6)),
        ("React server components", Topic::Framework, Some(12)),
        ("Rust borrow checker", Topic::Language, Some(12)),
        ("senior engineer salary 2026", Topic::Hiring, Some(12)),
        ("Kubernetes ingress controller", Topic::Infra, Some(24)),
        ("SSRF mitigation patterns", Topic::SecurityPattern, Some(24)),
        ("Paxos consensus proof", Topic::Theory, Some(60)),
        ("how to maintain a sourdough starter", Topic::General, None),
    ];
    for (q, topic, months) in cases {
        let c = classify_topic(q);
        assert_eq!((c.topic, c.max_age_months), (topic, months), "{q}");
    }
}

#[test]
fn age_tags_count_whole_years_then_whole_months() {
    assert_eq!(age_tag(800), "[age: 2 years]");
    assert_eq!(age_tag(365), "[age: 11 months]");
    assert_eq!(age_tag(366), "[age: 1 year]");
    assert_eq!(age_tag(100), "[age: 3 months]");
    assert_eq!(age_tag(3), "[age: 1 month]");
}

#[test]
fn a_claim_beyond_what_any_page_says_is_out_of_scope_extrapolation() {
    let subjects = [Claim::new(
        "c1",
        "Tokio supports io_uring on Windows servers",
    )];
    let items = [item(
        "e1",
        "https://tokio.rs/blog",
        "Tokio supports io_uring through the tokio-uring crate on Linux.",
    )];
    let ledger = gap_ledger("Tokio io_uring", &subjects, &items, now()).unwrap();
    let gap = ledger
        .of_kind(GapKind::OutOfScopeExtrapolation)
        .next()
        .expect("gap");
    let GapDetail::OutOfScopeExtrapolation {
        uncovered_terms, ..
    } = &gap.detail
    else {
        panic!("wrong detail");
    };
    assert_eq!(
        uncovered_terms,
        &vec!["window".to_string(), "server".to_string()]
    );
    assert_eq!(gap.evidence_ids, vec!["e1"]);
}

#[test]
fn a_subject_nothing_is_about_gets_only_the_no_evidence_gap() {
    let subjects = [Claim::new("c1", "PostgreSQL vacuum reclaims dead tuples")];
    let items = [item("e1", "https://tokio.rs/blog", "Tokio is a runtime.")];
    let ledger = gap_ledger("PostgreSQL vacuum", &subjects, &items, now()).unwrap();
    assert_eq!(kinds(&ledger), vec![GapKind::NoEvidence]);
    assert_eq!(ledger.gaps[0].subject_ids, vec!["c1"]);
    assert_eq!(ledger.gaps[0].id, "g1");
}

#[test]
fn unfetched_items_are_not_evidence_and_are_listed() {
    let items = [EvidenceItem::new(
        "e1",
        "https://tokio.rs/blog",
        Provenance::public(Runtime::Http),
    )
    .unwrap()
    .with_title("Tokio uses a work-stealing scheduler")];
    let subjects = [Claim::new("c1", "Tokio uses a work-stealing scheduler")];
    let ledger = gap_ledger("Tokio", &subjects, &items, now()).unwrap();
    assert_eq!(ledger.unfetched_evidence, vec!["e1"]);
    assert_eq!(kinds(&ledger), vec![GapKind::NoEvidence]);
}

#[test]
fn an_item_gathered_for_a_subject_is_about_it() {
    let subjects = [Claim::new("q2", "Which scheduler does it use")];
    let items = [item("e1", "https://tokio.rs/blog", "Work stealing.").with_subjects(["q2"])];
    let ledger = gap_ledger("Tokio", &subjects, &items, now()).unwrap();
    assert_eq!(ledger.subjects[0].evidence_ids, vec!["e1"]);
    assert!(!ledger.has(GapKind::NoEvidence));
}

#[test]
fn without_subjects_the_question_itself_is_checked() {
    let items = [item(
        "e1",
        "https://tokio.rs/blog",
        "Tokio scheduler work stealing.",
    )];
    let ledger = gap_ledger("Tokio scheduler work stealing", &[], &items, now()).unwrap();
    assert_eq!(ledger.subjects[0].id, QUESTION_SUBJECT_ID);
    assert!(
        ledger
            .gaps
            .iter()
            .all(|g| g.subject_ids == vec![QUESTION_SUBJECT_ID])
    );
}

#[test]
fn repeated_subject_ids_are_refused() {
    let subjects = [Claim::new("c1", "a"), Claim::new("c1", "b")];
    let err = gap_ledger("q", &subjects, &[], now()).unwrap_err();
    assert_eq!(err, GapError::DuplicateSubject("c1".into()));
}

#[test]
fn out_of_range_options_are_refused() {
    let err = GapCheck::new("q", &[], &[])
        .with_options(GapOptions {
            scope_min_coverage: 1.5,
            ..GapOptions::default()
        })
        .run(now())
        .unwrap_err();
    assert!(
        matches!(
            err,
            GapError::Option(ferret_evidence::option_error::OptionError {
                name: "scope_min_coverage",
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn the_ledger_is_the_gaps_envelope_in_snake_case() {
    let items = [
        item("e1", "https://bun.sh/blog", BUN).with_published_at("2020-01-01"),
        item("e2", "https://deno.com/blog", DENO),
    ];
    let ledger = gap_ledger("Bun vs Deno JavaScript runtime", &[], &items, now()).unwrap();
    let json = serde_json::to_value(&ledger).unwrap();
    assert_eq!(json["schema"], "ferret.gaps.v1");
    let kinds: Vec<&str> = json["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"no_direct_comparison"), "{kinds:?}");
    assert!(kinds.contains(&"stale_evidence"), "{kinds:?}");
    assert!(kinds.contains(&"missing_counter_evidence"), "{kinds:?}");
    let back: GapLedger = serde_json::from_value(json).unwrap();
    assert_eq!(back, ledger);
}
