//! The C side of `ops::setup`: the program's output variables (`provided`, `initialized`, the
//! version numbers, the name buffer) become ranges of their size (`None`: NULL, which the core
//! answers as the routine says); and glibc's `on_exit`, which registers the exit handler, passed
//! to the core by the entry points that initialize (`init`, `start_pes`, `init_thread`).

use super::{dst_of, dst_or_null};
use crate::ops::setup;
use crate::runtime::constants::SHMEM_MAX_NAME_LEN;
use crate::runtime::personality::Program;
use std::ffi::{c_char, c_int, c_void};

unsafe extern "C" {
    /// glibc's `on_exit`: like `atexit`, but the handler learns the exit status.
    #[link_name = "on_exit"]
    fn glibc_on_exit(function: extern "C" fn(c_int, *mut c_void), arg: *mut c_void) -> c_int;
}

/// Registers `handler` to run at process exit with the exit status; false if glibc refuses
/// ([`setup::OnExit`]).
fn on_exit(handler: extern "C" fn(c_int, *mut c_void)) -> bool {
    // SAFETY: `handler` is a function (static lifetime) that ignores its argument, passed as NULL.
    unsafe { glibc_on_exit(handler, std::ptr::null_mut()) == 0 }
}

/// `shmem_init`: see [`setup::init`] (with glibc's `on_exit` for the exit handler).
pub fn init(call: &'static str) {
    setup::init(call, on_exit)
}

/// Deprecated `start_pes(npes)`: see [`setup::start_pes`].
pub fn start_pes(call: &'static str, npes: c_int) {
    setup::start_pes(call, npes, on_exit)
}

/// `shmem_init_thread`: see [`setup::init_thread`].
///
/// # Safety
/// `provided` is NULL or writable.
pub unsafe fn init_thread(
    call: &'static str,
    requested: Program<c_int>,
    provided: *mut c_int,
) -> c_int {
    // SAFETY: the C caller's `provided`, if not NULL, is its `int`, writable during the call.
    let provided = unsafe { dst_or_null(call, provided, 1) };
    setup::init_thread(call, requested, provided, on_exit)
}

/// `shmem_query_thread`: see [`setup::query_thread`].
///
/// # Safety
/// `provided` is writable.
pub unsafe fn query_thread(call: &'static str, provided: *mut c_int) {
    // SAFETY: the C caller's `provided`, if not NULL, is its `int`, writable during the call
    // (NULL is reported by the core).
    let provided = unsafe { dst_or_null(call, provided, 1) };
    setup::query_thread(call, provided)
}

/// `shmem_query_initialized` (1.6): see [`setup::query_initialized`].
///
/// # Safety
/// `initialized` is writable.
pub unsafe fn query_initialized(call: &'static str, initialized: *mut c_int) {
    // SAFETY: the C caller's `initialized`, if not NULL, is its `int`, writable during the call.
    let initialized = unsafe { dst_or_null(call, initialized, 1) };
    setup::query_initialized(call, initialized)
}

/// `shmem_info_get_version`: see [`setup::info_get_version`].
///
/// # Safety
/// `major` and `minor` are writable.
pub unsafe fn info_get_version(call: &'static str, major: *mut c_int, minor: *mut c_int) {
    // SAFETY: the C caller's `major` and `minor`, if not NULL, are its `int`s, writable during the
    // call (ranges may alias: the same variable twice gets the minor version).
    let (major, minor) = unsafe { (dst_or_null(call, major, 1), dst_or_null(call, minor, 1)) };
    setup::info_get_version(call, major, minor)
}

/// `shmem_info_get_name`: see [`setup::info_get_name`].
///
/// # Safety
/// `name` has room for `SHMEM_MAX_NAME_LEN` bytes.
pub unsafe fn info_get_name(call: &'static str, name: *mut c_char) {
    // SAFETY: the C caller's `name`, if not NULL, has room for `SHMEM_MAX_NAME_LEN` bytes (the
    // routine's contract), writable during the call.
    let name = unsafe { dst_or_null(call, name, SHMEM_MAX_NAME_LEN as usize) };
    setup::info_get_name(call, name)
}

/// Fortran `SHMEM_INFO_GET_NAME(NAME)`: see [`setup::info_get_name_fortran`].
///
/// # Safety
/// `name` has room for `name_len` bytes.
pub unsafe fn info_get_name_fortran(call: &'static str, name: *mut c_char, name_len: usize) {
    // SAFETY: `name` is gfortran's `CHARACTER` variable and `name_len` the length it passes
    // for it: `name_len` writable bytes (NULL only with a length of 0).
    let name = unsafe { dst_of(call, "name", name, name_len) };
    setup::info_get_name_fortran(call, name)
}
