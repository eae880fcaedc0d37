//! How bytes reach a peer. `shm` is the on-node route: every PE maps every local peer's symmetric
//! segments, so an operation is a load, a store, a `memcpy` or a CPU atomic on the mapped address.
//! Everything else goes through one seam, the [`Network`] interface (after Sandia OpenSHMEM's
//! `transport_*.h`): put, get, strided transfers, atomics, fence, quiet and the library's own
//! control words, each on a [`Place`] (a PE, a segment and an offset), with the local side as the
//! checked ranges of `shm::memory` (never a raw pointer). Each network is one module behind it
//! (`ucx`; `loopback`, a test network of one node) and one variant of [`Choice`] (the user's
//! `SHMEM_TRANSPORT`, parsed and named here) and of [`Remote`], the value the World holds once
//! `shmem_init` chose it. The network also answers what the runtime asks of it before it exists
//! (its library settings, what `oshinfo` says, whether it allocates the segments) and the limits
//! the collectives' messages keep to ([`MessageLimits`]).
//!
//! Invariants: nothing above this module names a network module; the runtime and the operations
//! hold a [`Choice`] or a [`Remote`] and call their methods, which dispatch statically (a `match`
//! of one arm per network, `each!` and `by_choice!`, no `dyn`, no allocation). The shared-memory fast path never reaches this module: an
//! operation tests the peer's mapped base first and calls here only when it is 0 (or when the job
//! does every atomic over the network, see `runtime::world`). Puts and gets also test the base a
//! network gave for a peer whose memory it maps here itself ([`Network::mapping`]): a copy there is
//! what the network's put would make.
//!
//! Lanes. A lane is a network's state for one shmem context (lane 0: the default context), so
//! that quiet and fence of a context touch its own operations only. A network opens a lane at
//! its first operation (a context that never reaches the network costs nothing), fence and quiet
//! of a lane never opened do nothing, and every lane closes at [`Remote::close`].
//!
//! Segments are numbered as the runtime numbers them (0: the heap, 1: the global data); offsets are
//! from the start of the peer's segment, checked against its length by the network.
//!
//! One piece here is not about bytes: [`cores`], the yield that every wait of the library makes
//! (the runtime's and a network lane's), with each PE's home core where the node has one per PE.

pub(crate) mod cores;
pub(crate) mod loopback;
pub mod shm;
pub(crate) mod ucx;

use shm::{Dst, Src};
use std::fmt;
use std::time::Instant;

/// A failed network operation, in words (the network's call and status), and, for an operation
/// not aimed at one PE (a quiet, a fence), the PEs whose connection the network found failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    text: String,
    lost: Vec<usize>,
}

impl Error {
    /// An error described by `text`.
    pub(crate) fn new(text: impl Into<String>) -> Error {
        Error {
            text: text.into(),
            lost: Vec::new(),
        }
    }

    /// The same error, found to come from the failed connections to the world PEs `pes`.
    pub(crate) fn lost(mut self, pes: Vec<usize>) -> Error {
        self.lost = pes;
        self
    }

    /// The PEs whose connection failed, where the network could tell (empty otherwise).
    pub(crate) fn lost_pes(&self) -> &[usize] {
        &self.lost
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Error {}

pub(crate) type Result<T> = std::result::Result<T, Error>;

/// What a network's collective messages allow ([`Network::message_limits`]): the collectives
/// bound by them what waits at a reader that is behind (`collectives::message`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MessageLimits {
    /// Bytes of a group's broadcast messages, each counted with `cost` more, that a root may send
    /// ahead of a reader before it waits for the reader's word that it is in the call.
    pub run_ahead: u64,
    /// What a message waiting in the network's queue at its reader costs beyond its data.
    pub cost: u64,
}

impl MessageLimits {
    /// The limits of a network that does not say: UCX's ([`Network::message_limits`]).
    pub(crate) const DEFAULT: MessageLimits = MessageLimits {
        run_ahead: 8 << 20,
        cost: 512,
    };
}

/// Where a collective's message is, for its posted receive ([`Remote::receive_message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// Not in yet.
    Pending,
    /// In, this many bytes (at most the receive's length).
    In(usize),
    /// Longer than the receive's buffer: not taken.
    Longer,
}

/// How PEs reach each other, the user's choice (`SHMEM_TRANSPORT`): `auto`, this node's PEs by
/// shared memory and the others over the default network (UCX); or one network for every PE, this
/// one included (each PE as if alone on its node: the way to run a network on one machine). One
/// variant per network besides `Auto`, named by the network ([`Network::CHOICE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Auto,
    Ucx,
    Loopback,
}

/// `$body` with the type `$n` bound to the network of the choice `$choice` (`Auto`: the default
/// network, for the PEs of other nodes) and `$v` to its variant of [`Remote`]: with `each!`, the
/// one `match` that a new network adds an arm to.
macro_rules! by_choice {
    ($choice:expr, $n:ident, $v:ident => $body:expr) => {
        match $choice {
            Choice::Auto | Choice::Ucx => {
                type $n = ucx::Network;
                #[allow(unused_variables)]
                let $v = Remote::Ucx;
                $body
            }
            Choice::Loopback => {
                type $n = loopback::Network;
                #[allow(unused_variables)]
                let $v = Remote::Loopback;
                $body
            }
        }
    };
}

impl Choice {
    /// One choice per network (without `Auto`).
    pub const NETWORKS: &[Choice] = &[Choice::Ucx, Choice::Loopback];

    /// Its value of `SHMEM_TRANSPORT`.
    pub fn name(self) -> &'static str {
        match self {
            Choice::Auto => "auto",
            network => by_choice!(network, N, _v => <N as Network>::CHOICE),
        }
    }

    /// The choice named `text` (any case, blanks around it ignored), or why not.
    pub fn parse(text: &str) -> std::result::Result<Choice, String> {
        let text = text.trim().to_ascii_lowercase();
        let all = || std::iter::once(Choice::Auto).chain(Choice::NETWORKS.iter().copied());
        if let Some(choice) = all().find(|c| c.name() == text) {
            return Ok(choice);
        }
        let names: Vec<&str> = all().map(Choice::name).collect();
        let list = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        Err(format!("is not a transport (use {list})"))
    }

    /// Whether every PE takes the network route (else this node's PEs share memory).
    pub fn every_pe(self) -> bool {
        self != Choice::Auto
    }

    /// The name of its network for people (`SHMEM_INFO`: "UCX").
    pub fn network_name(self) -> &'static str {
        by_choice!(self, N, _v => <N as Network>::NAME)
    }

    /// When every PE takes the network route and its network allocates the memory of the PE's
    /// segments itself ([`allocate_segment`]): how, in words (`SHMEM_INFO`, "Heap memory").
    pub fn allocation(self) -> Option<&'static str> {
        match self {
            Choice::Auto => None,
            network => by_choice!(network, N, _v => <N as Network>::ALLOCATION),
        }
    }
}

/// Where the networks are to find their libraries (`SHMEM_UCX_LIB`, `SHMEM_UCX_SEARCH`), told at
/// init, before their first use (which loads them: see `ucx::library`).
pub(crate) fn configure_libraries(ucx_lib: &str, ucx_search: &str) {
    let libraries = Libraries {
        ucx_lib,
        ucx_search,
    };
    for &choice in Choice::NETWORKS {
        by_choice!(choice, N, _v => <N as Network>::configure_libraries(&libraries));
    }
}

/// The settings of [`configure_libraries`], for each network to take its own.
pub(crate) struct Libraries<'a> {
    /// `SHMEM_UCX_LIB`.
    pub ucx_lib: &'a str,
    /// `SHMEM_UCX_SEARCH`.
    pub ucx_search: &'a str,
}

/// What each network says about itself for `oshinfo` (`key`, `value` pairs: which library, where,
/// its version, devices), with the library settings of [`configure_libraries`].
pub(crate) fn about(ucx_lib: &str, ucx_search: &str) -> Vec<(String, String)> {
    configure_libraries(ucx_lib, ucx_search);
    let mut pairs = Vec::new();
    for &choice in Choice::NETWORKS {
        by_choice!(choice, N, _v => pairs.extend(<N as Network>::about()));
    }
    pairs
}

/// Has the network of `choice` allocate the memory of a segment at `base..base+len` (address
/// space the caller reserved), memory its transports on this node reach without the target's help
/// (UCX: see `ucx::Local::allocate`); the network's `connect` then registers that memory as the
/// segment at `base`. Only for a choice with [`Choice::allocation`]. An error says why not;
/// nothing is allocated then, and the range may have lost its mapping (to what the network placed
/// there before it failed).
///
/// # Safety
/// `base..base+len` is page aligned and this process's to replace (a reservation, or memory
/// whose contents the caller saved), used by nothing else during the call; the memory is kept
/// for the life of the process and accessed locally only as shared memory.
pub(crate) unsafe fn allocate_segment(choice: Choice, base: usize, len: usize) -> Result<()> {
    // SAFETY: the caller's contract (`# Safety` above), the same as `Network::allocate_segment`'s:
    // `base..base+len` page aligned, ours to replace, unused by others, kept for life.
    by_choice!(choice, N, _v => unsafe { <N as Network>::allocate_segment(base, len) })
}

/// The segment number of the symmetric heap, where the control words live.
pub(crate) const HEAP: usize = 0;

/// A word a network updates atomically at the target: `u32` or `u64`.
pub trait AmoWord: shm::Word + 'static + sealed::Sealed {}
impl AmoWord for u32 {}
impl AmoWord for u64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// The read-modify-write atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rmw {
    Add,
    And,
    Or,
    Xor,
}

/// Where an operation lands at a peer: a world PE, one of its segments (numbered as the runtime
/// numbers them) and an offset from that segment's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub pe: usize,
    pub seg: usize,
    pub off: usize,
}

impl Place {
    #[inline(always)]
    pub(crate) fn new(pe: usize, seg: usize, off: usize) -> Place {
        Place { pe, seg, off }
    }

    /// The same place moved by `bytes` (a strided transfer's block; wrapping, as the network
    /// checks each block against the segment).
    #[inline(always)]
    pub(crate) fn moved(self, bytes: isize) -> Place {
        Place {
            off: self.off.wrapping_add_signed(bytes),
            ..self
        }
    }
}

/// The shape of a strided transfer ([`Network::strided`]): `count` blocks of `block` bytes, the
/// remote ones `rstride` bytes apart, the local ones from byte `at` of the local range, `lstride`
/// bytes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Strided {
    pub rstride: isize,
    pub at: usize,
    pub lstride: isize,
    pub block: usize,
    pub count: usize,
}

/// The local side of a strided transfer: read by a put, written by a get.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Local<'a> {
    Put(Src<'a>),
    Get(Dst<'a>),
}

impl<'a> Local<'a> {
    /// Its address and length in bytes.
    #[inline]
    pub(crate) fn range(self) -> (usize, usize) {
        match self {
            Local::Put(s) => (s.addr(), s.len()),
            Local::Get(d) => (d.addr(), d.len()),
        }
    }

    /// Whether it is a put's (the data goes to the peer).
    #[inline]
    pub(crate) fn to_peer(self) -> bool {
        matches!(self, Local::Put(_))
    }

    /// Bytes `at..at+len` of it, of the same direction.
    #[inline]
    #[track_caller]
    pub(crate) fn part(self, at: usize, len: usize) -> Local<'a> {
        match self {
            Local::Put(s) => Local::Put(s.part(at, len)),
            Local::Get(d) => Local::Get(d.part(at, len)),
        }
    }

    /// Panics unless each of the local blocks of `shape` lies inside.
    #[track_caller]
    pub(crate) fn check_blocks(self, shape: Strided) {
        let Strided {
            at,
            lstride,
            block,
            count,
            ..
        } = shape;
        if count == 0 || block == 0 {
            return;
        }
        let len = self.range().1;
        let last = (count as isize - 1)
            .checked_mul(lstride)
            .and_then(|x| (at as isize).checked_add(x));
        let inside = |start: usize| start.checked_add(block).is_some_and(|end| end <= len);
        assert!(
            inside(at) && last.is_some_and(|l| l >= 0 && inside(l as usize)),
            "strided: {count} blocks of {block} bytes from {at} by {lstride} outside a range of {len}"
        );
    }
}

/// What this PE publishes and learns at init to build a network: every PE's card (opaque text
/// the network writes and reads), exchanged through the launcher by the caller.
pub(crate) type Exchange<'a> = dyn FnMut(&str) -> std::result::Result<Vec<String>, String> + 'a;

/// The seam: what every network does. `lane` is the context's lane, a [`Place`] the world PE,
/// segment and offset of the peer's copy.
///
/// Completion: a blocking put returns when its source may be reused, a get or fetching atomic
/// with the value; `nbi` forms return at once (the buffers stay the caller's until the next
/// quiet of the lane). Everything issued on a lane is complete at its target after
/// [`Network::quiet`], and ordered before what follows after [`Network::fence`].
pub(crate) trait Network: Sized {
    /// Its value of `SHMEM_TRANSPORT` ([`Choice::name`]): every PE over this network.
    const CHOICE: &'static str;

    /// Its name for people (`SHMEM_INFO`).
    const NAME: &'static str;

    /// How it allocates the memory of a PE's segments when every PE takes its route
    /// ([`Network::allocate_segment`]), in words; `None`: it does not, the runtime's own
    /// shared-memory segments are registered with it as they are.
    const ALLOCATION: Option<&'static str> = None;

    /// Takes the library settings of the configuration (at init and for `oshinfo`, before the
    /// first use).
    fn configure_libraries(libraries: &Libraries) {
        let _ = libraries;
    }

    /// What it says about itself for `oshinfo` ([`about`]).
    fn about() -> Vec<(String, String)> {
        Vec::new()
    }

    /// Takes the waiting settings ([`configure_waits`]).
    fn configure_waits(oversubscribed: bool, progress_delay: std::time::Duration) {
        let _ = (oversubscribed, progress_delay);
    }

    /// Allocates the memory of a segment at `base..base+len`, for a network with
    /// [`Network::ALLOCATION`] (see [`allocate_segment`]).
    ///
    /// # Safety
    /// As [`allocate_segment`].
    unsafe fn allocate_segment(base: usize, len: usize) -> Result<()> {
        let _ = (base, len);
        Err(Error::new(format!(
            "{} does not allocate the memory of segments",
            Self::NAME
        )))
    }

    /// Connects to every PE: registers this PE's `segments` (`(base, len)`, mapped for the life
    /// of the process), trades cards through `exchange`, opens lane 0; room for `lanes` lanes.
    /// `elsewhere[pe]` says PE `pe` is on another node than this one, as the runtime groups PEs
    /// (every PE its own node when all take the network route): a network may watch only those
    /// connections for a peer's failure, the launcher seeing the node's own PEs die.
    ///
    /// # Safety
    /// Every non-empty segment is mapped read-write for the life of the process and accessed
    /// locally only as shared memory (raw pointers and atomics).
    unsafe fn connect(
        segments: &[(usize, usize)],
        elsewhere: &[bool],
        lanes: usize,
        exchange: &mut Exchange,
    ) -> Result<Self>;

    /// Puts `src` to `to`; returns when `src` may be reused.
    fn put(&self, lane: usize, to: Place, src: Src<'_>) -> Result<()>;

    /// Puts `src` to `to` without waiting: complete at the next quiet of the lane. The safe
    /// forms are [`Remote::put_nbi`] (the program's `'static` buffers) and [`Scope::put`].
    ///
    /// # Safety
    /// `src` stays readable and unchanged until the next quiet of the lane.
    unsafe fn put_nbi(&self, lane: usize, to: Place, src: Src<'_>) -> Result<()>;

    /// Gets `from` into `dst`, ordered after the lane's puts; returns with the data.
    fn get(&self, lane: usize, from: Place, dst: Dst<'_>) -> Result<()>;

    /// Gets `from` into `dst` without waiting, ordered after the lane's puts: the data is there
    /// at the next quiet of the lane (the safe forms: [`Remote::get_nbi`], [`Scope::get`]).
    ///
    /// # Safety
    /// `dst` stays writable, and unused by anyone else, until the next quiet of the lane.
    unsafe fn get_nbi(&self, lane: usize, from: Place, dst: Dst<'_>) -> Result<()>;

    /// `shape.count` blocks of `shape.block` bytes between `local` (a put reads it, a get writes
    /// it) and the peer, block `i` at `remote` moved by `i * shape.rstride` and at
    /// `shape.at + i * shape.lstride` of `local`, every block started before any is waited for;
    /// returns when done. A block outside `local` is a panic (a caller's bug:
    /// [`Local::check_blocks`]); the blocks of a get do not overlap each other.
    fn strided(&self, lane: usize, remote: Place, local: Local<'_>, shape: Strided) -> Result<()>;

    /// A read-modify-write: the old value when `fetch`, else `value`. `landed`: the update must
    /// be visible at the target when this returns (the target's memory is also read with loads).
    fn rmw<W: AmoWord>(
        &self,
        lane: usize,
        at: Place,
        op: Rmw,
        value: W,
        fetch: bool,
        landed: bool,
    ) -> Result<W>;

    /// Atomic swap; the old value.
    fn swap<W: AmoWord>(&self, lane: usize, at: Place, value: W) -> Result<W>;

    /// Atomic compare-and-swap; the old value.
    fn compare_swap<W: AmoWord>(&self, lane: usize, at: Place, cond: W, value: W) -> Result<W>;

    /// Atomic fetch.
    fn fetch<W: AmoWord + Default>(&self, lane: usize, at: Place) -> Result<W>;

    /// `shmem_fence` on `lane` (nothing if the lane never opened).
    fn fence(&self, lane: usize) -> Result<()>;

    /// `shmem_quiet` on `lane` (nothing if the lane never opened).
    fn quiet(&self, lane: usize) -> Result<()>;

    /// `shmem_pe_quiet` on `lane`: the operations to `pes` complete (others may too).
    fn pe_quiet(&self, lane: usize, pes: &[usize]) -> Result<()>;

    /// Stores `value` into the control word at heap offset `off` of `pe`: the peer sees the old
    /// or the new word, never a mix; it lands by progress, no quiet needed.
    fn control_store(&self, pe: usize, off: usize, value: u64) -> Result<()>;

    /// Raises the control word at heap offset `off` of `pe` to at least `value`, for a word that
    /// only grows (a barrier round's epoch). Not ordered after this PE's earlier puts: for a
    /// signal after a quiet, or after nothing the target reads. A network may send it more
    /// cheaply than a store.
    fn control_raise(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        self.control_store(pe, off, value)
    }

    /// As [`Network::control_raise`], for a notice sent once (a PE's finalize) that must arrive
    /// behind this PE's earlier raises to `pe`: a network whose raises take a path of their own
    /// takes it only to a peer raised before, and stores otherwise.
    fn control_notice(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        self.control_raise(pe, off, value)
    }

    /// Adds `value` to the control word at heap offset `off` of `pe` (no reply awaited).
    fn control_add(&self, pe: usize, off: usize, value: u64) -> Result<()>;

    /// Loads `words.len()` consecutive control words from heap offset `off` of `pe`.
    fn control_load(&self, pe: usize, off: usize, words: &mut [u64]) -> Result<()>;

    /// Whether this network carries the collectives' messages ([`Network::send_message`]).
    fn messages(&self) -> bool {
        false
    }

    /// Sends `pe` a message of a collective call: `bytes` under `tag`, which names the call and
    /// the step, so that no other message in flight to `pe` has it. Starts the send, then runs
    /// `wait` with a test of whether `bytes` may be reused, and returns what `wait` returns. A
    /// small message is sent at once and waits at `pe` until `pe` receives it, however many calls
    /// later; a large one may move only once `pe` has posted its receive. What moves it is the
    /// polls of a wait that serves with `signals` ([`Network::serve`]), at both ends.
    fn send_message<R>(
        &self,
        pe: usize,
        tag: u64,
        bytes: shm::Src<'_>,
        wait: impl FnOnce(&mut dyn FnMut() -> Result<bool>) -> R,
    ) -> Result<R> {
        let _ = (pe, tag, bytes, wait);
        Err(Error::new("this network carries no collective messages"))
    }

    /// Receives messages of collective calls, each under its tag into its buffer (`posts`): posts
    /// every receive, so that a message arriving after it may land in its buffer without a copy in
    /// between, then runs `wait` with a test of where the `k`-th message is ([`Arrival`]) and
    /// returns what `wait` returns. Messages of one tag from one sender are taken in the order they
    /// were sent, by the posts of that tag in order. What arrives is moved by the polls of a wait
    /// that serves with `signals` ([`Network::serve`]). The receives still pending when `wait`
    /// returns are withdrawn.
    fn receive_messages<R>(
        &self,
        posts: &mut [(u64, shm::Dst<'_>)],
        wait: impl FnOnce(&mut dyn FnMut(usize) -> Result<Arrival>) -> R,
    ) -> Result<R> {
        let _ = (posts, wait);
        Err(Error::new("this network carries no collective messages"))
    }

    /// The limits its collective messages set ([`MessageLimits`]), for a network that
    /// carries them.
    fn message_limits(&self) -> MessageLimits {
        MessageLimits::DEFAULT
    }

    /// Moves what the default lane has queued, without waiting.
    fn poll(&self);

    /// The PEs whose connection the network found broken (the peer ended, or its host did),
    /// with the error of each; found while the waits poll, so that a wait for a dead peer ends.
    fn lost(&self) -> Vec<(usize, Error)> {
        Vec::new()
    }

    /// Whether `pe`'s raises to this PE arrive apart from the rest (then a wait for one serves
    /// with `signals`, [`Network::serve`]).
    fn raises_apart(&self, pe: usize) -> bool {
        let _ = pe;
        false
    }

    /// Runs `f`, a wait inside the library, handing it the poll to call on each of its rounds
    /// (it returns true when the wait should spin rather than yield): a network whose peers need
    /// this PE's progress may have the waiting thread answer them meanwhile. `signals`: the wait
    /// is for a raise ([`Network::control_raise`]), which a network may carry apart from the rest
    /// and look for on every round only in such waits.
    fn serve<R>(&self, signals: bool, f: impl FnOnce(&mut dyn FnMut() -> bool) -> R) -> R {
        let _ = signals;
        f(&mut || {
            self.poll();
            false
        })
    }

    /// Where `pe`'s segment `seg` is mapped in this process by the network itself (from its
    /// offset 0), when the network's own puts and gets there are
    /// copies through that mapping, complete when they return: UCX's shared-memory transports.
    /// Valid until [`Network::close`]; `None` when the network reaches that memory otherwise.
    fn mapping(&self, pe: usize, seg: usize) -> Option<shm::Mapping> {
        let _ = (pe, seg);
        None
    }

    /// Closes every lane by `deadline`; this PE keeps answering its peers until [`Network::stop`].
    fn close(&mut self, deadline: Instant) -> Result<()>;

    /// Stops answering peers (after every PE closed, a launcher barrier later).
    fn stop(&mut self) -> Result<()>;
}

/// Tells the networks whether this node's PEs outnumber its cores (at init, before connecting):
/// a thread waiting in the library then shares the serving of its PE's peers with the progress
/// thread, which a busy scheduler runs sooner (see `ucx::progress`); and by when, after the PE
/// left the library, its progress thread serves them (`SHMEM_PROGRESS_DELAY`).
pub(crate) fn configure_waits(oversubscribed: bool, progress_delay: std::time::Duration) {
    for &choice in Choice::NETWORKS {
        by_choice!(choice, N, _v => <N as Network>::configure_waits(oversubscribed, progress_delay));
    }
}

/// The network of this job, chosen at init: one variant per network module.
pub(crate) enum Remote {
    Ucx(ucx::Network),
    Loopback(loopback::Network),
}

/// `$body` with `$n` bound to the network inside `$remote`: the one `match` that a new network
/// adds an arm to.
macro_rules! each {
    ($remote:expr, $n:ident => $body:expr) => {
        match $remote {
            Remote::Ucx($n) => $body,
            Remote::Loopback($n) => $body,
        }
    };
}

impl Remote {
    /// Connects the network of `choice` (see [`Network::connect`]).
    ///
    /// # Safety
    /// As [`Network::connect`].
    pub(crate) unsafe fn connect(
        choice: Choice,
        segments: &[(usize, usize)],
        elsewhere: &[bool],
        lanes: usize,
        exchange: &mut Exchange,
    ) -> Result<Remote> {
        by_choice!(choice, N, variant => {
            // SAFETY: the caller's contract, the same as `Network::connect`'s: every non-empty
            // segment is mapped read-write for the life of the process and accessed locally only as
            // shared memory.
            unsafe { <N as Network>::connect(segments, elsewhere, lanes, exchange) }.map(variant)
        })
    }

    /// See [`Network::put`].
    #[inline]
    pub(crate) fn put(&self, lane: usize, to: Place, src: Src<'_>) -> Result<()> {
        each!(self, n => Network::put(n, lane, to, src))
    }

    /// See [`Network::put_nbi`]: `src` is the program's, which it leaves unchanged until the next
    /// quiet (OpenSHMEM's rule for a non-blocking put), hence `'static`: the library never passes
    /// a buffer of its own here that it could free before (its own go through [`Remote::scoped`]).
    #[inline]
    pub(crate) fn put_nbi(&self, lane: usize, to: Place, src: Src<'static>) -> Result<()> {
        // SAFETY: `src` is readable for the life of the process; unchanged until the quiet is
        // the program's part (above).
        each!(self, n => unsafe { Network::put_nbi(n, lane, to, src) })
    }

    /// See [`Network::get`].
    #[inline]
    pub(crate) fn get(&self, lane: usize, from: Place, dst: Dst<'_>) -> Result<()> {
        each!(self, n => Network::get(n, lane, from, dst))
    }

    /// See [`Network::get_nbi`]: `dst` is the program's (`'static`: as for [`Remote::put_nbi`]).
    #[inline]
    pub(crate) fn get_nbi(&self, lane: usize, from: Place, dst: Dst<'static>) -> Result<()> {
        // SAFETY: `dst` is writable for the life of the process; not read until the quiet is
        // the program's part (OpenSHMEM's rule for a non-blocking get).
        each!(self, n => unsafe { Network::get_nbi(n, lane, from, dst) })
    }

    /// Runs `f` with a [`Scope`] of non-blocking transfers on `lane` between buffers borrowed for
    /// `'a` (longer than this call) and peers, then, if it started any, quiets the lane (also when
    /// `f` unwinds) so that every one is complete: `f`'s value, and the quiet's outcome.
    pub(crate) fn scoped<'a, R>(
        &self,
        lane: usize,
        f: impl FnOnce(&Scope<'_, 'a>) -> R,
    ) -> (R, Result<()>) {
        let scope = Scope {
            net: self,
            lane,
            started: std::cell::Cell::new(false),
            _buffers: std::marker::PhantomData,
        };
        let value = f(&scope);
        let quieted = if scope.started.replace(false) {
            self.quiet(lane)
        } else {
            Ok(())
        };
        (value, quieted)
    }

    /// See [`Network::strided`].
    #[inline]
    pub(crate) fn strided(
        &self,
        lane: usize,
        remote: Place,
        local: Local<'_>,
        shape: Strided,
    ) -> Result<()> {
        each!(self, n => Network::strided(n, lane, remote, local, shape))
    }

    /// See [`Network::rmw`].
    #[inline]
    pub(crate) fn rmw<W: AmoWord>(
        &self,
        lane: usize,
        at: Place,
        op: Rmw,
        value: W,
        fetch: bool,
        landed: bool,
    ) -> Result<W> {
        each!(self, n => Network::rmw(n, lane, at, op, value, fetch, landed))
    }

    /// See [`Network::swap`].
    #[inline]
    pub(crate) fn swap<W: AmoWord>(&self, lane: usize, at: Place, value: W) -> Result<W> {
        each!(self, n => Network::swap(n, lane, at, value))
    }

    /// See [`Network::compare_swap`].
    #[inline]
    pub(crate) fn compare_swap<W: AmoWord>(
        &self,
        lane: usize,
        at: Place,
        cond: W,
        value: W,
    ) -> Result<W> {
        each!(self, n => Network::compare_swap(n, lane, at, cond, value))
    }

    /// See [`Network::fetch`].
    #[inline]
    pub(crate) fn fetch<W: AmoWord + Default>(&self, lane: usize, at: Place) -> Result<W> {
        each!(self, n => Network::fetch(n, lane, at))
    }

    /// See [`Network::fence`].
    pub(crate) fn fence(&self, lane: usize) -> Result<()> {
        each!(self, n => Network::fence(n, lane))
    }

    /// See [`Network::quiet`].
    pub(crate) fn quiet(&self, lane: usize) -> Result<()> {
        each!(self, n => Network::quiet(n, lane))
    }

    /// See [`Network::pe_quiet`].
    pub(crate) fn pe_quiet(&self, lane: usize, pes: &[usize]) -> Result<()> {
        each!(self, n => Network::pe_quiet(n, lane, pes))
    }

    /// See [`Network::control_store`].
    pub(crate) fn control_store(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        each!(self, n => Network::control_store(n, pe, off, value))
    }

    /// See [`Network::control_raise`].
    pub(crate) fn control_raise(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        each!(self, n => Network::control_raise(n, pe, off, value))
    }

    /// See [`Network::control_notice`].
    pub(crate) fn control_notice(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        each!(self, n => Network::control_notice(n, pe, off, value))
    }

    /// See [`Network::control_add`].
    pub(crate) fn control_add(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        each!(self, n => Network::control_add(n, pe, off, value))
    }

    /// See [`Network::control_load`].
    pub(crate) fn control_load(&self, pe: usize, off: usize, words: &mut [u64]) -> Result<()> {
        each!(self, n => Network::control_load(n, pe, off, words))
    }

    /// See [`Network::messages`].
    #[inline]
    pub(crate) fn messages(&self) -> bool {
        each!(self, n => Network::messages(n))
    }

    /// See [`Network::message_limits`].
    #[inline]
    pub(crate) fn message_limits(&self) -> MessageLimits {
        each!(self, n => Network::message_limits(n))
    }

    /// See [`Network::send_message`].
    pub(crate) fn send_message<R>(
        &self,
        pe: usize,
        tag: u64,
        bytes: shm::Src<'_>,
        wait: impl FnOnce(&mut dyn FnMut() -> Result<bool>) -> R,
    ) -> Result<R> {
        each!(self, n => Network::send_message(n, pe, tag, bytes, wait))
    }

    /// See [`Network::receive_messages`].
    pub(crate) fn receive_messages<R>(
        &self,
        posts: &mut [(u64, shm::Dst<'_>)],
        wait: impl FnOnce(&mut dyn FnMut(usize) -> Result<Arrival>) -> R,
    ) -> Result<R> {
        each!(self, n => Network::receive_messages(n, posts, wait))
    }

    /// [`Remote::receive_messages`] of one message: under `tag` into `into`.
    pub(crate) fn receive_message<R>(
        &self,
        tag: u64,
        into: shm::Dst<'_>,
        wait: impl FnOnce(&mut dyn FnMut() -> Result<Arrival>) -> R,
    ) -> Result<R> {
        self.receive_messages(&mut [(tag, into)], |test| wait(&mut || test(0)))
    }

    /// See [`Network::lost`].
    pub(crate) fn lost(&self) -> Vec<(usize, Error)> {
        each!(self, n => Network::lost(n))
    }

    /// See [`Network::raises_apart`].
    #[inline]
    pub(crate) fn raises_apart(&self, pe: usize) -> bool {
        each!(self, n => Network::raises_apart(n, pe))
    }

    /// See [`Network::serve`].
    #[inline]
    pub(crate) fn serve<R>(
        &self,
        signals: bool,
        f: impl FnOnce(&mut dyn FnMut() -> bool) -> R,
    ) -> R {
        each!(self, n => Network::serve(n, signals, f))
    }

    /// See [`Network::mapping`].
    pub(crate) fn mapping(&self, pe: usize, seg: usize) -> Option<shm::Mapping> {
        each!(self, n => Network::mapping(n, pe, seg))
    }

    /// See [`Network::close`].
    pub(crate) fn close(&mut self, deadline: Instant) -> Result<()> {
        each!(self, n => Network::close(n, deadline))
    }

    /// See [`Network::stop`].
    pub(crate) fn stop(&mut self) -> Result<()> {
        each!(self, n => Network::stop(n))
    }
}

/// Non-blocking transfers of one lane between buffers borrowed for `'a` and peers
/// ([`Remote::scoped`]): each is complete by the quiet the scope makes before it ends, so the
/// network never reads or writes a buffer after its borrow ends.
pub(crate) struct Scope<'r, 'a> {
    net: &'r Remote,
    lane: usize,
    started: std::cell::Cell<bool>,
    /// Invariant in `'a`: a buffer that ends before the scope's quiet is refused.
    _buffers: std::marker::PhantomData<fn(&'a ()) -> &'a ()>,
}

impl<'a> Scope<'_, 'a> {
    /// Starts a put of `src` to `to`, complete once the scope ends.
    pub(crate) fn put(&self, to: Place, src: Src<'a>) -> Result<()> {
        self.started.set(true);
        // SAFETY: `src` is borrowed for `'a`, which outlasts the scope, whose end quiets the lane
        // (`Remote::scoped`, or this scope's drop on an unwind) before `'a` ends.
        each!(self.net, n => unsafe { Network::put_nbi(n, self.lane, to, src) })
    }

    /// Starts a get of `from` into `dst`, there once the scope ends.
    pub(crate) fn get(&self, from: Place, dst: Dst<'a>) -> Result<()> {
        self.started.set(true);
        // SAFETY: as in `put`: `dst` outlasts the quiet that completes the get.
        each!(self.net, n => unsafe { Network::get_nbi(n, self.lane, from, dst) })
    }
}

impl Drop for Scope<'_, '_> {
    /// On an unwind out of the scope's closure: completes what it started (errors dropped: the
    /// unwind is the failure reported).
    fn drop(&mut self) {
        if self.started.get() {
            let _ = self.net.quiet(self.lane);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Choice;

    #[test]
    fn every_choice_parses_from_its_name_and_a_bad_one_lists_them() {
        for &c in std::iter::once(&Choice::Auto).chain(Choice::NETWORKS) {
            assert_eq!(Choice::parse(c.name()), Ok(c));
            assert_eq!(
                Choice::parse(&format!(" {} ", c.name().to_uppercase())),
                Ok(c)
            );
            assert_eq!(c.every_pe(), c != Choice::Auto);
        }
        assert_eq!(
            Choice::parse("tcp"),
            Err("is not a transport (use auto, ucx or loopback)".to_string())
        );
        assert_eq!(Choice::Auto.network_name(), "UCX");
        assert_eq!(Choice::Loopback.name(), "loopback");
        assert_eq!(Choice::Auto.allocation(), None);
        assert!(Choice::Ucx.allocation().is_some() && Choice::Loopback.allocation().is_some());
    }
}
