//! The shared-memory route: POSIX shared-memory segments and the load/store primitives on them.
//!
//! Invariants: a [`Segment`] is mapped for the whole life of the process once created (symmetric
//! addresses handed to the user stay valid, also across `shmem_finalize`/`shmem_init`); the data
//! movers here trust their callers to have range-checked both sides (the runtime's address
//! translation does that) and do no checking of their own.

pub mod control;
pub mod data_segment;
pub mod segment;

pub use segment::Segment;

use std::sync::atomic::{Ordering, fence};

/// Copies `len` bytes; the ranges may belong to different processes' views of the same memory and
/// may overlap (a put from a PE to itself).
///
/// # Safety
/// `src..src+len` must be readable and `dst..dst+len` writable.
#[inline(always)]
pub unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: the caller guarantees both ranges; `copy` (memmove) allows overlap.
    unsafe { std::ptr::copy(src, dst, len) }
}

/// Zeroes `len` bytes.
///
/// # Safety
/// `dst..dst+len` must be writable.
#[inline]
pub unsafe fn zero(dst: *mut u8, len: usize) {
    // SAFETY: guaranteed by the caller.
    unsafe { std::ptr::write_bytes(dst, 0, len) }
}

/// Stores one value (`shmem_p`).
///
/// # Safety
/// `dst` must be valid and aligned for `T`.
#[inline(always)]
pub unsafe fn store<T: Copy>(dst: *mut T, value: T) {
    // SAFETY: guaranteed by the caller. Volatile: the store is observed by another process.
    unsafe { std::ptr::write_volatile(dst, value) }
}

/// Loads one value (`shmem_g`).
///
/// # Safety
/// `src` must be valid and aligned for `T`.
#[inline(always)]
pub unsafe fn load<T: Copy>(src: *const T) -> T {
    // SAFETY: guaranteed by the caller. Volatile: the value is written by another process.
    unsafe { std::ptr::read_volatile(src) }
}

/// Copies `count` elements of `T` between strided arrays; strides are in elements and may be
/// negative or zero.
///
/// # Safety
/// Every element touched (`dst + i*dst_stride`, `src + i*src_stride`, `i < count`) must be valid.
#[inline]
pub unsafe fn copy_strided<T: Copy>(
    dst: *mut T,
    dst_stride: isize,
    src: *const T,
    src_stride: isize,
    count: usize,
) {
    for i in 0..count as isize {
        // SAFETY: the caller guarantees every element in the strided ranges.
        unsafe {
            let value = std::ptr::read_unaligned(src.offset(i * src_stride));
            std::ptr::write_unaligned(dst.offset(i * dst_stride), value);
        }
    }
}

/// Makes every earlier store of this PE visible before any later one (`shmem_fence`, and
/// `shmem_quiet` on this route). A full fence: `memcpy` may use non-temporal stores, which a
/// release fence would not order on x86.
#[inline(always)]
pub fn order() {
    fence(Ordering::SeqCst);
}
