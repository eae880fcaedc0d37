//! Waiting. Jobs may run more PEs than cores, so every wait spins a bounded number of times and
//! then yields the core on each further check, letting the PE it waits for run.
//!
//! How long to spin first depends on the job: when every local PE has a core of its own, the PE
//! being waited for is running, and yielding would only hand the core to some other process for a
//! time slice; when the node is oversubscribed, the PE being waited for may need this very core,
//! so the wait yields almost at once.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicU32, Ordering};

/// Checks before yielding when every local PE has a core (about 100 us of `pause`).
const SPINS_DEDICATED: u32 = 1 << 12;
/// Checks before yielding when local PEs outnumber the cores.
const SPINS_OVERSUBSCRIBED: u32 = 16;

static SPINS: AtomicU32 = AtomicU32::new(SPINS_OVERSUBSCRIBED);

/// Chooses the spin budget for `local_pes` PEs on this node (called once at init).
pub fn configure(local_pes: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let spins = if local_pes <= cores {
        SPINS_DEDICATED
    } else {
        SPINS_OVERSUBSCRIBED
    };
    SPINS.store(spins, Ordering::Relaxed);
}

/// Returns when `done()` is true.
#[inline]
pub fn until(mut done: impl FnMut() -> bool) {
    let budget = SPINS.load(Ordering::Relaxed);
    let mut spins = 0;
    while !done() {
        if spins < budget {
            spins += 1;
            spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}
