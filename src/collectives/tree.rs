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
//!   for a child, so a root runs ahead of its readers, but by at most `message::RUN_AHEAD` of
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
//! table.

use super::Coll;
use super::call::Combine;
use super::message::{self, Doubling, Messages, STEP_EXTRA, STEP_RESULT};
use super::node::{self, Layout, Sig, TREE_ROUNDS, Word};
use super::ring;
use super::scratch::Scratch;
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote;
use crate::runtime::world::Target;
use crate::transport::shm::{self, Src};
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

/// Copies `len` bytes from `src` (in this process) into member `i`'s copy of the symmetric `dest`
/// (mapped: a copy; otherwise a blocking put, so `src` may change when this returns).
///
/// # Safety
/// `src..src+len` must be readable; member `i`'s destination must be free.
unsafe fn write_to(c: &Coll, i: usize, dest: usize, src: usize, len: usize) {
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
        Target::Mapped(a) if a.addr() != src => {
            // SAFETY: member i's destination, mapped and range-checked, free (the caller).
            unsafe { shm::copy(a.addr() as *mut u8, src as *const u8, len) }
        }
        Target::Mapped(_) => {}
        // SAFETY: forwarded; a blocking put is complete locally when it returns.
        Target::Net(seg, off) => {
            // SAFETY: the caller guarantees `src..src+len`.
            let src = unsafe { Src::new(src, len) };
            remote::put(c.w, c.call, SHMEM_CTX_DEFAULT, pe, seg, off, src)
        }
    }
}

/// The last step of a leader: the data at `data` (`len` bytes) into its node's members'
/// destinations, then their release.
///
/// # Safety
/// `data..data+len` readable; `dest` symmetric; every local member arrived.
unsafe fn deliver(c: &Coll, s: &Sig, l: &Layout, dest: usize, data: usize, len: usize) {
    let m = &c.g.members;
    for &i in &l.locals {
        // SAFETY: the member arrived; its destination is mapped (same node).
        unsafe { write_to(c, i, dest, data, len) };
    }
    shm::order();
    for &i in &l.locals {
        s.tell(m.world(i), Word::Release);
    }
}

/// `broadcast` over a group on several nodes (true), or false if the flat or chunked algorithm
/// should run instead.
///
/// # Safety
/// As `flat::broadcast`.
pub unsafe fn broadcast(
    c: &Coll,
    dest: *mut u8,
    source: *const u8,
    nbytes: usize,
    root: usize,
    to_root: bool,
) -> bool {
    if !message::carried(c) {
        return false;
    }
    let Some(l) = take(c, dest as usize, nbytes, Some(root)) else {
        return false;
    };
    if nbytes > message::LARGEST {
        for (at, len) in message::pieces(nbytes, 1) {
            // SAFETY: a piece of the caller's buffers; every member cuts the same pieces.
            let done = unsafe { broadcast(c, dest.add(at), source.add(at), len, root, to_root) };
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
            // SAFETY: this PE's destination holds `nbytes` (the caller's contract).
            let into = unsafe { std::slice::from_raw_parts_mut(dest, nbytes) };
            // The receive is posted before the word goes: the data lands in the destination.
            msg.receive_after(l.leaders[p], 0, into, || {
                if handshake {
                    s.tell(m.world(l.leaders[p]), Word::Up(j));
                }
            });
            dest as usize
        }
        None => {
            if to_root && nbytes > 0 && !std::ptr::eq(dest, source) {
                // SAFETY: the root's own destination and source (the caller's contract).
                unsafe { shm::copy(dest, source, nbytes) };
            }
            source as usize
        }
    };
    // SAFETY: `data` holds `nbytes`: the root's source or this leader's destination, filled above.
    let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, nbytes) };
    // The largest subtree first: its leaves are the farthest away.
    for &(k, j) in children.iter().rev() {
        if handshake {
            s.hear(m.world(l.leaders[k]), Word::Up(j));
        }
        msg.send(l.leaders[k], 0, bytes);
    }
    for &i in &l.locals {
        s.hear(m.world(i), Word::Arrive);
    }
    // SAFETY: every local member arrived; `data` holds the data.
    unsafe { deliver(c, &s, &l, dest as usize, data, nbytes) };
    true
}

/// A reduction over a group on several nodes (true), or false if the flat or chunked algorithm
/// should run instead.
///
/// # Safety
/// As `flat::reduce`.
pub unsafe fn reduce<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    n: usize,
    combine: Combine<T>,
) -> bool {
    let len = n * size_of::<T>();
    if n == 0 || !message::carried(c) {
        return false;
    }
    let Some(l) = take(c, dest as usize, len, None) else {
        return false;
    };
    if len > message::LARGEST {
        for (at, k) in message::pieces(n, size_of::<T>()) {
            // SAFETY: a piece of the caller's arrays; every member cuts the same pieces.
            let done = unsafe { reduce(c, dest.add(at), source.add(at), k, combine) };
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
    // SAFETY: every member of the node arrived; `source` holds `n` elements on each.
    let mut acc = unsafe { ring::node_partial(c, &l, source, n, combine) };
    // SAFETY: `acc` holds `n` elements.
    unsafe { exchange(&l, &msg, &mut acc, combine) };
    // SAFETY: our own destination holds `n` elements; nobody reads our source any more.
    unsafe { std::ptr::copy_nonoverlapping(acc.as_ptr(), dest, n) };
    // SAFETY: our destination holds the result; every local member arrived.
    unsafe { deliver(c, &s, &l, dest as usize, dest as usize, len) };
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
/// # Safety
/// `acc` is this leader's node's partial result, `n` elements of `T`; this PE leads its node.
unsafe fn exchange<T: Copy>(l: &Layout, msg: &Messages, acc: &mut Scratch<T>, combine: Combine<T>) {
    let n = acc.len();
    let d = Doubling::new(l.leaders.len(), l.node);
    if let Some(j) = d.served_by() {
        msg.send(l.leaders[j], STEP_EXTRA, acc.bytes());
        msg.receive(l.leaders[j], STEP_RESULT, acc.bytes_mut());
        return;
    }
    // SAFETY: `T` takes any bits (the caller's contract); each receive overwrites them all.
    let mut other = unsafe { Scratch::<T>::new(n) };
    if let Some(extra) = d.serves() {
        msg.receive(l.leaders[extra], STEP_EXTRA, other.bytes_mut());
        // SAFETY: both hold `n` elements.
        unsafe { combine(acc.as_mut_ptr(), other.as_ptr(), n) };
    }
    for (_, step, partner) in d.rounds() {
        // Posted first, the partner's message finds its buffer waiting.
        let mine = acc.bytes();
        msg.receive_after(l.leaders[partner], step, other.bytes_mut(), || {
            msg.send(l.leaders[partner], step, mine)
        });
        if partner < l.node {
            // SAFETY: both hold `n` elements.
            unsafe { combine(other.as_mut_ptr(), acc.as_ptr(), n) };
            std::mem::swap(acc, &mut other);
        } else {
            // SAFETY: both hold `n` elements.
            unsafe { combine(acc.as_mut_ptr(), other.as_ptr(), n) };
        }
    }
    if let Some(extra) = d.serves() {
        msg.send(l.leaders[extra], STEP_RESULT, acc.bytes());
    }
}

/// `acc` combined with the `n` elements at `x`, as a new vector (`x` itself when `acc` is empty:
/// no member comes before).
///
/// # Safety
/// `x` holds `n` elements.
unsafe fn then<T: Copy>(acc: Option<&[T]>, x: *const T, n: usize, combine: Combine<T>) -> Vec<T> {
    match acc {
        Some(a) => {
            let mut v = a.to_vec();
            // SAFETY: `v` and `x` hold `n` elements.
            unsafe { combine(v.as_mut_ptr(), x, n) };
            v
        }
        // SAFETY: `x` holds `n` elements.
        None => unsafe { std::slice::from_raw_parts(x, n) }.to_vec(),
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
/// # Safety
/// As `flat::scan`.
pub unsafe fn scan<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    n: usize,
    inclusive: bool,
    zero: T,
    combine: Combine<T>,
) -> bool {
    let len = n * size_of::<T>();
    if n == 0 || c.w.locate(dest as usize, len).is_none() {
        return false;
    }
    let Some(l) = node::layout(c.w, &c.g.members, None)
        .filter(|l| l.leaders.len() <= 1 << TREE_ROUNDS && l.in_runs)
    else {
        return false;
    };
    let m = &c.g.members;
    let s = Sig::new(c.w, c.call, &c.g);
    if node::gather_at_leader(&s, &l, m) {
        return true;
    }
    // Our own source, kept: our destination (which may be it) carries the subtree's total.
    let own = c.peer("source", source as usize, len, m.me, (0, len));
    // SAFETY: `own` holds `len` bytes.
    let own: Vec<T> = unsafe { std::slice::from_raw_parts(own.addr() as *const T, n) }.to_vec();
    // SAFETY: every member of the node arrived; `source` holds `n` elements on each.
    let node_total = unsafe { ring::node_partial(c, &l, source, n, combine) };
    let (parent, children) = links(l.leaders.len(), 0, l.node);
    let mut subtree = node_total.to_vec();
    let mut below: Vec<Vec<T>> = Vec::with_capacity(children.len());
    for &(k, j) in &children {
        let child = l.leaders[k];
        s.hear(m.world(child), Word::Up(j));
        let view = c.peer("dest", dest as usize, len, child, (0, len));
        // SAFETY: the child's subtree total, `len` bytes.
        let total = unsafe { std::slice::from_raw_parts(view.addr() as *const T, n) }.to_vec();
        // SAFETY: both hold `n` elements.
        unsafe { combine(subtree.as_mut_ptr(), total.as_ptr(), n) };
        below.push(total);
    }
    // Everything before this node's run: from the parent, which puts it into our destination.
    let before: Option<Vec<T>> = parent.map(|(p, j)| {
        // SAFETY: our own destination holds `n` elements; nobody else writes it before our report.
        unsafe { std::ptr::copy_nonoverlapping(subtree.as_ptr(), dest, n) };
        shm::order();
        s.tell(m.world(l.leaders[p]), Word::Up(j));
        s.hear(m.world(l.leaders[p]), Word::Down);
        // SAFETY: the parent's put of `n` elements has landed (its fence came before `Down`).
        unsafe { std::slice::from_raw_parts(dest, n) }.to_vec()
    });
    // SAFETY: `node_total` holds `n` elements.
    let mut running = unsafe { then(before.as_deref(), node_total.as_ptr(), n, combine) };
    let mut prefixes = Vec::with_capacity(children.len());
    for total in &below {
        prefixes.push(running.clone());
        // SAFETY: both hold `n` elements.
        unsafe { combine(running.as_mut_ptr(), total.as_ptr(), n) };
    }
    // The largest subtree first: its leaves are the farthest away.
    for (&(k, _), prefix) in children.iter().zip(&prefixes).rev() {
        let data = prefix.as_ptr() as usize;
        // SAFETY: the child reported and we read its total, so its destination is free.
        unsafe { write_to(c, l.leaders[k], dest as usize, data, len) };
    }
    if !children.is_empty() {
        shm::order();
        remote::fence(c.w, c.call, SHMEM_CTX_DEFAULT);
        for &(k, _) in children.iter().rev() {
            s.tell(m.world(l.leaders[k]), Word::Down);
        }
    }
    // This node's results, its members in member order (the leader first: it opens the run).
    let zeros = vec![zero; n];
    let mut acc = before;
    for i in std::iter::once(m.me).chain(l.locals.iter().copied()) {
        let view = (i != m.me).then(|| c.peer("source", source as usize, len, i, (0, len)));
        let src = view.as_ref().map_or(own.as_ptr(), |v| v.addr() as *const T);
        // SAFETY: `src` holds `n` elements: read before the destination (perhaps the same) is.
        let next = unsafe { then(acc.as_deref(), src, n, combine) };
        let result = if inclusive {
            &next
        } else {
            acc.as_ref().unwrap_or(&zeros)
        };
        // SAFETY: member i arrived (or is us), its destination is free; `result` holds `len`.
        unsafe { write_to(c, i, dest as usize, result.as_ptr() as usize, len) };
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
