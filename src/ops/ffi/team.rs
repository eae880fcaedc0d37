//! The C entry points of `ops::team` that take the program's variables: a `shmem_team_config_t`
//! to read, one to fill, the team handles a split writes; each becomes a reference (`None`:
//! NULL, which the core answers as the spec says).

use super::{val, var};
use crate::ops::team;
use crate::runtime::constants::shmem_team_config_t;
use crate::runtime::handle::shmem_team_t;
use crate::runtime::personality::Program;
use std::ffi::{c_int, c_long};

/// `shmem_team_get_config`: see [`team::team_get_config`].
///
/// # Safety
/// `config` is NULL or writable.
pub unsafe fn team_get_config(
    call: &'static str,
    team: shmem_team_t,
    config_mask: Program<c_long>,
    config: *mut shmem_team_config_t,
) -> c_int {
    // SAFETY: the C caller's `config`, if not NULL, is its `shmem_team_config_t`, which it does
    // not use during the call.
    let config = unsafe { var(config) };
    team::team_get_config(call, team, config_mask, config)
}

/// `shmem_team_split_strided`: see [`team::team_split_strided`].
///
/// # Safety
/// `config` is NULL or readable, `new_team` NULL or writable.
#[allow(clippy::too_many_arguments)]
pub unsafe fn team_split_strided(
    call: &'static str,
    parent_team: shmem_team_t,
    start: c_int,
    stride: c_int,
    size: c_int,
    config: *const shmem_team_config_t,
    config_mask: Program<c_long>,
    new_team: *mut shmem_team_t,
) -> c_int {
    // SAFETY: the C caller's `config`, if not NULL, is an initialized `shmem_team_config_t`
    // (one `int`), unchanged during the call.
    let config = unsafe { val(config) };
    // SAFETY: the C caller's `new_team`, if not NULL, is its `shmem_team_t` variable, which it
    // does not use during the call.
    let new_team = unsafe { var(new_team) };
    team::team_split_strided(
        call,
        parent_team,
        start,
        stride,
        size,
        config,
        config_mask,
        new_team,
    )
}

/// `shmem_team_split_2d`: see [`team::team_split_2d`].
///
/// # Safety
/// The configs are NULL or readable, the team variables NULL or writable (and distinct).
#[allow(clippy::too_many_arguments)]
pub unsafe fn team_split_2d(
    call: &'static str,
    parent_team: shmem_team_t,
    xrange: c_int,
    xaxis_config: *const shmem_team_config_t,
    xaxis_mask: Program<c_long>,
    xaxis_team: *mut shmem_team_t,
    yaxis_config: *const shmem_team_config_t,
    yaxis_mask: Program<c_long>,
    yaxis_team: *mut shmem_team_t,
) -> c_int {
    if !xaxis_team.is_null() && xaxis_team == yaxis_team {
        crate::fatal!(
            call,
            "xaxis_team and yaxis_team are the same variable ({xaxis_team:p}): each receives a different team"
        );
    }
    // SAFETY: the C caller's configs, if not NULL, are initialized `shmem_team_config_t`s (one
    // `int` each), unchanged during the call.
    let (xaxis_config, yaxis_config) = unsafe { (val(xaxis_config), val(yaxis_config)) };
    // SAFETY: the C caller's team variables, if not NULL, are its `shmem_team_t`s, which it does
    // not use during the call; they are distinct (checked above), so the two borrows do not alias.
    let (xaxis_team, yaxis_team) = unsafe { (var(xaxis_team), var(yaxis_team)) };
    team::team_split_2d(
        call,
        parent_team,
        xrange,
        xaxis_config,
        xaxis_mask,
        xaxis_team,
        yaxis_config,
        yaxis_mask,
        yaxis_team,
    )
}
