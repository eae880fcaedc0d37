//! Whole-world synchronization (OpenSHMEM 1.6 §9.9): barrier_all completes this PE's operations
//! and then waits for every PE; sync_all only waits.

use crate::collectives::barrier;
use crate::runtime::world;

/// `shmem_barrier_all`.
pub fn barrier_all(call: &'static str) {
    let w = world::get(call);
    super::order::complete(call);
    barrier::world(w);
}

/// `shmem_sync_all`.
pub fn sync_all(call: &'static str) {
    let w = world::get(call);
    barrier::world(w);
}
