//! Flat shared-memory collectives: every member copies what it needs straight from the other
//! members' symmetric buffers, between the two barriers of [`Coll::enter`] and [`Coll::leave`].
//!
//! Invariants: a member writes only its own destination, and only reads the others' sources (and
//! the values they published before the first barrier). Where a member's destination overlaps its
//! own source (in-place reductions and scans), the result is built aside and stored after the
//! second barrier, when nobody reads that source any more. Every member combines the inputs in
//! member order, so floating-point results are the same on every member.

use super::call::{Coll, Combine, overlap};
use super::{Sync, barrier, split};
use crate::runtime::handle;
use crate::runtime::world::Target;
use crate::transport::shm;
use std::mem::size_of;
use std::sync::atomic::Ordering;

impl Coll<'_> {
    /// Whether `dest..dest+len` is symmetric and every member's copy of it is mapped here.
    fn all_mapped(&self, dest: usize, len: usize) -> bool {
        let Some((seg, _)) = self.w.locate(dest, len.max(1)) else {
            return false;
        };
        let peers = &self.w.segments[seg as usize].peers;
        (0..self.size()).all(|i| {
            let pe = self.g.members.world(i);
            pe == self.w.me || peers[pe] != 0
        })
    }

    /// Member `i`'s copy of the symmetric `dest` (mapped: checked by `all_mapped`).
    fn dest_of(&self, dest: usize, len: usize, i: usize) -> usize {
        let pe = self.g.members.world(i);
        if pe == self.w.me || len == 0 {
            return dest;
        }
        match self.w.target(self.call, "dest", dest, len, pe) {
            Target::Mapped(a) => a,
            Target::Net(..) => unreachable!("all_mapped checked every member"),
        }
    }

    /// Whether the split algorithms ([`split`]) should move `len` bytes to or from every member
    /// into their symmetric `dest`: some member is reached over UCX, there are three or more
    /// members, the chunks are large enough, and `dest` is symmetric.
    fn chunked(&self, dest: usize, len: usize) -> bool {
        let size = self.size();
        size >= 3
            && len >= size * split::MIN_CHUNK
            && self.w.locate(dest, len).is_some()
            && (0..size).any(|i| {
                let pe = self.g.members.world(i);
                pe != self.w.me
                    && !matches!(
                        self.w.target(self.call, "dest", dest, len, pe),
                        Target::Mapped(_)
                    )
            })
    }
}

/// Copies `len` bytes from `src` (an address in this process) to `dst`.
///
/// # Safety
/// Both ranges must be valid.
unsafe fn copy(dst: usize, src: usize, len: usize) {
    if len > 0 && dst != src {
        // SAFETY: guaranteed by the caller.
        unsafe { shm::copy(dst as *mut u8, src as *const u8, len) }
    }
}

/// `broadcast`: `nbytes` of the root's `source` into every member's `dest` (the root's too if
/// `to_root`).
///
/// # Safety
/// `dest` must be writable for `nbytes` on this PE; `source` must be symmetric.
pub unsafe fn broadcast(
    c: &Coll,
    dest: *mut u8,
    source: *const u8,
    nbytes: usize,
    root: usize,
    to_root: bool,
) {
    // SAFETY: forwarded.
    if unsafe { super::tree::broadcast(c, dest, source, nbytes, root, to_root) } {
        return;
    }
    if c.chunked(dest as usize, nbytes) {
        // SAFETY: forwarded; `dest` is symmetric (checked by `split`).
        return unsafe { split::broadcast(c, dest, source, nbytes, root, to_root) };
    }
    if c.all_mapped(dest as usize, nbytes) {
        // SAFETY: forwarded; `dest` is symmetric and mapped for every member.
        return unsafe { push_broadcast(c, dest, source, nbytes, root, to_root) };
    }
    c.enter();
    if c.me() != root || to_root {
        let src = c.peer("source", source as usize, nbytes, root, (0, nbytes));
        // SAFETY: `src` is the root's copy of the symmetric source, range-checked; `dest` is ours.
        unsafe { copy(dest as usize, src.addr(), nbytes) };
    }
    c.leave();
}

/// `broadcast` when every member's `dest` is mapped here: after the first barrier (every
/// destination is free) the root copies the data into each member's destination itself, fences,
/// and tells each member so (its `bcast` word set to the barrier's epoch, or on an active set one
/// more count from the root); it returns at once, the others as soon as they are told. One barrier
/// instead of two, and the root's source is free when it returns since nobody reads it.
///
/// # Safety
/// `dest` must be symmetric and mapped for every member, writable for `nbytes`; `source` readable
/// for `nbytes` on the root.
unsafe fn push_broadcast(
    c: &Coll,
    dest: *mut u8,
    source: *const u8,
    nbytes: usize,
    root: usize,
    to_root: bool,
) {
    c.enter();
    let w = c.w;
    let root_pe = c.g.members.world(root);
    if c.me() == root {
        for i in 0..c.size() {
            if i == root && !to_root {
                continue;
            }
            let to = c.dest_of(dest as usize, nbytes, i);
            // SAFETY: member i's mapped destination (checked by `all_mapped`), free since the
            // barrier; the caller guarantees the source.
            unsafe { copy(to, source as usize, nbytes) };
        }
        // The data before the signals (a full fence: large copies may be non-temporal).
        shm::order();
        for i in (0..c.size()).filter(|&i| i != root) {
            let pe = c.g.members.world(i);
            match c.g.sync {
                Sync::Team(slot) => {
                    let epoch = handle::team_at(slot).epoch.load(Ordering::Relaxed);
                    w.control_store(c.call, pe, |b| &b.teams[slot].bcast.0, epoch);
                }
                Sync::ActiveSet => barrier::signal(w, pe),
            }
        }
    } else {
        match c.g.sync {
            Sync::Team(slot) => {
                let epoch = handle::team_at(slot).epoch.load(Ordering::Relaxed);
                let word = &w.control(w.me).teams[slot].bcast.0;
                w.wait_until(|| word.load(Ordering::Acquire) >= epoch);
            }
            Sync::ActiveSet => barrier::wait_signal(w, root_pe),
        }
    }
}

/// `fcollect`: member `i`'s `nbytes` of `source` into `dest + i * nbytes` on every member.
///
/// # Safety
/// `dest` must be writable for `size * nbytes`; `source` must be symmetric.
pub unsafe fn fcollect(c: &Coll, dest: *mut u8, source: *const u8, nbytes: usize) {
    c.enter();
    for i in 0..c.size() {
        let src = c.peer("source", source as usize, nbytes, i, (0, nbytes));
        // SAFETY: as in `broadcast`; block `i` of `dest` is in the caller's range.
        unsafe { copy(dest as usize + i * nbytes, src.addr(), nbytes) };
    }
    c.leave();
}

/// `collect`: the members' sources, each of its own length, one after the other into every
/// member's `dest`.
///
/// # Safety
/// `dest` must be writable for the sum of the lengths; `source` must be symmetric.
pub unsafe fn collect(c: &Coll, dest: *mut u8, source: *const u8, nbytes: usize) {
    c.publish(0, nbytes as u64);
    c.enter();
    let mut at = dest as usize;
    for i in 0..c.size() {
        let len = c.published(i, 0) as usize;
        let src = c.peer("source", source as usize, len, i, (0, len));
        // SAFETY: as in `fcollect`.
        unsafe { copy(at, src.addr(), len) };
        at += len;
    }
    c.leave();
}

/// `alltoall`: block `me` of member `i`'s source into block `i` of this member's `dest`.
///
/// # Safety
/// `dest` must be writable for `size * nbytes`; `source` must be symmetric over `size * nbytes`.
pub unsafe fn alltoall(c: &Coll, dest: *mut u8, source: *const u8, nbytes: usize) {
    c.enter();
    let total = nbytes * c.size();
    for i in 0..c.size() {
        let src = c.peer(
            "source",
            source as usize,
            total,
            i,
            (c.me() * nbytes, nbytes),
        );
        // SAFETY: as in `fcollect`; block `me` lies in the checked range.
        unsafe { copy(dest as usize + i * nbytes, src.addr(), nbytes) };
    }
    c.leave();
}

/// `alltoalls`: as `alltoall` with elements `dst` and `sst` elements apart.
///
/// # Safety
/// `dest` must be writable for every element written; `source` must be symmetric over every
/// element read.
pub unsafe fn alltoalls<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    dst: usize,
    sst: usize,
    nelems: usize,
) {
    c.enter();
    let n = c.size();
    if nelems > 0 {
        let span = ((n * nelems - 1) * sst + 1) * size_of::<T>();
        // The elements this member reads: from its first to its last, strides included.
        let first = c.me() * nelems * sst * size_of::<T>();
        let part = ((nelems - 1) * sst + 1) * size_of::<T>();
        for i in 0..n {
            let view = c.peer("source", source as usize, span, i, (first, part));
            let src = view.addr() as *const T;
            for k in 0..nelems {
                // SAFETY: the element lies in pe i's checked range, and in the caller's `dest`.
                unsafe {
                    let v = std::ptr::read_unaligned(src.add(k * sst));
                    std::ptr::write_unaligned(dest.add((i * nelems + k) * dst), v);
                }
            }
        }
    }
    c.leave();
}

/// Combines the sources of members `0..count` into `dest` (`zero` if `count` is 0).
///
/// # Safety
/// `dest` must be writable for `n` elements; `source` must be symmetric over `n` elements.
unsafe fn fold<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    n: usize,
    count: usize,
    zero: T,
    combine: Combine<T>,
) {
    let len = n * size_of::<T>();
    let aside = overlap(dest as usize, source as usize, len);
    let mut tmp: Vec<T> = Vec::new();
    let acc = if aside {
        tmp = vec![zero; n];
        tmp.as_mut_ptr()
    } else {
        dest
    };
    c.enter();
    if n > 0 {
        if count == 0 {
            for k in 0..n {
                // SAFETY: `acc` holds `n` elements.
                unsafe { acc.add(k).write(zero) };
            }
        }
        for i in 0..count {
            let view = c.peer("source", source as usize, len, i, (0, len));
            let src = view.addr() as *const T;
            if i == 0 {
                // SAFETY: `src` is checked for `len` bytes; `acc` holds `n` elements.
                unsafe { copy(acc as usize, src as usize, len) };
            } else {
                // SAFETY: as above.
                unsafe { combine(acc, src, n) };
            }
        }
    }
    c.leave();
    if aside {
        // SAFETY: `dest` holds `n` elements; nobody reads our source any more.
        unsafe { copy(dest as usize, acc as usize, len) };
    }
    drop(tmp);
}

/// Reduction: every member's `dest` gets the combination of all members' sources.
///
/// # Safety
/// As `fold`.
pub unsafe fn reduce<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    n: usize,
    zero: T,
    combine: Combine<T>,
) {
    // SAFETY: forwarded.
    if unsafe { super::tree::reduce(c, dest, source, n, zero, combine) } {
        return;
    }
    if c.chunked(dest as usize, n * size_of::<T>()) {
        // SAFETY: forwarded; `dest` is symmetric (checked by `split`).
        return unsafe { split::reduce(c, dest, source, n, zero, combine) };
    }
    // SAFETY: forwarded.
    unsafe { fold(c, dest, source, n, c.size(), zero, combine) }
}

/// Scan: member `i`'s `dest` gets the combination of the sources of members `0..=i` (inclusive)
/// or `0..i` (exclusive; `zero` on member 0).
///
/// # Safety
/// As `fold`.
pub unsafe fn scan<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    n: usize,
    inclusive: bool,
    zero: T,
    combine: Combine<T>,
) {
    let count = c.me() + usize::from(inclusive);
    // SAFETY: forwarded.
    unsafe { fold(c, dest, source, n, count, zero, combine) }
}
