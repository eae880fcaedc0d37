//! How bytes reach a peer. `shm` is the on-node route: every PE maps every local peer's symmetric
//! segments, so an operation is a load, a store, a `memcpy` or a CPU atomic on the mapped address.
//! (The UCX route for PEs on other nodes is a sibling module to come.)

pub mod shm;
