//! The merge keys (canonical URLs) of a large fusion's hits, computed on
//! several threads before the hits are grouped on one.
//!
//! Each thread takes a contiguous run of the hits (in call order, then hit
//! order) and writes their canonical URLs into one string arena (no
//! allocation per hit), or the reason for a URL without a canonical form.
//! Grouping then reads the keys in the same order as if it had computed them
//! itself, so the result does not depend on the thread count.

use crate::canonical::CanonicalOptions;
use crate::response::EngineCall;

use super::canonical_fast::merge_key_into;

/// The answer for a flat index no chunk covers (a bug, never expected).
const NOT_COMPUTED: &str = "no merge key was computed for this hit";

/// One hit's key as a thread left it.
enum Slot {
    /// `arena[start..start + len]` of the hit's chunk.
    Arena { start: u32, len: u32 },
    /// A canonical URL that did not fit the arena's 32-bit offsets.
    Owned(String),
    /// Why the URL has no canonical form.
    Invalid(String),
}

/// The keys of one contiguous run of hits.
struct Chunk {
    /// Flat index (over all calls' hits) of the chunk's first hit.
    first: usize,
    arena: String,
    slots: Vec<Slot>,
}

/// Every hit's merge key, by flat index.
pub(super) struct MergeKeys {
    chunks: Vec<Chunk>,
}

impl MergeKeys {
    /// The keys of all hits of `calls`, on `threads` threads.
    pub(super) fn compute(calls: &[EngineCall], options: CanonicalOptions, threads: usize) -> Self {
        let total: usize = calls.iter().map(|c| c.response.hits.len()).sum();
        let threads = threads.max(1);
        let per = total.div_ceil(threads).max(1);
        let chunks = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| (t * per).min(total)..((t + 1) * per).min(total))
                .filter(|range| !range.is_empty())
                .map(|range| scope.spawn(move || chunk(calls, options, range.start, range.end)))
                .collect();
            handles
                .into_iter()
                .map(|h| match h.join() {
                    Ok(chunk) => chunk,
                    // A panic in a worker is a bug; re-raise it unchanged.
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        });
        MergeKeys { chunks }
    }

    /// The key of the hit at flat index `flat`: its canonical URL, or why it
    /// has none.
    pub(super) fn get(&self, flat: usize) -> Result<&str, &str> {
        let c = self
            .chunks
            .partition_point(|c| c.first <= flat)
            .saturating_sub(1);
        let Some(chunk) = self.chunks.get(c) else {
            return Err(NOT_COMPUTED);
        };
        match chunk.slots.get(flat - chunk.first) {
            Some(Slot::Arena { start, len }) => {
                let (start, len) = (*start as usize, *len as usize);
                chunk.arena.get(start..start + len).ok_or(NOT_COMPUTED)
            }
            Some(Slot::Owned(url)) => Ok(url),
            Some(Slot::Invalid(reason)) => Err(reason),
            None => Err(NOT_COMPUTED),
        }
    }
}

/// The keys of the hits with flat indexes `first..end`.
fn chunk(calls: &[EngineCall], options: CanonicalOptions, first: usize, end: usize) -> Chunk {
    let mut arena = String::with_capacity((end - first) * 64);
    let mut slots = Vec::with_capacity(end - first);
    let mut buffer = String::new();
    let mut flat = 0usize;
    for call in calls {
        let hits = &call.response.hits;
        let (lo, hi) = (first.max(flat), end.min(flat + hits.len()));
        if lo < hi {
            for hit in &hits[lo - flat..hi - flat] {
                let slot = match merge_key_into(&hit.url, options, &mut buffer) {
                    Ok(()) if arena.len() + buffer.len() <= u32::MAX as usize => {
                        let (start, len) = (arena.len() as u32, buffer.len() as u32);
                        arena.push_str(&buffer);
                        Slot::Arena { start, len }
                    }
                    Ok(()) => Slot::Owned(buffer.clone()),
                    Err(reason) => Slot::Invalid(reason),
                };
                slots.push(slot);
            }
        }
        flat += hits.len();
        if flat >= end {
            break;
        }
    }
    Chunk {
        first,
        arena,
        slots,
    }
}
