//! What `oshinfo` prints: the library's version and build, the networks it is linked with, the
//! bootstraps and launchers this machine offers, its limits and every environment variable of the
//! configuration table with its default and current value.
//!
//! The report is one ordered list of `key` / `value` pairs, printed either aligned for people or
//! as `key:value` lines (`--parsable`; a key never contains `:`, a value may). It needs no
//! `shmem_init` and changes nothing: it only reads the library's own constants, the environment,
//! `dlopen`s libpmix the way the PMIx bootstrap does, and asks each network of `transport` what it
//! sees (`transport::about`: which library it loads, from where, or what it tried).

use std::ffi::{CStr, c_int};
use std::fmt::Write as _;
use std::io::Write as _;

use super::config::{Config, VARIABLES};
use super::handle::MAX_CONTEXTS;
use super::info::LIBRARY;
use crate::bootstrap::pmix::LIBRARIES as PMIX_LIBRARIES;
use crate::transport::shm::control::TEAM_SLOTS;

/// The OpenSHMEM specification level of the API.
const SPEC: &str = "1.6";

/// Prints the report to standard output: `key:value` lines when `parsable` is non-zero. Returns 0,
/// or -1 when standard output cannot be written (`rshmemx_info_print`, exported by
/// `api::exports`).
pub fn info_print(parsable: c_int) -> c_int {
    let text = render(&report(), parsable != 0);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

/// The pairs, in the order they are printed.
pub fn report() -> Vec<(String, String)> {
    let mut r: Vec<(String, String)> = Vec::new();
    let mut add = |k: &str, v: String| r.push((k.to_string(), v));
    add("library", LIBRARY.to_string());
    add("version", env!("CARGO_PKG_VERSION").to_string());
    add("spec", SPEC.to_string());
    add(
        "build.profile",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
        .to_string(),
    );
    // The library package has no cargo features; say so rather than print nothing.
    add("build.features", "none".to_string());
    add("build.panic", "abort".to_string());

    // The networks find their libraries as shmem_init would tell them to (SHMEM_UCX_LIB, ...);
    // a bad value of another variable does not hide them.
    const UCX_NAMES: [&str; 4] = [
        "SHMEM_UCX_LIB",
        "SMA_UCX_LIB",
        "SHMEM_UCX_SEARCH",
        "SMA_UCX_SEARCH",
    ];
    let env = Config::parse(&|n| {
        UCX_NAMES
            .contains(&n)
            .then(|| std::env::var(n).ok())
            .flatten()
    })
    .ok();
    let (ucx_lib, ucx_search) =
        env.map_or_else(Default::default, |(c, _)| (c.ucx_lib, c.ucx_search));
    for (k, v) in crate::transport::about(&ucx_lib, &ucx_search) {
        add(&k, v);
    }
    add("pmix", pmix_found());

    add("launcher.oshrun", "yes (single node, PMI-1)".to_string());
    for (name, what) in [
        ("mpiexec.hydra", "MPICH Hydra, PMI-1"),
        ("mpirun", "Open MPI / PRRTE, PMIx"),
        ("srun", "Slurm, --mpi=pmix"),
    ] {
        let found = on_path(name).map_or("no".to_string(), |p| format!("{p} ({what})"));
        add(&format!("launcher.{name}"), found);
    }

    add("limit.contexts", MAX_CONTEXTS.to_string());
    add(
        "limit.teams",
        format!("{TEAM_SLOTS} (SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included)"),
    );
    add(
        "limit.heap",
        "SHMEM_SYMMETRIC_SIZE bytes per PE (address space reserved, pages touched when used)"
            .to_string(),
    );

    let defaults = Config::parse(&|_| None).map(|(c, _)| c.values());
    for (i, (name, help)) in VARIABLES.iter().enumerate() {
        let default = match &defaults {
            Ok(values) => values[i].1.clone(),
            Err(why) => why.clone(),
        };
        // This variable alone from the environment (its SHMEM_ name, then its SMA_ one), so that
        // one bad value does not hide the others.
        let legacy = name.replacen("SHMEM_", "SMA_", 1);
        let own = |n: &str| {
            (n == *name || n == legacy)
                .then(|| std::env::var(n).ok())
                .flatten()
        };
        let value = match Config::parse(&own) {
            Ok((config, _)) => config.values()[i].1.clone(),
            Err(why) => format!("invalid: {why}"),
        };
        add(&format!("env.{name}.default"), default);
        add(&format!("env.{name}.value"), value);
        add(&format!("env.{name}.help"), help.to_string());
    }
    r
}

/// `key:value` lines, or the keys padded to one column.
pub fn render(pairs: &[(String, String)], parsable: bool) -> String {
    let width = pairs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in pairs {
        if parsable {
            let _ = writeln!(out, "{k}:{v}");
        } else {
            let _ = writeln!(out, "{k:<width$}  {v}");
        }
    }
    out
}

/// Which libpmix the PMIx bootstrap would load, or "not found".
fn pmix_found() -> String {
    for name in PMIX_LIBRARIES {
        if crate::transport::shm::loader::loadable(name) {
            return format!("{} (PMIx bootstrap available)", to_str(name));
        }
    }
    "not found (mpirun and srun --mpi=pmix cannot start rshmem programs)".to_string()
}

fn to_str(name: &CStr) -> String {
    name.to_string_lossy().into_owned()
}

/// The first `name` in `$PATH` that is an executable file.
fn on_path(name: &str) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map(|p| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsable_lines_are_key_colon_value_with_every_variable() {
        let text = render(&report(), true);
        for line in text.lines() {
            let (key, _) = line.split_once(':').expect("a colon on every line");
            assert!(
                !key.is_empty() && !key.contains(char::is_whitespace),
                "{line}"
            );
        }
        for (name, _) in VARIABLES {
            assert!(text.contains(&format!("env.{name}.default:")), "{name}");
        }
        assert!(text.contains("\nspec:1.6\n"));
    }
}
