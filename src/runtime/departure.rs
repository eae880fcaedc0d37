//! Finalization, explicit or at exit, as its own rendezvous, and the PEs that left.
//!
//! `shmem_finalize` and the implicit finalize of a PE that returns from `main` (or calls
//! `exit(0)`) without it meet in a rendezvous of their own, never in a barrier a program could
//! also be in: each arriving PE adds 1 to every PE's `finalized` word and to its own entry of every
//! PE's `left` array (the control block), then waits until `finalized` counts every PE for this
//! generation. So a PE that finalizes (or exits) while its peers still wait for it in a barrier
//! cannot complete their barrier: their wait notices, in its slow path, that the PE it waits for
//! has left ([`wait_for`]), and ends the job with a message naming that PE. A wait that does not
//! know whom it waits for (wait_until, a lock) ends the job when every other PE has left, since
//! then nobody can satisfy it; but where the thread level lets the PE have other threads, one of
//! them still can (a store to the waited-for word), and the job goes on. A correct program, whose
//! PEs all finalize, exits 0 as before.
//!
//! A PE that dies without a finalize is the launcher's to report, but a launcher may not stop the
//! others (Hydra's `-disable-auto-cleanup`, Slurm without `--kill-on-bad-exit`), or not soon (a
//! node across the network): every wait's slow path also asks the network which connections broke
//! ([`check_lost`]), and a wait not yet satisfied ends the job naming the PE.
//!
//! Cost: nothing on a fast path (the checks run every few dozen yields of a blocked wait); the
//! rendezvous is two control-word additions per PE per arriving PE, at finalize only.

use super::constants::SHMEM_THREAD_SINGLE;
use super::team::Members;
use super::world::World;
use super::{wait, world};
use crate::fatal;
use crate::transport::shm::control::ASET_PES;
use std::ffi::c_int;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How many times this PE has entered the rendezvous.
static FINALIZES: AtomicU64 = AtomicU64::new(0);
/// Whether this PE waits in the rendezvous, where a peer that completed it may have exited (and
/// closed its connections) before its last addition reached this PE: no wait ends on a lost
/// connection there ([`check_lost`]).
static IN_RENDEZVOUS: AtomicBool = AtomicBool::new(false);

/// The finalize rendezvous: tells every PE this one arrived, waits for all of them.
pub fn rendezvous(w: &World, call: &'static str) {
    super::deadlock::disarm();
    let generation = FINALIZES.fetch_add(1, Ordering::AcqRel) + 1;
    for pe in 0..w.npes {
        if w.me < ASET_PES {
            // Behind this PE's barrier signals to `pe` (over UCX they take a path of their own,
            // `transport::ucx::signals`): a peer waiting for one of them sees it first.
            w.control_notice(call, pe, |c| &c.left[w.me], generation);
        }
        w.control_add(call, pe, |c| &c.finalized.0, 1);
    }
    let target = generation * w.npes as u64;
    let arrived = &w.control(w.me).finalized.0;
    IN_RENDEZVOUS.store(true, Ordering::Relaxed);
    w.wait_until_as(
        || arrived.load(Ordering::Acquire) >= target,
        |out| {
            let now = arrived.load(Ordering::Acquire) + w.npes as u64 - target;
            let _ = write!(
                out,
                "finalize rendezvous ({call}): {now} of {} PEs arrived, waiting for the others",
                w.npes
            );
        },
    );
    IN_RENDEZVOUS.store(false, Ordering::Relaxed);
}

/// Whether `pe` is in (or past) a finalize this PE has not entered.
fn has_left(w: &World, pe: usize) -> bool {
    pe < ASET_PES
        && pe != w.me
        && w.control(w.me).left[pe].load(Ordering::Acquire) > FINALIZES.load(Ordering::Relaxed)
}

/// Waits until `done()` for something only world PE `from` can do (a barrier signal): if `from`
/// has left meanwhile, the job ends with the error naming it and `call`. `raised`: it is a raise
/// of `from` (`World::control_raise`, a barrier round), which over the network may arrive apart
/// from the rest, where the wait looks for it on every round. `what` writes what the wait waits
/// for when a hang report asks (`runtime::hang`).
#[inline]
pub fn wait_for(
    w: &World,
    call: &'static str,
    from: usize,
    raised: bool,
    done: impl Fn() -> bool,
    what: impl Fn(&mut String),
) {
    let apart = raised && w.remote().is_some_and(|net| net.raises_apart(from));
    wait_while_there(
        w,
        call,
        apart,
        || has_left(w, from).then_some(from),
        done,
        what,
    );
}

/// As [`wait_for`], for a collective's message from or to `from`
/// ([`crate::transport::Remote::receive_message`], [`crate::transport::Remote::send_message`]),
/// which moves where the network's raises do: the wait looks for it on every round.
#[inline]
pub fn wait_for_message(
    w: &World,
    call: &'static str,
    from: usize,
    done: impl Fn() -> bool,
    what: impl Fn(&mut String),
) {
    wait_while_there(
        w,
        call,
        true,
        || has_left(w, from).then_some(from),
        done,
        what,
    );
}

/// As [`wait_for`], for something every member of `m` takes part in (a counter barrier's last
/// arrival): if any of them has left meanwhile, the job ends with the error naming it.
#[inline]
pub fn wait_for_members(
    w: &World,
    call: &'static str,
    m: &Members,
    done: impl Fn() -> bool,
    what: impl Fn(&mut String),
) {
    let gone = || (0..m.size).map(|i| m.world(i)).find(|&pe| has_left(w, pe));
    wait_while_there(w, call, false, gone, done, what);
}

/// Waits until `done()`; in the wait's slow path, `gone()` names a PE the wait needs that has
/// left, and then the job ends with the error naming it and `call`. `signals`: what it waits for
/// is a raise.
#[inline]
fn wait_while_there(
    w: &World,
    call: &'static str,
    signals: bool,
    gone: impl Fn() -> Option<usize>,
    done: impl Fn() -> bool,
    what: impl Fn(&mut String),
) {
    if done() {
        return;
    }
    let mut check = || {
        if let Some(pe) = gone()
            && !done()
        {
            left_while_waited_for(call, pe);
        }
    };
    match w.remote() {
        None => wait::until_watching_as(&done, || false, &mut check, what),
        Some(net) => net.serve(signals, |poll| {
            wait::until_watching_as(&done, poll, &mut check, what)
        }),
    }
}

/// The slow-path check of every wait: ends the job when every other PE has left and the wait is
/// still not satisfied (nobody can satisfy it any more), at `SHMEM_THREAD_SINGLE`; at a higher
/// level, see [`notice_alone`]. `done` is read after the PEs that left
/// are: a PE that satisfies the wait and then finalizes is seen as having satisfied it. The count
/// of arrivals alone does not do for that: over UCX it travels apart from the barrier signals, and
/// a PE's last signal can arrive after its arrival (an 8-PE job over TCP whose PEs all finalized
/// was once ended so); its entry of `left` travels behind them.
pub fn check_alone(done: &mut dyn FnMut() -> bool) {
    let Some(w) = world::try_get() else {
        return;
    };
    if w.npes < 2 {
        return;
    }
    check_lost(w, done);
    check_reported_failure(done);
    let generation = FINALIZES.load(Ordering::Relaxed);
    let arrived = w.control(w.me).finalized.0.load(Ordering::Acquire);
    if arrived < generation * w.npes as u64 + (w.npes as u64 - 1) {
        return;
    }
    let tracked = w.npes.min(ASET_PES);
    if (0..tracked).any(|pe| pe != w.me && !has_left(w, pe)) {
        return;
    }
    if done() {
        return;
    }
    let first = (0..w.npes).find(|&pe| has_left(w, pe)).unwrap_or(0);
    let level = w.thread_level.load(Ordering::Relaxed);
    if level > SHMEM_THREAD_SINGLE {
        // Another thread of this PE may still end the wait (a store, or a put to itself).
        notice_alone(w.me, first, level, generation);
        return;
    }
    fatal!(
        "wait",
        "every other PE has left (shmem_finalize, or exit without it; PE {first} among them) while this PE still waits for something: ending the job"
    );
}

/// The other half of every wait's slow-path check: a PE whose connection the network found
/// broken (it ended, or its host did: `transport::Network::lost`), and that has not left by a
/// finalize, can no longer answer anything; a wait not yet satisfied ends the job naming it,
/// whatever launcher started the job and whether or not it stops the others. (A wait for a
/// barrier signal of that PE, a lock it holds, an atomic's reply: the waiting PE cannot tell
/// whether the dead PE was the one to end its wait, and the job cannot be correct any more.)
fn check_lost(w: &World, done: &mut dyn FnMut() -> bool) {
    let Some(net) = w.remote() else {
        return;
    };
    if IN_RENDEZVOUS.load(Ordering::Relaxed) {
        return;
    }
    let lost = net.lost();
    let Some((pe, e)) = lost.iter().find(|(pe, _)| *pe != w.me && !has_left(w, *pe)) else {
        return;
    };
    if done() {
        return;
    }
    fatal!(
        "wait",
        "the connection to PE {pe} failed while this PE waits ({e}): ending the job"
    );
}

/// How long a wait goes on after the launcher reported a failed process without any connection
/// of this PE's found broken ([`check_reported_failure`]).
const REPORTED_FAILURE_PATIENCE: Duration = Duration::from_secs(2);

/// When a wait first saw the launcher's report of a failed process.
static REPORTED_FAILURE_SEEN: OnceLock<Instant> = OnceLock::new();

/// The launcher's word that a process of the job failed (Hydra's proxy, by SIGUSR1, where it
/// does not end the job: `bootstrap::launcher_reported_failure`) ends a wait not yet satisfied
/// [`REPORTED_FAILURE_PATIENCE`] after it is first seen. A dead PE of another node is named by
/// the network first, at once ([`check_lost`]), one of this node by its departure; this is for a
/// death that neither shows.
fn check_reported_failure(done: &mut dyn FnMut() -> bool) {
    if !crate::bootstrap::launcher_reported_failure() {
        return;
    }
    let seen = *REPORTED_FAILURE_SEEN.get_or_init(Instant::now);
    if seen.elapsed() < REPORTED_FAILURE_PATIENCE || done() {
        return;
    }
    fatal!(
        "wait",
        "the launcher reported a failed process of the job (Hydra's proxy, by SIGUSR1) {} s ago, and this PE still waits: ending the job",
        REPORTED_FAILURE_PATIENCE.as_secs()
    );
}

/// How long a wait of a threaded PE stays alone before [`notice_alone`] says so.
const ALONE_NOTICE: Duration = Duration::from_secs(10);

/// For the finalize generation in which this PE's waits first found every other PE gone: when,
/// and whether the notice was written.
static ALONE: Mutex<Option<(u64, Instant, bool)>> = Mutex::new(None);

/// Where the thread level lets other threads of this PE run, a wait left alone may still be
/// ended by one of them: the job goes on, and once the wait has been alone for `ALONE_NOTICE`, one
/// line per finalize generation says why a job that hangs there does.
fn notice_alone(me: usize, first: usize, level: c_int, generation: u64) {
    let mut alone = ALONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let now = Instant::now();
    let (_, since, written) = match alone.as_mut() {
        Some(state) if state.0 == generation => state,
        _ => alone.insert((generation, now, false)),
    };
    if *written || now.duration_since(*since) < ALONE_NOTICE {
        return;
    }
    *written = true;
    let line = format!(
        "[PE {me}] wait: every other PE has left (shmem_finalize, or exit without it; PE {first} among them) while this PE has waited {} s; at thread level {} another thread of this PE may still end the wait, so the job goes on",
        ALONE_NOTICE.as_secs(),
        super::personality::tables::reverse(
            super::personality::tables::NATIVE.thread,
            level.into()
        )
        .map_or("?", |k| k.name),
    );
    super::error::say(&line);
}

#[cold]
#[inline(never)]
fn left_while_waited_for(call: &'static str, pe: usize) -> ! {
    fatal!(
        call,
        "PE {pe} has left (shmem_finalize, or returned from main / exit without it) while this PE waits for it: ending the job"
    )
}
