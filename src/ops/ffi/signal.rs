//! The C entry points of `ops::signal` that take the program's buffer: a put-with-signal's
//! `source` becomes a checked range of `nelems` elements (after the overflow and NULL checks;
//! NULL is legal with a count of 0); `dest` and `sig_addr` are symmetric addresses, checked by
//! the core.

use super::src_of;
use crate::ops::rma::bytes;
use crate::ops::signal;
use crate::runtime::handle::shmem_ctx_t;
use crate::runtime::personality::Program;
use std::ffi::c_int;

/// `shmem_put_signal` family.
///
/// # Safety
/// `source` holds `nelems` elements of `T`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn put_signal<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: Program<c_int>,
    pe: c_int,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    // SAFETY: the C caller's `source` holds `nelems` elements, `len` bytes, readable during the
    // call.
    let source = unsafe { src_of(call, "source", source, len) };
    signal::put_signal(
        call,
        ctx,
        dest as usize,
        source,
        sig_addr,
        signal,
        sig_op,
        pe,
    )
}

/// `shmem_put_signal_nbi` family: completes before it returns (the data by a blocking put), so
/// its `source` is read only during the call.
///
/// # Safety
/// As [`put_signal`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn put_signal_nbi<T: Copy>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: Program<c_int>,
    pe: c_int,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    // SAFETY: the C caller's `source` holds `nelems` elements, `len` bytes, readable at least
    // until the next quiet, and this call reads them only before it returns.
    let source = unsafe { src_of(call, "source", source, len) };
    signal::put_signal(
        call,
        ctx,
        dest as usize,
        source,
        sig_addr,
        signal,
        sig_op,
        pe,
    )
}
