//! The C entry points of `ops::extension` that take the program's buffer:
//! `shmemx_alltoall_global_nb`'s `source` becomes a checked range of `size` bytes per PE.

use super::src_of;
use crate::ops::extension;
use std::ffi::{c_long, c_void};

/// `shmemx_alltoall_global_nb` (OSHMEM): see [`extension::alltoall_global_nb`].
///
/// # Safety
/// `source` holds `size * n_pes` bytes.
pub unsafe fn alltoall_global_nb(
    call: &'static str,
    dest: *mut c_void,
    source: *const c_void,
    size: usize,
    counter: *mut c_long,
) {
    let len = extension::alltoall_len(call, size);
    // SAFETY: the C caller's `source` holds `size` bytes for each PE, `len` bytes, readable
    // during the call (which delivers every block before it returns).
    let source = unsafe { src_of(call, "source", source, len) };
    extension::alltoall_global_nb(call, dest as usize, source, size, counter)
}
