//! The C entry points of `ops::rma`: the program's buffer of a put or get becomes a checked range
//! of `nelems` elements (after the overflow and NULL checks; NULL is legal with a count of 0),
//! the symmetric side an address the World checks, and the safe core in `ops::rma` does the rest.

use super::{dst_of, src_of};
use crate::ops::rma::{self, Strided, bytes, strided_span};
use crate::runtime::handle::shmem_ctx_t;
use crate::transport::shm::{Dst, Plain, Src};
use std::ffi::c_int;

/// `shmem_put` family: copies `nelems` elements from local `source` to `dest` on `pe`.
///
/// # Safety
/// `source` holds `nelems` elements of `T` (C: `source` is an array of `nelems` elements).
#[inline(always)]
pub unsafe fn put<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    // SAFETY: the C caller's `source` holds `nelems` elements, `len` bytes, readable during the
    // call.
    let source = unsafe { src_of(call, "source", source, len) };
    rma::put(call, ctx, dest as usize, source, pe)
}

/// `shmem_get` family: copies `nelems` elements from `source` on `pe` to local `dest`.
///
/// # Safety
/// `dest` has room for `nelems` elements of `T`.
#[inline(always)]
pub unsafe fn get<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    // SAFETY: the C caller's `dest` has room for `nelems` elements, `len` bytes, writable during
    // the call and not read by it meanwhile.
    let dest = unsafe { dst_of(call, "dest", dest, len) };
    rma::get(call, ctx, dest, source as usize, pe)
}

/// `shmem_put_nbi` family.
///
/// # Safety
/// As [`put`], and `source` stays unchanged until the next quiet on `ctx`.
#[inline(always)]
pub unsafe fn put_nbi<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    // SAFETY: `'static` stands for "until the next quiet", the C caller's promise for a
    // non-blocking put (§9.7): `source`'s `len` bytes stay readable and unchanged until then,
    // and the network's read of them completes by that quiet.
    let source: Src<'static> = unsafe { src_of(call, "source", source, len) };
    rma::put_nbi(call, ctx, dest as usize, source, pe)
}

/// `shmem_get_nbi` family.
///
/// # Safety
/// As [`get`], and `dest` is neither read nor written by the program until the next quiet.
#[inline(always)]
pub unsafe fn get_nbi<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    pe: c_int,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    // SAFETY: `'static` stands for "until the next quiet", the C caller's promise for a
    // non-blocking get (§9.7): `dest`'s `len` bytes stay writable and untouched by the program
    // until then, and the network's write completes by that quiet.
    let dest: Dst<'static> = unsafe { dst_of(call, "dest", dest, len) };
    rma::get_nbi(call, ctx, dest, source as usize, pe)
}

/// The program's side of a strided transfer of `nblocks` blocks of `bsize` elements at `ptr`
/// with a stride of `stride` elements (argument `what`, stride argument `swhat`): the range the
/// blocks lie in (address, length), checked for overflow and NULL (empty if nothing moves).
#[inline(always)]
fn blocks<T>(
    call: &'static str,
    what: &'static str,
    swhat: &'static str,
    ptr: usize,
    stride: isize,
    bsize: usize,
    nblocks: usize,
) -> Strided<(usize, usize)> {
    bytes::<T>(call, "nelems", bsize.saturating_mul(nblocks));
    if bsize == 0 || nblocks == 0 {
        return Strided {
            range: (0, 0),
            at: 0,
            stride,
        };
    }
    if ptr == 0 {
        rma::null(call, what);
    }
    let (low, len) = strided_span::<T>(call, swhat, stride, bsize, nblocks);
    Strided {
        range: (ptr.wrapping_add_signed(low), len),
        at: (-low) as usize,
        stride,
    }
}

/// `shmem_ibput` family (1.6): `nblocks` blocks of `bsize` elements, block strides `dst`/`sst`.
///
/// # Safety
/// `source` holds the blocks its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn ibput<T: Plain>(
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
    let s = blocks::<T>(call, "source", "sst", source as usize, sst, bsize, nblocks);
    // SAFETY: `s.range` is the span from the first to the last block of `source` (computed
    // without overflow, non-NULL when not empty): the blocks lie in one C array, which the C
    // caller indexes from `source`, so the span, gaps included, is of that array and readable
    // during the call.
    let range = unsafe { Src::new(s.range.0, s.range.1) };
    let source = Strided {
        range,
        at: s.at,
        stride: s.stride,
    };
    rma::ibput::<T>(call, ctx, dest as usize, source, dst, bsize, nblocks, pe)
}

/// `shmem_ibget` family (1.6): `nblocks` blocks of `bsize` elements, block strides `dst`/`sst`.
///
/// # Safety
/// `dest` has room for the blocks its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn ibget<T: Plain>(
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
    let d = blocks::<T>(call, "dest", "dst", dest as usize, dst, bsize, nblocks);
    // SAFETY: `d.range` is the span from the first to the last block of `dest` (computed
    // without overflow, non-NULL when not empty): the blocks lie in one C array, which the C
    // caller indexes from `dest`, so the span is of that array; the call writes only the
    // blocks, which the program does not use meanwhile (a Dst allows other raw accesses to the
    // gaps).
    let range = unsafe { Dst::new(d.range.0, d.range.1) };
    let dest = Strided {
        range,
        at: d.at,
        stride: d.stride,
    };
    rma::ibget::<T>(call, ctx, dest, source as usize, sst, bsize, nblocks, pe)
}

/// `shmem_iput` family: `dest[i*dst] = source[i*sst]` on `pe`, for `i < nelems`.
///
/// # Safety
/// `source` holds the elements its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn iput<T: Plain>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: iput's contract (the `nelems` elements `source` reaches by `sst`) is ibput's
    // with blocks of one element.
    unsafe { ibput(call, ctx, dest, source, dst, sst, 1, nelems, pe) }
}

/// `shmem_iget` family: `dest[i*dst] = source[i*sst]` from `pe`, for `i < nelems`.
///
/// # Safety
/// `dest` has room for the elements its stride reaches.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn iget<T: Plain>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    pe: c_int,
) {
    // SAFETY: iget's contract (room for the `nelems` elements `dest` reaches by `dst`) is
    // ibget's with blocks of one element.
    unsafe { ibget(call, ctx, dest, source, dst, sst, 1, nelems, pe) }
}
