//! The generic typed core behind the C shells. Every function takes, first, the name of the C function
//! that called it (used in error messages), then the C arguments unchanged.

pub mod amo;
pub mod lock;
pub mod memory;
mod net;
pub mod order;
pub mod p2p;
pub mod rma;
pub mod setup;
pub mod signal;
pub mod sync;

use crate::fatal;
use crate::runtime::handle::{self, shmem_ctx_t};
use crate::runtime::world::{self, World};

/// The World, after checking the context handle: the entry of every operation on a context.
#[inline(always)]
pub(crate) fn enter(call: &'static str, ctx: shmem_ctx_t) -> &'static World {
    let w = world::get(call);
    if handle::context(ctx).is_none() {
        bad_ctx(call, ctx);
    }
    w
}

#[cold]
#[inline(never)]
fn bad_ctx(call: &'static str, ctx: shmem_ctx_t) -> ! {
    if ctx == shmem_ctx_t::INVALID {
        fatal!(call, "ctx is SHMEM_CTX_INVALID")
    }
    fatal!(
        call,
        "ctx = {:p} is not a context this library created",
        ctx.0
    )
}

/// The element of the `*128` sized RMA routines: 16 bytes, copied as a unit.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Bits128(pub [u64; 2]);
