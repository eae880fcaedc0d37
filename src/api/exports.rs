//! The C ABI items written by hand, not generated: the data symbols of the predefined handles
//! (`SHMEM_CTX_DEFAULT`, `SHMEM_TEAM_WORLD`, `SHMEM_TEAM_SHARED`, and the names other
//! implementations' headers give them), the ABI marker `rshmem_abi_v1`, and
//! `rshmemx_info_print`. Their values and behaviour are the runtime's (`runtime::handle`,
//! `runtime::personality`, `runtime::about`); this file only exports them under their C names
//! (see docs/ABI.md). cbindgen reads it for `shmem.h` (the marker and `rshmemx_info_print` are
//! declared by hand, in `crates/apigen/c/shmem-macros.h` and `shmemx.h`).
//!
//! Invariant: the handle values exported here are the runtime's constants, so the runtime's
//! comparisons with those constants are comparisons with these symbols.

use crate::runtime::handle::{self, shmem_ctx_t, shmem_team_t};
use std::ffi::c_int;

// SAFETY: a context handle is an address used only as an identity: nothing reads or writes through it
// (`runtime::handle` compares it with its tables' addresses), so sharing the value between
// threads cannot race on what it points at.
unsafe impl Sync for shmem_ctx_t {}
// SAFETY: a context handle is a plain address value with no owner and no thread affinity, never
// dereferenced: moving it to another thread moves only the number.
unsafe impl Send for shmem_ctx_t {}
// SAFETY: a team handle is an address used only as an identity, compared with the team table's
// addresses and never dereferenced, so sharing it cannot race.
unsafe impl Sync for shmem_team_t {}
// SAFETY: a team handle is a plain address value with no owner and no thread affinity, never
// dereferenced: moving it to another thread moves only the number.
unsafe impl Send for shmem_team_t {}

/// The default context: operations on it complete at `shmem_quiet` (OpenSHMEM 1.6 §9.5).
#[unsafe(no_mangle)]
pub static SHMEM_CTX_DEFAULT: shmem_ctx_t = handle::SHMEM_CTX_DEFAULT;

/// The team of every PE of the program (OpenSHMEM 1.6 §9.4).
#[unsafe(no_mangle)]
pub static SHMEM_TEAM_WORLD: shmem_team_t = handle::TEAM_WORLD;

/// The team of the PEs that share memory with this one: those of its node (only itself when
/// SHMEM_TRANSPORT=ucx puts every PE on UCX).
#[unsafe(no_mangle)]
pub static SHMEM_TEAM_SHARED: shmem_team_t = handle::TEAM_SHARED;

/// Open MPI OSHMEM's `SHMEM_CTX_DEFAULT`: its header makes the name this variable, which a program
/// built with its `oshcc` reads (through a copy relocation into the executable).
#[unsafe(no_mangle)]
pub static oshmem_ctx_default: shmem_ctx_t = handle::SHMEM_CTX_DEFAULT;

/// Sandia OpenSHMEM's node team (1.5.3's `shmemx.h`): the PEs that share memory with this one,
/// which is `SHMEM_TEAM_SHARED`.
#[unsafe(no_mangle)]
pub static SHMEMX_TEAM_NODE: shmem_team_t = handle::TEAM_SHARED;

/// The ABI marker: `shmem.h` makes every object compiled with it refer to this symbol, so that
/// the personality detection (`runtime::personality::detect`) knows those objects carry rshmem's
/// values (docs/ABI.md). Its value is the marker's version; nothing reads it.
#[unsafe(no_mangle)]
#[used]
#[allow(non_upper_case_globals)]
pub static rshmem_abi_v1: c_int = 1;

/// Prints the library's report (what `oshinfo` shows) to standard output: `key:value` lines when
/// `parsable` is non-zero. Returns 0, or -1 when standard output cannot be written.
#[unsafe(no_mangle)]
pub extern "C" fn rshmemx_info_print(parsable: c_int) -> c_int {
    crate::runtime::about::info_print(parsable)
}
