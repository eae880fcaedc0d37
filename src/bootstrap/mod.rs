//! The key/value exchange with the launcher, independent of any transport.
//!
//! At init every PE publishes what its peers need (segment sizes, where it runs), waits at a
//! bootstrap barrier, then reads what the others published. After init the bootstrap is used only to
//! stop the job (`abort`) and to say goodbye at exit (`finalize`). Which one is used is decided by the
//! environment, in this order: `PMIX_RANK`/`PMIX_NAMESPACE` with a loadable libpmix select PMIx
//! (Open MPI's `mpirun`, Slurm's `srun --mpi=pmix`); `PMI_FD` or `PMI_PORT` select PMI-1 (our
//! `oshrun`, MPICH Hydra); nothing selects the singleton.
//!
//! Values are printable text without spaces or newlines. A launcher bounds their length (PMI-1's
//! `vallen_max`, 1024 under Hydra and `oshrun`); [`Bootstrap::put_large`] and
//! [`Bootstrap::get_large`] split a longer value over several keys.

#![deny(unsafe_code)]

mod ffi;
pub mod pmi1;
pub mod pmix;
mod siblings;
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
    /// Reads what some PE published under `key` before the last barrier. A key a PE publishes
    /// for the others ends in `-<its rank>` (`rshmem-3`): PMIx finds a value at its publisher.
    fn get(&mut self, key: &str) -> Result<String>;
    /// Waits for every PE; makes every earlier `put` visible.
    fn barrier(&mut self) -> Result<()>;
    /// Tells the launcher to end the whole job with `code`.
    fn abort(&mut self, code: i32);
    /// Tells the launcher this PE finished cleanly.
    fn finalize(&mut self);
    /// Whether a launcher started this PE (its parent process), so that the PE must end when
    /// its launcher dies (`runtime::orphan`).
    fn has_launcher(&self) -> bool {
        true
    }
    /// The longest value `put` accepts, in bytes.
    fn max_value_len(&self) -> usize {
        usize::MAX
    }

    /// Publishes a value of any length under `key`, split over the keys `key.0`, `key.1`, ... when
    /// it does not fit in one; read it back with [`Bootstrap::get_large`].
    fn put_large(&mut self, key: &str, value: &str) -> Result<()> {
        let max = self.max_value_len();
        for (k, v) in split_value(key, value, max)? {
            self.put(&k, &v)?;
        }
        Ok(())
    }

    /// Reads a value published with [`Bootstrap::put_large`].
    fn get_large(&mut self, key: &str) -> Result<String> {
        let head = self.get(key)?;
        match parse_head(key, &head)? {
            Head::Whole(value) => Ok(value.to_string()),
            Head::Chunks(n) => {
                let mut value = String::new();
                for i in 0..n {
                    value.push_str(&self.get(&format!("{key}.{i}"))?);
                }
                Ok(value)
            }
        }
    }
}

/// How `put_large` stores `value` under `key` when `put` takes at most `max` bytes: the list of
/// `put`s to make. The head key holds `=value` when that fits, else `*n` and the chunks follow.
fn split_value(key: &str, value: &str, max: usize) -> Result<Vec<(String, String)>> {
    if value.len() < max {
        return Ok(vec![(key.to_string(), format!("={value}"))]);
    }
    if max < 8 || !value.is_ascii() {
        return Err(Error(format!(
            "cannot publish {key}: {} bytes of non-ASCII text or a launcher value limit of {max}",
            value.len()
        )));
    }
    let chunks: Vec<&[u8]> = value.as_bytes().chunks(max).collect();
    let mut puts = vec![(key.to_string(), format!("*{}", chunks.len()))];
    for (i, chunk) in chunks.into_iter().enumerate() {
        // ASCII checked above, so every chunk is text.
        puts.push((
            format!("{key}.{i}"),
            String::from_utf8_lossy(chunk).into_owned(),
        ));
    }
    Ok(puts)
}

enum Head<'a> {
    Whole(&'a str),
    Chunks(usize),
}

fn parse_head<'a>(key: &str, head: &'a str) -> Result<Head<'a>> {
    if let Some(value) = head.strip_prefix('=') {
        return Ok(Head::Whole(value));
    }
    head.strip_prefix('*')
        .and_then(|n| n.parse().ok())
        .map(Head::Chunks)
        .ok_or_else(|| Error(format!("{key} = '{head}' was not published by put_large")))
}

/// Whether the launcher has told this PE that a process of the job failed (Hydra's proxy, by
/// SIGUSR1, when it does not end the job itself).
pub fn launcher_reported_failure() -> bool {
    ffi::failure_noticed()
}

/// The bootstrap the environment asks for.
pub fn from_environment() -> Result<Box<dyn Bootstrap>> {
    let env = |name| std::env::var_os(name).is_some();
    if env("PMIX_RANK") || env("PMIX_NAMESPACE") {
        match pmix::Pmix::connect() {
            Ok(p) => return Ok(Box::new(p)),
            // Without libpmix a launcher that also speaks PMI-1 can still start us.
            Err(e) if !(env("PMI_FD") || env("PMI_PORT")) => return Err(e),
            Err(_) => {}
        }
    }
    if env("PMI_FD") || env("PMI_PORT") {
        Ok(Box::new(pmi1::Pmi1::connect()?))
    } else {
        Ok(Box::new(singleton::Singleton::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A one-PE bootstrap with a small value limit.
    struct Small(HashMap<String, String>, usize);

    impl Bootstrap for Small {
        fn rank(&self) -> usize {
            0
        }
        fn size(&self) -> usize {
            1
        }
        fn job_id(&self) -> &str {
            "t"
        }
        fn put(&mut self, key: &str, value: &str) -> Result<()> {
            assert!(value.len() <= self.1, "{key}: {} bytes", value.len());
            self.0.insert(key.into(), value.into());
            Ok(())
        }
        fn get(&mut self, key: &str) -> Result<String> {
            self.0.get(key).cloned().ok_or(Error(key.into()))
        }
        fn barrier(&mut self) -> Result<()> {
            Ok(())
        }
        fn abort(&mut self, _: i32) {}
        fn finalize(&mut self) {}
        fn max_value_len(&self) -> usize {
            self.1
        }
    }

    #[test]
    fn large_values_round_trip_at_every_length() {
        let mut b = Small(HashMap::new(), 16);
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 100, 1000] {
            let value: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            b.put_large("k", &value).unwrap();
            assert_eq!(b.get_large("k").unwrap(), value, "length {len}");
        }
        assert_eq!(b.get("k").unwrap(), "*63");
        assert_eq!(b.get("k.62").unwrap().len(), 1000 - 62 * 16);
    }

    #[test]
    fn small_values_take_one_key() {
        let puts = split_value("rshmem-3", "a=b,c", 1024).unwrap();
        assert_eq!(puts, [("rshmem-3".to_string(), "=a=b,c".to_string())]);
        assert!(parse_head("k", "plain").is_err());
        assert!(split_value("k", &"é".repeat(600), 1024).is_err());
    }
}
