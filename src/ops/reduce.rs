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
use super::{ComplexD, ComplexF};
use crate::collectives::call::Acc;
use crate::collectives::{Combine, flat};
use crate::fatal;
use crate::runtime::handle::shmem_team_t;
use crate::transport::shm::{Dst, Plain, Src};
use std::ffi::c_int;

pub(in crate::ops) mod sealed {
    pub trait Sealed {}
}

/// An element of the reductions.
pub trait Element: Plain + sealed::Sealed {}

/// Types with sum and prod. Each operator combines the elements of `x` into those of `acc`
/// (`acc[k] = acc[k] op x[k]`, as many as `x` holds).
pub trait Arith: Element {
    /// `acc[k] += x[k]`.
    fn sum(acc: Acc<'_, Self>, x: Src<'_>);
    /// `acc[k] *= x[k]`.
    fn prod(acc: Acc<'_, Self>, x: Src<'_>);
}

/// Types with max and min.
pub trait Order: Element {
    /// `acc[k] = max(acc[k], x[k])`.
    fn max(acc: Acc<'_, Self>, x: Src<'_>);
    /// `acc[k] = min(acc[k], x[k])`.
    fn min(acc: Acc<'_, Self>, x: Src<'_>);
}

/// Types with and, or, xor.
pub trait Bitwise: Element {
    /// `acc[k] &= x[k]`.
    fn and(acc: Acc<'_, Self>, x: Src<'_>);
    /// `acc[k] |= x[k]`.
    fn or(acc: Acc<'_, Self>, x: Src<'_>);
    /// `acc[k] ^= x[k]`.
    fn xor(acc: Acc<'_, Self>, x: Src<'_>);
}

macro_rules! ops {
    ($name:ident, $f:expr) => {
        fn $name(acc: Acc<'_, Self>, x: Src<'_>) {
            acc.dst.combine::<Self>(x, $f)
        }
    };
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {}
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
        impl Element for $t {}
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
        impl Element for $t {}
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

// The `long double` and binary128 operators are `ops::ffi::reduce`'s: their arithmetic is in C.

/// The `shmem_TYPENAME_OP_reduce` families, on `team`: `dest` and `source` (symmetric) hold
/// `nreduce` elements (`super::ffi::reduce::reduce` makes them). `op` is the operator
/// (`Bitwise::and`, `Order::max`, `Arith::sum`, ...), which the generated shell names, so the
/// element type has it. Returns 0, or -1 for SHMEM_TEAM_INVALID.
pub fn reduce<T: Element>(
    call: &'static str,
    team: shmem_team_t,
    dest: Dst<'_>,
    source: Src<'_>,
    nreduce: usize,
    op: Combine<T>,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    crate::collectives::agree::check(&c, None, Some(nreduce));
    flat::reduce(&c, dest, source, op);
    0
}

/// The deprecated `shmem_TYPENAME_OP_to_all` families, `op` as in [`reduce`].
pub fn to_all<T: Element>(
    call: &'static str,
    dest: Dst<'_>,
    source: Src<'_>,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    op: Combine<T>,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    flat::reduce(&c, dest, source, op);
}

/// `shmem_TYPENAME_sum_inscan` (1.6) and `_exscan`: PE `i`'s `dest` is the sum of the sources
/// of PEs `0..=i` (`inclusive`) or `0..i` (zero on PE 0).
pub fn scan<T: Arith>(
    call: &'static str,
    team: shmem_team_t,
    dest: Dst<'_>,
    source: Src<'_>,
    n: usize,
    inclusive: bool,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    crate::collectives::agree::check(&c, None, Some(n));
    flat::scan(&c, dest, source, inclusive, T::sum);
    0
}

/// Checks a reduction's count: `nreduce` elements of `T` in bytes, or the error.
pub fn bytes<T>(call: &'static str, what: &str, count: usize) -> usize {
    super::coll::bytes::<T>(call, what, count)
}

/// Checks a `*_to_all` count.
pub fn count(call: &'static str, nreduce: c_int) -> usize {
    if nreduce < 0 {
        fatal!(call, "nreduce = {nreduce} is negative");
    }
    nreduce as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_combine_element_by_element() {
        let mut acc = [ComplexD { re: 1.0, im: 2.0 }; 2];
        let x = [ComplexD { re: 3.0, im: 4.0 }, ComplexD { re: 0.0, im: 1.0 }];
        <ComplexD as Arith>::prod(Acc::new(Dst::of(&mut acc)), Src::of(&x));
        assert_eq!(acc[0], ComplexD { re: -5.0, im: 10.0 });
        assert_eq!(acc[1], ComplexD { re: -2.0, im: 1.0 });
        let mut m = [5i8, -3, 7];
        <i8 as Order>::max(Acc::new(Dst::of(&mut m)), Src::of(&[1i8, 4, 100]));
        assert_eq!(m, [5, 4, 100]);
        let mut w = [250u8];
        <u8 as Arith>::sum(Acc::new(Dst::of(&mut w)), Src::of(&[10u8]));
        assert_eq!(w, [4], "integers wrap");
    }
}
