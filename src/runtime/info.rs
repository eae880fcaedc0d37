//! The start-up printout of `SHMEM_VERSION` and `SHMEM_INFO`.

use super::config::VARIABLES;
use super::world::World;
use std::fmt::Write as _;

/// Library name and version, as `shmem_info_get_name` reports it.
pub const LIBRARY: &str = concat!("rshmem ", env!("CARGO_PKG_VERSION"));

pub fn banner(w: &World) -> String {
    let mut out = format!("{LIBRARY}: OpenSHMEM 1.6, {} PEs\n", w.npes);
    if w.config.info {
        let _ = writeln!(out, "Transport: shared memory (every PE on this node)");
        let _ = writeln!(out, "Global data shared: {} bytes", w.segments[1].len);
        let _ = writeln!(
            out,
            "Environment ({} variables; SMA_ names accepted, SHMEM_ wins):",
            VARIABLES.len()
        );
        out.push_str(&w.config.describe(&w.sources));
    }
    out
}
