//! The generated headers compile cleanly as C99, C11 and C++17 with `-Wall -Wextra -Werror
//! -pedantic`, the C11 generics select the right routines, and a call with an unsupported type does
//! not compile.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compiles `source` (a file) with `compiler` and `flags`; returns the compiler's stderr on failure.
fn compile(compiler: &str, flags: &[&str], source: &Path) -> Result<(), String> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "header-check-{}.o",
        flags.join("").replace(['-', '+', '='], "")
    ));
    let include = root().join("include");
    let output = Command::new(compiler)
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(&include)
        .args(flags)
        .arg("-c")
        .arg(source)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn check_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/header_check.c")
}

#[test]
fn compiles_as_c99() {
    compile("gcc", &["-std=c99"], &check_source()).unwrap();
}

#[test]
fn compiles_as_c11_with_generics() {
    compile("gcc", &["-std=c11"], &check_source()).unwrap();
}

#[test]
fn compiles_as_cxx17() {
    compile("g++", &["-std=c++17", "-x", "c++"], &check_source()).unwrap();
}

#[test]
fn generic_rejects_an_unsupported_type() {
    let source = Path::new(env!("CARGO_TARGET_TMPDIR")).join("header-check-bad.c");
    std::fs::write(
        &source,
        "#include <shmem.h>\nvoid f(void *p);\nvoid f(void *p) { shmem_put(p, p, 1, 0); }\n",
    )
    .unwrap();
    let err =
        compile("gcc", &["-std=c11"], &source).expect_err("shmem_put(void *) must not compile");
    assert!(
        err.contains("shmem_put") || err.contains("_Generic"),
        "unexpected error: {err}"
    );
}
