//! Scoped worker threads of large fusions (URL keys, shards, sort parts,
//! near-duplicate bands): joining one hands back its answer, and a worker's
//! panic — a bug — is re-raised on the calling thread unchanged.

use std::thread::ScopedJoinHandle;

/// The answer of a scoped worker, or its panic re-raised as it was.
pub(crate) fn join<T>(handle: ScopedJoinHandle<'_, T>) -> T {
    match handle.join() {
        Ok(answer) => answer,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
