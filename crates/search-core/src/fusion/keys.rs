//! Step 1, keys: every hit's merge key — its canonical URL
//! ([`crate::canonical::canonical_url_into`]) — and a hash of it. The keys
//! are written back to back into one string (no allocation per hit); a hit
//! whose URL has no canonical form keeps the reason instead, and is listed
//! among the unresolvable hits.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use super::UnresolvableHit;
use super::group::rank_of;
use crate::canonical::{CanonicalOptions, canonical_url_into};
use crate::response::EngineCall;

/// One hit's key: `arena[start..start + len]` and its hash; `len == 0`
/// marks a hit without one (a canonical URL is never empty).
#[derive(Clone, Copy)]
struct Slot {
    start: usize,
    len: u32,
    hash: u64,
}

/// Every hit's merge key and its hash, in flat order (call by call, hit by
/// hit).
pub(super) struct MergeKeys {
    arena: String,
    slots: Vec<Slot>,
}

impl MergeKeys {
    /// The keys of all hits of `calls`, and the hits that have none.
    pub(super) fn compute(
        calls: &[EngineCall],
        options: CanonicalOptions,
    ) -> (Self, Vec<UnresolvableHit>) {
        let total: usize = calls.iter().map(|c| c.response.hits.len()).sum();
        let mut keys = MergeKeys {
            arena: String::with_capacity(total * 64),
            slots: Vec::with_capacity(total),
        };
        let mut unresolvable = Vec::new();
        let mut buffer = String::new();
        for call in calls {
            for (index, hit) in call.response.hits.iter().enumerate() {
                let key = canonical_url_into(&hit.url, options, &mut buffer)
                    .map_err(|e| e.to_string())
                    .and_then(|()| u32::try_from(buffer.len()).map_err(|e| e.to_string()));
                match key {
                    Ok(len) => keys.push(&buffer, len),
                    Err(reason) => {
                        keys.slots.push(Slot {
                            start: 0,
                            len: 0,
                            hash: 0,
                        });
                        unresolvable.push(UnresolvableHit {
                            engine: call.engine.clone(),
                            sub_query: call.sub_query.clone(),
                            rank: rank_of(hit, index),
                            index,
                            url: hit.url.to_string(),
                            reason,
                        });
                    }
                }
            }
        }
        unresolvable.sort_by(|a, b| {
            (&a.engine, &a.sub_query, a.rank, a.index, &a.url).cmp(&(
                &b.engine,
                &b.sub_query,
                b.rank,
                b.index,
                &b.url,
            ))
        });
        (keys, unresolvable)
    }

    fn push(&mut self, key: &str, len: u32) {
        let start = self.arena.len();
        self.arena.push_str(key);
        self.slots.push(Slot {
            start,
            len,
            hash: FxBuildHasher.hash_one(key),
        });
    }

    /// Call `f(call index, hit index, key, hash)` for every hit that has a
    /// key, in flat order.
    pub(super) fn visit<'k>(
        &'k self,
        calls: &[EngineCall],
        mut f: impl FnMut(usize, usize, &'k str, u64),
    ) {
        let hits = calls
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| (0..c.response.hits.len()).map(move |hi| (ci, hi)));
        for ((ci, hi), slot) in hits.zip(&self.slots) {
            if slot.len > 0 {
                let key = &self.arena[slot.start..slot.start + slot.len as usize];
                f(ci, hi, key, slot.hash);
            }
        }
    }
}
