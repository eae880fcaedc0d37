//! The C helpers of `ops::reduce`: the `long double` and binary128 arithmetic, which Rust cannot
//! do (`src/collectives/longdouble.c`, compiled by build.rs; hidden, not exported). Each combines
//! `n` elements of `x` into `n` of `acc`, `acc[k] = acc[k] op x[k]`, `op`: 0 sum, 1 prod, 2 max,
//! 3 min.

use crate::ops::{Float128, LongDouble};
use std::ffi::c_int;

unsafe extern "C" {
    pub(crate) fn rshmem_c_longdouble_combine(
        op: c_int,
        acc: *mut LongDouble,
        x: *const LongDouble,
        n: usize,
    );
    pub(crate) fn rshmem_c_float128_combine(
        op: c_int,
        acc: *mut Float128,
        x: *const Float128,
        n: usize,
    );
}
