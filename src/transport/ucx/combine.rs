//! Write combining: a lane's small non-blocking puts to consecutive addresses of one peer, sent as
//! one put.
//!
//! Why: where UCX does not map the peer here (TCP), every put is a message of its own, one system
//! call of 2-3 us at each end plus the target's completion message, whatever its size. A stream of
//! 8-byte `put_nbi`s to consecutive addresses ran at 0.28 million puts a second, OSHMEM's rate too.
//! Combined, the 64 puts of a window are one 512-byte put.
//!
//! What is combined ([`Combiner::add`]): a non-blocking put of at most [`COMBINE_MAX`] bytes to a
//! peer UCX does not map here, copied into the lane's *run*. A put that begins where the run ends
//! (same PE, same segment) and fits in [`RUN_MAX`] extends it; any other sends the run first and
//! begins a new one. The source may be reused at once (more than `put_nbi` promises).
//!
//! When a run is sent ([`Combiner::send`]): when a put does not extend it; before its lane fences,
//! quiets, reads (a get or a fetching atomic, which must see the lane's puts) or makes a blocking
//! put; when a wait in the library begins (the default lane's, `Network::serve`); and, for a PE
//! that goes on computing outside the library, by the progress thread within its `handback`
//! (5 ms by default) of the run's first put ([`super::Server::remind`]). So a run is never
//! held for longer than that while its PE stays out of the library, and a program that quiets
//! sees its puts complete as before: a run is an ordinary put of the lane, flushed by the quiet.
//!
//! Invariants:
//! - A put is counted (`Lane::note_write`) after it is in the run, and a quiet or a fence reads
//!   the count before it sends the run: every put a quiet counts as done went out before its flush.
//! - The run's bytes stay unchanged until UCX has read them: a run UCX did not send at once (a full
//!   socket) keeps its buffer with its request until the next quiet ([`Combiner::take_sent`]).
//! - A failure to send a run (the progress thread's, which has no caller to tell) is kept and
//!   returned by the next send of the lane's own threads: no put is lost without an error.
//! - The run holds an `Arc` of its peer's remote key; the lane clears it ([`Combiner::clear`])
//!   before it closes its endpoints.

use super::{Error, RemoteKey, Request, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The largest put that is combined: larger ones are few enough per second that a message each
/// costs little, and copying them would cost more.
pub const COMBINE_MAX: usize = 4096;

/// The most bytes one run holds: the size in which UCX sends over TCP here
/// (`UCX_TCP_TX_SEG_SIZE`, see `context::ROUTE_DEFAULTS`), so a run is one send.
pub const RUN_MAX: usize = 64 * 1024;

/// At most how many runs wait for UCX (full sockets) before the next waits for the older half.
const SENT_MAX: usize = 64;

/// The run of one lane, and what it has sent that UCX still reads.
pub struct Combiner {
    run: Mutex<Run>,
    /// Whether `run` may hold bytes or an error: set under the lock, read without it by the paths
    /// that send the run first, so that they take no lock when there is none (the common case).
    holding: AtomicBool,
}

#[derive(Default)]
struct Run {
    /// The remote key of the run's peer and segment (`None`: no run).
    key: Option<Arc<RemoteKey>>,
    pe: usize,
    seg: usize,
    /// The offset of the run's first byte in the segment.
    start: usize,
    data: Vec<u8>,
    /// Runs UCX did not send at once, with their bytes, until the next quiet.
    sent: Vec<(Request, Vec<u8>)>,
    /// A send of the progress thread that failed, for the lane's next send to report.
    failed: Option<Error>,
}

impl Combiner {
    pub fn new() -> Combiner {
        Combiner {
            run: Mutex::new(Run::default()),
            holding: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Run> {
        self.run.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Copies the put of `len` bytes from `src` to `off` of `pe`'s segment `seg` (reached through
    /// `key`, which the caller checked to hold the range) into the run, sending the run first if
    /// the put does not extend it. Returns whether the put began a run (the caller has the
    /// progress thread reminded).
    ///
    /// # Safety
    /// `src..src+len` must be readable; `len` ≤ [`COMBINE_MAX`].
    pub unsafe fn add(
        &self,
        key: &Arc<RemoteKey>,
        pe: usize,
        seg: usize,
        off: usize,
        src: *const u8,
        len: usize,
    ) -> Result<bool> {
        debug_assert!(len <= COMBINE_MAX);
        let mut run = self.lock();
        let extends = run.key.is_some()
            && run.pe == pe
            && run.seg == seg
            && run.start + run.data.len() == off
            && run.data.len() + len <= RUN_MAX;
        if !extends {
            run.send()?;
            run.key = Some(key.clone());
            run.pe = pe;
            run.seg = seg;
            run.start = off;
        }
        // SAFETY: the caller guarantees `src..src+len`.
        run.data
            .extend_from_slice(unsafe { std::slice::from_raw_parts(src, len) });
        self.holding.store(true, Ordering::Release);
        Ok(!extends)
    }

    /// Sends the run, if there is one; returns the error of an earlier send of the progress
    /// thread, if one failed.
    #[inline]
    pub fn send(&self) -> Result<()> {
        if !self.holding.load(Ordering::Acquire) {
            return Ok(());
        }
        self.send_held()
    }

    #[inline(never)]
    fn send_held(&self) -> Result<()> {
        let mut run = self.lock();
        self.holding.store(false, Ordering::Relaxed);
        if let Some(e) = run.failed.take() {
            run.drop_run();
            return Err(e);
        }
        run.send()
    }

    /// [`Combiner::send`] for the progress thread: a failure is kept for the lane's next send.
    pub fn send_for_lane(&self) {
        if !self.holding.load(Ordering::Acquire) {
            return;
        }
        let mut run = self.lock();
        if let Err(e) = run.send() {
            run.failed = Some(e);
            return;
        }
        if run.failed.is_none() {
            self.holding.store(false, Ordering::Relaxed);
        }
    }

    /// The runs UCX had not finished sending, to be kept until a flush of the lane's worker has
    /// completed them.
    pub fn take_sent(&self) -> Vec<(Request, Vec<u8>)> {
        std::mem::take(&mut self.lock().sent)
    }

    /// Drops the run and its remote key (before the lane closes its endpoints; a finalize has
    /// quieted, so it holds nothing then).
    pub fn clear(&self) {
        let mut run = self.lock();
        self.holding.store(false, Ordering::Relaxed);
        run.drop_run();
        run.sent.clear();
        run.failed = None;
    }
}

impl Run {
    /// Sends the bytes of the run (if any) as one put and ends it.
    fn send(&mut self) -> Result<()> {
        let Some(key) = self.key.take() else {
            return Ok(());
        };
        // SAFETY: `data` stays unchanged until the request completes: if it does not complete at
        // once, the buffer moves into `sent` with it and is dropped after the flush of a quiet.
        let request = unsafe { key.put_nbi(self.start, self.data.as_ptr(), self.data.len()) };
        let request = match request {
            Ok(request) => request,
            Err(e) => {
                self.data.clear();
                return Err(e);
            }
        };
        if request.is_complete()? {
            self.data.clear();
            return Ok(());
        }
        let data = std::mem::replace(&mut self.data, Vec::with_capacity(RUN_MAX));
        self.sent.push((request, data));
        if self.sent.len() >= SENT_MAX {
            // Waiting moves the worker: the sockets drain.
            let older: Vec<(Request, Vec<u8>)> = self.sent.drain(..SENT_MAX / 2).collect();
            for (request, data) in older {
                request.wait()?;
                drop(data);
            }
        }
        Ok(())
    }

    fn drop_run(&mut self) {
        self.key = None;
        self.data.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_combiner_sends_nothing() {
        let c = Combiner::new();
        assert!(c.send().is_ok());
        assert!(!c.holding.load(Ordering::Relaxed));
        assert!(c.take_sent().is_empty());
        c.send_for_lane();
        c.clear();
        assert!(c.send().is_ok());
    }

    #[test]
    fn a_failure_of_the_progress_thread_is_reported_by_the_next_send() {
        let c = Combiner::new();
        {
            let mut run = c.lock();
            run.failed = Some(Error {
                call: "ucp_put_nbx",
                status: ucx_sys::UCS_ERR_CONNECTION_RESET,
            });
        }
        c.holding.store(true, Ordering::Release);
        let e = c.send().expect_err("the kept failure");
        assert_eq!(e.status, ucx_sys::UCS_ERR_CONNECTION_RESET);
        assert!(c.send().is_ok(), "reported once");
    }
}
