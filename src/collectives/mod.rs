//! Collective algorithms, written against the runtime's view of the peers' memory.
//!
//! A collective runs over a [`Group`]: the members (an arithmetic progression of world PEs) and
//! where their synchronization words are (a team's slot, or the active-set counters of the
//! deprecated pSync routines). On one node (or where the network maps every member's memory here
//! itself, UCX's shared-memory transports) the algorithms are flat ([`flat`]) and synchronize once
//! ([`posted`]): every contributor posts its data in its control block (small data copied there,
//! large data left in its source until its readers acknowledge), and every member waits only for
//! the posts it reads. Where some member is reached over the network, members read the others'
//! symmetric buffers (with gets) between two barriers (the first: every member has entered, its
//! source is ready and its destination free; the second: every member has finished reading), and
//! where that would move too much (large reductions and broadcasts over three or more members),
//! [`split`] divides the work into one chunk per member.
//! A group on more than one node is node-aware ([`node`]): shared memory inside each node, the
//! node leaders alone on the network, by dissemination for the barrier and by a binomial tree for
//! small broadcasts and reductions ([`tree`]; their data goes from leader to leader as messages
//! of the network where it carries them, [`message`], so a broadcast's root does not wait for its
//! readers and a reduction is recursive doubling), so those cost each PE `O(log nodes)` messages,
//! and by scatter (or reduce-scatter) and all-gather among the leaders for large ones ([`ring`]), so
//! each leader moves about the data's size once (twice for a reduction) whatever the number of
//! nodes; fcollect gathers each node's blocks at its leader, which fetches the other nodes' (and so
//! does collect over nodes that each hold a run of consecutive members); a scan over such nodes
//! goes up and down the leaders' tree. An alltoall across nodes goes as one message from each
//! node's leader to each other ([`pairwise`]) where no leader sends more than 8 MiB in the call
//! and, on nodes of several members, no message is over 128 KiB.
//! Reductions and scans across nodes combine in one fixed order (members in member order within a
//! node, then the nodes' partial results along the tree or in node order), the same in every run.
//!
//! This layer denies `unsafe_code`: the algorithms reach memory through checked ranges
//! (`transport::shm::{Src, Dst}`), the World's mappings and the control block's typed words; the
//! C caller's pointers become ranges in `ops::ffi`.
#![deny(unsafe_code)]

pub mod agree;
pub mod barrier;
pub mod call;
pub mod flat;
pub mod message;
pub mod node;
pub mod pairwise;
pub mod posted;
pub mod ring;
pub mod scratch;
pub mod split;
pub mod tree;

pub use call::Combine;

use crate::runtime::team::Members;
use crate::runtime::world::World;
use std::sync::atomic::{AtomicU64, Ordering};

/// Adds one to a count of this PE's calls on one group (a team's epoch, an active set's calls) and
/// returns the new count.
///
/// A plain load and store, not an atomic add: one thread at a time calls collectives on a group
/// (the spec leaves concurrent calls on one team undefined), and a locked add would first wait for
/// this PE's earlier stores, such as the previous call's post, to reach the cores reading them
/// (4% of a 2-PE reduction loop, by `perf`).
#[inline]
pub fn next_call(count: &AtomicU64) -> u64 {
    let n = count.load(Ordering::Relaxed) + 1;
    count.store(n, Ordering::Relaxed);
    n
}

/// Where a group's synchronization words are.
#[derive(Clone, Copy, Debug)]
pub enum Sync {
    /// A team's slot in each member's control block; barriers are numbered by the team's epochs.
    Team(usize),
    /// The per-sender counters of the control block, for the deprecated active-set routines (any
    /// set of PEs, no state shared between calls beyond the counts).
    ActiveSet,
}

/// The PEs of one collective call and their synchronization words.
#[derive(Clone, Copy, Debug)]
pub struct Group {
    pub members: Members,
    pub sync: Sync,
}

/// One collective call: the world, the C name for messages and the group. Its methods, what the
/// algorithms need of a call, are in [`call`]; the posted path and the barriers use its fields
/// alone.
pub struct Coll<'a> {
    pub w: &'a World,
    pub call: &'static str,
    pub g: Group,
}
