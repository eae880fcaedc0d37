//! What the dynamic loader knows of this process, asked through safe functions: the loaded
//! objects (`dl_iterate_phdr`), whether a symbol is defined (`dlsym`), a loaded object's
//! [`Handle`] and the word its own variable holds, and whether a library could be loaded. The
//! personality detection, `SHMEM_INFO` and the error messages ask.
//!
//! Invariants: every handle `dlopen` returns here is closed once (a [`Handle`] when dropped,
//! any other before its function returns); a variable is read only where the loader says it is
//! at least a word long.

use std::ffi::{CStr, CString, c_int, c_void};

/// One loaded object.
#[derive(Clone, Debug)]
pub struct Object {
    /// The name the loader gave it (empty for the executable).
    pub name: String,
    /// Whether it holds this library's code (rshmem itself, whatever name it was loaded by).
    pub is_self: bool,
}

/// The loaded objects, in the loader's order (the executable first).
pub fn objects() -> Vec<Object> {
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: dl_iterate_phdr passes a valid info block for the duration of the call, and
        // `data` is the `Vec<Object>` that `objects` handed it, borrowed by nothing else meanwhile.
        let (info, objects) = unsafe { (&*info, &mut *data.cast::<Vec<Object>>()) };
        let name = if info.dlpi_name.is_null() {
            String::new()
        } else {
            // SAFETY: a non-NULL dlpi_name is a NUL-terminated string the loader owns and keeps
            // while the object is loaded (at least for this call).
            unsafe { CStr::from_ptr(info.dlpi_name) }
                .to_string_lossy()
                .into_owned()
        };
        let here = self::objects as fn() -> Vec<Object> as *const () as u64;
        let phdrs: &[libc::Elf64_Phdr] = if info.dlpi_phdr.is_null() {
            &[]
        } else {
            // SAFETY: a non-NULL dlpi_phdr points at the object's `dlpi_phnum` program headers,
            // mapped read-only by the loader while the object is loaded.
            unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) }
        };
        let is_self = phdrs.iter().any(|p| {
            let start = info.dlpi_addr.wrapping_add(p.p_vaddr);
            p.p_type == libc::PT_LOAD && here >= start && here - start < p.p_memsz
        });
        objects.push(Object { name, is_self });
        0
    }
    let mut objects: Vec<Object> = Vec::new();
    // SAFETY: `visit` matches the callback's C prototype and only reads what the loader passes;
    // `objects` outlives the call and is reached only through `data` during it.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut objects).cast()) };
    objects
}

/// Whether this process defines a symbol `name` (looked up as the program's own references
/// would be: `RTLD_DEFAULT`).
pub fn defined(name: &str) -> bool {
    let Ok(name) = CString::new(name) else {
        return false;
    };
    // SAFETY: dlsym with the pseudo-handle RTLD_DEFAULT and a NUL-terminated name only looks the
    // symbol up; the address it returns is not used beyond its NULL test.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }.is_null()
}

/// `RTLD_DL_SYMENT` of glibc's `dlfcn.h`: `dladdr1` returns the symbol's `Elf64_Sym`.
const RTLD_DL_SYMENT: c_int = 1;

/// A loaded object as the loader names it: a reference taken with `dlopen(RTLD_NOLOAD)` and
/// dropped with `dlclose` (the object stays loaded). Two handles are equal when they name the
/// same object (how a `DT_NEEDED` name is matched to a loaded file).
#[derive(Debug, PartialEq, Eq)]
pub struct Handle(std::ptr::NonNull<c_void>);

impl Handle {
    /// The loaded object named `name` (a path or a `DT_NEEDED` name; empty: the executable), if
    /// one goes by it; loads nothing.
    pub fn loaded(name: &str) -> Option<Handle> {
        let name = match name {
            "" => None,
            _ => Some(CString::new(name).ok()?),
        };
        // SAFETY: dlopen with RTLD_NOLOAD only returns a handle of an object already loaded
        // (NULL otherwise) and runs no initializer; the name is NUL-terminated, NULL names the
        // executable.
        let handle = unsafe {
            libc::dlopen(
                name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                libc::RTLD_NOLOAD | libc::RTLD_LAZY,
            )
        };
        std::ptr::NonNull::new(handle).map(Handle)
    }

    /// The word the variable `symbol` holds as this object itself defines it (the lookup
    /// starts at the object), or 0 where it defines none or the variable is shorter than a word.
    pub fn word(&self, symbol: &str) -> usize {
        let Ok(symbol) = CString::new(symbol) else {
            return 0;
        };
        // SAFETY: `self.0` is a live handle (closed only by Drop) and the name is
        // NUL-terminated; the lookup reads the loader's tables only.
        let addr = unsafe { libc::dlsym(self.0.as_ptr(), symbol.as_ptr()) };
        if addr.is_null() {
            return 0;
        }
        let mut info = libc::Dl_info {
            dli_fname: std::ptr::null(),
            dli_fbase: std::ptr::null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: std::ptr::null_mut(),
        };
        let mut sym: *mut c_void = std::ptr::null_mut();
        // SAFETY: `info` and `sym` live across the call, which writes them (with RTLD_DL_SYMENT,
        // `sym` becomes a pointer to the loader's Elf64_Sym of the symbol at `addr`).
        let found = unsafe { libc::dladdr1(addr, &mut info, &mut sym, RTLD_DL_SYMENT) } != 0;
        if !found || sym.is_null() || info.dli_saddr != addr {
            return 0;
        }
        // SAFETY: a non-NULL `sym` from dladdr1 points at the symbol's table entry, mapped by
        // the loader while the object is loaded (it is: this handle holds it).
        let size = unsafe { (*sym.cast::<libc::Elf64_Sym>()).st_size } as usize;
        if size < size_of::<usize>() {
            return 0;
        }
        // SAFETY: `addr` starts a variable at least a word long (its symbol's size) in a loaded
        // object's mapped data; any bytes are a `usize`, read unaligned.
        unsafe { addr.cast::<usize>().read_unaligned() }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: drops the one reference `loaded` took; the object stays loaded (the program
        // holds it), so nothing it defines goes away.
        unsafe { libc::dlclose(self.0.as_ptr()) };
    }
}

/// Whether the library `name` can be loaded: opened (`RTLD_LAZY | RTLD_LOCAL`, no symbol bound
/// into the global namespace) and closed at once.
pub fn loadable(name: &CStr) -> bool {
    // SAFETY: a NUL-terminated name; loading runs the library's initializers, which is what
    // loading any system library the program might use does (the libraries asked about are
    // the launchers' client libraries).
    let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return false;
    }
    // SAFETY: `handle` came from the dlopen above and is closed once.
    unsafe { libc::dlclose(handle) };
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loader_knows_this_process() {
        let objects = objects();
        // The test executable holds this code (the library is linked into it).
        assert_eq!(
            objects.iter().filter(|o| o.is_self).count(),
            1,
            "{objects:?}"
        );
        assert!(defined("malloc"));
        assert!(!defined("rshmem_no_such_symbol"));
        assert!(!defined("a\0b"));
        assert!(loadable(c"libc.so.6"));
        assert!(!loadable(c"librshmem-no-such-library.so"));
        let libc = Handle::loaded("libc.so.6").expect("libc is loaded");
        assert_eq!(Handle::loaded("libc.so.6").as_ref(), Some(&libc));
        assert!(Handle::loaded("librshmem-no-such-library.so").is_none());
        // A function is not a variable of a word: 0, never a read of its code.
        assert_eq!(libc.word("rshmem_no_such_symbol"), 0);
    }
}
