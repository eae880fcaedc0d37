//! Fatal errors. A message names the PE, the C function and the argument, then the whole job stops
//! through the launcher with a non-zero exit: `[PE 3] shmem_putmem: pe = 9 is outside [0, 8)`.

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
    if !super::fork::in_child() {
        world::with_bootstrap(|boot| boot.abort(code));
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

/// `fatal` with `format!` syntax.
#[macro_export]
macro_rules! fatal {
    ($call:expr, $($arg:tt)*) => { $crate::runtime::error::fatal($call, format_args!($($arg)*)) };
}
