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
pub mod terms;

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

/// True when most of the letters and digits of `text` are CJK.
pub fn mostly_cjk(text: &str) -> bool {
    let (mut cjk, mut other) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphanumeric()) {
        if is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk > other
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

/// The tokens of [`tokens`], each with its byte range in `text` (a word's
/// range covers its source characters, before lowercasing).
pub fn tokens_with_spans(text: &str) -> Vec<(Token, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    walk(text, &mut String::new(), &mut |t| {
        let s = t.text.to_string();
        let token = if t.cjk { Token::Cjk(s) } else { Token::Word(s) };
        out.push((token, t.start..t.end));
    });
    out
}

/// The token texts of [`tokens`], owned.
pub fn token_strings(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(Token::into_string).collect()
}

/// Hash constants (odd, with well-mixed bits).
const K_LEN: u64 = 0x9E37_79B9_7F4A_7C15;
const K_LO: u64 = 0xA076_1D64_78BD_642F;
const K_HI: u64 = 0xE703_7ED1_A0B4_28DB;

/// The 128-bit product of `a` and `b`, its halves XORed: every output bit
/// depends on every input bit.
#[inline]
pub fn fold_mul(a: u64, b: u64) -> u64 {
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
pub struct Tok<'t> {
    /// A CJK character bigram (or single character), not a word.
    pub cjk: bool,
    /// [`token_hash`] of the token.
    pub hash: u64,
    /// Where the token starts in the text (a byte offset).
    pub start: usize,
    /// Where the token ends in the text (a byte offset, exclusive).
    pub end: usize,
    /// The token, except that ASCII letters may still be uppercase when
    /// `ascii_upper` is set (the fast path does not copy words to
    /// lowercase them).
    text: &'t str,
    ascii_upper: bool,
}

impl Tok<'_> {
    /// Whether the token equals `lower` (a lowercase string).
    pub fn eq_lower(&self, lower: &str) -> bool {
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
pub struct Tokenizer {
    word: String,
}

impl Tokenizer {
    /// Call `f` for every token of `text`, in order; returns how many
    /// characters `text` has (counted on the way).
    #[inline]
    pub fn for_each(&mut self, text: &str, mut f: impl FnMut(Tok<'_>)) -> usize {
        if text.is_ascii() {
            ascii::words(text, |start, end, hash| {
                f(Tok {
                    cjk: false,
                    hash,
                    start,
                    end,
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
    pub fn count(&mut self, text: &str) -> usize {
        let mut n = 0;
        self.for_each(text, |_| n += 1);
        n
    }
}

/// The definition of the tokens: `text` read char by char, words
/// lowercased into `word`, each token to `f` with its hash; returns the
/// number of characters.
fn walk(text: &str, buf: &mut String, f: &mut impl FnMut(Tok<'_>)) -> usize {
    let mut word = WordRun {
        text: buf,
        start: 0,
        end: 0,
    };
    word.text.clear();
    let mut run = CjkRun::default();
    let mut chars = 0;
    for (at, c) in text.char_indices() {
        chars += 1;
        if is_cjk(c) {
            word.flush(f);
            run.push(text, at, c.len_utf8(), f);
        } else if c.is_alphanumeric() {
            run.finish(text, f);
            word.push(at, c, true);
        } else if !word.text.is_empty() && matches!(c, '+' | '#' | '.' | '\'') {
            // `.` and `'` stay only when a letter or digit follows (a
            // trailing one is trimmed by `flush`).
            word.push(at, c, false);
        } else {
            word.flush(f);
            run.finish(text, f);
        }
    }
    word.flush(f);
    run.finish(text, f);
    chars
}

/// The word being read: its lowercased text and its byte range in the text.
struct WordRun<'b> {
    text: &'b mut String,
    start: usize,
    end: usize,
}

impl WordRun<'_> {
    /// Adds `c`, found at byte `at` (lowercased when `lower`).
    fn push(&mut self, at: usize, c: char, lower: bool) {
        if self.text.is_empty() {
            self.start = at;
        }
        if lower {
            self.text.extend(c.to_lowercase());
        } else {
            self.text.push(c);
        }
        self.end = at + c.len_utf8();
    }

    /// The word, trailing `.`/`'` trimmed, as a token; then cleared. The
    /// trimmed characters are one byte in the text and in the word alike.
    fn flush(&mut self, f: &mut impl FnMut(Tok<'_>)) {
        let w = self.text.trim_end_matches(['.', '\'']);
        if !w.is_empty() {
            f(Tok {
                cjk: false,
                hash: token_hash(w),
                start: self.start,
                end: self.end - (self.text.len() - w.len()),
                text: w,
                ascii_upper: false,
            });
        }
        self.text.clear();
    }
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
            cjk_token(text, start..at + len, f);
        }
        self.last = Some((at, at + len));
        self.chars += 1;
    }

    fn finish(&mut self, text: &str, f: &mut impl FnMut(Tok<'_>)) {
        if let (1, Some((start, end))) = (self.chars, self.last) {
            cjk_token(text, start..end, f);
        }
        *self = CjkRun::default();
    }
}

fn cjk_token(text: &str, span: std::ops::Range<usize>, f: &mut impl FnMut(Tok<'_>)) {
    let text = &text[span.clone()];
    f(Tok {
        cjk: true,
        hash: token_hash(text),
        start: span.start,
        end: span.end,
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

        #[test]
        fn spans_cover_each_token_in_the_text(text in "\\PC{0,40}") {
            let spanned = tokens_with_spans(&text);
            let plain: Vec<Token> = spanned.iter().map(|(t, _)| t.clone()).collect();
            prop_assert_eq!(plain, tokens(&text));
            for (token, span) in spanned {
                let source = &text[span];
                let read: String = match token {
                    Token::Cjk(_) => source.to_string(),
                    Token::Word(_) => source.chars().flat_map(char::to_lowercase).collect(),
                };
                prop_assert_eq!(read.as_str(), token.as_str());
            }
        }
    }
}
