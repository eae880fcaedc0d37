//! Every function and data symbol that include/shmem.h, include/pshmem.h, include/shmemx.h and
//! the non-installed crates/apigen/c/foreign.h (other implementations' names) declare is exported
//! by the built library, so is every legacy Fortran routine of src/api/fortran/ (each a symbol of
//! the Fortran TSV, or its `p` twin), and the library exports nothing else.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The names a header declares: functions and `extern` data. Comments, preprocessor lines (with
/// their continuations: the C11 generics are macros) and bodies in braces are skipped (a function's
/// ends its statement); each remaining statement that is not a typedef or a `static` definition
/// (the ABI marker's pointer, private to each object) declares the identifier before its `(`, or
/// its last identifier.
fn declared(header: &str) -> BTreeSet<String> {
    let mut text = String::new();
    let mut rest = header;
    while let Some(start) = rest.find("/*") {
        text.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("unclosed comment") + start + 2;
        rest = &rest[end..];
    }
    text.push_str(rest);

    let mut code = String::new();
    let mut continued = false;
    for line in text.lines() {
        let is_directive = continued || line.trim_start().starts_with('#');
        continued = is_directive && line.ends_with('\\');
        if !is_directive && line.trim() != "extern \"C\" {" {
            code.push_str(line);
            code.push('\n');
        }
    }

    // A function's body (an inline C++ overload) ends its declaration as a `;` would.
    let mut top_level = String::new();
    let mut depth = 0usize;
    let mut in_function = false;
    for c in code.chars() {
        match c {
            '{' => {
                if depth == 0 {
                    in_function = top_level.trim_end().ends_with(')');
                }
                depth += 1;
            }
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && in_function {
                    top_level.push(';');
                    in_function = false;
                }
            }
            _ if depth == 0 => top_level.push(c),
            _ => {}
        }
    }

    let ident_before = |s: &str| -> String {
        let s = s.trim_end();
        let start = s
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        s[start..].to_string()
    };
    top_level
        .split(';')
        .map(str::trim)
        // The C++ overloads of the generics are inline functions in an `extern "C++"` block,
        // skipped with its braces; the words before them remain.
        .map(|s| s.trim_start_matches("extern \"C++\"").trim())
        .filter(|s| !s.is_empty() && !s.starts_with("typedef") && !s.starts_with("static "))
        // A struct's or an enum's definition (`struct tag { ... };`, `enum { ... };`) declares
        // no object.
        .filter(|s| {
            let words: Vec<&str> = s.split_whitespace().collect();
            !(matches!(words.first(), Some(&"struct" | &"enum")) && words.len() <= 2)
        })
        .map(|s| match s.find('(') {
            Some(open) => ident_before(&s[..open]),
            None => ident_before(s),
        })
        .inspect(|name| assert!(!name.is_empty(), "unparsed declaration in header"))
        .collect()
}

fn library() -> PathBuf {
    // target/<profile>/deps/exports-<hash> -> target/<profile>
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.current_dir(root()).args(["build", "-p", "rshmem"]);
    if release {
        cargo.arg("--release");
    }
    let status = cargo.status().expect("cannot run cargo build -p rshmem");
    assert!(status.success(), "cargo build -p rshmem failed");
    let lib = profile_dir.join("librshmem.so");
    assert!(lib.exists(), "{} not built", lib.display());
    lib
}

fn exported(lib: &Path) -> BTreeSet<String> {
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("cannot run nm");
    assert!(out.status.success(), "nm failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(|s| s.split('@').next().unwrap().to_string())
        .collect()
}

/// The symbols defined in `src/api/fortran/*.rs` (each `shell!` line a routine and its twin),
/// checked against the Fortran TSV.
fn fortran_symbols(root: &Path) -> BTreeSet<String> {
    let tsv =
        std::fs::read_to_string(root.join("crates/apigen/spec/openshmem-fortran-api.tsv")).unwrap();
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = header.iter().position(|h| *h == "symbol").unwrap();
    let in_tsv: BTreeSet<String> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').nth(col).unwrap().to_string())
        .collect();
    let mut syms = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("src/api/fortran")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        // `shell!(symbol, twin, ...)` defines both names.
        for rest in text.split("\nshell!(").skip(1) {
            let mut names = rest.splitn(3, ',').take(2).map(str::trim);
            let (symbol, twin) = (names.next().unwrap(), names.next().unwrap());
            assert_eq!(twin, format!("p{symbol}"), "{symbol}: twin {twin}");
            for name in [symbol, twin] {
                let base = name.strip_prefix('p').filter(|b| in_tsv.contains(*b));
                assert!(
                    in_tsv.contains(name) || base.is_some(),
                    "{name} is neither a Fortran TSV symbol nor the twin of one"
                );
                assert!(syms.insert(name.to_string()), "{name} defined twice");
            }
        }
    }
    for name in &syms {
        if !name.starts_with('p') || in_tsv.contains(name) {
            assert!(syms.contains(&format!("p{name}")), "{name} has no p twin");
        }
    }
    assert!(syms.len() >= 2 * 130, "only {} Fortran symbols", syms.len());
    syms
}

#[test]
fn header_parser_reads_functions_data_and_skips_the_rest() {
    let h = "/* c */\n#define A(x) \\\n  f(x);\ntypedef struct { int n; } t;\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\
             extern const t X;\nvoid *g(size_t n);\nlong double h(const long double *s, int pe);\n#ifdef __cplusplus\n}\n#endif\n";
    let names: Vec<String> = declared(h).into_iter().collect();
    assert_eq!(names, ["X", "g", "h"]);
}

#[test]
fn headers_and_library_agree() {
    let root = root();
    let mut decl = BTreeSet::new();
    // foreign.h (not installed): the names other implementations' headers use that no installed
    // header declares, and the twins of all; shmemx.h: rshmem's extensions (rshmemx_*) and the
    // shmemx_ names of the other implementations' shmemx.h.
    for (h, least) in [
        ("include/shmem.h", 500),
        ("include/pshmem.h", 500),
        ("include/shmemx.h", 200),
        ("crates/apigen/c/foreign.h", 300),
    ] {
        let text = std::fs::read_to_string(root.join(h)).unwrap();
        let names = declared(&text);
        assert!(
            names.len() >= least,
            "{h}: only {} declarations",
            names.len()
        );
        for n in names {
            assert!(decl.insert(n.clone()), "{n} declared twice");
        }
    }
    // The C11 generics' no-match functions are declared so that a call with an argument type of
    // no routine does not compile; they are never defined (cgen.rs, GENERIC_PRELUDE).
    decl.retain(|n| !n.ends_with("_no_routine_for_type"));
    for n in fortran_symbols(&root) {
        assert!(
            !decl.contains(&n),
            "{n} is both a C declaration and a Fortran symbol"
        );
        decl.insert(n);
    }
    let syms = exported(&library());
    let missing: Vec<&String> = decl.difference(&syms).collect();
    let undeclared: Vec<&String> = syms.difference(&decl).collect();
    assert!(missing.is_empty(), "declared but not exported: {missing:?}");
    assert!(
        undeclared.is_empty(),
        "exported but not declared: {undeclared:?}"
    );
    for n in decl
        .iter()
        // The predefined handles (SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD, ...) are data and the
        // Fortran symbols end in '_': neither is a C twin; rshmem's own extensions (rshmemx_*,
        // shmemx.h) are not spec routines and have no profiling twin.
        // (OSHMEM's `oshmem_ctx_default`, SOS's `SHMEMX_TEAM_NODE` and the ABI marker
        // `rshmem_abi_v1` are data too.)
        .filter(|n| {
            !n.starts_with('p')
                && !n.ends_with('_')
                && !n.starts_with("SHMEM")
                && !n.starts_with("rshmemx_")
                && *n != "oshmem_ctx_default"
                && *n != "rshmem_abi_v1"
        })
    {
        assert!(decl.contains(&format!("p{n}")), "{n} has no pshmem twin");
    }
}
