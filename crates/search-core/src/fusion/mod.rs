//! Result fusion: the engine calls of one search become one ranked list of
//! [`SearchResult`]s, every score explained.
//!
//! [`fuse`] runs these steps:
//!
//! 1. **Merge by canonical URL** ([`crate::canonical::canonical_url`]).
//!    Every engine hit is kept as a [`SourceHit`]; the result keeps the
//!    original URL of its best-ranked hit, the longest title and the longest
//!    snippet (ties: the lexicographically smaller), and a publication date
//!    from the best-ranked hit whose date parses (normalised to RFC 3339 UTC;
//!    a raw unparseable date is kept only when no date parses). A hit whose
//!    URL has no canonical form is listed in [`Fused::unresolvable`] with the
//!    reason — never dropped silently.
//! 2. **Weighted reciprocal-rank fusion**: for each (engine, sub-query) pair
//!    that returned the URL, that engine's best rank `r` of the URL in that
//!    sub-query adds `w_engine / (k + r)`; `k` defaults to 60 and engine
//!    weights to argo's table ([`DEFAULT_ENGINE_WEIGHTS`]).
//! 3. **Intent score** `intent = (w_k·keyword + w_f·freshness +
//!    w_a·authority) / (w_k + w_f + w_a)` with the plan's [`Weights`] (the
//!    division only matters for weights that do not already sum to 1).
//!    `keyword` is the share of [`query_terms`] of the query found among the
//!    title and snippet tokens (CJK bigrams count; 0.5 when the query has no
//!    terms); `freshness` is [`crate::freshness::freshness`]; `authority` is
//!    [`crate::authority::AuthorityScorer::score`] with the domain boosts.
//! 4. **Final score**:
//!
//!    ```text
//!    final = s · rrf / rrf_max + (1 − s) · intent      (s = rank_share, default 0.5)
//!    ```
//!
//!    where `rrf_max` is the largest `rrf` of this fusion, so the result most
//!    engines agree on scores 1 on the rank half. Order: `final` descending,
//!    then `rrf` descending, then best rank ascending, then canonical URL
//!    ascending (then mergeable hits before login hits that may not merge):
//!    a total order, so the output never depends on the order of the calls.
//!    Within a result, sources are ordered by rank, engine and sub-query
//!    name, then content, never by input position.
//! 5. **Near-duplicates** ([`crate::near_dup`]) are folded into the
//!    best-scored member of each cluster.
//!
//! Every component is kept in [`Scores`] (`rrf`, `keyword`, `freshness`,
//! `authority`, `intent`, `final`) and the rules behind them in
//! [`SearchResult::score_basis`].
//!
//! **Provenance.** Every source hit carries its engine answer's provenance.
//! A result merged from any login-partition hit carries that
//! login provenance (the best-ranked login hit's), so login data is never
//! laundered into a public result; such a result also gets the flag
//! `dual-sourced` when public hits were merged too. Login hits whose
//! provenance says `merge_with_public_ok: false` are not merged with
//! anything else: they stay separate results with the same canonical URL.
//!
//! **Cost.** Work is linear in the hits: the canonical URLs are written into
//! one string arena with a hash of each (no allocation per hit), and one
//! hash-table probe per hit with that hash groups them. Each result's
//! SimHash takes one pass over its title and snippet (ASCII text is split
//! into words 64 bytes at a time from bit masks of letters and digits, and
//! a word of up to 16 bytes is hashed with one multiply), and the query
//! terms are found among those tokens; without near-duplicate clustering no
//! fingerprint is made and the terms are looked for with vectorised
//! substring searches instead, each occurrence checked to be a whole token
//! (`term_match`). Then one probe of a compact per-thread cache of
//! authority by host. Compact keys of the merged results are sorted, the
//! results are put in that order in place, and the near-duplicate band
//! index finds the candidate pairs. Plain `http(s)://host/path` URLs, with
//! a query of plain `key=value` pairs or none, get their canonical form by
//! slicing (a tested fast path of `canonical_url`). A result shares its
//! title, snippet and URLs with the hits they come from ([`Text`]), and the
//! engine and sub-query names of its sources with the calls: none of them is
//! copied.
//!
//! **Threads** ([`FusionOptions::threads`]): a large fusion canonicalises
//! the URLs on several threads, groups the hits in as many shards of the
//! merge keys (by hash, one thread each), builds the results on a pool of
//! as many threads (rayon; each result is written once, in place, in the one
//! list, never gathered from the threads' own lists), sorts the order in
//! parts that are then merged, and finds the near-duplicate candidate pairs
//! while the results are put in order. The output is the same for any
//! thread count.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::authority::{
    AuthorityRule, AuthorityScorer, normalised_host_of, registrable_domain_of_normalised,
};
use crate::canonical::CanonicalOptions;
use crate::engine::EngineHit;
use crate::freshness::{FreshnessBasis, freshness, parse_date};
use crate::near_dup::{
    Fingerprint, FingerprintBuilder, NearDupOptions, candidate_pairs, cluster_pairs,
};
use crate::provenance::Provenance;
use crate::query::Weights;
use crate::response::{DropReason, DroppedRow, EngineCall};
use crate::result::{Scores, SearchResult, SourceHit};
use crate::text::Text;
use crate::tokenize::query_terms;

mod canonical_fast;
mod host_cache;
mod merge_keys;
mod term_match;

use host_cache::HostCache;
use merge_keys::MergeKeys;
use term_match::TermMatcher;

/// The default RRF constant `k`.
pub const DEFAULT_RRF_K: f64 = 60.0;

/// The default share of the rank term in the final score.
pub const DEFAULT_RANK_SHARE: f64 = 0.5;

/// The intent weights used when none are given: exploratory's (keyword 0.3,
/// freshness 0.2, authority 0.5), the default intent's.
pub const DEFAULT_WEIGHTS: Weights = Weights::new(0.3, 0.2, 0.5);

/// The weight of an engine not in [`DEFAULT_ENGINE_WEIGHTS`].
pub const GENERIC_ENGINE_WEIGHT: f64 = 1.0;

/// argo's RRF engine weights, by engine name (see [`EngineWeights::weight`]
/// for how names match).
pub const DEFAULT_ENGINE_WEIGHTS: &[(&str, f64)] = &[
    ("wikipedia", 1.4),
    ("arxiv", 1.3),
    ("academic", 1.3),
    ("scholar", 1.3),
    ("semanticscholar", 1.3),
    ("openalex", 1.3),
    ("pubmed", 1.3),
    ("crossref", 1.3),
    ("github", 1.2),
    ("pypi", 1.2),
    ("npm", 1.2),
    ("crates", 1.2),
    ("mdn", 1.2),
    ("stackoverflow", 1.1),
    ("hackernews", 0.8),
    ("zhihu", 0.8),
    ("v2ex", 0.8),
    ("twitter", 0.7),
    ("reddit", 0.7),
    ("xiaohongshu", 0.7),
    ("bilibili", 0.7),
    ("weibo", 0.7),
];

/// RRF weights per engine: argo's table with per-engine overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineWeights {
    /// Overrides by exact engine name (lowercased).
    pub overrides: BTreeMap<String, f64>,
}

impl EngineWeights {
    /// The default table with no overrides.
    pub fn new() -> Self {
        EngineWeights::default()
    }

    /// Override one engine's weight.
    pub fn with(mut self, engine: impl AsRef<str>, weight: f64) -> Self {
        self.overrides
            .insert(engine.as_ref().to_ascii_lowercase(), weight);
        self
    }

    /// The weight of `engine`: an override for its exact name; else the
    /// table entry for its name with separators removed (`hacker_news` →
    /// `hackernews`); else the entry of its first name segment that has one
    /// (`wikipedia-zh` → `wikipedia`, `crates_io` → `crates`); else 1.0.
    pub fn weight(&self, engine: &str) -> f64 {
        let lower = engine.trim().to_ascii_lowercase();
        if let Some(w) = self.overrides.get(&lower) {
            return *w;
        }
        let lookup = |name: &str| {
            DEFAULT_ENGINE_WEIGHTS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, w)| *w)
        };
        let joined: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
        if let Some(w) = lookup(&joined) {
            return w;
        }
        lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|s| !s.is_empty())
            .find_map(lookup)
            .unwrap_or(GENERIC_ENGINE_WEIGHT)
    }
}

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
    /// Threads for canonicalising URLs, grouping hits, building results,
    /// sorting them and finding near-duplicate candidates: 1 (the default)
    /// keeps fusion on the calling thread; 0 uses the machine's parallelism,
    /// up to 8; any other number that many. Threads are only started for
    /// fusions of 4,000 hits or more (2,000 hits per thread; the merge keys
    /// are split into one shard per thread by hash, so each thread gets
    /// about as many hits; below that, starting threads costs more than
    /// they save), the calling thread does one part of each step except building
    /// the results (a pool of that many threads builds them while it
    /// waits), and the output is the same whatever the count. The default
    /// is 1 because on a machine whose cores are busy with other work (the
    /// usual case inside a search service) the extra threads measured
    /// slower than one (see `scripts/bench-fusion`).
    pub threads: usize,
}

impl FusionOptions {
    /// Options for `query` with every default: exploratory weights, argo's
    /// engine weights, no boosts, k = 60, rank share 0.5, default canonical
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
            threads: 1,
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

    /// Set the thread count (1: the calling thread only, the default; 0:
    /// automatic).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
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

#[derive(Clone, Copy)]
struct HitRef {
    call: u32,
    hit: u32,
    rank: u32,
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
    let weights = if w.iter().all(|x| x.is_finite() && *x >= 0.0) && w.iter().sum::<f64>() > 0.0 {
        w
    } else {
        warnings.push(format!(
            "intent weights must be non-negative with a positive sum, not {w:?}; used {:?}",
            [
                DEFAULT_WEIGHTS.keyword,
                DEFAULT_WEIGHTS.freshness,
                DEFAULT_WEIGHTS.authority
            ]
        ));
        [
            DEFAULT_WEIGHTS.keyword,
            DEFAULT_WEIGHTS.freshness,
            DEFAULT_WEIGHTS.authority,
        ]
    };
    for (engine, weight) in &o.engine_weights.overrides {
        if !(weight.is_finite() && *weight >= 0.0) {
            warnings.push(format!(
                "engine weight of {engine:?} must be a non-negative number, not {weight}; used 0"
            ));
        }
    }
    let near_dup = o.near_dup.map(|mut nd| {
        if nd.threshold > crate::near_dup::MAX_THRESHOLD {
            warnings.push(format!(
                "near-duplicate threshold {} is above the supported {}; used {}",
                nd.threshold,
                crate::near_dup::MAX_THRESHOLD,
                crate::near_dup::MAX_THRESHOLD
            ));
            nd.threshold = crate::near_dup::MAX_THRESHOLD;
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

/// Whether hits with this provenance must stay apart from every other hit.
fn isolated(p: &Provenance) -> bool {
    p.is_login() && !p.merge_with_public_ok
}

/// A provenance's fields as a sort key (the last tie-break between hits).
fn provenance_key(p: &Provenance) -> (bool, &str, &str, bool, bool, bool) {
    (
        p.is_login(),
        &*p.auth_partition,
        p.runtime.as_str(),
        p.login_state_used,
        p.cache_eligible,
        p.merge_with_public_ok,
    )
}

/// What fusion needs to know about each call, computed once.
struct CallInfo {
    /// Position of (engine, sub-query) among the distinct pairs sorted by
    /// name, so pairs compare as integers in name order.
    pair: u32,
    /// The engine's RRF weight.
    weight: f64,
    isolated: bool,
    /// The engine and sub-query names every [`SourceHit`] of the call shares.
    engine: Arc<str>,
    sub_query: Arc<str>,
}

fn call_infos(calls: &[EngineCall], options: &FusionOptions) -> Vec<CallInfo> {
    let mut pairs: Vec<(&str, &str)> = calls
        .iter()
        .map(|c| (c.engine.as_str(), c.sub_query.as_str()))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut weights: FxHashMap<&str, f64> = FxHashMap::default();
    calls
        .iter()
        .map(|c| {
            let pair = pairs
                .binary_search(&(c.engine.as_str(), c.sub_query.as_str()))
                .unwrap_or_default() as u32;
            let weight = *weights.entry(c.engine.as_str()).or_insert_with(|| {
                let w = options.engine_weights.weight(&c.engine);
                if w.is_finite() && w >= 0.0 { w } else { 0.0 }
            });
            CallInfo {
                pair,
                weight,
                isolated: isolated(&c.response.provenance),
                engine: Arc::from(c.engine.as_str()),
                sub_query: Arc::from(c.sub_query.as_str()),
            }
        })
        .collect()
}

/// Fuse engine calls into ranked results. See the module docs for every
/// step and formula. Never panics; out-of-range options are replaced by
/// defaults and reported in [`Fused::warnings`].
pub fn fuse(calls: &[EngineCall], options: &FusionOptions) -> Fused {
    let _span = tracing::debug_span!("fuse", calls = calls.len()).entered();
    let mut warnings = Vec::new();
    let checked = check_options(options, &mut warnings);
    let infos = call_infos(calls, options);

    // 1. Merge keys: every hit's canonical URL (on several threads for a
    // large fusion), read back in hit order.
    let input_hits: usize = calls.iter().map(|c| c.response.hits.len()).sum();
    let shards = thread_count(options.threads, input_hits);
    let keys = MergeKeys::compute(calls, options.canonical, shards);
    let mut unresolvable = Vec::new();
    if keys.any_invalid() {
        keys.visit(calls, |ci, hi, key, _| {
            if let Err(reason) = key {
                let (call, hit) = (&calls[ci], &calls[ci].response.hits[hi]);
                unresolvable.push(UnresolvableHit {
                    engine: call.engine.clone(),
                    sub_query: call.sub_query.clone(),
                    rank: rank_of(hit, hi),
                    index: hi,
                    url: hit.url.to_string(),
                    reason: reason.to_string(),
                });
            }
        });
        unresolvable.sort_by(|a: &UnresolvableHit, b| {
            (&a.engine, &a.sub_query, a.rank, a.index, &a.url).cmp(&(
                &b.engine,
                &b.sub_query,
                b.rank,
                b.index,
                &b.url,
            ))
        });
    }

    // 2–3. Group the hits by merge key and build each result with its RRF
    // and component scores. The keys are split into shards by hash, one
    // per thread, for grouping; the groups, appended in shard order, are
    // then built on all the threads. Each result is independent of the
    // others, so the output is the same for any number of shards.
    let shared = Shared {
        calls,
        infos: &infos,
        options,
        k: checked.k,
        terms: query_terms(&options.query),
        scorer: AuthorityScorer::new(&options.domain_boosts),
    };
    let groups = if shards <= 1 {
        group_shard(&shared, &keys, 0, 1)
    } else {
        std::thread::scope(|scope| {
            let (shared, keys) = (&shared, &keys);
            // Shard 0 is grouped on the calling thread, the others on their
            // own.
            let handles: Vec<_> = (1..shards)
                .map(|s| scope.spawn(move || group_shard(shared, keys, s, shards)))
                .collect();
            let mut all = group_shard(shared, keys, 0, shards);
            for h in handles {
                all.append(crate::workers::join(h));
            }
            all
        })
    };
    let (mut results, metas) = build_all(&shared, &groups, shards);
    drop(groups);
    drop(keys);

    // 4. Final score and order.
    let rrf_max = results.iter().map(|r| r.scores.rrf).fold(0.0, f64::max);
    let [wk, wf, wa] = checked.weights;
    let wsum = wk + wf + wa;
    for r in &mut results {
        let s = &mut r.scores;
        s.intent = (wk * s.keyword + wf * s.freshness + wa * s.authority) / wsum;
        let rank_part = if rrf_max > 0.0 { s.rrf / rrf_max } else { 0.0 };
        s.final_score = checked.share * rank_part + (1.0 - checked.share) * s.intent;
    }
    // Sort compact keys, not the results themselves. Many results tie on
    // the scores and the best rank; the first bytes of the URL (after the
    // scheme every canonical URL shares, taken when the result was built)
    // settle most of those ties without reading the results' URLs.
    let all_https = metas.iter().all(|m| m.https);
    let order: Vec<OrderKey> = results
        .iter()
        .zip(&metas)
        .enumerate()
        .map(|(i, (r, m))| {
            (
                u128::from(descending(r.scores.final_score)) << 64
                    | u128::from(descending(r.scores.rrf)),
                m.best_rank,
                if all_https {
                    m.url_tail
                } else {
                    url_prefix(&r.url, 0)
                },
                i as u32,
            )
        })
        .collect();
    let compare = |a: &OrderKey, b: &OrderKey| {
        (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)).then_with(|| {
            let (i, j) = (a.3 as usize, b.3 as usize);
            compare_built(&results[i], &metas[i], &results[j], &metas[j])
        })
    };
    let merged = results.len();
    // The order is total, so sorting in parts and merging them gives the
    // one order.
    let mut perm = sorted_positions(order, shards, &compare);
    let fps: Vec<Fingerprint> = perm
        .iter()
        .map(|&i| metas[i as usize].fingerprint)
        .collect();
    drop(metas);
    // 5. Near-duplicates. With threads, the candidate pairs (which need
    // only the fingerprints) are found while the results are put in order.
    let results = match &checked.near_dup {
        Some(nd) if shards > 1 => {
            let (results, pairs) = std::thread::scope(|scope| {
                let fps = &fps;
                let pairs = scope.spawn(move || candidate_pairs(merged, fps, nd, shards - 1));
                permute(&mut results, &mut perm);
                (results, crate::workers::join(pairs))
            });
            cluster_pairs(results, &pairs, nd)
        }
        Some(nd) => {
            permute(&mut results, &mut perm);
            crate::near_dup::cluster_with(results, &fps, nd)
        }
        None => {
            permute(&mut results, &mut perm);
            results
        }
    };
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

struct Built {
    result: SearchResult,
    meta: Meta,
}

/// What ordering and clustering need besides a result.
#[derive(Clone, Copy)]
struct Meta {
    fingerprint: Fingerprint,
    best_rank: u32,
    /// Login hits that may not merge with public ones (the merge key's
    /// second half; with the URL it makes the order total).
    isolated: bool,
    /// Whether the URL starts with `https://`.
    https: bool,
    /// [`url_prefix`] of the URL after `https://` (when it starts so).
    url_tail: u128,
}

fn compare_built(a: &SearchResult, ma: &Meta, b: &SearchResult, mb: &Meta) -> Ordering {
    b.scores
        .final_score
        .total_cmp(&a.scores.final_score)
        .then_with(|| b.scores.rrf.total_cmp(&a.scores.rrf))
        .then_with(|| ma.best_rank.cmp(&mb.best_rank))
        .then_with(|| a.url.cmp(&b.url))
        .then_with(|| ma.isolated.cmp(&mb.isolated))
}

/// The scheme prefix of (nearly) every canonical URL.
const HTTPS: &str = "https://";

/// What results are ordered by: final score then RRF (both descending, as
/// one number), best rank, the first URL bytes, then (ties on all of
/// those) the result at the position. Integers, so that a comparison is a
/// few instructions.
type OrderKey = (u128, u32, u128, u32);

/// `x` as a number that orders as [`f64::total_cmp`] does, reversed: `a`
/// before `b` in `total_cmp` is `descending(a) > descending(b)`.
fn descending(x: f64) -> u64 {
    let bits = x.to_bits();
    // Negative values (sign bit set) have their other bits flipped, as
    // `total_cmp` does, and the sign bit flipped to put them first.
    let ordered = bits ^ (((bits as i64) >> 63) as u64 | 1 << 63);
    !ordered
}

/// The positions (`.3`) of `keys` in the order of `compare`, a total
/// order: on one thread a sort; on more, each thread sorts a part and the
/// sorted parts are merged.
fn sorted_positions(
    mut keys: Vec<OrderKey>,
    threads: usize,
    compare: &(impl Fn(&OrderKey, &OrderKey) -> Ordering + Sync),
) -> Vec<u32> {
    if threads <= 1 || keys.len() < 2 * MIN_HITS_PER_THREAD {
        // Positions are sorted, not the keys: moving four bytes instead
        // of a whole key.
        let mut positions: Vec<u32> = (0..keys.len() as u32).collect();
        positions.sort_unstable_by(|&a, &b| compare(&keys[a as usize], &keys[b as usize]));
        return positions;
    }
    let per = keys.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut parts = keys.chunks_mut(per);
        let first = parts.next();
        let handles: Vec<_> = parts
            .map(|part| scope.spawn(move || part.sort_unstable_by(compare)))
            .collect();
        // The first part is sorted on the calling thread.
        if let Some(part) = first {
            part.sort_unstable_by(compare);
        }
        handles.into_iter().for_each(crate::workers::join);
    });
    // A k-way merge of the sorted parts (k is at most MAX_THREADS, so the
    // smallest head is found by a scan).
    let mut heads: Vec<&[OrderKey]> = keys.chunks(per).collect();
    let mut out = Vec::with_capacity(keys.len());
    loop {
        let mut best: Option<usize> = None;
        for (p, head) in heads.iter().enumerate() {
            if let Some(k) = head.first()
                && best.is_none_or(|b| compare(k, &heads[b][0]) == Ordering::Less)
            {
                best = Some(p);
            }
        }
        let Some(b) = best else {
            break;
        };
        out.push(heads[b][0].3);
        heads[b] = &heads[b][1..];
    }
    out
}

/// The 16 bytes of `url` from `skip` as a big-endian number, zero-padded:
/// two URLs whose prefixes differ compare as their prefixes do.
fn url_prefix(url: &str, skip: usize) -> u128 {
    let mut bytes = [0u8; 16];
    let tail = url.as_bytes().get(skip..).unwrap_or_default();
    let n = tail.len().min(16);
    bytes[..n].copy_from_slice(&tail[..n]);
    u128::from_be_bytes(bytes)
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

/// The longest of several texts by characters; ties go to the
/// lexicographically smaller text. A candidate with fewer bytes than the
/// current text has characters cannot be longer, and is not read.
struct Longest<'a> {
    text: &'a Text,
    chars: usize,
}

impl<'a> Longest<'a> {
    fn new(text: &'a Text) -> Self {
        Longest {
            text,
            chars: text.chars().count(),
        }
    }

    fn offer(&mut self, candidate: &'a Text) {
        if candidate.len() < self.chars {
            return;
        }
        let chars = candidate.chars().count();
        if chars > self.chars || (chars == self.chars && candidate < self.text) {
            self.text = candidate;
            self.chars = chars;
        }
    }
}

/// What every result of one fusion needs, read-only (shared by threads).
struct Shared<'a> {
    calls: &'a [EngineCall],
    infos: &'a [CallInfo],
    options: &'a FusionOptions,
    k: f64,
    terms: Vec<String>,
    scorer: AuthorityScorer,
}

/// Fewest hits per thread worth a thread of its own.
const MIN_HITS_PER_THREAD: usize = 2_000;

/// At most this many threads, whatever the machine has.
const MAX_THREADS: usize = 8;

fn thread_count(requested: usize, hits: usize) -> usize {
    let wanted = if requested == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
    } else {
        requested
    };
    wanted.min(hits / MIN_HITS_PER_THREAD).max(1)
}

/// The shard of a merge key's hash among `shards` (from bits the hash
/// table of a shard does not index by).
fn shard_of(hash: u64, shards: usize) -> usize {
    ((hash >> 32) as usize) % shards.max(1)
}

/// A hit's rank: as the engine gave it, else its 1-based position.
fn rank_of(hit: &EngineHit, index: usize) -> u32 {
    if hit.rank == 0 {
        u32::try_from(index + 1).unwrap_or(u32::MAX)
    } else {
        hit.rank
    }
}

/// Group the hits whose merge key falls in `shard`, each group's hits in
/// source order.
fn group_shard<'k>(
    shared: &Shared<'_>,
    keys: &'k MergeKeys,
    shard: usize,
    shards: usize,
) -> Groups<'k> {
    let calls = shared.calls;
    let expected = calls
        .iter()
        .map(|c| c.response.hits.len())
        .sum::<usize>()
        .div_ceil(shards.max(1));
    // Group ids by merge key (canonical URL and isolation flag); the table
    // holds ids and is probed with the key's precomputed hash.
    let mut table: HashTable<u32> = HashTable::with_capacity(expected);
    let mut group_keys: Vec<(&str, bool, u64)> = Vec::with_capacity(expected);
    let mut grouped: Vec<(u32, HitRef)> = Vec::with_capacity(expected);
    keys.visit(calls, |ci, hi, key, hash| {
        let Ok(key) = key else {
            return;
        };
        if shards > 1 && shard_of(hash, shards) != shard {
            return;
        }
        let iso = shared.infos[ci].isolated;
        let hash = if iso { hash ^ ISOLATED_SALT } else { hash };
        let group = match table.find(hash, |&g| {
            let (k, i, _) = group_keys[g as usize];
            i == iso && k == key
        }) {
            Some(&g) => g,
            None => {
                let g = group_keys.len() as u32;
                group_keys.push((key, iso, hash));
                table.insert_unique(hash, g, |&g| group_keys[g as usize].2);
                g
            }
        };
        grouped.push((
            group,
            HitRef {
                call: ci as u32,
                hit: hi as u32,
                rank: rank_of(&calls[ci].response.hits[hi], hi),
            },
        ));
    });
    drop(table);
    let n_groups = group_keys.len();
    // Hits laid out group by group (a counting sort: no per-group vectors).
    let mut starts = vec![0u32; n_groups + 1];
    for (g, _) in &grouped {
        starts[*g as usize + 1] += 1;
    }
    for i in 0..n_groups {
        starts[i + 1] += starts[i];
    }
    let mut fill = starts.clone();
    let mut refs = vec![
        HitRef {
            call: 0,
            hit: 0,
            rank: 0
        };
        grouped.len()
    ];
    for (g, r) in grouped {
        refs[fill[g as usize] as usize] = r;
        fill[g as usize] += 1;
    }
    drop(fill);
    for g in 0..n_groups {
        let group = &mut refs[starts[g] as usize..starts[g + 1] as usize];
        if group.len() > 1 {
            group.sort_unstable_by(|a, b| compare_refs(calls, shared.infos, a, b));
        }
    }
    Groups {
        keys: group_keys.into_iter().map(|(key, _, _)| key).collect(),
        starts,
        hits: refs,
    }
}

/// The hits of some merge keys, grouped: group `g` has the key `keys[g]`
/// and the hits `hits[starts[g]..starts[g + 1]]`.
struct Groups<'k> {
    keys: Vec<&'k str>,
    starts: Vec<u32>,
    hits: Vec<HitRef>,
}

impl<'k> Groups<'k> {
    /// `self` followed by `other`.
    fn append(&mut self, other: Groups<'k>) {
        let base = self.starts.last().copied().unwrap_or(0);
        self.keys.extend(other.keys);
        self.starts
            .extend(other.starts.iter().skip(1).map(|s| s + base));
        self.hits.extend(other.hits);
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// Group `g`'s key and hits.
    fn group(&self, g: usize) -> (&'k str, &[HitRef]) {
        let (start, end) = (self.starts[g] as usize, self.starts[g + 1] as usize);
        (self.keys[g], &self.hits[start..end])
    }
}

/// Build the result of every group, in group order: on the calling thread,
/// or on a pool of `threads` threads writing the results in place. When no
/// pool can be started (the system refuses new threads), the calling thread
/// builds them all: the output is the same, only slower.
fn build_all(
    shared: &Shared<'_>,
    groups: &Groups<'_>,
    threads: usize,
) -> (Vec<SearchResult>, Vec<Meta>) {
    let n = groups.len();
    let mut results = Vec::with_capacity(n);
    let mut metas = Vec::with_capacity(n);
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("ferret-fuse-{i}"))
                .build()
                .ok()
        })
        .flatten();
    match pool {
        Some(pool) => pool.install(|| {
            // A few parts per thread, so that a thread done early can take
            // over part of another's work; each part starts its own
            // context (host cache and fingerprint buffers).
            (0..n)
                .into_par_iter()
                .with_min_len(n.div_ceil(threads * 4).max(1))
                .map_init(
                    || BuildContext::new(shared, 0),
                    |ctx, g| {
                        let (key, hits) = groups.group(g);
                        let b = ctx.build(hits, key);
                        (b.result, b.meta)
                    },
                )
                .unzip_into_vecs(&mut results, &mut metas);
        }),
        None => {
            // The host cache sized for a host per result, as most are in a
            // small fusion.
            let mut ctx = BuildContext::new(shared, n.min(4096));
            for g in 0..n {
                let (key, hits) = groups.group(g);
                let b = ctx.build(hits, key);
                results.push(b.result);
                metas.push(b.meta);
            }
        }
    }
    (results, metas)
}

/// Order of a group's hits: best rank first, then by engine and
/// sub-query name, then by content — never by input position, so equal
/// hits are interchangeable.
fn compare_refs(calls: &[EngineCall], infos: &[CallInfo], a: &HitRef, b: &HitRef) -> Ordering {
    let hit = |r: &HitRef| &calls[r.call as usize].response.hits[r.hit as usize];
    let (ha, hb) = (hit(a), hit(b));
    a.rank
        .cmp(&b.rank)
        .then_with(|| {
            infos[a.call as usize]
                .pair
                .cmp(&infos[b.call as usize].pair)
        })
        .then_with(|| ha.url.cmp(&hb.url))
        .then_with(|| ha.title.cmp(&hb.title))
        .then_with(|| ha.snippet.cmp(&hb.snippet))
        .then_with(|| ha.published_at.cmp(&hb.published_at))
        .then_with(|| {
            provenance_key(&calls[a.call as usize].response.provenance)
                .cmp(&provenance_key(&calls[b.call as usize].response.provenance))
        })
}

/// Mixed into the hash of an isolated hit's key, so that it and a
/// mergeable hit of the same URL rarely share a probe sequence.
const ISOLATED_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// Per-thread state for building results.
struct BuildContext<'a> {
    calls: &'a [EngineCall],
    infos: &'a [CallInfo],
    options: &'a FusionOptions,
    k: f64,
    terms: &'a [String],
    /// Finds the terms in titles and snippets.
    matcher: TermMatcher<'a>,
    scorer: &'a AuthorityScorer,
    /// Authority by host (many results share a host).
    hosts: HostCache,
    builder: FingerprintBuilder,
    found: Vec<bool>,
    rrf_terms: Vec<(u32, u32, f64)>,
}

impl<'a> BuildContext<'a> {
    /// A context whose host cache holds `hosts` hosts before it grows.
    fn new(shared: &'a Shared<'a>, hosts: usize) -> Self {
        BuildContext {
            calls: shared.calls,
            infos: shared.infos,
            options: shared.options,
            k: shared.k,
            terms: &shared.terms,
            matcher: TermMatcher::new(&shared.terms),
            scorer: &shared.scorer,
            hosts: HostCache::with_capacity(hosts),
            builder: FingerprintBuilder::default(),
            found: vec![false; shared.terms.len()],
            rrf_terms: Vec::new(),
        }
    }

    fn hit(&self, r: &HitRef) -> &EngineHit {
        &self.calls[r.call as usize].response.hits[r.hit as usize]
    }

    /// The result of one group of hits, in source order (best first).
    fn build(&mut self, refs: &[HitRef], canonical: &str) -> Built {
        let calls = self.calls;
        let hit = |r: &HitRef| &calls[r.call as usize].response.hits[r.hit as usize];
        let call = |r: &HitRef| &calls[r.call as usize];
        let best = refs[0];

        // RRF: each (engine, sub-query) pair's best rank, summed in pair order.
        self.rrf_terms.clear();
        self.rrf_terms.extend(refs.iter().map(|r| {
            let info = &self.infos[r.call as usize];
            (info.pair, r.rank, info.weight)
        }));
        self.rrf_terms
            .sort_unstable_by_key(|&(pair, rank, _)| (pair, rank));
        self.rrf_terms.dedup_by_key(|(pair, _, _)| *pair);
        let rrf: f64 = self
            .rrf_terms
            .iter()
            .map(|&(_, rank, weight)| weight / (self.k + f64::from(rank)))
            .sum();

        // The texts kept are shared with the hits they come from.
        let (mut title, mut snippet) = (&hit(&best).title, &hit(&best).snippet);
        if refs.len() > 1 {
            let (mut t, mut s) = (Longest::new(title), Longest::new(snippet));
            for r in &refs[1..] {
                t.offer(&hit(r).title);
                s.offer(&hit(r).snippet);
            }
            (title, snippet) = (t.text, s.text);
        }
        let now = self.options.now;
        let mut published_at = None;
        let mut raw_date = None;
        for r in refs.iter() {
            if let Some(p) = self
                .hit(r)
                .published_at
                .as_deref()
                .filter(|p| !p.trim().is_empty())
            {
                if let Some(d) = parse_date(p, now) {
                    published_at = Some(d.to_rfc3339_opts(SecondsFormat::Secs, true));
                    break;
                }
                raw_date.get_or_insert(p);
            }
        }
        let published_at = published_at.or_else(|| raw_date.map(str::to_string));

        let login_ref = refs.iter().find(|r| call(r).response.provenance.is_login());
        let mut flags = Vec::new();
        let provenance = match login_ref {
            Some(l) => {
                if refs.iter().any(|r| !call(r).response.provenance.is_login()) {
                    flags.push("dual-sourced".to_string());
                }
                call(l).response.provenance.clone().sealed()
            }
            None => call(&best).response.provenance.clone(),
        };

        let sources: Vec<SourceHit> = refs
            .iter()
            .map(|r| {
                let info = &self.infos[r.call as usize];
                SourceHit {
                    engine: Arc::clone(&info.engine),
                    rank: r.rank,
                    sub_query: Arc::clone(&info.sub_query),
                    url: hit(r).url.clone(),
                    provenance: call(r).response.provenance.clone(),
                }
            })
            .collect();

        // Component scores.
        let host = normalised_host_of(canonical);
        let (authority, domain) = match self.hosts.get(host.as_ref()) {
            Some((a, at)) => (a.clone(), host[at..].to_string()),
            None => {
                let domain = registrable_domain_of_normalised(&host);
                let a = self.scorer.score_normalised(&host, domain);
                // The registrable domain is a suffix of the host: keep
                // where it starts.
                let domain = domain.to_string();
                if host.ends_with(domain.as_str()) {
                    let at = host.len() - domain.len();
                    self.hosts.insert(&host, a.clone(), at);
                }
                (a, domain)
            }
        };
        let fresh = freshness(published_at.as_deref(), title, snippet, now);
        // With near-duplicate clustering the SimHash takes every token, and
        // the terms are found among them; without, no fingerprint is made
        // and the terms are searched for.
        let fingerprint = if self.options.near_dup.is_some() {
            let filter = self.matcher.filter();
            let visit = self.matcher.visitor(&mut self.found);
            self.builder.build_visiting(title, snippet, filter, visit)
        } else {
            self.matcher.find_in(&[title, snippet], &mut self.found);
            Fingerprint::default()
        };
        let (keyword, terms_found) = keyword_score(self.terms, &mut self.found, title, snippet);

        let https = canonical.starts_with(HTTPS);
        let url_tail = if https {
            url_prefix(canonical, HTTPS.len())
        } else {
            0
        };
        let result = SearchResult {
            url: canonical.to_string(),
            original_url: hit(&best).url.clone(),
            title: title.clone(),
            snippet: snippet.clone(),
            published_at,
            domain,
            sources,
            scores: Scores {
                rrf,
                keyword,
                freshness: fresh.score,
                authority: authority.score,
                intent: 0.0,
                goggle: None,
                final_score: 0.0,
            },
            score_basis: Some(ScoreBasis {
                authority_rule: authority.rule,
                boosted_by: authority.boosted_by,
                freshness: fresh.basis,
                keyword_terms_found: terms_found,
                keyword_terms: self.terms.len() as u32,
                best_rank: best.rank,
            }),
            near_duplicates: Vec::new(),
            flags,
            provenance,
        };
        Built {
            result,
            meta: Meta {
                fingerprint,
                best_rank: best.rank,
                isolated: self.infos[best.call as usize].isolated,
                https,
                url_tail,
            },
        }
    }
}

/// Share of `terms` marked `found` (a one-character CJK term, which never
/// appears as a bigram token, is looked for as a substring). 0.5 when there
/// are no terms.
fn keyword_score(terms: &[String], found: &mut [bool], title: &str, snippet: &str) -> (f64, u32) {
    if terms.is_empty() {
        return (0.5, 0);
    }
    for (i, term) in terms.iter().enumerate() {
        if !found[i] && term.chars().count() == 1 && crate::tokenize::has_cjk(term) {
            found[i] = title.contains(term.as_str()) || snippet.contains(term.as_str());
        }
    }
    let n = found.iter().filter(|f| **f).count();
    (n as f64 / terms.len() as f64, n as u32)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Longest, descending};
    use crate::text::Text;

    /// Any f64, the special values often.
    fn any_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            prop::num::f64::ANY,
            Just(0.0),
            Just(-0.0),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::NAN),
            Just(-f64::NAN),
            0.0..1.0f64,
        ]
    }

    proptest! {
        #[test]
        fn longest_is_the_most_chars_then_the_smallest_text(
            texts in prop::collection::vec("[a-cé异 ]{0,6}", 1..6)
        ) {
            let texts: Vec<Text> = texts.iter().map(Text::from).collect();
            let mut longest = Longest::new(&texts[0]);
            for t in &texts[1..] {
                longest.offer(t);
            }
            let expected = texts
                .iter()
                .min_by(|a, b| b.chars().count().cmp(&a.chars().count()).then(a.cmp(b)));
            prop_assert_eq!(Some(longest.text), expected);
            prop_assert_eq!(longest.chars, longest.text.chars().count());
        }

        #[test]
        fn descending_orders_as_total_cmp_reversed(a in any_f64(), b in any_f64()) {
            prop_assert_eq!(descending(a).cmp(&descending(b)), b.total_cmp(&a));
        }
    }
}
