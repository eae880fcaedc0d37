//! The remote half of every operation: what an op does when [`World::target`] says the peer's copy
//! is reached over the network. Each function calls the job's [`Remote`] through the transport
//! seam with the context's lane, and turns a failure into the error naming the call and the PE.
//! Kept out of line (`#[inline(never)]`) so that the shared-memory fast path of every op stays a
//! few instructions with one branch. Used by `ops` and by `collectives` alike.
//!
//! A PE on the network route reaches its own memory through the network as well; a transfer
//! between two overlapping ranges of its own memory goes through a bounce buffer, and a strided
//! one block at a time, so that it behaves as `memmove` like the shared-memory route.

use super::counters::{self, Kind};
use super::handle::{self, shmem_ctx_t};
use super::world::{Seg, World};
use crate::fatal;
use crate::transport::{self, AmoWord, Remote};

pub(crate) use crate::transport::Rmw;

#[cold]
#[inline(never)]
pub(crate) fn failed(call: &'static str, pe: usize, e: transport::Error) -> ! {
    fatal!(call, "network operation on PE {pe} failed: {e}")
}

/// A failed operation not aimed at one PE (fence, quiet, pe_quiet): the error names the PEs whose
/// connection the network found failed, never the caller for want of one.
#[cold]
#[inline(never)]
fn flush_failed(call: &'static str, e: transport::Error) -> ! {
    match e.lost_pes() {
        [] => fatal!(
            call,
            "network operation failed: {e} (the network could not tell towards which PE)"
        ),
        [pe] => failed(call, *pe, e),
        pes => {
            let list: Vec<String> = pes.iter().map(usize::to_string).collect();
            fatal!(
                call,
                "network operations on PEs {} failed: {e}",
                list.join(", ")
            )
        }
    }
}

/// The job's network and the lane of context `ctx`.
#[inline]
fn lane(w: &World, ctx: shmem_ctx_t) -> (&Remote, usize) {
    (w.remote_or_fail(), handle::lane_index(ctx))
}

/// Whether `local..local+len` overlaps this PE's own copy of `seg`+`off` when `pe` is this PE.
fn overlaps_self(w: &World, pe: usize, seg: Seg, off: usize, local: usize, len: usize) -> bool {
    let own = w.segments[seg as usize].base + off;
    pe == w.me && local < own + len && own < local + len
}

/// Puts `len` bytes from `src` to `pe`'s copy of (`seg`, `off`); waits for local completion
/// unless `nbi`.
///
/// # Safety
/// `src..src+len` must be readable (and, for `nbi`, stay unchanged until the next quiet).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn put(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    src: *const u8,
    len: usize,
    nbi: bool,
) {
    counters::moved(Kind::Put, 1, len as u64);
    let (net, lane) = lane(w, ctx);
    let done = if overlaps_self(w, pe, seg, off, src as usize, len) {
        // SAFETY: the caller guarantees `src..src+len`.
        let bounce = unsafe { std::slice::from_raw_parts(src, len) }.to_vec();
        // SAFETY: `bounce` lives until the put completed locally (not nbi).
        unsafe { net.put(lane, pe, seg as usize, off, bounce.as_ptr(), len, false) }
    } else {
        // SAFETY: forwarded contract.
        unsafe { net.put(lane, pe, seg as usize, off, src, len, nbi) }
    };
    done.unwrap_or_else(|e| failed(call, pe, e))
}

/// Puts one value (`shmem_p`). By value, so that the caller's fast path keeps it in a register.
#[inline(never)]
pub(crate) fn put_value<T: Copy>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    value: T,
) {
    // SAFETY: `value` lives on this frame until the put completed locally (not nbi).
    unsafe {
        put(
            w,
            call,
            ctx,
            pe,
            seg,
            off,
            (&raw const value).cast(),
            size_of::<T>(),
            false,
        )
    }
}

/// Gets `len` bytes from `pe`'s copy of (`seg`, `off`) into `dst`; waits for the data unless
/// `nbi` (then it is there at the next quiet).
///
/// # Safety
/// `dst..dst+len` must be writable (and, for `nbi`, not read until the next quiet).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn get(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    dst: *mut u8,
    len: usize,
    nbi: bool,
) {
    counters::moved(Kind::Get, 1, len as u64);
    let (net, lane) = lane(w, ctx);
    let done = if overlaps_self(w, pe, seg, off, dst as usize, len) {
        let mut bounce = vec![0u8; len];
        // SAFETY: `bounce` lives until the get completed, just below.
        unsafe { net.get(lane, pe, seg as usize, off, bounce.as_mut_ptr(), len, false) }.map(
            // SAFETY: the caller guarantees `dst..dst+len`; `bounce` is a separate allocation.
            |()| unsafe { std::ptr::copy_nonoverlapping(bounce.as_ptr(), dst, len) },
        )
    } else {
        // SAFETY: forwarded contract.
        unsafe { net.get(lane, pe, seg as usize, off, dst, len, nbi) }
    };
    done.unwrap_or_else(|e| failed(call, pe, e))
}

/// Copies `count` blocks of `block` bytes between strided local and remote ranges (`to_peer`:
/// local `local + i*lstride` to remote `off + i*rstride`, else the other way), every block started
/// before any is waited for.
///
/// # Safety
/// Every local block must be valid (readable for a put, writable for a get).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn strided(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    to_peer: bool,
    pe: usize,
    seg: Seg,
    off: usize,
    rstride: isize,
    local: usize,
    lstride: isize,
    block: usize,
    count: usize,
) {
    if pe == w.me {
        // Blocks of this PE's own memory may overlap each other: one at a time, each as memmove.
        for i in 0..count as isize {
            let r = off.wrapping_add_signed(i * rstride);
            let l = local.wrapping_add_signed(i * lstride);
            // SAFETY: forwarded contract, block by block.
            unsafe {
                if to_peer {
                    put(w, call, ctx, pe, seg, r, l as *const u8, block, false)
                } else {
                    get(w, call, ctx, pe, seg, r, l as *mut u8, block, false)
                }
            }
        }
        return;
    }
    counters::moved(
        if to_peer { Kind::Put } else { Kind::Get },
        count as u64,
        (count * block) as u64,
    );
    let (net, lane) = lane(w, ctx);
    // SAFETY: forwarded contract.
    let done = unsafe {
        net.strided(
            lane,
            to_peer,
            pe,
            seg as usize,
            off,
            rstride,
            local,
            lstride,
            block,
            count,
        )
    };
    done.unwrap_or_else(|e| failed(call, pe, e))
}

/// A word atomic over the network: the old value when `fetch`, else the operand back.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn rmw<W: AmoWord>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    op: Rmw,
    value: W,
    fetch: bool,
) -> W {
    counters::count(Kind::Amo);
    let (net, lane) = lane(w, ctx);
    // A peer whose memory is also mapped here (this node's PEs in a multi-node job) is read with
    // loads: a non-fetching atomic to it must have landed when it returns, as on the
    // shared-memory route.
    let landed = w.segments[seg as usize].peers[pe].is_some();
    net.rmw(lane, pe, seg as usize, off, op, value, fetch, landed)
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// Atomic swap over the network; returns the old value.
#[inline(never)]
pub(crate) fn swap<W: AmoWord>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    value: W,
) -> W {
    counters::count(Kind::Amo);
    let (net, lane) = lane(w, ctx);
    net.swap(lane, pe, seg as usize, off, value)
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// Atomic compare-and-swap over the network; returns the old value.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn compare_swap<W: AmoWord>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    cond: W,
    value: W,
) -> W {
    counters::count(Kind::Amo);
    let (net, lane) = lane(w, ctx);
    net.compare_swap(lane, pe, seg as usize, off, cond, value)
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// Atomic fetch over the network.
#[inline(never)]
pub(crate) fn load<W: AmoWord + Default>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
) -> W {
    counters::count(Kind::Amo);
    let (net, lane) = lane(w, ctx);
    net.fetch(lane, pe, seg as usize, off)
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// `shmem_fence` on the network for context `ctx`, if the job has a network.
pub(crate) fn fence(w: &World, call: &'static str, ctx: shmem_ctx_t) {
    if let Some(net) = w.remote()
        && let Err(e) = {
            counters::count(Kind::Flush);
            net.fence(handle::lane_index(ctx))
        }
    {
        flush_failed(call, e);
    }
}

/// `shmem_quiet` on the network for context `ctx`, if the job has a network.
pub(crate) fn quiet(w: &World, call: &'static str, ctx: shmem_ctx_t) {
    if let Some(net) = w.remote()
        && let Err(e) = {
            counters::count(Kind::Flush);
            net.quiet(handle::lane_index(ctx))
        }
    {
        flush_failed(call, e);
    }
}

/// `shmem_pe_quiet` on the network for context `ctx` and the world PEs `pes`.
pub(crate) fn pe_quiet(w: &World, call: &'static str, ctx: shmem_ctx_t, pes: &[usize]) {
    if let Some(net) = w.remote()
        && let Err(e) = {
            counters::count(Kind::Flush);
            net.pe_quiet(handle::lane_index(ctx), pes)
        }
    {
        flush_failed(call, e);
    }
}
