//! Library setup, exit and query routines (OpenSHMEM 1.6 §9.1, §9.2).

use crate::fatal;
use crate::runtime::constants::{SHMEM_MAX_NAME_LEN, SHMEM_THREAD_MULTIPLE, SHMEM_THREAD_SINGLE};
use crate::runtime::error::{ABORTING, abort_job, say};
use crate::runtime::personality::{self, Program};
use crate::runtime::{startup, world};
use crate::transport::shm::{Dst, Src};
use std::ffi::{c_int, c_void};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

static EXIT_HOOK: Once = Once::new();

/// Initialization calls not yet matched by a `shmem_finalize`: the spec lets a program call the
/// initialization routines several times, each with its own finalize, and the library is
/// finalized by the last one only (and may then be initialized again).
static DEPTH: AtomicUsize = AtomicUsize::new(0);

/// At process exit: a PE that exits with status 0 without `shmem_finalize` is finalized
/// implicitly, in the finalize rendezvous (never in a barrier the peers may be in: a peer waiting
/// for it there ends the job naming it, see `runtime::departure`); then the launcher is told this
/// PE is done. A PE exiting with an error status does not wait for anyone: the launcher ends the job.
extern "C" fn at_exit(status: c_int, _arg: *mut c_void) {
    if ABORTING.load(Ordering::SeqCst) || world::in_child() {
        return;
    }
    if world::try_get().is_some() {
        if status != 0 {
            // Launchers that see a PMI finalize (Hydra, Slurm) would take this PE as done cleanly
            // and let the others wait for it forever: end the job instead.
            say(&format!(
                "[PE {}] exited with status {status} before shmem_finalize: ending the job",
                world::pe_label()
            ));
            world::with_bootstrap(|boot| boot.abort(status));
            return;
        }
        DEPTH.store(1, Ordering::SeqCst);
        finalize("shmem_finalize (at exit)");
    }
    world::finalize_bootstrap();
}

/// Registers a handler to run at process exit with the exit status; false if refused (glibc's
/// `on_exit`, which `ops::ffi::setup` passes in: the entry points of initialization are there).
pub type OnExit = fn(extern "C" fn(c_int, *mut c_void)) -> bool;

/// Selects the ABI personality (a program built for another implementation passes its values),
/// then starts the World.
fn start(call: &'static str, level: c_int, on_exit: OnExit) {
    personality::select(call);
    EXIT_HOOK.call_once(|| {
        crate::runtime::error::install_panic_hook();
        if !on_exit(at_exit) {
            fatal!(call, "cannot register the exit handler");
        }
    });
    if startup::init(call, level) {
        // The barrier that ends initialization: every PE's World is up before any is used.
        let t = std::time::Instant::now();
        crate::collectives::barrier::world(world::get(call));
        crate::runtime::log::phase("first barrier", t);
        crate::runtime::wait::watch_parent();
        if world::with_bootstrap(|b| b.has_launcher()).unwrap_or(false) {
            crate::runtime::orphan::watch();
        }
        crate::runtime::wait::set_slow_check(crate::runtime::departure::check_alone);
        let w = world::get(call);
        crate::runtime::hang::install(w.me, w.config.hang_report);
        crate::runtime::deadlock::configure(w.config.deadlock);
        crate::collectives::agree::configure(w.config.debug);
        if let Err(why) = crate::runtime::fork::protect(world::get(call)) {
            fatal!(call, "cannot register the fork handlers: {why}");
        }
    }
    DEPTH.fetch_add(1, Ordering::SeqCst);
}

/// `shmem_init`, `start_pes`.
pub fn init(call: &'static str, on_exit: OnExit) {
    start(call, SHMEM_THREAD_SINGLE, on_exit);
}

/// `shmem_init_thread`: every level up to `SHMEM_THREAD_MULTIPLE` is provided. The program's
/// `provided` arrives as a range of one `int` from `ops::ffi::setup` (`None`: NULL, allowed).
pub fn init_thread(
    call: &'static str,
    requested: Program<c_int>,
    provided: Option<Dst<'_>>,
    on_exit: OnExit,
) -> c_int {
    personality::select(call);
    let requested = personality::thread_level_in(requested);
    let level = requested.clamp(SHMEM_THREAD_SINGLE, SHMEM_THREAD_MULTIPLE);
    start(call, level, on_exit);
    let level =
        personality::thread_level_out(world::get(call).thread_level.load(Ordering::Relaxed));
    if let Some(provided) = provided {
        provided.write::<c_int>(0, level);
    }
    0
}

/// `shmem_query_thread`, into the program's `provided` (as in [`init_thread`]; NULL is an error).
pub fn query_thread(call: &'static str, provided: Option<Dst<'_>>) {
    let level =
        personality::thread_level_out(world::get(call).thread_level.load(Ordering::Relaxed));
    let Some(provided) = provided else {
        fatal!(call, "provided is NULL")
    };
    provided.write::<c_int>(0, level);
}

/// `shmem_query_initialized` (1.6): 1 between `shmem_init` and `shmem_finalize`, else 0, into the
/// program's `initialized` (as in [`query_thread`]).
pub fn query_initialized(call: &'static str, initialized: Option<Dst<'_>>) {
    let Some(initialized) = initialized else {
        fatal!(call, "initialized is NULL")
    };
    initialized.write::<c_int>(0, world::try_get().is_some() as c_int);
}

/// `shmem_finalize`: completes this PE's operations, waits for every PE in the finalize
/// rendezvous (`runtime::departure`), retires the library (closing its network, if any), when it
/// matches the first initialization call still open; a finalize that matches a later one, or one
/// without `shmem_init`, does nothing.
pub fn finalize(call: &'static str) {
    let outer = DEPTH
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |d| d.checked_sub(1))
        .is_ok_and(|d| d == 1);
    if !outer {
        // An inner finalize (or one without init): the library stays initialized.
        return;
    }
    if let Some(w) = world::try_get() {
        super::order::complete(call);
        crate::runtime::counters::report(w.me, w.config.counts);
        crate::runtime::departure::rendezvous(w, call);
        startup::finalize(call);
    }
}

/// Deprecated `start_pes(npes)`: `npes` is ignored, as the spec says.
pub fn start_pes(call: &'static str, _npes: c_int, on_exit: OnExit) {
    init(call, on_exit);
}

/// `shmem_global_exit`: ends every PE of the job with `status`.
pub fn global_exit(call: &'static str, status: c_int) -> ! {
    let _ = world::get(call);
    abort_job(status, "")
}

/// `shmem_my_pe`, `_my_pe`.
pub fn my_pe(call: &'static str) -> c_int {
    world::get(call).me as c_int
}

/// `shmem_n_pes`, `_num_pes`.
pub fn n_pes(call: &'static str) -> c_int {
    world::get(call).npes as c_int
}

/// `shmem_pe_accessible`: every PE of the job is reachable (by shared memory or by UCX).
pub fn pe_accessible(call: &'static str, pe: c_int) -> c_int {
    let w = world::get(call);
    ((pe as u32 as usize) < w.npes) as c_int
}

/// `shmem_addr_accessible`: `addr` is symmetric and `pe` exists (both segments of every PE are
/// reachable, mapped or registered with UCX).
pub fn addr_accessible(call: &'static str, addr: *const c_void, pe: c_int) -> c_int {
    let w = world::get(call);
    ((pe as u32 as usize) < w.npes && w.locate(addr as usize, 1).is_some()) as c_int
}

/// `shmem_ptr`: the address through which this PE can load and store `pe`'s copy of `dest`, or
/// NULL if `dest` is not symmetric, `pe` does not exist or is reached over UCX (its memory is not
/// mapped here). This PE's own copy is `dest` itself, whatever the route.
pub fn ptr(call: &'static str, dest: *const c_void, pe: c_int) -> *mut c_void {
    let w = world::get(call);
    if (pe as u32 as usize) >= w.npes {
        return std::ptr::null_mut();
    }
    match w.locate(dest as usize, 1) {
        Some(_) if pe as usize == w.me => dest.cast_mut(),
        Some((seg, off)) => match w.segments[seg as usize].peer(pe as usize) {
            None => std::ptr::null_mut(),
            Some(m) => (m.base() + off) as *mut c_void,
        },
        None => std::ptr::null_mut(),
    }
}

/// `shmem_info_get_version`: the version of the header the program was compiled with (rshmem's,
/// or a foreign one's under its personality, see `runtime::personality`), as the spec has the call
/// agree with that header's constants, into the program's `major` and `minor` (ranges of one `int` from
/// `ops::ffi::setup`; `None`: NULL, an error). Callable before `shmem_init`.
pub fn info_get_version(call: &'static str, major: Option<Dst<'_>>, minor: Option<Dst<'_>>) {
    let (Some(major), Some(minor)) = (major, minor) else {
        fatal!(
            call,
            "{} is NULL",
            if major.is_none() { "major" } else { "minor" }
        )
    };
    personality::select(call);
    let (major_version, minor_version) = personality::active().version;
    major.write::<c_int>(0, major_version);
    minor.write::<c_int>(0, minor_version);
}

/// `shmem_info_get_name`: the vendor string of the program's header (as for
/// [`info_get_version`]), NUL-terminated, at most `SHMEM_MAX_NAME_LEN` bytes, into the program's
/// `name` (a range of `SHMEM_MAX_NAME_LEN` bytes from `ops::ffi::setup`; `None`: NULL, an error).
pub fn info_get_name(call: &'static str, name: Option<Dst<'_>>) {
    let Some(name) = name else {
        fatal!(call, "name is NULL")
    };
    personality::select(call);
    let vendor = personality::active().vendor.to_bytes();
    let n = vendor.len().min(SHMEM_MAX_NAME_LEN as usize - 1);
    name.copy_from(Src::of(&vendor[..n]));
    name.write::<u8>(n, 0);
}

/// `shmem_pcontrol(level, ...)`: "OpenSHMEM libraries make no use of this routine and simply
/// return immediately to the user code" (the spec): the level is for a profiling library layered
/// over the `pshmem_` names, which intercepts the call. Callable at any time. Only the named
/// argument is received (docs/ABI.md, variadic routines).
pub fn pcontrol(_call: &'static str, _level: c_int) {}

/// Fortran `SHMEM_INFO_GET_NAME(NAME)`: the vendor string (as for [`info_get_name`]) in the
/// `CHARACTER` variable `name` (a range of the length gfortran passes after the arguments, from
/// `ops::ffi::setup`), blank-padded as Fortran strings are, and cut to its length if longer.
pub fn info_get_name_fortran(call: &'static str, name: Dst<'_>) {
    personality::select(call);
    let vendor = personality::active().vendor.to_bytes();
    let n = vendor.len().min(name.len());
    name.copy_from(Src::of(&vendor[..n]));
    for k in n..name.len() {
        name.write::<u8>(k, b' ');
    }
}
