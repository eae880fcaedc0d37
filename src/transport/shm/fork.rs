//! What a `fork()` child of a PE does with the PE's shared mappings: its own segments (global data,
//! heap) become private copies of their contents, and its mappings of peers' segments become
//! inaccessible, so that nothing the child writes reaches the PE or its peers.
//!
//! Everything here runs in a `pthread_atfork` handler: only system calls and copies, no
//! allocation and no lock (another thread of the parent may have held one at the fork).
//!
//! Invariants: the memory a child remaps is a [`Mapping`] (mapped for the life of the process)
//! and is remapped only in the child handler, which alone holds a [`Child`] (the child of a fork
//! has one thread: nothing else uses the mapping meanwhile).

use super::Mapping;
use std::sync::OnceLock;

/// Proof that the code runs in the child handler of a fork, where the process has one thread.
/// Only this module makes one, and hands it to the child handler for the length of its call.
pub struct Child(());

/// The three fork handlers ([`register`]).
pub struct Handlers {
    /// In the parent, before the fork.
    pub prepare: fn(),
    /// In the parent, after the fork.
    pub parent: fn(),
    /// In the child, after the fork.
    pub child: fn(&Child),
}

static HANDLERS: OnceLock<Handlers> = OnceLock::new();

/// Writes `text` to stderr and ends the process: what a child handler does when it cannot make
/// its memory private (continuing would let it write into the PE's memory).
pub fn die(text: &[u8]) -> ! {
    // SAFETY: write and _exit are async-signal-safe; `text` is a valid buffer.
    unsafe {
        libc::write(2, text.as_ptr().cast(), text.len());
        libc::_exit(1)
    }
}

/// Replaces the shared mapping `seg` with a private anonymous one holding a copy of the bytes in
/// `keep` (copied out to a scratch mapping and back: `mremap` onto a fixed address is not used, as
/// its variadic fifth argument arrived as NULL through the Rust binding) (offsets and lengths inside `seg`; the rest reads as zero), then makes `guard`
/// inaccessible again. Returns false if the system refused (no memory for the copy).
///
/// `seg` is one of this process's mappings, and `_child` says that no other thread uses it.
pub fn privatize(
    seg: Mapping,
    _child: &Child,
    keep: &[(usize, usize)],
    guard: Option<(usize, usize)>,
) -> bool {
    let (base, size) = (seg.base(), seg.len());
    // SAFETY: mapping fresh anonymous memory where the kernel chooses; touches nothing of ours.
    let fresh = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if fresh == libc::MAP_FAILED {
        return false;
    }
    for &(off, len) in keep {
        let len = len.min(size.saturating_sub(off));
        // SAFETY: both ranges lie inside mappings of `size` bytes (the Mapping `seg` and the fresh
        // one), which do not overlap (the fresh one is new address space).
        unsafe {
            super::segment::copy_raw((base + off) as *const u8, fresh.cast::<u8>().add(off), len)
        };
    }
    // SAFETY: replaces the range of `seg` (a Mapping, used by no other thread in the fork child)
    // with fresh private pages (MAP_FIXED), copies the kept bytes back from the copy made above
    // (both `size` bytes, apart), and returns the copy's pages, used by nothing else.
    unsafe {
        let over = libc::mmap(
            base as *mut libc::c_void,
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        );
        if over == libc::MAP_FAILED {
            return false;
        }
        for &(off, len) in keep {
            let len = len.min(size.saturating_sub(off));
            super::segment::copy_raw(fresh.cast::<u8>().add(off), (base + off) as *mut u8, len);
        }
        libc::munmap(fresh, size);
    }
    if let Some((off, len)) = guard {
        // SAFETY: mprotect of a range inside the private mapping just made touches no memory.
        unsafe { libc::mprotect((base + off) as *mut libc::c_void, len, libc::PROT_NONE) };
    }
    true
}

/// Replaces the mapping `seg` (a peer's segment) with inaccessible address space.
///
/// `_child` says that no other thread uses it.
pub fn revoke(seg: Mapping, _child: &Child) -> bool {
    // SAFETY: replaces the range of `seg` (a Mapping of this process) with fresh inaccessible
    // address space; in the fork child no other thread uses it, and this library reaches it
    // only through the World, which the child marks unusable next.
    let p = unsafe {
        libc::mmap(
            seg.base() as *mut libc::c_void,
            seg.len(),
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    p != libc::MAP_FAILED
}

/// A pipe that the parent of a fork reads until the child has closed its end (after making its
/// memory private), so that the forking thread does not write its memory meanwhile.
///
/// Returns `[read, write]`, close-on-exec, or `None`.
pub fn pipe() -> Option<[i32; 2]> {
    let mut fds = [-1i32; 2];
    // SAFETY: `fds` has room for the two descriptors.
    (unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0).then_some(fds)
}

/// Closes `fd`.
pub fn close(fd: i32) {
    if fd >= 0 {
        // SAFETY: closing a descriptor this module opened.
        unsafe { libc::close(fd) };
    }
}

/// Blocks until the other end of the pipe `fd` is closed (by the child, or by its death).
pub fn wait_closed(fd: i32) {
    let mut byte = 0u8;
    loop {
        // SAFETY: reading at most one byte into `byte`.
        let n = unsafe { libc::read(fd, (&raw mut byte).cast(), 1) };
        if n == 0 || (n < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR))
        {
            return;
        }
    }
}

/// Registers the three fork handlers (once per process: a second call registers nothing and
/// returns false).
pub fn register(handlers: Handlers) -> bool {
    if HANDLERS.set(handlers).is_err() {
        return false;
    }
    // SAFETY: the three functions are `extern "C"` functions of this module that live as long as
    // the process and take no arguments, as pthread_atfork expects.
    unsafe { libc::pthread_atfork(Some(on_prepare), Some(on_parent), Some(on_child)) == 0 }
}

extern "C" fn on_prepare() {
    if let Some(h) = HANDLERS.get() {
        (h.prepare)()
    }
}

extern "C" fn on_parent() {
    if let Some(h) = HANDLERS.get() {
        (h.parent)()
    }
}

extern "C" fn on_child() {
    if let Some(h) = HANDLERS.get() {
        (h.child)(&Child(()))
    }
}
