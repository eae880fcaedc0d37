//! The shared-memory route: POSIX shared-memory segments and the load/store primitives on them.
//!
//! Invariants: a [`Segment`] is mapped for the whole life of the process once created (symmetric
//! addresses handed to the user stay valid, also across `shmem_finalize`/`shmem_init`); the data
//! movers here trust their callers to have range-checked both sides (the runtime's address
//! translation does that) and do no checking of their own.

pub mod control;
pub mod data_segment;
pub mod fork;
pub mod loader;
pub mod memory;
pub mod network;
pub mod process;
pub mod published;
pub mod segment;

pub use memory::{Dst, Mapping, Plain, Src};
pub use segment::Segment;

use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering, fence};

/// Makes every earlier store of this PE visible before any later one (`shmem_fence`, and
/// `shmem_quiet` on this route). A full fence: `memcpy` may use non-temporal stores, which a
/// release fence would not order on x86.
#[inline(always)]
pub fn order() {
    fence(Ordering::SeqCst);
}

/// Makes every earlier store of this PE visible before any later store, non-temporal ones included,
/// without waiting for them as [`order`] does: before the store of a flag that says the data
/// written before it is there. On x86 an `sfence` (ordinary stores are ordered among themselves
/// already; `memcpy`'s non-temporal ones are not), elsewhere a release fence.
#[inline(always)]
pub fn order_stores() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no operands and SSE is part of x86_64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
    #[cfg(not(target_arch = "x86_64"))]
    fence(Ordering::Release);
}

/// A word the CPU updates atomically in place: `u16` (point-to-point waits on `short` only), `u32`
/// or `u64`. The atomic memory operations act on
/// a peer's mapped copy of a symmetric word through these; every operation is sequentially
/// consistent (on x86 a locked instruction, on aarch64 an LSE atomic or an exclusive pair).
pub trait Word: Copy + Eq + sealed::Sealed {
    /// Loads the word.
    ///
    /// # Safety
    /// `p` must be valid for reads and writes and naturally aligned for `Self`.
    unsafe fn load(p: *mut Self) -> Self;
    /// Loads the word with acquire ordering: what the writer stored before its release is visible
    /// after it (the load a wait spins on).
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn load_acquire(p: *mut Self) -> Self;
    /// Stores `v`.
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn store(p: *mut Self, v: Self);
    /// Stores `v`, returns the old value.
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn swap(p: *mut Self, v: Self) -> Self;
    /// Stores `v` if the word equals `cond`; returns the old value either way.
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn compare_swap(p: *mut Self, cond: Self, v: Self) -> Self;
    /// Adds `v` (wrapping), returns the old value.
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn fetch_add(p: *mut Self, v: Self) -> Self;
    /// Bitwise AND with `v`, returns the old value.
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn fetch_and(p: *mut Self, v: Self) -> Self;
    /// Bitwise OR with `v`, returns the old value.
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn fetch_or(p: *mut Self, v: Self) -> Self;
    /// Bitwise XOR with `v`, returns the old value.
    ///
    /// # Safety
    /// As [`Word::load`].
    unsafe fn fetch_xor(p: *mut Self, v: Self) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// Implements [`Word`] for an unsigned integer with its `std` atomic type.
macro_rules! word {
    ($t:ty, $atomic:ty) => {
        impl Word for $t {
            #[inline(always)]
            unsafe fn load(p: *mut Self) -> Self {
                // SAFETY: the caller guarantees a valid, aligned word that is only accessed
                // atomically while the operation runs (the OpenSHMEM atomicity guarantee).
                unsafe { <$atomic>::from_ptr(p) }.load(SeqCst)
            }
            #[inline(always)]
            unsafe fn load_acquire(p: *mut Self) -> Self {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                unsafe { <$atomic>::from_ptr(p) }.load(Ordering::Acquire)
            }
            #[inline(always)]
            unsafe fn store(p: *mut Self, v: Self) {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                unsafe { <$atomic>::from_ptr(p) }.store(v, SeqCst)
            }
            #[inline(always)]
            unsafe fn swap(p: *mut Self, v: Self) -> Self {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                unsafe { <$atomic>::from_ptr(p) }.swap(v, SeqCst)
            }
            #[inline(always)]
            unsafe fn compare_swap(p: *mut Self, cond: Self, v: Self) -> Self {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                match unsafe { <$atomic>::from_ptr(p) }.compare_exchange(cond, v, SeqCst, SeqCst) {
                    Ok(old) | Err(old) => old,
                }
            }
            #[inline(always)]
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                unsafe { <$atomic>::from_ptr(p) }.fetch_add(v, SeqCst)
            }
            #[inline(always)]
            unsafe fn fetch_and(p: *mut Self, v: Self) -> Self {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                unsafe { <$atomic>::from_ptr(p) }.fetch_and(v, SeqCst)
            }
            #[inline(always)]
            unsafe fn fetch_or(p: *mut Self, v: Self) -> Self {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                unsafe { <$atomic>::from_ptr(p) }.fetch_or(v, SeqCst)
            }
            #[inline(always)]
            unsafe fn fetch_xor(p: *mut Self, v: Self) -> Self {
                // SAFETY: this method's contract: `p` is a valid, aligned word, accessed only
                // atomically while this runs.
                unsafe { <$atomic>::from_ptr(p) }.fetch_xor(v, SeqCst)
            }
        }
    };
}
word!(u16, AtomicU16);
word!(u32, AtomicU32);
word!(u64, AtomicU64);
