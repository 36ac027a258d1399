//! The merge keys (canonical URLs) of a fusion's hits, with a hash of each,
//! computed first — on several threads for a large fusion — so that the
//! hits can then be grouped in shards ([`super::shard_of`]) without
//! allocating a key per URL.
//!
//! Each thread takes a contiguous run of the hits (in call order, then hit
//! order) and writes their canonical URLs into one string arena (no
//! allocation per hit), or keeps the reason for a URL without a canonical
//! form. [`MergeKeys::visit`] reads them back in that order, so what is
//! grouped does not depend on the thread count.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use crate::canonical::CanonicalOptions;
use crate::response::EngineCall;

use super::canonical_fast::merge_key_into;

/// `Slot::start` of a hit whose key is in [`Chunk::side`].
const SIDE: u32 = u32::MAX;

/// One hit's key as a thread left it: `arena[start..start + len]` of its
/// chunk and the key's hash, or (`start == SIDE`) an entry of the chunk's
/// side list.
#[derive(Clone, Copy)]
struct Slot {
    start: u32,
    len: u32,
    hash: u64,
}

/// A key that is not in the arena.
enum Side {
    /// A canonical URL that did not fit the arena's 32-bit offsets.
    Owned(String),
    /// Why the URL has no canonical form.
    Invalid(String),
}

/// The keys of one contiguous run of hits.
struct Chunk {
    arena: String,
    slots: Vec<Slot>,
    /// `(slot index, key)` for the slots marked `SIDE`, by slot index.
    side: Vec<(usize, Side)>,
}

/// Every hit's merge key and its hash, in flat order (call by call, hit by
/// hit).
pub(super) struct MergeKeys {
    chunks: Vec<Chunk>,
    invalid: usize,
}

impl MergeKeys {
    /// The keys of all hits of `calls`, on `threads` threads (one: the
    /// calling thread).
    pub(super) fn compute(calls: &[EngineCall], options: CanonicalOptions, threads: usize) -> Self {
        let total: usize = calls.iter().map(|c| c.response.hits.len()).sum();
        let threads = threads.max(1);
        let chunks: Vec<Chunk> = if threads == 1 {
            vec![chunk(calls, options, 0, total)]
        } else {
            let per = total.div_ceil(threads).max(1);
            std::thread::scope(|scope| {
                // The first run of hits is done on the calling thread.
                let handles: Vec<_> = (1..threads)
                    .map(|t| (t * per).min(total)..((t + 1) * per).min(total))
                    .filter(|range| !range.is_empty())
                    .map(|range| scope.spawn(move || chunk(calls, options, range.start, range.end)))
                    .collect();
                let mut chunks = vec![chunk(calls, options, 0, per.min(total))];
                chunks.extend(handles.into_iter().map(crate::workers::join));
                chunks
            })
        };
        let invalid = chunks
            .iter()
            .flat_map(|c| &c.side)
            .filter(|(_, s)| matches!(s, Side::Invalid(_)))
            .count();
        MergeKeys { chunks, invalid }
    }

    /// Whether some hit's URL has no canonical form.
    pub(super) fn any_invalid(&self) -> bool {
        self.invalid > 0
    }

    /// Call `f(call index, hit index, key, hash)` for every hit in flat
    /// order, `key` being the canonical URL or why there is none (then the
    /// hash is 0).
    pub(super) fn visit<'k>(
        &'k self,
        calls: &[EngineCall],
        mut f: impl FnMut(usize, usize, Result<&'k str, &'k str>, u64),
    ) {
        let mut hits = calls
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| (0..c.response.hits.len()).map(move |hi| (ci, hi)));
        for chunk in &self.chunks {
            let mut side = chunk.side.iter();
            for (i, slot) in chunk.slots.iter().enumerate() {
                let Some((ci, hi)) = hits.next() else {
                    return;
                };
                if slot.start != SIDE {
                    let (start, len) = (slot.start as usize, slot.len as usize);
                    // The slot was written from this arena; a miss is a bug
                    // and reads as an unresolvable hit rather than a panic.
                    match chunk.arena.get(start..start + len) {
                        Some(key) => f(ci, hi, Ok(key), slot.hash),
                        None => f(ci, hi, Err(NOT_COMPUTED), 0),
                    }
                    continue;
                }
                match side.next() {
                    Some((at, Side::Owned(key))) if *at == i => f(ci, hi, Ok(key), slot.hash),
                    Some((at, Side::Invalid(reason))) if *at == i => f(ci, hi, Err(reason), 0),
                    _ => f(ci, hi, Err(NOT_COMPUTED), 0),
                }
            }
        }
    }
}

/// The answer for a slot that points nowhere (a bug, never expected).
const NOT_COMPUTED: &str = "no merge key was computed for this hit";

/// The hash [`MergeKeys`] keeps for a key.
fn key_hash(key: &str) -> u64 {
    FxBuildHasher.hash_one(key)
}

/// The keys of the hits with flat indexes `first..end`.
fn chunk(calls: &[EngineCall], options: CanonicalOptions, first: usize, end: usize) -> Chunk {
    let mut arena = String::with_capacity((end - first) * 64);
    let mut slots = Vec::with_capacity(end - first);
    let mut side = Vec::new();
    let mut buffer = String::new();
    let mut flat = 0usize;
    for call in calls {
        let hits = &call.response.hits;
        let (lo, hi) = (first.max(flat), end.min(flat + hits.len()));
        if lo < hi {
            for hit in &hits[lo - flat..hi - flat] {
                let slot = match merge_key_into(&hit.url, options, &mut buffer) {
                    Ok(()) => {
                        let hash = key_hash(&buffer);
                        if arena.len() + buffer.len() < SIDE as usize {
                            let (start, len) = (arena.len() as u32, buffer.len() as u32);
                            arena.push_str(&buffer);
                            Slot { start, len, hash }
                        } else {
                            side.push((slots.len(), Side::Owned(buffer.clone())));
                            Slot {
                                start: SIDE,
                                len: 0,
                                hash,
                            }
                        }
                    }
                    Err(reason) => {
                        side.push((slots.len(), Side::Invalid(reason)));
                        Slot {
                            start: SIDE,
                            len: 0,
                            hash: 0,
                        }
                    }
                };
                slots.push(slot);
            }
        }
        flat += hits.len();
        if flat >= end {
            break;
        }
    }
    Chunk { arena, slots, side }
}
