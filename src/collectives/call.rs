//! What the algorithms need of one collective call ([`Coll`]): the two barriers that frame a call
//! off the posted path, the values members publish before the first, and a readable view of a
//! member's symmetric bytes (mapped, or fetched over the network). Shared by the flat and split
//! algorithms, which import it and not each other's internals.
//!
//! Invariants: memory is reached through checked ranges ([`Src`], [`Dst`]) alone; a non-blocking
//! get lands in a buffer borrowed for the whole of a [`Coll::fetching`] scope, which completes it
//! before the buffer can go.

use super::{Coll, Sync, barrier};
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote;
use crate::runtime::world::{Seg, Target};
use crate::transport::shm::control::Control;
use crate::transport::shm::{self, Dst, Plain, Src};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// A reduction's operator on elements of `T`: combines the elements of `x` into those of `acc`
/// (`acc[k] = acc[k] op x[k]`), as many as `x` holds (`acc` holds as many).
pub type Combine<T> = fn(acc: Acc<'_, T>, x: Src<'_>);

/// The elements of `T` a reduction combines into: a [`Dst`] that says its element type (so that
/// an operator such as `Arith::sum` names the type it is for).
pub struct Acc<'a, T> {
    pub dst: Dst<'a>,
    _elements: PhantomData<T>,
}

impl<T> Clone for Acc<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Acc<'_, T> {}

impl<'a, T: Plain> Acc<'a, T> {
    pub fn new(dst: Dst<'a>) -> Acc<'a, T> {
        Acc {
            dst,
            _elements: PhantomData,
        }
    }
}

/// Combines `x` into `acc` with `combine`, or copies it where `first` (the first contribution).
#[inline]
pub fn fold_in<T: Plain>(combine: Combine<T>, acc: Dst<'_>, x: Src<'_>, first: bool) {
    if first {
        acc.copy_from(x)
    } else if !x.is_empty() {
        combine(Acc::new(acc), x)
    }
}

impl Coll<'_> {
    pub(super) fn me(&self) -> usize {
        self.g.members.me
    }

    pub(super) fn size(&self) -> usize {
        self.g.members.size
    }

    /// The first barrier: this member's earlier stores are visible, every member has entered.
    pub fn enter(&self) {
        shm::order();
        barrier::group(self.w, &self.g);
    }

    /// The second barrier: every member has finished reading.
    pub fn leave(&self) {
        shm::order();
        barrier::group(self.w, &self.g);
    }

    fn value_word<'c>(&self, c: &'c Control, k: usize) -> &'c AtomicU64 {
        match self.g.sync {
            Sync::Team(slot) => &c.teams[slot].value[k].0,
            Sync::ActiveSet => &c.aset_value[k].0,
        }
    }

    /// Publishes value `k` of this member (before [`Coll::enter`]).
    pub fn publish(&self, k: usize, v: u64) {
        self.value_word(self.w.control(self.w.me), k)
            .store(v, Ordering::Relaxed);
    }

    /// Value `k` that member `i` published (between the barriers).
    pub fn published(&self, i: usize, k: usize) -> u64 {
        let [v] = self
            .w
            .control_load(self.call, self.g.members.world(i), |c| {
                self.value_word(c, k)
            });
        v
    }

    /// Value `k` that each member of `members` published (between the barriers): acquire loads
    /// where mapped, and over the network one get each, all in flight at once and completed by
    /// one quiet (where [`Coll::published`] waits for each in turn).
    pub fn published_each(&self, members: &[usize], k: usize) -> Vec<u64> {
        let mut values = vec![0u64; members.len()];
        let to = Dst::of(&mut values[..]);
        self.fetching(|f| {
            for (j, &i) in members.iter().enumerate() {
                let (pe, at) = (self.g.members.world(i), j * size_of::<u64>());
                match self.w.control_target(pe, &|c| self.value_word(c, k)) {
                    Ok(word) => to.write(at, word.load(Ordering::Acquire)),
                    Err(off) => f.get(pe, Seg::Heap, off, to.part(at, size_of::<u64>())),
                }
            }
        });
        values
    }

    /// Bytes `part` (offset, length) of member `i`'s copy of the symmetric range `addr..addr+len`
    /// (named `what` in errors; the whole range is checked), readable in this process: this
    /// member's own copy, a mapped peer's, or a local copy of a UCX peer's fetched with one get.
    pub fn peer(
        &self,
        what: &str,
        addr: usize,
        len: usize,
        i: usize,
        part: (usize, usize),
    ) -> View {
        let (at, n) = part;
        if len == 0 || n == 0 {
            return View::Mapped(Src::empty());
        }
        let pe = self.g.members.world(i);
        if pe == self.w.me {
            return View::Mapped(self.w.own(self.call, what, addr, len).src().part(at, n));
        }
        match self.w.rma_target(self.call, what, addr, len, pe) {
            Target::Mapped(base) => View::Mapped(base.src().part(at, n)),
            Target::Net(seg, off) => {
                // 16-byte words: the copy is aligned for every element type.
                let mut copy = vec![0u128; n.div_ceil(16)];
                let to = Dst::of(&mut copy[..]).part(0, n);
                remote::get(self.w, self.call, SHMEM_CTX_DEFAULT, pe, seg, off + at, to);
                View::Copy(copy, n)
            }
        }
    }

    /// Runs `f` with a [`Fetch`] that starts copies from members into buffers that live longer
    /// than this call, and completes them (a quiet, if a get went over the network) before
    /// returning: gets from many members are in flight at once.
    pub fn fetching<'a, R>(&self, f: impl FnOnce(&Fetch<'_, '_, 'a>) -> R) -> R {
        remote::scoped(self.w, self.call, SHMEM_CTX_DEFAULT, |s| {
            f(&Fetch { c: self, s })
        })
    }
}

/// Copies from members into buffers borrowed for `'a`, complete when [`Coll::fetching`] returns.
pub struct Fetch<'c, 's, 'a> {
    c: &'c Coll<'c>,
    s: &'s remote::Scope<'s, 'a>,
}

impl<'a> Fetch<'_, '_, 'a> {
    /// Starts copying `to.len()` bytes at offset `at` of member `i`'s copy of the symmetric range
    /// `addr..addr+total` (named `what` in errors; the whole range is checked) into `to`: a copy
    /// if it is this member's own or mapped here, else a non-blocking get.
    pub fn fetch(&self, what: &str, i: usize, addr: usize, total: usize, at: usize, to: Dst<'a>) {
        let (c, len) = (self.c, to.len());
        if len == 0 {
            return;
        }
        let pe = c.g.members.world(i);
        let from = if pe == c.w.me {
            Target::Mapped(c.w.own(c.call, what, addr, total))
        } else {
            c.w.rma_target(c.call, what, addr, total, pe)
        };
        match from {
            Target::Mapped(base) => to.copy_from(base.src().part(at, len)),
            Target::Net(seg, off) => self.s.get(pe, seg, off + at, to),
        }
    }

    /// Starts a get of `to.len()` bytes at `off` of world PE `pe`'s segment `seg` into `to`.
    pub fn get(&self, pe: usize, seg: Seg, off: usize, to: Dst<'a>) {
        self.s.get(pe, seg, off, to)
    }
}

/// A member's bytes readable here: where they are mapped, or in a local copy.
pub enum View {
    Mapped(Src<'static>),
    /// A copy in 16-byte words, and its length in bytes.
    Copy(Vec<u128>, usize),
}

impl View {
    /// The bytes.
    pub fn src(&self) -> Src<'_> {
        match self {
            View::Mapped(s) => *s,
            View::Copy(copy, n) => Src::of(&copy[..]).part(0, *n),
        }
    }
}

/// Whether two byte ranges of the same length overlap.
pub(crate) fn overlap(a: usize, b: usize, len: usize) -> bool {
    ranges_overlap(a, len, b, len)
}

/// Whether `a..a+alen` and `b..b+blen` share a byte.
pub(crate) fn ranges_overlap(a: usize, alen: usize, b: usize, blen: usize) -> bool {
    alen > 0 && blen > 0 && a < b + blen && b < a + alen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(acc: Acc<'_, u32>, x: Src<'_>) {
        acc.dst.combine::<u32>(x, |a, b| a + b)
    }

    #[test]
    fn the_first_contribution_is_copied_and_the_others_combined() {
        let mut acc = [9u32; 3];
        let (a, b) = ([1u32, 2, 3], [10u32, 20, 30]);
        let to = Dst::of(&mut acc);
        fold_in(sum, to, Src::of(&a), true);
        fold_in(sum, to, Src::of(&b), false);
        fold_in(sum, to, Src::empty(), false);
        assert_eq!(acc, [11, 22, 33]);
    }
}
