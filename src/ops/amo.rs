//! Atomic memory operations (OpenSHMEM 1.6 §9.8, and the non-blocking fetching forms of §9.8.15+):
//! fetch, set, swap, compare_swap, fetch_inc, inc, fetch_add, add and the bitwise and/or/xor, with
//! their fetching forms.
//!
//! Each operation checks the context, the PE, that the target is symmetric and naturally aligned,
//! then does one CPU atomic on the peer's mapped copy of the word ([`shm::Word`]). An element type
//! acts through the unsigned word of its size: integers convert with wrapping (two's complement
//! addition is the same for signed and unsigned), `float` and `double` by their bits. On the
//! shared-memory route the `_nbi` forms complete before they return.

use crate::fatal;
use crate::runtime::handle::shmem_ctx_t;
use crate::transport::shm::{self, Word};
use std::ffi::c_int;
use std::mem::{align_of, size_of};

mod sealed {
    pub trait Sealed {}
}

/// An element type of the extended AMOs (`extamotypes`: fetch, set, swap): it travels as the
/// unsigned word of its size.
pub trait Amo: Copy + sealed::Sealed {
    type Word: Word;
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

/// The peer's copy of the symmetric `T` at `addr` as a word pointer, after every check: context,
/// PE, symmetric, naturally aligned.
#[inline(always)]
fn target<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    what: &str,
    addr: usize,
    pe: c_int,
) -> *mut T::Word {
    const {
        assert!(size_of::<T>() == size_of::<T::Word>());
        assert!(align_of::<T::Word>() == size_of::<T::Word>());
    }
    let (w, pe) = super::enter_pe(call, ctx, pe);
    // Every segment base is page aligned, so the peer's copy is aligned exactly when ours is.
    if !addr.is_multiple_of(size_of::<T>()) {
        misaligned(call, what, addr, size_of::<T>());
    }
    w.translate(call, what, addr, size_of::<T>(), pe) as *mut T::Word
}

#[cold]
#[inline(never)]
pub(crate) fn misaligned(call: &'static str, what: &str, addr: usize, size: usize) -> ! {
    fatal!(
        call,
        "{what} {addr:#x} is not aligned to {size} bytes: the target of an atomic must be naturally aligned"
    )
}

#[cold]
#[inline(never)]
fn null(call: &'static str, what: &str) -> ! {
    fatal!(call, "{what} is NULL")
}

/// Stores the fetched value of an `_nbi` form into the caller's `fetch`.
///
/// # Safety
/// `fetch` must be NULL (reported) or valid for a write of `T`.
#[inline(always)]
unsafe fn deliver<T: Amo>(call: &'static str, fetch: *mut T, value: T) {
    if fetch.is_null() {
        null(call, "fetch");
    }
    // SAFETY: `fetch` is non-null and, by the caller's contract, writable.
    unsafe { shm::store(fetch, value) }
}

/// `shmem_atomic_fetch` family: the value of `source` on `pe`.
///
/// # Safety
/// None beyond the checks made here; `unsafe` for uniformity with the other ops.
#[inline(always)]
pub unsafe fn fetch<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    source: *const T,
    pe: c_int,
) -> T {
    let p = target::<T>(call, ctx, "source", source as usize, pe);
    // SAFETY: `p` is pe's copy of a symmetric, aligned word, mapped for the life of the process.
    T::from_word(unsafe { T::Word::load(p) })
}

/// `shmem_atomic_set` family: stores `value` into `dest` on `pe`.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn set<T: Amo>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, value: T, pe: c_int) {
    let p = target::<T>(call, ctx, "dest", dest as usize, pe);
    // SAFETY: as in `fetch`.
    unsafe { T::Word::store(p, value.to_word()) }
}

/// `shmem_atomic_swap` family: stores `value` into `dest` on `pe`, returns the old value.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn swap<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) -> T {
    let p = target::<T>(call, ctx, "dest", dest as usize, pe);
    // SAFETY: as in `fetch`.
    T::from_word(unsafe { T::Word::swap(p, value.to_word()) })
}

/// `shmem_atomic_compare_swap` family: stores `value` into `dest` on `pe` if it equals `cond`;
/// returns the old value.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn compare_swap<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) -> T {
    let p = target::<T>(call, ctx, "dest", dest as usize, pe);
    // SAFETY: as in `fetch`.
    T::from_word(unsafe { T::Word::compare_swap(p, cond.to_word(), value.to_word()) })
}

/// The word operations of the arithmetic and bitwise families.
#[derive(Clone, Copy)]
enum Rmw {
    Add,
    And,
    Or,
    Xor,
}

/// One read-modify-write of `dest` on `pe` with `value`; returns the old value.
#[inline(always)]
fn rmw<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    op: Rmw,
    dest: *mut T,
    value: T::Word,
    pe: c_int,
) -> T {
    let p = target::<T>(call, ctx, "dest", dest as usize, pe);
    // SAFETY: as in `fetch`.
    let old = unsafe {
        match op {
            Rmw::Add => T::Word::fetch_add(p, value),
            Rmw::And => T::Word::fetch_and(p, value),
            Rmw::Or => T::Word::fetch_or(p, value),
            Rmw::Xor => T::Word::fetch_xor(p, value),
        }
    };
    T::from_word(old)
}

/// `shmem_atomic_fetch_inc` family: adds 1 to `dest` on `pe`, returns the old value.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn fetch_inc<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    pe: c_int,
) -> T {
    rmw(call, ctx, Rmw::Add, dest, T::ONE, pe)
}

/// `shmem_atomic_inc` family: adds 1 to `dest` on `pe`.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn inc<T: AmoInt>(call: &'static str, ctx: shmem_ctx_t, dest: *mut T, pe: c_int) {
    rmw(call, ctx, Rmw::Add, dest, T::ONE, pe);
}

/// `shmem_atomic_fetch_add` family: adds `value` to `dest` on `pe`, returns the old value.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn fetch_add<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) -> T {
    rmw(call, ctx, Rmw::Add, dest, value.to_word(), pe)
}

/// `shmem_atomic_add` family: adds `value` to `dest` on `pe`.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn add<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    rmw(call, ctx, Rmw::Add, dest, value.to_word(), pe);
}

/// `shmem_atomic_fetch_and` family: `dest &= value` on `pe`, returns the old value.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn fetch_and<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) -> T {
    rmw(call, ctx, Rmw::And, dest, value.to_word(), pe)
}

/// `shmem_atomic_and` family: `dest &= value` on `pe`.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn and<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    rmw(call, ctx, Rmw::And, dest, value.to_word(), pe);
}

/// `shmem_atomic_fetch_or` family: `dest |= value` on `pe`, returns the old value.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn fetch_or<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) -> T {
    rmw(call, ctx, Rmw::Or, dest, value.to_word(), pe)
}

/// `shmem_atomic_or` family: `dest |= value` on `pe`.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn or<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    rmw(call, ctx, Rmw::Or, dest, value.to_word(), pe);
}

/// `shmem_atomic_fetch_xor` family: `dest ^= value` on `pe`, returns the old value.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn fetch_xor<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) -> T {
    rmw(call, ctx, Rmw::Xor, dest, value.to_word(), pe)
}

/// `shmem_atomic_xor` family: `dest ^= value` on `pe`.
///
/// # Safety
/// As [`fetch`].
#[inline(always)]
pub unsafe fn xor<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    rmw(call, ctx, Rmw::Xor, dest, value.to_word(), pe);
}

/// `shmem_atomic_fetch_nbi` family. Completes at once on this route.
///
/// # Safety
/// `fetch` must be valid for a write of `T`.
#[inline(always)]
pub unsafe fn fetch_nbi<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    source: *const T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { deliver(call, fetch, self::fetch(call, ctx, source, pe)) }
}

/// `shmem_atomic_swap_nbi` family. Completes at once on this route.
///
/// # Safety
/// As [`fetch_nbi`].
#[inline(always)]
pub unsafe fn swap_nbi<T: Amo>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { deliver(call, fetch, swap(call, ctx, dest, value, pe)) }
}

/// `shmem_atomic_compare_swap_nbi` family. Completes at once on this route.
///
/// # Safety
/// As [`fetch_nbi`].
#[inline(always)]
pub unsafe fn compare_swap_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    cond: T,
    value: T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { deliver(call, fetch, compare_swap(call, ctx, dest, cond, value, pe)) }
}

/// `shmem_atomic_fetch_inc_nbi` family. Completes at once on this route.
///
/// # Safety
/// As [`fetch_nbi`].
#[inline(always)]
pub unsafe fn fetch_inc_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe { deliver(call, fetch, rmw(call, ctx, Rmw::Add, dest, T::ONE, pe)) }
}

/// `shmem_atomic_fetch_add_nbi` family. Completes at once on this route.
///
/// # Safety
/// As [`fetch_nbi`].
#[inline(always)]
pub unsafe fn fetch_add_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe {
        deliver(
            call,
            fetch,
            rmw(call, ctx, Rmw::Add, dest, value.to_word(), pe),
        )
    }
}

/// `shmem_atomic_fetch_and_nbi` family. Completes at once on this route.
///
/// # Safety
/// As [`fetch_nbi`].
#[inline(always)]
pub unsafe fn fetch_and_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe {
        deliver(
            call,
            fetch,
            rmw(call, ctx, Rmw::And, dest, value.to_word(), pe),
        )
    }
}

/// `shmem_atomic_fetch_or_nbi` family. Completes at once on this route.
///
/// # Safety
/// As [`fetch_nbi`].
#[inline(always)]
pub unsafe fn fetch_or_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe {
        deliver(
            call,
            fetch,
            rmw(call, ctx, Rmw::Or, dest, value.to_word(), pe),
        )
    }
}

/// `shmem_atomic_fetch_xor_nbi` family. Completes at once on this route.
///
/// # Safety
/// As [`fetch_nbi`].
#[inline(always)]
pub unsafe fn fetch_xor_nbi<T: AmoInt>(
    call: &'static str,
    ctx: shmem_ctx_t,
    fetch: *mut T,
    dest: *mut T,
    value: T,
    pe: c_int,
) {
    // SAFETY: forwarded contract.
    unsafe {
        deliver(
            call,
            fetch,
            rmw(call, ctx, Rmw::Xor, dest, value.to_word(), pe),
        )
    }
}
