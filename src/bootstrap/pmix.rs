//! PMIx client through the system libpmix, loaded at run time with `dlopen`: Open MPI's `mpirun`
//! and Slurm's `srun --mpi=pmix` start PEs this way. The library is not linked, so rshmem still
//! loads and runs (singleton, PMI-1) on a machine without libpmix; its binding is
//! [`super::ffi`].
//!
//! The conversation: `PMIx_Init` gives our namespace and rank; `PMIx_Get` of the job-level
//! (`PMIX_RANK_WILDCARD`) key `PMIX_JOB_SIZE` gives the size (node locality is the runtime's
//! own check); `put` is `PMIx_Put(PMIX_GLOBAL)` of a string, `barrier` is `PMIx_Commit` then
//! `PMIx_Fence` over the namespace with `PMIX_COLLECT_DATA`, so that `get` (`PMIx_Get` of a peer's
//! key) is answered locally; `abort` is `PMIx_Abort` of the namespace; `finalize` is
//! `PMIx_Finalize`. Under Slurm (this PE's parent is `slurmstepd`) the fence is `PMIx_Fence_nb`,
//! and while it runs the PE watches its node's tasks ([`Siblings`]): Slurm waits for every task,
//! so a PE that returned 0 before `shmem_init` would leave the others in the fence for ever.

use super::ffi::{Library, PMIX_JOB_SIZE, PMIX_LOCAL_PEERS, PMIX_RANK_WILDCARD, Proc};
use super::siblings::{LOOK, Siblings};
use super::{Bootstrap, Error, Result};
use std::ffi::CString;

/// The sonames tried, newest ABI first.
pub(crate) use super::ffi::LIBRARIES;

pub struct Pmix {
    lib: Library,
    me: Proc,
    size: usize,
    job_id: String,
    finalized: bool,
    /// Under Slurm, the watch of this node's PEs while the fence waits ([`Siblings`]).
    siblings: Option<Siblings>,
}

/// Slurm's step daemon: it starts the tasks of its node, and nothing else.
const SLURM_STEP_DAEMON: &str = "slurmstepd";

fn c_text(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error(format!("{what} contains a NUL byte")))
}

impl Pmix {
    /// Loads libpmix, connects to the local PMIx server and learns the job's shape.
    pub fn connect() -> Result<Pmix> {
        let lib = Library::load()?;
        let me = lib.init()?;
        let nspace = me.nspace();
        let mut pmix = Pmix {
            lib,
            me,
            size: 0,
            job_id: nspace
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect(),
            finalized: false,
            siblings: None,
        };
        let job = pmix.me.with_rank(PMIX_RANK_WILDCARD);
        let size = pmix.lib.get_u32(&job, PMIX_JOB_SIZE)?;
        pmix.size = size
            .map(|s| s as usize)
            .ok_or_else(|| Error("PMIX_JOB_SIZE is not a uint32".into()))?;
        if pmix.me.rank as usize >= pmix.size {
            return Err(Error(format!(
                "PMIx: rank {} of {} PEs makes no sense",
                pmix.me.rank, pmix.size
            )));
        }
        // Slurm waits for every task: a PE that exits 0 before shmem_init would leave the others
        // in the fence for ever. (Open MPI's mpirun ends the job itself.)
        if super::siblings::parent_is(SLURM_STEP_DAEMON)
            && let Ok(Some(peers)) = pmix.lib.get_string(&job, PMIX_LOCAL_PEERS)
            && let Some(ranks) = local_ranks(&peers, pmix.size)
        {
            pmix.siblings = Siblings::new(SLURM_STEP_DAEMON, "PMIX_RANK", ranks);
        }
        Ok(pmix)
    }
}

/// The rank that published `key`, by the bootstrap's naming rule (`name-<rank>`, or
/// `name-<rank>.<chunk>` for a part of a large value): PMIx looks a key up at its publisher.
/// Other keys are job-level ones, looked up on the namespace as a whole.
fn owner(key: &str) -> Option<u32> {
    let base = key.split('.').next()?;
    base.rsplit_once('-')?.1.parse().ok()
}

impl Bootstrap for Pmix {
    fn rank(&self) -> usize {
        self.me.rank as usize
    }
    fn size(&self) -> usize {
        self.size
    }
    fn job_id(&self) -> &str {
        &self.job_id
    }
    fn put(&mut self, key: &str, value: &str) -> Result<()> {
        let ckey = c_text(key, "a key")?;
        let cvalue = c_text(value, "a value")?;
        self.lib.put_string(&ckey, &cvalue)
    }
    fn get(&mut self, key: &str) -> Result<String> {
        let ckey = c_text(key, "a key")?;
        let rank = owner(key).unwrap_or(PMIX_RANK_WILDCARD);
        let from = self.me.with_rank(rank);
        self.lib
            .get_string(&from, &ckey)?
            .ok_or_else(|| Error(format!("PMIx: {key} is not a string")))
    }
    fn barrier(&mut self) -> Result<()> {
        match self.siblings.as_mut() {
            None => self.lib.commit_and_fence(),
            Some(siblings) => {
                let me = self.me.rank as usize;
                self.lib
                    .commit_and_fence_watching(LOOK, || siblings.look("Slurm", me))
            }
        }
    }
    fn abort(&mut self, code: i32) {
        self.lib.abort(
            code,
            c"rshmem: the job is aborted (see the PE's message above)",
        );
    }
    fn finalize(&mut self) {
        if !self.finalized {
            self.finalized = true;
            self.lib.finalize();
        }
    }
}

/// The ranks of a `PMIX_LOCAL_PEERS` value (`0,1,2`), each below `size`; `None` if one is not.
fn local_ranks(peers: &str, size: usize) -> Option<Vec<usize>> {
    peers
        .split(',')
        .map(|r| r.trim().parse().ok().filter(|&r| r < size))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_peers_are_ranks_of_the_job() {
        assert_eq!(local_ranks("0,1,2", 4), Some(vec![0, 1, 2]));
        assert_eq!(local_ranks("3", 4), Some(vec![3]));
        assert_eq!(local_ranks("0,4", 4), None);
        assert_eq!(local_ranks("0,x", 4), None);
        assert_eq!(local_ranks("", 4), None);
    }

    #[test]
    fn keys_name_their_publisher() {
        assert_eq!(owner("rshmem-3"), Some(3));
        assert_eq!(owner("rshmem-12.4"), Some(12));
        assert_eq!(owner("ucx-addr-7"), Some(7));
        assert_eq!(owner("pmix.job.size"), None);
        assert_eq!(owner("rshmem-x"), None);
    }
}
