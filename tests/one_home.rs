//! One home for each concept: the definitions that used to be copied across
//! crates (a sentence splitter, a stemmer, stopword and negation tables, the
//! "is this element hidden" rule, term rules, …) are each defined in exactly
//! one source file of the workspace. A second definition fails here, naming
//! both files, before it can drift from the first.

use std::path::{Path, PathBuf};

/// A definition's text and the one file (from the workspace root) that may
/// hold it.
const HOMES: &[(&str, &str)] = &[
    ("pub fn tokens(", "crates/text/src/tokenize/mod.rs"),
    (
        "pub fn tokens_with_spans(",
        "crates/text/src/tokenize/mod.rs",
    ),
    ("pub struct Analyzer", "crates/text/src/analyzer.rs"),
    ("fn sentences(", "crates/text/src/sentences.rs"),
    (
        "fn clauses(text: &str, range",
        "crates/text/src/sentences.rs",
    ),
    ("fn stem(", "crates/text/src/stem.rs"),
    ("fn is_stopword(", "crates/text/src/stopwords.rs"),
    ("const EN_STOPWORDS", "crates/text/src/stopwords.rs"),
    ("const NEGATIONS", "crates/text/src/facts.rs"),
    ("fn is_negation(", "crates/text/src/facts.rs"),
    ("fn polarity_of(", "crates/text/src/facts.rs"),
    ("fn find_date(", "crates/text/src/dates.rs"),
    ("fn json_kind(", "crates/text/src/json.rs"),
    ("fn element_hiding(", "crates/extract/src/hidden.rs"),
    ("fn style_hiding(", "crates/extract/src/hidden.rs"),
    ("\"display:none\"", "crates/extract/src/hidden.rs"),
    ("attr(\"hidden\")", "crates/extract/src/hidden.rs"),
    ("mod or_unknown", "crates/fetch/src/verdict.rs"),
    (
        "fn canonical_url(",
        "crates/search-core/src/canonical/mod.rs",
    ),
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The library sources of the workspace: every crate's `src/` and the
/// facade's.
fn library_sources(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for krate in std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
    {
        rust_files(&krate.path().join("src"), &mut files);
    }
    files
}

/// The files whose code (comments aside) holds `needle`.
fn holders(files: &[PathBuf], root: &Path, needle: &str) -> Vec<String> {
    let mut out: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f).is_ok_and(|text| {
                text.lines()
                    .any(|l| !l.trim_start().starts_with("//") && l.contains(needle))
            })
        })
        .map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn every_concept_is_defined_in_one_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = library_sources(root);
    assert!(files.len() > 100, "the workspace sources were not found");
    for (needle, home) in HOMES {
        assert_eq!(
            holders(&files, root, needle),
            vec![home.to_string()],
            "{needle:?} must be defined once, in {home}"
        );
    }
}
