//! Applying a goggle to fused results: the **FinalScore**, discards kept
//! aside, and the conflict flags.
//!
//! ```text
//! FinalScore = −position + GoggleWeight + SourceWeight
//! ```
//!
//! - `position`: the result's 1-based place in the fused order (before the
//!   goggle); ties of FinalScore go to the smaller position.
//! - `GoggleWeight` ([`goggle_weight`]): the weight table is BOOST +2,
//!   DOWNRANK −1, DISCARD −∞, none 0. Brave strengths map onto it
//!   linearly, so a bare `$boost` / `$downrank` is exactly BOOST /
//!   DOWNRANK: `boost=N` → `+2·N` ([`BOOST_WEIGHT_PER_STRENGTH`]),
//!   `downrank=N` → `−N` ([`DOWNRANK_WEIGHT_PER_STRENGTH`]), `discard` →
//!   removed (−∞), no match → 0. The built-in presets use bare actions.
//! - `SourceWeight` ([`SourceTier::weight`]): T1 10, T2 3, T3 1, T4 0.1.
//!   The tier is the result host's [`SourceTier`] (see [`crate::tier`]:
//!   a tier rule gives its tier, everything else goes by base authority
//!   score 0.9 / 0.8 / 0.6; the caller's domain boosts do not count).
//!
//! [`apply`] then:
//!
//! - records the weight in [`Scores::goggle`](crate::result::Scores) and
//!   FinalScore in `scores.final` (every other component is kept), and
//!   orders the kept results by FinalScore;
//! - moves discarded results out of `results` into [`Applied::discarded`]
//!   ([`Discarded`]: the result, its fused position, the instruction that
//!   dropped it) — never lost; `scores.goggle` of a discarded result stays
//!   `None` (−∞ has no JSON form). A discarded result keeps its
//!   near-duplicates; when **every** result is discarded, each gets
//!   [`FLAG_LOW_SOURCE_QUALITY`] (`[low source quality]`) and a warning says so;
//! - flags conflicts among the top [`CONFLICT_WINDOW`] results (see
//!   [`super::conflict`] for "disagree"): a T1 result beats any number of
//!   disagreeing lower-tier results — when one of them scored higher, the
//!   T1 result's FinalScore is lifted [`CONFLICT_LIFT`] above the best of
//!   them, so it is kept first and the order still follows `final`; a T1
//!   result that ≥ 2 T2 results disagree with gets
//!   [`FLAG_T1_VS_COMMUNITY`] (`[T1 vs community]`), as do those T2 results;
//!   two disagreeing T1 results both get [`FLAG_CONFLICT`] (`[conflict]`).
//!
//! ## The scale of `scores.final`
//!
//! Without a goggle, `scores.final` is fusion's score (rank part and intent
//! score, 0–1-ish). Once a goggle applies, `scores.final` **is the
//! FinalScore** above — a different scale (`−position + weight + tier
//! weight`, e.g. `−3 + 2 + 10 = 9`) — because the order must still follow
//! `final`, which every consumer (and the ordering checks) rely on. A result
//! says which scale its `final` is on: `scores.goggle` is `Some(weight)`
//! exactly when a goggle ranked it. Fusion's own final is not kept; it is
//! `rrf`/`intent` recombined by the plan's weights, both still in `scores`.
//! (A separate field for the FinalScore would leave `final` out of step
//! with the order of the results.)

use serde::{Deserialize, Serialize};

use super::conflict::Claim;
use super::{Goggle, Verdict};
use crate::result::SearchResult;
pub use crate::tier::SourceTier;

/// GoggleWeight per unit of `boost=N` strength (bare `$boost` = +2,
/// BOOST).
pub const BOOST_WEIGHT_PER_STRENGTH: f64 = 2.0;

/// GoggleWeight per unit of `downrank=N` strength, subtracted (bare
/// `$downrank` = −1, DOWNRANK).
pub const DOWNRANK_WEIGHT_PER_STRENGTH: f64 = 1.0;

/// Flag on discarded results when nothing but discarded results remain.
pub const FLAG_LOW_SOURCE_QUALITY: &str = "[low source quality]";

/// Flag on a T1 result that ≥ 2 disagreeing T2 results contradict (and on
/// those T2 results).
pub const FLAG_T1_VS_COMMUNITY: &str = "[T1 vs community]";

/// Flag on two T1 results that disagree.
pub const FLAG_CONFLICT: &str = "[conflict]";

/// How many of the best results are checked for conflicts (the final 10–50
/// results are re-ranked).
pub const CONFLICT_WINDOW: usize = 50;

/// How far above the best disagreeing lower-tier result a T1 result is
/// lifted when it scored below it.
pub const CONFLICT_LIFT: f64 = 0.01;

/// The GoggleWeight of a verdict: `+2·N`, `−N`, −∞ or 0 (module docs).
pub fn goggle_weight(verdict: &Verdict) -> f64 {
    match *verdict {
        Verdict::Neutral => 0.0,
        Verdict::Boost { strength, .. } => BOOST_WEIGHT_PER_STRENGTH * f64::from(strength),
        Verdict::Downrank { strength, .. } => -DOWNRANK_WEIGHT_PER_STRENGTH * f64::from(strength),
        Verdict::Discard { .. } => f64::NEG_INFINITY,
    }
}

/// `−position + goggle_weight + tier weight`.
pub fn final_score(position: usize, goggle_weight: f64, tier: SourceTier) -> f64 {
    -(position as f64) + goggle_weight + tier.weight()
}

/// A result a goggle discarded, with why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Discarded {
    /// The result as fusion produced it (flags may be added).
    pub result: SearchResult,
    /// Its 1-based position in the fused order.
    pub position: usize,
    /// The line of the instruction that discarded it.
    pub line: usize,
    /// That instruction as written (`$discard` for the generic discard of
    /// an allow-list).
    pub instruction: String,
}

/// What [`apply`] returns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Applied {
    /// Kept results in FinalScore order.
    pub results: Vec<SearchResult>,
    /// Discarded results, in fused order.
    pub discarded: Vec<Discarded>,
    /// Things the caller should know (how many were discarded; `[low source quality]`).
    pub warnings: Vec<String>,
}

struct Kept {
    result: SearchResult,
    position: usize,
    tier: SourceTier,
}

fn add_flag(result: &mut SearchResult, flag: &str) {
    if !result.flags.iter().any(|f| f == flag) {
        result.flags.push(flag.to_string());
    }
}

/// Apply `goggle` to `results` (in fused order, best first); see the
/// [module docs](self).
pub fn apply(goggle: &Goggle, results: Vec<SearchResult>) -> Applied {
    apply_until(goggle, results, None)
}

/// [`apply`] within a deadline: once `deadline` has passed, the remaining
/// results are ranked as if no instruction matched them (weight 0), and a
/// warning says how many were not matched. A goggle can never hold a search
/// past its deadline.
pub fn apply_until(
    goggle: &Goggle,
    results: Vec<SearchResult>,
    deadline: Option<std::time::Instant>,
) -> Applied {
    let mut kept: Vec<Kept> = Vec::with_capacity(results.len());
    let mut discarded = Vec::new();
    let total = results.len();
    let mut unmatched = 0usize;
    for (i, mut result) in results.into_iter().enumerate() {
        let position = i + 1;
        let late = deadline.is_some_and(|d| std::time::Instant::now() >= d);
        let verdict = if late {
            unmatched += 1;
            Verdict::Neutral
        } else {
            goggle.verdict_for_result(&result)
        };
        if let Verdict::Discard { rule } = verdict {
            let instruction = &goggle.instructions()[rule];
            discarded.push(Discarded {
                result,
                position,
                line: instruction.line(),
                instruction: instruction.text().to_string(),
            });
            continue;
        }
        let weight = goggle_weight(&verdict);
        let tier = SourceTier::of_url(&result.url);
        result.scores.goggle = Some(weight);
        result.scores.final_score = final_score(position, weight, tier);
        kept.push(Kept {
            result,
            position,
            tier,
        });
    }
    sort(&mut kept);
    resolve_conflicts(&mut kept);
    sort(&mut kept);

    let mut warnings = Vec::new();
    if unmatched > 0 {
        warnings.push(format!(
            "goggle `{}` reached the search deadline: {unmatched} of {total} results were not \
             matched and are ranked as if no rule applied",
            goggle.name()
        ));
    }
    if !discarded.is_empty() {
        warnings.push(format!(
            "goggle `{}` discarded {} result{} (listed in `discarded`)",
            goggle.name(),
            discarded.len(),
            if discarded.len() == 1 { "" } else { "s" }
        ));
        if kept.is_empty() {
            for d in &mut discarded {
                add_flag(&mut d.result, FLAG_LOW_SOURCE_QUALITY);
            }
            warnings.push(format!(
                "{FLAG_LOW_SOURCE_QUALITY} only sources that goggle `{}` discards remain; \
                 search again with other terms or without the goggle",
                goggle.name()
            ));
        }
    }
    Applied {
        results: kept.into_iter().map(|k| k.result).collect(),
        discarded,
        warnings,
    }
}

fn sort(kept: &mut [Kept]) {
    kept.sort_by(|a, b| {
        b.result
            .scores
            .final_score
            .total_cmp(&a.result.scores.final_score)
            .then(a.position.cmp(&b.position))
    });
}

fn resolve_conflicts(kept: &mut [Kept]) {
    let window = kept.len().min(CONFLICT_WINDOW);
    if !kept[..window].iter().any(|k| k.tier == SourceTier::T1) {
        return;
    }
    let claims: Vec<Claim> = kept[..window]
        .iter()
        .map(|k| Claim::of_result(&k.result))
        .collect();
    let mut flags: Vec<(usize, &str)> = Vec::new();
    let mut lifts: Vec<(usize, f64)> = Vec::new();
    for i in 0..window {
        if kept[i].tier != SourceTier::T1 {
            continue;
        }
        let mut t2 = Vec::new();
        let mut best_lower: Option<f64> = None;
        for j in 0..window {
            if i == j || claims[i].disagrees_with(&claims[j]).is_none() {
                continue;
            }
            let score = kept[j].result.scores.final_score;
            match kept[j].tier {
                SourceTier::T1 => flags.push((i, FLAG_CONFLICT)),
                tier => {
                    if tier == SourceTier::T2 {
                        t2.push(j);
                    }
                    best_lower = Some(best_lower.map_or(score, |b: f64| b.max(score)));
                }
            }
        }
        if t2.len() >= 2 {
            flags.push((i, FLAG_T1_VS_COMMUNITY));
            flags.extend(t2.iter().map(|&j| (j, FLAG_T1_VS_COMMUNITY)));
        }
        if let Some(best) = best_lower
            && best >= kept[i].result.scores.final_score
        {
            lifts.push((i, best + CONFLICT_LIFT));
        }
    }
    for (i, flag) in flags {
        add_flag(&mut kept[i].result, flag);
    }
    for (i, score) in lifts {
        kept[i].result.scores.final_score = score;
    }
}
