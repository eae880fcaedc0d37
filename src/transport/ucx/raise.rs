//! Raises: the control signals whose word only grows (a barrier round's epoch), sent to a peer
//! that UCX does not map here as one stream message instead of an emulated put.
//!
//! Why: over TCP UCX emulates a put with an active message that the target's worker answers with
//! a completion message, so a barrier signal cost two messages (two `sendto` per PE per 2-PE
//! barrier, where OSHMEM's tagged messages cost one) and the target's answer sat between the
//! signal's arrival and the waiter seeing it. A stream message is one message with no answer.
//! Active messages and tagged messages would do too, but with either feature enabled UCX 1.13's
//! TCP wireup fails in our tests (an assertion on a purged wireup request, or a crash in
//! `uct_tcp_iface_progress`); with the stream feature it does not.
//!
//! A raise is a [`RECORD`]-byte record, the word's offset in the peer's heap and the value, on the
//! stream of an endpoint from this PE's target worker to the peer's. Every PE's target worker opens
//! one to every other PE's at connection, so each pair is connected both ways and matched: UCX
//! reports stream data only on an endpoint the program created, not on one its wireup made for an
//! incoming connection (such as the lanes' endpoints make). Whoever progresses that worker next
//! (a thread of the peer waiting in the library, or its progress thread) drains the worker's
//! streams ([`Words::drain`]) and applies each record as an atomic maximum on the word: the
//! records of one endpoint arrive in order, but a word may be raised by several peers and the
//! drained records of two threads may land in either order, and a maximum cannot take the word
//! back.
//!
//! Ordering: a raise is not ordered after the puts before it (the stream and the emulated RMA are
//! separate protocols); it is used only where what precedes it is complete (a barrier after its
//! quiet, a round of a dissemination barrier) or is the target's own memory.
//!
//! Invariants: records land only in the heap of this PE (range and alignment checked per record);
//! a record split across two stream fragments is kept per endpoint until its rest arrives, under
//! one lock for the whole drain, so two threads never interleave one endpoint's bytes.

use super::{Endpoint, Result};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use ucx_sys::*;

/// Bytes of one record: the word's offset in the target's heap, then the value (native order:
/// the PEs of a job share an architecture).
pub const RECORD: usize = 16;

impl Endpoint {
    /// Sends the peer a raise of the word at `offset` of its heap to `value`; returns once the
    /// record is sent (the endpoint is one of the target worker's to a peer's target worker,
    /// which the peer connected back: see [`super::Network`]).
    pub fn raise(&self, offset: usize, value: u64) -> Result<()> {
        let record = [offset as u64, value];
        let param = ucp_request_param_t::default();
        // SAFETY: the endpoint is live; `record` lives on this frame until the send completed
        // locally, in wait below.
        let status =
            unsafe { ucp_stream_send_nbx(self.handle.raw, record.as_ptr().cast(), RECORD, &param) };
        self.handle
            .worker
            .request("ucp_stream_send_nbx", status)?
            .wait()
    }
}

/// The words raises land in (this PE's heap), and the pieces of records not yet whole.
pub struct Words {
    base: usize,
    len: usize,
    /// Per endpoint with a partial record: its bytes so far.
    partial: Mutex<Vec<(usize, Vec<u8>)>>,
}

/// How many endpoints one poll of the worker's streams returns at most.
const POLL_EPS: usize = 16;

impl Words {
    /// The heap `base..base+len` as the target of raises.
    ///
    /// # Safety
    /// The range is mapped, readable and writable for the life of the process, and its words are
    /// accessed by everyone as atomics only.
    pub unsafe fn new(base: usize, len: usize) -> Words {
        Words {
            base,
            len,
            partial: Mutex::new(Vec::new()),
        }
    }

    /// Applies every raise the streams of `worker` hold. Call it after a progress of the worker
    /// that did something (a record arrives in a progress).
    ///
    /// # Safety
    /// `worker` is the live target worker the records were sent to.
    pub unsafe fn drain(&self, worker: ucp_worker_h) {
        let mut partial = self.partial.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            // SAFETY: plain C structs of pointers and integers; zero is a valid (empty) value.
            let mut ready: [ucp_stream_poll_ep_t; POLL_EPS] = unsafe { std::mem::zeroed() };
            // SAFETY: the worker is live (caller's contract); `ready` holds POLL_EPS entries.
            let n = unsafe { ucp_stream_worker_poll(worker, ready.as_mut_ptr(), POLL_EPS, 0) };
            if n <= 0 {
                if n < 0 {
                    tracing::error!(target: "rshmem::ucx", "ucp_stream_worker_poll failed: {n}");
                }
                return;
            }
            for e in &ready[..n as usize] {
                // SAFETY: an endpoint of the live worker that has stream data.
                unsafe { self.drain_endpoint(e.ep, &mut partial) };
            }
            if (n as usize) < POLL_EPS {
                return;
            }
        }
    }

    /// Applies the records waiting on one endpoint's stream.
    ///
    /// # Safety
    /// `ep` is a live endpoint of the worker being drained.
    unsafe fn drain_endpoint(&self, ep: ucp_ep_h, partial: &mut Vec<(usize, Vec<u8>)>) {
        loop {
            let mut len = 0usize;
            // SAFETY: the endpoint is live; `len` is writable.
            let data = unsafe { ucp_stream_recv_data_nb(ep, &mut len) };
            if data.is_null() {
                return;
            }
            if UCS_PTR_IS_ERR(data) {
                tracing::error!(
                    target: "rshmem::ucx",
                    "ucp_stream_recv_data_nb failed: {}",
                    super::Error { call: "ucp_stream_recv_data_nb", status: UCS_PTR_STATUS(data) }
                );
                return;
            }
            // SAFETY: UCX hands out `len` bytes at `data` until ucp_stream_data_release below.
            let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, len) };
            let key = ep as usize;
            match partial.iter().position(|(k, _)| *k == key) {
                Some(at) => {
                    let (_, mut held) = partial.swap_remove(at);
                    held.extend_from_slice(bytes);
                    let rest = self.apply_all(&held);
                    if !rest.is_empty() {
                        partial.push((key, rest.to_vec()));
                    }
                }
                None => {
                    let rest = self.apply_all(bytes);
                    if !rest.is_empty() {
                        partial.push((key, rest.to_vec()));
                    }
                }
            }
            // SAFETY: `data` came from ucp_stream_recv_data_nb on this endpoint; `bytes` is
            // not used past here.
            unsafe { ucp_stream_data_release(ep, data) };
        }
    }

    /// Applies the whole records at the start of `bytes`; returns the bytes of an incomplete one.
    fn apply_all<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        let whole = bytes.len() / RECORD * RECORD;
        for r in bytes[..whole].chunks_exact(RECORD) {
            let word = |i: usize| u64::from_ne_bytes(r[i..i + 8].try_into().expect("8 bytes"));
            self.apply(word(0), word(8));
        }
        &bytes[whole..]
    }

    /// Raises the word at heap offset `offset` to at least `value`.
    fn apply(&self, offset: u64, value: u64) {
        let inside = offset
            .checked_add(8)
            .is_some_and(|end| end <= self.len as u64);
        if !inside || !offset.is_multiple_of(8) {
            // Only this library writes these streams: a bad record is a bug, and the wait it
            // was for ends in a hang report that names the peer.
            tracing::error!(
                target: "rshmem::ucx",
                "a control signal for heap offset {offset:#x} (heap of {:#x} bytes) was dropped",
                self.len
            );
            return;
        }
        // SAFETY: the word is inside the heap and aligned (checked); the heap is mapped for the
        // life of the process and its words are accessed as atomics (the contract of `new`).
        let word = unsafe { AtomicU64::from_ptr((self.base + offset as usize) as *mut u64) };
        word.fetch_max(value, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(records: &[(u64, u64)]) -> Vec<u8> {
        records
            .iter()
            .flat_map(|&(o, v)| o.to_ne_bytes().into_iter().chain(v.to_ne_bytes()))
            .collect()
    }

    #[test]
    fn records_raise_words_and_a_partial_one_is_kept() {
        let heap: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
        // SAFETY: `heap` lives to the end of the test and is accessed as atomics only.
        let words = unsafe { Words::new(heap.as_ptr() as usize, 4 * 8) };
        let mut stream = bytes(&[(8, 5), (24, 7), (8, 3)]);
        let head = bytes(&[(16, 9)]);
        stream.extend_from_slice(&head[..5]);
        let rest = words.apply_all(&stream);
        assert_eq!(rest.len(), 5, "the partial record is returned");
        let values: Vec<u64> = heap.iter().map(|w| w.load(Ordering::Relaxed)).collect();
        assert_eq!(
            values,
            [0, 5, 0, 7],
            "a later, lower raise does not lower a word"
        );
        let mut held = rest.to_vec();
        let tail = bytes(&[(16, 9)]);
        held.extend_from_slice(&tail[5..]);
        assert!(words.apply_all(&held).is_empty());
        assert_eq!(heap[2].load(Ordering::Relaxed), 9);
    }

    #[test]
    fn records_outside_the_heap_or_misaligned_are_dropped() {
        let heap: Vec<AtomicU64> = (0..2).map(|_| AtomicU64::new(1)).collect();
        // SAFETY: as above.
        let words = unsafe { Words::new(heap.as_ptr() as usize, 2 * 8) };
        let stream = bytes(&[(16, 9), (4, 9), (u64::MAX - 3, 9)]);
        assert!(words.apply_all(&stream).is_empty());
        assert!(heap.iter().all(|w| w.load(Ordering::Relaxed) == 1));
    }
}
