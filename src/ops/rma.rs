//! Remote memory access (OpenSHMEM 1.6 §9.6, §9.7): put, get, p, g, the strided (`iput`/`iget`)
//! and block-strided (`ibput`/`ibget`) forms and the non-blocking forms.
//!
//! Each routine checks what is cheap to check (initialized, context, PE in range, the remote range
//! lies inside one symmetric segment), translates the symmetric address to the peer's copy with
//! one subtraction and one addition, and moves the bytes with the transport. The program's side
//! arrives as a checked range (`Src` or `Dst`, made from the C pointer in `ops::ffi::rma`, which
//! also checks that the sizes do not overflow); the symmetric side as an address the World checks.
//! On the shared-memory route every operation completes before it returns, so the `_nbi` forms are
//! the blocking ones; `shmem_quiet` still orders them as the spec requires. The same holds for a
//! peer on the UCX route whose memory UCX maps here (`World::rma_target`); any other peer on that
//! route (its base is 0) takes the out-of-line branch into `crate::runtime::remote`.

use super::enter_pe;
use crate::fatal;
use crate::runtime::handle::shmem_ctx_t;
use crate::runtime::remote;
use crate::runtime::world::{Seg, Target, World};
use crate::transport::shm::{Dst, Plain, Src};
use std::ffi::c_int;
use std::mem::{align_of, size_of};

/// `count` elements of `T` in bytes, or the overflow error.
#[inline(always)]
pub(crate) fn bytes<T>(call: &'static str, what: &str, count: usize) -> usize {
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
pub(crate) fn null(call: &'static str, what: &str) -> ! {
    fatal!(call, "{what} is NULL")
}

#[cold]
#[inline(never)]
fn misaligned(call: &'static str, what: &str, addr: usize, align: usize) -> ! {
    fatal!(
        call,
        "{what} {addr:#x} is not aligned to {align} bytes, the alignment of its element type"
    )
}

/// Where a transfer of `len` bytes to or from `pe`'s copy of the symmetric `addr` goes, after the
/// checks (context, PE, NULL, symmetric); `None` if `len` is 0 (nothing moves).
#[inline(always)]
fn route(
    call: &'static str,
    ctx: shmem_ctx_t,
    what: &str,
    addr: usize,
    len: usize,
    pe: c_int,
) -> Option<(&'static World, usize, Target)> {
    let (w, pe) = enter_pe(call, ctx, pe);
    if len == 0 {
        return None;
    }
    if addr == 0 {
        null(call, what);
    }
    Some((w, pe, w.rma_target(call, what, addr, len, pe)))
}

/// The network's part of a put: `Some` where the peer is not mapped here; a mapped peer's copy
/// is written at once.
#[inline(always)]
fn put_mapped(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: usize,
    source: Src<'_>,
    pe: c_int,
) -> Option<(&'static World, usize, Seg, usize)> {
    match route(call, ctx, "dest", dest, source.len(), pe)? {
        (_, _, Target::Mapped(remote)) => {
            remote.copy_from(source);
            None
        }
        (w, pe, Target::Net(seg, off)) => Some((w, pe, seg, off)),
    }
}

/// The network's part of a get, as [`put_mapped`].
#[inline(always)]
fn get_mapped(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: Dst<'_>,
    source: usize,
    pe: c_int,
) -> Option<(&'static World, usize, Seg, usize)> {
    match route(call, ctx, "source", source, dest.len(), pe)? {
        (_, _, Target::Mapped(remote)) => {
            dest.copy_from(remote.src());
            None
        }
        (w, pe, Target::Net(seg, off)) => Some((w, pe, seg, off)),
    }
}

/// `shmem_put` family: copies `source` to `pe`'s copy of the symmetric `dest`.
#[inline(always)]
pub fn put(call: &'static str, ctx: shmem_ctx_t, dest: usize, source: Src<'_>, pe: c_int) {
    if let Some((w, pe, seg, off)) = put_mapped(call, ctx, dest, source, pe) {
        remote::put(w, call, ctx, pe, seg, off, source)
    }
}

/// `shmem_get` family: copies `pe`'s copy of the symmetric `source` into `dest`.
#[inline(always)]
pub fn get(call: &'static str, ctx: shmem_ctx_t, dest: Dst<'_>, source: usize, pe: c_int) {
    if let Some((w, pe, seg, off)) = get_mapped(call, ctx, dest, source, pe) {
        remote::get(w, call, ctx, pe, seg, off, dest)
    }
}

/// `shmem_put_nbi` family: as [`put`]; over the network `source` is read until the next quiet.
/// Completes at once on the shared-memory route.
#[inline(always)]
pub fn put_nbi(call: &'static str, ctx: shmem_ctx_t, dest: usize, source: Src<'static>, pe: c_int) {
    if let Some((w, pe, seg, off)) = put_mapped(call, ctx, dest, source, pe) {
        remote::put_nbi(w, call, ctx, pe, seg, off, source)
    }
}

/// `shmem_get_nbi` family: as [`get`]; over the network `dest` is written until the next quiet.
/// Completes at once on the shared-memory route.
#[inline(always)]
pub fn get_nbi(call: &'static str, ctx: shmem_ctx_t, dest: Dst<'static>, source: usize, pe: c_int) {
    if let Some((w, pe, seg, off)) = get_mapped(call, ctx, dest, source, pe) {
        remote::get_nbi(w, call, ctx, pe, seg, off, dest)
    }
}

/// `shmem_p` family: stores `value` into `dest` on `pe` (the pointer is a symmetric address, never
/// dereferenced here).
#[inline(always)]
pub fn p<T: Plain>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, value: T, pe: c_int) {
    let (w, pe) = enter_pe(call, ctx, pe);
    match w.rma_target(call, "dest", dest as usize, size_of::<T>(), pe) {
        Target::Mapped(remote) => {
            if !remote.addr().is_multiple_of(align_of::<T>()) {
                misaligned(call, "dest", dest as usize, align_of::<T>());
            }
            remote.store(0, value)
        }
        Target::Net(seg, off) => remote::put_value(w, call, ctx, pe, seg, off, value),
    }
}

/// `shmem_g` family: loads `source` from `pe` (a symmetric address, as in [`p`]).
#[inline(always)]
pub fn g<T: Plain>(call: &'static str, ctx: shmem_ctx_t, source: *const T, pe: c_int) -> T {
    let (w, pe) = enter_pe(call, ctx, pe);
    match w.rma_target(call, "source", source as usize, size_of::<T>(), pe) {
        Target::Mapped(remote) => {
            if !remote.addr().is_multiple_of(align_of::<T>()) {
                misaligned(call, "source", source as usize, align_of::<T>());
            }
            remote.load(0)
        }
        Target::Net(seg, off) => remote::get_value(w, call, ctx, pe, seg, off),
    }
}

/// The byte range, relative to the first element, that `nblocks` blocks of `bsize` elements with
/// a stride of `stride` elements cover: `(lowest offset, length)`.
#[inline]
pub(crate) fn strided_span<T>(
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

/// The program's side of a strided transfer: the range its blocks lie in (`ops::ffi::rma` makes
/// it from [`strided_span`]), the first element's byte offset in it and the stride in elements.
#[derive(Clone, Copy)]
pub struct Strided<R> {
    pub range: R,
    pub at: usize,
    pub stride: isize,
}

/// `nblocks` blocks of `bsize` elements between the program's `local` side and `pe`'s copy of
/// the symmetric `symmetric` (stride `sym_stride` elements): a put if `local` is a `Src`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn strided<T: Plain>(
    call: &'static str,
    ctx: shmem_ctx_t,
    symmetric: usize,
    sym_stride: isize,
    local: Strided<remote::Local<'_>>,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    let to_peer = matches!(local.range, remote::Local::Put(_));
    let what = if to_peer { "dest" } else { "source" };
    let stride_name = if to_peer { "dst" } else { "sst" };
    let (w, pe) = enter_pe(call, ctx, pe);
    if bsize == 0 || nblocks == 0 {
        return;
    }
    if symmetric == 0 {
        null(call, what);
    }
    let (low, len) = strided_span::<T>(call, stride_name, sym_stride, bsize, nblocks);
    let first = symmetric.wrapping_add_signed(low);
    let at = (-low) as usize;
    let size = size_of::<T>();
    match w.rma_target(call, what, first, len, pe) {
        Target::Mapped(remote) => match local.range {
            remote::Local::Put(s) if bsize == 1 => {
                remote.copy_strided_from::<T>(at, sym_stride, s, local.at, local.stride, nblocks)
            }
            remote::Local::Get(d) if bsize == 1 => d.copy_strided_from::<T>(
                local.at,
                local.stride,
                remote.src(),
                at,
                sym_stride,
                nblocks,
            ),
            range => {
                let block = bsize * size;
                for b in 0..nblocks as isize {
                    let r = at.wrapping_add_signed(b * sym_stride * size as isize);
                    let l = local
                        .at
                        .wrapping_add_signed(b * local.stride * size as isize);
                    match range {
                        remote::Local::Put(s) => remote.part(r, block).copy_from(s.part(l, block)),
                        remote::Local::Get(d) => {
                            d.part(l, block).copy_from(remote.src().part(r, block))
                        }
                    }
                }
            }
        },
        Target::Net(seg, off) => remote::strided(
            w,
            call,
            ctx,
            pe,
            seg,
            off + at,
            sym_stride * size as isize,
            local.range,
            local.at,
            local.stride * size as isize,
            bsize * size,
            nblocks,
        ),
    }
}

/// `shmem_ibput` family (1.6): `nblocks` blocks of `bsize` elements, block strides `dst` (on the
/// peer) and `source.stride`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn ibput<T: Plain>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: usize,
    source: Strided<Src<'_>>,
    dst: isize,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    let local = Strided {
        range: remote::Local::Put(source.range),
        at: source.at,
        stride: source.stride,
    };
    strided::<T>(call, ctx, dest, dst, local, bsize, nblocks, pe)
}

/// `shmem_ibget` family (1.6): `nblocks` blocks of `bsize` elements, block strides
/// `dest.stride` and `sst` (on the peer).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn ibget<T: Plain>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: Strided<Dst<'_>>,
    source: usize,
    sst: isize,
    bsize: usize,
    nblocks: usize,
    pe: c_int,
) {
    let local = Strided {
        range: remote::Local::Get(dest.range),
        at: dest.at,
        stride: dest.stride,
    };
    strided::<T>(call, ctx, source, sst, local, bsize, nblocks, pe)
}
