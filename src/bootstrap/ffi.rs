//! The bootstrap's C side, the one file of `bootstrap/` that says `unsafe`: the binding of the
//! system libpmix (loaded at run time with `dlopen`, never linked, so rshmem still loads and runs
//! on a machine without it) behind the safe [`Library`], and the system calls of PMI-1 (the
//! parent-death signal, taking the inherited socket of `PMI_FD`, and Hydra's notice of a failed
//! process).
//!
//! The structs below mirror `pmix_common.h` (PMIx 4.x, the ABI of `libpmix.so.2`) for the members
//! this client touches; the test `layout_matches_the_system_headers` compiles a C program against
//! the installed headers and compares every size and offset, and the data-type constants.
//!
//! Invariants: every call into libpmix goes through a function pointer of the prototype pmix.h
//! gives it, with arguments that live across the call; a value libpmix returns is read by the
//! member its type tag names, then released; the `PMI_FD` descriptor is taken at most once.

#![allow(unsafe_code)]

use super::{Error, Result};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};

/// `PMIX_MAX_NSLEN + 1`.
const NSPACE_LEN: usize = 256;
/// `PMIX_MAX_KEYLEN + 1`.
const KEY_LEN: usize = 512;
const PMIX_SUCCESS: c_int = 0;
/// A non-blocking call done at once: no callback comes.
const PMIX_OPERATION_SUCCEEDED: c_int = -157;
pub(super) const PMIX_RANK_WILDCARD: u32 = u32::MAX - 1;
/// `pmix_data_type_t` values.
const PMIX_BOOL: u16 = 1;
const PMIX_STRING: u16 = 3;
const PMIX_UINT32: u16 = 14;
/// `pmix_scope_t PMIX_GLOBAL`.
const PMIX_GLOBAL: u8 = 3;
pub(super) const PMIX_JOB_SIZE: &CStr = c"pmix.job.size";
const PMIX_COLLECT_DATA: &CStr = c"pmix.collect";
/// The ranks of the namespace on this node, comma-separated (a string).
pub(super) const PMIX_LOCAL_PEERS: &CStr = c"pmix.lpeers";
/// The sonames tried, newest ABI first.
pub(crate) const LIBRARIES: [&CStr; 2] = [c"libpmix.so.2", c"libpmix.so"];

/// `pmix_proc_t`: a process of a namespace.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Proc {
    nspace: [c_char; NSPACE_LEN],
    pub(super) rank: u32,
}

impl Proc {
    /// The namespace's name (up to its NUL; all of it if it has none).
    pub(super) fn nspace(&self) -> String {
        let bytes: Vec<u8> = self
            .nspace
            .iter()
            .map(|&c| c as u8)
            .take_while(|&b| b != 0)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The process `rank` of the same namespace.
    pub(super) fn with_rank(&self, rank: u32) -> Proc {
        Proc { rank, ..*self }
    }
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
/// `pmix_op_cbfunc_t`.
type OpCallback = unsafe extern "C" fn(c_int, *mut c_void);
type FenceNbFn = unsafe extern "C" fn(
    *const Proc,
    usize,
    *const Info,
    usize,
    Option<OpCallback>,
    *mut c_void,
) -> c_int;
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
    // SAFETY: `handle` is live (the caller's promise) and `name` is NUL-terminated; dlsym only
    // reads the loader's tables.
    let f = unsafe { libc::dlsym(handle, name.as_ptr()) };
    if f.is_null() {
        return Err(Error(format!("libpmix has no {}", name.to_string_lossy())));
    }
    // SAFETY: a non-NULL symbol of a function is its address; `F` is a function pointer of that
    // function's type (the caller's promise), of the same size as a data pointer (checked above).
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&f) })
}

/// The libpmix entry points, resolved once; the library is never closed (libpmix starts threads
/// that must outlive any use), so the pointers stay valid for the life of the process.
pub(super) struct Library {
    init: InitFn,
    finalize: FinalizeFn,
    abort: AbortFn,
    put: PutFn,
    commit: CommitFn,
    fence: FenceFn,
    fence_nb: FenceNbFn,
    get: GetFn,
    value_destruct: ValueDestructFn,
    error_string: ErrorStringFn,
}

/// `info` as a `pmix_info_t` holding the flag `flag`.
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

impl Library {
    /// Opens libpmix and resolves the functions.
    pub(super) fn load() -> Result<Library> {
        let mut handle = std::ptr::null_mut();
        for name in LIBRARIES {
            // SAFETY: `name` is a NUL-terminated string; loading runs libpmix's initializers,
            // which is what linking it would do. RTLD_GLOBAL: libpmix's own plugins resolve
            // symbols of libpmix.
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
        // of that name (pmix.h, pmix_common.h), and `handle` is the live handle just opened.
        unsafe {
            Ok(Library {
                init: symbol(handle, c"PMIx_Init")?,
                finalize: symbol(handle, c"PMIx_Finalize")?,
                abort: symbol(handle, c"PMIx_Abort")?,
                put: symbol(handle, c"PMIx_Put")?,
                commit: symbol(handle, c"PMIx_Commit")?,
                fence: symbol(handle, c"PMIx_Fence")?,
                fence_nb: symbol(handle, c"PMIx_Fence_nb")?,
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
        // SAFETY: PMIx_Error_string takes any status by value and returns a static string (or
        // NULL).
        let text = unsafe { (self.error_string)(status) };
        let text = if text.is_null() {
            "unknown error".into()
        } else {
            // SAFETY: a non-NULL result is a NUL-terminated string libpmix keeps for its life.
            unsafe { CStr::from_ptr(text) }.to_string_lossy()
        };
        Err(Error(format!("{what} failed: {text} ({status})")))
    }

    /// `PMIx_Init`: connects to the local PMIx server; this process's namespace and rank.
    pub(super) fn init(&self) -> Result<Proc> {
        let mut me = Proc {
            nspace: [0; NSPACE_LEN],
            rank: 0,
        };
        // SAFETY: `me` is a pmix_proc_t that lives across the call, for libpmix to fill; no info
        // array (NULL, 0).
        let status = unsafe { (self.init)(&mut me, std::ptr::null_mut(), 0) };
        self.check("PMIx_Init", status)?;
        Ok(me)
    }

    /// `PMIx_Get(proc_, key)`, the value read by `read` and then released.
    fn get_value<T>(
        &self,
        proc_: &Proc,
        key: &CStr,
        read: impl FnOnce(&Value) -> Option<T>,
    ) -> Result<Option<T>> {
        let mut value: *mut Value = std::ptr::null_mut();
        // SAFETY: `proc_`, `key` (NUL-terminated) and `value` live across the call; no info
        // array; libpmix stores a pointer to a value it allocated with malloc in `value`.
        let status = unsafe { (self.get)(proc_, key.as_ptr(), std::ptr::null(), 0, &mut value) };
        self.check(
            &format!("PMIx_Get({}, rank {})", key.to_string_lossy(), proc_.rank),
            status,
        )?;
        if value.is_null() {
            return Ok(None);
        }
        // SAFETY: on success a non-NULL `value` points at a pmix_value_t that this caller owns
        // until it releases it below; nothing else refers to it.
        let result = read(unsafe { &*value });
        // SAFETY: PMIX_VALUE_RELEASE of the value owned here, once: destruct the contents, then
        // free the malloc'ed struct; `read`'s borrow has ended.
        unsafe {
            (self.value_destruct)(value);
            libc::free(value.cast());
        }
        Ok(result)
    }

    /// The `PMIX_UINT32` value of `key` at `proc_`, or `None` for another type or none.
    pub(super) fn get_u32(&self, proc_: &Proc, key: &CStr) -> Result<Option<u32>> {
        self.get_value(proc_, key, |v| {
            if v.kind != PMIX_UINT32 {
                return None;
            }
            // SAFETY: the type tag says `uint32` is the live member of the union.
            Some(unsafe { v.data.uint32 })
        })
    }

    /// The `PMIX_STRING` value of `key` at `proc_`, or `None` for another type or none.
    pub(super) fn get_string(&self, proc_: &Proc, key: &CStr) -> Result<Option<String>> {
        self.get_value(proc_, key, string_of)
    }

    /// `PMIx_Put(PMIX_GLOBAL, key, value)` of a string.
    pub(super) fn put_string(&self, key: &CStr, value: &CStr) -> Result<()> {
        let mut v = Value {
            kind: PMIX_STRING,
            data: ValueData { _whole: [0; 3] },
        };
        v.data.string = value.as_ptr().cast_mut();
        // SAFETY: `key`, `value` (NUL-terminated) and `v` live across the call; PMIx_Put copies
        // the key and the string before returning and does not write through the string.
        let status = unsafe { (self.put)(PMIX_GLOBAL, key.as_ptr(), &mut v) };
        self.check(&format!("PMIx_Put({})", key.to_string_lossy()), status)
    }

    /// `PMIx_Commit`, then `PMIx_Fence` over the namespace collecting the data.
    pub(super) fn commit_and_fence(&self) -> Result<()> {
        // SAFETY: PMIx_Commit takes no argument.
        let status = unsafe { (self.commit)() };
        self.check("PMIx_Commit", status)?;
        let collect = info_bool(PMIX_COLLECT_DATA, true);
        // SAFETY: NULL procs (0) = every process of our namespace; one info that lives across
        // the call.
        let status = unsafe { (self.fence)(std::ptr::null(), 0, &collect, 1) };
        self.check("PMIx_Fence", status)
    }

    /// As [`Library::commit_and_fence`], with the fence started by `PMIx_Fence_nb`: while it
    /// runs, `look` is called every `every`, and its error ends the wait (the fence is left to
    /// libpmix: the caller ends the job).
    pub(super) fn commit_and_fence_watching(
        &self,
        every: std::time::Duration,
        mut look: impl FnMut() -> Result<()>,
    ) -> Result<()> {
        // SAFETY: PMIx_Commit takes no argument.
        let status = unsafe { (self.commit)() };
        self.check("PMIx_Commit", status)?;
        // What the callback writes and the info the fence reads: both must live until libpmix
        // calls back, which a fence left behind (an error of `look`) may never do, so the box
        // is given to the callback, and leaked if it never runs.
        let fence = Box::into_raw(Box::new(Fence {
            status: std::sync::atomic::AtomicI32::new(FENCE_RUNNING),
            collect: info_bool(PMIX_COLLECT_DATA, true),
        }));
        // SAFETY: `fence` is a live, leaked box: its info is read by libpmix until the callback,
        // which writes only the atomic status; NULL procs (0) = every process of our namespace.
        let status = unsafe {
            (self.fence_nb)(
                std::ptr::null(),
                0,
                &(*fence).collect,
                1,
                Some(on_fence_done),
                fence.cast(),
            )
        };
        if status == PMIX_OPERATION_SUCCEEDED {
            // Done at once, and no callback comes.
            // SAFETY: the box was never handed to libpmix for a callback: this is its only owner.
            drop(unsafe { Box::from_raw(fence) });
            return Ok(());
        }
        if let Err(e) = self.check("PMIx_Fence_nb", status) {
            // SAFETY: as above: refused, so no callback comes.
            drop(unsafe { Box::from_raw(fence) });
            return Err(e);
        }
        let mut next_look = std::time::Instant::now() + every;
        loop {
            // SAFETY: the box lives until the callback's status is read here (then freed below)
            // or for ever (leaked).
            let status = unsafe { &(*fence).status }.load(std::sync::atomic::Ordering::Acquire);
            if status != FENCE_RUNNING {
                // SAFETY: the callback has run (it wrote the status) and touches the box no more.
                drop(unsafe { Box::from_raw(fence) });
                return self.check("PMIx_Fence_nb", status);
            }
            std::thread::sleep(FENCE_POLL);
            if std::time::Instant::now() >= next_look {
                look()?;
                next_look = std::time::Instant::now() + every;
            }
        }
    }

    /// `PMIx_Abort` of the namespace with `code` and `message` (best effort: the caller exits
    /// right after).
    pub(super) fn abort(&self, code: i32, message: &CStr) {
        // SAFETY: NULL procs (0) = our namespace; the message is NUL-terminated and lives across
        // the call.
        let _ = unsafe { (self.abort)(code, message.as_ptr(), std::ptr::null_mut(), 0) };
    }

    /// `PMIx_Finalize`.
    pub(super) fn finalize(&self) {
        // SAFETY: no info array (NULL, 0).
        let _ = unsafe { (self.finalize)(std::ptr::null(), 0) };
    }
}

/// A fence in flight ([`Library::commit_and_fence_watching`]): its info, and the status its
/// callback writes.
struct Fence {
    status: std::sync::atomic::AtomicI32,
    collect: Info,
}

/// A fence's status before its callback.
const FENCE_RUNNING: c_int = c_int::MIN;

/// How often a watched fence looks whether its callback has run.
const FENCE_POLL: std::time::Duration = std::time::Duration::from_millis(2);

/// `PMIx_Fence_nb`'s callback, on a thread of libpmix: records the status.
unsafe extern "C" fn on_fence_done(status: c_int, cbdata: *mut c_void) {
    // SAFETY: `cbdata` is the `Fence` box handed to PMIx_Fence_nb, alive until its status is
    // seen; the callback runs once.
    let fence = unsafe { &*cbdata.cast::<Fence>() };
    // A status equal to the marker would read as still running: none of PMIx's is.
    fence
        .status
        .store(status, std::sync::atomic::Ordering::Release);
}

/// The text of a `PMIX_STRING` value.
fn string_of(v: &Value) -> Option<String> {
    if v.kind != PMIX_STRING {
        return None;
    }
    // SAFETY: the type tag says `string` is the live member of the union.
    let s = unsafe { v.data.string };
    // SAFETY: a non-NULL PMIX_STRING value holds a NUL-terminated string, owned by the value,
    // which outlives this read.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

/// PMI-1: asks the kernel to send this process SIGKILL when the thread that forked it (its
/// launcher) ends.
pub(super) fn die_with_parent() {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number by value, changes only this
    // process's death signal and touches no memory of ours.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) };
}

/// Set by [`on_failure_notice`]: the launcher signalled that a process of the job failed.
static FAILURE_NOTICE: AtomicBool = AtomicBool::new(false);

/// PMI-1 under Hydra: takes SIGUSR1, which Hydra's proxy sends the processes of a job when one
/// of them failed and Hydra does not end the job itself (`-disable-auto-cleanup`), as that notice
/// ([`failure_noticed`]) instead of the signal's default action, which ends the process without a
/// word (a PE on its way to end the job naming the dead PE died so, by exit status 10). Only
/// where the program has left SIGUSR1 at its default; a handler it installs later replaces this
/// one. The handler has `SA_RESTART`; a sleep of the program that it interrupts returns early,
/// as the signal would have ended the program before.
pub(super) fn take_failure_notices() {
    // SAFETY: an all-zero sigaction is a valid value for sigaction to fill in; with a NULL new
    // action sigaction only writes the current one into `old`, which lives across the call.
    let left_default = unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGUSR1, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_DFL
    };
    if !left_default {
        return;
    }
    // SAFETY: `new` is a sigaction filled in here (zeroed, then its mask emptied by
    // sigemptyset); its handler, `on_failure_notice`, only stores to an atomic (async-signal-safe,
    // errno untouched) and lives as long as the process.
    unsafe {
        let mut new: libc::sigaction = std::mem::zeroed();
        new.sa_sigaction = on_failure_notice as extern "C" fn(c_int) as libc::sighandler_t;
        new.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut new.sa_mask);
        libc::sigaction(libc::SIGUSR1, &new, std::ptr::null_mut());
    }
}

extern "C" fn on_failure_notice(_: c_int) {
    FAILURE_NOTICE.store(true, Ordering::Relaxed);
}

/// Whether the launcher has signalled that a process of the job failed
/// ([`take_failure_notices`]).
pub(crate) fn failure_noticed() -> bool {
    FAILURE_NOTICE.load(Ordering::Relaxed)
}

/// Whether the `PMI_FD` descriptor has been taken.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// PMI-1: the socket the launcher handed this process as descriptor `fd` (`PMI_FD`), owned
/// from now on; an error if it is not an open socket, or if it was taken already.
pub(super) fn inherited_socket(fd: i32) -> Result<UnixStream> {
    // The descriptor must be open and a socket; fstat tells before we take ownership of it.
    // SAFETY: an all-zero stat is a valid value for fstat to fill in; fstat only writes `st`,
    // which lives across the call, and returns -1 for a descriptor that is not open.
    let is_socket = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFSOCK
    };
    if !is_socket {
        return Err(Error(format!("PMI_FD = {fd} is not an open socket")));
    }
    if TAKEN.swap(true, Ordering::AcqRel) {
        return Err(Error(format!("PMI_FD = {fd} is already in use")));
    }
    // SAFETY: `fd` is an open socket (checked) that the launcher handed this process for the PMI
    // conversation; nothing else in the process uses it, and this is the one place that takes
    // it, once (`TAKEN`): the UnixStream is its only owner. Hydra passes a TCP socket, our
    // oshrun a UNIX one: both are plain stream sockets, and UnixStream only reads and writes.
    Ok(unsafe { UnixStream::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};
    use std::process::Command;

    /// Every size, offset and constant the Rust side mirrors, as `name value` lines; the C program
    /// prints the same names from the system headers.
    fn rust_layout() -> Vec<String> {
        let facts: [(&str, usize); 17] = [
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
            (
                "PMIX_OPERATION_SUCCEEDED",
                PMIX_OPERATION_SUCCEEDED as usize,
            ),
        ];
        let mut lines: Vec<String> = facts.iter().map(|(n, v)| format!("{n} {v}")).collect();
        for (name, key) in [
            ("PMIX_JOB_SIZE", PMIX_JOB_SIZE),
            ("PMIX_COLLECT_DATA", PMIX_COLLECT_DATA),
            ("PMIX_LOCAL_PEERS", PMIX_LOCAL_PEERS),
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
    N(PMIX_SUCCESS); N(PMIX_OPERATION_SUCCEEDED);
    S(PMIX_JOB_SIZE); S(PMIX_COLLECT_DATA); S(PMIX_LOCAL_PEERS);
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
    fn info_key_is_terminated() {
        let info = info_bool(PMIX_COLLECT_DATA, true);
        // SAFETY: the key array is zero-filled past the copied bytes, so it holds a NUL within
        // its length, and it lives across the read.
        let key = unsafe { CStr::from_ptr(info.key.as_ptr()) };
        assert_eq!(key, PMIX_COLLECT_DATA);
        assert_eq!(info.value.kind, PMIX_BOOL);
    }
}
