//! Fatal errors. A message names the PE, the C function and the argument, then the whole job stops
//! through the launcher with a non-zero exit: `[PE 3] shmem_putmem: pe = 9 is outside [0, 8)`.
//!
//! A Rust panic inside the library is an internal error and ends the job the same way
//! ([`install_panic_hook`]): `[PE 3] shmem_team_split_2d: internal error: <message> at <file:line>`,
//! the call found as the outermost exported OpenSHMEM symbol on the panicking thread's stack (no
//! bookkeeping on any fast path), then the launcher ends the job with exit status 1 instead of the
//! process dying by SIGABRT (the profiles build with `panic = "abort"`, so no panic unwinds into C).

use super::world;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the process is on its way out after an error: nothing may wait on peers any more.
pub static ABORTING: AtomicBool = AtomicBool::new(false);

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
        let _ = writeln!(std::io::stderr(), "{text}");
    }
    // A fork child's launcher connection is its parent PE's: it ends alone.
    if !world::in_child() {
        world::with_bootstrap(|boot| boot.abort(code));
    }
    if world::try_get().is_some_and(|w| w.remote().is_some()) {
        // The network's progress thread may be inside UCX while `exit` runs UCX's destructors,
        // which then dies by SIGABRT instead of this exit code: leave without destructors.
        // SAFETY: fflush(NULL) flushes every C stream; _exit ends the process at once.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(code)
        }
    }
    std::process::exit(code)
}

/// Ends this PE, waiting in the library, whose launcher (its parent process `parent`) has died:
/// nobody is left to tell, so the launcher connection is not used.
#[cold]
#[inline(never)]
pub fn launcher_gone(parent: u32) -> ! {
    ABORTING.store(true, Ordering::SeqCst);
    let _ = std::io::stdout().flush();
    let _ = writeln!(
        std::io::stderr(),
        "[PE {}] the launcher (parent process {parent}) is gone: ending this PE",
        world::pe_label()
    );
    std::process::exit(1)
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
            let call = call_on_stack(&stack).unwrap_or("rshmem");
            let text = panic_message(&world::pe_label(), call, &payload, &location);
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

/// The outermost OpenSHMEM entry point in a backtrace's text (its frames are numbered from the
/// innermost): a frame named `shmem_*`, `pshmem_*`, `shmemx_*`, a legacy name, or a Fortran one.
fn call_on_stack(stack: &str) -> Option<&str> {
    const LEGACY: [&str; 8] = [
        "start_pes",
        "_my_pe",
        "_num_pes",
        "my_pe",
        "num_pes",
        "shmalloc",
        "shfree",
        "shrealloc",
    ];
    stack
        .lines()
        .filter_map(|line| {
            let (number, name) = line.trim_start().split_once(": ")?;
            number.parse::<u32>().ok()?;
            let name = name.trim();
            let exported = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && (["shmem_", "pshmem_", "shmemx_"]
                    .iter()
                    .any(|p| name.starts_with(p))
                    || LEGACY.contains(&name));
            exported.then_some(name)
        })
        .next_back()
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
        assert_eq!(call_on_stack(stack), Some("pshmem_team_split_2d"));
        assert_eq!(call_on_stack("   0: rshmem::x\n   1: main"), None);
        let legacy = "   0: rshmem::ops::memory::allocate\n   1: shmalloc\n   2: main";
        assert_eq!(call_on_stack(legacy), Some("shmalloc"));
    }
}
