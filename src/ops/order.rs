//! Memory ordering (OpenSHMEM 1.6 §9.11): fence, quiet, pe_quiet. On the shared-memory route every
//! operation has completed when it returns; what remains is making its stores visible in order,
//! which a full memory fence does. A context's quiet and fence therefore complete its operations
//! (and, harmlessly, every other context's).

use crate::fatal;
use crate::runtime::handle::shmem_ctx_t;
use crate::transport::shm;
use std::ffi::c_int;

fn check(call: &'static str, ctx: shmem_ctx_t) {
    super::enter(call, ctx);
}

/// `shmem_fence`: puts to each PE are delivered in order.
pub fn fence(call: &'static str, ctx: shmem_ctx_t) {
    check(call, ctx);
    shm::order();
}

/// `shmem_quiet`: every put, AMO and nbi operation of the context is complete.
pub fn quiet(call: &'static str, ctx: shmem_ctx_t) {
    check(call, ctx);
    shm::order();
}

/// `shmem_pe_quiet` (1.6): quiet for the operations to the listed PEs.
///
/// # Safety
/// `target_pes` must hold `npes` entries.
pub unsafe fn pe_quiet(
    call: &'static str,
    ctx: shmem_ctx_t,
    target_pes: *const c_int,
    npes: usize,
) {
    let (w, c) = super::enter(call, ctx);
    if npes > 0 {
        if target_pes.is_null() {
            fatal!(call, "target_pes is NULL with npes = {npes}");
        }
        // SAFETY: the caller guarantees `npes` entries.
        let pes = unsafe { std::slice::from_raw_parts(target_pes, npes) };
        for &pe in pes {
            super::pe_of(call, w, c, pe);
        }
    }
    shm::order();
}
