//! Remote memory access (OpenSHMEM 1.6 §9.6, §9.7): put, get, p, g, the strided (`iput`/`iget`)
//! and block-strided (`ibput`/`ibget`) forms and the non-blocking forms.
//!
//! Each routine checks what is cheap to check (initialized, context, PE in range, the remote range
//! lies inside one symmetric segment, sizes do not overflow), translates the symmetric address to
//! the peer's copy with one subtraction and one addition, and moves the bytes with the transport.
//! On the shared-memory route every operation completes before it returns, so the `_nbi` forms are
//! the blocking ones; `shmem_quiet` still orders them as the spec requires. The same holds for a
//! peer on the UCX route whose memory UCX maps here (`World::rma_target`); any other peer on that
//! route (its base is 0) takes the out-of-line branch into `crate::runtime::remote`.

use super::enter_pe;
use crate::fatal;
use crate::runtime::handle::shmem_ctx_t;
use crate::runtime::remote;
use crate::runtime::world::Target;
use crate::transport::shm::{self, Dst, Plain, Src};
use std::ffi::c_int;
use std::mem::size_of;

/// `count` elements of `T` in bytes, or the overflow error.
#[inline(always)]
fn bytes<T>(call: &'static str, what: &str, count: usize) -> usize {
    match count.checked_mul(size_of::<T>()) {
        Some(n) if n <= isize::MAX as usize => n,
        _ => overflow(call, what, count, size_of::<T>()),
    }
}

#[cold]
#[inline(never)]
fn overflow(call: &'static str, what: &str, count: usize, size: usize) -> ! {
    fatal!(
        call,
        "{what} = {count} overflows: {count} elements of {size} bytes do not fit in the address space"
    )
}

#[cold]
#[inline(never)]
fn null(call: &'static str, what: &str) -> ! {
    fatal!(call, "{what} is NULL")
}

/// Copies `nelems` elements between this PE's `local` and `pe`'s copy of `symmetric`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn contiguous<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    to_peer: bool,
    nbi: bool,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let (w, pe) = enter_pe(call, ctx, pe);
    let len = bytes::<T>(call, "nelems", nelems);
    if len == 0 {
        return;
    }
    if dest.is_null() {
        null(call, "dest");
    }
    if source.is_null() {
        null(call, "source");
    }
    if to_peer {
        match w.rma_target(call, "dest", dest as usize, len, pe) {
            // SAFETY: `remote` is pe's copy of a symmetric range of `len` bytes, mapped in this
            // process; the C caller guarantees that `source` holds `nelems` elements.
            Target::Mapped(remote) => unsafe {
                shm::copy(remote.addr() as *mut u8, source.cast(), len)
            },
            // SAFETY: as above; an nbi source stays unchanged until quiet (the C caller's part).
            Target::Net(seg, off) => {
                // SAFETY: the C caller guarantees `source`'s `len` bytes, unchanged until the
                // next quiet for an nbi put.
                let src = unsafe { Src::new(source as usize, len) };
                if nbi {
                    remote::put_nbi(w, call, ctx, pe, seg, off, src)
                } else {
                    remote::put(w, call, ctx, pe, seg, off, src)
                }
            }
        }
    } else {
        match w.rma_target(call, "source", source as usize, len, pe) {
            // SAFETY: as above, with the roles of the two sides exchanged.
            Target::Mapped(remote) => unsafe {
                shm::copy(dest.cast(), remote.addr() as *const u8, len)
            },
            // SAFETY: as above.
            Target::Net(seg, off) => {
                // SAFETY: the C caller guarantees `dest`'s `len` bytes, not read until the next
                // quiet for an nbi get.
                let dst = unsafe { Dst::new(dest as usize, len) };
                if nbi {
                    remote::get_nbi(w, call, ctx, pe, seg, off, dst)
                } else {
                    remote::get(w, call, ctx, pe, seg, off, dst)
                }
            }
        }
    }
}

/// The byte range, relative to the first element, that `nblocks` blocks of `bsize` elements with
/// a stride of `stride` elements cover: `(lowest offset, length)`.
#[inline]
fn strided_span<T>(
    call: &'static str,
    what: &str,
    stride: isize,
    bsize: usize,
    nblocks: usize,
) -> (isize, usize) {
    let size = size_of::<T>() as i128;
    let last = (nblocks as i128 - 1) * stride as i128 * size;
    let low = last.min(0);
    let high = last.max(0) + bsize as i128 * size;
    let len = high - low;
    if len > isize::MAX as i128 {
        fatal!(
            call,
            "{what} = {stride} with {nblocks} blocks of {bsize} elements overflows the address space"
        );
    }
    (low as isize, len as usize)
}

/// `nblocks` blocks of `bsize` elements, from `source` with a stride of `sst` elements to `dest`
/// with a stride of `dst` elements; the symmetric side is `dest` if `to_peer`, else `source`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn strided<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    to_peer: bool,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    let (w, pe) = enter_pe(call, ctx, pe);
    bytes::<T>(call, "nelems", bsize.saturating_mul(nblocks));
    if bsize == 0 || nblocks == 0 {
        return;
    }
    if dest.is_null() {
        null(call, "dest");
    }
    if source.is_null() {
        null(call, "source");
    }
    let (low, len) = if to_peer {
        strided_span::<T>(call, "dst", dst, bsize, nblocks)
    } else {
        strided_span::<T>(call, "sst", sst, bsize, nblocks)
    };
    let (what, symmetric) = if to_peer {
        ("dest", dest as usize)
    } else {
        ("source", source as usize)
    };
    let first = symmetric.wrapping_add_signed(low);
    let (dest, source) = match w.rma_target(call, what, first, len, pe) {
        Target::Mapped(remote) => {
            let remote = remote.addr().wrapping_add_signed(-low);
            if to_peer {
                (remote as *mut T, source)
            } else {
                (dest, remote as *const T)
            }
        }
        Target::Net(seg, off) => {
            let size = size_of::<T>() as isize;
            let off = off.wrapping_add_signed(-low);
            // The local side's span, as the symmetric side's above.
            let (llow, llen) = if to_peer {
                strided_span::<T>(call, "sst", sst, bsize, nblocks)
            } else {
                strided_span::<T>(call, "dst", dst, bsize, nblocks)
            };
            let (rstride, local, lstride) = if to_peer {
                // SAFETY: the C caller guarantees every block of `source`, which lie in this span.
                let s = unsafe { Src::new((source as usize).wrapping_add_signed(llow), llen) };
                (dst * size, remote::Local::Put(s), sst * size)
            } else {
                // SAFETY: as above, for `dest`.
                let d = unsafe { Dst::new((dest as usize).wrapping_add_signed(llow), llen) };
                (sst * size, remote::Local::Get(d), dst * size)
            };
            remote::strided(
                w,
                call,
                ctx,
                pe,
                seg,
                off,
                rstride,
                local,
                (-llow) as usize,
                lstride,
                bsize * size_of::<T>(),
                nblocks,
            );
            return;
        }
    };
    if bsize == 1 {
        // SAFETY: the symmetric side was range-checked above for every element; the C caller
        // guarantees the local side.
        unsafe { shm::copy_strided(dest, dst, source, sst, nblocks) }
    } else {
        let block = bsize * size_of::<T>();
        for b in 0..nblocks as isize {
            // SAFETY: as above, block by block.
            unsafe {
                shm::copy(
                    dest.offset(b * dst).cast(),
                    source.offset(b * sst).cast(),
                    block,
                )
            }
        }
    }
}

/// `shmem_put` family: copies `nelems` elements from local `source` to `dest` on `pe`.
///
/// # Safety
/// `source` must hold `nelems` elements of `T`.
#[inline(always)]
pub unsafe fn put<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { contiguous(call, ctx, true, false, dest, source, nelems, pe) }
}

/// `shmem_get` family: copies `nelems` elements from `source` on `pe` to local `dest`.
///
/// # Safety
/// `dest` must have room for `nelems` elements of `T`.
#[inline(always)]
pub unsafe fn get<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { contiguous(call, ctx, false, false, dest, source, nelems, pe) }
}

/// `shmem_put_nbi` family. Completes at once on the shared-memory route, at quiet over UCX.
///
/// # Safety
/// As [`put`].
#[inline(always)]
pub unsafe fn put_nbi<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { contiguous(call, ctx, true, true, dest, source, nelems, pe) }
}

/// `shmem_get_nbi` family. Completes at once on the shared-memory route, at quiet over UCX.
///
/// # Safety
/// As [`get`].
#[inline(always)]
pub unsafe fn get_nbi<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { contiguous(call, ctx, false, true, dest, source, nelems, pe) }
}

/// `shmem_p` family: stores `value` into `dest` on `pe`.
///
/// # Safety
/// `dest` must be aligned for `T` (it is range-checked here).
#[inline(always)]
pub unsafe fn p<T: Plain>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, value: T, pe: c_int) {
    let (w, pe) = enter_pe(call, ctx, pe);
    match w.rma_target(call, "dest", dest as usize, size_of::<T>(), pe) {
        // SAFETY: `remote` is pe's copy of a symmetric `T`, mapped in this process.
        Target::Mapped(remote) => unsafe { shm::store(remote.addr() as *mut T, value) },
        Target::Net(seg, off) => remote::put_value(w, call, ctx, pe, seg, off, value),
    }
}

/// `shmem_g` family: loads `source` from `pe`.
///
/// # Safety
/// `source` must be aligned for `T` (it is range-checked here).
#[inline(always)]
pub unsafe fn g<T: Plain>(call: &'static str, ctx: shmem_ctx_t, source: *const T, pe: c_int) -> T {
    let (w, pe) = enter_pe(call, ctx, pe);
    match w.rma_target(call, "source", source as usize, size_of::<T>(), pe) {
        // SAFETY: `remote` is pe's copy of a symmetric `T`, mapped in this process.
        Target::Mapped(remote) => unsafe { shm::load(remote.addr() as *const T) },
        Target::Net(seg, off) => remote::get_value(w, call, ctx, pe, seg, off),
    }
}

/// `shmem_iput` family: `dest[i*dst] = source[i*sst]` on `pe`, for `i < nelems`.
///
/// # Safety
/// `source` must hold the elements its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn iput<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { strided(call, ctx, true, dest, source, dst, sst, 1, nelems, pe) }
}

/// `shmem_iget` family: `dest[i*dst] = source[i*sst]` from `pe`, for `i < nelems`.
///
/// # Safety
/// `dest` must have room for the elements its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn iget<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { strided(call, ctx, false, dest, source, dst, sst, 1, nelems, pe) }
}

/// `shmem_ibput` family (1.6): `nblocks` blocks of `bsize` elements, block strides `dst`/`sst`.
///
/// # Safety
/// `source` must hold the blocks its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn ibput<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { strided(call, ctx, true, dest, source, dst, sst, bsize, nblocks, pe) }
}

/// `shmem_ibget` family (1.6): `nblocks` blocks of `bsize` elements, block strides `dst`/`sst`.
///
/// # Safety
/// `dest` must have room for the blocks its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn ibget<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { strided(call, ctx, false, dest, source, dst, sst, bsize, nblocks, pe) }
}
