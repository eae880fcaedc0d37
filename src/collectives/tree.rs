//! Broadcasts and reductions below the threshold of `collectives::ring`, and scans, for groups on
//! more than one node: shared memory inside each node, a binomial tree (or recursive doubling) of
//! node leaders on the network ([`node`] elects them and signals).
//!
//! The tree over `L` leaders, rooted at leader `r`: the leader at distance `v` from the root
//! (`v = k - r` modulo `L`) has as parent the leader at `v - 2^j`, `j` the lowest set bit of `v`,
//! and as children those at `v + 2^i` for every `i < j` (every `i` at the root). A child of round
//! `i` is always the leader `2^i` places after its parent, whatever the root, so the word it
//! reports in (`up[i]`) has one writer (see `node`).
//!
//! The leaders send the data as messages of the network ([`super::message`]), not into each
//! other's memory; where the network carries none, these paths are not taken (the flat ones are):
//! - broadcast: each leader takes its parent's message into its destination (the root starts
//!   from its source), sends one to each child and delivers to its node's members. Nobody waits
//!   for a child, so a root runs ahead of its readers, but by at most the network's run-ahead of
//!   messages: then it waits for each child's word that it is in the call (`up[i]`, below)
//!   before its message goes ([`Messages::handshake`]). `ceil(log2 L)` messages for the root,
//!   one hop each level.
//! - reduction: recursive doubling among the leaders ([`exchange`]), `log2 L` exchanges (two more
//!   steps where `L` is not a power of two), then each leader delivers the result to its node.
//!   The order of combination is fixed by the shape alone (each node's members in member order,
//!   then the nodes' partials as [`exchange`] pairs them), so a floating-point result is the same
//!   on every member and in every run, though it may differ in its last bits (or the sign of a
//!   zero) from a serial fold in member order: the spec asks for an associative operation, and
//!   promises no order.
//! - data larger than `message::LARGEST` goes as a sequence of calls on pieces of it.
//!
//! And by puts and signals:
//! - scan (the tree rooted at the first node, when each node holds a run of consecutive members):
//!   a reduction's way up, leaving each subtree's total in its leader's destination; on the way
//!   down each child receives what comes before its subtree, and each leader writes its members'
//!   results (see [`scan`]).
//!
//! Invariants: a leader writes a member's destination only after that member arrived and reads a
//! child's destination only after the child reported; a member returns only when nobody will read
//! its source or destination any more in this call, so no closing barrier is needed. Used only for
//! symmetric destinations, and for broadcasts and reductions only below the threshold of
//! `collectives::ring`: every member decides the same way from the call's arguments and the node
//! table. Memory is reached through checked ranges ([`Src`], [`Dst`]) alone.

use super::Coll;
use super::call::{Acc, Combine};
use super::message::{self, Doubling, Messages, STEP_EXTRA, STEP_RESULT};
use super::node::{self, Layout, Sig, TREE_ROUNDS, Word};
use super::ring;
use super::scratch::Scratch;
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote;
use crate::runtime::world::Target;
use crate::transport::shm::memory::zeroed;
use crate::transport::shm::{self, Dst, Plain, Src};
use std::mem::size_of;
use std::rc::Rc;

/// A leader in the tree and the round of the link to it: `(leader index, round)`.
type Link = (usize, usize);

/// This leader's parent and children in the binomial tree over `n` leaders rooted at `root`.
fn links(n: usize, root: usize, k: usize) -> (Option<Link>, Vec<Link>) {
    let v = (k + n - root) % n;
    let mut children = Vec::new();
    let mut j = 0;
    while (1usize << j) < n {
        let bit = 1usize << j;
        if v & bit != 0 {
            return (Some(((k + n - bit) % n, j)), children);
        }
        if v + bit < n {
            children.push(((k + bit) % n, j));
        }
        j += 1;
    }
    (None, children)
}

/// The layout for a tree call of `len` bytes into `dest`, if the tree algorithms take it.
fn take(c: &Coll, dest: usize, len: usize, root: Option<usize>) -> Option<Rc<Layout>> {
    c.w.locate(dest, len.max(1))?;
    node::layout(c.w, &c.g.members, root)
        .filter(|l| l.leaders.len() <= 1 << TREE_ROUNDS && !ring::takes(len, l.leaders.len()))
}

/// Copies `src` into member `i`'s copy of the symmetric `dest` (as long; mapped: a copy;
/// otherwise a blocking put, so `src` may change when this returns). Member `i`'s destination
/// must be free.
fn write_to(c: &Coll, i: usize, dest: usize, src: Src<'_>) {
    let len = src.len();
    if len == 0 {
        return;
    }
    let pe = c.g.members.world(i);
    let to = if pe == c.w.me {
        Target::Mapped(c.w.own(c.call, "dest", dest, len))
    } else {
        c.w.target(c.call, "dest", dest, len, pe)
    };
    match to {
        Target::Mapped(a) => a.copy_from(src),
        Target::Net(seg, off) => remote::put(c.w, c.call, SHMEM_CTX_DEFAULT, pe, seg, off, src),
    }
}

/// The last step of a leader: `data` into its node's members' copies of the symmetric `dest`,
/// then their release (every local member arrived).
fn deliver(c: &Coll, s: &Sig, l: &Layout, dest: usize, data: Src<'_>) {
    let m = &c.g.members;
    for &i in &l.locals {
        // The member arrived; its destination is mapped (same node).
        write_to(c, i, dest, data);
    }
    shm::order();
    for &i in &l.locals {
        s.tell(m.world(i), Word::Release);
    }
}

/// `broadcast` over a group on several nodes (true), or false if the flat or chunked algorithm
/// should run instead.
pub fn broadcast(c: &Coll, dest: Dst<'_>, source: Src<'_>, root: usize, to_root: bool) -> bool {
    let nbytes = source.len();
    if !message::carried(c) {
        return false;
    }
    let Some(l) = take(c, dest.addr(), nbytes, Some(root)) else {
        return false;
    };
    if nbytes > message::LARGEST {
        for (at, len) in message::pieces(nbytes, 1) {
            // Every member cuts the same pieces.
            let done = broadcast(c, dest.part(at, len), source.part(at, len), root, to_root);
            debug_assert!(done, "a piece takes the path its whole took");
        }
        return true;
    }
    let m = &c.g.members;
    let s = Sig::new(c.w, c.call, &c.g);
    let msg = Messages::of(c, &s);
    // Every member counts the run (a member is a leader in some calls and not in others).
    let handshake = msg.handshake(nbytes);
    let leader = m.world(l.leader());
    if m.me != l.leader() {
        s.tell(leader, Word::Arrive);
        s.hear(leader, Word::Release);
        return true;
    }
    let n = l.leaders.len();
    let root_node = l.leaders.iter().position(|&i| i == root).unwrap_or(0);
    let (parent, children) = links(n, root_node, l.node);
    let data = match parent {
        Some((p, j)) => {
            // The receive is posted before the word goes: the data lands in the destination.
            msg.receive_after(l.leaders[p], 0, dest, || {
                if handshake {
                    s.tell(m.world(l.leaders[p]), Word::Up(j));
                }
            });
            dest.src()
        }
        None => {
            if to_root {
                dest.copy_from(source);
            }
            source
        }
    };
    // The largest subtree first: its leaves are the farthest away.
    for &(k, j) in children.iter().rev() {
        if handshake {
            s.hear(m.world(l.leaders[k]), Word::Up(j));
        }
        msg.send(l.leaders[k], 0, data);
    }
    for &i in &l.locals {
        s.hear(m.world(i), Word::Arrive);
    }
    deliver(c, &s, &l, dest.addr(), data);
    true
}

/// A reduction over a group on several nodes (true), or false if the flat or chunked algorithm
/// should run instead.
pub fn reduce<T: Plain>(c: &Coll, dest: Dst<'_>, source: Src<'_>, combine: Combine<T>) -> bool {
    let sz = size_of::<T>();
    let len = source.len();
    let n = len / sz;
    if n == 0 || !message::carried(c) {
        return false;
    }
    let Some(l) = take(c, dest.addr(), len, None) else {
        return false;
    };
    if len > message::LARGEST {
        for (at, k) in message::pieces(n, sz) {
            // Every member cuts the same pieces.
            let (at, k) = (at * sz, k * sz);
            let done = reduce(c, dest.part(at, k), source.part(at, k), combine);
            debug_assert!(done, "a piece takes the path its whole took");
        }
        return true;
    }
    let m = &c.g.members;
    let s = Sig::new(c.w, c.call, &c.g);
    let msg = Messages::of(c, &s);
    if node::gather_at_leader(&s, &l, m) {
        return true;
    }
    // Every member of the node arrived.
    let mut acc = ring::node_partial(c, &l, source, combine);
    exchange(&l, &msg, &mut acc, combine);
    // Nobody reads our source any more.
    dest.copy_from(Src::of(&acc[..]));
    deliver(c, &s, &l, dest.addr(), dest.src());
    true
}

/// The leaders' reduction by messages, recursive doubling ([`Doubling`]): with `P` the largest
/// power of two not above the number of leaders `L`, leader `P + j` first sends its node's partial
/// result to leader `j`, which combines it after its own; then in round `r` (`r < log2 P`) each of
/// the first `P` leaders exchanges its partial with the leader `2^r` away (its index with bit `r`
/// flipped), and both combine the lower-indexed one's first, so both hold the same bits; at the
/// end leader `j` sends the result to leader `P + j`. Each leader sends at most `log2 P + 1`
/// messages, and a call takes `log2 P` exchanges, two more where `L` is not a power of two. The
/// order of combination is fixed by `L` alone, the same on every leader and in every run.
///
/// `acc` is this leader's node's partial result; this PE leads its node.
fn exchange<T: Plain>(l: &Layout, msg: &Messages, acc: &mut Scratch<T>, combine: Combine<T>) {
    let n = acc.len();
    let d = Doubling::new(l.leaders.len(), l.node);
    if let Some(j) = d.served_by() {
        msg.send(l.leaders[j], STEP_EXTRA, Src::of(&acc[..]));
        msg.receive(l.leaders[j], STEP_RESULT, Dst::of(&mut acc[..]));
        return;
    }
    // Each receive overwrites it all.
    let mut other = Scratch::<T>::new(n);
    if let Some(extra) = d.serves() {
        msg.receive(l.leaders[extra], STEP_EXTRA, Dst::of(&mut other[..]));
        combine(Acc::new(Dst::of(&mut acc[..])), Src::of(&other[..]));
    }
    for (_, step, partner) in d.rounds() {
        // Posted first, the partner's message finds its buffer waiting.
        let mine = Src::of(&acc[..]);
        msg.receive_after(l.leaders[partner], step, Dst::of(&mut other[..]), || {
            msg.send(l.leaders[partner], step, mine)
        });
        if partner < l.node {
            combine(Acc::new(Dst::of(&mut other[..])), Src::of(&acc[..]));
            std::mem::swap(acc, &mut other);
        } else {
            combine(Acc::new(Dst::of(&mut acc[..])), Src::of(&other[..]));
        }
    }
    if let Some(extra) = d.serves() {
        msg.send(l.leaders[extra], STEP_RESULT, Src::of(&acc[..]));
    }
}

/// The elements of `x`, as a new vector.
fn elements<T: Plain>(x: Src<'_>) -> Vec<T> {
    let mut v = vec![zeroed::<T>(); x.len() / size_of::<T>()];
    let to = Dst::of(&mut v[..]);
    to.copy_from(x.part(0, to.len()));
    v
}

/// `acc` combined with the elements of `x`, as a new vector (`x` itself when `acc` is empty: no
/// member comes before).
fn then<T: Plain>(acc: Option<&[T]>, x: Src<'_>, combine: Combine<T>) -> Vec<T> {
    match acc {
        Some(a) => {
            let mut v = a.to_vec();
            combine(Acc::new(Dst::of(&mut v[..])), x);
            v
        }
        None => elements(x),
    }
}

/// A scan over a group on several nodes whose nodes hold runs of consecutive members (true), or
/// false if the flat algorithm should run instead.
///
/// The leaders' binomial tree rooted at the first node, whose subtrees are runs of consecutive
/// leaders (leader `v`'s covers `v..v + 2^j`, `j` the lowest set bit of `v`): on the way up each
/// leader combines its node's sources, then its children's subtree totals in order (one get each,
/// after their report, from their destinations), and leaves its subtree's total in its own
/// destination for its parent; on the way down each parent puts into each child's destination the
/// combination of everything before the child's subtree, and each leader writes its node's
/// results from that prefix and its members' sources (read through shared memory), then releases
/// them. `3 ceil(log2 L)` messages for the root of `L` leaders, as a reduction.
///
pub fn scan<T: Plain>(
    c: &Coll,
    dest: Dst<'_>,
    source: Src<'_>,
    inclusive: bool,
    combine: Combine<T>,
) -> bool {
    let len = source.len();
    let n = len / size_of::<T>();
    if n == 0 || c.w.locate(dest.addr(), len).is_none() {
        return false;
    }
    let Some(l) = node::layout(c.w, &c.g.members, None)
        .filter(|l| l.leaders.len() <= 1 << TREE_ROUNDS && l.in_runs)
    else {
        return false;
    };
    let dest = dest.part(0, len);
    let m = &c.g.members;
    let s = Sig::new(c.w, c.call, &c.g);
    if node::gather_at_leader(&s, &l, m) {
        return true;
    }
    // Our own source, kept: our destination (which may be it) carries the subtree's total.
    let own: Vec<T> = elements(c.peer("source", source.addr(), len, m.me, (0, len)).src());
    // Every member of the node arrived.
    let node_total = ring::node_partial(c, &l, source, combine);
    let (parent, children) = links(l.leaders.len(), 0, l.node);
    let mut subtree = node_total.to_vec();
    let mut below: Vec<Vec<T>> = Vec::with_capacity(children.len());
    for &(k, j) in &children {
        let child = l.leaders[k];
        s.hear(m.world(child), Word::Up(j));
        // The child's subtree total.
        let total: Vec<T> = elements(c.peer("dest", dest.addr(), len, child, (0, len)).src());
        combine(Acc::new(Dst::of(&mut subtree[..])), Src::of(&total[..]));
        below.push(total);
    }
    // Everything before this node's run: from the parent, which puts it into our destination.
    let before: Option<Vec<T>> = parent.map(|(p, j)| {
        // Nobody else writes our destination before our report.
        dest.copy_from(Src::of(&subtree[..]));
        shm::order();
        s.tell(m.world(l.leaders[p]), Word::Up(j));
        s.hear(m.world(l.leaders[p]), Word::Down);
        // The parent's put has landed (its fence came before `Down`).
        elements(dest.src())
    });
    let mut running = then(before.as_deref(), Src::of(&node_total[..]), combine);
    let mut prefixes = Vec::with_capacity(children.len());
    for total in &below {
        prefixes.push(running.clone());
        combine(Acc::new(Dst::of(&mut running[..])), Src::of(&total[..]));
    }
    // The largest subtree first: its leaves are the farthest away.
    for (&(k, _), prefix) in children.iter().zip(&prefixes).rev() {
        // The child reported and we read its total, so its destination is free.
        write_to(c, l.leaders[k], dest.addr(), Src::of(&prefix[..]));
    }
    if !children.is_empty() {
        shm::order();
        remote::fence(c.w, c.call, SHMEM_CTX_DEFAULT);
        for &(k, _) in children.iter().rev() {
            s.tell(m.world(l.leaders[k]), Word::Down);
        }
    }
    // This node's results, its members in member order (the leader first: it opens the run).
    let zeros = vec![zeroed::<T>(); n];
    let mut acc = before;
    for i in std::iter::once(m.me).chain(l.locals.iter().copied()) {
        let view = (i != m.me).then(|| c.peer("source", source.addr(), len, i, (0, len)));
        let src = view.as_ref().map_or(Src::of(&own[..]), |v| v.src());
        // Read before the destination (perhaps the same) is written.
        let next = then(acc.as_deref(), src, combine);
        let result = if inclusive {
            &next
        } else {
            acc.as_ref().unwrap_or(&zeros)
        };
        // Member i arrived (or is us), its destination is free.
        write_to(c, i, dest.addr(), Src::of(&result[..]));
        acc = Some(next);
    }
    shm::order();
    for &i in &l.locals {
        s.tell(m.world(i), Word::Release);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::links;

    /// Every leader but the root has one parent, which lists it as a child of the same round,
    /// `2^round` places ahead of it.
    #[test]
    fn the_tree_is_binomial_and_consistent() {
        for n in 1..40 {
            for root in 0..n {
                let mut parents = 0;
                for k in 0..n {
                    let (parent, children) = links(n, root, k);
                    for &(c, j) in &children {
                        assert_eq!(c, (k + (1 << j)) % n);
                        assert_eq!(links(n, root, c).0, Some((k, j)));
                    }
                    match parent {
                        None => assert_eq!(k, root),
                        Some(_) => parents += 1,
                    }
                    assert!(children.len() <= (usize::BITS - n.leading_zeros()) as usize);
                }
                assert_eq!(parents, n - 1);
            }
        }
    }
}
