//! What the network does with this process's memory, made safe by what it is given: it
//! connects over the segments as [`Mapping`]s (mapped for the life of the process), and it
//! allocates the memory of a segment where this module has just reserved the address space (the
//! heap) or where the program's global data lies (a [`Range`] that only
//! [`super::data_segment::find`] makes), copying the data aside and back.
//!
//! Invariants: the network is handed only memory that stays mapped for the life of the process
//! and that the library reaches only by raw accesses and atomics; the program's data keeps its
//! contents across an allocation, failed or not.

use super::data_segment::Range;
use super::{Mapping, control, segment};
use crate::transport::{Choice, Exchange, Remote, Result};

/// Connects the network of `choice` over this PE's two segments (see
/// `transport::Remote::connect`).
pub fn connect(
    choice: Choice,
    segments: &[Mapping; 2],
    elsewhere: &[bool],
    lanes: usize,
    exchange: &mut Exchange,
) -> Result<Remote> {
    let segments = segments.each_ref().map(|m| (m.base(), m.len()));
    // SAFETY: each segment is a Mapping: mapped read-write for the life of the process, and the
    // library reaches it only by raw accesses and atomics (the Mapping's contract), which is
    // what the network's connect requires of the memory it registers.
    unsafe { Remote::connect(choice, &segments, elsewhere, lanes, exchange) }
}

/// With every PE on the route of a network that allocates segments ([`Choice::allocation`]:
/// `SHMEM_TRANSPORT=ucx` or `loopback`), the heap's memory allocated by the network of `choice`,
/// placed as every heap mapping is ([`control::HEAP_LAYOUT`]): UCX's shared-memory
/// transports reach memory they allocated from this node's other processes with loads, stores and
/// CPU atomics, where a segment this library mapped needs the target's worker to emulate each
/// access. No PE maps a peer's heap by name on this route, so the heap needs no name. Returns its
/// mapping, or why not (`Some`: the network could not; the caller then creates the segment
/// itself).
pub fn heap(choice: Choice, len: usize) -> std::result::Result<Mapping, Option<String>> {
    let what = "the symmetric heap";
    let base =
        segment::reserve(len, control::HEAP_LAYOUT, what).map_err(|e| Some(e.to_string()))?;
    // SAFETY: base..base+len is the reservation just made (page aligned), which nothing else
    // uses; the memory is kept for the life of the process (never released below once
    // allocated) and accessed by the library only through raw pointers and atomics.
    if let Err(e) = unsafe { crate::transport::allocate_segment(choice, base, len) } {
        segment::release(base, len);
        return Err(Some(e.to_string()));
    }
    // A refused guard leaves the allocation unused (untouched pages cost no memory).
    segment::protect_guard(base, control::HEAP_LAYOUT, what).map_err(|e| Some(e.to_string()))?;
    // SAFETY: the network's allocation at base..base+len, mapped read-write and kept for the
    // life of the process (above).
    Ok(unsafe { Mapping::new(base, len) })
}

/// The program's global data `data` made memory the network allocated (after the heap,
/// [`heap`]): its contents copied aside, the allocation placed over the range, the contents
/// copied back. Between the two copies the range reads as zero; only the library runs then
/// (the network's allocation call). An error leaves the range holding its contents, in the program's own
/// memory again if the allocation had replaced it before it failed.
///
/// Both segments or neither: UCX's fence (weak, UCX 1.13) orders no access it emulates with an
/// active message before one its shared-memory transports make directly, so one PE's segments
/// take the same path (the network registers the heap like any memory if the data is refused).
pub fn data(choice: Choice, data: Range) -> std::result::Result<Mapping, String> {
    let (base, len) = (data.start(), data.len());
    let mut saved = vec![0u8; len];
    // SAFETY: `data` is the executable's writable data (a Range only `find` makes), mapped
    // readable; `saved` is a distinct buffer of `len` bytes.
    unsafe { segment::copy_raw(base as *const u8, saved.as_mut_ptr(), len) };
    // SAFETY: the executable's data, page aligned (a Range), whose contents are saved and which
    // no other thread touches during shmem_init (OpenSHMEM: symmetric data is not accessed
    // concurrently with it); the memory is kept for the life of the process and accessed by the
    // library only through raw pointers and atomics.
    let allocated = unsafe { crate::transport::allocate_segment(choice, base, len) };
    if let Err(e) = &allocated {
        // The range may have lost its mapping to the failed allocation: map it afresh (private,
        // as the program's data is).
        // SAFETY: replaces the program's own range (page aligned), whose contents are saved, with
        // fresh private memory at the same address (MAP_FIXED); no Rust reference points into it.
        let p = unsafe {
            libc::mmap(
                base as *mut libc::c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            super::fork::die(
                b"rshmem: shmem_init: the program's global data was lost to a failed allocation by the network\n",
            );
        }
        tracing::debug!(target: "rshmem::route", "the network did not allocate the global data: {e}");
    }
    // SAFETY: the range is mapped read-write again (the allocation, or fresh memory) and does not
    // overlap `saved`.
    unsafe { segment::copy_raw(saved.as_ptr(), base as *mut u8, len) };
    allocated.map_err(|e| format!("the global data: {e}"))?;
    // SAFETY: the network's allocation over the program's data, mapped read-write and kept for
    // the life of the process.
    Ok(unsafe { Mapping::new(base, len) })
}
