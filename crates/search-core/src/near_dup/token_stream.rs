//! [`crate::tokenize::tokens`] as a stream: the same tokens, in the same
//! order, handed to a callback with their [`token_hash`], without allocating
//! per token. Fusion tokenises every result's title and snippet once for
//! keyword coverage and the SimHash; at a million hits the per-token
//! `String`s of `tokens` were the largest cost.
//!
//! ASCII words are hashed byte by byte as they are scanned (lowercased on
//! the fly) and handed out as slices of the text; words with other letters
//! are lowercased into one reused buffer. Tests check that the tokens and
//! hashes agree with `tokens` and `token_hash` on arbitrary text.

use crate::tokenize::is_cjk;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The murmur3 64-bit finaliser.
pub(crate) fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

/// The 64-bit hash of a token that fingerprints are built from: FNV-1a over
/// its bytes, then the murmur3 finaliser so every bit is usable.
pub fn token_hash(s: &str) -> u64 {
    let mut h = FNV_OFFSET;
    for &b in s.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
    }
    mix(h)
}

/// One token as the stream hands it out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok<'t> {
    /// A CJK character bigram (or single character), not a word.
    pub(crate) cjk: bool,
    /// [`token_hash`] of the token.
    pub(crate) hash: u64,
    /// The token, except that ASCII letters may still be uppercase when
    /// `ascii_upper` is set.
    text: &'t str,
    ascii_upper: bool,
}

impl Tok<'_> {
    /// Whether the token equals `lower` (a lowercase string).
    pub(crate) fn eq_lower(&self, lower: &str) -> bool {
        if self.ascii_upper {
            self.text.eq_ignore_ascii_case(lower)
        } else {
            self.text == lower
        }
    }

    /// The token text, lowercased as [`crate::tokenize::tokens`] gives it.
    #[cfg(test)]
    pub(crate) fn to_lowercase(self) -> String {
        if self.ascii_upper {
            self.text.to_ascii_lowercase()
        } else {
            self.text.to_string()
        }
    }
}

/// A reusable tokenizer (it keeps one word buffer between calls).
#[derive(Debug, Default)]
pub(crate) struct TokenStream {
    buffer: String,
}

/// The word being read.
#[derive(Clone, Copy)]
struct Word {
    start: usize,
    /// FNV state over the lowercased bytes committed so far.
    hash: u64,
    /// Where a trailing run of `.`/`'` starts (not yet part of the word).
    pending: Option<usize>,
    /// Some ASCII letter is uppercase.
    upper: bool,
    /// Some letter is not ASCII (hash and text go through the buffer).
    non_ascii: bool,
}

impl Word {
    fn new(start: usize) -> Self {
        Word {
            start,
            hash: FNV_OFFSET,
            pending: None,
            upper: false,
            non_ascii: false,
        }
    }

    /// Make a pending `.`/`'` run part of the word (a word byte follows).
    #[inline]
    fn commit(&mut self, bytes: &[u8], at: usize) {
        if let Some(p) = self.pending.take() {
            for &b in &bytes[p..at] {
                self.hash = (self.hash ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            }
        }
    }
}

/// Byte classes for the ASCII fast path.
const OTHER: u8 = 0;
/// `a`–`z`, `0`–`9`: a word byte already lowercase.
const PLAIN: u8 = 1;
/// `A`–`Z`.
const UPPER: u8 = 2;
/// `+ #`: part of a word once one has started, and kept at its end.
const KEEP: u8 = 3;
/// `. '`: part of a word once one has started, trimmed at its end.
const TRIM: u8 = 4;
/// A byte of a non-ASCII character.
const HIGH: u8 = 5;

const CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c >= 0x80 {
            HIGH
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            PLAIN
        } else if c.is_ascii_uppercase() {
            UPPER
        } else if c == b'+' || c == b'#' {
            KEEP
        } else if c == b'.' || c == b'\'' {
            TRIM
        } else {
            OTHER
        };
        b += 1;
    }
    table
};

impl TokenStream {
    /// Call `f` for every token of `text`, exactly as
    /// [`crate::tokenize::tokens`] would produce them.
    pub(crate) fn for_each(&mut self, text: &str, mut f: impl FnMut(Tok<'_>)) {
        let mut word: Option<Word> = None;
        // The current CJK run: where it starts, where its last char starts,
        // and how many chars it has.
        let mut run_start = 0usize;
        let mut prev_start = 0usize;
        let mut run_len = 0usize;
        let bytes = text.as_bytes();
        let n = bytes.len();
        let mut i = 0;
        while i < n {
            match CLASS[bytes[i] as usize] {
                PLAIN | UPPER => {
                    if run_len > 0 {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                    }
                    let mut w = word.unwrap_or(Word::new(i));
                    w.commit(bytes, i);
                    // Consume the whole run of ASCII letters and digits.
                    let mut h = w.hash;
                    while i < n {
                        let b = bytes[i];
                        match CLASS[b as usize] {
                            PLAIN => h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME),
                            UPPER => {
                                w.upper = true;
                                h = (h ^ u64::from(b | 0x20)).wrapping_mul(FNV_PRIME);
                            }
                            _ => break,
                        }
                        i += 1;
                    }
                    w.hash = h;
                    word = Some(w);
                }
                KEEP if word.is_some() => {
                    if let Some(w) = &mut word {
                        w.commit(bytes, i);
                        w.hash = (w.hash ^ u64::from(bytes[i])).wrapping_mul(FNV_PRIME);
                    }
                    i += 1;
                }
                TRIM if word.is_some() => {
                    if let Some(w) = &mut word {
                        w.pending.get_or_insert(i);
                    }
                    i += 1;
                }
                HIGH => {
                    let Some(c) = text[i..].chars().next() else {
                        break;
                    };
                    if is_cjk(c) {
                        if let Some(w) = word.take() {
                            self.flush_word(text, w, i, &mut f);
                        }
                        if run_len == 0 {
                            run_start = i;
                        } else {
                            let pair = &text[prev_start..i + c.len_utf8()];
                            f(Tok {
                                cjk: true,
                                hash: token_hash(pair),
                                text: pair,
                                ascii_upper: false,
                            });
                        }
                        prev_start = i;
                        run_len += 1;
                    } else if c.is_alphanumeric() {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                        let mut w = word.unwrap_or(Word::new(i));
                        w.pending = None;
                        w.non_ascii = true;
                        word = Some(w);
                    } else {
                        if let Some(w) = word.take() {
                            self.flush_word(text, w, i, &mut f);
                        }
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                    }
                    i += c.len_utf8();
                }
                _ => {
                    // Any other byte (or a joiner outside a word) ends both
                    // the word and the CJK run.
                    if let Some(w) = word.take() {
                        self.flush_word(text, w, i, &mut f);
                    }
                    if run_len > 0 {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                    }
                    i += 1;
                }
            }
        }
        if let Some(w) = word.take() {
            self.flush_word(text, w, n, &mut f);
        }
        flush_single(text, run_start, run_len, &mut f);
    }

    fn flush_word(&mut self, text: &str, word: Word, end: usize, f: &mut impl FnMut(Tok<'_>)) {
        if !word.non_ascii {
            let end = word.pending.unwrap_or(end);
            f(Tok {
                cjk: false,
                hash: mix(word.hash),
                text: &text[word.start..end],
                ascii_upper: word.upper,
            });
            return;
        }
        // Letters beyond ASCII: lowercase into the buffer, then trim the
        // trailing `.`/`'` (lowercasing never makes or removes them).
        self.buffer.clear();
        for c in text[word.start..end].chars() {
            self.buffer.extend(c.to_lowercase());
        }
        let w = self.buffer.trim_end_matches(['.', '\'']);
        if !w.is_empty() {
            f(Tok {
                cjk: false,
                hash: token_hash(w),
                text: w,
                ascii_upper: false,
            });
        }
    }
}

/// A one-character CJK run is one token (longer runs were emitted as
/// bigrams as they went).
#[inline]
fn flush_single(text: &str, run_start: usize, run_len: usize, f: &mut impl FnMut(Tok<'_>)) {
    if run_len == 1 {
        let c = text[run_start..].chars().next().unwrap_or_default();
        let single = &text[run_start..run_start + c.len_utf8()];
        f(Tok {
            cjk: true,
            hash: token_hash(single),
            text: single,
            ascii_upper: false,
        });
    }
}

/// The number of tokens of `text`.
pub(crate) fn count_tokens(text: &str) -> usize {
    let mut n = 0;
    TokenStream::default().for_each(text, |_| n += 1);
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::{Token, tokens};
    use proptest::prelude::*;

    /// The tokens as `tokens` writes them, checking each hash on the way.
    fn streamed(text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        TokenStream::default().for_each(text, |t| {
            let s = t.to_lowercase();
            assert_eq!(t.hash, token_hash(&s), "hash of {s:?} in {text:?}");
            assert!(t.eq_lower(&s));
            out.push(if t.cjk { Token::Cjk(s) } else { Token::Word(s) })
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
            "İstanbul ÄÖÜ straße Ǆemal",
            "日本語のテキスト한국어",
            "c.+ x#. y'+ c+. A.B.",
            "abcÉ.x ÉA É.. x.É",
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
