//! Near-duplicate clusters: results whose title and snippet say the same
//! thing at different URLs (mirrors, syndicated copies, print and mobile
//! versions) are folded into the best-scored one, which lists the others in
//! [`SearchResult::near_duplicates`] with their SimHash distance and sources.
//!
//! ## Fingerprints
//!
//! A [`Fingerprint`] is a 64-bit SimHash over the distinct features of the
//! title (without a trailing site-name segment such as ` | Site` or
//! ` - Site`, see [`title_without_site_name`], so that a copy on another
//! site still matches) and the snippet, each tokenised by
//! [`crate::tokenize::tokens`]:
//! word 3-shingles (a field with fewer than three words gives one feature
//! made of all its words) and CJK character bigrams (each bigram token is a
//! feature). Shingles do not span the title/snippet boundary. Every feature
//! counts once.
//!
//! ## When two results are near-duplicates
//!
//! All of:
//!
//! 1. Both are **eligible**: at least [`NearDupOptions::min_features`]
//!    distinct features and [`NearDupOptions::min_chars`] characters of title
//!    plus snippet. Very short texts say too little to be called copies.
//! 2. Their SimHashes are within [`NearDupOptions::threshold`] bits
//!    (Hamming distance; default 3).
//! 3. **Their titles agree** — the guard against pages that share only site
//!    boilerplate: two pages of one site often carry the same long
//!    boilerplate sentence as their snippet, so their fingerprints are close
//!    while the pages differ, and only the title tells them apart. Within
//!    one registrable domain the title token sets must have a Jaccard
//!    similarity of at least [`NearDupOptions::same_site_title_similarity`]
//!    (default 1.0: the same words); across domains at least
//!    [`NearDupOptions::cross_site_title_similarity`] (default 0.5, which lets
//!    a syndicated copy end its title with its own site name).
//! 4. They are in the **same partition**: public results cluster only with
//!    public ones and login results only with login results of the same
//!    `auth_partition`, so login data never hides inside a public result.
//!
//! ## Clustering, without quadratic work
//!
//! Candidates come from a band index: the 64 bits are cut into
//! `threshold + 1` blocks (4 blocks of 16 bits for the default 3), and two
//! hashes within `threshold` bits agree exactly on at least one block
//! (pigeonhole). For each block the eligible results are sorted by that
//! block's value (counting passes for 16-bit blocks), and only neighbours
//! with the same value are compared, each with at most
//! [`NearDupOptions::max_bucket_scan`] earlier ones, which bounds the work
//! even on adversarial input (many results with one block value): the work
//! is linear in the number of results, with sequential memory access.
//!
//! Then results are visited in the order given (best first). Each joins the
//! closest earlier result it is a candidate of that is still a cluster
//! representative and passes the title and partition checks (ties: the
//! better-ranked one), or stays a representative itself.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::result::{NearDuplicate, SearchResult};

mod token_stream;

pub use token_stream::token_hash;
pub(crate) use token_stream::{Tok, TokenStream, ascii_words, is_ascii_word_at};
use token_stream::{count_tokens, feature};

/// The largest supported [`NearDupOptions::threshold`] (8 blocks of 8 bits).
pub const MAX_THRESHOLD: u32 = 7;

/// Options of near-duplicate clustering.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NearDupOptions {
    /// Largest SimHash Hamming distance that joins a cluster (0–7; default 3).
    pub threshold: u32,
    /// Fewest distinct features a result needs to take part (default 8).
    pub min_features: u32,
    /// Fewest characters of title + snippet a result needs (default 40).
    pub min_chars: usize,
    /// Title token Jaccard similarity needed within one registrable domain
    /// (default 1.0).
    pub same_site_title_similarity: f64,
    /// Title token Jaccard similarity needed across domains (default 0.5).
    pub cross_site_title_similarity: f64,
    /// Most earlier results each result is compared with per block value
    /// (default 64).
    pub max_bucket_scan: usize,
}

impl Default for NearDupOptions {
    fn default() -> Self {
        NearDupOptions {
            threshold: 3,
            min_features: 8,
            min_chars: 40,
            same_site_title_similarity: 1.0,
            cross_site_title_similarity: 0.5,
            max_bucket_scan: 64,
        }
    }
}

/// A result's SimHash and whether it has enough text to be clustered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The 64-bit SimHash.
    pub simhash: u64,
    /// The number of distinct features it was computed from.
    pub features: u32,
    /// Characters of title plus snippet.
    pub chars: u32,
}

impl Fingerprint {
    /// The fingerprint of a title and a snippet.
    pub fn of(title: &str, snippet: &str) -> Self {
        FingerprintBuilder::default().build(title, snippet)
    }

    /// Whether it qualifies for clustering under `options`.
    pub fn is_eligible(&self, options: &NearDupOptions) -> bool {
        self.features >= options.min_features && self.chars as usize >= options.min_chars
    }

    /// Hamming distance between two fingerprints.
    pub fn distance(&self, other: &Fingerprint) -> u32 {
        (self.simhash ^ other.simhash).count_ones()
    }
}

/// Computes fingerprints, reusing its buffers across calls.
#[derive(Debug, Default)]
pub struct FingerprintBuilder {
    features: Vec<u64>,
    seen: Vec<u64>,
    stream: TokenStream,
}

impl FingerprintBuilder {
    /// The fingerprint of a title and a snippet.
    pub fn build(&mut self, title: &str, snippet: &str) -> Fingerprint {
        self.build_visiting(title, snippet, 0, |_| {})
    }

    /// [`Self::build`], also handing the tokens of the full title and of
    /// the snippet whose hash `h` has bit `h % 64` set in `filter` to
    /// `visit` (with near-duplicate clustering on, fusion finds the query terms
    /// among them, so each text is tokenised once; its filter has the bits
    /// of the terms' hashes).
    pub(crate) fn build_visiting(
        &mut self,
        title: &str,
        snippet: &str,
        filter: u64,
        mut visit: impl FnMut(&Tok<'_>),
    ) -> Fingerprint {
        self.features.clear();
        let stripped = title_without_site_name(title);
        let title_ascii = if stripped.len() == title.len() {
            self.add_field(title, filter, &mut visit)
        } else {
            // The full title's tokens are visited; the stripped one's make
            // the features.
            for_each_token(&mut self.stream, title, filter, &mut visit, |_, _| {});
            self.add_field(stripped, 0, &mut |_| {});
            title.is_ascii()
        };
        let snippet_ascii = self.add_field(snippet, filter, &mut visit);
        let (simhash, n) = simhash_of_distinct(&mut self.features, &mut self.seen);
        let count = |text: &str, ascii: bool| {
            if ascii {
                text.len()
            } else {
                text.chars().count()
            }
        };
        let chars = count(title, title_ascii) + count(snippet, snippet_ascii);
        Fingerprint {
            simhash,
            features: n,
            chars: u32::try_from(chars).unwrap_or(u32::MAX),
        }
    }

    /// Add the features of one field; returns whether it is ASCII.
    fn add_field(&mut self, text: &str, filter: u64, visit: &mut impl FnMut(&Tok<'_>)) -> bool {
        let mut shingles = Shingles::default();
        let features = &mut self.features;
        let ascii = for_each_token(&mut self.stream, text, filter, visit, |cjk, hash| {
            if cjk {
                features.push(feature(hash ^ CJK_TAG));
            } else {
                shingles.push(hash, features);
            }
        });
        shingles.finish(features);
        ascii
    }
}

/// The tokens of `text` whose hash `h` has bit `h % 64` set in `filter`
/// to `visit` (fusion looks for the query terms among them when it cannot
/// search for them; see `fusion::term_match`).
pub(crate) fn for_each_filtered(
    stream: &mut TokenStream,
    text: &str,
    filter: u64,
    mut visit: impl FnMut(&Tok<'_>),
) {
    for_each_token(stream, text, filter, &mut visit, |_, _| {});
}

/// Every token of `text` to `each` (whether it is a CJK bigram, its hash)
/// and, first, those whose hash has its bit in `filter` to `visit`;
/// returns whether the text is ASCII (words only, found by
/// [`ascii_words`]).
#[inline]
fn for_each_token(
    stream: &mut TokenStream,
    text: &str,
    filter: u64,
    visit: &mut impl FnMut(&Tok<'_>),
    mut each: impl FnMut(bool, u64),
) -> bool {
    let ascii = text.is_ascii();
    if ascii {
        ascii_words(text, |start, end, hash| {
            each(false, hash);
            if filter & (1 << (hash & 63)) != 0 {
                visit(&Tok::ascii_word(&text[start..end], hash));
            }
        });
    } else {
        stream.for_each(text, |t| {
            if filter & (1 << (t.hash & 63)) != 0 {
                visit(&t);
            }
            each(t.cjk, t.hash);
        });
    }
    ascii
}

/// The word 3-shingles of one field, made as its words arrive (a field of
/// one or two words gives one feature of all its words instead).
#[derive(Default)]
struct Shingles {
    /// The last two word hashes, the latest second.
    last: [u64; 2],
    words: usize,
}

impl Shingles {
    #[inline]
    fn push(&mut self, word: u64, features: &mut Vec<u64>) {
        if self.words >= 2 {
            features.push(feature(
                self.last[0] ^ self.last[1].rotate_left(21) ^ word.rotate_left(42),
            ));
        }
        self.last = [self.last[1], word];
        self.words += 1;
    }

    fn finish(self, features: &mut Vec<u64>) {
        let short = match self.words {
            1 => &self.last[1..],
            2 => &self.last[..],
            _ => return,
        };
        features.push(
            short
                .iter()
                .fold(SHORT_TAG, |acc, &w| feature(acc.rotate_left(23) ^ w)),
        );
    }
}

/// The SimHash of the distinct values of `hashes` and their number: each
/// value counts once, and bit `i` of the SimHash is set when more than half
/// of the distinct values have it ([`majority_of`]). Zero marks an empty
/// table slot and a zeroed repeat, so a zero value counts as 1 (one feature
/// in 2^64 changes value; the SimHash does not notice). A few dozen values (a
/// title and snippet) keep their places, the later occurrences zeroed (a
/// zero word counts for nothing in the majority); more have their first
/// occurrences moved to the front.
fn simhash_of_distinct(hashes: &mut [u64], table: &mut Vec<u64>) -> (u64, u32) {
    let (words, n) = if hashes.len() <= SMALL_FEATURES {
        let n = zero_repeats(hashes);
        (&*hashes, n)
    } else {
        let n = distinct_to_front(hashes, table);
        (&hashes[..n], n)
    };
    (majority_of(words, n), u32::try_from(n).unwrap_or(u32::MAX))
}

/// Moves the first occurrence of each value of `hashes` (zero as 1) to the
/// front and returns how many there are, finding them with an
/// open-addressing table in `table`, reused between calls.
fn distinct_to_front(hashes: &mut [u64], table: &mut Vec<u64>) -> usize {
    let size = (hashes.len() * 2).next_power_of_two().max(16);
    table.clear();
    table.resize(size, 0);
    let mask = size - 1;
    let mut distinct = 0;
    for i in 0..hashes.len() {
        let h = hashes[i].max(1);
        let mut slot = (h as usize) & mask;
        loop {
            let v = table[slot];
            if v == 0 {
                table[slot] = h;
                hashes[distinct] = h;
                distinct += 1;
                break;
            }
            if v == h {
                break;
            }
            slot = (slot + 1) & mask;
        }
    }
    distinct
}

/// Most features for [`zero_repeats`]; more take [`distinct_to_front`].
const SMALL_FEATURES: usize = 128;

/// Zeroes every value of `hashes` (at most [`SMALL_FEATURES`]; zero as 1)
/// that an earlier one equals and returns how many are left: a value whose
/// bit in a 1024-bit filter (ten bits of the value) is clear is new, and
/// only one whose bit is set is compared with the values before it. With
/// this few values the filter's bits are rarely set by another value, and
/// the filter lives on the stack: no table to clear and probe, and nothing
/// moves.
fn zero_repeats(hashes: &mut [u64]) -> usize {
    debug_assert!(hashes.len() <= SMALL_FEATURES);
    let mut filter = [0u64; 16];
    let mut distinct = 0;
    for i in 0..hashes.len() {
        let h = hashes[i].max(1);
        let (word, mask) = ((h >> 60) as usize, 1u64 << ((h >> 54) & 63));
        let repeat = filter[word] & mask != 0 && hashes[..i].contains(&h);
        filter[word] |= mask;
        hashes[i] = if repeat { 0 } else { h };
        distinct += usize::from(!repeat);
    }
    distinct
}

/// `(carry, sum)` of adding the bits of `a`, `b` and `c`, 64 columns at
/// once.
#[inline(always)]
fn carry_save(a: u64, b: u64, c: u64) -> (u64, u64) {
    let u = a ^ b;
    ((a & b) | (u & c), u ^ c)
}

/// Bit `i` set when more than half of `words` have bit `i` set.
#[cfg(test)]
fn majority(words: &[u64]) -> u64 {
    majority_of(words, words.len())
}

/// Bit `i` set when more than `n / 2` of `words` have bit `i` set, where
/// `n` of the words are counted and the others are zero (which count for
/// nothing).
///
/// The 64 column counts are kept bit-sliced: `digits[k]` holds digit `k`
/// (in binary) of every column's count. Words go in eight at a time through
/// a tree of carry-save adders (about six operations a word, where counting
/// bit by bit takes 64), whose eights are added into the higher digits with
/// a carry over as many digits as the counts can need; the last few words
/// are padded with zero words, which count for nothing. The counts are then
/// compared with `n / 2 + 1`, digit by digit from the top, for all columns
/// at once.
fn majority_of(words: &[u64], n: usize) -> u64 {
    // A fingerprint has a few dozen features: its counts fit in 16 digits,
    // which are cleared far faster than the 64 any slice could need.
    if words.len() < 1 << 16 {
        majority_in::<16>(words, n)
    } else {
        majority_in::<64>(words, n)
    }
}

/// [`majority_of`] with `D` digits for the counts (`words.len() < 2^D`).
fn majority_in<const D: usize>(words: &[u64], n: usize) -> u64 {
    let mut digits = [0u64; D];
    // Counts of `words` need `width` digits.
    let width = (usize::BITS - words.len().leading_zeros()) as usize;
    debug_assert!(width <= D);
    let mut add_eight = |w: &[u64; 8]| {
        let [ones, twos, fours] = [digits[0], digits[1], digits[2]];
        let (twos_a, ones) = carry_save(ones, w[0], w[1]);
        let (twos_b, ones) = carry_save(ones, w[2], w[3]);
        let (fours_a, twos) = carry_save(twos, twos_a, twos_b);
        let (twos_a, ones) = carry_save(ones, w[4], w[5]);
        let (twos_b, ones) = carry_save(ones, w[6], w[7]);
        let (fours_b, twos) = carry_save(twos, twos_a, twos_b);
        let (eights, fours) = carry_save(fours, fours_a, fours_b);
        [digits[0], digits[1], digits[2]] = [ones, twos, fours];
        // The eights rippled into the higher digits: a fixed number of
        // steps, no branch on the carry.
        let mut carry = eights;
        for d in digits.iter_mut().take(width).skip(3) {
            let next = *d & carry;
            *d ^= carry;
            carry = next;
        }
    };
    let mut blocks = words.chunks_exact(8);
    for w in blocks.by_ref() {
        let mut block = [0u64; 8];
        block.copy_from_slice(w);
        add_eight(&block);
    }
    // The last few words padded with zero words, which count for nothing.
    if !blocks.remainder().is_empty() {
        let mut block = [0u64; 8];
        block[..blocks.remainder().len()].copy_from_slice(blocks.remainder());
        add_eight(&block);
    }
    // Column count >= t, from the top digit down: `above` once a digit of
    // the count beats t's, `equal` while all digits so far match.
    debug_assert!(n <= words.len());
    let t = n / 2 + 1;
    let top = usize::BITS - t.leading_zeros();
    let (mut above, mut equal) = (0u64, u64::MAX);
    for k in (0..top as usize).rev() {
        let d = digits[k];
        if (t >> k) & 1 == 1 {
            equal &= d;
        } else {
            above |= equal & d;
            equal &= !d;
        }
    }
    // A count with a digit above t's top one is above t too.
    let higher = digits[top as usize..width.max(top as usize)]
        .iter()
        .fold(0, |acc, d| acc | d);
    above | equal | higher
}

const CJK_TAG: u64 = 0x9E37_79B9_7F4A_7C15;
const SHORT_TAG: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// The bit ranges `(shift, mask)` of the `threshold + 1` blocks.
fn blocks(threshold: u32) -> Vec<(u32, u64)> {
    let n = threshold + 1;
    let base = 64 / n;
    let extra = 64 % n;
    let mut out = Vec::with_capacity(n as usize);
    let mut shift = 0;
    for i in 0..n {
        let width = base + u32::from(i < extra);
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        out.push((shift, mask));
        shift += width;
    }
    out
}

/// Separators before a site name at the end of a title.
const SITE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " · ", " :: ", " » "];

/// Separators CJK sites write without spaces (`Rust 异步编程_知乎`).
const CJK_SITE_SEPARATORS: &[char] = &['_', '｜'];

/// Most tokens a trailing segment may have to count as a site name.
const MAX_SITE_NAME_TOKENS: usize = 4;

/// The bytes that start a site-name separator's mark: `| - _ :`, and the
/// lead bytes of the non-ASCII ones (`–` and `—` start with E2, `·` and `»`
/// with C2, `｜` with EF). One table load a byte instead of seven
/// comparisons.
const SEPARATOR_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = [b'|', b'-', b'_', b':', 0xC2, 0xE2, 0xEF];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// `title` without a trailing site-name segment: the part after the last
/// ` | `, ` - `, ` – `, ` — `, ` · `, ` :: ` or ` » ` (in CJK titles also
/// `_` or `｜` without spaces) when it has at most four tokens and
/// something is left before it. `Announcing Rust 1.80.0 | Mirror` →
/// `Announcing Rust 1.80.0`; a title without such a segment is unchanged.
pub fn title_without_site_name(title: &str) -> &str {
    let t = title.trim();
    let bytes = t.as_bytes();
    // Only a title with a separator byte can have a site name to cut. An
    // ASCII title (most) can only hold `|`, `-`, `_` or `:`, and `_` only
    // separates in CJK titles: one vectorised search for three bytes.
    let has_separator = if t.is_ascii() {
        memchr::memchr3(b'|', b'-', b':', bytes).is_some()
    } else {
        bytes.iter().any(|&b| SEPARATOR_BYTE[b as usize])
    };
    if !has_separator {
        return t;
    }
    cut_site_name(t)
}

/// [`title_without_site_name`] of a trimmed title, found by reading all of
/// it.
fn cut_site_name(t: &str) -> &str {
    let bytes = t.as_bytes();
    let cjk = crate::tokenize::has_cjk(t);
    // The last separator: a spaced one, or in CJK titles an unspaced one.
    let mut cut: Option<(usize, usize)> = None; // (start, length)
    for (i, &b) in bytes.iter().enumerate() {
        if b == b' ' {
            // Every spaced separator has a punctuation byte after the space.
            if bytes
                .get(i + 1)
                .is_some_and(|n| !n.is_ascii_alphanumeric() && *n != b' ')
                && let Some(sep) = SITE_SEPARATORS.iter().find(|sep| t[i..].starts_with(**sep))
            {
                cut = Some((i, sep.len()));
            }
        } else if cjk && (b == b'_' || b == 0xEF) {
            // `_`, or the first byte of `｜` (U+FF5C, EF BD 9C).
            if let Some(c) = t[i..].chars().next()
                && CJK_SITE_SEPARATORS.contains(&c)
            {
                cut = Some((i, c.len_utf8()));
            }
        }
    }
    let Some((at, len)) = cut else {
        return t;
    };
    let head = t[..at].trim_end();
    let tail = &t[at + len..];
    let tail_tokens = count_tokens(tail);
    if head.is_empty() || tail_tokens == 0 || tail_tokens > MAX_SITE_NAME_TOKENS {
        return t;
    }
    head
}

/// A title's distinct token hashes, sorted: what titles are compared by.
fn title_key(stream: &mut TokenStream, title: &str) -> Box<[u64]> {
    let mut key = Vec::new();
    stream.for_each(title, |t| key.push(t.hash));
    key.sort_unstable();
    key.dedup();
    key.into_boxed_slice()
}

/// Jaccard similarity of two sorted, distinct hash lists; two empty lists
/// are 1.0.
fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Jaccard similarity of two titles' token sets (tokens as
/// [`crate::tokenize::tokens`] gives them); two empty titles are 1.0.
pub fn title_similarity(a: &str, b: &str) -> f64 {
    let mut stream = TokenStream::default();
    jaccard(&title_key(&mut stream, a), &title_key(&mut stream, b))
}

/// The partition class clustering must respect: `None` for public results,
/// the `auth_partition` for login results.
fn partition_class(r: &SearchResult) -> Option<&str> {
    r.provenance
        .is_login()
        .then_some(&*r.provenance.auth_partition)
}

/// The title similarity two results need: same-site or cross-site.
fn title_threshold(a: &SearchResult, b: &SearchResult, options: &NearDupOptions) -> f64 {
    if !a.domain.is_empty() && a.domain == b.domain {
        options.same_site_title_similarity
    } else {
        options.cross_site_title_similarity
    }
}

/// Title keys, computed the first time a result is compared.
struct TitleKeys {
    keys: Vec<Option<Box<[u64]>>>,
    stream: TokenStream,
}

impl TitleKeys {
    fn agree(&mut self, results: &[SearchResult], a: usize, b: usize, needed: f64) -> bool {
        for i in [a, b] {
            if self.keys[i].is_none() {
                self.keys[i] = Some(title_key(&mut self.stream, &results[i].title));
            }
        }
        match (&self.keys[a], &self.keys[b]) {
            (Some(ka), Some(kb)) => jaccard(ka, kb) >= needed - 1e-12,
            _ => false,
        }
    }
}

/// A result in a block's sort: (block value, index, SimHash).
type BlockEntry = (u64, u32, u64);

/// Fewest entries for which the counting sort beats a comparison sort.
const COUNTING_SORT_MIN: usize = 16_384;

/// `entries` (block value, index, hash), in index order, sorted by block
/// value keeping index order within a value. Blocks of up to 16 bits take
/// a counting sort when there are many entries and otherwise two stable
/// counting passes of eight bits each (a radix sort: a few thousand
/// operations for a few hundred entries, where a comparison sort takes tens
/// of thousands); wider blocks a comparison sort. Returns the sorted slice
/// (in `entries` or `out`).
fn sort_by_block<'a>(
    entries: &'a mut [BlockEntry],
    out: &'a mut Vec<BlockEntry>,
    mask: u64,
) -> &'a [BlockEntry] {
    if mask > 0xFFFF {
        entries.sort_unstable_by_key(|&(key, index, _)| (key, index));
        return entries;
    }
    out.clear();
    out.resize(entries.len(), (0, 0, 0));
    if entries.len() >= COUNTING_SORT_MIN {
        let mut counts = vec![0u32; mask as usize + 2];
        counting_pass(entries, out, &mut counts, |key| key as usize);
        return out;
    }
    // Low byte into `out`, then high byte back into `entries`; each pass is
    // stable, so index order holds within a block value.
    counting_pass(entries, out, &mut [0; 257], |key| (key & 0xFF) as usize);
    counting_pass(out, entries, &mut [0; 257], |key| (key >> 8) as usize);
    entries
}

/// One stable counting pass: `from` into `to` (as long) by `bucket` of each
/// entry's block value, `counts` holding one more slot than there are
/// buckets (all zero).
fn counting_pass(
    from: &[BlockEntry],
    to: &mut [BlockEntry],
    counts: &mut [u32],
    bucket: impl Fn(u64) -> usize,
) {
    for e in from {
        counts[bucket(e.0) + 1] += 1;
    }
    for k in 1..counts.len() {
        counts[k] += counts[k - 1];
    }
    for &e in from {
        let slot = &mut counts[bucket(e.0)];
        to[*slot as usize] = e;
        *slot += 1;
    }
}

/// Fold near-duplicates of `results` (best first), computing fingerprints
/// from each result's title and snippet. See the module docs.
pub fn cluster(results: Vec<SearchResult>, options: &NearDupOptions) -> Vec<SearchResult> {
    let mut builder = FingerprintBuilder::default();
    let fps: Vec<Fingerprint> = results
        .iter()
        .map(|r| builder.build(&r.title, &r.snippet))
        .collect();
    cluster_with(results, &fps, options)
}

/// [`cluster`] with fingerprints already computed (`fingerprints[i]` belongs
/// to `results[i]`; a missing fingerprint makes a result ineligible).
pub fn cluster_with(
    results: Vec<SearchResult>,
    fingerprints: &[Fingerprint],
    options: &NearDupOptions,
) -> Vec<SearchResult> {
    let pairs = candidate_pairs(results.len(), fingerprints, options, 1);
    cluster_pairs(results, &pairs, options)
}

/// The candidate pairs `(later, distance, earlier)` among the first `n`
/// results, sorted and distinct: eligible results whose SimHashes are within
/// the threshold and agree on a block. The bands are shared out over up to
/// `threads` threads; sorting the pairs afterwards makes the list the same
/// for any count.
pub(crate) fn candidate_pairs(
    n: usize,
    fingerprints: &[Fingerprint],
    options: &NearDupOptions,
    threads: usize,
) -> Vec<(u32, u32, u32)> {
    let threshold = options.threshold.min(MAX_THRESHOLD);
    let eligible: Vec<u32> = (0..n)
        .filter(|&i| fingerprints.get(i).is_some_and(|f| f.is_eligible(options)))
        .map(|i| i as u32)
        .collect();

    // Per block, results with the same block value are neighbours once
    // sorted by it.
    let bands = blocks(threshold);
    let pairs_of =
        |band: &[(u32, u64)]| band_pairs(&eligible, fingerprints, band, threshold, options);
    let threads = threads.clamp(1, bands.len());
    let mut pairs: Vec<(u32, u32, u32)> = if threads == 1 {
        pairs_of(&bands)
    } else {
        let per = bands.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let handles: Vec<_> = bands
                .chunks(per)
                .map(|band| scope.spawn(move || pairs_of(band)))
                .collect();
            let mut all = Vec::new();
            for h in handles {
                all.extend(crate::workers::join(h));
            }
            all
        })
    };
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// The clustering itself, over the [`candidate_pairs`] of `results`.
pub(crate) fn cluster_pairs(
    results: Vec<SearchResult>,
    pairs: &[(u32, u32, u32)],
    options: &NearDupOptions,
) -> Vec<SearchResult> {
    let n = results.len();
    // Leader clustering in result order: a result joins the closest earlier
    // representative (ties: the better-ranked one) that passes the gates.
    let mut joined: Vec<Option<(u32, u32)>> = vec![None; n];
    let mut any_joined = false;
    let mut titles = TitleKeys {
        keys: vec![None; n],
        stream: TokenStream::default(),
    };
    let mut p = 0;
    while p < pairs.len() {
        let later = pairs[p].0;
        let mut q = p;
        while q < pairs.len() && pairs[q].0 == later {
            q += 1;
        }
        let i = later as usize;
        let r = &results[i];
        for &(_, d, earlier) in &pairs[p..q] {
            let j = earlier as usize;
            if joined[j].is_some() {
                continue;
            }
            let rep = &results[j];
            if partition_class(rep) == partition_class(r)
                && titles.agree(&results, i, j, title_threshold(r, rep, options))
            {
                joined[i] = Some((earlier, d));
                any_joined = true;
                break;
            }
        }
        p = q;
    }
    if !any_joined {
        return results;
    }

    let mut members: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, j) in joined.iter().enumerate() {
        if let Some((rep, d)) = j {
            members.entry(*rep).or_default().push((i, *d));
        }
    }
    let mut slots: Vec<Option<SearchResult>> = results.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for i in 0..slots.len() {
        if joined[i].is_some() {
            continue;
        }
        let Some(mut rep) = slots[i].take() else {
            continue;
        };
        if let Some(list) = members.remove(&(i as u32)) {
            for (m, d) in list {
                if let Some(member) = slots[m].take() {
                    fold_into(&mut rep, member, d);
                }
            }
        }
        out.push(rep);
    }
    out
}

/// The candidate pairs `(later, distance, earlier)` of the blocks
/// `(shift, mask)` of one band: per block, the eligible results sorted by
/// the block's value `(hash >> shift) & mask`, each compared with up to
/// `max_bucket_scan` earlier ones of its value. The sort buffers serve
/// every block of the band.
fn band_pairs(
    eligible: &[u32],
    fingerprints: &[Fingerprint],
    band: &[(u32, u64)],
    threshold: u32,
    options: &NearDupOptions,
) -> Vec<(u32, u32, u32)> {
    let mut pairs = Vec::new();
    let mut entries: Vec<(u64, u32, u64)> = Vec::with_capacity(eligible.len());
    let mut sorted = Vec::new();
    for &(shift, mask) in band {
        entries.clear();
        entries.extend(eligible.iter().map(|&i| {
            let h = fingerprints[i as usize].simhash;
            ((h >> shift) & mask, i, h)
        }));
        let run = sort_by_block(&mut entries, &mut sorted, mask);
        let mut start = 0;
        while start < run.len() {
            let key = run[start].0;
            let mut end = start + 1;
            while end < run.len() && run[end].0 == key {
                end += 1;
            }
            for b in start + 1..end {
                let (_, later, hb) = run[b];
                for &(_, earlier, ha) in
                    &run[b.saturating_sub(options.max_bucket_scan).max(start)..b]
                {
                    let d = (ha ^ hb).count_ones();
                    if d <= threshold {
                        pairs.push((later, d, earlier));
                    }
                }
            }
            start = end;
        }
    }
    pairs
}

fn fold_into(rep: &mut SearchResult, member: SearchResult, distance: u32) {
    // Login is sticky: a result that lists a login near-duplicate (its
    // title and sources) is login data too.
    rep.provenance = rep.provenance.join(&member.provenance);
    rep.near_duplicates.push(NearDuplicate {
        url: member.url,
        original_url: member.original_url,
        title: member.title,
        distance,
        sources: member.sources,
    });
    // Anything already folded into the member stays listed.
    rep.near_duplicates.extend(member.near_duplicates);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::tokenize::{Token, tokens};

    /// The fingerprint as the module docs define it, computed plainly from
    /// [`tokens`]: distinct features, each bit set by a strict majority.
    fn reference(title: &str, snippet: &str) -> Fingerprint {
        let mut features = Vec::new();
        for field in [title_without_site_name(title), snippet] {
            let mut words = Vec::new();
            for t in tokens(field) {
                match t {
                    Token::Word(w) => words.push(token_hash(&w)),
                    Token::Cjk(c) => features.push(feature(token_hash(&c) ^ CJK_TAG)),
                }
            }
            match words.len() {
                0 => {}
                1 | 2 => features.push(
                    words
                        .iter()
                        .fold(SHORT_TAG, |acc, &w| feature(acc.rotate_left(23) ^ w)),
                ),
                _ => features.extend(
                    words
                        .windows(3)
                        .map(|w| feature(w[0] ^ w[1].rotate_left(21) ^ w[2].rotate_left(42))),
                ),
            }
        }
        let mut distinct: Vec<u64> = Vec::new();
        for f in features {
            if !distinct.contains(&f.max(1)) {
                distinct.push(f.max(1));
            }
        }
        let n = distinct.len() as u32;
        let mut simhash = 0u64;
        for bit in 0..64 {
            let ones = distinct.iter().filter(|f| *f & (1 << bit) != 0).count() as u32;
            if 2 * ones > n {
                simhash |= 1 << bit;
            }
        }
        Fingerprint {
            simhash,
            features: n,
            chars: (title.chars().count() + snippet.chars().count()) as u32,
        }
    }

    proptest! {
        #[test]
        fn majority_is_each_bit_set_in_more_than_half_of_the_words(
            // Few distinct words, so columns often sit at the threshold;
            // up to 700 words, past every digit the tree carries into.
            words in prop::collection::vec(
                prop_oneof![any::<u64>(), Just(0u64), Just(u64::MAX), 0u64..8],
                0..700,
            )
        ) {
            let n = words.len();
            let expected = (0..64).fold(0u64, |acc, bit| {
                let count = words.iter().filter(|w| *w >> bit & 1 == 1).count();
                if 2 * count > n { acc | 1 << bit } else { acc }
            });
            prop_assert_eq!(majority(&words), expected);
            // The digits a slice of any length needs give the same.
            prop_assert_eq!(majority_in::<64>(&words, n), expected);
        }

        #[test]
        fn distinct_values_count_once_in_both_ways(
            // Values from a small pool (many repeats), some sharing their
            // top ten bits (the filter's bit), zero among them; past
            // SMALL_FEATURES too, where the table takes over.
            pool in prop::collection::vec(
                prop_oneof![any::<u64>(), (0u64..4).prop_map(|x| x | 0xABC0 << 48), Just(0u64)],
                1..40,
            ),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..300),
        ) {
            let mut values: Vec<u64> = picks.iter().map(|i| pool[i.index(pool.len())]).collect();
            let mut distinct: Vec<u64> = Vec::new();
            for v in &values {
                let v = (*v).max(1);
                if !distinct.contains(&v) {
                    distinct.push(v);
                }
            }
            let expected = (majority(&distinct), distinct.len() as u32);
            let mut table = Vec::new();
            prop_assert_eq!(simhash_of_distinct(&mut values, &mut table), expected);
            // First occurrences are kept in order: in place, the rest
            // zeroed (up to SMALL_FEATURES values), or at the front.
            let kept: Vec<u64> = if values.len() <= SMALL_FEATURES {
                values.iter().copied().filter(|&v| v != 0).collect()
            } else {
                values[..distinct.len()].to_vec()
            };
            prop_assert_eq!(&kept[..], &distinct[..]);
        }

        /// The separator-byte check only skips titles the full reading
        /// would leave as they are.
        #[test]
        fn the_separator_check_skips_only_uncut_titles(
            title in prop_oneof![
                "([a-zA-Z0-9]{1,6}| | \\| | - | :: |[|:_-]){0,8}",
                "([a-zA-Z0-9]{1,6}| | \\| | - | :: | · | » | – | — |[|:_｜-]|异步){0,10}",
            ],
        ) {
            let t = title.trim();
            prop_assert_eq!(title_without_site_name(&title), cut_site_name(t), "{:?}", title);
        }

        #[test]
        fn fingerprints_follow_their_definition(
            title in "([a-zA-Z0-9]{1,7}|[ .'+#\\-|]{1,3}|异步编程|é){0,12}",
            snippet in "([a-zA-Z0-9]{1,9}|[ .'+#,]{1,2}|异步|日本語|é){0,80}",
        ) {
            let mut builder = FingerprintBuilder::default();
            let expected = reference(&title, &snippet);
            prop_assert_eq!(builder.build(&title, &snippet), expected);
            // Reused buffers give the same answer.
            prop_assert_eq!(builder.build(&title, &snippet), expected);
        }

        #[test]
        fn long_and_repetitive_texts_follow_their_definition(
            distinct in 0usize..400,
            repeats in 1usize..4,
        ) {
            // Hundreds of distinct shingles (counts carried into the higher
            // binary digits of the majority's adder) and phrases said several
            // times (each counts once).
            let words: Vec<String> = (0..distinct).map(|i| format!("w{}", i % 97 + i / 3)).collect();
            let snippet = vec![words.join(" "); repeats].join(" ");
            let title = words.iter().take(5).cloned().collect::<Vec<_>>().join(" ");
            prop_assert_eq!(Fingerprint::of(&title, &snippet), reference(&title, &snippet));
        }
    }

    /// `entries` (in index order) sorted by [`sort_by_block`], and as a
    /// sort by block value then index gives them.
    fn sorted_and_expected(
        entries: Vec<BlockEntry>,
        mask: u64,
    ) -> (Vec<BlockEntry>, Vec<BlockEntry>) {
        let mut sorted_in = entries.clone();
        let mut out = Vec::new();
        let sorted = sort_by_block(&mut sorted_in, &mut out, mask).to_vec();
        let mut expected = entries;
        expected.sort_unstable_by_key(|&(key, index, _)| (key, index));
        (sorted, expected)
    }

    proptest! {
        #[test]
        fn small_block_sorts_are_stable_sorts_by_block(
            values in prop::collection::vec(0u64..3000, 0..600),
            mask in prop::sample::select(vec![0xFFu64, 0xFFFF, 0x1F_FFFF]),
        ) {
            // Many equal block values; block widths of the radix sort and of
            // the comparison sort.
            let entries: Vec<(u64, u32, u64)> = values
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let h = v.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                    (h & mask, i as u32, h)
                })
                .collect();
            let (sorted, expected) = sorted_and_expected(entries, mask);
            prop_assert_eq!(sorted, expected);
        }
    }

    #[test]
    fn each_separator_cuts_a_site_name() {
        for sep in SITE_SEPARATORS {
            let title = format!("Announcing Rust 1.80.0{sep}Rust Blog");
            assert_eq!(
                title_without_site_name(&title),
                "Announcing Rust 1.80.0",
                "{title}"
            );
        }
        assert_eq!(title_without_site_name("异步编程_知乎"), "异步编程");
        assert_eq!(title_without_site_name("异步编程｜知乎"), "异步编程");
        // `_` separates only in CJK titles.
        assert_eq!(title_without_site_name("snake_case"), "snake_case");
        assert_eq!(title_without_site_name("  no separator  "), "no separator");
    }

    #[test]
    fn both_block_sorts_agree() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || xorshift(&mut state);
        let mask = 0xFFFF;
        let entries: Vec<(u64, u32, u64)> = (0..COUNTING_SORT_MIN as u32 + 100)
            .map(|i| {
                let h = next() % 5000; // many equal block values
                (h & mask, i, h)
            })
            .collect();
        let (counting, expected) = sorted_and_expected(entries, mask);
        assert_eq!(counting, expected);
    }

    #[test]
    fn blocks_cover_all_bits() {
        for t in 0..=MAX_THRESHOLD {
            let b = blocks(t);
            assert_eq!(b.len() as u32, t + 1);
            let all = b.iter().fold(0u64, |acc, &(shift, mask)| {
                assert_eq!(acc & (mask << shift), 0, "blocks overlap");
                acc | (mask << shift)
            });
            assert_eq!(all, u64::MAX);
        }
    }

    /// A small deterministic generator (xorshift64) for the tests that
    /// need many values (`state` must not be zero).
    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn shingle_features_set_each_bit_about_half_the_time() {
        // 20,000 shingles of words from a 1,000-word vocabulary, made as
        // `Shingles::push` makes them: a biased bit would pull unrelated
        // fingerprints together.
        let words: Vec<u64> = (0..1000).map(|i| token_hash(&format!("w{i}"))).collect();
        let mut state = 7;
        let mut ones = [0u32; 64];
        let n = 20_000;
        for _ in 0..n {
            let mut pick = || words[xorshift(&mut state) as usize % words.len()];
            let (a, b, c) = (pick(), pick(), pick());
            let f = feature(a ^ b.rotate_left(21) ^ c.rotate_left(42));
            for (bit, count) in ones.iter_mut().enumerate() {
                *count += (f >> bit) as u32 & 1;
            }
        }
        for (bit, &count) in ones.iter().enumerate() {
            let share = f64::from(count) / f64::from(n);
            // Six standard deviations (0.0035 each) either way.
            assert!((0.48..=0.52).contains(&share), "bit {bit} set in {share}");
        }
    }

    #[test]
    fn unrelated_texts_are_far_apart() {
        // 200 texts of 8 + 30 words drawn from 500 words share words but
        // say nothing alike: their SimHashes differ in about half the bits
        // and no two come near the clustering threshold.
        let vocabulary: Vec<String> = (0..500).map(|i| format!("word{i}")).collect();
        let mut state = 11;
        let mut text = |n: usize| {
            (0..n)
                .map(|_| vocabulary[xorshift(&mut state) as usize % vocabulary.len()].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let fps: Vec<Fingerprint> = (0..200)
            .map(|_| {
                let (title, snippet) = (text(8), text(30));
                Fingerprint::of(&title, &snippet)
            })
            .collect();
        let (mut sum, mut pairs, mut closest) = (0u64, 0u64, 64);
        for (i, a) in fps.iter().enumerate() {
            for b in &fps[i + 1..] {
                let d = a.distance(b);
                sum += u64::from(d);
                pairs += 1;
                closest = closest.min(d);
            }
        }
        let mean = sum as f64 / pairs as f64;
        assert!((30.0..=34.0).contains(&mean), "mean distance {mean}");
        assert!(
            closest > 2 * NearDupOptions::default().threshold,
            "closest {closest}"
        );
    }
}
