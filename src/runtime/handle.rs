//! The C handle types (`shmem_ctx_t`, `shmem_team_t`) and every cast between a handle and the Rust
//! object behind it. No other module turns a handle into a reference.
//!
//! A handle is a pointer to an object owned by the library. The predefined handles
//! (`SHMEM_CTX_DEFAULT`, ...) are exported data symbols whose value is the address of a static object;
//! the invalid handles are NULL. See docs/ABI.md.

use std::ffi::c_void;

/// Opaque C type behind `shmem_ctx_t`.
#[repr(C)]
pub struct rshmem_ctx {
    _opaque: [u8; 0],
}

/// Opaque C type behind `shmem_team_t`.
#[repr(C)]
pub struct rshmem_team {
    _opaque: [u8; 0],
}

/// A communication context handle (OpenSHMEM 1.6 §9.5).
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct shmem_ctx_t(pub *mut rshmem_ctx);

/// A team handle (OpenSHMEM 1.6 §9.4).
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct shmem_team_t(pub *mut rshmem_team);

// SAFETY: a handle is an address used as an identity; the objects behind it are immutable or
// synchronized internally, so sharing the value between threads is sound.
unsafe impl Sync for shmem_ctx_t {}
// SAFETY: as above.
unsafe impl Send for shmem_ctx_t {}
// SAFETY: as above.
unsafe impl Sync for shmem_team_t {}
// SAFETY: as above.
unsafe impl Send for shmem_team_t {}

/// The object behind `SHMEM_CTX_DEFAULT`.
pub struct Context {
    _private: (),
}

static DEFAULT_CONTEXT: Context = Context { _private: () };

/// The default context: operations on it complete at `shmem_quiet` (OpenSHMEM 1.6 §9.5).
#[unsafe(no_mangle)]
pub static SHMEM_CTX_DEFAULT: shmem_ctx_t =
    shmem_ctx_t(&raw const DEFAULT_CONTEXT as *const c_void as *mut rshmem_ctx);

impl shmem_ctx_t {
    /// The handle value of an invalid context (`SHMEM_CTX_INVALID`).
    pub const INVALID: shmem_ctx_t = shmem_ctx_t(std::ptr::null_mut());
}

/// The context behind a handle; `None` for a handle the library never handed out.
#[inline(always)]
pub fn context(ctx: shmem_ctx_t) -> Option<&'static Context> {
    if ctx == SHMEM_CTX_DEFAULT {
        Some(&DEFAULT_CONTEXT)
    } else {
        None
    }
}
