//! Raw bindings to UCX (the UCP API of `<ucp/api/ucp.h>`), restricted to what rshmem uses, with
//! UCX itself loaded at run time: nothing here links against libucp, so the crate builds without
//! UCX's headers, libclang or pkg-config, and a program that never calls [`load`] never loads UCX.
//!
//! - The types, constants and prototypes are in `src/bindings.rs`, generated once by bindgen from
//!   the UCX headers and committed (its first line names the UCX and the command that regenerates
//!   it, `src/bin/regen.rs`). C enum values keep their C names as typed constants
//!   (`UCS_OK: ucs_status_t`).
//! - The prototypes become a table of function pointers ([`Functions`]) that [`load`] fills with
//!   `dlsym` from the libucp it opens, and one wrapper per function with the C name and signature
//!   (`ucp_put_nbx(...)`), which calls through the table: callers read as with a linked library.
//!   Calling a wrapper before [`load`] succeeded is a bug of the caller and panics, naming it.
//! - [`load`] accepts a UCX only if it is at least [`MINIMUM_VERSION`] and has every function.
//! - The function-like C macros and `static inline` functions the bindings cannot carry are
//!   re-implemented in [`macros`] (`UCS_PTR_IS_ERR`, `UCS_PTR_STATUS`, `ucp_dt_make_contig`,
//!   `ucp_init`, ...).
//!
//! Everything here is raw: the safe layer, and the choice of which libucp to try, is
//! `rshmem::transport::ucx`.

use std::ffi::{CStr, CString, c_void};
use std::fmt;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// Turns the generated `unsafe extern "C" { pub fn ...; }` block into [`Functions`] (one field per
/// function), its resolution by `dlsym`, the list of names and one wrapper per function.
macro_rules! functions {
    (unsafe extern "C" {
        $( pub fn $name:ident ( $( $arg:ident : $ty:ty ),* $(,)? ) $( -> $ret:ty )? ; )*
    }) => {
        /// The UCX functions, resolved with `dlsym` from the loaded libucp (its dependencies
        /// libucs and libuct provide some, through the loader).
        pub struct Functions {
            $( pub $name: unsafe extern "C" fn( $( $ty ),* ) $( -> $ret )?, )*
        }

        /// The names of the [`Functions`], in table order.
        pub const FUNCTION_NAMES: &[&str] = &[ $( stringify!($name), )* ];

        impl Functions {
            /// Every function of the table from `handle`, or the name of the first missing one.
            ///
            /// # Safety
            /// `handle` is a live `dlopen` handle of a libucp whose functions have the C
            /// prototypes these bindings were generated from.
            pub(crate) unsafe fn resolve(handle: *mut ::std::ffi::c_void) -> Result<Functions, &'static str> {
                Ok(Functions {
                    $( $name: {
                        // SAFETY: the handle is live (caller) and the name is NUL-terminated.
                        let f = unsafe {
                            ::libc::dlsym(handle, concat!(stringify!($name), "\0").as_ptr().cast())
                        };
                        if f.is_null() {
                            return Err(stringify!($name));
                        }
                        // SAFETY: a non-NULL function symbol is its address, and its prototype is
                        // the one bound here (caller); function and data pointers have one size.
                        unsafe {
                            ::std::mem::transmute::<
                                *mut ::std::ffi::c_void,
                                unsafe extern "C" fn( $( $ty ),* ) $( -> $ret )?,
                            >(f)
                        }
                    }, )*
                })
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "` of the loaded libucp (see [`crate::load`]).")]
            ///
            /// # Safety
            /// As the C function; [`crate::load`] has succeeded.
            #[inline(always)]
            pub unsafe fn $name( $( $arg: $ty ),* ) $( -> $ret )? {
                // SAFETY: the caller's contract (`# Safety` above): the C function's own, and
                // `crate::load` has succeeded, so the table entry is the loaded function.
                unsafe { (crate::table().$name)( $( $arg ),* ) }
            }
        )*
    };
}
pub(crate) use functions;

#[allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
mod bindings {
    include!("bindings.rs");
}

pub mod macros;

pub use bindings::*;
pub use macros::*;

/// The oldest UCX the bindings may be used with: `ucp_tag_msg_recv_nbx` came in UCX 1.10 (its
/// NEWS: "Added receive message nbx routine"); every other call and parameter field rshmem uses
/// is in 1.9's `_nbx` API or older. The headers bound are newer (see `UCP_API_MINOR`), but the
/// parameter structs only grow at their end and are read as far as their `field_mask` says, so
/// an older library reads what rshmem sets.
pub const MINIMUM_VERSION: (u32, u32) = (1, 10);

/// The UCX that [`load`] opened.
pub struct Library {
    path: String,
    version: (u32, u32, u32),
    functions: Functions,
}

impl Library {
    /// The file libucp was loaded from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// `ucp_get_version`: major, minor, release.
    pub fn version(&self) -> (u32, u32, u32) {
        self.version
    }
}

static LIBRARY: OnceLock<Library> = OnceLock::new();
/// Held while [`load`] tries the candidates, so that two threads do not both open UCX.
static LOADING: Mutex<()> = Mutex::new(());

/// The loaded UCX, if [`load`] succeeded.
pub fn loaded() -> Option<&'static Library> {
    LIBRARY.get()
}

/// The table of the loaded UCX; a wrapper called before [`load`] is a bug of the caller.
#[inline(always)]
fn table() -> &'static Functions {
    match LIBRARY.get() {
        Some(library) => &library.functions,
        None => not_loaded(),
    }
}

#[cold]
#[inline(never)]
fn not_loaded() -> ! {
    panic!("a UCX function was called before ucx_sys::load opened libucp (a bug of the caller)")
}

/// One candidate that could not be opened, and the loader's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The name or path given to `dlopen`.
    pub name: String,
    /// `dlerror`'s text.
    pub why: String,
}

/// Why [`load`] found no usable UCX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// No candidate could be opened.
    NotFound(Vec<Attempt>),
    /// The first candidate that opened is not one the bindings can use (too old, or a function is
    /// missing); the others were not tried.
    Unusable {
        /// The file that was opened.
        path: String,
        /// Why it cannot be used.
        why: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound(tried) => {
                f.write_str("no UCX library could be loaded; tried:")?;
                for a in tried {
                    write!(f, "\n  {}: {}", a.name, a.why)?;
                }
                Ok(())
            }
            LoadError::Unusable { path, why } => write!(f, "the UCX library {path} {why}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// The libraries a libucp needs, opened before it from its directory, each as its soname or as the
/// unversioned name a wheel (no symbolic links) may ship alone. In dependency order: libucs needs
/// libucm (by soname, which the opened file then answers), libuct and libucp need libucs. libucm
/// calls back into libucs without naming it as a dependency, hence `RTLD_LAZY` for these: its
/// calls are bound when made, once libucs is loaded.
const SIBLINGS: &[[&str; 2]] = &[
    ["libucm.so.0", "libucm.so"],
    ["libucs.so.0", "libucs.so"],
    ["libuct.so.0", "libuct.so"],
];

/// Opens the first of `candidates` that loads, checks it, fills the table and returns it; once
/// that succeeded, later calls return the same library at once. A candidate with a `/` is a file:
/// the UCX libraries beside it (libucm, libucs, libuct) are opened first, from that directory, so
/// that a libucp outside the loader's path (a pip-installed UCX) finds its own. Without a `/` it
/// is a name the dynamic loader looks up (`libucp.so.0`: `LD_LIBRARY_PATH`, the loaded module,
/// the system). libucp is opened `RTLD_NOW | RTLD_GLOBAL` (as if linked; its siblings
/// `RTLD_LAZY`, see `SIBLINGS`), and nothing is ever closed.
///
/// A candidate that does not open is skipped; the first that opens decides: if it is older than
/// [`MINIMUM_VERSION`] or lacks a function, that is the error, naming the file.
pub fn load<S: AsRef<str>>(candidates: &[S]) -> Result<&'static Library, LoadError> {
    let _guard = LOADING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(library) = LIBRARY.get() {
        return Ok(library);
    }
    let mut tried = Vec::new();
    for candidate in candidates {
        let name = candidate.as_ref();
        let Ok(c_name) = CString::new(name) else {
            tried.push(Attempt {
                name: name.to_string(),
                why: "contains a NUL byte".into(),
            });
            continue;
        };
        if name.contains('/') {
            open_siblings(Path::new(name));
        }
        // SAFETY: a NUL-terminated name; dlopen runs the library's constructors, which is what
        // loading UCX means.
        let handle = unsafe { libc::dlopen(c_name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        if handle.is_null() {
            tried.push(Attempt {
                name: name.to_string(),
                why: dl_error(),
            });
            continue;
        }
        // SAFETY: `handle` is live; the library is a libucp (by name), whose functions have the
        // prototypes bound here, checked below to be of a version that has them.
        let library = unsafe { check(handle, name) }?;
        return Ok(LIBRARY.get_or_init(|| library));
    }
    Err(LoadError::NotFound(tried))
}

/// Opens the UCX libraries that sit beside `libucp` (see [`SIBLINGS`]); those absent are left to
/// the loader.
fn open_siblings(libucp: &Path) {
    let Some(dir) = libucp.parent() else { return };
    for names in SIBLINGS {
        let Some(file) = names.iter().map(|n| dir.join(n)).find(|p| p.is_file()) else {
            continue;
        };
        let Ok(c_file) = CString::new(file.as_os_str().as_encoded_bytes()) else {
            continue;
        };
        // SAFETY: a NUL-terminated path of a UCX library; kept open for the life of the process.
        // A failure is left for the dlopen of libucp to report.
        unsafe { libc::dlopen(c_file.as_ptr(), libc::RTLD_LAZY | libc::RTLD_GLOBAL) };
    }
}

/// The version, path and table of the libucp of `handle`.
///
/// # Safety
/// `handle` is a live dlopen handle of a libucp (whose functions have the prototypes bound here
/// when its version is at least [`MINIMUM_VERSION`]).
unsafe fn check(handle: *mut c_void, name: &str) -> Result<Library, LoadError> {
    let unusable = |path: &str, why: String| LoadError::Unusable {
        path: path.to_string(),
        why,
    };
    // SAFETY: the handle is live and the name NUL-terminated.
    let get_version = unsafe { libc::dlsym(handle, c"ucp_get_version".as_ptr()) };
    if get_version.is_null() {
        return Err(unusable(
            name,
            "is not a libucp (it has no ucp_get_version)".into(),
        ));
    }
    let path = file_of(get_version).unwrap_or_else(|| name.to_string());
    type GetVersion = unsafe extern "C" fn(*mut u32, *mut u32, *mut u32);
    // SAFETY: ucp_get_version's prototype, unchanged since UCX 1.0: three unsigned int outputs.
    let get_version = unsafe { std::mem::transmute::<*mut c_void, GetVersion>(get_version) };
    let (mut major, mut minor, mut release) = (0, 0, 0);
    // SAFETY: three writable unsigned ints.
    unsafe { get_version(&mut major, &mut minor, &mut release) };
    if (major, minor) < MINIMUM_VERSION {
        return Err(unusable(
            &path,
            format!(
                "is UCX {major}.{minor}.{release}; rshmem needs UCX {}.{} or newer",
                MINIMUM_VERSION.0, MINIMUM_VERSION.1
            ),
        ));
    }
    // SAFETY: the caller's contract, and the version has every function bound (checked above).
    let functions = unsafe { Functions::resolve(handle) }.map_err(|missing| {
        unusable(
            &path,
            format!("(UCX {major}.{minor}.{release}) has no function {missing}"),
        )
    })?;
    Ok(Library {
        path,
        version: (major, minor, release),
        functions,
    })
}

/// The file of the loaded object that holds `address` (`dladdr`).
fn file_of(address: *mut c_void) -> Option<String> {
    // SAFETY: an all-zero Dl_info is a valid value to be overwritten.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and writes `info`.
    if unsafe { libc::dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader, valid while the object
    // stays loaded (it is never closed).
    Some(
        unsafe { CStr::from_ptr(info.dli_fname) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// `dlerror`'s text for the last failed call of this thread.
fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl call here.
    let text = unsafe { libc::dlerror() };
    if text.is_null() {
        return "unknown error".into();
    }
    // SAFETY: non-NULL: a NUL-terminated string, copied at once.
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The system's UCX (Debian `libucx0`), for the tests that call it.
    pub(crate) fn system() -> &'static Library {
        load(&["libucp.so.0"]).expect("the tests need the system UCX (Debian: libucx0)")
    }

    #[test]
    fn missing_candidates_are_listed_with_the_loaders_reason() {
        // Before any successful load in this process? Other tests may have loaded the system
        // UCX already; then load returns it. Only the error path is checked here, when reached.
        if loaded().is_some() {
            return;
        }
        match load(&["/nonexistent/libucp.so.0", "libucp-no-such.so.0"]) {
            Err(LoadError::NotFound(tried)) => {
                assert_eq!(tried.len(), 2);
                assert_eq!(tried[0].name, "/nonexistent/libucp.so.0");
                assert!(tried[0].why.contains("No such file"), "{:?}", tried[0]);
                assert_eq!(tried[1].name, "libucp-no-such.so.0");
            }
            Err(other) => panic!("{other}"),
            Ok(_) => {}
        }
    }

    #[test]
    fn the_system_ucx_loads_with_every_function() {
        let library = system();
        assert!(library.path().contains("libucp"), "{}", library.path());
        let (major, minor, _) = library.version();
        assert!((major, minor) >= MINIMUM_VERSION);
        assert_eq!(FUNCTION_NAMES.len(), 41);
        // Loading again returns the same library, whatever is asked.
        let again = load(&["/nonexistent"]).expect("already loaded");
        assert!(std::ptr::eq(again, library));
    }

    #[test]
    fn a_library_that_is_not_ucx_is_refused_by_name() {
        // libc opens, but has no ucp_get_version: refused, and the candidates after it are not
        // tried.
        let c_name = c"libc.so.6";
        // SAFETY: opening libc, already loaded in every process.
        let handle = unsafe { libc::dlopen(c_name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!handle.is_null());
        // SAFETY: a live handle; libc is not a libucp, which `check` must say.
        match unsafe { check(handle, "libc.so.6") } {
            Err(LoadError::Unusable { path, why }) => {
                assert_eq!(path, "libc.so.6");
                assert!(why.contains("no ucp_get_version"), "{why}");
            }
            _ => panic!("libc accepted as UCX"),
        }
    }

    #[test]
    fn the_error_names_every_attempt() {
        let e = LoadError::NotFound(vec![
            Attempt {
                name: "libucp.so.0".into(),
                why: "libucp.so.0: cannot open shared object file".into(),
            },
            Attempt {
                name: "/x/libucp.so.0".into(),
                why: "nope".into(),
            },
        ]);
        let text = e.to_string();
        assert!(text.starts_with("no UCX library could be loaded; tried:"));
        assert!(text.contains("\n  libucp.so.0: libucp.so.0: cannot open"));
        assert!(text.contains("\n  /x/libucp.so.0: nope"));
    }
}
