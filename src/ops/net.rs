//! The UCX side of the operations: what an op does when [`World::target`] says the peer's copy
//! is reached over UCX. Kept out of line (`#[inline(never)]`) so that the shared-memory fast path
//! of every op stays a few instructions with one branch.
//!
//! Completion, the cheapest correct scheme: a blocking put starts `ucp_put_nbx` and waits only for
//! local completion (the source may be reused; UCX usually completes a small put at once, with no
//! request at all); remote completion is left to `shmem_quiet` (a worker flush), which is when
//! OpenSHMEM requires it. No endpoint flush per put: that would cost a round trip each. A later get
//! or fetching atomic of this PE is ordered after its puts by a worker fence, issued only when a
//! put went out since the last fence ([`Network::order_reads`]). The `_nbi` forms start the
//! operation and drop the request: it completes at the next quiet. Atomics wait for their reply
//! (fetching ones need it; the others wait too, so that their operand may live on the stack).
//!
//! A PE on the UCX route reaches its own memory through UCX as well; a transfer between two
//! overlapping ranges of its own memory goes through a bounce buffer, so that it behaves as
//! `memmove` like the shared-memory route.

use crate::fatal;
use crate::runtime::handle::{self, shmem_ctx_t};
use crate::runtime::world::{Seg, World};
use crate::transport::ucx::{self, AmoWord, Lane, RemoteKey, Request};

#[cold]
#[inline(never)]
pub(crate) fn failed(call: &'static str, pe: usize, e: ucx::Error) -> ! {
    fatal!(call, "UCX operation on PE {pe} failed: {e}")
}

/// The lane of context `ctx` (opened at its first operation), or the error naming `call`.
#[inline]
pub(crate) fn lane<'w>(w: &'w World, call: &'static str, ctx: shmem_ctx_t, pe: usize) -> &'w Lane {
    w.net()
        .lane(handle::lane_index(ctx))
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// Waits for a request, or the error naming `call`.
fn wait(call: &'static str, pe: usize, r: ucx::Result<Request>) {
    if let Err(e) = r.and_then(Request::wait) {
        failed(call, pe, e)
    }
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
    let net = lane(w, call, ctx, pe);
    if overlaps_self(w, pe, seg, off, src as usize, len) {
        // SAFETY: the caller guarantees `src..src+len`.
        let bounce = unsafe { std::slice::from_raw_parts(src, len) }.to_vec();
        // SAFETY: `bounce` lives until the put completed locally, just below.
        wait(call, pe, unsafe {
            net.put(pe, seg as usize, off, bounce.as_ptr(), len)
        });
        return;
    }
    // SAFETY: forwarded contract.
    let request = unsafe { net.put(pe, seg as usize, off, src, len) };
    if nbi {
        if let Err(e) = request {
            failed(call, pe, e)
        }
    } else {
        wait(call, pe, request)
    }
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
    let net = lane(w, call, ctx, pe);
    if overlaps_self(w, pe, seg, off, dst as usize, len) {
        let mut bounce = vec![0u8; len];
        // SAFETY: `bounce` lives until the get completed, just below.
        wait(call, pe, unsafe {
            net.get(pe, seg as usize, off, bounce.as_mut_ptr(), len)
        });
        // SAFETY: the caller guarantees `dst..dst+len`; `bounce` is a separate allocation.
        unsafe { std::ptr::copy_nonoverlapping(bounce.as_ptr(), dst, len) };
        return;
    }
    // SAFETY: forwarded contract.
    let request = unsafe { net.get(pe, seg as usize, off, dst, len) };
    if nbi {
        if let Err(e) = request.and_then(|r| net.track(r)) {
            failed(call, pe, e)
        }
    } else {
        wait(call, pe, request)
    }
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
    let net = lane(w, call, ctx, pe);
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
    let requests: Vec<ucx::Result<Request>> = (0..count as isize)
        .map(|i| {
            let r = off.wrapping_add_signed(i * rstride);
            let l = local.wrapping_add_signed(i * lstride);
            // SAFETY: forwarded contract; every request is waited for below.
            unsafe {
                if to_peer {
                    net.put(pe, seg as usize, r, l as *const u8, block)
                } else {
                    net.get(pe, seg as usize, r, l as *mut u8, block)
                }
            }
        })
        .collect();
    for request in requests {
        wait(call, pe, request);
    }
}

/// The read-modify-write atomics.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rmw {
    Add,
    And,
    Or,
    Xor,
}

/// `pe`'s key of `seg`, or the error.
fn key<'n>(net: &'n Lane, call: &'static str, pe: usize, seg: Seg) -> &'n RemoteKey {
    net.rkey(pe, seg as usize)
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// A word atomic over UCX: the old value when `fetch`, else the operand back.
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
    let net = lane(w, call, ctx, pe);
    let k = key(net, call, pe, seg);
    // A peer whose memory is also mapped here (this node's PEs in a multi-node job) is read with
    // loads: a non-fetching atomic to it must have landed when it returns, as on the
    // shared-memory route, so it waits for the reply like a fetching one.
    let mapped = w.segments[seg as usize].peers[pe] != 0;
    let done = if fetch || mapped {
        let old = net.order_reads().and_then(|()| match op {
            Rmw::Add => k.fetch_add(off, value),
            Rmw::And => k.fetch_and(off, value),
            Rmw::Or => k.fetch_or(off, value),
            Rmw::Xor => k.fetch_xor(off, value),
        });
        if fetch { old } else { old.map(|_| value) }
    } else {
        let sent = match op {
            Rmw::Add => k.add(off, value),
            Rmw::And => k.and(off, value),
            Rmw::Or => k.or(off, value),
            Rmw::Xor => k.xor(off, value),
        };
        // Like a put: a later get or fetching atomic of this lane fences behind it.
        net.note_write();
        sent.map(|()| value)
    };
    done.unwrap_or_else(|e| failed(call, pe, e))
}

/// Atomic swap over UCX; returns the old value.
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
    let net = lane(w, call, ctx, pe);
    net.order_reads()
        .and_then(|()| key(net, call, pe, seg).swap(off, value))
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// Atomic compare-and-swap over UCX; returns the old value.
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
    let net = lane(w, call, ctx, pe);
    net.order_reads()
        .and_then(|()| key(net, call, pe, seg).compare_swap(off, cond, value))
        .unwrap_or_else(|e| failed(call, pe, e))
}

/// Atomic fetch over UCX.
#[inline(never)]
pub(crate) fn load<W: AmoWord + Default>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
) -> W {
    let net = lane(w, call, ctx, pe);
    net.order_reads()
        .and_then(|()| key(net, call, pe, seg).fetch(off))
        .unwrap_or_else(|e| failed(call, pe, e))
}
