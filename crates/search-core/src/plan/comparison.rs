//! The sides of a comparison: "A vs B (vs C)", "A versus B", "A compared
//! to B", "difference between A and B", "compare A with B", "A or B",
//! "A 和 B 的区别", "A 与 B 对比", "对比 A 和 B", "A 还是 B", "A와 B 비교".
//!
//! The separators come from the classifier's comparison signals, so the
//! word tables stay in one place; each side is then cleaned of other signal
//! words, stopwords and fillers ("Should I learn Python or Go" → Python, Go).

use crate::intent::{Classification, Signal};
use crate::query::Intent;

use super::expand::{mask_spans, trim_edges};
use super::stopwords::PARTICLE_WORDS;

/// Signals that sit between the sides and split at every occurrence.
const HEAD_TO_HEAD: &[&str] = &["vs", "vs.", "v.s.", "versus"];
/// Signals that sit between exactly two sides.
const BETWEEN_TWO: &[&str] = &["compared to", "compared with", "还是", "or", "better than"];
/// Signals followed by "A and B".
const BEFORE_PAIR: &[&str] = &[
    "difference between",
    "differences between",
    "compare",
    "comparison",
];
/// Connectors between two sides in front of a marker ("A 和 B 的区别").
const CONNECTORS: &[&str] = &[
    "以及", "和", "与", "跟", "及", " and ", " & ", " with ", " to ",
];
/// The most sides kept.
const MAX_SIDES: usize = 4;

fn lower_eq_any(text: &str, list: &[&str]) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(text))
}

/// The first connector in `text[range]` that is not inside a real word
/// (和平, 参与), as a byte range into `text`.
fn find_connector(text: &str, range: (usize, usize)) -> Option<(usize, usize)> {
    let slice = &text[range.0..range.1];
    let lower = slice.to_ascii_lowercase();
    let mut best: Option<(usize, usize)> = None;
    for c in CONNECTORS {
        let mut from = 0;
        while let Some(pos) = lower[from..].find(c) {
            let at = from + pos;
            from = at + c.len();
            let inside_word = PARTICLE_WORDS.iter().any(|w| {
                w.contains(c)
                    && (0..=at).rev().take(12).any(|s| {
                        slice.is_char_boundary(s) && slice[s..].starts_with(w) && s + w.len() > at
                    })
            });
            if inside_word || at == 0 {
                continue;
            }
            if best.is_none_or(|(b, _)| at < b) {
                best = Some((at, at + c.len()));
            }
            break;
        }
    }
    if best.is_none() {
        best = korean_particle(slice);
    }
    best.map(|(s, e)| (range.0 + s, range.0 + e))
}

/// "파이썬과 자바": a word of ≥ 3 Hangul syllables ending in 와/과, followed
/// by a space. Shorter words (사과, 결과) are nouns, not "A and".
pub(crate) fn korean_particle(text: &str) -> Option<(usize, usize)> {
    for word in text.split(' ') {
        let start = word.as_ptr() as usize - text.as_ptr() as usize;
        let end = start + word.len();
        if end >= text.len() {
            continue;
        }
        let syllables = word
            .chars()
            .filter(|c| matches!(*c as u32, 0xAC00..=0xD7AF))
            .count();
        if syllables >= 3 && (word.ends_with('와') || word.ends_with('과')) {
            return Some((end - '와'.len_utf8(), end));
        }
    }
    None
}

/// Clean one side: other signals masked out, fillers trimmed.
fn clean(query: &str, range: (usize, usize), spans: &[(usize, usize)]) -> String {
    trim_edges(&mask_spans(query, range, spans))
}

/// The sides of a comparison in `query`, cleaned; empty when fewer than two
/// could be found.
pub fn sides(query: &str, classification: &Classification) -> Vec<String> {
    let comparison: Vec<&Signal> = classification
        .signals
        .iter()
        .filter(|s| s.intent == Intent::Comparison)
        .collect();
    let spans: Vec<(usize, usize)> = classification
        .signals
        .iter()
        .map(|s| (s.start, s.end))
        .chain(classification.windows.iter().map(|w| (w.start, w.end)))
        .collect();
    let ranges = side_ranges(query, &comparison);
    let mut out: Vec<String> = Vec::new();
    for r in ranges {
        let side = clean(query, r, &spans);
        if side.chars().any(char::is_alphanumeric)
            && !out.iter().any(|o| o.eq_ignore_ascii_case(&side))
        {
            out.push(side);
        }
    }
    if out.len() < 2 {
        return Vec::new();
    }
    out.truncate(MAX_SIDES);
    out
}

fn side_ranges(query: &str, comparison: &[&Signal]) -> Vec<(usize, usize)> {
    let len = query.len();
    // "A vs B vs C"
    let heads: Vec<&&Signal> = comparison
        .iter()
        .filter(|s| lower_eq_any(&s.text, HEAD_TO_HEAD))
        .collect();
    if !heads.is_empty() {
        let mut ranges = Vec::new();
        let mut at = 0;
        for s in heads {
            ranges.push((at, s.start));
            at = s.end;
        }
        ranges.push((at, len));
        return ranges;
    }
    // "A compared to B", "A 还是 B", "A or B"
    if let Some(s) = comparison
        .iter()
        .find(|s| lower_eq_any(&s.text, BETWEEN_TWO))
    {
        return vec![(0, s.start), (s.end, len)];
    }
    // "difference between A and B", "compare A with B"
    if let Some(s) = comparison
        .iter()
        .find(|s| lower_eq_any(&s.text, BEFORE_PAIR))
    {
        if let Some((cs, ce)) = find_connector(query, (s.end, len)) {
            return vec![(s.end, cs), (ce, len)];
        }
        if let Some((cs, ce)) = find_connector(query, (0, s.start)) {
            return vec![(0, cs), (ce, s.start)];
        }
    }
    // "A 和 B 的区别", "对比 A 和 B", "A 对比 B", "A와 B 비교"
    if let Some(s) = comparison.first() {
        if let Some((cs, ce)) = find_connector(query, (0, s.start)) {
            return vec![(0, cs), (ce, s.start)];
        }
        if let Some((cs, ce)) = find_connector(query, (s.end, len)) {
            return vec![(s.end, cs), (ce, len)];
        }
        return vec![(0, s.start), (s.end, len)];
    }
    Vec::new()
}
