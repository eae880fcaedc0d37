//! One PE's UCX network: the context, the registered symmetric segments, the worker its peers
//! reach it through and the progress thread that serves that worker, and one [`Lane`] per shmem
//! context for the operations this PE starts.
//!
//! Two kinds of worker, so that no worker is progressed by two threads taking turns (UCX guards a
//! worker of `UCS_THREAD_MODE_MULTI` with a spinlock; on a busy node the holder gets preempted and
//! the other thread spins out its time slice: barriers over TCP took milliseconds that way):
//! - the *target* worker: its address is the one peers connect to; it answers the peers'
//!   software-emulated puts, gets and atomics. Progressed by this PE's threads while they wait in
//!   the library and by the progress thread while none does ([`super::Server`]);
//! - a *lane* per shmem context (the default one and each created context, opened at the first
//!   use): a worker with an endpoint and the remote keys of every PE, progressed by the thread
//!   that waits for one of its operations (which serves the target worker meanwhile). Quiet and
//!   fence of a context act on its lane only.
//!
//! A third worker, on a context of its own, carries the control signals whose word only grows (a
//! barrier round) to the peers not mapped here, one tagged message each ([`super::signals`]),
//! progressed by the waits of this PE ([`Network::serve`]).
//!
//! Built in two steps so that the runtime can run the exchange through its bootstrap: [`Local`]
//! registers this PE's segments (or takes the memory UCX allocated for them, [`Local::allocate`])
//! and describes them in a [`Local::card`] (text: the target worker's address, the signal
//! worker's, then base, length and packed remote key per segment); [`Network::connect`] takes
//! every PE's card (this PE's included: a PE on the UCX route reaches itself through UCX too),
//! opens the default lane and starts the progress thread.
//!
//! Invariants: every lane has an endpoint and, for each segment a PE registered, a remote key;
//! segment `s` of the cards is segment `s` of every accessor here. [`Network::close`] closes the
//! endpoints within a deadline before the progress thread stops, so the PE keeps answering its
//! peers while they close theirs.
//!
//! Ordering: UCX may deliver a get before an earlier put to the same PE (different lanes of the
//! transport). A lane counts puts issued and the puts a fence has covered; a get or a fetching
//! atomic issued while some put is not covered first fences the worker, so a PE reads what it wrote.
//! A fence, a quiet and that read first send the lane's run of combined puts ([`super::combine`]),
//! and so does every wait in the library, for every lane ([`Network::serve`]); the lane's run of
//! combined gets is issued at those points too, and before each of its puts and atomics, so that
//! a get reads what was there before the lane's later writes.

use super::combine::{Added, COMBINE_MAX};
use super::signals::{Signals, Words};
use super::{
    Combiner, Context, Endpoint, Error, MemoryRegion, ProgressThread, RemoteKey, Request, Result,
    Served, Server, Worker,
};
use crate::transport::HEAP;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;
use ucx_sys::{UCS_ERR_INVALID_PARAM, UCS_ERR_TIMED_OUT};

/// At most how many requests a lane keeps in flight for the program's non-blocking gets, and for
/// its non-blocking puts that UCX could not send at once; the one that makes that many waits for
/// the older half. A program that streams them with no quiet (one thread putting while another
/// quiets) would otherwise queue them faster than the network drains them, in memory without
/// bound: a 2-PE job over TCP was killed for its memory within a minute.
const IN_FLIGHT: usize = 1024;

/// At most how many puts and non-fetching atomics a lane issues between two quiets: the one after
/// them quiets first. Over a network without remote memory access (TCP) UCX acknowledges every put
/// with a message from the target; a stream with no quiet fills the sockets both ways, what UCX
/// cannot send waits in its memory, and the quiet that ends the stream waits for all of it. A 2-PE
/// stream of 2,000,000 8-byte puts each way (`bench/flood.c`) grew each PE by 610-810 MB and its
/// quiet took 2-13 s; with this bound by 1 MB, the quiet under 20 ms, and the stream with its quiet
/// took 3.1-4.4 s instead of 2.7-14.2.
const UNQUIETED: u64 = 65536;

/// How long a lane's flush through its worker's interfaces may take before the lane flushes its
/// endpoints one by one instead ([`Lane::quiet`], [`Worker::flush_within`]): many round trips of
/// any network, and short enough that a quiet held back by other threads' traffic costs little.
const FLUSH_PATIENCE: std::time::Duration = std::time::Duration::from_millis(1);

/// Rounds of a wait between two progresses of the default lane ([`Network::serve`]).
const LANE_POLL: u32 = 4;

/// Rounds of a wait that is not for a signal between two progresses of the signal worker
/// ([`Network::serve`]): rare, but a peer connecting to it (its first signal to this PE) is
/// answered whatever this PE waits for.
const SIGNAL_LOOK: u32 = 64;

/// This PE's side before connecting: the context, the target worker, the registered segments.
pub struct Local {
    context: Context,
    target: Worker,
    /// The worker the peers' control signals arrive at ([`super::signals`]).
    signals: Worker,
    /// Per segment: the region, or `None` for an empty segment.
    regions: Vec<Option<MemoryRegion>>,
}

/// The segment memory UCX allocated ([`Local::allocate`]), kept for the life of the process: the
/// symmetric addresses in it stay valid across `shmem_finalize` and a later `shmem_init`, whose
/// [`Local::new`] registers nothing for it again and uses the context of the first.
static ALLOCATED: Mutex<Vec<MemoryRegion>> = Mutex::new(Vec::new());

/// How [`Local::allocate`] asks UCX for memory: the sysv memory domain only, whatever
/// `UCX_ALLOC_PRIO` says (the library has UCX allocate nothing else). Other methods that place
/// memory at a fixed address do not make it reachable by the shared-memory transports (`mmap`),
/// or reserve the whole length in /dev/shm at once (posix: `posix_fallocate`, so a 1 GiB heap
/// would cost 1 GiB of memory per PE before the program touches it), which the library's own
/// segments do not.
pub(super) const ALLOC_PRIO: (&str, &str) = ("ALLOC_PRIO", "md:sysv");

impl Local {
    /// Has UCX allocate the memory of a segment at `base..base+len` (see
    /// [`MemoryRegion::allocate_at`]), in a context made for it (configured by `UCX_*`, allocating
    /// with the sysv memory domain: [`ALLOC_PRIO`]), so that
    /// UCX's shared-memory transports reach it from this node's other PEs directly, without the
    /// target's worker. The region and its context stay for the life of the process; every
    /// [`Local::new`] uses that context and this region for the segment at `base`. Called before
    /// the first `Local::new`, once per segment; the first call makes the context. On an error
    /// nothing is allocated (what UCX placed over the range is released: the range may be left
    /// unmapped).
    ///
    /// # Safety
    /// As [`MemoryRegion::allocate_at`], and the memory stays mapped for the life of the process:
    /// it is never released.
    pub unsafe fn allocate(base: usize, len: usize) -> Result<()> {
        let mut allocated = ALLOCATED.lock().unwrap_or_else(|e| e.into_inner());
        let context = match allocated.first() {
            Some(region) => region.context(),
            None => Context::with_config(&[ALLOC_PRIO])?,
        };
        // SAFETY: the caller's contract.
        let region = unsafe { MemoryRegion::allocate_at(&context, base as *mut u8, len) }?;
        allocated.push(region);
        Ok(())
    }

    /// A context (RMA, AMO32, AMO64, configured by `UCX_*`), its target worker, and the segments
    /// `(base, len)` registered (an empty one is skipped). The segments UCX allocated
    /// ([`Local::allocate`]) are those regions, and the context theirs; if some non-empty segment
    /// is not one of them, every segment is registered as existing memory (UCX's fence does not
    /// order an access it emulates before one it makes directly: one path for all of a PE's
    /// segments).
    ///
    /// # Safety
    /// Every non-empty segment must be mapped, readable and writable for the life of the process,
    /// and accessed locally only as shared memory (see [`MemoryRegion::map`]).
    pub unsafe fn new(segments: &[(usize, usize)]) -> Result<Local> {
        let allocated = ALLOCATED.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let region_of = |base: usize, len: usize| {
            allocated
                .iter()
                .find(|r| r.base() as usize == base && r.len() == len)
        };
        let direct = segments
            .iter()
            .all(|&(base, len)| len == 0 || region_of(base, len).is_some());
        let context = match allocated.first() {
            Some(region) => region.context(),
            None => Context::new()?,
        };
        let target = Worker::new(&context)?;
        let signals = Signals::worker()?;
        let mut regions = Vec::new();
        for &(base, len) in segments {
            regions.push(match region_of(base, len) {
                _ if len == 0 => None,
                Some(r) if direct => Some(r.clone()),
                // SAFETY: the caller's contract.
                _ => Some(unsafe { MemoryRegion::map(&context, base as *mut u8, len) }?),
            });
        }
        Ok(Local {
            context,
            target,
            signals,
            regions,
        })
    }

    /// What a peer needs to reach this PE: `address/signals/base.len.key/...` in hexadecimal (the
    /// target worker's address, the signal worker's, then the segments).
    pub fn card(&self) -> Result<String> {
        let mut card = hex(&self.target.address()?);
        card.push('/');
        card.push_str(&hex(&self.signals.address()?));
        for region in &self.regions {
            match region {
                Some(r) => {
                    let _ = write!(
                        card,
                        "/{:x}.{:x}.{}",
                        r.base() as usize,
                        r.len(),
                        hex(&r.pack_rkey()?)
                    );
                }
                None => card.push_str("/0.0."),
            }
        }
        Ok(card)
    }
}

/// A PE's card, decoded.
struct Card {
    address: Vec<u8>,
    /// The address of the PE's signal worker.
    signals: Vec<u8>,
    /// Per segment: base, length and packed key, or `None` for an empty segment.
    segments: Vec<Option<(u64, usize, Vec<u8>)>>,
}

impl Card {
    fn parse(text: &str, segments: usize) -> Result<Card> {
        let mut fields = text.split('/');
        let address = fields.next().and_then(unhex).ok_or_else(bad_card)?;
        let signals = fields.next().and_then(unhex).ok_or_else(bad_card)?;
        let mut parsed = Vec::new();
        for segment in fields {
            let mut parts = segment.split('.');
            let mut number = || {
                parts
                    .next()
                    .and_then(|t| usize::from_str_radix(t, 16).ok())
                    .ok_or_else(bad_card)
            };
            let (base, len) = (number()?, number()?);
            let packed = parts.next().and_then(unhex).ok_or_else(bad_card)?;
            parsed.push((len != 0).then_some((base as u64, len, packed)));
        }
        if parsed.len() != segments {
            return Err(bad_card());
        }
        Ok(Card {
            address,
            signals,
            segments: parsed,
        })
    }
}

/// A peer as a lane reaches it.
struct Peer {
    /// Per segment: the key, or `None` for a segment the peer has empty. Dropped before the
    /// endpoint (field order), as UCX requires.
    rkeys: Vec<Option<Arc<RemoteKey>>>,
    endpoint: Endpoint,
}

/// The operations of one shmem context: a worker of their own, an endpoint and the remote keys of
/// every PE, and what quiet and fence need to know.
pub struct Lane {
    peers: Vec<Peer>,
    worker: Worker,
    /// Puts issued, and the count of them the last fence and the last quiet covered.
    puts: AtomicU64,
    fenced: AtomicU64,
    quieted: AtomicU64,
    /// Non-blocking gets still in flight: [`Lane::quiet`] waits for each before it flushes the
    /// worker (a worker flush alone was seen to return before a large get over shared memory had
    /// written all of its destination).
    gets: Mutex<Vec<Request>>,
    /// Non-blocking puts UCX could not send at once (a full socket), until the quiet after them:
    /// kept only to bound how many are in flight ([`IN_FLIGHT`]).
    sends: Mutex<Vec<Request>>,
    /// Whether `gets` or `sends` may hold a request: set under their lock, so that a quiet with
    /// none in flight (the common case: a get into a peer mapped here completes at once, a small
    /// put is sent at once) takes no lock.
    tracking: AtomicBool,
    /// A worker flush that outlasted `FLUSH_PATIENCE`, until it completes ([`Lane::flush`]).
    slow_flush: Mutex<Option<Request>>,
    /// The run of small non-blocking puts to consecutive addresses ([`super::combine`]).
    combiner: Arc<Combiner>,
    /// The PE's target worker's server, whose progress thread sends the run the lane leaves.
    server: Arc<Server>,
}

impl Lane {
    /// A new worker connected to every PE of `cards` (`elsewhere`: as [`Network::connect`]), whose
    /// waits serve `server`.
    fn open(
        context: &Context,
        cards: &[Card],
        elsewhere: &[bool],
        server: &Arc<Server>,
    ) -> Result<Lane> {
        let worker = Worker::serving(context, server)?;
        let mut peers = Vec::with_capacity(cards.len());
        for (pe, card) in cards.iter().enumerate() {
            // SAFETY: the address is the bytes a peer's Worker::address produced (the card format
            // is checked by the decoding; the bytes are UCX's).
            let endpoint = unsafe { worker.connect_to_pe(&card.address, pe, elsewhere[pe]) }?;
            let mut rkeys = Vec::with_capacity(card.segments.len());
            for segment in &card.segments {
                rkeys.push(match segment {
                    Some((base, len, packed)) => {
                        // SAFETY: `packed` is the peer's packed key of the region it registered
                        // at `base..base+len`, as its card says.
                        let key = unsafe { endpoint.unpack_rkey(packed, *base, *len) }?;
                        Some(Arc::new(key))
                    }
                    None => None,
                });
            }
            peers.push(Peer { rkeys, endpoint });
        }
        Ok(Lane {
            peers,
            worker,
            puts: AtomicU64::new(0),
            fenced: AtomicU64::new(0),
            quieted: AtomicU64::new(0),
            gets: Mutex::new(Vec::new()),
            sends: Mutex::new(Vec::new()),
            tracking: AtomicBool::new(false),
            slow_flush: Mutex::new(None),
            combiner: {
                let combiner = Arc::new(Combiner::new());
                server.combine_for(&combiner);
                combiner
            },
            server: server.clone(),
        })
    }

    /// `pe`'s key of segment `seg` (which the caller checked to be non-empty).
    #[inline]
    pub fn rkey(&self, pe: usize, seg: usize) -> Result<&RemoteKey> {
        self.shared_rkey(pe, seg).map(|key| &**key)
    }

    /// [`Lane::rkey`], as the `Arc` a run of the combiner keeps.
    #[inline]
    fn shared_rkey(&self, pe: usize, seg: usize) -> Result<&Arc<RemoteKey>> {
        self.peers[pe].rkeys[seg].as_ref().ok_or(Error {
            call: "a remote access to an empty segment",
            status: UCS_ERR_INVALID_PARAM,
        })
    }

    /// Starts a put of `len` bytes from `src` to `offset` of `pe`'s segment `seg`; the request
    /// completes when `src` may be reused, the data is at the target after [`Lane::quiet`].
    ///
    /// # Safety
    /// `src..src+len` must stay readable and unchanged until the request completes.
    #[inline]
    pub unsafe fn put(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        src: *const u8,
        len: usize,
    ) -> Result<Request> {
        let key = self.rkey(pe, seg)?;
        // The lane's earlier gets read what was there before this put.
        self.combiner.send()?;
        // SAFETY: the caller's contract (`# Safety` above): `src..src+len` stays readable and
        // unchanged until the returned request completes, as `put_nbi` requires.
        let request = unsafe { key.put_nbi(offset, src, len) }?;
        if !key.completes_at_once() {
            self.note_write()?;
        }
        Ok(request)
    }

    /// A put of `len` bytes from `src` to `offset` of `pe`'s segment `seg` that returns when `src`
    /// may be reused (the data is at the target after [`Lane::quiet`]): a small one to a peer not
    /// mapped here joins the lane's run if it continues the lane's last put, else starts at once
    /// ([`super::combine`]), its request waited for.
    ///
    /// # Safety
    /// `src..src+len` must be readable.
    #[inline]
    pub unsafe fn put_blocking(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        src: *const u8,
        len: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract: `src..src+len` is readable for this call, and a request
        // `put_small` returns is waited for before we return, so `src` is not read after.
        match unsafe { self.put_small(pe, seg, offset, src, len, true) }? {
            Some(request) => request.wait(),
            None => Ok(()),
        }
    }

    /// A non-blocking put of `len` bytes from `src` to `offset` of `pe`'s segment `seg`, complete
    /// at [`Lane::quiet`]: a small one to a peer not mapped here goes into the lane's run
    /// ([`super::combine`]; `src` may be reused at once), any other starts at once.
    ///
    /// # Safety
    /// `src..src+len` must stay readable and unchanged until the next quiet.
    #[inline]
    pub unsafe fn put_nbi(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        src: *const u8,
        len: usize,
    ) -> Result<()> {
        // SAFETY: the caller's contract: `src..src+len` stays readable and unchanged until the next
        // quiet, which waits for any request `put_small` returns (held on the lane).
        match unsafe { self.put_small(pe, seg, offset, src, len, false) }? {
            Some(request) => self.hold(request),
            None => Ok(()),
        }
    }

    /// A put as [`Lane::put_nbi`] describes (`eager`: as [`Lane::put_blocking`], a small one that
    /// does not continue the lane's last put starts at once); returns the request of a put issued
    /// at once (`None`: a copy into a mapped peer, or a put into the run).
    ///
    /// # Safety
    /// `src..src+len` must stay readable and unchanged until the request (if any) completes.
    #[inline]
    unsafe fn put_small(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        src: *const u8,
        len: usize,
        eager: bool,
    ) -> Result<Option<Request>> {
        let key = self.shared_rkey(pe, seg)?;
        // A copy into a mapping is complete when it returns: nothing to hold or count.
        // SAFETY: the caller's contract: `src..src+len` is readable now; a mapped put is a copy
        // done on return.
        if unsafe { key.put_if_mapped(offset, src, len) }? {
            return Ok(None);
        }
        if len > COMBINE_MAX {
            // SAFETY: the caller's contract: `src..src+len` stays readable and unchanged until the
            // request returned completes, as `put` requires.
            return unsafe { self.put(pe, seg, offset, src, len) }.map(Some);
        }
        key.check_put(offset, len)?;
        // SAFETY: the caller's contract: `src..src+len` is readable, and unchanged until the issued
        // request (returned) completes; `len` <= COMBINE_MAX is checked just above.
        let added = unsafe { self.combiner.add(key, pe, seg, offset, src, len, eager) }?;
        // Counted once it is in the run or issued (see `combine`'s invariants).
        self.note_write()?;
        Ok(match added {
            Added::Began => {
                self.server.remind();
                None
            }
            Added::Extended => None,
            Added::Issued(request) => Some(request),
        })
    }

    /// Sends the lane's run of combined puts and issues its read run, if it holds them
    /// ([`super::combine`]).
    #[inline]
    pub fn send_run(&self) -> Result<()> {
        self.combiner.send()
    }

    /// Starts a get of `len` bytes from `offset` of `pe`'s segment `seg` into `dst`, ordered after
    /// this lane's earlier puts.
    ///
    /// # Safety
    /// `dst..dst+len` must stay writable and unread until the request completes.
    #[inline]
    pub unsafe fn get(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        dst: *mut u8,
        len: usize,
    ) -> Result<Request> {
        self.order_reads()?;
        // SAFETY: the caller's contract (`# Safety` above): `dst..dst+len` stays writable and
        // unread until the returned request completes, as the key's `get_nbi` requires.
        unsafe { self.rkey(pe, seg)?.get_nbi(offset, dst, len) }
    }

    /// A non-blocking get of `len` bytes from `offset` of `pe`'s segment `seg` into `dst`, ordered
    /// after this lane's earlier puts and complete at [`Lane::quiet`]: a small one from a peer not
    /// mapped here that continues the lane's last get joins its read run ([`super::combine`]),
    /// any other starts at once.
    ///
    /// # Safety
    /// `dst..dst+len` must stay writable and unread until the next quiet.
    #[inline]
    pub unsafe fn get_nbi(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        dst: *mut u8,
        len: usize,
    ) -> Result<()> {
        let key = self.shared_rkey(pe, seg)?;
        if len > COMBINE_MAX || key.completes_at_once() {
            // SAFETY: the caller's contract: `dst..dst+len` stays writable and unread until the
            // next quiet, which completes the request `track`ed here.
            let request = unsafe { self.get(pe, seg, offset, dst, len) }?;
            return self.track(request);
        }
        key.check_get(offset, len)?;
        self.order_reads()?;
        // SAFETY: the caller's contract: `dst..dst+len` stays writable and unread until the next
        // quiet, as `add_get` requires; `len` <= COMBINE_MAX is checked above.
        match unsafe { self.combiner.add_get(key, pe, seg, offset, dst, len) }? {
            Added::Began => self.server.remind(),
            Added::Extended => {}
            Added::Issued(request) => self.track(request)?,
        }
        Ok(())
    }

    /// Counts a put or a non-fetching atomic, so that [`Lane::order_reads`] fences behind it and
    /// the next quiet flushes for it; the one that makes [`UNQUIETED`] of them since the last quiet
    /// quiets first.
    #[inline]
    pub fn note_write(&self) -> Result<()> {
        let issued = self.puts.fetch_add(1, Ordering::Release) + 1;
        // Another thread's quiet may have counted further since (`quieted` ahead of `issued`).
        if issued.saturating_sub(self.quieted.load(Ordering::Relaxed)) >= UNQUIETED {
            self.quiet()?;
        }
        Ok(())
    }

    /// Keeps a non-blocking get's request until the next [`Lane::quiet`].
    pub fn track(&self, request: Request) -> Result<()> {
        self.keep(&self.gets, request)
    }

    /// Keeps a non-blocking put's request, if UCX could not send it at once, until the next
    /// [`Lane::quiet`].
    pub fn hold(&self, request: Request) -> Result<()> {
        self.keep(&self.sends, request)
    }

    /// Keeps `request` in `list` unless it is complete; at [`IN_FLIGHT`] requests, waits for the
    /// older half first (which moves the worker: a full socket drains).
    fn keep(&self, list: &Mutex<Vec<Request>>, request: Request) -> Result<()> {
        if request.is_complete()? {
            return Ok(());
        }
        let mut kept = list.lock().unwrap_or_else(|e| e.into_inner());
        kept.push(request);
        self.tracking.store(true, Ordering::Release);
        if kept.len() < IN_FLIGHT {
            return Ok(());
        }
        let older: Vec<Request> = kept.drain(..IN_FLIGHT / 2).collect();
        drop(kept);
        for request in older {
            request.wait()?;
        }
        Ok(())
    }

    /// Fences the worker if a put was issued since the last fence: what follows (a get, a fetching
    /// atomic) sees it.
    #[inline]
    pub fn order_reads(&self) -> Result<()> {
        let issued = self.puts.load(Ordering::Acquire);
        if self.fenced.load(Ordering::Acquire) < issued {
            self.combiner.send()?;
            self.worker.fence()?;
            self.fenced.fetch_max(issued, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Before an atomic that reads: the lane's runs go first (its earlier gets read what was
    /// there before the atomic), and it sees the lane's earlier puts ([`Lane::order_reads`]).
    #[inline]
    pub fn order_atomic(&self) -> Result<()> {
        self.combiner.send()?;
        self.order_reads()
    }

    /// Orders every operation issued before after those issued after (`shmem_fence`).
    pub fn fence(&self) -> Result<()> {
        // The copies made directly into mapped peers (which may be non-temporal) before what
        // follows.
        std::sync::atomic::fence(Ordering::SeqCst);
        let issued = self.puts.load(Ordering::Acquire);
        self.combiner.send()?;
        self.worker.fence()?;
        self.fenced.fetch_max(issued, Ordering::AcqRel);
        Ok(())
    }

    /// Completes every operation issued, at the targets too (`shmem_quiet`). With no put or
    /// non-fetching atomic issued since the last quiet no flush goes out, only the gets in flight
    /// are waited for (every other operation completes before it returns): a barrier after a
    /// barrier costs no round trip, and gets then a quiet cost the gets alone.
    pub fn quiet(&self) -> Result<()> {
        // The copies made directly into mapped peers are complete once this thread's stores are
        // visible: a full fence (large copies may be non-temporal). They are not counted in
        // `puts`, so they need no flush.
        std::sync::atomic::fence(Ordering::SeqCst);
        let issued = self.puts.load(Ordering::Acquire);
        // The read runs (issued now if one is left), with the other gets.
        let reads = self.combiner.take_reads()?;
        let (gets, sends) = if self.tracking.load(Ordering::Acquire) {
            let mut gets = self.gets.lock().unwrap_or_else(|e| e.into_inner());
            self.tracking.store(false, Ordering::Relaxed);
            let gets = std::mem::take(&mut *gets);
            let mut sends = self.sends.lock().unwrap_or_else(|e| e.into_inner());
            (gets, std::mem::take(&mut *sends))
        } else {
            (Vec::new(), Vec::new())
        };
        let puts_done = self.quieted.load(Ordering::Acquire) >= issued;
        if gets.is_empty() && reads.is_empty() && puts_done {
            return Ok(());
        }
        for get in gets.into_iter().chain(reads) {
            get.wait()?;
        }
        // A get is complete once its request is (the data is here): only puts and non-fetching
        // atomics need the flush, a round trip to their targets.
        if puts_done {
            return Ok(());
        }
        // The run holds every combined put counted in `issued` (counted after it was added).
        self.combiner.send()?;
        let runs = self.combiner.take_sent();
        self.flush()?;
        // The puts are complete with the flush.
        drop(sends);
        drop(runs);
        self.fenced.fetch_max(issued, Ordering::AcqRel);
        self.quieted.fetch_max(issued, Ordering::AcqRel);
        Ok(())
    }

    /// Completes every operation of the lane at its targets ([`Worker::flush_within`]). A worker
    /// flush that outlasted `FLUSH_PATIENCE` is kept until it completes, and while it is in flight
    /// the quiets flush the endpoints only: under a stream of other threads' operations, one worker
    /// flush waits in the background, not one per quiet.
    fn flush(&self) -> Result<()> {
        let mut slow = self.slow_flush.lock().unwrap_or_else(|e| e.into_inner());
        let stalled = match slow.take() {
            Some(flush) if !flush.is_complete()? => {
                *slow = Some(flush);
                true
            }
            _ => false,
        };
        drop(slow);
        let endpoints = self.peers.iter().map(|p| &p.endpoint);
        if let Some(flush) = self
            .worker
            .flush_within(FLUSH_PATIENCE, stalled, endpoints)?
        {
            *self.slow_flush.lock().unwrap_or_else(|e| e.into_inner()) = Some(flush);
        }
        Ok(())
    }

    /// The PEs whose connection failed, asked after an operation of the lane failed without saying
    /// towards which peer (a worker flush, a get of a quiet): every endpoint is flushed and each
    /// flush waited for until `deadline`; an endpoint whose flush fails (UCX fails every request
    /// of an endpoint whose connection broke) names its PE. Endpoint `i` is PE `i`'s.
    pub fn lost_peers(&self, deadline: Instant) -> Vec<usize> {
        let flushes: Vec<Result<Request>> = self
            .peers
            .iter()
            .map(|p| p.endpoint.start_flush())
            .collect();
        let mut lost = Vec::new();
        for (pe, flush) in flushes.into_iter().enumerate() {
            match flush.and_then(|request| request.wait_by(deadline)) {
                // Still in flight at the deadline: a slow peer, not a broken connection.
                Err(e) if e.status == UCS_ERR_TIMED_OUT => {}
                Err(_) => lost.push(pe),
                Ok(()) => {}
            }
        }
        lost
    }

    /// Moves what the worker has queued (sends a full socket held back), without waiting.
    #[inline]
    pub fn poll(&self) {
        self.worker.progress();
    }

    /// Closes every endpoint, waiting until `deadline` at the latest.
    fn close(&mut self, deadline: Instant) -> Result<()> {
        // The run's remote key goes before the endpoints (a finalize has quieted: no run is left).
        self.server.forget(&self.combiner);
        self.combiner.clear();
        // A worker flush a quiet left in flight (`Lane::flush`: the first quiet of a context
        // opened late waits for the connections to its peers) completes before the endpoints
        // close; left in the worker when it is destroyed, UCX reports it at exit (a request not
        // returned, an endpoint not destroyed).
        let slow = self
            .slow_flush
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let mut first_error = slow.map_or(Ok(()), |flush| flush.wait_by(deadline));
        for peer in self.peers.drain(..) {
            let Peer { rkeys, endpoint } = peer;
            drop(rkeys);
            let closed = endpoint.close_by(deadline);
            if first_error.is_ok() {
                first_error = closed;
            }
        }
        first_error
    }
}

/// Every PE reachable over UCX, the lanes to them, and the thread that answers them.
pub struct Network {
    /// Lane `i` serves shmem context `i` (0: the default context); opened at the first use.
    lanes: Box<[OnceLock<Lane>]>,
    /// One past the highest lane opened: the waits send the runs of `lanes[..opened]` (of up to
    /// 1025 lanes, a program opens a few).
    opened: AtomicUsize,
    /// The control signals to and from the peers not mapped here.
    pub(super) signals: Signals,
    cards: Vec<Card>,
    /// Per PE: on another node (see [`Network::connect`]), for the lanes opened later.
    elsewhere: Vec<bool>,
    progress: Option<ProgressThread>,
    /// The target worker's server (the progress thread's, kept after it stops).
    server: Arc<Server>,
    _target: Worker,
    _regions: Vec<Option<MemoryRegion>>,
    context: Context,
}

/// A card that does not parse.
fn bad_card() -> Error {
    Error {
        call: "reading a peer's UCX card (not written by this library version)",
        status: UCS_ERR_INVALID_PARAM,
    }
}

impl Network {
    /// Connects to every PE: `cards[pe]` is what PE `pe`'s [`Local::card`] returned;
    /// `elsewhere[pe]` says PE `pe` is on another node than this PE (its endpoints are made in
    /// UCX's peer-failure mode). Room for `lanes` lanes; the default one (0) is opened now.
    pub fn connect(
        local: Local,
        cards: &[String],
        elsewhere: &[bool],
        lanes: usize,
    ) -> Result<Network> {
        super::worker::forget_lost_peers();
        let cards = cards
            .iter()
            .map(|c| Card::parse(c, local.regions.len()))
            .collect::<Result<Vec<Card>>>()?;
        let heap = local.regions.get(HEAP).and_then(Option::as_ref);
        let (base, len) = heap.map_or((0, 0), |r| (r.base() as usize, r.len()));
        // SAFETY: the heap is mapped for the life of the process and its control words are
        // accessed as atomics only (the contract of `Local::new`).
        let words = unsafe { Words::new(base, len) };
        let addresses = cards.iter().map(|c| c.signals.clone()).collect();
        let signals = Signals::new(local.signals, addresses, elsewhere.to_vec(), words);
        let progress = ProgressThread::spawn(&local.target)?;
        let server = progress.server().clone();
        let default = Lane::open(&local.context, &cards, elsewhere, &server)?;
        let lanes: Box<[OnceLock<Lane>]> = (0..lanes.max(1)).map(|_| OnceLock::new()).collect();
        let _ = lanes[0].set(default);
        Ok(Network {
            lanes,
            opened: AtomicUsize::new(1),
            signals,
            cards,
            elsewhere: elsewhere.to_vec(),
            progress: Some(progress),
            server,
            _target: local.target,
            _regions: local.regions,
            context: local.context,
        })
    }

    /// The default context's lane.
    #[inline(always)]
    pub fn default_lane(&self) -> &Lane {
        self.lanes[0]
            .get()
            .expect("the default lane is opened by connect")
    }

    /// Lane `i`, opened now if this is its first use.
    #[inline]
    pub fn lane(&self, i: usize) -> Result<&Lane> {
        match self.lanes[i].get() {
            Some(lane) => Ok(lane),
            None => self.open_lane(i),
        }
    }

    /// Lane `i` if it has been opened (a context with no operation yet has nothing to complete).
    #[inline]
    pub fn opened_lane(&self, i: usize) -> Option<&Lane> {
        self.lanes[i].get()
    }

    #[cold]
    fn open_lane(&self, i: usize) -> Result<&Lane> {
        let lane = Lane::open(&self.context, &self.cards, &self.elsewhere, &self.server)?;
        // Two threads opening one lane at once (a context is created on one, so this is only a
        // program's race): the loser's lane is dropped.
        let _ = self.lanes[i].set(lane);
        self.opened.fetch_max(i + 1, Ordering::AcqRel);
        Ok(self.lanes[i].get().expect("set just above"))
    }

    /// Closes every endpoint of every lane, waiting until `deadline` at the latest. Call it once
    /// the PEs agreed that no operation targets this PE any more, and keep the progress thread
    /// running until every PE has closed its endpoints too (a bootstrap barrier), then
    /// [`Network::stop`] it.
    pub fn close(&mut self, deadline: Instant) -> Result<()> {
        let mut first_error = Ok(());
        for lane in self.lanes.iter_mut().filter_map(OnceLock::get_mut) {
            let closed = lane.close(deadline);
            if first_error.is_ok() {
                first_error = closed;
            }
        }
        first_error
    }

    /// Runs `f`, a wait inside the library, handing it the poll of each of its rounds: the signal
    /// worker, where the signals arrive, on every round of a wait for one (`signals`) and every
    /// `SIGNAL_LOOK` rounds of the others; the target worker while this thread serves it instead
    /// of the progress thread ([`super::progress::Turn`]; in a wait for a signal, less often while it
    /// answers nothing, [`super::progress::Turn::poll_aside`]); and every `LANE_POLL` rounds the default lane
    /// (what it may hold back is this PE's own sends: what the wait waits for arrives at the other
    /// two, and over TCP each progress is a system call). The poll says whether the wait should
    /// spin rather than yield.
    #[inline]
    pub fn serve<R>(&self, signals: bool, f: impl FnOnce(&mut dyn FnMut() -> bool) -> R) -> R {
        let lane = self.default_lane();
        // What the wait waits for may be a peer's answer to a put still in a lane's run (a failure
        // to send it is reported by the lane's next quiet, fence or read).
        let opened = self.opened.load(Ordering::Acquire);
        for each in self.lanes[..opened].iter().filter_map(OnceLock::get) {
            each.combiner.send_for_lane();
        }
        let mut turn = self.server.turn();
        let mut round = 0u32;
        f(&mut || {
            round = round.wrapping_add(1);
            if round.is_multiple_of(LANE_POLL) {
                lane.poll();
            }
            // A signal that arrived is what the wait may wait for: it checks before this
            // thread makes another system call.
            if (signals || round.is_multiple_of(SIGNAL_LOOK)) && self.signals.poll() {
                return true;
            }
            let served = if signals {
                turn.poll_aside(round)
            } else {
                turn.poll()
            };
            served != Served::No
        })
    }

    /// Stops the progress thread (after [`Network::close`]).
    pub fn stop(&mut self) -> Result<()> {
        match self.progress.take() {
            Some(thread) => thread.stop(),
            None => Ok(()),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod hex_tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(unhex(&hex(&bytes)).unwrap(), bytes);
        assert_eq!(unhex(""), Some(vec![]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }
}
