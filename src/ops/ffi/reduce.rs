//! The entry points of the reductions and scans (`ops::reduce`): each turns the caller's `dest`
//! and `source` into ranges of the count's length and calls the safe core. Both are symmetric by
//! the spec; the World checks and translates them where they are read on another PE. And the C
//! helpers of the `long double` and binary128 arithmetic, which Rust cannot do
//! (`src/collectives/longdouble.c`, compiled by build.rs; hidden, not exported), behind safe
//! functions on ranges.
#![allow(non_snake_case, clippy::too_many_arguments)]

use super::super::reduce::{self as core, Arith, Element, Order};
use crate::collectives::Combine;
use crate::collectives::call::Acc;
use crate::ops::{Float128, LongDouble};
use crate::runtime::handle::shmem_team_t;
use crate::transport::shm::{Dst, Src};
use std::ffi::{c_int, c_long};

/// The caller's `dest` and `source` as ranges of `len` bytes each.
///
/// # Safety
/// The routine's contract: `dest` is writable and `source` readable for `len` bytes (the count's
/// elements) for the length of the call.
unsafe fn ranges<'a, T>(dest: *mut T, source: *const T, len: usize) -> (Dst<'a>, Src<'a>) {
    // SAFETY: this function's contract (the C program passes arrays of `nreduce` elements, which
    // `len` is in bytes); the ranges live only for this call, and others' accesses to them
    // (symmetric memory) are raw ones, which the ranges allow.
    unsafe { (Dst::new(dest as usize, len), Src::new(source as usize, len)) }
}

/// The `shmem_TYPENAME_OP_reduce` families: [`core::reduce`].
///
/// # Safety
/// `dest` and `source` must hold `nreduce` elements for the call.
pub unsafe fn reduce<T: Element>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nreduce: usize,
    op: Combine<T>,
) -> c_int {
    let len = core::bytes::<T>(call, "nreduce", nreduce);
    // SAFETY: the arrays hold `nreduce` elements, `len` bytes (this function's contract).
    let (dest, source) = unsafe { ranges(dest, source, len) };
    core::reduce(call, team, dest, source, nreduce, op)
}

/// The deprecated `shmem_TYPENAME_OP_to_all` families: [`core::to_all`].
///
/// # Safety
/// `dest` and `source` must hold `nreduce` elements for the call.
pub unsafe fn to_all<T: Element>(
    call: &'static str,
    dest: *mut T,
    source: *const T,
    nreduce: c_int,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pWrk: *mut T,
    _pSync: *mut c_long,
    op: Combine<T>,
) {
    let n = core::count(call, nreduce);
    let len = core::bytes::<T>(call, "nreduce", n);
    // SAFETY: the arrays hold `nreduce` elements, `len` bytes (this function's contract).
    let (dest, source) = unsafe { ranges(dest, source, len) };
    core::to_all(call, dest, source, PE_start, logPE_stride, PE_size, op)
}

/// `shmem_TYPENAME_sum_inscan` (1.6): [`core::scan`], inclusive.
///
/// # Safety
/// `dest` and `source` must hold `nelems` elements for the call.
pub unsafe fn sum_inscan<T: Arith>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let len = core::bytes::<T>(call, "nelems", nelems);
    // SAFETY: the arrays hold `nelems` elements, `len` bytes (this function's contract).
    let (dest, source) = unsafe { ranges(dest, source, len) };
    core::scan::<T>(call, team, dest, source, nelems, true)
}

/// `shmem_TYPENAME_sum_exscan` (1.6): [`core::scan`], exclusive.
///
/// # Safety
/// As [`sum_inscan`].
pub unsafe fn sum_exscan<T: Arith>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let len = core::bytes::<T>(call, "nelems", nelems);
    // SAFETY: the arrays hold `nelems` elements, `len` bytes (this function's contract).
    let (dest, source) = unsafe { ranges(dest, source, len) };
    core::scan::<T>(call, team, dest, source, nelems, false)
}

unsafe extern "C" {
    fn rshmem_c_longdouble_combine(op: c_int, acc: *mut LongDouble, x: *const LongDouble, n: usize);
    fn rshmem_c_float128_combine(op: c_int, acc: *mut Float128, x: *const Float128, n: usize);
}

/// `acc[k] = acc[k] op x[k]` for the `long double` elements of `x` (`op`: 0 sum, 1 prod, 2 max,
/// 3 min), in C.
pub(crate) fn longdouble_combine(op: c_int, acc: Dst<'_>, x: Src<'_>) {
    let n = x.len() / size_of::<LongDouble>();
    let acc = acc.part(0, x.len());
    // SAFETY: the helper reads `n` elements at `x` and updates `n` at `acc`, ranges that hold
    // them (`acc` cut to `x`'s length, checked); it accesses them only with plain loads and stores
    // of 16-byte values, which the ranges allow (unaligned included: `LongDouble` is bytes).
    unsafe {
        rshmem_c_longdouble_combine(
            op,
            acc.addr() as *mut LongDouble,
            x.addr() as *const LongDouble,
            n,
        )
    }
}

/// As [`longdouble_combine`], for binary128.
pub(crate) fn float128_combine(op: c_int, acc: Dst<'_>, x: Src<'_>) {
    let n = x.len() / size_of::<Float128>();
    let acc = acc.part(0, x.len());
    // SAFETY: the helper reads `n` binary128 elements at `x` and updates `n` at `acc` (cut to
    // `x`'s length, checked), with plain 16-byte loads and stores the ranges allow.
    unsafe {
        rshmem_c_float128_combine(
            op,
            acc.addr() as *mut Float128,
            x.addr() as *const Float128,
            n,
        )
    }
}

// The operators of `long double` and binary128, whose arithmetic is in C. `op`: 0 sum, 1 prod,
// 2 max, 3 min.
macro_rules! in_c {
    ($helper:ident, $name:ident, $op:expr) => {
        fn $name(acc: Acc<'_, Self>, x: Src<'_>) {
            $helper($op, acc.dst, x)
        }
    };
}
macro_rules! longdouble {
    ($name:ident, $op:expr) => {
        in_c!(longdouble_combine, $name, $op);
    };
}
macro_rules! float128 {
    ($name:ident, $op:expr) => {
        in_c!(float128_combine, $name, $op);
    };
}

impl core::sealed::Sealed for LongDouble {}
impl Element for LongDouble {}
impl Arith for LongDouble {
    longdouble!(sum, 0);
    longdouble!(prod, 1);
}
impl Order for LongDouble {
    longdouble!(max, 2);
    longdouble!(min, 3);
}

impl core::sealed::Sealed for Float128 {}
impl Element for Float128 {}
impl Arith for Float128 {
    float128!(sum, 0);
    float128!(prod, 1);
}
impl Order for Float128 {
    float128!(max, 2);
    float128!(min, 3);
}
