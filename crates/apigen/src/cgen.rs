//! Emits the C text: `src/api/longdouble.c`, the declarations and C11 generics that go into the
//! headers after cbindgen's output, and `c-tests/generated/types.h`.

use crate::families::FAMILIES;
use crate::spec::{CSignature, Spec};
use crate::{Func, GENERATED, profiling_name};
use std::fmt::Write;

/// The call that implements a `long double` routine with the 128-bit sized routine `via`.
fn forward_body(f: &Func, prefix: &str) -> Result<String, String> {
    let via = f
        .family
        .via128
        .ok_or_else(|| format!("{}: family has no 128-bit routine", f.name()))?;
    let target = if f.has_ctx() {
        format!("{prefix}shmem_ctx_{via}")
    } else {
        format!("{prefix}shmem_{via}")
    };
    let ctx = if f.has_ctx() { "ctx, " } else { "" };
    let names: Vec<&str> = f.sig.params.iter().map(|p| p.name.as_str()).collect();
    Ok(match f.family.op {
        "rma::p" => format!("    {target}({ctx}dest, &value, 1, pe);\n"),
        "rma::g" => format!(
            "    long double value;\n    {target}({ctx}&value, source, 1, pe);\n    return value;\n"
        ),
        _ => format!("    {target}({});\n", names.join(", ")),
    })
}

/// The C name of the definition behind an exported `long double` routine (and its twin).
pub fn c_impl_name(name: &str) -> String {
    format!("rshmem_c_{name}")
}

/// `src/api/longdouble.c`.
pub fn longdouble_c(funcs: &[&Func]) -> Result<String, String> {
    let mut s = String::new();
    writeln!(s, "/* {GENERATED} */").unwrap();
    s.push_str(
        "/*
 * The `long double` RMA routines. Rust has no `long double`, so they are written in C. A `long
 * double` is 16 bytes on the supported targets (x86_64: 80-bit extended in 16 bytes; aarch64: IEEE
 * binary128), so each routine moves its elements with the 128-bit sized routine. They call the
 * `pshmem_` names so that a profiling tool that intercepts `shmem_put128` does not also count the
 * `long double` calls.
 *
 * A Rust cdylib exports only the symbols defined in Rust, so these definitions are hidden and have
 * internal names (rshmem_c_<name>); the exported `shmem_` and `pshmem_` names are naked Rust
 * functions in longdouble.rs that jump here. build.rs compiles this file. See docs/ABI.md.
 */
#include <pshmem.h>

_Static_assert(sizeof(long double) == 16, \"the long double routines move 16-byte elements\");

#define RSHMEM_INTERNAL __attribute__((visibility(\"hidden\")))
",
    );
    for f in funcs {
        let sig = &f.row.c_signature;
        let def = sig.replacen(
            &format!(" {}(", f.name()),
            &format!(" {}(", c_impl_name(f.name())),
            1,
        );
        if def == *sig {
            return Err(format!("{}: cannot rename synopsis {sig:?}", f.name()));
        }
        write!(
            s,
            "\n/* `{}` and `{}`. */\nRSHMEM_INTERNAL {def}\n{{\n{}}}\n",
            f.name(),
            profiling_name(f.name()),
            forward_body(f, "p")?
        )
        .unwrap();
    }
    Ok(s)
}

/// The declarations that cbindgen cannot write, for shmem.h (`profiling` false) or pshmem.h: the
/// routines implemented in C and the Rust shells with `long double` or complex pointers, each from
/// the spec's synopsis. C++ has no `_Complex`: there the complex ones take `std::complex<double>`
/// and `std::complex<float>` (C++11 guarantees their layout is the C type's, two parts in order),
/// so they are declared twice, once per language; GNU C++ (GCC, Clang) also knows the C types, and
/// there each complex routine has an inline overload that takes them ([`complex_overload`]).
pub fn text_decls(funcs: &[&Func], profiling: bool) -> String {
    let mut s = String::new();
    let (plain, complex): (Vec<&Func>, Vec<&Func>) = funcs.iter().partition(|f| !f.is_complex());
    if !complex.is_empty() {
        // Outside `extern "C"`: a C++ standard header must not be included inside it.
        s.push_str("#ifdef __cplusplus\n#include <complex>\n#endif\n\n");
    }
    s.push_str("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    let decl = |s: &mut String, f: &Func, sig: &str| {
        if profiling {
            writeln!(s, "/* Profiling twin of `{}`. */", f.name()).unwrap();
            writeln!(
                s,
                "{};\n",
                sig.replacen(
                    &format!(" {}(", f.name()),
                    &format!(" {}(", profiling_name(f.name())),
                    1
                )
            )
            .unwrap();
        } else {
            writeln!(
                s,
                "/* `{}` (OpenSHMEM 1.6, {}). */",
                f.name(),
                f.row.spec_file
            )
            .unwrap();
            writeln!(s, "{sig};\n").unwrap();
        }
    };
    for f in &plain {
        decl(&mut s, f, &f.row.c_signature);
    }
    if !complex.is_empty() {
        s.push_str(
            "#if defined(__cplusplus) /* C++ has no _Complex: std::complex, same layout */\n\n",
        );
        for f in &complex {
            let sig = f
                .row
                .c_signature
                .replace("double _Complex", "std::complex<double>")
                .replace("float _Complex", "std::complex<float>");
            decl(&mut s, f, &sig);
        }
        s.push_str("#else /* C */\n\n");
        for f in &complex {
            decl(&mut s, f, &f.row.c_signature);
        }
        s.push_str("#endif /* __cplusplus */\n\n");
    }
    s.push_str("#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n");
    if !complex.is_empty() {
        s.push_str(
            "\n#if defined(__cplusplus) && defined(__GNUC__)\n/* GNU C++ has C's complex types too: a \
             program written for a header that declares the complex routines with them (`double \
             _Complex *`) calls these, which pass the same bytes on as std::complex. */\n\n",
        );
        for f in &complex {
            let name = if profiling {
                profiling_name(f.name())
            } else {
                f.name().to_string()
            };
            writeln!(s, "{}\n", complex_overload(&f.row.c_signature, &name)).unwrap();
        }
        s.push_str("#endif /* __cplusplus && __GNUC__ */\n");
    }
    s
}

/// An inline C++ overload named `name` of the complex routine whose C synopsis is `sig`: it takes
/// the C complex types and calls the `std::complex` declaration. `__extension__` keeps
/// `-pedantic` quiet about the GNU types.
fn complex_overload(sig: &str, name: &str) -> String {
    let open = sig.find('(').expect("a synopsis has parameters");
    let ret = sig[..open].rsplit_once(' ').map_or("", |(ret, _)| ret);
    let params = sig[open + 1..].trim_end_matches(')');
    let args: Vec<String> = params
        .split(", ")
        .map(|p| {
            let arg = p
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or(p);
            match ["double", "float"]
                .into_iter()
                .find(|t| p.contains(&format!("{t} _Complex")))
            {
                Some(t) => {
                    let constness = if p.starts_with("const ") {
                        "const "
                    } else {
                        ""
                    };
                    format!("reinterpret_cast<{constness}std::complex<{t}> *>({arg})")
                }
                None => arg.to_string(),
            }
        })
        .collect();
    format!(
        "__extension__ inline {ret} {name}({params}) {{\n    return {name}({});\n}}",
        args.join(", ")
    )
}

/// The standard C type a spec type names on the supported (LP64) targets: a `_Generic` association
/// must use it, since a typedef and its type are the same type and may not both appear.
pub fn standard_type(c: &str) -> Result<&str, String> {
    Ok(match c {
        "int8_t" => "signed char",
        "int16_t" => "short",
        "int32_t" => "int",
        "int64_t" | "ptrdiff_t" => "long",
        "uint8_t" => "unsigned char",
        "uint16_t" => "unsigned short",
        "uint32_t" => "unsigned int",
        "uint64_t" | "size_t" => "unsigned long",
        t if t.ends_with("_t") => return Err(format!("no standard C type known for {t}")),
        t => t,
    })
}

/// The C11 type-generic interfaces (`shmem_put`, ...) for the typed families that have one.
pub fn generics(spec: &Spec) -> Result<String, String> {
    let mut s = String::new();
    s.push_str(
        "/*
 * C11 type-generic interfaces. Each accepts the form without a context and the form whose first
 * argument is a shmem_ctx_t (a distinct pointer type), and selects the typed routine from the type
 * of the first buffer argument. Only standard C types can be associations: int8_t and the other
 * typedefs name one of them (on LP64: int32_t is int, int64_t long); a table that lists only the
 * typedef (int32_t in the bitwise AMOs) gets the standard type's association.
 */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

",
    );
    s.push_str(GENERIC_PRELUDE);
    for (index, family) in FAMILIES.iter().enumerate() {
        let Some(generic) = family.generic else {
            continue;
        };
        // Several families may share a generic (the deprecated short/ushort rows of
        // `shmem_wait_until` and `shmem_test`): the first one emits it, over all their rows.
        if FAMILIES[..index].iter().any(|f| f.generic == Some(generic)) {
            continue;
        }
        let row = spec.row(generic, "generic")?;
        if let crate::families::Types::Plain = family.types {
            // An untyped family: the generic only tells the context form from the other.
            let [plain, ctx] = family.names else {
                return Err(format!("{generic}: expected a plain and a ctx name"));
            };
            write!(
                s,
                "\n/* `{generic}` (OpenSHMEM 1.6, {}). */\n#define {generic}(first, ...) \\\n    _Generic((first), \\\n        shmem_ctx_t: {ctx}, \\\n        default: {plain})(first, __VA_ARGS__)\n",
                row.spec_file,
            )
            .unwrap();
            continue;
        }
        let mut rows = Vec::new();
        for f in FAMILIES.iter().filter(|f| f.generic == Some(generic)) {
            if f.names != family.names {
                return Err(format!("{generic}: families with different names share it"));
            }
            rows.extend(match f.types {
                crate::families::Types::Table(t) => spec.table(t)?.iter().collect(),
                crate::families::Types::Subset(t, only) => spec.subset(t, only)?,
                crate::families::Types::WithOp(t, op) => spec.with_op(t, op)?,
                _ => return Err(format!("{generic}: family is not typed")),
            });
        }
        // A team-first family (collectives) selects on the first argument after the team.
        let team_first = CSignature::parse(
            &spec
                .function(&plain_first(family.names[0], &rows_first(spec, family)?))?
                .c_signature,
        )?
        .params
        .first()
        .is_some_and(|p| p.ty.base == "shmem_team_t");
        let (plain, ctx) = match family.names {
            [plain, ctx] => (*plain, Some(*ctx)),
            [plain] => (*plain, None),
            _ => return Err(format!("{generic}: expected a plain and a ctx pattern")),
        };
        let mut assoc_plain = Vec::new();
        let mut assoc_ctx = Vec::new();
        // The foreign rows this generic also selects (SOS's short and unsigned short waits and
        // tests): the model's synopsis gives the buffer's const-ness.
        let extra = crate::foreign::generic_rows(family.names);
        // Standard-named rows first; a typedef row (int32_t, size_t, ...) only if the table has no
        // row for the standard type it names (bitamotypes lists int32_t but not int).
        let (standard, typedefs): (Vec<_>, Vec<_>) =
            rows.into_iter().partition(|t| !t.c_type.ends_with("_t"));
        let mut seen: Vec<&str> = Vec::new();
        let listed = standard
            .into_iter()
            .chain(typedefs)
            .map(|t| (t.c_type.as_str(), t.typename.as_str(), t.typename.as_str()))
            .chain(extra.iter().copied());
        for (c_type, typename, model_typename) in listed {
            let c_type = standard_type(c_type)?;
            if seen.contains(&c_type) {
                continue;
            }
            seen.push(c_type);
            let patterns = [(Some(plain), &mut assoc_plain), (ctx, &mut assoc_ctx)];
            for (pattern, out) in patterns {
                let Some(pattern) = pattern else { continue };
                let name = pattern.replace("TYPENAME", typename);
                let model = pattern.replace("TYPENAME", model_typename);
                let sig = CSignature::parse(&spec.function(&model)?.c_signature)?;
                let buf = sig
                    .params
                    .iter()
                    .find(|p| p.ty.base != "shmem_ctx_t" && p.ty.base != "shmem_team_t")
                    .ok_or_else(|| format!("{name}: no buffer parameter"))?;
                if buf.ty.pointers != 1 {
                    return Err(format!("{name}: first buffer parameter is not a pointer"));
                }
                if buf.ty.is_const {
                    out.push(format!("const {c_type} *: {name}"));
                }
                out.push(format!("{c_type} *: {name}"));
            }
        }
        let shape = if team_first {
            Shape::TeamFirst
        } else if ctx.is_none() {
            Shape::Plain
        } else {
            Shape::CtxOrPlain
        };
        let doc = format!("`{generic}` (OpenSHMEM 1.6, {})", row.spec_file);
        s.push_str(&generic_macro(
            generic,
            &doc,
            shape,
            &assoc_plain,
            &assoc_ctx,
        ));
    }
    s.push_str("\n#endif /* C11 */\n");
    Ok(s)
}

/// A parameter list's types as C++ writes them, and the key that tells two overloads apart (each
/// typedef replaced by the standard type it names on LP64).
pub fn cxx_params(sig: &CSignature) -> Result<(Vec<String>, Vec<String>), String> {
    let mut text = Vec::new();
    let mut key = Vec::new();
    for p in &sig.params {
        let ty =
            p.ty.to_c()
                .replace("double _Complex", "std::complex<double>")
                .replace("float _Complex", "std::complex<float>");
        let mut std = p.ty.clone();
        if std.base.ends_with("_t") && !std.base.starts_with("shmem_") {
            std.base = standard_type(&std.base)?.to_string();
        }
        key.push(std.to_c());
        let sep = if ty.ends_with('*') { "" } else { " " };
        text.push(format!("{ty}{sep}{}", p.name));
    }
    Ok((text, key))
}

/// One C++ overload named `generic` that calls `sig`'s routine.
pub fn cxx_overload(generic: &str, sig: &CSignature, params: &[String]) -> String {
    let ret = sig.ret.to_c();
    let args: Vec<&str> = sig.params.iter().map(|p| p.name.as_str()).collect();
    let ret_kw = if sig.ret.is_void() { "" } else { "return " };
    let sep = if ret.ends_with('*') { "" } else { " " };
    format!(
        "inline {ret}{sep}{generic}({}) {{ {ret_kw}{}({}); }}\n",
        params.join(", "),
        sig.name,
        args.join(", ")
    )
}

/// The C++ counterparts of the C11 generics: for each typed routine a generic selects, an inline
/// overload with the generic's name and the routine's parameters that calls it (as Sandia
/// OpenSHMEM's shmem.h offers in C++). Two typed routines whose parameters are the same C++ types
/// (`int32_t` is `int`) give one overload, the standard-named one; an overload with the parameters
/// of a C function of the same name (the deprecated `shmem_wait_until(long *, int, long)`) is left
/// to that function.
pub fn cxx_overloads(spec: &Spec) -> Result<String, String> {
    let mut s = String::from(
        "\n/* C++: an overload per typed routine of each C11 generic, with the generic's name. */\n#if defined(__cplusplus)\nextern \"C++\" {\n",
    );
    for (index, family) in FAMILIES.iter().enumerate() {
        let Some(generic) = family.generic else {
            continue;
        };
        if FAMILIES[..index].iter().any(|f| f.generic == Some(generic)) {
            continue;
        }
        let mut taken: Vec<Vec<String>> = Vec::new();
        if let Ok(row) = spec.function(generic) {
            taken.push(cxx_params(&CSignature::parse(&row.c_signature)?)?.1);
        }
        if let crate::families::Types::Plain = family.types {
            for name in family.names {
                let sig = CSignature::parse(&spec.function(name)?.c_signature)?;
                let (params, key) = cxx_params(&sig)?;
                if !taken.contains(&key) {
                    s.push_str(&cxx_overload(generic, &sig, &params));
                    taken.push(key);
                }
            }
            continue;
        }
        let mut rows: Vec<(String, String)> = Vec::new();
        for f in FAMILIES.iter().filter(|f| f.generic == Some(generic)) {
            let t: Vec<&crate::spec::TypeRow> = match f.types {
                crate::families::Types::Table(t) => spec.table(t)?.iter().collect(),
                crate::families::Types::Subset(t, only) => spec.subset(t, only)?,
                crate::families::Types::WithOp(t, op) => spec.with_op(t, op)?,
                _ => return Err(format!("{generic}: family is not typed")),
            };
            // Standard-named rows first, as in the C11 generics.
            let (standard, typedefs): (Vec<_>, Vec<_>) =
                t.into_iter().partition(|t| !t.c_type.ends_with("_t"));
            rows.extend(
                standard
                    .into_iter()
                    .chain(typedefs)
                    .map(|t| (t.typename.clone(), String::new())),
            );
        }
        for (ct, tn, model) in crate::foreign::generic_rows(family.names) {
            rows.push((tn.to_string(), format!("{model}\t{ct}")));
        }
        for (typename, foreign) in rows {
            for pattern in family.names {
                let name = pattern.replace("TYPENAME", &typename);
                let sig = match foreign.split_once('\t') {
                    None => CSignature::parse(&spec.function(&name)?.c_signature)?,
                    // A foreign routine: its model's synopsis with the foreign element type.
                    Some((model, ct)) => {
                        let model_name = pattern.replace("TYPENAME", model);
                        let mut sig = CSignature::parse(&spec.function(&model_name)?.c_signature)?;
                        let from = spec
                            .tables
                            .values()
                            .flatten()
                            .find(|r| r.typename == model)
                            .map(|r| r.c_type.clone())
                            .ok_or_else(|| format!("{model_name}: no type row {model}"))?;
                        sig.name = name.clone();
                        for p in &mut sig.params {
                            if p.ty.base == from {
                                p.ty.base = ct.to_string();
                            }
                        }
                        if sig.ret.base == from {
                            sig.ret.base = ct.to_string();
                        }
                        sig
                    }
                };
                let (params, key) = cxx_params(&sig)?;
                if !taken.contains(&key) {
                    s.push_str(&cxx_overload(generic, &sig, &params));
                    taken.push(key);
                }
            }
        }
    }
    s.push_str("}  /* extern \"C++\" */\n#endif /* __cplusplus */\n");
    Ok(s)
}

/// What a C11 generic selects on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The first argument alone (no context form).
    Plain,
    /// A `shmem_ctx_t` first argument selects among the context forms by the second argument;
    /// any other first argument among the plain forms.
    CtxOrPlain,
    /// The argument after the team.
    TeamFirst,
}

/// What every header with C11 generics defines once (guarded, since shmem.h and shmemx.h both
/// do): the first-argument helper and the parameter type of the no-match functions. A call whose
/// argument type has no routine selects the generic's no-match function, which takes a
/// `struct rshmem_no_routine_for_this_type` where the buffer goes: the call does not compile, and
/// the compiler names that function (after the generic) and the argument's type (GCC: "incompatible
/// type for argument 1 of 'shmem_put_no_routine_for_type'", "expected 'struct
/// rshmem_no_routine_for_this_type' but argument is of type 'float *'"; Clang: "passing 'float *'
/// to parameter of incompatible type"). They are never defined: no valid call selects them.
pub const GENERIC_PRELUDE: &str = "#ifndef RSHMEM_GENERIC_PRELUDE
#define RSHMEM_GENERIC_PRELUDE
#define RSHMEM_FIRST_ARG_(a, ...) a
#define RSHMEM_FIRST_ARG(...) RSHMEM_FIRST_ARG_(__VA_ARGS__, 0)
struct rshmem_no_routine_for_this_type {
    char unused;
};
#endif
";

/// The name of a generic's no-match function (its context form's with `ctx` true).
pub fn no_match(generic: &str, ctx: bool) -> String {
    if ctx {
        format!("{generic}_ctx_no_routine_for_type")
    } else {
        format!("{generic}_no_routine_for_type")
    }
}

/// One C11 generic: its no-match declarations, then the macro. `assoc_*` are `TYPE *: routine`.
pub fn generic_macro(
    generic: &str,
    doc: &str,
    shape: Shape,
    assoc_plain: &[String],
    assoc_ctx: &[String],
) -> String {
    let indent = "            ";
    let join = |v: &[String]| {
        v.iter()
            .map(|a| format!("{indent}{a},"))
            .collect::<Vec<_>>()
            .join(" \\\n")
    };
    let arg = "struct rshmem_no_routine_for_this_type";
    let plain_nm = no_match(generic, false);
    let ctx_nm = no_match(generic, true);
    match shape {
        Shape::TeamFirst => format!(
            "\n/* {doc}. */\nvoid {plain_nm}(shmem_team_t, {arg}, ...);\n#define {generic}(team, ...) \\\n    _Generic((RSHMEM_FIRST_ARG(__VA_ARGS__)), \\\n{} \\\n{indent}default: {plain_nm})(team, __VA_ARGS__)\n",
            join(assoc_plain),
        ),
        Shape::Plain => format!(
            "\n/* {doc}. */\nvoid {plain_nm}({arg}, ...);\n#define {generic}(first, ...) \\\n    _Generic((first), \\\n{} \\\n{indent}default: {plain_nm})(first, __VA_ARGS__)\n",
            join(assoc_plain),
        ),
        Shape::CtxOrPlain => format!(
            "\n/* {doc}. */\nvoid {plain_nm}({arg}, ...);\nvoid {ctx_nm}(shmem_ctx_t, {arg}, ...);\n#define {generic}(first, ...) \\\n    _Generic((first), \\\n        shmem_ctx_t: _Generic((RSHMEM_FIRST_ARG(__VA_ARGS__)), \\\n{} \\\n{indent}default: {ctx_nm}), \\\n        default: _Generic((first), \\\n{} \\\n{indent}default: {plain_nm}))(first, __VA_ARGS__)\n",
            join(assoc_ctx),
            join(assoc_plain),
        ),
    }
}

/// `shmem_sync`, the one name the spec gives two prototypes of different arity: the C11
/// `int shmem_sync(shmem_team_t team)` (= `shmem_team_sync`) and the deprecated active-set
/// `void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)`, which is the C
/// function. A variadic macro picks by the argument count (1 or 4; any other count selects a
/// non-callable expression and does not compile). Variadic macros exist in C99 and C++11, so the
/// selection is offered there too. `(shmem_sync)(...)` calls the function itself.
pub fn arity_selectors(spec: &Spec) -> Result<String, String> {
    for (name, kind) in [("shmem_sync", "generic"), ("shmem_sync", "function")] {
        spec.row(name, kind)?;
    }
    spec.function("shmem_team_sync")?;
    Ok("
/* `shmem_sync` (OpenSHMEM 1.6, shmem_sync.tex): by argument count, the team form (C11) or the
 * deprecated active-set function. */
#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || \\
    (defined(__cplusplus) && __cplusplus >= 201103L)
#define RSHMEM_SYNC_PICK_(a1, a2, a3, a4, name, ...) name
#define RSHMEM_SYNC_NONE_ 0
#define shmem_sync(...) \\
    RSHMEM_SYNC_PICK_(__VA_ARGS__, shmem_sync, RSHMEM_SYNC_NONE_, RSHMEM_SYNC_NONE_, \\
                      shmem_team_sync, RSHMEM_SYNC_NONE_)(__VA_ARGS__)
#endif
"
    .to_string())
}

/// The first TYPENAME a typed family expands to.
fn rows_first(spec: &Spec, family: &crate::families::Family) -> Result<String, String> {
    use crate::families::Types;
    let rows = match family.types {
        Types::Table(t) => spec.table(t)?.iter().collect(),
        Types::Subset(t, only) => spec.subset(t, only)?,
        Types::WithOp(t, op) => spec.with_op(t, op)?,
        _ => return Err(format!("{}: family is not typed", family.names[0])),
    };
    Ok(rows[0].typename.clone())
}

fn plain_first(pattern: &str, typename: &str) -> String {
    pattern.replace("TYPENAME", typename)
}

/// `c-tests/generated/types.h`: one X-macro per spec type table.
pub fn types_h(spec: &Spec) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "/* {} */",
        GENERATED.replace("openshmem-c-api.tsv", "openshmem-type-tables.tsv")
    )
    .unwrap();
    s.push_str(
        "/*
 * The spec's type tables as X-macros: RSHMEM_<TABLE>_TYPES(X) calls X(TYPE, TYPENAME) once per
 * row, e.g. X(unsigned long long, ulonglong); for the reduction tables RSHMEM_<TABLE>_<OP>_TYPES(X)
 * covers the rows with operation OP (SUM, AND, ...). Define X, expand the table, undefine X.
 */
#ifndef RSHMEM_C_TESTS_TYPES_H
#define RSHMEM_C_TESTS_TYPES_H
",
    );
    for (table, rows) in &spec.tables {
        let macro_name = format!(
            "RSHMEM_{}_TYPES",
            table.trim_end_matches("types").to_uppercase()
        );
        write!(s, "\n#define {macro_name}(X)").unwrap();
        for r in rows {
            write!(s, " \\\n    X({}, {})", r.c_type, r.typename).unwrap();
        }
        s.push('\n');
        // Reduction tables: one macro per operation, over the rows that have it.
        let mut ops: Vec<&str> = rows
            .iter()
            .flat_map(|r| r.ops.split(','))
            .filter(|o| !o.is_empty())
            .collect();
        ops.sort();
        ops.dedup();
        for op in ops {
            write!(
                s,
                "\n#define {}_{op}_TYPES(X)",
                macro_name.trim_end_matches("_TYPES")
            )
            .unwrap();
            for r in rows.iter().filter(|r| r.ops.split(',').any(|o| o == op)) {
                write!(s, " \\\n    X({}, {})", r.c_type, r.typename).unwrap();
            }
            s.push('\n');
        }
    }
    s.push_str("\n#endif /* RSHMEM_C_TESTS_TYPES_H */\n");
    s
}
