//! Flat shared-memory collectives: every member copies what it needs from the other members.
//!
//! When every member's control block is mapped here, a call synchronizes once ([`posted`]): each
//! contributor posts its data (staged in its scratch buffer when small, else read from its source;
//! in fcollect and alltoall read from its source from 2 KiB on where every PE has a core),
//! the others wait for the posts they need, copy or combine, and acknowledge. Otherwise (some
//! member is reached over the network) every member reads the others' symmetric buffers between
//! the two barriers of [`Coll::enter`] and [`Coll::leave`], or [`split`] divides large transfers.
//! Members read their peers in a staggered order (member `m` starts with member `m + 1`), so that
//! they do not all read one member at a time; reductions and scans combine in member order.
//!
//! Invariants: a member writes only its own destination, except the barrier-framed broadcast, which
//! writes destinations after the first barrier, and alltoall, which writes blocks into the
//! destinations of members that have posted (entered the call and read their sources); it only
//! reads the others' sources, scratch posts and published values. Where a member's destination
//! overlaps its own source and the others read that source, the result is built aside and stored
//! once nobody reads the source any more. Every member combines the inputs in member order, so
//! floating-point results are the same everywhere.

use super::call::{Combine, overlap, ranges_overlap};
use super::posted::{self, Posting};
use super::{Coll, Sync, barrier, split};
use crate::runtime::handle;
use crate::runtime::wait;
use crate::runtime::world::Target;
use crate::transport::shm;
use crate::transport::shm::control::SCRATCH_BYTES;
use std::mem::size_of;
use std::sync::atomic::Ordering;

impl Coll<'_> {
    /// Whether `dest..dest+len` is symmetric and every member's copy of it is mapped here (on
    /// the node, or by the network itself: [`crate::runtime::world::World::mapped_base`]).
    fn all_mapped(&self, dest: usize, len: usize) -> bool {
        let Some((seg, _)) = self.w.locate(dest, len.max(1)) else {
            return false;
        };
        posted::maps_all(self.w, &self.g.members, seg)
    }

    /// Member `i`'s copy of the symmetric `dest` (mapped: checked by `all_mapped`).
    fn dest_of(&self, dest: usize, len: usize, i: usize) -> usize {
        let pe = self.g.members.world(i);
        if pe == self.w.me || len == 0 {
            return dest;
        }
        match self.w.rma_target(self.call, "dest", dest, len, pe) {
            Target::Mapped(a) => a.addr(),
            Target::Net(..) => unreachable!("all_mapped checked every member"),
        }
    }

    /// Whether the split algorithms ([`split`]) should move `len` bytes to or from every member
    /// into their symmetric `dest`: some member's copy is not mapped here (the network's puts and
    /// gets reach it), there are three or more members, the chunks are large enough, and `dest`
    /// is symmetric.
    fn chunked(&self, dest: usize, len: usize) -> bool {
        let size = self.size();
        size >= 3
            && len >= size * split::MIN_CHUNK
            && self.w.locate(dest, len).is_some()
            && (0..size).any(|i| {
                let pe = self.g.members.world(i);
                pe != self.w.me
                    && !matches!(
                        self.w.rma_target(self.call, "dest", dest, len, pe),
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

/// Where an exchange builds this member's result: in `dest` itself, or, where `dest` overlaps the
/// member's own source while the others may still read that source (an exchange in place), in a
/// buffer aside that [`Out::store`] copies into `dest` once nobody reads the source any more.
struct Out {
    dest: usize,
    aside: Option<Vec<u8>>,
}

impl Out {
    /// The result of `len` bytes for `dest`, built aside if `aside`.
    fn new(dest: usize, len: usize, aside: bool) -> Out {
        Out {
            dest,
            aside: aside.then(|| vec![0u8; len]),
        }
    }

    /// Where the result is built.
    fn base(&mut self) -> usize {
        self.aside
            .as_mut()
            .map_or(self.dest, |a| a.as_mut_ptr() as usize)
    }

    /// Stores a result built aside into `dest`.
    ///
    /// # Safety
    /// `dest` must be writable for the result's length, and nobody may read this member's source
    /// any more.
    unsafe fn store(self) {
        if let Some(a) = self.aside {
            // SAFETY: guaranteed by the caller.
            unsafe { copy(self.dest, a.as_ptr() as usize, a.len()) };
        }
    }
}

/// How many bytes of its members' sources a reduction or scan off the shared-memory path has in
/// flight at once (at least one source): gets to many members overlap, and the memory stays
/// bounded whatever the team's size.
const FOLD_WINDOW: usize = 1 << 20;

/// Whether a contribution of `len` bytes is staged in a scratch buffer (else read from its source).
fn staged(len: usize) -> bool {
    len <= SCRATCH_BYTES
}

/// From this many bytes on, a member's contribution to an exchange (fcollect, alltoall: every member
/// reads every other one's) is read in place from its source where each PE of the node has a core
/// ([`in_place`]).
const IN_PLACE_FROM: usize = 2048;

/// Whether an exchange reads a contribution of `len` bytes (of the symmetric `span` at `source`)
/// from the member's source instead of staging it: from [`IN_PLACE_FROM`] on, where every PE of
/// the node has a core and every member's source is mapped here.
///
/// Staging copies the contribution into the scratch area, and the readers copy it out of there: the
/// bytes cross between cores twice. Read in place they cross once; the member then waits for its
/// readers before it returns, which in an exchange costs little where every member runs (they are
/// reading at the same time), and a time slice where PEs share cores. Measured at 2 PEs with the
/// source rewritten before every call: fcollect and alltoall of 2-8 KiB blocks 0.64-0.96 of the
/// staged time; at 4 PEs on 2 cores, alltoall of 2 KiB blocks 1.07 (the bench journal,
/// 2026-12-03: `git show f57c210:bench/README.md`).
fn in_place(c: &Coll, len: usize, source: usize, span: usize) -> bool {
    len >= IN_PLACE_FROM && !wait::oversubscribed_node() && c.all_mapped(source, span)
}

/// The staggered order in which member `me` of `n` visits the members: itself, then `me + 1`, ...
fn stagger(me: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |k| (me + k) % n)
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
    if unsafe { super::ring::broadcast(c, dest, source, nbytes, root, to_root) } {
        return;
    }
    // SAFETY: forwarded.
    if unsafe { super::tree::broadcast(c, dest, source, nbytes, root, to_root) } {
        return;
    }
    if c.chunked(dest as usize, nbytes) {
        // SAFETY: forwarded; `dest` is symmetric (checked by `split`).
        return unsafe { split::broadcast(c, dest, source, nbytes, root, to_root) };
    }
    if let Some(p) = posting(c, nbytes, source) {
        // SAFETY: forwarded.
        return unsafe { posted_broadcast(c, p, dest, source, nbytes, root, to_root) };
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

/// `broadcast` by posts: the root posts the source (staged: it returns at once), every other
/// member waits for the post and copies it into its destination.
///
/// # Safety
/// As `broadcast`; if `nbytes` is not staged, `source` is mapped for every member.
unsafe fn posted_broadcast(
    c: &Coll,
    mut p: Posting,
    dest: *mut u8,
    source: *const u8,
    nbytes: usize,
    root: usize,
    to_root: bool,
) {
    if c.me() == root {
        check_source(c, source.cast(), nbytes);
        // SAFETY: the scratch buffer holds `nbytes` when staged; the source is readable.
        p.post(
            nbytes,
            staged(nbytes),
            |s| unsafe { copy(s as usize, source as usize, nbytes) },
            c.size() - 1,
        );
        if to_root {
            // SAFETY: our own destination and source.
            unsafe { copy(dest as usize, source as usize, nbytes) };
        }
        p.finish();
        return;
    }
    let got = p.wait(root);
    // SAFETY: the root's staged post or its mapped source (range-checked), and our destination.
    unsafe {
        copy_in(
            c,
            &got,
            source as usize,
            nbytes,
            root,
            0,
            dest as usize,
            nbytes,
        )
    };
    p.ack(root);
}

/// Copies `len` bytes at offset `at` of member `i`'s contribution `got` (its scratch buffer, or
/// its copy of the symmetric `source..source+total`) to `to`.
///
/// # Safety
/// `to..to+len` must be writable; `at + len` within the contribution.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_in(
    c: &Coll,
    got: &super::posted::Contribution,
    source: usize,
    total: usize,
    i: usize,
    at: usize,
    to: usize,
    len: usize,
) {
    match got.staged {
        // SAFETY: the scratch buffer holds the contribution; guaranteed by the caller.
        Some(s) => unsafe { copy(to, s + at, len) },
        None => {
            let view = c.peer("source", source, total, i, (at, len));
            // SAFETY: the view holds `len` bytes; guaranteed by the caller.
            unsafe { copy(to, view.addr(), len) }
        }
    }
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
    let total = c.size() * nbytes;
    // In place (`dest` overlapping `source`): built aside wherever the others read our source
    // itself (as in `alltoall`).
    let overlaps = ranges_overlap(dest as usize, total, source as usize, nbytes);
    if let Some(mut p) = posting(c, nbytes, source) {
        check_source(c, source.cast(), nbytes);
        let stage = staged(nbytes) && (overlaps || !in_place(c, nbytes, source as usize, nbytes));
        let mut out = Out::new(dest as usize, total, overlaps && !stage);
        let base = out.base();
        // SAFETY: the scratch buffer holds `nbytes` when staged.
        p.post(
            nbytes,
            stage,
            |s| unsafe { copy(s as usize, source as usize, nbytes) },
            c.size() - 1,
        );
        // SAFETY: block `me` of the result; our source.
        unsafe { copy(base + c.me() * nbytes, source as usize, nbytes) };
        p.each(stagger(c.me(), c.size()).skip(1), |i, got| {
            // SAFETY: member i's post of `nbytes`; block `i` of the result.
            unsafe {
                copy_in(
                    c,
                    &got,
                    source as usize,
                    nbytes,
                    i,
                    0,
                    base + i * nbytes,
                    nbytes,
                )
            };
        });
        p.finish();
        // SAFETY: the caller's `dest`; our readers have all acknowledged.
        unsafe { out.store() };
        return;
    }
    // SAFETY: forwarded.
    if !overlaps && unsafe { super::ring::fcollect(c, dest, source, nbytes) } {
        return;
    }
    let mut out = Out::new(dest as usize, total, overlaps);
    let base = out.base();
    c.enter();
    for i in stagger(c.me(), c.size()) {
        let to = (base + i * nbytes) as *mut u8;
        // SAFETY: block `i` of the result, read after the quiet below.
        unsafe { c.fetch("source", i, source as usize, nbytes, 0, to, nbytes) };
    }
    c.complete();
    c.leave();
    // SAFETY: the caller's `dest`; past the closing barrier nobody reads our source any more.
    unsafe { out.store() };
}

/// Checks that this member's `source..source+len` is symmetric (a contribution others may read).
fn check_source(c: &Coll, source: *const u8, len: usize) {
    if len > 0 {
        c.w.local(c.call, "source", source as usize, len);
    }
}

/// The posted algorithm for a call whose contributions are `len` bytes of the symmetric `source`
/// on every member, if every member takes it: every control block is mapped here, and the
/// contributions are staged or every member's source is mapped.
fn posting<'c, 'w>(c: &'c Coll<'w>, len: usize, source: *const u8) -> Option<Posting<'c, 'w>> {
    if staged(len) || c.all_mapped(source as usize, len) {
        Posting::begin(c)
    } else {
        None
    }
}

/// `collect`: the members' sources, each of its own length, one after the other into every
/// member's `dest`.
///
/// # Safety
/// `dest` must be writable for the sum of the lengths; `source` must be symmetric.
pub unsafe fn collect(c: &Coll, dest: *mut u8, source: *const u8, nbytes: usize) {
    // The lengths differ between members, so the choice cannot depend on them: a contribution too
    // large for the scratch buffer is read from the source, so every symmetric segment must be
    // mapped everywhere.
    let p = if posted::readable(c) {
        Posting::begin(c)
    } else {
        None
    };
    if let Some(mut p) = p {
        check_source(c, source, nbytes);
        // SAFETY: the scratch buffer holds `nbytes` when staged.
        p.post(
            nbytes,
            staged(nbytes),
            |s| unsafe { copy(s as usize, source as usize, nbytes) },
            c.size() - 1,
        );
        let n = c.size();
        let got: Vec<_> = (0..n).map(|i| (i != c.me()).then(|| p.wait(i))).collect();
        let mut at = vec![0usize; n + 1];
        for i in 0..n {
            at[i + 1] = at[i] + got[i].as_ref().map_or(nbytes, |g| g.len);
        }
        // In place, with our source read by the others: built aside (as in `fcollect`).
        let aside =
            !staged(nbytes) && ranges_overlap(dest as usize, at[n], source as usize, nbytes);
        let mut out = Out::new(dest as usize, at[n], aside);
        let base = out.base();
        for i in stagger(c.me(), n) {
            let to = base + at[i];
            match &got[i] {
                // SAFETY: our source and our destination's block for it.
                None => unsafe { copy(to, source as usize, nbytes) },
                Some(g) => {
                    // SAFETY: member i's post of `g.len` bytes; its block of our destination.
                    unsafe { copy_in(c, g, source as usize, g.len, i, 0, to, g.len) };
                    p.ack(i);
                }
            }
        }
        p.finish();
        // SAFETY: the caller's `dest`; our readers have all acknowledged.
        unsafe { out.store() };
        return;
    }
    // SAFETY: forwarded.
    if unsafe { super::ring::collect(c, dest, source, nbytes) } {
        return;
    }
    c.publish(0, nbytes as u64);
    c.enter();
    let members: Vec<usize> = (0..c.size()).collect();
    let lens = c.published_each(&members, 0);
    let total = lens.iter().sum::<u64>() as usize;
    let mut out = Out::new(
        dest as usize,
        total,
        ranges_overlap(dest as usize, total, source as usize, nbytes),
    );
    let mut at = out.base() as *mut u8;
    for (i, &len) in lens.iter().enumerate() {
        let len = len as usize;
        // SAFETY: as in `fcollect`.
        unsafe { c.fetch("source", i, source as usize, len, 0, at, len) };
        at = at.wrapping_add(len);
    }
    c.complete();
    c.leave();
    // SAFETY: the caller's `dest`; past the closing barrier nobody reads our source any more.
    unsafe { out.store() };
}

/// From this many bytes on, an alltoall block for a member that has already posted goes straight
/// into its destination instead of the scratch area ([`alltoall`]). One copy instead of two; for
/// smaller blocks the look at each member's post costs more than the copy it saves (128 B blocks
/// at 8 PEs: 1.03-1.05 of the staged time; the bench journal, 2026-12-03, night:
/// `git show f57c210:bench/README.md`).
const PUSH_FROM: usize = 512;

/// `alltoall`: block `me` of member `i`'s source into block `i` of this member's `dest`.
///
/// Posted and staged, a member writes each block of [`PUSH_FROM`] bytes or more for a member that
/// has posted already straight into that member's destination, and stages only the others: the
/// first members to arrive stage, the later ones push into them. A member that has posted has
/// entered the call and read all of its source, so its destination is free and may even overlap
/// its source; no destination is written before its owner has entered the call.
///
/// # Safety
/// `dest` must be writable for `size * nbytes`; `source` must be symmetric over `size * nbytes`.
pub unsafe fn alltoall(c: &Coll, dest: *mut u8, source: *const u8, nbytes: usize) {
    let n = c.size();
    let total = nbytes * n;
    let me = c.me();
    // Where `dest` overlaps `source` (an alltoall in place), a member writes its destination only
    // once nobody reads its source any more: staged, after its post (it has staged all of its
    // source by then); otherwise the blocks are gathered aside and stored at the end.
    let overlaps = overlap(dest as usize, source as usize, total);
    if let Some(mut p) = posting(c, total, source) {
        check_source(c, source.cast(), total);
        let stage = staged(total) && (overlaps || !in_place(c, nbytes, source as usize, total));
        let mut result = Out::new(dest as usize, total, overlaps && !stage);
        let out = result.base();
        // Block `me` of our source into block `me` of the result: before the post where they
        // overlap, since the others may write into our destination once we have posted.
        let own = || {
            // SAFETY: both blocks lie in the caller's ranges (or the aside buffer's).
            unsafe { copy(out + me * nbytes, source as usize + me * nbytes, nbytes) }
        };
        if overlaps {
            own();
        }
        // Staged, the post keeps the layout of the source, without block `me`, which nobody else
        // reads (a quarter of the copy at 4 PEs), and without the blocks written straight into
        // the destinations of the members that had posted (`push`).
        let push = stage && nbytes >= PUSH_FROM && n <= 64 && c.all_mapped(dest as usize, total);
        let src = source as usize;
        p.post_pushing(
            total,
            stage,
            |p, s| {
                if !push {
                    let after = (me + 1) * nbytes;
                    // SAFETY: the scratch buffer holds `total` bytes (in two copies: the blocks
                    // before ours and after it).
                    unsafe {
                        copy(s as usize, src, me * nbytes);
                        copy(s as usize + after, src + after, total - after);
                    }
                    return 0;
                }
                let mut pushed = 0u64;
                for i in stagger(me, n).skip(1) {
                    let (from, at) = (src + i * nbytes, i * nbytes);
                    if p.posted(i) {
                        let to = c.dest_of(dest as usize, total, i) + me * nbytes;
                        // SAFETY: block `me` of member i's mapped destination, free since it
                        // posted (it has entered the call and read all of its source).
                        unsafe { copy(to, from, nbytes) };
                        pushed |= 1 << i;
                    } else {
                        // SAFETY: the scratch buffer holds `total` bytes.
                        unsafe { copy(s as usize + at, from, nbytes) };
                    }
                }
                pushed
            },
            n - 1,
        );
        if !overlaps {
            own();
        }
        p.each(stagger(me, n).skip(1), |i, got| {
            if got.pushed {
                return;
            }
            let to = out + i * nbytes;
            // SAFETY: block `me` of member i's post of `total` bytes; block `i` of the result.
            unsafe { copy_in(c, &got, source as usize, total, i, me * nbytes, to, nbytes) };
        });
        p.finish();
        // SAFETY: the caller's `dest`; our readers have all acknowledged.
        unsafe { result.store() };
        return;
    }
    // SAFETY: forwarded.
    if unsafe { super::pairwise::alltoall(c, dest, source, nbytes) } {
        return;
    }
    let mut result = Out::new(dest as usize, total, overlaps);
    let out = result.base();
    c.enter();
    for i in stagger(me, n) {
        let to = (out + i * nbytes) as *mut u8;
        // SAFETY: as in `fcollect`; block `me` lies in the checked range.
        unsafe { c.fetch("source", i, source as usize, total, me * nbytes, to, nbytes) };
    }
    c.complete();
    c.leave();
    // SAFETY: the caller's `dest`; past the closing barrier nobody reads our source any more.
    unsafe { result.store() };
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
    let n = c.size();
    let me = c.me();
    let sz = size_of::<T>();
    let span = if nelems > 0 {
        ((n * nelems - 1) * sst + 1) * sz
    } else {
        0
    };
    // Staged, the post holds the elements packed: block `d` (for member d) is `nelems` elements;
    // block `me` is left out, as in `alltoall`.
    let packed = n * nelems * sz;
    // In place (`dest` overlapping `source`), as in `alltoall`: where the others read our source
    // itself, the blocks are gathered aside, packed, and stored once nobody reads it any more.
    let dspan = if nelems > 0 {
        ((n * nelems - 1) * dst + 1) * sz
    } else {
        0
    };
    let overlaps = ranges_overlap(dest as usize, dspan, source as usize, span);
    // 16-byte words: aligned for every element type.
    let mut aside = Vec::<u128>::new();
    let mut gather_aside = || {
        aside = vec![0u128; packed.div_ceil(16)];
        (aside.as_mut_ptr().cast::<T>(), 1)
    };
    let p = if staged(packed) {
        Posting::begin(c)
    } else {
        posting(c, span, source.cast())
    };
    if let Some(mut p) = p {
        check_source(c, source.cast(), span);
        let stage = staged(packed);
        let (out, ostride) = if overlaps && !stage {
            gather_aside()
        } else {
            (dest, dst)
        };
        p.post(
            if stage { packed } else { span },
            stage,
            |s| {
                let (s, after) = (s.cast::<T>(), (me + 1) * nelems);
                // SAFETY: the scratch buffer holds `n * nelems` elements; every element read lies
                // in the checked source span.
                unsafe {
                    shm::copy_strided(s, 1, source, sst as isize, me * nelems);
                    shm::copy_strided(
                        s.wrapping_add(after),
                        1,
                        source.wrapping_add(after * sst),
                        sst as isize,
                        (n - me - 1) * nelems,
                    );
                }
            },
            n - 1,
        );
        for i in stagger(me, n) {
            if nelems == 0 {
                // Nothing to copy, but every post is still read: its owner reuses it only once
                // its readers have acknowledged it (else a later collective waits forever).
                if i != me {
                    p.wait(i);
                    p.ack(i);
                }
                continue;
            }
            // SAFETY: the elements lie in the checked ranges and in the caller's `dest` (or the
            // aside buffer).
            let to = unsafe { out.add(i * nelems * ostride) };
            if i == me {
                // SAFETY: as above.
                unsafe {
                    shm::copy_strided(
                        to,
                        ostride as isize,
                        source.add(me * nelems * sst),
                        sst as isize,
                        nelems,
                    )
                };
                continue;
            }
            let got = p.wait(i);
            match got.staged {
                // SAFETY: member i's packed block `me`, `nelems` elements.
                Some(s) => unsafe {
                    shm::copy_strided(
                        to,
                        ostride as isize,
                        (s as *const T).add(me * nelems),
                        1,
                        nelems,
                    )
                },
                None => {
                    let first = me * nelems * sst * sz;
                    let part = ((nelems - 1) * sst + 1) * sz;
                    let view = c.peer("source", source as usize, span, i, (first, part));
                    // SAFETY: the view holds member i's elements for us.
                    unsafe {
                        shm::copy_strided(
                            to,
                            ostride as isize,
                            view.addr() as *const T,
                            sst as isize,
                            nelems,
                        )
                    }
                }
            }
            p.ack(i);
        }
        p.finish();
        // SAFETY: `dest` holds the strided elements; our readers have all acknowledged.
        unsafe { store_aside(dest, dst, out, ostride, n * nelems) };
        return;
    }
    // SAFETY: forwarded.
    if unsafe { super::pairwise::alltoalls(c, dest, source, dst, sst, nelems) } {
        return;
    }
    let (out, ostride) = if overlaps {
        gather_aside()
    } else {
        (dest, dst)
    };
    c.enter();
    if nelems > 0 {
        // The elements this member reads: from its first to its last, strides included.
        let first = me * nelems * sst * sz;
        let part = ((nelems - 1) * sst + 1) * sz;
        for i in stagger(me, n) {
            let view = c.peer("source", source as usize, span, i, (first, part));
            // SAFETY: the elements lie in pe i's checked range, and in the caller's `dest` (or
            // the aside buffer).
            unsafe {
                shm::copy_strided(
                    out.add(i * nelems * ostride),
                    ostride as isize,
                    view.addr() as *const T,
                    sst as isize,
                    nelems,
                )
            };
        }
    }
    c.leave();
    // SAFETY: as above; past the closing barrier nobody reads our source any more.
    unsafe { store_aside(dest, dst, out, ostride, n * nelems) };
}

/// Stores `count` packed elements gathered aside at `out` into `dest`, `dst` elements apart;
/// nothing if `out` is `dest` itself (nothing was gathered aside).
///
/// # Safety
/// `out` must hold `count` elements and `dest` be writable for them at stride `dst`.
unsafe fn store_aside<T: Copy>(
    dest: *mut T,
    dst: usize,
    out: *mut T,
    ostride: usize,
    count: usize,
) {
    if out != dest {
        debug_assert_eq!(ostride, 1);
        // SAFETY: guaranteed by the caller.
        unsafe { shm::copy_strided(dest, dst as isize, out, 1, count) };
    }
}

/// Combines the sources of members `0..count` into `dest` (`zero` if `count` is 0); in a `scan`
/// member `i` reads members `0..=i` or `0..i`, in a reduction every member.
///
/// # Safety
/// `dest` must be writable for `n` elements; `source` must be symmetric over `n` elements.
#[allow(clippy::too_many_arguments)]
unsafe fn fold<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    n: usize,
    count: usize,
    scan: bool,
    zero: T,
    combine: Combine<T>,
) {
    let len = n * size_of::<T>();
    if let Some(mut p) = posting(c, len, source.cast()) {
        check_source(c, source.cast(), len);
        let stage = staged(len);
        // SAFETY: the scratch buffer holds `len` when staged.
        p.post(
            len,
            stage,
            |s| unsafe { copy(s as usize, source as usize, len) },
            // Every other member reads a reduction's contributions, the later members a scan's.
            if scan {
                c.size() - 1 - c.me()
            } else {
                c.size() - 1
            },
        );
        // Staged, this member's own contribution is read from its scratch buffer: the destination
        // may overlap the source. Otherwise the others read the source: build the result aside.
        let aside = !stage && overlap(dest as usize, source as usize, len);
        let mut tmp: Vec<T> = Vec::new();
        let acc = if aside {
            tmp = vec![zero; n];
            tmp.as_mut_ptr()
        } else {
            dest
        };
        if n > 0 && count == 0 {
            for k in 0..n {
                // SAFETY: `acc` holds `n` elements.
                unsafe { acc.add(k).write(zero) };
            }
        }
        for i in 0..count {
            let got = (i != c.me()).then(|| p.wait(i));
            let src = match (&got, stage) {
                (Some(g), _) => match g.staged {
                    Some(s) => s,
                    None => c.peer("source", source as usize, len, i, (0, len)).addr(),
                },
                (None, true) => p.own_scratch(),
                (None, false) => source as usize,
            };
            if n > 0 {
                if i == 0 {
                    // SAFETY: `src` holds `len` bytes; `acc` holds `n` elements.
                    unsafe { copy(acc as usize, src, len) };
                } else {
                    // SAFETY: as above.
                    unsafe { combine(acc, src as *const T, n) };
                }
            }
            if got.is_some() {
                p.ack(i);
            }
        }
        p.finish();
        if aside {
            // SAFETY: `dest` holds `n` elements; nobody reads our source any more.
            unsafe { copy(dest as usize, acc as usize, len) };
        }
        drop(tmp);
        return;
    }
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
        // Up to `FOLD_WINDOW` bytes of sources in flight at once, combined in member order. 16-byte
        // words: every slot (a multiple of the element size apart) is aligned for every type.
        let window = (FOLD_WINDOW / len).clamp(1, count.max(1));
        let mut fetched = vec![0u128; (window * len).div_ceil(16)];
        let slots = fetched.as_mut_ptr().cast::<u8>();
        for first in (0..count).step_by(window) {
            let last = (first + window).min(count);
            for i in first..last {
                // SAFETY: slot `i - first` of `fetched` holds `len` bytes, read after the quiet.
                let to = unsafe { slots.add((i - first) * len) };
                // SAFETY: as above; member i's source is checked for `len` bytes.
                unsafe { c.fetch("source", i, source as usize, len, 0, to, len) };
            }
            c.complete();
            for i in first..last {
                // SAFETY: slot `i - first` holds member i's `n` elements now.
                let src: *const T = unsafe { slots.add((i - first) * len) }.cast();
                if i == 0 {
                    // SAFETY: `src` holds `len` bytes; `acc` holds `n` elements.
                    unsafe { copy(acc as usize, src as usize, len) };
                } else {
                    // SAFETY: as above.
                    unsafe { combine(acc, src, n) };
                }
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

/// Reduction: every member's `dest` gets the combination of all members' sources. On one node
/// (or with `SHMEM_NODE_AWARE=0`) in member order; on several nodes in the fixed order of
/// [`super::ring`] (large) or [`super::tree`] (small), the same on every member.
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
    if unsafe { super::ring::reduce(c, dest, source, n, combine) } {
        return;
    }
    // SAFETY: forwarded.
    if unsafe { super::tree::reduce(c, dest, source, n, combine) } {
        return;
    }
    if c.chunked(dest as usize, n * size_of::<T>()) {
        // SAFETY: forwarded; `dest` is symmetric (checked by `split`).
        return unsafe { split::reduce(c, dest, source, n, zero, combine) };
    }
    // SAFETY: forwarded.
    unsafe { fold(c, dest, source, n, c.size(), false, zero, combine) }
}

/// Scan: member `i`'s `dest` gets the combination of the sources of members `0..=i` (inclusive)
/// or `0..i` (exclusive; `zero` on member 0). On several nodes that each hold a run of
/// consecutive members, along the leaders' tree of [`super::tree::scan`]; otherwise in member
/// order.
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
    // SAFETY: forwarded.
    if unsafe { super::tree::scan(c, dest, source, n, inclusive, zero, combine) } {
        return;
    }
    let count = c.me() + usize::from(inclusive);
    // SAFETY: forwarded.
    unsafe { fold(c, dest, source, n, count, true, zero, combine) }
}
