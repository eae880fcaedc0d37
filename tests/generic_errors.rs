//! The C11 generics of shmem.h and shmemx.h: a call whose argument type has no routine does not
//! compile, and the compiler's message names the generic (its no-match function is
//! `<generic>_no_routine_for_type`) and the argument's type; valid calls compile clean under
//! `-std=c11 -Wall -Wextra -Wpedantic -Werror`. Checked with `cc` (GCC) and, where it is
//! installed, `clang`.

use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The C compilers to check: `cc` always, `clang` if present.
fn compilers() -> Vec<&'static str> {
    let mut v = vec!["cc"];
    if Command::new("clang")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        v.push("clang");
    }
    v
}

/// Compiles `body` (after the includes) with `cc`; returns (success, stderr).
fn compile(cc: &str, body: &str) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!("rshmem-generic-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!(
        "{cc}-{:x}.c",
        body.len() * 31 + body.bytes().map(usize::from).sum::<usize>()
    ));
    std::fs::write(
        &src,
        format!("#include <shmem.h>\n#include <shmemx.h>\n#include <stdint.h>\n{body}\n"),
    )
    .unwrap();
    let out = Command::new(cc)
        .env("LC_ALL", "C")
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-fsyntax-only",
        ])
        .arg(format!("-I{}", Path::new(ROOT).join("include").display()))
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `body` must not compile, and the message must name `routine` and `type_`.
fn rejects(body: &str, routine: &str, type_: &str) {
    for cc in compilers() {
        let (ok, err) = compile(cc, body);
        assert!(!ok, "{cc} compiled {body:?}");
        assert!(
            err.contains(&format!("{routine}_no_routine_for_type"))
                || err.contains(&format!("{routine}_ctx_no_routine_for_type")),
            "{cc}: the message does not name {routine}:\n{err}"
        );
        assert!(
            err.contains(type_),
            "{cc}: the message does not name {type_}:\n{err}"
        );
    }
}

#[test]
fn a_type_with_no_routine_is_an_error_naming_routine_and_type() {
    rejects(
        "static float f[4];\nint main(void) { float *pf = f; shmem_wait_until_all(pf, 4, NULL, SHMEM_CMP_EQ, 0.0f); return 0; }",
        "shmem_wait_until_all",
        "float *",
    );
    rejects(
        "static struct pair { int a, b; } p[2];\nint main(void) { struct pair *pp = p; shmem_put(SHMEM_CTX_DEFAULT, pp, pp, 2, 0); return 0; }",
        "shmem_put",
        "struct pair *",
    );
    rejects(
        "static _Bool b[2];\nint main(void) { _Bool *pb = b; shmem_put(pb, pb, 2, 0); return 0; }",
        "shmem_put",
        "_Bool *",
    );
    rejects(
        "static float f[4];\nint main(void) { float *pf = f; return shmem_atomic_fetch_add(pf, 1.0f, 0) != 0; }",
        "shmem_atomic_fetch_add",
        "float *",
    );
    rejects(
        "static void *v[4];\nint main(void) { void **pv = v; return shmem_sum_reduce(SHMEM_TEAM_WORLD, pv, pv, 4); }",
        "shmem_sum_reduce",
        "void **",
    );
    rejects(
        "static _Bool b[4];\nint main(void) { _Bool *pb = b; shmemx_ibput(pb, pb, 2, 2, 1, 2, 0); return 0; }",
        "shmemx_ibput",
        "_Bool *",
    );
}

#[test]
fn valid_calls_compile_clean() {
    let body = "static short s[3];\nstatic unsigned short us[3];\nstatic long l[8];\nstatic double d[8];\n\
        int main(void) {\n\
            shmem_wait_until_all(s, 3, NULL, SHMEM_CMP_EQ, (short)0);\n\
            shmem_test_any_vector(us, 3, NULL, SHMEM_CMP_EQ, us);\n\
            shmem_put(l, l, 8, 0);\n\
            shmem_put(SHMEM_CTX_DEFAULT, d, d, 8, 0);\n\
            shmemx_ibget(SHMEM_CTX_DEFAULT, d, d, 2, 2, 1, 4, 0);\n\
            shmemx_sum_inscan(SHMEM_TEAM_WORLD, l, l, 8);\n\
            return (int)shmemx_wtime();\n\
        }";
    for cc in compilers() {
        let (ok, err) = compile(cc, body);
        assert!(ok, "{cc} rejects valid calls:\n{err}");
    }
}
