//! rshmem: an OpenSHMEM 1.6 library with the standard C ABI.
//!
//! Only what C sees is public: the `#[unsafe(no_mangle)]` functions and statics of `api` (the
//! generated shells and the hand-written `api::exports`); every module is private to the crate,
//! so rustc reports dead code.
//!
//! The layers, from the C boundary down (data flows down, never up; `tests/layers.rs` checks
//! every `crate::` path against this list):
//!
//! - `api`: generated one-line `extern "C"` shells, one file per spec chapter; no logic.
//! - `ops`: the generic typed core the shells forward to (`rma::put::<T>`, ...).
//! - `collectives`: algorithms written against the runtime's one-sided primitives.
//! - `runtime`: the `World` (read-only after init), configuration, symmetric segments, handles, errors.
//! - `transport`: how bytes reach a peer: `shm` (load/store into the peer's mapped segments) and
//!   the one seam every network sits behind (`Network`, `Remote`; `ucx` now); and `cores`, the
//!   yield every wait makes.
//! - `bootstrap`: the key/value exchange with the launcher (PMI-1, singleton).

mod api;
mod bootstrap;
mod collectives;
mod ops;
mod runtime;
mod transport;
