//! No launcher: the program is a job of one PE.

use super::{Bootstrap, Error, Result};
use std::collections::HashMap;

pub struct Singleton {
    job_id: String,
    kvs: HashMap<String, String>,
}

impl Singleton {
    pub fn new() -> Singleton {
        Singleton {
            job_id: format!("single_{}", std::process::id()),
            kvs: HashMap::new(),
        }
    }
}

impl Default for Singleton {
    fn default() -> Self {
        Self::new()
    }
}

impl Bootstrap for Singleton {
    fn has_launcher(&self) -> bool {
        false
    }

    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn job_id(&self) -> &str {
        &self.job_id
    }
    fn put(&mut self, key: &str, value: &str) -> Result<()> {
        self.kvs.insert(key.to_string(), value.to_string());
        Ok(())
    }
    fn get(&mut self, key: &str) -> Result<String> {
        self.kvs
            .get(key)
            .cloned()
            .ok_or_else(|| Error(format!("key {key} was never published")))
    }
    fn barrier(&mut self) -> Result<()> {
        Ok(())
    }
    /// Ends the process with `code`, 0 included (`shmem_global_exit(0)` is a clean end).
    fn abort(&mut self, code: i32) {
        std::process::exit(code);
    }
    fn finalize(&mut self) {}
}
