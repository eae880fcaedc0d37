//! Alltoall (and alltoalls) across nodes by messages: each node's leader exchanges one message with
//! every other node's leader, holding every block its node's members send that node's members.
//! The members of a node arrive at their leader and wait to be released ([`node`]); the leader
//! reads their sources and writes their destinations through the node's shared memory. Leader `k`
//! packs, for node `j`, block `b` of member `a`'s source for each member `a` of its node and each
//! member `b` of node `j` (both in member order), sends it to leader `j` tagged with the call and
//! with `k` as the step ([`Messages`]), copies the blocks between the members of its own node, and
//! unpacks what each other leader sent into its members' destinations. A group whose every member
//! is alone on its node (one PE per node, or every PE on the network's route) is the case of one
//! member a node: one message from each member to each other, read from its source and written
//! into its destination. Nobody waits for anybody's exit.
//!
//! Why: the flat algorithm over the network is a barrier to enter (every destination free), a get
//! from every member and a barrier to leave (nobody reads a source any more): over TCP, at 2 PEs,
//! 56 us for 8-byte blocks where this takes 15, at 4 PEs on 2 cores 586 us against 67 (the bench
//! journal, 2026-12-04, evening: `git show f57c210:bench/README.md`). A message carries its blocks
//! and the word that they are there at once, and the receiver copies them into its node's
//! destinations inside its own call, so no member needs another's leave.
//!
//! Invariants: every member decides to take this path from the call's arguments and the node table
//! alone ([`plan`]), the same on every member, and starts the same one signal set and asks for the
//! call's [`Messages`] (so a team's epoch and an active set's count stay equal). A leader posts the
//! receive of every other leader's message before it sends any of its own, so a message above the
//! network's rendezvous threshold (which moves only once its receive is posted) waits for its
//! receiver to enter the call and for nothing else, and no two leaders wait for each other. A
//! leader reads all of its node's sources before it writes any destination, except that a lone
//! member whose destination and source are apart takes other nodes' blocks straight into its
//! destination, so `dest` may overlap `source` in any way. It releases its members only once
//! every block they expect is in their destinations, so no leader is more than one call ahead of
//! another's messages, and what waits at a slow leader is at most two calls' messages of up to
//! the rendezvous threshold from each other leader. The step names the sending node, so a group
//! takes this path on up to [`message::STEPS`] nodes. Memory is reached through checked ranges
//! ([`Src`], [`Dst`]) alone.

use super::Coll;
use super::call::ranges_overlap;
use super::message::{self, Incoming, Messages};
use super::node::{self, Layout, Sig, Word};
use super::scratch::Scratch;
use crate::runtime::world::Target;
use crate::transport::shm::{self, Dst, Plain, Src};
use std::mem::size_of;
use std::rc::Rc;

/// The most a leader sends, and receives, in one call: the blocks its node's members send the
/// members of every other node. What a leader receives in place of its destination (in place,
/// or for several members) is held aside until it is unpacked; what waits at a leader that is
/// behind is at most two calls' small messages.
const PER_CALL: usize = 8 << 20;

/// The largest message a leader of several members packs and unpacks: each block is copied twice
/// on one core while the members wait, which pays only while the blocks are small (2 hosts of 4
/// PEs, blocks of 32 and 64 KiB, 1 MiB messages: 1.3 to 3.8 times the flat algorithm's time;
/// the bench journal, 2026-12-04, night: `git show f57c210:bench/README.md`). Below the
/// rendezvous threshold of the messages' context (256 KiB, `transport::ucx::signals::SETTINGS`).
/// A lone member sends from its source and receives into its destination, and its messages may be
/// as large as [`PER_CALL`] allows.
const PACKED: usize = 128 << 10;

/// How the blocks lie: `nelems` elements of `T` a block, `sst` elements apart in a source and
/// `dst` apart in a destination (1 and 1 for `alltoall`).
struct Blocks {
    nelems: usize,
    sst: usize,
    dst: usize,
}

impl Blocks {
    /// Bytes from the first element of a `T` array to the end of the last element of `n` blocks
    /// `stride` elements apart.
    fn span<T>(&self, n: usize, stride: usize) -> usize {
        ((n * self.nelems - 1) * stride + 1) * size_of::<T>()
    }
}

/// The group's nodes, each its members in member order, as indices into the layout's leaders,
/// if this call goes by messages: the network carries them, the group is on more than one node
/// and at most [`message::STEPS`] of them, no leader sends more than [`PER_CALL`] (the blocks of
/// its node's members for the members of the other nodes), and where a node has several members
/// no message (the widest node's blocks for the widest node) is larger than [`PACKED`].
fn plan(c: &Coll, nbytes: usize) -> Option<(Rc<Layout>, Vec<Vec<usize>>)> {
    if nbytes == 0 || !message::carried(c) {
        return None;
    }
    let m = &c.g.members;
    let l = node::layout(c.w, m, None)?;
    if l.leaders.len() as u64 > message::STEPS {
        return None;
    }
    let mut nodes = vec![Vec::new(); l.leaders.len()];
    for (i, &k) in l.node_of.iter().enumerate() {
        nodes[k].push(i);
    }
    let most = nodes.iter().map(|k| k.len() * (m.size - k.len())).max()?;
    let widest = nodes.iter().map(Vec::len).max()?;
    let packed = widest == 1 || widest * widest * nbytes <= PACKED;
    (packed && most.saturating_mul(nbytes) <= PER_CALL).then_some((l, nodes))
}

/// Member `i` of this PE's node's copy of the symmetric range `addr..addr+len`, mapped here (the
/// error names `what` if the range is not symmetric).
fn on_node(c: &Coll, what: &str, addr: usize, len: usize, i: usize) -> Dst<'static> {
    let pe = c.g.members.world(i);
    if pe == c.w.me {
        return c.w.own(c.call, what, addr, len);
    }
    match c.w.rma_target(c.call, what, addr, len, pe) {
        Target::Mapped(base) => base,
        Target::Net(..) => unreachable!("PE {pe} is on this PE's node and maps its memory here"),
    }
}

/// The first of `members` if they are consecutive member indices (their blocks one run).
fn run(members: &[usize]) -> Option<usize> {
    let &first = members.first()?;
    members
        .iter()
        .enumerate()
        .all(|(k, &i)| i == first + k)
        .then_some(first)
}

/// `alltoall` by messages if the group takes this path ([`plan`]): block `me` of member `i`'s
/// source into block `i` of this member's `dest` (as long as `source`). Whether it did.
pub fn alltoall(c: &Coll, dest: Dst<'_>, source: Src<'_>) -> bool {
    let b = Blocks {
        nelems: source.len() / c.g.members.size,
        sst: 1,
        dst: 1,
    };
    exchange::<u8>(c, dest, source, &b)
}

/// `alltoalls` by messages if the group takes this path ([`plan`]): as [`alltoall`], the elements
/// `sst` apart in `source` and `dst` apart in `dest` (each spanning its elements). Whether it did.
pub fn alltoalls<T: Plain>(
    c: &Coll,
    dest: Dst<'_>,
    source: Src<'_>,
    dst: usize,
    sst: usize,
    nelems: usize,
) -> bool {
    let b = Blocks { nelems, sst, dst };
    exchange::<T>(c, dest, source, &b)
}

/// The exchange of [`alltoall`] and [`alltoalls`].
fn exchange<T: Plain>(c: &Coll, dest: Dst<'_>, source: Src<'_>, b: &Blocks) -> bool {
    let sz = size_of::<T>();
    let nbytes = b.nelems * sz;
    let Some((l, nodes)) = plan(c, nbytes) else {
        return false;
    };
    let m = &c.g.members;
    let (sspan, dspan) = (b.span::<T>(m.size, b.sst), b.span::<T>(m.size, b.dst));
    let sig = Sig::new(c.w, c.call, &c.g);
    let msg = Messages::of(c, &sig);
    if node::gather_at_leader(&sig, &l, m) {
        return true;
    }
    let mine = &nodes[l.node];
    // Each member of the node: its source and its destination, in this process.
    let sources: Vec<Src<'_>> = mine
        .iter()
        .map(|&a| on_node(c, "source", source.addr(), sspan, a).src())
        .collect();
    let dests: Vec<Dst<'_>> = mine
        .iter()
        .map(|&a| {
            if m.world(a) == c.w.me {
                dest.part(0, dspan)
            } else {
                on_node(c, "dest", dest.addr(), dspan, a)
            }
        })
        .collect();
    let (sst, dst) = (b.sst as isize, b.dst as isize);
    // Block `blk` of a source `from` into `to` (packed, from its start), and back out of a packed
    // `from` into block `blk` of a destination `to`.
    let pack = |to: Dst<'_>, from: Src<'_>, blk: usize| {
        to.copy_strided_from::<T>(0, 1, from, blk * b.nelems * b.sst * sz, sst, b.nelems);
    };
    let unpack = |to: Dst<'_>, from: Src<'_>, blk: usize| {
        to.copy_strided_from::<T>(blk * b.nelems * b.dst * sz, dst, from, 0, 1, b.nelems);
    };
    let widest = nodes.iter().map(Vec::len).max().unwrap_or(1);
    // This node's blocks for one node at a time (at most the widest); kept by the thread, aligned
    // for every element type.
    let mut out = Scratch::<u8>::new(mine.len() * widest * nbytes);
    let packed = Dst::of(&mut out[..]);
    // Node j's blocks into `out`: for each member of this node, its blocks for node j's members.
    let pack_for = |j: usize| {
        let mut at = 0;
        for &from in &sources {
            for &blk in &nodes[j] {
                pack(packed.after(at), from, blk);
                at += nbytes;
            }
        }
    };
    // Node j's blocks for this node, packed in `from`, into the members' destinations.
    let unpack_from = |j: usize, from: Src<'_>| {
        let mut at = 0;
        for &blk in &nodes[j] {
            for &to in &dests {
                unpack(to, from.after(at), blk);
                at += nbytes;
            }
        }
    };
    let leaders = l.leaders.len();
    // A lone member whose destination and source do not overlap takes another node's blocks
    // straight into its destination where they are one run of it (that node's members
    // consecutive, the elements packed): they may land there while it still reads its source.
    let apart = !ranges_overlap(dest.addr(), dspan, source.addr(), sspan);
    let direct = |j: usize| run(&nodes[j]).filter(|_| mine.len() == 1 && b.dst == 1 && apart);
    // The others' blocks into `inbox`, node after node.
    let boxed: usize = (0..leaders)
        .filter(|&j| j != l.node && direct(j).is_none())
        .map(|j| nodes[j].len() * mine.len() * nbytes)
        .sum();
    let mut inbox = Scratch::<u8>::new(boxed);
    let boxes = Dst::of(&mut inbox[..]);
    let mut unboxed = Vec::new();
    let mut incoming = Vec::with_capacity(leaders - 1);
    let mut at = 0;
    // In the order the leaders send to this one: leader `node - k` sends here `k`-th.
    for j in (1..leaders).map(|k| (l.node + leaders - k) % leaders) {
        let len = nodes[j].len() * mine.len() * nbytes;
        let into = match direct(j) {
            // Node j's blocks of this PE's destination, one run of it, apart from its source;
            // nothing else reads or writes it during the call.
            Some(first) => dests[0].part(first * nbytes, len),
            None => {
                unboxed.push((j, at));
                at += len;
                // Node j's alone.
                boxes.part(at - len, len)
            }
        };
        incoming.push(Incoming {
            from: l.leaders[j],
            step: j as u64,
            into,
        });
    }
    // Posts the receives, sends this node's blocks to each other node, then waits for the rest.
    msg.receive_all_after(&mut incoming, || {
        // Node `me + 1` first, so that the leaders do not all send to the same one at once.
        for j in (1..leaders).map(|k| (l.node + k) % leaders) {
            let len = mine.len() * nodes[j].len() * nbytes;
            let bytes = match run(&nodes[j]) {
                // Node j's blocks of this PE's source, one run of it (a single member here, node
                // j's members consecutive, the elements packed), not written meanwhile (a
                // destination that overlaps it takes nothing before the sends are done).
                Some(first) if mine.len() == 1 && b.sst == 1 => {
                    sources[0].part(first * nbytes, len)
                }
                _ => {
                    pack_for(j);
                    packed.src().part(0, len)
                }
            };
            msg.send(l.leaders[j], l.node as u64, bytes);
        }
    });
    drop(incoming);
    // This node's own blocks: all read before any destination is written (only a destination apart
    // from every source took blocks in place), as `dest` may overlap `source`.
    pack_for(l.node);
    unpack_from(l.node, packed.src());
    for (j, at) in unboxed {
        // Node j's region of `inbox`, complete.
        unpack_from(j, boxes.src().after(at));
    }
    shm::order();
    for &i in &l.locals {
        sig.tell(m.world(i), Word::Release);
    }
    true
}
