//! rshmem: an OpenSHMEM 1.6 library with the standard C ABI.
//!
//! The layers, from the C boundary down (data flows down, never up):
//!
//! - [`api`]: generated one-line `extern "C"` shells, one file per spec chapter; no logic.
//! - [`ops`]: the generic typed core the shells forward to (`rma::put::<T>`, ...).
//! - [`collectives`]: algorithms written against the runtime's one-sided primitives.
//! - [`runtime`]: the `World` (read-only after init), configuration, symmetric segments, handles, errors.
//! - [`transport`]: how bytes reach a peer (`shm`: load/store into the peer's mapped segments).
//! - [`bootstrap`]: the key/value exchange with the launcher (PMI-1, singleton).

pub mod api;
pub mod bootstrap;
pub mod collectives;
pub mod ops;
pub mod runtime;
pub mod transport;
