//! Large broadcasts and reductions, fcollect and collect, for groups on more than one node: shared
//! memory inside each node, and among the `L` node leaders a scatter (or reduce-scatter) then an
//! all-gather by chunks, so that each leader moves about `len` bytes (broadcast) or `2 * len`
//! (reduction) whatever `L`, where the binomial tree of `collectives::tree` moves `len` per child
//! on each of `ceil(log2 L)` levels (`node` elects the leaders and signals). fcollect and collect
//! gather each node's blocks at its leader, which gets the other nodes' from their leaders: by
//! messages in `log2 L` rounds of recursive doubling where the network carries them and the
//! data is at most `message::LARGEST` in all, else by one get from each ([`fcollect`],
//! [`collect`]).
//!
//! The data is cut into `L` chunks ([`split::chunk`]); leader `k` (in node order) owns chunk `k`.
//! - reduction: each leader combines its node's sources in member order into its node's partial
//!   result and stores it in its own destination; after the leaders' barrier (`ready`) leader `k`
//!   fetches chunk `k` of every other leader's partial, combines the `L` partials in node order,
//!   and puts the result into chunk `k` of every leader's destination. So every element is
//!   combined in one fixed order (members in member order within a node, nodes in node order),
//!   the same on every PE and in every run of the same shape: floating-point results do not
//!   depend on timing, though they need not be the serial member-order fold's (the spec promises
//!   an associative operation, not an order).
//! - broadcast: after the leaders' barrier (`ready`: every destination is free, the root's source
//!   ready) leader `k` fetches chunk `k` of the root's source into its destination (the root's own
//!   leader, the root itself, has it already) and puts it into every other leader's destination.
//!
//! Then a second leaders' barrier (`done`: every chunk is everywhere) and each leader copies the
//! result into its node's members' destinations and releases them. Messages per leader:
//! `2 (L - 1)` gets and puts (broadcast `L`), plus `2 ceil(log2 L)` signals.
//!
//! Where the network carries messages and the data is at most `message::LARGEST`, a broadcast
//! goes without the barriers: the root sends chunk `k` to leader `k` as a message, and the leaders
//! all-gather the chunks by recursive doubling ([`exchange_blocks`]): `log2 L` messages a leader
//! (the root `L - 1` more), each chunk received once by each leader.
//!
//! Invariants: only leader `k` reads or writes chunk `k` of another leader's destination between
//! the two barriers (a leader writes its partial into its own destination before `ready`), so no
//! chunk has two writers; a member that is not a leader returns only when its leader released it,
//! after which nobody reads its source or writes its destination in this call. Every member
//! decides to take this path from the call's arguments and the node table alone ([`takes`]), and
//! every member starts the same three signal sets ([`Sig`]), leaders or not, so their epochs stay
//! equal. Memory is reached through checked ranges ([`Src`], [`Dst`]) alone.

use super::Coll;
use super::call::{Acc, Combine, fold_in};
use super::message::{self, Doubling, Messages, STEP_EXTRA, STEP_RESULT};
use super::node::{self, Layout, Sig, Word};
use super::scratch::Scratch;
use super::split::{self, chunk};
use crate::transport::shm::{self, Dst, Plain, Src};
use std::mem::size_of;
use std::rc::Rc;

/// The fewest leaders for which this path takes a broadcast or reduction: with 2 or 3 the tree's
/// root moves `len` or `2 len`, no more than here, in fewer messages.
pub const RING_LEADERS: usize = 4;

/// The smallest chunk (bytes per leader) for which this path takes a broadcast or reduction: below
/// it the `2 (L - 1)` messages cost more than the tree's `ceil(log2 L) - 2` extra copies of the
/// data on the busiest link (measured under `scripts/netns-hosts`: the bench journal,
/// 2026-12-01, "Large messages between nodes", `git show f57c210:bench/README.md`).
pub const RING_CHUNK: usize = 32 * 1024;

/// Whether a broadcast or reduction of `len` bytes over `leaders` node leaders takes this path.
pub fn takes(len: usize, leaders: usize) -> bool {
    leaders >= RING_LEADERS && len >= leaders * RING_CHUNK
}

/// The layout for a call of `len` bytes into `dest`, if this path takes it.
fn take(c: &Coll, dest: usize, len: usize, root: Option<usize>) -> Option<Rc<Layout>> {
    if len < RING_LEADERS * RING_CHUNK || c.w.locate(dest, len).is_none() {
        return None;
    }
    node::layout(c.w, &c.g.members, root).filter(|l| takes(len, l.leaders.len()))
}

/// The three signal sets of a call: members to and from their leader, then the leaders' two
/// barriers. Every member of the group starts all three.
fn signals<'a>(c: &Coll<'a>) -> [Sig<'a>; 3] {
    [0, 1, 2].map(|_| Sig::new(c.w, c.call, &c.g))
}

/// The leader's last step: `data` (the result) into its node's members' copies of the symmetric
/// `dest`, then their release (every local member arrived).
fn release(c: &Coll, s: &Sig, l: &Layout, dest: usize, data: Src<'_>) {
    let m = &c.g.members;
    split::writing(c, |w| {
        for &i in &l.locals {
            // The member arrived, so its destination is free; it is mapped (same node).
            split::write_to(c, w, i, dest, data.len(), 0, data);
        }
    });
    for &i in &l.locals {
        s.tell(m.world(i), Word::Release);
    }
}

/// The leader's combination of its node's `source`s (symmetric), its members in member order:
/// the same bits whatever the timing, since the order is the team's shape. Every member of the
/// node has arrived.
pub(super) fn node_partial<T: Plain>(
    c: &Coll,
    l: &Layout,
    source: Src<'_>,
    combine: Combine<T>,
) -> Scratch<T> {
    let len = source.len();
    let mut order = l.locals.clone();
    order.push(c.g.members.me);
    order.sort_unstable();
    // The first source overwrites it all.
    let mut partial = Scratch::<T>::new(len / size_of::<T>());
    let acc = Dst::of(&mut partial[..]);
    for (k, &i) in order.iter().enumerate() {
        let view = c.peer("source", source.addr(), len, i, (0, len));
        fold_in(combine, acc, view.src(), k == 0);
    }
    partial
}

/// A reduction over a group on several nodes by reduce-scatter and all-gather among the leaders
/// (true), or false if another algorithm should run.
pub fn reduce<T: Plain>(c: &Coll, dest: Dst<'_>, source: Src<'_>, combine: Combine<T>) -> bool {
    let sz = size_of::<T>();
    let len = source.len();
    let n = len / sz;
    let Some(l) = take(c, dest.addr(), len, None) else {
        return false;
    };
    let dest = dest.part(0, len);
    let [local, ready, done] = signals(c);
    let m = &c.g.members;
    if node::gather_at_leader(&local, &l, m) {
        return true;
    }
    // Every member of the node arrived.
    let partial = node_partial(c, &l, source, combine);
    // Our source (maybe the same) is read already.
    dest.copy_from(Src::of(&partial[..]));
    shm::order();
    node::disseminate(&ready, &l, m);
    let nl = l.leaders.len();
    let (lo, hi) = chunk(n, nl, l.node);
    let w = hi - lo;
    // parts[j]: leader j's partial of our chunk; every part is written before it is read.
    let mut parts = Scratch::<T>::new(w * nl);
    let all = Dst::of(&mut parts[..]);
    c.fetching(|f| {
        for j in 0..nl {
            let to = all.part(j * w * sz, w * sz);
            if j == l.node {
                to.copy_from(Src::of(&partial[lo..hi]));
            } else {
                // Only we read chunk `lo..hi` of leader j's destination, where its partial is
                // since `ready`.
                f.fetch("dest", l.leaders[j], dest.addr(), len, lo * sz, to);
            }
        }
    });
    let first = all.part(0, w * sz);
    for j in 1..nl {
        combine(Acc::new(first), all.src().part(j * w * sz, w * sz));
    }
    split::writing(c, |s| {
        for j in 0..nl {
            // Chunk `lo..hi` of every leader's destination is ours to write (its owner read it
            // above); `first` lives until the scope ends.
            split::write_to(c, s, l.leaders[j], dest.addr(), len, lo * sz, first.src());
        }
    });
    node::disseminate(&done, &l, m);
    // Our destination holds the whole result now.
    release(c, &local, &l, dest.addr(), dest.src());
    true
}

/// A broadcast over a group on several nodes by scatter and all-gather among the leaders (true),
/// or false if another algorithm should run.
pub fn broadcast(c: &Coll, dest: Dst<'_>, source: Src<'_>, root: usize, to_root: bool) -> bool {
    let nbytes = source.len();
    let Some(l) = take(c, dest.addr(), nbytes, Some(root)) else {
        return false;
    };
    let dest = dest.part(0, nbytes);
    let [local, ready, done] = signals(c);
    let by_messages = message::carried(c) && nbytes <= message::LARGEST;
    let messages = by_messages.then(|| Messages::of(c, &local));
    let m = &c.g.members;
    if node::gather_at_leader(&local, &l, m) {
        return true;
    }
    if let Some(msg) = messages {
        // Every local member arrived.
        broadcast_by_messages(c, &local, &l, &msg, dest, source, root, to_root);
        return true;
    }
    shm::order();
    node::disseminate(&ready, &l, m);
    let nl = l.leaders.len();
    let (lo, hi) = chunk(nbytes, nl, l.node);
    let is_root = m.me == root;
    let mine = if is_root {
        c.w.local(c.call, "source", source.addr(), nbytes);
        if to_root {
            dest.part(lo, hi - lo).copy_from(source.part(lo, hi - lo));
        }
        source.part(lo, hi - lo)
    } else {
        // Our destination is free; only we write its chunk `lo..hi` in this call.
        let to = dest.part(lo, hi - lo);
        c.fetching(|f| f.fetch("source", root, source.addr(), nbytes, lo, to));
        to.src()
    };
    split::writing(c, |s| {
        for j in (0..nl).filter(|&j| j != l.node) {
            if l.leaders[j] == root && !to_root {
                continue;
            }
            // Our chunk is not written until the scope ends; only we write chunk `lo..hi` of
            // another leader's destination.
            split::write_to(c, s, l.leaders[j], dest.addr(), nbytes, lo, mine);
        }
    });
    node::disseminate(&done, &l, m);
    // The root's source or our destination holds the whole broadcast now.
    let data = if is_root && !to_root {
        source
    } else {
        dest.src()
    };
    release(c, &local, &l, dest.addr(), data);
    true
}

/// Step of the root's message of a chunk to its leader in [`broadcast_by_messages`] (apart from
/// [`exchange_blocks`]'s steps, which stop below it).
const STEP_SCATTER: u64 = STEP_RESULT - 1;

/// The leaders' part of a broadcast by messages: the root sends chunk `k` of its source to leader
/// `k` (no handshake: every leader's own chunk arrives before it can take part in the exchange,
/// and the root returns only after every leader's messages of the exchange reached it), then the
/// leaders all-gather the chunks ([`exchange_blocks`]), and each releases its node. The root reads
/// its source and writes its destination only if `to_root`.
///
/// This PE leads its node (the root's node's leader is the root) and every local member arrived.
#[allow(clippy::too_many_arguments)]
fn broadcast_by_messages(
    c: &Coll,
    local: &Sig,
    l: &Layout,
    msg: &Messages,
    dest: Dst<'_>,
    source: Src<'_>,
    root: usize,
    to_root: bool,
) {
    let nbytes = source.len();
    let nl = l.leaders.len();
    let blocks: Vec<(usize, usize)> = (0..nl)
        .map(|k| {
            let (lo, hi) = chunk(nbytes, nl, k);
            (lo, hi - lo)
        })
        .collect();
    let owner: Vec<usize> = (0..nl).collect();
    let is_root = c.g.members.me == root;
    let (from, into, data) = if is_root {
        c.w.local(c.call, "source", source.addr(), nbytes);
        for k in (0..nl).filter(|&k| k != l.node) {
            let (lo, len) = blocks[k];
            msg.send(l.leaders[k], STEP_SCATTER, source.part(lo, len));
        }
        if to_root {
            dest.copy_from(source);
        }
        let data = if to_root { dest.src() } else { source };
        (source, None, data)
    } else {
        let (lo, len) = blocks[l.node];
        // Our destination is free; only we write it in this call.
        msg.receive(root, STEP_SCATTER, dest.part(lo, len));
        (dest.src(), Some(dest), dest.src())
    };
    // `from` holds our chunk (the root's source holds all), `into` is our free destination.
    exchange_blocks(l, msg, &blocks, &owner, from, into);
    // `data` holds the whole broadcast now.
    release(c, local, l, dest.addr(), data);
}

/// `fcollect` over a group on several nodes (true), or false if another algorithm should run:
/// each leader copies its node's blocks into its destination; then by messages
/// ([`exchange_blocks`]), or after the leaders' barrier (`ready`) it fetches every other node's
/// blocks from that node's leader, one get per run of
/// consecutive members on one node (one per node for members placed by blocks), so each leader
/// receives the other nodes' `(N - P) * nbytes` bytes once, and its node's members none.
///
pub fn fcollect(c: &Coll, dest: Dst<'_>, source: Src<'_>) -> bool {
    let m = &c.g.members;
    let nbytes = source.len();
    let total = m.size * nbytes;
    if nbytes == 0 || c.w.locate(dest.addr(), total).is_none() {
        return false;
    }
    let Some(l) = node::layout(c.w, m, None) else {
        return false;
    };
    let dest = dest.part(0, total);
    let [local, ready, done] = signals(c);
    let by_messages = message::carried(c) && total <= message::LARGEST;
    let messages = by_messages.then(|| Messages::of(c, &local));
    if node::gather_at_leader(&local, &l, m) {
        return true;
    }
    for &i in l.locals.iter().chain([&m.me]) {
        let view = c.peer("source", source.addr(), nbytes, i, (0, nbytes));
        dest.part(i * nbytes, nbytes).copy_from(view.src());
    }
    let node_of = &l.node_of;
    if let Some(msg) = messages {
        let blocks: Vec<(usize, usize)> = (0..m.size).map(|i| (i * nbytes, nbytes)).collect();
        // Our destination holds our node's blocks.
        exchange_blocks(&l, &msg, &blocks, node_of, dest.src(), Some(dest));
        // Our destination holds every block now.
        release(c, &local, &l, dest.addr(), dest.src());
        return true;
    }
    shm::order();
    node::disseminate(&ready, &l, m);
    c.fetching(|f| {
        let mut i = 0;
        while i < m.size {
            let k = node_of[i];
            let mut end = i + 1;
            while end < m.size && node_of[end] == k {
                end += 1;
            }
            if k != l.node {
                // Blocks `i..end` of our destination are written by nobody else in this call;
                // leader k's hold its node's blocks since `ready`.
                let to = dest.part(i * nbytes, (end - i) * nbytes);
                f.fetch("dest", l.leaders[k], dest.addr(), total, i * nbytes, to);
            }
            i = end;
        }
    });
    node::disseminate(&done, &l, m);
    // Our destination holds every block now.
    release(c, &local, &l, dest.addr(), dest.src());
    true
}

/// The leaders' all-gather by messages, recursive doubling ([`Doubling`]). `blocks` are byte ranges `(offset,
/// length)` of the data, block `b` held at first by the leader of node `owner[b]`; every leader
/// reads the blocks it holds at `from` and writes those it receives at `into` (none: it holds
/// them all already, and only takes part). With `P` the largest power of two not above the number
/// of leaders `L`, leader `P + j` first sends its node's blocks to leader `j`; then in round `r`
/// (`r < log2 P`) each of the first `P` leaders sends the leader `2^r` away (its index with bit
/// `r` flipped) every block it holds, those of the `2^r` leaders of its half of the pair's range
/// and of their extra leaders, and receives as many; at the end leader `j` sends leader `P + j`
/// every block but its own node's. A message packs its blocks in block order; sender and receiver
/// know which they are from `owner` alone. Each leader sends `log2 P` messages (one more for the
/// leaders with an extra one; the extras send one), in as many rounds, two more where `L` is not
/// a power of two.
///
/// `from` holds the blocks this leader holds (its node's), `into` (if any) holds every block and
/// is written by nobody else in this call; this PE leads its node.
fn exchange_blocks(
    l: &Layout,
    msg: &Messages,
    blocks: &[(usize, usize)],
    owner: &[usize],
    from: Src<'_>,
    into: Option<Dst<'_>>,
) {
    let me = l.node;
    let d = Doubling::new(l.leaders.len(), me);
    let p = d.p;
    // The leader among the first `P` that holds node `k`'s blocks from the first step on.
    let holder = |k: usize| if k >= p { k - p } else { k };
    // The blocks `pick` selects by owner, in block order.
    let picked = |pick: &dyn Fn(usize) -> bool| -> Vec<usize> {
        (0..blocks.len()).filter(|&b| pick(owner[b])).collect()
    };
    // Blocks that follow each other in memory: one range, sent and received in place.
    let span = |which: &[usize]| -> Option<(usize, usize)> {
        let &first = which.first()?;
        let (at, mut len) = blocks[first];
        for &b in &which[1..] {
            if blocks[b].0 != at + len {
                return None;
            }
            len += blocks[b].1;
        }
        Some((at, len))
    };
    let total: usize = blocks.iter().map(|b| b.1).sum();
    // Written before it is read.
    let mut packed = Scratch::<u8>::new(total);
    let mut send = |to: usize, step: u64, which: &[usize]| {
        if let Some((at, len)) = span(which) {
            // `from` holds these blocks (this leader holds them by now).
            return msg.send(l.leaders[to], step, from.part(at, len));
        }
        let mut len = 0;
        for &b in which {
            let (at, size) = blocks[b];
            from.part(at, size).read_into(&mut packed[len..len + size]);
            len += size;
        }
        msg.send(l.leaders[to], step, Src::of(&packed[..len]));
    };
    let mut got = Scratch::<u8>::new(total);
    // `meanwhile` runs once the receive is posted (this leader's own send of the round).
    let mut receive = |source: usize, step: u64, which: &[usize], meanwhile: &mut dyn FnMut()| {
        if let (Some(into), Some((at, len))) = (into, span(which)) {
            // These blocks of `into`, written by nobody else in this call.
            return msg.receive_after(l.leaders[source], step, into.part(at, len), meanwhile);
        }
        let len = which.iter().map(|&b| blocks[b].1).sum();
        msg.receive_after(l.leaders[source], step, Dst::of(&mut got[..len]), meanwhile);
        let Some(into) = into else {
            return;
        };
        let mut at_got = 0;
        for &b in which {
            let (at, size) = blocks[b];
            // Block `b` of `into`, written by nobody else in this call.
            into.part(at, size)
                .copy_from(Src::of(&got[at_got..at_got + size]));
            at_got += size;
        }
    };
    if let Some(j) = d.served_by() {
        let mine = picked(&|k| k == me);
        receive(j, STEP_RESULT, &picked(&|k| k != me), &mut || {
            send(j, STEP_EXTRA, &mine)
        });
        return;
    }
    if let Some(extra) = d.serves() {
        receive(extra, STEP_EXTRA, &picked(&|k| k == extra), &mut || ());
    }
    for (round, step, partner) in d.rounds() {
        // The nodes whose blocks leader `x` holds before this round: those held by the `2^round`
        // leaders of its aligned range.
        let range = |x: usize| {
            let first = x & !((1usize << round) - 1);
            move |k: usize| (first..first + (1 << round)).contains(&holder(k))
        };
        let mine = picked(&range(me));
        receive(partner, step, &picked(&range(partner)), &mut || {
            send(partner, step, &mine)
        });
    }
    if let Some(extra) = d.serves() {
        send(extra, STEP_RESULT, &picked(&|k| k != extra));
    }
}

/// How many bytes of runs a message of collect's first exchange carries beside their nodes'
/// totals: where those runs add up to more, it carries the totals alone. A collect of at most this
/// much in all is done in that one exchange.
const INLINE: usize = 16 << 10;

/// What a leader knows during and after collect's first exchange ([`exchange_runs`]).
struct Runs {
    /// Every node's total, once this leader heard of it.
    totals: Vec<usize>,
    /// Where each node's run is in `held`, for the nodes whose run this leader holds.
    at: Vec<Option<usize>>,
    /// The runs (and the totals' words of each message received, left in place).
    held: Scratch<u8>,
    /// How much of `held` is taken.
    end: usize,
}

impl Runs {
    /// The runs of `nodes` (whose totals this leader knows) add up to this (saturating: the
    /// totals come from the network).
    fn sum(&self, nodes: &[usize]) -> usize {
        nodes
            .iter()
            .fold(0, |sum, &k| sum.saturating_add(self.totals[k]))
    }

    /// Whether the runs of `nodes` travel with their totals.
    fn fit(&self, nodes: &[usize]) -> bool {
        self.sum(nodes) <= INLINE
    }

    /// Packs the message of `nodes` into `packed`; returns its length.
    fn pack(&self, nodes: &[usize], packed: &mut [u8]) -> usize {
        let mut len = 0;
        for &k in nodes {
            packed[len..len + 8].copy_from_slice(&(self.totals[k] as u64).to_ne_bytes());
            len += 8;
        }
        if self.fit(nodes) {
            for &k in nodes {
                let (from, n) = (
                    self.at[k].expect("the runs of a group that fits are held"),
                    self.totals[k],
                );
                packed[len..len + n].copy_from_slice(&self.held[from..from + n]);
                len += n;
            }
        }
        len
    }

    /// Takes leader `from`'s message of step `step`, on `nodes`, sending `send` (to, step, bytes)
    /// once its receive is posted.
    fn take(
        &mut self,
        l: &Layout,
        msg: &Messages,
        from: usize,
        step: u64,
        nodes: &[usize],
        send: Option<(usize, u64, &[u8])>,
    ) {
        let end = self.end;
        let into = &mut self.held[end..end + 8 * nodes.len() + INLINE];
        let got = msg.receive_some_after(l.leaders[from], step, Dst::of(&mut into[..]), || {
            if let Some((to, step, bytes)) = send {
                msg.send(l.leaders[to], step, Src::of(bytes));
            }
        });
        let words = 8 * nodes.len();
        if got < words {
            msg.malformed(l.leaders[from], got, "collect's totals and runs");
        }
        for (j, &k) in nodes.iter().enumerate() {
            let word = into[8 * j..8 * j + 8].try_into().expect("eight bytes");
            self.totals[k] = u64::from_ne_bytes(word) as usize;
        }
        let fit = self.fit(nodes);
        let runs = if fit { self.sum(nodes) } else { 0 };
        if got != words + runs {
            msg.malformed(l.leaders[from], got, "collect's totals and runs");
        }
        if fit {
            let mut at = end + words;
            for &k in nodes {
                self.at[k] = Some(at);
                at += self.totals[k];
            }
        }
        self.end = end + got;
    }
}

/// collect's first exchange among the leaders: every node's total, and the runs with them as far
/// as they fit in [`INLINE`]. Recursive doubling as [`exchange_blocks`], a block a node; a message
/// holds the totals of the nodes it covers (one word each, in node order), then their runs in the
/// same order if those add up to at most `INLINE`. Sender and receiver tell which from the totals
/// alone; a leader holds the run of every node of a group whose runs fit, as every group it
/// received before is part of it. So where the runs add up to at most `INLINE` in all, every
/// leader holds them all at the end. `gather` writes this node's run (`ours` bytes) into the
/// buffer it is given.
fn exchange_runs(l: &Layout, msg: &Messages, ours: usize, gather: impl FnOnce(&mut [u8])) -> Runs {
    let (me, n) = (l.node, l.leaders.len());
    let d = Doubling::new(n, me);
    let p = d.p;
    let holder = |k: usize| if k >= p { k - p } else { k };
    let nodes =
        |pick: &dyn Fn(usize) -> bool| -> Vec<usize> { (0..n).filter(|&k| pick(k)).collect() };
    // Our run, then each message received: its totals and the runs it carries.
    let receives = d.rounds().count() + 1;
    let mut runs = Runs {
        totals: vec![0; n],
        at: vec![None; n],
        // Every byte is written before it is read.
        held: Scratch::new(INLINE + receives * (8 * n + INLINE)),
        end: 0,
    };
    let mut packed = Scratch::<u8>::new(8 * n + INLINE);
    runs.totals[me] = ours;
    if ours <= INLINE {
        gather(&mut runs.held[..ours]);
        runs.at[me] = Some(0);
        runs.end = ours;
    }
    if let Some(j) = d.served_by() {
        let len = runs.pack(&[me], &mut packed);
        runs.take(
            l,
            msg,
            j,
            STEP_RESULT,
            &nodes(&|k| k != me),
            Some((j, STEP_EXTRA, &packed[..len])),
        );
        return runs;
    }
    if let Some(extra) = d.serves() {
        runs.take(l, msg, extra, STEP_EXTRA, &[extra], None);
    }
    for (round, step, partner) in d.rounds() {
        // The nodes whose runs leader `x` holds before this round (as in `exchange_blocks`).
        let range = |x: usize| {
            let first = x & !((1usize << round) - 1);
            move |k: usize| (first..first + (1 << round)).contains(&holder(k))
        };
        let len = runs.pack(&nodes(&range(me)), &mut packed);
        runs.take(
            l,
            msg,
            partner,
            step,
            &nodes(&range(partner)),
            Some((partner, step, &packed[..len])),
        );
    }
    if let Some(extra) = d.serves() {
        let len = runs.pack(&nodes(&|k| k != extra), &mut packed);
        msg.send(l.leaders[extra], STEP_RESULT, Src::of(&packed[..len]));
    }
    runs
}

/// Copies the run of members `run` (member, length), each one's copy of the symmetric `source`,
/// to the start of `to` (written by nobody else in this call).
fn copy_run(c: &Coll, run: &[(usize, usize)], source: usize, to: Dst<'_>) {
    let mut at = 0;
    for &(i, len) in run {
        let view = c.peer("source", source, len, i, (0, len));
        to.part(at, len).copy_from(view.src());
        at += len;
    }
}

/// `collect` over a group on several nodes that each hold a run of consecutive members (true), or
/// false if another algorithm should run. Every member publishes its length and arrives at its
/// leader, and each leader learns the other nodes' totals, so that it knows where each node's run
/// goes, and copies its own run there in its destination. Where the network carries messages the
/// leaders all-gather the totals by recursive doubling, with the runs as long as they are small
/// ([`exchange_runs`]): a collect of at most [`INLINE`] bytes in all is done then, in `log2 L`
/// messages a leader and no barrier. A larger one of at most `message::LARGEST` then all-gathers
/// the runs the same way, received in place ([`exchange_blocks`]; the two exchanges reuse the
/// steps between the same leaders, and one sender's messages of one tag are taken in order).
/// Without messages each leader publishes its node's total and, after the leaders' first barrier
/// (`sizes`), loads the others (one get each, all at once). Then, without messages or with more
/// data, after the second barrier (`ready`) a leader fetches each other node's run from that
/// node's leader (one get each, all at once), and after the third (`done`: nobody reads its
/// destination any more) copies the result to its members: `2 (L - 1)` messages a leader and `3
/// ceil(log2 L)` signals, the other members none, where the flat collect costs every PE a load
/// and a get per member off its node.
///
/// `dest(len)` is the first `len` bytes of the destination, whose length the call learns.
pub fn collect<'d>(c: &Coll, dest: &dyn Fn(usize) -> Dst<'d>, source: Src<'_>) -> bool {
    let m = &c.g.members;
    let nbytes = source.len();
    // The lengths differ between members, so the choice may not depend on them.
    if c.w.locate(dest(0).addr(), 1).is_none() {
        return false;
    }
    let carried = message::carried(c);
    // With one member per node and no messages the flat collect is the same plan without the
    // `sizes` barrier.
    let Some(l) =
        node::layout(c.w, m, None).filter(|l| l.in_runs && (carried || l.leaders.len() < m.size))
    else {
        return false;
    };
    let [local, sizes, ready, done] = [0, 1, 2, 3].map(|_| Sig::new(c.w, c.call, &c.g));
    let messages = carried.then(|| Messages::of(c, &local));
    c.publish(0, nbytes as u64);
    if node::gather_at_leader(&local, &l, m) {
        return true;
    }
    // Our node's run: the leader first, then the others in member order.
    let run: Vec<(usize, usize)> = std::iter::once((m.me, nbytes))
        .chain(l.locals.iter().map(|&i| (i, c.published(i, 0) as usize)))
        .collect();
    let ours: usize = run.iter().map(|&(_, len)| len).sum();
    let leaders = l.leaders.len();
    let (totals, runs) = match &messages {
        Some(msg) => {
            // The buffer `gather` is given holds `ours` bytes.
            let runs = exchange_runs(&l, msg, ours, |into| {
                copy_run(c, &run, source.addr(), Dst::of(into))
            });
            (runs.totals.clone(), Some(runs))
        }
        None => {
            c.publish(1, ours as u64);
            shm::order();
            node::disseminate(&sizes, &l, m);
            let mut totals: Vec<usize> = c
                .published_each(&l.leaders, 1)
                .into_iter()
                .map(|t| t as usize)
                .collect();
            totals[l.node] = ours;
            (totals, None)
        }
    };
    let total = totals.iter().fold(0usize, |sum, &t| sum.saturating_add(t));
    let starts: Vec<usize> = totals
        .iter()
        .scan(0usize, |at, &len| {
            let start = *at;
            *at = at.saturating_add(len);
            Some(start)
        })
        .collect();
    if total > 0 {
        c.w.local(c.call, "dest", dest(0).addr(), total);
    }
    let dest = dest(total);
    if let Some(runs) = runs.as_ref().filter(|_| total <= INLINE) {
        for k in 0..leaders {
            let from = runs.at[k].expect("every run is held where they add up to at most INLINE");
            // `held` has run `k` at `from`.
            dest.part(starts[k], totals[k])
                .copy_from(Src::of(&runs.held[from..from + totals[k]]));
        }
        // Our destination holds every member's contribution now.
        release(c, &local, &l, dest.addr(), dest.src());
        return true;
    }
    // Our node's run at its start.
    copy_run(c, &run, source.addr(), dest.after(starts[l.node]));
    let nodes: Vec<usize> = (0..leaders).collect();
    if let Some(msg) = messages.as_ref().filter(|_| total <= message::LARGEST) {
        let blocks: Vec<(usize, usize)> = (0..leaders).map(|k| (starts[k], totals[k])).collect();
        // Our destination holds our node's run.
        exchange_blocks(&l, msg, &blocks, &nodes, dest.src(), Some(dest));
        // Our destination holds every member's contribution now.
        release(c, &local, &l, dest.addr(), dest.src());
        return true;
    }
    shm::order();
    node::disseminate(&ready, &l, m);
    c.fetching(|f| {
        for k in (0..leaders).filter(|&k| k != l.node) {
            let (start, len) = (starts[k], totals[k]);
            // This range of our destination is written by nobody else in this call; leader k's
            // holds its node's run since `ready`.
            f.fetch(
                "dest",
                l.leaders[k],
                dest.addr(),
                total,
                start,
                dest.part(start, len),
            );
        }
    });
    node::disseminate(&done, &l, m);
    // Our destination holds every member's contribution now.
    release(c, &local, &l, dest.addr(), dest.src());
    true
}

#[cfg(test)]
mod tests {
    use super::{RING_CHUNK, RING_LEADERS, takes};

    #[test]
    fn small_calls_and_few_nodes_take_the_tree() {
        assert!(!takes(1 << 30, 1));
        assert!(!takes(1 << 30, RING_LEADERS - 1));
        assert!(!takes(RING_LEADERS * RING_CHUNK - 1, RING_LEADERS));
        assert!(takes(RING_LEADERS * RING_CHUNK, RING_LEADERS));
        assert!(!takes(64 * RING_CHUNK - 1, 64));
        assert!(takes(64 * RING_CHUNK, 64));
    }
}
