//! The control block at the start of every PE's heap segment: the library's own symmetric words
//! (team synchronization slots, the active-set counters, the allocation agreement record) and the
//! collectives' scratch areas (one of [`CHUNKS`] chunks per team slot and one for the active sets,
//! after the words at [`SCRATCH_OFFSET`]). Peers reach it through their mapping of the segment (or
//! over UCX at its offset in the segment).
//!
//! The heap segment's layout: `[control block | guard | user range]`. The user range (what
//! `shmem_malloc` hands out, and the only part of the segment the "is symmetric" check accepts)
//! starts at [`USER_OFFSET`], on an address that is a multiple of [`USER_ALIGN`] in every mapping,
//! so that `shmem_align` can align absolute addresses up to it. The guard (`PROT_NONE` in every
//! mapping) stops a stray pointer below the first block before it reaches the library's words.
//!
//! Invariants: every word here only grows (epochs, counts) or is written by its owner PE alone
//! (published values, posts), so nothing is ever reset and back-to-back collectives cannot be
//! confused. A scratch chunk is written by its owner only, and only once every reader of what it
//! held before has acknowledged it (`Posts::acks`).

use std::mem::{align_of, size_of};
use std::sync::atomic::AtomicU64;

/// Bytes reserved for the control block at the start of the heap segment (address space only:
/// pages are touched as used).
pub const CONTROL_SIZE: usize = 8 * 1024 * 1024;

/// Bytes of the guard between the control block and the user range (a multiple of any page size).
pub const GUARD_SIZE: usize = 64 * 1024;

/// Where the user range starts in the heap segment.
pub const USER_OFFSET: usize = CONTROL_SIZE + GUARD_SIZE;

/// The alignment of the user range's first address in every mapping of a heap segment, and so the
/// largest alignment `shmem_align` provides (1 GiB: the largest huge page; address space only).
pub const USER_ALIGN: usize = 1 << 30;

/// How every mapping of a heap segment is placed.
pub const HEAP_LAYOUT: super::segment::Layout = super::segment::Layout {
    aligned_at: USER_OFFSET,
    align: USER_ALIGN,
    guard: Some((CONTROL_SIZE, GUARD_SIZE)),
};

/// Team synchronization slots per PE; a team uses the same slot index on every member.
pub const TEAM_SLOTS: usize = 64;

/// The most dissemination rounds a team barrier needs (2^32 PEs).
pub const TEAM_ROUNDS: usize = 32;

/// Values a PE publishes to its team during one collective (sizes, agreement records).
pub const TEAM_VALUES: usize = 4;

/// The most PEs the active-set (pSync) collectives support: one counter per sending PE.
pub const ASET_PES: usize = 16384;

/// A word alone on its cache line, so that writers of neighbouring words do not interfere.
#[repr(C, align(64))]
pub struct Padded(pub AtomicU64);

/// One team's synchronization words on one PE.
#[repr(C)]
pub struct TeamSync {
    /// `barrier[r]`: the last barrier epoch of the team in which this PE was signalled in round `r`.
    pub barrier: [Padded; TEAM_ROUNDS],
    /// Values this PE publishes before a collective's first barrier; peers read them between its
    /// two barriers.
    pub value: [Padded; TEAM_VALUES],
    /// The epoch of the last broadcast whose data the root has pushed into this PE's destination.
    pub bcast: Padded,
    /// The epoch of the last counter barrier this PE arrived at (read only by hang reports).
    pub reached: Padded,
    /// On the team's first member: how many members have arrived at the current counter barrier.
    pub arrived: Padded,
    /// On the team's first member: the epoch of the last counter barrier every member reached.
    pub released: Padded,
    /// This PE's contributions to the team's one-synchronization collectives.
    pub posts: Posts,
}

/// Contributions a PE may have in flight on one group: a broadcast root runs this many calls
/// ahead of its slowest reader before it waits.
pub const POSTS: usize = 64;

/// Bytes of a contribution a post carries itself (the rest of its four cache lines).
pub const INLINE_BYTES: usize = 224;

/// Bytes of one chunk of a group's scratch area: a contribution too large to be carried inline
/// takes as many consecutive chunks as it needs, so that small ones can be many in flight.
pub const CHUNK_BYTES: usize = 1024;

/// Chunks in one group's scratch area (64 KiB).
pub const CHUNKS: usize = 64;

/// The acknowledgement counts of a group's posts, [`ACKS_PER_LINE`] to a cache line: a reader
/// acknowledging consecutive calls keeps writing one line, which the owner reads once for all of
/// them (the counts of different posts need no line each, as only the owner waits on them).
#[repr(C, align(64))]
pub struct Acks(pub [AtomicU64; POSTS]);

/// Acknowledgement counts on one cache line of [`Acks`].
pub const ACKS_PER_LINE: usize = 64 / std::mem::size_of::<AtomicU64>();

const _: () = assert!(POSTS <= 64 && POSTS.is_multiple_of(ACKS_PER_LINE));
const _: () = assert!(
    std::mem::size_of::<Post>() == 4 * 64 && std::mem::offset_of!(Post, inline).is_multiple_of(16)
);

/// One post of a PE's contributions, on cache lines that readers poll and read.
#[repr(C, align(64))]
pub struct Post {
    /// Which call the contribution belongs to (a team's epoch, or an active set and its count),
    /// stored last with release; 0 before the first.
    pub tag: AtomicU64,
    /// Where the contribution is (see `collectives::posted`) and its length in bytes.
    pub meta: AtomicU64,
    /// Bit `i`: the part of the contribution for member `i` was written into that member's
    /// destination, not posted (an alltoall's blocks for members that had posted already).
    pub pushed: AtomicU64,
    /// Keeps `inline` 16-byte aligned, as a reduction of 16-byte elements reads it.
    _align: u64,
    /// A contribution of at most [`INLINE_BYTES`].
    pub inline: [AtomicU64; INLINE_BYTES / 8],
}

/// A PE's side of the one-synchronization collectives of one group (a team slot, or the active
/// sets): [`POSTS`] posts used in turn, and a scratch area of [`CHUNKS`] chunks for larger
/// contributions.
#[repr(C)]
pub struct Posts {
    pub post: [Post; POSTS],
    /// `acks.0[p]`: how many reads of post `p` readers have finished (each adds 1), over every use.
    pub acks: Acks,
    /// `owed[p]`: how many reads of post `p` have been announced (owner only): the post is free
    /// again once `acks[p]` reaches it.
    pub owed: [AtomicU64; POSTS],
    /// Bit `p`: post `p` was found free (every read announced for it acknowledged) since its last
    /// use (owner only; see `collectives::posted`).
    pub free: AtomicU64,
    /// `chunk_post[c]`, `chunk_owed[c]`: the post that last used scratch chunk `c` and the count
    /// of its acknowledgements that frees the chunk (owner only).
    pub chunk_post: [AtomicU64; CHUNKS],
    pub chunk_owed: [AtomicU64; CHUNKS],
    /// The chunk the next large contribution starts at, unless it does not fit before the end of
    /// the area (then at chunk 0; owner only).
    pub chunk_next: AtomicU64,
}

#[repr(C)]
pub struct Control {
    /// The team slots.
    pub teams: [TeamSync; TEAM_SLOTS],
    /// Active-set collectives: `aset[p]` counts the signals PE `p` has sent this PE.
    pub aset: [AtomicU64; ASET_PES],
    /// Active-set barriers: `aset_rounds[p]` is how many dissemination rounds PE `p` has
    /// signalled this PE, raised to that count (over UCX one tagged message, which may overtake
    /// the adds of `aset`: so the rounds count apart).
    pub aset_rounds: [AtomicU64; ASET_PES],
    /// Active-set collectives: values this PE publishes (as `TeamSync::value`).
    pub aset_value: [Padded; TEAM_VALUES],
    /// Active-set collectives: this PE's contributions (as `TeamSync::posts`).
    pub aset_posts: Posts,
    /// What the last two collective heap calls asked for and got, `[sequence, operation, a, b, c]`
    /// (see `ops::memory`), indexed by sequence parity so that a neighbour still reading the
    /// previous one is not raced.
    pub alloc: [[AtomicU64; 5]; 2],
    /// `left[p]`: how many times PE `p` has entered `shmem_finalize` (explicit, or implicit at
    /// exit) on this PE's count; only for `p < ASET_PES` (see `runtime::departure`).
    pub left: [AtomicU64; ASET_PES],
    /// Arrivals in `shmem_finalize`: every PE adds 1 here on every PE, each time.
    pub finalized: Padded,
    /// On PE 0: the PEs whose wait is stalled (low half) and the changes of that count (high
    /// half); `stalled_threaded`: those of them above `SHMEM_THREAD_SINGLE` (`runtime::deadlock`).
    pub stalled: Padded,
    pub stalled_threaded: Padded,
    /// How many times PE 0 asked this PE where it waits (`runtime::deadlock`).
    pub asked: Padded,
    /// Under `SHMEM_DEBUG`, per team slot, the arguments of this PE's last two collective calls on
    /// the team, indexed by the parity of the team's epoch (see `collectives::agree`).
    pub agree: [[[AtomicU64; AGREE_WORDS]; 2]; TEAM_SLOTS],
}

/// Words of one collective call's record (`collectives::agree`).
pub const AGREE_WORDS: usize = 12;

/// Bytes of one scratch buffer: the largest contribution a collective stages there.
pub const SCRATCH_BYTES: usize = 8 * 1024;

/// Where the scratch areas start in the control block (after the words, page aligned): chunk `c`
/// of group `g` (a team slot, or [`TEAM_SLOTS`] for the active sets) at
/// `SCRATCH_OFFSET + (CHUNKS * g + c) * CHUNK_BYTES`.
pub const SCRATCH_OFFSET: usize = std::mem::size_of::<Control>().next_multiple_of(4096);

/// The end of the scratch areas: the control block is free from here to [`CONTROL_SIZE`]
/// (`collectives::node` keeps its words at the very end).
pub const SCRATCH_END: usize = SCRATCH_OFFSET + (TEAM_SLOTS + 1) * CHUNKS * CHUNK_BYTES;

const _: () = assert!(SCRATCH_END <= CONTROL_SIZE);
const _: () = assert!(SCRATCH_BYTES <= CHUNKS * CHUNK_BYTES);

/// Where scratch chunk `c` of group `g` is in the heap segment (an offset from its start).
#[inline(always)]
pub fn scratch_at(g: usize, c: usize) -> usize {
    debug_assert!(g <= TEAM_SLOTS && c < CHUNKS);
    SCRATCH_OFFSET + (CHUNKS * g + c) * CHUNK_BYTES
}

/// The control block at the start of `heap`, a heap segment's mapping (kept for the life of the
/// process).
#[inline(always)]
pub fn of(heap: super::Mapping) -> &'static Control {
    assert!(heap.len() >= CONTROL_SIZE && heap.base().is_multiple_of(align_of::<Control>()));
    // SAFETY: the first `CONTROL_SIZE` bytes of a mapping (checked), aligned (checked), which
    // stays mapped for as long as it is used (`Mapping`'s contract): the control block lives as
    // long as the process.
    unsafe { at(heap.base()) }
}

/// The control block of the heap segment mapped at `base`.
///
/// # Safety
/// `base` must be the base of a live mapping of a heap segment (at least `CONTROL_SIZE` bytes,
/// zero-filled at creation), which the runtime keeps mapped for the life of the process.
#[inline(always)]
pub unsafe fn at(base: usize) -> &'static Control {
    // SAFETY: the caller's contract: `base` starts a live heap mapping of at least `CONTROL_SIZE`
    // bytes, kept for the process's life; Control is all atomics, valid for any bit pattern, and
    // `base` is page aligned.
    unsafe { &*(base as *const Control) }
}

/// Rounds of a binomial tree over the node leaders (`collectives::tree`): up to `2^TREE_ROUNDS`
/// nodes.
pub const TREE_ROUNDS: usize = 24;

/// One team slot's node-aware words on one PE (`collectives::node`), in the control block after
/// the scratch areas.
#[repr(C)]
pub struct TreeSync {
    /// The last epoch in which this PE arrived at its node's leader (written by this PE only).
    pub arrive: Padded,
    /// The last epoch in which this PE's leader released it.
    pub release: Padded,
    /// `up[j]`: the last epoch in which this PE's tree child of round `j` reported (always the
    /// leader `j` places after this one, `2^j` ahead modulo the number of leaders, whatever the
    /// root: see `collectives::tree`).
    pub up: [Padded; TREE_ROUNDS],
    /// The last epoch in which this PE's tree parent delivered the data.
    pub down: Padded,
}

/// Where the node-aware words start in the control block: its end, past every field of
/// [`Control`] and the collectives' scratch areas.
const TREE_AT: usize = (CONTROL_SIZE - size_of::<[TreeSync; TEAM_SLOTS]>()) & !63;

const _: () = assert!(size_of::<Control>() <= TREE_AT);
const _: () = assert!(SCRATCH_END <= TREE_AT);
const _: () = assert!(TREE_AT + size_of::<[TreeSync; TEAM_SLOTS]>() <= CONTROL_SIZE);
const _: () = assert!(TREE_AT.is_multiple_of(64));

/// The node-aware words of team slot `slot` in the control block `c`.
#[inline]
pub fn tree_words(c: &Control, slot: usize) -> &TreeSync {
    let area = (c as *const Control as usize + TREE_AT) as *const [TreeSync; TEAM_SLOTS];
    // SAFETY: a `Control` reference is made only by `of`/`at` from a live heap mapping of at
    // least CONTROL_SIZE bytes (zero-filled at creation, kept for the life of the process);
    // `TREE_AT` plus the area fits in it (checked above); the words are atomics, valid for any
    // bit pattern, and 64-byte aligned like the page-aligned base.
    unsafe { &(*area)[slot] }
}

/// A zeroed [`Posts`] of its own, for tests of the collectives' bookkeeping.
#[cfg(test)]
pub fn zeroed_posts() -> Box<Posts> {
    // SAFETY: `Posts` is all atomics, for which zero is a valid value.
    unsafe { Box::new_zeroed().assume_init() }
}
