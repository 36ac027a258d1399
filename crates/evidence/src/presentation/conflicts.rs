//! Conflicting results: a negation / antonym heuristic over titles and
//! snippets.

use std::collections::HashSet;

use ferret_core::plan::stopwords::is_stopword;
use ferret_core::tokenize::{Token, is_cjk, tokens};

use crate::evidence_item::terms::token_term;

/// Words that negate the next few content words of their clause.
pub const NEGATORS: &[&str] = &[
    "not",
    "no",
    "never",
    "without",
    "cannot",
    "can't",
    "don't",
    "doesn't",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "won't",
    "didn't",
    "shouldn't",
    "couldn't",
    "hasn't",
    "haven't",
    "lacks",
    "lack",
    "none",
    "neither",
    "nor",
];

/// CJK characters that negate the word after them (`不支持`, `没有`, `无法`).
pub const CJK_NEGATORS: &[char] = &['不', '没', '无', '未', '非', '别'];

/// Pairs of words that assert opposite things.
pub const ANTONYMS: &[(&str, &str)] = &[
    ("fast", "slow"),
    ("faster", "slower"),
    ("fastest", "slowest"),
    ("secure", "insecure"),
    ("safe", "unsafe"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("rise", "fall"),
    ("higher", "lower"),
    ("better", "worse"),
    ("best", "worst"),
    ("true", "false"),
    ("supported", "unsupported"),
    ("stable", "unstable"),
    ("recommended", "deprecated"),
    ("work", "broken"),
    ("success", "failure"),
    ("succeed", "fail"),
    ("win", "lose"),
    ("legal", "illegal"),
    ("possible", "impossible"),
    ("available", "unavailable"),
    ("compatible", "incompatible"),
    ("effective", "ineffective"),
    ("confirm", "deny"),
    ("confirmed", "denied"),
    ("approved", "rejected"),
    ("safe", "dangerous"),
    ("增加", "减少"),
    ("提高", "降低"),
    ("上涨", "下跌"),
    ("更快", "更慢"),
    ("成功", "失败"),
    ("推荐", "弃用"),
    ("优于", "劣于"),
    ("安全", "危险"),
];

/// How many content words after a negator it covers.
const NEGATION_SCOPE: usize = 3;

/// Clause separators.
const CLAUSE_BREAKS: &[char] = &[
    '.', ',', ';', ':', '!', '?', '。', '，', '；', '：', '！', '？', '、', '\n', '|', '(', ')',
    '—', '–',
];

/// What one clause asserts and denies.
#[derive(Debug, Clone, Default)]
pub(crate) struct Clause {
    pub(crate) asserted: HashSet<String>,
    /// Denied terms, in text order (the word right after a negator first).
    pub(crate) negated: Vec<String>,
    /// The antonym pairs it asserts one side of: (index in [`ANTONYMS`],
    /// whether it is the second word).
    pub(crate) antonyms: Vec<(usize, bool)>,
}

fn is_negator(word: &str) -> bool {
    NEGATORS.contains(&word)
}

fn content(t: &Token) -> bool {
    match t {
        Token::Word(w) => w.chars().count() > 1 && !is_stopword(w) && !is_negator(w),
        Token::Cjk(c) => c.chars().count() == 2 && !c.chars().any(|ch| CJK_NEGATORS.contains(&ch)),
    }
}

/// CJK words right after a negator character (`不支持` → `支持`, `没有X`
/// → the pair after `有`).
fn cjk_negated(clause: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = clause.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if !CJK_NEGATORS.contains(c) {
            continue;
        }
        let mut start = i + 1;
        if *c == '没' && chars.get(start) == Some(&'有') {
            start += 1;
        }
        if let (Some(a), Some(b)) = (chars.get(start), chars.get(start + 1))
            && is_cjk(*a)
            && is_cjk(*b)
        {
            let word: String = [*a, *b].iter().collect();
            if !out.contains(&word) {
                out.push(word);
            }
        }
    }
}

/// The clauses of a text with their asserted and negated content terms.
pub(crate) fn clauses(text: &str) -> Vec<Clause> {
    text.split(CLAUSE_BREAKS)
        .filter(|c| !c.trim().is_empty())
        .map(|clause| {
            let mut out = Clause::default();
            let mut scope = 0;
            for t in tokens(clause) {
                if let Token::Word(w) = &t
                    && is_negator(w)
                {
                    scope = NEGATION_SCOPE;
                    continue;
                }
                if !content(&t) {
                    continue;
                }
                let term = token_term(&t);
                if scope > 0 && matches!(t, Token::Word(_)) {
                    scope -= 1;
                    if !out.negated.contains(&term) {
                        out.negated.push(term);
                    }
                } else {
                    out.asserted.insert(term);
                }
            }
            cjk_negated(clause, &mut out.negated);
            for n in &out.negated {
                out.asserted.remove(n);
            }
            for (k, (p, q)) in ANTONYMS.iter().enumerate() {
                match (out.asserted.contains(*p), out.asserted.contains(*q)) {
                    (true, false) => out.antonyms.push((k, false)),
                    (false, true) => out.antonyms.push((k, true)),
                    _ => {}
                }
            }
            out
        })
        .collect()
}

/// Why two results disagree.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Disagreement {
    /// The words in conflict: one term (asserted vs denied) or an antonym
    /// pair.
    pub(crate) terms: Vec<String>,
    /// A short reason.
    pub(crate) reason: String,
}

fn shares_context(a: &Clause, b: &Clause, exclude: &[&str]) -> bool {
    a.asserted
        .intersection(&b.asserted)
        .any(|t| !exclude.contains(&t.as_str()))
}

/// Whether two texts (title + snippet) assert opposite things: a clause of
/// one denies a term a clause of the other asserts, or they assert an
/// antonym pair — in both cases the two clauses must also assert at least
/// one other term in common (the same subject).
pub(crate) fn disagreement(a: &[Clause], b: &[Clause]) -> Option<Disagreement> {
    for (x, y, flipped) in [(a, b, false), (b, a, true)] {
        for ca in x {
            for cb in y {
                for t in ca.negated.iter().filter(|t| cb.asserted.contains(*t)) {
                    if !cb.negated.contains(t) && shares_context(ca, cb, &[t]) {
                        let (first, second) = if flipped {
                            ("asserted", "denied")
                        } else {
                            ("denied", "asserted")
                        };
                        return Some(Disagreement {
                            terms: vec![t.clone()],
                            reason: format!("{t:?} {first} by one and {second} by the other"),
                        });
                    }
                }
            }
        }
    }
    for ca in a {
        for cb in b {
            for &(k, second) in &ca.antonyms {
                if !cb.antonyms.contains(&(k, !second)) {
                    continue;
                }
                let (p, q) = ANTONYMS[k];
                let (x, y) = if second { (q, p) } else { (p, q) };
                if shares_context(ca, cb, &[x, y]) {
                    return Some(Disagreement {
                        terms: vec![x.to_string(), y.to_string()],
                        reason: format!("{x:?} vs {y:?}"),
                    });
                }
            }
        }
    }
    None
}
