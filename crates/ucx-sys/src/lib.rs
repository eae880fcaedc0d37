//! Raw bindings to the system UCX (the UCP API of `<ucp/api/ucp.h>`), generated at build time by
//! bindgen against the headers pkg-config finds, restricted to what rshmem uses (see `build.rs`).
//!
//! C enum values keep their C names as typed constants (`UCS_OK: ucs_status_t`). The function-like C
//! macros and `static inline` functions the bindings cannot carry are re-implemented in [`macros`]
//! (`UCS_PTR_IS_ERR`, `UCS_PTR_STATUS`, `ucp_dt_make_contig`, `ucp_init`, ...). Everything here is
//! raw: the safe layer is `rshmem::transport::ucx`.

#[allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
mod bindings {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub mod macros;

pub use bindings::*;
pub use macros::*;
