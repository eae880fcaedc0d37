//! Communication contexts (OpenSHMEM 1.6 §9.5) as the runtime sees them: a context belongs to a
//! team (PE numbers given to operations on it are numbers in that team) and carries the options it
//! was created with. The objects live in a fixed pool (see `handle`): creating and destroying a
//! context allocates nothing, and a handle check is a range check and one load.
//!
//! On the shared-memory route every operation completes before it returns, so a context needs no
//! queue of its own: its quiet and fence are memory fences, which complete (at least) its operations.

use std::ffi::c_long;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};

/// One context object.
pub struct Context {
    live: AtomicBool,
    /// The team slot (see `runtime::team`); 0 is `SHMEM_TEAM_WORLD`.
    team: AtomicUsize,
    options: AtomicI64,
}

impl Context {
    pub const fn new(live: bool) -> Context {
        Context {
            live: AtomicBool::new(live),
            team: AtomicUsize::new(0),
            options: AtomicI64::new(0),
        }
    }

    pub fn is_live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    /// Claims a free object for a new context; false if it was taken.
    pub fn claim(&self, team: usize, options: c_long) -> bool {
        if self
            .live
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.team.store(team, Ordering::Relaxed);
        self.options.store(options, Ordering::Release);
        true
    }

    pub fn release(&self) {
        self.live.store(false, Ordering::Release);
    }

    /// The slot of the context's team.
    #[inline(always)]
    pub fn team(&self) -> usize {
        self.team.load(Ordering::Relaxed)
    }

    pub fn options(&self) -> c_long {
        self.options.load(Ordering::Relaxed)
    }
}
