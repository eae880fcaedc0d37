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
//! On a busy node a thread woken from `poll` runs ahead of the busy ones while a spinning or
//! yielding one waits for its time slice, so there the progress thread should serve. A turn
//! therefore hands the worker back (for `CONTENDED_FOR`, then turns try again) when it finds its
//! thread descheduled between two polls (a gap over `DESCHEDULED`):
//! - where the node's PEs outnumber its cores ([`configure`]), at the first such gap, and also
//!   when it has answered nothing for `SERVE_GAP` (its wait may then yield the core);
//! - where every PE has a core, only when the gaps add up to more than `LOST_SHARE` of a
//!   `WINDOW` (or one gap is longer than the window): there a preemption now and then (an
//!   interrupt, the progress thread's look every `HANDBACK`) is no sign of a busy node, and
//!   handing the worker at each one to a thread that must be woken for every request (tens of
//!   microseconds each) made the 2-PE round trips over TCP bimodal, their median twice the best.
//!
//! Invariants: the worker is in `UCS_THREAD_MODE_MULTI` (the owner's threads and the progress
//! thread may overlap briefly). `state` counts the threads inside a turn (low half) and the turns
//! ended (high half). The progress thread does not progress while a turn is on: it checks before
//! progressing and after every wake-up, and then parks (not on the event fd, which stays readable
//! while someone else handles the events) until no turn was on for a whole `HANDBACK`, or a turn
//! handed the worker back early: a PE going in and out of the library (a barrier loop) does not
//! wake it on every exit, and two threads do not take turns on the worker's lock. It sleeps on
//! the fd only after `ucp_worker_arm` said nothing is pending. Stopping sets a flag, unparks the
//! thread and signals the worker, so the flag is seen wherever the thread sleeps.

use super::{Armed, Error, Result, Worker};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};
use ucx_sys::UCS_ERR_IO_ERROR;

/// Whether this node's PEs outnumber its cores ([`configure`]); until told, assume they do.
static OVERSUBSCRIBED: AtomicBool = AtomicBool::new(true);

/// Says whether this node's PEs outnumber its cores; servers made afterwards follow it.
pub fn configure(oversubscribed: bool) {
    OVERSUBSCRIBED.store(oversubscribed, Ordering::Relaxed);
}

/// A target worker and who progresses it: the threads serving, else the progress thread.
pub struct Server {
    worker: Worker,
    /// Threads of this PE inside a turn (low 32 bits), turns ended (high 32 bits).
    state: AtomicU64,
    /// A turn handed the worker back early (`SERVE_GAP`): the progress thread resumes at once.
    handed: AtomicBool,
    stop: AtomicBool,
    /// The progress thread, to unpark it.
    thread: OnceLock<Thread>,
    /// Until when (nanoseconds after `epoch`) turns leave the worker to the progress thread: a
    /// turn found its thread descheduled, the node is busy.
    contended_until: AtomicU64,
    epoch: Instant,
    /// The node's PEs outnumber its cores: turns hand the worker back at the first gap and after
    /// `SERVE_GAP`.
    shared: bool,
    /// Where every PE has a core: when the current `WINDOW` began (nanoseconds after `epoch`),
    /// and the nanoseconds of its gaps so far.
    window: AtomicU64,
    lost: AtomicU64,
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

/// Where every PE has a core: the node is busy when the gaps over `DESCHEDULED` of a `WINDOW`
/// add up to more than `1 / LOST_SHARE` of it.
const WINDOW: Duration = Duration::from_millis(2);
const LOST_SHARE: u64 = 4;

/// How long no turn must be on before the progress thread takes the worker back.
const HANDBACK: Duration = Duration::from_micros(500);

impl Server {
    /// Takes the worker from the progress thread for one wait of this thread: the wait calls
    /// [`Turn::poll`] on each round.
    #[inline]
    pub fn turn(&self) -> Turn<'_> {
        let now = Instant::now();
        let serving = self.since(now) >= self.contended_until.load(Ordering::Relaxed);
        if serving {
            self.state.fetch_add(ONE_TURN, Ordering::SeqCst);
        }
        Turn {
            server: self,
            serving,
            retry: !serving,
            last: now,
            polled: now,
        }
    }

    /// Nanoseconds from `epoch` to `t`.
    #[inline]
    fn since(&self, t: Instant) -> u64 {
        t.duration_since(self.epoch).as_nanos() as u64
    }

    /// A turn's thread was descheduled for `gap` until `now`: whether the node is busy enough
    /// that the progress thread should serve for a while.
    #[cold]
    fn busy_node(&self, now: Instant, gap: Duration) -> bool {
        if self.shared || gap >= WINDOW {
            return true;
        }
        let t = self.since(now);
        let start = self.window.load(Ordering::Relaxed);
        let lost = self
            .lost
            .fetch_add(gap.as_nanos() as u64, Ordering::Relaxed)
            + gap.as_nanos() as u64;
        let elapsed = t.saturating_sub(start);
        if elapsed < WINDOW.as_nanos() as u64 {
            return false;
        }
        self.window.store(t, Ordering::Relaxed);
        self.lost.store(0, Ordering::Relaxed);
        lost * LOST_SHARE > elapsed
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
}

impl Turn<'_> {
    /// Progresses the target worker while this thread serves it.
    #[inline]
    pub fn poll(&mut self) -> Served {
        if !self.serving && !self.resume() {
            return Served::No;
        }
        let now = Instant::now();
        let gap = now.duration_since(self.polled);
        if gap > DESCHEDULED && self.server.busy_node(now, gap) {
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
        if self.server.shared && self.polled.duration_since(self.last) > SERVE_GAP {
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
        self.server.handed.store(true, Ordering::SeqCst);
        if let Some(thread) = self.server.thread.get() {
            thread.unpark();
        }
    }

    #[inline]
    fn end(&mut self) {
        self.serving = false;
        self.server.state.fetch_add(TURN_ENDED, Ordering::SeqCst);
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
            handed: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            thread: OnceLock::new(),
            contended_until: AtomicU64::new(0),
            epoch: Instant::now(),
            shared: OVERSUBSCRIBED.load(Ordering::Relaxed),
            window: AtomicU64::new(0),
            lost: AtomicU64::new(0),
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
        let _ = server.thread.set(thread.thread().clone());
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
        thread.thread().unpark();
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

/// The thread's loop: while turns go on, park; else progress until idle, arm, sleep on the event
/// fd.
fn run(server: &Server) -> Result<()> {
    let worker = &server.worker;
    let fd = worker.event_fd()?.as_raw_fd();
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

/// Parks until no turn was on for a whole `HANDBACK`, a turn handed the worker back, or stop.
/// Returns with no turn on (or stopping).
fn stand_by(server: &Server) {
    loop {
        let ended = server.turns_ended();
        std::thread::park_timeout(HANDBACK);
        if server.stop.load(Ordering::SeqCst) {
            return;
        }
        let handed = server.handed.swap(false, Ordering::SeqCst);
        if !server.in_turn() && (handed || server.turns_ended() == ended) {
            return;
        }
    }
}
