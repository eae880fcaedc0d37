//! Cache management (the legacy `shmem_set_cache_inv`, `shmem_set_cache_line_inv`,
//! `shmem_clear_cache_inv`, `shmem_clear_cache_line_inv`, `shmem_udcflush`, `shmem_udcflush_line`;
//! deprecated in OpenSHMEM 1.3, removed in 1.5, still called by old Fortran programs, and exported
//! by Open MPI OSHMEM and Sandia OpenSHMEM, whose C binaries call them; the C names come from the
//! extension table of `crates/apigen/src/foreign.rs`).
//!
//! They existed for machines whose data caches were not kept coherent with remote writes. Every
//! machine rshmem runs on (x86_64, aarch64) keeps caches coherent in hardware, and every remote
//! write is an ordinary or atomic store on the shared-memory route, so there is no cache to flush
//! or invalidate: the routines check that the library is initialized and return, which is what the
//! spec asks of them on such machines.

#![deny(unsafe_code)]

use crate::runtime::world;
use std::ffi::c_void;

/// The whole-cache forms: `set_cache_inv`, `clear_cache_inv`, `udcflush`.
pub fn whole(call: &'static str) {
    let _ = world::get(call);
}

/// The one-line forms: `set_cache_line_inv`, `clear_cache_line_inv`, `udcflush_line`, on the
/// cache line holding `dest`.
pub fn line(call: &'static str, _dest: *const c_void) {
    let _ = world::get(call);
}
