//! The UCX network behind the transport seam ([`crate::transport::Network`]): each operation on
//! the lane of its context, with UCX's completion and ordering rules kept here.
//!
//! Completion, the cheapest correct scheme: a blocking put starts `ucp_put_nbx` and waits only for
//! local completion (the source may be reused; UCX usually completes a small put at once, with no
//! request at all); remote completion is left to quiet (a worker flush), which is when OpenSHMEM
//! requires it. No endpoint flush per put: that would cost a round trip each. A later get or
//! fetching atomic of the lane is ordered after its puts by a worker fence, issued only when a put
//! went out since the last fence ([`Lane::order_reads`]). The `nbi` forms start the operation and
//! drop the request (a get's is kept until quiet): it completes at the next quiet; a small
//! `put_nbi` to a peer not mapped here goes into the lane's run of consecutive puts instead, sent
//! as one put ([`super::combine`]), and a blocking put or strided transfer sends the run before it
//! waits. Atomics wait for their reply (fetching ones need it; the others wait when the caller
//! needs the update landed).
//!
//! Control words go straight through the heap's remote key of the default lane, not
//! [`Lane::put`]: they are the library's own, so the program's next quiet need not flush for them.
//! Where UCX maps the peer's heap here, a control store is a CPU atomic swap on the mapping. A
//! raise (a word that only grows: a barrier's epoch) to a peer not mapped here is one tagged
//! message ([`super::signals`]), where a store is a put that the target answers.

use super::signals::MESSAGE_TAG;
use super::{Error, Lane, Local, Network, Request};
use crate::transport::shm::{self, Dst, Src};
use crate::transport::{self, AmoWord, Arrival, Exchange, HEAP, Place, Rmw};
use std::time::Instant;
use ucx_sys::UCS_ERR_MESSAGE_TRUNCATED;

impl Network {
    #[inline]
    fn lane_for(&self, lane: usize) -> transport::Result<&Lane> {
        Ok(self.lane(lane)?)
    }
}

/// Loads libucp if it is not yet (see `super::library`), or says what was tried.
fn load_library() -> transport::Result<()> {
    super::library::load()
        .map(|_| ())
        .map_err(|failure| transport::Error::new(failure.to_string()))
}

/// A failure of `lane` not aimed at one PE (a quiet, a fence), with the PEs whose connection
/// failed ([`Lane::lost_peers`], asked for at most a second).
#[cold]
#[inline(never)]
fn blame(lane: &Lane, e: Error) -> transport::Error {
    // The endpoints UCX called failed, else those whose flush fails now.
    let mut lost: Vec<usize> = super::worker::lost_peers().iter().map(|l| l.0).collect();
    if lost.is_empty() {
        lost = lane.lost_peers(Instant::now() + std::time::Duration::from_secs(1));
    }
    transport::Error::from(e).lost(lost)
}

impl transport::Network for Network {
    const CHOICE: &'static str = "ucx";
    const NAME: &'static str = "UCX";
    const ALLOCATION: Option<&'static str> = Some(
        "UCX's sysv memory domain: ucp_mem_map ALLOCATE|FIXED; the global data too, which UCX's \
         shared-memory transports reach directly",
    );

    fn configure_libraries(libraries: &transport::Libraries) {
        super::library::configure(super::library::Settings {
            lib: libraries.ucx_lib.to_string(),
            search: libraries.ucx_search.to_string(),
        });
    }

    fn about() -> Vec<(String, String)> {
        super::about()
    }

    fn configure_waits(oversubscribed: bool, progress_delay: std::time::Duration) {
        super::progress::configure(oversubscribed, progress_delay);
    }

    unsafe fn allocate_segment(base: usize, len: usize) -> transport::Result<()> {
        load_library()?;
        // SAFETY: the caller's contract (`Network::allocate_segment`): `base..base+len` is page
        // aligned, ours to replace, unused by others during the call, and kept for life.
        Ok(unsafe { Local::allocate(base, len) }?)
    }

    unsafe fn connect(
        segments: &[(usize, usize)],
        elsewhere: &[bool],
        lanes: usize,
        exchange: &mut Exchange,
    ) -> transport::Result<Network> {
        // The network's first use loads its library; no library is the job's stop, with what was
        // tried and how to get one.
        load_library()?;
        // SAFETY: the caller's contract (`Network::connect`): every non-empty segment is mapped
        // read-write for the life of the process and accessed locally only as shared memory.
        let local = unsafe { Local::new(segments) }?;
        let card = local.card()?;
        let cards = exchange(&card).map_err(transport::Error::new)?;
        Ok(Network::connect(local, &cards, elsewhere, lanes)?)
    }

    fn put(&self, lane: usize, to: Place, src: Src<'_>) -> transport::Result<()> {
        let Place { pe, seg, off } = to;
        let lane = self.lane_for(lane)?;
        // SAFETY: `src` is readable while borrowed, and the put reads it only until it returns
        // (it waits for local completion).
        Ok(unsafe { lane.put_blocking(pe, seg, off, src.addr() as *const u8, src.len()) }?)
    }

    unsafe fn put_nbi(&self, lane: usize, to: Place, src: Src<'_>) -> transport::Result<()> {
        let Place { pe, seg, off } = to;
        let lane = self.lane_for(lane)?;
        // SAFETY: the caller's contract: `src` stays readable and unchanged until the next quiet.
        Ok(unsafe { lane.put_nbi(pe, seg, off, src.addr() as *const u8, src.len()) }?)
    }

    fn get(&self, lane: usize, from: Place, dst: Dst<'_>) -> transport::Result<()> {
        let Place { pe, seg, off } = from;
        let lane = self.lane_for(lane)?;
        // SAFETY: `dst` is writable while borrowed, and the request is waited for before this
        // returns.
        Ok(unsafe { lane.get(pe, seg, off, dst.addr() as *mut u8, dst.len()) }?.wait()?)
    }

    unsafe fn get_nbi(&self, lane: usize, from: Place, dst: Dst<'_>) -> transport::Result<()> {
        let Place { pe, seg, off } = from;
        let lane = self.lane_for(lane)?;
        // SAFETY: the caller's contract: `dst` stays writable and unused until the next quiet.
        Ok(unsafe { lane.get_nbi(pe, seg, off, dst.addr() as *mut u8, dst.len()) }?)
    }

    fn strided(
        &self,
        lane: usize,
        remote: Place,
        local: transport::Local<'_>,
        shape: transport::Strided,
    ) -> transport::Result<()> {
        let lane = self.lane_for(lane)?;
        // Every block inside `local` before any is issued (a panic after some were would leave
        // them writing into a buffer the caller no longer holds).
        local.check_blocks(shape);
        // It waits on the lane: the run goes first, not left behind the wait.
        lane.send_run()?;
        let block = shape.block;
        let requests: Vec<super::Result<Request>> = (0..shape.count as isize)
            .map(|i| {
                let Place { pe, seg, off: r } = remote.moved(i * shape.rstride);
                let l = shape.at.wrapping_add_signed(i * shape.lstride);
                match local.part(l, block) {
                    // SAFETY: the block lies inside `local` (`part` checks), readable while it
                    // is borrowed; every request is waited for below, before this returns.
                    transport::Local::Put(s) => unsafe {
                        lane.put(pe, seg, r, s.addr() as *const u8, block)
                    },
                    // SAFETY: the block lies inside `local` (`part` checks), writable while it is
                    // borrowed; every request is waited for below, and the blocks of a get do not
                    // overlap.
                    transport::Local::Get(d) => unsafe {
                        lane.get(pe, seg, r, d.addr() as *mut u8, block)
                    },
                }
            })
            .collect();
        let mut first: Result<(), Error> = Ok(());
        for request in requests {
            let done = request.and_then(Request::wait);
            if first.is_ok() {
                first = done;
            }
        }
        Ok(first?)
    }

    fn rmw<W: AmoWord>(
        &self,
        lane: usize,
        at: Place,
        op: Rmw,
        value: W,
        fetch: bool,
        landed: bool,
    ) -> transport::Result<W> {
        let Place { pe, seg, off } = at;
        let lane = self.lane_for(lane)?;
        let k = lane.rkey(pe, seg)?;
        if fetch || landed {
            lane.order_atomic()?;
            let old = match op {
                Rmw::Add => k.fetch_add(off, value),
                Rmw::And => k.fetch_and(off, value),
                Rmw::Or => k.fetch_or(off, value),
                Rmw::Xor => k.fetch_xor(off, value),
            }?;
            Ok(if fetch { old } else { value })
        } else {
            // The lane's runs first: its earlier gets read what was there before this.
            lane.send_run()?;
            let sent = match op {
                Rmw::Add => k.add(off, value),
                Rmw::And => k.and(off, value),
                Rmw::Or => k.or(off, value),
                Rmw::Xor => k.xor(off, value),
            };
            // Like a put: a later get or fetching atomic of this lane fences behind it, a quiet
            // flushes for it (neither is needed for a CPU atomic on a mapped peer).
            sent?;
            if !k.completes_at_once() {
                lane.note_write()?;
            }
            Ok(value)
        }
    }

    fn swap<W: AmoWord>(&self, lane: usize, at: Place, value: W) -> transport::Result<W> {
        let Place { pe, seg, off } = at;
        let lane = self.lane_for(lane)?;
        lane.order_atomic()?;
        Ok(lane.rkey(pe, seg)?.swap(off, value)?)
    }

    fn compare_swap<W: AmoWord>(
        &self,
        lane: usize,
        at: Place,
        cond: W,
        value: W,
    ) -> transport::Result<W> {
        let Place { pe, seg, off } = at;
        let lane = self.lane_for(lane)?;
        lane.order_atomic()?;
        Ok(lane.rkey(pe, seg)?.compare_swap(off, cond, value)?)
    }

    fn fetch<W: AmoWord + Default>(&self, lane: usize, at: Place) -> transport::Result<W> {
        let Place { pe, seg, off } = at;
        let lane = self.lane_for(lane)?;
        lane.order_atomic()?;
        Ok(lane.rkey(pe, seg)?.fetch(off)?)
    }

    fn fence(&self, lane: usize) -> transport::Result<()> {
        match self.opened_lane(lane) {
            Some(lane) => lane.fence().map_err(|e| blame(lane, e)),
            None => Ok(()),
        }
    }

    fn quiet(&self, lane: usize) -> transport::Result<()> {
        match self.opened_lane(lane) {
            Some(lane) => lane.quiet().map_err(|e| blame(lane, e)),
            None => Ok(()),
        }
    }

    fn pe_quiet(&self, lane: usize, _pes: &[usize]) -> transport::Result<()> {
        // A flush of the lane completes the listed PEs' operations with the others': as cheap as
        // flushing their endpoints one by one, and one call.
        transport::Network::quiet(self, lane)
    }

    fn control_store(&self, pe: usize, off: usize, value: u64) -> transport::Result<()> {
        Ok(self.default_lane().rkey(pe, HEAP)?.store(off, value)?)
    }

    fn control_raise(&self, pe: usize, off: usize, value: u64) -> transport::Result<()> {
        if self
            .default_lane()
            .rkey(pe, HEAP)?
            .raise_mapped(off, value)?
        {
            return Ok(());
        }
        Ok(self.signals.raise(pe, off, value)?)
    }

    fn control_notice(&self, pe: usize, off: usize, value: u64) -> transport::Result<()> {
        if self.signals.opened(pe) {
            transport::Network::control_raise(self, pe, off, value)
        } else {
            transport::Network::control_store(self, pe, off, value)
        }
    }

    fn control_add(&self, pe: usize, off: usize, value: u64) -> transport::Result<()> {
        Ok(self.default_lane().rkey(pe, HEAP)?.add(off, value)?)
    }

    fn control_load(&self, pe: usize, off: usize, words: &mut [u64]) -> transport::Result<()> {
        // SAFETY: plain integers, any bit pattern is valid; the slice covers `words`.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), 8 * words.len())
        };
        Ok(self.default_lane().rkey(pe, HEAP)?.get(off, bytes)?)
    }

    fn messages(&self) -> bool {
        true
    }

    /// 8 MiB of messages ahead of a reader: two of the largest (`collectives::message::LARGEST`,
    /// 4 MiB), or 2048 calls of up to 3.5 KiB, that UCX's eager protocol sends at once and keeps
    /// in its queue at the reader (one above its rendezvous threshold, over TCP about 256 KiB,
    /// leaves only its header there); each costs 512 bytes more in that queue: 360 bytes for a
    /// message of 8 (4095 of them held by a reader waiting elsewhere in the library raised its
    /// peak RSS by 1.5 MB).
    fn message_limits(&self) -> transport::MessageLimits {
        transport::MessageLimits {
            run_ahead: 8 << 20,
            cost: 512,
        }
    }

    fn send_message<R>(
        &self,
        pe: usize,
        tag: u64,
        bytes: crate::transport::shm::Src<'_>,
        wait: impl FnOnce(&mut dyn FnMut() -> transport::Result<bool>) -> R,
    ) -> transport::Result<R> {
        Ok(self.signals.send(pe, tag | MESSAGE_TAG, bytes, |test| {
            wait(&mut || Ok(test()?))
        })?)
    }

    fn receive_messages<R>(
        &self,
        posts: &mut [(u64, crate::transport::shm::Dst<'_>)],
        wait: impl FnOnce(&mut dyn FnMut(usize) -> transport::Result<Arrival>) -> R,
    ) -> transport::Result<R> {
        Ok(self.signals.receive_messages(posts, |test| {
            wait(&mut |k| match test(k) {
                Ok(None) => Ok(Arrival::Pending),
                Ok(Some(n)) => Ok(Arrival::In(n)),
                Err(e) if e.status == UCS_ERR_MESSAGE_TRUNCATED => Ok(Arrival::Longer),
                Err(e) => Err(e.into()),
            })
        })?)
    }

    fn raises_apart(&self, pe: usize) -> bool {
        // A peer whose heap UCX maps here maps this PE's too (the same node and transports), and
        // raises by a CPU atomic; where it does not, the safety net of `Network::serve` still
        // delivers its messages, later.
        self.default_lane()
            .rkey(pe, HEAP)
            .is_ok_and(|key| !key.completes_at_once())
    }

    #[inline]
    fn poll(&self) {
        self.default_lane().poll();
    }

    fn lost(&self) -> Vec<(usize, transport::Error)> {
        super::worker::lost_peers()
            .into_iter()
            .map(|(pe, e)| (pe, e.into()))
            .collect()
    }

    #[inline]
    fn serve<R>(&self, signals: bool, f: impl FnOnce(&mut dyn FnMut() -> bool) -> R) -> R {
        Network::serve(self, signals, f)
    }

    fn mapping(&self, pe: usize, seg: usize) -> Option<shm::Mapping> {
        // The default lane's key: open from connect to close, as the mapping must be.
        let (base, len) = self.lane(0).ok()?.rkey(pe, seg).ok()?.mapping()?;
        // SAFETY: UCX maps the peer's registered segment there, read-write, until the key is
        // released at close; the runtime forgets the mapping before it closes the network
        // (`World::forget_network_mappings`).
        Some(unsafe { shm::Mapping::new(base, len) })
    }

    fn close(&mut self, deadline: Instant) -> transport::Result<()> {
        Ok(Network::close(self, deadline)?)
    }

    fn stop(&mut self) -> transport::Result<()> {
        Ok(Network::stop(self)?)
    }
}
