//! Waiting. Jobs may run more PEs than cores, so every wait spins a bounded number of times and
//! then yields the core every few further checks (`IDLE_YIELD`), letting the PE it waits for run.
//!
//! How long to spin first is learnt, like an adaptive mutex: when the PE being waited for runs on
//! a core of its own, the condition comes true while this PE spins, and yielding would only hand
//! the core to some other process for a time slice; when it shares this core (a busy node), spinning
//! only delays it. Each wait that ends while spinning doubles the budget (up to a ceiling), each
//! wait that has to yield halves it (down to a floor). Both come from the job's shape
//! (`configure`): from `DEDICATED_FLOOR` to `MAX_SPINS` when every local PE can have a core (the
//! floor, about 3 us of `pause` on this project's machines, still catches a peer that is running:
//! a 2-PE barrier takes a fraction of that), fixed at `OVERSUBSCRIBED_SPINS` when they outnumber
//! the cores (then the PE being waited for often needs this very core, and a long spin would keep
//! it from it however often spinning paid off).
//!
//! A waiting PE whose launcher is gone would wait forever: every `PARENT_CHECK` yields (never while
//! spinning) a wait compares the parent process with the one recorded at init ([`watch_parent`]);
//! a PE reparented because its launcher died ends with a message saying so. That covers every
//! launcher whose PEs are its children (oshrun, Hydra's proxy, Open MPI's `mpirun`, Slurm's
//! step daemon).
//!
//! A wait may describe what it waits for ([`until_watching_as`]: a closure run only when a hang
//! report is printed, see `runtime::hang`); the same slow-path checks answer the reports.

use super::world::{self, World};
use std::hint::spin_loop;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Rounds (yields, or polls that kept the wait spinning) between two looks at the parent process.
const PARENT_CHECK: u32 = 64;

/// The parent process at init (the launcher, or its daemon); 0 before init.
static PARENT: AtomicU32 = AtomicU32::new(0);

/// Records the parent process, which the waits watch from now on.
pub fn watch_parent() {
    PARENT.store(std::os::unix::process::parent_id(), Ordering::Relaxed);
}

/// Ends this PE if its parent process has changed since init (the launcher died).
#[cold]
fn check_parent() {
    let parent = PARENT.load(Ordering::Relaxed);
    if parent != 0 && std::os::unix::process::parent_id() != parent {
        super::error::launcher_gone(parent);
    }
}

/// Busy rounds (`poll` true) between two yields all the same: a thread of this PE that the
/// network needs (UCX's own) gets the core now and then.
const BUSY_YIELD: u32 = 32;

/// Rounds of a wait after its spin between two yields when its poll found nothing: a round that
/// polls the network makes system calls (a microsecond or two over TCP), and a yield where another
/// process waits for the core costs a context switch, several microseconds on a virtual machine.
/// Yielding on every such round, four PEs over TCP on two cores switched 13 times per 8-byte
/// reduction (OSHMEM 5) and took 1.2-1.4 times OSHMEM's time; every fourth, 5 times and 1.0-1.2.
/// A round that only looks at memory costs nanoseconds: three more of them change nothing.
const IDLE_YIELD: u32 = 4;

/// Checks between two calls of a wait's `poll` while it spins (a network PE answers its peers
/// from there: they should not wait for the spin to end).
const POLL_SPINS: u32 = 8;

/// Most checks before yielding (about 40 us of `pause`, 10 ns each on this project's machines).
const MAX_SPINS: u32 = 1 << 12;
/// Fewest checks before yielding when every local PE can have a core.
const DEDICATED_FLOOR: u32 = 256;
/// Checks before yielding when local PEs outnumber the cores.
const OVERSUBSCRIBED_SPINS: u32 = 16;

/// The current budget, shared by the PE's threads (a hint: races only blur the adaptation).
static SPINS: AtomicU32 = AtomicU32::new(OVERSUBSCRIBED_SPINS);
/// The least the budget may shrink to in this job.
static FLOOR: AtomicU32 = AtomicU32::new(OVERSUBSCRIBED_SPINS);
/// The most the budget may grow to in this job.
static CEILING: AtomicU32 = AtomicU32::new(OVERSUBSCRIBED_SPINS);

/// Sets the floor, the ceiling and the starting budget for `local_pes` PEs on this node, at init.
pub fn configure(local_pes: usize) {
    let over = oversubscribed(local_pes);
    OVERSUBSCRIBED.store(over, Ordering::Relaxed);
    let (floor, ceiling) = if over {
        (OVERSUBSCRIBED_SPINS, OVERSUBSCRIBED_SPINS)
    } else {
        (DEDICATED_FLOOR, MAX_SPINS)
    };
    FLOOR.store(floor, Ordering::Relaxed);
    CEILING.store(ceiling, Ordering::Relaxed);
    SPINS.store(ceiling, Ordering::Relaxed);
}

/// Whether this node's PEs outnumber its cores (set by [`configure`]).
static OVERSUBSCRIBED: AtomicBool = AtomicBool::new(false);

/// Whether this node's PEs outnumber the cores (as [`configure`] was told).
#[inline]
pub fn oversubscribed_node() -> bool {
    OVERSUBSCRIBED.load(Ordering::Relaxed)
}

/// Whether `local_pes` PEs on this node outnumber the cores this process may run on.
fn oversubscribed(local_pes: usize) -> bool {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    local_pes > cores
}

/// Returns when `done()` is true.
#[inline]
pub fn until(done: impl FnMut() -> bool) {
    until_polling(done, || false)
}

/// As [`until`], calling `poll` every `POLL_SPINS` checks and on each later round: a PE whose UCX
/// operations wait in a queue for the progress of its own worker (a full socket) gets them moving
/// while it waits for a peer, and may answer its peers' requests itself. A round whose `poll`
/// returns true (the network is busy answering) does not yield, unless local PEs outnumber the
/// cores.
pub fn until_polling(done: impl FnMut() -> bool, poll: impl FnMut() -> bool) {
    until_watching(done, poll, || {})
}

/// A check the slow path of every wait makes (`runtime::departure` registers one at init: a PE
/// whose peers have all left ends the job instead of waiting forever).
static SLOW_CHECK: std::sync::OnceLock<fn(&mut dyn FnMut() -> bool)> = std::sync::OnceLock::new();

/// Registers the check every wait makes in its slow path, given the wait's condition (once; later
/// calls change nothing).
pub fn set_slow_check(check: fn(&mut dyn FnMut() -> bool)) {
    let _ = SLOW_CHECK.set(check);
}

/// As [`until`], `what` writing what the wait waits for when a hang report asks.
#[inline]
pub fn until_as(done: impl FnMut() -> bool, what: impl Fn(&mut String)) {
    until_watching_as(done, || false, || {}, what)
}

/// As [`until_polling`], `what` writing what the wait waits for when a hang report asks.
#[inline]
pub fn until_polling_as(
    done: impl FnMut() -> bool,
    poll: impl FnMut() -> bool,
    what: impl Fn(&mut String),
) {
    until_watching_as(done, poll, || {}, what)
}

/// As [`until_polling`], calling `watch` too every `PARENT_CHECK` yields (after the checks every
/// wait makes: the launcher alive, some other PE still there, see `runtime::departure`).
pub fn until_watching(done: impl FnMut() -> bool, poll: impl FnMut() -> bool, watch: impl FnMut()) {
    until_watching_as(done, poll, watch, super::hang::undescribed)
}

/// As [`until_watching`], `what` writing what the wait waits for when a hang report asks (see
/// `runtime::hang`; it runs only then).
pub fn until_watching_as(
    mut done: impl FnMut() -> bool,
    mut poll: impl FnMut() -> bool,
    mut watch: impl FnMut(),
    what: impl Fn(&mut String),
) {
    if done() {
        return;
    }
    let budget = SPINS.load(Ordering::Relaxed);
    for spin in 0..budget {
        spin_loop();
        if spin % POLL_SPINS == POLL_SPINS - 1 {
            let _ = poll();
        }
        if done() {
            if budget < CEILING.load(Ordering::Relaxed) {
                SPINS.store(budget * 2, Ordering::Relaxed);
            }
            return;
        }
    }
    if budget > FLOOR.load(Ordering::Relaxed) {
        SPINS.store(budget / 2, Ordering::Relaxed);
    }
    // A round whose poll found nothing yields every `IDLE_YIELD` rounds; a busy poll keeps the
    // wait spinning (but for every `BUSY_YIELD`-th round) only where every local PE has a core.
    let may_spin = CEILING.load(Ordering::Relaxed) > OVERSUBSCRIBED_SPINS;
    let mut rounds = 0u32;
    // Hang reports (`runtime::hang`): requests are looked for after every round, the wait
    // registers as blocked at its first periodic check.
    let asked = super::hang::requests();
    let mut blocked: Option<super::hang::Blocked> = None;
    while !done() {
        let busy = poll() && may_spin;
        if (!busy && rounds.is_multiple_of(IDLE_YIELD)) || rounds.is_multiple_of(BUSY_YIELD) {
            crate::transport::cores::yield_core();
        }
        rounds = rounds.wrapping_add(1);
        let periodic = rounds.is_multiple_of(PARENT_CHECK);
        if periodic {
            check_parent();
            if let Some(check) = SLOW_CHECK.get() {
                check(&mut done);
            }
            watch();
        }
        if periodic || super::hang::requests() != blocked.as_ref().map_or(asked, |b| b.seen()) {
            blocked
                .get_or_insert_with(|| super::hang::Blocked::enter(asked))
                .check(&what);
        }
    }
}

/// The waits of a PE of the job: the plain waits above, with the World's network served meanwhile
/// when the job has one. They live here, not in `world`, so that the World knows nothing of how a
/// wait watches for hangs and deadlocks (`hang`, `deadlock`), which read the World.
impl World {
    /// Waits until `done()` ([`until`]), moving what the network's default lane has
    /// queued and answering peers meanwhile when the job has a network (the network's progress
    /// thread stays out of the way).
    #[inline]
    pub fn wait_until(&self, done: impl FnMut() -> bool) {
        match self.remote() {
            None => until(done),
            Some(net) => net.serve(false, |poll| until_polling(done, poll)),
        }
    }

    /// As [`World::wait_until`], `what` writing what the wait waits for when a hang report asks.
    #[inline]
    pub fn wait_until_as(&self, done: impl FnMut() -> bool, what: impl Fn(&mut String)) {
        match self.remote() {
            None => until_as(done, what),
            Some(net) => net.serve(false, |poll| until_polling_as(done, poll, what)),
        }
    }
}

/// Waits until `done()` ([`World::wait_until_as`] once the World exists, a plain wait before),
/// `what` writing what the wait waits for when a hang report asks (see `runtime::hang`).
pub fn until_as_served(done: impl FnMut() -> bool, what: impl Fn(&mut String)) {
    match world::try_get() {
        Some(w) => w.wait_until_as(done, what),
        None => until_as(done, what),
    }
}
