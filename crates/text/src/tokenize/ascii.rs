//! The tokenizer's one fast path: the words of ASCII text (most titles and
//! snippets), found by a byte-class scan and hashed from the text's bytes,
//! lowercased as they are read — no char decoding and no copy per word.

use super::{K_LEN, absorb, hash_bytes, le_word};

/// `a`–`z`, `A`–`Z`, `0`–`9`: a word byte (the first one starts a word).
const ALNUM: u8 = 1;
/// `+ #`: part of a word once one has started, kept at its end.
const KEEP: u8 = 2;
/// `. '`: part of a word once one has started, trimmed at its end.
const TRIM: u8 = 3;

/// The class of each byte (0: ends a word).
const CLASS: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphanumeric() {
            ALNUM
        } else if c == b'+' || c == b'#' {
            KEEP
        } else if c == b'.' || c == b'\'' {
            TRIM
        } else {
            0
        };
        b += 1;
    }
    table
};

/// `f(start, end, hash)` for each word of the ASCII text `text`, in order:
/// its byte range (letters may be uppercase) and the
/// [`super::token_hash`] of the word lowercased.
#[inline]
pub(super) fn words(text: &str, mut f: impl FnMut(usize, usize, u64)) {
    let bytes = text.as_bytes();
    let class = |i: usize| CLASS[usize::from(bytes[i] & 0x7F)];
    let mut i = 0;
    while i < bytes.len() {
        if class(i) != ALNUM {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut end = i;
        while i < bytes.len() {
            match class(i) {
                ALNUM | KEEP => {
                    i += 1;
                    end = i;
                }
                TRIM => i += 1,
                _ => break,
            }
        }
        f(start, end, word_hash(bytes, start, end));
    }
}

/// [`super::token_hash`] of the word `bytes[start..end]` lowercased: a word
/// of up to 16 bytes with 16 bytes of text from its start is read in two
/// loads straight from the text (the bytes past it are masked off).
#[inline(always)]
fn word_hash(bytes: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    if len <= 16 && start + 16 <= bytes.len() {
        let h = (len as u64).wrapping_mul(K_LEN);
        let (lo, hi) = (le_word(&bytes[start..]), le_word(&bytes[start + 8..]));
        return absorb(h, lo, hi, len, 0x20);
    }
    hash_bytes(&bytes[start..end], 0x20)
}
