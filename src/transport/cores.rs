//! A core for each PE of a node, where the node has enough (`SHMEM_SPREAD`), and the yield of
//! every wait of the library.
//!
//! A PE waiting in the library spins and then yields, so it stays runnable; two such PEs on one
//! core take turns on it while another core may sit idle, and a round trip between them then costs
//! time slices instead of microseconds. The kernel does put them so: it places a task woken
//! from a sleep in the kernel beside the task that woke it or on the core it left, and its
//! load balancer does not move a task that ran in the last half millisecond (its cache is warm),
//! which two PEs yielding to each other always are. On this project's machines (2 cores, a kernel
//! that packs woken tasks), 2 PEs over UCX's TCP began that way in 1 run in 30 to 40: for 5 to 40
//! ms each fetching atomic took 170 us instead of 14 (the bench journal, 2026-12-05, morning:
//! `git show f57c210:bench/README.md`). Open MPI's launcher binds
//! each PE to a core at 2 PEs and never sees it; the library cannot bind (threads the program
//! starts, OpenMP's, inherit the binding of the thread that starts them).
//!
//! So each PE has a home core where the node's PEs do not outnumber the cores it may run on: the
//! `i`-th of those cores for the node's `i`-th PE ([`settle`], at the end of `shmem_init`). The
//! thread that called `shmem_init` moves there, and moves back whenever a wait finds it elsewhere
//! with its core shared: after [`STREAK`] yields in a row that each gave the core away (took
//! [`GAVE_AWAY`] or more; one with nothing else to run returns in 1-2 us here), at most once per
//! [`MOVE_EVERY`]. A move sets the thread's affinity to its home core and gives it back at once:
//! nothing stays bound, the kernel may move the thread again, and threads it starts may run
//! wherever it could. Each PE has its own home, so two PEs that find themselves together move
//! apart, never onto each other (one that moved anywhere else was followed by its peer, whose
//! yields the move itself made long). A launcher that bound each PE to one core leaves nothing to
//! do; one that bound each to a set of cores has each PE keep to its own set.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A yield this long gave the core to another thread: one with nothing else to run returns in
/// 1-2 us on this project's virtual machines; one that let a thread yielding back run took 2-20.
const GAVE_AWAY: Duration = Duration::from_micros(4);

/// Yields in a row that gave the core away before the thread checks where it is.
const STREAK: u32 = 4;

/// At most one move home per this time (a move costs two system calls and a migration).
const MOVE_EVERY: Duration = Duration::from_millis(1);

/// Moves home made by waits, in the process (for tests).
static MOVES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The home core of this thread (the one that called `shmem_init`), if it has one.
    static HOME: Cell<Option<usize>> = const { Cell::new(None) };
    /// Yields in a row of this thread that gave its core away.
    static GIVEN: Cell<u32> = const { Cell::new(0) };
    /// When this thread last checked where it runs after a streak.
    static CHECKED: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Gives the calling thread (the one in `shmem_init`) its home core, the `local_rank`-th of the
/// cores it may run on (modulo their number), and moves it there. Nothing when `local_pes` is
/// below 2 or above that number of cores, or when the thread may run on one core only. Returns the
/// home core, if any.
pub(crate) fn settle(local_rank: usize, local_pes: usize) -> Option<usize> {
    let cores = members(&affinity()?);
    if local_pes < 2 || cores.len() < 2 || local_pes > cores.len() {
        HOME.set(None);
        return None;
    }
    let home = cores[local_rank % cores.len()];
    if !move_to(home) {
        HOME.set(None);
        return None;
    }
    HOME.set(Some(home));
    Some(home)
}

/// Yields the core. For the thread with a home core, after a streak of yields that gave the core
/// away, moves it home if it runs elsewhere (see the module's text).
#[inline]
pub(crate) fn yield_core() {
    let Some(home) = HOME.get() else {
        std::thread::yield_now();
        return;
    };
    let start = Instant::now();
    std::thread::yield_now();
    let now = Instant::now();
    if now.duration_since(start) < GAVE_AWAY {
        GIVEN.set(0);
        return;
    }
    let given = GIVEN.get() + 1;
    if given < STREAK {
        GIVEN.set(given);
        return;
    }
    GIVEN.set(0);
    if CHECKED
        .get()
        .is_some_and(|t| now.duration_since(t) < MOVE_EVERY)
    {
        return;
    }
    CHECKED.set(Some(now));
    // SAFETY: plain library call.
    let here = unsafe { libc::sched_getcpu() };
    if usize::try_from(here).is_ok_and(|here| here != home) {
        if move_to(home) {
            MOVES.fetch_add(1, Ordering::Relaxed);
        } else {
            // The program changed this thread's affinity: the home is not ours to keep.
            HOME.set(None);
        }
    }
}

/// The calling thread's affinity, or `None` if it cannot be read.
fn affinity() -> Option<libc::cpu_set_t> {
    let mut set = set_of(&[]);
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: sched_getaffinity writes at most `size` bytes into `set`, for the calling thread (0).
    (unsafe { libc::sched_getaffinity(0, size, &mut set) } == 0).then_some(set)
}

/// Sets the calling thread's affinity to `set`; false if the kernel refused it.
fn set_affinity(set: &libc::cpu_set_t) -> bool {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: a valid set of `size` bytes, for the calling thread (0).
    unsafe { libc::sched_setaffinity(0, size, set) == 0 }
}

/// The set of `cores` (those below CPU_SETSIZE; the others cannot be in a set).
fn set_of(cores: &[usize]) -> libc::cpu_set_t {
    // SAFETY: a zeroed cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cores.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
        // SAFETY: `c` is below CPU_SETSIZE, the bound CPU_SET does not check.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    set
}

/// The cores in `set`, in increasing order.
fn members(set: &libc::cpu_set_t) -> Vec<usize> {
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `c` is below CPU_SETSIZE, the bound CPU_ISSET does not check.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, set) })
        .collect()
}

/// Moves the calling thread to `core` and gives it back the affinity it has now. False (nothing
/// done) if `core` is not in that affinity or a system call failed.
fn move_to(core: usize) -> bool {
    let Some(allowed) = affinity() else {
        return false;
    };
    if !members(&allowed).contains(&core) {
        return false;
    }
    // The first call moves the thread (it may not stay on a core outside the set); the second
    // gives back what it was allowed.
    set_affinity(&set_of(&[core])) && set_affinity(&allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed() -> Vec<usize> {
        members(&affinity().expect("sched_getaffinity"))
    }

    /// Runs `test` on a thread of its own: the test harness's threads keep their placement.
    fn on_own_thread(test: impl FnOnce() + Send + 'static) {
        std::thread::spawn(test).join().unwrap();
    }

    #[test]
    fn a_pe_gets_its_home_core_and_keeps_its_affinity() {
        on_own_thread(|| {
            let before = allowed();
            if before.len() < 2 {
                // One core: no home, nothing done.
                assert_eq!(settle(1, 2), None);
                return;
            }
            let last = before.len() - 1;
            assert_eq!(settle(last, 2), Some(before[last]));
            assert_eq!(HOME.get(), Some(before[last]));
            assert_eq!(allowed(), before, "the affinity was not given back");
            // The rank wraps around the cores.
            assert_eq!(settle(last + 1, 2), Some(before[0]));
        });
    }

    #[test]
    fn no_home_alone_or_where_pes_outnumber_the_cores() {
        on_own_thread(|| {
            let cores = allowed().len();
            assert_eq!(settle(0, 1), None);
            assert_eq!(settle(0, cores + 1), None);
            assert_eq!(HOME.get(), None);
            assert_eq!(allowed().len(), cores);
        });
    }

    #[test]
    fn a_core_outside_the_affinity_is_not_moved_to() {
        on_own_thread(|| {
            let before = allowed();
            assert!(!move_to(libc::CPU_SETSIZE as usize));
            let outside = (0..libc::CPU_SETSIZE as usize).find(|c| !before.contains(c));
            if let Some(outside) = outside {
                assert!(!move_to(outside));
            }
            assert_eq!(allowed(), before);
        });
    }

    #[test]
    fn a_thread_sharing_its_core_goes_home() {
        // A thread with a home core, put on another thread's core (its affinity whole, as the
        // kernel leaves a task it placed), must move home by its own yields, well before the
        // kernel's balancer would move it.
        on_own_thread(|| {
            let before = allowed();
            if before.len() < 2 {
                return;
            }
            let (first, home) = (before[0], before[1]);
            let pin = |core: usize| assert!(set_affinity(&set_of(&[core])));
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let other = {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    pin(first);
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::thread::yield_now();
                    }
                })
            };
            assert_eq!(settle(1, 2), Some(home));
            // Onto the other thread's core, the whole affinity kept, as the kernel would leave it.
            pin(first);
            assert!(set_affinity(&set_of(&before)));
            let moves = MOVES.load(Ordering::Relaxed);
            let deadline = Instant::now() + Duration::from_secs(10);
            // Home by its own yields (a move), or by the kernel's balancer when it acted first
            // (on an idle 2-core machine it may move the thread as soon as its affinity widens:
            // then the yields find it home and have nothing to do). Either way it must get home.
            let at = || {
                // SAFETY: plain library call.
                unsafe { libc::sched_getcpu() }
            };
            while MOVES.load(Ordering::Relaxed) == moves
                && at() != home as i32
                && Instant::now() < deadline
            {
                yield_core();
            }
            let here = at();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            other.join().unwrap();
            assert_eq!(
                here,
                home as i32,
                "the thread did not get home within 10 s ({} moves by its yields)",
                MOVES.load(Ordering::Relaxed) - moves
            );
        });
    }
}
