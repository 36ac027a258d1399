//! Step 5, cluster: near-duplicates ([`crate::near_dup`]) are folded into
//! the best-ordered member of each cluster, from the fingerprints the build
//! step made.

use crate::near_dup::{Fingerprint, NearDupOptions, cluster_with};
use crate::result::SearchResult;

/// `results` (in order) with near-duplicates folded, when clustering is on.
pub(super) fn cluster(
    results: Vec<SearchResult>,
    fingerprints: &[Fingerprint],
    options: Option<&NearDupOptions>,
) -> Vec<SearchResult> {
    match options {
        Some(options) => cluster_with(results, fingerprints, options),
        None => results,
    }
}
