//! A fused [`SearchResult`] with every source hit and every score component,
//! so that any order can be explained.

use std::sync::Arc;

use crate::text::Text;

use serde::{Deserialize, Serialize};

use crate::provenance::Provenance;

/// One engine's hit that was merged into a result.
///
/// The engine and sub-query names are shared (`Arc<str>`): every hit of one
/// engine call carries the same two names, and fusion hands them out
/// without copying them per hit. They serialise as plain strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceHit {
    /// The engine's name.
    pub engine: Arc<str>,
    /// 1-based rank in that engine's answer.
    pub rank: u32,
    /// The sub-query that produced it.
    pub sub_query: Arc<str>,
    /// The URL exactly as the engine returned it (shared with the hit).
    pub url: Text,
    /// Who read this hit: its engine answer's provenance.
    pub provenance: Provenance,
}

/// Every score component of a result. `final` is what the order follows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Scores {
    /// Weighted reciprocal-rank fusion: Σ over engines of `w / (k + rank)`.
    pub rrf: f64,
    /// Query-term coverage of title + snippet, 0–1.
    pub keyword: f64,
    /// Recency, 0–1.
    pub freshness: f64,
    /// Domain authority, 0–1 (including any domain boost).
    pub authority: f64,
    /// The intent score: `w_k·keyword + w_f·freshness + w_a·authority` with
    /// the plan's weights (normalised to sum 1), 0–1.
    #[serde(default)]
    pub intent: f64,
    /// A goggle's adjustment, when a goggle was applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goggle: Option<f64>,
    /// The final score the results are ordered by: fusion's
    /// `share · rrf / rrf_max + (1 − share) · intent` (0–1), or, once a
    /// goggle has ranked the results (`goggle` is `Some`), the goggle's
    /// final score on its own scale (see [`crate::goggles`]).
    #[serde(rename = "final")]
    pub final_score: f64,
}

/// A result that was folded into another as a near-duplicate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NearDuplicate {
    /// Its canonical URL.
    pub url: String,
    /// The URL as the engine returned it.
    pub original_url: Text,
    /// Its title.
    pub title: Text,
    /// Hamming distance of its SimHash from the representative's.
    pub distance: u32,
    /// The engine hits it had.
    pub sources: Vec<SourceHit>,
}

/// One fused search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    /// The canonical URL (the merge key).
    pub url: String,
    /// The URL as first returned, for display (shared with the hit).
    pub original_url: Text,
    /// The longest title any source gave (shared with that hit).
    pub title: Text,
    /// The longest snippet any source gave (shared with that hit). A
    /// diagnostic, never evidence.
    pub snippet: Text,
    /// Publication date, when any source gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// The registrable domain (`example.co.uk`).
    pub domain: String,
    /// Every engine hit merged into this result.
    pub sources: Vec<SourceHit>,
    /// Every score component.
    pub scores: Scores,
    /// The rules behind the scores (authority rule, freshness basis, keyword
    /// terms found), when fusion computed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_basis: Option<crate::fusion::ScoreBasis>,
    /// Results folded into this one as near-duplicates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub near_duplicates: Vec<NearDuplicate>,
    /// Flags for people and models, e.g. `[T1 vs community]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// Where the result came from and what may be done with it.
    pub provenance: Provenance,
}

impl SearchResult {
    /// The distinct engines that returned this result, in first-seen order.
    pub fn consensus_engines(&self) -> Vec<&str> {
        let mut seen: Vec<&str> = Vec::new();
        for s in &self.sources {
            if !seen.contains(&&*s.engine) {
                seen.push(&s.engine);
            }
        }
        seen
    }
}
