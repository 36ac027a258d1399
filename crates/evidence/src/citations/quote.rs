//! Finding a verbatim quote for a claim: the best window of at most
//! `max_chars` characters inside one sentence ([`ferret_text::sentences`]),
//! cut at word boundaries.

use std::collections::HashMap;
use std::ops::Range;

use ferret_core::tokenize::is_cjk;

use crate::evidence_item::terms::TextTerms;

/// A run of non-space characters without CJK, or one CJK character: the
/// units a quote may start and end on.
#[derive(Debug, Clone, Copy)]
struct Segment {
    start: usize,
    end: usize,
    char_start: usize,
    char_end: usize,
    /// Holds a letter or digit (quotes do not start or end on bare
    /// punctuation when they can avoid it).
    wordy: bool,
}

fn segments(text: &str, range: Range<usize>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    let mut current: Option<Segment> = None;
    for (n, (i, c)) in text[range.clone()].char_indices().enumerate() {
        let at = range.start + i;
        if c.is_whitespace() {
            out.extend(current.take());
        } else if is_cjk(c) {
            out.extend(current.take());
            out.push(Segment {
                start: at,
                end: at + c.len_utf8(),
                char_start: n,
                char_end: n + 1,
                wordy: true,
            });
        } else {
            let seg = current.get_or_insert(Segment {
                start: at,
                end: at,
                char_start: n,
                char_end: n,
                wordy: false,
            });
            seg.end = at + c.len_utf8();
            seg.char_end = n + 1;
            seg.wordy |= c.is_alphanumeric();
        }
    }
    out.extend(current);
    out
}

/// Term weights: `ln(1 + N / df)` over the candidate sentences, so a rare
/// term counts for more than one every sentence has.
pub(crate) struct TermWeights {
    weights: HashMap<String, f64>,
}

impl TermWeights {
    pub(crate) fn new(terms: &[String], sentence_terms: &[&TextTerms]) -> Self {
        let n = sentence_terms.len().max(1) as f64;
        let weights = terms
            .iter()
            .map(|t| {
                let df = sentence_terms
                    .iter()
                    .filter(|s| s.contains(t))
                    .count()
                    .max(1) as f64;
                (t.clone(), (1.0 + n / df).ln())
            })
            .collect();
        TermWeights { weights }
    }

    pub(crate) fn of(&self, term: &str) -> f64 {
        self.weights.get(term).copied().unwrap_or(0.0)
    }

    pub(crate) fn total(&self, terms: &[String]) -> f64 {
        terms.iter().map(|t| self.of(t)).sum()
    }
}

/// A window's support for the claim.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    pub(crate) range: Range<usize>,
    pub(crate) matched: Vec<String>,
    pub(crate) score: f64,
}

pub(crate) fn score_terms(
    found: &TextTerms,
    terms: &[String],
    weights: &TermWeights,
    total: f64,
) -> (Vec<String>, f64) {
    let matched: Vec<String> = found
        .matched(terms)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let score = if total > 0.0 {
        matched.iter().map(|t| weights.of(t)).sum::<f64>() / total
    } else {
        0.0
    };
    (matched, score)
}

/// The best window of at most `max_chars` characters inside `sentence`:
/// the sentence itself when it fits; otherwise, of the longest windows
/// starting at each word, the one whose terms weigh most (ties: the
/// earliest). Windows start and end on whole words (a CJK character is a
/// word) and avoid starting or ending on bare punctuation.
pub(crate) fn best_window(
    text: &str,
    sentence: Range<usize>,
    terms: &[String],
    weights: &TermWeights,
    max_chars: usize,
) -> Window {
    let total = weights.total(terms);
    let slice = &text[sentence.clone()];
    if slice.chars().count() <= max_chars {
        let (matched, score) = score_terms(&TextTerms::of(slice), terms, weights, total);
        return Window {
            range: sentence,
            matched,
            score,
        };
    }
    let segs = segments(text, sentence.clone());
    let mut best: Option<Window> = None;
    let mut j = 0;
    for i in 0..segs.len() {
        if !segs[i].wordy {
            continue;
        }
        j = j.max(i);
        while j + 1 < segs.len() && segs[j + 1].char_end - segs[i].char_start <= max_chars {
            j += 1;
        }
        if segs[j].char_end - segs[i].char_start > max_chars {
            continue; // one segment longer than the cap
        }
        let mut last = j;
        while last > i && !segs[last].wordy {
            last -= 1;
        }
        let range = segs[i].start..segs[last].end;
        let (matched, score) =
            score_terms(&TextTerms::of(&text[range.clone()]), terms, weights, total);
        if best.as_ref().is_none_or(|b| score > b.score) {
            best = Some(Window {
                range,
                matched,
                score,
            });
        }
    }
    best.unwrap_or_else(|| {
        // Only over-long words: the first `max_chars` characters.
        let end = slice
            .char_indices()
            .nth(max_chars)
            .map_or(slice.len(), |(i, _)| i);
        let cut = slice[..end].trim_end();
        let range = sentence.start..sentence.start + cut.len();
        let (matched, score) = score_terms(&TextTerms::of(cut), terms, weights, total);
        Window {
            range,
            matched,
            score,
        }
    })
}
