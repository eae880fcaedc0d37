//! Collective communication (OpenSHMEM 1.6 §9.9): team_sync, broadcast, collect, fcollect,
//! alltoall and alltoalls on teams, typed and `mem`; and the deprecated active-set forms (barrier,
//! the four-argument sync, broadcast32/64, collect32/64, fcollect32/64, alltoall32/64,
//! alltoalls32/64), which run the same algorithms over the PEs `PE_start + i * 2^logPE_stride`.
//!
//! The active-set forms synchronize through the library's own per-sender counters, not through
//! `pSync`: the array is accepted and never read or written, so its size and initial value do not
//! matter (binaries built against another implementation's header may pass a smaller one).
//! Team routines return 0, or -1 for SHMEM_TEAM_INVALID (the same on every PE); other bad input
//! stops the job with a message.
//!
//! The C caller's pointers become ranges in `ops::ffi::coll`; the cores here take the ranges.
#![allow(non_snake_case, clippy::too_many_arguments)]

use crate::collectives::barrier::active_set_fits;
use crate::collectives::{Coll, agree, flat};
use crate::collectives::{Group, Sync};
use crate::fatal;
use crate::runtime::handle::{self, shmem_team_t};
use crate::runtime::team::Members;
use crate::runtime::world;
use crate::transport::shm::{Dst, Plain, Src};
use std::ffi::{c_int, c_long};
use std::mem::size_of;

/// The collective on `team`, or None for an invalid team.
pub(crate) fn on_team(call: &'static str, team: shmem_team_t) -> Option<Coll<'static>> {
    let w = world::get(call);
    if team != shmem_team_t::INVALID && handle::team(team).is_none() {
        fatal!(call, "team = {:p} is not a team of this PE", team.0);
    }
    let (slot, t) = handle::team(team)?;
    Some(Coll {
        w,
        call,
        g: Group {
            members: t.members(),
            sync: Sync::Team(slot),
        },
    })
}

/// The collective over the active set `PE_start + i * 2^logPE_stride`, `i < PE_size`, or None
/// when this PE is not in it: the spec leaves such a call undefined, OSHMEM returns at once and
/// programs written for it (its own test suite among them) call with every PE, so the caller
/// returns at once too, having written nothing (docs/ABI.md). A set naming PEs that do not exist
/// stops the job.
pub(crate) fn on_active_set(
    call: &'static str,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
) -> Option<Coll<'static>> {
    let w = world::get(call);
    let n = w.npes as i64;
    if !(0..31).contains(&logPE_stride) {
        fatal!(call, "logPE_stride = {logPE_stride} is outside [0, 31)");
    }
    let stride = 1i64 << logPE_stride;
    let (start, size) = (PE_start as i64, PE_size as i64);
    if start < 0 || start >= n {
        fatal!(call, "PE_start = {PE_start} is outside [0, {n})");
    }
    if size < 1 || start + (size - 1) * stride >= n {
        fatal!(
            call,
            "PE_size = {PE_size} with PE_start = {PE_start} and logPE_stride = {logPE_stride} names PEs outside [0, {n})"
        );
    }
    if !active_set_fits(w.npes) {
        fatal!(
            call,
            "the active-set routines support at most {} PEs",
            crate::transport::shm::control::ASET_PES
        );
    }
    let d = w.me as i64 - start;
    if d < 0 || d % stride != 0 || d / stride >= size {
        if w.config.debug {
            crate::runtime::error::say(&format!(
                "[PE {}] {call}: returns at once: this PE is not in the active set (PE_start = {PE_start}, logPE_stride = {logPE_stride}, PE_size = {PE_size})",
                w.me
            ));
        }
        return None;
    }
    Some(Coll {
        w,
        call,
        g: Group {
            members: Members {
                start: start as usize,
                stride: stride as isize,
                size: size as usize,
                me: (d / stride) as usize,
            },
            sync: Sync::ActiveSet,
        },
    })
}

/// `count` elements of `T` in bytes, or the overflow error.
pub(crate) fn bytes<T>(call: &'static str, what: &str, count: usize) -> usize {
    match count.checked_mul(size_of::<T>()) {
        Some(n) if n <= isize::MAX as usize => n,
        _ => fatal!(
            call,
            "{what} = {count} overflows: {count} elements of {} bytes",
            size_of::<T>()
        ),
    }
}

fn root(call: &'static str, c: &Coll, PE_root: c_int) -> usize {
    if PE_root < 0 || PE_root as usize >= c.g.members.size {
        fatal!(
            call,
            "PE_root = {PE_root} is outside [0, {})",
            c.g.members.size
        );
    }
    PE_root as usize
}

fn strides(call: &'static str, dst: isize, sst: isize) -> (usize, usize) {
    if dst < 1 || sst < 1 {
        fatal!(
            call,
            "the strides must be at least 1: dst = {dst}, sst = {sst}"
        );
    }
    (dst as usize, sst as usize)
}

/// `shmem_team_sync`: waits for every PE of the team (no completion of operations).
pub fn team_sync(call: &'static str, team: shmem_team_t) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    agree::check(&c, None, None);
    super::sync::settle(c.w, call);
    crate::collectives::barrier::group(c.w, &c.g);
    0
}

/// Broadcast on a resolved team or active set of `nelems` elements (`dest`, `source`: that many
/// bytes each); the root's `dest` gets the data if `to_root`.
pub(crate) fn broadcast_on(
    call: &'static str,
    c: &Coll,
    dest: Dst<'_>,
    source: Src<'_>,
    nelems: usize,
    PE_root: c_int,
    to_root: bool,
) {
    let r = root(call, c, PE_root);
    agree::check(c, Some(r), Some(nelems));
    flat::broadcast(c, dest, source, r, to_root);
}

/// Collect on a resolved team or active set: each PE its own count; `dest(len)` is the first
/// `len` bytes of the destination.
pub(crate) fn collect_on<'d>(c: &Coll, dest: &dyn Fn(usize) -> Dst<'d>, source: Src<'_>) {
    agree::check(c, None, None);
    flat::collect(c, dest, source);
}

/// Fcollect of `nelems` elements (`source`) on a resolved team or active set (`dest`: the team
/// size times as long).
pub(crate) fn fcollect_on(c: &Coll, dest: Dst<'_>, source: Src<'_>, nelems: usize) {
    agree::check(c, None, Some(nelems));
    flat::fcollect(c, dest, source);
}

/// Alltoall of `nelems` elements a block on a resolved team or active set (`dest` and `source`
/// the team size times as long).
pub(crate) fn alltoall_on(c: &Coll, dest: Dst<'_>, source: Src<'_>, nelems: usize) {
    agree::check(c, None, Some(nelems));
    flat::alltoall(c, dest, source);
}

/// Strided alltoall on a resolved team or active set: `dest` and `source` span the elements
/// ([`alltoalls_spans`]).
pub(crate) fn alltoalls_on<T: Plain>(
    c: &Coll,
    dest: Dst<'_>,
    source: Src<'_>,
    (dst, sst): (usize, usize),
    nelems: usize,
) {
    agree::check(c, None, Some(nelems));
    flat::alltoalls::<T>(c, dest, source, dst, sst, nelems);
}

/// The strides of an alltoalls (checked), and the bytes its `dest` and `source` span on `c`:
/// from the first element to the end of the last, `dst` and `sst` elements apart, `nelems` for
/// each member (0 for none).
pub(crate) fn alltoalls_spans<T>(
    call: &'static str,
    c: &Coll,
    dst: isize,
    sst: isize,
    nelems: usize,
) -> ((usize, usize), usize, usize) {
    let (dst, sst) = strides(call, dst, sst);
    let span = |stride: usize| {
        let count = nelems.checked_mul(c.g.members.size);
        match count {
            Some(0) => 0,
            Some(k) => bytes::<T>(
                call,
                "nelems",
                (k - 1)
                    .checked_mul(stride)
                    .and_then(|x| x.checked_add(1))
                    .unwrap_or(usize::MAX),
            ),
            None => bytes::<T>(call, "nelems", usize::MAX),
        }
    };
    ((dst, sst), span(dst), span(sst))
}

/// Deprecated `shmem_barrier`: completes this PE's operations, then waits for the active set.
pub fn barrier(
    call: &'static str,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pSync: *mut c_long,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    super::order::complete(call);
    crate::collectives::barrier::group(c.w, &c.g);
}

/// Deprecated four-argument `shmem_sync`: waits for the active set.
pub fn sync(
    call: &'static str,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pSync: *mut c_long,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    crate::collectives::barrier::group(c.w, &c.g);
}
