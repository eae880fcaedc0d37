//! The `World`: who this PE is, its peers, its symmetric segments and how to reach theirs.
//!
//! Built by `shmem_init` and read-only afterwards (the allocator and the bootstrap, used only by
//! collective calls off the data path, sit behind their own locks). The fast path reads one atomic
//! pointer; NULL means "not initialized" and yields the error every call reports before
//! `shmem_init`. `shmem_finalize` retires the World without unmapping anything; a later
//! `shmem_init` brings it back with an empty heap (repeated initialization, OpenSHMEM 1.6 §9.1.1).
//!
//! Routes. Each peer is reached one of two ways, decided at init ([`Route`]): its segments mapped
//! into this process (same node: `SegmentView::peers[pe]` is its base here), or over the network
//! (`peers[pe]` is 0, and the operation goes through the job's [`Remote`], the transport seam).
//! `SHMEM_TRANSPORT=ucx` puts every PE on the network route, this one included. An operation asks
//! [`World::target`], whose shared-memory answer costs one test of the peer's base. Puts and gets
//! ask [`World::rma_target`], which also maps a network-route peer whose memory the network maps
//! here itself (UCX's shared-memory transports): the copy the network's put would make, made
//! without the network.
//!
//! One atomic path per job. CPU atomics and NIC atomics on the same word are not atomic with each
//! other, so when some peer is on the network route every atomic (on-node and on this PE's own
//! memory included) goes through the network, and only a job whose PEs all share memory uses CPU
//! atomics ([`World::cpu_atomics`], printed by `SHMEM_INFO`).
//!
//! Building the World (bootstrap, segments, the exchange, mappings, the network) is
//! `runtime::startup`'s job; this module holds it and answers where an access goes.
use super::config::{Config, Source};
use super::heap::Heap;
use crate::bootstrap::Bootstrap;
use crate::fatal;
use crate::transport::shm::memory::Located;
use crate::transport::shm::published::{Lent, Published};
use crate::transport::shm::{Dst, Mapping, Segment, control};
use crate::transport::{self, Remote};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicIsize, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

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
    /// Over the network (the transport seam).
    Net,
}

/// Where an operation on a peer's copy of a symmetric range goes.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// The peer's copy, mapped in this process.
    Mapped(Dst<'static>),
    /// The segment and offset, to reach over the network.
    Net(Seg, usize),
}

const _: () = assert!(Seg::Heap as usize == transport::HEAP);

/// One symmetric segment as this PE sees it (its own copy and its peers'): `transport::shm`'s
/// checked view.
pub use crate::transport::shm::memory::Symmetric as SegmentView;

pub struct World {
    pub me: usize,
    pub npes: usize,
    pub config: Config,
    pub sources: Vec<Source>,
    pub segments: [SegmentView; 2],
    /// What the heap's memory is (this library's segment, or memory the network allocated), in
    /// words for `SHMEM_INFO`.
    pub heap_memory: String,
    pub heap: Mutex<Heap>,
    /// `SHMEM_THREAD_*` level granted at init.
    pub thread_level: AtomicI32,
    /// Team slots in use on this PE (bit `s` for slot `s`); the predefined teams hold 0 and 1.
    pub team_slots: AtomicU64,
    /// Active-set collectives: `aset_seen[p]` counts the signals from PE `p` this PE has consumed.
    pub aset_seen: Box<[AtomicU64]>,
    /// Active-set barrier rounds: `aset_rounds_sent[p]` counts those this PE has signalled PE `p`,
    /// `aset_rounds_seen[p]` those from PE `p` it has consumed.
    pub aset_rounds_sent: Box<[AtomicU64]>,
    pub aset_rounds_seen: Box<[AtomicU64]>,
    /// The number of collective allocation calls this PE has made.
    pub alloc_seq: AtomicU64,
    /// How each PE (this one included) is reached.
    pub routes: Box<[Route]>,
    /// The node of each PE: the lowest PE that shares memory with it (itself when every PE is on
    /// the network route). PEs with the same node share memory; the node-aware collectives
    /// (`collectives::node`) elect one leader per node from it.
    pub nodes: Box<[usize]>,
    /// Whether atomics are CPU atomics on mapped memory (every PE on the shared-memory route);
    /// otherwise every atomic goes through the network (one atomic path per job).
    pub cpu_atomics: bool,
    /// The network between `shmem_init` and `shmem_finalize` when some PE is on the network
    /// route, else nothing; `finalize` takes it back.
    pub(super) remote: Lent<Remote>,
    /// Initializations so far: names the keys of each network exchange.
    pub(super) generation: AtomicU64,
    /// The mappings, kept alive for the life of the process.
    pub(super) _mappings: Vec<Segment>,
}

static WORLD: Published<World> = Published::new();
static RETIRED: Published<World> = Published::new();
/// Serializes `shmem_init` and `shmem_finalize` (`runtime::startup`).
pub(super) static INIT: Mutex<()> = Mutex::new(());
static BOOTSTRAP: Mutex<Option<Box<dyn Bootstrap>>> = Mutex::new(None);
/// This PE's rank once known, for error messages; -1 before.
pub(super) static RANK: AtomicIsize = AtomicIsize::new(-1);

/// The initialized World, or the error every call reports before `shmem_init`.
#[inline(always)]
pub fn get(call: &'static str) -> &'static World {
    match WORLD.get() {
        Some(w) => w,
        None => not_initialized(call),
    }
}

/// The initialized World, if any.
pub fn try_get() -> Option<&'static World> {
    WORLD.get()
}

#[cold]
#[inline(never)]
fn not_initialized(call: &'static str) -> ! {
    if in_child() {
        fatal!(
            call,
            "called in a child process after fork(): a PE's child may not use OpenSHMEM"
        )
    }
    if RETIRED.get().is_none() {
        fatal!(call, "called before shmem_init")
    } else {
        fatal!(call, "called after shmem_finalize")
    }
}

/// True in a child process forked after `shmem_init` (`runtime::fork` sets it first thing).
static IN_CHILD: AtomicBool = AtomicBool::new(false);

/// Whether this process is a child forked from a PE after `shmem_init`.
pub fn in_child() -> bool {
    IN_CHILD.load(Ordering::Relaxed)
}

/// Marks this process as a fork child of a PE (`runtime::fork`'s child handler).
pub fn mark_child() {
    IN_CHILD.store(true, Ordering::Relaxed);
}

/// In a child forked after `shmem_init` (`runtime::fork`): the library is unusable here.
pub fn forget_in_child() {
    WORLD.publish(None);
    RETIRED.publish(None);
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

pub(super) fn bootstrap_lock() -> MutexGuard<'static, Option<Box<dyn Bootstrap>>> {
    BOOTSTRAP.lock().unwrap_or_else(|e| e.into_inner())
}

/// The World that `shmem_init` built or brought back, published: from now on `get` returns it.
pub(super) fn install(world: &'static World) {
    WORLD.publish(Some(world));
}

/// Unpublishes the World (`shmem_finalize`) and keeps it for a later `shmem_init`; `None` if
/// there was none.
pub(super) fn retire() -> Option<&'static World> {
    let w = WORLD.swap(None)?;
    RETIRED.publish(Some(w));
    Some(w)
}

/// The World an earlier `shmem_finalize` retired, taken back (`shmem_init` again).
pub(super) fn take_retired() -> Option<&'static World> {
    RETIRED.swap(None)
}

/// Takes the network out of the World (`shmem_finalize`), if it has one.
pub(super) fn take_remote(w: &World) -> Option<Box<Remote>> {
    // No operation uses it any more: the World is retired, and operations concurrent with
    // shmem_finalize are erroneous (the rule `Lent` rests on).
    w.remote.take()
}

/// Says goodbye to the launcher at process exit.
pub fn finalize_bootstrap() {
    if let Some(boot) = bootstrap_lock().as_mut() {
        boot.finalize();
    }
}

impl World {
    /// The network, if this job has one.
    #[inline(always)]
    pub(crate) fn remote(&self) -> Option<&Remote> {
        if self.cpu_atomics {
            return None;
        }
        Some(self.remote_or_fail())
    }

    /// The network (some PE is on the network route, and the World is initialized).
    #[inline(always)]
    pub(crate) fn remote_or_fail(&self) -> &Remote {
        match self.remote.get() {
            Some(net) => net,
            None => no_network(),
        }
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

    /// The segment of a local symmetric address range and the range in it, if it is one.
    #[inline(always)]
    pub fn find(&self, addr: usize, len: usize) -> Option<(Seg, Located<'_>)> {
        [Seg::Heap, Seg::Data]
            .into_iter()
            .zip(&self.segments)
            .find_map(|(seg, s)| Some((seg, s.locate(addr, len)?)))
    }

    /// The segment and offset of a local symmetric address range, if it is one.
    #[inline(always)]
    pub fn locate(&self, addr: usize, len: usize) -> Option<(Seg, usize)> {
        self.find(addr, len).map(|(seg, at)| (seg, at.off()))
    }

    /// Where an operation on `pe`'s copy of the symmetric range `addr..addr+len` goes: the mapped
    /// address, or the segment and offset to reach over the network; the error names `call` and the
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
        self.resolve(call, what, addr, len, |at| at.peer(pe))
    }

    /// [`World::target`] for a put or a get, and for the collectives' data: also mapped when the
    /// network maps the peer's memory here itself ([`SegmentView::direct`]), since the network's
    /// put or get would then be the same copy. The control words keep to the peer's route
    /// ([`World::control_target`]), and an atomic to [`World::atomic_target`].
    #[inline(always)]
    pub fn rma_target(
        &self,
        call: &'static str,
        what: &str,
        addr: usize,
        len: usize,
        pe: usize,
    ) -> Target {
        self.resolve(call, what, addr, len, |at| at.direct(pe))
    }

    /// The two above: `base` picks the peer's base in the range's segment (0: not mapped).
    #[inline(always)]
    fn resolve(
        &self,
        call: &'static str,
        what: &str,
        addr: usize,
        len: usize,
        copy: impl Fn(Located<'_>) -> Option<Dst<'static>>,
    ) -> Target {
        match self.find(addr, len) {
            Some((seg, at)) => match copy(at) {
                Some(d) => Target::Mapped(d),
                None => Target::Net(seg, at.off()),
            },
            None => not_symmetric(self, call, what, addr, len),
        }
    }

    /// Enters where the network maps the segments of peers on the network route
    /// ([`SegmentView::direct`]), once it is connected: a mapping that covers the whole segment.
    pub(super) fn enter_network_mappings(&self, net: &Remote) {
        for (seg, s) in self.segments.iter().enumerate() {
            for pe in 0..self.npes {
                if s.peer(pe).is_some() || s.len() == 0 {
                    continue;
                }
                let mapping = match net.mapping(pe, seg) {
                    // This PE's own copy through its own view, not a second mapping of it: a
                    // copy between two views of the same pages cannot see that they overlap.
                    Some(m) if m.len() >= s.len() && pe == self.me => Some(s.own()),
                    Some(m) if m.len() >= s.len() => Some(m),
                    _ => None,
                };
                s.set_direct(pe, mapping);
            }
        }
    }

    /// Forgets the network's mappings (before the network closes, which unmaps them).
    pub(super) fn forget_network_mappings(&self) {
        for s in &self.segments {
            for pe in 0..self.npes {
                s.set_direct(pe, s.peer(pe));
            }
        }
    }

    /// [`World::target`] for an atomic: mapped only when the job uses CPU atomics, otherwise
    /// over the network whatever the route (one atomic path per job).
    #[inline(always)]
    pub fn atomic_target(
        &self,
        call: &'static str,
        what: &str,
        addr: usize,
        len: usize,
        pe: usize,
    ) -> Target {
        match self.find(addr, len) {
            Some((_, at)) if self.cpu_atomics => match at.peer(pe) {
                Some(d) => Target::Mapped(d),
                None => not_mapped("a symmetric object", pe),
            },
            Some((seg, at)) => Target::Net(seg, at.off()),
            None => not_symmetric(self, call, what, addr, len),
        }
    }

    /// This PE's own copy of the symmetric range `addr..addr+len`, after the check that it is
    /// symmetric.
    #[inline(always)]
    pub fn own(&self, call: &'static str, what: &str, addr: usize, len: usize) -> Dst<'static> {
        match self.find(addr, len) {
            Some((_, at)) => at.own(),
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

    /// Where `pe`'s segment `seg` is in this process, if this PE reads and writes it directly:
    /// this PE's own, an on-node peer's, or one the network maps here itself
    /// ([`SegmentView::direct`], from connect to finalize); 0 if none.
    #[inline]
    pub fn mapped_base(&self, seg: Seg, pe: usize) -> usize {
        self.mapped(seg, pe).map_or(0, Mapping::base)
    }

    /// [`World::mapped_base`] as the mapping.
    #[inline]
    pub fn mapped(&self, seg: Seg, pe: usize) -> Option<Mapping> {
        let s = &self.segments[seg as usize];
        if pe == self.me {
            s.peer(pe)
        } else {
            s.direct(pe)
        }
    }

    /// A peer's control block, mapped in this process (this PE's own, or an on-node peer's).
    #[inline(always)]
    pub fn control(&self, pe: usize) -> &'static control::Control {
        let heap = &self.segments[Seg::Heap as usize];
        match if pe == self.me {
            Some(heap.own())
        } else {
            heap.peer(pe)
        } {
            Some(heap) => control::of(heap),
            None => not_mapped("the library's control block", pe),
        }
    }

    /// Adds `value` to the word `field` selects in `pe`'s control block: a CPU atomic on a mapped
    /// block, the network's control-word add otherwise (it completes at the target without this PE
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
                super::counters::count(super::counters::Kind::Signal);
                if let Err(e) = self.remote_or_fail().control_add(pe, off, value) {
                    fatal!(call, "signalling PE {pe} over the network: {e}");
                }
            }
        }
    }

    /// Stores `value` into the word `field` selects in `pe`'s control block: a release store into
    /// a mapped block, the network's control-word store otherwise (the target sees the old or the
    /// new word, never a mix).
    pub fn control_store(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
        value: u64,
    ) {
        self.control_write(call, pe, field, value, Remote::control_store);
    }

    /// Raises the word `field` selects in `pe`'s control block to `value`, for a word that only
    /// grows and has one writer per value (a barrier round's epoch, a PE's count of finalizes): a
    /// release store into a mapped block, the network's raise otherwise (one message where a
    /// store may take two). Not ordered after this PE's earlier puts to `pe`: use it after a
    /// quiet, or where nothing precedes it that `pe` reads.
    pub fn control_raise(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
        value: u64,
    ) {
        self.control_write(call, pe, field, value, Remote::control_raise);
    }

    /// As [`World::control_raise`], for a notice sent once that must arrive behind this PE's
    /// earlier raises to `pe` (its finalize: see `runtime::departure`).
    pub fn control_notice(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
        value: u64,
    ) {
        self.control_write(call, pe, field, value, Remote::control_notice);
    }

    /// The three writes above: a release store into a mapped block, `network` otherwise.
    fn control_write(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
        value: u64,
        network: impl FnOnce(&Remote, usize, usize, u64) -> crate::transport::Result<()>,
    ) {
        match self.control_target(pe, &field) {
            Ok(word) => word.store(value, Ordering::Release),
            Err(off) => {
                super::counters::count(super::counters::Kind::Signal);
                if let Err(e) = network(self.remote_or_fail(), pe, off, value) {
                    fatal!(call, "signalling PE {pe} over the network: {e}");
                }
            }
        }
    }

    /// Loads `N` consecutive words of `pe`'s control block from the one `field` selects (acquire
    /// loads in order, or one network load).
    pub fn control_load<const N: usize>(
        &self,
        call: &'static str,
        pe: usize,
        field: impl Fn(&control::Control) -> &AtomicU64,
    ) -> [u64; N] {
        match self.control_target(pe, &field) {
            Ok(word) => {
                // The N words from the selected one, in the heap mapping that holds them.
                let heap = self.segments[Seg::Heap as usize].peer(pe);
                let words = heap.and_then(|m| {
                    let at = (word as *const AtomicU64 as usize).checked_sub(m.base())?;
                    m.at(at, N * size_of::<u64>())
                });
                let Some(words) = words else {
                    fatal!(
                        call,
                        "internal error: {N} control words of PE {pe} outside its heap"
                    )
                };
                std::array::from_fn(|i| words.word::<u64>(i * size_of::<u64>()).load_acquire())
            }
            Err(off) => {
                super::counters::count(super::counters::Kind::Load);
                let mut words = [0u64; N];
                if let Err(e) = self.remote_or_fail().control_load(pe, off, &mut words) {
                    fatal!(
                        call,
                        "reading PE {pe}'s control block over the network: {e}"
                    );
                }
                words
            }
        }
    }

    /// The word of `pe`'s control block that `field` selects: mapped, or its heap offset (for a
    /// caller that fetches many words at once, as `collectives::call` does).
    pub fn control_target<'a>(
        &self,
        pe: usize,
        field: &impl Fn(&control::Control) -> &AtomicU64,
    ) -> Result<&'a AtomicU64, usize> {
        let heap = &self.segments[Seg::Heap as usize];
        if let Some(mapping) = heap.peer(pe) {
            Ok(field(control::of(mapping)))
        } else {
            let mine = self.control(self.me);
            Err(field(mine) as *const AtomicU64 as usize - heap.base())
        }
    }
}

#[cold]
#[inline(never)]
fn no_network() -> ! {
    fatal!(
        "rshmem",
        "internal error: a network operation without a network"
    )
}

#[cold]
#[inline(never)]
fn not_mapped(call: &'static str, pe: usize) -> ! {
    fatal!(
        call,
        "internal error: PE {pe} is on the network route, its memory is not mapped here"
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
        let off = addr.wrapping_sub(s.base());
        if off < s.start() {
            fatal!(
                call,
                "{what} {addr:#x} lies in the library's own part of the symmetric heap, below the program's range {:#x}+{}",
                s.base() + s.start(),
                s.len() - s.start()
            );
        }
        if off < s.len() {
            fatal!(
                call,
                "{what} range {addr:#x}+{len} runs past the end of its symmetric segment ({:#x}+{})",
                s.base() + s.start(),
                s.len() - s.start()
            );
        }
    }
    fatal!(
        call,
        "{what} {addr:#x} is not symmetric (neither in the symmetric heap nor in global data)"
    )
}
