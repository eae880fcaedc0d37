//! Communication contexts (OpenSHMEM 1.6 §9.5): creation on the world or on a team, destruction,
//! the team of a context, and the 1.6 sessions.
//!
//! A context on a team takes PE numbers in that team (translated in `ops::pe_of`). On the
//! shared-memory route operations complete as they are issued, so the options (SERIALIZED, PRIVATE,
//! NOSTORE) and sessions are hints with nothing to tune: they are checked and recorded.

use crate::fatal;
use crate::runtime::constants::{
    SHMEM_CTX_NOSTORE, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_SESSION_BATCH,
    SHMEM_CTX_SESSION_TOTAL_OPS, shmem_ctx_session_config_t,
};
use crate::runtime::handle::{self, WORLD_SLOT, shmem_ctx_t, shmem_team_t};
use crate::runtime::personality::{self, Program};
use crate::runtime::world;
use std::ffi::{c_int, c_long};

const OPTIONS: c_long = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;

/// Creates a context on the team in `slot` into the program's `ctx` (`None`: NULL).
fn create(
    call: &'static str,
    slot: Option<usize>,
    options: Program<c_long>,
    ctx: Option<&mut shmem_ctx_t>,
) -> c_int {
    let Some(ctx) = ctx else {
        return -1;
    };
    let options = personality::ctx_options(call, options);
    let made = match slot {
        Some(slot) if options & !OPTIONS == 0 => handle::create_context(slot, options),
        _ => None,
    };
    let outcome = if made.is_some() { "created" } else { "refused" };
    tracing::debug!(target: "rshmem::ctx", "context on team slot {slot:?}, options {options:#x}: {outcome}");
    *ctx = made.unwrap_or(shmem_ctx_t::INVALID);
    if made.is_some() { 0 } else { -1 }
}

/// `shmem_ctx_create`: a context on the world team, into the program's `ctx` (a reference from
/// `ops::ffi::ctx`; `None`: NULL).
pub fn ctx_create(
    call: &'static str,
    options: Program<c_long>,
    ctx: Option<&mut shmem_ctx_t>,
) -> c_int {
    let _ = world::get(call);
    create(call, Some(WORLD_SLOT), options, ctx)
}

/// `shmem_team_create_ctx`: a context on `team`, into the program's `ctx` (as in [`ctx_create`]).
pub fn team_create_ctx(
    call: &'static str,
    team: shmem_team_t,
    options: Program<c_long>,
    ctx: Option<&mut shmem_ctx_t>,
) -> c_int {
    let _ = world::get(call);
    let slot = handle::team_or_invalid(call, team).map(|(slot, _)| slot);
    create(call, slot, options, ctx)
}

/// `shmem_ctx_destroy`: completes the context's operations, then frees it. SHMEM_CTX_INVALID does
/// nothing; the default context cannot be destroyed.
pub fn ctx_destroy(call: &'static str, ctx: shmem_ctx_t) {
    let _ = world::get(call);
    if ctx == shmem_ctx_t::INVALID {
        return;
    }
    if handle::is_default(ctx) {
        fatal!(call, "SHMEM_CTX_DEFAULT cannot be destroyed");
    }
    let (_, c) = super::enter(call, ctx);
    super::order::complete_ctx(call, ctx);
    c.release();
}

/// `shmem_ctx_get_team`: the team of a context (`SHMEM_TEAM_WORLD` for the default one), into
/// the program's `team` (a reference from
/// `ops::ffi::ctx`; `None`: NULL, -1).
pub fn ctx_get_team(
    call: &'static str,
    ctx: shmem_ctx_t,
    team: Option<&mut shmem_team_t>,
) -> c_int {
    let _ = world::get(call);
    let Some(team) = team else {
        return -1;
    };
    let found = handle::context(ctx).map(|c| handle::team_handle(c.team()));
    *team = found.unwrap_or(shmem_team_t::INVALID);
    if found.is_some() { 0 } else { -1 }
}

/// `shmem_ctx_session_start` (1.6): a hint; checked, nothing to tune on this route (`config` is
/// only checked against NULL, never read).
pub fn ctx_session_start(
    call: &'static str,
    ctx: shmem_ctx_t,
    options: c_long,
    config: *const shmem_ctx_session_config_t,
    config_mask: c_long,
) {
    // The spec: on SHMEM_CTX_INVALID, no action.
    if ctx == shmem_ctx_t::INVALID {
        let _ = world::get(call);
        return;
    }
    let _ = super::enter(call, ctx);
    if options & !SHMEM_CTX_SESSION_BATCH != 0 {
        fatal!(
            call,
            "options = {options:#x} has bits other than SHMEM_CTX_SESSION_BATCH"
        );
    }
    if config_mask & !SHMEM_CTX_SESSION_TOTAL_OPS != 0 {
        fatal!(
            call,
            "config_mask = {config_mask:#x} has bits other than SHMEM_CTX_SESSION_TOTAL_OPS"
        );
    }
    if config_mask != 0 && config.is_null() {
        fatal!(call, "config is NULL with config_mask = {config_mask:#x}");
    }
}

/// `shmem_ctx_session_stop` (1.6): ends the session; the context's operations are complete.
pub fn ctx_session_stop(call: &'static str, ctx: shmem_ctx_t) {
    // As session_start (the spec says nothing for stop; a session on SHMEM_CTX_INVALID never
    // started).
    if ctx == shmem_ctx_t::INVALID {
        let _ = world::get(call);
        return;
    }
    let _ = super::enter(call, ctx);
    super::order::complete_ctx(call, ctx);
}
