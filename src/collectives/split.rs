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
//! the same phase; the barriers of [`Coll::enter`] and [`Coll::leave`] frame the call as in flat.

use super::Coll;
use super::call::{Combine, overlap};
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote;
use crate::runtime::world::Target;
use crate::transport::shm::{self, Src};
use std::mem::size_of;

/// Messages below this many bytes per chunk are not worth splitting.
pub const MIN_CHUNK: usize = 1024;

/// Elements `lo..hi` of `n` that member `m` of `size` owns.
pub(super) fn chunk(n: usize, size: usize, m: usize) -> (usize, usize) {
    let (q, r) = (n / size, n % size);
    let lo = m * q + m.min(r);
    (lo, lo + q + usize::from(m < r))
}

/// Writes `len` bytes from `src` to member `i`'s copy of the symmetric `dest + at` (a copy into
/// its mapping, or a non-blocking put over UCX that the caller completes with a quiet).
///
/// # Safety
/// `src..src+len` must stay readable and unchanged until the caller's quiet.
pub(super) unsafe fn write_to(
    c: &Coll,
    i: usize,
    dest: usize,
    total: usize,
    at: usize,
    src: *const u8,
    len: usize,
) {
    if len == 0 {
        return;
    }
    let pe = c.g.members.world(i);
    if pe == c.w.me {
        // SAFETY: our own destination, `at + len <= total`.
        unsafe { shm::copy((dest + at) as *mut u8, src, len) };
        return;
    }
    match c.w.target(c.call, "dest", dest, total, pe) {
        // SAFETY: member i's mapped destination, range-checked; nobody reads this chunk now.
        Target::Mapped(base) => unsafe { shm::copy((base.addr() + at) as *mut u8, src, len) },
        // SAFETY: forwarded contract.
        Target::Net(seg, off) => {
            // SAFETY: forwarded contract (unchanged until the caller's quiet).
            let src = unsafe { Src::new(src as usize, len) };
            remote::put_nbi(c.w, c.call, SHMEM_CTX_DEFAULT, pe, seg, off + at, src)
        }
    }
}

/// Reduction into every member's symmetric `dest` of `n` elements.
///
/// # Safety
/// `dest` must be symmetric and writable for `n` elements; `source` symmetric over `n` elements.
pub unsafe fn reduce<T: Copy>(
    c: &Coll,
    dest: *mut T,
    source: *const T,
    n: usize,
    zero: T,
    combine: Combine<T>,
) {
    let size = c.g.members.size;
    let me = c.g.members.me;
    let len = n * size_of::<T>();
    let in_place = overlap(dest as usize, source as usize, len);
    let (lo, hi) = chunk(n, size, me);
    let mut acc: Vec<T> = vec![zero; hi - lo];
    c.enter();
    if hi > lo {
        let part = (lo * size_of::<T>(), (hi - lo) * size_of::<T>());
        for i in 0..size {
            let view = c.peer("source", source as usize, len, i, part);
            // SAFETY: the view holds `hi - lo` elements of member i's source; `acc` as many.
            unsafe {
                if i == 0 {
                    std::ptr::copy_nonoverlapping(
                        view.addr() as *const T,
                        acc.as_mut_ptr(),
                        hi - lo,
                    )
                } else {
                    combine(acc.as_mut_ptr(), view.addr() as *const T, hi - lo)
                }
            }
        }
    }
    if in_place {
        // The destinations are the sources, which other members may still be reading.
        shm::order();
        super::barrier::group(c.w, &c.g);
    }
    for i in 0..size {
        // SAFETY: `acc` lives until the quiet below.
        unsafe {
            write_to(
                c,
                i,
                dest as usize,
                len,
                lo * size_of::<T>(),
                acc.as_ptr().cast(),
                (hi - lo) * size_of::<T>(),
            )
        };
    }
    complete(c);
    c.leave();
}

/// Completes this member's puts of the call (on every route) before the closing barrier.
pub(super) fn complete(c: &Coll) {
    shm::order();
    remote::quiet(c.w, c.call, SHMEM_CTX_DEFAULT);
}

/// Broadcast of `nbytes` of the root's `source` into every member's symmetric `dest` (the root's
/// too if `to_root`).
///
/// # Safety
/// `dest` must be symmetric and writable for `nbytes`; `source` symmetric over `nbytes`.
pub unsafe fn broadcast(
    c: &Coll,
    dest: *mut u8,
    source: *const u8,
    nbytes: usize,
    root: usize,
    to_root: bool,
) {
    let size = c.g.members.size;
    let me = c.g.members.me;
    let (lo, hi) = chunk(nbytes, size, me);
    c.enter();
    // Scatter: our chunk from the root into our destination.
    let view = c.peer("source", source as usize, nbytes, root, (lo, hi - lo));
    let keep_root = me == root && !to_root;
    let mut saved = Vec::new();
    if keep_root {
        // The root's destination must not change: stage our chunk aside for the others.
        saved = vec![0u8; hi - lo];
        // SAFETY: the view holds `hi - lo` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(view.addr() as *const u8, saved.as_mut_ptr(), hi - lo)
        };
    } else if hi > lo {
        // SAFETY: our own destination, in range; the view is a separate buffer or the root's copy.
        unsafe { shm::copy(dest.add(lo), view.addr() as *const u8, hi - lo) };
    }
    drop(view);
    // All-gather: every member pushes its chunk to the others.
    shm::order();
    super::barrier::group(c.w, &c.g);
    let mine: *const u8 = if keep_root {
        saved.as_ptr()
    } else {
        dest.wrapping_add(lo)
    };
    for i in 0..size {
        if i == me || (i == root && !to_root) {
            continue;
        }
        // SAFETY: our chunk (in our destination or `saved`) is not written until the quiet.
        unsafe { write_to(c, i, dest as usize, nbytes, lo, mine, hi - lo) };
    }
    complete(c);
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
