//! [`CjkTokenizer`]: the local index's tantivy tokenizer, an adapter over
//! Ferret's one tokenizer ([`ferret_core::tokenize::tokens_with_spans`]):
//! the same tokens, with byte offsets and positions.
//!
//! Lowercased words of alphabetic scripts (an inner `+ # . '` is kept, so
//! `c++`, `c#`, `node.js` stay one token) and overlapping character bigrams
//! of CJK runs (a one-character run is one token). tantivy's default
//! tokenizer keeps a whole CJK run as one token, so `编程` would never
//! match inside `异步编程`; bigrams fix that, and a multi-character CJK
//! query becomes a phrase of consecutive bigrams.
//!
//! One difference from `ferret_core::tokenize`: tokens longer than
//! [`MAX_TOKEN_BYTES`] (base64 blobs, minified code) are dropped, since
//! nobody searches for them and they bloat the term dictionary.

use ferret_core::tokenize::tokens_with_spans;
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The name the tokenizer is registered under in the index.
pub const TOKENIZER_NAME: &str = "ferret_cjk";

/// Longer tokens are dropped.
pub const MAX_TOKEN_BYTES: usize = 128;

/// The tokenizer (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct CjkTokenizer;

/// The tokens of one text.
#[derive(Debug)]
pub struct CjkTokenStream {
    tokens: Vec<Token>,
    next: usize,
    /// Returned by `token()` before the first `advance()` or when empty.
    none: Token,
}

impl Tokenizer for CjkTokenizer {
    type TokenStream<'a> = CjkTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CjkTokenStream {
        CjkTokenStream {
            tokens: tokenize(text),
            next: 0,
            none: Token::default(),
        }
    }
}

impl TokenStream for CjkTokenStream {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        self.next
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .unwrap_or(&self.none)
    }

    fn token_mut(&mut self) -> &mut Token {
        match self.next.checked_sub(1) {
            Some(i) if i < self.tokens.len() => &mut self.tokens[i],
            _ => &mut self.none,
        }
    }
}

/// The tokens of `text` ([`tokens_with_spans`]), with byte offsets and
/// consecutive positions; tokens longer than [`MAX_TOKEN_BYTES`] are left
/// out.
pub fn tokenize(text: &str) -> Vec<Token> {
    tokens_with_spans(text)
        .into_iter()
        .filter(|(token, _)| token.as_str().len() <= MAX_TOKEN_BYTES)
        .enumerate()
        .map(|(position, (token, span))| Token {
            offset_from: span.start,
            offset_to: span.end,
            position,
            text: token.into_string(),
            position_length: 1,
        })
        .collect()
}

/// Whether `text` has anything to search for.
pub fn has_tokens(text: &str) -> bool {
    !tokenize(text).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferret_core::tokenize::token_strings;

    fn texts(s: &str) -> Vec<String> {
        tokenize(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn matches_ferret_core_tokens() {
        for s in [
            "Node.js vs C++ and C#, it's OK.",
            "Rust 异步编程",
            "Deno最新进展",
            "是",
            "trailing dots... and quotes'' end.",
            "İstanbul ǅemal ΣΑΣ",
            "",
            "!!! ??? ...",
        ] {
            assert_eq!(texts(s), token_strings(s), "{s:?}");
        }
    }

    #[test]
    fn offsets_cover_the_source_text_and_positions_are_consecutive() {
        let s = "Rust 异步编程, node.js.";
        let tokens = tokenize(s);
        let spans: Vec<&str> = tokens
            .iter()
            .map(|t| &s[t.offset_from..t.offset_to])
            .collect();
        assert_eq!(spans, vec!["Rust", "异步", "步编", "编程", "node.js"]);
        let positions: Vec<usize> = tokens.iter().map(|t| t.position).collect();
        assert_eq!(positions, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_stream_yields_every_token_once() {
        let mut t = CjkTokenizer;
        let mut stream = t.token_stream("a b c");
        let mut seen = Vec::new();
        while stream.advance() {
            seen.push(stream.token().text.clone());
        }
        assert_eq!(seen, vec!["a", "b", "c"]);
        assert!(!stream.advance());
        let mut empty = t.token_stream("");
        assert!(!empty.advance());
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_ferret_core_on_any_text(s in "[a-zA-Z0-9 .,'+#!?\\-异步编程是新最ßİΣ日本語한국어]{0,40}") {
            proptest::prop_assert_eq!(texts(&s), token_strings(&s));
            for t in tokenize(&s) {
                proptest::prop_assert!(s.is_char_boundary(t.offset_from) && s.is_char_boundary(t.offset_to));
                proptest::prop_assert!(t.offset_from < t.offset_to);
            }
        }
    }

    #[test]
    fn very_long_tokens_are_dropped() {
        let blob = "x".repeat(MAX_TOKEN_BYTES + 1);
        assert_eq!(texts(&format!("keep {blob} this")), vec!["keep", "this"]);
    }

    #[test]
    fn punctuation_only_has_no_tokens() {
        assert!(!has_tokens("?!…—()[]"));
        assert!(has_tokens("?a"));
    }
}
