//! `SHMEM_DEBUG`: the arguments of a collective call agree across its team. A PE whose arguments
//! differ from another member's (another call, a different `PE_root` or `nelems`) is told so, with
//! both PEs and both values, instead of hanging or corrupting memory.
//!
//! At the entry of a team collective each member publishes a record (the call's name, which
//! carries its type and operation, `PE_root` and `nelems` where the call has them) in its control
//! block, tagged with the team's barrier epoch; after a barrier of the team it reads the record of
//! the next member and compares. The records alternate by the parity of the epoch: a member can
//! be at most one call ahead of its neighbour's read (it would need the neighbour in a barrier
//! to get further), so the slot it writes is never the one being read. Active-set collectives are
//! not checked (a PE may take part in several sets whose calls interleave).
//!
//! Cost: when `SHMEM_DEBUG` is off, one load of a cached flag and a branch per collective call.
//! When on, one barrier of the team and a load of 12 words of the neighbour per call. A member
//! that called a collective on another team (or none) still hangs; the hang report
//! (`runtime::hang`) then says where each PE is.

use super::{Coll, Sync, barrier};
use crate::fatal;
use crate::runtime::handle;
use crate::transport::shm::control::AGREE_WORDS;
use std::sync::atomic::{AtomicBool, Ordering};

/// `SHMEM_DEBUG`, cached at init.
static ON: AtomicBool = AtomicBool::new(false);

/// Turns the check on or off (at init, from `SHMEM_DEBUG`).
pub fn configure(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// An argument a call does not have.
const NONE: u64 = u64::MAX;
/// Bytes of the call's name a record keeps.
const NAME_BYTES: usize = (AGREE_WORDS - 4) * 8;

/// Checks, under `SHMEM_DEBUG`, that every member of `c`'s team makes this call with the same
/// `root` and `nelems` (None where the call has no such argument, or where they may differ).
#[inline(always)]
pub fn check(c: &Coll, root: Option<usize>, nelems: Option<usize>) {
    if ON.load(Ordering::Relaxed) {
        compare(c, root, nelems);
    }
}

/// One call's record: `[epoch, root, nelems, name length, name bytes...]`.
fn encode(
    epoch: u64,
    call: &str,
    root: Option<usize>,
    nelems: Option<usize>,
) -> [u64; AGREE_WORDS] {
    let mut words = [0u64; AGREE_WORDS];
    let name = &call.as_bytes()[..call.len().min(NAME_BYTES)];
    words[0] = epoch;
    words[1] = root.map_or(NONE, |r| r as u64);
    words[2] = nelems.map_or(NONE, |n| n as u64);
    words[3] = name.len() as u64;
    for (i, chunk) in name.chunks(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes[..chunk.len()].copy_from_slice(chunk);
        words[4 + i] = u64::from_le_bytes(bytes);
    }
    words
}

/// A record as text: `shmem_long_broadcast(PE_root = 0, nelems = 4)`.
fn describe(words: &[u64; AGREE_WORDS]) -> String {
    let len = (words[3] as usize).min(NAME_BYTES);
    let bytes: Vec<u8> = words[4..]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take(len)
        .collect();
    let mut args = Vec::new();
    if words[1] != NONE {
        args.push(format!("PE_root = {}", words[1]));
    }
    if words[2] != NONE {
        args.push(format!("nelems = {}", words[2]));
    }
    format!("{}({})", String::from_utf8_lossy(&bytes), args.join(", "))
}

#[cold]
#[inline(never)]
fn compare(c: &Coll, root: Option<usize>, nelems: Option<usize>) {
    let Sync::Team(slot) = c.g.sync else {
        return;
    };
    let (w, m) = (c.w, &c.g.members);
    let epoch = handle::team_at(slot).epoch.load(Ordering::Relaxed);
    let parity = (epoch % 2) as usize;
    let mine = encode(epoch, c.call, root, nelems);
    let record = &w.control(w.me).agree[slot][parity];
    for (word, &v) in record.iter().zip(&mine).skip(1) {
        word.store(v, Ordering::Relaxed);
    }
    record[0].store(epoch, Ordering::Release);
    barrier::group(w, &c.g);
    if m.size == 1 {
        return;
    }
    let next = m.world((m.me + 1) % m.size);
    let theirs: [u64; AGREE_WORDS] =
        w.control_load(c.call, next, |ctl| &ctl.agree[slot][parity][0]);
    if theirs[1..] != mine[1..] || theirs[0] != epoch {
        fatal!(
            c.call,
            "collective arguments differ on team {}: this PE (PE {}) calls {}, PE {next} calls {}; every PE of the team must make the same collective call with the same arguments",
            handle::team_label(slot),
            w.me,
            describe(&mine),
            describe(&theirs)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_the_call() {
        let r = encode(3, "shmem_long_broadcast", Some(0), Some(4));
        assert_eq!(
            describe(&r),
            "shmem_long_broadcast(PE_root = 0, nelems = 4)"
        );
        let r = encode(3, "shmem_team_sync", None, None);
        assert_eq!(describe(&r), "shmem_team_sync()");
        let long = "shmem_a_name_much_longer_than_the_sixty_four_bytes_a_record_keeps_x";
        assert_eq!(
            describe(&encode(1, long, None, Some(1))),
            format!("{}(nelems = 1)", &long[..64])
        );
    }
}
