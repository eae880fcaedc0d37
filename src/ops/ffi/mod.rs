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
