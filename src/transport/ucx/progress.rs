//! An event-driven progress thread: it progresses a worker while there is work and sleeps in
//! `poll` on the worker's event fd otherwise, so a peer's software-emulated put, get or atomic is
//! answered while the owning thread computes, without a polling interval.
//!
//! Invariants: the thread holds a clone of the [`Worker`] (in `UCS_THREAD_MODE_MULTI`, so the
//! owner keeps using it); it sleeps only after `ucp_worker_arm` said nothing is pending; stopping
//! sets a flag and then signals the worker, which either wakes the `poll` or makes the next arm
//! report busy, so the flag is always seen.

use super::{Armed, Error, Result, Worker};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use ucx_sys::UCS_ERR_IO_ERROR;

/// A thread progressing one worker until stopped.
pub struct ProgressThread {
    worker: Worker,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl ProgressThread {
    /// Starts progressing `worker` on a new thread.
    pub fn spawn(worker: &Worker) -> Result<ProgressThread> {
        // Fails early, on the caller's thread, if the worker has no event fd.
        worker.event_fd()?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let worker = worker.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("ucx-progress".into())
                .spawn(move || run(&worker, &stop))
                .map_err(|_| Error {
                    call: "spawning the progress thread",
                    status: UCS_ERR_IO_ERROR,
                })?
        };
        Ok(ProgressThread {
            worker: worker.clone(),
            stop,
            thread: Some(thread),
        })
    }

    /// Stops the thread and returns what it ended with.
    pub fn stop(mut self) -> Result<()> {
        self.halt()
    }

    fn halt(&mut self) -> Result<()> {
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        self.stop.store(true, Ordering::Release);
        self.worker.signal()?;
        thread.join().unwrap_or(Err(Error {
            call: "the progress thread panicked",
            status: UCS_ERR_IO_ERROR,
        }))
    }
}

impl Drop for ProgressThread {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

/// The thread's loop: progress until idle, arm, sleep on the event fd.
fn run(worker: &Worker, stop: &AtomicBool) -> Result<()> {
    let fd = worker.event_fd()?.as_raw_fd();
    while !stop.load(Ordering::Acquire) {
        while worker.progress() != 0 {}
        if worker.arm()? == Armed::Busy {
            continue;
        }
        let mut pollfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: pollfd is one valid entry; the fd stays open while `worker` lives (this frame).
        let ready = unsafe { libc::poll(&mut pollfd, 1, -1) };
        if ready < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Err(Error {
                call: "poll on the worker's event fd",
                status: UCS_ERR_IO_ERROR,
            });
        }
    }
    Ok(())
}
