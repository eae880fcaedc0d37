//! Compiles the generated `long double` routines (src/api/longdouble.c; Rust has no `long double`)
//! and the `long double` and binary128 arithmetic of the reductions (src/collectives/longdouble.c)
//! into the library. The naked functions of src/api/longdouble.rs refer to them, so the linker keeps
//! them, and export them under the spec's names. See docs/ABI.md.
//!
//! The library links with `-Bsymbolic-functions`: a call inside it to one of its exported
//! functions binds to its own definition, never to a definition a tool interposes (LD_PRELOAD). In
//! a debug build a `pshmem_` twin is one jump to its `shmem_` routine (src/api/mod.rs), so a
//! profiling tool that defines `shmem_long_put` and calls `pshmem_long_put` reaches the library,
//! not itself. Data symbols (`SHMEM_CTX_DEFAULT`, ...) stay preemptible, as copy relocations in
//! programs need.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    println!("cargo:rerun-if-changed=src/api/longdouble.c");
    println!("cargo:rerun-if-changed=src/collectives/longdouble.c");
    println!("cargo:rerun-if-changed=include/shmem.h");
    println!("cargo:rerun-if-changed=include/pshmem.h");
    cc::Build::new()
        .file("src/api/longdouble.c")
        .file("src/collectives/longdouble.c")
        .include("include")
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("rshmem_longdouble");
}
