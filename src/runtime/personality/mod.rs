//! ABI personalities: which implementation's header the running program was compiled against, and
//! the translation of the values it passes into rshmem's own.
//!
//! A program built for Open MPI's OSHMEM or Sandia OpenSHMEM and run with rshmem preloaded carries
//! that header's constants (SOS's `SHMEM_CMP_EQ` is 1, rshmem's 0) and reads its predefined
//! handles from that library's data symbols. [`select`] runs once, at the first `shmem_init`:
//! [`detect`] decides from what each loaded object was compiled with and linked against (rshmem's
//! header marks its objects; [`elf`] reads the files) which header the program's objects carry;
//! [`select`] makes that the active personality and keeps the values of its library's handle
//! symbols, which `runtime::handle` asks for ([`foreign_handle`]). Each entry point where a foreign
//! value arrives (comparison, signal operator, context options, allocation hints, thread level)
//! calls one function here, which is the identity behind a single predictable branch when the
//! personality is native. A value the active personality does not define is a fatal error naming
//! the value, the call and the personality; nothing is guessed.
//!
//! Invariant: the active personality changes only in [`select`], before the World exists.

pub mod detect;
pub mod elf;
pub mod tables;

use crate::fatal;
use std::ffi::{c_int, c_long};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
pub use tables::{Personality, Predefined};

/// A value the program passed, in its header's encoding: a `SHMEM_CMP_*`, a `SHMEM_SIGNAL_*`,
/// context options, a team configuration mask, allocation hints, a requested thread level. The
/// generated C shells wrap the argument (an op that takes `Program<_>` gets `Program(arg)`), and
/// only the functions of this module read it, translating by the active personality. The
/// library's own code never builds one: its comparisons and options are its own types
/// (`ops::p2p::Cmp`, ...), so passing rshmem's constant where the program's value belongs does not
/// compile, and `Program(` outside `src/api/` is what to look for in review.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct Program<T>(pub T);

/// Index in [`tables::ALL`] of the active personality (0: native).
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
/// The outcome of the one detection: the index selected, or why none could be.
static SELECTED: OnceLock<Result<usize, String>> = OnceLock::new();

/// The values the foreign library's own copies of its handle symbols hold, with what each means
/// (set once, in [`select`], before any handle is checked).
static FOREIGN_HANDLES: OnceLock<Vec<(usize, Predefined)>> = OnceLock::new();

/// What a handle value of the foreign library's own copies means (`runtime::handle` asks, on its
/// slow path, for a handle that is none of rshmem's).
pub fn foreign_handle(value: usize) -> Option<Predefined> {
    if value == 0 {
        return None;
    }
    FOREIGN_HANDLES
        .get()?
        .iter()
        .find(|(v, _)| *v == value)
        .map(|(_, means)| *means)
}

/// The active personality.
pub fn active() -> &'static Personality {
    tables::ALL[ACTIVE.load(Ordering::Relaxed)]
}

/// Whether the program uses rshmem's own values (the data-path test).
#[inline(always)]
pub fn native() -> bool {
    ACTIVE.load(Ordering::Relaxed) == 0
}

/// Detects the personality (once per process) and activates it; an unrecognized or ambiguous
/// implementation stops the job, naming what was found.
pub fn select(call: &'static str) {
    let selected = SELECTED.get_or_init(|| {
        let found = detect::detect()?;
        let index = tables::ALL
            .iter()
            .position(|p| std::ptr::eq(*p, found.personality))
            .unwrap_or(0);
        let _ = FOREIGN_HANDLES.set(
            found
                .handles
                .iter()
                .map(|(h, value)| (*value, h.means))
                .collect(),
        );
        ACTIVE.store(index, Ordering::Relaxed);
        Ok(index)
    });
    if let Err(why) = selected {
        fatal!(call, "{why}");
    }
}

/// The rshmem comparison that `cmp` (a `SHMEM_CMP_*` of the program's header) means.
#[inline(always)]
pub fn cmp(call: &'static str, Program(cmp): Program<c_int>) -> c_int {
    if native() {
        cmp
    } else {
        foreign_int(call, "cmp", "a comparison", active().cmp, cmp)
    }
}

/// The rshmem signal operator that `sig_op` means.
#[inline(always)]
pub fn sig_op(call: &'static str, Program(sig_op): Program<c_int>) -> c_int {
    if native() {
        sig_op
    } else {
        foreign_int(call, "sig_op", "a signal operator", active().signal, sig_op)
    }
}

/// The rshmem context options that `options` means.
#[inline(always)]
pub fn ctx_options(call: &'static str, Program(options): Program<c_long>) -> c_long {
    if native() {
        options
    } else {
        foreign_bits(
            call,
            "options",
            "context option",
            active().ctx_options,
            options,
        )
    }
}

/// The rshmem team configuration mask that `mask` (`SHMEM_TEAM_*` bits) means.
#[inline(always)]
pub fn team_mask(call: &'static str, Program(mask): Program<c_long>) -> c_long {
    if native() {
        mask
    } else {
        foreign_bits(
            call,
            "config_mask",
            "team configuration",
            active().team_mask,
            mask,
        )
    }
}

/// The rshmem allocation hints that `hints` means.
#[inline(always)]
pub fn malloc_hints(call: &'static str, Program(hints): Program<c_long>) -> c_long {
    if native() {
        hints
    } else {
        foreign_bits(
            call,
            "hints",
            "allocation hint",
            active().malloc_hints,
            hints,
        )
    }
}

/// The rshmem thread level that `level` (a requested `SHMEM_THREAD_*`) means. A level the header
/// does not define is passed on: `shmem_init_thread` clamps it, as for native programs.
pub fn thread_level_in(Program(level): Program<c_int>) -> c_int {
    tables::lookup(active().thread, level as i64).map_or(level, |k| tables::as_int(k.native))
}

/// The program's value of the rshmem thread level `level` (returned by `shmem_init_thread` and
/// `shmem_query_thread`).
pub fn thread_level_out(level: c_int) -> c_int {
    tables::reverse(active().thread, level as i64).map_or(level, |k| tables::as_int(k.foreign))
}

#[cold]
#[inline(never)]
fn foreign_int(
    call: &'static str,
    what: &str,
    kind: &str,
    group: &[tables::Const],
    value: c_int,
) -> c_int {
    match tables::lookup(group, value as i64) {
        Some(k) => tables::as_int(k.native),
        None => {
            let p = active();
            fatal!(
                call,
                "{what} = {value} is not {kind} of {} (the personality detected for this program; its values: {})",
                p.name,
                if group.is_empty() {
                    "none".to_string()
                } else {
                    tables::listing(group)
                }
            )
        }
    }
}

#[cold]
#[inline(never)]
fn foreign_bits(
    call: &'static str,
    what: &str,
    kind: &str,
    group: &[tables::Const],
    value: c_long,
) -> c_long {
    match tables::bits(group, value) {
        Ok(native) => native,
        Err(bit) => {
            let p = active();
            fatal!(
                call,
                "{what} = {value:#x}: bit {bit:#x} is no {kind} of {} (the personality detected for this program; its bits: {})",
                p.name,
                if group.is_empty() {
                    "none".to_string()
                } else {
                    tables::listing(group)
                }
            )
        }
    }
}

/// The message for a context or team handle that is neither one of this library's nor a known
/// predefined handle of the active personality. `what` is the parameter (`ctx`, `team`).
pub fn unknown_handle(what: &str, kind: &str, value: usize) -> String {
    let p = active();
    let invalid = if kind == "context" {
        "SHMEM_CTX_INVALID"
    } else {
        "SHMEM_TEAM_INVALID"
    };
    if value == 0 && p.null_is_invalid {
        return format!("{what} is {invalid}");
    }
    let known: Vec<String> = p
        .handles
        .iter()
        .map(|h| {
            if h.symbol == h.spelled {
                h.symbol.to_string()
            } else {
                format!("{} ({})", h.spelled, h.symbol)
            }
        })
        .collect();
    let null = if value == 0 {
        format!(" ({} defines no {invalid})", p.name)
    } else {
        String::new()
    };
    format!(
        "{what} = {value:#x}{null} is not a {kind} this library created nor a predefined handle of {} (the personality detected for this program: {})",
        p.name,
        known.join(", ")
    )
}
