//! Other implementations' extensions that no spec routine models (their shells are
//! `src/api/foreign.rs`, from the extension table of `crates/apigen/src/foreign.rs`): Open MPI
//! OSHMEM's `shmemx_malloc_with_hint` and `shmemx_alltoall_global_nb`, Sandia OpenSHMEM's
//! `shmemx_wtime`, `shmemx_register_gettid`, `shmemx_heap_*`, counting puts (`shmemx_ct_*`) and
//! performance counters (`shmemx_pcntr_*`).
//!
//! Each either does what its library's documentation and code do, or, where rshmem keeps nothing
//! that could answer it truthfully (counting puts, performance counters, device heaps), stops the
//! job with a message naming the routine and why: never a no-op that would change an answer.
//! docs/ABI.md ("Foreign names") lists which is which.

use super::{amo, memory, order, rma};
use crate::fatal;
use crate::runtime::handle::{SHMEM_CTX_DEFAULT, shmem_ctx_t};
use crate::runtime::remote::Rmw;
use crate::runtime::world;
use crate::transport::shm::Src;
use std::ffi::{c_int, c_long, c_void};
use std::sync::OnceLock;
use std::time::Instant;

/// OSHMEM's `SHMEM_HINT_*` bits (its shmemx.h): none, low latency, high bandwidth, near the NIC,
/// device (GPU, NIC) memory, and the uses pSync, pWrk, atomics.
const OSHMEM_HINTS: c_long = 1 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 | 1 << 16 | 1 << 17 | 1 << 18;

/// `shmemx_malloc_with_hint` (OSHMEM): a collective `shmem_malloc` whose hint names where or for
/// what the block is used. Every block of rshmem's heap serves every use (there is one heap, in
/// host memory, reachable by every route), as OSHMEM's own default segment does; a value that is
/// not a combination of OSHMEM's hints is an error.
pub fn malloc_with_hint(call: &'static str, size: usize, hint: c_long) -> *mut c_void {
    if hint & !OSHMEM_HINTS != 0 {
        fatal!(
            call,
            "hint = {hint:#x} is not a combination of Open MPI OSHMEM's SHMEM_HINT_* values (mask {OSHMEM_HINTS:#x})"
        );
    }
    memory::malloc(call, size)
}

/// The bytes `shmemx_alltoall_global_nb`'s `source` holds: `size` for each PE, or the error if
/// that overflows.
pub fn alltoall_len(call: &'static str, size: usize) -> usize {
    let n = world::get(call).npes;
    match size.checked_mul(n) {
        Some(t) if t <= isize::MAX as usize => t,
        _ => fatal!(
            call,
            "size = {size} for {n} PEs overflows the address space"
        ),
    }
}

/// `shmemx_alltoall_global_nb` (OSHMEM): every PE sends the `size` bytes at `source + j * size`
/// to `dest + me * size` on each PE `j` (itself included), and after each block adds 1 to
/// `counter` on that PE, which therefore reaches `n_pes` once every block has arrived there. The
/// block goes before the add (a fence between them), so a PE that sees the count sees the data.
/// Starting with the next PE spreads the traffic as OSHMEM does. The blocks are delivered before
/// the call returns on this route (a stronger completion than OSHMEM's, which the program cannot
/// tell apart). `source` is the program's [`alltoall_len`] bytes (`ops::ffi::extension`); `dest`
/// and `counter` are symmetric addresses, checked here.
pub fn alltoall_global_nb(
    call: &'static str,
    dest: usize,
    source: Src<'_>,
    size: usize,
    counter: *mut c_long,
) {
    let w = world::get(call);
    let (me, n) = (w.me, w.npes);
    // The counter is checked (symmetric, aligned) before any block moves.
    let _ = amo::slot::<u64>(w, call, SHMEM_CTX_DEFAULT, "counter", counter as usize, me);
    for i in 1..=n {
        let pe = (me + i) % n;
        let to = dest.wrapping_add(me * size);
        rma::put(
            call,
            SHMEM_CTX_DEFAULT,
            to,
            source.part(pe * size, size),
            pe as c_int,
        );
        order::fence(call, SHMEM_CTX_DEFAULT);
        amo::slot::<u64>(w, call, SHMEM_CTX_DEFAULT, "counter", counter as usize, pe).rmw(
            call,
            Rmw::Add,
            1,
            false,
        );
    }
}

/// `shmemx_wtime` (SOS, and its Fortran `SHMEMX_WTIME`): seconds on a monotonic clock, as a
/// `double`, counted from the first call in this process. Only differences mean anything (SOS's
/// origin is the boot time). Needs no `shmem_init`, as in SOS.
pub fn wtime(_call: &'static str) -> f64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// `shmemx_register_gettid` (SOS): the function SOS would call to tell threads apart for its
/// per-thread contexts. rshmem tells them apart itself, so the function is not needed and not
/// called; no answer depends on it.
pub fn register_gettid(_call: &'static str, _gettid_fn: *mut c_void) {}

/// `shmemx_heap_postinit` (SOS): the second half of `shmemx_heap_preinit`, which is
/// `shmem_init` here (rshmem's heap exists once the library is initialized); checks that it was.
pub fn heap_postinit(call: &'static str) {
    let _ = world::get(call);
}

/// `shmemx_heap_create` (SOS): registers device memory (Level Zero or CUDA) as the symmetric
/// heap. rshmem's heap is host memory it maps itself.
pub fn heap_create(
    call: &'static str,
    _base: *mut c_void,
    _size: usize,
    _device_type: c_int,
    _device_index: c_int,
) -> ! {
    fatal!(
        call,
        "Sandia OpenSHMEM's external (device) heaps are not supported: rshmem's symmetric heap is host memory it allocates itself; use shmem_init and shmem_malloc"
    )
}

/// The message of every counting-put routine.
#[cold]
fn no_counting_puts(call: &'static str) -> ! {
    fatal!(
        call,
        "Sandia OpenSHMEM's counting puts (shmemx_ct_*, shmemx_putmem_ct, shmemx_getmem_ct) are not supported: rshmem keeps no per-operation completion counters, and a count it did not keep would be a wrong answer"
    )
}

/// `shmemx_putmem_ct`, `shmemx_getmem_ct` (SOS): see [`no_counting_puts`].
pub fn ct_rma(
    call: &'static str,
    _ct: *mut c_void,
    _target: *mut c_void,
    _source: *const c_void,
    _len: usize,
    _pe: c_int,
) -> ! {
    no_counting_puts(call)
}

/// `shmemx_ct_create`, `shmemx_ct_free`, `shmemx_ct_get` (SOS): see [`no_counting_puts`].
pub fn ct(call: &'static str, _ct: *mut c_void) -> ! {
    no_counting_puts(call)
}

/// `shmemx_ct_set` (SOS): see [`no_counting_puts`].
pub fn ct_set(call: &'static str, _ct: *mut c_void, _value: c_long) -> ! {
    no_counting_puts(call)
}

/// `shmemx_ct_wait` (SOS): see [`no_counting_puts`].
pub fn ct_wait(call: &'static str, _ct: *mut c_void, _wait_for: c_long) -> ! {
    no_counting_puts(call)
}

/// The message of every performance-counter routine.
#[cold]
fn no_counters(call: &'static str) -> ! {
    fatal!(
        call,
        "Sandia OpenSHMEM's performance counters (shmemx_pcntr_*) are not supported: rshmem does not count issued and completed operations, and a count it did not keep would be a wrong answer"
    )
}

/// `shmemx_pcntr_get_{issued,completed}_{write,read}` (SOS): see [`no_counters`].
pub fn pcntr(call: &'static str, _ctx: shmem_ctx_t, _cntr_value: *mut u64) -> ! {
    no_counters(call)
}

/// `shmemx_pcntr_get_completed_target` (SOS): see [`no_counters`].
pub fn pcntr_target(call: &'static str, _cntr_value: *mut u64) -> ! {
    no_counters(call)
}

/// `shmemx_pcntr_get_all` (SOS): see [`no_counters`].
pub fn pcntr_all(call: &'static str, _ctx: shmem_ctx_t, _pcntr: *mut c_void) -> ! {
    no_counters(call)
}
