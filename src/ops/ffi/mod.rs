//! The entry points of the ops that take the C caller's pointers: the one place of `ops` where
//! `unsafe` is allowed. Each function here has the C routine's contract (the pointers are valid
//! for the element type and count the routine names, for as long as the spec says: the call, or
//! until the next quiet for a non-blocking one), turns each pointer into what it is (a checked
//! range of the program's memory, `transport::shm::{Src, Dst}`, or a symmetric address, which
//! the World checks and translates), and calls the safe core in `ops::<chapter>`.
//!
//! The generator (`crates/apigen/src/ops.rs`) looks here first: an op `rma::put` with an entry
//! point in `ffi/rma.rs` is called as `ffi::rma::put` by the shells.
#![allow(unsafe_code)]

pub mod amo;
pub mod coll;
pub mod ctx;
pub mod extension;
pub mod memory;
pub mod order;
pub mod p2p;
pub mod reduce;
pub mod rma;
pub mod setup;
pub mod signal;
pub mod team;

use crate::ops::rma::{bytes, null};
use crate::ops::{Bits128, ComplexD, ComplexF, Float128, LongDouble};
use crate::transport::shm::{Dst, Plain, Src};

// SAFETY: `Bits128` is two `u64`s (`repr(C)`, 16 bytes, no padding): every bit pattern is one.
unsafe impl Plain for Bits128 {}
// SAFETY: `LongDouble` is 16 bytes (`repr(C)`, an array of `u8`, no padding): the strided RMA
// routines copy it as bytes, never compute with it.
unsafe impl Plain for LongDouble {}
// SAFETY: binary128 kept as 16 bytes (an array of `u8`, no padding): any bits are a value.
unsafe impl Plain for Float128 {}
// SAFETY: `repr(C)` pair of `f64`: no padding (16 bytes, alignment 8), any bits are two doubles.
unsafe impl Plain for ComplexD {}
// SAFETY: `repr(C)` pair of `f32`: no padding (8 bytes, alignment 4), any bits are two floats.
unsafe impl Plain for ComplexF {}

/// The program's `len` bytes at `ptr` (argument `what` of `call`) as a range: empty if `len` is 0
/// (where C allows NULL), else NULL is reported.
///
/// # Safety
/// If `len > 0`: `ptr..ptr+len` is readable while `'a` lasts.
#[inline(always)]
pub(crate) unsafe fn src_of<'a, T>(
    call: &'static str,
    what: &str,
    ptr: *const T,
    len: usize,
) -> Src<'a> {
    if len == 0 {
        return Src::empty();
    }
    if ptr.is_null() {
        null(call, what);
    }
    // SAFETY: non-NULL and, by the caller's contract, readable for `len` bytes while `'a` lasts
    // (a C object does not wrap the address space).
    unsafe { Src::new(ptr as usize, len) }
}

/// [`src_of`] for a buffer the call writes.
///
/// # Safety
/// If `len > 0`: `ptr..ptr+len` is writable while `'a` lasts, and the program does not use it
/// meanwhile.
#[inline(always)]
pub(crate) unsafe fn dst_of<'a, T>(
    call: &'static str,
    what: &str,
    ptr: *mut T,
    len: usize,
) -> Dst<'a> {
    if len == 0 {
        return Dst::empty();
    }
    if ptr.is_null() {
        null(call, what);
    }
    // SAFETY: non-NULL and, by the caller's contract, writable for `len` bytes while `'a` lasts
    // and not used by the program meanwhile.
    unsafe { Dst::new(ptr as usize, len) }
}

/// The program's `n` elements at `ptr`, or `None` if it is NULL; the overflow of `n` elements
/// (argument `count`) is reported.
///
/// # Safety
/// If not NULL: `ptr` holds `n` initialized elements of `T`, which nothing writes while `'a`
/// lasts.
#[inline(always)]
pub(crate) unsafe fn slice_of<'a, T>(
    call: &'static str,
    count: &str,
    ptr: *const T,
    n: usize,
) -> Option<&'a [T]> {
    bytes::<T>(call, count, n);
    // SAFETY: non-NULL (checked), `n` elements of at most `isize::MAX` bytes (checked), held and
    // left unchanged while `'a` lasts by the caller's contract.
    (!ptr.is_null()).then(|| unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// The program's room for `n` elements of `T` at `ptr` as a range, or `None` if it is NULL; the
/// overflow of `n` elements is reported.
///
/// # Safety
/// If not NULL: `ptr` has room for `n` elements of `T`, which the program does not use while
/// `'a` lasts.
#[inline(always)]
pub(crate) unsafe fn dst_or_null<'a, T>(
    call: &'static str,
    ptr: *mut T,
    n: usize,
) -> Option<Dst<'a>> {
    let len = bytes::<T>(call, "nelems", n);
    // SAFETY: non-NULL (checked), writable for `len` bytes (no overflow, checked) and not used
    // by the program while `'a` lasts, by the caller's contract.
    (!ptr.is_null()).then(|| unsafe { Dst::new(ptr as usize, len) })
}

/// The program's variable at `ptr` as a reference, or `None` if it is NULL.
///
/// # Safety
/// If not NULL: `ptr` is aligned and valid for reads and writes of a `T`, which nothing else
/// uses while `'a` lasts (the program's output variable during the call).
#[inline(always)]
pub(crate) unsafe fn var<'a, T>(ptr: *mut T) -> Option<&'a mut T> {
    // SAFETY: NULL gives `None`; otherwise valid, aligned and unshared for `'a` by the caller's
    // contract.
    unsafe { ptr.as_mut() }
}

/// The program's value at `ptr` as a reference, or `None` if it is NULL.
///
/// # Safety
/// If not NULL: `ptr` is aligned and points to an initialized `T` that nothing writes while `'a`
/// lasts.
#[inline(always)]
pub(crate) unsafe fn val<'a, T>(ptr: *const T) -> Option<&'a T> {
    // SAFETY: NULL gives `None`; otherwise valid, aligned, initialized and unchanged for `'a` by
    // the caller's contract.
    unsafe { ptr.as_ref() }
}
