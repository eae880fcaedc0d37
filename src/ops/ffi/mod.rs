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

pub mod coll;
pub mod reduce;

use super::{ComplexD, ComplexF, Float128, LongDouble};
use crate::transport::shm::Plain;

// SAFETY: 16 bytes of C `long double` or binary128 kept as `[u8; 16]` (every bit pattern is a
// value of the array, no padding: size 16, alignment 16).
unsafe impl Plain for LongDouble {}
// SAFETY: as for `LongDouble`.
unsafe impl Plain for Float128 {}
// SAFETY: `repr(C)` pair of `f64`: no padding (16 bytes, alignment 8), any bits are two doubles.
unsafe impl Plain for ComplexD {}
// SAFETY: `repr(C)` pair of `f32`: no padding (8 bytes, alignment 4), any bits are two floats.
unsafe impl Plain for ComplexF {}
