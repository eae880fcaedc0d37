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
//! On a node whose PEs outnumber its cores, a team barrier in shared memory is a counter barrier
//! instead ([`counter`]): every member but the last waits once, where dissemination has each wait
//! `ceil(log2 n)` times, and every wait there is a trip through the scheduler (bench/barrier.c on
//! 2 cores, medians of 7 alternating runs: 4 PEs 4.4 -> 2.8 us, 8 PEs 14.7 -> 10.8 us; at 2 PEs on
//! 2 cores dissemination stays, 0.21 vs 0.25 us). An active set has no words of its own for a
//! counter, so there each member posts an empty contribution (`collectives::posted`, tagged with
//! the set and its count of calls on it) and waits once, for the others' posts ([`posted`];
//! bench/coll.c's barrier on 2 cores, medians of 10 and 6 alternating runs: 4 PEs 7.2 -> 6.1 us,
//! 8 PEs 21.7 -> 16.3 us). An active set that is the whole job, on one node, takes the world
//! team's counter instead, since every PE calls it (the same runs, paired: 4 PEs 0.83, 8 PEs
//! 0.79 of the posted barrier's time).
//!
//! A signal goes by the receiver's route: a store or CPU atomic into its mapped control block, or
//! over UCX a raise of the word to the epoch (one tagged message: `World::control_raise`; what
//! came before the barrier is complete, by its quiet or its caller's) or a non-fetching add (the
//! counter), neither of which waits for a reply. The wait is always on this PE's own control
//! block.

pub use super::node::{signal, signal_round, wait_round, wait_signal};
use super::posted::Posting;
use super::{Coll, Group, Sync};
use crate::runtime::departure;
use crate::runtime::handle::{self, WORLD_SLOT};
use crate::runtime::team::Members;
use crate::runtime::wait;
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
    let epoch = super::next_call(&handle::team_at(slot).epoch);
    if w.cpu_atomics && m.size > 1 && wait::oversubscribed_node() {
        counter(w, slot, m, epoch);
        return;
    }
    let n = m.size;
    let mine = &w.control(w.me).teams[slot];
    let mut distance = 1;
    let mut round = 0;
    while distance < n {
        let to = m.world((m.me + distance) % n);
        w.control_raise(CALL, to, |c| &c.teams[slot].barrier[round].0, epoch);
        let flag = &mine.barrier[round].0;
        let from = m.world((m.me + n - distance % n) % n);
        let rounds = n.next_power_of_two().trailing_zeros();
        departure::wait_for(
            w,
            CALL,
            from,
            true,
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

/// The counter barrier of a team whose members share this node's memory: each member adds one
/// to the first member's `arrived`; the last to arrive resets it and stores the epoch into the
/// first member's `released`, which the others wait for. One wait per member.
fn counter(w: &World, slot: usize, m: &Members, epoch: u64) {
    let first = m.world(0);
    let words = &w.control(first).teams[slot];
    w.control(w.me).teams[slot]
        .reached
        .0
        .store(epoch, Ordering::Relaxed);
    if words.arrived.0.fetch_add(1, Ordering::AcqRel) + 1 == m.size as u64 {
        words.arrived.0.store(0, Ordering::Relaxed);
        words.released.0.store(epoch, Ordering::Release);
        return;
    }
    let released = &words.released.0;
    departure::wait_for_members(
        w,
        CALL,
        m,
        || released.load(Ordering::Acquire) >= epoch,
        |out| {
            let team = handle::team_label(slot);
            let missing: Vec<usize> = (0..m.size)
                .map(|i| m.world(i))
                .filter(|&pe| w.control(pe).teams[slot].reached.0.load(Ordering::Relaxed) < epoch)
                .collect();
            let _ = write!(out, "barrier of team {team}: waiting for PE");
            if missing.len() > 1 {
                out.push('s');
            }
            for (k, pe) in missing.iter().take(8).enumerate() {
                let _ = write!(out, "{}{pe}", if k == 0 { " " } else { ", " });
            }
            if missing.len() > 8 {
                out.push_str(", ...");
            }
            let _ = write!(out, " ({} of {} arrived)", m.size - missing.len(), m.size);
        },
    );
}

fn active_set(w: &World, m: &Members) {
    // The whole job on one node whose PEs outnumber its cores: every PE takes the world team's
    // counter barrier (its signals are stores, on the puts' path, as the set's would be).
    if w.cpu_atomics
        && wait::oversubscribed_node()
        && m.start == 0
        && m.stride == 1
        && m.size == w.npes
    {
        team(w, WORLD_SLOT, m);
        return;
    }
    let g = Group {
        members: *m,
        sync: Sync::ActiveSet,
    };
    if super::node::barrier(w, CALL, &g) || posted(w, &g) {
        return;
    }
    let n = m.size;
    let mut distance = 1;
    while distance < n {
        let to = m.world((m.me + distance) % n);
        let from = m.world((m.me + n - distance % n) % n);
        signal_round(w, to);
        wait_round(w, from);
        distance *= 2;
    }
}

/// The barrier over an active set whose members share this node's memory, where the node's PEs
/// outnumber its cores: every member posts nothing and takes (and acknowledges) the others'
/// posts, one wait instead of one per round. False (nothing done) elsewhere, and where some
/// member's control block is not mapped here (then every member takes the rounds, as in
/// [`Posting::begin`]).
fn posted(w: &World, g: &Group) -> bool {
    if g.members.size < 2 || !wait::oversubscribed_node() {
        return false;
    }
    let c = Coll {
        w,
        call: CALL,
        g: *g,
    };
    let Some(mut p) = Posting::begin(&c) else {
        return false;
    };
    p.post(0, true, |_| {}, g.members.size - 1);
    p.each(
        (0..g.members.size).filter(|&i| i != g.members.me),
        |_, _| {},
    );
    p.finish();
    true
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
