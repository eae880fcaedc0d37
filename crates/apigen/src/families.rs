//! What the generator emits: one description per function family. A family names its C functions
//! (patterns with `TYPENAME` or `SIZE`), the type table or sizes that expand them, the Rust module the
//! shells go to, and the op in `src/ops/` that does the work. Signatures are not written here: they
//! come from the spec's synopses in the vendored TSV.
//!
//! Only families whose op exists are listed: a shell is never a stub.

/// How a family's name patterns expand.
#[derive(Clone, Copy, Debug)]
pub enum Types {
    /// The names are used as they are.
    Plain,
    /// `TYPENAME` expands over a spec type table; the element type is the table's C type.
    Table(&'static str),
    /// As `Table`, restricted to the rows whose `ops` include the given operation (`SUM`, `AND`).
    WithOp(&'static str, &'static str),
    /// As `Table`, restricted to the listed TYPENAMEs (the deprecated AMO names cover a few types).
    Subset(&'static str, &'static [&'static str]),
    /// `SIZE` expands over (name part, Rust element type of the `void *` buffers).
    Sized(&'static [(&'static str, &'static str)]),
}

/// A family of C functions that share one op.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// The file under `src/api/` (without `.rs`).
    pub module: &'static str,
    /// Name patterns; each expansion must be a function of the c-api TSV.
    pub names: &'static [&'static str],
    pub types: Types,
    /// The op, as `module::function` under `src/ops/`.
    pub op: &'static str,
    /// For typed families: the C11 generic (kind `generic` in the TSV) that selects among them.
    pub generic: Option<&'static str>,
    /// For typed families: the sized routine (`put128`, ...) that the `long double` forms forward to
    /// in the generated C file (Rust has no `long double`).
    pub via128: Option<&'static str>,
    /// The argument the shells pass for the op's last parameter `op`, which the C synopsis lacks:
    /// the operator of a family of one op (`reduce::Bitwise::and`, `amo::Rmw::Add`).
    pub operator: Option<&'static str>,
}

impl Family {
    /// The family whose shells pass `operator` as the op's `op` argument.
    const fn with(self, operator: &'static str) -> Family {
        Family {
            operator: Some(operator),
            ..self
        }
    }
}

/// Sizes of `shmem_putSIZE`, `shmem_getSIZE` and their non-blocking forms (`mem` counts bytes).
pub const SIZES_MEM: &[(&str, &str)] = &[
    ("8", "u8"),
    ("16", "u16"),
    ("32", "u32"),
    ("64", "u64"),
    ("128", "Bits128"),
    ("mem", "u8"),
];
/// Sizes of the strided routines (there is no `iputmem`).
pub const SIZES: &[(&str, &str)] = &[
    ("8", "u8"),
    ("16", "u16"),
    ("32", "u32"),
    ("64", "u64"),
    ("128", "Bits128"),
];

const fn plain(module: &'static str, names: &'static [&'static str], op: &'static str) -> Family {
    Family {
        module,
        names,
        types: Types::Plain,
        op,
        generic: None,
        via128: None,
        operator: None,
    }
}

const fn typed(
    module: &'static str,
    names: &'static [&'static str],
    op: &'static str,
    generic: &'static str,
    via128: &'static str,
) -> Family {
    Family {
        module,
        names,
        types: Types::Table("stdrmatypes"),
        op,
        generic: Some(generic),
        via128: Some(via128),
        operator: None,
    }
}

const fn sized(
    module: &'static str,
    names: &'static [&'static str],
    sizes: &'static [(&'static str, &'static str)],
    op: &'static str,
) -> Family {
    Family {
        module,
        names,
        types: Types::Sized(sizes),
        op,
        generic: None,
        via128: None,
        operator: None,
    }
}

/// A typed atomic family over a spec type table (or part of one), with its C11 generic.
const fn atomic(
    module: &'static str,
    names: &'static [&'static str],
    types: Types,
    op: &'static str,
    generic: &'static str,
) -> Family {
    Family {
        module,
        names,
        types,
        op,
        generic: Some(generic),
        via128: None,
        operator: None,
    }
}

/// A typed collective family over a spec type table, with its C11 generic if it has one (no
/// 128-bit forwarding: the `long double` forms are Rust shells over a 16-byte element).
const fn coll(
    module: &'static str,
    names: &'static [&'static str],
    types: Types,
    op: &'static str,
    generic: Option<&'static str>,
) -> Family {
    Family {
        module,
        names,
        types,
        op,
        generic,
        via128: None,
        operator: None,
    }
}

const RMA: Types = Types::Table("stdrmatypes");
const MEM: &[(&str, &str)] = &[("mem", "u8")];
const BITS_32_64: &[(&str, &str)] = &[("32", "u32"), ("64", "u64")];

const STDAMO: Types = Types::Table("stdamotypes");
const EXTAMO: Types = Types::Table("extamotypes");
const BITAMO: Types = Types::Table("bitamotypes");
/// The types of the deprecated (pre-1.4) standard AMO names.
const OLD_STDAMO: Types = Types::Subset("stdamotypes", &["int", "long", "longlong"]);
/// The types of the deprecated (pre-1.4) extended AMO names.
const OLD_EXTAMO: Types = Types::Subset(
    "extamotypes",
    &["float", "double", "int", "long", "longlong"],
);

/// A plain family whose C11 generic selects between its two names by the first argument:
/// the second name (the context form) when it is a `shmem_ctx_t`, else the first.
const fn plain_generic(
    module: &'static str,
    names: &'static [&'static str],
    op: &'static str,
    generic: &'static str,
) -> Family {
    Family {
        module,
        names,
        types: Types::Plain,
        op,
        generic: Some(generic),
        via128: None,
        operator: None,
    }
}

/// A point-to-point family: typed, no context form, with its C11 generic if it has one.
const fn p2p(
    names: &'static [&'static str],
    types: Types,
    op: &'static str,
    generic: Option<&'static str>,
) -> Family {
    Family {
        module: "p2p",
        names,
        types,
        op,
        generic,
        via128: None,
        operator: None,
    }
}

/// The types of the deprecated short/ushort point-to-point routines.
const OLD_P2P_SHORT: Types = Types::Subset("p2psynctypes", &["short", "ushort"]);
/// The types of the deprecated `shmem_TYPENAME_wait`.
const OLD_P2P_WAIT: Types = Types::Subset("p2psynctypes", &["short", "int", "long", "longlong"]);

/// Every emitted family, in output order.
pub const FAMILIES: &[Family] = &[
    // Library setup, exit and query, thread support (§9.1, §9.2).
    plain("setup", &["shmem_init"], "setup::init"),
    plain("profiling", &["shmem_pcontrol"], "setup::pcontrol"),
    plain("setup", &["shmem_init_thread"], "setup::init_thread"),
    plain("setup", &["shmem_query_thread"], "setup::query_thread"),
    plain(
        "setup",
        &["shmem_query_initialized"],
        "setup::query_initialized",
    ),
    plain("setup", &["shmem_finalize"], "setup::finalize"),
    plain("setup", &["shmem_global_exit"], "setup::global_exit"),
    plain("setup", &["shmem_my_pe", "_my_pe"], "setup::my_pe"),
    plain("setup", &["shmem_n_pes", "_num_pes"], "setup::n_pes"),
    plain("setup", &["shmem_pe_accessible"], "setup::pe_accessible"),
    plain(
        "setup",
        &["shmem_addr_accessible"],
        "setup::addr_accessible",
    ),
    plain("setup", &["shmem_ptr"], "setup::ptr"),
    plain(
        "setup",
        &["shmem_info_get_version"],
        "setup::info_get_version",
    ),
    plain("setup", &["shmem_info_get_name"], "setup::info_get_name"),
    plain("setup", &["start_pes"], "setup::start_pes"),
    // Symmetric heap (§9.3).
    plain("memory", &["shmem_malloc", "shmalloc"], "memory::malloc"),
    plain("memory", &["shmem_calloc"], "memory::calloc"),
    plain("memory", &["shmem_align", "shmemalign"], "memory::align"),
    plain("memory", &["shmem_realloc", "shrealloc"], "memory::realloc"),
    plain(
        "memory",
        &["shmem_malloc_with_hints"],
        "memory::malloc_with_hints",
    ),
    plain("memory", &["shmem_free", "shfree"], "memory::free"),
    // Remote memory access.
    typed(
        "rma",
        &["shmem_TYPENAME_put", "shmem_ctx_TYPENAME_put"],
        "rma::put",
        "shmem_put",
        "put128",
    ),
    sized(
        "rma",
        &["shmem_putSIZE", "shmem_ctx_putSIZE"],
        SIZES_MEM,
        "rma::put",
    ),
    typed(
        "rma",
        &["shmem_TYPENAME_p", "shmem_ctx_TYPENAME_p"],
        "rma::p",
        "shmem_p",
        "put128",
    ),
    typed(
        "rma",
        &["shmem_TYPENAME_iput", "shmem_ctx_TYPENAME_iput"],
        "rma::iput",
        "shmem_iput",
        "iput128",
    ),
    sized(
        "rma",
        &["shmem_iputSIZE", "shmem_ctx_iputSIZE"],
        SIZES,
        "rma::iput",
    ),
    typed(
        "rma",
        &["shmem_TYPENAME_ibput", "shmem_ctx_TYPENAME_ibput"],
        "rma::ibput",
        "shmem_ibput",
        "ibput128",
    ),
    sized(
        "rma",
        &["shmem_ibputSIZE", "shmem_ctx_ibputSIZE"],
        SIZES,
        "rma::ibput",
    ),
    typed(
        "rma",
        &["shmem_TYPENAME_get", "shmem_ctx_TYPENAME_get"],
        "rma::get",
        "shmem_get",
        "get128",
    ),
    sized(
        "rma",
        &["shmem_getSIZE", "shmem_ctx_getSIZE"],
        SIZES_MEM,
        "rma::get",
    ),
    typed(
        "rma",
        &["shmem_TYPENAME_g", "shmem_ctx_TYPENAME_g"],
        "rma::g",
        "shmem_g",
        "get128",
    ),
    typed(
        "rma",
        &["shmem_TYPENAME_iget", "shmem_ctx_TYPENAME_iget"],
        "rma::iget",
        "shmem_iget",
        "iget128",
    ),
    sized(
        "rma",
        &["shmem_igetSIZE", "shmem_ctx_igetSIZE"],
        SIZES,
        "rma::iget",
    ),
    typed(
        "rma",
        &["shmem_TYPENAME_ibget", "shmem_ctx_TYPENAME_ibget"],
        "rma::ibget",
        "shmem_ibget",
        "ibget128",
    ),
    sized(
        "rma",
        &["shmem_ibgetSIZE", "shmem_ctx_ibgetSIZE"],
        SIZES,
        "rma::ibget",
    ),
    // Non-blocking remote memory access.
    typed(
        "rma_nbi",
        &["shmem_TYPENAME_put_nbi", "shmem_ctx_TYPENAME_put_nbi"],
        "rma::put_nbi",
        "shmem_put_nbi",
        "put128_nbi",
    ),
    sized(
        "rma_nbi",
        &["shmem_putSIZE_nbi", "shmem_ctx_putSIZE_nbi"],
        SIZES_MEM,
        "rma::put_nbi",
    ),
    typed(
        "rma_nbi",
        &["shmem_TYPENAME_get_nbi", "shmem_ctx_TYPENAME_get_nbi"],
        "rma::get_nbi",
        "shmem_get_nbi",
        "get128_nbi",
    ),
    sized(
        "rma_nbi",
        &["shmem_getSIZE_nbi", "shmem_ctx_getSIZE_nbi"],
        SIZES_MEM,
        "rma::get_nbi",
    ),
    // Atomic memory operations (§9.8): extended, standard, bitwise.
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_fetch",
            "shmem_ctx_TYPENAME_atomic_fetch",
        ],
        EXTAMO,
        "amo::fetch",
        "shmem_atomic_fetch",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_atomic_set", "shmem_ctx_TYPENAME_atomic_set"],
        EXTAMO,
        "amo::set",
        "shmem_atomic_set",
    ),
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_swap",
            "shmem_ctx_TYPENAME_atomic_swap",
        ],
        EXTAMO,
        "amo::swap",
        "shmem_atomic_swap",
    ),
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_compare_swap",
            "shmem_ctx_TYPENAME_atomic_compare_swap",
        ],
        STDAMO,
        "amo::compare_swap",
        "shmem_atomic_compare_swap",
    ),
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_fetch_inc",
            "shmem_ctx_TYPENAME_atomic_fetch_inc",
        ],
        STDAMO,
        "amo::fetch_inc",
        "shmem_atomic_fetch_inc",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_atomic_inc", "shmem_ctx_TYPENAME_atomic_inc"],
        STDAMO,
        "amo::inc",
        "shmem_atomic_inc",
    ),
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_fetch_add",
            "shmem_ctx_TYPENAME_atomic_fetch_add",
        ],
        STDAMO,
        "amo::fetch_rmw",
        "shmem_atomic_fetch_add",
    )
    .with("amo::Rmw::Add"),
    atomic(
        "amo",
        &["shmem_TYPENAME_atomic_add", "shmem_ctx_TYPENAME_atomic_add"],
        STDAMO,
        "amo::rmw",
        "shmem_atomic_add",
    )
    .with("amo::Rmw::Add"),
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_fetch_and",
            "shmem_ctx_TYPENAME_atomic_fetch_and",
        ],
        BITAMO,
        "amo::fetch_rmw",
        "shmem_atomic_fetch_and",
    )
    .with("amo::Rmw::And"),
    atomic(
        "amo",
        &["shmem_TYPENAME_atomic_and", "shmem_ctx_TYPENAME_atomic_and"],
        BITAMO,
        "amo::rmw",
        "shmem_atomic_and",
    )
    .with("amo::Rmw::And"),
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_fetch_or",
            "shmem_ctx_TYPENAME_atomic_fetch_or",
        ],
        BITAMO,
        "amo::fetch_rmw",
        "shmem_atomic_fetch_or",
    )
    .with("amo::Rmw::Or"),
    atomic(
        "amo",
        &["shmem_TYPENAME_atomic_or", "shmem_ctx_TYPENAME_atomic_or"],
        BITAMO,
        "amo::rmw",
        "shmem_atomic_or",
    )
    .with("amo::Rmw::Or"),
    atomic(
        "amo",
        &[
            "shmem_TYPENAME_atomic_fetch_xor",
            "shmem_ctx_TYPENAME_atomic_fetch_xor",
        ],
        BITAMO,
        "amo::fetch_rmw",
        "shmem_atomic_fetch_xor",
    )
    .with("amo::Rmw::Xor"),
    atomic(
        "amo",
        &["shmem_TYPENAME_atomic_xor", "shmem_ctx_TYPENAME_atomic_xor"],
        BITAMO,
        "amo::rmw",
        "shmem_atomic_xor",
    )
    .with("amo::Rmw::Xor"),
    // The deprecated names (before 1.4) and their generics.
    atomic(
        "amo",
        &["shmem_TYPENAME_fetch"],
        OLD_EXTAMO,
        "amo::fetch",
        "shmem_fetch",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_set"],
        OLD_EXTAMO,
        "amo::set",
        "shmem_set",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_swap"],
        OLD_EXTAMO,
        "amo::swap",
        "shmem_swap",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_cswap"],
        OLD_STDAMO,
        "amo::compare_swap",
        "shmem_cswap",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_finc"],
        OLD_STDAMO,
        "amo::fetch_inc",
        "shmem_finc",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_inc"],
        OLD_STDAMO,
        "amo::inc",
        "shmem_inc",
    ),
    atomic(
        "amo",
        &["shmem_TYPENAME_fadd"],
        OLD_STDAMO,
        "amo::fetch_rmw",
        "shmem_fadd",
    )
    .with("amo::Rmw::Add"),
    atomic(
        "amo",
        &["shmem_TYPENAME_add"],
        OLD_STDAMO,
        "amo::rmw",
        "shmem_add",
    )
    .with("amo::Rmw::Add"),
    // Non-blocking fetching atomics; they complete at once on the shared-memory route.
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_fetch_nbi",
            "shmem_ctx_TYPENAME_atomic_fetch_nbi",
        ],
        EXTAMO,
        "amo::fetch_nbi",
        "shmem_atomic_fetch_nbi",
    ),
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_swap_nbi",
            "shmem_ctx_TYPENAME_atomic_swap_nbi",
        ],
        EXTAMO,
        "amo::swap_nbi",
        "shmem_atomic_swap_nbi",
    ),
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_compare_swap_nbi",
            "shmem_ctx_TYPENAME_atomic_compare_swap_nbi",
        ],
        STDAMO,
        "amo::compare_swap_nbi",
        "shmem_atomic_compare_swap_nbi",
    ),
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_fetch_inc_nbi",
            "shmem_ctx_TYPENAME_atomic_fetch_inc_nbi",
        ],
        STDAMO,
        "amo::fetch_inc_nbi",
        "shmem_atomic_fetch_inc_nbi",
    ),
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_fetch_add_nbi",
            "shmem_ctx_TYPENAME_atomic_fetch_add_nbi",
        ],
        STDAMO,
        "amo::fetch_rmw_nbi",
        "shmem_atomic_fetch_add_nbi",
    )
    .with("amo::Rmw::Add"),
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_fetch_and_nbi",
            "shmem_ctx_TYPENAME_atomic_fetch_and_nbi",
        ],
        BITAMO,
        "amo::fetch_rmw_nbi",
        "shmem_atomic_fetch_and_nbi",
    )
    .with("amo::Rmw::And"),
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_fetch_or_nbi",
            "shmem_ctx_TYPENAME_atomic_fetch_or_nbi",
        ],
        BITAMO,
        "amo::fetch_rmw_nbi",
        "shmem_atomic_fetch_or_nbi",
    )
    .with("amo::Rmw::Or"),
    atomic(
        "amo_nbi",
        &[
            "shmem_TYPENAME_atomic_fetch_xor_nbi",
            "shmem_ctx_TYPENAME_atomic_fetch_xor_nbi",
        ],
        BITAMO,
        "amo::fetch_rmw_nbi",
        "shmem_atomic_fetch_xor_nbi",
    )
    .with("amo::Rmw::Xor"),
    // Signaling operations: put-with-signal, signal_fetch/add/set.
    typed(
        "signal",
        &["shmem_TYPENAME_put_signal", "shmem_ctx_TYPENAME_put_signal"],
        "signal::put_signal",
        "shmem_put_signal",
        "put128_signal",
    ),
    sized(
        "signal",
        &["shmem_putSIZE_signal", "shmem_ctx_putSIZE_signal"],
        SIZES_MEM,
        "signal::put_signal",
    ),
    typed(
        "signal",
        &[
            "shmem_TYPENAME_put_signal_nbi",
            "shmem_ctx_TYPENAME_put_signal_nbi",
        ],
        "signal::put_signal_nbi",
        "shmem_put_signal_nbi",
        "put128_signal_nbi",
    ),
    sized(
        "signal",
        &["shmem_putSIZE_signal_nbi", "shmem_ctx_putSIZE_signal_nbi"],
        SIZES_MEM,
        "signal::put_signal_nbi",
    ),
    plain("signal", &["shmem_signal_fetch"], "signal::fetch"),
    plain_generic(
        "signal",
        &["shmem_signal_add", "shmem_ctx_signal_add"],
        "signal::add",
        "shmem_signal_add",
    ),
    plain_generic(
        "signal",
        &["shmem_signal_set", "shmem_ctx_signal_set"],
        "signal::set",
        "shmem_signal_set",
    ),
    plain("signal", &["shmem_signal_wait_until"], "signal::wait_until"),
    // Point-to-point synchronization over stdamotypes, with their generics.
    p2p(
        &["shmem_TYPENAME_wait_until"],
        STDAMO,
        "p2p::wait_until",
        Some("shmem_wait_until"),
    ),
    p2p(
        &["shmem_TYPENAME_wait_until_all"],
        STDAMO,
        "p2p::wait_until_all",
        Some("shmem_wait_until_all"),
    ),
    p2p(
        &["shmem_TYPENAME_wait_until_any"],
        STDAMO,
        "p2p::wait_until_any",
        Some("shmem_wait_until_any"),
    ),
    p2p(
        &["shmem_TYPENAME_wait_until_some"],
        STDAMO,
        "p2p::wait_until_some",
        Some("shmem_wait_until_some"),
    ),
    p2p(
        &["shmem_TYPENAME_wait_until_all_vector"],
        STDAMO,
        "p2p::wait_until_all_vector",
        Some("shmem_wait_until_all_vector"),
    ),
    p2p(
        &["shmem_TYPENAME_wait_until_any_vector"],
        STDAMO,
        "p2p::wait_until_any_vector",
        Some("shmem_wait_until_any_vector"),
    ),
    p2p(
        &["shmem_TYPENAME_wait_until_some_vector"],
        STDAMO,
        "p2p::wait_until_some_vector",
        Some("shmem_wait_until_some_vector"),
    ),
    p2p(
        &["shmem_TYPENAME_test"],
        STDAMO,
        "p2p::test",
        Some("shmem_test"),
    ),
    p2p(
        &["shmem_TYPENAME_test_all"],
        STDAMO,
        "p2p::test_all",
        Some("shmem_test_all"),
    ),
    p2p(
        &["shmem_TYPENAME_test_any"],
        STDAMO,
        "p2p::test_any",
        Some("shmem_test_any"),
    ),
    p2p(
        &["shmem_TYPENAME_test_some"],
        STDAMO,
        "p2p::test_some",
        Some("shmem_test_some"),
    ),
    p2p(
        &["shmem_TYPENAME_test_all_vector"],
        STDAMO,
        "p2p::test_all_vector",
        Some("shmem_test_all_vector"),
    ),
    p2p(
        &["shmem_TYPENAME_test_any_vector"],
        STDAMO,
        "p2p::test_any_vector",
        Some("shmem_test_any_vector"),
    ),
    p2p(
        &["shmem_TYPENAME_test_some_vector"],
        STDAMO,
        "p2p::test_some_vector",
        Some("shmem_test_some_vector"),
    ),
    // The deprecated names: short/ushort (1.5), also selected by the C11 `shmem_wait_until` and
    // `shmem_test` (the spec keeps short and unsigned short in those two generics, deprecated;
    // the `_all`, `_any`, `_some` and vector forms have the standard AMO types only), `wait`
    // (1.4), the long-typed `shmem_wait_until`.
    p2p(
        &["shmem_TYPENAME_wait_until"],
        OLD_P2P_SHORT,
        "p2p::wait_until",
        Some("shmem_wait_until"),
    ),
    p2p(
        &["shmem_TYPENAME_test"],
        OLD_P2P_SHORT,
        "p2p::test",
        Some("shmem_test"),
    ),
    p2p(&["shmem_TYPENAME_wait"], OLD_P2P_WAIT, "p2p::wait", None),
    plain("p2p", &["shmem_wait"], "p2p::wait"),
    plain("p2p", &["shmem_wait_until"], "p2p::wait_until"),
    // Distributed locking.
    plain("lock", &["shmem_set_lock"], "lock::set"),
    plain("lock", &["shmem_test_lock"], "lock::test"),
    plain("lock", &["shmem_clear_lock"], "lock::clear"),
    // Memory ordering (§9.11).
    plain("order", &["shmem_fence", "shmem_ctx_fence"], "order::fence"),
    plain("order", &["shmem_quiet", "shmem_ctx_quiet"], "order::quiet"),
    plain(
        "order",
        &["shmem_pe_quiet", "shmem_ctx_pe_quiet"],
        "order::pe_quiet",
    ),
    // Whole-world synchronization (§9.9).
    plain("sync", &["shmem_barrier_all"], "sync::barrier_all"),
    plain("sync", &["shmem_sync_all"], "sync::sync_all"),
    // Teams (§9.4).
    plain("team", &["shmem_team_my_pe"], "team::team_my_pe"),
    plain("team", &["shmem_team_n_pes"], "team::team_n_pes"),
    plain("team", &["shmem_team_get_config"], "team::team_get_config"),
    plain(
        "team",
        &["shmem_team_translate_pe"],
        "team::team_translate_pe",
    ),
    plain(
        "team",
        &["shmem_team_split_strided"],
        "team::team_split_strided",
    ),
    plain("team", &["shmem_team_split_2d"], "team::team_split_2d"),
    plain("team", &["shmem_team_destroy"], "team::team_destroy"),
    plain("team", &["shmem_team_ptr"], "team::team_ptr"),
    // Contexts and sessions (§9.5).
    plain("ctx", &["shmem_ctx_create"], "ctx::ctx_create"),
    plain("ctx", &["shmem_team_create_ctx"], "ctx::team_create_ctx"),
    plain("ctx", &["shmem_ctx_destroy"], "ctx::ctx_destroy"),
    plain("ctx", &["shmem_ctx_get_team"], "ctx::ctx_get_team"),
    plain(
        "ctx",
        &["shmem_ctx_session_start"],
        "ctx::ctx_session_start",
    ),
    plain("ctx", &["shmem_ctx_session_stop"], "ctx::ctx_session_stop"),
    // Collectives on teams (§9.9), then the deprecated active-set forms.
    plain("coll", &["shmem_team_sync"], "coll::team_sync"),
    coll(
        "coll",
        &["shmem_TYPENAME_broadcast"],
        RMA,
        "coll::broadcast",
        Some("shmem_broadcast"),
    ),
    sized("coll", &["shmem_broadcastSIZE"], MEM, "coll::broadcast"),
    coll(
        "coll",
        &["shmem_TYPENAME_collect"],
        RMA,
        "coll::collect",
        Some("shmem_collect"),
    ),
    sized("coll", &["shmem_collectSIZE"], MEM, "coll::collect"),
    coll(
        "coll",
        &["shmem_TYPENAME_fcollect"],
        RMA,
        "coll::fcollect",
        Some("shmem_fcollect"),
    ),
    sized("coll", &["shmem_fcollectSIZE"], MEM, "coll::fcollect"),
    coll(
        "coll",
        &["shmem_TYPENAME_alltoall"],
        RMA,
        "coll::alltoall",
        Some("shmem_alltoall"),
    ),
    sized("coll", &["shmem_alltoallSIZE"], MEM, "coll::alltoall"),
    coll(
        "coll",
        &["shmem_TYPENAME_alltoalls"],
        RMA,
        "coll::alltoalls",
        Some("shmem_alltoalls"),
    ),
    sized("coll", &["shmem_alltoallsSIZE"], MEM, "coll::alltoalls"),
    plain("coll", &["shmem_barrier"], "coll::barrier"),
    plain("coll", &["shmem_sync"], "coll::sync"),
    sized(
        "coll",
        &["shmem_broadcastSIZE"],
        BITS_32_64,
        "coll::broadcast_set",
    ),
    sized(
        "coll",
        &["shmem_collectSIZE"],
        BITS_32_64,
        "coll::collect_set",
    ),
    sized(
        "coll",
        &["shmem_fcollectSIZE"],
        BITS_32_64,
        "coll::fcollect_set",
    ),
    sized(
        "coll",
        &["shmem_alltoallSIZE"],
        BITS_32_64,
        "coll::alltoall_set",
    ),
    sized(
        "coll",
        &["shmem_alltoallsSIZE"],
        BITS_32_64,
        "coll::alltoalls_set",
    ),
    // Reductions on teams (§9.9.11), typed by the teamreducetypes table and its operations.
    coll(
        "reduce",
        &["shmem_TYPENAME_and_reduce"],
        Types::WithOp("teamreducetypes", "AND"),
        "reduce::reduce",
        Some("shmem_and_reduce"),
    )
    .with("reduce::Bitwise::and"),
    coll(
        "reduce",
        &["shmem_TYPENAME_or_reduce"],
        Types::WithOp("teamreducetypes", "OR"),
        "reduce::reduce",
        Some("shmem_or_reduce"),
    )
    .with("reduce::Bitwise::or"),
    coll(
        "reduce",
        &["shmem_TYPENAME_xor_reduce"],
        Types::WithOp("teamreducetypes", "XOR"),
        "reduce::reduce",
        Some("shmem_xor_reduce"),
    )
    .with("reduce::Bitwise::xor"),
    coll(
        "reduce",
        &["shmem_TYPENAME_max_reduce"],
        Types::WithOp("teamreducetypes", "MAX"),
        "reduce::reduce",
        Some("shmem_max_reduce"),
    )
    .with("reduce::Order::max"),
    coll(
        "reduce",
        &["shmem_TYPENAME_min_reduce"],
        Types::WithOp("teamreducetypes", "MIN"),
        "reduce::reduce",
        Some("shmem_min_reduce"),
    )
    .with("reduce::Order::min"),
    coll(
        "reduce",
        &["shmem_TYPENAME_sum_reduce"],
        Types::WithOp("teamreducetypes", "SUM"),
        "reduce::reduce",
        Some("shmem_sum_reduce"),
    )
    .with("reduce::Arith::sum"),
    coll(
        "reduce",
        &["shmem_TYPENAME_prod_reduce"],
        Types::WithOp("teamreducetypes", "PROD"),
        "reduce::reduce",
        Some("shmem_prod_reduce"),
    )
    .with("reduce::Arith::prod"),
    // The deprecated active-set reductions (asetreducetypes).
    coll(
        "reduce",
        &["shmem_TYPENAME_and_to_all"],
        Types::WithOp("asetreducetypes", "AND"),
        "reduce::to_all",
        None,
    )
    .with("reduce::Bitwise::and"),
    coll(
        "reduce",
        &["shmem_TYPENAME_or_to_all"],
        Types::WithOp("asetreducetypes", "OR"),
        "reduce::to_all",
        None,
    )
    .with("reduce::Bitwise::or"),
    coll(
        "reduce",
        &["shmem_TYPENAME_xor_to_all"],
        Types::WithOp("asetreducetypes", "XOR"),
        "reduce::to_all",
        None,
    )
    .with("reduce::Bitwise::xor"),
    coll(
        "reduce",
        &["shmem_TYPENAME_max_to_all"],
        Types::WithOp("asetreducetypes", "MAX"),
        "reduce::to_all",
        None,
    )
    .with("reduce::Order::max"),
    coll(
        "reduce",
        &["shmem_TYPENAME_min_to_all"],
        Types::WithOp("asetreducetypes", "MIN"),
        "reduce::to_all",
        None,
    )
    .with("reduce::Order::min"),
    coll(
        "reduce",
        &["shmem_TYPENAME_sum_to_all"],
        Types::WithOp("asetreducetypes", "SUM"),
        "reduce::to_all",
        None,
    )
    .with("reduce::Arith::sum"),
    coll(
        "reduce",
        &["shmem_TYPENAME_prod_to_all"],
        Types::WithOp("asetreducetypes", "PROD"),
        "reduce::to_all",
        None,
    )
    .with("reduce::Arith::prod"),
    // Scans (1.6).
    coll(
        "scan",
        &["shmem_TYPENAME_sum_inscan"],
        Types::WithOp("teamreducetypes", "SUM"),
        "reduce::sum_inscan",
        Some("shmem_sum_inscan"),
    ),
    coll(
        "scan",
        &["shmem_TYPENAME_sum_exscan"],
        Types::WithOp("teamreducetypes", "SUM"),
        "reduce::sum_exscan",
        Some("shmem_sum_exscan"),
    ),
];

/// The one-line `//!` doc of each generated module, in `mod.rs` order.
pub const MODULES: &[(&str, &str)] = &[
    (
        "setup",
        "Library setup, exit and query routines, thread support (OpenSHMEM 1.6 §9.1, §9.2).",
    ),
    ("memory", "Symmetric heap management (OpenSHMEM 1.6 §9.3)."),
    (
        "rma",
        "Remote memory access: put, get, p, g, strided and block-strided forms (OpenSHMEM 1.6).",
    ),
    (
        "rma_nbi",
        "Non-blocking remote memory access: put_nbi, get_nbi (OpenSHMEM 1.6).",
    ),
    (
        "amo",
        "Atomic memory operations: fetch, set, swap, compare_swap, inc, add and the bitwise and/or/xor, with their fetching forms and the deprecated names (OpenSHMEM 1.6 §9.8).",
    ),
    (
        "amo_nbi",
        "Non-blocking fetching atomic memory operations: the `_nbi` forms of fetch, swap, compare_swap, fetch_inc, fetch_add and the bitwise fetch_and/or/xor (OpenSHMEM 1.6 §9.8).",
    ),
    (
        "signal",
        "Signaling operations: put-with-signal and its non-blocking form (typed, sized, mem), signal_fetch, signal_add, signal_set, signal_wait_until (OpenSHMEM 1.6, Signaling Operations).",
    ),
    (
        "p2p",
        "Point-to-point synchronization: wait_until and test with their _all, _any, _some and _vector forms, and the deprecated wait and short/ushort names (OpenSHMEM 1.6, Point-to-Point Synchronization Routines).",
    ),
    (
        "lock",
        "Distributed locking: set_lock, test_lock, clear_lock (OpenSHMEM 1.6, Distributed Locking Routines).",
    ),
    (
        "order",
        "Memory ordering: fence, quiet, pe_quiet (OpenSHMEM 1.6 §9.11).",
    ),
    (
        "sync",
        "Whole-world synchronization: barrier_all, sync_all (OpenSHMEM 1.6 §9.9.1, §9.9.2).",
    ),
    (
        "team",
        "Team management: my_pe, n_pes, get_config, translate_pe, the strided and 2-D splits, destroy, team_ptr (OpenSHMEM 1.6 §9.4).",
    ),
    (
        "ctx",
        "Communication contexts and sessions: create, team_create_ctx, destroy, get_team, session_start/stop (OpenSHMEM 1.6 §9.5).",
    ),
    (
        "coll",
        "Collectives: team_sync, broadcast, collect, fcollect, alltoall, alltoalls (typed and mem), and the deprecated active-set forms (OpenSHMEM 1.6 §9.9).",
    ),
    (
        "reduce",
        "Reductions: and, or, xor, max, min, sum, prod on teams, and the deprecated active-set `*_to_all` forms (OpenSHMEM 1.6 §9.9.11).",
    ),
    ("scan", "Scans: sum_inscan, sum_exscan (OpenSHMEM 1.6)."),
    (
        "profiling",
        "The profiling control routine, pcontrol (OpenSHMEM 1.6, Profiling Interface).",
    ),
];
