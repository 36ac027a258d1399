//! Which query terms a text contains, for the `keyword` score: a term
//! counts when it is one of the text's tokens (a one-character CJK term,
//! which is never a bigram, when it is a substring). The terms are found
//! among the tokens the tokenizer hands out — with near-duplicate
//! clustering on, the very tokens the fingerprint is built from, so each
//! text is read once.

use super::{Tok, Tokenizer, has_cjk, token_hash};

/// The query terms of one fusion, ready to be looked for.
pub struct QueryTerms<'a> {
    terms: &'a [String],
    /// [`token_hash`] of each term.
    hashes: Vec<u64>,
    /// Bit `h % 64` set for each term hash `h`: most tokens are no term and
    /// are dismissed by one test.
    filter: u64,
    /// Which terms are one CJK character (never a bigram token: looked for
    /// as a substring).
    single_cjk: Vec<bool>,
}

impl<'a> QueryTerms<'a> {
    /// The terms `terms` (lowercase tokens, as
    /// [`Analyzer::KEYWORD`](crate::Analyzer::KEYWORD) gives them).
    pub fn new(terms: &'a [String]) -> Self {
        let hashes: Vec<u64> = terms.iter().map(|t| token_hash(t)).collect();
        QueryTerms {
            terms,
            filter: hashes.iter().fold(0, |f, h| f | (1 << (h & 63))),
            hashes,
            single_cjk: terms
                .iter()
                .map(|t| t.chars().count() == 1 && has_cjk(t))
                .collect(),
        }
    }

    /// How many terms there are.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether there are no terms.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Mark in `found` the term `token` is, if any.
    #[inline(always)]
    pub fn mark(&self, token: &Tok<'_>, found: &mut [bool]) {
        if self.filter & (1 << (token.hash & 63)) == 0 {
            return;
        }
        for (i, &h) in self.hashes.iter().enumerate() {
            if h == token.hash && token.eq_lower(&self.terms[i]) {
                found[i] = true;
            }
        }
    }

    /// Mark in `found` the terms that are tokens of `text`.
    pub fn find(&self, tokenizer: &mut Tokenizer, text: &str, found: &mut [bool]) {
        tokenizer.for_each(text, |t| self.mark(&t, found));
    }

    /// The keyword score, the share of terms found (a one-character CJK
    /// term is looked for as a substring of `texts`), and the number found;
    /// 0.5 when there are no terms.
    pub fn score(&self, found: &mut [bool], texts: [&str; 2]) -> (f64, u32) {
        if self.terms.is_empty() {
            return (0.5, 0);
        }
        for ((term, f), &single) in self
            .terms
            .iter()
            .zip(found.iter_mut())
            .zip(&self.single_cjk)
        {
            if !*f && single {
                *f = texts.iter().any(|t| t.contains(term.as_str()));
            }
        }
        let n = found.iter().filter(|f| **f).count();
        (n as f64 / self.terms.len() as f64, n as u32)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::Analyzer;
    use crate::tokenize::tokens;
    fn query_terms(q: &str) -> Vec<String> {
        Analyzer::KEYWORD.terms(q)
    }

    /// The terms of `query` that are tokens of `text`, by the definition.
    fn by_definition(terms: &[String], text: &str) -> Vec<bool> {
        let toks = tokens(text);
        terms
            .iter()
            .map(|t| toks.iter().any(|k| k.as_str() == t))
            .collect()
    }

    fn found(terms: &[String], text: &str) -> Vec<bool> {
        let mut found = vec![false; terms.len()];
        QueryTerms::new(terms).find(&mut Tokenizer::default(), text, &mut found);
        found
    }

    #[test]
    fn whole_tokens_only() {
        let terms = query_terms("rust async node.js");
        assert_eq!(found(&terms, "Rusty asynchrony"), vec![false, false, false]);
        assert_eq!(
            found(&terms, "RUST, Async; Node.js."),
            vec![true, true, true]
        );
        assert_eq!(found(&terms, "node.jsx rust's"), vec![false, false, false]);
    }

    proptest! {
        #[test]
        fn terms_are_found_exactly_among_the_tokens(
            query in "[a-zA-Z.+#' 异步编程]{0,20}",
            text in "[a-zA-Z.+#' ,异步编程]{0,60}",
        ) {
            let terms = query_terms(&query);
            prop_assert_eq!(found(&terms, &text), by_definition(&terms, &text));
        }
    }
}
