//! The C entry points of `ops::ctx` that write a handle into the program's variable: the
//! variable becomes a reference (`None`: NULL, which the core answers with -1).

use super::var;
use crate::ops::ctx;
use crate::runtime::handle::{shmem_ctx_t, shmem_team_t};
use crate::runtime::personality::Program;
use std::ffi::{c_int, c_long};

/// `shmem_ctx_create`: see [`ctx::ctx_create`].
///
/// # Safety
/// `ctx` is NULL or writable.
pub unsafe fn ctx_create(
    call: &'static str,
    options: Program<c_long>,
    ctx: *mut shmem_ctx_t,
) -> c_int {
    // SAFETY: the C caller's `ctx`, if not NULL, is its `shmem_ctx_t` variable, which it does not
    // use during the call.
    let out = unsafe { var(ctx) };
    ctx::ctx_create(call, options, out)
}

/// `shmem_team_create_ctx`: see [`ctx::team_create_ctx`].
///
/// # Safety
/// `ctx` is NULL or writable.
pub unsafe fn team_create_ctx(
    call: &'static str,
    team: shmem_team_t,
    options: Program<c_long>,
    ctx: *mut shmem_ctx_t,
) -> c_int {
    // SAFETY: the C caller's `ctx`, if not NULL, is its `shmem_ctx_t` variable for the new
    // context, which it does not use during the call.
    let out = unsafe { var(ctx) };
    ctx::team_create_ctx(call, team, options, out)
}

/// `shmem_ctx_get_team`: see [`ctx::ctx_get_team`].
///
/// # Safety
/// `team` is NULL or writable.
pub unsafe fn ctx_get_team(call: &'static str, ctx: shmem_ctx_t, team: *mut shmem_team_t) -> c_int {
    // SAFETY: the C caller's `team`, if not NULL, is its `shmem_team_t` variable, which it does
    // not use during the call.
    let out = unsafe { var(team) };
    ctx::ctx_get_team(call, ctx, out)
}
