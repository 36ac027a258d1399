//! Result fusion: the engine calls of one search become one ranked list of
//! [`SearchResult`]s, every score explained.
//!
//! [`fuse`] is a plain pipeline of five steps, each in its own module:
//!
//! 1. **keys** (`keys`): every hit's merge key, its canonical URL
//!    ([`crate::canonical::canonical_url`]). A hit whose URL has no
//!    canonical form is listed in [`Fused::unresolvable`] with the reason —
//!    never dropped silently.
//! 2. **group** (`group`): hits with the same key (and, for login hits
//!    that may not merge, the same isolation) form one group, in source
//!    order: best rank, then engine and sub-query name, then content, never
//!    input position.
//! 3. **build** (`build`): each group becomes a result, from separate
//!    components:
//!    - *RRF*: for each (engine, sub-query) pair that returned the URL, its
//!      best rank `r` adds `w_engine / (k + r)`; `k` defaults to 60 and the
//!      engine weights to [`DEFAULT_ENGINE_WEIGHTS`];
//!    - *text*: the original URL of the best-ranked hit, the longest title
//!      and the longest snippet (ties: the lexicographically smaller);
//!    - *date*: from the best-ranked hit whose date parses (RFC 3339 UTC; a
//!      raw unparseable date is kept only when no date parses);
//!    - *provenance*: a result merged from any login-partition hit carries
//!      that login provenance (the best-ranked login hit's), so login data
//!      is never laundered into a public result; it is flagged
//!      `dual-sourced` when public hits were merged too. Login hits whose
//!      provenance says `merge_with_public_ok: false` stay separate results;
//!    - *scores*: `keyword` is the share of [`Analyzer::KEYWORD`] terms of the query
//!      among the title and snippet tokens (CJK bigrams count; 0.5 when the
//!      query has no terms); `freshness` is [`crate::freshness::freshness`];
//!      `authority` is [`crate::authority::AuthorityScorer::score`] with the
//!      domain boosts.
//! 4. **order** (`order`): `intent = (w_k·keyword + w_f·freshness +
//!    w_a·authority) / (w_k + w_f + w_a)` with the plan's [`Weights`], and
//!
//!    ```text
//!    final = s · rrf / rrf_max + (1 − s) · intent      (s = rank_share, default 0.5)
//!    ```
//!
//!    where `rrf_max` is the largest `rrf` of this fusion. Results are
//!    ordered by one total comparison: `final` descending, `rrf`
//!    descending, best rank, canonical URL, then mergeable before isolated.
//! 5. **cluster** (`cluster`): near-duplicates ([`crate::near_dup`]) are
//!    folded into the best-ordered member of each cluster.
//!
//! Every component is kept in [`Scores`] (`rrf`, `keyword`, `freshness`,
//! `authority`, `intent`, `final`) and the rules behind them in
//! [`SearchResult::score_basis`].
//!
//! **Cost.** Linear in the hits, on the calling thread: the keys go into one
//! string arena (no allocation per hit), each result's title and snippet
//! are tokenised once (the fingerprint's tokens also find the query terms),
//! authority is cached by host, and a result shares its title, snippet and
//! URLs with the hits they come from ([`Text`]).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::authority::AuthorityRule;
use crate::canonical::CanonicalOptions;
use crate::freshness::FreshnessBasis;
use crate::near_dup::{MAX_THRESHOLD, NearDupOptions};
use crate::query::Weights;
use crate::response::{DropReason, DroppedRow, EngineCall};
use crate::result::SearchResult;
#[cfg(doc)]
use crate::{result::Scores, text::Text};
use ferret_text::Analyzer;

mod build;
mod cluster;
mod group;
mod keys;
mod order;
mod weights;

pub use weights::{DEFAULT_ENGINE_WEIGHTS, EngineWeights, GENERIC_ENGINE_WEIGHT};

/// The default RRF constant `k`.
pub const DEFAULT_RRF_K: f64 = 60.0;

/// The default share of the rank term in the final score.
pub const DEFAULT_RANK_SHARE: f64 = 0.5;

/// The intent weights used when none are given: exploratory's (keyword 0.3,
/// freshness 0.2, authority 0.5), the default intent's.
pub const DEFAULT_WEIGHTS: Weights = Weights::new(0.3, 0.2, 0.5);

/// Everything [`fuse`] needs besides the calls.
#[derive(Debug, Clone, PartialEq)]
pub struct FusionOptions {
    /// The user's query (the first query of the plan); keyword coverage is
    /// measured against its terms.
    pub query: String,
    /// Intent weights of the intent score.
    pub weights: Weights,
    /// RRF engine weights.
    pub engine_weights: EngineWeights,
    /// Domains whose authority gets [`crate::authority::DOMAIN_BOOST`].
    pub domain_boosts: Vec<String>,
    /// The RRF constant `k` (> 0).
    pub rrf_k: f64,
    /// Share of the normalised RRF term in the final score, 0–1 (the rest
    /// is the intent score).
    pub rank_share: f64,
    /// Canonical URL options (the merge key).
    pub canonical: CanonicalOptions,
    /// Near-duplicate clustering; `None` turns it off.
    pub near_dup: Option<NearDupOptions>,
    /// "Now" for freshness (injectable so results are reproducible).
    pub now: DateTime<Utc>,
}

impl FusionOptions {
    /// Options for `query` with every default: exploratory weights, the
    /// default engine weights, no boosts, k = 60, rank share 0.5, default canonical
    /// and near-duplicate options, and the current time.
    pub fn new(query: impl Into<String>) -> Self {
        FusionOptions {
            query: query.into(),
            weights: DEFAULT_WEIGHTS,
            engine_weights: EngineWeights::default(),
            domain_boosts: Vec::new(),
            rrf_k: DEFAULT_RRF_K,
            rank_share: DEFAULT_RANK_SHARE,
            canonical: CanonicalOptions::default(),
            near_dup: Some(NearDupOptions::default()),
            now: Utc::now(),
        }
    }

    /// Set the intent weights.
    pub fn with_weights(mut self, weights: Weights) -> Self {
        self.weights = weights;
        self
    }

    /// Set the engine weights.
    pub fn with_engine_weights(mut self, engine_weights: EngineWeights) -> Self {
        self.engine_weights = engine_weights;
        self
    }

    /// Set the domain boosts.
    pub fn with_domain_boosts<S: Into<String>>(
        mut self,
        domains: impl IntoIterator<Item = S>,
    ) -> Self {
        self.domain_boosts = domains.into_iter().map(Into::into).collect();
        self
    }

    /// Set the RRF constant.
    pub fn with_rrf_k(mut self, k: f64) -> Self {
        self.rrf_k = k;
        self
    }

    /// Set the rank share of the final score.
    pub fn with_rank_share(mut self, share: f64) -> Self {
        self.rank_share = share;
        self
    }

    /// Set the canonical URL options.
    pub fn with_canonical(mut self, canonical: CanonicalOptions) -> Self {
        self.canonical = canonical;
        self
    }

    /// Set (or with `None`, turn off) near-duplicate clustering.
    pub fn with_near_dup(mut self, near_dup: Option<NearDupOptions>) -> Self {
        self.near_dup = near_dup;
        self
    }

    /// Set "now".
    pub fn with_now(mut self, now: DateTime<Utc>) -> Self {
        self.now = now;
        self
    }
}

impl Default for FusionOptions {
    fn default() -> Self {
        FusionOptions::new("")
    }
}

/// The rules behind a result's scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreBasis {
    /// The authority rule that matched.
    pub authority_rule: AuthorityRule,
    /// The domain-boost entry that matched, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boosted_by: Option<String>,
    /// What the freshness score was based on.
    pub freshness: FreshnessBasis,
    /// Query terms found in title + snippet.
    pub keyword_terms_found: u32,
    /// Query terms looked for.
    pub keyword_terms: u32,
    /// The best (lowest) rank any engine gave the result.
    pub best_rank: u32,
}

/// A hit whose URL has no canonical form, with why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnresolvableHit {
    /// The engine that returned it.
    pub engine: String,
    /// The sub-query it answered.
    pub sub_query: String,
    /// Its rank.
    pub rank: u32,
    /// 0-based position of the hit in its call's hits.
    pub index: usize,
    /// The URL as given.
    pub url: String,
    /// Why it has no canonical form.
    pub reason: String,
}

impl UnresolvableHit {
    /// As a row of the response's `dropped` list.
    pub fn to_dropped_row(&self) -> DroppedRow {
        DroppedRow {
            index: self.index,
            engine: Some(self.engine.clone()),
            url: Some(self.url.clone()),
            reason: DropReason::MissingOrInvalidUrl,
        }
    }
}

/// Counts that describe one fusion.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct FusionStats {
    /// Hits over all calls.
    pub input_hits: usize,
    /// Distinct merge keys (canonical URL, partition) before near-duplicate folding.
    pub merged: usize,
    /// Results folded into another as near-duplicates.
    pub near_duplicates: usize,
    /// The largest RRF score (the normaliser of the final score).
    pub rrf_max: f64,
}

/// What [`fuse`] returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Fused {
    /// Fused results, best first.
    pub results: Vec<SearchResult>,
    /// Hits whose URL has no canonical form.
    pub unresolvable: Vec<UnresolvableHit>,
    /// Options that were out of range and what was used instead.
    pub warnings: Vec<String>,
    /// Counts.
    pub stats: FusionStats,
}

/// Options checked and made usable, with a warning for each replacement.
struct Checked {
    k: f64,
    share: f64,
    weights: [f64; 3],
    near_dup: Option<NearDupOptions>,
}

fn check_options(o: &FusionOptions, warnings: &mut Vec<String>) -> Checked {
    let k = if o.rrf_k.is_finite() && o.rrf_k > 0.0 {
        o.rrf_k
    } else {
        warnings.push(format!(
            "rrf_k must be a positive number, not {}; used {DEFAULT_RRF_K}",
            o.rrf_k
        ));
        DEFAULT_RRF_K
    };
    let share = if (0.0..=1.0).contains(&o.rank_share) {
        o.rank_share
    } else {
        warnings.push(format!(
            "rank_share must be between 0 and 1, not {}; used {DEFAULT_RANK_SHARE}",
            o.rank_share
        ));
        DEFAULT_RANK_SHARE
    };
    let w = [o.weights.keyword, o.weights.freshness, o.weights.authority];
    let d = DEFAULT_WEIGHTS;
    let weights = if w.iter().all(|x| x.is_finite() && *x >= 0.0) && w.iter().sum::<f64>() > 0.0 {
        w
    } else {
        let defaults = [d.keyword, d.freshness, d.authority];
        warnings.push(format!(
            "intent weights must be non-negative with a positive sum, not {w:?}; used {defaults:?}"
        ));
        defaults
    };
    for (engine, weight) in &o.engine_weights.overrides {
        if !(weight.is_finite() && *weight >= 0.0) {
            warnings.push(format!(
                "engine weight of {engine:?} must be a non-negative number, not {weight}; used 0"
            ));
        }
    }
    let near_dup = o.near_dup.map(|mut nd| {
        if nd.threshold > MAX_THRESHOLD {
            warnings.push(format!(
                "near-duplicate threshold {} is above the supported {MAX_THRESHOLD}; used {MAX_THRESHOLD}",
                nd.threshold
            ));
            nd.threshold = MAX_THRESHOLD;
        }
        nd
    });
    Checked {
        k,
        share,
        weights,
        near_dup,
    }
}

/// Fuse engine calls into ranked results. See the module docs for every
/// step and formula. Never panics; out-of-range options are replaced by
/// defaults and reported in [`Fused::warnings`].
pub fn fuse(calls: &[EngineCall], options: &FusionOptions) -> Fused {
    let _span = tracing::debug_span!("fuse", calls = calls.len()).entered();
    let mut warnings = Vec::new();
    let checked = check_options(options, &mut warnings);
    let input_hits: usize = calls.iter().map(|c| c.response.hits.len()).sum();
    let infos = group::call_infos(calls, options);
    let terms = Analyzer::KEYWORD.terms(&options.query);

    let (keys, unresolvable) = keys::MergeKeys::compute(calls, options.canonical);
    let groups = group::group(calls, &infos, &keys);
    let (mut results, metas) =
        build::Builder::new(calls, &infos, options, checked.k, &terms).build_all(&groups);
    drop(groups);
    let rrf_max = order::score(&mut results, checked.weights, checked.share);
    let merged = results.len();
    let (results, fingerprints) = order::order(results, &metas);
    let results = cluster::cluster(results, &fingerprints, checked.near_dup.as_ref());

    let near_duplicates = merged - results.len();
    tracing::debug!(
        input_hits,
        merged,
        near_duplicates,
        unresolvable = unresolvable.len(),
        "fused"
    );
    Fused {
        results,
        unresolvable,
        warnings,
        stats: FusionStats {
            input_hits,
            merged,
            near_duplicates,
            rrf_max,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_options_are_replaced_and_reported() {
        let options = FusionOptions::new("q")
            .with_rrf_k(-1.0)
            .with_rank_share(2.0)
            .with_weights(Weights::new(0.0, 0.0, 0.0));
        let fused = fuse(&[], &options);
        assert_eq!(fused.warnings.len(), 3, "{:?}", fused.warnings);
        assert!(fused.results.is_empty());
    }
}
