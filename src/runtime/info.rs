//! The start-up printout of `SHMEM_VERSION` and `SHMEM_INFO`.

use super::config::VARIABLES;
use super::world::{Route, World};
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

/// Library name and version, as `shmem_info_get_name` reports it.
pub const LIBRARY: &str = concat!("rshmem ", env!("CARGO_PKG_VERSION"));

pub fn banner(w: &World) -> String {
    let mut out = format!("{LIBRARY}: OpenSHMEM 1.6, {} PEs\n", w.npes);
    if w.config.info {
        let list = |route: Route| -> String {
            let pes: Vec<String> = (0..w.npes)
                .filter(|&pe| w.routes[pe] == route)
                .map(|pe| pe.to_string())
                .collect();
            if pes.is_empty() {
                "none".into()
            } else {
                pes.join(" ")
            }
        };
        if w.cpu_atomics {
            let _ = writeln!(out, "Transport: shared memory (every PE on this node)");
            let _ = writeln!(out, "Atomics: CPU atomics on the mapped segments");
        } else {
            let _ = writeln!(
                out,
                "Transport (PE {}): shared memory to PEs {}; UCX to PEs {}",
                w.me,
                list(Route::Shm),
                list(Route::Net)
            );
            // Peers on the UCX route whose memory UCX maps here (`World::rma_target`).
            let by_ucx = |seg: &super::world::SegmentView| -> Vec<String> {
                (0..w.npes)
                    .filter(|&pe| w.routes[pe] == Route::Net)
                    .filter(|&pe| seg.direct[pe].load(Ordering::Relaxed) != 0)
                    .map(|pe| pe.to_string())
                    .collect()
            };
            let (heap, data) = (by_ucx(&w.segments[0]), by_ucx(&w.segments[1]));
            if !heap.is_empty() || !data.is_empty() {
                let _ = writeln!(
                    out,
                    "Puts and gets: copies through UCX's mapping of the heap of PEs {} and the global data of PEs {}",
                    if heap.is_empty() {
                        "none".into()
                    } else {
                        heap.join(" ")
                    },
                    if data.is_empty() {
                        "none".into()
                    } else {
                        data.join(" ")
                    },
                );
            }
            let _ = writeln!(
                out,
                "Atomics: UCX for every PE, this node's and this PE's own included (one atomic path per job: CPU and NIC atomics on one word are not atomic with each other)"
            );
        }
        let _ = writeln!(out, "Heap memory: {}", w.heap_memory);
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
