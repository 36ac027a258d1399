//! [`crate::tokenize::tokens`] as a stream: the same tokens, in the same
//! order, handed to a callback as `&str` without allocating per token. Fusion
//! tokenises every result's title and snippet once for keyword coverage and
//! the SimHash; at a million hits the per-token `String`s of `tokens` were
//! the largest cost. A test checks the two agree on arbitrary text.

use crate::tokenize::is_cjk;

/// A reusable tokenizer (it keeps one word buffer between calls).
#[derive(Debug, Default)]
pub(crate) struct TokenStream {
    word: String,
}

impl TokenStream {
    /// Call `f(is_cjk, token)` for every token of `text`, exactly as
    /// [`crate::tokenize::tokens`] would produce them.
    pub(crate) fn for_each(&mut self, text: &str, mut f: impl FnMut(bool, &str)) {
        self.word.clear();
        // The current CJK run: where it starts, where its last char starts,
        // and how many chars it has.
        let mut run_start = 0usize;
        let mut prev_start = 0usize;
        let mut run_len = 0usize;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii() {
                // ASCII is never CJK: decide on the byte.
                if b.is_ascii_alphanumeric() {
                    if run_len > 0 {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                    }
                    self.word.push(char::from(b.to_ascii_lowercase()));
                } else if !self.word.is_empty() && matches!(b, b'+' | b'#' | b'.' | b'\'') {
                    // `.` and `'` are trimmed again at the end of the word.
                    self.word.push(char::from(b));
                } else {
                    if !self.word.is_empty() {
                        flush_word(&mut self.word, &mut f);
                    }
                    if run_len > 0 {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                    }
                }
                i += 1;
                continue;
            }
            let Some(c) = text[i..].chars().next() else {
                break;
            };
            if is_cjk(c) {
                flush_word(&mut self.word, &mut f);
                if run_len == 0 {
                    run_start = i;
                } else {
                    f(true, &text[prev_start..i + c.len_utf8()]);
                }
                prev_start = i;
                run_len += 1;
            } else if c.is_alphanumeric() {
                flush_single(text, run_start, run_len, &mut f);
                run_len = 0;
                self.word.extend(c.to_lowercase());
            } else {
                flush_word(&mut self.word, &mut f);
                flush_single(text, run_start, run_len, &mut f);
                run_len = 0;
            }
            i += c.len_utf8();
        }
        flush_word(&mut self.word, &mut f);
        flush_single(text, run_start, run_len, &mut f);
    }
}

#[inline]
fn flush_word(word: &mut String, f: &mut impl FnMut(bool, &str)) {
    let w = word.trim_end_matches(['.', '\'']);
    if !w.is_empty() {
        f(false, w);
    }
    word.clear();
}

/// A one-character CJK run is one token (longer runs were emitted as
/// bigrams as they went).
#[inline]
fn flush_single(text: &str, run_start: usize, run_len: usize, f: &mut impl FnMut(bool, &str)) {
    if run_len == 1 {
        let c = text[run_start..].chars().next().unwrap_or_default();
        f(true, &text[run_start..run_start + c.len_utf8()]);
    }
}

/// The number of tokens of `text`.
pub(crate) fn count_tokens(text: &str) -> usize {
    let mut n = 0;
    TokenStream::default().for_each(text, |_, _| n += 1);
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::{Token, tokens};
    use proptest::prelude::*;

    fn streamed(text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        TokenStream::default().for_each(text, |cjk, t| {
            out.push(if cjk {
                Token::Cjk(t.to_string())
            } else {
                Token::Word(t.to_string())
            })
        });
        out
    }

    #[test]
    fn agrees_with_tokens_on_examples() {
        for text in [
            "",
            "Node.js vs C++ and C#, it's OK.",
            "Rust 异步编程",
            "是",
            "Deno最新进展 and 是 x",
            "a.'b'.c.. 'quoted' ..",
            "İstanbul ÄÖÜ straße",
            "日本語のテキスト한국어",
            "c.+ x#. y'+",
        ] {
            assert_eq!(streamed(text), tokens(text), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_tokens(text in "[a-zA-Z0-9 .'+#,\\-_é异步编程是日本한국İ]{0,40}") {
            prop_assert_eq!(streamed(&text), tokens(&text));
        }

        #[test]
        fn agrees_with_tokens_on_any_text(text in "\\PC{0,40}") {
            prop_assert_eq!(streamed(&text), tokens(&text));
        }
    }
}
