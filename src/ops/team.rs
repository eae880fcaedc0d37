//! Team management (OpenSHMEM 1.6 §9.4): queries, translation, the strided and 2-D splits,
//! destruction, and `shmem_team_ptr`.
//!
//! A split is collective over the parent team. The new team's synchronization slot must be free on
//! every member, and every member must agree on it, although each member holds a different set of
//! teams: every parent member publishes the slots it uses and the highest barrier epoch it has used,
//! and every member takes the lowest slot free on all of them and starts the new team's epochs above
//! all of theirs (see `runtime::team`). The parent's members all compute the same answer, so a split
//! that cannot find a slot fails on every PE alike; invalid arguments, the same on every PE, are
//! rejected before any communication.

#![allow(clippy::too_many_arguments)]

use crate::collectives::Coll;
use crate::collectives::{Group, Sync};
use crate::fatal;
use crate::runtime::constants::{SHMEM_TEAM_NUM_CONTEXTS, shmem_team_config_t};
use crate::runtime::handle::{self, SHARED_SLOT, shmem_team_t};
use crate::runtime::personality::{self, Program};
use crate::runtime::team::{Members, Team};
use crate::runtime::world::{self, World};
use crate::transport::shm::control::TEAM_SLOTS;
use std::ffi::{c_int, c_long, c_void};
use std::sync::atomic::Ordering;

/// The error every team routine that returns a code reports.
const FAILED: c_int = -1;

/// `shmem_team_my_pe`: this PE's number in `team`, -1 for an invalid team.
pub fn team_my_pe(call: &'static str, team: shmem_team_t) -> c_int {
    let _ = world::get(call);
    handle::team_or_invalid(call, team).map_or(-1, |(_, t)| t.members().me as c_int)
}

/// `shmem_team_n_pes`: the number of PEs in `team`, -1 for an invalid team.
pub fn team_n_pes(call: &'static str, team: shmem_team_t) -> c_int {
    let _ = world::get(call);
    handle::team_or_invalid(call, team).map_or(-1, |(_, t)| t.members().size as c_int)
}

/// `shmem_team_get_config`: the configuration fields `config_mask` selects.
/// The program's `config` arrives as a reference (`None`: NULL) from `ops::ffi::team`.
pub fn team_get_config(
    call: &'static str,
    team: shmem_team_t,
    config_mask: Program<c_long>,
    config: Option<&mut shmem_team_config_t>,
) -> c_int {
    let _ = world::get(call);
    let config_mask = personality::team_mask(call, config_mask);
    let Some((_, t)) = handle::team_or_invalid(call, team) else {
        return FAILED;
    };
    let Some(config) = config else {
        return FAILED;
    };
    if config_mask & !SHMEM_TEAM_NUM_CONTEXTS != 0 {
        return FAILED;
    }
    if config_mask & SHMEM_TEAM_NUM_CONTEXTS != 0 {
        config.num_contexts = t.num_contexts();
    }
    0
}

/// `shmem_team_translate_pe`: the number in `dest_team` of PE `src_pe` of `src_team`, or -1.
pub fn team_translate_pe(
    call: &'static str,
    src_team: shmem_team_t,
    src_pe: c_int,
    dest_team: shmem_team_t,
) -> c_int {
    let _ = world::get(call);
    let (Some((_, s)), Some((_, d))) = (
        handle::team_or_invalid(call, src_team),
        handle::team_or_invalid(call, dest_team),
    ) else {
        return -1;
    };
    let s = s.members();
    if src_pe < 0 || src_pe as usize >= s.size {
        return -1;
    }
    d.members()
        .index_of(s.world(src_pe as usize))
        .map_or(-1, |i| i as c_int)
}

/// `shmem_team_ptr`: the local address of `dest` on team PE `pe`, or NULL.
pub fn team_ptr(
    call: &'static str,
    team: shmem_team_t,
    dest: *const c_void,
    pe: c_int,
) -> *mut c_void {
    let w = world::get(call);
    let Some((_, t)) = handle::team_or_invalid(call, team) else {
        return std::ptr::null_mut();
    };
    let m = t.members();
    if pe < 0 || pe as usize >= m.size {
        return std::ptr::null_mut();
    }
    let pe = m.world(pe as usize);
    match w.locate(dest as usize, 1) {
        Some(_) if pe == w.me => dest.cast_mut(),
        // A peer on the UCX route (base 0) has no address here.
        Some((seg, off)) => match w.segments[seg as usize].peer(pe) {
            None => std::ptr::null_mut(),
            Some(m) => (m.base() + off) as *mut c_void,
        },
        None => std::ptr::null_mut(),
    }
}

/// The `num_contexts` a configuration asks for, or None for an unknown mask bit.
fn num_contexts(
    call: &'static str,
    config: Option<&shmem_team_config_t>,
    mask: Program<c_long>,
) -> Option<c_int> {
    let mask = personality::team_mask(call, mask);
    if mask & !SHMEM_TEAM_NUM_CONTEXTS != 0 {
        return None;
    }
    if mask & SHMEM_TEAM_NUM_CONTEXTS == 0 {
        return Some(0);
    }
    let n = config?.num_contexts;
    (n >= 0).then_some(n)
}

/// Agrees over the parent team on `want` slots free on every parent member and on the epoch the
/// new teams start after. None (on every member) if there are not enough free slots.
fn agree(
    w: &World,
    call: &'static str,
    parent: (usize, Members),
    want: usize,
) -> Option<(Vec<usize>, u64)> {
    let c = Coll {
        w,
        call,
        g: Group {
            members: parent.1,
            sync: Sync::Team(parent.0),
        },
    };
    c.publish(0, w.team_slots.load(Ordering::Relaxed));
    c.publish(1, handle::highest_epoch());
    c.enter();
    let mut used = 0u64;
    let mut high = 0u64;
    for i in 0..parent.1.size {
        used |= c.published(i, 0);
        high = high.max(c.published(i, 1));
    }
    c.leave();
    let free: Vec<usize> = (SHARED_SLOT + 1..TEAM_SLOTS)
        .filter(|s| used & (1 << s) == 0)
        .take(want)
        .collect();
    (free.len() == want).then_some((free, high))
}

/// Opens a team of this PE in `slot`.
fn open(w: &World, slot: usize, m: Members, num_contexts: c_int, epoch: u64) -> shmem_team_t {
    let (size, start, stride) = (m.size, m.start, m.stride);
    tracing::debug!(target: "rshmem::team",
        "team in slot {slot}: {size} PEs from PE {start} by {stride}, {num_contexts} contexts");
    handle::team_at(slot).open(m, num_contexts, epoch);
    w.team_slots.fetch_or(1 << slot, Ordering::Relaxed);
    handle::team_handle(slot)
}

/// Members of the strided subset of `parent` (parent numbers `start + i * stride`), if valid.
fn strided(parent: &Members, start: c_int, stride: c_int, size: c_int) -> Option<(Members, bool)> {
    let n = parent.size as i64;
    let (start, stride, size) = (start as i64, stride as i64, size as i64);
    let last = start + (size - 1) * stride;
    if size < 1 || start < 0 || start >= n || last < 0 || last >= n || (stride == 0 && size > 1) {
        return None;
    }
    let mut m = Members {
        start: parent.world(start as usize),
        stride: parent.stride * stride as isize,
        size: size as usize,
        me: 0,
    };
    let me = parent.me as i64 - start;
    let member = if stride == 0 {
        me == 0
    } else {
        me % stride == 0 && (0..size).contains(&(me / stride))
    };
    if member {
        m.me = if stride == 0 {
            0
        } else {
            (me / stride) as usize
        };
    }
    Some((m, member))
}

/// Stores `value` in the program's `out`, if it gave one.
fn set(out: &mut Option<&mut shmem_team_t>, value: shmem_team_t) {
    if let Some(out) = out {
        **out = value;
    }
}

/// `shmem_team_split_strided`.
/// The program's `config` and `new_team` arrive as references (`None`: NULL) from
/// `ops::ffi::team`.
pub fn team_split_strided(
    call: &'static str,
    parent_team: shmem_team_t,
    start: c_int,
    stride: c_int,
    size: c_int,
    config: Option<&shmem_team_config_t>,
    config_mask: Program<c_long>,
    mut new_team: Option<&mut shmem_team_t>,
) -> c_int {
    let w = world::get(call);
    set(&mut new_team, shmem_team_t::INVALID);
    let Some((slot, parent)) = handle::team_or_invalid(call, parent_team) else {
        return FAILED;
    };
    let parent = parent.members();
    let contexts = num_contexts(call, config, config_mask);
    let (Some((m, member)), Some(contexts)) = (strided(&parent, start, stride, size), contexts)
    else {
        return FAILED;
    };
    if new_team.is_none() {
        return FAILED;
    }
    let Some((slots, epoch)) = agree(w, call, (slot, parent), 1) else {
        return FAILED;
    };
    if member {
        set(&mut new_team, open(w, slots[0], m, contexts, epoch));
    }
    0
}

/// `shmem_team_split_2d`: the parent as a grid of rows of `xrange` PEs; each PE joins its row (the
/// x-axis team) and its column (the y-axis team). An `xrange` above the parent's size is the size.
/// The program's configs and team variables arrive as references (`None`: NULL) from
/// `ops::ffi::team`.
pub fn team_split_2d(
    call: &'static str,
    parent_team: shmem_team_t,
    xrange: c_int,
    xaxis_config: Option<&shmem_team_config_t>,
    xaxis_mask: Program<c_long>,
    mut xaxis_team: Option<&mut shmem_team_t>,
    yaxis_config: Option<&shmem_team_config_t>,
    yaxis_mask: Program<c_long>,
    mut yaxis_team: Option<&mut shmem_team_t>,
) -> c_int {
    let w = world::get(call);
    set(&mut xaxis_team, shmem_team_t::INVALID);
    set(&mut yaxis_team, shmem_team_t::INVALID);
    let Some((slot, parent)) = handle::team_or_invalid(call, parent_team) else {
        return FAILED;
    };
    let parent = parent.members();
    let (xc, yc) = (
        num_contexts(call, xaxis_config, xaxis_mask),
        num_contexts(call, yaxis_config, yaxis_mask),
    );
    let (Some(xc), Some(yc)) = (xc, yc) else {
        return FAILED;
    };
    if xrange < 1 || xaxis_team.is_none() || yaxis_team.is_none() {
        return FAILED;
    }
    let n = parent.size;
    let xrange = (xrange as usize).min(n);
    let (row, col) = (parent.me / xrange, parent.me % xrange);
    let x = Members {
        start: parent.world(row * xrange),
        stride: parent.stride,
        size: xrange.min(n - row * xrange),
        me: col,
    };
    let y = Members {
        start: parent.world(col),
        stride: parent.stride * xrange as isize,
        size: (n - col).div_ceil(xrange),
        me: row,
    };
    let Some((slots, epoch)) = agree(w, call, (slot, parent), 2) else {
        return FAILED;
    };
    set(&mut xaxis_team, open(w, slots[0], x, xc, epoch));
    set(&mut yaxis_team, open(w, slots[1], y, yc, epoch));
    0
}

/// `shmem_team_destroy`: also destroys the contexts created on the team. SHMEM_TEAM_INVALID does
/// nothing; a predefined team cannot be destroyed.
pub fn team_destroy(call: &'static str, team: shmem_team_t) {
    let w = world::get(call);
    if team == shmem_team_t::INVALID {
        return;
    }
    let Some((slot, t)) = handle::team_or_invalid(call, team) else {
        fatal!(call, "team = {:p} is not a team of this PE", team.0)
    };
    if slot <= SHARED_SLOT {
        fatal!(
            call,
            "a predefined team (SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED) cannot be destroyed"
        );
    }
    handle::destroy_contexts_of(slot);
    close(w, slot, t);
}

fn close(w: &World, slot: usize, t: &Team) {
    tracing::debug!(target: "rshmem::team", "team in slot {slot} destroyed");
    t.close();
    w.team_slots.fetch_and(!(1 << slot), Ordering::Relaxed);
}
