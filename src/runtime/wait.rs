//! Waiting. Jobs may run more PEs than cores, so every wait spins a bounded number of times and
//! then yields the core on each further check, letting the PE it waits for run.
//!
//! How long to spin first is learnt, like an adaptive mutex: when the PE being waited for runs on
//! a core of its own, the condition comes true while this PE spins, and yielding would only hand
//! the core to some other process for a time slice; when it shares this core (an oversubscribed
//! node, or a busy one), spinning only delays it. Each wait that ends while spinning doubles the
//! budget (up to a ceiling), each wait that has to yield halves it (down to `MIN_SPINS`). The
//! ceiling comes from the job's shape (`configure`): `MAX_SPINS` when every local PE can have a
//! core, `MIN_SPINS` when they outnumber the cores (then a PE being waited for is often waiting
//! for this core, and a long spin would take it from it however often spinning paid off).

use std::hint::spin_loop;
use std::sync::atomic::{AtomicU32, Ordering};

/// Most checks before yielding (about 100 us of `pause` on current x86).
const MAX_SPINS: u32 = 1 << 12;
/// Fewest checks before yielding.
const MIN_SPINS: u32 = 16;

/// The current budget, shared by the PE's threads (a hint: races only blur the adaptation).
static SPINS: AtomicU32 = AtomicU32::new(MIN_SPINS);
/// The most the budget may grow to in this job.
static CEILING: AtomicU32 = AtomicU32::new(MIN_SPINS);

/// Sets the ceiling (and the starting budget) for `local_pes` PEs on this node, at init.
pub fn configure(local_pes: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ceiling = if local_pes <= cores {
        MAX_SPINS
    } else {
        MIN_SPINS
    };
    CEILING.store(ceiling, Ordering::Relaxed);
    SPINS.store(ceiling, Ordering::Relaxed);
}

/// Returns when `done()` is true.
#[inline]
pub fn until(mut done: impl FnMut() -> bool) {
    if done() {
        return;
    }
    let budget = SPINS.load(Ordering::Relaxed);
    for _ in 0..budget {
        spin_loop();
        if done() {
            if budget < CEILING.load(Ordering::Relaxed) {
                SPINS.store(budget * 2, Ordering::Relaxed);
            }
            return;
        }
    }
    if budget > MIN_SPINS {
        SPINS.store(budget / 2, Ordering::Relaxed);
    }
    while !done() {
        std::thread::yield_now();
    }
}
