//! The layers of `src/lib.rs` point down: api -> ops -> collectives -> runtime -> transport and
//! bootstrap (siblings, neither uses the other). This test reads every source file and fails on a
//! path into a higher layer (or into the sibling), printing the file, the line and the arrow; and
//! on two modules of one layer that import each other (a cycle hides which one is lower).
//!
//! What counts as a use: any `crate::<layer>` outside comments (a `use`, or a path in an
//! expression), and for the cycle check `super::<module>` and `crate::<own layer>::<module>`.
//! The generated `api/` is the top layer and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Rank of each layer: a file may use layers of lower rank only (equal rank: its own layer).
const LAYERS: &[(&str, u32)] = &[
    ("api", 5),
    ("ops", 4),
    ("collectives", 3),
    ("runtime", 2),
    ("transport", 1),
    ("bootstrap", 1),
];

fn rank(layer: &str) -> Option<u32> {
    LAYERS.iter().find(|(l, _)| *l == layer).map(|(_, r)| *r)
}

/// The code of a line without its `//` comment (string contents are left in: no source line
/// here puts `crate::` in a string).
fn code(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// The identifiers right after each occurrence of `prefix` (`prefix name` or `prefix{a, b::c}`).
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = &rest[..i];
        rest = &rest[i + prefix.len()..];
        if before.ends_with('$') || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let head = item.trim().split("::").next().unwrap_or("").trim();
                let head = head.split_whitespace().next().unwrap_or("");
                if !head.is_empty() {
                    out.push(head.to_string());
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// The upward or sideways arrows of one file of `layer`, as messages.
fn arrows(file: &str, layer: &str, text: &str) -> Vec<String> {
    let mine = rank(layer).expect("a known layer");
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for target in names_after(code(line), "crate::") {
            let Some(theirs) = rank(&target) else {
                continue;
            };
            if target != layer && theirs >= mine {
                found.push(format!(
                    "{file}:{}: {layer} -> {target} points up (or sideways): {}",
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    found
}

/// The sibling modules a file of `layer` uses (`super::x`, `crate::layer::x`).
fn siblings(layer: &str, text: &str) -> BTreeSet<String> {
    let own = format!("crate::{layer}::");
    text.lines()
        .flat_map(|l| {
            let c = code(l);
            let mut v = names_after(c, "super::");
            v.extend(names_after(c, &own));
            v
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn imports_point_down_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    // (layer, module directly in the layer's directory) -> the sibling modules it uses.
    let mut uses: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let mut checked = 0;
    for path in &files {
        let rel = path.strip_prefix(&src).unwrap();
        let parts: Vec<&str> = rel.iter().map(|p| p.to_str().unwrap()).collect();
        if parts.len() < 2 || parts[0] == "api" {
            continue;
        }
        let layer = parts[0];
        let text = std::fs::read_to_string(path).unwrap();
        let name = rel.display().to_string();
        problems.extend(arrows(&name, layer, &text));
        checked += 1;
        if parts.len() == 2 && parts[1] != "mod.rs" {
            let module = parts[1].trim_end_matches(".rs").to_string();
            uses.insert((layer.to_string(), module), siblings(layer, &text));
        }
    }
    for ((layer, a), used) in &uses {
        for b in used {
            if a < b
                && uses
                    .get(&(layer.clone(), b.clone()))
                    .is_some_and(|back| back.contains(a))
            {
                problems.push(format!(
                    "src/{layer}/{a}.rs and src/{layer}/{b}.rs use each other: move what both need into a third module"
                ));
            }
        }
    }
    assert!(checked > 30, "only {checked} source files found under src/");
    assert!(
        problems.is_empty(),
        "imports against the layer picture of src/lib.rs:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_sees_an_upward_import() {
    let up = arrows("x.rs", "runtime", "use crate::collectives::barrier;\n");
    assert_eq!(up.len(), 1);
    assert!(
        up[0].contains("x.rs:1: runtime -> collectives"),
        "{}",
        up[0]
    );
    assert!(
        arrows(
            "x.rs",
            "runtime",
            "    crate::collectives::barrier::world(w);"
        )
        .len()
            == 1
    );
    assert!(arrows("x.rs", "transport", "use crate::bootstrap::Bootstrap;").len() == 1);
    assert!(
        arrows(
            "x.rs",
            "ops",
            "use crate::{api::constants, runtime::world};"
        )
        .len()
            == 1
    );
    assert!(arrows("x.rs", "ops", "use crate::runtime::world; // crate::api").is_empty());
    assert!(arrows("x.rs", "bootstrap", "$crate::runtime::error::fatal(..)").is_empty());
    assert_eq!(
        siblings(
            "collectives",
            "use super::{Group, call::Coll};\nuse crate::collectives::flat;"
        ),
        ["Group", "call", "flat"].map(String::from).into()
    );
}
