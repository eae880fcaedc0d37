//! Routines that other implementations' headers make programs call although the spec does not name
//! them, so that a binary built for Open MPI's OSHMEM 4.1 or Sandia OpenSHMEM 1.5 and run with
//! rshmem preloaded finds every call in rshmem (not in the foreign library, which is never
//! initialized): `c-tests/foreign/names/*.txt` list every API name each library exports, and
//! `tests/foreign_names.rs` checks that rshmem defines them all. The shells are generated like the
//! spec's, into `src/api/foreign.rs`, with their `pshmem_` twins. shmemx.h (generated here too)
//! declares the `shmemx_` ones with SOS's C11 generics, shmem.h those its own generics select
//! (`in_generic`), and `crates/apigen/c/foreign.h`, not installed, the rest and every twin;
//! `tests/exports.rs` counts them all with the installed headers.
//!
//! Two tables. `FOREIGN`: each routine is the same operation as a spec routine (its model), under
//! another name and, for some, another element type of the same kind (OSHMEM's signed bitwise
//! AMOs, SOS's pre-1.4 AMO names for the sized types). A model must be a function the generator
//! emits; the element type replaces the model's C type wherever the model's synopsis has it, so a
//! model is chosen whose type differs from `int` (the `pe` parameter) and from the other
//! parameters. `EXTENSIONS`: routines no spec routine models, each with its declaration as the
//! foreign header writes it and its own op (`src/ops/extension.rs`, `src/ops/cache.rs`), which
//! does what the foreign library does or stops the job naming the routine and why.

use crate::cgen::{self, Shape};
use crate::families::{Family, Types};
use crate::spec::{ApiRow, CParam, CSignature, CType, Spec};
use crate::{Func, rust_base};
use std::collections::BTreeSet;

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
    /// The spec's C11 generic of the model also selects these (its name patterns are the
    /// model's): they are declared in shmem.h, not in foreign.h.
    pub in_generic: bool,
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

/// SOS's `shmemx_` block-strided RMA types: the spec's RMA types, each its own model.
const SOS_RMA: &[(&str, &str, &str)] = &[
    ("float", "", "float"),
    ("double", "", "double"),
    ("longdouble", "", "longdouble"),
    ("char", "", "char"),
    ("schar", "", "schar"),
    ("short", "", "short"),
    ("int", "", "int"),
    ("long", "", "long"),
    ("longlong", "", "longlong"),
    ("uchar", "", "uchar"),
    ("ushort", "", "ushort"),
    ("uint", "", "uint"),
    ("ulong", "", "ulong"),
    ("ulonglong", "", "ulonglong"),
    ("int8", "", "int8"),
    ("int16", "", "int16"),
    ("int32", "", "int32"),
    ("int64", "", "int64"),
    ("uint8", "", "uint8"),
    ("uint16", "", "uint16"),
    ("uint32", "", "uint32"),
    ("uint64", "", "uint64"),
    ("size", "", "size"),
    ("ptrdiff", "", "ptrdiff"),
];
/// SOS's `shmemx_` block-strided sized RMA (`shmemx_ibput8`, ...): `TYPENAME` is the size.
const SOS_RMA_SIZES: &[(&str, &str, &str)] = &[
    ("8", "", "8"),
    ("16", "", "16"),
    ("32", "", "32"),
    ("64", "", "64"),
    ("128", "", "128"),
];
/// SOS's `shmemx_` scan types: the spec's scan types, each its own model.
const SOS_SCAN: &[(&str, &str, &str)] = &[
    ("char", "", "char"),
    ("schar", "", "schar"),
    ("short", "", "short"),
    ("int", "", "int"),
    ("long", "", "long"),
    ("longlong", "", "longlong"),
    ("uchar", "", "uchar"),
    ("ushort", "", "ushort"),
    ("uint", "", "uint"),
    ("ulong", "", "ulong"),
    ("ulonglong", "", "ulonglong"),
    ("int8", "", "int8"),
    ("int16", "", "int16"),
    ("int32", "", "int32"),
    ("int64", "", "int64"),
    ("uint8", "", "uint8"),
    ("uint16", "", "uint16"),
    ("uint32", "", "uint32"),
    ("uint64", "", "uint64"),
    ("size", "", "size"),
    ("ptrdiff", "", "ptrdiff"),
    ("float", "", "float"),
    ("double", "", "double"),
    ("longdouble", "", "longdouble"),
    ("complexd", "", "complexd"),
    ("complexf", "", "complexf"),
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
        in_generic: false,
    },
    Foreign {
        origin: OSHMEM,
        names: &["my_pe", "num_pes"],
        models: &["_my_pe", "_num_pes"],
        types: PLAIN,
        in_generic: false,
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
        in_generic: false,
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
        in_generic: false,
    },
    Foreign {
        origin: OSHMEM,
        names: &["shmemx_TYPENAME_wait"],
        models: &["shmem_TYPENAME_wait"],
        types: &[("int32", "int32_t", "long"), ("int64", "int64_t", "long")],
        in_generic: false,
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
        in_generic: false,
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
        in_generic: false,
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
        in_generic: false,
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
        in_generic: false,
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
        in_generic: false,
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
        in_generic: true,
    },
    Foreign {
        origin: OSHMEM,
        names: &["globalexit"],
        models: &["shmem_global_exit"],
        types: PLAIN,
        in_generic: false,
    },
    Foreign {
        origin: SOS,
        names: &[
            "shmemx_TYPENAME_ibput",
            "shmemx_ctx_TYPENAME_ibput",
            "shmemx_TYPENAME_ibget",
            "shmemx_ctx_TYPENAME_ibget",
        ],
        models: &[
            "shmem_TYPENAME_ibput",
            "shmem_ctx_TYPENAME_ibput",
            "shmem_TYPENAME_ibget",
            "shmem_ctx_TYPENAME_ibget",
        ],
        types: SOS_RMA,
        in_generic: false,
    },
    Foreign {
        origin: SOS,
        names: &[
            "shmemx_ibputTYPENAME",
            "shmemx_ctx_ibputTYPENAME",
            "shmemx_ibgetTYPENAME",
            "shmemx_ctx_ibgetTYPENAME",
        ],
        models: &[
            "shmem_ibputTYPENAME",
            "shmem_ctx_ibputTYPENAME",
            "shmem_ibgetTYPENAME",
            "shmem_ctx_ibgetTYPENAME",
        ],
        types: SOS_RMA_SIZES,
        in_generic: false,
    },
    Foreign {
        origin: SOS,
        names: &["shmemx_TYPENAME_sum_inscan", "shmemx_TYPENAME_sum_exscan"],
        models: &["shmem_TYPENAME_sum_inscan", "shmem_TYPENAME_sum_exscan"],
        types: SOS_SCAN,
        in_generic: false,
    },
    Foreign {
        origin: SOS,
        names: &["shmemx_heap_preinit", "shmemx_heap_preinit_thread"],
        models: &["shmem_init", "shmem_init_thread"],
        types: PLAIN,
        in_generic: false,
    },
];

/// A routine another implementation exports that no spec routine models: its declaration is
/// written here, as that implementation's header has it, and the op under `src/ops/` is its own.
pub struct Extension {
    /// Whose library exports it.
    pub origin: &'static str,
    /// The C declaration (without `;`) as the foreign header writes it.
    pub decl: &'static str,
    /// The synopsis the shell is generated from, where `decl` has a type the generator does not
    /// write (a function pointer, a foreign typedef of a pointer): the same ABI.
    pub abi: Option<&'static str>,
    /// The op, as `module::function` under `src/ops/`.
    pub op: &'static str,
}

const fn ext(origin: &'static str, decl: &'static str, op: &'static str) -> Extension {
    Extension {
        origin,
        decl,
        abi: None,
        op,
    }
}

const fn ext_abi(
    origin: &'static str,
    decl: &'static str,
    abi: &'static str,
    op: &'static str,
) -> Extension {
    Extension {
        origin,
        decl,
        abi: Some(abi),
        op,
    }
}

/// Both libraries (the spec's cache routines, removed in OpenSHMEM 1.5).
const BOTH: &str = "Open MPI OSHMEM 4.1 and Sandia OpenSHMEM 1.5";

pub const EXTENSIONS: &[Extension] = &[
    // The cache routines of OpenSHMEM 1.0-1.4 (the spec table's removed rows): nothing to do on
    // a cache-coherent machine (src/ops/cache.rs).
    ext(BOTH, "void shmem_clear_cache_inv(void)", "cache::whole"),
    ext(BOTH, "void shmem_set_cache_inv(void)", "cache::whole"),
    ext(BOTH, "void shmem_udcflush(void)", "cache::whole"),
    ext(
        BOTH,
        "void shmem_clear_cache_line_inv(void *dest)",
        "cache::line",
    ),
    ext(
        BOTH,
        "void shmem_set_cache_line_inv(void *dest)",
        "cache::line",
    ),
    ext(BOTH, "void shmem_udcflush_line(void *dest)", "cache::line"),
    // OSHMEM's shmemx.h.
    ext(
        OSHMEM,
        "void *shmemx_malloc_with_hint(size_t size, long hint)",
        "extension::malloc_with_hint",
    ),
    ext(
        OSHMEM,
        "void shmemx_alltoall_global_nb(void *dest, const void *source, size_t size, long *counter)",
        "extension::alltoall_global_nb",
    ),
    // SOS's shmemx.h.
    ext(SOS, "double shmemx_wtime(void)", "extension::wtime"),
    // SOS's Fortran SHMEMX_WTIME(): a REAL*8 function of no argument, the C ABI's.
    ext(SOS, "double shmemx_wtime_(void)", "extension::wtime"),
    ext_abi(
        SOS,
        "void shmemx_register_gettid(uint64_t (*gettid_fn)(void))",
        "void shmemx_register_gettid(void *gettid_fn)",
        "extension::register_gettid",
    ),
    ext(
        SOS,
        "void shmemx_heap_postinit(void)",
        "extension::heap_postinit",
    ),
    ext(
        SOS,
        "void shmemx_heap_create(void *base, size_t size, int device_type, int device_index)",
        "extension::heap_create",
    ),
    ext_abi(
        SOS,
        "void shmemx_getmem_ct(shmemx_ct_t ct, void *target, const void *source, size_t len, int pe)",
        "void shmemx_getmem_ct(void *ct, void *target, const void *source, size_t len, int pe)",
        "extension::ct_rma",
    ),
    ext_abi(
        SOS,
        "void shmemx_putmem_ct(shmemx_ct_t ct, void *target, const void *source, size_t len, int pe)",
        "void shmemx_putmem_ct(void *ct, void *target, const void *source, size_t len, int pe)",
        "extension::ct_rma",
    ),
    ext_abi(
        SOS,
        "void shmemx_ct_create(shmemx_ct_t *ct)",
        "void shmemx_ct_create(void *ct)",
        "extension::ct",
    ),
    ext_abi(
        SOS,
        "void shmemx_ct_free(shmemx_ct_t *ct)",
        "void shmemx_ct_free(void *ct)",
        "extension::ct",
    ),
    ext_abi(
        SOS,
        "long shmemx_ct_get(shmemx_ct_t ct)",
        "long shmemx_ct_get(void *ct)",
        "extension::ct",
    ),
    ext_abi(
        SOS,
        "void shmemx_ct_set(shmemx_ct_t ct, long value)",
        "void shmemx_ct_set(void *ct, long value)",
        "extension::ct_set",
    ),
    ext_abi(
        SOS,
        "void shmemx_ct_wait(shmemx_ct_t ct, long wait_for)",
        "void shmemx_ct_wait(void *ct, long wait_for)",
        "extension::ct_wait",
    ),
    ext(
        SOS,
        "void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "extension::pcntr",
    ),
    ext(
        SOS,
        "void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "extension::pcntr",
    ),
    ext(
        SOS,
        "void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "extension::pcntr",
    ),
    ext(
        SOS,
        "void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t *cntr_value)",
        "extension::pcntr",
    ),
    ext(
        SOS,
        "void shmemx_pcntr_get_completed_target(uint64_t *cntr_value)",
        "extension::pcntr_target",
    ),
    ext_abi(
        SOS,
        "void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr)",
        "void shmemx_pcntr_get_all(shmem_ctx_t ctx, void *pcntr)",
        "extension::pcntr_all",
    ),
];

/// The family every extension shell belongs to: module `foreign`, its own op.
fn extension_family(op: &'static str) -> &'static Family {
    Box::leak(Box::new(Family {
        module: "foreign",
        names: &[],
        types: Types::Plain,
        op,
        generic: None,
        via128: None,
        operator: None,
    }))
}

/// Expands the extension table: one function each, checked against the spec table where it has a
/// row of that name (the removed cache routines), and never a name rshmem emits otherwise.
pub fn expand_extensions<'a>(spec: &Spec, funcs: &[Func<'a>]) -> Result<Vec<Func<'a>>, String> {
    let mut out: Vec<Func<'a>> = Vec::new();
    for e in EXTENSIONS {
        let sig = CSignature::parse(e.abi.unwrap_or(e.decl))?;
        let decl_name = e.decl.split('(').next().unwrap_or_default();
        if !decl_name.ends_with(&sig.name) {
            return Err(format!("{}: abi synopsis names {}", e.decl, sig.name));
        }
        let name = sig.name.clone();
        if funcs.iter().chain(&out).any(|f| f.name() == name) {
            return Err(format!("{name} ({}): emitted twice", e.origin));
        }
        if let Ok(row) = spec.row(&name, "function")
            && row.c_signature != e.decl
        {
            return Err(format!(
                "{name}: the spec table's synopsis is {:?}, the extension table's {:?}",
                row.c_signature, e.decl
            ));
        }
        let row = ApiRow {
            name: name.clone(),
            kind: "function".into(),
            group: "extension".into(),
            c_signature: e.decl.to_string(),
            status: "current".into(),
            deprecated_since: String::new(),
            spec_file: format!("foreign: {}'s name; its own op `{}`", e.origin, e.op),
            notes: String::new(),
        };
        out.push(Func {
            row: Box::leak(Box::new(row)),
            sig,
            family: extension_family(e.op),
            elem: None,
            c_type: None,
        });
    }
    Ok(out)
}

/// The data symbols that foreign headers declare and rshmem defines (in `src/api/exports.rs`),
/// as C declarations.
pub const DATA: &[(&str, &str)] = &[(OSHMEM, "extern const shmem_ctx_t oshmem_ctx_default;")];

/// The (C type, TYPENAME, model TYPENAME) rows that the spec generic over the name patterns
/// `patterns` also selects (from the families marked `in_generic`).
pub fn generic_rows(patterns: &[&str]) -> Vec<(&'static str, &'static str, &'static str)> {
    FOREIGN
        .iter()
        .filter(|f| f.in_generic && patterns.iter().all(|p| f.names.contains(p)))
        .flat_map(|f| f.types.iter().map(|&(tn, ct, model)| (ct, tn, model)))
        .collect()
}

/// The names of the families marked `in_generic`: declared in shmem.h (the generics name them).
pub fn in_generic_names() -> BTreeSet<String> {
    FOREIGN
        .iter()
        .filter(|f| f.in_generic)
        .flat_map(|f| {
            f.names.iter().flat_map(|p| {
                f.types
                    .iter()
                    .map(move |(tn, _, _)| p.replace("TYPENAME", tn))
            })
        })
        .collect()
}

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
        "{ret}{sep}{}({})",
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
    let doc = "//! Names that other implementations export and their programs call (Open MPI OSHMEM 4.1's signed\n\
//! bitwise AMOs, `my_pe`, `num_pes`, `globalexit`, `shmemx_` sized routines, `shmemx_malloc_with_hint`\n\
//! and `shmemx_alltoall_global_nb`; Sandia OpenSHMEM 1.5's pre-1.4 AMO names, signed bitwise\n\
//! reductions, short array waits and tests and `shmemx_` signal, block-strided, scan, timer, heap,\n\
//! counting-put and counter routines; both libraries' cache routines), so that no call of their\n\
//! binaries run with rshmem preloaded reaches the foreign library. Each forwards to the op of the spec\n\
//! routine it names, or to its own op (`ops::extension`, `ops::cache`). shmemx.h declares the `shmemx_`\n\
//! ones, shmem.h those its generics select; see `crates/apigen/src/foreign.rs` and docs/ABI.md.\n//!\n";
    text.replacen("//! \n//!\n", doc, 1)
}

/// Declared in shmemx.h (as the foreign libraries' shmemx.h do): the `shmemx_` names.
fn in_shmemx_h(f: &Func) -> bool {
    f.name().starts_with("shmemx_")
}

/// The text of `crates/apigen/c/foreign.h`: the declarations of the foreign names that no
/// installed header declares, the twins of every foreign name, and the foreign data symbols.
pub fn header(funcs: &[Func]) -> String {
    let mut s = format!(
        "/* {} */\n/* Not installed: the names rshmem exports for binaries built against other implementations'\n * headers that rshmem's own headers do not declare (shmemx.h declares the shmemx_ ones, shmem.h\n * those its C11 generics select), and the pshmem twins of all (see crates/apigen/src/foreign.rs).\n * tests/exports.rs reads it. */\n#ifndef RSHMEM_FOREIGN_H\n#define RSHMEM_FOREIGN_H\n\n#include <shmem.h>\n#include <shmemx.h>\n\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n",
        crate::GENERATED
    );
    for (origin, decl) in DATA {
        s.push_str(&format!("/* {origin} */\n{decl}\n\n"));
    }
    let elsewhere = in_generic_names();
    for f in funcs {
        let sig = &f.row.c_signature;
        let origin = f.row.spec_file.trim_start_matches("foreign: ");
        if in_shmemx_h(f) || elsewhere.contains(f.name()) {
            s.push_str(&format!(
                "/* {origin} (declared in shmemx.h or shmem.h) */\n"
            ));
        } else {
            s.push_str(&format!("/* {origin} */\n{sig};\n"));
        }
        s.push_str(&format!(
            "{};\n\n",
            sig.replacen(&format!("{}(", f.name()), &format!("p{}(", f.name()), 1)
        ));
    }
    s.push_str("#ifdef __cplusplus\n}\n#endif\n\n#endif /* RSHMEM_FOREIGN_H */\n");
    s
}

/// The C11 generics of the foreign shmemx.h: (generic, plain pattern, context pattern, shape).
const X_GENERICS: &[(&str, &str, Option<&str>, Shape)] = &[
    (
        "shmemx_ibput",
        "shmemx_TYPENAME_ibput",
        Some("shmemx_ctx_TYPENAME_ibput"),
        Shape::CtxOrPlain,
    ),
    (
        "shmemx_ibget",
        "shmemx_TYPENAME_ibget",
        Some("shmemx_ctx_TYPENAME_ibget"),
        Shape::CtxOrPlain,
    ),
    (
        "shmemx_sum_inscan",
        "shmemx_TYPENAME_sum_inscan",
        None,
        Shape::TeamFirst,
    ),
    (
        "shmemx_sum_exscan",
        "shmemx_TYPENAME_sum_exscan",
        None,
        Shape::TeamFirst,
    ),
];

/// The types, constants and data of the foreign shmemx.h that rshmem's shmemx.h offers.
const SHMEMX_TYPES: &str = "/* Sandia OpenSHMEM 1.5's shmemx.h: its types, constants and team. */
#define HAVE_SHMEMX_WTIME
typedef char *shmemx_ct_t;
typedef struct {
    uint64_t pending_put;
    uint64_t pending_get;
    uint64_t completed_put;
    uint64_t completed_get;
    uint64_t target;
} shmemx_pcntr_t;
#define SHMEMX_EXTERNAL_HEAP_ZE 0
#define SHMEMX_EXTERNAL_HEAP_CUDA 1
/* SOS's hint: no barrier at the allocation. rshmem's allocation keeps its barrier, which a program
 * that uses this hint (and so synchronizes itself) cannot tell apart. */
#define SHMEMX_MALLOC_NO_BARRIER (1l << 2)
/* The team of the PEs on this node (SHMEM_TEAM_SHARED's members, as in SOS). */
extern const shmem_team_t SHMEMX_TEAM_NODE;

/* Open MPI OSHMEM 4.1's shmemx.h: the hints of shmemx_malloc_with_hint. Every block of rshmem's
 * heap serves every use, so each hint is accepted and changes nothing. */
enum {
    SHMEM_HINT_NONE = 0,
    SHMEM_HINT_LOW_LAT_MEM = 1 << 0,
    SHMEM_HINT_HIGH_BW_MEM = 1 << 1,
    SHMEM_HINT_NEAR_NIC_MEM = 1 << 2,
    SHMEM_HINT_DEVICE_GPU_MEM = 1 << 3,
    SHMEM_HINT_DEVICE_NIC_MEM = 1 << 4,
    SHMEM_HINT_PSYNC = 1 << 16,
    SHMEM_HINT_PWORK = 1 << 17,
    SHMEM_HINT_ATOMICS = 1 << 18
};
";

/// The text of `include/shmemx.h`: rshmem's own extensions, then the `shmemx_` names that rshmem
/// exports for programs written for Sandia OpenSHMEM's or Open MPI OSHMEM's shmemx.h, with SOS's
/// C11 generics.
pub fn shmemx_h(funcs: &[Func]) -> Result<String, String> {
    let mut s = format!(
        "/* {} */\n",
        crate::GENERATED.replace(
            "openshmem-c-api.tsv",
            "openshmem-c-api.tsv and the foreign tables of crates/apigen/src/foreign.rs"
        )
    );
    s.push_str(
        "/*
 * shmemx.h: extensions to the OpenSHMEM API.
 *
 * rshmem's own additions are named rshmemx_*. The shmemx_* routines are those of Sandia
 * OpenSHMEM 1.5's and Open MPI OSHMEM 4.1's shmemx.h that rshmem exports, so that programs
 * written for either compile and run here: each does what its library's does, or, where rshmem
 * cannot answer it truthfully (SOS's counting puts shmemx_ct_*, performance counters
 * shmemx_pcntr_*, device heaps shmemx_heap_create), stops the job with a message naming the
 * routine. docs/ABI.md (\"Foreign names\") lists them.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>
#include <stdint.h>

#ifdef __cplusplus
extern \"C\" {
#endif

/* Prints what the oshinfo command prints (version, build, UCX, launchers, limits, every SHMEM_*
 * variable with its default and current value) to standard output, as `key:value` lines when
 * parsable is non-zero. Needs no shmem_init. Returns 0, or -1 when standard output fails. */
int rshmemx_info_print(int parsable);

",
    );
    s.push_str(SHMEMX_TYPES);
    let (complex, plain): (Vec<&Func>, Vec<&Func>) = funcs
        .iter()
        .filter(|f| in_shmemx_h(f))
        .partition(|f| f.is_complex());
    s.push('\n');
    for f in plain {
        s.push_str(&format!(
            "/* {} */\n{};\n",
            f.row.spec_file.trim_start_matches("foreign: "),
            f.row.c_signature
        ));
    }
    s.push_str("\n#ifndef __cplusplus /* C++ has no _Complex */\n");
    for f in complex {
        s.push_str(&format!(
            "/* {} */\n{};\n",
            f.row.spec_file.trim_start_matches("foreign: "),
            f.row.c_signature
        ));
    }
    s.push_str("#endif\n\n#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n");

    // C11 generics, SOS's.
    s.push_str(
        "\n/* Sandia OpenSHMEM 1.5's C11 generics of its shmemx.h. */\n#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)\n\n",
    );
    s.push_str(cgen::GENERIC_PRELUDE);
    for (generic, plain, ctx, shape) in X_GENERICS {
        let family = FOREIGN
            .iter()
            .find(|f| f.names.contains(plain))
            .ok_or_else(|| format!("{generic}: no foreign family has {plain}"))?;
        let mut seen: Vec<&str> = Vec::new();
        let (mut assoc_plain, mut assoc_ctx) = (Vec::new(), Vec::new());
        for (tn, _, _) in family.types {
            for (pattern, out) in [(Some(*plain), &mut assoc_plain), (*ctx, &mut assoc_ctx)] {
                let Some(pattern) = pattern else { continue };
                let name = pattern.replace("TYPENAME", tn);
                let f = funcs
                    .iter()
                    .find(|f| f.name() == name)
                    .ok_or_else(|| format!("{generic}: {name} is not emitted"))?;
                let c_type = cgen::standard_type(
                    f.c_type
                        .as_deref()
                        .ok_or_else(|| format!("{name}: no element type"))?,
                )?;
                if pattern == *plain {
                    if seen.contains(&c_type) {
                        break;
                    }
                    seen.push(c_type);
                }
                let buf = f
                    .sig
                    .params
                    .iter()
                    .find(|p| p.ty.base != "shmem_ctx_t" && p.ty.base != "shmem_team_t")
                    .ok_or_else(|| format!("{name}: no buffer parameter"))?;
                if buf.ty.is_const {
                    out.push(format!("const {c_type} *: {name}"));
                }
                out.push(format!("{c_type} *: {name}"));
            }
        }
        let doc = format!("`{generic}` ({SOS}'s shmemx.h)");
        s.push_str(&cgen::generic_macro(
            generic,
            &doc,
            *shape,
            &assoc_plain,
            &assoc_ctx,
        ));
    }
    for op in ["set", "add"] {
        s.push_str(&format!(
            "\n/* `shmemx_signal_{op}` ({SOS}'s shmemx.h). */\n#define shmemx_signal_{op}(first, ...) \\\n    _Generic((first), \\\n        shmem_ctx_t: shmemx_ctx_signal_{op}, \\\n        default: shmemx_signal_{op})(first, __VA_ARGS__)\n"
        ));
    }
    s.push_str("\n#endif /* C11 */\n");

    // C++: SOS's overloads of the same generics.
    s.push_str(
        "\n/* C++: Sandia OpenSHMEM 1.5's overloads of the same generics. */\n#if defined(__cplusplus)\nextern \"C++\" {\n",
    );
    for (generic, plain, ctx, _) in X_GENERICS {
        let mut taken: Vec<Vec<String>> = Vec::new();
        for pattern in [Some(*plain), *ctx].into_iter().flatten() {
            for f in funcs.iter().filter(|f| {
                f.name()
                    .starts_with(pattern.split("TYPENAME").next().unwrap_or_default())
                    && f.name()
                        .ends_with(pattern.split("TYPENAME").last().unwrap_or_default())
                    && !f.is_complex()
            }) {
                let (params, key) = cgen::cxx_params(&f.sig)?;
                if !taken.contains(&key) {
                    s.push_str(&cgen::cxx_overload(generic, &f.sig, &params));
                    taken.push(key);
                }
            }
        }
    }
    s.push_str("}  /* extern \"C++\" */\n#endif /* __cplusplus */\n\n#endif /* SHMEMX_H */\n");
    Ok(s)
}
