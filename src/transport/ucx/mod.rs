//! The UCX route for PEs on other nodes: a safe layer over `ucx-sys` (the UCP API of a UCX loaded
//! at run time, on the route's first use: [`library`] says which). Every call returns [`Result`];
//! the raw handles never leave this module.
//!
//! The objects and what keeps what alive:
//!
//! - [`Context`]: one UCP context with the RMA, AMO32, AMO64 and WAKEUP features, shared by the
//!   workers of every thread (`mt_workers_shared`).
//! - [`Worker`]: a UCP worker in `UCS_THREAD_MODE_MULTI`, so the PE's threads and a
//!   [`ProgressThread`] may use it at once (a [`Server`] keeps them from taking turns on it). Its [`Worker::address`] is what a peer needs to connect.
//! - [`Endpoint`]: a connection from a worker to a peer's worker address.
//! - [`MemoryRegion`]: an existing address range registered with `ucp_mem_map`, or memory UCX
//!   allocated at a given address (which its shared-memory transports reach directly); its packed
//!   remote key ([`MemoryRegion::pack_rkey`]) is what a peer needs to reach it.
//! - [`RemoteKey`]: a peer's packed key unpacked for one endpoint, with the peer's base address and
//!   length of the region (and where it is mapped here, if UCX maps it): every remote access is
//!   given as an offset into it and is range-checked.
//!   put/get/atomics are methods of the remote key ([`rma`]).
//! - [`Request`]: a non-blocking operation in flight.
//! - [`Combiner`]: a lane's small non-blocking puts to consecutive addresses, sent as one put
//!   ([`combine`]).
//! - [`Network`]: all of the above for one PE: the target worker peers connect to and the progress
//!   thread that serves it, a [`Lane`] (worker, endpoints and remote keys of every PE) per shmem
//!   context, and the [`signals`] worker (on a context of its own, for tagged messages) that
//!   carries the barriers' signals to peers not mapped here; built from the cards
//!   ([`Local::card`]) the PEs exchange at init.
//!
//! Invariants (enforced by ownership: each object holds an `Arc` of its parent's handle):
//! a worker does not outlive its context; an endpoint does not outlive its worker; a remote key does
//! not outlive its endpoint (UCX requires `ucp_rkey_destroy` before the endpoint is closed); a
//! memory region does not outlive its context; a request does not outlive its worker. Handles are
//! released in reverse order when the last owner drops.
//!
//! What stays with the caller (hence `unsafe` at those entry points): a mapped range stays valid for
//! as long as any peer may access it, and is accessed locally only as shared memory (raw pointers or
//! atomics, never through a Rust reference held across a peer's access); worker addresses and packed
//! keys given to [`Worker::connect_to_pe`] and [`Endpoint::unpack_rkey`] are what the peer's
//! [`Worker::address`] and [`MemoryRegion::pack_rkey`] produced (UCX parses them without a length);
//! the buffers of a non-blocking operation stay valid until it completes (at the latest at the next
//! flush of its worker or endpoint).
//!
//! Completion: a blocking put returns when the source may be reused (local completion); the data is
//! at the target after a flush ([`Worker::flush_within`], [`Endpoint::start_flush`]: `shmem_quiet`). A get or a
//! fetching atomic returns with the value. Transports that emulate RMA with active messages (TCP,
//! shared memory on memory UCX did not allocate) need the target's worker progressed: the target's
//! threads do it while they wait in the library, its [`ProgressThread`] while they do not.

mod about;
pub mod combine;
pub mod context;
pub(crate) mod library;
pub mod network;
pub mod progress;
mod remote;
pub mod rma;
pub mod signals;
pub mod worker;

pub(crate) use about::about;
pub use combine::Combiner;
pub use context::{Context, MemoryRegion};
pub use network::{Lane, Local, Network};
pub use progress::{ProgressThread, Served, Server};
pub use rma::RemoteKey;
pub use worker::{Armed, Endpoint, Request, Worker};

use std::ffi::CStr;
use std::fmt;
use ucx_sys::{
    UCS_ERR_CONNECTION_RESET, UCS_ERR_ENDPOINT_TIMEOUT, UCS_ERR_NOT_CONNECTED, UCS_ERR_REJECTED,
    UCS_ERR_UNREACHABLE, UCS_OK, ucs_status_string, ucs_status_t,
};

/// A failed UCX call: which call, and the UCX status it returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    /// The UCP call (or the check of this layer) that failed.
    pub call: &'static str,
    /// The UCX status (`UCS_ERR_*`).
    pub status: ucs_status_t,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if ucx_sys::loaded().is_none() {
            // Only a failed load of UCX itself, or a check of this layer before any use.
            return write!(
                f,
                "{}: UCX is not loaded (status {})",
                self.call, self.status
            );
        }
        // SAFETY: UCX is loaded; ucs_status_string returns a static NUL-terminated string for any
        // status value.
        let text = unsafe { CStr::from_ptr(ucs_status_string(self.status)) };
        write!(f, "{}: {}", self.call, text.to_string_lossy())?;
        if self.peer_lost() {
            // Most often the peer has died and this PE saw it before the launcher did: the
            // launcher's report of that death follows.
            f.write_str(" (the connection to that PE failed: it may have ended)")?;
        }
        Ok(())
    }
}

impl Error {
    /// Whether the status says the connection to the peer failed, rather than this PE's call.
    fn peer_lost(&self) -> bool {
        matches!(
            self.status,
            UCS_ERR_ENDPOINT_TIMEOUT
                | UCS_ERR_CONNECTION_RESET
                | UCS_ERR_UNREACHABLE
                | UCS_ERR_NOT_CONNECTED
                | UCS_ERR_REJECTED
        )
    }
}

impl std::error::Error for Error {}

impl From<Error> for crate::transport::Error {
    fn from(e: Error) -> Self {
        crate::transport::Error::new(format!("UCX: {e}"))
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// `Ok(())` for `UCS_OK`, the error otherwise.
#[inline]
fn check(call: &'static str, status: ucs_status_t) -> Result<()> {
    if status == UCS_OK {
        Ok(())
    } else {
        Err(failed(call, status))
    }
}

/// The error of a failed UCX call, logged (`SHMEM_LOG=ucx=warn`); out of line, off the fast path.
#[cold]
#[inline(never)]
fn failed(call: &'static str, status: ucs_status_t) -> Error {
    let e = Error { call, status };
    tracing::warn!(target: "rshmem::ucx", "{e}");
    e
}

#[cfg(test)]
mod tests;
