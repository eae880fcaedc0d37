//! Per-PE counts of the network operations this PE has issued, by kind: what a collective
//! algorithm costs in messages, measured rather than modelled (`SHMEM_COUNTS` prints them).
//!
//! Every network operation passes through one of two places: the error-naming wrappers of
//! `runtime::remote` (puts, gets, atomics, quiet and fence) and the control-word accesses of
//! the `World` (the signals of barriers and collectives, and loads of a peer's published values).
//! Each counts itself there with one relaxed increment of a process-wide word, on the network
//! route only (the shared-memory path never reaches these functions), and only when
//! `SHMEM_COUNTS` asked for the counts ([`enable`]): an increment is a locked instruction, which
//! costs as much as the rest of a put into a peer UCX maps here. Strided transfers count one
//! message per block, since each block is one transfer on the wire. Puts and gets count their
//! data bytes too ([`moved`]): the volume a PE sends (puts) and fetches (gets), so that a table
//! can show what a collective moves per PE, not only how many messages.
//!
//! Invariants: counts only grow; they are read at `shmem_finalize` (before the finalize
//! rendezvous, whose own signals are not the program's) and are not reset by a later
//! `shmem_init`, so a repeated initialization prints the running total.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What one count is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A put (one block of a strided put).
    Put = 0,
    /// A get (one block of a strided get).
    Get = 1,
    /// An atomic on a user word (fetching or not).
    Amo = 2,
    /// A store or add into a peer's control block: a barrier or collective signal.
    Signal = 3,
    /// A load of a peer's control words (values published for a collective).
    Load = 4,
    /// A quiet or fence on the network (a flush; not a message to one peer).
    Flush = 5,
}

/// The names [`report`] prints, in [`Kind`] order.
const NAMES: [&str; 6] = ["put", "get", "amo", "signal", "load", "flush"];

static COUNTS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];

/// Data bytes put (index 0) and got (index 1).
static BYTES: [AtomicU64; 2] = [const { AtomicU64::new(0) }; 2];

/// Whether operations are counted ([`enable`]).
static ON: AtomicBool = AtomicBool::new(false);

/// Counts from now on if `on` (`SHMEM_COUNTS`; set at start-up, before any operation).
pub fn enable(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Counts `n` operations of kind `k`.
#[inline(always)]
pub fn add(k: Kind, n: u64) {
    if ON.load(Ordering::Relaxed) {
        COUNTS[k as usize].fetch_add(n, Ordering::Relaxed);
    }
}

/// Counts one operation of kind `k`.
#[inline(always)]
pub fn count(k: Kind) {
    add(k, 1);
}

/// Counts `n` transfers of kind `k` (a put or a get) that move `bytes` data bytes in all.
#[inline(always)]
pub fn moved(k: Kind, n: u64, bytes: u64) {
    add(k, n);
    let i = match k {
        Kind::Put => 0,
        Kind::Get => 1,
        _ => return,
    };
    if ON.load(Ordering::Relaxed) {
        BYTES[i].fetch_add(bytes, Ordering::Relaxed);
    }
}

/// The counts so far, in [`Kind`] order.
pub fn snapshot() -> [u64; 6] {
    std::array::from_fn(|i| COUNTS[i].load(Ordering::Relaxed))
}

/// The data bytes so far: put, got.
pub fn bytes() -> [u64; 2] {
    std::array::from_fn(|i| BYTES[i].load(Ordering::Relaxed))
}

/// One line: `[PE 3] network operations: put 2 get 0 amo 0 signal 12 load 0 (messages 14) flush 1
/// bytes put 16 got 0`.
pub fn line(me: usize, counts: &[u64; 6], bytes: &[u64; 2]) -> String {
    let mut out = format!("[PE {me}] network operations:");
    for (name, n) in NAMES.iter().zip(&counts[..5]) {
        let _ = write!(out, " {name} {n}");
    }
    let messages: u64 = counts[..5].iter().sum();
    let _ = write!(out, " (messages {messages}) {} {}", NAMES[5], counts[5]);
    let _ = write!(out, " bytes put {} got {}", bytes[0], bytes[1]);
    out
}

/// Prints the line of PE `me` to stderr if `on` (`SHMEM_COUNTS`).
pub fn report(me: usize, on: bool) {
    if on {
        super::output::say(&line(me, &snapshot(), &bytes()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_every_kind_and_sums_the_messages() {
        assert_eq!(
            line(3, &[1, 2, 3, 4, 5, 6], &[70, 80]),
            "[PE 3] network operations: put 1 get 2 amo 3 signal 4 load 5 (messages 15) flush 6 \
             bytes put 70 got 80"
        );
    }

    #[test]
    fn counts_grow() {
        enable(true);
        let before = snapshot();
        count(Kind::Signal);
        add(Kind::Put, 3);
        let (bytes_before, gets_before) = (bytes(), snapshot()[Kind::Get as usize]);
        moved(Kind::Get, 2, 100);
        let after = snapshot();
        assert!(after[Kind::Signal as usize] > before[Kind::Signal as usize]);
        assert!(after[Kind::Put as usize] >= before[Kind::Put as usize] + 3);
        assert!(after[Kind::Get as usize] >= gets_before + 2);
        assert!(bytes()[1] >= bytes_before[1] + 100);
    }
}
