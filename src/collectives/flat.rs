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
//! floating-point results are the same everywhere. Memory is reached through checked ranges
//! ([`Src`], [`Dst`]) alone.

use super::call::{Combine, fold_in, overlap, ranges_overlap};
use super::posted::{self, Posting};
use super::{Coll, Sync, barrier, split};
use crate::runtime::handle;
use crate::runtime::wait;
use crate::runtime::world::Target;
use crate::transport::shm::control::SCRATCH_BYTES;
use crate::transport::shm::{self, Dst, Plain, Src};
use std::mem::size_of;
use std::sync::atomic::Ordering;

impl Coll<'_> {
    /// Whether `dest..dest+len` is symmetric and every member's copy of it is mapped here (on
    /// the node, or by the network itself: [`crate::runtime::world::World::mapped`]).
    fn all_mapped(&self, dest: usize, len: usize) -> bool {
        let Some((seg, _)) = self.w.locate(dest, len.max(1)) else {
            return false;
        };
        posted::maps_all(self.w, &self.g.members, seg)
    }

    /// Member `i`'s copy of the symmetric `dest` (mapped: checked by `all_mapped`).
    fn dest_of<'d>(&self, dest: Dst<'d>, i: usize) -> Dst<'d> {
        let pe = self.g.members.world(i);
        if pe == self.w.me || dest.is_empty() {
            return dest;
        }
        match self
            .w
            .rma_target(self.call, "dest", dest.addr(), dest.len(), pe)
        {
            Target::Mapped(a) => a,
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

/// Where an exchange builds this member's result: in `dest` itself, or, where `dest` overlaps the
/// member's own source while the others may still read that source (an exchange in place), in a
/// buffer aside that [`Out::store`] copies into `dest` once nobody reads the source any more.
struct Out<'d> {
    dest: Dst<'d>,
    /// 16-byte words: aligned for every element type.
    aside: Option<Vec<u128>>,
}

impl<'d> Out<'d> {
    /// The result for `dest`, built aside if `aside`.
    fn new(dest: Dst<'d>, aside: bool) -> Out<'d> {
        Out {
            dest,
            aside: aside.then(|| vec![0u128; dest.len().div_ceil(16)]),
        }
    }

    /// Where the result is built.
    fn base(&mut self) -> Dst<'_> {
        match &mut self.aside {
            Some(a) => Dst::of(&mut a[..]).part(0, self.dest.len()),
            None => self.dest,
        }
    }

    /// Stores a result built aside into `dest` (once nobody reads this member's source any more).
    fn store(self) {
        if let Some(a) = self.aside {
            self.dest
                .copy_from(Src::of(&a[..]).part(0, self.dest.len()));
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

/// `broadcast`: the root's `source` into every member's `dest` (the root's too if `to_root`);
/// both are as long (the call's bytes), `source` symmetric.
pub fn broadcast(c: &Coll, dest: Dst<'_>, source: Src<'_>, root: usize, to_root: bool) {
    let nbytes = source.len();
    if super::ring::broadcast(c, dest, source, root, to_root) {
        return;
    }
    if super::tree::broadcast(c, dest, source, root, to_root) {
        return;
    }
    if c.chunked(dest.addr(), nbytes) {
        return split::broadcast(c, dest, source, root, to_root);
    }
    if let Some(p) = posting(c, nbytes, source) {
        return posted_broadcast(c, p, dest, source, root, to_root);
    }
    if c.all_mapped(dest.addr(), nbytes) {
        return push_broadcast(c, dest, source, root, to_root);
    }
    c.enter();
    if c.me() != root || to_root {
        let src = c.peer("source", source.addr(), nbytes, root, (0, nbytes));
        dest.copy_from(src.src());
    }
    c.leave();
}

/// `broadcast` by posts: the root posts the source (staged: it returns at once), every other
/// member waits for the post and copies it into its destination. If the source is not staged,
/// it is mapped for every member.
fn posted_broadcast(
    c: &Coll,
    mut p: Posting,
    dest: Dst<'_>,
    source: Src<'_>,
    root: usize,
    to_root: bool,
) {
    let nbytes = source.len();
    if c.me() == root {
        check_source(c, source);
        p.post(
            nbytes,
            staged(nbytes),
            |s| s.copy_from(source),
            c.size() - 1,
        );
        if to_root {
            dest.copy_from(source);
        }
        p.finish();
        return;
    }
    let got = p.wait(root);
    copy_in(c, &got, source.addr(), nbytes, root, 0, dest);
    p.ack(root);
}

/// Copies `to.len()` bytes at offset `at` of member `i`'s contribution `got` (its scratch buffer,
/// or its copy of the symmetric `source..source+total`) to `to`.
fn copy_in(
    c: &Coll,
    got: &super::posted::Contribution,
    source: usize,
    total: usize,
    i: usize,
    at: usize,
    to: Dst<'_>,
) {
    let len = to.len();
    match got.staged {
        Some(s) => to.copy_from(s.part(at, len)),
        None => to.copy_from(c.peer("source", source, total, i, (at, len)).src()),
    }
}

/// `broadcast` when every member's `dest` is mapped here: after the first barrier (every
/// destination is free) the root copies the data into each member's destination itself, fences,
/// and tells each member so (its `bcast` word set to the barrier's epoch, or on an active set one
/// more count from the root); it returns at once, the others as soon as they are told. One barrier
/// instead of two, and the root's source is free when it returns since nobody reads it.
fn push_broadcast(c: &Coll, dest: Dst<'_>, source: Src<'_>, root: usize, to_root: bool) {
    c.enter();
    let w = c.w;
    let root_pe = c.g.members.world(root);
    if c.me() == root {
        for i in 0..c.size() {
            if i == root && !to_root {
                continue;
            }
            // Member i's mapped destination (checked by `all_mapped`), free since the barrier.
            c.dest_of(dest, i).copy_from(source);
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

/// `fcollect`: member `i`'s `source` (symmetric) into block `i` of `dest` (`size` blocks of the
/// source's length) on every member.
pub fn fcollect(c: &Coll, dest: Dst<'_>, source: Src<'_>) {
    let nbytes = source.len();
    let total = c.size() * nbytes;
    let dest = dest.part(0, total);
    // In place (`dest` overlapping `source`): built aside wherever the others read our source
    // itself (as in `alltoall`).
    let overlaps = ranges_overlap(dest.addr(), total, source.addr(), nbytes);
    if let Some(mut p) = posting(c, nbytes, source) {
        check_source(c, source);
        let stage = staged(nbytes) && (overlaps || !in_place(c, nbytes, source.addr(), nbytes));
        let mut out = Out::new(dest, overlaps && !stage);
        let base = out.base();
        p.post(nbytes, stage, |s| s.copy_from(source), c.size() - 1);
        base.part(c.me() * nbytes, nbytes).copy_from(source);
        p.each(stagger(c.me(), c.size()).skip(1), |i, got| {
            copy_in(
                c,
                &got,
                source.addr(),
                nbytes,
                i,
                0,
                base.part(i * nbytes, nbytes),
            );
        });
        p.finish();
        // Our readers have all acknowledged.
        out.store();
        return;
    }
    if !overlaps && super::ring::fcollect(c, dest, source) {
        return;
    }
    let mut out = Out::new(dest, overlaps);
    let base = out.base();
    c.enter();
    c.fetching(|f| {
        for i in stagger(c.me(), c.size()) {
            let to = base.part(i * nbytes, nbytes);
            f.fetch("source", i, source.addr(), nbytes, 0, to);
        }
    });
    c.leave();
    // Past the closing barrier nobody reads our source any more.
    out.store();
}

/// Checks that this member's `source` is symmetric (a contribution others may read).
fn check_source(c: &Coll, source: Src<'_>) {
    if !source.is_empty() {
        c.w.local(c.call, "source", source.addr(), source.len());
    }
}

/// The posted algorithm for a call whose contributions are `len` bytes of the symmetric `source`
/// on every member, if every member takes it: every control block is mapped here, and the
/// contributions are staged or every member's source is mapped.
fn posting<'c, 'w>(c: &'c Coll<'w>, len: usize, source: Src<'_>) -> Option<Posting<'c, 'w>> {
    if staged(len) || c.all_mapped(source.addr(), len) {
        Posting::begin(c)
    } else {
        None
    }
}

/// `collect`: the members' sources, each of its own length, one after the other into every
/// member's `dest`, whose length the call learns: `dest(len)` is its first `len` bytes.
pub fn collect<'d>(c: &Coll, dest: &dyn Fn(usize) -> Dst<'d>, source: Src<'_>) {
    let nbytes = source.len();
    // The lengths differ between members, so the choice cannot depend on them: a contribution too
    // large for the scratch buffer is read from the source, so every symmetric segment must be
    // mapped everywhere.
    let p = if posted::readable(c) {
        Posting::begin(c)
    } else {
        None
    };
    if let Some(mut p) = p {
        check_source(c, source);
        p.post(
            nbytes,
            staged(nbytes),
            |s| s.copy_from(source),
            c.size() - 1,
        );
        let n = c.size();
        let got: Vec<_> = (0..n).map(|i| (i != c.me()).then(|| p.wait(i))).collect();
        let mut at = vec![0usize; n + 1];
        for i in 0..n {
            at[i + 1] = at[i] + got[i].as_ref().map_or(nbytes, |g| g.len);
        }
        let dest = dest(at[n]);
        // In place, with our source read by the others: built aside (as in `fcollect`).
        let aside = !staged(nbytes) && ranges_overlap(dest.addr(), at[n], source.addr(), nbytes);
        let mut out = Out::new(dest, aside);
        let base = out.base();
        for i in stagger(c.me(), n) {
            match &got[i] {
                None => base.part(at[i], nbytes).copy_from(source),
                Some(g) => {
                    copy_in(c, g, source.addr(), g.len, i, 0, base.part(at[i], g.len));
                    p.ack(i);
                }
            }
        }
        p.finish();
        // Our readers have all acknowledged.
        out.store();
        return;
    }
    if super::ring::collect(c, dest, source) {
        return;
    }
    c.publish(0, nbytes as u64);
    c.enter();
    let members: Vec<usize> = (0..c.size()).collect();
    let lens = c.published_each(&members, 0);
    let total = lens.iter().sum::<u64>() as usize;
    let dest = dest(total);
    let mut out = Out::new(
        dest,
        ranges_overlap(dest.addr(), total, source.addr(), nbytes),
    );
    let base = out.base();
    c.fetching(|f| {
        let mut at = 0;
        for (i, &len) in lens.iter().enumerate() {
            let len = len as usize;
            f.fetch("source", i, source.addr(), len, 0, base.part(at, len));
            at += len;
        }
    });
    c.leave();
    // Past the closing barrier nobody reads our source any more.
    out.store();
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
/// `dest` and `source` (symmetric) hold `size` blocks each.
pub fn alltoall(c: &Coll, dest: Dst<'_>, source: Src<'_>) {
    let n = c.size();
    let total = source.len();
    let nbytes = total / n;
    let dest = dest.part(0, total);
    let me = c.me();
    // Where `dest` overlaps `source` (an alltoall in place), a member writes its destination only
    // once nobody reads its source any more: staged, after its post (it has staged all of its
    // source by then); otherwise the blocks are gathered aside and stored at the end.
    let overlaps = overlap(dest.addr(), source.addr(), total);
    if let Some(mut p) = posting(c, total, source) {
        check_source(c, source);
        let stage = staged(total) && (overlaps || !in_place(c, nbytes, source.addr(), total));
        let mut result = Out::new(dest, overlaps && !stage);
        let out = result.base();
        // Block `me` of our source into block `me` of the result: before the post where they
        // overlap, since the others may write into our destination once we have posted.
        let own = || {
            out.part(me * nbytes, nbytes)
                .copy_from(source.part(me * nbytes, nbytes))
        };
        if overlaps {
            own();
        }
        // Staged, the post keeps the layout of the source, without block `me`, which nobody else
        // reads (a quarter of the copy at 4 PEs), and without the blocks written straight into
        // the destinations of the members that had posted (`push`).
        let push = stage && nbytes >= PUSH_FROM && n <= 64 && c.all_mapped(dest.addr(), total);
        p.post_pushing(
            total,
            stage,
            |p, s| {
                if !push {
                    // The blocks before ours and after it.
                    let after = (me + 1) * nbytes;
                    s.copy_from(source.part(0, me * nbytes));
                    s.after(after).copy_from(source.after(after));
                    return 0;
                }
                let mut pushed = 0u64;
                for i in stagger(me, n).skip(1) {
                    let (from, at) = (source.part(i * nbytes, nbytes), i * nbytes);
                    if p.posted(i) {
                        // Block `me` of member i's mapped destination, free since it posted (it
                        // has entered the call and read all of its source).
                        c.dest_of(dest, i).part(me * nbytes, nbytes).copy_from(from);
                        pushed |= 1 << i;
                    } else {
                        s.part(at, nbytes).copy_from(from);
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
            let to = out.part(i * nbytes, nbytes);
            copy_in(c, &got, source.addr(), total, i, me * nbytes, to);
        });
        p.finish();
        // Our readers have all acknowledged.
        result.store();
        return;
    }
    if super::pairwise::alltoall(c, dest, source) {
        return;
    }
    let mut result = Out::new(dest, overlaps);
    let out = result.base();
    c.enter();
    c.fetching(|f| {
        for i in stagger(me, n) {
            let to = out.part(i * nbytes, nbytes);
            f.fetch("source", i, source.addr(), total, me * nbytes, to);
        }
    });
    c.leave();
    // Past the closing barrier nobody reads our source any more.
    result.store();
}

/// `alltoalls`: as `alltoall` with elements `dst` and `sst` elements apart; `dest` and `source`
/// (symmetric) span every element written and read.
pub fn alltoalls<T: Plain>(
    c: &Coll,
    dest: Dst<'_>,
    source: Src<'_>,
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
    let (dest, source) = (dest.part(0, dspan), source.part(0, span));
    let overlaps = ranges_overlap(dest.addr(), dspan, source.addr(), span);
    // 16-byte words: aligned for every element type.
    let mut aside = Vec::<u128>::new();
    let p = if staged(packed) {
        Posting::begin(c)
    } else {
        posting(c, span, source)
    };
    if let Some(mut p) = p {
        check_source(c, source);
        let stage = staged(packed);
        let gather = overlaps && !stage;
        if gather {
            aside = vec![0u128; packed.div_ceil(16)];
        }
        let (out, ostride) = if gather {
            (Dst::of(&mut aside[..]).part(0, packed), 1)
        } else {
            (dest, dst as isize)
        };
        let sst = sst as isize;
        p.post(
            if stage { packed } else { span },
            stage,
            |s| {
                let after = (me + 1) * nelems;
                s.copy_strided_from::<T>(0, 1, source, 0, sst, me * nelems);
                s.copy_strided_from::<T>(
                    after * sz,
                    1,
                    source,
                    after * sst as usize * sz,
                    sst,
                    (n - me - 1) * nelems,
                );
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
            let to = i * nelems * ostride as usize * sz;
            let first = me * nelems * sst as usize * sz;
            if i == me {
                out.copy_strided_from::<T>(to, ostride, source, first, sst, nelems);
                continue;
            }
            let got = p.wait(i);
            match got.staged {
                // Member i's packed block `me`, `nelems` elements.
                Some(s) => out.copy_strided_from::<T>(to, ostride, s, me * nelems * sz, 1, nelems),
                None => {
                    let part = ((nelems - 1) * sst as usize + 1) * sz;
                    let view = c.peer("source", source.addr(), span, i, (first, part));
                    out.copy_strided_from::<T>(to, ostride, view.src(), 0, sst, nelems)
                }
            }
            p.ack(i);
        }
        p.finish();
        // Our readers have all acknowledged.
        store_aside::<T>(dest, dst, gather.then_some(&aside[..]), n * nelems);
        return;
    }
    if super::pairwise::alltoalls::<T>(c, dest, source, dst, sst, nelems) {
        return;
    }
    if overlaps {
        aside = vec![0u128; packed.div_ceil(16)];
    }
    let (out, ostride) = if overlaps {
        (Dst::of(&mut aside[..]).part(0, packed), 1)
    } else {
        (dest, dst as isize)
    };
    c.enter();
    if nelems > 0 {
        // The elements this member reads: from its first to its last, strides included.
        let first = me * nelems * sst * sz;
        let part = ((nelems - 1) * sst + 1) * sz;
        for i in stagger(me, n) {
            let view = c.peer("source", source.addr(), span, i, (first, part));
            let to = i * nelems * ostride as usize * sz;
            out.copy_strided_from::<T>(to, ostride, view.src(), 0, sst as isize, nelems);
        }
    }
    c.leave();
    // Past the closing barrier nobody reads our source any more.
    store_aside::<T>(dest, dst, overlaps.then_some(&aside[..]), n * nelems);
}

/// Stores `count` packed elements gathered `aside` into `dest`, `dst` elements apart; nothing if
/// none were gathered aside.
fn store_aside<T: Plain>(dest: Dst<'_>, dst: usize, aside: Option<&[u128]>, count: usize) {
    if let Some(aside) = aside {
        dest.copy_strided_from::<T>(0, dst as isize, Src::of(aside), 0, 1, count);
    }
}

/// Combines the sources of members `0..count` into `dest` (zeros if `count` is 0); in a `scan`
/// member `i` reads members `0..=i` or `0..i`, in a reduction every member. `dest` and `source`
/// (symmetric) are as long, a whole number of elements.
fn fold<T: Plain>(
    c: &Coll,
    dest: Dst<'_>,
    source: Src<'_>,
    count: usize,
    scan: bool,
    combine: Combine<T>,
) {
    let len = source.len();
    let dest = dest.part(0, len);
    if let Some(mut p) = posting(c, len, source) {
        check_source(c, source);
        let stage = staged(len);
        p.post(
            len,
            stage,
            |s| s.copy_from(source),
            // Every other member reads a reduction's contributions, the later members a scan's.
            if scan {
                c.size() - 1 - c.me()
            } else {
                c.size() - 1
            },
        );
        // Staged, this member's own contribution is read from its scratch buffer: the destination
        // may overlap the source. Otherwise the others read the source: build the result aside.
        let aside = !stage && overlap(dest.addr(), source.addr(), len);
        let mut out = Out::new(dest, aside);
        let acc = out.base();
        if count == 0 {
            acc.zero();
        }
        for i in 0..count {
            let got = (i != c.me()).then(|| p.wait(i));
            let view;
            let src = match (&got, stage) {
                (Some(g), _) => match g.staged {
                    Some(s) => s,
                    None => {
                        view = c.peer("source", source.addr(), len, i, (0, len));
                        view.src()
                    }
                },
                (None, true) => p.own_scratch(),
                (None, false) => source,
            };
            if len > 0 {
                fold_in(combine, acc, src, i == 0);
            }
            if got.is_some() {
                p.ack(i);
            }
        }
        p.finish();
        // Nobody reads our source any more.
        out.store();
        return;
    }
    let mut out = Out::new(dest, overlap(dest.addr(), source.addr(), len));
    let acc = out.base();
    c.enter();
    if let Some(per) = FOLD_WINDOW.checked_div(len) {
        if count == 0 {
            acc.zero();
        }
        // Up to `FOLD_WINDOW` bytes of sources in flight at once, combined in member order. 16-byte
        // words: every slot (a multiple of the element size apart) is aligned for every type.
        let window = per.clamp(1, count.max(1));
        let mut fetched = vec![0u128; (window * len).div_ceil(16)];
        let slots = Dst::of(&mut fetched[..]);
        for first in (0..count).step_by(window) {
            let last = (first + window).min(count);
            c.fetching(|f| {
                for i in first..last {
                    let to = slots.part((i - first) * len, len);
                    f.fetch("source", i, source.addr(), len, 0, to);
                }
            });
            for i in first..last {
                let src = slots.src().part((i - first) * len, len);
                fold_in(combine, acc, src, i == 0);
            }
        }
    }
    c.leave();
    // Nobody reads our source any more.
    out.store();
}

/// Reduction: every member's `dest` gets the combination of all members' sources (symmetric; as
/// long as `dest`). On one node (or with `SHMEM_NODE_AWARE=0`) in member order; on several nodes in
/// the fixed order of [`super::ring`] (large) or [`super::tree`] (small), the same on every member.
pub fn reduce<T: Plain>(c: &Coll, dest: Dst<'_>, source: Src<'_>, combine: Combine<T>) {
    if super::ring::reduce(c, dest, source, combine) {
        return;
    }
    if super::tree::reduce(c, dest, source, combine) {
        return;
    }
    if c.chunked(dest.addr(), source.len()) {
        return split::reduce(c, dest, source, combine);
    }
    fold(c, dest, source, c.size(), false, combine)
}

/// Scan: member `i`'s `dest` gets the combination of the sources of members `0..=i` (inclusive)
/// or `0..i` (exclusive; zeros on member 0). On several nodes that each hold a run of
/// consecutive members, along the leaders' tree of [`super::tree::scan`]; otherwise in member
/// order.
pub fn scan<T: Plain>(
    c: &Coll,
    dest: Dst<'_>,
    source: Src<'_>,
    inclusive: bool,
    combine: Combine<T>,
) {
    if super::tree::scan(c, dest, source, inclusive, combine) {
        return;
    }
    let count = c.me() + usize::from(inclusive);
    fold(c, dest, source, count, true, combine)
}
