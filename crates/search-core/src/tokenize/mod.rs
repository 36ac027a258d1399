//! The one tokenizer: words for alphabetic scripts, character bigrams for
//! Chinese, Japanese and Korean runs, and the hash of each token. Keyword
//! scoring, query terms, near-duplicate fingerprints, title similarity and
//! constraint matching all read text through it.
//!
//! - [`tokens`] is the definition: lowercased alphanumeric words (an
//!   apostrophe, `+`, `#` or `.` inside a word is kept, so `c++`, `c#`,
//!   `node.js` stay one token; a trailing `.` or `'` is not) and CJK runs
//!   as overlapping character bigrams (a one-character run is one token).
//! - [`token_hash`] is the 64-bit hash of a token's text.
//! - `Tokenizer` hands the same tokens, with their hashes, to a callback
//!   without allocating per token. ASCII text takes the one fast path
//!   (`ascii`): a byte-class scan that hashes each word from the text's
//!   bytes, lowercased as it loads them. A proptest checks it against the
//!   definition.
//! - `terms` finds a query's terms among a text's tokens.

mod ascii;
pub(crate) mod terms;

/// Whether `c` belongs to a CJK script that is written without spaces
/// (Han ideographs, kana, Hangul syllables, CJK punctuation excluded).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x309F    // Hiragana
        | 0x30A0..=0x30FF  // Katakana
        | 0x3400..=0x4DBF  // CJK Extension A
        | 0x4E00..=0x9FFF  // CJK Unified Ideographs
        | 0xAC00..=0xD7AF  // Hangul syllables
        | 0xF900..=0xFAFF  // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F // Extensions B–F, compatibility supplement
    )
}

/// True when `text` contains any CJK character.
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(is_cjk)
}

/// One token and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A lowercased run of letters and digits from a non-CJK script.
    Word(String),
    /// Two adjacent CJK characters (or one, when a run has only one).
    Cjk(String),
}

impl Token {
    /// The token text.
    pub fn as_str(&self) -> &str {
        match self {
            Token::Word(s) | Token::Cjk(s) => s,
        }
    }

    /// The token text, owned.
    pub fn into_string(self) -> String {
        match self {
            Token::Word(s) | Token::Cjk(s) => s,
        }
    }
}

/// Split `text` into tokens (see the module docs).
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    walk(text, &mut String::new(), &mut |t| {
        let s = t.text.to_string();
        out.push(if t.cjk { Token::Cjk(s) } else { Token::Word(s) });
    });
    out
}

/// The token texts of [`tokens`], owned.
pub fn token_strings(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(Token::into_string).collect()
}

/// Query terms for keyword coverage: word tokens longer than 2 characters
/// plus every CJK bigram, deduplicated in order.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tokens(query) {
        let keep = match &t {
            Token::Word(w) => w.chars().count() > 2,
            Token::Cjk(_) => true,
        };
        if keep && !out.iter().any(|o| o == t.as_str()) {
            out.push(t.into_string());
        }
    }
    out
}

/// Hash constants (odd, with well-mixed bits).
const K_LEN: u64 = 0x9E37_79B9_7F4A_7C15;
const K_LO: u64 = 0xA076_1D64_78BD_642F;
const K_HI: u64 = 0xE703_7ED1_A0B4_28DB;

/// The 128-bit product of `a` and `b`, its halves XORed: every output bit
/// depends on every input bit.
#[inline]
pub(crate) fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The 64-bit hash of a token: its bytes in 16-byte chunks (two
/// little-endian words, zero-padded), each folded in with `fold_mul`,
/// the length mixed in first. Token bytes are never zero, so the padding
/// cannot make two tokens alike.
pub fn token_hash(token: &str) -> u64 {
    hash_bytes(token.as_bytes(), 0)
}

/// [`token_hash`] of `bytes` with each byte ORed with `or` (0x20
/// lowercases the bytes of an ASCII word: only `A`–`Z` lack that bit).
fn hash_bytes(bytes: &[u8], or: u8) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(K_LEN);
    for chunk in bytes.chunks(16) {
        let mut buf = [0u8; 16];
        buf[..chunk.len()].copy_from_slice(chunk);
        let (lo, hi) = buf.split_at(8);
        h = absorb(h, le_word(lo), le_word(hi), chunk.len(), or);
    }
    h
}

/// One chunk of `len` (1–16) bytes, read as two little-endian words
/// (bytes past `len` are ignored), ORed with `or` and folded into `h`.
#[inline]
fn absorb(h: u64, lo: u64, hi: u64, len: usize, or: u8) -> u64 {
    let or = u64::from_ne_bytes([or; 8]);
    let lo_mask = u64::MAX >> (64 - 8 * len.min(8));
    let hi_mask = ((1u128 << (8 * len.saturating_sub(8))) - 1) as u64;
    fold_mul(
        ((lo | or) & lo_mask) ^ K_LO ^ h,
        ((hi | or) & hi_mask) ^ K_HI,
    )
}

/// The first eight bytes of `bytes` as a little-endian word.
#[inline]
fn le_word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default())
}

/// One token as `Tokenizer` hands it out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok<'t> {
    /// A CJK character bigram (or single character), not a word.
    pub(crate) cjk: bool,
    /// [`token_hash`] of the token.
    pub(crate) hash: u64,
    /// The token, except that ASCII letters may still be uppercase when
    /// `ascii_upper` is set (the fast path does not copy words to
    /// lowercase them).
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
}

/// A reusable tokenizer: the tokens of [`tokens`] with their hashes, to a
/// callback, keeping its buffer between calls.
#[derive(Debug, Default)]
pub(crate) struct Tokenizer {
    word: String,
}

impl Tokenizer {
    /// Call `f` for every token of `text`, in order; returns how many
    /// characters `text` has (counted on the way).
    #[inline]
    pub(crate) fn for_each(&mut self, text: &str, mut f: impl FnMut(Tok<'_>)) -> usize {
        if text.is_ascii() {
            ascii::words(text, |start, end, hash| {
                f(Tok {
                    cjk: false,
                    hash,
                    text: &text[start..end],
                    ascii_upper: true,
                })
            });
            text.len()
        } else {
            walk(text, &mut self.word, &mut f)
        }
    }

    /// How many tokens `text` has.
    pub(crate) fn count(&mut self, text: &str) -> usize {
        let mut n = 0;
        self.for_each(text, |_| n += 1);
        n
    }
}

/// The definition of the tokens: `text` read char by char, words
/// lowercased into `word`, each token to `f` with its hash; returns the
/// number of characters.
fn walk(text: &str, word: &mut String, f: &mut impl FnMut(Tok<'_>)) -> usize {
    word.clear();
    let mut run = CjkRun::default();
    let mut chars = 0;
    for (at, c) in text.char_indices() {
        chars += 1;
        if is_cjk(c) {
            flush_word(word, f);
            run.push(text, at, c.len_utf8(), f);
        } else if c.is_alphanumeric() {
            run.finish(text, f);
            word.extend(c.to_lowercase());
        } else if !word.is_empty() && matches!(c, '+' | '#' | '.' | '\'') {
            // `.` and `'` stay only when a letter or digit follows (a
            // trailing one is trimmed by `flush_word`).
            word.push(c);
        } else {
            flush_word(word, f);
            run.finish(text, f);
        }
    }
    flush_word(word, f);
    run.finish(text, f);
    chars
}

/// The word being read, trailing `.`/`'` trimmed, as a token; then cleared.
fn flush_word(word: &mut String, f: &mut impl FnMut(Tok<'_>)) {
    let w = word.trim_end_matches(['.', '\'']);
    if !w.is_empty() {
        f(Tok {
            cjk: false,
            hash: token_hash(w),
            text: w,
            ascii_upper: false,
        });
    }
    word.clear();
}

/// A run of CJK characters being read: each character after the first
/// completes a bigram; a run of one character is one token.
#[derive(Default)]
struct CjkRun {
    /// Byte range of the last character, when in a run.
    last: Option<(usize, usize)>,
    chars: usize,
}

impl CjkRun {
    fn push(&mut self, text: &str, at: usize, len: usize, f: &mut impl FnMut(Tok<'_>)) {
        if let Some((start, _)) = self.last {
            cjk_token(&text[start..at + len], f);
        }
        self.last = Some((at, at + len));
        self.chars += 1;
    }

    fn finish(&mut self, text: &str, f: &mut impl FnMut(Tok<'_>)) {
        if let (1, Some((start, end))) = (self.chars, self.last) {
            cjk_token(&text[start..end], f);
        }
        *self = CjkRun::default();
    }
}

fn cjk_token(text: &str, f: &mut impl FnMut(Tok<'_>)) {
    f(Tok {
        cjk: true,
        hash: token_hash(text),
        text,
        ascii_upper: false,
    });
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The tokens and hashes `Tokenizer` hands out, lowercased.
    fn streamed(text: &str) -> Vec<(Token, u64)> {
        let mut out = Vec::new();
        Tokenizer::default().for_each(text, |t| {
            let s = t.text.to_lowercase();
            let token = if t.cjk { Token::Cjk(s) } else { Token::Word(s) };
            out.push((token, t.hash));
        });
        out
    }

    fn defined(text: &str) -> Vec<(Token, u64)> {
        tokens(text)
            .into_iter()
            .map(|t| {
                let h = token_hash(t.as_str());
                (t, h)
            })
            .collect()
    }

    proptest! {
        #[test]
        fn the_fast_path_agrees_with_the_definition_on_ascii(
            text in "[a-zA-Z0-9 .'+#,\\-_]{0,80}"
        ) {
            prop_assert_eq!(streamed(&text), defined(&text));
        }

        #[test]
        fn the_stream_agrees_with_the_definition(
            text in "[a-zA-Z0-9 .'+#,\\-_é异步编程是日本한국İ]{0,40}"
        ) {
            prop_assert_eq!(streamed(&text), defined(&text));
        }

        #[test]
        fn the_stream_agrees_on_any_text(text in "\\PC{0,40}") {
            prop_assert_eq!(streamed(&text), defined(&text));
        }
    }
}
