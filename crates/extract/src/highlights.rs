//! Highlights: the passages of a page's extracted text that best answer a
//! query or a list of constraints, within a token budget.
//!
//! - [`highlights`] scores passages against one query with BM25 (k1 1.5,
//!   b 0.75, IDF over the page's own passages) and keeps the best ones that
//!   fit in the budget (500 tokens by default), in document order.
//! - [`highlights_for_constraints`] does the same for several constraints at
//!   once: each constraint first gets its own best passage, then the budget
//!   is filled by the combined score.
//! - [`focus`] is the `--focus` rule: the paragraphs that contain a
//!   keyword, or the first 8000 characters when they are missing or total
//!   under 200 characters.
//! - [`top_paragraphs`] is the trim for long pages: when a query is
//!   given, BM25 keeps the top 20 paragraphs.
//!
//! The `_within` variants take a [`Deadline`] (the page's time budget,
//! [`crate::budget`]) checked for every passage indexed; past it they
//! return [`OutOfTime`] instead of a partial selection.
//!
//! Every [`Highlight`] is a verbatim slice of the text it came from:
//! `&text[h.start..h.end] == h.text`, with byte offsets.
//!
//! ## Passages
//!
//! The text is cut at blank lines into paragraphs (the way
//! [`crate::Extracted::text`] separates blocks). A paragraph longer
//! than the passage cap (80 tokens by default) is cut at line breaks (list
//! items, table rows), consecutive short lines are packed back together up
//! to the cap; a line still too long is cut into sentence windows, and a
//! sentence still too long at word boundaries. Passages never overlap.
//!
//! ## Counting tokens
//!
//! The budget counts tokens the way [`count_tokens`] does: every CJK
//! character (Han, kana, Hangul) is one token, and every other maximal run
//! of non-space characters is one token (`"don't stop."` is 2 tokens,
//! `"Rust异步"` is 3). This is close to what a subword tokenizer sees for
//! English prose and deliberately generous for CJK.
//!
//! ## Scoring
//!
//! Passages and query are tokenized with [`ferret_text::tokenize::tokens`]
//! (lowercased words, CJK character bigrams). Query terms drop stopwords and
//! one-letter words (unless nothing else is left). A passage's score is
//! `Σ idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avg_len))` with
//! `idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))`, where `N` is the number of
//! passages on the page. Passages that match no term are never highlights.

use std::collections::HashMap;
use std::ops::Range;

use ferret_text::Analyzer;
use ferret_text::sentences::sentences;
use ferret_text::tokenize::{is_cjk, tokens};
use serde::{Deserialize, Serialize};

use crate::budget::{Deadline, OutOfTime};

/// Default token budget for highlights: at most 500 tokens per
/// sub-question.
pub const DEFAULT_BUDGET_TOKENS: usize = 500;
/// Default BM25 `k1`.
pub const DEFAULT_K1: f64 = 1.5;
/// Default BM25 `b`.
pub const DEFAULT_B: f64 = 0.75;
/// Default cap on one passage, in tokens.
pub const DEFAULT_MAX_PASSAGE_TOKENS: usize = 80;
/// Smallest passage cap accepted by [`HighlightOptions::with_max_passage_tokens`].
pub const MIN_PASSAGE_TOKENS: usize = 8;
/// [`focus`]: below this many characters of matching paragraphs, fall back.
pub const FOCUS_MIN_CHARS: usize = 200;
/// [`focus`]: how many characters the fallback keeps.
pub const FOCUS_FALLBACK_CHARS: usize = 8000;
/// [`top_paragraphs`]: how many paragraphs it keeps.
pub const TOP_PARAGRAPHS: usize = 20;

/// Options were out of range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HighlightError {
    /// BM25 parameters must be finite, `k1 ≥ 0` and `0 ≤ b ≤ 1`.
    #[error(
        "invalid BM25 parameters k1={k1}, b={b}: k1 must be finite and ≥ 0, b must be in [0, 1] (defaults 1.5 and 0.75)"
    )]
    Bm25 {
        /// The `k1` given.
        k1: f64,
        /// The `b` given.
        b: f64,
    },
    /// The passage cap is too small to hold a sentence.
    #[error(
        "passage cap of {0} tokens is too small: use at least {MIN_PASSAGE_TOKENS} (default {DEFAULT_MAX_PASSAGE_TOKENS})"
    )]
    PassageCap(usize),
}

/// How highlights are chosen. Build with [`HighlightOptions::default`] and
/// the `with_*` methods (which check their values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HighlightOptions {
    budget_tokens: usize,
    k1: f64,
    b: f64,
    max_passage_tokens: usize,
}

impl Default for HighlightOptions {
    fn default() -> Self {
        HighlightOptions {
            budget_tokens: DEFAULT_BUDGET_TOKENS,
            k1: DEFAULT_K1,
            b: DEFAULT_B,
            max_passage_tokens: DEFAULT_MAX_PASSAGE_TOKENS,
        }
    }
}

impl HighlightOptions {
    /// Sets the token budget (see the module docs for how tokens are
    /// counted). `0` selects nothing.
    pub fn with_budget_tokens(mut self, budget: usize) -> Self {
        self.budget_tokens = budget;
        self
    }

    /// Sets the BM25 parameters.
    pub fn with_bm25(mut self, k1: f64, b: f64) -> Result<Self, HighlightError> {
        if !k1.is_finite() || k1 < 0.0 || !b.is_finite() || !(0.0..=1.0).contains(&b) {
            return Err(HighlightError::Bm25 { k1, b });
        }
        self.k1 = k1;
        self.b = b;
        Ok(self)
    }

    /// Sets the cap on one passage, in tokens (at least
    /// [`MIN_PASSAGE_TOKENS`]). The effective cap is never above the budget.
    pub fn with_max_passage_tokens(mut self, cap: usize) -> Result<Self, HighlightError> {
        if cap < MIN_PASSAGE_TOKENS {
            return Err(HighlightError::PassageCap(cap));
        }
        self.max_passage_tokens = cap;
        Ok(self)
    }

    /// The token budget.
    pub fn budget_tokens(&self) -> usize {
        self.budget_tokens
    }

    /// BM25 `k1`.
    pub fn k1(&self) -> f64 {
        self.k1
    }

    /// BM25 `b`.
    pub fn b(&self) -> f64 {
        self.b
    }

    /// The cap on one passage, in tokens.
    pub fn max_passage_tokens(&self) -> usize {
        self.max_passage_tokens
    }
}

/// One selected passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Highlight {
    /// The passage, verbatim: `&text[start..end]`.
    pub text: String,
    /// Byte offset of the first byte in the source text.
    pub start: usize,
    /// Byte offset one past the last byte in the source text.
    pub end: usize,
    /// BM25 score (for constraints: the sum over constraints).
    pub score: f64,
    /// Query terms found in the passage, in query order.
    pub matched_terms: Vec<String>,
    /// Tokens in the passage, counted as [`count_tokens`] does.
    pub tokens: usize,
    /// For [`highlights_for_constraints`]: indexes of the constraints the
    /// passage matches. Empty for a single query.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<usize>,
    /// For a PDF page: the page the passage starts on
    /// (a fetched page's `page_of`);
    /// absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

/// The result of [`highlights`] / [`highlights_for_constraints`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Highlights {
    /// Selected passages in document order.
    pub highlights: Vec<Highlight>,
    /// The budget they had to fit in.
    pub budget_tokens: usize,
    /// Tokens used by the selected passages (≤ `budget_tokens`).
    pub used_tokens: usize,
    /// How many passages the text was cut into.
    pub passages_considered: usize,
    /// Query terms used for scoring (for constraints: all of them).
    pub terms: Vec<String>,
}

impl Highlights {
    /// The highlights joined by blank lines.
    pub fn joined(&self) -> String {
        join(self.highlights.iter().map(|h| h.text.as_str()))
    }
}

/// Counts tokens as the budget does: one per CJK character, one per other
/// maximal run of non-whitespace characters.
pub fn count_tokens(text: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for c in text.chars() {
        if is_cjk(c) {
            n += 1;
            in_word = false;
        } else if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            n += 1;
            in_word = true;
        }
    }
    n
}

/// Byte ranges of the passages [`highlights`] scores: paragraphs, cut into
/// windows of at most `max_tokens` tokens (see the module docs). Ranges are
/// trimmed of surrounding whitespace, in order and never overlap.
pub fn passages(text: &str, max_tokens: usize) -> Vec<Range<usize>> {
    let max = max_tokens.max(1);
    let mut out = Vec::new();
    for para in paragraphs(text) {
        split_to_fit(text, para, max, Level::Lines, &mut out);
    }
    out
}

/// Byte ranges of the paragraphs of `text` (runs of non-blank lines),
/// trimmed.
pub fn paragraphs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut current: Option<Range<usize>> = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let range = pos..pos + line.len();
        pos += line.len();
        if line.trim().is_empty() {
            if let Some(r) = current.take() {
                push_trimmed(text, r, &mut out);
            }
        } else {
            current = Some(match current {
                Some(r) => r.start..range.end,
                None => range,
            });
        }
    }
    if let Some(r) = current {
        push_trimmed(text, r, &mut out);
    }
    out
}

/// Selects the passages of `text` that best match `query` (BM25), within
/// the budget, in document order.
pub fn highlights(text: &str, query: &str, options: &HighlightOptions) -> Highlights {
    unbounded(highlights_within(text, query, options, Deadline::none()))
}

/// [`highlights`] within `deadline`, checked for every passage indexed:
/// past it, `Err` (the page's time budget, [`crate::budget`]).
pub fn highlights_within(
    text: &str,
    query: &str,
    options: &HighlightOptions,
    deadline: Deadline,
) -> Result<Highlights, OutOfTime> {
    let cap = options.max_passage_tokens.min(options.budget_tokens).max(1);
    let ranges = passages(text, cap);
    let index = PassageIndex::new(text, &ranges, deadline)?;
    let terms = query_terms(query);
    let scores = index.scores(&terms, options.k1, options.b);
    let candidates: Vec<Candidate> = scores
        .into_iter()
        .enumerate()
        .filter(|(_, s)| *s > 0.0)
        .map(|(i, score)| Candidate {
            passage: i,
            score,
            constraints: Vec::new(),
        })
        .collect();
    let chosen = select(&index, candidates, &[], options.budget_tokens);
    Ok(finish(
        text,
        &index,
        chosen,
        &[terms],
        options.budget_tokens,
    ))
}

/// The result of work with no deadline, which cannot run out of time.
fn unbounded(result: Result<Highlights, OutOfTime>) -> Highlights {
    result.unwrap_or_else(|_| Highlights {
        highlights: Vec::new(),
        budget_tokens: 0,
        used_tokens: 0,
        passages_considered: 0,
        terms: Vec::new(),
    })
}

/// Selects passages that support any of `constraints`: each constraint
/// (in order) first gets its best-scoring passage if it fits, then the rest
/// of the budget goes to the passages with the highest summed score.
/// [`Highlight::constraints`] says which constraints each passage matches.
pub fn highlights_for_constraints<S: AsRef<str>>(
    text: &str,
    constraints: &[S],
    options: &HighlightOptions,
) -> Highlights {
    unbounded(highlights_for_constraints_within(
        text,
        constraints,
        options,
        Deadline::none(),
    ))
}

/// [`highlights_for_constraints`] within `deadline`, checked for every
/// passage indexed and every constraint scored: past it, `Err`.
pub fn highlights_for_constraints_within<S: AsRef<str>>(
    text: &str,
    constraints: &[S],
    options: &HighlightOptions,
    deadline: Deadline,
) -> Result<Highlights, OutOfTime> {
    let cap = options.max_passage_tokens.min(options.budget_tokens).max(1);
    let ranges = passages(text, cap);
    let index = PassageIndex::new(text, &ranges, deadline)?;
    let term_sets: Vec<Vec<String>> = constraints
        .iter()
        .map(|c| query_terms(c.as_ref()))
        .collect();
    let per_constraint = term_sets
        .iter()
        .map(|t| {
            deadline.check("highlights")?;
            Ok(index.scores(t, options.k1, options.b))
        })
        .collect::<Result<Vec<Vec<f64>>, OutOfTime>>()?;
    let mut candidates = Vec::new();
    for p in 0..ranges.len() {
        let mut score = 0.0;
        let mut matched = Vec::new();
        for (ci, scores) in per_constraint.iter().enumerate() {
            if scores[p] > 0.0 {
                score += scores[p];
                matched.push(ci);
            }
        }
        if score > 0.0 {
            candidates.push(Candidate {
                passage: p,
                score,
                constraints: matched,
            });
        }
    }
    // Each constraint's own best passage goes first.
    let mut firsts = Vec::new();
    for scores in &per_constraint {
        let best = scores
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > 0.0)
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)));
        if let Some((p, _)) = best
            && !firsts.contains(&p)
        {
            firsts.push(p);
        }
    }
    let chosen = select(&index, candidates, &firsts, options.budget_tokens);
    Ok(finish(
        text,
        &index,
        chosen,
        &term_sets,
        options.budget_tokens,
    ))
}

/// The outcome of [`focus`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Focus {
    /// The kept text: matching paragraphs joined by blank lines, or the
    /// fallback prefix.
    pub text: String,
    /// Byte ranges of the kept parts in the source text.
    pub ranges: Vec<Range<usize>>,
    /// True when paragraphs matched; false when the fallback was used.
    pub matched: bool,
}

/// The `--focus` view of a page: the paragraphs that contain `keyword`
/// (case-insensitive; for CJK a plain substring test). When none match, or
/// the matches total under [`FOCUS_MIN_CHARS`] characters, the first
/// [`FOCUS_FALLBACK_CHARS`] characters of the text instead.
pub fn focus(text: &str, keyword: &str) -> Focus {
    let needle = keyword.trim().to_lowercase();
    let mut ranges = Vec::new();
    let mut chars = 0;
    if !needle.is_empty() {
        for para in paragraphs(text) {
            let slice = &text[para.clone()];
            if slice.to_lowercase().contains(&needle) {
                chars += slice.chars().count();
                ranges.push(para);
            }
        }
    }
    if chars >= FOCUS_MIN_CHARS {
        let text = join(ranges.iter().map(|r| &text[r.clone()]));
        return Focus {
            text,
            ranges,
            matched: true,
        };
    }
    let end = text
        .char_indices()
        .nth(FOCUS_FALLBACK_CHARS)
        .map_or(text.len(), |(i, _)| i);
    Focus {
        text: text[..end].to_owned(),
        ranges: std::iter::once(0..end).filter(|r| !r.is_empty()).collect(),
        matched: false,
    }
}

/// The outcome of [`top_paragraphs`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopParagraphs {
    /// The kept paragraphs, in document order.
    pub paragraphs: Vec<Highlight>,
    /// How many paragraphs the text had.
    pub total: usize,
}

impl TopParagraphs {
    /// The kept paragraphs joined by blank lines.
    pub fn text(&self) -> String {
        join(self.paragraphs.iter().map(|h| h.text.as_str()))
    }
}

/// The trim for long pages: the `limit` paragraphs (whole, not
/// windowed) with the highest BM25 score against `query` (k1 1.5, b 0.75),
/// in document order. Ties, including paragraphs that match nothing, go to
/// the earlier paragraph, so a query that matches nothing keeps the first
/// `limit` paragraphs. An empty query keeps the first `limit` too.
pub fn top_paragraphs(text: &str, query: &str, limit: usize) -> TopParagraphs {
    let ranges = paragraphs(text);
    let Ok(index) = PassageIndex::new(text, &ranges, Deadline::none()) else {
        // Without a deadline the index is always built.
        return TopParagraphs {
            paragraphs: Vec::new(),
            total: ranges.len(),
        };
    };
    let terms = query_terms(query);
    let scores = index.scores(&terms, DEFAULT_K1, DEFAULT_B);
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order.truncate(limit);
    order.sort_unstable();
    let paragraphs = order
        .into_iter()
        .map(|p| make_highlight(text, &index, p, scores[p], &[terms.as_slice()], Vec::new()))
        .collect();
    TopParagraphs {
        paragraphs,
        total: ranges.len(),
    }
}

/// Query terms for highlight scoring: [`Analyzer::HIGHLIGHT`] (words of two
/// or more characters minus stopwords, CJK bigrams after function words are
/// cut; every token when that leaves nothing), deduplicated, in query order.
pub fn query_terms(query: &str) -> Vec<String> {
    Analyzer::HIGHLIGHT.terms(query)
}

// ---------------------------------------------------------------------------

/// Term statistics of the passages of one page.
struct PassageIndex {
    ranges: Vec<Range<usize>>,
    /// Term frequencies per passage.
    tf: Vec<HashMap<String, u32>>,
    /// BM25 length (tokenizer tokens) per passage.
    len: Vec<usize>,
    /// Budget tokens per passage.
    budget_len: Vec<usize>,
    /// Passages containing each term.
    df: HashMap<String, u32>,
    avg_len: f64,
}

impl PassageIndex {
    fn new(text: &str, ranges: &[Range<usize>], deadline: Deadline) -> Result<Self, OutOfTime> {
        let mut tf = Vec::with_capacity(ranges.len());
        let mut len = Vec::with_capacity(ranges.len());
        let mut budget_len = Vec::with_capacity(ranges.len());
        let mut df: HashMap<String, u32> = HashMap::new();
        for r in ranges {
            deadline.check("highlights")?;
            let slice = &text[r.clone()];
            let toks = tokens(slice);
            let mut counts: HashMap<String, u32> = HashMap::new();
            for t in &toks {
                *counts.entry(t.as_str().to_owned()).or_default() += 1;
            }
            for k in counts.keys() {
                *df.entry(k.clone()).or_default() += 1;
            }
            len.push(toks.len());
            budget_len.push(count_tokens(slice));
            tf.push(counts);
        }
        let avg_len = if len.is_empty() {
            0.0
        } else {
            len.iter().sum::<usize>() as f64 / len.len() as f64
        };
        Ok(PassageIndex {
            ranges: ranges.to_vec(),
            tf,
            len,
            budget_len,
            df,
            avg_len,
        })
    }

    fn scores(&self, terms: &[String], k1: f64, b: f64) -> Vec<f64> {
        let n = self.ranges.len() as f64;
        let idf: Vec<f64> = terms
            .iter()
            .map(|t| {
                let df = f64::from(self.df.get(t).copied().unwrap_or(0));
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        (0..self.ranges.len())
            .map(|p| {
                let norm = if self.avg_len > 0.0 {
                    1.0 - b + b * self.len[p] as f64 / self.avg_len
                } else {
                    1.0
                };
                terms
                    .iter()
                    .zip(&idf)
                    .map(|(t, idf)| {
                        let tf = f64::from(self.tf[p].get(t).copied().unwrap_or(0));
                        if tf == 0.0 {
                            0.0
                        } else {
                            idf * tf * (k1 + 1.0) / (tf + k1 * norm)
                        }
                    })
                    .sum()
            })
            .collect()
    }

    fn matched(&self, p: usize, term_sets: &[&[String]]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for set in term_sets {
            for t in set.iter() {
                if self.tf[p].contains_key(t) && !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
        out
    }
}

struct Candidate {
    passage: usize,
    score: f64,
    constraints: Vec<usize>,
}

/// Greedy selection: the `first` passages (in that order), then the rest by
/// descending score (earlier passage on ties), each taken only if it still
/// fits the budget. Returns candidates in document order.
fn select(
    index: &PassageIndex,
    mut candidates: Vec<Candidate>,
    first: &[usize],
    budget: usize,
) -> Vec<Candidate> {
    candidates.sort_by(|a, b| {
        let fa = first.iter().position(|&p| p == a.passage);
        let fb = first.iter().position(|&p| p == b.passage);
        match (fa, fb) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => b.score.total_cmp(&a.score).then(a.passage.cmp(&b.passage)),
        }
    });
    let mut used = 0;
    let mut chosen = Vec::new();
    for c in candidates {
        let cost = index.budget_len[c.passage];
        if used + cost <= budget {
            used += cost;
            chosen.push(c);
        }
    }
    chosen.sort_by_key(|c| c.passage);
    chosen
}

fn finish(
    text: &str,
    index: &PassageIndex,
    chosen: Vec<Candidate>,
    term_sets: &[Vec<String>],
    budget: usize,
) -> Highlights {
    let sets: Vec<&[String]> = term_sets.iter().map(Vec::as_slice).collect();
    let highlights: Vec<Highlight> = chosen
        .into_iter()
        .map(|c| make_highlight(text, index, c.passage, c.score, &sets, c.constraints))
        .collect();
    let mut terms: Vec<String> = Vec::new();
    for t in term_sets.iter().flatten() {
        if !terms.contains(t) {
            terms.push(t.clone());
        }
    }
    Highlights {
        used_tokens: highlights.iter().map(|h| h.tokens).sum(),
        highlights,
        budget_tokens: budget,
        passages_considered: index.ranges.len(),
        terms,
    }
}

fn make_highlight(
    text: &str,
    index: &PassageIndex,
    p: usize,
    score: f64,
    term_sets: &[&[String]],
    constraints: Vec<usize>,
) -> Highlight {
    let r = index.ranges[p].clone();
    Highlight {
        text: text[r.clone()].to_owned(),
        start: r.start,
        end: r.end,
        score,
        matched_terms: index.matched(p, term_sets),
        tokens: index.budget_len[p],
        constraints,
        page: None,
    }
}

fn join<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for p in parts {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(p);
    }
    out
}

fn push_trimmed(text: &str, r: Range<usize>, out: &mut Vec<Range<usize>>) {
    if let Some(t) = trimmed(text, r) {
        out.push(t);
    }
}

/// `r` without leading and trailing whitespace; `None` when nothing is left.
fn trimmed(text: &str, r: Range<usize>) -> Option<Range<usize>> {
    let slice = &text[r.clone()];
    let start = r.start + (slice.len() - slice.trim_start().len());
    let end = r.start + slice.trim_end().len();
    (start < end).then_some(start..end)
}

/// How a too-long range is cut, coarsest first.
#[derive(Clone, Copy)]
enum Level {
    Lines,
    Sentences,
    Words,
}

/// Appends `r` to `out` if it fits `max` tokens; otherwise cuts it into
/// units at `level`, packs consecutive units into windows that fit, and
/// recurses one level finer for a unit that is too long on its own.
fn split_to_fit(
    text: &str,
    r: Range<usize>,
    max: usize,
    level: Level,
    out: &mut Vec<Range<usize>>,
) {
    if count_tokens(&text[r.clone()]) <= max {
        out.push(r);
        return;
    }
    let (units, finer) = match level {
        Level::Lines => (line_units(text, r), Some(Level::Sentences)),
        Level::Sentences => (sentence_units(text, r), Some(Level::Words)),
        Level::Words => (word_windows(text, r, max), None),
    };
    let mut window: Option<(Range<usize>, usize)> = None;
    for u in units {
        let n = count_tokens(&text[u.clone()]);
        if n > max {
            if let Some((w, _)) = window.take() {
                out.push(w);
            }
            match finer {
                Some(next) => split_to_fit(text, u, max, next, out),
                None => out.push(u),
            }
            continue;
        }
        window = match window {
            Some((w, wn)) if wn + n <= max => Some((w.start..u.end, wn + n)),
            Some((w, _)) => {
                out.push(w);
                Some((u, n))
            }
            None => Some((u, n)),
        };
    }
    if let Some((w, _)) = window {
        out.push(w);
    }
}

fn line_units(text: &str, r: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut pos = r.start;
    for line in text[r.clone()].split_inclusive('\n') {
        push_trimmed(text, pos..pos + line.len(), &mut out);
        pos += line.len();
    }
    out
}

/// The sentences of `text[r]` (the one splitter,
/// [`ferret_text::sentences::sentences`]).
fn sentence_units(text: &str, r: Range<usize>) -> Vec<Range<usize>> {
    sentences(&text[r.clone()])
        .into_iter()
        .map(|s| r.start + s.start..r.start + s.end)
        .collect()
}

/// Hard windows of at most `max` tokens, cut before a token starts.
fn word_windows(text: &str, r: Range<usize>, max: usize) -> Vec<Range<usize>> {
    let slice = &text[r.clone()];
    let mut out = Vec::new();
    let mut window_start = 0;
    let mut n = 0;
    let mut in_word = false;
    for (i, c) in slice.char_indices() {
        let starts_token = if is_cjk(c) {
            in_word = false;
            true
        } else if c.is_whitespace() {
            in_word = false;
            false
        } else if !in_word {
            in_word = true;
            true
        } else {
            false
        };
        if starts_token {
            if n == max {
                push_trimmed(text, r.start + window_start..r.start + i, &mut out);
                window_start = i;
                n = 0;
            }
            n += 1;
        }
    }
    push_trimmed(text, r.start + window_start..r.end, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_and_cjk_characters() {
        assert_eq!(count_tokens("don't stop."), 2);
        assert_eq!(count_tokens("Rust异步"), 3);
        assert_eq!(count_tokens("  "), 0);
    }

    #[test]
    fn long_sentence_is_cut_into_word_windows() {
        let text = "word ".repeat(30);
        let ps = passages(&text, 8);
        assert!(ps.iter().all(|r| count_tokens(&text[r.clone()]) <= 8));
        assert_eq!(ps.len(), 4);
    }
}
