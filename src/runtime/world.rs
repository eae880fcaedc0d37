//! The `World`: who this PE is, its peers, its symmetric segments and how to reach theirs.
//!
//! Built by `shmem_init` and read-only afterwards (the allocator and the bootstrap, used only by
//! collective calls off the data path, sit behind their own locks). The fast path reads one atomic
//! pointer; NULL means "not initialized" and yields the error every call reports before
//! `shmem_init`. `shmem_finalize` retires the World without unmapping anything; a later
//! `shmem_init` brings it back with an empty heap (repeated initialization, OpenSHMEM 1.6 §9.1.1).

use super::config::{Config, Source};
use super::heap::Heap;
use crate::bootstrap::{self, Bootstrap};
use crate::fatal;
use crate::transport::shm::{self, Segment, control};
use std::sync::atomic::{AtomicI32, AtomicIsize, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Which symmetric segment an address lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    /// The symmetric heap (`shmem_malloc` and friends), after the control block.
    Heap = 0,
    /// The executable's global and static data.
    Data = 1,
}

/// One symmetric segment as every PE sees it: the local range and each peer's base in this process.
pub struct SegmentView {
    pub base: usize,
    pub len: usize,
    pub peers: Box<[usize]>,
}

pub struct World {
    pub me: usize,
    pub npes: usize,
    pub config: Config,
    pub sources: Vec<Source>,
    pub segments: [SegmentView; 2],
    pub heap: Mutex<Heap>,
    /// `SHMEM_THREAD_*` level granted at init.
    pub thread_level: AtomicI32,
    /// Team slots in use on this PE (bit `s` for slot `s`); the predefined teams hold 0 and 1.
    pub team_slots: AtomicU64,
    /// The highest team barrier epoch this PE has used (see `runtime::team`).
    pub epoch_high: AtomicU64,
    /// Active-set collectives: `aset_seen[p]` counts the signals from PE `p` this PE has consumed.
    pub aset_seen: Box<[AtomicU64]>,
    /// The number of collective allocation calls this PE has made.
    pub alloc_seq: AtomicU64,
    /// The mappings, kept alive for the life of the process.
    _mappings: Vec<Segment>,
}

static WORLD: AtomicPtr<World> = AtomicPtr::new(std::ptr::null_mut());
static RETIRED: AtomicPtr<World> = AtomicPtr::new(std::ptr::null_mut());
static INIT: Mutex<()> = Mutex::new(());
static BOOTSTRAP: Mutex<Option<Box<dyn Bootstrap>>> = Mutex::new(None);
/// This PE's rank once known, for error messages; -1 before.
static RANK: AtomicIsize = AtomicIsize::new(-1);

/// The initialized World, or the error every call reports before `shmem_init`.
#[inline(always)]
pub fn get(call: &'static str) -> &'static World {
    let w = WORLD.load(Ordering::Acquire);
    if w.is_null() {
        not_initialized(call);
    }
    // SAFETY: a non-null WORLD points at a leaked, never-freed World.
    unsafe { &*w }
}

/// The initialized World, if any.
pub fn try_get() -> Option<&'static World> {
    let w = WORLD.load(Ordering::Acquire);
    // SAFETY: as in `get`.
    (!w.is_null()).then(|| unsafe { &*w })
}

#[cold]
#[inline(never)]
fn not_initialized(call: &'static str) -> ! {
    if RETIRED.load(Ordering::Acquire).is_null() {
        fatal!(call, "called before shmem_init")
    } else {
        fatal!(call, "called after shmem_finalize")
    }
}

/// "3" once the rank is known, "?" before.
pub fn pe_label() -> String {
    match RANK.load(Ordering::Relaxed) {
        r if r >= 0 => r.to_string(),
        _ => "?".to_string(),
    }
}

/// Runs `f` on the bootstrap if it exists and is not in use (an error raised while it is in use
/// must not deadlock).
pub fn with_bootstrap<R>(f: impl FnOnce(&mut dyn Bootstrap) -> R) -> Option<R> {
    let mut guard = BOOTSTRAP.try_lock().ok()?;
    guard.as_mut().map(|b| f(b.as_mut()))
}

fn bootstrap_lock() -> MutexGuard<'static, Option<Box<dyn Bootstrap>>> {
    BOOTSTRAP.lock().unwrap_or_else(|e| e.into_inner())
}

/// `shmem_init`/`shmem_init_thread`: returns true if this call initialized the library.
pub fn init(call: &'static str, thread_level: i32) -> bool {
    let _serial = INIT.lock().unwrap_or_else(|e| e.into_inner());
    if try_get().is_some() {
        return false;
    }
    let retired = RETIRED.swap(std::ptr::null_mut(), Ordering::AcqRel);
    let world: &'static World = if retired.is_null() {
        Box::leak(Box::new(build(call)))
    } else {
        // SAFETY: RETIRED holds a leaked World, like WORLD.
        let w = unsafe { &*retired };
        w.heap.lock().unwrap_or_else(|e| e.into_inner()).reset();
        w
    };
    world.thread_level.store(thread_level, Ordering::Relaxed);
    world.team_slots.store(0b11, Ordering::Relaxed);
    super::handle::open_predefined_teams(world);
    WORLD.store((world as *const World).cast_mut(), Ordering::Release);
    crate::collectives::barrier::world(world);
    true
}

/// `shmem_finalize`: retires the World (after the caller's final barrier).
pub fn finalize() {
    let _serial = INIT.lock().unwrap_or_else(|e| e.into_inner());
    let w = WORLD.swap(std::ptr::null_mut(), Ordering::AcqRel);
    super::handle::close_created();
    if !w.is_null() {
        RETIRED.store(w, Ordering::Release);
    }
}

/// Says goodbye to the launcher at process exit.
pub fn finalize_bootstrap() {
    if let Some(boot) = bootstrap_lock().as_mut() {
        boot.finalize();
    }
}

/// `/rshmem-<uid>-<pid of the creator>-<job>-<pe>-<heap|data>`: unique per job and PE, and naming
/// its creator so that a later job can remove it if the creator died before unlinking it.
fn segment_name(pid: u32, job: &str, pe: usize, seg: &str) -> String {
    format!("{}{pid}-{job}-{pe}-{seg}", segment_prefix())
}

fn segment_prefix() -> String {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    format!("/rshmem-{uid}-")
}

/// Who runs where: PEs with the same host id share memory.
fn host_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    format!("{}:{}", host.trim(), boot.trim())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == ':' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Builds the World: configuration, bootstrap, segments, peers' mappings.
fn build(call: &'static str) -> World {
    let boot = bootstrap::from_environment()
        .unwrap_or_else(|e| fatal!(call, "cannot reach the launcher: {e}"));
    let (me, npes, job) = (boot.rank(), boot.size(), boot.job_id().to_string());
    RANK.store(me as isize, Ordering::Relaxed);
    *bootstrap_lock() = Some(boot);
    // After the bootstrap, so that a bad value stops the whole job, not just this PE.
    let (config, sources) =
        Config::parse(&|name| std::env::var(name).ok()).unwrap_or_else(|why| fatal!(call, "{why}"));
    let exchange = |f: &mut dyn FnMut(&mut dyn Bootstrap) -> bootstrap::Result<String>| -> String {
        let mut guard = bootstrap_lock();
        let boot = guard.as_mut().expect("bootstrap installed above");
        match f(boot.as_mut()) {
            Ok(v) => v,
            Err(e) => {
                drop(guard);
                fatal!(call, "launcher exchange failed: {e}")
            }
        }
    };

    // Our own segments: the heap (control block + SHMEM_SYMMETRIC_SIZE) and the global data.
    let page = 4096;
    let heap_len = config
        .symmetric_size
        .checked_add(control::CONTROL_SIZE)
        .and_then(|n| n.checked_next_multiple_of(page))
        .unwrap_or_else(|| {
            fatal!(
                call,
                "SHMEM_SYMMETRIC_SIZE = {} is too large",
                config.symmetric_size
            )
        });
    // Segments of this user's jobs whose creator died during its init (between creating and
    // unlinking them) would stay in /dev/shm: remove them.
    Segment::remove_orphans(&segment_prefix());
    let pid = std::process::id();
    let heap_name = segment_name(pid, &job, me, "heap");
    let heap = Segment::create(&heap_name, heap_len).unwrap_or_else(|e| {
        fatal!(
            call,
            "cannot create the symmetric heap of {heap_len} bytes (SHMEM_SYMMETRIC_SIZE): {e}"
        )
    });
    let data_name = segment_name(pid, &job, me, "data");
    let data = match shm::data_segment::find() {
        // SAFETY: the range is the executable's own writable data, page aligned; init runs before
        // the program's other threads may touch symmetric data (they must not call into the
        // library concurrently with shmem_init).
        Some(r) => Some(
            unsafe { Segment::create_over(&data_name, r.start as *mut u8, r.len) }.unwrap_or_else(
                |e| {
                    Segment::unlink(&heap_name);
                    fatal!(
                        call,
                        "cannot share the program's global data ({} bytes): {e}",
                        r.len
                    )
                },
            ),
        ),
        None => None,
    };
    let data_len = data.as_ref().map_or(0, Segment::len);

    // Tell the others, learn about them.
    let host = host_id();
    let mine = format!("{host},{heap_len},{data_len},{pid}");
    exchange(&mut |b| b.put(&format!("rshmem-{me}"), &mine).map(|_| String::new()));
    exchange(&mut |b| b.barrier().map(|_| String::new()));
    let mut mappings = Vec::new();
    let mut heap_peers = vec![0usize; npes];
    let mut data_peers = vec![0usize; npes];
    for pe in 0..npes {
        if pe == me {
            heap_peers[pe] = heap.base();
            data_peers[pe] = data.as_ref().map_or(0, Segment::base);
            continue;
        }
        let theirs = exchange(&mut |b| b.get(&format!("rshmem-{pe}")));
        let fields: Vec<&str> = theirs.split(',').collect();
        if fields.len() != 4 {
            fatal!(
                call,
                "PE {pe} published '{theirs}', not what this library version publishes"
            );
        }
        if fields[0] != host {
            fatal!(
                call,
                "PE {pe} runs on another node ({}); this build of rshmem reaches PEs on its own node only",
                fields[0]
            );
        }
        if fields[1] != heap_len.to_string() {
            fatal!(
                call,
                "PE {pe} has a symmetric heap of {} bytes, this PE {heap_len}: SHMEM_SYMMETRIC_SIZE must be the same on every PE",
                fields[1]
            );
        }
        if fields[2] != data_len.to_string() {
            fatal!(
                call,
                "PE {pe} has {} bytes of global data, this PE {data_len}: every PE must run the same executable",
                fields[2]
            );
        }
        let their_pid: u32 = fields[3].parse().unwrap_or_else(|_| {
            fatal!(
                call,
                "PE {pe} published '{theirs}', not what this library version publishes"
            )
        });
        let h = Segment::open(&segment_name(their_pid, &job, pe, "heap"), heap_len)
            .unwrap_or_else(|e| fatal!(call, "cannot map the symmetric heap of PE {pe}: {e}"));
        heap_peers[pe] = h.base();
        mappings.push(h);
        if data_len > 0 {
            let d = Segment::open(&segment_name(their_pid, &job, pe, "data"), data_len)
                .unwrap_or_else(|e| fatal!(call, "cannot map the global data of PE {pe}: {e}"));
            data_peers[pe] = d.base();
            mappings.push(d);
        }
    }
    // Every PE is on this node (checked above).
    super::wait::configure(npes);
    // Everyone holds a mapping of everyone's segments: the names can go.
    exchange(&mut |b| b.barrier().map(|_| String::new()));
    Segment::unlink(&heap_name);
    Segment::unlink(&data_name);

    let heap_view = SegmentView {
        base: heap.base(),
        len: heap_len,
        peers: heap_peers.into(),
    };
    let data_view = SegmentView {
        base: data.as_ref().map_or(0, Segment::base),
        len: data_len,
        peers: data_peers.into(),
    };
    mappings.push(heap);
    mappings.extend(data);
    let world = World {
        me,
        npes,
        sources,
        heap: Mutex::new(Heap::new(
            control::CONTROL_SIZE,
            control::CONTROL_SIZE + config.symmetric_size,
        )),
        config,
        segments: [heap_view, data_view],
        thread_level: AtomicI32::new(0),
        team_slots: AtomicU64::new(0b11),
        epoch_high: AtomicU64::new(0),
        aset_seen: (0..npes).map(|_| AtomicU64::new(0)).collect(),
        alloc_seq: AtomicU64::new(0),
        _mappings: mappings,
    };
    if me == 0 && (world.config.info || world.config.version) {
        print!("{}", super::info::banner(&world));
    }
    world
}

impl World {
    /// `pe` as an index, or the error naming the call.
    #[inline(always)]
    pub fn check_pe(&self, call: &'static str, pe: i32) -> usize {
        if (pe as u32 as usize) < self.npes {
            pe as usize
        } else {
            bad_pe(call, pe, self.npes)
        }
    }

    /// The segment and offset of a local symmetric address range, if it is one.
    #[inline(always)]
    pub fn locate(&self, addr: usize, len: usize) -> Option<(Seg, usize)> {
        for (seg, s) in [Seg::Heap, Seg::Data].into_iter().zip(&self.segments) {
            let off = addr.wrapping_sub(s.base);
            if off < s.len && len <= s.len - off {
                return Some((seg, off));
            }
        }
        None
    }

    /// The address in this process of `pe`'s copy of the symmetric range `addr..addr+len`; the
    /// error names `call` and the argument `what` if the range is not symmetric.
    #[inline(always)]
    pub fn translate(
        &self,
        call: &'static str,
        what: &str,
        addr: usize,
        len: usize,
        pe: usize,
    ) -> usize {
        match self.locate(addr, len) {
            Some((seg, off)) => self.segments[seg as usize].peers[pe] + off,
            None => not_symmetric(self, call, what, addr, len),
        }
    }

    /// A peer's control block.
    #[inline(always)]
    pub fn control(&self, pe: usize) -> &'static control::Control {
        // SAFETY: peers[pe] of the heap segment is the base of a heap mapping kept for the life of
        // the process (`_mappings`).
        unsafe { control::at(self.segments[Seg::Heap as usize].peers[pe]) }
    }
}

#[cold]
#[inline(never)]
fn bad_pe(call: &'static str, pe: i32, npes: usize) -> ! {
    fatal!(call, "pe = {pe} is outside [0, {npes})")
}

#[cold]
#[inline(never)]
fn not_symmetric(w: &World, call: &'static str, what: &str, addr: usize, len: usize) -> ! {
    for s in &w.segments {
        let off = addr.wrapping_sub(s.base);
        if off < s.len {
            fatal!(
                call,
                "{what} range {addr:#x}+{len} runs past the end of its symmetric segment ({:#x}+{})",
                s.base,
                s.len
            );
        }
    }
    fatal!(
        call,
        "{what} {addr:#x} is not symmetric (neither in the symmetric heap nor in global data)"
    )
}
