//! Atomic memory operations (OpenSHMEM 1.6 §9.8, and the non-blocking fetching forms of §9.8.15+):
//! fetch, set, swap, compare_swap, fetch_inc, inc, fetch_add, add and the bitwise and/or/xor, with
//! their fetching forms.
//!
//! Each operation checks the context, the PE, that the target is symmetric and naturally aligned,
//! then does one CPU atomic on the peer's mapped copy of the word ([`Word`]), or, when the
//! job has some PE on the UCX route, one UCX atomic whoever the peer is (one atomic path per job,
//! see [`World`]): `Slot` makes that choice, on a flag of the World. An element type
//! acts through the unsigned word of its size: integers convert with wrapping (two's complement
//! addition is the same for signed and unsigned), `float` and `double` by their bits. On the
//! shared-memory route the `_nbi` forms complete before they return.

use crate::fatal;
use crate::runtime::handle::shmem_ctx_t;
use crate::runtime::remote;
pub(crate) use crate::runtime::remote::Rmw;
use crate::runtime::world::{Target, World};
use crate::transport::AmoWord;
use crate::transport::shm::{Dst, Plain, Word};
use std::ffi::c_int;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};

mod sealed {
    pub trait Sealed {}
}

/// An element type of the extended AMOs (`extamotypes`: fetch, set, swap): it travels as the
/// unsigned word of its size.
pub trait Amo: Plain + sealed::Sealed {
    type Word: Word + AmoWord + Default;
    fn to_word(self) -> Self::Word;
    fn from_word(w: Self::Word) -> Self;
}

/// An integer element type of the standard and bitwise AMOs (`stdamotypes`, `bitamotypes`).
pub trait AmoInt: Amo {
    /// 1 as a word (`inc`).
    const ONE: Self::Word;
}

/// `Amo` and `AmoInt` for an integer type and the unsigned word of its size (`as` wraps).
macro_rules! amo_int {
    ($($t:ty => $w:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Amo for $t { type Word = $w; fn to_word(self) -> $w { self as $w } fn from_word(w: $w) -> Self { w as $t } }
        impl AmoInt for $t { const ONE: $w = 1; }
    )*};
}
amo_int!(i32 => u32, u32 => u32, i64 => u64, u64 => u64, isize => u64, usize => u64);

impl sealed::Sealed for f32 {}
impl Amo for f32 {
    type Word = u32;
    fn to_word(self) -> u32 {
        self.to_bits()
    }
    fn from_word(w: u32) -> Self {
        f32::from_bits(w)
    }
}
impl sealed::Sealed for f64 {}
impl Amo for f64 {
    type Word = u64;
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    fn from_word(w: u64) -> Self {
        f64::from_bits(w)
    }
}

/// Where an atomic on a symmetric word goes: the peer's mapped copy (CPU atomics), or the word's
/// segment and offset at the peer (UCX atomics).
pub(crate) struct Slot<W> {
    w: &'static World,
    /// The context, whose lane carries the atomic over UCX.
    ctx: shmem_ctx_t,
    pe: usize,
    at: Target,
    _word: PhantomData<W>,
}

/// `pe`'s copy of the symmetric word at `addr`, after the checks: symmetric, naturally aligned.
#[inline(always)]
pub(crate) fn slot<W: Word + AmoWord + Default>(
    w: &'static World,
    call: &'static str,
    ctx: shmem_ctx_t,
    what: &str,
    addr: usize,
    pe: usize,
) -> Slot<W> {
    // Every segment base is page aligned, so the peer's copy is aligned exactly when ours is.
    if !addr.is_multiple_of(size_of::<W>()) {
        misaligned(call, what, addr, size_of::<W>());
    }
    Slot {
        w,
        ctx,
        pe,
        at: w.atomic_target(call, what, addr, size_of::<W>(), pe),
        _word: PhantomData,
    }
}

// SAFETY (every `Mapped` arm below): the address comes from `slot`: pe's copy of a symmetric,
// naturally aligned word, mapped for the life of the process and, while the job uses CPU atomics,
// updated only atomically (the OpenSHMEM atomicity guarantee).
impl<W: Word + AmoWord + Default> Slot<W> {
    /// The word's value.
    #[inline(always)]
    pub(crate) fn load(&self, call: &'static str) -> W {
        match self.at {
            Target::Mapped(p) => p.word::<W>(0).load(),
            Target::Net(seg, off) => remote::load(self.w, call, self.ctx, self.pe, seg, off),
        }
    }

    /// Stores `v`.
    #[inline(always)]
    pub(crate) fn store(&self, call: &'static str, v: W) {
        match self.at {
            Target::Mapped(p) => p.word::<W>(0).store(v),
            Target::Net(seg, off) => {
                remote::swap(self.w, call, self.ctx, self.pe, seg, off, v);
            }
        }
    }

    /// Stores `v`, returns the old value.
    #[inline(always)]
    pub(crate) fn swap(&self, call: &'static str, v: W) -> W {
        match self.at {
            Target::Mapped(p) => p.word::<W>(0).swap(v),
            Target::Net(seg, off) => remote::swap(self.w, call, self.ctx, self.pe, seg, off, v),
        }
    }

    /// Stores `v` if the word equals `cond`; returns the old value.
    #[inline(always)]
    pub(crate) fn compare_swap(&self, call: &'static str, cond: W, v: W) -> W {
        match self.at {
            Target::Mapped(p) => p.word::<W>(0).compare_swap(cond, v),
            Target::Net(seg, off) => {
                remote::compare_swap(self.w, call, self.ctx, self.pe, seg, off, cond, v)
            }
        }
    }

    /// One read-modify-write; returns the old value (over UCX only if `fetch`, else `v`).
    #[inline(always)]
    pub(crate) fn rmw(&self, call: &'static str, op: Rmw, v: W, fetch: bool) -> W {
        match self.at {
            Target::Mapped(p) => {
                let word = p.word::<W>(0);
                match op {
                    Rmw::Add => word.fetch_add(v),
                    Rmw::And => word.fetch_and(v),
                    Rmw::Or => word.fetch_or(v),
                    Rmw::Xor => word.fetch_xor(v),
                }
            }
            Target::Net(seg, off) => {
                remote::rmw(self.w, call, self.ctx, self.pe, seg, off, op, v, fetch)
            }
        }
    }
}

/// The slot of the symmetric `T` at `addr` on `pe`, after every check: context, PE, symmetric,
/// naturally aligned.
#[inline(always)]
fn target<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    what: &str,
    addr: usize,
    pe: c_int,
) -> Slot<T::Word> {
    const {
        assert!(size_of::<T>() == size_of::<T::Word>());
        assert!(align_of::<T::Word>() == size_of::<T::Word>());
    }
    let (w, pe) = super::enter_pe(call, ctx, pe);
    slot(w, call, ctx, what, addr, pe)
}

#[cold]
#[inline(never)]
pub(crate) fn misaligned(call: &'static str, what: &str, addr: usize, size: usize) -> ! {
    fatal!(
        call,
        "{what} {addr:#x} is not aligned to {size} bytes: the target of an atomic must be naturally aligned"
    )
}

/// Stores the fetched value of an `_nbi` form into the program's `fetch` (a range of one `T`,
/// made by `ops::ffi::amo` after its NULL check).
#[inline(always)]
fn deliver<T: Amo>(fetch: Dst<'_>, value: T) {
    fetch.write(0, value)
}

/// `shmem_atomic_fetch` family: the value of `source` on `pe`.
/// (The pointer is a symmetric address: checked and translated, never dereferenced here.)
#[inline(always)]
pub fn fetch<T: Amo>(call: &'static str, ctx: shmem_ctx_t, source: *const T, pe: c_int) -> T {
    T::from_word(target::<T>(call, ctx, "source", source as usize, pe).load(call))
}

/// `shmem_atomic_set` family: stores `value` into `dest` on `pe`.
#[inline(always)]
pub fn set<T: Amo>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, value: T, pe: c_int) {
    target::<T>(call, ctx, "dest", dest as usize, pe).store(call, value.to_word())
}

/// `shmem_atomic_swap` family: stores `value` into `dest` on `pe`, returns the old value.
#[inline(always)]
pub fn swap<T: Amo>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, value: T, pe: c_int) -> T {
    T::from_word(target::<T>(call, ctx, "dest", dest as usize, pe).swap(call, value.to_word()))
}

/// `shmem_atomic_compare_swap` family: stores `value` into `dest` on `pe` if it equals `cond`;
/// returns the old value.
#[inline(always)]
pub fn compare_swap<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) -> T {
    let slot = target::<T>(call, ctx, "dest", dest as usize, pe);
    T::from_word(slot.compare_swap(call, cond.to_word(), value.to_word()))
}

/// One read-modify-write of `dest` on `pe` with `value`; returns the old value if `FETCH`.
#[inline(always)]
fn apply<T: Amo, const FETCH: bool>(
    call: &'static str,
    ctx: shmem_ctx_t,
    op: Rmw,
    dest: *mut T,
    value: T::Word,
    pe: c_int,
) -> T {
    T::from_word(target::<T>(call, ctx, "dest", dest as usize, pe).rmw(call, op, value, FETCH))
}

/// `shmem_atomic_fetch_inc` family: adds 1 to `dest` on `pe`, returns the old value.
#[inline(always)]
pub fn fetch_inc<T: AmoInt>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, pe: c_int) -> T {
    apply::<T, true>(call, ctx, Rmw::Add, dest, T::ONE, pe)
}

/// `shmem_atomic_inc` family: adds 1 to `dest` on `pe`.
#[inline(always)]
pub fn inc<T: AmoInt>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, pe: c_int) {
    apply::<T, false>(call, ctx, Rmw::Add, dest, T::ONE, pe);
}

/// The `shmem_atomic_fetch_add`, `_fetch_and`, `_fetch_or` and `_fetch_xor` families: applies
/// `op` (`Rmw::Add`, `And`, `Or`, `Xor`, which the generated shell names) with `value` to `dest`
/// on `pe`; returns the old value.
#[inline(always)]
pub fn fetch_rmw<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
    op: Rmw,
) -> T {
    apply::<T, true>(call, ctx, op, dest, value.to_word(), pe)
}

/// The `shmem_atomic_add`, `_and`, `_or` and `_xor` families: as [`fetch_rmw`], without the old
/// value.
#[inline(always)]
pub fn rmw<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
    op: Rmw,
) {
    apply::<T, false>(call, ctx, op, dest, value.to_word(), pe);
}

/// `shmem_atomic_fetch_nbi` family. Completes at once on this route.
#[inline(always)]
pub fn fetch_nbi<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: Dst<'_>,
    source: *const T,
    pe: c_int,
) {
    deliver(fetch, self::fetch(call, ctx, source, pe))
}

/// `shmem_atomic_swap_nbi` family. Completes at once on this route.
#[inline(always)]
pub fn swap_nbi<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: Dst<'_>,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    deliver(fetch, swap(call, ctx, dest, value, pe))
}

/// `shmem_atomic_compare_swap_nbi` family. Completes at once on this route.
#[inline(always)]
pub fn compare_swap_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: Dst<'_>,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) {
    deliver(fetch, compare_swap(call, ctx, dest, cond, value, pe))
}

/// `shmem_atomic_fetch_inc_nbi` family. Completes at once on this route.
#[inline(always)]
pub fn fetch_inc_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: Dst<'_>,
    dest: *mut T,
    pe: c_int,
) {
    deliver(
        fetch,
        apply::<T, true>(call, ctx, Rmw::Add, dest, T::ONE, pe),
    )
}

/// The `shmem_atomic_fetch_add_nbi`, `_fetch_and_nbi`, `_fetch_or_nbi` and `_fetch_xor_nbi`
/// families, `op` as in [`fetch_rmw`]. Complete at once on this route.
#[inline(always)]
pub fn fetch_rmw_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: Dst<'_>,
    dest: *mut T,
    value: T,
    pe: c_int,
    op: Rmw,
) {
    deliver(
        fetch,
        apply::<T, true>(call, ctx, op, dest, value.to_word(), pe),
    )
}
