//! Signals: the control words that only grow (a barrier round's epoch, the count of a PE's
//! finalizes), raised at a peer UCX does not map here by one tagged message each.
//!
//! Why: over TCP, UCX emulates a put with an active message that the target's worker answers with
//! a completion message. A barrier round cost two messages where OSHMEM's (tagged messages of its
//! MPI layer) costs one, and the target's answer sat between the signal's arrival and the waiter
//! seeing it. A tagged message is one message with no answer.
//!
//! The messages have a context and a worker of their own ([`Context::for_messages`]), with one lane
//! per endpoint ([`SETTINGS`]). With the tag feature in the OpenSHMEM context, UCX 1.13 added a
//! second lane on another interface (for rendezvous) and crashed in its TCP wireup in our tests.
//!
//! A signal is a record of two words, the offset of the word in the peer's heap and the value,
//! sent to the peer's signal worker through the endpoint opened at the first signal to that peer.
//! That worker is progressed only by its PE's threads while they wait in the library
//! ([`Signals::poll`]): on every round of a wait for a signal, every few dozen rounds of the
//! others (enough to answer a peer whose first signal connects its endpoint; each look over TCP is
//! a system call). A signal matters only to the PE whose word it raises, and only while that PE
//! waits for it, so no progress thread is woken for it. A poll applies every record that arrived
//! as an atomic maximum on its word: the records of one peer arrive in order, but several peers
//! may raise one word and two threads may apply theirs in either order, and a maximum cannot take
//! a word back.
//!
//! Ordering: a signal is not ordered after the puts before it (another worker carries it); it is
//! sent only where what precedes it is complete (a barrier after its quiet, a dissemination
//! round) or is none of the peer's business. A PE's signals to one peer arrive in the order it
//! sent them, so the notice that it left (its finalize count, a signal too) comes after its last
//! barrier round.
//!
//! Invariants: records land only in this PE's heap (range and alignment checked per record); a
//! raise returns once its record is sent (UCX no longer reads it).

use super::worker::WorkerHandle;
use super::{Context, Endpoint, Error, Request, Result, Worker};
use crate::transport::shm::{Dst, Src};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use ucx_sys::*;

/// How the signal context is configured beyond `UCX_*`: one rendezvous rail, and rendezvous from
/// 256 KiB. A record (16 bytes) and a small collective's message go eagerly: the send completes
/// without the receiver, which may take the message calls later. A larger message goes by
/// rendezvous: its data moves once the receiver has posted its receive, straight into the
/// receiver's buffer. Eagerly, a mebibyte was copied out of UCX's queue of unexpected messages
/// and a broadcast of it took 1.4-2.7 times OSHMEM's (whose MPI layer uses rendezvous); with
/// rendezvous, about as long (the bench journal, 2026-12-04: `git show f57c210:bench/README.md`). Senders of such messages wait for the receiver
/// inside the library (`collectives::message`), and every member posts its receive before it
/// sends, so no two wait for each other. On the messages' endpoints (a context with the tag
/// feature only) UCX 1.13 opens one lane whatever the rails; with no rail at all its rendezvous
/// was slower (a mebibyte in 406-949 us against 257-689).
pub const SETTINGS: &[(&str, &str)] = &[("MAX_RNDV_RAILS", "1"), ("RNDV_THRESH", "256k")];

/// The tag of every record (only this library's workers use the context). Its top bit is clear:
/// the tags of the collectives' messages ([`Signals::send`]) have it set.
const TAG: ucp_tag_t = 0x7273_686d_656d_0001;

/// The bit every tag of a collective's message has, and a record's does not.
pub const MESSAGE_TAG: ucp_tag_t = 1 << 63;
const _: () = assert!(TAG & MESSAGE_TAG == 0);

/// Bytes of one record: the word's offset in the target's heap, then the value (native order: the
/// PEs of a job share an architecture).
pub const RECORD: usize = 16;

/// This PE's signal worker and its endpoints to the peers' signal workers.
pub struct Signals {
    /// Per PE: the endpoint to its signal worker, opened at the first signal; `addresses[pe]` is
    /// what it connects to.
    endpoints: Box<[OnceLock<Endpoint>]>,
    addresses: Vec<Vec<u8>>,
    /// Per PE: whether it is on another node (its endpoint is made in UCX's peer-failure mode).
    elsewhere: Vec<bool>,
    /// Held while an endpoint is opened, so that two threads signalling one peer for the first
    /// time open one (a second would have to be closed, which waits for the peer).
    opening: Mutex<()>,
    words: Words,
    worker: Worker,
}

impl Signals {
    /// A signal worker (on a context of its own, [`Context::for_messages`]), not yet connected:
    /// its [`Worker::address`] goes in this PE's card.
    pub fn worker() -> Result<Worker> {
        Worker::new(&Context::for_messages(SETTINGS)?)
    }

    /// The signals of `worker`, whose peers' signal workers are at `addresses` (indexed by PE),
    /// landing in `words`.
    pub fn new(
        worker: Worker,
        addresses: Vec<Vec<u8>>,
        elsewhere: Vec<bool>,
        words: Words,
    ) -> Signals {
        Signals {
            endpoints: (0..addresses.len()).map(|_| OnceLock::new()).collect(),
            addresses,
            elsewhere,
            opening: Mutex::new(()),
            words,
            worker,
        }
    }

    /// The endpoint to `pe`'s signal worker, opened now if this is the first signal to it.
    fn endpoint(&self, pe: usize) -> Result<&Endpoint> {
        if let Some(endpoint) = self.endpoints[pe].get() {
            return Ok(endpoint);
        }
        let _opening = self.opening.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(endpoint) = self.endpoints[pe].get() {
            return Ok(endpoint);
        }
        // SAFETY: the address is the bytes of the peer's Worker::address, from its card.
        let endpoint = unsafe {
            self.worker
                .connect_to_pe(&self.addresses[pe], pe, self.elsewhere[pe])
        }?;
        Ok(self.endpoints[pe].get_or_init(|| endpoint))
    }

    /// Whether a signal to `pe` has been sent (its endpoint is open).
    pub fn opened(&self, pe: usize) -> bool {
        self.endpoints[pe].get().is_some()
    }

    /// Sends `pe` the raise of the word at `offset` of its heap to `value`; returns once the record
    /// is sent. The first signal to a peer waits for the endpoint to connect, which needs the
    /// peer's progress: every wait of the peer in the library looks at its signal worker now and
    /// then, and a raise goes to a member of the same barrier, which waits in it or will.
    pub fn raise(&self, pe: usize, offset: usize, value: u64) -> Result<()> {
        let record = [offset as u64, value];
        self.send_tagged(pe, TAG, Src::of(&record[..]).part(0, RECORD))
    }

    /// Sends `bytes` under `tag` to `pe`'s signal worker; returns once `bytes` may be reused.
    fn send_tagged(&self, pe: usize, tag: u64, bytes: Src<'_>) -> Result<()> {
        self.send(pe, tag, bytes, |test| {
            let mut sent = Ok(());
            self.worker.handle.progress_until(|| {
                test().unwrap_or_else(|e| {
                    sent = Err(e);
                    true
                })
            });
            sent
        })?
    }

    /// Sends `pe` `bytes` under `tag` (a record's, or a collective's message with [`MESSAGE_TAG`]
    /// set): starts the send, then runs `wait` with a test of whether `bytes` may be reused, and
    /// returns what `wait` returns. Below the rendezvous threshold ([`SETTINGS`]) the send
    /// completes at once and the message waits at `pe`, in UCX's queue of unexpected messages if
    /// `pe` has not posted its receive ([`Signals::receive_messages`]); above it the data moves
    /// once `pe` has, and the test says so. A send still pending when `wait` returns is cancelled.
    pub fn send<R>(
        &self,
        pe: usize,
        tag: u64,
        bytes: Src<'_>,
        wait: impl FnOnce(&mut dyn FnMut() -> Result<bool>) -> R,
    ) -> Result<R> {
        let endpoint = self.endpoint(pe)?;
        let param = ucp_request_param_t::default();
        // SAFETY: the endpoint is live; `bytes` is borrowed until the send completes or is
        // cancelled (`Pending`'s drop, before this function returns).
        let status = unsafe {
            ucp_tag_send_nbx(
                endpoint.handle.raw,
                bytes.addr() as *const std::ffi::c_void,
                bytes.len(),
                tag,
                &param,
            )
        };
        if status.is_null() {
            return Ok(wait(&mut || Ok(true)));
        }
        if UCS_PTR_IS_ERR(status) {
            return Err(Error {
                call: "ucp_tag_send_nbx",
                status: UCS_PTR_STATUS(status),
            });
        }
        let mut pending = Pending {
            raw: status,
            worker: &endpoint.handle.worker,
            receive: false,
            length: None,
        };
        Ok(wait(&mut || pending.test().map(|sent| sent.is_some())))
    }

    /// Receives the collectives' messages under the tags of `posts` (with [`MESSAGE_TAG`] set),
    /// each into its buffer: posts every receive, then runs `wait` with a test of whether the
    /// `k`-th message is in (`Some` of its length), and returns what `wait` returns. A message
    /// that arrives after its post lands in its buffer straight from the network's; one that
    /// arrived before is copied out of UCX's queue of unexpected messages. Messages of one tag
    /// from one sender are taken in the order they were sent, by the posts of that tag in order.
    /// One longer than its buffer is an error; a shorter one is in when the test says its length.
    /// The test makes no progress: the polls of a wait do ([`Signals::poll`]). The receives still
    /// pending when `wait` returns (or when a post fails, without running `wait`) are cancelled.
    pub fn receive_messages<R>(
        &self,
        posts: &mut [(u64, Dst<'_>)],
        wait: impl FnOnce(&mut dyn FnMut(usize) -> Result<Option<usize>>) -> R,
    ) -> Result<R> {
        // Always a request, whose test tells the length: UCX 1.13 leaves the receive information
        // unwritten when it completes a receive at once.
        let param = ucp_request_param_t {
            op_attr_mask: UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
            ..Default::default()
        };
        let mut pending = Vec::with_capacity(posts.len());
        for (tag, into) in posts.iter_mut() {
            // SAFETY: the worker is live; `into` is borrowed until the receive completes or is
            // cancelled (`Pending`'s drop, before this function returns).
            let status = unsafe {
                ucp_tag_recv_nbx(
                    self.worker.handle.raw,
                    into.addr() as *mut std::ffi::c_void,
                    into.len(),
                    *tag | MESSAGE_TAG,
                    ucp_tag_t::MAX,
                    &param,
                )
            };
            if status.is_null() {
                return Err(Error {
                    call: "ucp_tag_recv_nbx (no request despite UCP_OP_ATTR_FLAG_NO_IMM_CMPL)",
                    status: UCS_ERR_INVALID_PARAM,
                });
            }
            if UCS_PTR_IS_ERR(status) {
                return Err(Error {
                    call: "ucp_tag_recv_nbx",
                    status: UCS_PTR_STATUS(status),
                });
            }
            pending.push(Pending {
                raw: status,
                worker: &self.worker.handle,
                receive: true,
                length: None,
            });
        }
        Ok(wait(&mut |k| pending[k].test()))
    }

    /// Progresses the worker once and applies every record that has arrived. Whether one did.
    #[inline]
    pub fn poll(&self) -> bool {
        self.worker.progress();
        let mut applied = false;
        while let Some(record) = self.receive() {
            self.words.apply(record[0], record[1]);
            applied = true;
        }
        applied
    }

    /// The next record that arrived, if any (one that cannot be read is reported and skipped).
    fn receive(&self) -> Option<[u64; 2]> {
        loop {
            match self.receive_one()? {
                Ok(record) => return Some(record),
                Err(why) => {
                    tracing::error!(target: "rshmem::ucx", "a control signal was lost: {why}")
                }
            }
        }
    }

    /// The next message that arrived, if any: its record, or why it is not one.
    fn receive_one(&self) -> Option<std::result::Result<[u64; 2], String>> {
        let worker = self.worker.handle.raw;
        // SAFETY: plain C struct of integers; zero is a valid value.
        let mut info: ucp_tag_recv_info_t = unsafe { std::mem::zeroed() };
        // SAFETY: the worker is live; `info` is writable; remove = 1 takes the message out of the
        // unexpected queue, to be received just below.
        let message = unsafe { ucp_tag_probe_nb(worker, TAG, ucp_tag_t::MAX, 1, &mut info) };
        if message.is_null() {
            return None;
        }
        let mut record = [0u64; 2];
        let param = ucp_request_param_t::default();
        // SAFETY: `message` was just removed from the worker's queue and is received once; the
        // record lives on this frame until the receive completes (at once or in wait below).
        let status = unsafe {
            ucp_tag_msg_recv_nbx(worker, record.as_mut_ptr().cast(), RECORD, message, &param)
        };
        let received = self
            .worker
            .handle
            .request("ucp_tag_msg_recv_nbx", status)
            .and_then(Request::wait);
        Some(match received {
            Ok(()) if info.length == RECORD => Ok(record),
            Ok(()) => Err(format!("{} bytes, not {RECORD}", info.length)),
            Err(e) => Err(e.to_string()),
        })
    }
}

/// A collective's message in flight ([`Signals::send`], [`Signals::receive_messages`]):
/// UCX reads or writes a buffer that outlives this.
struct Pending<'a> {
    /// The UCX request; NULL once complete and freed.
    raw: *mut std::ffi::c_void,
    worker: &'a WorkerHandle,
    /// A receive (else a send).
    receive: bool,
    /// Once complete: the length received (a send's: 0).
    length: Option<usize>,
}

impl Pending<'_> {
    /// Whether the operation is complete: the length received if so.
    fn test(&mut self) -> Result<Option<usize>> {
        if self.raw.is_null() {
            return Ok(self.length);
        }
        // SAFETY: plain C struct of integers; zero is a valid value.
        let mut info: ucp_tag_recv_info_t = unsafe { std::mem::zeroed() };
        // SAFETY: `raw` is a live request of the kind said (freed only below and in drop).
        let status = unsafe {
            if self.receive {
                ucp_tag_recv_request_test(self.raw, &mut info)
            } else {
                ucp_request_check_status(self.raw)
            }
        };
        if status == UCS_INPROGRESS {
            return Ok(None);
        }
        // SAFETY: complete, freed once; drop sees NULL.
        unsafe { ucp_request_free(self.raw) };
        self.raw = std::ptr::null_mut();
        if status != UCS_OK {
            let call = if self.receive {
                "ucp_tag_recv_nbx"
            } else {
                "ucp_tag_send_nbx"
            };
            return Err(Error { call, status });
        }
        self.length = Some(info.length);
        Ok(self.length)
    }
}

impl Drop for Pending<'_> {
    /// Cancels an operation not yet complete and waits until UCX no longer uses its buffer (a
    /// message already under way completes, a receive not matched yet is withdrawn).
    fn drop(&mut self) {
        if self.raw.is_null() {
            return;
        }
        // SAFETY: a live request of this worker.
        unsafe { ucp_request_cancel(self.worker.raw, self.raw) };
        let raw = self.raw;
        // SAFETY: `raw` is live until freed just after.
        self.worker
            .progress_until(|| unsafe { ucp_request_check_status(raw) } != UCS_INPROGRESS);
        // SAFETY: complete or cancelled, freed once.
        unsafe { ucp_request_free(raw) };
    }
}

impl Drop for Signals {
    /// Abandons the endpoints to the destroy of the worker: a flushing close waits for the peer's
    /// worker, and once every PE has passed the finalize's last barrier none progresses its own.
    fn drop(&mut self) {
        // What arrived since the last wait (a peer's finalize notice) is received, not left for
        // the destroy to warn about.
        while self.poll() {}
        for slot in self.endpoints.iter_mut() {
            if let Some(endpoint) = slot.take() {
                endpoint.abandon();
            }
        }
    }
}

/// The words signals land in: this PE's heap.
pub struct Words {
    base: usize,
    len: usize,
}

impl Words {
    /// The heap `base..base+len` as the target of signals.
    ///
    /// # Safety
    /// The range is mapped, readable and writable for the life of the process, and its words that
    /// signals raise are accessed by everyone as atomics only.
    pub unsafe fn new(base: usize, len: usize) -> Words {
        Words { base, len }
    }

    /// Raises the word at heap offset `offset` to at least `value`.
    fn apply(&self, offset: u64, value: u64) {
        let inside = offset
            .checked_add(8)
            .is_some_and(|end| end <= self.len as u64);
        if !inside || !offset.is_multiple_of(8) {
            // Only this library sends on these workers: a bad record is a bug, and the wait it was
            // for ends in a hang report that names the peer.
            tracing::error!(
                target: "rshmem::ucx",
                "a control signal for heap offset {offset:#x} (heap of {:#x} bytes) was dropped",
                self.len
            );
            return;
        }
        // SAFETY: the word is inside the heap and aligned (checked); the heap is mapped for the
        // life of the process and its signalled words are accessed as atomics (`new`'s contract).
        let word = unsafe { AtomicU64::from_ptr((self.base + offset as usize) as *mut u64) };
        word.fetch_max(value, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_raise_words_and_never_lower_them() {
        let heap: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
        // SAFETY: `heap` lives to the end of the test and is accessed as atomics only.
        let words = unsafe { Words::new(heap.as_ptr() as usize, 4 * 8) };
        for (offset, value) in [(8, 5), (24, 7), (8, 3)] {
            words.apply(offset, value);
        }
        let values: Vec<u64> = heap.iter().map(|w| w.load(Ordering::Relaxed)).collect();
        assert_eq!(
            values,
            [0, 5, 0, 7],
            "a later, lower raise does not lower a word"
        );
    }

    #[test]
    fn records_outside_the_heap_or_misaligned_are_dropped() {
        let heap: Vec<AtomicU64> = (0..2).map(|_| AtomicU64::new(1)).collect();
        // SAFETY: `heap` (two words, 16 bytes) outlives `words`, to the end of the test, and is
        // accessed as atomics only.
        let words = unsafe { Words::new(heap.as_ptr() as usize, 2 * 8) };
        for offset in [16, 4, u64::MAX - 3] {
            words.apply(offset, 9);
        }
        assert!(heap.iter().all(|w| w.load(Ordering::Relaxed) == 1));
    }
}
