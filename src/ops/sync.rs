//! Whole-world synchronization (OpenSHMEM 1.6 §9.9): barrier_all completes this PE's operations
//! and then waits for every PE; sync_all waits, after completing the default context's puts to
//! PEs reached over the network ([`settle`]).

#![deny(unsafe_code)]

use crate::collectives::barrier;
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote;
use crate::runtime::world::{self, World};

/// `shmem_barrier_all`.
pub fn barrier_all(call: &'static str) {
    let w = world::get(call);
    super::order::complete(call);
    barrier::world(w);
}

/// `shmem_sync_all`.
pub fn sync_all(call: &'static str) {
    let w = world::get(call);
    settle(w, call);
    barrier::world(w);
}

/// Before a sync: completes the default context's puts over the network, if any is outstanding
/// (otherwise this costs nothing). The spec does not ask for it, but there the sync's signals
/// travel apart from the puts (`transport::ucx::signals`) and could overtake them, and a program
/// that puts and then syncs without a quiet, which worked on the routes where the puts and the
/// signals share a path, would read old data without a word (docs/ABI.md).
pub(crate) fn settle(w: &World, call: &'static str) {
    remote::quiet(w, call, SHMEM_CTX_DEFAULT);
}
