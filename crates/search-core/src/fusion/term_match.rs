//! Which query terms a result's title and snippet contain, for the
//! `keyword` score: a term counts when it is one of the text's tokens
//! ([`crate::tokenize::tokens`]).
//!
//! ASCII text and ASCII terms (nearly all of them) take a search instead of
//! a tokenisation: the title and snippet are copied into one reused buffer
//! and lowercased there, a space between them, each term is looked for
//! with a substring finder ([`memchr::memmem`], vectorised; built by the
//! matcher's first search and reused), and an occurrence counts only when
//! it is a whole token there ([`is_ascii_word_at`]). A result's few terms
//! are found without splitting and hashing its forty-odd words. Other text
//! is tokenised and its tokens compared with the terms. A proptest checks
//! the search against the tokens.
//!
//! With near-duplicate clustering on, the SimHash walks every token anyway,
//! and comparing those that pass a 64-bit filter of the terms' hashes
//! ([`TermMatcher::visitor`]) costs less than the search.

use memchr::memmem::Finder;

use crate::near_dup::{Tok, TokenStream, for_each_filtered, is_ascii_word_at, token_hash};
use crate::tokenize::tokens;

/// The query terms of one fusion, ready to be looked for.
pub(super) struct TermMatcher<'a> {
    terms: &'a [String],
    /// [`token_hash`] of each term.
    hashes: Vec<u64>,
    /// Bit `h % 64` set for each term hash `h`: most tokens are no term at
    /// all and are not compared.
    filter: u64,
    /// Whether every term is an ASCII token, so that terms can be searched
    /// for (otherwise every text is tokenised).
    searchable: bool,
    /// A finder for each term, built by the first search (fusion with
    /// near-duplicates never searches, and builds none).
    finders: Vec<Finder<'static>>,
    /// The text being searched, lowercased.
    lower: Vec<u8>,
    stream: TokenStream,
}

impl<'a> TermMatcher<'a> {
    /// A matcher for `terms` (lowercase tokens, as
    /// [`crate::tokenize::query_terms`] gives them).
    pub(super) fn new(terms: &'a [String]) -> Self {
        let searchable = terms.iter().all(|t| {
            t.is_ascii() && {
                let toks = tokens(t);
                toks.len() == 1 && toks[0].as_str() == t.as_str()
            }
        });
        let hashes: Vec<u64> = terms.iter().map(|t| token_hash(t)).collect();
        TermMatcher {
            terms,
            filter: hashes.iter().fold(0, |f, h| f | (1 << (h & 63))),
            hashes,
            searchable,
            finders: Vec::new(),
            lower: Vec::new(),
            stream: TokenStream::default(),
        }
    }

    /// Set `found[i]` to whether term `i` is a token of one of `texts`.
    pub(super) fn find_in(&mut self, texts: &[&str], found: &mut [bool]) {
        found.iter_mut().for_each(|f| *f = false);
        if !self.searchable || !texts.iter().all(|t| t.is_ascii()) {
            let (terms, hashes) = (self.terms, &self.hashes[..]);
            for text in texts {
                for_each_filtered(&mut self.stream, text, self.filter, |token: &Tok<'_>| {
                    mark(terms, hashes, token, found)
                });
            }
            return;
        }
        if self.finders.len() != self.terms.len() {
            self.finders = self
                .terms
                .iter()
                .map(|t| Finder::new(t.as_bytes()).into_owned())
                .collect();
        }
        // The texts lowercased, one space between them (no token spans a
        // space), so each term is one search.
        self.lower.clear();
        for text in texts {
            let at = self.lower.len();
            self.lower.extend_from_slice(text.as_bytes());
            self.lower[at..].make_ascii_lowercase();
            self.lower.push(b' ');
        }
        let lower = &self.lower[..];
        for ((finder, f), term) in self.finders.iter().zip(found.iter_mut()).zip(self.terms) {
            let mut from = 0;
            while let Some(at) = finder.find(&lower[from..]) {
                let start = from + at;
                if is_ascii_word_at(lower, start, start + term.len()) {
                    *f = true;
                    break;
                }
                from = start + 1;
            }
        }
    }

    /// The filter of [`Self::visitor`]: bit `h % 64` set for each term
    /// hash `h` (a token whose hash has its bit clear is no term).
    pub(super) fn filter(&self) -> u64 {
        self.filter
    }

    /// Clears `found`, then marks `found[i]` for the term `i` each visited
    /// token is (for fusion with near-duplicates, whose SimHash already
    /// takes every token: looking at those that pass [`Self::filter`] costs
    /// less than a search).
    pub(super) fn visitor<'f>(&'f self, found: &'f mut [bool]) -> impl FnMut(&Tok<'_>) + 'f {
        found.iter_mut().for_each(|f| *f = false);
        move |token| mark(self.terms, &self.hashes, token, found)
    }
}

/// Mark the term `token` is, if any.
#[inline]
fn mark(terms: &[String], hashes: &[u64], token: &Tok<'_>, found: &mut [bool]) {
    for (i, &h) in hashes.iter().enumerate() {
        if h == token.hash && token.eq_lower(&terms[i]) {
            found[i] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::TermMatcher;
    use crate::tokenize::tokens;

    /// The definition: the terms among the text's tokens.
    fn by_tokens(terms: &[String], text: &str) -> Vec<bool> {
        let toks: Vec<String> = tokens(text).into_iter().map(|t| t.into_string()).collect();
        terms.iter().map(|t| toks.contains(t)).collect()
    }

    /// The query's terms looked for in each text, then in all at once.
    fn check(query: &str, texts: &[String]) -> Result<(), TestCaseError> {
        let terms: Vec<String> = tokens(query).into_iter().map(|t| t.into_string()).collect();
        let terms = &terms[..];
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let texts = &texts[..];
        let mut matcher = TermMatcher::new(terms);
        let mut found = vec![true; terms.len()];
        for text in texts {
            matcher.find_in(&[text], &mut found);
            prop_assert_eq!(&found, &by_tokens(terms, text), "text {:?}", text);
        }
        // All of them at once: the terms any of them has.
        matcher.find_in(texts, &mut found);
        let mut any = vec![false; terms.len()];
        for text in texts {
            for (a, t) in any.iter_mut().zip(by_tokens(terms, text)) {
                *a |= t;
            }
        }
        prop_assert_eq!(&found, &any, "texts {:?}", texts);
        Ok(())
    }

    proptest! {
        /// ASCII text with every byte class the tokenizer knows, and terms
        /// made of the same bytes (so they often occur, whole or inside
        /// longer tokens).
        #[test]
        fn search_finds_the_terms_the_tokens_have(
            query in "[a-cA-C0-9+#.' ]{0,12}",
            texts in prop::collection::vec("[a-cA-C0-9+#.' ,:-]{0,40}", 1..4),
        ) {
            check(&query, &texts)?;
        }

        /// Text or terms beyond ASCII (tokenised instead of searched).
        #[test]
        fn tokenised_text_finds_the_same_terms(
            query in "[a-cé异步+. ]{0,10}",
            texts in prop::collection::vec("[a-cAé异步+.' ]{0,30}", 1..4),
        ) {
            check(&query, &texts)?;
        }
    }

    #[test]
    fn whole_tokens_only() {
        let terms: Vec<String> = ["rust", "node.js", "c++"].map(String::from).to_vec();
        let cases: [(&str, [bool; 3]); 8] = [
            ("Trust the RUST book.", [true, false, false]),
            ("rust's borrow checker", [false, false, false]),
            ("learn Rust... today", [true, false, false]),
            ("a.rust b", [false, false, false]),
            ("Node.js and C++ ", [false, true, true]),
            ("node.jsx c+++", [false, false, false]),
            ("..rust", [true, false, false]),
            ("rust-lang c++.", [true, false, true]),
        ];
        for (text, want) in cases {
            let mut matcher = TermMatcher::new(&terms);
            let mut found = vec![false; 3];
            matcher.find_in(&[text], &mut found);
            assert_eq!(found, want, "{text}");
            assert_eq!(by_tokens(&terms, text), want, "definition, {text}");
        }
    }
}
