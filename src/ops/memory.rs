//! Symmetric heap management (OpenSHMEM 1.6 §9.3).
//!
//! The routines are collective: every PE calls them in the same order with the same arguments, the
//! deterministic allocator then hands every PE the same offset, and the closing barrier makes the
//! block usable everywhere on return. Each call records what it asked for in the PE's control block;
//! after the barrier each PE compares its record with its neighbour's, so a mismatch is reported
//! (naming both PEs) instead of silently corrupting memory.

use crate::collectives::barrier;
use crate::fatal;
use crate::runtime::heap::MIN_ALIGN;
use crate::runtime::world::{self, Seg, World};
use crate::transport::shm;
use std::ffi::{c_long, c_void};
use std::sync::atomic::Ordering;

/// The operation codes of the agreement record.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Alloc = 1,
    Free = 2,
    Realloc = 3,
}

impl Op {
    fn name(code: u64) -> &'static str {
        match code {
            1 => "an allocation",
            2 => "shmem_free",
            3 => "shmem_realloc",
            _ => "nothing",
        }
    }
}

/// Records this PE's request, waits for every PE, and checks that the next PE asked the same.
fn agree(w: &World, call: &'static str, op: Op, a: u64, b: u64) {
    let seq = w.alloc_seq.fetch_add(1, Ordering::Relaxed) + 1;
    let slot = &w.control(w.me).alloc[(seq % 2) as usize];
    slot[1].store(op as u64, Ordering::Relaxed);
    slot[2].store(a, Ordering::Relaxed);
    slot[3].store(b, Ordering::Relaxed);
    slot[0].store(seq, Ordering::Release);
    barrier::world(w);
    if w.npes == 1 {
        return;
    }
    let next = (w.me + 1) % w.npes;
    let [their_seq, got @ ..] =
        w.control_load::<4>(call, next, |c| &c.alloc[(seq % 2) as usize][0]);
    if their_seq != seq || got != [op as u64, a, b] {
        fatal!(
            call,
            "collective allocation mismatch: this PE made {} ({a}, {b}) as its call #{seq}, PE {next} made {} ({}, {}) as #{their_seq}; every PE must make the same allocation calls with the same arguments",
            Op::name(op as u64),
            Op::name(got[0]),
            got[1],
            got[2]
        );
    }
}

fn heap_base(w: &World) -> usize {
    w.segments[Seg::Heap as usize].base
}

/// The heap offset of a block pointer, or the error.
fn offset_of(w: &World, call: &'static str, ptr: *mut c_void) -> usize {
    match w.locate(ptr as usize, 1) {
        Some((Seg::Heap, off))
            if w.heap
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .size_of(off)
                .is_some() =>
        {
            off
        }
        _ => fatal!(
            call,
            "ptr = {ptr:p} is not a block of the symmetric heap (from shmem_malloc and friends)"
        ),
    }
}

fn exhausted(w: &World, call: &'static str, size: usize) {
    if w.config.debug {
        eprintln!(
            "[PE {}] {call}: symmetric heap exhausted: {size} bytes requested; SHMEM_SYMMETRIC_SIZE = {} bytes",
            w.me, w.config.symmetric_size
        );
    }
}

fn allocate(call: &'static str, size: usize, align: usize) -> *mut c_void {
    let w = world::get(call);
    if size == 0 {
        return std::ptr::null_mut();
    }
    let off = w
        .heap
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alloc(size, align);
    agree(w, call, Op::Alloc, size as u64, align as u64);
    match off {
        Some(off) => (heap_base(w) + off) as *mut c_void,
        None => {
            exhausted(w, call, size);
            std::ptr::null_mut()
        }
    }
}

/// `shmem_malloc`, `shmalloc`.
pub fn malloc(call: &'static str, size: usize) -> *mut c_void {
    allocate(call, size, MIN_ALIGN)
}

/// `shmem_malloc_with_hints`: the hints describe use, not placement; every block suits every use
/// on this route.
pub fn malloc_with_hints(call: &'static str, size: usize, _hints: c_long) -> *mut c_void {
    allocate(call, size, MIN_ALIGN)
}

/// `shmem_calloc`: `count` zeroed elements of `size` bytes.
pub fn calloc(call: &'static str, count: usize, size: usize) -> *mut c_void {
    let w = world::get(call);
    let Some(total) = count.checked_mul(size) else {
        fatal!(call, "count = {count} times size = {size} overflows")
    };
    if total == 0 {
        return std::ptr::null_mut();
    }
    let off = w
        .heap
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alloc(total, MIN_ALIGN);
    if let Some(off) = off {
        // SAFETY: the block [off, off + total) was just allocated in our heap mapping.
        unsafe { shm::zero((heap_base(w) + off) as *mut u8, total) };
    }
    agree(w, call, Op::Alloc, total as u64, MIN_ALIGN as u64);
    match off {
        Some(off) => (heap_base(w) + off) as *mut c_void,
        None => {
            exhausted(w, call, total);
            std::ptr::null_mut()
        }
    }
}

/// `shmem_align`, `shmemalign`: `alignment` must be a power of two.
pub fn align(call: &'static str, alignment: usize, size: usize) -> *mut c_void {
    let _ = world::get(call);
    if !alignment.is_power_of_two() {
        fatal!(call, "alignment = {alignment} is not a power of two");
    }
    allocate(call, size, alignment)
}

/// `shmem_free`, `shfree`: NULL does nothing.
pub fn free(call: &'static str, ptr: *mut c_void) {
    let w = world::get(call);
    if ptr.is_null() {
        return;
    }
    let off = offset_of(w, call, ptr);
    // Every PE must be done with the block before anyone can reuse it.
    agree(w, call, Op::Free, off as u64, 0);
    w.heap.lock().unwrap_or_else(|e| e.into_inner()).free(off);
}

/// `shmem_realloc`, `shrealloc`: keeps the first `min(old, new)` bytes; on failure returns NULL
/// and leaves the block as it was.
pub fn realloc(call: &'static str, ptr: *mut c_void, size: usize) -> *mut c_void {
    let w = world::get(call);
    if ptr.is_null() {
        return malloc(call, size);
    }
    if size == 0 {
        free(call, ptr);
        return std::ptr::null_mut();
    }
    let off = offset_of(w, call, ptr);
    agree(w, call, Op::Realloc, off as u64, size as u64);
    let moved = {
        let mut heap = w.heap.lock().unwrap_or_else(|e| e.into_inner());
        let old = heap.size_of(off).unwrap_or(0);
        if heap.resize_in_place(off, size) {
            Some(off)
        } else if let Some(new) = heap.alloc(size, MIN_ALIGN) {
            // SAFETY: both blocks lie in our heap mapping and do not overlap (both allocated).
            unsafe {
                shm::copy(
                    (heap_base(w) + new) as *mut u8,
                    (heap_base(w) + off) as *const u8,
                    old.min(size),
                )
            };
            heap.free(off);
            Some(new)
        } else {
            None
        }
    };
    barrier::world(w);
    match moved {
        Some(new) => (heap_base(w) + new) as *mut c_void,
        None => {
            exhausted(w, call, size);
            std::ptr::null_mut()
        }
    }
}
