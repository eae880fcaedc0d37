//! The C entry point of `ops::order` that takes the program's array: `shmem_pe_quiet`'s
//! `target_pes` becomes a slice of `npes` entries (`None`: NULL, an error unless `npes` is 0).

use super::slice_of;
use crate::ops::order;
use crate::runtime::handle::shmem_ctx_t;
use std::ffi::c_int;

/// `shmem_pe_quiet` (1.6): see [`order::pe_quiet`].
///
/// # Safety
/// `target_pes` holds `npes` entries.
pub unsafe fn pe_quiet(
    call: &'static str,
    ctx: shmem_ctx_t,
    target_pes: *const c_int,
    npes: usize,
) {
    // SAFETY: the C caller's `target_pes`, if not NULL, holds `npes` PE numbers, which it does
    // not change during the call.
    let target_pes = unsafe { slice_of(call, "npes", target_pes, npes) };
    order::pe_quiet(call, ctx, target_pes, npes)
}
