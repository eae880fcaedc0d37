//! Routines that other implementations' headers make programs call although the spec does not name
//! them, so that a binary built for Open MPI's OSHMEM 4.1 or Sandia OpenSHMEM 1.5 and run with
//! rshmem preloaded finds every call in rshmem (not in the foreign library, which is never
//! initialized). Each is the same operation as a spec routine (its model), under another name
//! and, for some, another element type of the same kind (OSHMEM's signed bitwise AMOs, SOS's
//! pre-1.4 AMO names for the sized types). The shells are generated like the spec's, into
//! `src/api/foreign.rs`, with their `pshmem_` twins; their declarations go to
//! `crates/apigen/c/foreign.h`, which is not installed (rshmem's own headers do not offer these
//! names) and which `tests/exports.rs` counts with the installed headers.
//!
//! A model must be a function the generator emits; the element type replaces the model's C type
//! wherever the model's synopsis has it, so a model is chosen whose type differs from `int` (the
//! `pe` parameter) and from the other parameters.

use crate::spec::{CParam, CSignature, CType};
use crate::{Func, rust_base};

/// A family of foreign names.
pub struct Foreign {
    /// Whose header declares them.
    pub origin: &'static str,
    /// Name patterns (with `TYPENAME`, or plain).
    pub names: &'static [&'static str],
    /// The spec pattern of each name, position for position.
    pub models: &'static [&'static str],
    /// (foreign TYPENAME, its C type, the model's TYPENAME); one empty row for plain names.
    pub types: &'static [(&'static str, &'static str, &'static str)],
}

const OSHMEM: &str = "Open MPI OSHMEM 4.1";
const SOS: &str = "Sandia OpenSHMEM 1.5";

/// Plain names: no type.
const PLAIN: &[(&str, &str, &str)] = &[("", "", "")];
/// OSHMEM's signed bitwise AMO types, modelled on `unsigned long`.
const SIGNED_BITWISE: &[(&str, &str, &str)] = &[
    ("int", "int", "ulong"),
    ("long", "long", "ulong"),
    ("longlong", "long long", "ulong"),
];
/// OSHMEM's `shmemx_` sized AMO types (same TYPENAMEs as the spec's).
const X_INT: &[(&str, &str, &str)] =
    &[("int32", "int32_t", "int32"), ("int64", "int64_t", "int64")];
const X_BITS: &[(&str, &str, &str)] = &[
    ("int32", "int32_t", "int32"),
    ("int64", "int64_t", "int64"),
    ("uint32", "uint32_t", "uint32"),
    ("uint64", "uint64_t", "uint64"),
];
/// OSHMEM's `shmemx_` sized reductions, modelled on the standard type of each size.
const X_REDUCE: &[(&str, &str, &str)] = &[
    ("int16", "int16_t", "short"),
    ("int32", "int32_t", "int"),
    ("int64", "int64_t", "long"),
];
/// SOS's pre-1.4 AMO names beyond the spec's types, modelled on `long`.
const SOS_OLD_AMO: &[(&str, &str, &str)] = &[
    ("uint", "unsigned int", "long"),
    ("ulong", "unsigned long", "long"),
    ("ulonglong", "unsigned long long", "long"),
    ("int32", "int32_t", "long"),
    ("int64", "int64_t", "long"),
    ("uint32", "uint32_t", "long"),
    ("uint64", "uint64_t", "long"),
    ("size", "size_t", "long"),
    ("ptrdiff", "ptrdiff_t", "long"),
];
/// SOS's `short`/`unsigned short` array waits and tests (the spec keeps `short` only for the
/// deprecated single-variable forms), modelled on `long`.
const SOS_SHORT_P2P: &[(&str, &str, &str)] = &[
    ("short", "short", "long"),
    ("ushort", "unsigned short", "long"),
];
/// SOS's signed bitwise team reductions, modelled on the unsigned type of each size.
const SOS_SIGNED_REDUCE: &[(&str, &str, &str)] = &[
    ("short", "short", "ushort"),
    ("int", "int", "uint"),
    ("long", "long", "ulong"),
    ("longlong", "long long", "ulonglong"),
];

pub const FOREIGN: &[Foreign] = &[
    Foreign {
        origin: OSHMEM,
        names: &[
            "shmem_TYPENAME_atomic_and",
            "shmem_ctx_TYPENAME_atomic_and",
            "shmem_TYPENAME_atomic_or",
            "shmem_ctx_TYPENAME_atomic_or",
            "shmem_TYPENAME_atomic_xor",
            "shmem_ctx_TYPENAME_atomic_xor",
            "shmem_TYPENAME_atomic_fetch_and",
            "shmem_ctx_TYPENAME_atomic_fetch_and",
            "shmem_TYPENAME_atomic_fetch_or",
            "shmem_ctx_TYPENAME_atomic_fetch_or",
            "shmem_TYPENAME_atomic_fetch_xor",
            "shmem_ctx_TYPENAME_atomic_fetch_xor",
        ],
        models: &[
            "shmem_TYPENAME_atomic_and",
            "shmem_ctx_TYPENAME_atomic_and",
            "shmem_TYPENAME_atomic_or",
            "shmem_ctx_TYPENAME_atomic_or",
            "shmem_TYPENAME_atomic_xor",
            "shmem_ctx_TYPENAME_atomic_xor",
            "shmem_TYPENAME_atomic_fetch_and",
            "shmem_ctx_TYPENAME_atomic_fetch_and",
            "shmem_TYPENAME_atomic_fetch_or",
            "shmem_ctx_TYPENAME_atomic_fetch_or",
            "shmem_TYPENAME_atomic_fetch_xor",
            "shmem_ctx_TYPENAME_atomic_fetch_xor",
        ],
        types: SIGNED_BITWISE,
    },
    Foreign {
        origin: OSHMEM,
        names: &["my_pe", "num_pes"],
        models: &["_my_pe", "_num_pes"],
        types: PLAIN,
    },
    Foreign {
        origin: OSHMEM,
        names: &["shmemx_TYPENAME_p", "shmemx_TYPENAME_g"],
        models: &["shmem_TYPENAME_p", "shmem_TYPENAME_g"],
        types: &[
            ("int16", "int16_t", "int16"),
            ("int32", "int32_t", "int32"),
            ("int64", "int64_t", "int64"),
        ],
    },
    Foreign {
        origin: OSHMEM,
        names: &[
            "shmemx_TYPENAME_swap",
            "shmemx_TYPENAME_set",
            "shmemx_TYPENAME_cswap",
            "shmemx_TYPENAME_fadd",
            "shmemx_TYPENAME_fetch",
            "shmemx_TYPENAME_finc",
            "shmemx_TYPENAME_add",
            "shmemx_TYPENAME_inc",
            "shmemx_TYPENAME_wait_until",
        ],
        models: &[
            "shmem_TYPENAME_atomic_swap",
            "shmem_TYPENAME_atomic_set",
            "shmem_TYPENAME_atomic_compare_swap",
            "shmem_TYPENAME_atomic_fetch_add",
            "shmem_TYPENAME_atomic_fetch",
            "shmem_TYPENAME_atomic_fetch_inc",
            "shmem_TYPENAME_atomic_add",
            "shmem_TYPENAME_atomic_inc",
            "shmem_TYPENAME_wait_until",
        ],
        types: X_INT,
    },
    Foreign {
        origin: OSHMEM,
        names: &["shmemx_TYPENAME_wait"],
        models: &["shmem_TYPENAME_wait"],
        types: &[("int32", "int32_t", "long"), ("int64", "int64_t", "long")],
    },
    Foreign {
        origin: OSHMEM,
        names: &[
            "shmemx_TYPENAME_atomic_and",
            "shmemx_TYPENAME_atomic_or",
            "shmemx_TYPENAME_atomic_xor",
            "shmemx_TYPENAME_atomic_fetch_and",
            "shmemx_TYPENAME_atomic_fetch_or",
            "shmemx_TYPENAME_atomic_fetch_xor",
        ],
        models: &[
            "shmem_TYPENAME_atomic_and",
            "shmem_TYPENAME_atomic_or",
            "shmem_TYPENAME_atomic_xor",
            "shmem_TYPENAME_atomic_fetch_and",
            "shmem_TYPENAME_atomic_fetch_or",
            "shmem_TYPENAME_atomic_fetch_xor",
        ],
        types: X_BITS,
    },
    Foreign {
        origin: OSHMEM,
        names: &[
            "shmemx_TYPENAME_sum_to_all",
            "shmemx_TYPENAME_prod_to_all",
            "shmemx_TYPENAME_and_to_all",
            "shmemx_TYPENAME_or_to_all",
            "shmemx_TYPENAME_xor_to_all",
            "shmemx_TYPENAME_max_to_all",
            "shmemx_TYPENAME_min_to_all",
        ],
        models: &[
            "shmem_TYPENAME_sum_to_all",
            "shmem_TYPENAME_prod_to_all",
            "shmem_TYPENAME_and_to_all",
            "shmem_TYPENAME_or_to_all",
            "shmem_TYPENAME_xor_to_all",
            "shmem_TYPENAME_max_to_all",
            "shmem_TYPENAME_min_to_all",
        ],
        types: X_REDUCE,
    },
    Foreign {
        origin: SOS,
        names: &[
            "shmem_TYPENAME_add",
            "shmem_TYPENAME_cswap",
            "shmem_TYPENAME_fadd",
            "shmem_TYPENAME_fetch",
            "shmem_TYPENAME_finc",
            "shmem_TYPENAME_inc",
            "shmem_TYPENAME_set",
            "shmem_TYPENAME_swap",
        ],
        models: &[
            "shmem_TYPENAME_add",
            "shmem_TYPENAME_cswap",
            "shmem_TYPENAME_fadd",
            "shmem_TYPENAME_fetch",
            "shmem_TYPENAME_finc",
            "shmem_TYPENAME_inc",
            "shmem_TYPENAME_set",
            "shmem_TYPENAME_swap",
        ],
        types: SOS_OLD_AMO,
    },
    Foreign {
        origin: SOS,
        names: &[
            "shmem_TYPENAME_and_reduce",
            "shmem_TYPENAME_or_reduce",
            "shmem_TYPENAME_xor_reduce",
        ],
        models: &[
            "shmem_TYPENAME_and_reduce",
            "shmem_TYPENAME_or_reduce",
            "shmem_TYPENAME_xor_reduce",
        ],
        types: SOS_SIGNED_REDUCE,
    },
    Foreign {
        origin: SOS,
        names: &[
            "shmemx_signal_add",
            "shmemx_ctx_signal_add",
            "shmemx_signal_set",
            "shmemx_ctx_signal_set",
        ],
        models: &[
            "shmem_signal_add",
            "shmem_ctx_signal_add",
            "shmem_signal_set",
            "shmem_ctx_signal_set",
        ],
        types: PLAIN,
    },
    Foreign {
        origin: SOS,
        names: &[
            "shmem_TYPENAME_wait_until_all",
            "shmem_TYPENAME_wait_until_any",
            "shmem_TYPENAME_wait_until_some",
            "shmem_TYPENAME_wait_until_all_vector",
            "shmem_TYPENAME_wait_until_any_vector",
            "shmem_TYPENAME_wait_until_some_vector",
            "shmem_TYPENAME_test_all",
            "shmem_TYPENAME_test_any",
            "shmem_TYPENAME_test_some",
            "shmem_TYPENAME_test_all_vector",
            "shmem_TYPENAME_test_any_vector",
            "shmem_TYPENAME_test_some_vector",
        ],
        models: &[
            "shmem_TYPENAME_wait_until_all",
            "shmem_TYPENAME_wait_until_any",
            "shmem_TYPENAME_wait_until_some",
            "shmem_TYPENAME_wait_until_all_vector",
            "shmem_TYPENAME_wait_until_any_vector",
            "shmem_TYPENAME_wait_until_some_vector",
            "shmem_TYPENAME_test_all",
            "shmem_TYPENAME_test_any",
            "shmem_TYPENAME_test_some",
            "shmem_TYPENAME_test_all_vector",
            "shmem_TYPENAME_test_any_vector",
            "shmem_TYPENAME_test_some_vector",
        ],
        types: SOS_SHORT_P2P,
    },
];

/// The data symbols that foreign headers declare and rshmem defines (in `src/runtime/handle.rs`),
/// as C declarations.
pub const DATA: &[(&str, &str)] = &[
    (OSHMEM, "extern const shmem_ctx_t oshmem_ctx_default;"),
    (SOS, "extern const shmem_team_t SHMEMX_TEAM_NODE;"),
];

fn with_type(ty: &CType, from: &str, to: &str) -> CType {
    let mut t = ty.clone();
    if t.base == from {
        t.base = to.to_string();
    }
    t
}

fn render(sig: &CSignature) -> String {
    let params: Vec<String> = sig
        .params
        .iter()
        .map(|p| {
            let ty = p.ty.to_c();
            if ty.ends_with('*') {
                format!("{ty}{}", p.name)
            } else {
                format!("{ty} {}", p.name)
            }
        })
        .collect();
    let ret = sig.ret.to_c();
    let sep = if ret.ends_with('*') { "" } else { " " };
    format!(
        "{ret}{sep}{}({});",
        sig.name,
        if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        }
    )
}

/// Expands the foreign families against the emitted spec functions `funcs`: each foreign
/// function is its model's `Func` with the foreign name, element type and synopsis.
pub fn expand<'a>(funcs: &[Func<'a>]) -> Result<Vec<Func<'a>>, String> {
    let mut out: Vec<Func<'a>> = Vec::new();
    for family in FOREIGN {
        if family.names.len() != family.models.len() {
            return Err(format!(
                "{}: names and models differ in length",
                family.names[0]
            ));
        }
        for (pattern, model) in family.names.iter().zip(family.models) {
            for (tn, ct, model_tn) in family.types {
                let name = pattern.replace("TYPENAME", tn);
                let model_name = model.replace("TYPENAME", model_tn);
                if funcs.iter().any(|f| f.name() == name) {
                    return Err(format!(
                        "{name} ({}) is a spec name rshmem emits",
                        family.origin
                    ));
                }
                if out.iter().any(|f| f.name() == name) {
                    return Err(format!("{name}: emitted twice"));
                }
                let m = funcs
                    .iter()
                    .find(|f| f.name() == model_name)
                    .ok_or_else(|| format!("{name}: model {model_name} is not emitted"))?;
                let mut sig = m.sig.clone();
                sig.name = name.clone();
                let mut c_type = m.c_type.clone();
                let mut elem = m.elem.clone();
                if !ct.is_empty() {
                    let from = m
                        .c_type
                        .clone()
                        .ok_or_else(|| format!("{name}: model {model_name} has no type"))?;
                    sig.ret = with_type(&sig.ret, &from, ct);
                    sig.params = sig
                        .params
                        .iter()
                        .map(|p| CParam {
                            name: p.name.clone(),
                            ty: with_type(&p.ty, &from, ct),
                        })
                        .collect();
                    c_type = Some(ct.to_string());
                    elem = Some(
                        rust_base(ct)
                            .ok_or_else(|| format!("{name}: no Rust type for {ct}"))?
                            .to_string(),
                    );
                }
                let mut row = m.row.clone();
                row.name = name.clone();
                row.c_signature = render(&sig);
                row.status = "current".into();
                row.spec_file = format!("foreign: {}'s name; as `{model_name}`", family.origin);
                out.push(Func {
                    row: Box::leak(Box::new(row)),
                    sig,
                    family: m.family,
                    elem,
                    c_type,
                });
            }
        }
    }
    Ok(out)
}

/// The text of `src/api/foreign.rs` from the module `rustgen` wrote for `funcs`: the module
/// paragraph says whose names these are (foreign.h names the header of each).
pub fn module_doc(text: &str) -> String {
    let doc = "//! Names that other implementations' headers route ordinary calls to (Open MPI OSHMEM 4.1's signed\n\
//! bitwise AMOs, `my_pe`, `num_pes` and `shmemx_` sized routines; Sandia OpenSHMEM 1.5's pre-1.4 AMO\n\
//! names, signed bitwise reductions and `shmemx_` signal routines), so that their binaries run\n\
//! with rshmem preloaded. Each forwards to the op of the spec routine it names. Not declared in\n\
//! rshmem's installed headers; see `crates/apigen/src/foreign.rs` and docs/ABI.md.\n//!\n";
    text.replacen("//! \n//!\n", doc, 1)
}

/// The text of `crates/apigen/c/foreign.h`: the declarations of the foreign names and their
/// twins, and the foreign data symbols.
pub fn header(funcs: &[Func]) -> String {
    let mut s = format!(
        "/* {} */\n/* Not installed: the names rshmem exports for binaries built against other implementations'\n * headers (see crates/apigen/src/foreign.rs). tests/exports.rs reads it. */\n#ifndef RSHMEM_FOREIGN_H\n#define RSHMEM_FOREIGN_H\n\n#include <shmem.h>\n\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n",
        crate::GENERATED
    );
    for (origin, decl) in DATA {
        s.push_str(&format!("/* {origin} */\n{decl}\n\n"));
    }
    for f in funcs {
        let sig = &f.row.c_signature;
        s.push_str(&format!(
            "/* {} */\n{sig}\n",
            f.row.spec_file.trim_start_matches("foreign: ")
        ));
        s.push_str(&format!(
            "{}\n\n",
            sig.replacen(&format!("{}(", f.name()), &format!("p{}(", f.name()), 1)
        ));
    }
    s.push_str("#ifdef __cplusplus\n}\n#endif\n\n#endif /* RSHMEM_FOREIGN_H */\n");
    s
}
