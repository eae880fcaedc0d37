//! Which UCX the route loads, and when: on its first use (the network's `connect`, or the
//! allocation of a segment by the network), never before, so a job whose PEs share one node never
//! maps libucp. `ucx_sys::load` opens it; this module chooses the candidates, in order:
//!
//! 1. `SHMEM_UCX_LIB`, when set: that file alone (the path of a `libucp.so.0`; a directory means
//!    the `libucp.so.0`, else the `libucp.so`, in it). The libraries beside it (libucm, libucs,
//!    libuct) are opened from the same directory.
//! 2. `libucp.so.0` by its soname: what the dynamic loader finds (`LD_LIBRARY_PATH`, so the UCX
//!    module the user loaded; then the system's, Debian `libucx0`).
//! 3. The fallbacks, a list of directories each tried for `libucp.so.0` then `libucp.so`: those
//!    of `SHMEM_UCX_SEARCH` (colon-separated; a launcher or a Python wrapper that knows where a
//!    UCX is installed sets it), then the `libucx/lib` directory of a pip-installed UCX (the
//!    `libucx-cu12` wheel) found beside this library: in the directory of `librshmem.so` or one
//!    of its three parents (so `site-packages/libucx/lib` for a library anywhere under
//!    `site-packages/<package>/`). Directories that do not exist are not tried.
//!
//! The settings come from the configuration table at init ([`configure`]); until then (`oshinfo`,
//! unit tests) they are empty. A failure names every candidate tried, why each did not load, and
//! how to get a UCX ([`HOW_TO_GET_ONE`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the user said about where UCX is: `SHMEM_UCX_LIB`, `SHMEM_UCX_SEARCH`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Settings {
    /// A libucp file (or the directory holding one); empty: not set.
    pub(crate) lib: String,
    /// Directories to try after the dynamic loader's search, colon-separated.
    pub(crate) search: String,
}

static SETTINGS: Mutex<Option<Settings>> = Mutex::new(None);

/// The soname of libucp, which the dynamic loader looks up.
const SONAME: &str = "libucp.so.0";
/// The file names tried in each fallback directory: the soname, then the unversioned name that a
/// wheel (which holds no symbolic links) may carry alone.
const FILE_NAMES: [&str; 2] = [SONAME, "libucp.so"];
/// How many levels above this library's directory are searched for `libucx/lib`.
const PIP_LEVELS: usize = 4;

/// How to get a UCX, for the message of a failed load.
pub(crate) const HOW_TO_GET_ONE: &str = "to get one: load your site's UCX module (module load \
     ucx), or install the system's (Debian, Ubuntu: apt-get install libucx0), or pip install \
     libucx-cu12 into the Python environment rshmem is installed in, or set SHMEM_UCX_LIB to the \
     path of a libucp.so.0";

/// Records the settings of this job (at init, before the network's first use).
pub(crate) fn configure(settings: Settings) {
    *SETTINGS.lock().unwrap_or_else(|e| e.into_inner()) = Some(settings);
}

fn settings() -> Settings {
    SETTINGS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default()
}

/// The directories searched for a pip-installed UCX: `<dir>/libucx/lib` for this library's
/// directory and its parents ([`PIP_LEVELS`] in all).
fn pip_directories() -> Vec<PathBuf> {
    let Some(own) = own_file() else {
        return Vec::new();
    };
    own.ancestors()
        .skip(1)
        .take(PIP_LEVELS)
        .map(|dir| dir.join("libucx").join("lib"))
        .collect()
}

/// The file of the object this code is in (`librshmem.so`; a test binary in tests).
fn own_file() -> Option<PathBuf> {
    // SAFETY: an all-zero Dl_info is a valid value to be overwritten.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let address = own_file as fn() -> Option<PathBuf> as *const libc::c_void;
    // SAFETY: dladdr only reads the address and writes `info`.
    if unsafe { libc::dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader; copied at once.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(name.to_string_lossy().into_owned());
    Some(path.canonicalize().unwrap_or(path))
}

/// The candidates for `settings`, in the order tried, and the fallback directories that were
/// skipped because they do not exist (for the message).
fn candidates(settings: &Settings, pip: &[PathBuf]) -> (Vec<String>, Vec<PathBuf>) {
    let lib = settings.lib.trim();
    if !lib.is_empty() {
        let path = Path::new(lib);
        let file = if path.is_dir() {
            FILE_NAMES
                .iter()
                .map(|name| path.join(name))
                .find(|file| file.exists())
                .unwrap_or_else(|| path.join(SONAME))
        } else {
            path.to_path_buf()
        };
        return (vec![file.display().to_string()], Vec::new());
    }
    let mut list = vec![SONAME.to_string()];
    let mut absent = Vec::new();
    let search = settings
        .search
        .split(':')
        .filter(|d| !d.trim().is_empty())
        .map(|d| PathBuf::from(d.trim()));
    for dir in search.chain(pip.iter().cloned()) {
        if !dir.is_dir() {
            absent.push(dir);
            continue;
        }
        for name in FILE_NAMES {
            let file = dir.join(name);
            if file.exists() || name == SONAME {
                list.push(file.display().to_string());
            }
        }
    }
    (list, absent)
}

/// A failed load: what was asked, what the loader said, which fallback directories were absent.
#[derive(Debug)]
pub(crate) struct Failure {
    settings: Settings,
    error: ucx_sys::LoadError,
    absent: Vec<PathBuf>,
}

impl Failure {
    /// The message: `lead`, what was tried and why each failed, and how to get a UCX.
    fn text(&self, lead: &str) -> String {
        let mut text = format!("{lead}{}", self.error);
        if !self.settings.lib.trim().is_empty() {
            text.push_str("\n  (SHMEM_UCX_LIB is set: nothing else is tried)");
        } else if !self.absent.is_empty() {
            let dirs: Vec<String> = self
                .absent
                .iter()
                .map(|d| d.display().to_string())
                .collect();
            text.push_str(&format!(
                "\n  (not there, so not tried: {}; SHMEM_UCX_SEARCH adds directories)",
                dirs.join(", ")
            ));
        }
        let (major, minor) = ucx_sys::MINIMUM_VERSION;
        text.push_str(&format!(
            "\nrshmem needs UCX {major}.{minor} or newer; {HOW_TO_GET_ONE}"
        ));
        text
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            &self.text("this job needs UCX (a PE on another node, or SHMEM_TRANSPORT=ucx), and "),
        )
    }
}

/// Loads UCX (once; later calls return the loaded one), or says what was tried and how to get one.
pub(crate) fn load() -> Result<&'static ucx_sys::Library, Failure> {
    if let Some(library) = ucx_sys::loaded() {
        return Ok(library);
    }
    let settings = settings();
    let (list, absent) = candidates(&settings, &pip_directories());
    let library = ucx_sys::load(&list).map_err(|error| Failure {
        settings,
        error,
        absent,
    })?;
    let (major, minor, release) = library.version();
    tracing::info!(target: "rshmem::ucx", "UCX {major}.{minor}.{release} loaded from {}", library.path());
    Ok(library)
}

/// What `oshinfo` says: the UCX the route would use (loading it, as the first use of the network
/// does): its version and file; or "none" and, on one line, what was tried and how to get one.
pub(crate) fn describe() -> (String, String) {
    match load() {
        Ok(library) => {
            let (major, minor, release) = library.version();
            (
                format!("{major}.{minor}.{release}"),
                library.path().to_string(),
            )
        }
        Err(failure) => (
            "none".to_string(),
            failure
                .text("none: PEs on other nodes cannot be reached; ")
                .replace("\n  ", " ")
                .replace('\n', "; "),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(lib: &str, search: &str) -> Settings {
        Settings {
            lib: lib.into(),
            search: search.into(),
        }
    }

    #[test]
    fn the_users_library_alone_when_set() {
        let (list, absent) = candidates(&settings("/opt/ucx/lib/libucp.so.0", "/x"), &[]);
        assert_eq!(list, ["/opt/ucx/lib/libucp.so.0"]);
        assert!(absent.is_empty());
        // A directory means the libucp in it.
        let dir = std::env::temp_dir();
        let (list, _) = candidates(&settings(dir.to_str().unwrap(), ""), &[]);
        assert_eq!(list, [dir.join("libucp.so.0").display().to_string()]);
    }

    #[test]
    fn the_loaders_choice_then_the_search_directories_then_pip() {
        let root = std::env::temp_dir().join(format!("rshmem-ucx-lib-{}", std::process::id()));
        let search = root.join("search");
        let pip = root.join("site-packages/libucx/lib");
        std::fs::create_dir_all(&search).unwrap();
        std::fs::create_dir_all(&pip).unwrap();
        // The wheel's layout: the unversioned name only.
        std::fs::write(pip.join("libucp.so"), b"").unwrap();
        let missing = root.join("missing");
        let s = settings("", &format!("{}:{}:", search.display(), missing.display()));
        let (list, absent) = candidates(&s, std::slice::from_ref(&pip));
        assert_eq!(
            list,
            [
                "libucp.so.0".to_string(),
                search.join("libucp.so.0").display().to_string(),
                pip.join("libucp.so.0").display().to_string(),
                pip.join("libucp.so").display().to_string(),
            ]
        );
        assert_eq!(absent, [missing]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn pip_is_looked_for_beside_this_library() {
        let dirs = pip_directories();
        assert_eq!(dirs.len(), PIP_LEVELS);
        let own = own_file().expect("dladdr finds this code's file");
        assert_eq!(dirs[0], own.parent().unwrap().join("libucx/lib"));
        assert!(dirs.iter().all(|d| d.ends_with("libucx/lib")));
    }

    #[test]
    fn a_failed_load_says_what_was_tried_and_how_to_get_one() {
        let failure = Failure {
            settings: settings("/nonexistent/libucp.so.0", ""),
            error: ucx_sys::LoadError::NotFound(vec![ucx_sys::Attempt {
                name: "/nonexistent/libucp.so.0".into(),
                why: "cannot open shared object file: No such file or directory".into(),
            }]),
            absent: Vec::new(),
        };
        let text = failure.to_string();
        assert!(text.starts_with(
            "this job needs UCX (a PE on another node, or SHMEM_TRANSPORT=ucx), and no UCX \
             library could be loaded; tried:\n  /nonexistent/libucp.so.0: cannot open"
        ));
        assert!(text.contains("SHMEM_UCX_LIB is set"));
        assert!(text.contains("apt-get install libucx0"));
        assert!(text.contains("pip install libucx-cu12"));
        assert!(text.contains("module"));
        // The fallback directories that are not there are named.
        let failure = Failure {
            settings: settings("", ""),
            absent: vec![PathBuf::from("/x/libucx/lib")],
            ..failure
        };
        assert!(
            failure
                .to_string()
                .contains("(not there, so not tried: /x/libucx/lib; SHMEM_UCX_SEARCH")
        );
    }
}
