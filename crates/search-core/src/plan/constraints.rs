//! Constraints from a question, for the research step: the
//! facts an answer must establish, each with the terms the evidence ledger
//! matches fetched text against.
//!
//! 1. Split on numbering ("1." "2)" "(3)" "①" "一、") when that yields more
//!    than one clause of ≥ 4 characters.
//! 2. Otherwise split on separators (`, ; ，；、` and sentence ends) and
//!    conjunctions — English *and, or, while, but also, as well as*;
//!    Chinese 并且 而且 以及 同时 和 与 或 (not inside words such as 和平,
//!    参与); Korean 그리고 또는 동시에 모두 이며 이고 and the particles 와/과
//!    at the end of a word of three or more syllables (so 사과, 결과 stay).
//!    A piece shorter than 4 characters is joined to its neighbour instead
//!    of being dropped ("Bun 和 Deno 的区别" stays one clause).
//! 3. Clauses of ≥ 4 characters; at most 8 constraints, further clauses
//!    become facets. With no clause, the whole question is the constraint.
//! 4. Terms: the facts of a clause whole, then its other tokens as
//!    [`Analyzer::CONSTRAINT`] keeps them (≥ 2 characters, CJK as bigrams,
//!    minus stopwords).
//! 5. A clause marked optional ("ideally", "最好", "가능하면") is not
//!    mandatory.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use ferret_text::Analyzer;
use ferret_text::sentences::sentences;

use crate::tokenize::{is_cjk, tokens};

use super::comparison::korean_particle;
use super::cues::CueSet;
use super::stopwords::PARTICLE_WORDS;
use super::{Constraint, MAX_CONSTRAINTS, MIN_CLAUSE_CHARS};

/// English conjunctions that separate clauses (whole words).
pub(crate) const EN_CONJUNCTIONS: &[&str] = &["and", "or", "while", "but also", "as well as"];
/// Chinese conjunctions that separate clauses.
pub(crate) const ZH_CONJUNCTIONS: &[&str] =
    &["并且", "而且", "以及", "同时", "和", "与", "或", "或者"];
/// Korean conjunctions that separate clauses.
pub(crate) const KO_CONJUNCTIONS: &[&str] = &["그리고", "또는", "동시에", "모두", "이며", "이고"];
/// Characters that separate clauses.
pub(crate) const SEPARATOR_CHARS: &[char] = &[',', ';', '，', '；', '、', '。', '！', '？', '\n'];
/// Words that make a clause optional.
pub(crate) const OPTIONAL_MARKERS: &[&str] = &[
    "optional",
    "optionally",
    "preferably",
    "ideally",
    "if possible",
    "nice to have",
    "bonus",
    "最好",
    "可选",
    "如果可能",
    "尽量",
    "가능하면",
    "선택",
];
/// Korean clause openers trimmed from a clause.
const KO_LEADING: &[&str] = &["중 ", "에서 ", "의 "];

/// What [`extract`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extraction {
    /// At most [`MAX_CONSTRAINTS`] constraints.
    pub constraints: Vec<Constraint>,
    /// Further clauses, and dates or quoted titles of a one-clause question.
    pub facets: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Conj {
    Latin,
    Cjk,
    Keep,
}

struct ConjMatcher {
    automaton: Option<AhoCorasick>,
    kinds: Vec<Conj>,
}

fn conjunctions() -> &'static ConjMatcher {
    static MATCHER: OnceLock<ConjMatcher> = OnceLock::new();
    MATCHER.get_or_init(|| {
        let mut texts: Vec<&str> = Vec::new();
        let mut kinds = Vec::new();
        for w in PARTICLE_WORDS {
            texts.push(w);
            kinds.push(Conj::Keep);
        }
        for w in EN_CONJUNCTIONS {
            texts.push(w);
            kinds.push(Conj::Latin);
        }
        for w in ZH_CONJUNCTIONS.iter().chain(KO_CONJUNCTIONS) {
            texts.push(w);
            kinds.push(Conj::Cjk);
        }
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&texts)
            .ok();
        ConjMatcher { automaton, kinds }
    })
}

fn is_latin_word_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || c == '_'
}

fn whole_word(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(is_latin_word_char) && !after.is_some_and(is_latin_word_char)
}

/// Byte spans to cut at: separators, conjunctions, Korean particles.
fn cut_points(text: &str) -> Vec<(usize, usize)> {
    let mut cuts = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|(_, n)| *n);
        let sentence_end =
            matches!(c, '.' | '?' | '!') && next.is_none_or(char::is_whitespace) && i > 0;
        // A comma between digits is part of a number (30,000), not a cut.
        let in_number = matches!(c, ',' | '，')
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit());
        if (SEPARATOR_CHARS.contains(&c) && !in_number) || sentence_end {
            cuts.push((i, i + c.len_utf8()));
        }
        prev = Some(c);
    }
    let m = conjunctions();
    if let Some(ac) = &m.automaton {
        for found in ac.find_iter(text) {
            let (s, e) = (found.start(), found.end());
            let keep = match m.kinds[found.pattern().as_usize()] {
                Conj::Keep => false,
                Conj::Latin => whole_word(text, s, e),
                Conj::Cjk => true,
            };
            if keep {
                cuts.push((s, e));
            }
        }
    }
    let mut offset = 0;
    while offset < text.len() {
        match korean_particle(&text[offset..]) {
            Some((s, e)) => {
                cuts.push((offset + s, offset + e));
                offset += e;
            }
            None => break,
        }
    }
    cuts.sort_unstable();
    cuts
}

/// Pieces between cut points, as byte ranges.
fn pieces_between(text: &str, cuts: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut pieces = Vec::new();
    let mut at = 0;
    for &(s, e) in cuts {
        if s < at {
            continue;
        }
        pieces.push((at, s));
        at = e;
    }
    pieces.push((at, text.len()));
    pieces
}

/// A numbering marker starting at byte `i`: its length in bytes.
fn marker_len(text: &str, i: usize) -> Option<usize> {
    let rest = &text[i..];
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    if matches!(first as u32, 0x2460..=0x2473) {
        return Some(first.len_utf8());
    }
    if matches!(first, '(' | '（') {
        let digits: usize = rest[first.len_utf8()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        if (1..=2).contains(&digits) {
            let after = first.len_utf8() + digits;
            let close = rest[after..].chars().next()?;
            if matches!(close, ')' | '）') {
                return Some(after + close.len_utf8());
            }
        }
        return None;
    }
    if first.is_ascii_digit() {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 2 {
            return None;
        }
        let punct = rest[digits..].chars().next()?;
        let after = rest[digits + punct.len_utf8()..].chars().next();
        return match punct {
            '.' if !after.is_some_and(|c| c.is_ascii_digit()) => Some(digits + 1),
            ')' | '、' => Some(digits + punct.len_utf8()),
            _ => None,
        };
    }
    const CN_DIGITS: &str = "一二三四五六七八九十";
    if CN_DIGITS.contains(first) {
        let n: usize = rest
            .chars()
            .take_while(|c| CN_DIGITS.contains(*c))
            .map(char::len_utf8)
            .sum();
        if rest[n..].starts_with('、') {
            return Some(n + '、'.len_utf8());
        }
    }
    None
}

/// Pieces between numbering markers (a marker must open the text or follow
/// whitespace or a colon).
fn numbered_pieces(text: &str) -> Vec<(usize, usize)> {
    let mut markers = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        let opens = prev.is_none_or(|p| p.is_whitespace() || matches!(p, ':' | '：'));
        if opens && let Some(len) = marker_len(text, i) {
            markers.push((i, i + len));
        }
        prev = Some(c);
    }
    if markers.is_empty() {
        return Vec::new();
    }
    pieces_between(text, &markers)
}

fn is_clause_edge(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            ',' | ';'
                | ':'
                | '.'
                | '?'
                | '!'
                | '，'
                | '；'
                | '：'
                | '。'
                | '？'
                | '！'
                | '、'
                | '-'
        )
}

fn trim_clause(text: &str) -> &str {
    let mut s = text.trim_matches(is_clause_edge);
    for lead in KO_LEADING {
        if let Some(rest) = s.strip_prefix(lead) {
            s = rest.trim_start_matches(is_clause_edge);
        }
    }
    s
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Words that open a question (or a request) rather than a statement.
const QUESTION_OPENERS: &[&str] = &[
    "is", "are", "was", "were", "does", "do", "did", "can", "could", "will", "would", "should",
    "has", "have", "had", "how", "what", "when", "where", "which", "who", "whom", "whose", "why",
    "whether", "compare", "list", "find", "name", "give", "show", "tell", "explain", "describe",
];

/// Whether `text` is a statement (a claim to check) rather than a question,
/// a request or a list of requirements: a sentence that opens with a
/// capital letter, with no question mark, no interrogative opening and
/// none of the Chinese, Japanese or Korean question endings. A statement
/// is one claim per sentence — its commas and `and`s join parts of one
/// fact (`X, vice president of Y, said Z`), so it is not cut there. (CJK
/// text, which has no capitals, is always cut at its separators.)
pub(crate) fn is_statement(text: &str) -> bool {
    let t = text.trim();
    if t.contains(['?', '？']) || t.is_empty() {
        return false;
    }
    if !t.chars().next().is_some_and(char::is_uppercase) {
        return false;
    }
    let first = t
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .find(|w| !w.is_empty())
        .unwrap_or_default()
        .to_lowercase();
    if QUESTION_OPENERS.contains(&first.as_str()) {
        return false;
    }
    const CJK_QUESTIONS: &[&str] = &[
        "吗",
        "嗎",
        "是否",
        "什么",
        "什麼",
        "哪",
        "如何",
        "怎么",
        "怎麼",
        "为什么",
        "為什麼",
        "多少",
        "几",
        "幾",
        "ですか",
        "でしょうか",
        "ますか",
        "か。",
        "까",
        "니까",
        "나요",
    ];
    let end = t.trim_end_matches(['。', '.', '!', '！']);
    !CJK_QUESTIONS
        .iter()
        .any(|q| end.ends_with(q) || (q.chars().count() > 1 && t.contains(q)))
        // A numbered list ("1. … 2. …") is several requirements.
        && numbered_pieces(t).len() < 3
}

/// A statement's clauses: its sentences (the one splitter,
/// [`ferret_text::sentences::sentences`]) and their `;`-separated parts.
fn statement_clauses(text: &str) -> Vec<String> {
    sentences(text)
        .into_iter()
        .flat_map(|r| text[r].split_inclusive([';', '；']))
        .map(|c| trim_clause(c).to_string())
        .filter(|c| char_len(c) >= MIN_CLAUSE_CHARS)
        .collect()
}

/// The clauses of `question`, in order (not yet capped).
pub fn clauses(question: &str) -> Vec<String> {
    if is_statement(question) {
        let out = statement_clauses(question);
        if !out.is_empty() {
            return out;
        }
    }
    let numbered: Vec<&str> = numbered_pieces(question)
        .into_iter()
        .map(|(s, e)| trim_clause(&question[s..e]))
        .filter(|c| char_len(c) >= MIN_CLAUSE_CHARS)
        .collect();
    if numbered.len() > 1 {
        return numbered.into_iter().map(str::to_string).collect();
    }
    let pieces = pieces_between(question, &cut_points(question));
    // Join short pieces to their neighbour rather than dropping them.
    let mut merged: Vec<(usize, usize)> = Vec::new();
    let mut pending: Option<usize> = None;
    for (s, e) in pieces {
        if pending.is_none() && trim_clause(&question[s..e]).is_empty() {
            continue;
        }
        let start = pending.unwrap_or(s);
        if char_len(trim_clause(&question[start..e])) < MIN_CLAUSE_CHARS {
            pending = Some(start);
            continue;
        }
        merged.push((start, e));
        pending = None;
    }
    if let Some(start) = pending {
        match merged.last_mut() {
            Some(last) if char_len(trim_clause(&question[start..])) > 0 => last.1 = question.len(),
            _ => merged.push((start, question.len())),
        }
    }
    let out: Vec<String> = merged
        .into_iter()
        .map(|(s, e)| trim_clause(&question[s..e]))
        .filter(|c| char_len(c) >= MIN_CLAUSE_CHARS)
        .map(str::to_string)
        .collect();
    if out.is_empty() {
        let whole = trim_clause(question);
        if whole.is_empty() {
            return Vec::new();
        }
        return vec![whole.to_string()];
    }
    out
}

/// Matching terms of `text`: its numbers, dates and times whole, as
/// written (`30,000`, `$101,000`, `9.5`, `8-speed`, `06:40`, `18 %`,
/// `2019年3月3日`; see [`super::facts`]), then tokens of ≥ 2 characters
/// minus stopwords (CJK as bigrams after function words are cut out) from
/// the rest.
pub fn terms(text: &str) -> Vec<String> {
    let mut placed: Vec<(usize, String)> = Vec::new();
    let mut masked = text.to_string();
    for fact in super::facts::facts_of(text) {
        if matches!(fact.fact, super::facts::Fact::Name { .. }) {
            continue;
        }
        let mut end = fact.span.end;
        // `8-speed`: the unit joined by a hyphen belongs to the term.
        if text[end..].starts_with('-') {
            end += 1 + text[end + 1..]
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(text.len() - end - 1);
        }
        let term = text[fact.span.start..end].trim().to_string();
        if !term.is_empty() {
            placed.push((fact.span.start, term));
        }
        masked.replace_range(fact.span.start..end, &" ".repeat(end - fact.span.start));
    }
    // The other tokens, placed where they first occur (after the facts
    // masked out, so a fact's digits are never a token of their own).
    let analyzer = Analyzer::CONSTRAINT;
    let cleaned = analyzer.prepare(&masked);
    let lower = cleaned.to_lowercase();
    let mut from = 0;
    for t in tokens(&cleaned) {
        if !analyzer.accepts(&t) {
            continue;
        }
        let term = t.into_string();
        let at = lower
            .get(from..)
            .and_then(|rest| rest.find(&term))
            .map_or(from, |i| from + i);
        from = at;
        placed.push((at, term));
    }
    placed.sort_by_key(|(at, _)| *at);
    let mut out: Vec<String> = Vec::new();
    for (_, term) in placed {
        if !out.contains(&term) {
            out.push(term);
        }
    }
    out
}

/// The facts of `text` as written: numbers, dates, times and names
/// (see [`super::facts`]), in order, without repeats.
pub fn facts(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for fact in super::facts::facts_of(text) {
        let written = fact.fact.text().to_string();
        if !out.contains(&written) {
            out.push(written);
        }
    }
    out
}

fn is_optional(clause: &str) -> bool {
    static OPTIONAL: OnceLock<CueSet> = OnceLock::new();
    OPTIONAL
        .get_or_init(|| CueSet::new(&[(0, OPTIONAL_MARKERS)]))
        .find(clause)
        != 0
}

/// Four-digit years (1000–2099, with a trailing 年/년 or "s" kept) and
/// quoted titles in `text`.
pub(crate) fn facets_of(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        let s = s.trim();
        if !s.is_empty() && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    };
    for (y, _) in years(text) {
        push(y);
    }
    const QUOTES: &[(char, char)] = &[
        ('"', '"'),
        ('“', '”'),
        ('「', '」'),
        ('『', '』'),
        ('《', '》'),
    ];
    for &(open, close) in QUOTES {
        let mut rest = text;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            let Some(j) = after.find(close) else { break };
            let inner = &after[..j];
            if (2..=80).contains(&char_len(inner)) {
                push(inner);
            }
            rest = &after[j + close.len_utf8()..];
        }
    }
    out.truncate(MAX_CONSTRAINTS);
    out
}

/// Years in `text` (1000–2099) with an optional 年/년/s suffix, and their
/// byte offsets.
pub fn years(text: &str) -> Vec<(&str, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= bytes.len() {
        let window = &bytes[i..i + 4];
        let digits = window.iter().all(u8::is_ascii_digit);
        let before_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let after_ok = bytes.get(i + 4).is_none_or(|b| !b.is_ascii_digit());
        if digits && before_ok && after_ok && matches!(window[0], b'1' | b'2') {
            let year: u32 = window
                .iter()
                .fold(0, |acc, d| acc * 10 + u32::from(d - b'0'));
            if (1000..=2099).contains(&year) {
                let rest = &text[i + 4..];
                let suffix = ['年', '년', 's']
                    .iter()
                    .find(|s| rest.starts_with(**s))
                    .map_or(0, |s| s.len_utf8());
                out.push((&text[i..i + 4 + suffix], i));
                i += 4 + suffix;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The constraints and facets of `question`.
pub fn extract(question: &str) -> Extraction {
    let all = clauses(question);
    let single = all.len() == 1;
    let mut constraints = Vec::new();
    let mut facets = Vec::new();
    for (i, text) in all.into_iter().enumerate() {
        if i >= MAX_CONSTRAINTS {
            facets.push(text);
            continue;
        }
        let mandatory = !is_optional(&text);
        constraints.push(Constraint::new(format!("c{}", i + 1), text, mandatory));
    }
    if single {
        facets.extend(facets_of(question));
    }
    Extraction {
        constraints,
        facets,
    }
}

/// The length anchors are ranked by: letters and digits, with single
/// spaces between runs.
fn match_len(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.chars().count() + 1)
        .sum::<usize>()
        .saturating_sub(1)
}

/// The anchor: the longest mandatory constraint (any constraint when none
/// is mandatory), the earliest on a tie.
pub fn anchor(constraints: &[Constraint]) -> Option<String> {
    constraints
        .iter()
        .enumerate()
        .max_by_key(|(i, c)| (c.mandatory, match_len(&c.text), std::cmp::Reverse(*i)))
        .map(|(_, c)| c.id.clone())
}
