//! Workers, endpoints and requests: where operations are issued and progressed.
//!
//! Invariants: a worker is created in `UCS_THREAD_MODE_MULTI` (checked after creation), so every
//! method may be called from any thread, including while a [`super::ProgressThread`] progresses
//! it; a worker is destroyed after its endpoints and requests (they hold an `Arc` of it), and an
//! endpoint is closed after its remote keys (they hold an `Arc` of it). A worker made with
//! [`Worker::serving`] (a lane) serves its PE's target worker while a thread waits for one of its
//! requests ([`super::progress::Server`]).

use super::context::{Context, ContextHandle};
use super::{Error, Result, Served, Server, check};
use std::mem::ManuallyDrop;
use std::os::fd::BorrowedFd;
use std::os::raw::c_void;
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use ucx_sys::*;

/// Rounds of a lane's wait between two progresses of the target worker it serves.
const SERVE_EVERY: u32 = 2;

/// The owner of a `ucp_worker_h`.
pub(super) struct WorkerHandle {
    pub(super) raw: ucp_worker_h,
    /// The target worker's server that waits on this worker serve too (a lane's), if any.
    server: Option<Arc<Server>>,
    _context: Arc<ContextHandle>,
}

// SAFETY: the worker runs in UCS_THREAD_MODE_MULTI (checked in `Worker::new`): UCX locks it on
// every call, so it may be used from several threads at once.
unsafe impl Send for WorkerHandle {}
// SAFETY: `&WorkerHandle` calls UCX on `raw`, which UCX locks per call in
// UCS_THREAD_MODE_MULTI (checked in `Worker::new`); the fields are set at creation, only read.
unsafe impl Sync for WorkerHandle {}

impl Drop for WorkerHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from ucp_worker_create; its endpoints and requests held an Arc
        // of it and are gone; the context is still live (our Arc).
        unsafe { ucp_worker_destroy(self.raw) }
    }
}

impl WorkerHandle {
    /// Progresses the worker until `done()`: spins a bounded number of idle rounds, then yields
    /// the processor between rounds, so an oversubscribed node still moves. With a server, every
    /// round progresses the PE's target worker too, and the progress thread stays off it.
    pub(super) fn progress_until(&self, mut done: impl FnMut() -> bool) {
        if done() {
            return;
        }
        match &self.server {
            None => self.spin(done, || false),
            Some(server) => {
                // The reply waited for arrives at this worker; the target worker, for the peers,
                // is progressed every `SERVE_EVERY` rounds (over TCP each progress is a system
                // call).
                let mut turn = server.turn();
                let mut round = 0u32;
                self.spin(done, || {
                    round = round.wrapping_add(1);
                    round.is_multiple_of(SERVE_EVERY) && turn.poll() == Served::Answered
                })
            }
        }
    }

    /// Progresses until `done()`; `serve()` answers peers, true when it did (a busy round).
    fn spin(&self, mut done: impl FnMut() -> bool, mut serve: impl FnMut() -> bool) {
        const SPINS_BEFORE_YIELD: u32 = 128;
        let mut idle = 0u32;
        while !done() {
            let served = serve();
            // SAFETY: the worker is live and thread-safe (MULTI).
            if unsafe { ucp_worker_progress(self.raw) } != 0 || served {
                idle = 0;
            } else {
                idle += 1;
                if idle >= SPINS_BEFORE_YIELD {
                    crate::transport::cores::yield_core();
                }
            }
        }
    }

    /// Turns the `ucs_status_ptr_t` of a non-blocking call into a [`Request`].
    pub(super) fn request(
        self: &Arc<Self>,
        call: &'static str,
        ptr: ucs_status_ptr_t,
    ) -> Result<Request> {
        self.request_to(call, ptr, NO_PE)
    }

    /// As [`WorkerHandle::request`], for an operation towards PE `pe` (`NO_PE`: none known).
    #[inline]
    fn request_to(
        self: &Arc<Self>,
        call: &'static str,
        ptr: ucs_status_ptr_t,
        pe: usize,
    ) -> Result<Request> {
        if UCS_PTR_IS_ERR(ptr) {
            return Err(Error {
                call,
                status: UCS_PTR_STATUS(ptr),
            });
        }
        Ok(Request {
            raw: ptr,
            call,
            worker: (!ptr.is_null()).then(|| self.clone()),
            pe,
        })
    }
}

/// A UCP worker: the progress engine and the source of endpoints.
#[derive(Clone)]
pub struct Worker {
    pub(super) handle: Arc<WorkerHandle>,
}

/// What [`Worker::arm`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Armed {
    /// Nothing is pending: wait for the event fd to become readable.
    Idle,
    /// Events arrived meanwhile: progress again before waiting.
    Busy,
}

impl Worker {
    /// A worker on `context` that any thread may use.
    pub fn new(context: &Context) -> Result<Worker> {
        Worker::create(context, None)
    }

    /// As [`Worker::new`], and a thread that waits for one of its requests serves `server` too.
    pub fn serving(context: &Context, server: &Arc<Server>) -> Result<Worker> {
        Worker::create(context, Some(server.clone()))
    }

    fn create(context: &Context, server: Option<Arc<Server>>) -> Result<Worker> {
        let params = ucp_worker_params_t {
            field_mask: UCP_WORKER_PARAM_FIELD_THREAD_MODE as u64,
            thread_mode: UCS_THREAD_MODE_MULTI,
            ..Default::default()
        };
        let mut raw = ptr::null_mut();
        // SAFETY: the context is live (we take an Arc below before returning); params valid; raw
        // writable.
        check("ucp_worker_create", unsafe {
            ucp_worker_create(context.handle.0, &params, &mut raw)
        })?;
        let handle = Arc::new(WorkerHandle {
            raw,
            server,
            _context: context.handle.clone(),
        });
        let mut attr = ucp_worker_attr_t {
            field_mask: UCP_WORKER_ATTR_FIELD_THREAD_MODE as u64,
            ..Default::default()
        };
        // SAFETY: the worker is live; attr is writable.
        check("ucp_worker_query", unsafe {
            ucp_worker_query(handle.raw, &mut attr)
        })?;
        if attr.thread_mode != UCS_THREAD_MODE_MULTI {
            return Err(Error {
                call: "ucp_worker_create (UCX without multi-thread support)",
                status: UCS_ERR_UNSUPPORTED,
            });
        }
        Ok(Worker { handle })
    }

    /// The worker's address, for a peer's [`Worker::connect_to_pe`].
    pub fn address(&self) -> Result<Vec<u8>> {
        let mut address = ptr::null_mut();
        let mut len = 0usize;
        // SAFETY: the worker is live; address and len are writable.
        check("ucp_worker_get_address", unsafe {
            ucp_worker_get_address(self.handle.raw, &mut address, &mut len)
        })?;
        // SAFETY: UCX returned `len` readable bytes at `address`.
        let bytes = unsafe { std::slice::from_raw_parts(address.cast::<u8>(), len) }.to_vec();
        // SAFETY: the address came from this worker and is released once, after the copy.
        unsafe { ucp_worker_release_address(self.handle.raw, address) };
        Ok(bytes)
    }

    /// Progresses communication once; returns how many events were handled (0: nothing to do).
    #[inline]
    pub fn progress(&self) -> u32 {
        // SAFETY: the worker is live and thread-safe (MULTI).
        unsafe { ucp_worker_progress(self.handle.raw) }
    }

    /// The worker's event file descriptor: readable when there is work after [`Worker::arm`]
    /// returned [`Armed::Idle`], or after [`Worker::signal`].
    pub fn event_fd(&self) -> Result<BorrowedFd<'_>> {
        let mut fd = -1;
        // SAFETY: the worker is live; fd is writable.
        check("ucp_worker_get_efd", unsafe {
            ucp_worker_get_efd(self.handle.raw, &mut fd)
        })?;
        // SAFETY: the fd belongs to the worker and stays open while the worker lives, which the
        // borrow of `self` ensures.
        Ok(unsafe { BorrowedFd::borrow_raw(fd) })
    }

    /// Arms the event fd: [`Armed::Idle`] means it is safe to wait on it.
    pub fn arm(&self) -> Result<Armed> {
        // SAFETY: the worker is live.
        match unsafe { ucp_worker_arm(self.handle.raw) } {
            UCS_OK => Ok(Armed::Idle),
            UCS_ERR_BUSY => Ok(Armed::Busy),
            status => Err(Error {
                call: "ucp_worker_arm",
                status,
            }),
        }
    }

    /// Makes the event fd readable, waking a thread waiting on it.
    pub fn signal(&self) -> Result<()> {
        // SAFETY: the worker is live; ucp_worker_signal may be called from any thread.
        check("ucp_worker_signal", unsafe {
            ucp_worker_signal(self.handle.raw)
        })
    }

    /// Orders the operations issued on the worker before the call before those after it
    /// (`shmem_fence`); completes nothing.
    pub fn fence(&self) -> Result<()> {
        // SAFETY: the worker is live.
        check("ucp_worker_fence", unsafe {
            ucp_worker_fence(self.handle.raw)
        })
    }

    /// Completes every operation issued on the worker, at the targets too.
    #[cfg(test)]
    pub fn flush(&self) -> Result<()> {
        self.start_flush()?.wait()
    }

    /// Completes every operation issued on the worker, at the targets too (`shmem_quiet`), where
    /// `endpoints` are all of its endpoints. First a worker flush, through the interfaces
    /// ([`super::context::FLUSH_BY_INTERFACES`]), which operations other threads keep starting on
    /// the worker could hold back; if it is not done within `patience`, a flush of every endpoint,
    /// each of which completes what was issued on it before, whatever follows. Then the worker
    /// flush is still in flight, and returned (its completion says the worker has gone quiet).
    /// With `stalled`, a worker flush a call before left in flight, only the endpoints are flushed.
    pub fn flush_within<'a>(
        &self,
        patience: Duration,
        stalled: bool,
        endpoints: impl Iterator<Item = &'a Endpoint>,
    ) -> Result<Option<Request>> {
        let pending = if stalled {
            None
        } else {
            match self
                .start_flush()?
                .wait_or_keep(Instant::now() + patience)?
            {
                None => return Ok(None),
                late => late,
            }
        };
        let requests: Vec<Result<Request>> = endpoints.map(Endpoint::start_flush).collect();
        for request in requests {
            request?.wait()?;
        }
        Ok(pending)
    }

    fn start_flush(&self) -> Result<Request> {
        let param = ucp_request_param_t::default();
        // SAFETY: the worker is live; param (no fields) is valid for the call.
        let ptr = unsafe { ucp_worker_flush_nbx(self.handle.raw, &param) };
        self.handle.request("ucp_worker_flush_nbx", ptr)
    }

    /// Connects to the peer worker whose [`Worker::address`] is `peer`.
    ///
    /// # Safety
    /// `peer` must be the bytes of a worker address produced by UCX (UCX parses them without
    /// knowing their length).
    #[cfg(test)]
    pub unsafe fn connect(&self, peer: &[u8]) -> Result<Endpoint> {
        let params = ucp_ep_params_t {
            field_mask: UCP_EP_PARAM_FIELD_REMOTE_ADDRESS as u64,
            address: peer.as_ptr().cast(),
            ..Default::default()
        };
        // SAFETY: the caller's contract (`# Safety` above): `params.address` is `peer`, the bytes
        // of a UCX worker address, borrowed for this call.
        unsafe { self.create_endpoint(&params, NO_PE) }
    }

    /// Connects to PE `pe` (its worker's address `peer`). To a PE of another node (`other_node`,
    /// as the runtime groups PEs: every PE its own node under `SHMEM_TRANSPORT=ucx`) a second
    /// endpoint is made beside it, the watch: in UCX's peer-failure mode, with an error callback,
    /// and never given an operation. When the connection to the peer breaks (the peer ended, or
    /// its host did) UCX calls the watch's callback at a progress of this worker, which records
    /// the PE ([`lost_peers`]); a request of this worker still in flight then stops waiting
    /// ([`Request::wait`]), and the runtime's waits ask [`lost_peers`] too.
    ///
    /// The endpoint that carries the operations is made without the mode, for every release:
    /// UCX 1.22 in that mode finds no protocol for an atomic ("cannot find remote protocol ...
    /// amo_fetch") and cancels it, and the mode leaves UCX no shared-memory transport (1.13's
    /// have no peer-failure handling, nor has `self`). A PE of this node gets no watch: the
    /// launcher and the runtime's own checks see a PE of the node die. Where no transport with
    /// the mode reaches a peer (`UCX_TLS=sm,self`, or UCX says so once), there is no watch.
    ///
    /// # Safety
    /// `peer` is the bytes of a peer's [`Worker::address`].
    pub unsafe fn connect_to_pe(
        &self,
        peer: &[u8],
        pe: usize,
        other_node: bool,
    ) -> Result<Endpoint> {
        let plain = ucp_ep_params_t {
            field_mask: UCP_EP_PARAM_FIELD_REMOTE_ADDRESS as u64,
            address: peer.as_ptr().cast(),
            ..Default::default()
        };
        // SAFETY: the caller's contract: `plain.address` is `peer`, a peer's `Worker::address`,
        // borrowed for this call.
        let mut endpoint = unsafe { self.create_endpoint(&plain, pe) }?;
        use std::sync::atomic::Ordering::Relaxed;
        if !other_node || !PEER_MODE.load(Relaxed) || !tls_handle_peer_failure() {
            return Ok(endpoint);
        }
        let watched = ucp_ep_params_t {
            field_mask: (UCP_EP_PARAM_FIELD_REMOTE_ADDRESS
                | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE
                | UCP_EP_PARAM_FIELD_ERR_HANDLER) as u64,
            address: peer.as_ptr().cast(),
            err_mode: UCP_ERR_HANDLING_MODE_PEER,
            err_handler: ucp_err_handler_t {
                cb: Some(on_endpoint_error),
                // The PE's number, not a pointer: nothing to keep alive.
                arg: pe as *mut c_void,
            },
            ..Default::default()
        };
        // SAFETY: the caller's contract: `watched.address` is `peer`, a peer's `Worker::address`,
        // borrowed for this call; the error handler's `arg` is a number, not a pointer.
        match unsafe { self.create_endpoint(&watched, pe) } {
            Ok(watch) => endpoint.watch = Some(watch.handle),
            // UCX printed why (no transport with peer-failure handling): once is enough.
            Err(e) if e.status == UCS_ERR_UNREACHABLE => PEER_MODE.store(false, Relaxed),
            Err(e) => return Err(e),
        }
        Ok(endpoint)
    }

    /// # Safety
    /// As [`Worker::connect_to_pe`], for the address `params` points at.
    /// `pe`: the PE it reaches (`NO_PE`: none).
    unsafe fn create_endpoint(&self, params: &ucp_ep_params_t, pe: usize) -> Result<Endpoint> {
        let mut raw = ptr::null_mut();
        // SAFETY: the worker is live; params point at a worker address (caller's contract) that
        // UCX copies during the call; raw is writable; an error callback is a static function.
        check("ucp_ep_create", unsafe {
            ucp_ep_create(self.handle.raw, params, &mut raw)
        })?;
        Ok(Endpoint {
            handle: Arc::new(EndpointHandle {
                raw,
                worker: self.handle.clone(),
                pe,
            }),
            watch: None,
        })
    }
}

/// The PEs whose endpoint UCX found failed (their connection broke: the peer ended, or its host
/// did), with the status, in the order found; `LOST_ANY` tells whether there is one without the
/// lock. Filled by [`on_endpoint_error`], for the watch of every endpoint made with
/// [`Worker::connect_to_pe`].
static LOST: std::sync::Mutex<Vec<(usize, ucs_status_t)>> = std::sync::Mutex::new(Vec::new());
static LOST_ANY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether watches are still made ([`Worker::connect_to_pe`]): cleared when UCX found no
/// transport with peer-failure handling to a peer.
static PEER_MODE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Whether `UCX_TLS` (UCX's own variable) leaves UCX a transport with peer-failure handling: unset,
/// `all`, a list of exclusions (`^...`), or one naming TCP or an InfiniBand transport. A list of
/// shared-memory transports alone (`sm,self`) has none, and an endpoint in that mode would fail
/// with UCX's error printed.
fn tls_handle_peer_failure() -> bool {
    let Some(tls) = std::env::var_os("UCX_TLS") else {
        return true;
    };
    let tls = tls.to_string_lossy().to_ascii_lowercase();
    tls.starts_with('^')
        || tls.split(',').any(|t| {
            let t = t.trim();
            t == "all"
                || t == "tcp"
                || t == "ib"
                || ["rc", "ud", "dc"].iter().any(|p| t.starts_with(p))
        })
}

/// UCX's endpoint error callback: records the PE (its number is the callback's argument).
unsafe extern "C" fn on_endpoint_error(arg: *mut c_void, _ep: ucp_ep_h, status: ucs_status_t) {
    let pe = arg as usize;
    let mut lost = LOST.lock().unwrap_or_else(|e| e.into_inner());
    if !lost.iter().any(|&(p, _)| p == pe) {
        lost.push((pe, status));
    }
    LOST_ANY.store(true, std::sync::atomic::Ordering::Release);
}

/// The error of the connection to `pe` if UCX found it broken (never for `NO_PE`).
#[inline]
fn lost_status(pe: usize) -> Option<ucs_status_t> {
    if pe == NO_PE || !LOST_ANY.load(std::sync::atomic::Ordering::Acquire) {
        return None;
    }
    let lost = LOST.lock().unwrap_or_else(|e| e.into_inner());
    lost.iter()
        .find(|&&(p, _)| p == pe)
        .map(|&(_, status)| status)
}

/// The PEs whose connection UCX found failed so far, with the error of each.
pub fn lost_peers() -> Vec<(usize, Error)> {
    if !LOST_ANY.load(std::sync::atomic::Ordering::Acquire) {
        return Vec::new();
    }
    let lost = LOST.lock().unwrap_or_else(|e| e.into_inner());
    lost.iter()
        .map(|&(pe, status)| {
            (
                pe,
                Error {
                    call: "endpoint error",
                    status,
                },
            )
        })
        .collect()
}

/// Forgets the failed connections of an earlier network (a new `shmem_init` connects afresh).
pub fn forget_lost_peers() {
    LOST.lock().unwrap_or_else(|e| e.into_inner()).clear();
    LOST_ANY.store(false, std::sync::atomic::Ordering::Release);
}

/// The owner of a `ucp_ep_h`.
pub(super) struct EndpointHandle {
    pub(super) raw: ucp_ep_h,
    pub(super) worker: Arc<WorkerHandle>,
    /// The PE it reaches (`NO_PE` for an endpoint of the tests, made from an address alone).
    pe: usize,
}

impl EndpointHandle {
    /// The request of an operation issued on this endpoint (`ptr`, as UCX returned it): its wait
    /// stops, failed, when the connection to the endpoint's PE is found broken.
    #[inline]
    pub(super) fn request(&self, call: &'static str, ptr: ucs_status_ptr_t) -> Result<Request> {
        self.worker.request_to(call, ptr, self.pe)
    }
}

// SAFETY: endpoint calls lock the endpoint's worker, which is in UCS_THREAD_MODE_MULTI.
unsafe impl Send for EndpointHandle {}
// SAFETY: endpoint calls through `&EndpointHandle` lock its worker (UCS_THREAD_MODE_MULTI),
// and `raw` and `worker` are not mutated after creation.
unsafe impl Sync for EndpointHandle {}

impl Drop for EndpointHandle {
    fn drop(&mut self) {
        // A flushing close: operations in flight complete, and the peer is told. It needs the peer
        // to progress (as every operation does); a failure cannot be reported from drop.
        let param = ucp_request_param_t::default();
        // SAFETY: the endpoint is live and closed once, here; its remote keys held an Arc of this
        // handle and are destroyed; the worker is live (our Arc).
        let ptr = unsafe { ucp_ep_close_nbx(self.raw, &param) };
        if let Ok(request) = self.worker.request("ucp_ep_close_nbx", ptr) {
            let _ = request.wait();
        }
    }
}

/// A connection from a worker to one peer worker.
pub struct Endpoint {
    pub(super) handle: Arc<EndpointHandle>,
    /// To a peer of another node, the second endpoint that tells when the connection to it
    /// breaks (see [`Worker::connect_to_pe`]); no remote key is ever unpacked on it.
    watch: Option<Arc<EndpointHandle>>,
}

impl Endpoint {
    /// Completes every operation issued on this endpoint, at the target too.
    #[cfg(test)]
    pub fn flush(&self) -> Result<()> {
        self.start_flush()?.wait()
    }

    /// Starts completing every operation issued on this endpoint so far, at the target too: done
    /// when the request is, whatever is issued on the endpoint meanwhile.
    pub fn start_flush(&self) -> Result<Request> {
        let param = ucp_request_param_t::default();
        // SAFETY: the endpoint is live; param (no fields) is valid for the call.
        let ptr = unsafe { ucp_ep_flush_nbx(self.handle.raw, &param) };
        self.handle.request("ucp_ep_flush_nbx", ptr)
    }

    /// Closes the endpoint, flushing what is in flight, and waits for the close until `deadline`
    /// at the latest (a peer that died or stopped progressing cannot hold its caller forever).
    /// Every remote key unpacked on the endpoint must be dropped first. After a timeout the close
    /// goes on in the background of the worker.
    pub fn close_by(self, deadline: Instant) -> Result<()> {
        let watched = self.watch.map_or(Ok(()), |watch| close_by(watch, deadline));
        close_by(self.handle, deadline).and(watched)
    }

    /// Gives the endpoint up without closing it: the destroy of its worker takes it down. For an
    /// endpoint whose peer no longer progresses its worker (past the last barrier of a finalize),
    /// where a flushing close could wait for the peer until its deadline. An endpoint with remote
    /// keys alive is left open for the life of the process.
    pub fn abandon(self) {
        for handle in std::iter::once(self.handle).chain(self.watch) {
            match into_raw(handle) {
                // The endpoint is never used again; ucp_worker_destroy releases it with the worker.
                Ok((_, worker)) => drop(worker),
                Err(shared) => std::mem::forget(shared),
            }
        }
    }
}

/// Closes the endpoint of `handle` as [`Endpoint::close_by`] says.
fn close_by(handle: Arc<EndpointHandle>, deadline: Instant) -> Result<()> {
    // The close below replaces the handle's own (unbounded) close in drop.
    let (raw, worker) = into_raw(handle).map_err(|_| Error {
        call: "ucp_ep_close_nbx (remote keys of the endpoint are alive)",
        status: UCS_ERR_BUSY,
    })?;
    let param = ucp_request_param_t::default();
    // SAFETY: the endpoint is live, has no remote keys left (sole owner) and is closed once,
    // here; the worker is live (our Arc).
    let ptr = unsafe { ucp_ep_close_nbx(raw, &param) };
    worker.request("ucp_ep_close_nbx", ptr)?.wait_by(deadline)
}

/// The raw endpoint and its worker, taken out of the handle so that its close in drop does not
/// run; the handle back if remote keys of the endpoint still hold it.
fn into_raw(
    handle: Arc<EndpointHandle>,
) -> std::result::Result<(ucp_ep_h, Arc<WorkerHandle>), Arc<EndpointHandle>> {
    let handle = ManuallyDrop::new(Arc::try_unwrap(handle)?);
    // SAFETY: the handle is never dropped, so its worker Arc is moved out exactly once.
    let worker = unsafe { ptr::read(&handle.worker) };
    Ok((handle.raw, worker))
}

/// A non-blocking operation in flight, or already complete. Dropping it does not cancel the
/// operation: it completes at the next flush of its worker or endpoint.
pub struct Request {
    /// NULL when the operation completed at once, else the UCX request.
    raw: *mut c_void,
    call: &'static str,
    /// The worker that progresses the request, while there is one (`raw` not NULL): a completed
    /// operation takes no reference (a reference is two locked instructions, as much as the rest
    /// of a put into a peer mapped here).
    worker: Option<Arc<WorkerHandle>>,
    /// The PE the operation is towards, `NO_PE` if none (a worker's flush, a receive).
    pe: usize,
}

/// No PE: of a request, one whose wait only its completion ends.
const NO_PE: usize = usize::MAX;

// SAFETY: a request is checked and freed under its worker's lock (UCS_THREAD_MODE_MULTI).
unsafe impl Send for Request {}

impl Request {
    /// An operation of `call` that completed when it was issued.
    #[inline]
    pub(super) const fn done(call: &'static str) -> Request {
        Request {
            raw: ptr::null_mut(),
            call,
            worker: None,
            pe: NO_PE,
        }
    }

    /// The worker of a request in flight (`raw` not NULL).
    fn worker(&self) -> &WorkerHandle {
        self.worker
            .as_deref()
            .expect("a request in flight keeps its worker")
    }

    /// Whether the operation has completed; its error if it failed.
    pub fn is_complete(&self) -> Result<bool> {
        if self.raw.is_null() {
            return Ok(true);
        }
        // SAFETY: raw is a live request (freed only by wait or drop, which consume self).
        match unsafe { ucp_request_check_status(self.raw) } {
            UCS_OK => Ok(true),
            UCS_INPROGRESS => Ok(false),
            status => Err(Error {
                call: self.call,
                status,
            }),
        }
    }

    /// Progresses the worker until the operation completes, or until the connection to its PE is
    /// found broken (the watch's callback, [`lost_peers`]): then the error is the watch's, and the
    /// request is left to UCX (no completion of it can come from a peer whose connection broke,
    /// and nothing of it is read again).
    #[inline]
    pub fn wait(self) -> Result<()> {
        if self.raw.is_null() {
            return Ok(());
        }
        self.wait_in_flight()
    }

    #[inline(never)]
    fn wait_in_flight(mut self) -> Result<()> {
        let raw = self.raw;
        let mut status = UCS_INPROGRESS;
        let mut lost = None;
        self.worker().progress_until(|| {
            // SAFETY: raw is a live request until freed below.
            status = unsafe { ucp_request_check_status(raw) };
            if status != UCS_INPROGRESS {
                return true;
            }
            lost = lost_status(self.pe);
            lost.is_some()
        });
        // SAFETY: a live request, freed once (drop sees NULL); one still in flight (its PE lost)
        // UCX releases when it ends.
        unsafe { ucp_request_free(raw) };
        self.raw = ptr::null_mut();
        match lost {
            Some(status) => Err(Error {
                call: "endpoint error",
                status,
            }),
            None => check(self.call, status),
        }
    }
}

impl Request {
    /// Progresses the worker until the operation completes or `deadline` passes; after the
    /// deadline the error is `UCS_ERR_TIMED_OUT` and the operation is left to complete (or fail)
    /// in the background.
    pub fn wait_by(self, deadline: Instant) -> Result<()> {
        match self.wait_or_keep(deadline)? {
            None => Ok(()),
            Some(late) => Err(Error {
                call: late.call,
                status: UCS_ERR_TIMED_OUT,
            }),
        }
    }

    /// Progresses the worker until the operation completes (`None`) or `deadline` passes: then
    /// the request, still in flight.
    pub fn wait_or_keep(mut self, deadline: Instant) -> Result<Option<Request>> {
        if self.raw.is_null() {
            return Ok(None);
        }
        let raw = self.raw;
        let mut status = UCS_INPROGRESS;
        let mut late = false;
        self.worker().progress_until(|| {
            // SAFETY: raw is a live request until freed below (or by drop).
            status = unsafe { ucp_request_check_status(raw) };
            if status != UCS_INPROGRESS {
                return true;
            }
            late = Instant::now() >= deadline;
            late
        });
        if late {
            return Ok(Some(self));
        }
        // SAFETY: the request is complete and freed once; drop sees NULL.
        unsafe { ucp_request_free(raw) };
        self.raw = ptr::null_mut();
        check(self.call, status).map(|()| None)
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: a live request, freed once; UCX releases it when the operation completes.
            unsafe { ucp_request_free(self.raw) }
        }
    }
}
