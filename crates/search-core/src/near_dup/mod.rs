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
//! [`crate::tokenize::tokens`] and hashed by [`crate::tokenize::token_hash`]:
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
//! block's value, and only neighbours with the same value are compared,
//! each with at most [`NearDupOptions::max_bucket_scan`] earlier ones,
//! which bounds the work even on adversarial input (many results with one
//! block value).
//!
//! Then results are visited in the order given (best first). Each joins the
//! closest earlier result it is a candidate of that is still a cluster
//! representative and passes the title and partition checks (ties: the
//! better-ranked one), or stays a representative itself.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::result::{NearDuplicate, SearchResult};
use crate::tokenize::Tokenizer;

mod fingerprint;
mod title;

pub use crate::tokenize::token_hash;
pub use fingerprint::{Fingerprint, FingerprintBuilder};
use title::{jaccard, title_key};
pub use title::{title_similarity, title_without_site_name};

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
    let pairs = candidate_pairs(results.len(), fingerprints, options);
    let joined = leaders(&results, &pairs, options);
    fold_members(results, &joined)
}

/// A candidate pair: (later result, distance, earlier result).
type Pair = (u32, u32, u32);

/// The candidate pairs among the first `n` results, sorted and distinct:
/// eligible results whose SimHashes are within the threshold and agree on
/// a block.
fn candidate_pairs(n: usize, fingerprints: &[Fingerprint], options: &NearDupOptions) -> Vec<Pair> {
    let threshold = options.threshold.min(MAX_THRESHOLD);
    let eligible: Vec<u32> = (0..n)
        .filter(|&i| fingerprints.get(i).is_some_and(|f| f.is_eligible(options)))
        .map(|i| i as u32)
        .collect();
    let mut pairs = Vec::new();
    let mut entries: Vec<(u64, u32, u64)> = Vec::with_capacity(eligible.len());
    for (shift, mask) in blocks(threshold) {
        entries.clear();
        entries.extend(eligible.iter().map(|&i| {
            let h = fingerprints[i as usize].simhash;
            ((h >> shift) & mask, i, h)
        }));
        entries.sort_unstable_by_key(|&(block, index, _)| (block, index));
        for run in entries.chunk_by(|a, b| a.0 == b.0) {
            pairs_in_run(run, threshold, options.max_bucket_scan, &mut pairs);
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// The pairs within `threshold` bits among results that share a block
/// value (in index order), each compared with at most `scan` earlier ones.
fn pairs_in_run(run: &[(u64, u32, u64)], threshold: u32, scan: usize, pairs: &mut Vec<Pair>) {
    for (b, &(_, later, hb)) in run.iter().enumerate().skip(1) {
        for &(_, earlier, ha) in &run[b.saturating_sub(scan)..b] {
            let d = (ha ^ hb).count_ones();
            if d <= threshold {
                pairs.push((later, d, earlier));
            }
        }
    }
}

/// Leader clustering in result order: a result joins the closest earlier
/// representative (ties: the better-ranked one) that passes the partition
/// and title gates; `joined[i]` is its representative and distance.
fn leaders(
    results: &[SearchResult],
    pairs: &[Pair],
    options: &NearDupOptions,
) -> Vec<Option<(u32, u32)>> {
    let mut joined: Vec<Option<(u32, u32)>> = vec![None; results.len()];
    let mut titles = TitleKeys {
        keys: vec![None; results.len()],
        tokenizer: Tokenizer::default(),
    };
    for group in pairs.chunk_by(|a, b| a.0 == b.0) {
        let i = group[0].0 as usize;
        let r = &results[i];
        for &(_, d, earlier) in group {
            let j = earlier as usize;
            if joined[j].is_some() {
                continue;
            }
            let rep = &results[j];
            if partition_class(rep) == partition_class(r)
                && titles.agree(results, i, j, title_threshold(r, rep, options))
            {
                joined[i] = Some((earlier, d));
                break;
            }
        }
    }
    joined
}

/// Each representative with its members folded in, in result order.
fn fold_members(results: Vec<SearchResult>, joined: &[Option<(u32, u32)>]) -> Vec<SearchResult> {
    if joined.iter().all(Option::is_none) {
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
        for (m, d) in members.remove(&(i as u32)).unwrap_or_default() {
            if let Some(member) = slots[m].take() {
                fold_into(&mut rep, member, d);
            }
        }
        out.push(rep);
    }
    out
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
    tokenizer: Tokenizer,
}

impl TitleKeys {
    fn agree(&mut self, results: &[SearchResult], a: usize, b: usize, needed: f64) -> bool {
        for i in [a, b] {
            if self.keys[i].is_none() {
                self.keys[i] = Some(title_key(&mut self.tokenizer, &results[i].title));
            }
        }
        match (&self.keys[a], &self.keys[b]) {
            (Some(ka), Some(kb)) => jaccard(ka, kb) >= needed - 1e-12,
            _ => false,
        }
    }
}

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
    use super::*;

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
}
