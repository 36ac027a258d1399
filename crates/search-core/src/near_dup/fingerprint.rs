//! The SimHash fingerprint of a result's title and snippet (see the
//! parent module's docs for what it is made of). The code is the
//! definition: tokens → features → distinct features → per-bit majority.

use serde::{Deserialize, Serialize};

use super::title::title_without_site_name;
use crate::tokenize::{Tok, Tokenizer, fold_mul};

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
    pub fn is_eligible(&self, options: &super::NearDupOptions) -> bool {
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
    tokenizer: Tokenizer,
}

impl FingerprintBuilder {
    /// The fingerprint of a title and a snippet.
    pub fn build(&mut self, title: &str, snippet: &str) -> Fingerprint {
        self.build_visiting(title, snippet, |_| {})
    }

    /// [`Self::build`], also handing every token of the full title and of
    /// the snippet to `visit` (fusion finds the query terms among them, so
    /// each text is tokenised once).
    pub(crate) fn build_visiting(
        &mut self,
        title: &str,
        snippet: &str,
        mut visit: impl FnMut(&Tok<'_>),
    ) -> Fingerprint {
        self.features.clear();
        let stripped = title_without_site_name(title);
        let title_chars = if stripped.len() == title.len() {
            self.add_field(title, &mut visit)
        } else {
            // The full title's tokens are visited; the stripped one's make
            // the features.
            self.add_field(stripped, &mut |_| {});
            self.tokenizer.for_each(title, |t| visit(&t))
        };
        let chars = title_chars + self.add_field(snippet, &mut visit);
        let features = distinct(&mut self.features);
        Fingerprint {
            simhash: majority(features),
            features: u32::try_from(features.len()).unwrap_or(u32::MAX),
            chars: u32::try_from(chars).unwrap_or(u32::MAX),
        }
    }

    /// Add the features of one field, its word 3-shingles and CJK bigrams;
    /// returns its number of characters.
    fn add_field(&mut self, text: &str, visit: &mut impl FnMut(&Tok<'_>)) -> usize {
        let mut shingles = Shingles::default();
        let features = &mut self.features;
        let chars = self.tokenizer.for_each(text, |t| {
            visit(&t);
            if t.cjk {
                features.push(feature(t.hash ^ CJK_TAG));
            } else {
                shingles.push(t.hash, features);
            }
        });
        shingles.finish(features);
        chars
    }
}

/// Salts of the feature kinds and of [`feature`] (odd, well-mixed bits).
const CJK_TAG: u64 = 0x9E37_79B9_7F4A_7C15;
const SHORT_TAG: u64 = 0xC2B2_AE3D_27D4_EB4F;
const K_FEATURE: u64 = 0x8EBC_6AF0_9C88_C6E3;
const K_MIX: u64 = 0xE703_7ED1_A0B4_28DB;

/// A SimHash feature from a combination of token hashes (a 3-shingle's
/// rotated word hashes XORed, a CJK bigram's hash, a short field's words):
/// one folded multiply, in which every output bit depends on every input
/// bit.
#[inline]
fn feature(h: u64) -> u64 {
    fold_mul(h ^ K_FEATURE, K_MIX)
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

/// The distinct values of `features`, sorted. Zero counts as 1, so that a
/// zero never means "no feature" (one feature in 2^64 changes value; the
/// SimHash does not notice).
fn distinct(features: &mut Vec<u64>) -> &[u64] {
    for f in features.iter_mut() {
        *f = (*f).max(1);
    }
    features.sort_unstable();
    features.dedup();
    features
}

/// Bit `i` set when more than half of `features` have bit `i` set.
///
/// The counts of the 64 bit columns are kept eight to a word, one byte
/// each: a feature adds, for each of its bytes, the word whose byte `j` is
/// bit `j` of that byte ([`SPREAD`]) — eight additions per feature instead
/// of 64. Bytes are emptied into full counts before they can overflow.
fn majority(features: &[u64]) -> u64 {
    let mut ones = [0u32; 64];
    for block in features.chunks(255) {
        let mut packed = [0u64; 8];
        for f in block {
            for (byte, sum) in packed.iter_mut().enumerate() {
                *sum += SPREAD[((f >> (8 * byte)) & 0xFF) as usize];
            }
        }
        for (bit, count) in ones.iter_mut().enumerate() {
            *count += ((packed[bit / 8] >> (8 * (bit % 8))) & 0xFF) as u32;
        }
    }
    let half = features.len() / 2;
    (0..64).fold(0, |hash, bit| {
        if ones[bit] as usize > half {
            hash | 1 << bit
        } else {
            hash
        }
    })
}

/// `SPREAD[b]` has byte `j` set to bit `j` of `b`.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            table[b] |= (((b >> j) & 1) as u64) << (8 * j);
            j += 1;
        }
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenize::token_hash;

    /// A small deterministic generator (xorshift64; `state` not zero).
    pub(crate) fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    proptest::proptest! {
        #[test]
        fn majority_is_each_bit_set_in_more_than_half(
            features in proptest::collection::vec(proptest::num::u64::ANY, 0..600)
        ) {
            let half = features.len() / 2;
            let want = (0..64).fold(0u64, |hash, bit| {
                let ones = features.iter().filter(|f| *f & (1 << bit) != 0).count();
                if ones > half { hash | 1 << bit } else { hash }
            });
            proptest::prop_assert_eq!(majority(&features), want);
        }
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
}
