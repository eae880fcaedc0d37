//! A PE whose launcher is gone ends, even while it computes outside the library.
//!
//! The waits notice a changed parent process (`runtime::wait`), and PMI-1 PEs ask the kernel
//! for SIGKILL at their parent's death (`bootstrap::pmi1`). Neither covers a PE that computes
//! under a launcher whose forking thread is not its life (Open MPI's `mpirun` starts the PEs from
//! a thread of its own, so the parent-death signal is not asked for there; Slurm's step daemon
//! likewise): such a PE would run on after a `kill -9` of the launcher. So at init a PE started by
//! a launcher starts one thread that sleeps on a pidfd of its parent process (`poll`, no timeout:
//! it wakes only when the parent exits) and then ends the PE as a wait would
//! ([`super::error::launcher_gone`]). Where pidfds are unavailable (kernels before 5.3, or a
//! seccomp filter) it looks at the parent every [`POLL`] instead. A singleton (no launcher)
//! starts no thread: its parent is a shell whose end must not end it.
//!
//! The thread is started once per process and outlives `shmem_finalize`; a fork child does not
//! inherit it (and has the library disabled anyway).

use crate::transport::shm::process;
use std::os::fd::OwnedFd;
use std::os::unix::process::parent_id;
use std::time::Duration;

/// How often the parent is looked at where no pidfd can be had.
const POLL: Duration = Duration::from_millis(500);

/// Starts the watch of the parent process (once per process).
pub fn watch() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let parent = parent_id();
        let _ = std::thread::Builder::new()
            .name("rshmem-orphan".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                wait_for_exit(parent);
                super::error::launcher_gone(parent);
            });
    });
}

/// Returns once process `parent` is no longer this process's parent.
fn wait_for_exit(parent: u32) {
    if let Some(fd) = pidfd(parent) {
        // Returns early where pidfd polling is not supported after all: then looking is the way.
        process::wait_readable(&fd);
    }
    while parent_id() == parent {
        std::thread::sleep(POLL);
    }
}

/// A pidfd of `parent` if it is still this process's parent once opened (so that it names that
/// process and not a later one with the same pid).
fn pidfd(parent: u32) -> Option<OwnedFd> {
    let fd = process::pidfd(parent)?;
    (parent_id() == parent).then_some(fd)
}
