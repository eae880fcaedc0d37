//! Waiting. Jobs run more PEs than cores, so every wait spins a bounded number of times and then
//! yields the core on each further check, letting the PE it waits for run.

use std::hint::spin_loop;

/// Checks before the wait starts yielding.
const SPINS: u32 = 128;

/// Returns when `done()` is true.
#[inline]
pub fn until(mut done: impl FnMut() -> bool) {
    let mut spins = 0;
    while !done() {
        if spins < SPINS {
            spins += 1;
            spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}
