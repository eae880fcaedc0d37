//! The node leaders' messages: a broadcast or reduction across nodes below the ring's threshold
//! (`collectives::ring`), an fcollect of up to [`LARGEST`] bytes, and an alltoall of small blocks
//! (`collectives::pairwise`) send their data from leader to leader as messages of the network
//! ([`crate::transport::Remote::send_message`]), each
//! tagged with its group, its call and its step, and taken by the receiver when its own call gets
//! there, however many calls after the sender's.
//!
//! Why: written into a peer's memory, data needs the peer's word that its destination is free, and
//! the writer's fence and signal after it: over TCP, three one-way messages and a round trip per
//! tree edge and call, at 2 PEs 37 us a broadcast of 8 bytes against OSHMEM's 6 (whose collectives
//! are its MPI layer's messages). A message carries data and signal at once and needs nobody's
//! leave: the receiver copies it into its destination inside its call, so the destination's
//! readiness is the receiver's own business. A broadcast's root waits for the receiver's word that
//! it is in the call only once its messages since the last such word would add up to more than
//! the network's run-ahead ([`floor`]), which bounds what waits at a slow receiver.
//!
//! A receiver posts its receive before it does what makes the sender send (its word of a
//! handshake, its own message of an exchange: [`Messages::receive_after`]), so the data lands in
//! its buffer from the network's. The network may move a large message only once its receive is
//! posted (UCX's rendezvous); its sender then waits for that inside its call ([`Messages::send`]),
//! as a reader waits for its data, and ends the job if the receiver has left. No two members wait
//! for each other: each posts before it sends, and each waits only for members of the same call.
//!
//! Tags (63 bits; the network keeps the top one for itself): bit 62 says a team or an active set;
//! bits 56-61 the step of the call (which edge of a tree, which round of an exchange); a team's
//! slot in bits 32-55 and the low 32 bits of its epoch in bits 0-31; an active set's key (start,
//! stride and size, [`posted::aset_key`]) in bits 22-55 and the low 22 bits of the member's count
//! of calls on it in bits 0-21. Every member counts every call the same (a team's epoch; on an
//! active set every member, leader or not, counts each call that could go by messages), and no
//! member is ever `2^22` calls ahead of another's messages: a reduction's member waits for every
//! other's data of the call, and a broadcast's root is held back by the run-ahead. So each
//! tag names one message of one call; a receiver expects exactly one message per step and call.
//!
//! Invariants: a member sends a call's message only from inside that call, and returns from the
//! call only once the send is complete; it takes only the messages of the call it is in; every
//! message sent is taken (by a member of the same call, which every member makes), so none is left
//! at a finalize. A message goes from and into checked ranges ([`Src`], [`Dst`]).

use super::node::Sig;
use super::{Coll, Sync, posted};
use crate::runtime::counters::{self, Kind};
use crate::runtime::departure;
use crate::runtime::handle;
use crate::transport::shm::{Dst, Src};
use crate::transport::{self, Arrival, MessageLimits, Remote};
use std::cell::{Cell, RefCell};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest message: a larger broadcast or reduction runs as a sequence of calls on pieces of
/// at most this ([`pieces`]), and a larger fcollect takes `collectives::ring`'s gets. What a
/// message costs beyond its data: its receiver's copy in UCX's queue (if it arrived before the
/// receiver looked) and, for a reduction, a partner's partial beside this leader's own.
pub const LARGEST: usize = 4 << 20;

/// How far a broadcast's root may run ahead of each level of the tree below it: the network's
/// [`MessageLimits`] ([`Remote::message_limits`]). The messages of a group's broadcasts since
/// their last handshake ([`Messages::handshake`]) add up to at most its `run_ahead`, each counted
/// with its `cost` more and as [`floor`] at least, so at most that (and the network's records of
/// them) waits at a reader that is behind. That bound is for messages the network sends at once
/// (UCX's eager protocol); one it moves only once the receive is posted (UCX's rendezvous: over
/// TCP from about 256 KiB) leaves only its header at the reader, and holds its sender in the call
/// until the reader has posted it ([`Messages::send`]), so such a root is at most one call ahead
/// anyway.
///
/// Why not a fixed number of calls: a handshake drains the pipeline (the root waits until the
/// reader has taken every earlier message, then the reader waits a one-way trip for the next),
/// which one call in 64 paid at every level of the tree. Four PEs over TCP on two cores, 8-byte
/// broadcasts: 0.75 of the time with one handshake in 1024 or 4096 calls, 0.9 with one in 256
/// (the bench journal, 2026-12-04, afternoon: `git show f57c210:bench/README.md`). Why not one
/// for every large message (above 16 KiB until 2026-12-05): the same drain on every call, at 2 PEs
/// over TCP half of a broadcast's time at 64 KiB and a fifth at 256 KiB (the same journal,
/// "Large broadcasts without a handshake a call", 2026-12-05).
///
/// The least a message counts in a root's run: at most `FLOOR_SHARE` messages between two
/// handshakes (with UCX's 8 MiB about the 2000 calls of 8 bytes that small broadcasts ran ahead by
/// when the run-ahead was 1 MiB, tuned with them), however large the window for large messages.
pub fn floor(limits: &MessageLimits) -> u64 {
    limits.run_ahead / FLOOR_SHARE
}

/// See [`floor`].
const FLOOR_SHARE: u64 = 2048;

/// The bit of a tag for an active set's call (clear: a team's).
const ACTIVE_SET: u64 = 1 << 62;
/// Where a tag's step starts, and how many steps a call may have.
const STEP_AT: u32 = 56;
pub const STEPS: u64 = 64;

/// Steps of the leaders' recursive doubling ([`Doubling`]): an extra leader's data to its partner
/// among the first power of two, the rounds in between (`1 + r`, so up to `2^62` leaders), the
/// result back to the extra leader.
pub const STEP_EXTRA: u64 = 0;
pub const STEP_RESULT: u64 = STEPS - 1;

/// Leader `me`'s part in recursive doubling among `n` leaders (a reduction's, an fcollect's): with
/// `P` the largest power of two not above `n`, leader `P + j` (an extra one) hands its data to
/// leader `j` and gets the result back from it; in round `r` (`r < log2 P`) each of the first `P`
/// exchanges with the leader whose index differs in bit `r`.
pub struct Doubling {
    /// The largest power of two not above the number of leaders.
    pub p: usize,
    n: usize,
    me: usize,
}

impl Doubling {
    pub fn new(n: usize, me: usize) -> Doubling {
        Doubling {
            p: 1 << n.ilog2(),
            n,
            me,
        }
    }

    /// The leader this extra one hands its data to (none for the first `P`).
    pub fn served_by(&self) -> Option<usize> {
        (self.me >= self.p).then(|| self.me - self.p)
    }

    /// The extra leader this one serves, if any.
    pub fn serves(&self) -> Option<usize> {
        (self.me < self.p && self.me + self.p < self.n).then(|| self.me + self.p)
    }

    /// This leader's rounds, `(round, step of its messages, partner)`: none for an extra one.
    pub fn rounds(&self) -> impl Iterator<Item = (u32, u64, usize)> + '_ {
        let me = self.me;
        let rounds = if me < self.p { self.p.ilog2() } else { 0 };
        (0..rounds).map(move |r| (r, 1 + r as u64, me ^ (1 << r)))
    }
}

/// Whether the network of call `c` carries the collectives' messages.
pub fn carried(c: &Coll) -> bool {
    c.w.remote().is_some_and(|net| net.messages())
}

/// The pieces of `n` elements of `size` bytes each, at most [`LARGEST`] bytes a piece:
/// `(first element, elements)`.
pub fn pieces(n: usize, size: usize) -> impl Iterator<Item = (usize, usize)> {
    let per = (LARGEST / size).max(1);
    (0..n).step_by(per).map(move |at| (at, per.min(n - at)))
}

/// Whether a broadcast of `nbytes` that finds its group's run at `run` handshakes, and the run
/// after it, with the network's `limits`. A handshake empties the run: each receiver has taken every earlier message when it
/// says it is in the call, and has posted its receive for this one before it says so.
fn window(run: u64, nbytes: usize, limits: &MessageLimits) -> (bool, u64) {
    let after = run + (nbytes as u64 + limits.cost).max(floor(limits));
    if after > limits.run_ahead {
        (true, 0)
    } else {
        (false, after)
    }
}

/// What [`Messages::receive_all_after`] takes from member `from`: its message of step `step`,
/// into `into`.
pub struct Incoming<'b> {
    pub from: usize,
    pub step: u64,
    pub into: Dst<'b>,
}

/// The messages of one call among the node leaders.
pub struct Messages<'a> {
    c: &'a Coll<'a>,
    net: &'a Remote,
    /// The tag without the step.
    base: u64,
    /// The call's number on its group (its low bits are in `base`).
    number: u64,
    /// The group's broadcasts' run since their last handshake, the same on every member.
    run: &'a AtomicU64,
}

impl<'a> Messages<'a> {
    /// The messages of call `c` (started with signals `s`), on a network that carries them
    /// ([`carried`]); counts the call on an active set. Every member of the call must ask, whether
    /// it sends messages or not.
    pub fn of(c: &'a Coll<'a>, s: &Sig) -> Messages<'a> {
        let net =
            c.w.remote()
                .filter(|net| net.messages())
                .expect("a call by messages on a network that carries them");
        let (base, number, run) = match c.g.sync {
            Sync::Team(slot) => {
                let epoch = s.epoch();
                (
                    (slot as u64 & 0xff_ffff) << 32 | (epoch & 0xffff_ffff),
                    epoch,
                    &handle::team_at(slot).run,
                )
            }
            Sync::ActiveSet => {
                let key = posted::aset_key(c);
                let (number, set) = posted::aset_call(key);
                (
                    ACTIVE_SET | key << 22 | (number & 0x3f_ffff),
                    number,
                    &set.run,
                )
            }
        };
        Messages {
            c,
            net,
            base,
            number,
            run,
        }
    }

    /// Whether this broadcast of `nbytes` waits for each receiver's word that it is in the call
    /// before its message goes: when its message would take the group's run since the last
    /// handshake past the network's run-ahead ([`floor`]). Every member of every broadcast on the group must ask
    /// (leader or not), so that all of them count the same run.
    pub fn handshake(&self, nbytes: usize) -> bool {
        // One thread at a time calls collectives on a group (see `next_call`).
        let limits = self.net.message_limits();
        let (handshake, run) = window(self.run.load(Ordering::Relaxed), nbytes, &limits);
        self.run.store(run, Ordering::Relaxed);
        handshake
    }

    fn tag(&self, step: u64) -> u64 {
        debug_assert!(step < STEPS);
        self.base | step << STEP_AT
    }

    /// Sends member `i` the message of step `step`: `bytes`, which may be reused on return. A
    /// large one may wait for `i` to post its receive (in its call), ending the job if `i` left.
    pub fn send(&self, i: usize, step: u64, bytes: Src<'_>) {
        let pe = self.c.g.members.world(i);
        counters::moved(Kind::Put, 1, bytes.len() as u64);
        let fail = |e: transport::Error| -> ! {
            crate::fatal!(self.c.call, "sending to PE {pe} over the network: {e}")
        };
        let wait = |test: &mut dyn FnMut() -> transport::Result<bool>| {
            let sent = Cell::new(test().unwrap_or_else(|e| fail(e)));
            if sent.get() {
                return;
            }
            // A large message moves once `pe` has posted its receive.
            let test = RefCell::new(test);
            let done = || {
                if !sent.get() {
                    sent.set((test.borrow_mut())().unwrap_or_else(|e| fail(e)));
                }
                sent.get()
            };
            let what = |out: &mut String| {
                let _ = write!(
                    out,
                    "sending PE {pe} its message (call {} on this group, step {step})",
                    self.number
                );
            };
            departure::wait_for_message(self.c.w, self.c.call, pe, done, what);
        };
        if let Err(e) = self.net.send_message(pe, self.tag(step), bytes, wait) {
            fail(e);
        }
    }

    /// Waits for the message of step `step` from member `i` and takes it into `into`, which must
    /// be its length (every member of a call passes the same sizes; a message of another length
    /// ends the job with both lengths).
    pub fn receive(&self, i: usize, step: u64, into: Dst<'_>) {
        self.receive_after(i, step, into, || ());
    }

    /// As [`Messages::receive`], running `meanwhile` after the receive is posted and before the
    /// wait: what makes the sender send (a handshake's word, this leader's own message of an
    /// exchange), so that the message finds its buffer waiting.
    pub fn receive_after(&self, i: usize, step: u64, into: Dst<'_>, meanwhile: impl FnOnce()) {
        let len = into.len();
        match self.arrive(i, step, into, meanwhile) {
            Arrival::In(n) if n == len => {}
            arrival => self.mismatch(i, arrival, len),
        }
    }

    /// As [`Messages::receive_after`] for a message of a length the receiver does not know: takes
    /// it into the start of `into` and returns its length. One longer than `into` ends the job.
    pub fn receive_some_after(
        &self,
        i: usize,
        step: u64,
        into: Dst<'_>,
        meanwhile: impl FnOnce(),
    ) -> usize {
        let len = into.len();
        match self.arrive(i, step, into, meanwhile) {
            Arrival::In(n) => n,
            arrival => self.mismatch(i, arrival, len),
        }
    }

    /// Takes the message of each of `incoming` into its buffer, which must be its length: posts
    /// every receive, runs `meanwhile` (what makes the senders send: this leader's own messages of
    /// an exchange), and waits for them all. So a message arriving after its post lands in place,
    /// and a large one (which moves only once its receive is posted) never waits for this
    /// member's sends.
    pub fn receive_all_after(&self, incoming: &mut [Incoming<'_>], meanwhile: impl FnOnce()) {
        let whose: Vec<(usize, u64, usize)> = incoming
            .iter()
            .map(|inc| (inc.from, inc.step, inc.into.len()))
            .collect();
        let mut posts: Vec<(u64, Dst<'_>)> = incoming
            .iter()
            .map(|inc| (self.tag(inc.step), inc.into))
            .collect();
        let wait = |test: &mut dyn FnMut(usize) -> transport::Result<Arrival>| {
            meanwhile();
            for (k, &(i, step, len)) in whose.iter().enumerate() {
                match self.await_arrival(i, step, &mut || test(k)) {
                    Arrival::In(n) if n == len => {}
                    arrival => self.mismatch(i, arrival, len),
                }
            }
        };
        if let Err(e) = self.net.receive_messages(&mut posts, wait) {
            crate::fatal!(self.c.call, "receiving over the network: {e}");
        }
    }

    /// Posts the receive of member `i`'s message of step `step` into `into`, runs `meanwhile`, and
    /// waits for the message; ends the job on the network's errors.
    fn arrive(&self, i: usize, step: u64, into: Dst<'_>, meanwhile: impl FnOnce()) -> Arrival {
        let wait = |test: &mut dyn FnMut() -> transport::Result<Arrival>| {
            meanwhile();
            self.await_arrival(i, step, test)
        };
        match self.net.receive_message(self.tag(step), into, wait) {
            Ok(a) => a,
            Err(e) => crate::fatal!(
                self.c.call,
                "receiving from PE {} over the network: {e}",
                self.c.g.members.world(i)
            ),
        }
    }

    /// Waits until `test` finds member `i`'s message of step `step` (posted) no longer pending;
    /// ends the job on the network's errors, or if `i` leaves first.
    fn await_arrival(
        &self,
        i: usize,
        step: u64,
        test: &mut dyn FnMut() -> transport::Result<Arrival>,
    ) -> Arrival {
        let from = self.c.g.members.world(i);
        let what = |out: &mut String| {
            let _ = write!(
                out,
                "waiting for PE {from}'s message (call {} on this group, step {step})",
                self.number
            );
        };
        let arrival = Cell::new(Arrival::Pending);
        let test = RefCell::new(test);
        let done = || {
            if arrival.get() == Arrival::Pending {
                match (test.borrow_mut())() {
                    Ok(a) => arrival.set(a),
                    Err(e) => crate::fatal!(
                        self.c.call,
                        "receiving from PE {from} over the network: {e}"
                    ),
                }
            }
            arrival.get() != Arrival::Pending
        };
        departure::wait_for_message(self.c.w, self.c.call, from, done, what);
        arrival.get()
    }

    /// Ends the job: member `i` sent `got` bytes that do not read as `what`, which only a
    /// member in another collective at the same point can do.
    #[cold]
    pub fn malformed(&self, i: usize, got: usize, what: &str) -> ! {
        let from = self.c.g.members.world(i);
        crate::fatal!(
            self.c.call,
            "PE {from} sent {got} bytes that are not {what} (call {} on this group): every PE of \
             the group must make the same collective calls in the same order",
            self.number
        );
    }

    /// Ends the job: member `i` sent `arrival` where this member expects `len` bytes.
    #[cold]
    fn mismatch(&self, i: usize, arrival: Arrival, len: usize) -> ! {
        let from = self.c.g.members.world(i);
        let sent = match arrival {
            Arrival::In(n) => format!("{n} bytes"),
            _ => "more bytes".to_string(),
        };
        crate::fatal!(
            self.c.call,
            "PE {from} sent {sent} where this PE expects {len}: every PE of the call must pass \
             the same number of elements"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{Doubling, LARGEST, floor};
    use crate::transport::MessageLimits;

    /// UCX's limits today.
    const LIMITS: MessageLimits = MessageLimits {
        run_ahead: 8 << 20,
        cost: 512,
    };
    const RUN_AHEAD: u64 = LIMITS.run_ahead;
    const MESSAGE_COST: u64 = LIMITS.cost;

    fn window(run: u64, nbytes: usize) -> (bool, u64) {
        super::window(run, nbytes, &LIMITS)
    }

    #[test]
    fn a_root_runs_ahead_by_at_most_the_window() {
        let message_floor = floor(&LIMITS);
        // Calls of 8 bytes: the same number of them between two handshakes, every time, each
        // counted as the floor.
        let per = RUN_AHEAD / message_floor;
        let (mut run, mut last, mut gaps) = (0, 0u64, Vec::new());
        for call in 1..=5 * per {
            let (handshake, next) = window(run, 8);
            assert!(
                next <= RUN_AHEAD,
                "call {call}: {next} bytes may wait at a reader"
            );
            if handshake {
                gaps.push(call - last);
                last = call;
            }
            run = next;
        }
        assert_eq!(gaps.len(), 4, "{gaps:?}");
        assert!(
            gaps.iter().all(|&g| g == per + 1),
            "{gaps:?}, {per} calls a window"
        );
        // A message of any size counts its bytes: one of the largest runs ahead of the reader
        // once, the next waits for it.
        let largest = LARGEST as u64 + MESSAGE_COST;
        assert_eq!(window(0, LARGEST), (false, largest));
        assert_eq!(window(largest, LARGEST), (true, 0));
        assert_eq!(window(RUN_AHEAD - message_floor, 8), (false, RUN_AHEAD));
        assert_eq!(window(RUN_AHEAD - message_floor + 1, 8), (true, 0));
        // Above the floor a message counts its bytes and their cost.
        let above = message_floor as usize;
        assert_eq!(window(0, above), (false, above as u64 + MESSAGE_COST));
    }

    #[test]
    fn every_exchange_of_recursive_doubling_has_both_ends() {
        for n in 1..=33 {
            let all: Vec<Doubling> = (0..n).map(|me| Doubling::new(n, me)).collect();
            let p = all[0].p;
            assert!(p <= n && n < 2 * p, "{n} leaders: P = {p}");
            for (me, d) in all.iter().enumerate() {
                match d.served_by() {
                    Some(j) => {
                        assert_eq!(all[j].serves(), Some(me), "{n} leaders: extra {me}");
                        assert_eq!(d.rounds().count(), 0, "an extra leader takes no round");
                    }
                    None => {
                        let rounds: Vec<_> = d.rounds().collect();
                        assert_eq!(rounds.len(), p.ilog2() as usize);
                        for (r, step, partner) in rounds {
                            assert!(partner < p && step == 1 + r as u64);
                            let back = all[partner].rounds().nth(r as usize);
                            assert_eq!(back, Some((r, step, me)), "{n} leaders, {me} round {r}");
                        }
                    }
                }
            }
            let served = all.iter().filter(|d| d.serves().is_some()).count();
            assert_eq!(served, n - p, "{n} leaders: every extra one is served once");
        }
    }
}
