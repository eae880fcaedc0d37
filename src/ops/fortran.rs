//! The argument conversion the legacy Fortran shells need beyond reading through a reference: a
//! default `INTEGER` element count becomes a `size_t`. Fortran has no unsigned integers, so a
//! negative count is a mistake that C's `size_t` cannot express; it is reported, never wrapped.

#![deny(unsafe_code)]

use crate::fatal;
use std::ffi::c_int;

/// The count `n` of argument `what`, which must not be negative.
#[inline(always)]
pub fn count(call: &'static str, what: &str, n: c_int) -> usize {
    match usize::try_from(n) {
        Ok(n) => n,
        Err(_) => negative(call, what, n),
    }
}

#[cold]
#[inline(never)]
fn negative(call: &'static str, what: &str, n: c_int) -> ! {
    fatal!(call, "{what} = {n} is negative")
}
