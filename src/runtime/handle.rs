//! The C handle types (`shmem_ctx_t`, `shmem_team_t`) and every cast between a handle and the Rust
//! object behind it. No other module turns a handle into a reference.
//!
//! A handle is a pointer to an object owned by the library. Teams live in a fixed table indexed by
//! their synchronization slot; created contexts in a fixed pool. The predefined handles
//! (`SHMEM_CTX_DEFAULT`, `SHMEM_TEAM_WORLD`, `SHMEM_TEAM_SHARED`) are data symbols whose value is
//! the address of a static object (their values are the constants here; `api::exports` exports
//! them, with the `Send`/`Sync` of the handle types); the invalid handles are NULL. A handle is valid when it
//! points at an object of its table and that object is live: checking it reads no memory through the
//! handle itself. See docs/ABI.md.
//!
//! Foreign handles: a program built for another implementation (run with rshmem preloaded) reads
//! that header's predefined handles. rshmem exports those data symbols too (`oshmem_ctx_default`,
//! `SHMEMX_TEAM_NODE`; SOS's other names are rshmem's own), so the loader binds the program to
//! rshmem's values, also through a copy relocation. The values the foreign library's own copies
//! hold are found at init (`runtime::personality`) and name the same objects, on the slow path only.

use super::context::Context;
use super::personality::Predefined;
use super::team::Team;
use super::world::World;
use crate::transport::shm::control::TEAM_SLOTS;
use std::ffi::{c_long, c_void};
use std::mem::{size_of, size_of_val};

/// Opaque C type behind `shmem_ctx_t`.
#[repr(C)]
pub struct rshmem_ctx {
    _opaque: [u8; 0],
}

/// Opaque C type behind `shmem_team_t`.
#[repr(C)]
pub struct rshmem_team {
    _opaque: [u8; 0],
}

/// A communication context handle (OpenSHMEM 1.6 §9.5).
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct shmem_ctx_t(pub *mut rshmem_ctx);

/// A team handle (OpenSHMEM 1.6 §9.4).
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct shmem_team_t(pub *mut rshmem_team);

/// The slot of `SHMEM_TEAM_WORLD`.
pub(crate) const WORLD_SLOT: usize = 0;
/// The slot of `SHMEM_TEAM_SHARED`.
pub(crate) const SHARED_SLOT: usize = 1;

/// The team objects, indexed by slot.
static TEAMS: [Team; TEAM_SLOTS] = [const { Team::new() }; TEAM_SLOTS];

/// Contexts one PE can hold at once besides the default one.
pub(crate) const MAX_CONTEXTS: usize = 1024;

static DEFAULT_CONTEXT: Context = Context::new(true);
static CONTEXTS: [Context; MAX_CONTEXTS] = [const { Context::new(false) }; MAX_CONTEXTS];

/// The value of the data symbol `SHMEM_CTX_DEFAULT` (the default context) that `api::exports`
/// exports, for the library's own code.
pub(crate) const SHMEM_CTX_DEFAULT: shmem_ctx_t =
    shmem_ctx_t(&raw const DEFAULT_CONTEXT as *const c_void as *mut rshmem_ctx);

/// The value of `SHMEM_TEAM_WORLD`, exported by `api::exports`.
pub(crate) const TEAM_WORLD: shmem_team_t =
    shmem_team_t(&raw const TEAMS[WORLD_SLOT] as *const c_void as *mut rshmem_team);

/// The value of `SHMEM_TEAM_SHARED` (and of SOS's `SHMEMX_TEAM_NODE`), exported by
/// `api::exports`.
pub(crate) const TEAM_SHARED: shmem_team_t =
    shmem_team_t(&raw const TEAMS[SHARED_SLOT] as *const c_void as *mut rshmem_team);

/// What a handle value of the foreign library's own copies means.
fn foreign(value: usize) -> Option<Predefined> {
    super::personality::foreign_handle(value)
}

impl shmem_ctx_t {
    /// The handle value of an invalid context (`SHMEM_CTX_INVALID`).
    pub const INVALID: shmem_ctx_t = shmem_ctx_t(std::ptr::null_mut());
}

impl shmem_team_t {
    /// The handle value of an invalid team (`SHMEM_TEAM_INVALID`).
    pub const INVALID: shmem_team_t = shmem_team_t(std::ptr::null_mut());
}

/// The element of `table` that `addr` points at exactly, if any.
#[inline(always)]
fn element<T>(table: &'static [T], addr: usize) -> Option<(usize, &'static T)> {
    let off = addr.wrapping_sub(table.as_ptr() as usize);
    if off < size_of_val(table) && off.is_multiple_of(size_of::<T>()) {
        let i = off / size_of::<T>();
        Some((i, &table[i]))
    } else {
        None
    }
}

/// The context behind a handle: the default one, or a live created one.
#[inline(always)]
pub fn context(ctx: shmem_ctx_t) -> Option<&'static Context> {
    if ctx == SHMEM_CTX_DEFAULT {
        Some(&DEFAULT_CONTEXT)
    } else {
        created_context(ctx)
    }
}

#[inline(never)]
fn created_context(ctx: shmem_ctx_t) -> Option<&'static Context> {
    element(&CONTEXTS, ctx.0 as usize)
        .map(|(_, c)| c)
        .filter(|c| c.is_live())
        .or_else(|| {
            (foreign(ctx.0 as usize) == Some(Predefined::CtxDefault)).then_some(&DEFAULT_CONTEXT)
        })
}

/// A new context on the team in `slot`, or `None` when the pool is exhausted.
pub fn create_context(slot: usize, options: c_long) -> Option<shmem_ctx_t> {
    CONTEXTS
        .iter()
        .find(|c| c.claim(slot, options))
        .map(|c| shmem_ctx_t(c as *const Context as *mut rshmem_ctx))
}

/// Lanes a UCX network needs: one per context object, the default one included.
pub(crate) const LANES: usize = MAX_CONTEXTS + 1;

/// The UCX lane of a context handle (already checked to be valid): 0 for the default context,
/// `1 + i` for context object `i` of the pool.
pub fn lane_index(ctx: shmem_ctx_t) -> usize {
    // A learnt foreign default context is not an element of the pool: lane 0, as the default.
    element(&CONTEXTS, ctx.0 as usize).map_or(0, |(i, _)| i + 1)
}

/// Whether `ctx` is `SHMEM_CTX_DEFAULT`.
pub fn is_default(ctx: shmem_ctx_t) -> bool {
    ctx == SHMEM_CTX_DEFAULT || foreign(ctx.0 as usize) == Some(Predefined::CtxDefault)
}

/// Destroys every created context on the team in `slot`.
pub fn destroy_contexts_of(slot: usize) {
    for c in CONTEXTS.iter().filter(|c| c.is_live() && c.team() == slot) {
        c.release();
    }
}

/// The live team behind a handle, with its slot.
#[inline(always)]
pub fn team(t: shmem_team_t) -> Option<(usize, &'static Team)> {
    element(&TEAMS, t.0 as usize)
        .filter(|(_, t)| t.is_live())
        .or_else(|| foreign_team(t))
}

/// [`team`] for a routine that reports an invalid team by its return value: `None` for
/// `SHMEM_TEAM_INVALID` (NULL) and for a team destroyed since; a handle that is neither (not a team
/// of this library nor a predefined handle of the detected personality) is the error naming it and
/// `call`, never a silent -1.
#[inline]
pub fn team_or_invalid(call: &'static str, t: shmem_team_t) -> Option<(usize, &'static Team)> {
    let found = team(t);
    if found.is_none() && !t.0.is_null() && element(&TEAMS, t.0 as usize).is_none() {
        unknown_team(call, t);
    }
    found
}

#[cold]
#[inline(never)]
fn unknown_team(call: &'static str, t: shmem_team_t) -> ! {
    let why = super::personality::unknown_handle("team", "team", t.0 as usize);
    crate::fatal!(call, "{why}")
}

#[cold]
#[inline(never)]
fn foreign_team(t: shmem_team_t) -> Option<(usize, &'static Team)> {
    let slot = match foreign(t.0 as usize)? {
        Predefined::TeamWorld => WORLD_SLOT,
        Predefined::TeamShared => SHARED_SLOT,
        Predefined::CtxDefault => return None,
    };
    Some((slot, &TEAMS[slot])).filter(|(_, t)| t.is_live())
}

/// The team object of a slot, live or not.
#[inline(always)]
pub fn team_at(slot: usize) -> &'static Team {
    &TEAMS[slot]
}

/// The highest barrier epoch any team slot of this PE has reached (a slot keeps its epoch when
/// its team is destroyed, and a team opened in it starts above every slot's).
pub fn highest_epoch() -> u64 {
    TEAMS
        .iter()
        .map(|t| t.epoch.load(std::sync::atomic::Ordering::Relaxed))
        .max()
        .unwrap_or(0)
}

/// The handle of the team in `slot`.
pub fn team_handle(slot: usize) -> shmem_team_t {
    shmem_team_t(&TEAMS[slot] as *const Team as *mut rshmem_team)
}

/// How a report names the team in `slot`: the predefined teams by name, the others by handle.
pub fn team_label(slot: usize) -> String {
    match slot {
        WORLD_SLOT => "SHMEM_TEAM_WORLD".to_string(),
        SHARED_SLOT => "SHMEM_TEAM_SHARED".to_string(),
        _ => format!("{:p} (slot {slot})", team_handle(slot).0),
    }
}

/// Brings the predefined teams to life for `w` (at `shmem_init`). Their epochs continue across a
/// finalize and a new init, since their flags in the control block stay.
pub fn open_predefined_teams(w: &World) {
    let world = super::team::Members {
        start: 0,
        stride: 1,
        size: w.npes,
        me: w.me,
    };
    for (slot, members) in [(WORLD_SLOT, world), (SHARED_SLOT, shared_members(w))] {
        let t = &TEAMS[slot];
        let epoch = t.epoch.load(std::sync::atomic::Ordering::Relaxed);
        t.open(members, 0, epoch);
    }
}

/// `SHMEM_TEAM_SHARED`: the PEs whose memory this PE maps (itself included), when they are
/// evenly spaced in the world, as a team's members must be (launchers place ranks by node in
/// blocks or round robin, both evenly spaced when the nodes have the same number of PEs);
/// otherwise this PE alone. Every PE of a node computes the same set, so they agree.
fn shared_members(w: &World) -> super::team::Members {
    let heap = &w.segments[super::world::Seg::Heap as usize];
    let mapped: Vec<usize> = (0..w.npes)
        .filter(|&pe| pe == w.me || heap.peer(pe).is_some())
        .collect();
    let alone = super::team::Members {
        start: w.me,
        stride: 1,
        size: 1,
        me: 0,
    };
    if mapped.len() < 2 {
        return alone;
    }
    let stride = mapped[1] - mapped[0];
    if mapped.windows(2).any(|p| p[1] - p[0] != stride) {
        return alone;
    }
    super::team::Members {
        start: mapped[0],
        stride: stride as isize,
        size: mapped.len(),
        me: (w.me - mapped[0]) / stride,
    }
}

/// Destroys every created team and context (at `shmem_finalize`).
pub fn close_created() {
    for t in &TEAMS[SHARED_SLOT + 1..] {
        t.close();
    }
    for c in &CONTEXTS {
        c.release();
    }
}
