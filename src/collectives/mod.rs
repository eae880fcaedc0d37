//! Collective algorithms, written against the runtime's view of the peers' memory.

pub mod barrier;
