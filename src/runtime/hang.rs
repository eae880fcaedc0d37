//! Hang reports: where a blocked PE is. On request (a signal, [`SIGNAL`], which `oshrun` sends
//! every PE when its `--timeout` fires or when it receives SIGQUIT) or once a wait has lasted
//! `SHMEM_HANG_REPORT` seconds, a PE blocked in a wait prints one line on stderr naming the
//! OpenSHMEM call (the outermost exported symbol on the waiting thread's stack, as the panic hook
//! finds it, unless the wait names it itself), its arguments and what it waits for:
//! `[PE 2] shmem_barrier_all: barrier of team SHMEM_TEAM_WORLD, round 1 of 2: waiting for PE 0
//! (blocked 3.0 s)`. A PE with no blocked wait answers a request from the signal handler itself
//! with a fixed line (`write(2)` of text made at init: the only thing a handler may do safely).
//!
//! Cost: nothing on any fast path. A wait's description is a closure its caller passes down, run
//! only when a report is printed. A wait that starts to yield loads the request count once, and
//! compares it after each yield (a load of a word no fast path writes, next to a system call); it
//! registers as blocked ([`Blocked::enter`]) at its first periodic check, after `PARENT_CHECK`
//! yields, and from then on each periodic check reads the clock when `SHMEM_HANG_REPORT` is set.
//! (A request that reaches a wait in its first yields is answered by the wait and by the handler's
//! "not blocked" line both.) The
//! handler only writes and counts: it allocates nothing, takes no lock and keeps `errno`.
//!
//! The signal is SIGURG, whose default action is to ignore it: a process that never installed
//! the handler (a program not linked with rshmem under `oshrun`, a PE before `shmem_init`) is not
//! harmed by a request. The signal never reaches the program's own threads: a request must not
//! change what the program does, and a handler that runs on a thread cuts its `sleep`,
//! `nanosleep`, `poll` or `select` short (POSIX restarts none of them, `SA_RESTART` or not). So
//! at the first `shmem_init` the calling thread blocks SIGURG (threads it creates afterwards
//! inherit the mask) and a thread of the library's own, `rshmem-report`, takes each request with
//! `sigwaitinfo`. A handler stays installed for a thread that was created before `shmem_init`
//! and does not block the signal, which the kernel may pick instead (its sleeps can then still be
//! cut short). Both are set up only where the program has left SIGURG at its default, and a
//! program may replace them; a process started by the PE (`fork` and `exec`) inherits the blocked
//! signal, as it inherits every mask.

use super::{error, world};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The signal that asks every PE for a report.
pub const SIGNAL: libc::c_int = libc::SIGURG;

/// Requests received so far (the handler adds one each).
static REQUESTS: AtomicU32 = AtomicU32::new(0);
/// Waits of this process past their first slow-path check.
static BLOCKED: AtomicUsize = AtomicUsize::new(0);
/// `SHMEM_HANG_REPORT` in milliseconds; 0 when off.
static AFTER_MS: AtomicU64 = AtomicU64::new(0);
/// The locks this PE holds, with the ticket it holds each by (`ops::lock`, a ticket lock that
/// does not record its holder): a PE waiting for a lock reports the ticket the lock serves, and
/// the holder's report says it holds that ticket.
///
/// A fixed table of (lock address, ticket) slots, an address of 0 free: taking and releasing a
/// lock cost a few plain loads and stores (a mutex and a vector here made an uncontended
/// `shmem_set_lock`/`shmem_clear_lock` pair 1.87 times as long, compare-and-swaps 1.43 times).
/// The table only feeds reports: two threads of a PE taking locks at the same instant may both
/// pick one free slot, and then one lock is missing from a report (never a stale one: a release
/// clears only its own address). A PE holding more locks at once than there are slots leaves the
/// others out of its report.
static LOCKS: [(AtomicUsize, AtomicU64); LOCK_SLOTS] =
    [const { (AtomicUsize::new(0), AtomicU64::new(0)) }; LOCK_SLOTS];

/// How many held locks a PE's report can name.
const LOCK_SLOTS: usize = 16;

/// This PE took the lock at `lock` by `ticket` (`Some`), or released it (`None`).
pub fn lock_held(lock: usize, ticket: Option<u64>) {
    match ticket {
        Some(ticket) => {
            for (at, held) in &LOCKS {
                if at.load(Ordering::Relaxed) == 0 {
                    at.store(lock, Ordering::Relaxed);
                    held.store(ticket, Ordering::Relaxed);
                    return;
                }
            }
        }
        None => {
            for (at, _) in &LOCKS {
                if at.load(Ordering::Relaxed) == lock {
                    at.store(0, Ordering::Relaxed);
                    return;
                }
            }
        }
    }
}

/// Arms the reports for this PE (at init): the time after which a wait reports by itself, the
/// handler's fixed line, and the handler where the program left the signal at its default (the
/// system's part, handler, mask and listener thread, is `transport::shm::process::serve_requests`).
pub fn install(me: usize, after: Option<Duration>) {
    AFTER_MS.store(
        after.map_or(0, |d| (d.as_millis() as u64).max(1)),
        Ordering::Relaxed,
    );
    let idle = format!(
        "[PE {me}] not blocked in the library (computing, or in a call that is not waiting)\n"
    )
    .into_bytes()
    .into_boxed_slice();
    crate::transport::shm::process::serve_requests(SIGNAL, &REQUESTS, &BLOCKED, idle);
}

/// The requests received so far (a wait compares it with the count it has answered).
#[inline(always)]
pub fn requests() -> u32 {
    REQUESTS.load(Ordering::Relaxed)
}

/// A wait that has reached its slow-path checks: it answers requests and reports itself once
/// when it lasts longer than `SHMEM_HANG_REPORT`.
pub struct Blocked {
    /// The request count this wait has answered up to.
    seen: u32,
    since: Instant,
    /// Whether the wait has reported by itself (it does so once).
    late: bool,
    /// Whether the wait counts itself stalled (`runtime::deadlock`).
    stall: super::deadlock::Stall,
}

impl Blocked {
    /// Registers a wait as blocked (at its first slow-path check, or at the first request it
    /// sees); `seen` is the request count when the wait began to yield.
    #[cold]
    pub fn enter(seen: u32) -> Blocked {
        BLOCKED.fetch_add(1, Ordering::Relaxed);
        Blocked {
            seen,
            since: Instant::now(),
            late: false,
            stall: super::deadlock::Stall::default(),
        }
    }

    /// The request count this wait has answered up to.
    #[inline]
    pub fn seen(&self) -> u32 {
        self.seen
    }

    /// One slow-path check: prints the report if one was requested (by a signal, or by PE 0's
    /// deadlock detection), or if the wait has become late. `what` writes what the wait waits
    /// for.
    #[inline]
    pub fn check(&mut self, what: &dyn Fn(&mut String)) {
        let answer = self.stall.check(self.since);
        if !matches!(answer, super::deadlock::Answer::Nothing) {
            report(what, self.since.elapsed());
            answer.finish();
        }
        let requests = REQUESTS.load(Ordering::Relaxed);
        if requests != self.seen {
            self.seen = requests;
            report(what, self.since.elapsed());
        }
        let after = AFTER_MS.load(Ordering::Relaxed);
        if after != 0 && !self.late {
            let blocked = self.since.elapsed();
            if blocked >= Duration::from_millis(after) {
                self.late = true;
                report(what, blocked);
            }
        }
    }
}

impl Drop for Blocked {
    fn drop(&mut self) {
        BLOCKED.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Prints `[PE n] <call>: <what> (blocked s)` in one write.
#[cold]
#[inline(never)]
fn report(what: &dyn Fn(&mut String), blocked: Duration) {
    let mut line = format!("[PE {}] ", world::pe_label());
    let start = line.len();
    what(&mut line);
    // A wait that knows its call names it first; otherwise the stack tells.
    if !line[start..].starts_with("shmem_") {
        let stack = std::backtrace::Backtrace::force_capture().to_string();
        let call = error::call_on_stack(&stack, error::is_exported)
            .unwrap_or_else(|| "rshmem (no OpenSHMEM call on the stack)".into());
        line.insert_str(start, &format!("{call}: "));
    }
    let _ = write!(line, " (blocked {:.1} s)", blocked.as_secs_f64());
    for (at, held) in &LOCKS {
        let lock = at.load(Ordering::Relaxed);
        if lock != 0 {
            let ticket = held.load(Ordering::Relaxed);
            let _ = write!(line, "; this PE holds lock={lock:#x} by ticket {ticket}");
        }
    }
    error::say(&line);
}

/// The description of a wait whose caller gave none.
pub fn undescribed(out: &mut String) {
    out.push_str("waiting (this wait does not describe itself)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_answered_once_by_each_blocked_wait() {
        let mut a = Blocked::enter(requests());
        let seen = a.seen;
        REQUESTS.fetch_add(1, Ordering::Relaxed);
        a.check(&|out| out.push_str("test wait"));
        assert_eq!(a.seen, seen + 1);
        a.check(&|out| out.push_str("test wait"));
        assert_eq!(a.seen, seen + 1);
        assert!(BLOCKED.load(Ordering::Relaxed) >= 1);
        drop(a);
    }
}
