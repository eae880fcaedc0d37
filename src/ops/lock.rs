//! Distributed locking (OpenSHMEM 1.6): set_lock, test_lock, clear_lock on a symmetric
//! `long` that the program initialized to 0.
//!
//! A ticket lock on PE 0's copy of the lock word (every PE uses that one copy): the high 32 bits
//! hold the next ticket to hand out, the low 32 bits the ticket now served. The lock is free when
//! they are equal, which the spec's initial value 0 is. `set_lock` takes a ticket with one atomic
//! add on the high half and waits until the low half reaches it, so PEs get the lock in the order
//! they asked (fair, FIFO); the wait spins on an atomic load and yields ([`wait::until`]), and no
//! wake-up can be lost since the holder's release is the very store the waiter reads. `test_lock`
//! takes the lock only when it is free, with one compare-and-swap. `clear_lock` first completes
//! this PE's earlier puts (quiet), then advances the low half with a compare-and-swap loop that
//! leaves the high half as concurrent `set_lock` calls change it. Both halves count modulo 2^32.
//!
//! Every access to the lock word goes by the job's atomic path: with some PE on the UCX route the
//! wait polls PE 0's word with UCX atomic fetches.
//!
//! The lock word must be symmetric and 8-byte aligned. Clearing a lock that is not set is
//! reported. (A ticket lock does not record its holder, so clearing a lock that another PE holds
//! cannot be told apart from clearing one's own.)

use super::amo::{Slot, slot};
use super::net::Rmw;
use crate::fatal;
use crate::runtime::{wait, world};
use std::ffi::c_long;

/// The PE whose copy of the lock word every PE uses.
const HOME: usize = 0;
/// One ticket, in the high half.
const TICKET: u64 = 1 << 32;
/// The low half.
const SERVING: u64 = 0xffff_ffff;

fn next_ticket(word: u64) -> u32 {
    (word >> 32) as u32
}

fn serving(word: u64) -> u32 {
    (word & SERVING) as u32
}

/// PE `HOME`'s copy of the lock word, after the checks (symmetric, aligned), reached by the
/// job's atomic path.
fn word(call: &'static str, lock: *mut c_long) -> Slot<u64> {
    let w = world::get(call);
    slot(w, call, "lock", lock as usize, HOME)
}

/// `shmem_set_lock`: waits for the lock, in the order the PEs asked for it, and takes it.
pub fn set(call: &'static str, lock: *mut c_long) {
    let p = word(call, lock);
    let mine = next_ticket(p.rmw(call, Rmw::Add, TICKET, true));
    wait::until(|| serving(p.load(call)) == mine);
}

/// `shmem_test_lock`: takes the lock and returns 0 if it is free, else returns 1 at once.
pub fn test(call: &'static str, lock: *mut c_long) -> std::ffi::c_int {
    let p = word(call, lock);
    let now = p.load(call);
    if next_ticket(now) != serving(now) {
        return 1;
    }
    let old = p.compare_swap(call, now, now.wrapping_add(TICKET));
    (old != now) as std::ffi::c_int
}

/// `shmem_clear_lock`: completes this PE's puts, then hands the lock to the next ticket.
pub fn clear(call: &'static str, lock: *mut c_long) {
    let p = word(call, lock);
    super::order::complete(call);
    let mut now = p.load(call);
    loop {
        if next_ticket(now) == serving(now) {
            not_set(call, lock);
        }
        let next = (now & !SERVING) | u64::from(serving(now).wrapping_add(1));
        let old = p.compare_swap(call, now, next);
        if old == now {
            return;
        }
        now = old;
    }
}

#[cold]
#[inline(never)]
fn not_set(call: &'static str, lock: *mut c_long) -> ! {
    fatal!(
        call,
        "lock {lock:p} is not set: clear_lock must follow a set_lock or a successful test_lock"
    )
}
