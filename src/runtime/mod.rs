//! The runtime: the `World` built by `shmem_init` and read-only afterwards, its configuration,
//! the heap allocator, teams and contexts, the C handles, errors and waiting.
//!
//! The runtime denies `unsafe_code`: raw memory is reached through `transport::shm`'s checked
//! types (`Mapping`, `Dst`, `Src`), the system and the loader through `transport::shm::process`
//! and `loader`, and the C ABI's exported symbols are `api::exports`'.

#![deny(unsafe_code)]

pub mod about;
pub mod config;
pub mod constants;
pub mod context;
pub mod counters;
pub mod deadlock;
pub mod departure;
pub mod error;
pub mod fork;
pub mod handle;
pub mod hang;
pub mod heap;
pub mod info;
pub mod log;
pub mod log_filter;
pub mod orphan;
pub mod output;
pub mod personality;
pub(crate) mod remote;
pub mod startup;
pub mod team;
pub mod wait;
pub mod world;
