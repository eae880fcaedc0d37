//! Signaling operations (OpenSHMEM 1.6): put-with-signal, its non-blocking form,
//! signal_fetch, signal_add, signal_set and signal_wait_until.
//!
//! A signal is a symmetric `uint64_t`, naturally aligned, updated only atomically. On the
//! shared-memory route a put-with-signal copies the data into the peer's mapping, then fences, then
//! updates the peer's signal word with one CPU atomic (a store for `SHMEM_SIGNAL_SET`, an add for
//! `SHMEM_SIGNAL_ADD`). The fence is a full one, not only a release: `memcpy` may use non-temporal
//! stores for large copies, which only a full fence orders on x86. A PE that sees the signal
//! (with an acquire load, as `signal_wait_until` and `signal_fetch` do) therefore sees all the data.
//! The `_nbi` form completes before it returns on this route.
//!
//! When the job uses UCX, the data moves by the peer's route and the signal update is a UCX
//! atomic (one atomic path per job), issued after a fence of the UCX worker, so that the target
//! sees the data before the signal there too.
//!
//! The signal address and `sig_op` are checked before any data moves, so a bad call delivers
//! nothing.

use super::amo::{Slot, slot};
use super::{enter_pe, p2p, rma};
use crate::fatal;
use crate::runtime::constants::{SHMEM_SIGNAL_ADD, SHMEM_SIGNAL_SET};
use crate::runtime::handle::shmem_ctx_t;
use crate::runtime::personality::Program;
use crate::runtime::remote::{self, Rmw};
use crate::runtime::world::World;
use crate::transport::shm::{self, Src};
use std::ffi::c_int;

/// How a put-with-signal updates the signal.
#[derive(Clone, Copy)]
enum SigOp {
    Set,
    Add,
}

#[cold]
#[inline(never)]
fn bad_sig_op(call: &'static str, sig_op: c_int) -> ! {
    fatal!(
        call,
        "sig_op = {sig_op} is neither SHMEM_SIGNAL_SET ({SHMEM_SIGNAL_SET}) nor SHMEM_SIGNAL_ADD ({SHMEM_SIGNAL_ADD})"
    )
}

/// `pe`'s copy of the symmetric signal word `sig_addr`, after the checks (symmetric, aligned).
#[inline(always)]
fn signal_word(
    w: &'static World,
    call: &'static str,
    ctx: shmem_ctx_t,
    sig_addr: *const u64,
    pe: usize,
) -> Slot<u64> {
    slot(w, call, ctx, "sig_addr", sig_addr as usize, pe)
}

/// `shmem_put_signal` family (and `_nbi`, which completes at once on this route): copies
/// `source` to `pe`'s copy of the symmetric `dest`, fences, then updates `sig_addr` on `pe` with
/// `signal` as `sig_op` says. The program's `source` arrives as a checked range
/// (`ops::ffi::signal`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn put_signal(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: usize,
    source: Src<'_>,
    sig_addr: *mut u64,
    signal: u64,
    sig_op: Program<c_int>,
    pe: c_int,
) {
    let op = match crate::runtime::personality::sig_op(call, sig_op) {
        SHMEM_SIGNAL_SET => SigOp::Set,
        SHMEM_SIGNAL_ADD => SigOp::Add,
        _ => bad_sig_op(call, sig_op.0),
    };
    let (w, world_pe) = enter_pe(call, ctx, pe);
    let target = signal_word(w, call, ctx, sig_addr, world_pe);
    rma::put(call, ctx, dest, source, pe);
    shm::order();
    if !w.cpu_atomics {
        // The data may have gone over UCX: the signal's atomic must not overtake it.
        remote::fence(w, call, ctx);
    }
    match op {
        SigOp::Set => target.store(call, signal),
        SigOp::Add => {
            target.rmw(call, Rmw::Add, signal, false);
        }
    }
}

/// `shmem_signal_fetch`: the value of this PE's signal `sig_addr`.
pub fn fetch(call: &'static str, sig_addr: *const u64) -> u64 {
    p2p::local(call, "sig_addr", sig_addr, 1)
        .word::<u64>(0)
        .load_acquire()
}

/// `shmem_signal_add` (1.6): adds `signal` to `sig_addr` on `pe`.
pub fn add(call: &'static str, ctx: shmem_ctx_t, sig_addr: *mut u64, signal: u64, pe: c_int) {
    let (w, world_pe) = enter_pe(call, ctx, pe);
    let target = signal_word(w, call, ctx, sig_addr, world_pe);
    target.rmw(call, Rmw::Add, signal, false);
}

/// `shmem_signal_set` (1.6): stores `signal` into `sig_addr` on `pe`.
pub fn set(call: &'static str, ctx: shmem_ctx_t, sig_addr: *mut u64, signal: u64, pe: c_int) {
    let (w, world_pe) = enter_pe(call, ctx, pe);
    let target = signal_word(w, call, ctx, sig_addr, world_pe);
    target.store(call, signal);
}

/// `shmem_signal_wait_until`: waits until this PE's `sig_addr` satisfies `cmp` against
/// `cmp_value`, returns the value that did.
pub fn wait_until(
    call: &'static str,
    sig_addr: *mut u64,
    cmp: Program<c_int>,
    cmp_value: u64,
) -> u64 {
    p2p::wait_value(
        call,
        "sig_addr",
        sig_addr,
        p2p::Cmp::parse(call, cmp),
        cmp_value,
    )
}
