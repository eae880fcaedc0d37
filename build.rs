//! Compiles the generated `long double` routines (src/api/longdouble.c; Rust has no `long double`)
//! and the `long double` and binary128 arithmetic of the reductions (src/collectives/longdouble.c)
//! into the library. The naked functions of src/api/longdouble.rs refer to them, so the linker keeps
//! them, and export them under the spec's names. See docs/ABI.md.

fn main() {
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
