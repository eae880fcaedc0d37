//! The remote half of every operation: what an op does when [`World::target`] says the peer's copy
//! is reached over the network. Each function calls the job's [`Remote`] through the transport
//! seam with the context's lane, and turns a failure into the error naming the call and the PE.
//! Kept out of line (`#[inline(never)]`) so that the shared-memory fast path of every op stays a
//! few instructions with one branch. Used by `ops` and by `collectives` alike.
//!
//! A PE on the network route reaches its own memory through the network as well; a transfer
//! between two overlapping ranges of its own memory goes through a bounce buffer, and a strided
//! one block at a time, so that it behaves as `memmove` like the shared-memory route.
//!
//! Safe code only (`forbid` below): the local buffers reach the network as the checked ranges of
//! `transport::shm::memory` ([`Src`], [`Dst`], [`Local`]), the non-blocking forms as `'static`
//! ones (the program's buffers).

#![forbid(unsafe_code)]

use super::counters::{self, Kind};
use super::handle::{self, shmem_ctx_t};
use super::world::{Seg, World};
use crate::fatal;
use crate::transport::shm::{Dst, Plain, Src};
use crate::transport::{self, AmoWord, Place, Remote, Strided};

pub(crate) use crate::transport::{Local, Rmw};

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

/// Whether `local..local+len` overlaps this PE's own copy of `at` when `at` is on this PE.
fn overlaps_self(w: &World, at: Place, local: usize, len: usize) -> bool {
    let own = w.segments[at.seg].base() + at.off;
    at.pe == w.me && local < own + len && own < local + len
}

/// Puts `src` to `pe`'s copy of (`seg`, `off`); returns when `src` may be reused.
#[inline(never)]
pub(crate) fn put(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    src: Src<'_>,
) {
    send(w, call, ctx, Place::new(pe, seg as usize, off), src, None)
}

/// Puts `src` to `pe`'s copy of (`seg`, `off`) without waiting: `src` is the program's, which it
/// keeps unchanged until the next quiet of `ctx` (`'static`: the library never passes a buffer
/// of its own that it could free before).
#[inline(never)]
pub(crate) fn put_nbi(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    src: Src<'static>,
) {
    send(
        w,
        call,
        ctx,
        Place::new(pe, seg as usize, off),
        src,
        Some(src),
    )
}

/// [`put`] and [`put_nbi`] to `to`: `nbi_src` is `src` when the put need not wait.
fn send(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    to: Place,
    src: Src<'_>,
    nbi_src: Option<Src<'static>>,
) {
    let len = src.len();
    counters::moved(Kind::Put, 1, len as u64);
    let (net, lane) = lane(w, ctx);
    let done = if overlaps_self(w, to, src.addr(), len) {
        let bounce = src.to_vec();
        net.put(lane, to, Src::of(&bounce))
    } else {
        match nbi_src {
            Some(src) => net.put_nbi(lane, to, src),
            None => net.put(lane, to, src),
        }
    };
    done.unwrap_or_else(|e| failed(call, to.pe, e))
}

/// Puts one value (`shmem_p`). By value, so that the caller's fast path keeps it in a register.
#[inline(never)]
pub(crate) fn put_value<T: Plain>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    value: T,
) {
    put(w, call, ctx, pe, seg, off, Src::of_value(&value))
}

/// Gets `pe`'s copy of (`seg`, `off`) into `dst`; returns with the data.
#[inline(never)]
pub(crate) fn get(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    dst: Dst<'_>,
) {
    receive(w, call, ctx, Place::new(pe, seg as usize, off), dst, None)
}

/// Gets `pe`'s copy of (`seg`, `off`) into `dst` without waiting: the data is there at the next
/// quiet of `ctx`; `dst` is the program's (`'static`: as for [`put_nbi`]).
#[inline(never)]
pub(crate) fn get_nbi(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    dst: Dst<'static>,
) {
    receive(
        w,
        call,
        ctx,
        Place::new(pe, seg as usize, off),
        dst,
        Some(dst),
    )
}

/// Reads one value (`shmem_g`).
#[inline(never)]
pub(crate) fn get_value<T: Plain>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
) -> T {
    let mut value = crate::transport::shm::memory::zeroed::<T>();
    get(w, call, ctx, pe, seg, off, Dst::of_value(&mut value));
    value
}

/// [`get`] and [`get_nbi`] from `from`: `nbi_dst` is `dst` when the get need not wait.
fn receive(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    from: Place,
    dst: Dst<'_>,
    nbi_dst: Option<Dst<'static>>,
) {
    let len = dst.len();
    counters::moved(Kind::Get, 1, len as u64);
    let (net, lane) = lane(w, ctx);
    let done = if overlaps_self(w, from, dst.addr(), len) {
        let mut bounce = vec![0u8; len];
        net.get(lane, from, Dst::of(&mut bounce))
            .map(|()| dst.copy_from(Src::of(&bounce)))
    } else {
        match nbi_dst {
            Some(dst) => net.get_nbi(lane, from, dst),
            None => net.get(lane, from, dst),
        }
    };
    done.unwrap_or_else(|e| failed(call, from.pe, e))
}

/// Copies `count` blocks of `block` bytes between strided local and remote ranges (a put: block
/// `i` of `local` from byte `at + i*lstride` to remote `off + i*rstride`; a get the other way),
/// every block started before any is waited for; returns when done. Every block must lie
/// inside `local` (checked: a panic otherwise, a caller's bug).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn strided(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    pe: usize,
    seg: Seg,
    off: usize,
    rstride: isize,
    local: Local<'_>,
    at: usize,
    lstride: isize,
    block: usize,
    count: usize,
) {
    if count == 0 || block == 0 {
        return;
    }
    let shape = Strided {
        rstride,
        at,
        lstride,
        block,
        count,
    };
    local.check_blocks(shape);
    if pe == w.me {
        // Blocks of this PE's own memory may overlap each other: one at a time, each as memmove.
        for i in 0..count as isize {
            let r = off.wrapping_add_signed(i * rstride);
            let l = at.wrapping_add_signed(i * lstride);
            match local {
                Local::Put(s) => put(w, call, ctx, pe, seg, r, s.part(l, block)),
                Local::Get(d) => get(w, call, ctx, pe, seg, r, d.part(l, block)),
            }
        }
        return;
    }
    counters::moved(
        if local.to_peer() {
            Kind::Put
        } else {
            Kind::Get
        },
        count as u64,
        (count * block) as u64,
    );
    let (net, lane) = lane(w, ctx);
    net.strided(lane, Place::new(pe, seg as usize, off), local, shape)
        .unwrap_or_else(|e| failed(call, pe, e))
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
    let landed = w.segments[seg as usize].peer(pe).is_some();
    net.rmw(
        lane,
        Place::new(pe, seg as usize, off),
        op,
        value,
        fetch,
        landed,
    )
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
    net.swap(lane, Place::new(pe, seg as usize, off), value)
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
    net.compare_swap(lane, Place::new(pe, seg as usize, off), cond, value)
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
    net.fetch(lane, Place::new(pe, seg as usize, off))
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

/// Non-blocking transfers on context `ctx` between buffers borrowed for `'a` (a collective's
/// own, which it frees when the call returns) and peers' memory: [`scoped`] gives one to its
/// closure and completes them all with a quiet before it returns (if it started one), so that a
/// buffer is never written or read by the network after its borrow ends (the network's
/// [`transport::Scope`] keeps that promise).
pub(crate) struct Scope<'s, 'a> {
    w: &'s World,
    call: &'static str,
    ctx: shmem_ctx_t,
    /// The network's scope on the context's lane (`None`: the job has no network, and a
    /// transfer is the error of one that needs it).
    net: Option<&'s transport::Scope<'s, 'a>>,
}

impl<'a> Scope<'_, 'a> {
    /// Starts a get of `pe`'s copy of (`seg`, `off`) into `dst`, there once the scope ends.
    pub(crate) fn get(&self, pe: usize, seg: Seg, off: usize, dst: Dst<'a>) {
        let from = Place::new(pe, seg as usize, off);
        match self.net {
            Some(net) if !overlaps_self(self.w, from, dst.addr(), dst.len()) => {
                counters::moved(Kind::Get, 1, dst.len() as u64);
                net.get(from, dst)
                    .unwrap_or_else(|e| failed(self.call, pe, e))
            }
            // This PE's own overlapping memory (a bounce), or no network (its error).
            _ => receive(self.w, self.call, self.ctx, from, dst, None),
        }
    }

    /// Starts a put of `src` to `pe`'s copy of (`seg`, `off`), complete once the scope ends.
    pub(crate) fn put(&self, pe: usize, seg: Seg, off: usize, src: Src<'a>) {
        let to = Place::new(pe, seg as usize, off);
        match self.net {
            Some(net) if !overlaps_self(self.w, to, src.addr(), src.len()) => {
                counters::moved(Kind::Put, 1, src.len() as u64);
                net.put(to, src)
                    .unwrap_or_else(|e| failed(self.call, pe, e))
            }
            _ => send(self.w, self.call, self.ctx, to, src, None),
        }
    }
}

/// Runs `f` with a [`Scope`] for non-blocking transfers on `ctx` into and out of buffers that
/// live for `'a` (longer than this call), and, if it started any, quiets `ctx` before returning
/// (also if `f` unwinds): then every transfer `f` started is complete.
pub(crate) fn scoped<'a, R>(
    w: &World,
    call: &'static str,
    ctx: shmem_ctx_t,
    f: impl FnOnce(&Scope<'_, 'a>) -> R,
) -> R {
    let Some(remote) = w.remote() else {
        return f(&Scope {
            w,
            call,
            ctx,
            net: None,
        });
    };
    let (value, quieted) = remote.scoped(handle::lane_index(ctx), |net| {
        f(&Scope {
            w,
            call,
            ctx,
            net: Some(net),
        })
    });
    if let Err(e) = quieted {
        counters::count(Kind::Flush);
        flush_failed(call, e);
    }
    value
}
