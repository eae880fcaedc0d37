//! Fatal errors. A message names the PE, the C function and the argument, then the whole job stops
//! through the launcher with a non-zero exit: `[PE 3] shmem_putmem: pe = 9 is outside [0, 8)`.
//!
//! A Rust panic inside the library is an internal error and ends the job the same way
//! ([`install_panic_hook`]): `[PE 3] shmem_team_split_2d: internal error: <message> at <file:line>`,
//! the call found as the outermost exported OpenSHMEM symbol on the panicking thread's stack (no
//! bookkeeping on any fast path), then the launcher ends the job with exit status 1 instead of the
//! process dying by SIGABRT (the profiles build with `panic = "abort"`, so no panic unwinds into C).

use super::world;
use crate::transport::shm::process;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set once the process is on its way out after an error: nothing may wait on peers any more.
pub static ABORTING: AtomicBool = AtomicBool::new(false);

pub use super::output::say;

/// The OpenSHMEM routines whose names carry no `shmem_` prefix (the legacy API): how a routine of
/// the library is known on a stack, and how `personality::elf` knows an object that calls one.
pub const LEGACY: &[&str] = &[
    "start_pes",
    "_my_pe",
    "_num_pes",
    "my_pe",
    "num_pes",
    "shmalloc",
    "shfree",
    "shrealloc",
    "shmemalign",
    "globalexit",
];

/// Prints the error and ends the job.
#[cold]
#[inline(never)]
pub fn fatal(call: &str, message: fmt::Arguments) -> ! {
    let text = format!("[PE {}] {call}: {message}", world::pe_label());
    abort_job(1, &text)
}

/// Prints `text` (if any) and ends the job with `code`.
#[cold]
pub fn abort_job(code: i32, text: &str) -> ! {
    ABORTING.store(true, Ordering::SeqCst);
    let _ = std::io::stdout().flush();
    if !text.is_empty() {
        say(text);
    }
    // A fork child's launcher connection is its parent PE's: it ends alone.
    if !world::in_child() {
        let_output_through();
        world::with_bootstrap(|boot| boot.abort(code));
    }
    if world::try_get().is_some_and(|w| w.remote().is_some()) {
        // The network's progress thread may be inside UCX while `exit` runs UCX's destructors,
        // which then dies by SIGABRT instead of this exit code: leave without destructors.
        process::exit_now(code)
    }
    std::process::exit(code)
}

/// How long an abort waits for the launcher to read what this PE printed.
const OUTPUT_PATIENCE: Duration = Duration::from_millis(500);

/// Waits until the launcher has read what this PE wrote to its standard output and error, where
/// they are pipes to it, [`OUTPUT_PATIENCE`] at most. A launcher that ends the job when told of
/// the abort drops what it had not read yet: under Hydra across hosts, the line naming a dead
/// peer was missing in 6 runs of 30. Hydra's proxy forwards the output and the abort over one
/// connection, in the order it read them, so output read before the abort is printed.
fn let_output_through() {
    let deadline = Instant::now() + OUTPUT_PATIENCE;
    while [1, 2]
        .into_iter()
        .any(|fd| process::unread_in_pipe(fd).is_some_and(|unread| unread > 0))
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Ends this PE, whose launcher (its parent process `parent`) has died: nobody is left to tell, so
/// the launcher connection is not used. Called from a wait or from the orphan watch's thread
/// while the program may be running: the process leaves without destructors (UCX's would race
/// its progress thread, the program's its main thread), after flushing the output streams.
#[cold]
#[inline(never)]
pub fn launcher_gone(parent: u32) -> ! {
    ABORTING.store(true, Ordering::SeqCst);
    let _ = std::io::stdout().flush();
    say(&format!(
        "[PE {}] the launcher (parent process {parent}) is gone: ending this PE",
        world::pe_label()
    ));
    process::exit_now(1)
}

/// Makes a panic end the job as a fatal error does (once per process).
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let payload = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            let location = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let stack = std::backtrace::Backtrace::force_capture().to_string();
            let call = call_on_stack(&stack, is_exported).unwrap_or_else(|| "rshmem".into());
            let text = panic_message(&world::pe_label(), &call, &payload, &location);
            abort_job(1, &text)
        }));
    });
}

/// `[PE 3] shmem_x: internal error: <payload> at <location>`.
fn panic_message(pe: &str, call: &str, payload: &str, location: &str) -> String {
    let at = if location.is_empty() {
        String::new()
    } else {
        format!(" at {location}")
    };
    format!("[PE {pe}] {call}: internal error: {payload}{at} (please report it with this message)")
}

/// The OpenSHMEM call in a backtrace's text (its frames are numbered from the innermost): the
/// outermost frame named `shmem_*`, `pshmem_*`, `shmemx_*`, a legacy name or a Fortran one (with
/// debug information the shells read `rshmem::api::<chapter>::shmem_x`). An optimized shell
/// usually jumps to its `ops` function instead of calling it and leaves no frame: then the
/// outermost `rshmem::ops::<module>::<f>` frame stands for it, as `shmem_<f>` when the library
/// exports that symbol (`exported`), else as its path. A `pshmem_*` name is given as its
/// `shmem_*` twin when the library exports that: the optimized build makes each profiling name an
/// alias of its call, and the symbolizer picks the profiling name for both.
pub(super) fn call_on_stack(stack: &str, exported: impl Fn(&str) -> bool) -> Option<String> {
    let frames: Vec<&str> = stack
        .lines()
        .filter_map(|line| {
            let (number, name) = line.trim_start().split_once(": ")?;
            number.parse::<u32>().ok()?;
            let name = name.trim();
            // Generic arguments (`wait_until::<i32>`, `<T>`) are no part of the name.
            Some(
                name.split('<')
                    .next()
                    .unwrap_or(name)
                    .trim_end_matches("::"),
            )
        })
        .collect();
    let shell = frames.iter().rev().find_map(|&name| {
        let name = name
            .strip_prefix("rshmem::api::")
            .map_or(name, |rest| rest.rsplit("::").next().unwrap_or(rest));
        let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let is_call = ["shmem_", "pshmem_", "shmemx_"]
            .iter()
            .any(|p| name.starts_with(p))
            || LEGACY.contains(&name);
        (plain && is_call).then(|| match name.strip_prefix('p') {
            Some(twin) if name.starts_with("pshmem_") && exported(twin) => twin.to_string(),
            _ => name.to_string(),
        })
    });
    shell.or_else(|| {
        let op = frames
            .iter()
            .rev()
            .find(|name| name.starts_with("rshmem::ops::"))?;
        let f = op.rsplit("::").next().unwrap_or(op);
        let symbol = format!("shmem_{f}");
        Some(if exported(&symbol) {
            symbol
        } else {
            op.to_string()
        })
    })
}

/// Whether this process has a symbol `name` (an OpenSHMEM call the library exports).
pub(super) fn is_exported(name: &str) -> bool {
    crate::transport::shm::loader::defined(name)
}

/// `fatal` with `format!` syntax.
#[macro_export]
macro_rules! fatal {
    ($call:expr, $($arg:tt)*) => { $crate::runtime::error::fatal($call, format_args!($($arg)*)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_message_names_pe_call_and_place() {
        assert_eq!(
            panic_message("3", "shmem_x", "index out of bounds", "src/ops/x.rs:10"),
            "[PE 3] shmem_x: internal error: index out of bounds at src/ops/x.rs:10 (please report it with this message)"
        );
    }

    #[test]
    fn the_outermost_entry_point_is_the_call() {
        let stack = "   0: std::backtrace::Backtrace::create
             at /rustc/library/std/src/backtrace.rs:331:13
   1: rshmem::ops::team::split_2d
   2: shmem_team_split_2d
             at ./src/api/team.rs:40:5
   3: pshmem_team_split_2d
   4: main
   5: __libc_start_main";
        let none = |_: &str| false;
        assert_eq!(
            call_on_stack(stack, none).as_deref(),
            Some("pshmem_team_split_2d")
        );
        // An alias in the optimized build: the symbolizer names both the call and its profiling
        // twin `pshmem_*`.
        let alias =
            "   0: rshmem::runtime::wait::until_watching_as\n   1: pshmem_barrier_all\n   2: main";
        let exports = |name: &str| name == "shmem_barrier_all";
        assert_eq!(
            call_on_stack(alias, exports).as_deref(),
            Some("shmem_barrier_all")
        );
        assert_eq!(call_on_stack("   0: rshmem::x\n   1: main", none), None);
        let legacy = "   0: rshmem::ops::memory::allocate\n   1: shmalloc\n   2: main";
        assert_eq!(call_on_stack(legacy, none).as_deref(), Some("shmalloc"));
        let debug = "   0: rshmem::ops::sync::barrier_all\n   1: rshmem::api::sync::shmem_barrier_all\n   2: main";
        assert_eq!(
            call_on_stack(debug, none).as_deref(),
            Some("shmem_barrier_all")
        );
    }

    #[test]
    fn a_tail_called_shell_is_named_by_its_op() {
        let stack = "   0: rshmem::runtime::wait::until_watching_as
   1: rshmem::collectives::barrier::world
   2: rshmem::ops::sync::barrier_all
   3: main";
        let exports = |name: &str| name == "shmem_barrier_all";
        assert_eq!(
            call_on_stack(stack, exports).as_deref(),
            Some("shmem_barrier_all")
        );
        let generic = "   0: rshmem::ops::p2p::wait_value::<i32>\n   1: rshmem::ops::p2p::wait_until<T>\n   2: main";
        assert_eq!(
            call_on_stack(generic, |_| false).as_deref(),
            Some("rshmem::ops::p2p::wait_until")
        );
    }
}
