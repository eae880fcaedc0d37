//! Posts: how the on-node collectives synchronize once per call instead of twice.
//!
//! Every member that contributes data to a call posts it in its control block: small contributions
//! are carried in the post itself or copied into consecutive chunks of the member's scratch area
//! (then its source is free at once; a contribution of up to a chunk takes one, so that as many
//! calls as there are posts can be in flight), larger ones are announced to be read from the
//! member's own source (then the member waits, before it returns, until every reader has
//! acknowledged). A post is
//! tagged with the call: on a team the epoch the call takes from the team (as a barrier would), on
//! an active set the set and how many calls this PE has made on it; that count, modulo [`POSTS`],
//! selects the post. Readers wait for the tag on the contributor's post, copy or combine, and add
//! one to the post's acknowledgement count. Nobody waits for a closing barrier: a contributor
//! reuses a post or a scratch chunk only once the reads announced for its previous use are all
//! acknowledged (normally long done: the calls in between synchronized with the readers, except on
//! a broadcast root, which so runs up to `POSTS` calls ahead), and a member writes only its own
//! destination or, in alltoall, that of a member whose post of the call it has seen
//! ([`Posting::posted`]), so no destination is written before its owner has entered the call. A
//! reader acknowledges a post even when the member wrote its part into the reader's destination
//! ([`Contribution::pushed`]): the acknowledgement, not the read, is what keeps a member from
//! reusing the post while a reader may still look at it.
//!
//! Invariants: every member of a group takes this path or none (it needs every member's control
//! block mapped here, on the node or by the network itself, which holds on every member alike:
//! PEs that map each other's memory do so both ways); a post's tag is stored last, with
//! release, after its data and its place; a post (and its scratch chunks) holds one call's
//! contribution until every announced reader has acknowledged it, so a reader that sees its tag
//! reads that call's data; a post's bit in `Posts::free` is set only while every read announced
//! for it is acknowledged (the owner clears it as it announces new reads, before any look).

use super::{Coll, Sync};
use crate::runtime::departure;
use crate::runtime::handle;
use crate::runtime::team::Members;
use crate::runtime::world::{Seg, World};
use crate::transport::shm::control::{
    self, ACKS_PER_LINE, CHUNK_BYTES, CHUNKS, INLINE_BYTES, POSTS, Posts, SCRATCH_BYTES, TEAM_SLOTS,
};
use crate::transport::shm::{self, Dst, Mapping, Src};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The top bit of a post's `meta`: the contribution is read from the member's source.
const DIRECT: u64 = 1 << 63;

/// Bits 48..56 of a post's `meta`: 0 if the contribution is inline, `c + 1` if in the scratch
/// area from chunk `c` on; the low 48 bits are its length.
const WHERE: u32 = 48;
const LEN: u64 = (1 << WHERE) - 1;

/// What this PE keeps per active set: how many calls it has made on it, and its broadcasts' run
/// since their last handshake ([`super::message::Messages::handshake`]).
pub(super) struct AsetState {
    calls: AtomicU64,
    pub run: AtomicU64,
}

impl AsetState {
    const fn new() -> AsetState {
        AsetState {
            calls: AtomicU64::new(0),
            run: AtomicU64::new(0),
        }
    }
}

/// The state of each active set: the first `ASET_SLOTS` sets the PE uses each claim an entry of
/// this table (by `aset_key`, never 0; open addressing, entries never freed), so that a call
/// counts itself with one atomic add; the sets beyond go to [`ASET_MORE`].
const ASET_SLOTS: usize = 64;
static ASET_KEYS: [AtomicU64; ASET_SLOTS] = [const { AtomicU64::new(0) }; ASET_SLOTS];
static ASET_STATES: [AsetState; ASET_SLOTS] = [const { AsetState::new() }; ASET_SLOTS];

/// The state of the active sets beyond the table's, by `aset_key` (never freed either).
static ASET_MORE: Mutex<Option<HashMap<u64, &'static AsetState>>> = Mutex::new(None);

/// Counts a call of this PE on the active set `key`; returns how many it has made on it, this one
/// included, and the set's state.
pub(super) fn aset_call(key: u64) -> (u64, &'static AsetState) {
    debug_assert_ne!(key, 0);
    let home = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
    for i in 0..ASET_SLOTS {
        let s = (home + i) % ASET_SLOTS;
        let mut held = ASET_KEYS[s].load(Ordering::Acquire);
        if held == 0 {
            held = match ASET_KEYS[s].compare_exchange(0, key, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => key,
                Err(other) => other,
            };
        }
        // An entry once claimed keeps its key: a set found nowhere before an empty entry (or in
        // a full table) was never given one.
        if held == key {
            let state = &ASET_STATES[s];
            return (super::next_call(&state.calls), state);
        }
    }
    let mut more = ASET_MORE.lock().unwrap_or_else(|e| e.into_inner());
    let state: &'static AsetState = more
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(AsetState::new())));
    (super::next_call(&state.calls), state)
}

/// One call's posts: the tag, the buffer and where this member's own post is.
pub struct Posting<'c, 'w> {
    c: &'c Coll<'w>,
    tag: u64,
    /// The call's number on its team or active set (what a hang report shows).
    seq: u64,
    b: usize,
    group: usize,
    /// Whether this member's own contribution is read from its source (it waits for its readers).
    direct: bool,
    /// Where this member's own staged contribution is.
    mine: Dst<'static>,
}

/// What a member posted: where its contribution is readable here and how long it is.
pub struct Contribution {
    /// The contribution in the member's post or scratch area, or `None` if the reader reads the
    /// member's source.
    pub staged: Option<Src<'static>>,
    pub len: usize,
    /// The member wrote its part for this reader into the reader's destination itself.
    pub pushed: bool,
}

/// An active set as one number: start (14 bits), log2 of the stride (5 bits), size (15 bits).
pub(super) fn aset_key(c: &Coll) -> u64 {
    let m = &c.g.members;
    let log = m.stride.max(1).trailing_zeros() as u64;
    (m.start as u64) << 20 | log << 15 | m.size as u64
}

/// Whether every member's heap segment (with its control block) is mapped here
/// ([`World::mapped_base`]: on the node, or by the network itself).
pub fn mapped(c: &Coll) -> bool {
    maps_all(c.w, &c.g.members, Seg::Heap)
}

/// Whether every member's symmetric segments (heap and global data) are mapped here, so that any
/// member's symmetric source is readable.
pub fn readable(c: &Coll) -> bool {
    [Seg::Heap, Seg::Data]
        .into_iter()
        .all(|seg| maps_all(c.w, &c.g.members, seg))
}

/// Whether every member of `m` has its segment `seg` mapped here.
pub fn maps_all(w: &World, m: &Members, seg: Seg) -> bool {
    (0..m.size).all(|i| w.mapped_base(seg, m.world(i)) != 0)
}

impl<'c, 'w> Posting<'c, 'w> {
    /// Starts a posted call on `c`, or `None` if some member's control block is not mapped here
    /// (then every member takes another algorithm).
    pub fn begin(c: &'c Coll<'w>) -> Option<Self> {
        if !mapped(c) {
            return None;
        }
        let (tag, seq, group) = match c.g.sync {
            Sync::Team(slot) => {
                let epoch = super::next_call(&handle::team_at(slot).epoch);
                (epoch, epoch, slot)
            }
            Sync::ActiveSet => {
                let key = aset_key(c);
                let (n, _) = aset_call(key);
                // The count wraps after 2^30 calls on one set; a buffer holds one of the last POSTS.
                ((n & ((1 << 30) - 1)) << 34 | key, n, TEAM_SLOTS)
            }
        };
        Some(Posting {
            c,
            tag,
            seq,
            b: (seq % POSTS as u64) as usize,
            group,
            direct: false,
            mine: Dst::empty(),
        })
    }

    /// Member (world PE) `pe`'s heap segment, mapped here (`mapped`, checked by `begin`).
    fn heap_of(&self, pe: usize) -> Mapping {
        match self.c.w.mapped(Seg::Heap, pe) {
            Some(m) => m,
            None => unreachable!("a posted call with PE {pe}'s heap not mapped"),
        }
    }

    fn posts_of(&self, pe: usize) -> &'static Posts {
        let ctl = control::of(self.heap_of(pe));
        match self.c.g.sync {
            Sync::Team(slot) => &ctl.teams[slot].posts,
            Sync::ActiveSet => &ctl.aset_posts,
        }
    }

    /// Member `i`'s scratch area from chunk `c` to its end.
    fn scratch_of(&self, i: usize, c: usize) -> Dst<'static> {
        let at = control::scratch_at(self.group, c);
        let heap = self.heap_of(self.c.g.members.world(i));
        heap.at(at, (CHUNKS - c) * CHUNK_BYTES)
            .expect("the scratch areas lie in the control block")
    }

    /// The inline bytes of post `post` of world PE `pe` (whose posts are `post`'s array).
    fn inline_of(&self, pe: usize, post: &control::Post) -> Dst<'static> {
        let heap = self.heap_of(pe);
        heap.at(post.inline.as_ptr() as usize - heap.base(), INLINE_BYTES)
            .expect("a post lies in the control block")
    }

    /// Where this member's own staged contribution is (after [`Posting::post`] with `stage`).
    pub fn own_scratch(&self) -> Src<'static> {
        self.mine.src()
    }

    /// Posts this member's contribution of `len` bytes for `readers` readers: if `stage`, written
    /// by `fill` (given the address) into the post itself or scratch chunks (`len <=
    /// SCRATCH_BYTES`), otherwise read from this member's source by the readers, and
    /// [`Posting::finish`] waits for them.
    pub fn post(
        &mut self,
        len: usize,
        stage: bool,
        fill: impl FnOnce(Dst<'static>),
        readers: usize,
    ) {
        self.post_pushing(
            len,
            stage,
            |_, s| {
                fill(s);
                0
            },
            readers,
        );
    }

    /// As [`Posting::post`], where a staged contribution's `fill` may write the parts for some
    /// members into their destinations instead of the scratch area, each after
    /// [`Posting::posted`] said that member had posted: it returns them as a mask of member
    /// indices (groups of at most 64 members), which their readers find in
    /// [`Contribution::pushed`].
    pub fn post_pushing(
        &mut self,
        len: usize,
        stage: bool,
        fill: impl FnOnce(&Self, Dst<'static>) -> u64,
        readers: usize,
    ) {
        let mine = self.posts_of(self.c.w.me);
        let w = self.c.w;
        let b = self.b;
        let owed = mine.owed[b].load(Ordering::Relaxed);
        // The previous use of this post: every read announced for it is done.
        await_reads(w, mine, b, owed);
        let owed = owed + readers as u64;
        // Announced before any chunk is looked at: a look may mark this post free only once its
        // new readers have acknowledged.
        mine.owed[b].store(owed, Ordering::Relaxed);
        mine.free.store(
            mine.free.load(Ordering::Relaxed) & !(1 << b),
            Ordering::Relaxed,
        );
        let mut pushed = 0;
        let meta = if !stage {
            self.direct = true;
            len as u64 | DIRECT
        } else if len <= INLINE_BYTES {
            self.mine = self.inline_of(self.c.w.me, &mine.post[b]).part(0, len);
            pushed = fill(self, self.mine);
            len as u64
        } else {
            debug_assert!(len <= SCRATCH_BYTES);
            let chunks = chunks_for(mine.chunk_next.load(Ordering::Relaxed) as usize, len);
            mine.chunk_next.store(chunks.end as u64, Ordering::Relaxed);
            let first = chunks.start;
            for c in chunks {
                // The chunk's previous use: every read of the post that had it is done.
                let (p, due) = (
                    mine.chunk_post[c].load(Ordering::Relaxed) as usize,
                    mine.chunk_owed[c].load(Ordering::Relaxed),
                );
                // If it was this post, that use was awaited above (`due` <= the old `owed`).
                if p != b {
                    await_reads(w, mine, p, due);
                }
                mine.chunk_post[c].store(b as u64, Ordering::Relaxed);
                mine.chunk_owed[c].store(owed, Ordering::Relaxed);
            }
            self.mine = self.scratch_of(self.c.g.members.me, first).part(0, len);
            pushed = fill(self, self.mine);
            len as u64 | (first as u64 + 1) << WHERE
        };
        mine.post[b].meta.store(meta, Ordering::Relaxed);
        mine.post[b].pushed.store(pushed, Ordering::Relaxed);
        // The data and the length before the tag (copies may be non-temporal).
        shm::order_stores();
        mine.post[b].tag.store(self.tag, Ordering::Release);
    }

    /// Whether member `i` has posted a staged contribution to this call: it has entered the call
    /// (its destination is free) and read all of its source (its destination may overlap it), so
    /// another member may write into its destination.
    pub fn posted(&self, i: usize) -> bool {
        let pe = self.c.g.members.world(i);
        let post = &self.posts_of(pe).post[self.b];
        post.tag.load(Ordering::Acquire) == self.tag
            && post.meta.load(Ordering::Relaxed) & DIRECT == 0
    }

    /// Whether member `i` has posted its contribution to this call.
    fn ready(&self, i: usize) -> bool {
        let pe = self.c.g.members.world(i);
        self.posts_of(pe).post[self.b].tag.load(Ordering::Acquire) == self.tag
    }

    /// Runs `f` on the contribution of each member of `members` (not this one), in the order their
    /// posts arrive (in the given order among those already there), acknowledging each after `f`:
    /// a member that can read some post does not wait for another.
    pub fn each(
        &self,
        members: impl Iterator<Item = usize>,
        mut f: impl FnMut(usize, Contribution),
    ) {
        // The members still to read, on the stack for groups of up to `ON_STACK + 1` (a call
        // this short should not allocate).
        const ON_STACK: usize = 64;
        let mut stack = [0usize; ON_STACK];
        let mut heap = Vec::new();
        let all: &mut [usize] = match members.size_hint() {
            (_, Some(most)) if most <= ON_STACK => {
                let mut len = 0;
                for i in members {
                    stack[len] = i;
                    len += 1;
                }
                &mut stack[..len]
            }
            _ => {
                heap.extend(members);
                &mut heap[..]
            }
        };
        let mut left = all.len();
        while left > 0 {
            let first = all[0];
            let mut kept = 0;
            for k in 0..left {
                let i = all[k];
                if self.ready(i) {
                    f(i, self.contribution(i));
                    self.ack(i);
                } else {
                    all[kept] = i;
                    kept += 1;
                }
            }
            let before = left;
            left = kept;
            let pending = &all[..left];
            if left == before {
                let pe = self.c.g.members.world(first);
                departure::wait_for(
                    self.c.w,
                    self.c.call,
                    pe,
                    false,
                    || pending.iter().any(|&i| self.ready(i)),
                    |out| {
                        let _ = write!(out, "waiting for the contributions of members ");
                        for (k, i) in pending.iter().enumerate() {
                            let sep = if k == 0 { "" } else { ", " };
                            let _ = write!(out, "{sep}PE {}", self.c.g.members.world(*i));
                        }
                        let _ = write!(out, " (call {} on this group)", self.seq);
                    },
                );
            }
        }
    }

    /// Waits for member `i`'s post of this call (`i` is not this member).
    pub fn wait(&self, i: usize) -> Contribution {
        let pe = self.c.g.members.world(i);
        departure::wait_for(
            self.c.w,
            self.c.call,
            pe,
            false,
            || self.ready(i),
            |out| {
                let _ = write!(
                    out,
                    "waiting for the contribution of PE {pe} (call {} on this group)",
                    self.seq
                );
            },
        );
        self.contribution(i)
    }

    /// Member `i`'s contribution, once posted.
    fn contribution(&self, i: usize) -> Contribution {
        let pe = self.c.g.members.world(i);
        let post = &self.posts_of(pe).post[self.b];
        let meta = post.meta.load(Ordering::Relaxed);
        let at = ((meta & !DIRECT) >> WHERE) as usize;
        let len = (meta & LEN) as usize;
        Contribution {
            staged: (meta & DIRECT == 0).then(|| {
                if at == 0 {
                    self.inline_of(pe, post).src().part(0, len)
                } else {
                    self.scratch_of(i, at - 1).src().part(0, len)
                }
            }),
            len,
            pushed: post
                .pushed
                .load(Ordering::Relaxed)
                .checked_shr(self.c.me() as u32)
                .is_some_and(|m| m & 1 != 0),
        }
    }

    /// Tells member `i` that this member has finished reading its post.
    pub fn ack(&self, i: usize) {
        let pe = self.c.g.members.world(i);
        self.posts_of(pe).acks.0[self.b].fetch_add(1, Ordering::Release);
    }

    /// Before returning: if this member's contribution was read from its source, waits until
    /// every reader has acknowledged it (then the source may change again).
    pub fn finish(&self) {
        if self.direct {
            let mine = self.posts_of(self.c.w.me);
            let b = self.b;
            let owed = mine.owed[b].load(Ordering::Relaxed);
            let acks = &mine.acks.0[b];
            self.c.w.wait_until_as(
                || acks.load(Ordering::Acquire) >= owed,
                |out| acks_awaited(out, b, acks, owed),
            );
        }
    }
}

/// The scratch chunks a staged contribution of `len` bytes takes when the last one ended at chunk
/// `next`: consecutive ones from there on, or from the area's start if they do not fit before its
/// end.
fn chunks_for(next: usize, len: usize) -> Range<usize> {
    let n = len.div_ceil(CHUNK_BYTES);
    let first = match next % CHUNKS {
        at if at + n <= CHUNKS => at,
        _ => 0,
    };
    first..first + n
}

/// Waits until the reads of this PE's post `p` announced up to `due` (at most its `owed`) are all
/// acknowledged.
///
/// A post found free stays free until its owner uses it again, so `Posts::free` remembers it, and
/// a look at one post's count looks at the other counts on its cache line too. An owner posting
/// call after call (a broadcast root) so reads that line once per [`ACKS_PER_LINE`] calls, and a
/// reader acknowledging them keeps it meanwhile. When the counts were one per line, the owner's
/// read on every call moved the line away from the reader before each acknowledgement.
fn await_reads(w: &World, mine: &Posts, p: usize, due: u64) {
    if found_free(mine, p) {
        return;
    }
    let acks = &mine.acks.0[p];
    w.wait_until_as(
        || acks.load(Ordering::Acquire) >= due,
        |out| acks_awaited(out, p, acks, due),
    );
}

/// Whether this PE's post `p` is free (every read announced for it acknowledged): known from
/// `Posts::free`, or found by a look at the counts on its line, which marks every post found free
/// there.
fn found_free(mine: &Posts, p: usize) -> bool {
    let known = mine.free.load(Ordering::Relaxed);
    if known & 1 << p != 0 {
        return true;
    }
    let line = p - p % ACKS_PER_LINE;
    let found = (line..line + ACKS_PER_LINE).fold(known, |found, q| {
        // Acquire: the reads acknowledged come before whatever this PE writes into the post next.
        if mine.acks.0[q].load(Ordering::Acquire) >= mine.owed[q].load(Ordering::Relaxed) {
            found | 1 << q
        } else {
            found
        }
    });
    mine.free.store(found, Ordering::Relaxed);
    found & 1 << p != 0
}

/// What a wait for the readers of post `b` writes in a hang report.
fn acks_awaited(out: &mut String, b: usize, acks: &AtomicU64, owed: u64) {
    let _ = write!(
        out,
        "waiting for the readers of post {b} to acknowledge: {} of {owed} reads done",
        acks.load(Ordering::Relaxed)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_set_calls_count_per_set_beyond_the_table() {
        // Keys of this test only (start 9000 on, stride 1, size 3): other tests may count sets too.
        let key = |start: u64| start << 20 | 3;
        let sets: Vec<u64> = (9000..9000 + 2 * ASET_SLOTS as u64).map(key).collect();
        for round in 1..=3u64 {
            for &k in &sets {
                assert_eq!(aset_call(k).0, round, "set {k:#x}");
            }
        }
        // The first sets took entries of the table, the later ones the map.
        assert!(
            ASET_KEYS
                .iter()
                .any(|k| k.load(Ordering::Relaxed) == sets[0])
        );
        let map = ASET_MORE.lock().unwrap();
        let last = map.as_ref().and_then(|m| m.get(sets.last().unwrap()));
        assert_eq!(last.map(|s| s.calls.load(Ordering::Relaxed)), Some(3));
    }

    #[test]
    fn a_look_marks_the_free_posts_of_its_line_and_only_those() {
        let posts: Box<Posts> = control::zeroed_posts();
        let set = |a: &AtomicU64, v| a.store(v, Ordering::Relaxed);
        // Posts 8..16 (the second line): 9 and 11 still have a read to come, 12 has all three.
        for q in 8..16 {
            set(&posts.owed[q], 2);
            set(&posts.acks.0[q], 2);
        }
        set(&posts.acks.0[9], 1);
        set(&posts.owed[11], 5);
        set(&posts.acks.0[11], 4);
        set(&posts.owed[12], 3);
        set(&posts.acks.0[12], 3);
        // A post of the first line with a read to come: not looked at by a look at the second.
        set(&posts.owed[0], 1);
        assert!(!found_free(&posts, 9));
        let free = posts.free.load(Ordering::Relaxed);
        assert_eq!(free & 0xff00, 0xff00 & !(1 << 9 | 1 << 11), "{free:#x}");
        assert_eq!(free & 0xff, 0, "{free:#x}");
        // Known free now, even if the count went back (it never does; this shows no look).
        set(&posts.acks.0[12], 0);
        assert!(found_free(&posts, 12));
        // Post 9's last read arrives: the next look finds it.
        set(&posts.acks.0[9], 2);
        assert!(found_free(&posts, 9));
        // Post 0's look: its line only; 0 still owed.
        assert!(!found_free(&posts, 0));
        assert_eq!(posts.free.load(Ordering::Relaxed) & 0xff, 0xfe);
    }

    #[test]
    fn contributions_take_consecutive_chunks_and_wrap_whole() {
        // One chunk for anything up to a chunk, more for more.
        assert_eq!(chunks_for(0, INLINE_BYTES + 1), 0..1);
        assert_eq!(chunks_for(5, CHUNK_BYTES), 5..6);
        assert_eq!(chunks_for(5, CHUNK_BYTES + 1), 5..7);
        assert_eq!(chunks_for(0, SCRATCH_BYTES), 0..SCRATCH_BYTES / CHUNK_BYTES);
        // Up to the area's end, never across it.
        assert_eq!(chunks_for(CHUNKS - 1, CHUNK_BYTES), CHUNKS - 1..CHUNKS);
        assert_eq!(chunks_for(CHUNKS - 1, CHUNK_BYTES + 1), 0..2);
        assert_eq!(chunks_for(CHUNKS - 8, SCRATCH_BYTES), CHUNKS - 8..CHUNKS);
        assert_eq!(chunks_for(CHUNKS - 7, SCRATCH_BYTES), 0..8);
        // The end of the area is its start.
        assert_eq!(chunks_for(CHUNKS, CHUNK_BYTES), 0..1);
        // Calls of one size in a row cycle through the whole area.
        let mut next = 0;
        let mut starts = Vec::new();
        for _ in 0..CHUNKS {
            let c = chunks_for(next, 3 * CHUNK_BYTES);
            assert!(c.end <= CHUNKS);
            starts.push(c.start);
            next = c.end;
        }
        assert_eq!(starts[..3], [0, 3, 6]);
        assert_eq!(
            starts[CHUNKS / 3],
            0,
            "wraps after {} contributions",
            CHUNKS / 3
        );
    }
}
