//! Every row of the generator's family table against the spec's tables (the vendored copies in
//! `crates/apigen/spec/`), from the spec's side: the generator already stops when an expanded
//! name is not in the spec; these tests check that nothing the spec lists is left out.
//!
//! - For each typed name pattern of `families.rs` (`shmem_TYPENAME_wait_until`), the TYPENAMEs
//!   the families expand it over are exactly those for which the C API table has a function of
//!   that pattern (current or deprecated).
//! - For each C11 generic, the associations in `include/shmem.h` name functions of its pattern
//!   only, and every type for which the spec has such a function is covered (by its own row, or by
//!   the standard C type a typedef names: `int32_t` is `int`).

#![allow(dead_code)]

#[path = "../src/families.rs"]
mod families;
#[path = "../src/spec.rs"]
mod spec;

use families::{FAMILIES, Types};
use spec::Spec;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load() -> Spec {
    Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("spec")).unwrap()
}

/// Every TYPENAME of every type table.
fn typenames(spec: &Spec) -> BTreeSet<String> {
    spec.tables
        .values()
        .flatten()
        .map(|r| r.typename.clone())
        .collect()
}

/// The TYPENAME of `name` under `pattern` (`shmem_TYPENAME_put`), if it is one of `known`.
fn typename_of<'a>(pattern: &str, name: &'a str, known: &BTreeSet<String>) -> Option<&'a str> {
    let (prefix, suffix) = pattern.split_once("TYPENAME")?;
    let mid = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
    known.contains(mid).then_some(mid)
}

/// The TYPENAMEs a family expands over.
fn expansion(spec: &Spec, types: Types) -> Vec<String> {
    let rows: Vec<&spec::TypeRow> = match types {
        Types::Table(t) => spec.table(t).unwrap().iter().collect(),
        Types::Subset(t, only) => spec.subset(t, only).unwrap(),
        Types::WithOp(t, op) => spec.with_op(t, op).unwrap(),
        Types::Plain | Types::Sized(_) => Vec::new(),
    };
    rows.into_iter().map(|r| r.typename.clone()).collect()
}

/// Pattern -> the TYPENAMEs the families expand it over.
fn generated(spec: &Spec) -> BTreeMap<&'static str, BTreeSet<String>> {
    let mut out: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    for f in FAMILIES {
        for pattern in f.names.iter().filter(|p| p.contains("TYPENAME")) {
            out.entry(pattern)
                .or_default()
                .extend(expansion(spec, f.types));
        }
    }
    out
}

/// Pattern -> the TYPENAMEs for which the spec has a (not removed) function of the pattern.
fn in_spec(spec: &Spec, pattern: &str) -> BTreeSet<String> {
    let known = typenames(spec);
    spec.api
        .iter()
        .filter(|r| r.kind == "function" && r.status != "removed")
        .filter_map(|r| typename_of(pattern, &r.name, &known).map(str::to_string))
        .collect()
}

#[test]
fn every_typed_family_covers_exactly_the_spec_types() {
    let spec = load();
    let mut problems = Vec::new();
    for (pattern, made) in generated(&spec) {
        let listed = in_spec(&spec, pattern);
        let missing: Vec<&String> = listed.difference(&made).collect();
        let extra: Vec<&String> = made.difference(&listed).collect();
        if !missing.is_empty() || !extra.is_empty() {
            problems.push(format!(
                "{pattern}: spec types not generated {missing:?}, generated types not in the spec {extra:?}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The standard C type a spec type is on LP64 (a `_Generic` association uses it).
fn standard(c_type: &str) -> &str {
    match c_type {
        "int8_t" => "signed char",
        "int16_t" => "short",
        "int32_t" => "int",
        "int64_t" | "ptrdiff_t" => "long",
        "uint8_t" => "unsigned char",
        "uint16_t" => "unsigned short",
        "uint32_t" => "unsigned int",
        "uint64_t" | "size_t" => "unsigned long",
        t => t,
    }
}

/// The `type: function` associations of the `#define generic(` macro in `header`.
fn associations(header: &str, generic: &str) -> Vec<(String, String)> {
    let start = header
        .find(&format!("#define {generic}("))
        .unwrap_or_else(|| panic!("shmem.h: no #define {generic}("));
    let mut out = Vec::new();
    for line in header[start..].lines().skip(1) {
        let line = line.trim().trim_end_matches('\\').trim();
        if line.starts_with("default: ") || line.is_empty() {
            break;
        }
        if let Some((ty, name)) = line.trim_end_matches(',').rsplit_once(':') {
            let (ty, name) = (ty.trim(), name.trim());
            if ty.ends_with('*') && name.starts_with("shmem_") {
                let ty = ty.trim_end_matches('*').trim();
                let ty = ty.strip_prefix("const ").unwrap_or(ty);
                out.push((ty.to_string(), name.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_generic_covers_the_spec_types_of_its_functions() {
    let spec = load();
    let header = std::fs::read_to_string(root().join("include/shmem.h")).unwrap();
    let known = typenames(&spec);
    let c_type_of: BTreeMap<String, String> = spec
        .tables
        .values()
        .flatten()
        .map(|r| (r.typename.clone(), r.c_type.clone()))
        .collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for f in FAMILIES {
        let Some(generic) = f.generic else { continue };
        if !seen.insert(generic) || !f.names[0].contains("TYPENAME") {
            continue;
        }
        let assoc = associations(&header, generic);
        let patterns: Vec<&str> = f.names.to_vec();
        let mut covered = BTreeSet::new();
        for (ty, name) in &assoc {
            match patterns.iter().find_map(|p| typename_of(p, name, &known)) {
                Some(t) => {
                    if standard(&c_type_of[t]) != ty {
                        problems.push(format!("{generic}: `{ty} *` selects {name}"));
                    }
                    covered.insert(ty.clone());
                }
                None => problems.push(format!(
                    "{generic}: `{ty} *` selects {name}, not a function of {patterns:?}"
                )),
            }
        }
        for t in in_spec(&spec, patterns[0]) {
            let ty = standard(&c_type_of[&t]).to_string();
            if !covered.contains(&ty) {
                problems.push(format!(
                    "{generic}: the spec has {} but no `{ty} *` association",
                    patterns[0].replace("TYPENAME", &t)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_pattern_matcher_reads_names_right() {
    let spec = load();
    let known = typenames(&spec);
    assert_eq!(
        typename_of(
            "shmem_TYPENAME_wait_until",
            "shmem_short_wait_until",
            &known
        ),
        Some("short")
    );
    assert_eq!(
        typename_of("shmem_TYPENAME_wait", "shmem_short_wait_until", &known),
        None
    );
    assert_eq!(
        typename_of("shmem_TYPENAME_put", "shmem_ctx_int_put", &known),
        None
    );
    assert!(in_spec(&spec, "shmem_TYPENAME_wait_until").contains("ushort"));
    assert!(!in_spec(&spec, "shmem_TYPENAME_wait_until_all").contains("short"));
}
