//! Distributed locking (OpenSHMEM 1.6): set_lock, test_lock, clear_lock on a symmetric lock
//! variable that the program initialized to 0: a C `long`, or a Fortran default `INTEGER` (4 bytes
//! with gfortran) for the legacy Fortran routines.
//!
//! A ticket lock on PE 0's copy of the lock word (every PE uses that one copy): the high half
//! holds the next ticket to hand out, the low half the ticket now served. The lock is free when
//! they are equal, which the spec's initial value 0 is. `set_lock` takes a ticket with one atomic
//! add on the high half and waits until the low half reaches it, so PEs get the lock in the order
//! they asked (fair, FIFO); the wait spins on an atomic load and yields ([`crate::runtime::wait::until`]), and no
//! wake-up can be lost since the holder's release is the very store the waiter reads. `test_lock`
//! takes the lock only when it is free, with one compare-and-swap. `clear_lock` first completes
//! this PE's earlier puts (quiet), then advances the low half with a compare-and-swap loop that
//! leaves the high half as concurrent `set_lock` calls change it. Both halves count modulo
//! 2^(half width): 2^32 for a `long`, 2^16 for a 4-byte Fortran lock, which bounds the PEs that
//! can wait for one lock at once to 65535 there.
//!
//! Every access to the lock word goes by the job's atomic path: with some PE on the UCX route the
//! wait polls PE 0's word with UCX atomic fetches.
//!
//! The lock word must be symmetric and 8-byte aligned. Clearing a lock that is not set is
//! reported. (A ticket lock does not record its holder, so clearing a lock that another PE holds
//! cannot be told apart from clearing one's own.) Under `SHMEM_DEBUG` each PE keeps the locks it
//! holds, so that a `set_lock` on a lock this PE already holds (which would wait for itself
//! forever) is reported instead of hanging. For the hang and deadlock reports every PE keeps the
//! locks it holds with their tickets (`runtime::hang::lock_held`): a waiter reports the ticket the
//! lock serves, the holder that it holds the lock by that ticket.

#![deny(unsafe_code)]

use super::amo::{Slot, slot};
use crate::fatal;
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote::Rmw;
use crate::runtime::{wait, world};
use crate::transport::AmoWord;
use crate::transport::shm::Word;
use std::ffi::{c_int, c_long};
use std::fmt::Write as _;
use std::sync::Mutex;

/// Under `SHMEM_DEBUG`: the addresses of the locks this PE holds.
static HELD: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Under `SHMEM_DEBUG`, records that this PE took (`true`) or released the lock at `lock`.
fn track(call: &'static str, lock: usize, taken: bool) {
    if !world::get(call).config.debug {
        return;
    }
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if taken {
        held.push(lock);
    } else if let Some(i) = held.iter().position(|&l| l == lock) {
        held.swap_remove(i);
    }
}

/// Under `SHMEM_DEBUG`, the error for a `set_lock` on a lock this PE holds.
fn check_not_held(call: &'static str, lock: usize) {
    if world::get(call).config.debug
        && HELD
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&lock)
    {
        fatal!(
            call,
            "lock {lock:#x}: this PE already holds it (set_lock twice without clear_lock would wait for itself forever)"
        );
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A lock variable type: it is used as the unsigned word of its size, split into two halves.
pub trait Lock: sealed::Sealed {
    type Word: Word + AmoWord + Default + Into<u64> + TryFrom<u64>;
    /// Bits in one half.
    const HALF: u32;
}

impl sealed::Sealed for c_long {}
impl Lock for c_long {
    type Word = u64;
    const HALF: u32 = 32;
}
impl sealed::Sealed for c_int {}
impl Lock for c_int {
    type Word = u32;
    const HALF: u32 = 16;
}

/// The PE whose copy of the lock word every PE uses.
const HOME: usize = 0;

/// The mask of the low `bits` bits.
const fn half_mask(bits: u32) -> u64 {
    if bits >= u64::BITS {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn next_ticket<L: Lock>(word: u64) -> u64 {
    (word >> L::HALF) & half_mask(L::HALF)
}

fn serving<L: Lock>(word: u64) -> u64 {
    word & half_mask(L::HALF)
}

fn to_word<L: Lock>(v: u64) -> L::Word {
    // Every value built here fits the word: two halves of `HALF` bits.
    L::Word::try_from(v).unwrap_or_else(|_| unreachable!("lock word out of range"))
}

/// PE `HOME`'s copy of the lock word, after the checks (symmetric, aligned), reached by the
/// job's atomic path.
fn word<L: Lock>(call: &'static str, lock: *mut L) -> Slot<L::Word> {
    let w = world::get(call);
    slot(w, call, SHMEM_CTX_DEFAULT, "lock", lock as usize, HOME)
}

/// `shmem_set_lock`: waits for the lock, in the order the PEs asked for it, and takes it.
pub fn set<L: Lock>(call: &'static str, lock: *mut L) {
    let p = word(call, lock);
    check_not_held(call, lock as usize);
    let old: u64 = p
        .rmw(call, Rmw::Add, to_word::<L>(1 << L::HALF), true)
        .into();
    let mine = next_ticket::<L>(old);
    wait::until_as_served(
        || serving::<L>(p.load(call).into()) == mine,
        |out| {
            let now = serving::<L>(p.load(call).into());
            let _ = write!(
                out,
                "{call}: lock={lock:p}: waits with ticket {mine}; the lock serves ticket {now} (the PE that holds it reports `holds lock=.. by ticket {now}`)"
            );
        },
    );
    track(call, lock as usize, true);
    crate::runtime::hang::lock_held(lock as usize, Some(mine));
}

/// `shmem_test_lock`: takes the lock and returns 0 if it is free, else returns 1 at once.
pub fn test<L: Lock>(call: &'static str, lock: *mut L) -> c_int {
    let p = word(call, lock);
    let now: u64 = p.load(call).into();
    if next_ticket::<L>(now) != serving::<L>(now) {
        return 1;
    }
    let taken = now.wrapping_add(1 << L::HALF) & half_mask(2 * L::HALF);
    let old: u64 = p
        .compare_swap(call, to_word::<L>(now), to_word::<L>(taken))
        .into();
    if old == now {
        track(call, lock as usize, true);
        crate::runtime::hang::lock_held(lock as usize, Some(next_ticket::<L>(now)));
    }
    (old != now) as c_int
}

/// `shmem_clear_lock`: completes this PE's puts, then hands the lock to the next ticket.
pub fn clear<L: Lock>(call: &'static str, lock: *mut L) {
    let p = word(call, lock);
    super::order::complete(call);
    let mut now: u64 = p.load(call).into();
    loop {
        if next_ticket::<L>(now) == serving::<L>(now) {
            not_set(call, lock as usize);
        }
        let next = (now & !half_mask(L::HALF)) | ((serving::<L>(now) + 1) & half_mask(L::HALF));
        let old: u64 = p
            .compare_swap(call, to_word::<L>(now), to_word::<L>(next))
            .into();
        if old == now {
            track(call, lock as usize, false);
            crate::runtime::hang::lock_held(lock as usize, None);
            return;
        }
        now = old;
    }
}

#[cold]
#[inline(never)]
fn not_set(call: &'static str, lock: usize) -> ! {
    fatal!(
        call,
        "lock {lock:#x} is not set: clear_lock must follow a set_lock or a successful test_lock"
    )
}
