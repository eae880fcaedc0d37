//! Reductions (OpenSHMEM 1.6 §9.9.11): and, or, xor, max, min, sum and prod on teams, the
//! deprecated active-set `*_to_all` forms, and the 1.6 scans `sum_inscan` and `sum_exscan`.
//!
//! An element type says which operations it has through sealed traits: [`Arith`] (sum, prod: every
//! type of the tables, complex included), [`Order`] (max, min: the real types) and [`Bitwise`]
//! (and, or, xor: the integer types). Integers wrap; every PE combines the contributions in PE order,
//! so floating-point results agree across PEs. `long double` and binary128 (the Fortran `REAL*16`)
//! arithmetic is done by C helpers (`src/collectives/longdouble.c`), since Rust has no such types.
//! The complex types also have the bitwise operations, on the bits of each part, for the legacy
//! Fortran `COMP4`/`COMP8` `XOR` extension.
//!
//! The `*_to_all` forms ignore `pWrk` and `pSync` (see `ops::coll`).
#![allow(non_snake_case, clippy::too_many_arguments)]

use super::coll::{on_active_set, on_team};
use super::{ComplexD, ComplexF, Float128, LongDouble};
use crate::collectives::Combine;
use crate::collectives::flat;
use crate::fatal;
use crate::runtime::handle::shmem_team_t;
use std::ffi::{c_int, c_long};

mod sealed {
    pub trait Sealed {}
}

/// An element of the reductions.
pub trait Element: Copy + sealed::Sealed {
    /// The value of an empty sum (`sum_exscan` on the first PE).
    const ZERO: Self;
}

/// Types with sum and prod.
pub trait Arith: Element {
    /// `acc[k] += x[k]` for `k < n`.
    ///
    /// # Safety
    /// `acc` and `x` must hold `n` elements.
    unsafe fn sum(acc: *mut Self, x: *const Self, n: usize);
    /// `acc[k] *= x[k]` for `k < n`.
    ///
    /// # Safety
    /// As [`Arith::sum`].
    unsafe fn prod(acc: *mut Self, x: *const Self, n: usize);
}

/// Types with max and min.
pub trait Order: Element {
    /// `acc[k] = max(acc[k], x[k])`.
    ///
    /// # Safety
    /// As [`Arith::sum`].
    unsafe fn max(acc: *mut Self, x: *const Self, n: usize);
    /// `acc[k] = min(acc[k], x[k])`.
    ///
    /// # Safety
    /// As [`Arith::sum`].
    unsafe fn min(acc: *mut Self, x: *const Self, n: usize);
}

/// Types with and, or, xor.
pub trait Bitwise: Element {
    /// `acc[k] &= x[k]`.
    ///
    /// # Safety
    /// As [`Arith::sum`].
    unsafe fn and(acc: *mut Self, x: *const Self, n: usize);
    /// `acc[k] |= x[k]`.
    ///
    /// # Safety
    /// As [`Arith::sum`].
    unsafe fn or(acc: *mut Self, x: *const Self, n: usize);
    /// `acc[k] ^= x[k]`.
    ///
    /// # Safety
    /// As [`Arith::sum`].
    unsafe fn xor(acc: *mut Self, x: *const Self, n: usize);
}

/// `acc[k] = f(acc[k], x[k])` for `k < n`.
///
/// # Safety
/// `acc` and `x` must hold `n` elements (`x` may be a peer's mapped buffer).
#[inline(always)]
unsafe fn each<T: Copy>(acc: *mut T, x: *const T, n: usize, f: impl Fn(T, T) -> T) {
    for k in 0..n {
        // SAFETY: guaranteed by the caller.
        unsafe {
            let a = acc.add(k);
            a.write(f(a.read(), x.add(k).read()));
        }
    }
}

macro_rules! ops {
    ($name:ident, $f:expr) => {
        unsafe fn $name(acc: *mut Self, x: *const Self, n: usize) {
            // SAFETY: forwarded contract.
            unsafe { each(acc, x, n, $f) }
        }
    };
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const ZERO: Self = 0;
        }
        impl Arith for $t {
            ops!(sum, |a: $t, b: $t| a.wrapping_add(b));
            ops!(prod, |a: $t, b: $t| a.wrapping_mul(b));
        }
        impl Order for $t {
            ops!(max, |a: $t, b: $t| a.max(b));
            ops!(min, |a: $t, b: $t| a.min(b));
        }
        impl Bitwise for $t {
            ops!(and, |a: $t, b: $t| a & b);
            ops!(or, |a: $t, b: $t| a | b);
            ops!(xor, |a: $t, b: $t| a ^ b);
        }
    )*};
}
integer!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t { const ZERO: Self = 0.0; }
        impl Arith for $t {
            ops!(sum, |a: $t, b: $t| a + b);
            ops!(prod, |a: $t, b: $t| a * b);
        }
        impl Order for $t {
            ops!(max, |a: $t, b: $t| if b > a { b } else { a });
            ops!(min, |a: $t, b: $t| if b < a { b } else { a });
        }
    )*};
}
float!(f32, f64);

macro_rules! complex {
    ($($t:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t { const ZERO: Self = $t { re: 0.0, im: 0.0 }; }
        impl Arith for $t {
            ops!(sum, |a: $t, b: $t| $t { re: a.re + b.re, im: a.im + b.im });
            ops!(prod, |a: $t, b: $t| $t {
                re: a.re * b.re - a.im * b.im,
                im: a.re * b.im + a.im * b.re,
            });
        }
    )*};
}
complex!(ComplexD, ComplexF);

// Bitwise operations of the complex types (only the legacy Fortran `SHMEM_COMP4/8_XOR_TO_ALL`, an
// implementation extension, use them): each part combined as the integer of its bits.
macro_rules! complex_bits {
    ($($t:ident: $f:ty),*) => {$(
        impl Bitwise for $t {
            ops!(and, |a: $t, b: $t| $t {
                re: <$f>::from_bits(a.re.to_bits() & b.re.to_bits()),
                im: <$f>::from_bits(a.im.to_bits() & b.im.to_bits()),
            });
            ops!(or, |a: $t, b: $t| $t {
                re: <$f>::from_bits(a.re.to_bits() | b.re.to_bits()),
                im: <$f>::from_bits(a.im.to_bits() | b.im.to_bits()),
            });
            ops!(xor, |a: $t, b: $t| $t {
                re: <$f>::from_bits(a.re.to_bits() ^ b.re.to_bits()),
                im: <$f>::from_bits(a.im.to_bits() ^ b.im.to_bits()),
            });
        }
    )*};
}
complex_bits!(ComplexD: f64, ComplexF: f32);

// The `long double` and binary128 arithmetic, in C (`ops::ffi::reduce`). `op`: 0 sum, 1 prod,
// 2 max, 3 min.
macro_rules! in_c {
    ($helper:ident, $name:ident, $op:expr) => {
        unsafe fn $name(acc: *mut Self, x: *const Self, n: usize) {
            // SAFETY: the helper reads `n` elements of `x` and updates `n` of `acc`, which the
            // caller guarantees.
            unsafe { super::ffi::reduce::$helper($op, acc, x, n) }
        }
    };
}
macro_rules! longdouble {
    ($name:ident, $op:expr) => {
        in_c!(rshmem_c_longdouble_combine, $name, $op);
    };
}
macro_rules! float128 {
    ($name:ident, $op:expr) => {
        in_c!(rshmem_c_float128_combine, $name, $op);
    };
}

impl sealed::Sealed for LongDouble {}
impl Element for LongDouble {
    const ZERO: Self = LongDouble([0; 16]);
}
impl Arith for LongDouble {
    longdouble!(sum, 0);
    longdouble!(prod, 1);
}
impl Order for LongDouble {
    longdouble!(max, 2);
    longdouble!(min, 3);
}

impl sealed::Sealed for Float128 {}
impl Element for Float128 {
    const ZERO: Self = Float128([0; 16]);
}
impl Arith for Float128 {
    float128!(sum, 0);
    float128!(prod, 1);
}
impl Order for Float128 {
    float128!(max, 2);
    float128!(min, 3);
}

/// The `shmem_TYPENAME_OP_reduce` families: `op` is the operator (`Bitwise::and`, `Order::max`,
/// `Arith::sum`, ...), which the generated shell names, so the element type has it. Returns 0, or
/// -1 for SHMEM_TEAM_INVALID.
///
/// # Safety
/// `dest` must hold `nreduce` elements; `source` must be symmetric.
pub unsafe fn reduce<T: Element>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nreduce: usize,
    op: Combine<T>,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    crate::collectives::agree::check(&c, None, Some(nreduce));
    super::coll::bytes::<T>(call, "nreduce", nreduce);
    // SAFETY: forwarded contract.
    unsafe { flat::reduce(&c, dest, source, nreduce, T::ZERO, op) };
    0
}

/// The deprecated `shmem_TYPENAME_OP_to_all` families, `op` as in [`reduce`].
///
/// # Safety
/// `dest` must hold `nreduce` elements; `source` must be symmetric.
#[allow(clippy::too_many_arguments)]
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
    if nreduce < 0 {
        fatal!(call, "nreduce = {nreduce} is negative");
    }
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    // SAFETY: forwarded contract.
    unsafe { flat::reduce(&c, dest, source, nreduce as usize, T::ZERO, op) };
}

/// `shmem_TYPENAME_sum_inscan` (1.6): PE `i`'s `dest` is the sum of the sources of PEs `0..=i`.
///
/// # Safety
/// `dest` must hold `nelems` elements; `source` must be symmetric.
pub unsafe fn sum_inscan<T: Arith>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { scan(call, team, dest, source, nelems, true) }
}

/// `shmem_TYPENAME_sum_exscan` (1.6): PE `i`'s `dest` is the sum of the sources of PEs `0..i`
/// (zero on PE 0).
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
    // SAFETY: forwarded contract.
    unsafe { scan(call, team, dest, source, nelems, false) }
}

unsafe fn scan<T: Arith>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    n: usize,
    inclusive: bool,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    crate::collectives::agree::check(&c, None, Some(n));
    super::coll::bytes::<T>(call, "nelems", n);
    // SAFETY: forwarded contract.
    unsafe { flat::scan(&c, dest, source, n, inclusive, T::ZERO, T::sum) };
    0
}
