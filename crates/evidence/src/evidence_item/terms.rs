//! Terms shared by the claim-side steps (citations, gaps, themes): what a
//! claim is about, and whether a text mentions it.
//!
//! - [`content_terms`]: a claim's content terms, as [`Analyzer::CLAIM`]
//!   reads them — lowercased words of two or more characters that are not
//!   stopwords and CJK character bigrams after CJK function words are cut
//!   out, each word stemmed by the one stemmer ([`ferret_text::stem`]),
//!   deduplicated, in order.
//! - [`TextTerms`]: every stemmed token of a text, for coverage checks.
//!
//! Tokens come from [`ferret_core::tokenize::tokens`], so CJK text is
//! matched by bigrams on both sides.

use std::collections::HashSet;

use ferret_core::tokenize::{Token, tokens};
use ferret_text::Analyzer;

/// The stemmed form of one token ([`Analyzer::CLAIM`]'s term).
pub fn token_term(token: &Token) -> String {
    Analyzer::CLAIM.term(token)
}

/// A claim's content terms (see the module docs).
pub fn content_terms(text: &str) -> Vec<String> {
    Analyzer::CLAIM.terms(text)
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
