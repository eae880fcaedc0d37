//! Emits the Rust shells: one `shell!` line per C function (the exported function, whose body calls
//! the op with the C name and the C arguments, and its `pshmem_` twin), and for cbindgen the same
//! functions expanded into plain `#[unsafe(no_mangle)] pub unsafe extern "C" fn` items.

use crate::families::MODULES;
use crate::ops::{self, Op};
use crate::spec::CType;
use crate::{Func, GENERATED, profiling_name, rust_base};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

/// Names a module imports, collected while emitting.
#[derive(Default)]
struct Uses {
    ffi: BTreeSet<&'static str>,
    handle: BTreeSet<&'static str>,
    constants: BTreeSet<&'static str>,
    ops: BTreeSet<String>,
    /// Element types defined in `crate::ops` (`Bits128`, `LongDouble`, ...).
    elems: BTreeSet<&'static str>,
    /// A shell wraps an argument in `Program` (the op takes a value of the program's header).
    program: bool,
}

impl Uses {
    fn note(&mut self, rust: &'static str) {
        match rust {
            "shmem_ctx_t" | "shmem_team_t" | "SHMEM_CTX_DEFAULT" => {
                self.handle.insert(rust);
            }
            "Bits128" | "LongDouble" | "ComplexD" | "ComplexF" => {
                self.elems.insert(rust);
            }
            "shmem_team_config_t" | "shmem_ctx_session_config_t" => {
                self.constants.insert(rust);
            }
            r if r.starts_with("c_") => {
                self.ffi.insert(r);
            }
            _ => {}
        }
    }
}

fn rust_type(ty: &CType, uses: &mut Uses, what: &str) -> Result<String, String> {
    let base = rust_base(&ty.base)
        .ok_or_else(|| format!("{what}: no Rust type for C type {:?}", ty.to_c()))?;
    if ty.is_void() {
        return Ok("()".into());
    }
    uses.note(base);
    match ty.pointers {
        0 => Ok(base.into()),
        1 if ty.is_const => Ok(format!("*const {base}")),
        1 => Ok(format!("*mut {base}")),
        _ => Err(format!(
            "{what}: pointer depth {} not supported",
            ty.pointers
        )),
    }
}

fn doc_line(f: &Func) -> String {
    let mut doc = format!("`{}` (OpenSHMEM 1.6, {}).", f.name(), f.row.spec_file);
    if f.row.status == "deprecated" {
        doc.push_str(&format!(" Deprecated since {}", f.row.deprecated_since));
        if let Some(by) = f.row.notes.strip_prefix("replaced by ") {
            let by = by.split(';').next().unwrap_or(by).trim();
            doc.push_str(&format!("; replaced by `{by}`"));
        }
        doc.push('.');
    }
    doc
}

/// The shell of one function (its twin comes from the `shell!` macro).
fn function(f: &Func, op: &Op, uses: &mut Uses) -> Result<Shell, String> {
    let name = f.name();
    let mut params = Vec::new();
    for p in &f.sig.params {
        params.push(format!("{}: {}", p.name, rust_type(&p.ty, uses, name)?));
    }
    let ret = match rust_type(&f.sig.ret, uses, name)?.as_str() {
        "()" => String::new(),
        r => format!(" -> {r}"),
    };

    // Arguments of the op: `ctx` defaults to SHMEM_CTX_DEFAULT; the others match the C names.
    let mut args = vec![format!("{name:?}")];
    let mut used = BTreeSet::new();
    for (pname, ptype) in &op.params {
        let c = f.sig.params.iter().find(|p| &p.name == pname);
        match c {
            None if pname == "ctx" => {
                uses.note("SHMEM_CTX_DEFAULT");
                args.push("SHMEM_CTX_DEFAULT".into());
            }
            None if pname == "op" && f.family.operator.is_some() => {
                let operator = f.family.operator.unwrap_or_default();
                // The operator's module (`reduce` of `reduce::Arith::sum`) is imported even where
                // the op itself is an entry point of `ops::ffi`.
                uses.ops
                    .insert(operator.split("::").next().unwrap_or_default().to_string());
                args.push(operator.into());
            }
            None => {
                return Err(format!(
                    "{name}: op {} takes `{pname}`, which the C synopsis lacks",
                    op.path
                ));
            }
            Some(p) => {
                used.insert(p.name.as_str());
                let generic = ptype.ends_with(" T") || ptype == "T";
                if generic && p.ty.base == "void" && p.ty.pointers == 1 {
                    let elem = f
                        .elem
                        .as_deref()
                        .ok_or_else(|| format!("{name}: `void *{pname}` needs an element type"))?;
                    if let Some(e) = ["Bits128", "LongDouble", "ComplexD", "ComplexF"]
                        .into_iter()
                        .find(|e| *e == elem)
                    {
                        uses.note(e);
                    }
                    args.push(format!("{pname}.cast::<{elem}>()"));
                } else if ptype.starts_with("Program<") {
                    // A value in the program's header's encoding: only the personality reads it.
                    uses.program = true;
                    args.push(format!("Program({pname})"));
                } else {
                    args.push(pname.clone());
                }
            }
        }
    }
    if f.family.operator.is_some() && !op.params.iter().any(|(p, _)| p == "op") {
        return Err(format!(
            "{name}: op {} takes no `op` for the family's operator",
            op.path
        ));
    }
    for p in &f.sig.params {
        if !used.contains(p.name.as_str()) {
            return Err(format!(
                "{name}: C parameter `{}` is not passed to op {}",
                p.name, op.path
            ));
        }
    }
    let short_op = op.path.as_str();
    uses.ops
        .insert(short_op.split("::").next().unwrap_or_default().to_string());
    // The operator names its own module (`amo::Rmw::Add`), which an `ffi::` op does not import.
    if let Some(operator) = f.family.operator {
        uses.ops
            .insert(operator.split("::").next().unwrap_or_default().to_string());
    }
    let call = format!("{short_op}({})", args.join(", "));
    let body = if op.is_unsafe {
        format!(
            "    // SAFETY: the C caller passes arguments that meet this routine's requirements in the spec.\n    unsafe {{ {call} }}\n"
        )
    } else {
        format!("    {call}\n")
    };

    let params = params.join(", ");
    let mut expanded = String::new();
    writeln!(expanded, "/// {}", doc_line(f)).unwrap();
    writeln!(expanded, "#[unsafe(no_mangle)]").unwrap();
    writeln!(
        expanded,
        "pub unsafe extern \"C\" fn {name}({params}){ret} {{\n{body}}}\n"
    )
    .unwrap();
    writeln!(expanded, "/// Profiling twin of [`{name}`].").unwrap();
    writeln!(expanded, "#[unsafe(no_mangle)]").unwrap();
    writeln!(
        expanded,
        "pub unsafe extern \"C\" fn {}({params}){ret} {{\n{body}}}\n",
        profiling_name(name)
    )
    .unwrap();
    let unsafe_kw = if op.is_unsafe { "unsafe " } else { "" };
    let compact = format!(
        "shell!({name}, {}, ({params}){ret}, {unsafe_kw}{call});\n",
        profiling_name(name)
    );
    Ok(Shell { expanded, compact })
}

/// One routine as the two texts apigen writes: the one-line `shell!` invocation committed in
/// `src/api/`, and the expanded function and twin that only cbindgen reads.
pub struct Shell {
    pub expanded: String,
    pub compact: String,
}

/// A module of shells: the committed text (`shell!` lines) and the expanded text for cbindgen.
pub struct Module {
    pub compact: String,
    pub expanded: String,
}

/// The text of `src/api/<module>.rs`.
pub fn module(ops_dir: &Path, module: &str, funcs: &[&Func]) -> Result<Module, String> {
    let doc = MODULES
        .iter()
        .find(|(m, _)| *m == module)
        .map(|(_, d)| *d)
        .unwrap_or_default();
    let mut uses = Uses::default();
    let mut compact = String::new();
    let mut expanded = String::new();
    for f in funcs {
        let op = ops::find(ops_dir, f.family.op)?;
        let shell = function(f, &op, &mut uses)?;
        compact.push_str(&shell.compact);
        expanded.push_str(&shell.expanded);
    }
    let mut s = String::new();
    writeln!(s, "// {GENERATED}").unwrap();
    writeln!(s, "//! {doc}").unwrap();
    writeln!(s, "//!").unwrap();
    s.push_str(SHELL_DOC);
    writeln!(
        s,
        "#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]\n"
    )
    .unwrap();
    let mut ops_items: Vec<String> = uses.elems.iter().map(|e| e.to_string()).collect();
    ops_items.extend(uses.ops.iter().cloned());
    if !ops_items.is_empty() {
        writeln!(s, "use crate::ops::{{{}}};", ops_items.join(", ")).unwrap();
    }
    if !uses.constants.is_empty() {
        let c: Vec<&str> = uses.constants.iter().copied().collect();
        writeln!(s, "use crate::runtime::constants::{{{}}};", c.join(", ")).unwrap();
    }
    if !uses.handle.is_empty() {
        let h: Vec<&str> = uses.handle.iter().copied().collect();
        writeln!(s, "use crate::runtime::handle::{{{}}};", h.join(", ")).unwrap();
    }
    if uses.program {
        writeln!(s, "use crate::runtime::personality::Program;").unwrap();
    }
    if !uses.ffi.is_empty() {
        let f: Vec<&str> = uses.ffi.iter().copied().collect();
        writeln!(s, "use std::ffi::{{{}}};", f.join(", ")).unwrap();
    }
    s.push('\n');
    Ok(Module {
        compact: format!("{s}{compact}"),
        expanded: format!("{s}{expanded}"),
    })
}

/// The paragraph every module of C shells opens with, after its own line: what a `shell!` line
/// is, and the module's one safety paragraph.
const SHELL_DOC: &str = "\
//! Each line `shell!(name, twin, (parameters) -> return, op call)` defines the exported C routine
//! `name`, whose body is the op call of `crate::ops` with the routine's own name for error
//! messages, and its profiling twin (`pshmem_`), which jumps to it (the macro is in `api/mod.rs`).
//! The C declarations of shmem.h and pshmem.h are written by cbindgen from the same table.
//!
//! Safety: every routine is an `unsafe extern \"C\" fn` whose contract is the spec's for that
//! routine: the pointers a C caller passes are valid for the element type and count the routine
//! names, symmetric where the spec says so, and the handles are ones the library gave out. The ops
//! take the same contract; an `unsafe` line forwards the arguments unchanged.
";

/// The text of `src/api/mod.rs`: the `shell!` macro, then the modules.
pub fn mod_rs() -> String {
    let mut s = String::new();
    writeln!(s, "// {GENERATED}").unwrap();
    s.push_str(MOD_RS);
    for (m, _) in MODULES {
        writeln!(s, "pub mod {m};").unwrap();
    }
    writeln!(s, "pub mod exports;").unwrap();
    writeln!(s, "pub mod longdouble;").unwrap();
    writeln!(s, "pub mod fortran;").unwrap();
    s
}

/// The hand-written part of `src/api/mod.rs`.
const MOD_RS: &str = r#"//! The C API: one-line `extern "C"` shells generated by `crates/apigen`, one module per spec
//! chapter, each line a routine and its `pshmem_` twin. The `long double` routines are in
//! `longdouble.c` (Rust has no `long double`); the constants and types of the C API are in
//! `runtime::constants`, written by hand. The legacy Fortran API is in `fortran`. The data
//! symbols of the predefined handles, the ABI marker and `rshmemx_info_print` are in `exports`,
//! written by hand. See docs/ABI.md.
//!
//! A twin is a second exported function: in an optimized build an alias of its routine made by
//! LLVM's function merging (the same body, so the same address), in a debug build, which does not
//! merge, one jump to it. An alias cannot be written by hand: rustc exports only the functions it defines (its
//! version script makes every other symbol local). build.rs links with `-Bsymbolic-functions`, so
//! the jump, like every call inside the library to an exported function, binds to the library's
//! own definition: a tool that defines `shmem_long_put` and calls `pshmem_long_put` reaches the
//! library, not itself.

/// `shell!(name, twin, (parameters) -> return, [unsafe] call)`: the exported routine `name`
/// whose body is `call`, and its profiling twin `twin`. `unsafe` marks a call to an `unsafe fn` of
/// `crate::ops`. In an optimized build (no debug assertions) the twin has the same body, and
/// LLVM's function merging makes it an alias of the routine (one address, no code of its own;
/// measured on the release build: every twin). In a debug build, which does not merge, the twin is one jump to
/// the routine, which is never inlined into it, so the routine's code exists once there too.
macro_rules! shell {
    ($name:ident, $twin:ident, ($($p:ident: $t:ty),*) $(-> $ret:ty)?, unsafe $call:expr) => {
        #[unsafe(no_mangle)]
        #[cfg_attr(debug_assertions, inline(never))]
        pub unsafe extern "C" fn $name($($p: $t),*) $(-> $ret)? {
            // SAFETY: the caller meets the routine's contract in the spec, which is the op's
            // (see the safety paragraph of the module that invokes this macro).
            unsafe { $call }
        }
        #[cfg(not(debug_assertions))]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $twin($($p: $t),*) $(-> $ret)? {
            // SAFETY: the twin is the same call with the same arguments: the caller meets the
            // routine's contract in the spec, which is the op's.
            unsafe { $call }
        }
        #[cfg(debug_assertions)]
        shell!(@jump $name, $twin, ($($p: $t),*) $(-> $ret)?);
    };
    ($name:ident, $twin:ident, ($($p:ident: $t:ty),*) $(-> $ret:ty)?, $call:expr) => {
        #[unsafe(no_mangle)]
        #[cfg_attr(debug_assertions, inline(never))]
        pub unsafe extern "C" fn $name($($p: $t),*) $(-> $ret)? {
            $call
        }
        #[cfg(not(debug_assertions))]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $twin($($p: $t),*) $(-> $ret)? {
            $call
        }
        #[cfg(debug_assertions)]
        shell!(@jump $name, $twin, ($($p: $t),*) $(-> $ret)?);
    };
    (@jump $name:ident, $twin:ident, ($($p:ident: $t:ty),*) $(-> $ret:ty)?) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $twin($($p: $t),*) $(-> $ret)? {
            // SAFETY: the twin's caller meets the contract of the routine it profiles; the
            // arguments pass on unchanged.
            unsafe { $name($($p),*) }
        }
    };
}

"#;

/// The text of `src/api/longdouble.rs`: for each routine written in C, the exported name and its
/// twin as naked functions that jump to the C definition (registers and stack untouched, so the
/// C definition receives the caller's arguments and returns to the caller).
pub fn longdouble_module(funcs: &[&Func]) -> String {
    let mut s = String::new();
    writeln!(s, "// {GENERATED}").unwrap();
    s.push_str(
        "//! The `long double` routines. Rust has no `long double`; they are defined in C (`longdouble.c`,
//! compiled by build.rs) under internal names. A cdylib exports only symbols defined in Rust, so
//! each exported name is a naked function here whose one instruction jumps to the C definition: the
//! arguments and the return address stay as the caller set them. Declared in shmem.h/pshmem.h by
//! `crates/apigen` (cbindgen cannot write `long double`).
#![allow(clippy::missing_safety_doc)]

#[cfg(not(any(target_arch = \"x86_64\", target_arch = \"aarch64\")))]
compile_error!(\"the long double trampolines are written for x86_64 and aarch64\");

/// A tail jump to `$target`.
#[cfg(target_arch = \"x86_64\")]
macro_rules! jump {
    ($target:ident) => {
        core::arch::naked_asm!(\"jmp {}\", sym $target)
    };
}
/// A tail jump to `$target`.
#[cfg(target_arch = \"aarch64\")]
macro_rules! jump {
    ($target:ident) => {
        core::arch::naked_asm!(\"b {}\", sym $target)
    };
}

// The C definitions; their real signatures are in shmem.h (a jump does not need them).
unsafe extern \"C\" {
",
    );
    for f in funcs {
        writeln!(s, "    fn {}();", crate::cgen::c_impl_name(f.name())).unwrap();
    }
    s.push_str("}\n");
    for f in funcs {
        let target = crate::cgen::c_impl_name(f.name());
        for (name, doc) in [
            (f.name().to_string(), doc_line(f)),
            (
                profiling_name(f.name()),
                format!("Profiling twin of [`{}`].", f.name()),
            ),
        ] {
            let sig =
                f.row
                    .c_signature
                    .replacen(&format!(" {}(", f.name()), &format!(" {name}("), 1);
            writeln!(
                s,
                "\n/// {doc}\n///\n/// C signature: `{sig}`.\n#[unsafe(naked)]\n#[unsafe(no_mangle)]\npub unsafe extern \"C\" fn {name}() {{\n    jump!({target})\n}}"
            )
            .unwrap();
        }
    }
    s
}
