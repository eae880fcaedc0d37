//! The layers of `src/lib.rs` point down: api -> ops -> collectives -> runtime -> transport and
//! bootstrap (siblings, neither uses the other); and within a layer the modules form no cycle, of
//! any length (a cycle hides which module is lower).
//!
//! Every source file under `src/` but the generated `api/` (the top layer, free to use anything)
//! is parsed with `syn`. What counts as a use: every path of a `use` tree (groups wrapped over
//! lines and nested groups included), every path in the code (`crate::runtime::world::get(..)`,
//! types, patterns) and every `crate::`/`super::`/`self::` path in a macro's tokens (`fatal!`
//! arguments). Relative paths are resolved: `super::super::x` from `runtime::personality::detect`
//! is `runtime::x`, and inline modules (`mod tests { use super::*; }`) count. `$crate` paths
//! inside `macro_rules!` bodies are the expansion site's, not the definition's, and are skipped.
//!
//! A use is an arrow from the module of the file (or inline module) to the module it names,
//! both cut to two levels, `layer::module` (`runtime::personality::tables` is
//! `runtime::personality`). An arrow to a higher layer, or between the two sibling layers, is
//! reported with its file and line; the arrows inside a layer make a graph whose cycles are
//! reported with their path (`runtime::a -> runtime::b -> runtime::a`).
//!
//! Also checked here, as it is a rule of who may say what: only the generated shells build a
//! `personality::Program` (a value in the program's header's encoding, which the personality
//! translates); the library's own code passes its own types.

use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// Rank of each layer: a module may use layers of lower rank only (equal rank: its own layer).
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

/// One use: the file and line, the using module and the used path, both absolute (without
/// `crate`).
#[derive(Clone, Debug)]
struct Use {
    file: String,
    line: usize,
    from: Vec<String>,
    to: Vec<String>,
}

/// Collects the uses of one file.
struct Collector<'a> {
    file: &'a str,
    /// The module being read (absolute, without `crate`).
    module: Vec<String>,
    uses: Vec<Use>,
    /// Lines that build a `personality::Program` (a value in the program's header's encoding).
    programs: Vec<usize>,
}

impl Collector<'_> {
    /// Records `segments` (as written) at `line`, resolved against the current module.
    fn record(&mut self, segments: &[String], line: usize) {
        let Some(to) = resolve(&self.module, segments) else {
            return;
        };
        self.uses.push(Use {
            file: self.file.to_string(),
            line,
            from: self.module.clone(),
            to,
        });
    }

    /// Every path of a `use` tree, with its prefix.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.record(&prefix.clone(), n.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.record(&prefix.clone(), r.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Glob(g) => {
                self.record(&prefix.clone(), g.star_token.span().start().line);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// The `crate::`, `super::` and `self::` paths in a macro's tokens (`$crate` skipped).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            if let TokenTree::Group(g) = &trees[i] {
                self.tokens(g.stream());
                i += 1;
                continue;
            }
            let dollar =
                i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
            let starts = matches!(&trees[i], TokenTree::Ident(id)
                if !dollar && (id == "crate" || id == "super" || id == "self"));
            if !starts {
                i += 1;
                continue;
            }
            let line = trees[i].span().start().line;
            let mut segments = vec![trees[i].to_string()];
            let mut j = i + 1;
            // `::` is two `:` puncts, then an identifier.
            while j + 2 < trees.len()
                && matches!(&trees[j], TokenTree::Punct(p) if p.as_char() == ':')
                && matches!(&trees[j + 1], TokenTree::Punct(p) if p.as_char() == ':')
            {
                match &trees[j + 2] {
                    TokenTree::Ident(id) => segments.push(id.to_string()),
                    _ => break,
                }
                j += 3;
            }
            if segments.len() > 1 {
                self.record(&segments, line);
            }
            i = j;
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(&segments, p.span().start().line);
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func
            && p.path.segments.last().is_some_and(|s| s.ident == "Program")
        {
            self.programs.push(p.path.span().start().line);
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.module.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.module.pop();
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.is_ident("macro_rules") {
            // A definition: its `$crate` paths belong to the expansion sites.
            self.tokens(m.tokens.clone());
            return;
        }
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        self.visit_macro(&m.mac);
    }
}

/// The absolute module path that `segments` names from `module`, for paths that start with
/// `crate`, `super` or `self`; `None` for others (the standard library, other crates, names
/// imported by a `use` that is itself recorded).
fn resolve(module: &[String], segments: &[String]) -> Option<Vec<String>> {
    let mut at: Vec<String> = match segments.first()?.as_str() {
        "crate" => Vec::new(),
        "super" | "self" => module.to_vec(),
        _ => return None,
    };
    let mut rest = segments;
    if rest[0] == "crate" {
        rest = &rest[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                at.pop()?;
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    at.extend(rest.iter().cloned());
    Some(at)
}

/// The module of a source file under `src/` (`runtime/personality/mod.rs` -> runtime, personality).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    if last != "mod.rs" && last != "lib.rs" {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

/// The uses of one file and the lines that build a `Program`, or the parse error.
fn uses_of(file: &str, module: Vec<String>, text: &str) -> Result<(Vec<Use>, Vec<usize>), String> {
    let ast = syn::parse_file(text).map_err(|e| format!("{file}: cannot parse: {e}"))?;
    let mut c = Collector {
        file,
        module,
        uses: Vec::new(),
        programs: Vec::new(),
    };
    c.visit_file(&ast);
    Ok((c.uses, c.programs))
}

/// `path` cut to `layer::module` (fewer segments if it has fewer).
fn unit(path: &[String]) -> Vec<String> {
    path.iter().take(2).cloned().collect()
}

/// The problems of a set of files: (path relative to `src/`, text).
fn check(files: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    // Arrows inside a layer: unit -> (unit -> first use, for the message).
    let mut graph: BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>> = BTreeMap::new();
    for (rel, text) in files {
        let module = module_of(Path::new(rel));
        let (uses, programs) = match uses_of(rel, module, text) {
            Ok(u) => u,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        // Only the C shells turn a C argument into a value of the program's encoding: the
        // library's own code passing its constants there is how SOS's comparisons got inverted.
        for line in programs {
            problems.push(format!(
                "src/{rel}:{line}: builds a personality::Program, which only the generated shells of src/api/ do (the library's own values are its own types)"
            ));
        }
        for u in uses {
            let (Some(from_layer), Some(to_layer)) = (u.from.first(), u.to.first()) else {
                continue;
            };
            let (Some(mine), Some(theirs)) = (rank(from_layer), rank(to_layer)) else {
                continue;
            };
            if from_layer != to_layer && theirs >= mine {
                problems.push(format!(
                    "src/{}:{}: {} -> {} points {} ({})",
                    u.file,
                    u.line,
                    u.from.join("::"),
                    u.to.join("::"),
                    if theirs > mine { "up" } else { "sideways" },
                    "the layers of src/lib.rs point down"
                ));
                continue;
            }
            let (a, b) = (unit(&u.from), unit(&u.to));
            if from_layer == to_layer && a.len() == 2 && b.len() == 2 && a != b {
                graph
                    .entry(a)
                    .or_default()
                    .entry(b)
                    .or_insert_with(|| format!("src/{}:{}", u.file, u.line));
            }
        }
    }
    for cycle in cycles(&graph) {
        let mut steps = Vec::new();
        for pair in cycle.windows(2) {
            let at = &graph[&pair[0]][&pair[1]];
            steps.push(format!(
                "{} -> {} ({at})",
                pair[0].join("::"),
                pair[1].join("::")
            ));
        }
        problems.push(format!(
            "a cycle of {} modules: {}; move what they share into a module below them",
            cycle.len() - 1,
            steps.join(", ")
        ));
    }
    problems
}

/// One cycle (as a closed path, first node repeated at the end) per strongly connected component
/// of more than one node (Tarjan's algorithm, then a breadth-first search inside the component).
fn cycles<N: Ord + Clone>(graph: &BTreeMap<N, BTreeMap<N, String>>) -> Vec<Vec<N>> {
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        components: Vec<Vec<N>>,
    }
    fn connect<N: Ord + Clone>(g: &BTreeMap<N, BTreeMap<N, String>>, v: &N, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on_stack.insert(v.clone());
        for w in g.get(v).into_iter().flat_map(|m| m.keys()) {
            if !s.index.contains_key(w) {
                connect(g, w, s);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("on the stack");
                s.on_stack.remove(&w);
                let done = &w == v;
                component.push(w);
                if done {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            connect(graph, v, &mut s);
        }
    }
    let mut out = Vec::new();
    for component in s.components.into_iter().filter(|c| c.len() > 1) {
        let inside: BTreeSet<N> = component.iter().cloned().collect();
        let start = inside.iter().next().expect("not empty").clone();
        // Shortest way back to `start`, staying inside the component.
        let mut came_from: BTreeMap<N, N> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        let mut end = None;
        while let Some(v) = queue.pop_front() {
            for w in graph.get(&v).into_iter().flat_map(|m| m.keys()) {
                if !inside.contains(w) {
                    continue;
                }
                if *w == start {
                    end = Some(v.clone());
                    queue.clear();
                    break;
                }
                if !came_from.contains_key(w) {
                    came_from.insert(w.clone(), v.clone());
                    queue.push_back(w.clone());
                }
            }
        }
        let mut path = vec![start.clone()];
        let mut v = end.expect("a component of more than one node has a cycle");
        while v != start {
            path.push(v.clone());
            v = came_from[&v].clone();
        }
        path.push(start);
        path.reverse();
        out.push(path);
    }
    out
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
fn imports_point_down_the_layers_and_make_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| p.strip_prefix(&src).unwrap())
        .filter(|rel| !rel.starts_with("api") && rel.components().count() >= 2)
        .map(|rel| {
            let text = std::fs::read_to_string(src.join(rel)).unwrap();
            (rel.display().to_string(), text)
        })
        .collect();
    assert!(
        files.len() > 30,
        "only {} source files found under src/",
        files.len()
    );
    let problems = check(&files);
    assert!(
        problems.is_empty(),
        "imports against the layer picture of src/lib.rs:\n{}",
        problems.join("\n")
    );
}

/// The checker on made-up files: each of the review's six bad imports is caught.
fn problems(files: &[(&str, &str)]) -> Vec<String> {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    check(&files)
}

#[test]
fn the_checker_sees_an_upward_import_on_one_line() {
    let p = problems(&[("runtime/x.rs", "use crate::collectives::barrier;\n")]);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("src/runtime/x.rs:1: runtime::x -> collectives::barrier points up"),
        "{p:?}"
    );
    let p = problems(&[(
        "runtime/x.rs",
        "fn f() { crate::collectives::barrier::world(); }\n",
    )]);
    assert_eq!(p.len(), 1, "{p:?}");
    let p = problems(&[("transport/x.rs", "use crate::bootstrap::Bootstrap;\n")]);
    assert!(p[0].contains("points sideways"), "{p:?}");
    // In a macro's arguments.
    let p = problems(&[("runtime/x.rs", "fn f() { fatal!(crate::ops::y, 1); }\n")]);
    assert_eq!(p.len(), 1, "{p:?}");
}

#[test]
fn the_checker_sees_a_wrapped_group() {
    let p = problems(&[(
        "ops/x.rs",
        "use crate::{\n    runtime::world,\n    api::constants,\n};\n",
    )]);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("src/ops/x.rs:3: ops::x -> api::constants points up"),
        "{p:?}"
    );
}

#[test]
fn the_checker_sees_a_nested_group() {
    let p = problems(&[(
        "runtime/x.rs",
        "use crate::{transport::shm, ops::{amo, p2p::Cmp}};\n",
    )]);
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(
        p.iter().any(|m| m.contains("-> ops::p2p::Cmp points up")),
        "{p:?}"
    );
}

#[test]
fn the_checker_follows_super() {
    // runtime::personality::detect -> super::super::super is the crate root; ::ops is up.
    let p = problems(&[(
        "runtime/personality/detect.rs",
        "use super::super::super::ops::p2p;\nuse super::super::world;\n",
    )]);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].contains("runtime::personality::detect -> ops::p2p points up"),
        "{p:?}"
    );
    // An inline module's `super` is the file's module.
    let p = problems(&[(
        "transport/x.rs",
        "mod tests { use super::super::super::ops; }\n",
    )]);
    assert_eq!(p.len(), 1, "{p:?}");
    // `$crate` in a macro definition is the expansion site's.
    let p = problems(&[(
        "bootstrap/x.rs",
        "macro_rules! m { () => { $crate::runtime::error::fatal() } }\n",
    )]);
    assert!(p.is_empty(), "{p:?}");
}

#[test]
fn the_checker_sees_a_two_module_cycle() {
    let p = problems(&[
        ("runtime/a.rs", "use super::b::B;\n"),
        ("runtime/b.rs", "use crate::runtime::a;\n"),
    ]);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("a cycle of 2 modules: runtime::a -> runtime::b (src/runtime/a.rs:1), runtime::b -> runtime::a (src/runtime/b.rs:1)"), "{p:?}");
}

#[test]
fn the_checker_sees_a_three_module_cycle() {
    let p = problems(&[
        ("runtime/a.rs", "use super::b;\n"),
        ("runtime/b.rs", "fn f() { super::c::g(); }\n"),
        ("runtime/c/mod.rs", "mod inner;\n"),
        ("runtime/c/inner.rs", "use super::super::a::A;\n"),
        ("runtime/d.rs", "use super::a;\n"),
    ]);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].contains("a cycle of 3 modules: runtime::a -> runtime::b"),
        "{p:?}"
    );
    assert!(
        p[0].contains("runtime::c -> runtime::a (src/runtime/c/inner.rs:1)"),
        "{p:?}"
    );
    // No cycle: a chain.
    let p = problems(&[
        ("runtime/a.rs", "use super::b;\n"),
        ("runtime/b.rs", "use super::c;\n"),
        ("runtime/c.rs", "use std::fmt;\n"),
    ]);
    assert!(p.is_empty(), "{p:?}");
}

#[test]
fn the_checker_sees_a_program_value_built_by_the_library() {
    let p = problems(&[(
        "ops/x.rs",
        "fn f() { p2p::wait_until(CALL, ivar, Program(SHMEM_CMP_NE), 0); }\n",
    )]);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("src/ops/x.rs:1: builds a personality::Program"),
        "{p:?}"
    );
    // Destructuring one (the personality reading it) is not building one.
    let p = problems(&[(
        "runtime/personality/mod.rs",
        "pub fn cmp(call: &str, Program(cmp): Program<i32>) -> i32 { cmp }\n",
    )]);
    assert!(p.is_empty(), "{p:?}");
}
