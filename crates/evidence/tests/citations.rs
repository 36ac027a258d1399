//! Claim–quote binding, citation tiers, the verbatim checker, evidence
//! labels and the speculation cap, through the public API.

use ferret_core::Provenance;
use ferret_core::Runtime;
use ferret_evidence::citations::{
    BindError, COVERAGE_LOW_FLAG, CitationError, CitationOptions, CitationTier, EvidenceLabel,
    UNCITEABLE_FLAG, UNCITEABLE_LABEL, UnciteableReason, bind_citations, bind_claims,
    check_citations, check_label_cap, check_quote, check_speculation_cap,
};
use ferret_evidence::evidence_item::{Claim, EvidenceItem, EvidenceItemError, SourceTier};

const TOKIO_TEXT: &str = "Tokio is an asynchronous runtime for the Rust programming language. \
It provides the building blocks needed for writing network applications.\n\n\
The scheduler is work-stealing: idle worker threads steal tasks from busy ones, \
which keeps every core occupied under uneven load while keeping latency low for most \
workloads that are dominated by input and output rather than by computation.";

fn fetched(id: &str, url: &str, text: &str) -> EvidenceItem {
    EvidenceItem::new(id, url, Provenance::public(Runtime::Http))
        .expect("valid URL")
        .with_title("A page")
        .with_fetched_text(text)
}

fn unfetched(id: &str, url: &str) -> EvidenceItem {
    EvidenceItem::new(id, url, Provenance::public(Runtime::Http))
        .expect("valid URL")
        .with_title("Tokio work-stealing scheduler explained")
}

#[test]
fn a_claim_is_bound_to_a_verbatim_quote_from_the_supporting_item() {
    let items = [
        fetched(
            "e1",
            "https://example.com/cooking",
            "Bake the bread for forty minutes.",
        ),
        fetched("e2", "https://tokio.rs/blog/scheduler", TOKIO_TEXT),
    ];
    let report = bind_claims(
        &["Tokio is an asynchronous runtime for Rust"],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    let c = &report.citations[0];
    let q = c.quote.as_ref().expect("a quote");
    assert_eq!(q.evidence_id, "e2");
    assert_eq!(q.url, "https://tokio.rs/blog/scheduler");
    assert_eq!(&items[1].text[q.start..q.end], q.text);
    assert!(q.text.contains("asynchronous runtime"), "{}", q.text);
    assert_eq!(c.claim_id, "claim1");
    assert!(c.flags.is_empty());
}

#[test]
fn a_long_sentence_is_narrowed_to_80_characters_at_word_boundaries() {
    let items = [fetched("e1", "https://tokio.rs/blog/scheduler", TOKIO_TEXT)];
    let report = bind_claims(
        &["idle worker threads steal tasks from busy ones"],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    let q = report.citations[0].quote.as_ref().expect("a quote");
    assert!(
        q.text.chars().count() <= 80,
        "{} chars",
        q.text.chars().count()
    );
    assert!(TOKIO_TEXT.contains(&q.text));
    assert!(q.text.contains("steal tasks from busy"), "{}", q.text);
    // Word boundaries: the characters around the quote are not letters.
    let before = TOKIO_TEXT[..q.start].chars().next_back();
    let after = TOKIO_TEXT[q.end..].chars().next();
    assert!(before.is_none_or(|c| !c.is_alphanumeric()), "{before:?}");
    assert!(after.is_none_or(|c| !c.is_alphanumeric()), "{after:?}");
}

#[test]
fn cjk_claims_are_matched_by_character_bigrams() {
    let text = "本文介绍天气。Tokio 的调度器采用工作窃取算法，空闲线程会从繁忙线程窃取任务。其他内容与此无关。";
    let items = [fetched("e1", "https://juejin.cn/post/1", text)];
    let report = bind_claims(
        &["Tokio 调度器使用工作窃取"],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    let q = report.citations[0].quote.as_ref().expect("a quote");
    assert!(q.text.contains("工作窃取"), "{}", q.text);
    assert!(text.contains(&q.text));
    assert!(q.matched_terms.iter().any(|t| t == "窃取"));
}

#[test]
fn a_claim_no_sentence_supports_is_unciteable_with_the_flag_and_label() {
    let items = [fetched("e1", "https://tokio.rs/blog/scheduler", TOKIO_TEXT)];
    let report = bind_claims(
        &["PostgreSQL vacuum reclaims dead tuples"],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    let c = &report.citations[0];
    assert!(c.quote.is_none());
    assert_eq!(c.flags, vec![UNCITEABLE_FLAG.to_string()]);
    assert_eq!(c.label.as_deref(), Some(UNCITEABLE_LABEL));
    assert!(matches!(
        c.unciteable,
        Some(UnciteableReason::NoSupportingSentence { .. })
    ));
    assert_eq!((report.cited, report.unciteable), (0, 1));
}

#[test]
fn unfetched_items_are_never_quoted_even_when_their_title_matches() {
    let items = [unfetched("e1", "https://tokio.rs/blog/scheduler")];
    let report = bind_claims(
        &["Tokio scheduler is work-stealing"],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    assert_eq!(
        report.citations[0].unciteable,
        Some(UnciteableReason::NoFetchedEvidence)
    );
}

#[test]
fn the_citation_tier_follows_the_fetch_success_rate() {
    assert_eq!(CitationTier::from_fetch_rate(0.60), CitationTier::A);
    assert_eq!(CitationTier::from_fetch_rate(0.59), CitationTier::B);
    assert_eq!(CitationTier::from_fetch_rate(0.20), CitationTier::B);
    assert_eq!(CitationTier::from_fetch_rate(0.19), CitationTier::C);
    let mut items: Vec<EvidenceItem> = (1..=5)
        .map(|n| unfetched(&format!("e{n}"), &format!("https://example.com/{n}")))
        .collect();
    items.push(fetched("e6", "https://tokio.rs/", TOKIO_TEXT));
    let report =
        bind_claims(&["Tokio runtime"], &items, &CitationOptions::default()).expect("bind");
    assert_eq!(report.fetch.attempted, 6);
    assert_eq!(report.fetch.fetched, 1);
    assert_eq!(report.tier, CitationTier::C);
    assert_eq!(report.flags, vec![COVERAGE_LOW_FLAG.to_string()]);
}

#[test]
fn tier_a_reports_carry_no_coverage_flag() {
    let items = [fetched("e1", "https://tokio.rs/", TOKIO_TEXT)];
    let report =
        bind_claims(&["Tokio runtime"], &items, &CitationOptions::default()).expect("bind");
    assert_eq!(report.tier, CitationTier::A);
    assert!(report.flags.is_empty());
}

#[test]
fn the_checker_accepts_every_citation_the_binder_makes() {
    let items = [
        fetched("e1", "https://tokio.rs/blog/scheduler", TOKIO_TEXT),
        fetched(
            "e2",
            "https://example.com/b",
            "Rust has no garbage collector.",
        ),
    ];
    let report = bind_claims(
        &[
            "Tokio is an asynchronous runtime",
            "Rust has no garbage collector",
            "work-stealing keeps every core occupied",
        ],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    assert_eq!(check_citations(&report.citations, &items), Ok(3));
}

#[test]
fn the_checker_rejects_a_quote_that_is_not_verbatim() {
    let items = [fetched("e1", "https://tokio.rs/", TOKIO_TEXT)];
    let err = check_quote("claim1", "e1", "Tokio is a synchronous runtime", &items).unwrap_err();
    assert!(matches!(err, CitationError::NotVerbatim { .. }), "{err}");
}

#[test]
fn the_checker_rejects_an_unknown_evidence_id() {
    let items = [fetched("e1", "https://tokio.rs/", TOKIO_TEXT)];
    let err = check_quote("claim1", "e9", "Tokio", &items).unwrap_err();
    assert_eq!(
        err,
        CitationError::UnknownEvidence {
            claim_id: "claim1".into(),
            evidence_id: "e9".into()
        }
    );
}

#[test]
fn the_checker_rejects_quotes_from_unfetched_items() {
    let items = [unfetched("e1", "https://tokio.rs/")];
    let err = check_quote("claim1", "e1", "Tokio", &items).unwrap_err();
    assert!(matches!(err, CitationError::NotFetched { .. }), "{err}");
}

#[test]
fn the_checker_rejects_quotes_over_80_characters() {
    let items = [fetched("e1", "https://tokio.rs/", TOKIO_TEXT)];
    let long = &TOKIO_TEXT[..120];
    let err = check_quote("claim1", "e1", long, &items).unwrap_err();
    assert!(
        matches!(
            err,
            CitationError::QuoteTooLong {
                chars: 120,
                max: 80,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn the_checker_reports_each_failing_citation_with_its_own_error() {
    let items = [fetched("e1", "https://tokio.rs/", TOKIO_TEXT)];
    let mut report = bind_claims(
        &[
            "Tokio is an asynchronous runtime",
            "Tokio building blocks for network applications",
        ],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    report.citations[0].quote.as_mut().expect("quote").text = "Tokio is a thing".into();
    let q = report.citations[1].quote.as_mut().expect("quote");
    q.start += 1;
    let err = check_citations(&report.citations, &items).unwrap_err();
    assert_eq!(err.errors.len(), 2);
    assert!(matches!(err.errors[0], CitationError::NotVerbatim { .. }));
    assert!(matches!(err.errors[1], CitationError::WrongOffsets { .. }));
}

#[test]
fn a_better_source_tier_wins_between_equally_good_quotes() {
    let sentence = "The borrow checker rejects data races at compile time.";
    let items = [
        fetched("e1", "https://someblog.example/post", sentence),
        fetched("e2", "https://doc.rust-lang.org/book/ch16.html", sentence),
    ];
    let report = bind_claims(
        &["borrow checker rejects data races at compile time"],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    let q = report.citations[0].quote.as_ref().expect("a quote");
    assert_eq!(q.evidence_id, "e2");
    assert_eq!(q.source_tier, SourceTier::T1);
    assert_eq!(q.label, EvidenceLabel::Docs);
}

#[test]
fn repeated_evidence_ids_are_refused() {
    let items = [
        fetched("e1", "https://tokio.rs/", TOKIO_TEXT),
        fetched("e1", "https://example.com/", TOKIO_TEXT),
    ];
    let err = bind_claims(&["Tokio"], &items, &CitationOptions::default()).unwrap_err();
    assert_eq!(
        err,
        BindError::Items(EvidenceItemError::DuplicateId { id: "e1".into() })
    );
}

#[test]
fn repeated_claim_ids_are_refused() {
    let claims = [Claim::new("c1", "Tokio"), Claim::new("c1", "Rust")];
    let err = bind_citations(&claims, &[], &CitationOptions::default()).unwrap_err();
    assert_eq!(err, BindError::DuplicateClaim("c1".into()));
}

#[test]
fn a_quote_cap_over_80_characters_is_refused() {
    let options = CitationOptions {
        max_quote_chars: 200,
        ..CitationOptions::default()
    };
    let err = bind_claims(&["Tokio"], &[], &options).unwrap_err();
    assert!(
        matches!(
            err,
            BindError::Option(ferret_evidence::option_error::OptionError {
                name: "max_quote_chars",
                ..
            })
        ),
        "{err}"
    );
}

#[test]
fn the_report_is_the_citations_envelope_in_snake_case() {
    let items = [fetched("e1", "https://tokio.rs/", TOKIO_TEXT)];
    let report = bind_claims(
        &["Tokio runtime", "quantum chromodynamics"],
        &items,
        &CitationOptions::default(),
    )
    .expect("bind");
    let json = serde_json::to_value(&report).expect("serialise");
    assert_eq!(json["schema"], "ferret.citations.v1");
    assert_eq!(json["tier"], "A");
    assert_eq!(json["citations"][0]["quote"]["evidence_id"], "e1");
    assert_eq!(
        json["citations"][1]["unciteable"]["reason"],
        "no_supporting_sentence"
    );
    let back: ferret_evidence::citations::CitationReport =
        serde_json::from_value(json).expect("deserialise");
    assert_eq!(back, report);
}

#[test]
fn evidence_labels_rank_measured_over_source_over_docs_over_community_over_speculation() {
    let mut labels = EvidenceLabel::ALL.to_vec();
    labels.reverse();
    labels.sort();
    assert_eq!(
        labels,
        vec![
            EvidenceLabel::Speculation,
            EvidenceLabel::Community,
            EvidenceLabel::Docs,
            EvidenceLabel::SourceCode,
            EvidenceLabel::Measured,
        ]
    );
    assert_eq!(EvidenceLabel::Measured.zh(), "实测");
    assert_eq!(EvidenceLabel::Speculation.zh(), "推测");
}

#[test]
fn evidence_labels_are_classified_from_urls() {
    let cases = [
        (
            "https://github.com/tokio-rs/tokio/blob/master/tokio/src/runtime/mod.rs",
            EvidenceLabel::SourceCode,
        ),
        (
            "https://raw.githubusercontent.com/a/b/main/x.py",
            EvidenceLabel::SourceCode,
        ),
        (
            "https://docs.rs/tokio/latest/src/tokio/lib.rs.html",
            EvidenceLabel::SourceCode,
        ),
        (
            "https://github.com/tokio-rs/tokio/issues/4711",
            EvidenceLabel::Community,
        ),
        (
            "https://docs.python.org/3/library/asyncio.html",
            EvidenceLabel::Docs,
        ),
        ("https://docs.rs/tokio/latest/tokio/", EvidenceLabel::Docs),
        (
            "https://www.rfc-editor.org/rfc/rfc9110",
            EvidenceLabel::Docs,
        ),
        ("https://arxiv.org/abs/1706.03762", EvidenceLabel::Docs),
        ("https://kubernetes.io/docs/concepts/", EvidenceLabel::Docs),
        (
            "https://stackoverflow.com/questions/1/x",
            EvidenceLabel::Community,
        ),
        (
            "https://www.reddit.com/r/rust/comments/x",
            EvidenceLabel::Community,
        ),
        (
            "https://someblog.example/2024/tokio",
            EvidenceLabel::Community,
        ),
    ];
    for (url, label) in cases {
        assert_eq!(EvidenceLabel::from_url(url), Some(label), "{url}");
    }
    assert_eq!(EvidenceLabel::from_url("not a url"), None);
}

#[test]
fn a_kind_hint_wins_over_the_url_and_nothing_known_is_speculation() {
    assert_eq!(
        EvidenceLabel::classify(Some("https://someblog.example/x"), Some("Benchmark")),
        EvidenceLabel::Measured
    );
    assert_eq!(
        EvidenceLabel::classify(None, Some("源码")),
        EvidenceLabel::SourceCode
    );
    assert_eq!(
        EvidenceLabel::classify(Some("https://docs.rs/x"), Some("unknown-hint")),
        EvidenceLabel::Docs
    );
    assert_eq!(
        EvidenceLabel::classify(None, None),
        EvidenceLabel::Speculation
    );
    let item = fetched("e1", "https://example.com/x", "text").with_kind("实测");
    assert_eq!(item.label(), EvidenceLabel::Measured);
}

#[test]
fn speculation_may_tag_at_most_30_percent_of_conclusions() {
    let mut conclusions: Vec<String> = (0..7).map(|n| format!("Finding {n} [文档]")).collect();
    conclusions.extend((0..3).map(|n| format!("Guess {n} [推测]")));
    let ok = check_speculation_cap(&conclusions).expect("3 of 10 is allowed");
    assert_eq!((ok.speculative, ok.total), (3, 10));
    conclusions[0] = "Another guess [Speculation]".into();
    let err = check_speculation_cap(&conclusions).unwrap_err();
    assert_eq!((err.0.speculative, err.0.total), (4, 10));
    assert!(err.to_string().contains("30 %"), "{err}");
}

#[test]
fn no_conclusions_pass_the_speculation_cap() {
    let none: [&str; 0] = [];
    assert_eq!(check_speculation_cap(&none).expect("passes").share, 0.0);
}

#[test]
fn the_speculation_cap_also_counts_labels() {
    let labels = [
        EvidenceLabel::Docs,
        EvidenceLabel::Speculation,
        EvidenceLabel::Measured,
    ];
    assert!(check_label_cap(&labels).is_err(), "1 of 3 is 33 %");
    assert!(check_label_cap(&labels[..1]).is_ok());
}
