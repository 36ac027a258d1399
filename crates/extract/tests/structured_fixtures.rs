//! `ferret_extract::structured` on real captured pages (read from
//! `$FERRET_SHARED` or `<workspace>/../shared`; skipped when absent).

use std::path::PathBuf;

use ferret_extract::structured::{ExtractVerdict, StructureSource, extract_structured};
use serde_json::{Value, json};
use url::Url;

fn fixture(name: &str) -> Option<String> {
    let dir = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let path = dir.join("fixtures/sites").join(name);
    if !path.is_file() {
        eprintln!("skipped: ../shared not present");
        return None;
    }
    Some(std::fs::read_to_string(path).expect("fixture is readable UTF-8"))
}

const WIKIPEDIA: &str = "wikipedia-article-rust-programming-language-2026-04.html";
const STACK_EXCHANGE: &str = "stackexchange-rpg-question-69973-with-answers-2026-04.html";
const GITHUB_ISSUE: &str = "github-issue-page-kepano-defuddle-56.html";

fn wiki_url() -> Url {
    Url::parse("https://en.wikipedia.org/wiki/Rust_(programming_language)").unwrap()
}

#[test]
fn wikipedia_infobox_as_an_object() {
    let Some(html) = fixture(WIKIPEDIA) else {
        return;
    };
    let schema = json!({
        "type": "object",
        "required": ["name", "developer", "first_appeared", "typing_discipline"],
        "properties": {
            "name": {"type": "string"},
            "developer": {"type": "string"},
            "first_appeared": {"type": "string"},
            "stable_release": {"type": "string"},
            "paradigms": {"type": "array", "items": {"type": "string"}, "minItems": 3},
            "typing_discipline": {"type": "array", "items": {"type": "string"}, "minItems": 3},
            "license": {"type": "string"},
            "filename_extensions": {"type": "string"}
        }
    });
    let o = extract_structured(&html, Some(&wiki_url()), &schema);
    assert_eq!(o.verdict, ExtractVerdict::Extracted, "{:?}", o.reason);
    assert_eq!(o.source, Some(StructureSource::Table));
    assert_eq!(o.data["name"], "Rust");
    assert_eq!(o.data["developer"], "The Rust Team");
    assert_eq!(
        o.data["first_appeared"], "January 19, 2012",
        "the hidden ISO date and the \"14 years ago\" note are not cell text"
    );
    assert_eq!(
        o.data["stable_release"], "1.94.1 / March 26, 2026",
        "citation markers are not cell text"
    );
    assert_eq!(o.data["license"], "MIT, Apache 2.0");
    assert_eq!(o.data["filename_extensions"], ".rs, .rlib");
    assert_eq!(
        o.data["typing_discipline"],
        json!(["Affine", "inferred", "nominal", "static", "strong"])
    );
    assert_eq!(
        o.data["paradigms"],
        json!([
            "Concurrent",
            "functional",
            "generic",
            "imperative",
            "structured"
        ])
    );
}

#[test]
fn wikipedia_article_json_ld() {
    let Some(html) = fixture(WIKIPEDIA) else {
        return;
    };
    let schema = json!({
        "type": "object",
        "required": ["headline", "author", "date_published", "date_modified"],
        "properties": {
            "name": {"type": "string"},
            "headline": {"type": "string"},
            "author": {"type": "string"},
            "publisher": {"type": "string"},
            "date_published": {"type": "string"},
            "date_modified": {"type": "string"}
        }
    });
    let o = extract_structured(&html, Some(&wiki_url()), &schema);
    assert_eq!(o.verdict, ExtractVerdict::Extracted, "{:?}", o.reason);
    assert_eq!(o.source, Some(StructureSource::JsonLd));
    assert_eq!(
        o.data,
        json!({
            "name": "Rust (programming language)",
            "headline": "memory-safe programming language without garbage collection",
            "author": "Contributors to Wikimedia projects",
            "publisher": "Wikimedia Foundation, Inc.",
            "date_published": "2010-10-30T22:30:54Z",
            "date_modified": "2026-03-31T15:54:21Z"
        })
    );
}

#[test]
fn stack_exchange_organization_from_the_json_ld_graph() {
    let Some(html) = fixture(STACK_EXCHANGE) else {
        return;
    };
    let schema = json!({
        "type": "object",
        "title": "Organization",
        "required": ["name", "url", "same_as"],
        "properties": {
            "name": {"type": "string"},
            "url": {"type": "string"},
            "logo": {"type": "string"},
            "same_as": {"type": "array", "items": {"type": "string"}, "minItems": 3}
        }
    });
    let url = Url::parse("https://rpg.stackexchange.com/questions/69973").unwrap();
    let o = extract_structured(&html, Some(&url), &schema);
    assert_eq!(o.verdict, ExtractVerdict::Extracted, "{:?}", o.reason);
    assert_eq!(o.data["name"], "Stack Overflow");
    assert_eq!(o.data["url"], "https://stackoverflow.com");
    let same_as = o.data["same_as"].as_array().unwrap();
    assert_eq!(same_as.len(), 6);
    assert!(same_as.contains(&Value::from("https://twitter.com/stackoverflow")));
}

#[test]
fn stack_exchange_contact_points_as_an_array() {
    let Some(html) = fixture(STACK_EXCHANGE) else {
        return;
    };
    let schema = json!({
        "type": "array",
        "minItems": 2,
        "items": {
            "type": "object",
            "required": ["contact_type", "url"],
            "properties": {"contact_type": {"type": "string"}, "url": {"type": "string"}}
        }
    });
    let o = extract_structured(&html, None, &schema);
    assert_eq!(o.verdict, ExtractVerdict::Extracted, "{:?}", o.reason);
    assert_eq!(o.data.as_array().unwrap().len(), 4);
    assert_eq!(
        o.data[0],
        json!({"contact_type": "Customer support", "url": "https://stackoverflow.com/contact"})
    );
}

#[test]
fn stack_exchange_page_has_no_question_in_json_ld() {
    // The question and answers are microdata, not JSON-LD or tables: a
    // schema asking for them must fail closed, not invent data.
    let Some(html) = fixture(STACK_EXCHANGE) else {
        return;
    };
    let schema = json!({
        "type": "object",
        "required": ["question", "accepted_answer"],
        "properties": {"question": {"type": "string"}, "accepted_answer": {"type": "string"}}
    });
    let o = extract_structured(&html, None, &schema);
    assert_eq!(o.verdict, ExtractVerdict::NoMappableStructure);
    assert_eq!(o.data, Value::Null);
    assert!(o.candidates_considered > 0);
}

#[test]
fn github_issue_discussion_posting() {
    let Some(html) = fixture(GITHUB_ISSUE) else {
        return;
    };
    let schema = json!({
        "type": "object",
        "required": ["headline", "author", "date_published"],
        "properties": {
            "headline": {"type": "string"},
            "author": {"type": "string"},
            "date_published": {"type": "string"},
            "comments": {"type": "integer"}
        }
    });
    let url = Url::parse("https://github.com/kepano/defuddle/issues/56").unwrap();
    let o = extract_structured(&html, Some(&url), &schema);
    assert_eq!(o.verdict, ExtractVerdict::Extracted, "{:?}", o.reason);
    assert_eq!(o.data["headline"], "Defuddle on Cloudflare Workers");
    assert_eq!(o.data["author"], "jmorrell");
    assert_eq!(o.data["date_published"], "2025-05-25T20:35:48.000Z");
}
