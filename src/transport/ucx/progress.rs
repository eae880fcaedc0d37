//! Who progresses a PE's target worker (the one its peers reach it through, so that their
//! software-emulated puts, gets and atomics are answered): the PE's own threads while one of them
//! waits inside the library, an event-driven progress thread while none does.
//!
//! Why two: waking a thread that sleeps in `poll` costs tens of microseconds on an idle node, more
//! than a whole TCP round trip on loopback. A PE that waits in the library (a blocking get or
//! atomic, quiet, wait_until, a barrier) spins anyway, so it progresses its target worker itself
//! on each round ([`Server::turn`], [`Turn::poll`]) and a peer's request is answered by a thread
//! that is already running. A PE that computes outside the library still answers: then the
//! progress thread progresses the worker until idle, arms it and sleeps in `poll` on its event fd.
//!
//! Where the node's PEs outnumber its cores ([`configure`]), a thread woken from `poll` runs
//! ahead of the busy ones while a spinning or yielding one waits for its time slice, so there the
//! progress thread should serve. There a turn hands the worker back (for `CONTENDED_FOR`, then
//! turns try again) when it finds its thread descheduled between two polls (a gap over
//! `DESCHEDULED`), and also when it has answered nothing for `SERVE_GAP` (its wait may then yield
//! the core).
//!
//! Where every PE has a core, a turn never hands the worker back. A preemption now and then is no
//! sign of a busy node there, and the progress thread must be woken for every request it serves
//! (tens of microseconds each). Handing it the worker when the gaps of a 2 ms window added up to a
//! quarter of it still did so a few times a second, for 20 ms each: the 2-PE round trips over TCP
//! went bimodal, 9 us in one mode and 13-20 in the other.
//!
//! While turns go on, the progress thread stays asleep: waking it is not free even when it finds
//! nothing to do. It runs on a core a spinning PE is using, and on a node whose cores all spin
//! the scheduler then moves threads around. With a look every 0.5 ms, the 2-PE round trips over
//! TCP were 10-20% slower than with none. So it sleeps on an [`Alarm`] that the end of a turn sets
//! to ring `handback` later. A PE going in and out of the library keeps pushing the ring back and
//! the thread never wakes; it rings only once the PE has been out for a while (1.7 to 5 ms by
//! default, `SHMEM_PROGRESS_DELAY`), or once during a long wait.
//!
//! Invariants:
//! - The worker is in `UCS_THREAD_MODE_MULTI` (the owner's threads and the progress thread may
//!   overlap briefly).
//! - `state` counts the threads inside a turn (low half) and the turns ended (high half).
//! - The progress thread does not progress while a turn is on. It checks before progressing and
//!   after every wake-up, and then sleeps on the alarm (not on the event fd, which stays readable
//!   while someone else handles the events) until it rings with no turn on. So a PE going in and
//!   out of the library (a barrier loop) does not wake it on every exit, and two threads do not
//!   take turns on the worker's lock.
//! - While it sleeps on the alarm, the alarm rings within `handback` of the last turn's end (see
//!   [`Alarm`]); a turn handing the worker back early, and stopping, ring it at once. A ring
//!   that an end of a turn set comes at least `handback - rearm` after the last end.
//! - It sleeps on the event fd only after `ucp_worker_arm` said nothing is pending. Stopping sets
//!   a flag, rings the alarm and signals the worker, so the flag is seen wherever the thread
//!   sleeps.

use super::{Armed, Combiner, Error, Result, Worker};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use ucx_sys::UCS_ERR_IO_ERROR;

/// Whether this node's PEs outnumber its cores ([`configure`]); until told, assume they do.
static OVERSUBSCRIBED: AtomicBool = AtomicBool::new(true);

/// `handback` in microseconds ([`configure`], `SHMEM_PROGRESS_DELAY`).
static HANDBACK_US: AtomicU64 = AtomicU64::new(5000);

/// Says whether this node's PEs outnumber its cores, and the `handback` of the progress thread;
/// servers made afterwards follow them.
pub fn configure(oversubscribed: bool, handback: Duration) {
    OVERSUBSCRIBED.store(oversubscribed, Ordering::Relaxed);
    HANDBACK_US.store(handback.as_micros() as u64, Ordering::Relaxed);
}

/// A target worker and who progresses it: the threads serving, else the progress thread.
pub struct Server {
    worker: Worker,
    /// Threads of this PE inside a turn (low 32 bits), turns ended (high 32 bits).
    state: AtomicU64,
    stop: AtomicBool,
    /// What the progress thread sleeps on while turns go on.
    alarm: Alarm,
    /// Until when (nanoseconds after `epoch`) turns leave the worker to the progress thread: a
    /// turn found its thread descheduled, the node is busy.
    contended_until: AtomicU64,
    epoch: Instant,
    /// The node's PEs outnumber its cores: turns hand the worker back at the first gap and after
    /// `SERVE_GAP` (else never).
    shared: bool,
    /// The write combiners of the PE's lanes, whose runs the thread sends when the alarm rings
    /// ([`Server::remind`]).
    combiners: Mutex<Vec<Arc<Combiner>>>,
}

/// One thread in a turn, in `Server::state`.
const ONE_TURN: u64 = 1;
/// One thread in a turn less, one turn ended more.
const TURN_ENDED: u64 = (1 << 32) - 1;
/// The threads-in-a-turn half of `Server::state`.
const IN_TURN: u64 = (1 << 32) - 1;

/// How long a waiting thread keeps serving after the last request it answered (while it answers
/// requests, its wait spins instead of yielding).
const SERVE_GAP: Duration = Duration::from_millis(2);

/// A gap this long between two polls of a turn means its thread was descheduled: the node is
/// busy, where a thread woken from `poll` is scheduled ahead of the busy ones and a spinning one
/// waits for its time slice. The turn hands the worker back, and turns leave it to the progress
/// thread for `CONTENDED_FOR`.
const DESCHEDULED: Duration = Duration::from_micros(50);
const CONTENDED_FOR: Duration = Duration::from_millis(20);

/// The two times of an [`Alarm`] (the other items' docs name them too):
/// - `handback`: at most how long after the end of the last turn the progress thread takes the
///   worker back (after at least `handback - rearm` with no turn on); `SHMEM_PROGRESS_DELAY`,
///   5 ms by default;
/// - `rearm`, two thirds of it: the end of a turn sets the alarm again only if it was set this
///   long ago or more, one system call per `rearm` of a PE going in and out of the library, not
///   one per exit.
///
/// Why 5 ms: the PE's own thread sets the alarm, in the middle of whatever it does, and what that
/// costs depends on how near the ring is. A ring due before the kernel's next timer tick (every 4
/// ms on this project's machines, as on Debian's kernels) reprograms the timer hardware, which on
/// these virtual machines took 10-50 us (a mean of 17 us for a ring 0.75 ms ahead, set every 0.5
/// ms), against 1.5-2.5 us for a ring 5 ms ahead. With the former default, 0.75 ms, one barrier or
/// round trip in 25-40 paid it: over TCP at 2 PEs their p99 was twice OSHMEM's and their mean 4-8%
/// above it; with 5 ms both are OSHMEM's (the bench journal, 2026-12-03: `git show f57c210:bench/README.md`). The price: a PE that begins computing
/// is answered by its progress thread after 5 ms instead of 0.8 (a peer's first get), which
/// OSHMEM, with no progress thread, never does.
#[derive(Clone, Copy)]
struct Delays {
    handback: Duration,
    rearm: Duration,
}

impl Delays {
    fn of(handback: Duration) -> Delays {
        Delays {
            handback,
            rearm: handback * 2 / 3,
        }
    }
}

/// A timer (a `timerfd`) the progress thread sleeps on while turns go on.
///
/// Invariant: while the progress thread sleeps on it, it will ring. Each end of a turn either
/// sets it to ring `handback` later, or finds it set less than `rearm` ago, and so still to
/// ring (`handback` > `rearm`). A ring that found a turn on leaves `set_at` at least `handback`
/// old, so that turn's end sets it again. Ringing at once (a hand-back, a stop) clears `set_at`
/// between two rings ([`Alarm::ring_now`]), so the next end sets it again.
struct Alarm {
    fd: OwnedFd,
    delays: Delays,
    /// When it was last set to ring `handback` later, in nanoseconds after the server's epoch
    /// (`NOT_SET`: never, or not since it last rang at once).
    set_at: AtomicU64,
}

/// `Alarm::set_at` of an alarm with no ring of `handback` to come.
const NOT_SET: u64 = u64::MAX;

impl Alarm {
    fn new(delays: Delays) -> Result<Alarm> {
        // SAFETY: plain system call; the fd is owned below.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) };
        if fd < 0 {
            return Err(Error {
                call: "timerfd_create for the progress thread",
                status: UCS_ERR_IO_ERROR,
            });
        }
        Ok(Alarm {
            // SAFETY: a new fd, owned by nothing else.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            delays,
            set_at: AtomicU64::new(NOT_SET),
        })
    }

    /// Rings `handback` after `now` unless it was set less than `rearm` before `now` (nanoseconds
    /// after the server's epoch).
    #[inline]
    fn push_back(&self, now: u64) {
        let set = self.set_at.load(Ordering::Acquire);
        if set == NOT_SET || now.saturating_sub(set) >= self.delays.rearm.as_nanos() as u64 {
            self.set_at.store(now, Ordering::Release);
            self.ring_in(self.delays.handback);
        }
    }

    /// Rings at once, and clears `set_at` so that the next end of a turn sets it again.
    ///
    /// Rings before and after clearing. Before: an end of a turn on another thread that stores
    /// `set_at` in between sets the timer after this ring, so a recent `set_at` keeps a ring to
    /// come. After: an end that read the old `set_at` and skipped setting the timer (its turn
    /// already counted as ended) is followed by a ring, even if the first one was already
    /// consumed.
    #[cold]
    fn ring_now(&self) {
        // Zero would disarm the timer.
        self.ring_in(Duration::from_nanos(1));
        self.set_at.store(NOT_SET, Ordering::Release);
        self.ring_in(Duration::from_nanos(1));
    }

    fn ring_in(&self, after: Duration) {
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: after.as_secs() as libc::time_t,
                tv_nsec: after.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: a timerfd of ours and a valid itimerspec. It fails only on a bad fd or value,
        // neither of which can happen here (and a turn's end could not report it).
        let rc =
            unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        debug_assert_eq!(rc, 0, "timerfd_settime");
    }

    /// Sleeps until it rings (at once if it rang since the last wait).
    fn wait(&self) {
        let mut rings = 0u64;
        loop {
            // SAFETY: reads 8 bytes into `rings`; the fd is ours.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    (&raw mut rings).cast(),
                    std::mem::size_of::<u64>(),
                )
            };
            if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return;
            }
        }
    }
}

impl Server {
    /// Takes the worker from the progress thread for one wait of this thread: the wait calls
    /// [`Turn::poll`] on each round.
    #[inline]
    pub fn turn(&self) -> Turn<'_> {
        // Only where PEs outnumber cores does a turn look at the clock (its end always does).
        let now = if self.shared {
            Instant::now()
        } else {
            self.epoch
        };
        // Only a shared node's turns find it contended (`poll_shared`).
        let serving =
            !self.shared || self.since(now) >= self.contended_until.load(Ordering::Relaxed);
        if serving {
            self.state.fetch_add(ONE_TURN, Ordering::SeqCst);
        }
        Turn {
            server: self,
            serving,
            retry: !serving,
            last: now,
            polled: now,
            quiet: QUIET_ROUNDS,
        }
    }

    /// Nanoseconds from `epoch` to `t`.
    #[inline]
    fn since(&self, t: Instant) -> u64 {
        // In 64 bits (584 years), without the 128-bit product of `as_nanos`: one per turn's end.
        let d = t.saturating_duration_since(self.epoch);
        d.as_secs() * 1_000_000_000 + u64::from(d.subsec_nanos())
    }

    /// A turn ended: the progress thread takes the worker back at most `handback` later, unless
    /// another turn begins meanwhile.
    #[inline]
    fn turn_ended(&self) {
        self.state.fetch_add(TURN_ENDED, Ordering::SeqCst);
        self.remind();
    }

    /// Has the progress thread send `combiner`'s runs when its alarm rings, until
    /// [`Server::forget`].
    pub fn combine_for(&self, combiner: &Arc<Combiner>) {
        self.lock_combiners().push(combiner.clone());
    }

    /// Undoes [`Server::combine_for`].
    pub fn forget(&self, combiner: &Arc<Combiner>) {
        self.lock_combiners().retain(|c| !Arc::ptr_eq(c, combiner));
    }

    fn lock_combiners(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Combiner>>> {
        self.combiners.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Has the alarm ring within `handback` of now (see [`Alarm`]): after a turn ended, and when
    /// a lane began a run, which the progress thread then sends unless the lane does first.
    #[inline]
    pub fn remind(&self) {
        self.alarm.push_back(self.since(Instant::now()));
    }

    /// Sends the runs of every lane (the progress thread, when the alarm rang).
    fn send_runs(&self) {
        for combiner in self.lock_combiners().iter() {
            combiner.send_for_lane();
        }
    }

    #[inline]
    fn in_turn(&self) -> bool {
        self.state.load(Ordering::SeqCst) & IN_TURN != 0
    }

    #[inline]
    fn turns_ended(&self) -> u64 {
        self.state.load(Ordering::SeqCst) >> 32
    }
}

/// What one [`Turn::poll`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    /// The turn has handed the worker back: the wait may yield.
    No,
    /// Nothing arrived this round; the turn goes on.
    Nothing,
    /// A request was answered this round.
    Answered,
}

/// One thread's wait serving the target worker ([`Server::turn`]); dropping it ends the turn.
pub struct Turn<'a> {
    server: &'a Server,
    serving: bool,
    /// Not serving because the node was busy: serve again once `contended_until` has passed.
    retry: bool,
    /// When this thread last answered a request (or began).
    last: Instant,
    /// When the last poll ended.
    polled: Instant,
    /// Rounds of [`Turn::poll_aside`] since the worker last answered a request (from
    /// [`QUIET_ROUNDS`] on, the worker is quiet).
    quiet: u32,
}

/// Rounds of a wait after the target worker's last answer during which [`Turn::poll_aside`]
/// progresses it on every round: a stream of requests (a peer's gets, every 12-16 us over TCP)
/// keeps it served at once.
const QUIET_ROUNDS: u32 = 64;

/// Rounds of a wait between two progresses of a quiet target worker in [`Turn::poll_aside`].
const QUIET_EVERY: u32 = 4;

impl Turn<'_> {
    /// Progresses the target worker while this thread serves it.
    #[inline]
    pub fn poll(&mut self) -> Served {
        if !self.server.shared {
            return match self.server.worker.progress() {
                0 => Served::Nothing,
                _ => Served::Answered,
            };
        }
        self.poll_shared()
    }

    /// As [`Turn::poll`], for a round of a wait whose own event arrives at another worker (a
    /// signal, a collective's message): where every PE has a core, a quiet worker (no request
    /// answered in the last [`QUIET_ROUNDS`] rounds) is progressed only every [`QUIET_EVERY`]
    /// rounds. Over TCP each progress is a system call; one fewer per round brings the wait's
    /// next look at its own worker closer. A skipped round reports [`Served::Nothing`].
    #[inline]
    pub fn poll_aside(&mut self, round: u32) -> Served {
        if !self.server.shared && self.quiet >= QUIET_ROUNDS && !round.is_multiple_of(QUIET_EVERY) {
            return Served::Nothing;
        }
        let served = self.poll();
        self.quiet = match served {
            Served::Answered => 0,
            _ => self.quiet.saturating_add(1),
        };
        served
    }

    /// [`Turn::poll`] where the node's PEs outnumber its cores: hands the worker back at a gap or
    /// after `SERVE_GAP`.
    #[inline]
    fn poll_shared(&mut self) -> Served {
        if !self.serving && !self.resume() {
            return Served::No;
        }
        let now = Instant::now();
        let gap = now.duration_since(self.polled);
        if gap > DESCHEDULED {
            let until = self.server.since(now) + CONTENDED_FOR.as_nanos() as u64;
            self.server.contended_until.store(until, Ordering::Relaxed);
            self.hand_back();
            self.retry = true;
            return Served::No;
        }
        let answered = self.server.worker.progress() != 0;
        self.polled = Instant::now();
        if answered {
            self.last = self.polled;
            return Served::Answered;
        }
        if self.polled.duration_since(self.last) > SERVE_GAP {
            self.hand_back();
            return Served::No;
        }
        Served::Nothing
    }

    /// Serves again if the turn stopped because the node was busy and `CONTENDED_FOR` has passed
    /// (a long wait, the one of a PE whose peer works on it, gets the worker back).
    #[inline]
    fn resume(&mut self) -> bool {
        if !self.retry {
            return false;
        }
        let now = Instant::now();
        if self.server.since(now) < self.server.contended_until.load(Ordering::Relaxed) {
            return false;
        }
        self.server.state.fetch_add(ONE_TURN, Ordering::SeqCst);
        self.serving = true;
        self.retry = false;
        self.last = now;
        self.polled = now;
        true
    }

    /// Ends the turn early and has the progress thread resume at once.
    #[cold]
    fn hand_back(&mut self) {
        self.end();
        self.server.alarm.ring_now();
    }

    #[inline]
    fn end(&mut self) {
        self.serving = false;
        self.server.turn_ended();
    }
}

impl Drop for Turn<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.serving {
            self.end();
        }
    }
}

/// A thread progressing one worker while no thread of the PE serves it, until stopped.
pub struct ProgressThread {
    server: Arc<Server>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl ProgressThread {
    /// Starts serving `worker` on a new thread.
    pub fn spawn(worker: &Worker) -> Result<ProgressThread> {
        // Fails early, on the caller's thread, if the worker has no event fd.
        worker.event_fd()?;
        let server = Arc::new(Server {
            worker: worker.clone(),
            state: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            alarm: Alarm::new(Delays::of(Duration::from_micros(
                HANDBACK_US.load(Ordering::Relaxed),
            )))?,
            contended_until: AtomicU64::new(0),
            epoch: Instant::now(),
            shared: OVERSUBSCRIBED.load(Ordering::Relaxed),
            combiners: Mutex::new(Vec::new()),
        });
        let thread = {
            let server = server.clone();
            std::thread::Builder::new()
                .name("ucx-progress".into())
                .spawn(move || run(&server))
                .map_err(|_| Error {
                    call: "spawning the progress thread",
                    status: UCS_ERR_IO_ERROR,
                })?
        };
        Ok(ProgressThread {
            server,
            thread: Some(thread),
        })
    }

    /// The worker's server, for the threads that wait in the library.
    pub fn server(&self) -> &Arc<Server> {
        &self.server
    }

    /// Stops the thread and returns what it ended with.
    pub fn stop(mut self) -> Result<()> {
        self.halt()
    }

    fn halt(&mut self) -> Result<()> {
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        self.server.stop.store(true, Ordering::SeqCst);
        self.server.alarm.ring_now();
        self.server.worker.signal()?;
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

/// The thread's loop: while turns go on, sleep on the alarm; else progress until idle, arm, sleep
/// on the event fd and the alarm. Each ring of the alarm sends the lanes' runs.
fn run(server: &Server) -> Result<()> {
    let worker = &server.worker;
    let fd = worker.event_fd()?.as_raw_fd();
    let alarm = server.alarm.fd.as_raw_fd();
    // Turns ended when the thread last looked: one that ended since means the PE is going in and
    // out of the library, serving itself.
    let mut ended = server.turns_ended();
    while !server.stop.load(Ordering::SeqCst) {
        if server.in_turn() || server.turns_ended() != ended {
            stand_by(server);
            ended = server.turns_ended();
            continue;
        }
        while worker.progress() != 0 {}
        if server.in_turn() || worker.arm()? == Armed::Busy {
            continue;
        }
        let mut pollfds = [fd, alarm].map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        });
        // SAFETY: two valid entries; the fds stay open while `worker` and `server` live (this
        // frame).
        let ready = unsafe { libc::poll(pollfds.as_mut_ptr(), 2, -1) };
        if ready < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Err(Error {
                call: "poll on the worker's event fd",
                status: UCS_ERR_IO_ERROR,
            });
        }
        if ready > 0 && pollfds[1].revents != 0 {
            // The ring `stand_by` waits for, consumed here: the turns that ended before it (a
            // hand-back among them) leave the worker to this thread unless one is on now.
            server.alarm.wait();
            server.send_runs();
            ended = server.turns_ended();
        }
    }
    Ok(())
}

/// Sleeps on the alarm until it rings with no turn on (at most `handback` after the last turn
/// ended, or at once when a turn handed the worker back), or stop. Returns with no turn on (or
/// stopping).
fn stand_by(server: &Server) {
    loop {
        server.alarm.wait();
        server.send_runs();
        if server.stop.load(Ordering::SeqCst) || !server.in_turn() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Waits for `alarm` on another thread; whether it rang within `limit` (a hang guard only:
    /// the rings under test come within a few milliseconds).
    fn rings_within(alarm: &Arc<Alarm>, limit: Duration) -> bool {
        let (tx, rx) = mpsc::channel();
        let waiter = alarm.clone();
        std::thread::spawn(move || {
            waiter.wait();
            let _ = tx.send(());
        });
        rx.recv_timeout(limit).is_ok()
    }

    const LIMIT: Duration = Duration::from_secs(10);

    #[test]
    fn an_alarm_set_by_a_turn_end_rings_and_a_recent_one_is_not_set_again() {
        let alarm = Arc::new(Alarm::new(Delays::of(Duration::from_micros(750))).unwrap());
        let rearm = alarm.delays.rearm.as_nanos() as u64;
        // Never set: the first end sets it, whenever it comes (even at 0, the server's epoch).
        alarm.push_back(0);
        assert_eq!(alarm.set_at.load(Ordering::Relaxed), 0);
        // Within `rearm` of that: not set again (the ring to come stands).
        alarm.push_back(rearm - 1);
        assert_eq!(alarm.set_at.load(Ordering::Relaxed), 0);
        assert!(
            rings_within(&alarm, LIMIT),
            "the alarm a turn's end set did not ring"
        );
        // `rearm` later: set again.
        alarm.push_back(rearm);
        assert_eq!(alarm.set_at.load(Ordering::Relaxed), rearm);
        assert!(
            rings_within(&alarm, LIMIT),
            "the alarm set again did not ring"
        );
    }

    #[test]
    fn ringing_at_once_clears_the_setting_so_the_next_end_sets_it() {
        let alarm = Arc::new(Alarm::new(Delays::of(Duration::from_micros(750))).unwrap());
        alarm.push_back(5);
        alarm.ring_now();
        assert_eq!(alarm.set_at.load(Ordering::Relaxed), NOT_SET);
        assert!(rings_within(&alarm, LIMIT), "ring_now did not ring");
        // An end right after (within `rearm` of the old setting) sets it again.
        alarm.push_back(6);
        assert_eq!(alarm.set_at.load(Ordering::Relaxed), 6);
        assert!(
            rings_within(&alarm, LIMIT),
            "the alarm set after ring_now did not ring"
        );
    }
}
