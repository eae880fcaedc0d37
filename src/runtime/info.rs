//! The start-up printout of `SHMEM_VERSION` and `SHMEM_INFO`.

use super::config::VARIABLES;
use super::world::{Route, World};
use std::fmt::Write as _;

/// Library name and version, as the start-up printout and `oshinfo` give them.
pub const LIBRARY: &str = concat!("rshmem ", env!("CARGO_PKG_VERSION"));

pub fn banner(w: &World) -> String {
    let foreign = if super::personality::native() {
        String::new()
    } else {
        format!(
            " (a program built for {}: its header's values translated)",
            super::personality::active().name
        )
    };
    let mut out = format!("{LIBRARY}: OpenSHMEM 1.6, {} PEs{foreign}\n", w.npes);
    if w.config.info {
        // The PEs `keep` selects, as "0 2 5", or "none".
        let list = |keep: &dyn Fn(usize) -> bool| -> String {
            let pes: Vec<String> = (0..w.npes)
                .filter(|&pe| keep(pe))
                .map(|pe| pe.to_string())
                .collect();
            if pes.is_empty() {
                "none".into()
            } else {
                pes.join(" ")
            }
        };
        let net = w.config.transport.network_name();
        if w.cpu_atomics {
            let _ = writeln!(out, "Transport: shared memory (every PE on this node)");
            let _ = writeln!(out, "Atomics: CPU atomics on the mapped segments");
        } else {
            let _ = writeln!(
                out,
                "Transport (PE {}): shared memory to PEs {}; {net} to PEs {}",
                w.me,
                list(&|pe| w.routes[pe] == Route::Shm),
                list(&|pe| w.routes[pe] == Route::Net)
            );
            // Peers on the network route whose segment `seg` the network maps here
            // (`World::rma_target`).
            let by_net = |seg: usize, pe: usize| {
                w.routes[pe] == Route::Net && w.segments[seg].direct(pe).is_some()
            };
            if (0..w.npes).any(|pe| by_net(0, pe) || by_net(1, pe)) {
                let _ = writeln!(
                    out,
                    "Puts and gets: copies through {net}'s mapping of the heap of PEs {} and the global data of PEs {}",
                    list(&|pe| by_net(0, pe)),
                    list(&|pe| by_net(1, pe))
                );
            }
            let _ = writeln!(
                out,
                "Atomics: {net} for every PE, this node's and this PE's own included (one atomic path per job: CPU and NIC atomics on one word are not atomic with each other)"
            );
        }
        let _ = writeln!(out, "Heap memory: {}", w.heap_memory);
        let _ = writeln!(out, "Global data shared: {} bytes", w.segments[1].len());
        let _ = writeln!(
            out,
            "Environment ({} variables; SMA_ names accepted, SHMEM_ wins):",
            VARIABLES.len()
        );
        out.push_str(&w.config.describe(&w.sources));
    }
    out
}
