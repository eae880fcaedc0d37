//! Symmetric heap management (OpenSHMEM 1.6 §9.3).
//!
//! The routines are collective: every PE calls them in the same order, the deterministic allocator
//! then hands every PE the same offset, and the closing barrier makes the block usable everywhere on
//! return. Each call records what it asked for in the PE's control block; after the barrier each PE
//! compares its record with its neighbour's, so a mismatch is reported (naming both PEs) instead of
//! silently corrupting memory.
//!
//! An allocation records its size, alignment and the offset it got: the offset is what must be
//! symmetric. A `shmem_free` records only that it is a free, not which block: PEs may free the
//! blocks of a set in different orders (Python's garbage collector frees symmetric arrays when
//! their last reference goes, which can differ between PEs), and since freeing coalesces into a
//! canonical free list, the heaps agree again once each PE has freed the same blocks. Were they
//! still apart at the next allocation, the offsets it got would differ and be reported there.
//!
//! The legacy Fortran routines `SHPALLOC`, `SHPDEALLC` and `SHPCLMOVE` are the same operations with
//! Cray-pointer arguments: the block's address travels in a pointer-sized integer, lengths count
//! 4-byte words, and errors are returned as negative codes unless `abort` is non-zero, in which
//! case they stop the job like every other error.

use crate::collectives::barrier;
use crate::fatal;
use crate::runtime::error::say;
use crate::runtime::heap::{MIN_ALIGN, Place};
use crate::runtime::personality::Program;
use crate::runtime::world::{self, Seg, World};
use crate::transport::shm::Dst;
use std::ffi::{c_int, c_long, c_void};
use std::sync::atomic::Ordering;

/// One PE's record of a collective heap call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Record {
    /// An allocation of `size` bytes aligned to `align` that got `offset` (`u64::MAX`: none).
    Alloc { size: u64, align: u64, offset: u64 },
    /// A `shmem_free` of some block.
    Free,
    /// A `shmem_realloc` of the block at `offset` to `size` bytes.
    Realloc { offset: u64, size: u64 },
}

impl Record {
    fn encode(self) -> [u64; 4] {
        match self {
            Record::Alloc {
                size,
                align,
                offset,
            } => [1, size, align, offset],
            Record::Free => [2, 0, 0, 0],
            Record::Realloc { offset, size } => [3, offset, size, 0],
        }
    }

    fn decode(r: [u64; 4]) -> Option<Record> {
        match r {
            [1, size, align, offset] => Some(Record::Alloc {
                size,
                align,
                offset,
            }),
            [2, ..] => Some(Record::Free),
            [3, offset, size, _] => Some(Record::Realloc { offset, size }),
            _ => None,
        }
    }

    fn describe(r: Option<Record>) -> String {
        match r {
            Some(Record::Alloc {
                size,
                align,
                offset: u64::MAX,
            }) => format!("an allocation of {size} bytes aligned to {align}, which failed"),
            Some(Record::Alloc {
                size,
                align,
                offset,
            }) => {
                format!("an allocation of {size} bytes aligned to {align} at heap offset {offset}")
            }
            Some(Record::Free) => "shmem_free".into(),
            Some(Record::Realloc { offset, size }) => {
                format!("shmem_realloc of the block at heap offset {offset} to {size} bytes")
            }
            None => "no heap call".into(),
        }
    }
}

/// Records this PE's call, waits for every PE, and checks that the next PE made the same one.
fn agree(w: &World, call: &'static str, rec: Record) {
    let seq = w.alloc_seq.fetch_add(1, Ordering::Relaxed) + 1;
    let slot = &w.control(w.me).alloc[(seq % 2) as usize];
    for (word, v) in slot[1..].iter().zip(rec.encode()) {
        word.store(v, Ordering::Relaxed);
    }
    slot[0].store(seq, Ordering::Release);
    barrier::world(w);
    if w.npes == 1 {
        return;
    }
    let next = (w.me + 1) % w.npes;
    let [their_seq, theirs @ ..] =
        w.control_load::<5>(call, next, |c| &c.alloc[(seq % 2) as usize][0]);
    let got = Record::decode(theirs);
    if their_seq != seq || got != Some(rec) {
        fatal!(
            call,
            "collective allocation mismatch: this PE made {} as its call #{seq}, PE {next} made {} as #{their_seq}; every PE must make the same allocation calls with the same arguments, and have freed the same blocks before allocating",
            Record::describe(Some(rec)),
            Record::describe(got)
        );
    }
}

fn heap_base(w: &World) -> usize {
    w.segments[Seg::Heap as usize].base()
}

/// This PE's heap segment, at the offsets the heap allocator hands out.
fn heap_segment(w: &World) -> Dst<'static> {
    w.segments[Seg::Heap as usize].own().all()
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
        say(&format!(
            "[PE {}] {call}: symmetric heap exhausted: {size} bytes requested; SHMEM_SYMMETRIC_SIZE = {} bytes",
            w.me, w.config.symmetric_size
        ));
    }
}

/// A request no heap can satisfy (the spec leaves it undefined or has it fail): every PE that
/// makes it takes part in the collective as for any allocation (the record shows the request, so
/// PEs that disagree are still reported), then returns NULL; under `SHMEM_DEBUG` it says why.
fn impossible(w: &World, call: &'static str, rec: Record, why: std::fmt::Arguments) -> *mut c_void {
    agree(w, call, rec);
    if w.config.debug {
        say(&format!("[PE {}] {call}: returns NULL: {why}", w.me));
    }
    std::ptr::null_mut()
}

fn alloc_record(size: usize, align: usize, off: Option<usize>) -> Record {
    Record::Alloc {
        size: size as u64,
        align: align as u64,
        offset: off.map_or(u64::MAX, |o| o as u64),
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
    agree(w, call, alloc_record(size, align, off));
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
pub fn malloc_with_hints(call: &'static str, size: usize, hints: Program<c_long>) -> *mut c_void {
    let _ = crate::runtime::personality::malloc_hints(call, hints);
    allocate(call, size, MIN_ALIGN)
}

/// `shmem_calloc`: `count` zeroed elements of `size` bytes.
pub fn calloc(call: &'static str, count: usize, size: usize) -> *mut c_void {
    let w = world::get(call);
    if count == 0 || size == 0 {
        return std::ptr::null_mut();
    }
    let Some(total) = count.checked_mul(size) else {
        let rec = alloc_record(usize::MAX, MIN_ALIGN, None);
        return impossible(
            w,
            call,
            rec,
            format_args!("count = {count} times size = {size} overflows size_t"),
        );
    };
    let off = w
        .heap
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alloc(total, MIN_ALIGN);
    if let Some(off) = off {
        heap_segment(w).part(off, total).zero();
    }
    agree(w, call, alloc_record(total, MIN_ALIGN, off));
    match off {
        Some(off) => (heap_base(w) + off) as *mut c_void,
        None => {
            exhausted(w, call, total);
            std::ptr::null_mut()
        }
    }
}

/// `shmem_align`, `shmemalign`: `alignment` must be a power of two (the spec also asks for a
/// multiple of `sizeof(void *)`; smaller powers of two are met by every block). Any other
/// alignment (0 included) returns NULL on every PE, collectively, as a failed allocation does.
pub fn align(call: &'static str, alignment: usize, size: usize) -> *mut c_void {
    let w = world::get(call);
    if size == 0 {
        return std::ptr::null_mut();
    }
    if !alignment.is_power_of_two() {
        let rec = alloc_record(size, alignment, None);
        return impossible(
            w,
            call,
            rec,
            format_args!("alignment = {alignment} is not a power of two"),
        );
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
    agree(w, call, Record::Free);
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
    agree(
        w,
        call,
        Record::Realloc {
            offset: off as u64,
            size: size as u64,
        },
    );
    let moved = {
        let mut heap = w.heap.lock().unwrap_or_else(|e| e.into_inner());
        let old = heap.size_of(off).unwrap_or(0);
        if heap.resize_in_place(off, size) {
            Some(off)
        } else if let Some(new) = heap.alloc(size, MIN_ALIGN) {
            // Both blocks are allocated: they do not overlap.
            let n = old.min(size);
            heap_segment(w)
                .part(new, n)
                .copy_from(heap_segment(w).src().part(off, n));
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

/// Bytes in one word of the Fortran heap routines' `length`.
pub const FORTRAN_WORD: usize = 4;

/// The error codes of the Fortran heap routines.
mod code {
    use std::ffi::c_int;
    /// `length` is not greater than 0.
    pub const BAD_LENGTH: c_int = -1;
    /// The symmetric heap has no room for the block.
    pub const NO_MEMORY: c_int = -2;
    /// `addr` is outside the symmetric heap.
    pub const OUTSIDE_HEAP: c_int = -3;
    /// `addr` is in the heap but in no allocated block (e.g. already deallocated).
    pub const ALREADY_FREE: c_int = -4;
    /// `addr` is inside an allocated block, not at its start.
    pub const NOT_BLOCK_START: c_int = -5;
}

/// What a Fortran heap error code means, for the message when `abort` is set.
fn code_text(code: c_int) -> &'static str {
    match code {
        code::BAD_LENGTH => "length is not greater than 0",
        code::NO_MEMORY => {
            "the symmetric heap has no room for the block (see SHMEM_SYMMETRIC_SIZE)"
        }
        code::OUTSIDE_HEAP => "addr is outside the symmetric heap",
        code::ALREADY_FREE => "addr is not an allocated block (already deallocated?)",
        _ => "addr is inside a block, not at its start",
    }
}

/// Reports a Fortran heap error: stops the job when `abort` is non-zero, else returns `code`.
fn fortran_error(
    call: &'static str,
    code: c_int,
    abort: c_int,
    addr: usize,
    length: c_int,
) -> c_int {
    if abort != 0 {
        fatal!(
            call,
            "{} (addr = {addr:#x}, length = {length}); error code {code}",
            code_text(code)
        );
    }
    code
}

/// Bytes of `length` words, or the error code.
fn fortran_bytes(length: c_int) -> Result<usize, c_int> {
    match usize::try_from(length) {
        Ok(n) if n > 0 => Ok(n * FORTRAN_WORD),
        _ => Err(code::BAD_LENGTH),
    }
}

/// Checks that `ptr` is the start of an allocated block of the symmetric heap.
fn fortran_block(w: &World, ptr: *mut c_void) -> Result<(), c_int> {
    let place = match w.locate(ptr as usize, 1) {
        Some((Seg::Heap, off)) => w.heap.lock().unwrap_or_else(|e| e.into_inner()).place(off),
        _ => Place::Outside,
    };
    match place {
        Place::Start => Ok(()),
        Place::Inside => Err(code::NOT_BLOCK_START),
        Place::Free => Err(code::ALREADY_FREE),
        Place::Outside => Err(code::OUTSIDE_HEAP),
    }
}

/// `SHPALLOC(addr, length, errcode, abort)`: allocates `length` 4-byte words on every PE (a
/// collective call, like `shmem_malloc`); returns the block's address to store in `addr` and 0
/// for `errcode`; on an error no address and its negative code, or stops the job if `abort` is
/// non-zero. (`ops::ffi::memory` reads and writes the program's variables.)
pub fn shpalloc(call: &'static str, length: c_int, abort: c_int) -> (Option<*mut c_void>, c_int) {
    let _ = world::get(call);
    let result = fortran_bytes(length).and_then(|bytes| {
        let p = malloc(call, bytes);
        if p.is_null() {
            Err(code::NO_MEMORY)
        } else {
            Ok(p)
        }
    });
    match result {
        Ok(p) => (Some(p), 0),
        Err(code) => (None, fortran_error(call, code, abort, 0, length)),
    }
}

/// `SHPDEALLC(addr, errcode, abort)`: returns the block at `ptr` (the value of `addr`) to the
/// symmetric heap on every PE (collective, like `shmem_free`); returns `errcode` as in
/// [`shpalloc`].
pub fn shpdeallc(call: &'static str, ptr: *mut c_void, abort: c_int) -> c_int {
    let w = world::get(call);
    match fortran_block(w, ptr) {
        Ok(()) => {
            free(call, ptr);
            0
        }
        Err(code) => fortran_error(call, code, abort, ptr as usize, 0),
    }
}

/// `SHPCLMOVE(addr, length, status, abort)`: resizes the block at `ptr` (the value of `addr`) to
/// `length` words on every PE (collective, like `shmem_realloc`), in place if it can (`status` 0),
/// else by moving it and its contents to a new block whose address is returned to store in `addr`
/// (`status` 1); on an error `status` gets the negative code as in [`shpalloc`] and the block is
/// left as it was. Returns the new address (if any) and `status`.
pub fn shpclmove(
    call: &'static str,
    ptr: *mut c_void,
    length: c_int,
    abort: c_int,
) -> (Option<*mut c_void>, c_int) {
    let w = world::get(call);
    let result = fortran_bytes(length)
        .and_then(|bytes| fortran_block(w, ptr).map(|()| bytes))
        .and_then(|bytes| {
            let new = realloc(call, ptr, bytes);
            if new.is_null() {
                Err(code::NO_MEMORY)
            } else {
                Ok(new)
            }
        });
    match result {
        Ok(new) => (Some(new), c_int::from(new != ptr)),
        Err(code) => (None, fortran_error(call, code, abort, ptr as usize, length)),
    }
}
