//! "Do these two results disagree?" — the simple, documented heuristic
//! behind the FinalScore's conflict flags (`[T1 vs community]`, `[conflict]`).
//!
//! Two results **disagree** when they are about the same subject and either
//! their titles differ in polarity or they give different numbers for the
//! same quantity:
//!
//! 1. **Same subject**: the content terms of the two titles
//!    ([`crate::tokenize::tokens`]: words and CJK bigrams, without
//!    stopwords ([`ferret_text::stopwords`]), negation words and numbers)
//!    share at least
//!    [`MIN_SHARED_TERMS`] terms, and the shared terms are at least half of
//!    the smaller title's terms.
//! 2. **Opposite polarity**: the titles' polarities differ, read as the
//!    judgement reads a sentence ([`polarity_of`]: an odd count of English
//!    negation words, `n't`, negating phrases and CJK markers is negated;
//!    `Rust supports X` vs `Rust does not support X`; `支持` vs `不支持`).
//!    Titles only: snippets hold incidental negations too often.
//! 3. **Contradicting numbers**: in title + snippet, a quantity is a key
//!    followed by a link and a number — `timeout is 30`, `limit = 100`,
//!    `size: 2`, `超时为30秒` (the key is the word before the link, or the
//!    two CJK characters before it; links are [`LINK_WORDS`] and `=`,
//!    `:`, `为`, `是`). They contradict when both give the same key and
//!    their numbers for it have nothing in common. A bare number (`Rust
//!    1.75`) is not a quantity, so different versions do not "disagree".
//!
//! It is deliberately simple: it flags candidates for a person or model to
//! check, it does not decide who is right.

use ferret_text::facts::{is_negation, polarity_of};
use ferret_text::stopwords::is_stopword;

use crate::tokenize::{Token, tokens};

/// English words that link a key to its number (`timeout is 30`).
pub const LINK_WORDS: &[&str] = &["is", "are", "was", "were", "equals", "of", "to", "at"];

/// Shared title terms needed to call two results the same subject.
pub const MIN_SHARED_TERMS: usize = 2;

/// Why two claims disagree.
#[derive(Debug, Clone, PartialEq)]
pub enum Disagreement {
    /// One title is negated, the other is not.
    Polarity,
    /// Both give `key` a number, with no number in common.
    Numbers {
        /// The quantity's key (`timeout`, `超时`).
        key: String,
        /// The first claim's numbers for it.
        left: Vec<f64>,
        /// The second claim's numbers for it.
        right: Vec<f64>,
    },
}

/// What a result claims, reduced to what the heuristic compares.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    terms: Vec<String>,
    negated: bool,
    quantities: Vec<(String, f64)>,
}

impl Claim {
    /// The claim of a result with this title and snippet.
    pub fn new(title: &str, snippet: &str) -> Claim {
        let title_lower = title.to_lowercase().replace('’', "'");
        let mut terms: Vec<String> = tokens(&title_lower)
            .into_iter()
            .filter(|t| match t {
                Token::Word(w) => !is_stopword(w) && !is_negation(w) && w.parse::<f64>().is_err(),
                Token::Cjk(c) => !is_stopword(c),
            })
            .map(Token::into_string)
            .collect();
        terms.sort();
        terms.dedup();
        let negated = polarity_of(&title_lower) % 2 == 1;
        let quantities = quantities(&format!("{title_lower} \n {}", snippet.to_lowercase()));
        Claim {
            terms,
            negated,
            quantities,
        }
    }

    /// The claim of a fused search result (title and snippet).
    pub fn of_result(result: &crate::result::SearchResult) -> Claim {
        Claim::new(&result.title, &result.snippet)
    }

    /// Whether the title is negated.
    pub fn is_negated(&self) -> bool {
        self.negated
    }

    /// The `(key, number)` quantities found.
    pub fn quantities(&self) -> &[(String, f64)] {
        &self.quantities
    }

    /// Whether both claims are about the same subject (rule 1).
    pub fn same_subject(&self, other: &Claim) -> bool {
        let shared = self
            .terms
            .iter()
            .filter(|t| other.terms.binary_search(t).is_ok())
            .count();
        let smaller = self.terms.len().min(other.terms.len());
        shared >= MIN_SHARED_TERMS && shared * 2 >= smaller
    }

    /// How the two claims disagree, if they do (see the module docs).
    pub fn disagrees_with(&self, other: &Claim) -> Option<Disagreement> {
        if !self.same_subject(other) {
            return None;
        }
        if self.negated != other.negated {
            return Some(Disagreement::Polarity);
        }
        for (key, _) in &self.quantities {
            let left: Vec<f64> = numbers_for(&self.quantities, key);
            let right: Vec<f64> = numbers_for(&other.quantities, key);
            if !right.is_empty() && !left.iter().any(|l| right.contains(l)) {
                return Some(Disagreement::Numbers {
                    key: key.clone(),
                    left,
                    right,
                });
            }
        }
        None
    }
}

fn numbers_for(quantities: &[(String, f64)], key: &str) -> Vec<f64> {
    let mut out: Vec<f64> = quantities
        .iter()
        .filter(|(k, _)| k == key)
        .map(|(_, n)| *n)
        .collect();
    out.dedup();
    out
}

/// One lexical item of the quantity scanner.
#[derive(Debug, Clone, PartialEq)]
enum Lex {
    Word(String),
    Number(f64),
    Cjk(char),
    Link,
    Other,
}

fn lex(text: &str) -> Vec<Lex> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            out.push(s.parse::<f64>().map_or(Lex::Other, Lex::Number));
            continue;
        }
        if crate::tokenize::is_cjk(c) {
            out.push(if matches!(c, '为' | '是') {
                Lex::Link
            } else {
                Lex::Cjk(c)
            });
        } else if c.is_alphanumeric() {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let w: String = chars[start..i].iter().collect();
            out.push(if LINK_WORDS.contains(&w.as_str()) {
                Lex::Link
            } else {
                Lex::Word(w)
            });
            continue;
        } else if matches!(c, '=' | ':' | '：') {
            out.push(Lex::Link);
        } else if !c.is_whitespace() {
            out.push(Lex::Other);
        }
        i += 1;
    }
    out
}

/// `(key, number)` pairs: a key, one or two links, then a number.
fn quantities(text: &str) -> Vec<(String, f64)> {
    let lexed = lex(text);
    let mut out = Vec::new();
    for (i, item) in lexed.iter().enumerate() {
        let Lex::Number(n) = item else { continue };
        // Walk back over one or two links.
        let mut j = i;
        let mut links = 0;
        while j > 0 && lexed[j - 1] == Lex::Link && links < 2 {
            j -= 1;
            links += 1;
        }
        if links == 0 || j == 0 {
            continue;
        }
        let key = match &lexed[j - 1] {
            Lex::Word(w) if !is_stopword(w) => Some(w.clone()),
            Lex::Cjk(c2) => {
                let mut key = String::new();
                if j >= 2
                    && let Lex::Cjk(c1) = lexed[j - 2]
                {
                    key.push(c1);
                }
                key.push(*c2);
                Some(key)
            }
            _ => None,
        };
        if let Some(key) = key {
            out.push((key, *n));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_need_a_link() {
        assert_eq!(
            quantities("the default timeout is 30 seconds"),
            vec![("timeout".to_string(), 30.0)]
        );
        assert_eq!(
            quantities("limit = 100"),
            vec![("limit".to_string(), 100.0)]
        );
        assert_eq!(
            quantities("默认超时为30秒"),
            vec![("超时".to_string(), 30.0)]
        );
        assert!(quantities("rust 1.75 released").is_empty());
    }
}
