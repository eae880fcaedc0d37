//! What a `fork()` child of a PE does with the PE's shared mappings: its own segments (global data,
//! heap) become private copies of their contents, and its mappings of peers' segments become
//! inaccessible, so that nothing the child writes reaches the PE or its peers.
//!
//! Everything here runs in a `pthread_atfork` child handler: only system calls and copies, no
//! allocation and no lock (another thread of the parent may have held one at the fork).

/// A range of this process's address space.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    pub base: usize,
    pub len: usize,
}

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
/// # Safety
/// `seg` must be a live read-write mapping of this process, with `keep` readable, and no other
/// thread may use it (true in a fork child: it has one thread).
pub unsafe fn privatize(seg: Span, keep: &[(usize, usize)], guard: Option<(usize, usize)>) -> bool {
    // SAFETY: fresh address space.
    let fresh = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            seg.len,
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
        let len = len.min(seg.len.saturating_sub(off));
        // SAFETY: both ranges lie inside mappings of `seg.len` bytes (the caller's and the fresh one).
        unsafe {
            super::segment::copy_raw(
                (seg.base + off) as *const u8,
                fresh.cast::<u8>().add(off),
                len,
            )
        };
    }
    // SAFETY: replaces the caller's range with fresh private pages (MAP_FIXED), then copies the
    // kept bytes back from the copy made above, and returns the copy's pages.
    unsafe {
        let over = libc::mmap(
            seg.base as *mut libc::c_void,
            seg.len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        );
        if over == libc::MAP_FAILED {
            return false;
        }
        for &(off, len) in keep {
            let len = len.min(seg.len.saturating_sub(off));
            super::segment::copy_raw(
                fresh.cast::<u8>().add(off),
                (seg.base + off) as *mut u8,
                len,
            );
        }
        libc::munmap(fresh, seg.len);
    }
    if let Some((off, len)) = guard {
        // SAFETY: a page-aligned range inside the new mapping.
        unsafe { libc::mprotect((seg.base + off) as *mut libc::c_void, len, libc::PROT_NONE) };
    }
    true
}

/// Replaces the mapping `seg` (a peer's segment) with inaccessible address space.
///
/// # Safety
/// As [`privatize`].
pub unsafe fn revoke(seg: Span) -> bool {
    // SAFETY: replacing the caller's range with a fresh inaccessible one.
    let p = unsafe {
        libc::mmap(
            seg.base as *mut libc::c_void,
            seg.len,
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

/// Registers the three fork handlers.
pub fn register(
    prepare: unsafe extern "C" fn(),
    parent: unsafe extern "C" fn(),
    child: unsafe extern "C" fn(),
) -> bool {
    // SAFETY: handlers with static lifetime.
    unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) == 0 }
}
