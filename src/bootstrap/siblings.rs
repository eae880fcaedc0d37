//! The watch of a launcher barrier from inside one node: the PEs the launcher's local daemon
//! started on this node, for a PE waiting in the barrier of `shmem_init`. A launcher that does
//! not end the job when a PE exits with status 0 before `shmem_init` (Hydra; Slurm, which waits
//! for every task) leaves the others in its barrier for ever. A PE whose parent is that daemon
//! (`hydra_pmi_proxy`, `slurmstepd`: each starts the ranks of its node and nothing else) knows
//! which ranks are on its node; a rank no longer among the daemon's children (read from `/proc`,
//! each child's rank from its environment) has ended, and the barrier cannot complete. Only this
//! node's PEs can be seen so: a PE that ends before `shmem_init` on another node is seen by the
//! PEs of its own node, and where it was alone there, by nobody; after 30 s the lowest rank of
//! each node whose PEs are all alive says that the barrier still waits.

use super::{Error, Result};
use std::time::Duration;

/// How often a PE waiting in a launcher's barrier looks at its node's PEs.
pub(super) const LOOK: Duration = Duration::from_secs(1);

/// Whether this PE's parent process is named `comm` (the kernel's 15-byte `comm`).
pub(super) fn parent_is(comm: &str) -> bool {
    let parent = std::os::unix::process::parent_id();
    std::fs::read_to_string(format!("/proc/{parent}/comm"))
        .is_ok_and(|name| name.trim_end() == comm)
}

/// The ranks of this node and the daemon that started them (this PE's parent).
pub(super) struct Siblings {
    /// The launcher's daemon on this node, this PE's parent.
    daemon: u32,
    /// The variable of each started process's environment that holds its rank.
    rank_var: &'static str,
    /// The ranks of this node, this PE's among them.
    ranks: Vec<usize>,
    /// Whether the last look found a rank gone.
    seen_gone: bool,
    /// Looks so far, and whether this PE has said it waits for other nodes ([`NOTICE_AFTER`]).
    looks: u32,
    noticed: bool,
}

/// Looks after which the lowest rank of a node whose PEs are all alive says, once, that the
/// barrier still waits (30 s): a PE that ended before `shmem_init` on another node, alone there,
/// shows to nobody here.
const NOTICE_AFTER: u32 = 30;

impl Siblings {
    /// The watch, where this PE's parent is the launcher's daemon named `daemon` (its `comm`),
    /// whose children carry their rank in `rank_var`; `ranks` are the ranks of this node.
    pub(super) fn new(daemon: &str, rank_var: &'static str, ranks: Vec<usize>) -> Option<Siblings> {
        if !parent_is(daemon) {
            return None;
        }
        Some(Siblings {
            daemon: std::os::unix::process::parent_id(),
            rank_var,
            ranks,
            seen_gone: false,
            looks: 0,
            noticed: false,
        })
    }

    /// One look, [`LOOK`] after the last: an error naming the ranks of this node found gone at
    /// two looks in a row (`launcher` names the launcher in it), or the launcher's report of a
    /// failed process (`super::launcher_reported_failure`).
    /// `me` is this PE's rank: the lowest rank of the node says once, after [`NOTICE_AFTER`]
    /// looks, that the barrier still waits for other nodes.
    pub(super) fn look(&mut self, launcher: &str, me: usize) -> Result<()> {
        if super::launcher_reported_failure() {
            return Err(Error(format!(
                "the launcher's barrier can never complete: {launcher} reported a failed process \
                 of the job"
            )));
        }
        let gone = self.gone();
        self.looks = self.looks.saturating_add(1);
        if gone.is_empty() {
            self.seen_gone = false;
            if self.looks >= NOTICE_AFTER && !self.noticed && self.ranks.iter().min() == Some(&me) {
                self.noticed = true;
                eprintln!(
                    "[PE {me}] shmem_init: {} s in the launcher's barrier, this node's PEs all \
                     alive: it waits for PEs not yet in shmem_init, or for another node whose \
                     PEs all ended before it ({launcher} does not report those; the job goes on)",
                    LOOK.as_secs() * u64::from(self.looks)
                );
            }
            return Ok(());
        }
        if !self.seen_gone {
            self.seen_gone = true;
            return Ok(());
        }
        let list: Vec<String> = gone.iter().map(usize::to_string).collect();
        let (pe, has) = if gone.len() == 1 {
            ("PE", "has")
        } else {
            ("PEs", "have")
        };
        Err(Error(format!(
            "the launcher's barrier can never complete: {pe} {} {has} ended without entering it \
             (no longer among the launcher's processes on this node; {launcher} does not end a \
             job for a PE that exits 0 before shmem_init)",
            list.join(", ")
        )))
    }

    /// The ranks of this node no longer among the daemon's children (empty if they all are, or
    /// if `/proc` cannot tell).
    fn gone(&self) -> Vec<usize> {
        let path = format!("/proc/{0}/task/{0}/children", self.daemon);
        let Ok(children) = std::fs::read_to_string(path) else {
            return Vec::new();
        };
        let prefix = format!("{}=", self.rank_var);
        let mut alive = Vec::new();
        for pid in children.split_whitespace() {
            let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
                // A child we cannot read: we cannot tell who is missing.
                return Vec::new();
            };
            let rank = environ
                .split(|&b| b == 0)
                .find_map(|var| var.strip_prefix(prefix.as_bytes()))
                .and_then(|v| std::str::from_utf8(v).ok()?.parse::<usize>().ok());
            match rank {
                Some(rank) => alive.push(rank),
                None => return Vec::new(),
            }
        }
        self.ranks
            .iter()
            .copied()
            .filter(|r| !alive.contains(r))
            .collect()
    }
}
