//! Control signals as UCX active messages: "raise this control word to at least `value`" or "add
//! `value` to it", sent to a PE's target worker and applied there by [`on_signal`] when that
//! worker is progressed (by the PE's waiting thread or its progress thread).
//!
//! Why not a put: where UCX cannot reach the target's memory directly (TCP; shared memory it did
//! not allocate) it emulates a put or an atomic with an active message that the target answers
//! with a completion message, so that a later flush can wait for it. A signal needs no completion,
//! so it is one message instead of two: a 2-PE barrier over TCP sent four per barrier, now two.
//!
//! Order: a signal is not ordered after the puts and atomics issued before it (UCX orders
//! operations of different kinds only per transport lane). A signal that must follow data goes
//! as a put or an atomic behind a fence instead (`Network::control_store_ordered`). Between
//! signals: a store raises the word (`fetch_max`: the control words it writes are epochs, which
//! only grow), so two stores to one word that arrive out of order leave the larger; adds commute.
//!
//! Invariants: the handler is set on the target worker before its address is published
//! (`Local::new`), with a [`Target`] that lives for the rest of the process; a signal whose
//! header is not one this module sends, or whose offset is not an aligned word of the target
//! range, is reported on stderr and dropped (only a defect of this library could send one).

use super::worker::{Endpoint, Worker};
use super::{Result, check};
use std::mem::size_of;
use std::os::raw::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use ucx_sys::*;

/// The active-message id of the control signals.
const SIGNAL: u32 = 1;

/// What a signal does to its word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Raise the word to the value (`fetch_max`).
    Raise = 1,
    /// Add the value to the word.
    Add = 2,
}

/// The header of a signal message (there is no payload).
#[repr(C)]
#[derive(Clone, Copy)]
struct Header {
    op: u64,
    /// Offset of the word in the target's range.
    offset: u64,
    value: u64,
    /// The sending PE, for the report of a bad signal.
    from: u64,
}

/// The range a worker's signals land in (the PE's heap, whose control block holds the words).
pub struct Target {
    base: usize,
    len: usize,
    /// This PE, once known (for the report of a bad signal).
    me: AtomicUsize,
}

impl Target {
    /// The words of `base..base+len`, kept for the rest of the process (one per network: a few
    /// bytes, which the handler of a destroyed worker may still name).
    ///
    /// # Safety
    /// The range must be mapped read-write for the life of the process, and its words accessed
    /// only as atomics wherever a signal may land.
    pub unsafe fn leak(base: usize, len: usize) -> &'static Target {
        Box::leak(Box::new(Target {
            base,
            len,
            me: AtomicUsize::new(usize::MAX),
        }))
    }

    /// Records this PE's number for reports.
    pub fn set_me(&self, me: usize) {
        self.me.store(me, Ordering::Relaxed);
    }

    /// The word at `offset`, if it is an aligned word of the range.
    fn word(&self, offset: u64) -> Option<&AtomicU64> {
        let offset = usize::try_from(offset).ok()?;
        if !offset.is_multiple_of(8) || offset.checked_add(8)? > self.len {
            return None;
        }
        // SAFETY: an aligned word inside the range, mapped read-write for the life of the process
        // and accessed as atomics (the contract of `leak`).
        Some(unsafe { AtomicU64::from_ptr((self.base + offset) as *mut u64) })
    }
}

impl Worker {
    /// Applies the signals that arrive at this worker to `target`'s words.
    pub fn receive_signals(&self, target: &'static Target) -> Result<()> {
        let param = ucp_am_handler_param_t {
            field_mask: (UCP_AM_HANDLER_PARAM_FIELD_ID
                | UCP_AM_HANDLER_PARAM_FIELD_CB
                | UCP_AM_HANDLER_PARAM_FIELD_ARG) as u64,
            id: SIGNAL,
            cb: Some(on_signal),
            arg: ptr::from_ref(target).cast_mut().cast(),
            ..Default::default()
        };
        // SAFETY: the worker is live; the argument is a `Target` that lives for the rest of the
        // process, which is what `on_signal` reads it as.
        check("ucp_worker_set_am_recv_handler", unsafe {
            ucp_worker_set_am_recv_handler(self.handle.raw, &param)
        })
    }
}

impl Endpoint {
    /// Sends a signal to the peer's word at `offset` of its target range; returns once the
    /// message has left (UCX usually sends so short a message at once). `from` is this PE.
    pub fn signal(&self, op: Op, offset: usize, value: u64, from: usize) -> Result<()> {
        let header = Header {
            op: op as u64,
            offset: offset as u64,
            value,
            from: from as u64,
        };
        let param = ucp_request_param_t {
            op_attr_mask: UCP_OP_ATTR_FIELD_FLAGS,
            flags: UCP_AM_SEND_FLAG_EAGER,
            ..Default::default()
        };
        // SAFETY: the endpoint is live; the header lives on this frame until the request has
        // completed (waited for below); no payload.
        let ptr = unsafe {
            ucp_am_send_nbx(
                self.handle.raw,
                SIGNAL,
                (&raw const header).cast(),
                size_of::<Header>(),
                ptr::null(),
                0,
                &param,
            )
        };
        self.handle.worker.request("ucp_am_send_nbx", ptr)?.wait()
    }
}

/// The handler of [`SIGNAL`] messages: applies one to its word.
unsafe extern "C" fn on_signal(
    arg: *mut c_void,
    header: *const c_void,
    header_length: usize,
    _data: *mut c_void,
    _length: usize,
    _param: *const ucp_am_recv_param_t,
) -> ucs_status_t {
    // SAFETY: `arg` is the `&'static Target` given to `receive_signals`.
    let target = unsafe { &*arg.cast::<Target>() };
    if header_length != size_of::<Header>() {
        bad_signal(target, None, "a header of another length");
        return UCS_OK;
    }
    // SAFETY: UCX hands `header_length` readable bytes, which may be unaligned.
    let h = unsafe { header.cast::<Header>().read_unaligned() };
    match (target.word(h.offset), h.op) {
        (Some(word), op) if op == Op::Raise as u64 => {
            word.fetch_max(h.value, Ordering::AcqRel);
        }
        (Some(word), op) if op == Op::Add as u64 => {
            word.fetch_add(h.value, Ordering::AcqRel);
        }
        (None, _) => bad_signal(target, Some(&h), "an offset outside the heap"),
        (Some(_), _) => bad_signal(target, Some(&h), "an unknown operation"),
    }
    UCS_OK
}

#[cold]
fn bad_signal(target: &Target, h: Option<&Header>, what: &str) {
    let me = target.me.load(Ordering::Relaxed);
    let me = if me == usize::MAX {
        "?".to_string()
    } else {
        me.to_string()
    };
    match h {
        Some(h) => eprintln!(
            "rshmem: PE {me}: a control signal from PE {} has {what} (operation {}, offset {:#x}); \
             it is dropped: this is a defect of rshmem",
            h.from, h.op, h.offset
        ),
        None => eprintln!(
            "rshmem: PE {me}: a control signal with {what} arrived; it is dropped: this is a \
             defect of rshmem"
        ),
    }
}
