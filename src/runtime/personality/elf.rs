//! What a loaded object's file says about its use of OpenSHMEM: the libraries it was linked
//! against (`DT_NEEDED`), whether it refers to rshmem's ABI marker, whether it calls OpenSHMEM
//! routines, whether it defines `shmem_init` itself. Read from the ELF file's section headers,
//! its dynamic symbol table and its dynamic section, with plain reads of the file: no mapping, no
//! raw pointer.
//!
//! Invariant: a file that is not a 64-bit little-endian ELF object with section headers, or whose
//! tables do not fit in the file, gives [`None`] (no evidence), never an error: detection then
//! treats the object as one that says nothing.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The name of rshmem's ABI marker symbol (exported by `api::exports`).
pub const MARKER: &str = "rshmem_abi_v1";

/// What an object's dynamic tables say.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Object {
    /// The `DT_NEEDED` entries, in order.
    pub needed: Vec<String>,
    /// The object refers to (or, through a copy relocation, holds) rshmem's ABI marker: it was
    /// compiled with rshmem's header.
    pub marker: bool,
    /// The object calls OpenSHMEM routines: it has an undefined dynamic symbol of the API.
    pub uses_shmem: bool,
    /// The object defines `shmem_init` and does not forward it to `pshmem_init`: it is an
    /// OpenSHMEM implementation (a profiling tool that wraps the routines defines them too, and
    /// calls the `pshmem_` names).
    pub defines_init: bool,
}

/// Whether `name` is a symbol of the OpenSHMEM API (C, Fortran or the legacy names), of any
/// implementation.
pub fn is_api_name(name: &str) -> bool {
    const PREFIXES: &[&str] = &["shmem_", "pshmem_", "shmemx_", "pshmemx_"];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || crate::runtime::error::LEGACY
            .iter()
            .any(|l| name == *l || name.strip_prefix(l).is_some_and(|rest| rest == "_"))
}

/// Tables larger than this are not read (no real object comes near it).
const MAX_TABLE: u64 = 256 << 20;

const SHT_DYNAMIC: u32 = 6;
const SHT_DYNSYM: u32 = 11;
const DT_NULL: u64 = 0;
const DT_NEEDED: u64 = 1;

/// The object file at `path`, or `None` if it cannot be read as one.
pub fn read(path: &Path) -> Option<Object> {
    let mut file = File::open(path).ok()?;
    let mut header = [0u8; 64];
    file.read_exact(&mut header).ok()?;
    if header[..4] != *b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return None;
    }
    let shoff = u64_at(&header, 0x28)?;
    let shentsize = u16_at(&header, 0x3a)? as u64;
    let shnum = u16_at(&header, 0x3c)? as u64;
    if shoff == 0 || shentsize < 64 || shnum == 0 {
        return None;
    }
    let sections = chunk(&mut file, shoff, shentsize.checked_mul(shnum)?)?;
    let section = |i: u64| -> Option<Section> {
        let at = usize::try_from(i.checked_mul(shentsize)?).ok()?;
        let s = sections.get(at..at + 64)?;
        Some(Section {
            kind: u32_at(s, 4)?,
            offset: u64_at(s, 24)?,
            size: u64_at(s, 32)?,
            link: u32_at(s, 40)? as u64,
        })
    };
    let mut object = Object::default();
    let mut forwards = false;
    for i in 0..shnum {
        let s = section(i)?;
        match s.kind {
            SHT_DYNSYM => {
                let strings = section(s.link)?;
                let names = chunk(&mut file, strings.offset, strings.size)?;
                let symbols = chunk(&mut file, s.offset, s.size)?;
                for sym in symbols.chunks_exact(24).skip(1) {
                    let name = c_string(&names, u32_at(sym, 0)? as usize)?;
                    let defined = u16_at(sym, 6)? != 0;
                    if name == MARKER {
                        object.marker = true;
                    } else if name == "shmem_init" && defined {
                        object.defines_init = true;
                    } else if !defined && is_api_name(name) {
                        object.uses_shmem = true;
                        forwards |= name == "pshmem_init";
                    }
                }
            }
            SHT_DYNAMIC => {
                let strings = section(s.link)?;
                let names = chunk(&mut file, strings.offset, strings.size)?;
                let entries = chunk(&mut file, s.offset, s.size)?;
                for entry in entries.chunks_exact(16) {
                    match u64_at(entry, 0)? {
                        DT_NULL => break,
                        DT_NEEDED => {
                            let name = c_string(&names, u64_at(entry, 8)? as usize)?;
                            object.needed.push(name.to_string());
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    object.defines_init &= !forwards;
    Some(object)
}

struct Section {
    kind: u32,
    offset: u64,
    size: u64,
    link: u64,
}

fn chunk(file: &mut File, offset: u64, size: u64) -> Option<Vec<u8>> {
    if size > MAX_TABLE {
        return None;
    }
    file.seek(SeekFrom::Start(offset)).ok()?;
    let mut bytes = vec![0u8; usize::try_from(size).ok()?];
    file.read_exact(&mut bytes).ok()?;
    Some(bytes)
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The NUL-terminated string at `at` of a string table.
fn c_string(table: &[u8], at: usize) -> Option<&str> {
    let rest = table.get(at..)?;
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_names() {
        for yes in [
            "shmem_init",
            "pshmem_int_p",
            "shmemx_wtime",
            "start_pes",
            "start_pes_",
            "_my_pe",
            "shmalloc",
            "shmem_wait_",
        ] {
            assert!(is_api_name(yes), "{yes}");
        }
        for no in [
            "shm_open",
            "my_pe_count",
            "shmalloc2",
            "memcpy",
            "oshmem_ctx_default",
        ] {
            assert!(!is_api_name(no), "{no}");
        }
    }

    #[test]
    fn reads_the_test_binary_itself() {
        // This test program is an ELF file that links libc and calls no OpenSHMEM routine.
        let me = read(Path::new("/proc/self/exe")).expect("the test binary is an ELF object");
        assert!(me.needed.iter().any(|n| n.starts_with("libc.so")), "{me:?}");
        assert!(!me.marker && !me.uses_shmem && !me.defines_init, "{me:?}");
    }

    #[test]
    fn what_is_not_elf_says_nothing() {
        assert_eq!(read(Path::new("/proc/self/status")), None);
        assert_eq!(read(Path::new("/nonexistent")), None);
    }
}
