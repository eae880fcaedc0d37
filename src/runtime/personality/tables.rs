//! The ABI personalities as data: for each implementation whose binaries rshmem runs (preloaded),
//! every value that crosses the ABI, with its foreign value and the rshmem value it means, and the
//! data symbols its header makes programs read. The values are facts of each implementation's
//! installed or published header (Open MPI 4.1's `shmem.h`; Sandia OpenSHMEM 1.5.3's
//! `mpp/shmem-def.h.in`, `mpp/shmemx-def.h` and the sizes `configure.ac` computes for x86_64 and
//! aarch64, where `int` is 4 bytes and `long` 8). docs/ABI.md renders the same tables.
//!
//! Invariant: within one group the foreign values are distinct (a value means one constant), and
//! every native value of a group is an rshmem constant of that group; `tests` check both.

use crate::runtime::constants as c;
use std::ffi::{CStr, c_int, c_long};

/// One constant: its name in the headers, the foreign value, the rshmem value it means.
#[derive(Clone, Copy, Debug)]
pub struct Const {
    pub name: &'static str,
    pub foreign: i64,
    pub native: i64,
}

const fn k(name: &'static str, foreign: i64, native: i64) -> Const {
    Const {
        name,
        foreign,
        native,
    }
}

/// An extension value of a foreign header that rshmem accepts and that changes nothing here (its
/// native value is 0): a performance hint, or a permission rshmem does not need to use. Its name
/// is the header's `SHMEMX_` name; docs/ABI.md says why each is safe to accept.
const fn no_effect(name: &'static str, foreign: i64) -> Const {
    Const {
        name,
        foreign,
        native: 0,
    }
}

/// What a predefined handle of a foreign header is in rshmem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Predefined {
    CtxDefault,
    TeamWorld,
    TeamShared,
}

/// A data symbol of the foreign library that a program reads as a predefined handle.
#[derive(Clone, Copy, Debug)]
pub struct HandleSymbol {
    /// The symbol's name (what the foreign header declares `extern`).
    pub symbol: &'static str,
    /// The header name a program writes (`SHMEM_CTX_DEFAULT` for OSHMEM's `oshmem_ctx_default`).
    pub spelled: &'static str,
    pub means: Predefined,
}

/// Everything one implementation's binaries carry across the ABI.
#[derive(Debug)]
pub struct Personality {
    /// Shown in messages and in `SHMEM_INFO`.
    pub name: &'static str,
    /// The file name prefix of its library (`liboshmem.so`), by which detection knows it.
    pub library: &'static str,
    /// `SHMEM_CMP_*`.
    pub cmp: &'static [Const],
    /// `SHMEM_THREAD_*`.
    pub thread: &'static [Const],
    /// `SHMEM_SIGNAL_*` (empty: the implementation has no put-with-signal).
    pub signal: &'static [Const],
    /// `SHMEM_CTX_*` option bits, each a single bit.
    pub ctx_options: &'static [Const],
    /// `SHMEM_TEAM_*` configuration mask bits (empty: no teams).
    pub team_mask: &'static [Const],
    /// `SHMEM_MALLOC_*` hint bits (empty: no `shmem_malloc_with_hints`).
    pub malloc_hints: &'static [Const],
    /// The `pSync` sizes and `SHMEM_SYNC_VALUE`. rshmem never reads `pSync` or `pWrk` (see
    /// `ops::coll`), so any size of at least 1 and any initial value work: these are recorded, not
    /// translated (the unit tests check them against the header values).
    #[cfg_attr(not(test), allow(dead_code))]
    pub sync: &'static [Const],
    /// The invalid handles are NULL in this header (false: the header defines none).
    pub null_is_invalid: bool,
    /// `SHMEM_MAJOR_VERSION` and `SHMEM_MINOR_VERSION`, which `shmem_info_get_version` reports:
    /// the spec has the call agree with the constants the program was compiled with.
    pub version: (c_int, c_int),
    /// `SHMEM_VENDOR_STRING`, which `shmem_info_get_name` reports, for the same reason.
    pub vendor: &'static CStr,
    /// The data symbols read as predefined handles.
    pub handles: &'static [HandleSymbol],
}

/// rshmem's own headers: every value means itself.
pub static NATIVE: Personality = Personality {
    name: "rshmem",
    library: "librshmem.so",
    cmp: &[
        k(
            "SHMEM_CMP_EQ",
            c::SHMEM_CMP_EQ as i64,
            c::SHMEM_CMP_EQ as i64,
        ),
        k(
            "SHMEM_CMP_NE",
            c::SHMEM_CMP_NE as i64,
            c::SHMEM_CMP_NE as i64,
        ),
        k(
            "SHMEM_CMP_GT",
            c::SHMEM_CMP_GT as i64,
            c::SHMEM_CMP_GT as i64,
        ),
        k(
            "SHMEM_CMP_LE",
            c::SHMEM_CMP_LE as i64,
            c::SHMEM_CMP_LE as i64,
        ),
        k(
            "SHMEM_CMP_LT",
            c::SHMEM_CMP_LT as i64,
            c::SHMEM_CMP_LT as i64,
        ),
        k(
            "SHMEM_CMP_GE",
            c::SHMEM_CMP_GE as i64,
            c::SHMEM_CMP_GE as i64,
        ),
    ],
    thread: THREAD_0123,
    signal: &[
        k("SHMEM_SIGNAL_SET", 0, c::SHMEM_SIGNAL_SET as i64),
        k("SHMEM_SIGNAL_ADD", 1, c::SHMEM_SIGNAL_ADD as i64),
    ],
    ctx_options: &[
        k("SHMEM_CTX_SERIALIZED", 1, c::SHMEM_CTX_SERIALIZED),
        k("SHMEM_CTX_PRIVATE", 2, c::SHMEM_CTX_PRIVATE),
        k("SHMEM_CTX_NOSTORE", 4, c::SHMEM_CTX_NOSTORE),
    ],
    team_mask: &[k("SHMEM_TEAM_NUM_CONTEXTS", 1, c::SHMEM_TEAM_NUM_CONTEXTS)],
    malloc_hints: &[
        k(
            "SHMEM_MALLOC_ATOMICS_REMOTE",
            1,
            c::SHMEM_MALLOC_ATOMICS_REMOTE,
        ),
        k(
            "SHMEM_MALLOC_SIGNAL_REMOTE",
            2,
            c::SHMEM_MALLOC_SIGNAL_REMOTE,
        ),
    ],
    sync: &[
        k(
            "SHMEM_BARRIER_SYNC_SIZE",
            64,
            c::SHMEM_BARRIER_SYNC_SIZE as i64,
        ),
        k("SHMEM_BCAST_SYNC_SIZE", 64, c::SHMEM_BCAST_SYNC_SIZE as i64),
        k(
            "SHMEM_COLLECT_SYNC_SIZE",
            128,
            c::SHMEM_COLLECT_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_REDUCE_SYNC_SIZE",
            128,
            c::SHMEM_REDUCE_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_ALLTOALL_SYNC_SIZE",
            64,
            c::SHMEM_ALLTOALL_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_ALLTOALLS_SYNC_SIZE",
            64,
            c::SHMEM_ALLTOALLS_SYNC_SIZE as i64,
        ),
        k("SHMEM_SYNC_SIZE", 128, c::SHMEM_SYNC_SIZE as i64),
        k(
            "SHMEM_REDUCE_MIN_WRKDATA_SIZE",
            64,
            c::SHMEM_REDUCE_MIN_WRKDATA_SIZE as i64,
        ),
        k("SHMEM_SYNC_VALUE", 0, c::SHMEM_SYNC_VALUE),
    ],
    null_is_invalid: true,
    version: (c::SHMEM_MAJOR_VERSION, c::SHMEM_MINOR_VERSION),
    vendor: c::SHMEM_VENDOR_STRING,
    handles: &[
        HandleSymbol {
            symbol: "SHMEM_CTX_DEFAULT",
            spelled: "SHMEM_CTX_DEFAULT",
            means: Predefined::CtxDefault,
        },
        HandleSymbol {
            symbol: "SHMEM_TEAM_WORLD",
            spelled: "SHMEM_TEAM_WORLD",
            means: Predefined::TeamWorld,
        },
        HandleSymbol {
            symbol: "SHMEM_TEAM_SHARED",
            spelled: "SHMEM_TEAM_SHARED",
            means: Predefined::TeamShared,
        },
    ],
};

/// The thread levels of all three headers: 0 to 3 in the spec's order.
const THREAD_0123: &[Const] = &[
    k("SHMEM_THREAD_SINGLE", 0, c::SHMEM_THREAD_SINGLE as i64),
    k("SHMEM_THREAD_FUNNELED", 1, c::SHMEM_THREAD_FUNNELED as i64),
    k(
        "SHMEM_THREAD_SERIALIZED",
        2,
        c::SHMEM_THREAD_SERIALIZED as i64,
    ),
    k("SHMEM_THREAD_MULTIPLE", 3, c::SHMEM_THREAD_MULTIPLE as i64),
];

/// Open MPI's OSHMEM 4.1 (spec 1.4: no teams, no put-with-signal, no allocation hints).
pub static OSHMEM_4_1: Personality = Personality {
    name: "Open MPI OSHMEM 4.1",
    library: "liboshmem.so",
    cmp: &[
        k("SHMEM_CMP_EQ", 0, c::SHMEM_CMP_EQ as i64),
        k("SHMEM_CMP_NE", 1, c::SHMEM_CMP_NE as i64),
        k("SHMEM_CMP_GT", 2, c::SHMEM_CMP_GT as i64),
        k("SHMEM_CMP_LE", 3, c::SHMEM_CMP_LE as i64),
        k("SHMEM_CMP_LT", 4, c::SHMEM_CMP_LT as i64),
        k("SHMEM_CMP_GE", 5, c::SHMEM_CMP_GE as i64),
    ],
    thread: THREAD_0123,
    signal: &[],
    ctx_options: &[
        k("SHMEM_CTX_PRIVATE", 1, c::SHMEM_CTX_PRIVATE),
        k("SHMEM_CTX_SERIALIZED", 2, c::SHMEM_CTX_SERIALIZED),
        k("SHMEM_CTX_NOSTORE", 4, c::SHMEM_CTX_NOSTORE),
    ],
    team_mask: &[],
    malloc_hints: &[],
    sync: &[
        k(
            "SHMEM_BARRIER_SYNC_SIZE",
            1,
            c::SHMEM_BARRIER_SYNC_SIZE as i64,
        ),
        k("SHMEM_BCAST_SYNC_SIZE", 2, c::SHMEM_BCAST_SYNC_SIZE as i64),
        k(
            "SHMEM_COLLECT_SYNC_SIZE",
            3,
            c::SHMEM_COLLECT_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_REDUCE_SYNC_SIZE",
            3,
            c::SHMEM_REDUCE_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_ALLTOALL_SYNC_SIZE",
            1,
            c::SHMEM_ALLTOALL_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_ALLTOALLS_SYNC_SIZE",
            1,
            c::SHMEM_ALLTOALLS_SYNC_SIZE as i64,
        ),
        k("SHMEM_SYNC_SIZE", 3, c::SHMEM_SYNC_SIZE as i64),
        k(
            "SHMEM_REDUCE_MIN_WRKDATA_SIZE",
            1,
            c::SHMEM_REDUCE_MIN_WRKDATA_SIZE as i64,
        ),
        k("SHMEM_SYNC_VALUE", -1, c::SHMEM_SYNC_VALUE),
    ],
    null_is_invalid: false,
    version: (1, 4),
    vendor: c"http://www.open-mpi.org/",
    handles: &[HandleSymbol {
        symbol: "oshmem_ctx_default",
        spelled: "SHMEM_CTX_DEFAULT",
        means: Predefined::CtxDefault,
    }],
};

/// Sandia OpenSHMEM 1.5 (1.5.3's headers; `SHMEMX_TEAM_NODE` is new in 1.5.3).
pub static SOS_1_5: Personality = Personality {
    name: "Sandia OpenSHMEM 1.5",
    library: "libsma.so",
    cmp: &[
        k("SHMEM_CMP_EQ", 1, c::SHMEM_CMP_EQ as i64),
        k("SHMEM_CMP_NE", 2, c::SHMEM_CMP_NE as i64),
        k("SHMEM_CMP_GT", 3, c::SHMEM_CMP_GT as i64),
        k("SHMEM_CMP_GE", 4, c::SHMEM_CMP_GE as i64),
        k("SHMEM_CMP_LT", 5, c::SHMEM_CMP_LT as i64),
        k("SHMEM_CMP_LE", 6, c::SHMEM_CMP_LE as i64),
    ],
    thread: THREAD_0123,
    signal: &[
        k("SHMEM_SIGNAL_SET", 0, c::SHMEM_SIGNAL_SET as i64),
        k("SHMEM_SIGNAL_ADD", 1, c::SHMEM_SIGNAL_ADD as i64),
    ],
    ctx_options: &[
        k("SHMEM_CTX_PRIVATE", 1, c::SHMEM_CTX_PRIVATE),
        k("SHMEM_CTX_SERIALIZED", 2, c::SHMEM_CTX_SERIALIZED),
        k("SHMEM_CTX_NOSTORE", 4, c::SHMEM_CTX_NOSTORE),
        // SOS stages small puts through a bounce buffer: a performance choice, no other meaning.
        no_effect("SHMEMX_CTX_BOUNCE_BUFFER", 1 << 31),
    ],
    team_mask: &[k("SHMEM_TEAM_NUM_CONTEXTS", 1, c::SHMEM_TEAM_NUM_CONTEXTS)],
    malloc_hints: &[
        k(
            "SHMEM_MALLOC_ATOMICS_REMOTE",
            1,
            c::SHMEM_MALLOC_ATOMICS_REMOTE,
        ),
        k(
            "SHMEM_MALLOC_SIGNAL_REMOTE",
            2,
            c::SHMEM_MALLOC_SIGNAL_REMOTE,
        ),
        // SOS may leave out the allocation's closing barrier: a permission. rshmem keeps the
        // barrier (every PE calls the allocation anyway), and with it the check that the PEs
        // made the same call.
        no_effect("SHMEMX_MALLOC_NO_BARRIER", 1 << 2),
    ],
    sync: &[
        k(
            "SHMEM_BARRIER_SYNC_SIZE",
            16,
            c::SHMEM_BARRIER_SYNC_SIZE as i64,
        ),
        k("SHMEM_BCAST_SYNC_SIZE", 1, c::SHMEM_BCAST_SYNC_SIZE as i64),
        k(
            "SHMEM_COLLECT_SYNC_SIZE",
            18,
            c::SHMEM_COLLECT_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_REDUCE_SYNC_SIZE",
            35,
            c::SHMEM_REDUCE_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_ALLTOALL_SYNC_SIZE",
            16,
            c::SHMEM_ALLTOALL_SYNC_SIZE as i64,
        ),
        k(
            "SHMEM_ALLTOALLS_SYNC_SIZE",
            16,
            c::SHMEM_ALLTOALLS_SYNC_SIZE as i64,
        ),
        k("SHMEM_SYNC_SIZE", 35, c::SHMEM_SYNC_SIZE as i64),
        k(
            "SHMEM_REDUCE_MIN_WRKDATA_SIZE",
            1,
            c::SHMEM_REDUCE_MIN_WRKDATA_SIZE as i64,
        ),
        k("SHMEM_SYNC_VALUE", 0, c::SHMEM_SYNC_VALUE),
    ],
    null_is_invalid: true,
    version: (1, 5),
    vendor: c"Sandia OpenSHMEM",
    handles: &[
        HandleSymbol {
            symbol: "SHMEM_CTX_DEFAULT",
            spelled: "SHMEM_CTX_DEFAULT",
            means: Predefined::CtxDefault,
        },
        HandleSymbol {
            symbol: "SHMEM_TEAM_WORLD",
            spelled: "SHMEM_TEAM_WORLD",
            means: Predefined::TeamWorld,
        },
        HandleSymbol {
            symbol: "SHMEM_TEAM_SHARED",
            spelled: "SHMEM_TEAM_SHARED",
            means: Predefined::TeamShared,
        },
        HandleSymbol {
            symbol: "SHMEMX_TEAM_NODE",
            spelled: "SHMEMX_TEAM_NODE",
            means: Predefined::TeamShared,
        },
    ],
};

/// Every personality; index 0 is the native one.
pub static ALL: [&Personality; 3] = [&NATIVE, &OSHMEM_4_1, &SOS_1_5];

/// The rshmem value that `foreign` means in `group`, if any.
pub fn lookup(group: &[Const], foreign: i64) -> Option<&Const> {
    group.iter().find(|k| k.foreign == foreign)
}

/// The foreign value that means the rshmem value `native` in `group`, if any.
pub fn reverse(group: &[Const], native: i64) -> Option<&Const> {
    group.iter().find(|k| k.native == native)
}

/// The rshmem bits that the foreign bits `foreign` mean in the single-bit `group`, or the first
/// foreign bit the group does not know.
pub fn bits(group: &[Const], foreign: c_long) -> Result<c_long, c_long> {
    let mut native = 0;
    let mut rest = foreign;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        match lookup(group, bit) {
            Some(k) => native |= k.native as c_long,
            None => return Err(bit),
        }
        rest &= !bit;
    }
    Ok(native)
}

/// `name=value` for every constant of `group`: the accepted values, for messages.
pub fn listing(group: &[Const]) -> String {
    let items: Vec<String> = group
        .iter()
        .map(|k| format!("{}={}", k.name, k.foreign))
        .collect();
    items.join(", ")
}

/// An `int` constant's native value (tables hold `i64` so that one type fits every group).
pub fn as_int(v: i64) -> c_int {
    v as c_int
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(p: &Personality) -> [(&'static str, &'static [Const]); 7] {
        [
            ("cmp", p.cmp),
            ("thread", p.thread),
            ("signal", p.signal),
            ("ctx_options", p.ctx_options),
            ("team_mask", p.team_mask),
            ("malloc_hints", p.malloc_hints),
            ("sync", p.sync),
        ]
    }

    #[test]
    fn foreign_values_are_distinct_and_native_values_are_rshmem_constants() {
        for p in ALL {
            for (group, consts) in groups(p) {
                let native = NATIVE_GROUPS.iter().find(|(g, _)| *g == group).unwrap().1;
                for (i, a) in consts.iter().enumerate() {
                    if group != "sync" {
                        for b in &consts[i + 1..] {
                            assert_ne!(
                                a.foreign, b.foreign,
                                "{}: {group}: {} {}",
                                p.name, a.name, b.name
                            );
                        }
                    }
                    if a.name.starts_with("SHMEMX_") {
                        assert_eq!(a.native, 0, "{}: {} is an extension", p.name, a.name);
                        continue;
                    }
                    let same = native.iter().find(|n| n.name == a.name);
                    let same = same
                        .unwrap_or_else(|| panic!("{}: {} is no rshmem constant", p.name, a.name));
                    assert_eq!(a.native, same.native, "{}: {}", p.name, a.name);
                }
            }
        }
    }

    const NATIVE_GROUPS: [(&str, &[Const]); 7] = [
        ("cmp", NATIVE.cmp),
        ("thread", NATIVE.thread),
        ("signal", NATIVE.signal),
        ("ctx_options", NATIVE.ctx_options),
        ("team_mask", NATIVE.team_mask),
        ("malloc_hints", NATIVE.malloc_hints),
        ("sync", NATIVE.sync),
    ];

    #[test]
    fn vendor_strings_fit_the_name_buffer() {
        for p in ALL {
            assert!(
                p.vendor.to_bytes_with_nul().len() <= c::SHMEM_MAX_NAME_LEN as usize,
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn native_means_itself() {
        for (group, consts) in groups(&NATIVE) {
            for k in consts {
                assert_eq!(k.foreign, k.native, "{group}: {}", k.name);
            }
        }
    }

    #[test]
    fn sos_comparisons_translate() {
        assert_eq!(
            lookup(SOS_1_5.cmp, 1).unwrap().native,
            c::SHMEM_CMP_EQ as i64
        );
        assert_eq!(
            lookup(SOS_1_5.cmp, 4).unwrap().native,
            c::SHMEM_CMP_GE as i64
        );
        assert_eq!(
            lookup(SOS_1_5.cmp, 6).unwrap().native,
            c::SHMEM_CMP_LE as i64
        );
        assert!(lookup(SOS_1_5.cmp, 0).is_none());
        assert_eq!(
            reverse(SOS_1_5.cmp, c::SHMEM_CMP_LT as i64)
                .unwrap()
                .foreign,
            5
        );
    }

    #[test]
    fn context_option_bits_translate_and_unknown_bits_are_named() {
        for p in [&OSHMEM_4_1, &SOS_1_5] {
            assert_eq!(bits(p.ctx_options, 1), Ok(c::SHMEM_CTX_PRIVATE));
            assert_eq!(bits(p.ctx_options, 2), Ok(c::SHMEM_CTX_SERIALIZED));
            assert_eq!(
                bits(p.ctx_options, 7),
                Ok(c::SHMEM_CTX_PRIVATE | c::SHMEM_CTX_SERIALIZED | c::SHMEM_CTX_NOSTORE)
            );
            assert_eq!(bits(p.ctx_options, 0), Ok(0));
            if std::ptr::eq(p, &SOS_1_5) {
                assert_eq!(bits(p.ctx_options, 1 | 1 << 31), Ok(c::SHMEM_CTX_PRIVATE));
                assert_eq!(
                    bits(p.malloc_hints, 1 | 1 << 2),
                    Ok(c::SHMEM_MALLOC_ATOMICS_REMOTE)
                );
            }
            assert_eq!(bits(p.ctx_options, 1 | 16), Err(16));
        }
    }

    #[test]
    fn listing_names_values() {
        assert!(listing(SOS_1_5.cmp).starts_with("SHMEM_CMP_EQ=1, SHMEM_CMP_NE=2"));
    }
}
