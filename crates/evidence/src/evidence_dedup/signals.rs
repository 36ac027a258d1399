//! The similarity signals of evidence dedup: a 64-bit SimHash of page text,
//! word-shingle containment of page text, and title 4-shingle Jaccard.

use std::collections::HashSet;

use ferret_core::near_dup::{Fingerprint, title_without_site_name};
use ferret_core::tokenize::token_strings;

/// The 64-bit SimHash of a page's text: [`ferret_core::near_dup`]'s
/// fingerprint (distinct word 3-shingles and CJK bigrams, each counted
/// once) over the text alone.
pub fn text_simhash(text: &str) -> Fingerprint {
    Fingerprint::of("", text)
}

/// FNV-1a over the bytes, then the murmur3 finaliser.
fn hash_str(s: &str, mut h: u64) -> u64 {
    for &b in s.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= 0xff; // token separator
    h = h.wrapping_mul(0x0000_0100_0000_01b3);
    h
}

fn finish(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The hashed `k`-shingles of a token list (one shingle of all tokens when
/// there are fewer than `k`; none for no tokens).
pub fn shingles(tokens: &[String], k: usize) -> HashSet<u64> {
    let k = k.max(1);
    if tokens.is_empty() {
        return HashSet::new();
    }
    if tokens.len() < k {
        let h = tokens
            .iter()
            .fold(0xcbf2_9ce4_8422_2325, |h, t| hash_str(t, h));
        return HashSet::from([finish(h)]);
    }
    tokens
        .windows(k)
        .map(|w| finish(w.iter().fold(0xcbf2_9ce4_8422_2325, |h, t| hash_str(t, h))))
        .collect()
}

/// Jaccard similarity of two shingle sets (0 when either is empty).
pub fn jaccard(a: &HashSet<u64>, b: &HashSet<u64>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// The share of the smaller set found in the larger (0 when either is
/// empty).
pub fn containment(a: &HashSet<u64>, b: &HashSet<u64>) -> f64 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.is_empty() {
        return 0.0;
    }
    small.intersection(large).count() as f64 / small.len() as f64
}

/// The tokens of a title without its trailing site name
/// ([`ferret_core::near_dup::title_without_site_name`]).
pub fn title_tokens(title: &str) -> Vec<String> {
    token_strings(title_without_site_name(title))
}

/// Title `k`-shingle Jaccard of two titles, site names removed; `None`
/// when either title has fewer than `k` tokens (too short to shingle).
pub fn title_jaccard(a: &str, b: &str, k: usize) -> Option<f64> {
    let (ta, tb) = (title_tokens(a), title_tokens(b));
    if ta.len() < k || tb.len() < k {
        return None;
    }
    Some(jaccard(&shingles(&ta, k), &shingles(&tb, k)))
}
