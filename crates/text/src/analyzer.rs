//! Analyzers: the terms of a text for one purpose, composed from the one
//! tokenizer ([`crate::tokenize::tokens`]), the stopword tables
//! ([`crate::stopwords`]) and the one stemmer ([`crate::stem`]).
//!
//! Each use is a named preset, not a function of its own:
//!
//! | preset | words kept | CJK bigrams kept | stopwords | CJK function words | stem | nothing left |
//! |---|---|---|---|---|---|---|
//! | [`Analyzer::KEYWORD`] | > 2 chars | all | kept | kept | no | empty |
//! | [`Analyzer::HIGHLIGHT`] | > 1 char | all | dropped | cut first | no | every token |
//! | [`Analyzer::CLAIM`] | > 1 char | all | dropped | cut first | yes | empty |
//! | [`Analyzer::CONSTRAINT`] | > 1 char | two characters | dropped (CJK too) | cut first | no | empty |
//!
//! Terms come out lowercased, deduplicated, in the order they first occur.
//! A new use adds a preset here.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::stem::stem;
use crate::stopwords::{clean_cjk, is_stopword};
use crate::tokenize::{Token, tokens};

/// How a text becomes terms (see the module docs for the presets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Analyzer {
    /// Word tokens with fewer characters are dropped.
    pub min_word_chars: usize,
    /// CJK tokens with fewer characters are dropped (a one-character CJK
    /// run is a one-character token).
    pub min_cjk_chars: usize,
    /// Word tokens that are stopwords are dropped.
    pub drop_stopwords: bool,
    /// CJK tokens that are stopwords are dropped.
    pub drop_cjk_stopwords: bool,
    /// CJK function words and particles are cut out of the text before it
    /// is tokenized ([`clean_cjk`]), so no bigram straddles them.
    pub cut_cjk_function_words: bool,
    /// Word terms are stemmed ([`stem`]).
    pub stem: bool,
    /// When no token passes the filters, every token of the text is a term.
    pub fall_back_to_all: bool,
}

impl Analyzer {
    /// Keyword coverage of results: word tokens longer than 2 characters
    /// and every CJK bigram.
    pub const KEYWORD: Analyzer = Analyzer {
        min_word_chars: 3,
        min_cjk_chars: 1,
        drop_stopwords: false,
        drop_cjk_stopwords: false,
        cut_cjk_function_words: false,
        stem: false,
        fall_back_to_all: false,
    };

    /// Passage scoring for highlights: words of two or more characters that
    /// are not stopwords and CJK bigrams after function words are cut;
    /// every token when that leaves nothing.
    pub const HIGHLIGHT: Analyzer = Analyzer {
        min_word_chars: 2,
        min_cjk_chars: 1,
        drop_stopwords: true,
        drop_cjk_stopwords: false,
        cut_cjk_function_words: true,
        stem: false,
        fall_back_to_all: true,
    };

    /// What a claim is about (citations, gaps, themes): the
    /// [`HIGHLIGHT`](Self::HIGHLIGHT) filters without the fallback, each
    /// word stemmed, so a claim meets a page written with other inflections.
    pub const CLAIM: Analyzer = Analyzer {
        min_word_chars: 2,
        min_cjk_chars: 1,
        drop_stopwords: true,
        drop_cjk_stopwords: false,
        cut_cjk_function_words: true,
        stem: true,
        fall_back_to_all: false,
    };

    /// The tokens a plan's constraint is matched by (beside its facts):
    /// words and CJK bigrams of two or more characters that are not
    /// stopwords, after function words are cut.
    pub const CONSTRAINT: Analyzer = Analyzer {
        min_word_chars: 2,
        min_cjk_chars: 2,
        drop_stopwords: true,
        drop_cjk_stopwords: true,
        cut_cjk_function_words: true,
        stem: false,
        fall_back_to_all: false,
    };

    /// `text` as this analyzer tokenizes it: with CJK function words cut
    /// out when [`cut_cjk_function_words`](Self::cut_cjk_function_words).
    pub fn prepare<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.cut_cjk_function_words {
            clean_cjk(text)
        } else {
            Cow::Borrowed(text)
        }
    }

    /// Whether `token` passes this analyzer's filters.
    pub fn accepts(&self, token: &Token) -> bool {
        match token {
            Token::Word(w) => {
                w.chars().count() >= self.min_word_chars && !(self.drop_stopwords && is_stopword(w))
            }
            Token::Cjk(c) => {
                c.chars().count() >= self.min_cjk_chars
                    && !(self.drop_cjk_stopwords && is_stopword(c))
            }
        }
    }

    /// The term `token` becomes: stemmed when the analyzer stems words.
    pub fn term(&self, token: &Token) -> String {
        match token {
            Token::Word(w) if self.stem => stem(w),
            other => other.as_str().to_owned(),
        }
    }

    /// The terms of `text`, deduplicated, in order of first occurrence.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let prepared = self.prepare(text);
        let mut out = dedup(
            tokens(&prepared)
                .iter()
                .filter(|t| self.accepts(t))
                .map(|t| self.term(t)),
        );
        if out.is_empty() && self.fall_back_to_all {
            out = dedup(tokens(text).iter().map(|t| self.term(t)));
        }
        out
    }
}

/// `terms` without repeats, in order.
fn dedup(terms: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    terms.filter(|t| seen.insert(t.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_keeps_long_words_and_every_bigram() {
        assert_eq!(
            Analyzer::KEYWORD.terms("Is the Rust async runtime fast? 东京"),
            vec!["the", "rust", "async", "runtime", "fast", "东京"]
        );
    }

    #[test]
    fn highlight_drops_stopwords_and_falls_back() {
        assert_eq!(
            Analyzer::HIGHLIGHT.terms("what is the tokio runtime"),
            vec!["tokio", "runtime"]
        );
        assert_eq!(
            Analyzer::HIGHLIGHT.terms("what is it"),
            vec!["what", "is", "it"]
        );
    }

    #[test]
    fn claim_stems_so_inflections_meet() {
        assert_eq!(
            Analyzer::CLAIM.terms("The runtimes directed"),
            Analyzer::CLAIM.terms("a runtime directs")
        );
    }

    #[test]
    fn constraint_drops_single_cjk_characters() {
        assert!(Analyzer::CONSTRAINT.terms("猫").is_empty());
        assert_eq!(Analyzer::CONSTRAINT.terms("x tokio"), vec!["tokio"]);
    }

    #[test]
    fn terms_repeat_once() {
        assert_eq!(Analyzer::KEYWORD.terms("rust Rust RUST"), vec!["rust"]);
    }
}
