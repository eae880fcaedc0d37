//! The `World`: who this PE is, its peers, its symmetric segments and how to reach theirs.
//!
//! Built by `shmem_init` and read-only afterwards (the allocator and the bootstrap, used only by
//! collective calls off the data path, sit behind their own locks). The fast path reads one atomic
//! pointer; NULL means "not initialized" and yields the error every call reports before
//! `shmem_init`. `shmem_finalize` retires the World without unmapping anything; a later
//! `shmem_init` brings it back with an empty heap (repeated initialization, OpenSHMEM 1.6 §9.1.1).
//!
//! Routes. Each peer is reached one of two ways, decided at init ([`Route`]): its segments mapped
//! into this process (same node: `SegmentView::peers[pe]` is its base here), or over UCX
//! (`peers[pe]` is 0, and the operation goes through the [`Network`]). `SHMEM_TRANSPORT=ucx`
//! puts every PE on the UCX route, this one included. An operation asks [`World::target`], whose
//! shared-memory answer costs one test of the peer's base.
//!
//! One atomic path per job. CPU atomics and NIC atomics on the same word are not atomic with each
//! other, so when some peer is on the UCX route every atomic (on-node and on this PE's own memory
//! included) goes through UCX, and only a job whose PEs all share memory uses CPU atomics
//! ([`World::cpu_atomics`], printed by `SHMEM_INFO`).
use super::config::{Config, Source, Transport};
use super::heap::Heap;
use crate::bootstrap::{self, Bootstrap};
use crate::fatal;
use crate::transport::shm::{self, Segment, control};
use crate::transport::ucx::{self, Network};
use std::sync::atomic::{AtomicI32, AtomicIsize, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Which symmetric segment an address lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    /// The symmetric heap (`shmem_malloc` and friends), after the control block.
    Heap = 0,
    /// The executable's global and static data.
    Data = 1,
}

/// How a peer's memory is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Its segments are mapped into this process: load, store, `memcpy`.
    Shm,
    /// Over UCX.
    Ucx,
}

/// Where an operation on a peer's copy of a symmetric range goes.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// The address of the peer's copy in this process.
    Mapped(usize),
    /// The segment and offset, to reach over UCX.
    Net(Seg, usize),
}

/// How long `shmem_finalize` waits for the endpoints to close before it gives up on a peer.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// One symmetric segment as every PE sees it: the local range and each peer's base in this process
/// (0 for a peer on the UCX route). Offsets are from `base`; the program's part of the segment is
/// `start..len` (the heap's control block and guard lie below it, see `transport::shm::control`).
pub struct SegmentView {
    pub base: usize,
    pub len: usize,
    pub start: usize,
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
    /// How each PE (this one included) is reached.
    pub routes: Box<[Route]>,
    /// Whether atomics are CPU atomics on mapped memory (every PE on the shared-memory route);
    /// otherwise every atomic goes through UCX (one atomic path per job).
    pub cpu_atomics: bool,
    /// The PEs on this node (same host), for the waiting policy.
    pub local_pes: usize,
    /// The UCX network between `shmem_init` and `shmem_finalize` when some PE is on the UCX
    /// route, else NULL. A leaked `Box`, reclaimed by `finalize`.
    net: AtomicPtr<Network>,
    /// Initializations so far: names the keys of each UCX exchange.
    generation: AtomicU64,
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
    if super::fork::in_child() {
        fatal!(
            call,
            "called in a child process after fork(): a PE's child may not use OpenSHMEM"
        )
    }
    if RETIRED.load(Ordering::Acquire).is_null() {
        fatal!(call, "called before shmem_init")
    } else {
        fatal!(call, "called after shmem_finalize")
    }
}

/// In a child forked after `shmem_init` (`runtime::fork`): the library is unusable here.
pub fn forget_in_child() {
    WORLD.store(std::ptr::null_mut(), Ordering::Release);
    RETIRED.store(std::ptr::null_mut(), Ordering::Release);
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
        w.connect(call);
        w
    };
    world.thread_level.store(thread_level, Ordering::Relaxed);
    world.team_slots.store(0b11, Ordering::Relaxed);
    super::handle::open_predefined_teams(world);
    WORLD.store((world as *const World).cast_mut(), Ordering::Release);
    crate::collectives::barrier::world(world);
    true
}

/// `shmem_finalize`: retires the World (after the caller's quiet and final barrier) and takes
/// down its UCX network: every endpoint closed (within `CLOSE_TIMEOUT`: a dead peer cannot hold
/// this PE forever), a bootstrap barrier so that every PE keeps answering until all have closed
/// theirs, then the progress thread stopped.
pub fn finalize(call: &'static str) {
    let _serial = INIT.lock().unwrap_or_else(|e| e.into_inner());
    let w = WORLD.swap(std::ptr::null_mut(), Ordering::AcqRel);
    super::handle::close_created();
    if w.is_null() {
        return;
    }
    RETIRED.store(w, Ordering::Release);
    // SAFETY: a non-null WORLD points at a leaked, never-freed World.
    let w = unsafe { &*w };
    let net = w.net.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if net.is_null() {
        return;
    }
    // SAFETY: `net` came from Box::into_raw in `connect` and was swapped out just now, once; no
    // operation uses it any more (the World is retired, and operations concurrent with
    // shmem_finalize are erroneous).
    let mut net = unsafe { Box::from_raw(net) };
    let closed = net.close(Instant::now() + CLOSE_TIMEOUT);
    bootstrap_barrier(call);
    let stopped = net.stop();
    match closed.and(stopped) {
        Ok(()) => drop(net),
        Err(e) => {
            // Leave what UCX may still use in place: the process is about to end anyway.
            eprintln!("[PE {}] {call}: closing the UCX network: {e}", w.me);
            std::mem::forget(net);
        }
    }
}

/// A barrier of the launcher, or the error naming `call`.
fn bootstrap_barrier(call: &'static str) {
    let failed = bootstrap_lock()
        .as_mut()
        .map(|b| b.barrier())
        .and_then(|r| r.err());
    if let Some(e) = failed {
        fatal!(call, "launcher barrier failed: {e}");
    }
}

/// Says goodbye to the launcher at process exit.
pub fn finalize_bootstrap() {
    if let Some(boot) = bootstrap_lock().as_mut() {
        boot.finalize();
    }
}

/// `/rshmem-<uid>-<pid of the creator>-<job>-<pe>-<random token>-<heap|data>`: unique per job and
/// PE, not guessable (peers learn the token from the creator's record), and naming its creator so
/// that a later job can remove it if the creator died before unlinking it.
fn segment_name(pid: u32, job: &str, pe: usize, token: &str, seg: &str) -> String {
    format!("{}{pid}-{job}-{pe}-{token}-{seg}", segment_prefix())
}

/// The token of a name made by [`segment_name`].
fn segment_token(name: &str) -> &str {
    name.rsplit('-').nth(1).unwrap_or_default()
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

/// Waits until `done()`, moving the default UCX lane's queue meanwhile if the job uses UCX (see
/// [`World::wait_until`]); a plain [`super::wait::until`] otherwise.
pub fn wait_until(done: impl FnMut() -> bool) {
    match try_get() {
        Some(w) => w.wait_until(done),
        None => super::wait::until(done),
    }
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

    // Our own segments: the heap (control block, guard, SHMEM_SYMMETRIC_SIZE) and the global data.
    let page = 4096;
    let heap_len = config
        .symmetric_size
        .checked_add(control::USER_OFFSET)
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
    let name = |seg: &'static str| {
        let job = job.clone();
        move || shm::segment::random_token().map(|t| segment_name(pid, &job, me, &t, seg))
    };
    let (heap, heap_name) = Segment::create_unique(name("heap"), heap_len, control::HEAP_LAYOUT)
        .unwrap_or_else(|e| {
            fatal!(
                call,
                "cannot create the symmetric heap of {heap_len} bytes (SHMEM_SYMMETRIC_SIZE): {e}"
            )
        });
    let mut data_name = String::new();
    let data = shm::data_segment::find().map(|r| {
        // SAFETY: the range is the executable's own writable data, page aligned; init runs before
        // the program's other threads may touch symmetric data (they must not call into the
        // library concurrently with shmem_init).
        let over = unsafe { Segment::create_over(name("data"), r.start as *mut u8, r.len) };
        let (seg, n) = over.unwrap_or_else(|e| {
            Segment::unlink(&heap_name);
            fatal!(
                call,
                "cannot share the program's global data ({} bytes): {e}",
                r.len
            )
        });
        data_name = n;
        seg
    });
    let data_len = data.as_ref().map_or(0, Segment::len);

    // Tell the others, learn about them.
    let host = host_id();
    let transport = config.transport;
    let mine = format!(
        "{host},{heap_len},{data_len},{pid},{},{},{}",
        transport.name(),
        segment_token(&heap_name),
        segment_token(&data_name)
    );
    exchange(&mut |b| b.put(&format!("rshmem-{me}"), &mine).map(|_| String::new()));
    exchange(&mut |b| b.barrier().map(|_| String::new()));
    let mut records = Vec::with_capacity(npes);
    for pe in 0..npes {
        if pe == me {
            records.push((host.clone(), pid, String::new(), String::new()));
            continue;
        }
        let theirs = exchange(&mut |b| b.get(&format!("rshmem-{pe}")));
        let fields: Vec<&str> = theirs.split(',').collect();
        let their_pid = match fields[..] {
            [_, _, _, pid, _, _, _] => pid.parse::<u32>().ok(),
            _ => None,
        };
        let Some(their_pid) = their_pid else {
            fatal!(
                call,
                "PE {pe} published '{theirs}', not what this library version publishes"
            )
        };
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
        if fields[4] != transport.name() {
            fatal!(
                call,
                "PE {pe} has SHMEM_TRANSPORT = {}, this PE {}: it must be the same on every PE",
                fields[4],
                transport.name()
            );
        }
        records.push((
            fields[0].to_string(),
            their_pid,
            fields[5].to_string(),
            fields[6].to_string(),
        ));
    }
    // The routes: shared memory for the PEs of this node unless every PE is forced onto UCX.
    let routes: Box<[Route]> = records
        .iter()
        .map(|(their_host, ..)| match transport {
            Transport::Auto if *their_host == host => Route::Shm,
            _ => Route::Ucx,
        })
        .collect();
    let local_pes = records.iter().filter(|(h, ..)| *h == host).count();

    let mut mappings = Vec::new();
    let mut heap_peers = vec![0usize; npes];
    let mut data_peers = vec![0usize; npes];
    for (pe, (_, their_pid, heap_token, data_token)) in records.iter().enumerate() {
        if routes[pe] == Route::Ucx {
            continue;
        }
        if pe == me {
            heap_peers[pe] = heap.base();
            data_peers[pe] = data.as_ref().map_or(0, Segment::base);
            continue;
        }
        let their_heap = segment_name(*their_pid, &job, pe, heap_token, "heap");
        let h = Segment::open_at(&their_heap, heap_len, control::HEAP_LAYOUT)
            .unwrap_or_else(|e| fatal!(call, "cannot map the symmetric heap of PE {pe}: {e}"));
        heap_peers[pe] = h.base();
        mappings.push(h);
        if data_len > 0 {
            let d = Segment::open(
                &segment_name(*their_pid, &job, pe, data_token, "data"),
                data_len,
            )
            .unwrap_or_else(|e| fatal!(call, "cannot map the global data of PE {pe}: {e}"));
            data_peers[pe] = d.base();
            mappings.push(d);
        }
    }
    super::wait::configure(local_pes);
    // Everyone holds a mapping of its on-node peers' segments: the names can go.
    exchange(&mut |b| b.barrier().map(|_| String::new()));
    Segment::unlink(&heap_name);
    Segment::unlink(&data_name);

    let heap_view = SegmentView {
        base: heap.base(),
        len: heap_len,
        start: control::USER_OFFSET,
        peers: heap_peers.into(),
    };
    let data_view = SegmentView {
        base: data.as_ref().map_or(0, Segment::base),
        len: data_len,
        start: 0,
        peers: data_peers.into(),
    };
    mappings.push(heap);
    mappings.extend(data);
    let cpu_atomics = routes.iter().all(|r| *r == Route::Shm);
    let world = World {
        me,
        npes,
        sources,
        heap: Mutex::new(Heap::new(
            control::USER_OFFSET,
            control::USER_OFFSET + config.symmetric_size,
        )),
        config,
        segments: [heap_view, data_view],
        thread_level: AtomicI32::new(0),
        team_slots: AtomicU64::new(0b11),
        epoch_high: AtomicU64::new(0),
        aset_seen: (0..npes).map(|_| AtomicU64::new(0)).collect(),
        alloc_seq: AtomicU64::new(0),
        routes,
        cpu_atomics,
        local_pes,
        net: AtomicPtr::new(std::ptr::null_mut()),
        generation: AtomicU64::new(0),
        _mappings: mappings,
    };
    world.connect(call);
    if me == 0 && (world.config.info || world.config.version) {
        print!("{}", super::info::banner(&world));
    }
    world
}

impl World {
    /// Builds the UCX network if some PE is on the UCX route: registers both segments, exchanges
    /// the cards through the bootstrap, connects to every PE (this one included, since every
    /// atomic then goes through UCX) and starts the progress thread.
    fn connect(&self, call: &'static str) {
        if self.cpu_atomics {
            return;
        }
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let segments = self.segments.each_ref().map(|s| (s.base, s.len));
        // SAFETY: both segments are mapped read-write for the life of the process (`_mappings`)
        // and accessed by the library only through raw pointers and atomics.
        let local = unsafe { ucx::Local::new(&segments) }
            .unwrap_or_else(|e| fatal!(call, "cannot set up UCX: {e}"));
        let card = local
            .card()
            .unwrap_or_else(|e| fatal!(call, "cannot describe this PE to UCX peers: {e}"));
        let key = |pe: usize| format!("rshmem-ucx{generation}-{pe}");
        let mut cards = Vec::with_capacity(self.npes);
        {
            let mut guard = bootstrap_lock();
            let boot = guard.as_mut().expect("bootstrap installed at init");
            let mut exchange = || -> bootstrap::Result<()> {
                boot.put_large(&key(self.me), &card)?;
                boot.barrier()?;
                for pe in 0..self.npes {
                    cards.push(if pe == self.me {
                        card.clone()
                    } else {
                        boot.get_large(&key(pe))?
                    });
                }
                Ok(())
            };
            if let Err(e) = exchange() {
                drop(guard);
                fatal!(call, "launcher exchange of the UCX cards failed: {e}");
            }
        }
        let net = Network::connect(local, &cards, super::handle::LANES)
            .unwrap_or_else(|e| fatal!(call, "cannot connect to the UCX peers: {e}"));
        self.net
            .store(Box::into_raw(Box::new(net)), Ordering::Release);
    }

    /// The UCX network, if this job uses one.
    #[inline(always)]
    pub fn network(&self) -> Option<&Network> {
        if self.cpu_atomics {
            return None;
        }
        Some(self.net())
    }

    /// Waits until `done()` ([`super::wait::until`]), moving what the default UCX lane has queued
    /// meanwhile when the job uses UCX.
    #[inline]
    pub fn wait_until(&self, done: impl FnMut() -> bool) {
        match self.network() {
            None => super::wait::until(done),
            Some(net) => super::wait::until_polling(done, || net.default_lane().poll()),
        }
    }

    /// The UCX network (some PE is on the UCX route, and the World is initialized).
    #[inline(always)]
    pub fn net(&self) -> &Network {
        let net = self.net.load(Ordering::Acquire);
        if net.is_null() {
            no_network();
        }
        // SAFETY: a non-null `net` is a leaked Box that only `finalize` reclaims, after retiring
        // the World; operations concurrent with shmem_finalize are erroneous.
        unsafe { &*net }
    }

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
            let off = addr.wrapping_sub(s.base + s.start);
            let user = s.len - s.start;
            if off < user && len <= user - off {
                return Some((seg, s.start + off));
            }
        }
        None
    }

    /// Where an operation on `pe`'s copy of the symmetric range `addr..addr+len` goes: the mapped
    /// address, or the segment and offset to reach over UCX; the error names `call` and the
    /// argument `what` if the range is not symmetric.
    #[inline(always)]
    pub fn target(
        &self,
        call: &'static str,
        what: &str,
        addr: usize,
        len: usize,
        pe: usize,
    ) -> Target {
        match self.locate(addr, len) {
            Some((seg, off)) => {
                let base = self.segments[seg as usize].peers[pe];
                if base != 0 {
                    Target::Mapped(base + off)
                } else {
                    Target::Net(seg, off)
                }
            }
            None => not_symmetric(self, call, what, addr, len),
        }
    }

    /// [`World::target`] for an atomic: mapped only when the job uses CPU atomics, otherwise
    /// over UCX whatever the route (one atomic path per job).
    #[inline(always)]
    pub fn atomic_target(
        &self,
        call: &'static str,
        what: &str,
        addr: usize,
        len: usize,
        pe: usize,
    ) -> Target {
        match self.locate(addr, len) {
            Some((seg, off)) if self.cpu_atomics => {
                Target::Mapped(self.segments[seg as usize].peers[pe] + off)
            }
            Some((seg, off)) => Target::Net(seg, off),
            None => not_symmetric(self, call, what, addr, len),
        }
    }

    /// This PE's own copy of the symmetric range `addr..addr+len` (that is, `addr`), after the
    /// check that it is symmetric.
    #[inline(always)]
    pub fn local(&self, call: &'static str, what: &str, addr: usize, len: usize) -> usize {
        match self.locate(addr, len) {
            Some(_) => addr,
            None => not_symmetric(self, call, what, addr, len),
        }
    }

    /// A peer's control block, mapped in this process (this PE's own, or an on-node peer's).
    #[inline(always)]
    pub fn control(&self, pe: usize) -> &'static control::Control {
        let base = if pe == self.me {
            self.segments[Seg::Heap as usize].base
        } else {
            self.segments[Seg::Heap as usize].peers[pe]
        };
        if base == 0 {
            not_mapped("the library's control block", pe);
        }
        // SAFETY: `base` is the base of a heap mapping kept for the life of the process
        // (`_mappings`).
        unsafe { control::at(base) }
    }

    /// Adds `value` to the word `field` selects in `pe`'s control block: a CPU atomic on a mapped
    /// block, a non-fetching UCX atomic otherwise (it completes at the target without this PE
    /// waiting for a reply). `call` names the caller in errors.
    pub fn control_add(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
        value: u64,
    ) {
        match self.control_target(pe, &field) {
            Ok(word) => {
                word.fetch_add(value, Ordering::Release);
            }
            Err(off) => {
                let added = self
                    .net()
                    .default_lane()
                    .rkey(pe, Seg::Heap as usize)
                    .and_then(|k| k.add(off, value));
                if let Err(e) = added {
                    fatal!(call, "signalling PE {pe} over UCX: {e}");
                }
            }
        }
    }

    /// Stores `value` into the word `field` selects in `pe`'s control block: a release store into
    /// a mapped block, an 8-byte put over UCX otherwise (aligned, so the target sees the old or the
    /// new word, never a mix; the put completes locally at once and at the target by progress).
    pub fn control_store(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
        value: u64,
    ) {
        match self.control_target(pe, &field) {
            Ok(word) => word.store(value, Ordering::Release),
            Err(off) => {
                let net = self.net().default_lane();
                // Straight through the key, not `Lane::put`: the word is the library's own, so the
                // program's next quiet need not flush for it (its peer waits for it anyway).
                // SAFETY: `value` lives on this frame until the put completed locally, below.
                let put = net
                    .rkey(pe, Seg::Heap as usize)
                    .and_then(|k| unsafe { k.put_nbi(off, (&raw const value).cast(), 8) });
                if let Err(e) = put.and_then(ucx::Request::wait) {
                    fatal!(call, "signalling PE {pe} over UCX: {e}");
                }
            }
        }
    }

    /// Loads `N` consecutive words of `pe`'s control block from the one `field` selects (acquire
    /// loads in order, or one get over UCX).
    pub fn control_load<const N: usize>(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
    ) -> [u64; N] {
        match self.control_target(pe, &field) {
            Ok(word) => {
                let first: *const AtomicU64 = word;
                std::array::from_fn(|i| {
                    // SAFETY: the caller selects the first of N consecutive words of the control
                    // block (an array of AtomicU64), mapped for the life of the process.
                    unsafe { &*first.add(i) }.load(Ordering::Acquire)
                })
            }
            Err(off) => {
                let mut words = [0u64; N];
                // SAFETY: plain integers, any bit pattern is valid; the slice covers `words`.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), 8 * N)
                };
                let loaded = self
                    .net()
                    .default_lane()
                    .rkey(pe, Seg::Heap as usize)
                    .and_then(|k| k.get(off, bytes));
                if let Err(e) = loaded {
                    fatal!(call, "reading PE {pe}'s control block over UCX: {e}");
                }
                words
            }
        }
    }

    /// The word of `pe`'s control block that `field` selects: mapped, or its heap offset.
    fn control_target<'a>(
        &self,
        pe: usize,
        field: &impl Fn(&control::Control) -> &AtomicU64,
    ) -> Result<&'a AtomicU64, usize> {
        let heap = &self.segments[Seg::Heap as usize];
        let base = heap.peers[pe];
        if base != 0 {
            // SAFETY: a mapped heap segment, kept for the life of the process.
            Ok(field(unsafe { control::at(base) }))
        } else {
            let mine = self.control(self.me);
            Err(field(mine) as *const AtomicU64 as usize - heap.base)
        }
    }
}

#[cold]
#[inline(never)]
fn no_network() -> ! {
    fatal!(
        "rshmem",
        "internal error: a UCX operation without a UCX network"
    )
}

#[cold]
#[inline(never)]
fn not_mapped(call: &'static str, pe: usize) -> ! {
    fatal!(
        call,
        "internal error: PE {pe} is on the UCX route, its memory is not mapped here"
    )
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
        if off < s.start {
            fatal!(
                call,
                "{what} {addr:#x} lies in the library's own part of the symmetric heap, below the program's range {:#x}+{}",
                s.base + s.start,
                s.len - s.start
            );
        }
        if off < s.len {
            fatal!(
                call,
                "{what} range {addr:#x}+{len} runs past the end of its symmetric segment ({:#x}+{})",
                s.base + s.start,
                s.len - s.start
            );
        }
    }
    fatal!(
        call,
        "{what} {addr:#x} is not symmetric (neither in the symmetric heap nor in global data)"
    )
}
