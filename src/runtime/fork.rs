//! `fork()` after `shmem_init`. The PE's global data and heap are shared mappings, so without care
//! a child's write to a static variable (or the Python interpreter's own state, under shmem4py)
//! would show in the PE. The spec leaves a child of a PE nothing to do with OpenSHMEM; rshmem
//! makes that explicit: a `pthread_atfork` child handler, registered at the first `shmem_init`,
//! gives the child private copies of the PE's global data and heap (their contents at the fork)
//! and makes its mappings of the peers' segments inaccessible, then marks the library unusable in
//! the child: every call that needs the library is the error "called in a child process after
//! fork()", and an error in the child ends the child only, never the PE's job (the child does not
//! touch the launcher connection it inherited, not even at exit).
//!
//! The forking thread of the parent waits (in the parent handler) until the child has copied the
//! memory, so the copy is the memory as it was at the fork; other threads of the parent that write
//! symmetric memory meanwhile may be seen by the child (fork in a multithreaded program).
//! The heap copy covers the control block and the program's range up to the highest block ever
//! allocated ([`heap::high_water`]); the rest of the heap reads as zero in the child.

use super::heap;
use super::world::{self, World};
use crate::transport::shm::Mapping;
use crate::transport::shm::control;
use crate::transport::shm::fork::{self, Child, Handlers};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};

/// What the child handler remaps: this PE's heap and global data, the peers' mappings.
struct Plan {
    heap: Mapping,
    data: Option<Mapping>,
    peers: Vec<Mapping>,
}

static PLAN: OnceLock<Plan> = OnceLock::new();
/// The pipe of the fork in progress (read end, write end), -1 when none.
static PIPE: [AtomicI32; 2] = [AtomicI32::new(-1), AtomicI32::new(-1)];

/// Registers the fork handlers for the World's mappings (once; the mappings live as long as the
/// process, also across `shmem_finalize` and a later `shmem_init`).
pub fn protect(w: &World) -> Result<(), &'static str> {
    let mut registered = Ok(());
    PLAN.get_or_init(|| {
        let [heap, data] = &w.segments;
        let mut peers = Vec::new();
        for pe in 0..w.npes {
            if pe == w.me {
                continue;
            }
            peers.extend(heap.peer(pe));
            peers.extend(data.peer(pe).filter(|_| data.len() > 0));
        }
        if !fork::register(Handlers {
            prepare,
            parent,
            child,
        }) {
            registered = Err("pthread_atfork failed");
        }
        Plan {
            heap: heap.own(),
            data: (data.len() > 0).then_some(data.own()),
            peers,
        }
    });
    registered
}

fn prepare() {
    if PLAN.get().is_none() || world::in_child() {
        return;
    }
    if let Some([r, w]) = fork::pipe() {
        PIPE[0].store(r, Ordering::Relaxed);
        PIPE[1].store(w, Ordering::Relaxed);
    }
}

fn parent() {
    let (r, w) = (
        PIPE[0].swap(-1, Ordering::Relaxed),
        PIPE[1].swap(-1, Ordering::Relaxed),
    );
    fork::close(w);
    if r >= 0 {
        fork::wait_closed(r);
        fork::close(r);
    }
}

fn child(me: &Child) {
    let Some(plan) = PLAN.get() else {
        return;
    };
    if world::in_child() {
        return;
    }
    world::mark_child();
    let (r, w) = (
        PIPE[0].swap(-1, Ordering::Relaxed),
        PIPE[1].swap(-1, Ordering::Relaxed),
    );
    fork::close(r);
    let used = heap::high_water().saturating_sub(control::USER_OFFSET);
    let keep = [(0, control::CONTROL_SIZE), (control::USER_OFFSET, used)];
    let private = fork::privatize(
        plan.heap,
        me,
        &keep,
        Some((control::CONTROL_SIZE, control::GUARD_SIZE)),
    ) && plan
        .data
        .is_none_or(|d| fork::privatize(d, me, &[(0, d.len())], None))
        && plan.peers.iter().all(|&p| fork::revoke(p, me));
    if !private {
        fork::die(b"rshmem: fork() after shmem_init: cannot give the child private copies of the PE's symmetric memory\n");
    }
    fork::close(w);
    world::forget_in_child();
}
