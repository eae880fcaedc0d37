//! Deadlock detection: a job in which every PE waits in the library and no wait ends is called
//! deadlocked after `SHMEM_DEADLOCK` seconds; each PE then says where it waits (the line of a hang
//! report, `runtime::hang`) and the job ends with exit code 1, instead of hanging until someone
//! kills it. A collective that some PEs never call, a `shmem_wait_until` on a word nobody will
//! store, two PEs each waiting for the other: the commonest misuses end this way.
//!
//! A wait that has reached its slow-path checks (a `runtime::hang::Blocked` wait) and has lasted
//! [`STALL_AFTER`] makes its PE *stalled* (a PE's first such wait; the PE stays stalled until its
//! last one ends). PE 0's control block counts the stalled PEs in the low half of its word
//! `stalled` and the changes of that count in the high half, one control-word add per change (a
//! CPU atomic on the node, a network add elsewhere). PE 0, itself stalled, reads the word at each
//! of its slow-path checks: when every PE has been stalled with no change for `SHMEM_DEADLOCK`
//! seconds, no wait of the job has ended for that long, and none can, since what ends such a
//! wait is another PE's action (a store, a signal, a message) and every PE is waiting. PE 0 then
//! adds 1 to every other PE's `asked` word, which a stalled wait reads at its next check and
//! answers with its report, reports itself, gives the others a second and ends the job.
//!
//! Why no wait moves in that time without a deadlock: a PE that computes, or that waits in a loop
//! that is not such a wait (a network request's completion, a quiet), is never stalled, so the
//! data a stalled PE waits for is never still being sent by another stalled PE but for a
//! collective's message, at most 4 MiB (`collectives::message::LARGEST`), whose wait the default
//! 20 s outlasts at anything above 200 KB/s. Where a PE's thread level is above
//! `SHMEM_THREAD_SINGLE`, another of its threads may still end a wait (a store to the word a wait
//! watches): such a PE counts itself in `stalled_threaded` too, and a job with one of them gets
//! the reports and a line saying it looks deadlocked, but goes on. A PE that begins to finalize
//! disarms the detection ([`disarm`]); from then on, what its peers wait for is
//! `runtime::departure`'s to tell.
//!
//! Cost: nothing on any fast path. A PE whose wait lasts a second makes one control-word add to
//! PE 0, and one more when it ends; a slow-path check reads a word of the PE's control block (PE
//! 0's, two).

use super::constants::SHMEM_THREAD_SINGLE;
use super::error::{abort_job, say};
use super::world;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a wait must have lasted before its PE counts as stalled.
pub const STALL_AFTER: Duration = Duration::from_secs(1);
/// How long the other PEs get to write their reports before PE 0 ends the job. 1 s was once too
/// short for PE 3 of `deadlock_lock` at 4 PEs over UCX TCP while the C tests ran side by side on
/// 2 cores (its line missing, 1 run in 3 full suites); a deadlocked job ends 2 s later now.
const REPORT_GRACE: Duration = Duration::from_secs(3);

/// One change of the `stalled` word: a PE more (`COUNT_ONE`) or less, and a change (`CHANGE`).
const COUNT_ONE: u64 = 1;
const CHANGE: u64 = 1 << 32;
const COUNT_MASK: u64 = CHANGE - 1;

/// `SHMEM_DEADLOCK` in milliseconds; 0 when off.
static AFTER_MS: AtomicU64 = AtomicU64::new(0);
/// The value of this PE's `asked` word that its waits have answered.
static ANSWERED: AtomicU64 = AtomicU64::new(0);

/// What PE 0 has seen of the `stalled` word: the word, since when, and whether it has acted on it.
struct Watch {
    word: u64,
    since: Instant,
    acted: bool,
}
static WATCH: Mutex<Option<Watch>> = Mutex::new(None);

/// Arms the detection (at init): after `after` (`SHMEM_DEADLOCK`; `None` is off).
pub fn configure(after: Option<Duration>) {
    AFTER_MS.store(
        after.map_or(0, |d| (d.as_millis() as u64).max(1)),
        Ordering::Relaxed,
    );
    ANSWERED.store(0, Ordering::Relaxed);
    *WATCH
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
}

/// Disarms the detection for the rest of this generation (at the finalize rendezvous, whose
/// waits `runtime::departure` watches): a wait that ends there must not send PE 0 a change when
/// PE 0 may be closing its network. The next `shmem_init` arms it again.
pub fn disarm() {
    AFTER_MS.store(0, Ordering::Relaxed);
}

/// The stall state of one blocked wait.
#[derive(Default)]
pub struct Stall {
    /// Whether the wait counts itself stalled on PE 0.
    counted: bool,
}

impl Stall {
    /// One slow-path check of a wait blocked `since`: what the wait must do about its state.
    pub fn check(&mut self, since: Instant) -> Answer {
        let after = AFTER_MS.load(Ordering::Relaxed);
        let Some(w) = world::try_get().filter(|_| after != 0) else {
            return Answer::Nothing;
        };
        let now = Instant::now();
        if !self.counted && now.duration_since(since) >= STALL_AFTER {
            self.counted = true;
            count(w, true);
        }
        if self.counted && w.me == 0 {
            let answer = watch(w, Duration::from_millis(after), now);
            if !matches!(answer, Answer::Nothing) {
                return answer;
            }
        }
        let asked = w.control(w.me).asked.0.load(Ordering::Acquire);
        if ANSWERED.fetch_max(asked, Ordering::Relaxed) < asked {
            Answer::Report
        } else {
            Answer::Nothing
        }
    }

    /// Counts the wait stalled no longer; not once disarmed (a wait of a program thread still
    /// counted then stays counted: its PE is finalizing).
    fn uncount(&mut self) {
        if std::mem::take(&mut self.counted)
            && AFTER_MS.load(Ordering::Relaxed) != 0
            && let Some(w) = world::try_get()
        {
            count(w, false);
        }
    }
}

impl Drop for Stall {
    fn drop(&mut self) {
        self.uncount();
    }
}

/// This process's stalled waits (more than one only where several threads wait).
static STALLED_WAITS: AtomicUsize = AtomicUsize::new(0);

/// One wait of this PE more (`on`) or less stalled: the PE counts itself stalled on PE 0 when its
/// first wait stalls, and no longer when its last one moves.
fn count(w: &world::World, on: bool) {
    let first_or_last = if on {
        STALLED_WAITS.fetch_add(1, Ordering::AcqRel) == 0
    } else {
        STALLED_WAITS.fetch_sub(1, Ordering::AcqRel) == 1
    };
    if !first_or_last {
        return;
    }
    let delta = if on {
        CHANGE + COUNT_ONE
    } else {
        CHANGE.wrapping_sub(COUNT_ONE)
    };
    w.control_add("wait", 0, |c| &c.stalled.0, delta);
    if w.thread_level.load(Ordering::Relaxed) > SHMEM_THREAD_SINGLE {
        let delta = if on { 1 } else { u64::MAX };
        w.control_add("wait", 0, |c| &c.stalled_threaded.0, delta);
    }
}

/// What a stalled wait does after its check.
pub enum Answer {
    Nothing,
    /// PE 0 asked every PE where it waits: report.
    Report,
    /// (PE 0) Report, then write this line and go on: some PE may have a thread that can still
    /// end its wait.
    ReportAndWarn(String),
    /// (PE 0) Report, give the others `REPORT_GRACE` to report, and end the job with this line.
    ReportAndEnd(String),
}

impl Answer {
    /// Carries out what follows this PE's report (`ReportAndWarn`, `ReportAndEnd`).
    pub fn finish(self) {
        match self {
            Answer::Nothing | Answer::Report => {}
            Answer::ReportAndWarn(line) => {
                say(&line);
            }
            Answer::ReportAndEnd(line) => {
                // The adds to the other PEs' `asked` words leave by progress of the default lane:
                // it is polled while they report (a plain sleep left them queued, and the PEs on
                // other nodes never heard the request).
                let until = Instant::now() + REPORT_GRACE;
                match world::try_get().and_then(|w| w.remote()) {
                    Some(net) => net.serve(false, |poll| {
                        while Instant::now() < until {
                            poll();
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    }),
                    None => std::thread::sleep(REPORT_GRACE),
                }
                abort_job(1, &line);
            }
        }
    }
}

/// PE 0, stalled: when every PE has been stalled, with no change, for `after`, asks the others
/// where they wait and says what follows.
#[cold]
fn watch(w: &world::World, after: Duration, now: Instant) -> Answer {
    let word = w.control(0).stalled.0.load(Ordering::Acquire);
    let mut watch = WATCH
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let seen = watch.get_or_insert(Watch {
        word,
        since: now,
        acted: false,
    });
    if seen.word != word {
        *seen = Watch {
            word,
            since: now,
            acted: false,
        };
        return Answer::Nothing;
    }
    if seen.acted || word & COUNT_MASK != w.npes as u64 || now.duration_since(seen.since) < after {
        return Answer::Nothing;
    }
    seen.acted = true;
    drop(watch);
    for pe in 1..w.npes {
        w.control_add("wait", pe, |c| &c.asked.0, 1);
    }
    let seconds = after.as_secs_f64();
    if w.control(0).stalled_threaded.0.load(Ordering::Acquire) != 0 {
        return Answer::ReportAndWarn(format!(
            "[PE 0] every PE has waited in the library for {seconds} s and no wait has ended: the job looks deadlocked (each PE says where it waits); a thread level above SHMEM_THREAD_SINGLE lets another thread end a wait, so the job goes on"
        ));
    }
    Answer::ReportAndEnd(format!(
        "[PE 0] deadlock: every PE has waited in the library for {seconds} s and no wait has ended (each PE says where it waits): ending the job (SHMEM_DEADLOCK sets the time; 0 turns this off)"
    ))
}
