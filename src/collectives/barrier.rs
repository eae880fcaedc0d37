//! Barriers: a dissemination barrier over a group (over its node leaders, with the others
//! waiting on their leader through shared memory, when the group is on more than one node: see
//! `collectives::node`).
//!
//! In round `r` member `i` signals member `(i + 2^r) mod n` and waits for the signal of member
//! `(i - 2^r) mod n`; `ceil(log2 n)` rounds, any `n`. On a team a signal is the barrier's epoch
//! stored into the receiver's `barrier[r]` word of the team's slot: each word has one writer per
//! epoch and only grows, so nothing is reset and back-to-back barriers cannot be confused. On an
//! active set a signal is an increment of the receiver's counter for the sender, and the receiver
//! consumes the signals of each sender in order: no epoch needs to agree between calls, so any set
//! of PEs may synchronize in any order consistent between each pair.
//!
//! A signal goes by the receiver's route: a store or CPU atomic into its mapped control block, or
//! over UCX one active message that the receiver's target worker applies (`transport::ucx::signal`),
//! which waits for no reply. The wait is always on this PE's own control block.

pub use super::node::{signal, wait_signal};
use super::{Group, Sync};
use crate::runtime::departure;
use crate::runtime::handle::{self, WORLD_SLOT};
use crate::runtime::team::Members;
use crate::runtime::world::World;
use crate::transport::shm::control::ASET_PES;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

/// What a failed signal names: the barrier runs inside many calls.
const CALL: &str = "barrier";

/// Waits until every member of `g` has entered the barrier.
pub fn group(w: &World, g: &Group) {
    match g.sync {
        Sync::Team(slot) => team(w, slot, &g.members),
        Sync::ActiveSet => active_set(w, &g.members),
    }
}

/// The barrier over the team in `slot`.
pub fn team(w: &World, slot: usize, m: &Members) {
    let g = Group {
        members: *m,
        sync: Sync::Team(slot),
    };
    if super::node::barrier(w, CALL, &g) {
        return;
    }
    let epoch = handle::team_at(slot).epoch.fetch_add(1, Ordering::Relaxed) + 1;
    w.epoch_high.fetch_max(epoch, Ordering::Relaxed);
    let n = m.size;
    let mine = &w.control(w.me).teams[slot];
    let mut distance = 1;
    let mut round = 0;
    while distance < n {
        let to = m.world((m.me + distance) % n);
        w.control_store(CALL, to, |c| &c.teams[slot].barrier[round].0, epoch);
        let flag = &mine.barrier[round].0;
        let from = m.world((m.me + n - distance % n) % n);
        let rounds = n.next_power_of_two().trailing_zeros();
        departure::wait_for(
            w,
            CALL,
            from,
            || flag.load(Ordering::Acquire) >= epoch,
            |out| {
                let team = handle::team_label(slot);
                let _ = write!(
                    out,
                    "barrier of team {team}, round {} of {rounds}: waiting for PE {from}",
                    round + 1
                );
            },
        );
        distance *= 2;
        round += 1;
    }
}

fn active_set(w: &World, m: &Members) {
    let g = Group {
        members: *m,
        sync: Sync::ActiveSet,
    };
    if super::node::barrier(w, CALL, &g) {
        return;
    }
    let n = m.size;
    let mut distance = 1;
    while distance < n {
        let to = m.world((m.me + distance) % n);
        let from = m.world((m.me + n - distance % n) % n);
        signal(w, to);
        wait_signal(w, from);
        distance *= 2;
    }
}

/// Checks that the active-set counters cover the job (at the first active-set call).
pub fn active_set_fits(npes: usize) -> bool {
    npes <= ASET_PES
}

/// Waits until every PE of the world has entered the barrier.
pub fn world(w: &World) {
    let m = Members {
        start: 0,
        stride: 1,
        size: w.npes,
        me: w.me,
    };
    team(w, WORLD_SLOT, &m);
}
