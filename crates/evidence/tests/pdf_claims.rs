//! A claim stated in a PDF is judged on the PDF's text: supported, with a
//! verbatim quote and the page it starts on.

#[path = "../../fetch/tests/pdf_support/mod.rs"]
mod pdf_support;

use ferret_core::plan::Constraint;
use ferret_evidence::fetch::{FetchOptions, fetch_from_file};
use ferret_evidence::ledger::{ConstraintStatus, Ledger, PageEvidence};
use pdf_support::*;

#[test]
fn a_claim_stated_in_a_pdf_is_supported_with_its_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("survey.pdf");
    std::fs::write(&path, lopdf_pdf(&PAGES)).expect("write");
    let page = fetch_from_file(&path, None, &FetchOptions::default()).expect("page");
    assert!(page.ok);
    let claim = Constraint::new(
        "c1",
        "The kestrel population in the northern valley grew by 18 percent",
        true,
    );
    let mut ledger = Ledger::from_constraints(&[claim]);
    let title = page.title.clone().unwrap_or_default();
    ledger.add_page(&PageEvidence::new(
        &page.final_url,
        &title,
        &page.text,
        &page.provenance,
    ));
    let constraint = &ledger.constraints[0];
    assert_eq!(
        constraint.status,
        ConstraintStatus::Supported,
        "{ledger:#?}"
    );
    assert!(ledger.ready);
    let quote = &constraint.evidence[0].quote;
    assert_eq!(&page.text[quote.start..quote.end], quote.text);
    assert_eq!(page.page_of(quote.start), Some(2));
}
