//! Which implementation the program was built against, found from the loaded objects: a binary
//! built for a foreign OpenSHMEM needs that implementation's library, so the loader has mapped it
//! next to the preloaded rshmem (it stays loaded, uninitialized, for as long as the process runs).
//!
//! `dl_iterate_phdr` lists the loaded objects; a file name that starts with a personality's
//! `library` (`liboshmem.so`, `libsma.so`) selects it. Then, through `dlopen(RTLD_NOLOAD)` and
//! `dlsym` on that library's own handle, the values its handle symbols hold (SOS initializes
//! `SHMEM_TEAM_WORLD` statically to the address of its own team object), so that a program that
//! reads the foreign copy still names the right rshmem object. With no known library loaded, an
//! object other than rshmem that defines `shmem_init` (found with `dlsym(RTLD_NEXT)`) is an
//! implementation rshmem does not know: an error, never a guess.

use super::tables::{self, HandleSymbol, Personality};
use std::ffi::{CStr, CString, c_int, c_void};

/// The detected personality, with the nonzero values of its library's handle symbols.
pub struct Found {
    pub personality: &'static Personality,
    pub handles: Vec<(&'static HandleSymbol, usize)>,
}

/// The path names of the loaded objects (the executable's is empty).
fn loaded_objects() -> Vec<String> {
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: the loader passes a valid info block; `data` is the Vec given below.
        let (info, names) = unsafe { (&*info, &mut *data.cast::<Vec<String>>()) };
        if !info.dlpi_name.is_null() {
            // SAFETY: dlpi_name is a NUL-terminated string owned by the loader.
            let name = unsafe { CStr::from_ptr(info.dlpi_name) };
            names.push(name.to_string_lossy().into_owned());
        }
        0
    }
    let mut names: Vec<String> = Vec::new();
    // SAFETY: dl_iterate_phdr calls `visit` with valid pointers; `names` outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut names).cast()) };
    names
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The personalities whose library is among `objects`, with the path that matched.
pub fn matching(objects: &[String]) -> Vec<(&'static Personality, String)> {
    tables::ALL[1..]
        .iter()
        .filter_map(|p| {
            objects
                .iter()
                .find(|o| file_name(o).starts_with(p.library))
                .map(|o| (*p, o.clone()))
        })
        .collect()
}

/// The value of data symbol `symbol` as the object `path` itself defines it (0 if it does not).
fn own_value(path: &str, symbol: &str) -> usize {
    let (Ok(path), Ok(symbol)) = (CString::new(path), CString::new(symbol)) else {
        return 0;
    };
    // SAFETY: both strings are NUL-terminated; RTLD_NOLOAD only returns an already loaded object.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
    if handle.is_null() {
        return 0;
    }
    // SAFETY: a valid handle and a NUL-terminated name; the lookup starts at that object.
    let addr = unsafe { libc::dlsym(handle, symbol.as_ptr()) };
    let value = if addr.is_null() {
        0
    } else {
        // SAFETY: the symbol is a handle variable (a pointer) of a loaded, mapped object.
        unsafe { addr.cast::<usize>().read() }
    };
    // SAFETY: drops the reference RTLD_NOLOAD took; the object stays loaded by its other users.
    unsafe { libc::dlclose(handle) };
    value
}

/// The object that defines `shmem_init` after rshmem in the lookup order, if any.
fn other_definition() -> Option<String> {
    // SAFETY: a NUL-terminated name; RTLD_NEXT searches the objects after the caller's.
    let addr = unsafe { libc::dlsym(libc::RTLD_NEXT, c"shmem_init".as_ptr()) };
    if addr.is_null() {
        return None;
    }
    // SAFETY: a zeroed Dl_info is a valid out-parameter.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `addr` is an address in a loaded object; `info` is writable.
    if unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
        return Some(format!("{addr:p}"));
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader.
    Some(
        unsafe { CStr::from_ptr(info.dli_fname) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The personality of this process, or why there is no single one.
pub fn detect() -> Result<Found, String> {
    let objects = loaded_objects();
    let found = matching(&objects);
    match found.as_slice() {
        [] => match other_definition() {
            None => Ok(Found {
                personality: &tables::NATIVE,
                handles: Vec::new(),
            }),
            Some(path) => Err(format!(
                "{path} also defines shmem_init, and rshmem knows no ABI personality for it (known: {}): its constants cannot be translated",
                known()
            )),
        },
        [(p, path)] => Ok(Found {
            personality: p,
            handles: p
                .handles
                .iter()
                .map(|h| (h, own_value(path, h.symbol)))
                .filter(|(_, v)| *v != 0)
                .collect(),
        }),
        several => Err(format!(
            "the process has loaded {}: more than one OpenSHMEM implementation, so the program's constants are ambiguous",
            several
                .iter()
                .map(|(p, path)| format!("{path} ({})", p.name))
                .collect::<Vec<_>>()
                .join(" and ")
        )),
    }
}

fn known() -> String {
    tables::ALL[1..]
        .iter()
        .map(|p| format!("{} ({})", p.name, p.library))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_are_matched_by_file_name() {
        let objs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let m = matching(&objs(&[
            "",
            "/usr/lib/x86_64-linux-gnu/liboshmem.so.40",
            "/lib/libc.so.6",
        ]));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].0.name, tables::OSHMEM_4_1.name);
        let m = matching(&objs(&["/opt/sos/lib/libsma.so.0"]));
        assert_eq!(m[0].0.name, tables::SOS_1_5.name);
        assert!(matching(&objs(&["/x/libsmash.so", "/x/mylibsma.so.1"])).is_empty());
        assert_eq!(
            matching(&objs(&["/a/libsma.so", "/b/liboshmem.so"])).len(),
            2
        );
    }
}
