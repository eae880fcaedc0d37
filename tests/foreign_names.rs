//! No API name of a foreign OpenSHMEM library falls through to it: every name in the committed
//! lists `c-tests/foreign/names/{oshmem,sos}.txt` (the API names that Open MPI OSHMEM's
//! `liboshmem.so` and Sandia OpenSHMEM's `libsma.so` export, each list's first line saying how it
//! was made) is defined by the built `librshmem.so` (`nm -D --defined-only`). A binary built for
//! either library and run with rshmem preloaded then finds every call it makes in rshmem, never in
//! the foreign library, which is loaded but never initialized (docs/ABI.md, "Foreign names").

#[path = "support/launch.rs"]
mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::ROOT;

/// The library built with this test's profile (by the shared test support, as the other
/// integration tests build it).
fn library() -> PathBuf {
    support::built().profile_dir.join("librshmem.so")
}

/// The symbols `lib` defines.
fn defined(lib: &Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("cannot run nm");
    assert!(out.status.success(), "nm -D {} failed", lib.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap_or(s).to_string())
        .collect()
}

/// The names of a committed list: its first line says how it was made, the others are names.
fn list(file: &str) -> Vec<String> {
    let path = Path::new(ROOT).join("c-tests/foreign/names").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    assert!(
        header.starts_with("# ") && header.contains("nm -D --defined-only"),
        "{file}: the first line must say how the list was made"
    );
    let names: Vec<String> = lines.map(str::to_string).collect();
    for n in &names {
        assert!(
            !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{file}: {n:?} is not a symbol name"
        );
    }
    names
}

fn check(file: &str, least: usize) {
    let names = list(file);
    assert!(names.len() >= least, "{file}: only {} names", names.len());
    let ours = defined(&library());
    let missing: Vec<&String> = names.iter().filter(|n| !ours.contains(*n)).collect();
    assert!(
        missing.is_empty(),
        "{} of the {} names of {file} are not defined by librshmem.so, so a preloaded binary \
         would reach the foreign library for them: {missing:?}",
        missing.len(),
        names.len()
    );
}

#[test]
fn every_oshmem_name_is_defined() {
    check("oshmem.txt", 1500);
}

#[test]
fn every_sos_name_is_defined() {
    check("sos.txt", 1500);
}
