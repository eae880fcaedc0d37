//! The constants, macros and types of the C API (OpenSHMEM 1.6, library_constants.tex and
//! library_handles.tex), written by hand. cbindgen exports the integer constants and the structs into
//! shmem.h; `crates/apigen` renders the string and the `long` constants itself (cbindgen has no
//! string literals and drops the `L` suffix). The values are part of the ABI; docs/ABI.md gives the
//! reason for each.
//!
//! The deprecated underscore forms (`_SHMEM_CMP_EQ`, ...) are defined as the current names.
//! `SHMEM_TEAM_WORLD` and `SHMEM_TEAM_SHARED` are data symbols in `runtime::handle`; the invalid
//! handles (`SHMEM_CTX_INVALID`, `SHMEM_TEAM_INVALID`) are NULL casts written in `crates/apigen/c/`.
// dead_code: these are the C header's constants (cbindgen reads them from here); Rust uses some.
#![allow(non_upper_case_globals, non_camel_case_types, dead_code)]

use std::ffi::{CStr, c_int, c_long};

// Library version and identification.

/// Major version of the OpenSHMEM specification implemented.
pub const SHMEM_MAJOR_VERSION: c_int = 1;
/// Minor version of the OpenSHMEM specification implemented.
pub const SHMEM_MINOR_VERSION: c_int = 6;
/// Bytes `shmem_info_get_name` may write, including the terminating NUL.
pub const SHMEM_MAX_NAME_LEN: c_int = 256;
/// The vendor string that `shmem_info_get_name` returns.
pub const SHMEM_VENDOR_STRING: &CStr = c"rshmem";
/// Deprecated (1.3): `SHMEM_MAJOR_VERSION`.
pub const _SHMEM_MAJOR_VERSION: c_int = SHMEM_MAJOR_VERSION;
/// Deprecated (1.3): `SHMEM_MINOR_VERSION`.
pub const _SHMEM_MINOR_VERSION: c_int = SHMEM_MINOR_VERSION;
/// Deprecated (1.3): `SHMEM_MAX_NAME_LEN`.
pub const _SHMEM_MAX_NAME_LEN: c_int = SHMEM_MAX_NAME_LEN;
/// Deprecated (1.3): `SHMEM_VENDOR_STRING`.
pub const _SHMEM_VENDOR_STRING: &CStr = SHMEM_VENDOR_STRING;

const _: () = assert!(SHMEM_VENDOR_STRING.to_bytes_with_nul().len() <= SHMEM_MAX_NAME_LEN as usize);

// Thread levels (§9.2): ordered, SINGLE < FUNNELED < SERIALIZED < MULTIPLE, as the spec requires.

/// Only one thread calls the library.
pub const SHMEM_THREAD_SINGLE: c_int = 0;
/// Only the thread that initialized the library calls it.
pub const SHMEM_THREAD_FUNNELED: c_int = 1;
/// Any thread calls the library, one at a time.
pub const SHMEM_THREAD_SERIALIZED: c_int = 2;
/// Any thread calls the library at any time.
pub const SHMEM_THREAD_MULTIPLE: c_int = 3;

// Comparison operators of the point-to-point synchronization routines.

/// Equal.
pub const SHMEM_CMP_EQ: c_int = 0;
/// Not equal.
pub const SHMEM_CMP_NE: c_int = 1;
/// Greater than.
pub const SHMEM_CMP_GT: c_int = 2;
/// Less than or equal.
pub const SHMEM_CMP_LE: c_int = 3;
/// Less than.
pub const SHMEM_CMP_LT: c_int = 4;
/// Greater than or equal.
pub const SHMEM_CMP_GE: c_int = 5;
/// Deprecated (1.3): `SHMEM_CMP_EQ`.
pub const _SHMEM_CMP_EQ: c_int = SHMEM_CMP_EQ;
/// Deprecated (1.3): `SHMEM_CMP_NE`.
pub const _SHMEM_CMP_NE: c_int = SHMEM_CMP_NE;
/// Deprecated (1.3): `SHMEM_CMP_GT`.
pub const _SHMEM_CMP_GT: c_int = SHMEM_CMP_GT;
/// Deprecated (1.3): `SHMEM_CMP_LE`.
pub const _SHMEM_CMP_LE: c_int = SHMEM_CMP_LE;
/// Deprecated (1.3): `SHMEM_CMP_LT`.
pub const _SHMEM_CMP_LT: c_int = SHMEM_CMP_LT;
/// Deprecated (1.3): `SHMEM_CMP_GE`.
pub const _SHMEM_CMP_GE: c_int = SHMEM_CMP_GE;

// Signal operators of the put-with-signal routines.

/// The signal is set to the value.
pub const SHMEM_SIGNAL_SET: c_int = 0;
/// The value is added to the signal.
pub const SHMEM_SIGNAL_ADD: c_int = 1;

// Context options (§9.5): bits, combined with `|` in `options`.

/// The context is used by one thread at a time.
pub const SHMEM_CTX_SERIALIZED: c_long = 1 << 0;
/// The context is used only by the thread that created it.
pub const SHMEM_CTX_PRIVATE: c_long = 1 << 1;
/// `shmem_quiet` and `shmem_fence` on the context need not complete stores.
pub const SHMEM_CTX_NOSTORE: c_long = 1 << 2;

// Context session options and configuration mask (§9.5).

/// Option of `shmem_ctx_session_start`: the session batches operations.
pub const SHMEM_CTX_SESSION_BATCH: c_long = 1 << 0;
/// Mask bit: `shmem_ctx_session_config_t::total_ops` is set.
pub const SHMEM_CTX_SESSION_TOTAL_OPS: c_long = 1 << 0;

// Team configuration mask (§9.4).

/// Mask bit: `shmem_team_config_t::num_contexts` is set.
pub const SHMEM_TEAM_NUM_CONTEXTS: c_long = 1 << 0;

// Memory allocation hints (§9.3): bits, combined with `|`; 0 means no hint.

/// The memory is mostly used by remote atomic operations.
pub const SHMEM_MALLOC_ATOMICS_REMOTE: c_long = 1 << 0;
/// The memory is mostly used as signals.
pub const SHMEM_MALLOC_SIGNAL_REMOTE: c_long = 1 << 1;

// Work arrays of the deprecated active-set collectives (deprecated 1.5): numbers of `long`s. The
// library never touches `pSync` (see `ops::coll`), so any size suffices; these keep room to spare.

/// `pSync` length for `shmem_barrier`.
pub const SHMEM_BARRIER_SYNC_SIZE: c_int = 64;
/// `pSync` length for `shmem_broadcast*`.
pub const SHMEM_BCAST_SYNC_SIZE: c_int = 64;
/// `pSync` length for `shmem_collect*` and `shmem_fcollect*`.
pub const SHMEM_COLLECT_SYNC_SIZE: c_int = 128;
/// `pSync` length for the `*_to_all` reductions.
pub const SHMEM_REDUCE_SYNC_SIZE: c_int = 128;
/// `pSync` length for `shmem_alltoall*`.
pub const SHMEM_ALLTOALL_SYNC_SIZE: c_int = 64;
/// `pSync` length for `shmem_alltoalls*`.
pub const SHMEM_ALLTOALLS_SYNC_SIZE: c_int = 64;
/// A `pSync` length that fits every collective: the largest `SHMEM_*_SYNC_SIZE`.
pub const SHMEM_SYNC_SIZE: c_int = 128;
/// Minimum `pWrk` length, in elements, of the `*_to_all` reductions.
pub const SHMEM_REDUCE_MIN_WRKDATA_SIZE: c_int = 64;
/// The value every `pSync` element must hold before its first use.
pub const SHMEM_SYNC_VALUE: c_long = 0;
/// Deprecated (1.3): `SHMEM_BARRIER_SYNC_SIZE`.
pub const _SHMEM_BARRIER_SYNC_SIZE: c_int = SHMEM_BARRIER_SYNC_SIZE;
/// Deprecated (1.3): `SHMEM_BCAST_SYNC_SIZE`.
pub const _SHMEM_BCAST_SYNC_SIZE: c_int = SHMEM_BCAST_SYNC_SIZE;
/// Deprecated (1.3): `SHMEM_COLLECT_SYNC_SIZE`.
pub const _SHMEM_COLLECT_SYNC_SIZE: c_int = SHMEM_COLLECT_SYNC_SIZE;
/// Deprecated (1.3): `SHMEM_REDUCE_SYNC_SIZE`.
pub const _SHMEM_REDUCE_SYNC_SIZE: c_int = SHMEM_REDUCE_SYNC_SIZE;
/// Deprecated (1.3): `SHMEM_REDUCE_MIN_WRKDATA_SIZE`.
pub const _SHMEM_REDUCE_MIN_WRKDATA_SIZE: c_int = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
/// Deprecated (1.3): `SHMEM_SYNC_VALUE`.
pub const _SHMEM_SYNC_VALUE: c_long = SHMEM_SYNC_VALUE;

const _: () = {
    let sizes = [
        SHMEM_BARRIER_SYNC_SIZE,
        SHMEM_BCAST_SYNC_SIZE,
        SHMEM_COLLECT_SYNC_SIZE,
        SHMEM_REDUCE_SYNC_SIZE,
        SHMEM_ALLTOALL_SYNC_SIZE,
        SHMEM_ALLTOALLS_SYNC_SIZE,
    ];
    let mut i = 0;
    while i < sizes.len() {
        assert!(sizes[i] <= SHMEM_SYNC_SIZE);
        i += 1;
    }
};

// Types.

/// Team configuration (§9.4): `typedef struct { int num_contexts; } shmem_team_config_t;`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct shmem_team_config_t {
    /// Contexts the team expects to create (read when the mask has `SHMEM_TEAM_NUM_CONTEXTS`).
    pub num_contexts: c_int,
}

/// Context session configuration (§9.5): `typedef struct { size_t total_ops; } shmem_ctx_session_config_t;`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct shmem_ctx_session_config_t {
    /// Operations the session expects (read when the mask has `SHMEM_CTX_SESSION_TOTAL_OPS`).
    pub total_ops: usize,
}
