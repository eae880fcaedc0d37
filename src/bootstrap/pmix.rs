//! PMIx client through the system libpmix, loaded at run time with `dlopen`: Open MPI's `mpirun`
//! and Slurm's `srun --mpi=pmix` start PEs this way. The library is not linked, so rshmem still
//! loads and runs (singleton, PMI-1) on a machine without libpmix.
//!
//! The conversation: `PMIx_Init` gives our namespace and rank; `PMIx_Get` of the job-level
//! (`PMIX_RANK_WILDCARD`) key `PMIX_JOB_SIZE` gives the size (node locality is the runtime's
//! own check); `put` is `PMIx_Put(PMIX_GLOBAL)` of a string, `barrier` is `PMIx_Commit` then
//! `PMIx_Fence` over the namespace with `PMIX_COLLECT_DATA`, so that `get` (`PMIx_Get` of a peer's
//! key) is answered locally; `abort` is `PMIx_Abort` of the namespace; `finalize` is
//! `PMIx_Finalize`.
//!
//! The structs below mirror `pmix_common.h` (PMIx 4.x, the ABI of `libpmix.so.2`) for the members
//! this client touches; the test `layout_matches_the_system_headers` compiles a C program against
//! the installed headers and compares every size and offset, and the data-type constants.

use super::{Bootstrap, Error, Result};
use std::ffi::{CStr, CString, c_char, c_int, c_void};

/// `PMIX_MAX_NSLEN + 1`.
const NSPACE_LEN: usize = 256;
/// `PMIX_MAX_KEYLEN + 1`.
const KEY_LEN: usize = 512;
const PMIX_SUCCESS: c_int = 0;
const PMIX_RANK_WILDCARD: u32 = u32::MAX - 1;
/// `pmix_data_type_t` values.
const PMIX_BOOL: u16 = 1;
const PMIX_STRING: u16 = 3;
const PMIX_UINT32: u16 = 14;
/// `pmix_scope_t PMIX_GLOBAL`.
const PMIX_GLOBAL: u8 = 3;
const PMIX_JOB_SIZE: &CStr = c"pmix.job.size";
const PMIX_COLLECT_DATA: &CStr = c"pmix.collect";
/// The sonames tried, newest ABI first.
pub(crate) const LIBRARIES: [&CStr; 2] = [c"libpmix.so.2", c"libpmix.so"];

/// `pmix_proc_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Proc {
    nspace: [c_char; NSPACE_LEN],
    rank: u32,
}

/// The members of the `pmix_value_t` data union this client uses; `_whole` gives the union its
/// full size (its largest member, `pmix_envar_t`, is two pointers and a char).
#[repr(C)]
#[derive(Clone, Copy)]
union ValueData {
    flag: bool,
    string: *mut c_char,
    uint32: u32,
    _whole: [usize; 3],
}

/// `pmix_value_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Value {
    kind: u16,
    data: ValueData,
}

/// `pmix_info_t`.
#[repr(C)]
struct Info {
    key: [c_char; KEY_LEN],
    flags: u32,
    value: Value,
}

type InitFn = unsafe extern "C" fn(*mut Proc, *mut Info, usize) -> c_int;
type FinalizeFn = unsafe extern "C" fn(*const Info, usize) -> c_int;
type AbortFn = unsafe extern "C" fn(c_int, *const c_char, *mut Proc, usize) -> c_int;
type PutFn = unsafe extern "C" fn(u8, *const c_char, *mut Value) -> c_int;
type CommitFn = unsafe extern "C" fn() -> c_int;
type FenceFn = unsafe extern "C" fn(*const Proc, usize, *const Info, usize) -> c_int;
type GetFn =
    unsafe extern "C" fn(*const Proc, *const c_char, *const Info, usize, *mut *mut Value) -> c_int;
type ValueDestructFn = unsafe extern "C" fn(*mut Value);
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;

/// The function `name` of the library `handle`, as the function-pointer type `F`.
///
/// # Safety
/// `handle` is a live dlopen handle and `F` is the function-pointer type of `name`'s prototype.
unsafe fn symbol<F: Copy>(handle: *mut c_void, name: &CStr) -> Result<F> {
    const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
    // SAFETY: `handle` is live (caller) and `name` is NUL-terminated.
    let f = unsafe { libc::dlsym(handle, name.as_ptr()) };
    if f.is_null() {
        return Err(Error(format!("libpmix has no {}", name.to_string_lossy())));
    }
    // SAFETY: a non-NULL symbol of a function is its address; `F` is a function pointer of that
    // function's type (caller), of the same size as a data pointer (checked above).
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&f) })
}

/// The libpmix entry points, resolved once.
struct Api {
    init: InitFn,
    finalize: FinalizeFn,
    abort: AbortFn,
    put: PutFn,
    commit: CommitFn,
    fence: FenceFn,
    get: GetFn,
    value_destruct: ValueDestructFn,
    error_string: ErrorStringFn,
}

impl Api {
    /// Opens libpmix and resolves the functions; the handle is never closed (libpmix starts
    /// threads that must outlive any use).
    fn load() -> Result<Api> {
        let mut handle = std::ptr::null_mut();
        for name in LIBRARIES {
            // SAFETY: `name` is a NUL-terminated string; dlopen has no other precondition.
            // RTLD_GLOBAL: libpmix's own plugins resolve symbols of libpmix.
            handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            if !handle.is_null() {
                break;
            }
        }
        if handle.is_null() {
            return Err(Error(
                "PMIX_RANK is set but libpmix cannot be loaded (install libpmix2)".into(),
            ));
        }
        // SAFETY: each field's function-pointer type spells the C prototype of the libpmix function
        // of that name (pmix.h, pmix_common.h), and `handle` is a live dlopen handle.
        unsafe {
            Ok(Api {
                init: symbol(handle, c"PMIx_Init")?,
                finalize: symbol(handle, c"PMIx_Finalize")?,
                abort: symbol(handle, c"PMIx_Abort")?,
                put: symbol(handle, c"PMIx_Put")?,
                commit: symbol(handle, c"PMIx_Commit")?,
                fence: symbol(handle, c"PMIx_Fence")?,
                get: symbol(handle, c"PMIx_Get")?,
                value_destruct: symbol(handle, c"PMIx_Value_destruct")?,
                error_string: symbol(handle, c"PMIx_Error_string")?,
            })
        }
    }

    /// `Err` naming `what` and libpmix's text for `status`, unless it is `PMIX_SUCCESS`.
    fn check(&self, what: &str, status: c_int) -> Result<()> {
        if status == PMIX_SUCCESS {
            return Ok(());
        }
        // SAFETY: PMIx_Error_string accepts any status and returns a static string (or NULL).
        let text = unsafe { (self.error_string)(status) };
        let text = if text.is_null() {
            "unknown error".into()
        } else {
            // SAFETY: a non-NULL result is a NUL-terminated static string.
            unsafe { CStr::from_ptr(text) }.to_string_lossy()
        };
        Err(Error(format!("{what} failed: {text} ({status})")))
    }
}

pub struct Pmix {
    api: Api,
    me: Proc,
    size: usize,
    job_id: String,
    finalized: bool,
}

fn info_bool(key: &CStr, flag: bool) -> Info {
    let mut info = Info {
        key: [0; KEY_LEN],
        flags: 0,
        value: Value {
            kind: PMIX_BOOL,
            data: ValueData { _whole: [0; 3] },
        },
    };
    for (dst, &src) in info.key.iter_mut().zip(key.to_bytes()) {
        *dst = src as c_char;
    }
    info.value.data.flag = flag;
    info
}

fn c_text(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error(format!("{what} contains a NUL byte")))
}

impl Pmix {
    /// Loads libpmix, connects to the local PMIx server and learns the job's shape.
    pub fn connect() -> Result<Pmix> {
        let api = Api::load()?;
        let mut me = Proc {
            nspace: [0; NSPACE_LEN],
            rank: 0,
        };
        // SAFETY: `me` is a valid pmix_proc_t to fill; no info array.
        api.check("PMIx_Init", unsafe {
            (api.init)(&mut me, std::ptr::null_mut(), 0)
        })?;
        // SAFETY: PMIx_Init NUL-terminates the namespace within its 256 bytes.
        let nspace = unsafe { CStr::from_ptr(me.nspace.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let mut pmix = Pmix {
            api,
            me,
            size: 0,
            job_id: nspace
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect(),
            finalized: false,
        };
        let job = Proc {
            rank: PMIX_RANK_WILDCARD,
            ..pmix.me
        };
        let size = pmix.get_value(&job, PMIX_JOB_SIZE, |v| {
            if v.kind != PMIX_UINT32 {
                return None;
            }
            // SAFETY: the type tag says `uint32` is the live member.
            Some(unsafe { v.data.uint32 } as usize)
        })?;
        pmix.size = size.ok_or_else(|| Error("PMIX_JOB_SIZE is not a uint32".into()))?;
        if pmix.me.rank as usize >= pmix.size {
            return Err(Error(format!(
                "PMIx: rank {} of {} PEs makes no sense",
                pmix.me.rank, pmix.size
            )));
        }
        Ok(pmix)
    }

    /// `PMIx_Get(proc, key)`, the value read by `read` and then released.
    fn get_value<T>(
        &self,
        proc_: &Proc,
        key: &CStr,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Result<Option<T>> {
        let mut value: *mut Value = std::ptr::null_mut();
        // SAFETY: `proc_` and `key` are valid for the call; libpmix stores a malloc'ed value.
        let status =
            unsafe { (self.api.get)(proc_, key.as_ptr(), std::ptr::null(), 0, &mut value) };
        self.api.check(
            &format!("PMIx_Get({}, rank {})", key.to_string_lossy(), proc_.rank),
            status,
        )?;
        if value.is_null() {
            return Ok(None);
        }
        // SAFETY: on success `value` points at a pmix_value_t that we own.
        let result = read(unsafe { &*value });
        // SAFETY: PMIX_VALUE_RELEASE: destruct the contents, then free the malloc'ed struct.
        unsafe {
            (self.api.value_destruct)(value);
            libc::free(value.cast());
        }
        Ok(result)
    }
}

/// The rank that published `key`, by the bootstrap's naming rule (`name-<rank>`, or
/// `name-<rank>.<chunk>` for a part of a large value): PMIx looks a key up at its publisher.
/// Other keys are job-level ones, looked up on the namespace as a whole.
fn owner(key: &str) -> Option<u32> {
    let base = key.split('.').next()?;
    base.rsplit_once('-')?.1.parse().ok()
}

/// The text of a `PMIX_STRING` value.
fn string_of(v: &Value) -> Option<String> {
    if v.kind != PMIX_STRING {
        return None;
    }
    // SAFETY: the type tag says `string` is the live member.
    let s = unsafe { v.data.string };
    // SAFETY: a PMIX_STRING value holds a NUL-terminated string (or NULL).
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

impl Bootstrap for Pmix {
    fn rank(&self) -> usize {
        self.me.rank as usize
    }
    fn size(&self) -> usize {
        self.size
    }
    fn job_id(&self) -> &str {
        &self.job_id
    }
    fn put(&mut self, key: &str, value: &str) -> Result<()> {
        let ckey = c_text(key, "a key")?;
        let cvalue = c_text(value, "a value")?;
        let mut v = Value {
            kind: PMIX_STRING,
            data: ValueData { _whole: [0; 3] },
        };
        v.data.string = cvalue.as_ptr().cast_mut();
        // SAFETY: PMIx_Put copies the key and the string value before returning.
        let status = unsafe { (self.api.put)(PMIX_GLOBAL, ckey.as_ptr(), &mut v) };
        self.api.check(&format!("PMIx_Put({key})"), status)
    }
    fn get(&mut self, key: &str) -> Result<String> {
        let ckey = c_text(key, "a key")?;
        let rank = owner(key).unwrap_or(PMIX_RANK_WILDCARD);
        let from = Proc { rank, ..self.me };
        self.get_value(&from, &ckey, string_of)?
            .ok_or_else(|| Error(format!("PMIx: {key} is not a string")))
    }
    fn barrier(&mut self) -> Result<()> {
        // SAFETY: no arguments.
        let status = unsafe { (self.api.commit)() };
        self.api.check("PMIx_Commit", status)?;
        let collect = info_bool(PMIX_COLLECT_DATA, true);
        // SAFETY: NULL procs = every process of our namespace; one valid info.
        let status = unsafe { (self.api.fence)(std::ptr::null(), 0, &collect, 1) };
        self.api.check("PMIx_Fence", status)
    }
    fn abort(&mut self, code: i32) {
        let msg = c"rshmem: the job is aborted (see the PE's message above)";
        // SAFETY: NULL procs = our namespace; the message is NUL-terminated. Best effort: the
        // caller exits right after.
        let _ = unsafe { (self.api.abort)(code, msg.as_ptr(), std::ptr::null_mut(), 0) };
    }
    fn finalize(&mut self) {
        if !self.finalized {
            self.finalized = true;
            // SAFETY: no info array.
            let _ = unsafe { (self.api.finalize)(std::ptr::null(), 0) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};
    use std::process::Command;

    /// Every size, offset and constant the Rust side mirrors, as `name value` lines; the C program
    /// prints the same names from the system headers.
    fn rust_layout() -> Vec<String> {
        let facts: [(&str, usize); 16] = [
            ("sizeof_proc", size_of::<Proc>()),
            ("offsetof_proc_nspace", offset_of!(Proc, nspace)),
            ("offsetof_proc_rank", offset_of!(Proc, rank)),
            ("sizeof_value", size_of::<Value>()),
            ("offsetof_value_type", offset_of!(Value, kind)),
            ("offsetof_value_data", offset_of!(Value, data)),
            ("sizeof_info", size_of::<Info>()),
            ("offsetof_info_key", offset_of!(Info, key)),
            ("offsetof_info_flags", offset_of!(Info, flags)),
            ("offsetof_info_value", offset_of!(Info, value)),
            ("PMIX_BOOL", PMIX_BOOL as usize),
            ("PMIX_STRING", PMIX_STRING as usize),
            ("PMIX_UINT32", PMIX_UINT32 as usize),
            ("PMIX_GLOBAL", PMIX_GLOBAL as usize),
            ("PMIX_RANK_WILDCARD", PMIX_RANK_WILDCARD as usize),
            ("PMIX_SUCCESS", PMIX_SUCCESS as usize),
        ];
        let mut lines: Vec<String> = facts.iter().map(|(n, v)| format!("{n} {v}")).collect();
        for (name, key) in [
            ("PMIX_JOB_SIZE", PMIX_JOB_SIZE),
            ("PMIX_COLLECT_DATA", PMIX_COLLECT_DATA),
        ] {
            lines.push(format!("{name} {}", key.to_string_lossy()));
        }
        lines
    }

    const C_LAYOUT: &str = r#"
#include <stddef.h>
#include <stdio.h>
#include <pmix.h>
#define N(x) printf(#x " %zu\n", (size_t)(x))
#define S(x) printf(#x " %s\n", x)
int main(void) {
    N(sizeof(pmix_proc_t)); N(offsetof(pmix_proc_t, nspace)); N(offsetof(pmix_proc_t, rank));
    N(sizeof(pmix_value_t)); N(offsetof(pmix_value_t, type)); N(offsetof(pmix_value_t, data));
    N(sizeof(pmix_info_t)); N(offsetof(pmix_info_t, key)); N(offsetof(pmix_info_t, flags));
    N(offsetof(pmix_info_t, value));
    N(PMIX_BOOL); N(PMIX_STRING); N(PMIX_UINT32); N(PMIX_GLOBAL); N(PMIX_RANK_WILDCARD);
    N(PMIX_SUCCESS);
    S(PMIX_JOB_SIZE); S(PMIX_COLLECT_DATA);
    return 0;
}
"#;

    /// The C program's lines, renamed to the Rust side's names (same order).
    fn c_layout() -> Vec<String> {
        let cflags = Command::new("pkg-config")
            .args(["--cflags", "pmix"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_else(|| {
                panic!("pkg-config cannot find pmix: install pkg-config and libpmix-dev")
            });
        let dir = std::env::temp_dir().join(format!("rshmem-pmix-layout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (src, exe) = (dir.join("layout.c"), dir.join("layout"));
        std::fs::write(&src, C_LAYOUT).unwrap();
        let cc = Command::new("cc")
            .args(cflags.split_whitespace())
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("cannot run cc");
        assert!(
            cc.status.success(),
            "compiling against pmix.h failed:\n{}",
            String::from_utf8_lossy(&cc.stderr)
        );
        let out = Command::new(&exe)
            .output()
            .expect("cannot run the layout program");
        let _ = std::fs::remove_dir_all(&dir);
        let names = rust_layout();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .zip(&names)
            .map(|(line, rust)| {
                let value = line.rsplit_once(' ').map_or("", |(_, v)| v);
                let name = rust.split_once(' ').map_or("", |(n, _)| n);
                format!("{name} {value}")
            })
            .collect()
    }

    #[test]
    fn layout_matches_the_system_headers() {
        assert_eq!(c_layout(), rust_layout());
    }

    #[test]
    fn keys_name_their_publisher() {
        assert_eq!(owner("rshmem-3"), Some(3));
        assert_eq!(owner("rshmem-12.4"), Some(12));
        assert_eq!(owner("ucx-addr-7"), Some(7));
        assert_eq!(owner("pmix.job.size"), None);
        assert_eq!(owner("rshmem-x"), None);
    }

    #[test]
    fn info_key_is_terminated() {
        let info = info_bool(PMIX_COLLECT_DATA, true);
        // SAFETY: the key array is zero-filled past the copied bytes.
        let key = unsafe { CStr::from_ptr(info.key.as_ptr()) };
        assert_eq!(key, PMIX_COLLECT_DATA);
        assert_eq!(info.value.kind, PMIX_BOOL);
    }
}
