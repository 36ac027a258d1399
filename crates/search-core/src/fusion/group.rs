//! Step 2, group: the hits that share a merge key (canonical URL, and
//! whether they are login hits that may not merge) become one group, its
//! hits in source order. A hash table of group ids is probed with each
//! key's precomputed hash; the hits are then laid out group by group with
//! a counting sort (no vector per group).

use std::cmp::Ordering;
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::FxHashMap;

use super::FusionOptions;
use super::keys::MergeKeys;
use crate::engine::EngineHit;
use crate::provenance::Provenance;
use crate::response::EngineCall;

/// One hit of a group.
#[derive(Clone, Copy)]
pub(super) struct HitRef {
    pub(super) call: u32,
    pub(super) hit: u32,
    pub(super) rank: u32,
}

/// What fusion needs to know about each call, computed once.
pub(super) struct CallInfo {
    /// Position of (engine, sub-query) among the distinct pairs sorted by
    /// name, so pairs compare as integers in name order.
    pub(super) pair: u32,
    /// The engine's RRF weight.
    pub(super) weight: f64,
    /// Login hits that may not merge with anything else.
    pub(super) isolated: bool,
    /// The engine and sub-query names every source hit of the call shares.
    pub(super) engine: Arc<str>,
    pub(super) sub_query: Arc<str>,
}

/// The [`CallInfo`] of each call.
pub(super) fn call_infos(calls: &[EngineCall], options: &FusionOptions) -> Vec<CallInfo> {
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
            let p = &c.response.provenance;
            CallInfo {
                pair,
                weight,
                isolated: p.is_login() && !p.merge_with_public_ok,
                engine: Arc::from(c.engine.as_str()),
                sub_query: Arc::from(c.sub_query.as_str()),
            }
        })
        .collect()
}

/// A hit's rank: as the engine gave it, else its 1-based position.
pub(super) fn rank_of(hit: &EngineHit, index: usize) -> u32 {
    if hit.rank == 0 {
        u32::try_from(index + 1).unwrap_or(u32::MAX)
    } else {
        hit.rank
    }
}

/// The hits, grouped: group `g` has the key `keys[g]` and the hits
/// `hits[starts[g]..starts[g + 1]]`.
pub(super) struct Groups<'k> {
    keys: Vec<&'k str>,
    starts: Vec<u32>,
    hits: Vec<HitRef>,
}

impl<'k> Groups<'k> {
    /// How many groups there are.
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Group `g`'s key and hits.
    pub(super) fn group(&self, g: usize) -> (&'k str, &[HitRef]) {
        let (start, end) = (self.starts[g] as usize, self.starts[g + 1] as usize);
        (self.keys[g], &self.hits[start..end])
    }
}

/// Mixed into the hash of an isolated hit's key, so that it and a
/// mergeable hit of the same URL rarely share a probe sequence.
const ISOLATED_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// Group the hits by merge key, each group's hits in source order.
pub(super) fn group<'k>(
    calls: &[EngineCall],
    infos: &[CallInfo],
    keys: &'k MergeKeys,
) -> Groups<'k> {
    let (group_keys, grouped) = assign_groups(calls, infos, keys);
    let (starts, mut hits) = lay_out(group_keys.len(), grouped);
    for g in 0..group_keys.len() {
        let group = &mut hits[starts[g] as usize..starts[g + 1] as usize];
        if group.len() > 1 {
            group.sort_unstable_by(|a, b| compare_refs(calls, infos, a, b));
        }
    }
    Groups {
        keys: group_keys,
        starts,
        hits,
    }
}

/// Each group's key, and each hit with its group id, in hit order.
fn assign_groups<'k>(
    calls: &[EngineCall],
    infos: &[CallInfo],
    keys: &'k MergeKeys,
) -> (Vec<&'k str>, Vec<(u32, HitRef)>) {
    let total: usize = calls.iter().map(|c| c.response.hits.len()).sum();
    let mut table: HashTable<u32> = HashTable::with_capacity(total);
    let mut group_keys: Vec<(&str, bool, u64)> = Vec::with_capacity(total);
    let mut grouped: Vec<(u32, HitRef)> = Vec::with_capacity(total);
    keys.visit(calls, |ci, hi, key, hash| {
        let iso = infos[ci].isolated;
        let hash = if iso { hash ^ ISOLATED_SALT } else { hash };
        let found = table.find(hash, |&g| {
            let (k, i, _) = group_keys[g as usize];
            i == iso && k == key
        });
        let group = match found {
            Some(&g) => g,
            None => {
                let g = group_keys.len() as u32;
                group_keys.push((key, iso, hash));
                table.insert_unique(hash, g, |&g| group_keys[g as usize].2);
                g
            }
        };
        let rank = rank_of(&calls[ci].response.hits[hi], hi);
        let (call, hit) = (ci as u32, hi as u32);
        grouped.push((group, HitRef { call, hit, rank }));
    });
    (group_keys.into_iter().map(|(k, _, _)| k).collect(), grouped)
}

/// The hits laid out group by group (a counting sort), with where each
/// group starts.
fn lay_out(groups: usize, grouped: Vec<(u32, HitRef)>) -> (Vec<u32>, Vec<HitRef>) {
    let mut starts = vec![0u32; groups + 1];
    for (g, _) in &grouped {
        starts[*g as usize + 1] += 1;
    }
    for i in 0..groups {
        starts[i + 1] += starts[i];
    }
    let mut fill = starts.clone();
    let empty = HitRef {
        call: 0,
        hit: 0,
        rank: 0,
    };
    let mut hits = vec![empty; grouped.len()];
    for (g, r) in grouped {
        hits[fill[g as usize] as usize] = r;
        fill[g as usize] += 1;
    }
    (starts, hits)
}

/// Order of a group's hits: best rank first, then by engine and
/// sub-query name, then by content — never by input position, so equal
/// hits are interchangeable.
fn compare_refs(calls: &[EngineCall], infos: &[CallInfo], a: &HitRef, b: &HitRef) -> Ordering {
    let call = |r: &HitRef| &calls[r.call as usize];
    let (ha, hb) = (
        &call(a).response.hits[a.hit as usize],
        &call(b).response.hits[b.hit as usize],
    );
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
            provenance_key(&call(a).response.provenance)
                .cmp(&provenance_key(&call(b).response.provenance))
        })
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
