//! Communication contexts (OpenSHMEM 1.6 §9.5) as the runtime sees them: a context belongs to a
//! team (PE numbers given to operations on it are numbers in that team); the options it is created
//! with are checked by `ops::ctx` and change nothing here. The objects live in a fixed pool (see `handle`): creating and destroying a
//! context allocates nothing, and a handle check is a range check and one load.
//!
//! On the shared-memory route every operation completes before it returns, so a context needs no
//! queue of its own: its quiet and fence are memory fences, which complete (at least) its operations.

use std::ffi::c_long;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// One context object.
pub struct Context {
    live: AtomicBool,
    /// The team slot (see `runtime::team`); 0 is `SHMEM_TEAM_WORLD`.
    team: AtomicUsize,
}

impl Context {
    pub const fn new(live: bool) -> Context {
        Context {
            live: AtomicBool::new(live),
            team: AtomicUsize::new(0),
        }
    }

    pub fn is_live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }

    /// Claims a free object for a new context; false if it was taken. The options (checked by the
    /// caller) need no state: every operation completes as the spec's strictest option requires.
    pub fn claim(&self, team: usize, _options: c_long) -> bool {
        if self
            .live
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.team.store(team, Ordering::Relaxed);
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
}
