//! Barriers: a dissemination barrier over epoch counters in each PE's control block.
//!
//! In round `r` PE `i` signals PE `(i + 2^r) mod n` by adding 1 to that PE's `barrier[r]` word,
//! then waits for its own `barrier[r]` to reach the epoch. Each word has one writer, which adds 1
//! in every barrier, so it counts the barriers (equals the epoch): nothing is ever reset and
//! back-to-back barriers cannot be confused. An add, unlike a store, needs no reply over UCX.
//! `ceil(log2 n)` rounds, any `n`. The signal goes by the peer's route (a store into its mapped
//! block, a UCX atomic otherwise); the wait is always on this PE's own block.

use crate::runtime::{wait, world::World};
use std::sync::atomic::Ordering;

/// Waits until every PE of the world has entered the barrier with the same epoch.
pub fn world(w: &World) {
    let epoch = w.barrier_epoch.fetch_add(1, Ordering::Relaxed) + 1;
    let n = w.npes;
    let mine = w.control(w.me);
    let mut distance = 1;
    let mut round = 0;
    while distance < n {
        let to = (w.me + distance) % n;
        w.control_add("shmem_barrier_all", to, |c| &c.barrier[round].0, 1);
        let flag = &mine.barrier[round].0;
        wait::until(|| flag.load(Ordering::Acquire) >= epoch);
        distance *= 2;
        round += 1;
    }
}
