//! The C entry points of `ops::memory` that take the program's variables: the legacy Fortran
//! `SHPALLOC`, `SHPDEALLC` and `SHPCLMOVE`, whose `addr`, `errcode` and `status` are variables
//! Fortran passes by reference (never NULL: Fortran has no null reference for a dummy argument).

use crate::ops::memory;
use std::ffi::{c_int, c_void};

/// `SHPALLOC(addr, length, errcode, abort)`: see [`memory::shpalloc`].
///
/// # Safety
/// `addr` and `errcode` are writable (Fortran's references to the program's variables).
pub unsafe fn shpalloc(
    call: &'static str,
    addr: *mut *mut c_void,
    length: c_int,
    errcode: *mut c_int,
    abort: c_int,
) {
    let (block, code) = memory::shpalloc(call, length, abort);
    if let Some(p) = block {
        // SAFETY: `addr` is Fortran's reference to the program's pointer-sized variable (the
        // caller's contract), writable.
        unsafe { addr.write(p) };
    }
    // SAFETY: `errcode` is Fortran's reference to the program's INTEGER, writable.
    unsafe { errcode.write(code) };
}

/// `SHPDEALLC(addr, errcode, abort)`: see [`memory::shpdeallc`].
///
/// # Safety
/// `addr` is readable, `errcode` writable.
pub unsafe fn shpdeallc(
    call: &'static str,
    addr: *mut *mut c_void,
    errcode: *mut c_int,
    abort: c_int,
) {
    // SAFETY: `addr` is Fortran's reference to the program's pointer-sized variable, readable.
    let ptr = unsafe { addr.read() };
    let code = memory::shpdeallc(call, ptr, abort);
    // SAFETY: `errcode` is Fortran's reference to the program's INTEGER, writable.
    unsafe { errcode.write(code) };
}

/// `SHPCLMOVE(addr, length, status, abort)`: see [`memory::shpclmove`].
///
/// # Safety
/// `addr` is readable and writable, `status` writable.
pub unsafe fn shpclmove(
    call: &'static str,
    addr: *mut *mut c_void,
    length: c_int,
    status: *mut c_int,
    abort: c_int,
) {
    // SAFETY: `addr` is Fortran's reference to the program's pointer-sized variable, readable.
    let ptr = unsafe { addr.read() };
    let (moved, code) = memory::shpclmove(call, ptr, length, abort);
    if let Some(new) = moved {
        // SAFETY: `addr` is Fortran's reference to the program's pointer-sized variable,
        // which SHPCLMOVE updates: writable.
        unsafe { addr.write(new) };
    }
    // SAFETY: `status` is Fortran's reference to the program's INTEGER, writable.
    unsafe { status.write(code) };
}
