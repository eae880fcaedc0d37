//! Distributed locking (OpenSHMEM 1.6): set_lock, test_lock, clear_lock on a symmetric lock
//! variable that the program initialized to 0: a C `long`, or a Fortran default `INTEGER` (4 bytes
//! with gfortran) for the legacy Fortran routines.
//!
//! A ticket lock on PE 0's copy of the lock word (every PE uses that one copy): the high half
//! holds the next ticket to hand out, the low half the ticket now served. The lock is free when
//! they are equal, which the spec's initial value 0 is. `set_lock` takes a ticket with one atomic
//! add on the high half and waits until the low half reaches it, so PEs get the lock in the order
//! they asked (fair, FIFO); the wait spins on an atomic load and yields ([`wait::until`]), and no
//! wake-up can be lost since the holder's release is the very store the waiter reads. `test_lock`
//! takes the lock only when it is free, with one compare-and-swap. `clear_lock` first completes
//! this PE's earlier puts (quiet), then advances the low half with a compare-and-swap loop that
//! leaves the high half as concurrent `set_lock` calls change it. Both halves count modulo
//! 2^(half width): 2^32 for a `long`, 2^16 for a 4-byte Fortran lock, which bounds the PEs that
//! can wait for one lock at once to 65535 there.
//!
//! The lock word must be symmetric and naturally aligned. Clearing a lock that is not set is
//! reported. (A ticket lock does not record its holder, so clearing a lock that another PE holds
//! cannot be told apart from clearing one's own.)

use super::amo::misaligned;
use crate::fatal;
use crate::runtime::{wait, world};
use crate::transport::shm::{self, Word};
use std::ffi::{c_int, c_long};

mod sealed {
    pub trait Sealed {}
}

/// A lock variable type: it is used as the unsigned word of its size, split into two halves.
pub trait Lock: sealed::Sealed {
    type Word: Word + Into<u64> + TryFrom<u64>;
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

/// PE `HOME`'s copy of the lock word, after the checks.
fn word<L: Lock>(call: &'static str, lock: *mut L) -> *mut L::Word {
    let w = world::get(call);
    let addr = lock as usize;
    let size = size_of::<L::Word>();
    if !addr.is_multiple_of(size) {
        misaligned(call, "lock", addr, size);
    }
    w.translate(call, "lock", addr, size, HOME) as *mut L::Word
}

/// Loads the lock word.
fn load<L: Lock>(p: *mut L::Word) -> u64 {
    // SAFETY: `p` comes from `word`: PE HOME's copy of a symmetric, aligned word, mapped for the
    // life of the process and, while the lock is used, accessed only atomically.
    unsafe { L::Word::load(p) }.into()
}

/// Compare-and-swap on the lock word; returns the value found.
fn compare_swap<L: Lock>(p: *mut L::Word, cond: u64, value: u64) -> u64 {
    // SAFETY: as in `load`.
    unsafe { L::Word::compare_swap(p, to_word::<L>(cond), to_word::<L>(value)) }.into()
}

/// `shmem_set_lock`: waits for the lock, in the order the PEs asked for it, and takes it.
pub fn set<L: Lock>(call: &'static str, lock: *mut L) {
    let p = word(call, lock);
    // SAFETY: as in `load`; the add wraps within the word, carrying out of the high half only.
    let old: u64 = unsafe { L::Word::fetch_add(p, to_word::<L>(1 << L::HALF)) }.into();
    let mine = next_ticket::<L>(old);
    wait::until(|| serving::<L>(load::<L>(p)) == mine);
}

/// `shmem_test_lock`: takes the lock and returns 0 if it is free, else returns 1 at once.
pub fn test<L: Lock>(call: &'static str, lock: *mut L) -> c_int {
    let p = word(call, lock);
    let now = load::<L>(p);
    if next_ticket::<L>(now) != serving::<L>(now) {
        return 1;
    }
    let taken = now.wrapping_add(1 << L::HALF) & half_mask(2 * L::HALF);
    (compare_swap::<L>(p, now, taken) != now) as c_int
}

/// `shmem_clear_lock`: completes this PE's puts, then hands the lock to the next ticket.
pub fn clear<L: Lock>(call: &'static str, lock: *mut L) {
    let p = word(call, lock);
    shm::order();
    let mut now = load::<L>(p);
    loop {
        if next_ticket::<L>(now) == serving::<L>(now) {
            not_set(call, lock as usize);
        }
        let next = (now & !half_mask(L::HALF)) | ((serving::<L>(now) + 1) & half_mask(L::HALF));
        let old = compare_swap::<L>(p, now, next);
        if old == now {
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
