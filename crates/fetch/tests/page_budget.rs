//! The per-page budget through the public API: a page past the element
//! bound or the text bound is read in part and says so; a page past its
//! time budget is `too_complex`, keeps no text, and the next page is read
//! as usual.

use std::time::Duration;

use ferret_extract::budget::{DEFAULT_MAX_TEXT_BYTES, Deadline, PageBudget};
use ferret_extract::highlights::{HighlightOptions, highlights_within};
use ferret_fetch::verify::Verdict;
use ferret_fetch::{FetchOptions, FetchedPage, WarningCode, fetch_from_file, from_html};

/// A budget whose time never runs out in a test, so the size bounds alone
/// decide.
fn roomy() -> PageBudget {
    PageBudget::default().with_time(Duration::from_secs(600))
}

fn wide(siblings: usize) -> String {
    format!(
        "<html><head><title>Wide page</title></head><body><p>The first row says the mirror is beryllium.</p>{}</body></html>",
        "<p>a</p>".repeat(siblings)
    )
}

/// `html` read as a page you already have, within `budget`.
fn read(budget: PageBudget, html: &str, url: Option<&str>) -> FetchedPage {
    from_html(html, url, &FetchOptions::default().with_budget(budget))
}

/// The saved page at `path`, read within `budget`.
fn read_saved(budget: PageBudget, path: &std::path::Path) -> FetchedPage {
    let options = FetchOptions::default().with_budget(budget);
    fetch_from_file(path, None, &options).unwrap()
}

fn has(page: &FetchedPage, code: WarningCode, words: &str) -> bool {
    page.warnings
        .iter()
        .any(|w| w.code == code && w.detail.contains(words))
}

#[test]
fn a_page_of_a_million_siblings_is_flattened_past_the_element_bound() {
    let page = read(roomy(), &wide(1_000_000), None);
    assert!(page.truncated);
    assert!(
        has(&page, WarningCode::DomFlattened, "elements"),
        "{:?}",
        page.warnings
    );
    assert_eq!(page.title.as_deref(), Some("Wide page"));
    assert!(page.text.starts_with('a') || page.text.contains("beryllium"));
    assert_ne!(page.verdict, Verdict::TooComplex);
}

#[test]
fn a_lower_element_bound_is_honoured() {
    let budget = roomy().with_max_elements(1_000);
    let page = read(budget, &wide(5_000), None);
    assert!(has(
        &page,
        WarningCode::DomFlattened,
        "more than 1000 elements"
    ));
    let ordinary = read(budget, &wide(100), None);
    assert!(!ordinary.truncated, "{:?}", ordinary.warnings);
}

#[test]
fn five_megabytes_of_text_are_cut_at_the_text_bound() {
    let html = format!(
        "<html><body><p>{}</p></body></html>",
        "lorem ipsum dolor sit amet ".repeat(200_000)
    );
    let page = read(roomy(), &html, None);
    assert!(page.truncated);
    assert!(
        has(&page, WarningCode::TextTruncated, "bytes of text"),
        "{:?}",
        page.warnings
    );
    assert!(
        page.text.len() <= DEFAULT_MAX_TEXT_BYTES,
        "{}",
        page.text.len()
    );
    assert!(page.text.len() > DEFAULT_MAX_TEXT_BYTES / 2);
    assert!(page.ok, "{}", page.verdict_reason);
}

#[test]
fn a_page_a_million_deep_is_flattened_and_read() {
    let html = format!(
        "<html><body>{}<p>The deep text says the mirror is beryllium.</p></body></html>",
        "<div>".repeat(1_000_000)
    );
    let page = read(roomy(), &html, None);
    assert!(has(&page, WarningCode::DomFlattened, "deeper than 512"));
    assert!(page.text.contains("beryllium"));
}

#[test]
fn a_page_past_its_time_budget_is_too_complex_and_the_next_one_is_read() {
    let tiny = PageBudget::default().with_time(Duration::ZERO);
    let page = read(tiny, &wide(10), Some("https://example.org/a"));
    assert_eq!(page.verdict, Verdict::TooComplex);
    assert!(!page.ok);
    assert!(page.text.is_empty() && page.markdown.is_empty());
    assert!(
        page.verdict_reason.starts_with("too-complex: extraction"),
        "{}",
        page.verdict_reason
    );
    let next = from_html(&wide(10), None, &FetchOptions::default());
    assert_ne!(next.verdict, Verdict::TooComplex);
    assert!(next.text.contains("beryllium"), "{}", next.text);
}

#[test]
fn a_saved_page_is_read_within_the_budget_given() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.html");
    std::fs::write(&path, wide(10)).unwrap();
    let tiny = PageBudget::default().with_time(Duration::ZERO);
    let page = read_saved(tiny, &path);
    assert_eq!(page.verdict, Verdict::TooComplex);
    let text = dir.path().join("big.txt");
    std::fs::write(&text, "word ".repeat(10_000)).unwrap();
    let small = roomy().with_max_text_bytes(1_000);
    let page = read_saved(small, &text);
    assert!(page.text.len() <= 1_000);
    assert!(has(
        &page,
        WarningCode::TextTruncated,
        "more than 1000 bytes"
    ));
}

#[test]
fn highlights_past_their_deadline_are_an_error_not_a_partial_answer() {
    let text = "The mirror is beryllium.\n\nThe dome is white.";
    let options = HighlightOptions::default();
    let out = highlights_within(text, "mirror", &options, Deadline::after(Duration::ZERO));
    assert_eq!(out.unwrap_err().stage, "highlights");
    let ok = highlights_within(text, "mirror", &options, Deadline::none()).unwrap();
    assert_eq!(ok.highlights.len(), 1);
}

#[test]
fn too_complex_is_a_verdict_name() {
    assert_eq!(
        "too_complex".parse::<Verdict>().unwrap(),
        Verdict::TooComplex
    );
    assert_eq!(
        serde_json::to_string(&Verdict::TooComplex).unwrap(),
        "\"too_complex\""
    );
    assert!(Verdict::ALL.contains(&Verdict::TooComplex));
    let err = "nope".parse::<Verdict>().unwrap_err().to_string();
    assert!(err.contains("too_complex"), "{err}");
}
