//! How bytes reach a peer. `shm` is the on-node route: every PE maps every local peer's symmetric
//! segments, so an operation is a load, a store, a `memcpy` or a CPU atomic on the mapped address.
//! `ucx` is the route to PEs on other nodes: a safe layer over the system UCX (`ucx-sys`).

pub mod shm;
pub mod ucx;
