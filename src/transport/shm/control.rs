//! The control block at the start of every PE's heap segment: the library's own symmetric words
//! (barrier flags, the allocation agreement record). Peers reach it through their mapping of the
//! segment like any symmetric object.

use std::sync::atomic::AtomicU64;

/// Bytes reserved for the control block at the start of the heap segment.
pub const CONTROL_SIZE: usize = 64 * 1024;

/// The most dissemination rounds a barrier needs (2^64 PEs).
pub const BARRIER_ROUNDS: usize = 64;

/// A word alone on its cache line, so that writers of neighbouring words do not interfere.
#[repr(C, align(64))]
pub struct Padded(pub AtomicU64);

#[repr(C)]
pub struct Control {
    /// `barrier[r]`: the last barrier epoch in which this PE was signalled in round `r`.
    pub barrier: [Padded; BARRIER_ROUNDS],
    /// What the last two collective allocations asked for, `[sequence, operation, size, alignment]`,
    /// indexed by sequence parity so that a neighbour still reading the previous one is not raced.
    pub alloc: [[AtomicU64; 4]; 2],
}

const _: () = assert!(std::mem::size_of::<Control>() <= CONTROL_SIZE);

/// The control block of the heap segment mapped at `base`.
///
/// # Safety
/// `base` must be the base of a live mapping of a heap segment (at least `CONTROL_SIZE` bytes,
/// zero-filled at creation), which the runtime keeps mapped for the life of the process.
#[inline(always)]
pub unsafe fn at(base: usize) -> &'static Control {
    // SAFETY: guaranteed by the caller; Control is all atomics, valid for any bit pattern, and
    // base is page aligned.
    unsafe { &*(base as *const Control) }
}
