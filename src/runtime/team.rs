//! Teams (OpenSHMEM 1.6 §9.4) as the runtime sees them: a team is an arithmetic progression of
//! world PEs (`start + i * stride`, `i < size`) plus a synchronization slot, the same index on every
//! member, in each member's control block.
//!
//! Every split produces such a progression: a strided subset of a progression is one, and the axes
//! of a 2-D split are strided subsets. The objects live in a fixed table indexed by slot (see
//! `handle`), so a handle stays a plain address and its check needs no lock. All fields are atomics:
//! a team is written by the collective call that creates it and read afterwards.
//!
//! Epochs: a team's barriers are numbered; every member counts the same collectives, so the numbers
//! agree. A new team starts above every epoch any of its parent's members has ever used (agreed at
//! creation), so flags left in a reused slot by an earlier team are always below the new team's
//! first epoch.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicIsize, AtomicU64, AtomicUsize, Ordering};

/// Who is in a team, and where this PE is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Members {
    /// World PE of team PE 0.
    pub start: usize,
    /// World PE distance between consecutive team PEs (may be negative; 0 only when `size` is 1).
    pub stride: isize,
    pub size: usize,
    /// This PE's number in the team.
    pub me: usize,
}

impl Members {
    /// The world PE of team PE `i` (`i < size`).
    #[inline(always)]
    pub fn world(&self, i: usize) -> usize {
        (self.start as isize + i as isize * self.stride) as usize
    }

    /// The team PE number of world PE `pe`, if it is a member.
    pub fn index_of(&self, pe: usize) -> Option<usize> {
        let d = pe as isize - self.start as isize;
        if self.stride == 0 {
            return (d == 0).then_some(0);
        }
        if d % self.stride != 0 {
            return None;
        }
        let i = d / self.stride;
        (i >= 0 && (i as usize) < self.size).then_some(i as usize)
    }
}

/// One team object.
pub struct Team {
    live: AtomicBool,
    start: AtomicUsize,
    stride: AtomicIsize,
    size: AtomicUsize,
    me: AtomicUsize,
    num_contexts: AtomicI32,
    /// The last barrier epoch this PE used on the team.
    pub epoch: AtomicU64,
    /// Its broadcasts' run since their last handshake (`collectives::message`), the same on
    /// every member.
    pub run: AtomicU64,
}

impl Team {
    pub const fn new() -> Team {
        Team {
            live: AtomicBool::new(false),
            start: AtomicUsize::new(0),
            stride: AtomicIsize::new(1),
            size: AtomicUsize::new(0),
            me: AtomicUsize::new(0),
            num_contexts: AtomicI32::new(0),
            epoch: AtomicU64::new(0),
            run: AtomicU64::new(0),
        }
    }

    pub fn is_live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    /// Brings the team to life with its members, its configuration and the epoch before its first.
    pub fn open(&self, m: Members, num_contexts: i32, epoch: u64) {
        self.start.store(m.start, Ordering::Relaxed);
        self.stride.store(m.stride, Ordering::Relaxed);
        self.size.store(m.size, Ordering::Relaxed);
        self.me.store(m.me, Ordering::Relaxed);
        self.num_contexts.store(num_contexts, Ordering::Relaxed);
        self.epoch.store(epoch, Ordering::Relaxed);
        self.run.store(0, Ordering::Relaxed);
        self.live.store(true, Ordering::Release);
    }

    /// Ends the team's life; the object may be opened again for a later team.
    pub fn close(&self) {
        self.live.store(false, Ordering::Release);
    }

    #[inline(always)]
    pub fn members(&self) -> Members {
        Members {
            start: self.start.load(Ordering::Relaxed),
            stride: self.stride.load(Ordering::Relaxed),
            size: self.size.load(Ordering::Relaxed),
            me: self.me.load(Ordering::Relaxed),
        }
    }

    pub fn num_contexts(&self) -> i32 {
        self.num_contexts.load(Ordering::Relaxed)
    }
}

impl Default for Team {
    fn default() -> Self {
        Team::new()
    }
}
