//! What the algorithms need of one collective call ([`Coll`]): the two barriers that frame a call
//! off the posted path, the values members publish before the first, and a readable view of a
//! member's symmetric bytes (mapped, or fetched over the network). Shared by the flat and split
//! algorithms, which import it and not each other's internals.

use super::{Coll, Sync, barrier};
use crate::runtime::handle::SHMEM_CTX_DEFAULT;
use crate::runtime::remote;
use crate::runtime::world::{Seg, Target};
use crate::transport::shm::control::Control;
use crate::transport::shm::{self, Dst};
use std::sync::atomic::{AtomicU64, Ordering};

/// Combines `n` elements of `x` into `acc` (`acc[k] = acc[k] op x[k]`).
pub type Combine<T> = unsafe fn(acc: *mut T, x: *const T, n: usize);

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
        let mut fetched = false;
        for (value, &i) in values.iter_mut().zip(members) {
            let pe = self.g.members.world(i);
            match self.w.control_target(pe, &|c| self.value_word(c, k)) {
                Ok(word) => *value = word.load(Ordering::Acquire),
                Err(off) => {
                    let to = (value as *mut u64).cast();
                    // SAFETY: `value` stays in place (`values` is not resized) and is read only
                    // after the quiet below.
                    unsafe { self.get(pe, Seg::Heap, off, to, size_of::<u64>(), true) };
                    fetched = true;
                }
            }
        }
        if fetched {
            self.complete();
        }
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
            return View::at(addr + at);
        }
        let pe = self.g.members.world(i);
        if pe == self.w.me {
            self.w.local(self.call, what, addr, len);
            return View::at(addr + at);
        }
        match self.w.rma_target(self.call, what, addr, len, pe) {
            Target::Mapped(base) => View::at(base.addr() + at),
            Target::Net(seg, off) => {
                // 16-byte words: the copy is aligned for every element type.
                let mut copy = vec![0u128; n.div_ceil(16)];
                // SAFETY: `copy` holds at least `n` bytes and is read only after the get returns.
                unsafe { self.get(pe, seg, off + at, copy.as_mut_ptr().cast(), n, false) };
                View {
                    addr: copy.as_ptr() as usize,
                    _copy: copy,
                }
            }
        }
    }

    /// Starts copying `len` bytes at offset `at` of member `i`'s copy of the symmetric range
    /// `addr..addr+total` (named `what` in errors; the whole range is checked) into `to`: a copy if
    /// it is this member's own or mapped here, else a non-blocking get, complete at the caller's
    /// quiet ([`Coll::complete`]): gets from many members are in flight at once.
    ///
    /// # Safety
    /// `to..to+len` writable and not read before the caller's quiet.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn fetch(
        &self,
        what: &str,
        i: usize,
        addr: usize,
        total: usize,
        at: usize,
        to: *mut u8,
        len: usize,
    ) {
        if len == 0 {
            return;
        }
        let pe = self.g.members.world(i);
        let from = if pe == self.w.me {
            Target::Mapped(self.w.own(self.call, what, addr, total))
        } else {
            self.w.rma_target(self.call, what, addr, total, pe)
        };
        match from {
            // SAFETY: member i's mapped copy, range-checked; `to` is the caller's.
            Target::Mapped(base) => unsafe { shm::copy(to, (base.addr() + at) as *const u8, len) },
            // SAFETY: forwarded contract.
            Target::Net(seg, off) => unsafe { self.get(pe, seg, off + at, to, len, true) },
        }
    }

    /// A get of `len` bytes at `off` of world PE `pe`'s segment `seg` into `to`, on the default
    /// context: waited for, or (`nbi`) complete at the next quiet.
    ///
    /// # Safety
    /// `to..to+len` writable (and, for `nbi`, not read before the next quiet).
    unsafe fn get(&self, pe: usize, seg: Seg, off: usize, to: *mut u8, len: usize, nbi: bool) {
        // SAFETY: forwarded contract (for nbi: until the next quiet, which the collective
        // makes before its buffers go).
        let dst = unsafe { Dst::new(to as usize, len) };
        if nbi {
            remote::get_nbi(self.w, self.call, SHMEM_CTX_DEFAULT, pe, seg, off, dst)
        } else {
            remote::get(self.w, self.call, SHMEM_CTX_DEFAULT, pe, seg, off, dst)
        }
    }

    /// Completes the gets that [`Coll::fetch`] started (a quiet, if the job has a network).
    pub fn complete(&self) {
        remote::quiet(self.w, self.call, SHMEM_CTX_DEFAULT);
    }
}

/// A member's bytes readable here: at their mapped address, or in a local copy.
pub struct View {
    addr: usize,
    _copy: Vec<u128>,
}

impl View {
    pub(super) fn at(addr: usize) -> View {
        View {
            addr,
            _copy: Vec::new(),
        }
    }

    /// The first byte.
    pub fn addr(&self) -> usize {
        self.addr
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
