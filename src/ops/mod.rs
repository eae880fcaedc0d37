//! The generic typed core behind the C shells. Every function takes, first, the name of the C function
//! that called it (used in error messages), then the C arguments unchanged.
#![deny(unsafe_code)]

pub mod amo;
pub mod cache;
pub mod coll;
pub mod ctx;
pub mod extension;
pub mod ffi;
pub mod fortran;
pub mod lock;
pub mod memory;
pub mod order;
pub mod p2p;
pub mod reduce;
pub mod rma;
pub mod setup;
pub mod signal;
pub mod sync;
pub mod team;

use crate::fatal;
use crate::runtime::context::Context;
use crate::runtime::handle::{self, WORLD_SLOT, shmem_ctx_t};
use crate::runtime::world::{self, World};
use std::ffi::c_int;

/// The World and the context, after checking the handle: the entry of every operation on a context.
#[inline(always)]
pub(crate) fn enter(call: &'static str, ctx: shmem_ctx_t) -> (&'static World, &'static Context) {
    let w = world::get(call);
    match handle::context(ctx) {
        Some(c) => (w, c),
        None => bad_ctx(call, ctx),
    }
}

/// The world PE that `pe` names on context `c`: PE numbers on a context are numbers in its team.
#[inline(always)]
pub(crate) fn pe_of(call: &'static str, w: &World, c: &Context, pe: c_int) -> usize {
    let slot = c.team();
    if slot == WORLD_SLOT {
        w.check_pe(call, pe)
    } else {
        team_pe(call, slot, pe)
    }
}

#[inline(never)]
fn team_pe(call: &'static str, slot: usize, pe: c_int) -> usize {
    let m = handle::team_at(slot).members();
    if (pe as u32 as usize) < m.size {
        m.world(pe as usize)
    } else {
        fatal!(
            call,
            "pe = {pe} is outside [0, {}), the PEs of the context's team",
            m.size
        )
    }
}

/// [`enter`], then the world PE that `pe` names on the context.
#[inline(always)]
pub(crate) fn enter_pe(call: &'static str, ctx: shmem_ctx_t, pe: c_int) -> (&'static World, usize) {
    let (w, c) = enter(call, ctx);
    (w, pe_of(call, w, c, pe))
}

#[cold]
#[inline(never)]
fn bad_ctx(call: &'static str, ctx: shmem_ctx_t) -> ! {
    let why = crate::runtime::personality::unknown_handle("ctx", "context", ctx.0 as usize);
    fatal!(call, "{why}")
}

/// The element of the `*128` sized RMA routines: 16 bytes, copied as a unit.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Bits128(pub [u64; 2]);

/// C `long double` behind a pointer (x86_64: 80-bit extended in 16 bytes; aarch64: binary128).
/// Rust cannot compute with it; the reductions call C helpers for the arithmetic.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct LongDouble(pub [u8; 16]);

/// An IEEE binary128 behind a pointer: gfortran's `REAL*16` (C `__float128` on x86_64, `long double`
/// on aarch64). Rust cannot compute with it; the reductions call a C helper for the arithmetic.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Float128(pub [u8; 16]);

/// C `double _Complex`: two `double`s, real part first (the C ABI layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComplexD {
    pub re: f64,
    pub im: f64,
}

/// C `float _Complex`: two `float`s, real part first.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComplexF {
    pub re: f32,
    pub im: f32,
}
