//! The entry points of the collectives that take data (`ops::coll`): each resolves the team or
//! active set (whose size some lengths need), turns the caller's `dest` and `source` into ranges
//! of the lengths the counts give, and calls the safe core. Both are symmetric by the spec; the
//! World checks and translates them where another PE's copy is read or written.
#![allow(non_snake_case, clippy::too_many_arguments)]

use super::super::coll::{self as core, bytes, on_active_set, on_team};
use crate::collectives::Coll;
use crate::runtime::handle::shmem_team_t;
use crate::transport::shm::{Dst, Plain, Src};
use std::ffi::{c_int, c_long};

/// The caller's `dest` and `source` as ranges of `dlen` and `slen` bytes.
///
/// # Safety
/// The routine's contract: `dest` is writable for `dlen` bytes and `source` readable for `slen`
/// for the length of the call.
unsafe fn ranges<'a, T>(
    dest: *mut T,
    dlen: usize,
    source: *const T,
    slen: usize,
) -> (Dst<'a>, Src<'a>) {
    // SAFETY: this function's contract (the C program passes arrays of the sizes the routine
    // names, which `dlen` and `slen` are in bytes); the ranges live only for this call, and
    // others' accesses to them (symmetric memory) are raw ones, which the ranges allow.
    unsafe {
        (
            Dst::new(dest as usize, dlen),
            Src::new(source as usize, slen),
        )
    }
}

/// Broadcast of `nelems` on `c`.
///
/// # Safety
/// `dest` and `source` must hold `nelems` elements for the call.
unsafe fn broadcast_on<T>(
    call: &'static str,
    c: &Coll,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    PE_root: c_int,
    to_root: bool,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    // SAFETY: the arrays hold `nelems` elements, `len` bytes (this function's contract).
    let (dest, source) = unsafe { ranges(dest, len, source, len) };
    core::broadcast_on(call, c, dest, source, nelems, PE_root, to_root);
}

/// Collect (each PE its own count) or, if `fixed`, fcollect of `nelems` on `c`.
///
/// # Safety
/// `source` must hold `nelems` elements; `dest` the sum of the PEs' counts (fcollect: `nelems`
/// times the team's size), for the call.
unsafe fn collect_on<T>(
    call: &'static str,
    c: &Coll,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    fixed: bool,
) {
    let len = bytes::<T>(call, "nelems", nelems);
    if fixed {
        let total = bytes::<T>(call, "nelems", nelems.saturating_mul(c.g.members.size));
        // SAFETY: `dest` holds the team's size times `nelems` elements, `source` `nelems`
        // (this function's contract).
        let (dest, source) = unsafe { ranges(dest, total, source, len) };
        return core::fcollect_on(c, dest, source, nelems);
    }
    // SAFETY: `source` holds `nelems` elements, `len` bytes (this function's contract).
    let source = unsafe { Src::new(source as usize, len) };
    let dest = dest as usize;
    // SAFETY: `dest` holds the sum of the PEs' counts (this function's contract), which the
    // collective learns and passes as `total`.
    core::collect_on(c, &|total| unsafe { Dst::new(dest, total) }, source);
}

/// Alltoall of `nelems` a block on `c`.
///
/// # Safety
/// `dest` and `source` must hold `nelems` times the team's size elements for the call.
unsafe fn alltoall_on<T>(
    call: &'static str,
    c: &Coll,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) {
    let len = bytes::<T>(call, "nelems", nelems.saturating_mul(c.g.members.size));
    // SAFETY: the arrays hold that many elements, `len` bytes (this function's contract).
    let (dest, source) = unsafe { ranges(dest, len, source, len) };
    core::alltoall_on(c, dest, source, nelems);
}

/// Strided alltoall on `c`.
///
/// # Safety
/// Every strided element of `dest` and `source` must be valid for the call.
unsafe fn alltoalls_on<T: Plain>(
    call: &'static str,
    c: &Coll,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
) {
    let (strides, dlen, slen) = core::alltoalls_spans::<T>(call, c, dst, sst, nelems);
    // SAFETY: `dlen` and `slen` reach from the first element to the end of the last, all of
    // which are valid (this function's contract).
    let (dest, source) = unsafe { ranges(dest, dlen, source, slen) };
    core::alltoalls_on::<T>(c, dest, source, strides, nelems);
}

/// `shmem_broadcast` family: the root's `nelems` of `source` into every PE's `dest`, the root's
/// included.
///
/// # Safety
/// `dest` and `source` must hold `nelems` elements for the call.
pub unsafe fn broadcast<T>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    PE_root: c_int,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    // SAFETY: this function's `# Safety`: `dest` and `source` hold `nelems` elements for the call,
    // which is what `broadcast_on` requires; `c` is the checked team.
    unsafe { broadcast_on(call, &c, dest, source, nelems, PE_root, true) };
    0
}

/// `shmem_collect` family: every PE's `nelems` (each its own count) in PE order into `dest`.
///
/// # Safety
/// `dest` must hold the sum of the counts, `source` `nelems` elements, for the call.
pub unsafe fn collect<T>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    // SAFETY: this function's `# Safety`: `dest` holds the sum of the counts and `source`
    // `nelems` elements for the call, which is what `collect_on` requires.
    unsafe { collect_on(call, &c, dest, source, nelems, false) };
    0
}

/// `shmem_fcollect` family: every PE's `nelems` in PE order into `dest`.
///
/// # Safety
/// `dest` must hold `nelems` times the team size, `source` `nelems` elements, for the call.
pub unsafe fn fcollect<T>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    // SAFETY: this function's `# Safety`: `dest` holds `nelems` times the team size and `source`
    // `nelems` elements for the call, which is what `collect_on` with `fixed` requires.
    unsafe { collect_on(call, &c, dest, source, nelems, true) };
    0
}

/// `shmem_alltoall` family: block `i` of `dest` gets block `me` of PE `i`'s source.
///
/// # Safety
/// `dest` and `source` must hold `nelems` times the team size for the call.
pub unsafe fn alltoall<T>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    nelems: usize,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    // SAFETY: this function's `# Safety`: `dest` and `source` hold `nelems` times the team size
    // for the call, which is what `alltoall_on` requires.
    unsafe { alltoall_on(call, &c, dest, source, nelems) };
    0
}

/// `shmem_alltoalls` family: as alltoall with elements `dst` (in `dest`) and `sst` (in `source`)
/// elements apart.
///
/// # Safety
/// Every strided element must be valid for the call.
pub unsafe fn alltoalls<T: Plain>(
    call: &'static str,
    team: shmem_team_t,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
) -> c_int {
    let Some(c) = on_team(call, team) else {
        return -1;
    };
    // SAFETY: this function's `# Safety`: every strided element of `dest` and `source` is valid
    // for the call, which is `alltoalls_on`'s contract.
    unsafe { alltoalls_on(call, &c, dest, source, dst, sst, nelems) };
    0
}

/// Deprecated `shmem_broadcast32/64`: as broadcast, the root's `dest` untouched.
///
/// # Safety
/// As [`broadcast`].
pub unsafe fn broadcast_set<T>(
    call: &'static str,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    PE_root: c_int,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pSync: *mut c_long,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    // SAFETY: the contract of [`broadcast`] (this function's `# Safety`): `dest` and `source` hold
    // `nelems` elements for the call; `c` is the checked active set.
    unsafe { broadcast_on(call, &c, dest, source, nelems, PE_root, false) };
}

/// Deprecated `shmem_collect32/64`.
///
/// # Safety
/// As [`collect`].
pub unsafe fn collect_set<T>(
    call: &'static str,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pSync: *mut c_long,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    // SAFETY: the contract of [`collect`] (this function's `# Safety`): `dest` holds the sum of the
    // counts and `source` `nelems` elements for the call.
    unsafe { collect_on(call, &c, dest, source, nelems, false) };
}

/// Deprecated `shmem_fcollect32/64`.
///
/// # Safety
/// As [`fcollect`].
pub unsafe fn fcollect_set<T>(
    call: &'static str,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pSync: *mut c_long,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    // SAFETY: the contract of [`fcollect`] (this function's `# Safety`): `dest` holds `nelems`
    // times the set's size and `source` `nelems` elements for the call.
    unsafe { collect_on(call, &c, dest, source, nelems, true) };
}

/// Deprecated `shmem_alltoall32/64`.
///
/// # Safety
/// As [`alltoall`].
pub unsafe fn alltoall_set<T>(
    call: &'static str,
    dest: *mut T,
    source: *const T,
    nelems: usize,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pSync: *mut c_long,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    // SAFETY: the contract of [`alltoall`] (this function's `# Safety`): `dest` and `source` hold
    // `nelems` times the set's size for the call.
    unsafe { alltoall_on(call, &c, dest, source, nelems) };
}

/// Deprecated `shmem_alltoalls32/64`.
///
/// # Safety
/// As [`alltoalls`].
pub unsafe fn alltoalls_set<T: Plain>(
    call: &'static str,
    dest: *mut T,
    source: *const T,
    dst: isize,
    sst: isize,
    nelems: usize,
    PE_start: c_int,
    logPE_stride: c_int,
    PE_size: c_int,
    _pSync: *mut c_long,
) {
    let Some(c) = on_active_set(call, PE_start, logPE_stride, PE_size) else {
        return;
    };
    // SAFETY: the contract of [`alltoalls`] (this function's `# Safety`): every strided element of
    // `dest` and `source` is valid for the call.
    unsafe { alltoalls_on(call, &c, dest, source, dst, sst, nelems) };
}
