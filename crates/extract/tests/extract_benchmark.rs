//! Extraction quality on the real pages of the article-extraction benchmark
//! (181 news and blog pages with hand-made article bodies), scored like the
//! benchmark's `eval.py`: token 4-gram shingles counted as a bag, per-page
//! precision and recall macro-averaged, F1 = 2PR/(P+R).
//!
//! The pages are read at test time from `$FERRET_SHARED/bench/article-extraction`
//! (or `<workspace>/../shared/...`); without them the test says it is skipped.
//! All 181 pages take about ten seconds in a debug build.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

use ferret_extract::{ExtractOptions, extract};
use unicode_general_category::{GeneralCategory, get_general_category};

/// The quality bar: trafilatura 2.3.1 scores 0.960 on this set.
const MIN_F1: f64 = 0.96;

fn bench_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("FERRET_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = shared.join("bench/article-extraction");
    dir.join("ground-truth.json").is_file().then_some(dir)
}

/// Python's `\w` for `str` patterns: letters, numbers and `_`.
fn is_word_char(c: char) -> bool {
    use GeneralCategory::*;
    c == '_'
        || matches!(
            get_general_category(c),
            UppercaseLetter
                | LowercaseLetter
                | TitlecaseLetter
                | ModifierLetter
                | OtherLetter
                | DecimalNumber
                | LetterNumber
                | OtherNumber
        )
}

fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn shingles<'a>(toks: &[&'a str]) -> HashMap<Vec<&'a str>, u32> {
    let mut bag = HashMap::new();
    if toks.is_empty() {
        return bag;
    }
    if toks.len() < 4 {
        *bag.entry(toks.to_vec()).or_default() += 1;
        return bag;
    }
    for w in toks.windows(4) {
        *bag.entry(w.to_vec()).or_default() += 1;
    }
    bag
}

/// (true positives, false positives, false negatives) for one page.
fn page_counts(truth: &str, pred: &str) -> (u32, u32, u32) {
    let (t_tok, p_tok) = (tokens(truth), tokens(pred));
    let (t, p) = (shingles(&t_tok), shingles(&p_tok));
    let mut tp = 0;
    let mut fp = 0;
    for (k, &c) in &p {
        let tc = t.get(k).copied().unwrap_or(0);
        tp += c.min(tc);
        fp += c.saturating_sub(tc);
    }
    let fn_ = t
        .iter()
        .map(|(k, &c)| c.saturating_sub(p.get(k).copied().unwrap_or(0)))
        .sum();
    (tp, fp, fn_)
}

fn score(rows: &[(u32, u32, u32)]) -> (f64, f64, f64) {
    let mean = |v: Vec<f64>| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let p = mean(
        rows.iter()
            .filter(|(tp, fp, _)| tp + fp > 0)
            .map(|&(tp, fp, _)| f64::from(tp) / f64::from(tp + fp))
            .collect(),
    );
    let r = mean(
        rows.iter()
            .filter(|(tp, _, fn_)| tp + fn_ > 0)
            .map(|&(tp, _, fn_)| f64::from(tp) / f64::from(tp + fn_))
            .collect(),
    );
    let f1 = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    (p, r, f1)
}

#[test]
fn metric_matches_the_benchmark_definition() {
    assert_eq!(
        tokens("It's a don't-care, x_y 42½!"),
        ["It", "s", "a", "don", "t", "care", "x_y", "42½"]
    );
    assert_eq!(page_counts("a b c d e", "a b c d e"), (2, 0, 0));
    assert_eq!(page_counts("a b c d e", "a b c d"), (1, 0, 1));
    assert_eq!(page_counts("a b", "a b"), (1, 0, 0));
    assert_eq!(page_counts("a b c d", ""), (0, 0, 1));
    // an empty prediction lowers recall, not precision
    let (p, r, _) = score(&[(0, 0, 1), (1, 0, 0)]);
    assert_eq!((p, r), (1.0, 0.5));
}

#[test]
fn benchmark_f1_is_at_least_trafilatura() {
    let Some(dir) = bench_dir() else {
        eprintln!("skipped: ../shared not present (set FERRET_SHARED to run the benchmark test)");
        return;
    };
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("ground-truth.json"))
            .expect("ground-truth.json is readable"),
    )
    .expect("ground-truth.json is JSON");
    let truth = truth.as_object().expect("ground truth is an object");
    let mut ids: Vec<&String> = truth.keys().collect();
    ids.sort();
    let options = ExtractOptions::default();
    let mut rows = Vec::new();
    for id in ids {
        let path = dir.join("html").join(format!("{id}.html.gz"));
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut html = String::new();
        flate2::read::GzDecoder::new(file)
            .read_to_string(&mut html)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let body = truth[id.as_str()]["articleBody"].as_str().unwrap_or("");
        let out = extract(&html, None, &options);
        rows.push(page_counts(body, &out.text));
    }
    let (p, r, f1) = score(&rows);
    eprintln!(
        "article-extraction benchmark: {} pages, precision {p:.3}, recall {r:.3}, F1 {f1:.3}",
        rows.len()
    );
    assert!(
        f1 >= MIN_F1,
        "F1 {f1:.3} is below {MIN_F1} (precision {p:.3}, recall {r:.3})"
    );
}
