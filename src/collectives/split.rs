//! Collectives for groups that reach some member over UCX, where the flat algorithms would move
//! too much: a flat reduction has every member fetch every member's whole source (`size * len`
//! bytes each), and a flat broadcast has every member fetch the whole source from the root. Groups
//! on several nodes take the node leaders' algorithms of `collectives::ring` and `tree` first, so
//! this one runs only where those decline (with `SHMEM_NODE_AWARE=0`, for example).
//!
//! Both split the data into one chunk per member:
//! - reduction (reduce-scatter, then all-gather by push): member `m` fetches chunk `m` of every
//!   member's source, combines them in member order (so every element is combined in the same
//!   order wherever it is computed, as in the flat algorithm), and puts the result into chunk `m`
//!   of every member's destination. Each member moves `2 * len` bytes in `2 * size` messages.
//! - broadcast (scatter, then all-gather): member `m` fetches chunk `m` from the root into its
//!   destination; after a barrier every member fetches the other chunks from their owners. The root
//!   serves `len` bytes instead of `(size - 1) * len`.
//!
//! Invariants: the destinations are symmetric (the caller checks and otherwise uses the flat
//! algorithm); a member writes another member's destination only where no member reads it during
//! the same phase; the barriers of [`Coll::enter`] and [`Coll::leave`] frame the call as in flat;
//! a put's source lives until the scope of [`writing`] completes it.

use super::Coll;
use super::call::{Combine, fold_in, overlap};
use super::scratch::Scratch;
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote::{self, Scope};
use crate::runtime::world::Target;
use crate::transport::shm::{self, Dst, Plain, Src};
use std::mem::size_of;

/// Messages below this many bytes per chunk are not worth splitting.
pub const MIN_CHUNK: usize = 1024;

/// Elements `lo..hi` of `n` that member `m` of `size` owns.
pub(super) fn chunk(n: usize, size: usize, m: usize) -> (usize, usize) {
    let (q, r) = (n / size, n % size);
    let lo = m * q + m.min(r);
    (lo, lo + q + usize::from(m < r))
}

/// Runs `f` with a scope for [`write_to`], and completes its writes (on every route) before
/// returning.
pub(super) fn writing<'a, R>(c: &Coll, f: impl FnOnce(&Scope<'_, 'a>) -> R) -> R {
    let r = remote::scoped(c.w, c.call, SHMEM_CTX_DEFAULT, f);
    shm::order();
    r
}

/// Writes `src` to member `i`'s copy of bytes `at..` of the symmetric `dest..dest+total` (a copy
/// into its mapping, or a non-blocking put that the scope `s` of [`writing`] completes).
pub(super) fn write_to<'a>(
    c: &Coll,
    s: &Scope<'_, 'a>,
    i: usize,
    dest: usize,
    total: usize,
    at: usize,
    src: Src<'a>,
) {
    let len = src.len();
    if len == 0 {
        return;
    }
    let pe = c.g.members.world(i);
    if pe == c.w.me {
        // Our own destination.
        c.w.own(c.call, "dest", dest, total)
            .part(at, len)
            .copy_from(src);
        return;
    }
    match c.w.target(c.call, "dest", dest, total, pe) {
        // Member i's mapped destination; nobody reads this chunk now.
        Target::Mapped(base) => base.part(at, len).copy_from(src),
        Target::Net(seg, off) => s.put(pe, seg, off + at, src),
    }
}

/// Reduction into every member's symmetric `dest` (as long as `source`, symmetric).
pub fn reduce<T: Plain>(c: &Coll, dest: Dst<'_>, source: Src<'_>, combine: Combine<T>) {
    let size = c.g.members.size;
    let me = c.g.members.me;
    let len = source.len();
    let sz = size_of::<T>();
    let n = len / sz;
    let in_place = overlap(dest.addr(), source.addr(), len);
    let (lo, hi) = chunk(n, size, me);
    let mut acc = Scratch::<T>::new(hi - lo);
    let acc = Dst::of(&mut acc[..]);
    c.enter();
    if hi > lo {
        let part = (lo * sz, (hi - lo) * sz);
        for i in 0..size {
            let view = c.peer("source", source.addr(), len, i, part);
            fold_in(combine, acc, view.src(), i == 0);
        }
    }
    if in_place {
        // The destinations are the sources, which other members may still be reading.
        shm::order();
        super::barrier::group(c.w, &c.g);
    }
    writing(c, |s| {
        for i in 0..size {
            write_to(c, s, i, dest.addr(), len, lo * sz, acc.src());
        }
    });
    c.leave();
}

/// Broadcast of the root's `source` into every member's symmetric `dest` (the root's too if
/// `to_root`); both as long, `source` symmetric.
pub fn broadcast(c: &Coll, dest: Dst<'_>, source: Src<'_>, root: usize, to_root: bool) {
    let nbytes = source.len();
    let size = c.g.members.size;
    let me = c.g.members.me;
    let (lo, hi) = chunk(nbytes, size, me);
    c.enter();
    // Scatter: our chunk from the root into our destination.
    let view = c.peer("source", source.addr(), nbytes, root, (lo, hi - lo));
    let keep_root = me == root && !to_root;
    let mut saved = Vec::new();
    if keep_root {
        // The root's destination must not change: stage our chunk aside for the others.
        saved = view.src().to_vec();
    } else if hi > lo {
        // Our own destination; the view is a separate buffer or the root's copy.
        dest.part(lo, hi - lo).copy_from(view.src());
    }
    drop(view);
    // All-gather: every member pushes its chunk to the others.
    shm::order();
    super::barrier::group(c.w, &c.g);
    let mine = if keep_root {
        Src::of(&saved[..])
    } else {
        dest.src().part(lo, hi - lo)
    };
    writing(c, |s| {
        for i in 0..size {
            if i == me || (i == root && !to_root) {
                continue;
            }
            // Our chunk (in our destination or `saved`) is not written until the scope ends.
            write_to(c, s, i, dest.addr(), nbytes, lo, mine);
        }
    });
    c.leave();
}

#[cfg(test)]
mod tests {
    use super::chunk;

    #[test]
    fn chunks_cover_every_element_once() {
        for n in 0..40 {
            for size in 1..9 {
                let mut next = 0;
                for m in 0..size {
                    let (lo, hi) = chunk(n, size, m);
                    assert_eq!(lo, next);
                    assert!(hi >= lo && hi - lo <= n / size + 1);
                    next = hi;
                }
                assert_eq!(next, n);
            }
        }
    }
}
