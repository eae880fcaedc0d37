//! This process's dealings with the operating system that the standard library does not wrap,
//! each behind a safe function: the user id, leaving at once, what a pipe of ours still holds,
//! watching another process's exit (a pidfd), and answering a signal that asks for a report (a handler that only writes a fixed
//! line and counts, and a thread that takes the signal with `sigwaitinfo`).
//!
//! Invariants: nothing here hands out a raw pointer or a descriptor it does not own; the signal
//! handler installed here allocates nothing, takes no lock and keeps `errno`.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// The real user id of this process.
pub fn uid() -> u32 {
    // SAFETY: getuid takes no argument, cannot fail and touches no memory of ours.
    unsafe { libc::getuid() }
}

/// Flushes every C stdio stream and ends the process with `code` at once, without running
/// `atexit` handlers or destructors (a network's progress thread may be inside its library, whose
/// destructors would race it).
pub fn exit_now(code: i32) -> ! {
    // SAFETY: fflush(NULL) flushes the C streams under their own locks and reads no memory of
    // ours; _exit takes a plain int and does not return.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(code)
    }
}

/// The bytes written to this process's descriptor `fd` (1: stdout, 2: stderr) that the reader at
/// the other end has not read yet, where `fd` is a pipe; `None` for anything else (a terminal, a
/// file, a socket, a closed descriptor).
pub fn unread_in_pipe(fd: i32) -> Option<usize> {
    // SAFETY: plain C struct of integers; zero is a valid value.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat writes one `stat` into our struct and reads nothing else of ours; a
    // descriptor that is not open is an error, not undefined behaviour.
    if unsafe { libc::fstat(fd, &mut stat) } != 0 || stat.st_mode & libc::S_IFMT != libc::S_IFIFO {
        return None;
    }
    let mut unread: libc::c_int = 0;
    // SAFETY: FIONREAD on a pipe writes one int, the bytes in the pipe, into `unread`.
    let done = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut unread) };
    (done == 0).then(|| usize::try_from(unread).unwrap_or(0))
}

/// A pidfd of process `pid` (readable once it has exited), or `None` where the kernel has none.
pub fn pidfd(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags by value and returns a new descriptor or -1; it
    // reads and writes no memory of ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is the descriptor pidfd_open has just opened for this call alone: nothing
    // else in the process knows its number, so the OwnedFd is its only owner.
    Some(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Blocks until `fd` is readable (a pidfd: its process has exited), or until `poll` fails other
/// than by an interruption (then the caller falls back to another way).
pub fn wait_readable(fd: &OwnedFd) {
    let mut fds = [libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    loop {
        // SAFETY: `fds` is one initialized pollfd that lives across the call, of which poll
        // writes only `revents`; its descriptor is open (borrowed from `fd`).
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 1, -1) };
        if n > 0 {
            return;
        }
        if n < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return;
        }
    }
}

/// How requests by signal are answered ([`serve_requests`]).
struct Requests {
    signo: libc::c_int,
    /// Requests received so far (one added per signal).
    count: &'static AtomicU32,
    /// Nonzero while something of the process answers requests itself (a blocked wait).
    busy: &'static AtomicUsize,
    /// Written to stderr for a request while `busy` is 0.
    idle: Box<[u8]>,
}

static REQUESTS: OnceLock<Requests> = OnceLock::new();

/// Serves requests by the signal `signo` (once per process; later calls do nothing): each
/// request adds one to `count` and, while `busy` is 0, writes `idle` to stderr. Set up only
/// where the program has left `signo` at its default: a handler (for threads that do not block
/// it, with `SA_RESTART`), the signal blocked in the calling thread (threads it creates later
/// inherit that), and a thread `rshmem-report` that takes each request with `sigwaitinfo`.
pub fn serve_requests(
    signo: libc::c_int,
    count: &'static AtomicU32,
    busy: &'static AtomicUsize,
    idle: Box<[u8]>,
) {
    if REQUESTS
        .set(Requests {
            signo,
            count,
            busy,
            idle,
        })
        .is_err()
    {
        return;
    }
    // SAFETY: an all-zero sigaction is a valid value for sigaction to fill in; with a NULL new
    // action sigaction only writes the current one into `old`, which lives across the call.
    let left_default = unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signo, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_DFL
    };
    if !left_default {
        return;
    }
    // SAFETY: `new` is a sigaction filled in here (zeroed, then its mask emptied by
    // sigemptyset); the handler it installs, `on_request`, is async-signal-safe (atomics, a
    // OnceLock read and write(2), errno restored) and lives as long as the process.
    unsafe {
        let mut new: libc::sigaction = std::mem::zeroed();
        new.sa_sigaction = on_request as extern "C" fn(libc::c_int) as libc::sighandler_t;
        new.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut new.sa_mask);
        libc::sigaction(signo, &new, std::ptr::null_mut());
    }
    let Some(set) = signal_set(signo) else {
        return;
    };
    // SAFETY: `set` is a signal set filled in by sigemptyset/sigaddset; pthread_sigmask reads it
    // and changes this thread's mask only (a NULL old mask is allowed).
    let blocked =
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) == 0 };
    // The listener inherits the blocked mask and waits for the signal in it.
    if blocked {
        let _ = std::thread::Builder::new()
            .name("rshmem-report".into())
            .spawn(move || listen(set));
    }
}

/// The set holding `signo` alone.
fn signal_set(signo: libc::c_int) -> Option<libc::sigset_t> {
    // SAFETY: an all-zero sigset_t is a valid value for sigemptyset to fill in; both calls write
    // only `set`, which lives across them.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        (libc::sigaddset(&mut set, signo) == 0).then_some(set)
    }
}

/// The report thread: takes each request from the pending signals and answers it.
fn listen(set: libc::sigset_t) {
    let signo = REQUESTS.get().map_or(0, |r| r.signo);
    loop {
        // SAFETY: `set` is a signal set filled in by `signal_set` and lives across the call; a
        // NULL siginfo is allowed.
        if unsafe { libc::sigwaitinfo(&set, std::ptr::null_mut()) } == signo {
            answer();
        }
    }
}

/// The signal handler (for a thread that does not block the signal): answers the request.
extern "C" fn on_request(_: libc::c_int) {
    // SAFETY: __errno_location returns this thread's errno, valid for the thread's life; the
    // value is put back before returning, so that the interrupted code never sees the
    // handler's own write change it.
    let errno = unsafe { *libc::__errno_location() };
    answer();
    // SAFETY: this thread's errno, as read above.
    unsafe { *libc::__errno_location() = errno };
}

/// Counts a request; writes the idle line when nothing answers requests itself.
/// Async-signal-safe: it allocates nothing and takes no lock.
fn answer() {
    let Some(r) = REQUESTS.get() else {
        return;
    };
    if r.busy.load(Ordering::Relaxed) == 0 {
        // SAFETY: `r.idle` is a live, immutable buffer of `r.idle.len()` bytes (set once, never
        // freed); write(2) only reads it.
        unsafe { libc::write(2, r.idle.as_ptr().cast(), r.idle.len()) };
    }
    r.count.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn uid_is_the_owner_of_this_process() {
        assert_eq!(uid(), std::fs::metadata("/proc/self").unwrap().uid());
    }

    #[test]
    fn a_pipe_says_what_its_reader_has_not_read() {
        use std::io::{Read, Write};
        let (mut reader, mut writer) = std::io::pipe().unwrap();
        assert_eq!(unread_in_pipe(writer.as_raw_fd()), Some(0));
        writer.write_all(b"[PE 0] x\n").unwrap();
        assert_eq!(unread_in_pipe(writer.as_raw_fd()), Some(9));
        let mut line = [0u8; 9];
        reader.read_exact(&mut line).unwrap();
        assert_eq!(unread_in_pipe(writer.as_raw_fd()), Some(0));
        // Not a pipe: a file, a closed descriptor.
        let file = std::fs::File::open("/proc/self/status").unwrap();
        assert_eq!(unread_in_pipe(file.as_raw_fd()), None);
        drop(file);
        assert_eq!(unread_in_pipe(-1), None);
    }

    #[test]
    fn a_pidfd_of_a_process_that_exited_is_readable() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let fd = pidfd(child.id());
        child.wait().unwrap();
        // None: a kernel without pidfd_open, where the caller falls back to looking.
        if let Some(fd) = fd {
            wait_readable(&fd);
        }
    }
}
