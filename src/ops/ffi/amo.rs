//! The C entry points of the non-blocking fetching AMOs of `ops::amo`: the program's `fetch`
//! becomes a range of one element (NULL reported before the atomic, so a bad call changes
//! nothing); the target is a symmetric address, checked by the core.

use super::dst_of;
use crate::ops::amo::{self, Amo, AmoInt, Rmw};
use crate::runtime::handle::shmem_ctx_t;
use std::ffi::c_int;
use std::mem::size_of;

/// `shmem_atomic_fetch_nbi` family.
///
/// # Safety
/// `fetch` is valid for a write of `T` until the next quiet (it is written before the call
/// returns).
#[inline(always)]
pub unsafe fn fetch_nbi<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    source: *const T,
    pe: c_int,
) {
    // SAFETY: the C caller's `fetch` has room for one `T`, which the program does not use until
    // the next quiet; this call writes it before it returns.
    let fetch = unsafe { dst_of(call, "fetch", fetch, size_of::<T>()) };
    amo::fetch_nbi(call, ctx, fetch, source, pe)
}

/// `shmem_atomic_swap_nbi` family.
///
/// # Safety
/// `fetch` is valid for a write of `T` until the next quiet (it is written before the call
/// returns).
#[inline(always)]
pub unsafe fn swap_nbi<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    // SAFETY: the C caller's `fetch` has room for one `T`, which the program does not use until
    // the next quiet; this call writes it before it returns.
    let fetch = unsafe { dst_of(call, "fetch", fetch, size_of::<T>()) };
    amo::swap_nbi(call, ctx, fetch, dest, value, pe)
}

/// `shmem_atomic_compare_swap_nbi` family.
///
/// # Safety
/// `fetch` is valid for a write of `T` until the next quiet (it is written before the call
/// returns).
#[inline(always)]
pub unsafe fn compare_swap_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) {
    // SAFETY: the C caller's `fetch` has room for one `T`, which the program does not use until
    // the next quiet; this call writes it before it returns.
    let fetch = unsafe { dst_of(call, "fetch", fetch, size_of::<T>()) };
    amo::compare_swap_nbi(call, ctx, fetch, dest, cond, value, pe)
}

/// `shmem_atomic_fetch_inc_nbi` family.
///
/// # Safety
/// `fetch` is valid for a write of `T` until the next quiet (it is written before the call
/// returns).
#[inline(always)]
pub unsafe fn fetch_inc_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    pe: c_int,
) {
    // SAFETY: the C caller's `fetch` has room for one `T`, which the program does not use until
    // the next quiet; this call writes it before it returns.
    let fetch = unsafe { dst_of(call, "fetch", fetch, size_of::<T>()) };
    amo::fetch_inc_nbi(call, ctx, fetch, dest, pe)
}

/// The `shmem_atomic_fetch_{add,and,or,xor}_nbi` families (`op` as in [`amo::fetch_rmw`]).
///
/// # Safety
/// `fetch` is valid for a write of `T` until the next quiet (it is written before the call
/// returns).
#[inline(always)]
pub unsafe fn fetch_rmw_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
    op: Rmw,
) {
    // SAFETY: the C caller's `fetch` has room for one `T`, which the program does not use until
    // the next quiet; this call writes it before it returns.
    let fetch = unsafe { dst_of(call, "fetch", fetch, size_of::<T>()) };
    amo::fetch_rmw_nbi(call, ctx, fetch, dest, value, pe, op)
}
