//! Reads the op signatures in `src/ops/` (the contract the shells forward to): parameter names,
//! whether the op is `unsafe`, whether it is generic over the element type.

use std::fs;
use std::path::Path;

/// The signature of one op, as declared in `src/ops/<module>.rs`.
#[derive(Clone, Debug)]
pub struct Op {
    /// `module::function`.
    pub path: String,
    pub is_unsafe: bool,
    /// (name, Rust type) after the leading `call: &'static str`.
    pub params: Vec<(String, String)>,
}

/// Finds `pub fn NAME` or `pub unsafe fn NAME`: first in `ops_dir/ffi/<module>.rs`, where an op
/// that takes the C caller's pointers has its entry point (the one place of `ops` that turns them
/// into checked ranges: `path` becomes `ffi::<module>::NAME`), then in `ops_dir/<module>.rs`.
pub fn find(ops_dir: &Path, path: &str) -> Result<Op, String> {
    let (module, name) = path
        .split_once("::")
        .ok_or_else(|| format!("op {path}: expected module::function"))?;
    let ffi = ops_dir.join("ffi").join(format!("{module}.rs"));
    if let Ok(text) = fs::read_to_string(&ffi)
        && let Some(op) = find_in(&text, path, name)?
    {
        return Ok(Op {
            path: format!("ffi::{path}"),
            ..op
        });
    }
    let file = ops_dir.join(format!("{module}.rs"));
    let text =
        fs::read_to_string(&file).map_err(|e| format!("op {path}: {}: {e}", file.display()))?;
    find_in(&text, path, name)?
        .ok_or_else(|| format!("op {path}: no `pub fn {name}` in {}", file.display()))
}

/// The op `name` (of `path`) declared in `text`, if it is.
fn find_in(text: &str, path: &str, name: &str) -> Result<Option<Op>, String> {
    for (is_unsafe, prefix) in [(false, "pub fn "), (true, "pub unsafe fn ")] {
        for (at, _) in text.match_indices(prefix) {
            let rest = &text[at + prefix.len()..];
            let Some(after) = rest.strip_prefix(name) else {
                continue;
            };
            if !after.starts_with(['(', '<']) {
                continue;
            }
            let open = after
                .find('(')
                .ok_or_else(|| format!("op {path}: no parameter list"))?;
            let close = after[open..]
                .find(')')
                .ok_or_else(|| format!("op {path}: unclosed parameter list"))?
                + open;
            let mut params: Vec<(String, String)> = after[open + 1..close]
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (n, t) = p.split_once(':').unwrap_or((p, ""));
                    // `_hints`: a parameter the op does not use yet still receives the C argument.
                    (
                        n.trim().trim_start_matches('_').to_string(),
                        t.trim().to_string(),
                    )
                })
                .collect();
            if params.first().map(|(n, _)| n.as_str()) != Some("call") {
                return Err(format!(
                    "op {path}: first parameter must be `call: &'static str`"
                ));
            }
            params.remove(0);
            return Ok(Some(Op {
                path: path.to_string(),
                is_unsafe,
                params,
            }));
        }
    }
    Ok(None)
}
