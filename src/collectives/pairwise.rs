//! Alltoall by messages, for a group whose every member is alone on its node (a job with one PE
//! per node, or every PE on the network's route): member `j` sends member `i` its block `i` as one
//! message of the network ([`Messages`]), tagged with the call and with `j` as the step, and takes
//! block `j` of every other member's source the same way. A member sends all its messages, then
//! takes those it expects; nobody waits for anybody's entry or exit. The strided form packs each
//! block's elements into its message and unpacks them from it ([`alltoalls`]).
//!
//! Why: the flat algorithm over the network is a barrier to enter (every destination free), a get
//! from every member and a barrier to leave (nobody reads a source any more): over TCP, at 2 PEs,
//! 60-75 us for 8-byte blocks where a reduction by messages takes 16-19 (bench/README.md). A
//! message carries its block and the word that it is there at once, and the receiver copies it
//! into its own destination inside its own call, so no member needs another's leave.
//!
//! Invariants: every member decides to take this path from the call's arguments and the node table
//! alone ([`takes`]), the same on every member, and each asks for the call's [`Messages`] (so a
//! team's epoch and an active set's count stay equal). A message holds at most
//! [`message::MESSAGE_BYTES`], below the network's rendezvous threshold, so a send completes
//! without its receiver and no two members wait for each other. A member returns only once every
//! block it expects is in, so no member is more than one call ahead of another's messages, and
//! what waits at a slow member is at most two calls' blocks from each other member. The step names
//! the sender, so a group takes this path only up to [`message::STEPS`] members.

use super::Coll;
use super::message::{self, Messages};
use super::node::{self, Sig};
use crate::transport::shm;
use std::mem::size_of;
use std::slice;

/// Whether an alltoall of `nbytes`-byte blocks on `c`'s group goes by messages.
fn takes(c: &Coll, nbytes: usize) -> bool {
    let m = &c.g.members;
    nbytes > 0
        && nbytes <= message::MESSAGE_BYTES
        && m.size as u64 <= message::STEPS
        && message::carried(c)
        && node::layout(c.w, m, None).is_some_and(|l| l.leaders.len() == m.size)
}

/// `alltoall` by messages if the group takes this path ([`takes`]): block `me` of member `i`'s
/// source into block `i` of this member's `dest`. Whether it did. `dest` may be `source` itself
/// (an alltoall in place: every message is sent before any block of `dest` is written); a `dest`
/// that overlaps `source` otherwise is left to the flat algorithm.
///
/// # Safety
/// `dest` must be writable for `size * nbytes` on this PE; `source` must be readable for as much.
pub unsafe fn alltoall(c: &Coll, dest: *mut u8, source: *const u8, nbytes: usize) -> bool {
    let (n, me) = (c.size(), c.me());
    let total = n * nbytes;
    let (d, s) = (dest as usize, source as usize);
    let in_place = d == s;
    if !takes(c, nbytes) || (!in_place && d < s + total && s < d + total) {
        return false;
    }
    // A source that is not symmetric is the caller's error on every path, though no peer reads
    // it here.
    c.w.local(c.call, "source", s, total);
    let sig = Sig::new(c.w, c.call, &c.g);
    let msg = Messages::of(c, &sig);
    // Member `me + k` first, so that the members do not all send to the same one at once.
    for i in (1..n).map(|k| (me + k) % n) {
        // SAFETY: block `i` of the caller's source, read before any block of `dest` is written.
        let block = unsafe { slice::from_raw_parts(source.add(i * nbytes), nbytes) };
        msg.send(i, me as u64, block);
    }
    if !in_place {
        // SAFETY: block `me` of both; they do not overlap (checked above).
        unsafe { shm::copy(dest.add(me * nbytes), source.add(me * nbytes), nbytes) };
    }
    // In the order the members sent them: member `me - k` sends to this one `k`-th.
    for i in (1..n).map(|k| (me + n - k) % n) {
        // SAFETY: block `i` of the caller's destination; every send above is complete.
        let into = unsafe { slice::from_raw_parts_mut(dest.add(i * nbytes), nbytes) };
        msg.receive(i, i as u64, into);
    }
    true
}

/// `alltoalls` by messages if the group takes this path ([`takes`]): as [`alltoall`], the
/// elements `sst` apart in `source` and `dst` apart in `dest`, each block packed into its message
/// and unpacked from it. Whether it did. `dest` may overlap `source` in any way: every message is
/// sent, and this member's own block packed, before any element of `dest` is written.
///
/// # Safety
/// `dest` must be writable for every element written; `source` must be readable for every element
/// read.
pub unsafe fn alltoalls<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    dst: usize,
    sst: usize,
    nelems: usize,
) -> bool {
    let (n, me) = (c.size(), c.me());
    let nbytes = nelems * size_of::<T>();
    if !takes(c, nbytes) {
        return false;
    }
    let span = ((n * nelems - 1) * sst + 1) * size_of::<T>();
    c.w.local(c.call, "source", source as usize, span);
    let sig = Sig::new(c.w, c.call, &c.g);
    let msg = Messages::of(c, &sig);
    // One block, packed; 16-byte words, aligned for every element type.
    let mut packed = vec![0u128; nbytes.div_ceil(16)];
    let block = packed.as_mut_ptr().cast::<T>();
    let pack = |i: usize| {
        // SAFETY: `block` holds `nelems` elements; member `i`'s lie in the caller's `source`.
        unsafe { shm::copy_strided(block, 1, source.add(i * nelems * sst), sst as isize, nelems) };
    };
    let unpack = |i: usize| {
        // SAFETY: `block` holds `nelems` elements; member `i`'s lie in the caller's `dest`.
        unsafe { shm::copy_strided(dest.add(i * nelems * dst), dst as isize, block, 1, nelems) };
    };
    for i in (1..n).map(|k| (me + k) % n) {
        pack(i);
        // SAFETY: the packed block, `nbytes` bytes, not written while the slice lives.
        msg.send(i, me as u64, unsafe {
            slice::from_raw_parts(block.cast(), nbytes)
        });
    }
    pack(me);
    unpack(me);
    for i in (1..n).map(|k| (me + n - k) % n) {
        // SAFETY: as above; the closures do not run while the slice lives.
        msg.receive(i, i as u64, unsafe {
            slice::from_raw_parts_mut(block.cast(), nbytes)
        });
        unpack(i);
    }
    true
}
