//! [`crate::tokenize::tokens`] as a stream: the same tokens, in the same
//! order, handed to a callback with their [`token_hash`], without allocating
//! per token. Fusion tokenises every result's title and snippet once for
//! keyword coverage and the SimHash; at a million hits the per-token
//! `String`s of `tokens` were the largest cost.
//!
//! ASCII text (most titles and snippets) takes a fast path
//! ([`ascii_words`]): the runs of letters and digits start and end where a
//! bit mask of letters and digits (built eight bytes at a time) changes, so
//! there is no branch per byte; a run followed by `+ # . '` is extended by a
//! short scan. Words are handed
//! out as slices of the text, and a word of up to 16 bytes is hashed from
//! two 8-byte loads of the text (lowercased by one OR) with one 128-bit
//! multiply, not byte by byte.
//! Other text is scanned char by char; words with letters beyond ASCII are
//! lowercased into one reused buffer. Tests check that the tokens and
//! hashes agree with `tokens` and `token_hash` on arbitrary text.

use crate::tokenize::is_cjk;

/// Hash constants (odd, with well-mixed bits; those of wyhash).
const K_LEN: u64 = 0x9E37_79B9_7F4A_7C15;
const K_LO: u64 = 0xA076_1D64_78BD_642F;
const K_HI: u64 = 0xE703_7ED1_A0B4_28DB;

/// A SimHash feature from a combination of token hashes (a 3-shingle's
/// rotated word hashes XORed, a CJK bigram's hash, a short field's words):
/// one folded multiply, in which every output bit depends on every input
/// bit. The token hashes are themselves folded products, so a word costs
/// two multiplies in all (with a murmur3 finaliser on the word's hash and
/// another on the shingle's, it cost five).
#[inline(always)]
pub(crate) fn feature(h: u64) -> u64 {
    fold_mul(h ^ K_FEATURE, K_HI)
}

/// Salt of [`feature`] (odd, well-mixed bits).
const K_FEATURE: u64 = 0x8EBC_6AF0_9C88_C6E3;

/// The 128-bit product of `a` and `b`, its halves XORed.
#[inline]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// One 16-byte chunk (two little-endian words, zero-padded) folded into
/// the running hash `h`.
#[inline]
fn absorb(h: u64, lo: u64, hi: u64) -> u64 {
    fold_mul(lo ^ K_LO ^ h, hi ^ K_HI)
}

/// The hash of a token of `len` bytes that fits one chunk `(lo, hi)`.
#[inline]
fn short_hash(lo: u64, hi: u64, len: usize) -> u64 {
    absorb((len as u64).wrapping_mul(K_LEN), lo, hi)
}

/// The hash of `bytes`, each byte ORed with `or` (0, or 0x20 to lowercase
/// ASCII word bytes): [`token_hash`]'s definition for any length.
fn hash_bytes(bytes: &[u8], or: u8) -> u64 {
    let or = u64::from_ne_bytes([or; 8]);
    let mut h = (bytes.len() as u64).wrapping_mul(K_LEN);
    for chunk in bytes.chunks(16) {
        let (lo, hi) = chunk_words(chunk);
        let (lo_mask, hi_mask) = chunk_masks(chunk.len());
        h = absorb(h, (lo | or) & lo_mask, (hi | or) & hi_mask);
    }
    h
}

/// Masks of the first `len` bytes (1–16) of a chunk's two words, computed
/// without branches (word lengths are unpredictable).
#[inline]
fn chunk_masks(len: usize) -> (u64, u64) {
    let lo = u64::MAX >> (64 - 8 * len.min(8));
    let hi = ((1u128 << (8 * len.saturating_sub(8))) - 1) as u64;
    (lo, hi)
}

/// Up to 16 bytes as two little-endian words, zero-padded.
#[inline]
fn chunk_words(chunk: &[u8]) -> (u64, u64) {
    let mut buf = [0u8; 16];
    buf[..chunk.len()].copy_from_slice(chunk);
    let (a, b) = buf.split_at(8);
    let word = |x: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(x);
        u64::from_le_bytes(w)
    };
    (word(a), word(b))
}

/// The 64-bit hash of a token that fingerprints are built from: its bytes
/// in 16-byte chunks (little-endian words, zero-padded), each folded in
/// with a 128-bit multiply whose two halves are XORed (so every bit of the
/// hash depends on every bit of the chunk), the length mixed in first.
/// Token bytes are never zero, so the padding cannot make two tokens alike.
pub fn token_hash(s: &str) -> u64 {
    hash_bytes(s.as_bytes(), 0)
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

impl<'t> Tok<'t> {
    /// A word of ASCII text (letters may be uppercase) and its hash.
    pub(crate) fn ascii_word(text: &'t str, hash: u64) -> Self {
        Tok {
            cjk: false,
            hash,
            text,
            ascii_upper: true,
        }
    }

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

/// A reusable tokenizer: it keeps its buffers between calls.
#[derive(Debug, Default)]
pub(crate) struct TokenStream {
    buffer: String,
}

/// Byte classes for the ASCII fast path.
const OTHER: u8 = 0;
/// `a`–`z`, `A`–`Z`, `0`–`9`: a word byte (the first one starts a word).
const ALNUM: u8 = 1;
/// `+ #`: part of a word once one has started, and kept at its end.
const KEEP: u8 = 2;
/// `. '`: part of a word once one has started, trimmed at its end.
const TRIM: u8 = 3;
/// A byte of a non-ASCII character.
const HIGH: u8 = 4;

const CLASS: [u8; 256] = {
    let mut table = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c >= 0x80 {
            HIGH
        } else if c.is_ascii_alphanumeric() {
            ALNUM
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

/// Every byte of an ASCII word (letters, digits, `+ # . '`) lowercases by
/// setting bit 5: only `A`–`Z` lack it.
const LOWER_BITS: u64 = 0x2020_2020_2020_2020;

/// Bit `j` set when byte `at + j` (of the eight from `at`, fewer at the
/// end) is an ASCII letter or digit. `bytes` must be ASCII.
#[inline]
fn alnum_bits(bytes: &[u8], at: usize) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let x = if at + 8 <= bytes.len() {
        le_u64(bytes, at)
    } else {
        // Zero bytes past the end are no letters.
        bytes[at..]
            .iter()
            .enumerate()
            .fold(0, |v, (j, &c)| v | (u64::from(c) << (8 * j)))
    };
    // Per byte (all below 0x80, so no borrow crosses bytes): the high bit
    // of `(b | 0x80) - n` is set when `b >= n`.
    let xh = x | HIGH;
    let digit = (xh - 0x30 * ONES) & !(xh - 0x3A * ONES);
    // `| 0x20` folds `A`–`Z` onto `a`–`z` and nothing else onto them.
    let yh = xh | (0x20 * ONES);
    let letter = (yh - 0x61 * ONES) & !(yh - 0x7B * ONES);
    let high_bits = (digit | letter) & HIGH;
    // Gather the eight high bits into the low byte.
    (high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The eight bytes at `at` as a little-endian word (`at + 8` must be in
/// bounds).
#[inline]
fn le_u64(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// `bytes[start..start + len]` (1 ≤ `len` ≤ 16) lowercased, as two
/// little-endian words padded with zero bytes. Word bytes are never zero,
/// so the pair identifies the word.
#[inline]
fn load_key(bytes: &[u8], start: usize, len: usize) -> (u64, u64) {
    let (lo, hi) = if start + 16 <= bytes.len() {
        // Whole words straight from the text, masked to the length below.
        (le_u64(bytes, start), le_u64(bytes, start + 8))
    } else {
        // Near the end of the text.
        chunk_words(&bytes[start..start + len])
    };
    let (lo_mask, hi_mask) = chunk_masks(len);
    ((lo | LOWER_BITS) & lo_mask, (hi | LOWER_BITS) & hi_mask)
}

/// [`token_hash`] of the ASCII word `bytes[start..start + len]`,
/// lowercased. Most words have at most eight bytes: one load, one mask.
#[inline(always)]
fn ascii_word_hash(bytes: &[u8], start: usize, len: usize) -> u64 {
    if len <= 8 {
        let lo = if start + 8 <= bytes.len() {
            le_u64(bytes, start)
        } else {
            chunk_words(&bytes[start..start + len]).0
        };
        let lo = (lo | LOWER_BITS) & chunk_masks(len).0;
        return short_hash(lo, 0, len);
    }
    if len > 16 {
        return hash_bytes(&bytes[start..start + len], 0x20);
    }
    let (lo, hi) = load_key(bytes, start, len);
    short_hash(lo, hi, len)
}

/// The words of the ASCII text `text` as [`crate::tokenize::tokens`] finds
/// them: `f(start, end, hash)` for each, in order, with the byte range of
/// the word in `text` (ASCII letters may be uppercase) and [`token_hash`]
/// of the word lowercased.
///
/// Words are the runs of letters and digits, found 64 bytes at a time: a
/// bit mask of the letters and digits (eight bytes per step, no branch per
/// byte) whose changes are where runs start and end, which are visited by
/// their set bits. A run followed by `+ # . '` is extended by a short scan
/// (`node.js`, `c++`), dropping trailing `.`/`'`; the runs it took in are
/// skipped.
#[inline]
pub(crate) fn ascii_words(text: &str, mut f: impl FnMut(usize, usize, u64)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    debug_assert!(text.is_ascii());
    // Whether the byte before the current block is a letter or digit.
    let mut carry = 0u64;
    // Start of the run being read, when inside one.
    let mut start = usize::MAX;
    // Edges at or before this position were consumed by a joined word.
    let mut skip_to = 0usize;
    let mut base = 0usize;
    // A run reaching the end of a text whose length is a multiple of 64
    // ends in one more, empty block (its edge is the carry), so `f` has
    // one call site and is inlined.
    while base < n || start != usize::MAX {
        let mut alnum = 0u64;
        for k in 0..8 {
            let at = base + k * 8;
            if at >= n {
                break;
            }
            alnum |= alnum_bits(bytes, at) << (8 * k);
        }
        let mut edges = alnum ^ ((alnum << 1) | carry);
        carry = alnum >> 63;
        while edges != 0 {
            let at = base + edges.trailing_zeros() as usize;
            edges &= edges - 1;
            if at < skip_to {
                continue;
            }
            if start == usize::MAX {
                start = at;
                continue;
            }
            // A run of letters and digits ends at `at`.
            let mut end = at;
            if at < n && matches!(CLASS[bytes[at] as usize], KEEP | TRIM) {
                let mut i = at;
                while i < n && CLASS[bytes[i] as usize] != OTHER {
                    if CLASS[bytes[i] as usize] != TRIM {
                        end = i + 1;
                    }
                    i += 1;
                }
                // The byte at `i` is no letter, so no run starts there.
                skip_to = i + 1;
            }
            f(start, end, ascii_word_hash(bytes, start, end - start));
            start = usize::MAX;
        }
        base += 64;
    }
}

/// Whether `bytes[start..end]` of the ASCII text `bytes` is exactly one of
/// the words [`ascii_words`] finds in it, given that it starts with a letter
/// or digit and holds only word bytes (letters, digits, `+ # . '`) and does
/// not end with `.` or `'`, as every such word does.
///
/// The word starts at `start` unless a letter or digit comes before it with
/// only `+ # . '` between (a word running on through them, as `node.js`).
/// It ends at `end` when every byte from there to the next other byte is a
/// `.` or `'` (trimmed from the end of a word).
pub(crate) fn is_ascii_word_at(bytes: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    while i > 0 && matches!(CLASS[bytes[i - 1] as usize], KEEP | TRIM) {
        i -= 1;
    }
    if i > 0 && CLASS[bytes[i - 1] as usize] == ALNUM {
        return false;
    }
    bytes[end..]
        .iter()
        .map(|&b| CLASS[b as usize])
        .take_while(|&c| c != OTHER)
        .all(|c| c == TRIM)
}

impl TokenStream {
    /// Call `f` for every token of `text`, exactly as
    /// [`crate::tokenize::tokens`] would produce them.
    pub(crate) fn for_each(&mut self, text: &str, f: impl FnMut(Tok<'_>)) {
        if text.is_ascii() {
            self.for_each_ascii(text, f);
        } else {
            self.for_each_general(text, f);
        }
    }

    /// [`Self::for_each`] for ASCII text (see [`ascii_words`]).
    fn for_each_ascii(&mut self, text: &str, mut f: impl FnMut(Tok<'_>)) {
        ascii_words(text, |start, end, hash| {
            f(Tok::ascii_word(&text[start..end], hash))
        });
    }

    /// [`Self::for_each`] for any text.
    fn for_each_general(&mut self, text: &str, mut f: impl FnMut(Tok<'_>)) {
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
                ALNUM => {
                    if run_len > 0 {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                    }
                    // An ASCII word: letters, digits and `+ # . '`, up to
                    // any other byte; a trailing run of `.`/`'` is trimmed.
                    let start = i;
                    i += 1;
                    let mut end = i;
                    while i < n {
                        match CLASS[bytes[i] as usize] {
                            ALNUM | KEEP => {
                                i += 1;
                                end = i;
                            }
                            TRIM => i += 1,
                            _ => break,
                        }
                    }
                    if i < n
                        && bytes[i] >= 0x80
                        && text[i..]
                            .chars()
                            .next()
                            .is_some_and(|c| !is_cjk(c) && c.is_alphanumeric())
                    {
                        // A letter beyond ASCII continues the word.
                        i = self.general_word(text, start, &mut f);
                        continue;
                    }
                    f(Tok {
                        cjk: false,
                        hash: ascii_word_hash(bytes, start, end - start),
                        text: &text[start..end],
                        ascii_upper: true,
                    });
                }
                HIGH => {
                    let Some(c) = text[i..].chars().next() else {
                        break;
                    };
                    if is_cjk(c) {
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
                        i += c.len_utf8();
                    } else if c.is_alphanumeric() {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                        i = self.general_word(text, i, &mut f);
                    } else {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                        i += c.len_utf8();
                    }
                }
                _ => {
                    // Any other byte (or a joiner outside a word) ends the
                    // CJK run.
                    if run_len > 0 {
                        flush_single(text, run_start, run_len, &mut f);
                        run_len = 0;
                    }
                    i += 1;
                }
            }
        }
        flush_single(text, run_start, run_len, &mut f);
    }

    /// The word starting at `start` (an alphanumeric character) that has a
    /// letter beyond ASCII: lowercased into the buffer char by char, its
    /// trailing `.`/`'` trimmed (lowercasing never makes or removes them).
    /// Returns where the word ends.
    #[cold]
    fn general_word(&mut self, text: &str, start: usize, f: &mut impl FnMut(Tok<'_>)) -> usize {
        let mut end = text.len();
        for (k, c) in text[start..].char_indices() {
            let continues = if c.is_ascii() {
                CLASS[c as usize] != OTHER
            } else {
                !is_cjk(c) && c.is_alphanumeric()
            };
            if !continues {
                end = start + k;
                break;
            }
        }
        self.buffer.clear();
        for c in text[start..end].chars() {
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
        end
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

    /// The tokens of `text` from `stream`, checking each hash on the way.
    fn streamed_by(stream: &mut TokenStream, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        stream.for_each(text, |t| {
            let s = t.to_lowercase();
            assert_eq!(t.hash, token_hash(&s), "hash of {s:?} in {text:?}");
            assert!(t.eq_lower(&s));
            out.push(if t.cjk { Token::Cjk(s) } else { Token::Word(s) })
        });
        out
    }

    /// The tokens as `tokens` writes them, from a fresh stream and (so
    /// that reused buffers are covered) from one that tokenised the text
    /// before.
    fn streamed(text: &str) -> Vec<Token> {
        let mut stream = TokenStream::default();
        let first = streamed_by(&mut stream, text);
        assert_eq!(streamed_by(&mut stream, text), first, "again, {text:?}");
        first
    }

    #[test]
    fn words_across_block_boundaries() {
        // Texts of 1–200 bytes whose words and joiners fall on every
        // position around the 64-byte block edges.
        let pattern = "ab c.d e+ 'f g#h. ij'k, Lm.N ";
        for len in 1..=200 {
            for shift in 0..pattern.len() {
                let text: String = pattern.chars().cycle().skip(shift).take(len).collect();
                assert_eq!(streamed(&text), tokens(&text), "{text:?}");
            }
        }
    }

    #[test]
    fn words_of_every_length_hash_apart() {
        // Words of 1–40 bytes sharing prefixes (one and more 16-byte
        // chunks), at the end of the text (no bytes after them to load) and
        // inside it, in both cases.
        let mut stream = TokenStream::default();
        let mut seen = std::collections::HashSet::new();
        for len in 1..=40 {
            let word: String = "abcdefghijklmnopqrstuvwxyz0123456789+#.a"[..len].to_string();
            assert!(seen.insert(token_hash(&word)), "{word:?} collides");
            for text in [
                word.clone(),
                format!("{word} tail of the text"),
                word.to_uppercase(),
                format!("{}. x", word.to_uppercase()),
            ] {
                assert_eq!(streamed_by(&mut stream, &text), tokens(&text), "{text:?}");
            }
        }
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
            "Ab.c'D+ x9# éa é. a.é a'é",
            "A sixteen-byte12 word, seventeenbytes17 and a much-longer-than-sixteen one",
            "c++ a.+b x.y.z 'q' ..a a.. #a +b a#b# Z'S. 0.5 v1.2.3",
        ] {
            assert_eq!(streamed(text), tokens(text), "{text:?}");
        }
    }

    #[test]
    fn words_ending_at_a_block_end() {
        // Texts of one and two whole 64-byte blocks whose last word runs to
        // the end, across the block edge, or after a joined `.`.
        for text in [
            "a".repeat(64),
            format!("{} tail", "b".repeat(59)),
            format!("{}word", "x ".repeat(62)),
            format!("{}a.cd", "y ".repeat(62)),
            format!("{}end", "z".repeat(125)),
            format!("{} {}", "q".repeat(63), "r".repeat(64)),
        ] {
            assert!(text.len() % 64 == 0, "{}", text.len());
            assert_eq!(streamed(&text), tokens(&text), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_tokens(text in "[a-zA-Z0-9 .'+#,\\-_é异步编程是日本한국İ]{0,40}") {
            prop_assert_eq!(streamed(&text), tokens(&text));
        }

        #[test]
        fn agrees_with_tokens_on_ascii_text(
            text in "([a-zA-Z0-9]{1,9}|[ .'+#,\\-_]{1,3}){0,60}",
        ) {
            // Longer than a 64-byte block, so runs cross blocks.
            prop_assert_eq!(streamed(&text), tokens(&text));
        }

        #[test]
        fn agrees_with_tokens_on_any_text(text in "\\PC{0,40}") {
            prop_assert_eq!(streamed(&text), tokens(&text));
        }
    }
}
