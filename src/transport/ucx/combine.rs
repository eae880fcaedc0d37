//! Combining: a lane's small puts to consecutive addresses of one peer, sent as one put; and its
//! small non-blocking gets of consecutive addresses into consecutive ones here, issued as one get.
//!
//! Why: where UCX does not map the peer here (TCP), every put or get is a message of its own, one
//! system call of 2-3 us at each end plus the target's answer, whatever its size. A stream of
//! 8-byte `put_nbi`s to consecutive addresses ran at 0.28 million puts a second, OSHMEM's rate too,
//! and `get_nbi`s at 0.14 million. Combined, the 64 puts of a window are one 512-byte put.
//!
//! What is combined ([`Combiner::add`]): a put (non-blocking or blocking) of at most
//! [`COMBINE_MAX`] bytes to a peer UCX does not map here, copied into the lane's *run*. A put that
//! begins where the run ends (same PE, same segment) and fits in [`RUN_MAX`] extends it; any other
//! sends the run first and begins a new one, except a blocking put that does not continue the
//! lane's last put (where that put or run ended): it goes out at once. So a lone blocking put
//! (a flag, `shmem_p`) leaves when it is made, as it would without combining, and a stream of them
//! costs two messages a run; a blocking put in a run returns once it is copied there, which is all
//! a blocking put promises before the quiet. A non-blocking put always begins a run, so a window
//! of them is one message (the first alone cost 20-35% of the rate of 8-512-byte windows).
//!
//! When a run is sent ([`Combiner::send`]): when a put does not extend it; before its lane fences,
//! quiets, reads (a get or a fetching atomic, which must see the lane's puts) or makes a large
//! put; when a wait in the library begins (every lane's runs, `Network::serve`); and, for a PE
//! that goes on computing outside the library, by the progress thread within its `handback`
//! (5 ms by default) of the run's first put ([`super::Server::remind`]). So a run is never
//! held for longer than that while its PE stays out of the library, and a program that quiets
//! sees its puts complete as before: a run is an ordinary put of the lane, flushed by the quiet.
//!
//! Gets ([`Combiner::add_get`]): a non-blocking get of at most `COMBINE_MAX` bytes from a peer UCX
//! does not map here goes out at once, unless it continues the lane's last one (the next bytes of
//! the same segment of the same PE, into the next bytes here): then it begins or extends the
//! lane's *read run*, up to `RUN_MAX`, which is issued as one get into the program's buffer when a
//! get does not extend it, and at the same points as the put run: before a fence, a quiet, a read
//! or a put of the lane (so the lane's gets and puts keep their order), when a wait begins, or by
//! the progress thread. A lone `get_nbi` still overlaps what the program does next; a stream of
//! them costs two messages a run. The data is there after the quiet, as `get_nbi` promises (it
//! reads the peer's memory at some moment between the call and the quiet, as any get does).
//!
//! Invariants:
//! - A put is counted (`Lane::note_write`) after it is in the run, and a quiet or a fence reads
//!   the count before it sends the run: every put a quiet counts as done went out before its flush.
//! - The run's bytes stay unchanged until UCX has read them: a run UCX did not send at once (a full
//!   socket) keeps its buffer with its request until the next quiet ([`Combiner::take_sent`]).
//! - A read run is issued before the quiet that completes it waits ([`Combiner::take_reads`]), and
//!   the requests of the read runs issued are kept until that quiet.
//! - A failure to send a run (the progress thread's, which has no caller to tell) is kept and
//!   returned by the next send of the lane's own threads: no put or get is lost without an error.
//! - The runs hold an `Arc` of their peer's remote key; the lane clears them ([`Combiner::clear`])
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

/// The runs of one lane, and what it has sent that UCX still reads.
pub struct Combiner {
    run: Mutex<Run>,
    /// Whether `run` may hold bytes, a read run or an error: set under the lock, read without it
    /// by the paths that send the runs first, so that they take no lock when there is none (the
    /// common case).
    holding: AtomicBool,
    /// Whether `run` may hold a read run or the requests of read runs issued, for the next quiet.
    reading: AtomicBool,
}

/// What [`Combiner::add`] did with a put, or [`Combiner::add_get`] with a get.
pub enum Added {
    /// Began a run (the caller has the progress thread reminded).
    Began,
    /// Extended the run.
    Extended,
    /// Issued the operation at once: its request.
    Issued(Request),
}

/// A read run: `len` bytes from `start` of `pe`'s segment `seg`, into `dst` here.
struct Reads {
    key: Arc<RemoteKey>,
    pe: usize,
    seg: usize,
    start: usize,
    dst: usize,
    len: usize,
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
    /// Where the lane's last put sent ended (PE, segment, offset there): a put that begins there
    /// begins a run.
    write_end: Option<(usize, usize, usize)>,
    /// The read run not issued yet.
    reads: Option<Reads>,
    /// Where the lane's last get issued ended (PE, segment, offset there, address here): a get
    /// that begins there begins a read run.
    read_end: Option<(usize, usize, usize, usize)>,
    /// The requests of the read runs issued, until the next quiet.
    reading: Vec<Request>,
}

impl Combiner {
    pub fn new() -> Combiner {
        Combiner {
            run: Mutex::new(Run::default()),
            holding: AtomicBool::new(false),
            reading: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Run> {
        self.run.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds the put of `len` bytes from `src` to `off` of `pe`'s segment `seg` (reached through
    /// `key`, which the caller checked to hold the range): copied into the run if it extends it.
    /// Else the run (if any) goes first, and this put begins the next run, unless it is `eager`
    /// and does not continue the lane's last put: then it is issued at once from `src`.
    ///
    /// # Safety
    /// `src..src+len` must be readable, and for a put issued at once stay unchanged until its
    /// request completes; `len` ≤ [`COMBINE_MAX`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn add(
        &self,
        key: &Arc<RemoteKey>,
        pe: usize,
        seg: usize,
        off: usize,
        src: *const u8,
        len: usize,
        eager: bool,
    ) -> Result<Added> {
        debug_assert!(len <= COMBINE_MAX);
        let mut run = self.lock();
        // The lane's gets before its puts.
        run.issue_reads()?;
        let extends = run.key.is_some()
            && run.pe == pe
            && run.seg == seg
            && run.start + run.data.len() == off
            && run.data.len() + len <= RUN_MAX;
        let added = if extends {
            Added::Extended
        } else {
            run.send()?;
            if eager && run.write_end != Some((pe, seg, off)) {
                // SAFETY: the caller's contract (`# Safety` above): `src..src+len` is readable and
                // stays unchanged until the returned request completes, as the key's `put_nbi`
                // requires.
                let request = unsafe { key.put_nbi(off, src, len) }?;
                run.write_end = Some((pe, seg, off + len));
                return Ok(Added::Issued(request));
            }
            run.key = Some(key.clone());
            run.pe = pe;
            run.seg = seg;
            run.start = off;
            Added::Began
        };
        // SAFETY: the caller's contract: `src..src+len` is readable for this call; the bytes
        // are copied into the run before it returns.
        run.data
            .extend_from_slice(unsafe { std::slice::from_raw_parts(src, len) });
        self.holding.store(true, Ordering::Release);
        Ok(added)
    }

    /// Adds the get of `len` bytes from `off` of `pe`'s segment `seg` (reached through `key`,
    /// which the caller checked to hold the range) into `dst`: to the read run if it continues
    /// the lane's last get, else issued at once (after the read run, if any).
    ///
    /// # Safety
    /// `dst..dst+len` must stay writable and unread until the next quiet; `len` ≤ [`COMBINE_MAX`].
    pub unsafe fn add_get(
        &self,
        key: &Arc<RemoteKey>,
        pe: usize,
        seg: usize,
        off: usize,
        dst: *mut u8,
        len: usize,
    ) -> Result<Added> {
        debug_assert!(len <= COMBINE_MAX);
        let dst = dst as usize;
        let mut run = self.lock();
        if let Some(r) = run.reads.as_mut().filter(|r| {
            r.pe == pe
                && r.seg == seg
                && r.start + r.len == off
                && r.dst + r.len == dst
                && r.len + len <= RUN_MAX
        }) {
            r.len += len;
            return Ok(Added::Extended);
        }
        run.issue_reads()?;
        if run.read_end == Some((pe, seg, off, dst)) {
            run.reads = Some(Reads {
                key: key.clone(),
                pe,
                seg,
                start: off,
                dst,
                len,
            });
            self.holding.store(true, Ordering::Release);
            self.reading.store(true, Ordering::Release);
            return Ok(Added::Began);
        }
        // SAFETY: the caller's contract: `dst..dst+len` stays writable and unread until the next
        // quiet, which completes the returned request.
        let request = unsafe { key.get_nbi(off, dst as *mut u8, len) }?;
        run.read_end = Some((pe, seg, off + len, dst + len));
        Ok(Added::Issued(request))
    }

    /// Issues the read run, if there is one, and takes the requests of every read run issued
    /// since the last call, for a quiet to wait for (also the error of an earlier send of the
    /// progress thread, if one failed). The next get of the lane goes out at once.
    pub fn take_reads(&self) -> Result<Vec<Request>> {
        if !self.reading.load(Ordering::Acquire) {
            return Ok(Vec::new());
        }
        let mut run = self.lock();
        self.reading.store(false, Ordering::Relaxed);
        run.read_end = None;
        run.issue_reads()?;
        Ok(std::mem::take(&mut run.reading))
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
            run.reads = None;
            return Err(e);
        }
        run.issue_reads()?;
        run.send()
    }

    /// [`Combiner::send`] for the progress thread: a failure is kept for the lane's next send.
    pub fn send_for_lane(&self) {
        if !self.holding.load(Ordering::Acquire) {
            return;
        }
        let mut run = self.lock();
        if let Err(e) = run.issue_reads().and_then(|()| run.send()) {
            run.failed = Some(e);
            return;
        }
        if run.failed.is_none() {
            self.holding.store(false, Ordering::Relaxed);
        }
    }

    /// The runs UCX had not finished sending, to be kept until a flush of the lane's worker has
    /// completed them.
    /// The next put of the lane goes out at once.
    pub fn take_sent(&self) -> Vec<(Request, Vec<u8>)> {
        let mut run = self.lock();
        run.write_end = None;
        std::mem::take(&mut run.sent)
    }

    /// Drops the run and its remote key (before the lane closes its endpoints; a finalize has
    /// quieted, so it holds nothing then).
    pub fn clear(&self) {
        let mut run = self.lock();
        self.holding.store(false, Ordering::Relaxed);
        self.reading.store(false, Ordering::Relaxed);
        run.drop_run();
        run.sent.clear();
        run.failed = None;
        run.write_end = None;
        run.reads = None;
        run.read_end = None;
        run.reading.clear();
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
        self.write_end = Some((self.pe, self.seg, self.start + self.data.len()));
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

    /// Issues the read run (if any) as one get into the program's buffer and ends it; keeps its
    /// request for the next quiet.
    fn issue_reads(&mut self) -> Result<()> {
        let Some(r) = self.reads.take() else {
            return Ok(());
        };
        // SAFETY: `dst..dst+len` is the program's buffers of the gets of the run, writable and
        // unread until the quiet that waits for this request (`add_get`'s contract).
        let request = unsafe { r.key.get_nbi(r.start, r.dst as *mut u8, r.len) }?;
        self.read_end = Some((r.pe, r.seg, r.start + r.len, r.dst + r.len));
        if request.is_complete()? {
            return Ok(());
        }
        self.reading.push(request);
        if self.reading.len() >= SENT_MAX {
            // Waiting moves the worker: the replies come in.
            let older: Vec<Request> = self.reading.drain(..SENT_MAX / 2).collect();
            for request in older {
                request.wait()?;
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
