//! The runtime: the `World` built by `shmem_init` and read-only afterwards, its configuration,
//! the heap allocator, teams and contexts, the C handles, errors and waiting.

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
