//! Generates `include/shmem.h` and `include/pshmem.h` with cbindgen, used as a library, from the
//! root `cbindgen.toml`. cbindgen reads only the files that make up the C ABI (the shells of
//! `src/api/*.rs`, expanded by apigen from `shell!` lines into plain functions, since cbindgen
//! does not expand macros, `src/runtime/handle.rs` and the hand-written `src/api/exports.rs`), never the rest of the crate, so internal items cannot leak into the
//! headers. What cbindgen cannot express is appended as text: the hand-written macros and opaque
//! typedefs of `crates/apigen/c/shmem-macros.h`, the `long double` declarations and the C11 generics.

use crate::{Func, cgen, families::MODULES, profiling_name, spec::Spec};
use cbindgen::{Builder, Config, ItemType};
use std::fs;
use std::path::Path;

/// `api` holds the shells of `src/api/` expanded into plain functions (apigen writes it).
fn sources(root: &Path, api: &Path) -> Vec<std::path::PathBuf> {
    let mut v = vec![
        root.join("src/runtime/handle.rs"),
        root.join("src/runtime/constants.rs"),
        root.join("src/api/exports.rs"),
    ];
    v.extend(MODULES.iter().map(|(m, _)| api.join(format!("{m}.rs"))));
    v
}

fn build(root: &Path, api: &Path, config: Config, out: &str) -> Result<(), String> {
    let mut b = Builder::new().with_config(config);
    for src in sources(root, api) {
        b = b.with_src(src);
    }
    let bindings = b.generate().map_err(|e| format!("cbindgen ({out}): {e}"))?;
    let mut text = Vec::new();
    bindings.write(&mut text);
    let text = String::from_utf8(text).map_err(|e| format!("{out}: {e}"))?;
    fs::write(root.join(out), text).map_err(|e| format!("{out}: {e}"))
}

/// Wraps text that follows cbindgen's include guard in a guard of its own.
fn guarded(guard: &str, body: &str) -> String {
    format!(
        "\n/* Appended by crates/apigen: what cbindgen cannot express. It follows cbindgen's include guard, so\n * it has its own. */\n#ifndef {guard}\n#define {guard}\n\n{body}\n#endif /* {guard} */\n"
    )
}

/// The constants of `src/runtime/constants.rs` that cbindgen cannot render: `&CStr` ones (cbindgen has no
/// string literals) and `c_long` ones (cbindgen drops the `L` suffix a `long` constant needs in C).
/// Returns their names and their `#define`s.
fn text_constants(root: &Path) -> Result<(Vec<String>, String), String> {
    let path = root.join("src/runtime/constants.rs");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut names = Vec::new();
    let mut defines = String::from(
        "\n/* Constants from src/runtime/constants.rs that cbindgen cannot render. */\n",
    );
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("pub const ") else {
            continue;
        };
        let err = || format!("{}: cannot read {line:?}", path.display());
        let (name, rest) = rest.split_once(':').ok_or_else(err)?;
        let (ty, value) = rest.split_once('=').ok_or_else(err)?;
        let value = value.trim().strip_suffix(';').ok_or_else(err)?.trim();
        let is_ident = value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && value.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        let c_value = match ty.trim() {
            "&CStr" | "c_long" if is_ident => value.to_string(),
            "&CStr" => {
                let s = value
                    .strip_prefix("c\"")
                    .and_then(|v| v.strip_suffix('"'))
                    .ok_or_else(err)?;
                if s.contains(['\\', '"']) {
                    return Err(err());
                }
                format!("\"{s}\"")
            }
            "c_long" => match value.split_once("<<") {
                Some((a, b)) => format!(
                    "({}L << {})",
                    a.trim().parse::<i64>().map_err(|_| err())?,
                    b.trim().parse::<u32>().map_err(|_| err())?
                ),
                None => match value.parse::<i64>().map_err(|_| err())? {
                    v if v < 0 => format!("({v}L)"),
                    v => format!("{v}L"),
                },
            },
            _ => continue,
        };
        defines.push_str(&format!("#define {} {c_value}\n", name.trim()));
        names.push(name.trim().to_string());
    }
    Ok((names, defines))
}

/// `foreign` are the foreign routines that shmem.h's C11 generics select (declared there, from
/// their synopses; their twins are in foreign.h).
pub fn generate(
    root: &Path,
    api: &Path,
    spec: &Spec,
    funcs: &[Func],
    foreign: &[&Func],
) -> Result<(), String> {
    let base = Config::from_file(root.join("cbindgen.toml"))?;
    let macros_path = root.join("crates/apigen/c/shmem-macros.h");
    let macros =
        fs::read_to_string(&macros_path).map_err(|e| format!("{}: {e}", macros_path.display()))?;
    // Declared from the synopses, not by cbindgen: the C routines and the shells with types
    // cbindgen cannot write; C-only (complex) ones last, in one guarded block.
    let mut text_funcs: Vec<&Func> = funcs
        .iter()
        .filter(|f| f.in_c() || f.declared_as_text())
        .collect();
    text_funcs.sort_by_key(|f| (f.is_complex(), f.name().to_string()));
    let text_names: Vec<String> = text_funcs
        .iter()
        .filter(|f| !f.in_c())
        .map(|f| f.name().to_string())
        .collect();
    let shmem_names: Vec<String> = funcs
        .iter()
        .filter(|f| !f.in_c())
        .map(|f| f.name().to_string())
        .collect();
    let twin_names: Vec<String> = shmem_names.iter().map(|n| profiling_name(n)).collect();

    // shmem.h: types, constants, the default context, every shmem_ function; no twin.
    let (constant_names, text_defines) = text_constants(root)?;
    let mut c = base.clone();
    c.export.exclude.extend(twin_names.iter().cloned());
    c.export.exclude.extend(text_names.iter().cloned());
    c.export.exclude.extend(constant_names);
    c.after_includes = Some(format!("{macros}{text_defines}"));
    let trailer = format!(
        "{}\n/* Sandia OpenSHMEM 1.5's names that the C11 generics below also select. */\n{}\n{}{}",
        cgen::text_decls(&text_funcs, false),
        cgen::text_decls(foreign, false),
        cgen::generics(spec)?,
        cgen::arity_selectors(spec)?
    ) + &cgen::cxx_overloads(spec)?;
    c.trailer = Some(guarded("SHMEM_H_APPENDED", &trailer));
    build(root, api, c, "include/shmem.h")?;

    // pshmem.h: the twins only; the types come from shmem.h.
    let mut c = base;
    c.include_guard = Some("PSHMEM_H".into());
    c.no_includes = true;
    c.sys_includes = vec!["shmem.h".into()];
    c.export.item_types = vec![ItemType::Functions];
    c.export.include.clear();
    c.export.exclude.extend(shmem_names.iter().cloned());
    c.export
        .exclude
        .extend(text_names.iter().map(|n| profiling_name(n)));
    c.trailer = Some(guarded(
        "PSHMEM_H_APPENDED",
        &cgen::text_decls(&text_funcs, true),
    ));
    build(root, api, c, "include/pshmem.h")?;
    Ok(())
}
