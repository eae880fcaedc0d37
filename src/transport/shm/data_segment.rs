//! Finds the executable's global and static data: the writable `PT_LOAD` segment of the main
//! program (`.data` and `.bss`, which hold C globals and Fortran common blocks), less its RELRO part,
//! which the dynamic linker makes read-only after relocation.

use std::ffi::c_void;

/// The executable's writable data: a page-aligned address range `[start, start + len)`, mapped
/// read-write for the life of the process. Only [`find`] makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    start: usize,
    len: usize,
}

impl Range {
    pub fn start(self) -> usize {
        self.start
    }

    pub fn len(self) -> usize {
        self.len
    }
}

struct Found(Option<Range>);

/// The main program's writable data, page aligned, or `None` if it has none.
pub fn find() -> Option<Range> {
    let mut found = Found(None);
    // SAFETY: dl_iterate_phdr calls `visit` with valid pointers; `found` outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut found).cast()) };
    found.0
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> i32 {
    // SAFETY: the loader passes a valid info block; `data` is the `Found` given to dl_iterate_phdr.
    let (info, found) = unsafe { (&*info, &mut *data.cast::<Found>()) };
    // SAFETY: dlpi_phdr points at dlpi_phnum program headers.
    let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
    let bias = info.dlpi_addr as usize;
    let page = page_size();
    let writable = headers
        .iter()
        .find(|h| h.p_type == libc::PT_LOAD && h.p_flags & libc::PF_W != 0);
    let relro = headers.iter().find(|h| h.p_type == libc::PT_GNU_RELRO);
    if let Some(w) = writable {
        let mut start = bias + w.p_vaddr as usize;
        let end = (bias + (w.p_vaddr + w.p_memsz) as usize).next_multiple_of(page);
        if let Some(r) = relro {
            let relro_end = bias + (r.p_vaddr + r.p_memsz) as usize;
            if relro_end > start && relro_end <= end {
                start = relro_end;
            }
        }
        // The loader maps the segment from the page holding its first byte, and protects only the
        // whole pages of RELRO: the page holding the end of RELRO stays writable.
        let start = start - start % page;
        if start < end {
            found.0 = Some(Range {
                start,
                len: end - start,
            });
        }
    }
    // The first object reported is the main program: stop after it.
    1
}
