//! Step 4, order: each result's intent and final score, then the one
//! ordering of results — `final` descending, then `rrf` descending, then
//! best rank ascending, then canonical URL ascending, then mergeable
//! results before login results that may not merge. It is a total order,
//! so the output never depends on the order of the calls.

use std::cmp::Ordering;

use super::build::Meta;
use crate::near_dup::Fingerprint;
use crate::result::SearchResult;

/// Set each result's intent score (the weighted mean of keyword,
/// freshness and authority with `weights`) and final score
/// (`share · rrf / rrf_max + (1 − share) · intent`); returns `rrf_max`.
pub(super) fn score(results: &mut [SearchResult], weights: [f64; 3], share: f64) -> f64 {
    let rrf_max = results.iter().map(|r| r.scores.rrf).fold(0.0, f64::max);
    let [wk, wf, wa] = weights;
    let wsum = wk + wf + wa;
    for r in results {
        let s = &mut r.scores;
        s.intent = (wk * s.keyword + wf * s.freshness + wa * s.authority) / wsum;
        let rank_part = if rrf_max > 0.0 { s.rrf / rrf_max } else { 0.0 };
        s.final_score = share * rank_part + (1.0 - share) * s.intent;
    }
    rrf_max
}

/// What results are ordered by, with the result's position.
struct SortKey<'r> {
    final_score: f64,
    rrf: f64,
    best_rank: u32,
    /// The URL's first 16 bytes after `https://`, which every canonical
    /// URL starts with ([`url_head`]): most URL ties are settled here
    /// without reading the URLs.
    head: u128,
    url: &'r str,
    isolated: bool,
    at: u32,
}

/// The 16 bytes of `url` after `https://` as a big-endian number,
/// zero-padded: two URLs whose heads differ compare as the URLs do (URL
/// bytes are never zero).
fn url_head(url: &str) -> u128 {
    let tail = url.strip_prefix("https://").unwrap_or(url).as_bytes();
    let mut bytes = [0u8; 16];
    let n = tail.len().min(16);
    bytes[..n].copy_from_slice(&tail[..n]);
    u128::from_be_bytes(bytes)
}

/// The one ordering comparison (see the module docs).
fn compare(a: &SortKey<'_>, b: &SortKey<'_>) -> Ordering {
    b.final_score
        .total_cmp(&a.final_score)
        .then_with(|| b.rrf.total_cmp(&a.rrf))
        .then_with(|| a.best_rank.cmp(&b.best_rank))
        .then_with(|| a.head.cmp(&b.head))
        .then_with(|| a.url.cmp(b.url))
        .then_with(|| a.isolated.cmp(&b.isolated))
}

/// `results` in order, with the fingerprint of each (for clustering).
pub(super) fn order(
    mut results: Vec<SearchResult>,
    metas: &[Meta],
) -> (Vec<SearchResult>, Vec<Fingerprint>) {
    let mut keys: Vec<SortKey<'_>> = results
        .iter()
        .zip(metas)
        .enumerate()
        .map(|(at, (r, m))| SortKey {
            final_score: r.scores.final_score,
            rrf: r.scores.rrf,
            best_rank: m.best_rank,
            head: url_head(&r.url),
            url: &r.url,
            isolated: m.isolated,
            at: at as u32,
        })
        .collect();
    keys.sort_unstable_by(compare);
    let mut positions: Vec<u32> = keys.iter().map(|k| k.at).collect();
    drop(keys);
    let fingerprints = positions
        .iter()
        .map(|&i| metas[i as usize].fingerprint)
        .collect();
    permute(&mut results, &mut positions);
    (results, fingerprints)
}

/// Reorder `items` so that position `k` holds the item that was at
/// `perm[k]`, by following the permutation's cycles with swaps (`perm` is
/// used up as the visited marks).
fn permute<T>(items: &mut [T], perm: &mut [u32]) {
    const DONE: u32 = u32::MAX;
    for start in 0..perm.len() {
        if perm[start] == DONE {
            continue;
        }
        let mut at = start;
        loop {
            let from = perm[at] as usize;
            perm[at] = DONE;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::permute;

    proptest! {
        #[test]
        fn permute_puts_each_item_where_the_permutation_says(
            perm in Just((0u32..40).collect::<Vec<_>>()).prop_shuffle()
        ) {
            let mut items: Vec<u32> = (0..40).collect();
            let mut p = perm.clone();
            permute(&mut items, &mut p);
            prop_assert_eq!(items, perm);
        }
    }
}
