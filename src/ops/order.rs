//! Memory ordering (OpenSHMEM 1.6 §9.11): fence, quiet, pe_quiet. On the shared-memory route every
//! operation has completed when it returns; what remains is making its stores visible in order,
//! which a full memory fence does. Over UCX, fence is a worker fence (operations issued before it
//! reach every target before those issued after) and quiet a worker flush (every operation issued
//! is complete at its target). Every context shares the one worker, so a context's quiet and fence
//! also complete (harmlessly) every other context's operations.

use super::net;
use crate::fatal;
use crate::runtime::handle::shmem_ctx_t;
use crate::runtime::world::{self, World};
use crate::transport::shm;
use std::ffi::c_int;

/// Completes every operation of this PE, on every route (quiet on the default context).
pub(crate) fn complete(call: &'static str) {
    complete_in(world::get(call), call);
}

fn complete_in(w: &World, call: &'static str) {
    shm::order();
    if let Some(net) = w.network()
        && let Err(e) = net.quiet()
    {
        net::failed(call, w.me, e);
    }
}

/// `shmem_fence`: puts to each PE are delivered in order.
pub fn fence(call: &'static str, ctx: shmem_ctx_t) {
    let (w, _) = super::enter(call, ctx);
    shm::order();
    if let Some(net) = w.network()
        && let Err(e) = net.fence()
    {
        net::failed(call, w.me, e);
    }
}

/// `shmem_quiet`: every put, AMO and nbi operation of the context is complete.
pub fn quiet(call: &'static str, ctx: shmem_ctx_t) {
    let (w, _) = super::enter(call, ctx);
    complete_in(w, call);
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
    // A worker flush completes the listed PEs' operations with the others': as cheap as flushing
    // their endpoints one by one, and one call.
    complete_in(w, call);
}
