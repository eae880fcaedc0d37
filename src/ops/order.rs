//! Memory ordering (OpenSHMEM 1.6 §9.11): fence, quiet, pe_quiet. On the shared-memory route every
//! operation has completed when it returns; what remains is making its stores visible in order:
//! for quiet a full memory fence (later loads too wait for them), for fence a store fence (and,
//! harmlessly, for every context at once). Over the network
//! each context has a lane of its own (see `transport`): fence orders the lane's operations, quiet
//! completes them at their targets; other contexts' operations are untouched.

use crate::fatal;
use crate::runtime::handle::{SHMEM_CTX_DEFAULT, shmem_ctx_t};
use crate::runtime::remote;
use crate::runtime::world::{self, World};
use crate::transport::shm;
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

fn complete_in(w: &World, call: &'static str, ctx: shmem_ctx_t) {
    shm::order();
    remote::quiet(w, call, ctx);
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
    // Only stores need ordering (puts, AMOs, memory stores; AMOs are locked instructions).
    shm::order_stores();
    remote::fence(w, call, ctx);
}

/// `shmem_quiet`: every put, AMO and nbi operation of the context is complete.
pub fn quiet(call: &'static str, ctx: shmem_ctx_t) {
    if invalid(call, ctx) {
        return;
    }
    let (w, _) = super::enter(call, ctx);
    complete_in(w, call, ctx);
}

/// `shmem_pe_quiet` (1.6): quiet for the operations to the listed PEs: the program's
/// `target_pes`, `npes` entries (a slice from `ops::ffi::order`; `None`: NULL).
pub fn pe_quiet(call: &'static str, ctx: shmem_ctx_t, target_pes: Option<&[c_int]>, npes: usize) {
    if invalid(call, ctx) {
        return;
    }
    let (w, c) = super::enter(call, ctx);
    let mut world_pes = Vec::new();
    if npes > 0 {
        let Some(pes) = target_pes else {
            fatal!(call, "target_pes is NULL with npes = {npes}")
        };
        // Checked on every route; listed (an allocation) only for a network to use.
        let networked = w.remote().is_some();
        for &pe in pes {
            let pe = super::pe_of(call, w, c, pe);
            if networked {
                world_pes.push(pe);
            }
        }
    }
    shm::order();
    remote::pe_quiet(w, call, ctx, &world_pes);
}
