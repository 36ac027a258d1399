//! Terms shared by the claim-side steps (citations, gaps): what a claim is
//! about, and whether a text mentions it.
//!
//! - [`content_terms`]: a claim's content terms — lowercased words of two or
//!   more characters that are not stopwords
//!   ([`ferret_core::plan::stopwords`]), and CJK character bigrams after CJK
//!   function words are cut out ([`ferret_core::plan::stopwords::clean_cjk`]),
//!   each [`stem`]med, deduplicated, in order.
//! - [`TextTerms`]: every stemmed token of a text, for coverage checks.
//!
//! Tokens come from [`ferret_core::tokenize::tokens`], so CJK text is
//! matched by bigrams on both sides.

use std::borrow::Cow;
use std::collections::HashSet;

use ferret_core::plan::stopwords::{clean_cjk, is_stopword};
use ferret_core::tokenize::{Token, tokens};

/// A light English plural stem, applied to claim and text tokens alike so
/// that `runtimes` matches `runtime`: `…ies` → `…y`, `…sses` → `…ss`,
/// `…xes`/`…ches`/`…shes` lose `es`, and a final `s` is dropped unless the
/// word ends in `ss`, `us` or `is`. Words of three characters or fewer and
/// non-ASCII tokens are unchanged.
pub fn stem(word: &str) -> Cow<'_, str> {
    if word.len() <= 3 || !word.is_ascii() {
        return Cow::Borrowed(word);
    }
    if let Some(base) = word.strip_suffix("ies")
        && base.len() >= 2
    {
        return Cow::Owned(format!("{base}y"));
    }
    if word.ends_with("sses") {
        return Cow::Borrowed(&word[..word.len() - 2]);
    }
    for suffix in ["xes", "ches", "shes"] {
        if word.ends_with(suffix) {
            return Cow::Borrowed(&word[..word.len() - 2]);
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        return Cow::Borrowed(&word[..word.len() - 1]);
    }
    Cow::Borrowed(word)
}

/// The stemmed form of one token.
pub fn token_term(token: &Token) -> String {
    match token {
        Token::Word(w) => stem(w).into_owned(),
        Token::Cjk(c) => c.clone(),
    }
}

/// A claim's content terms (see the module docs).
pub fn content_terms(text: &str) -> Vec<String> {
    let cleaned = clean_cjk(text);
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for t in tokens(&cleaned) {
        let keep = match &t {
            Token::Word(w) => w.chars().count() > 1 && !is_stopword(w),
            Token::Cjk(_) => true,
        };
        if keep {
            let term = token_term(&t);
            if seen.insert(term.clone()) {
                out.push(term);
            }
        }
    }
    out
}

/// Every stemmed token of a text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextTerms {
    set: HashSet<String>,
}

impl TextTerms {
    /// The terms of `text`.
    pub fn of(text: &str) -> Self {
        TextTerms {
            set: tokens(text).iter().map(token_term).collect(),
        }
    }

    /// Whether `term` (already stemmed) occurs.
    pub fn contains(&self, term: &str) -> bool {
        self.set.contains(term)
    }

    /// The terms of `terms` that occur, in order.
    pub fn matched<'t>(&self, terms: &'t [String]) -> Vec<&'t str> {
        terms
            .iter()
            .filter(|t| self.set.contains(t.as_str()))
            .map(String::as_str)
            .collect()
    }

    /// The share of `terms` that occur (1.0 for no terms).
    pub fn coverage(&self, terms: &[String]) -> f64 {
        if terms.is_empty() {
            return 1.0;
        }
        self.matched(terms).len() as f64 / terms.len() as f64
    }

    /// Whether it holds no term.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }
}
