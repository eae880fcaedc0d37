//! The key/value exchange with the launcher, independent of any transport.
//!
//! At init every PE publishes what its peers need (segment sizes, where it runs), waits at a
//! bootstrap barrier, then reads what the others published. After init the bootstrap is used only to
//! stop the job (`abort`) and to say goodbye at exit (`finalize`). Which one is used is decided by the
//! environment: `PMI_FD` (our `oshrun`, MPICH Hydra) selects PMI-1, nothing selects the singleton.

pub mod pmi1;
pub mod singleton;

use std::fmt;

/// A failure of the launcher protocol.
#[derive(Debug)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// What a launcher offers a PE.
pub trait Bootstrap: Send {
    /// This PE's rank in the job.
    fn rank(&self) -> usize;
    /// The number of PEs in the job.
    fn size(&self) -> usize;
    /// A name unique to this job on this node (safe in file names: `[A-Za-z0-9_]`).
    fn job_id(&self) -> &str;
    /// Publishes `value` under `key` (visible to the others after the next `barrier`).
    fn put(&mut self, key: &str, value: &str) -> Result<()>;
    /// Reads what some PE published under `key` before the last barrier.
    fn get(&mut self, key: &str) -> Result<String>;
    /// Waits for every PE; makes every earlier `put` visible.
    fn barrier(&mut self) -> Result<()>;
    /// Tells the launcher to end the whole job with `code`.
    fn abort(&mut self, code: i32);
    /// Tells the launcher this PE finished cleanly.
    fn finalize(&mut self);
}

/// The bootstrap the environment asks for.
pub fn from_environment() -> Result<Box<dyn Bootstrap>> {
    if std::env::var_os("PMI_FD").is_some() {
        Ok(Box::new(pmi1::Pmi1::connect()?))
    } else {
        Ok(Box::new(singleton::Singleton::new()))
    }
}
