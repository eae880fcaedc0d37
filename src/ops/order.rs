//! Memory ordering (OpenSHMEM 1.6 §9.11): fence, quiet, pe_quiet. On the shared-memory route every
//! operation has completed when it returns; what remains is making its stores visible in order,
//! which a full memory fence does (and, harmlessly, for every context at once). Over UCX each
//! context has a lane of its own (`transport::ucx::Lane`): fence is a fence of the lane's worker
//! (operations issued before it reach every target before those issued after) and quiet a flush of
//! it (every operation issued is complete at its target); other contexts' operations are untouched.

use super::net;
use crate::fatal;
use crate::runtime::handle::{self, SHMEM_CTX_DEFAULT, shmem_ctx_t};
use crate::runtime::world::{self, World};
use crate::transport::shm;
use crate::transport::ucx::Lane;
use std::ffi::c_int;

/// Completes every operation of this PE on the default context, on every route (what barrier_all,
/// the deprecated barrier and clear_lock need).
pub(crate) fn complete(call: &'static str) {
    complete_in(world::get(call), call, SHMEM_CTX_DEFAULT);
}

/// Completes every operation of context `ctx` (checked by the caller).
pub(crate) fn complete_ctx(call: &'static str, ctx: shmem_ctx_t) {
    complete_in(world::get(call), call, ctx);
}

/// The lane of `ctx` if the job uses UCX and the context has issued an operation on it.
fn opened(w: &World, ctx: shmem_ctx_t) -> Option<&Lane> {
    w.network()?.opened_lane(handle::lane_index(ctx))
}

fn complete_in(w: &World, call: &'static str, ctx: shmem_ctx_t) {
    shm::order();
    if let Some(lane) = opened(w, ctx)
        && let Err(e) = lane.quiet()
    {
        net::failed(call, w.me, e);
    }
}

/// Whether `ctx` is `SHMEM_CTX_INVALID`, on which fence and quiet do nothing (the spec says so
/// for both; pe_quiet is taken as quiet).
fn invalid(call: &'static str, ctx: shmem_ctx_t) -> bool {
    let _ = world::get(call);
    ctx == shmem_ctx_t::INVALID
}

/// `shmem_fence`: puts to each PE are delivered in order.
pub fn fence(call: &'static str, ctx: shmem_ctx_t) {
    if invalid(call, ctx) {
        return;
    }
    let (w, _) = super::enter(call, ctx);
    shm::order();
    if let Some(lane) = opened(w, ctx)
        && let Err(e) = lane.fence()
    {
        net::failed(call, w.me, e);
    }
}

/// `shmem_quiet`: every put, AMO and nbi operation of the context is complete.
pub fn quiet(call: &'static str, ctx: shmem_ctx_t) {
    if invalid(call, ctx) {
        return;
    }
    let (w, _) = super::enter(call, ctx);
    complete_in(w, call, ctx);
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
    if invalid(call, ctx) {
        return;
    }
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
    // A flush of the lane completes the listed PEs' operations with the others': as cheap as
    // flushing their endpoints one by one, and one call.
    complete_in(w, call, ctx);
}
