//! Point-to-point synchronization (OpenSHMEM 1.6): wait_until and test on one symmetric
//! variable, the `_all`, `_any` and `_some` forms on an array of them (with a `status` mask and,
//! in the `_vector` forms, one comparison value per element), and the deprecated `wait`.
//!
//! The variables are this PE's own copies: other PEs update them with puts and atomics. A wait
//! loads each variable atomically with acquire ordering (so what the updating PE stored before its
//! update is visible once the wait returns) and spins through [`crate::runtime::wait::until`]: a bounded number of
//! checks, then a yield per check. A `test` loads once and never blocks.
//!
//! Checks, always on: the library is initialized, `cmp` is one of the six `SHMEM_CMP_*` values,
//! the variables are symmetric and naturally aligned. An array form skips the elements whose
//! `status` entry is non-zero (a NULL `status` includes every element). With no element included,
//! `_all` returns at once (`test_all` returns 1), `_any` returns `SIZE_MAX` and `_some` returns 0.
//!
//! Fairness: the spec requires that a series of calls to one `_any` routine eventually returns
//! every satisfied element. Each thread remembers, for the last few (routine, `ivars` array)
//! pairs it scanned, where the next scan starts: just after the index the previous call of that
//! routine returned, wrapping around. So a loop that keeps
//! serving element `i` (without masking it) still reaches every other satisfied element within
//! `nelems` calls. The state is per thread (no locks, no sharing), per routine and per array
//! address; a pair not among the remembered ones starts at 0. `_some` returns every satisfied element at once, so
//! it needs no state.

use super::amo::misaligned;
use crate::fatal;
use crate::runtime::constants::{
    SHMEM_CMP_EQ, SHMEM_CMP_GE, SHMEM_CMP_GT, SHMEM_CMP_LE, SHMEM_CMP_LT, SHMEM_CMP_NE,
};
use crate::runtime::personality::Program;
use crate::runtime::{wait, world};
use crate::transport::shm::{Dst, Word};
use std::cell::Cell;
use std::ffi::c_int;
use std::fmt::Write as _;
use std::mem::size_of;

mod sealed {
    pub trait Sealed {}
}

/// An element type of the point-to-point routines (`p2psynctypes`): an integer read through the
/// unsigned word of its size and compared as itself (signed or unsigned).
pub trait Ivar: Copy + Ord + std::fmt::Debug + sealed::Sealed {
    type Word: Word;
    fn from_word(w: Self::Word) -> Self;
}

/// `Ivar` for an integer type and the unsigned word of its size (`as` reinterprets the bits).
macro_rules! ivar {
    ($($t:ty => $w:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Ivar for $t { type Word = $w; fn from_word(w: $w) -> Self { w as $t } }
    )*};
}
ivar!(i16 => u16, u16 => u16, i32 => u32, u32 => u32, i64 => u64, u64 => u64, isize => u64, usize => u64);

/// A comparison of the spec's `SHMEM_CMP_*` table.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Gt,
    Le,
    Lt,
    Ge,
}

impl Cmp {
    /// The comparison `cmp` names, or the error naming the call.
    #[inline(always)]
    pub(crate) fn parse(call: &'static str, cmp: Program<c_int>) -> Cmp {
        match crate::runtime::personality::cmp(call, cmp) {
            SHMEM_CMP_EQ => Cmp::Eq,
            SHMEM_CMP_NE => Cmp::Ne,
            SHMEM_CMP_GT => Cmp::Gt,
            SHMEM_CMP_LE => Cmp::Le,
            SHMEM_CMP_LT => Cmp::Lt,
            SHMEM_CMP_GE => Cmp::Ge,
            _ => bad_cmp(call, cmp.0),
        }
    }

    /// The comparison's name without its `SHMEM_CMP_` prefix (for reports).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "EQ",
            Cmp::Ne => "NE",
            Cmp::Gt => "GT",
            Cmp::Le => "LE",
            Cmp::Lt => "LT",
            Cmp::Ge => "GE",
        }
    }

    /// `value <cmp> against`.
    #[inline(always)]
    pub(crate) fn holds<T: Ord>(self, value: T, against: T) -> bool {
        match self {
            Cmp::Eq => value == against,
            Cmp::Ne => value != against,
            Cmp::Gt => value > against,
            Cmp::Le => value <= against,
            Cmp::Lt => value < against,
            Cmp::Ge => value >= against,
        }
    }
}

#[cold]
#[inline(never)]
fn bad_cmp(call: &'static str, cmp: c_int) -> ! {
    fatal!(
        call,
        "cmp = {cmp} is not a comparison: expected SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_LE, SHMEM_CMP_LT or SHMEM_CMP_GE"
    )
}

#[cold]
#[inline(never)]
fn null(call: &'static str, what: &str, nelems: usize) -> ! {
    fatal!(call, "{what} is NULL with nelems = {nelems}")
}

#[cold]
#[inline(never)]
fn overflow(call: &'static str, nelems: usize, size: usize) -> ! {
    fatal!(
        call,
        "nelems = {nelems} overflows: {nelems} elements of {size} bytes do not fit in the address space"
    )
}

/// This PE's copy of the symmetric words `addr[0..count]` (`count` > 0), after the checks:
/// initialized, symmetric, naturally aligned.
#[inline(always)]
pub(crate) fn local<T: Ivar>(
    call: &'static str,
    what: &str,
    addr: *const T,
    count: usize,
) -> Dst<'static> {
    const { assert!(size_of::<T>() == size_of::<T::Word>()) }
    let w = world::get(call);
    let len = match count.checked_mul(size_of::<T>()) {
        Some(n) if n <= isize::MAX as usize => n,
        _ => overflow(call, count, size_of::<T>()),
    };
    if !(addr as usize).is_multiple_of(size_of::<T>()) {
        misaligned(call, what, addr as usize, size_of::<T>());
    }
    w.own(call, what, addr as usize, len)
}

/// The current value of word `i` of `words` (from [`local`]), loaded atomically with acquire
/// ordering: other PEs update it only atomically.
#[inline(always)]
fn read<T: Ivar>(words: Dst<'static>, i: usize) -> T {
    T::from_word(words.word::<T::Word>(i * size_of::<T>()).load_acquire())
}

/// Waits until the single variable `ivar` satisfies `cmp` against `cmp_value`; returns the value
/// that did (`shmem_signal_wait_until` returns it). `cmp` is already rshmem's: the program's
/// value went through [`Cmp::parse`] at the entry point, and the library's own callers name a
/// variant, so no value is ever translated twice or read in the wrong header's encoding.
#[inline(always)]
pub(crate) fn wait_value<T: Ivar>(
    call: &'static str,
    what: &str,
    ivar: *const T,
    cmp: Cmp,
    cmp_value: T,
) -> T {
    let p = local(call, what, ivar, 1);
    let mut seen = read::<T>(p, 0);
    wait::until_as_served(
        || {
            seen = read::<T>(p, 0);
            cmp.holds(seen, cmp_value)
        },
        |out| {
            let now = read::<T>(p, 0);
            let _ = write!(
                out,
                "{call}: {what}={ivar:p} cmp={} value={cmp_value:?}: current {now:?}",
                cmp.name()
            );
        },
    );
    seen
}

/// `shmem_wait_until` family: returns when `ivar` satisfies `cmp` against `cmp_value`.
pub fn wait_until<T: Ivar>(call: &'static str, ivar: *mut T, cmp: Program<c_int>, cmp_value: T) {
    wait_value(call, "ivar", ivar, Cmp::parse(call, cmp), cmp_value);
}

/// `shmem_wait` family (deprecated): returns when `ivar` no longer equals `cmp_value`. The
/// comparison is the library's own, never a value of the program's header.
pub fn wait<T: Ivar>(call: &'static str, ivar: *mut T, cmp_value: T) {
    wait_value(call, "ivar", ivar, Cmp::Ne, cmp_value);
}

/// `shmem_test` family: 1 if `ivar` satisfies `cmp` against `cmp_value` now, else 0.
pub fn test<T: Ivar>(call: &'static str, ivar: *mut T, cmp: Program<c_int>, cmp_value: T) -> c_int {
    let cmp = Cmp::parse(call, cmp);
    let p = local(call, "ivar", ivar, 1);
    cmp.holds(read::<T>(p, 0), cmp_value) as c_int
}

/// The comparison value of each element: one for all, or one each (`_vector`).
#[derive(Clone, Copy)]
enum Against<'a, T> {
    One(T),
    Each(&'a [T]),
}

/// Where each thread's next `_any` scan of an array starts: a small table of (routine, array
/// address, index after the last one returned), most recent first. The routine is part of the key:
/// the spec's fairness holds per routine, so a program that alternates `shmem_test_any` and
/// `shmem_wait_until_any` on one array sees every satisfied index from each of them.
mod cursor {
    use super::Cell;

    /// How many (routine, array) pairs a thread remembers; a server loop scans one or two.
    const SLOTS: usize = 8;

    /// One remembered scan: the routine's name, the array's address, the next start.
    type Slot = (&'static str, usize, usize);

    thread_local! {
        static NEXT: Cell<[Slot; SLOTS]> = const { Cell::new([("", 0, 0); SLOTS]) };
    }

    /// The index at which `call` starts scanning the `nelems` elements at `key`.
    pub(super) fn start(call: &'static str, key: usize, nelems: usize) -> usize {
        let table = NEXT.with(Cell::get);
        match table.iter().find(|&&(c, k, _)| k == key && c == call) {
            Some(&(_, _, next)) if next < nelems => next,
            _ => 0,
        }
    }

    /// Records that a `call` scan of `key` returned `index`: its next scan starts after it.
    pub(super) fn returned(call: &'static str, key: usize, index: usize) {
        NEXT.with(|cell| {
            let mut table = cell.get();
            let at = table
                .iter()
                .position(|&(c, k, _)| k == key && c == call)
                .unwrap_or(SLOTS - 1);
            table.copy_within(0..at, 1);
            table[0] = (call, key, index + 1);
            cell.set(table);
        });
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn each_routine_keeps_its_own_place() {
            let key = 0x1000;
            returned("shmem_int_test_any", key, 0);
            returned("shmem_int_wait_until_any", key, 1);
            assert_eq!(start("shmem_int_test_any", key, 4), 1);
            assert_eq!(start("shmem_int_wait_until_any", key, 4), 2);
            returned("shmem_int_test_any", key, 1);
            assert_eq!(start("shmem_int_test_any", key, 4), 2);
            assert_eq!(start("shmem_int_wait_until_any", key, 4), 2);
            assert_eq!(start("shmem_long_test_any", key, 4), 0);
            // Past the end (the array shrank): from the start again.
            returned("shmem_int_test_any", key, 3);
            assert_eq!(start("shmem_int_test_any", key, 4), 0);
        }
    }
}

/// The checked arguments of an array form.
struct Set<'a, T: Ivar> {
    call: &'static str,
    ivars: Dst<'static>,
    nelems: usize,
    status: Option<&'a [c_int]>,
    cmp: Cmp,
    against: Against<'a, T>,
}

impl<'a, T: Ivar> Set<'a, T> {
    /// Checks the arguments of an array form. `against` is the comparison value, or the
    /// `_vector` forms' array of them (`None`: the program passed NULL).
    #[inline(always)]
    fn new(
        call: &'static str,
        ivars: *mut T,
        nelems: usize,
        status: Option<&'a [c_int]>,
        cmp: Program<c_int>,
        against: Result<T, Option<&'a [T]>>,
    ) -> Set<'a, T> {
        let cmp = Cmp::parse(call, cmp);
        if nelems == 0 {
            world::get(call);
            return Set {
                call,
                ivars: Dst::empty(),
                nelems,
                status: None,
                cmp,
                against: Against::Each(&[]),
            };
        }
        let ivars = local(call, "ivars", ivars, nelems);
        let against = match against {
            Ok(v) => Against::One(v),
            Err(None) => null(call, "cmp_values", nelems),
            Err(Some(values)) => Against::Each(values),
        };
        Set {
            call,
            ivars,
            nelems,
            status,
            cmp,
            against,
        }
    }

    /// Whether element `i` takes part (its `status` entry is zero, or there is no `status`).
    #[inline(always)]
    fn active(&self, i: usize) -> bool {
        self.status.is_none_or(|s| s[i] == 0)
    }

    /// Whether element `i` satisfies the comparison now.
    #[inline(always)]
    fn ready(&self, i: usize) -> bool {
        let against = match self.against {
            Against::One(v) => v,
            Against::Each(values) => values[i],
        };
        self.cmp.holds(read::<T>(self.ivars, i), against)
    }

    /// What a blocked array wait waits for: element `i` (`_all`), or any active one.
    fn describe(&self, out: &mut String, i: Option<usize>) {
        let _ = write!(
            out,
            "{}: ivars={:#x} nelems={} cmp={}: ",
            self.call,
            self.ivars.addr(),
            self.nelems,
            self.cmp.name()
        );
        let _ = match i {
            Some(i) => {
                let against = match self.against {
                    Against::One(v) => v,
                    Against::Each(values) => values[i],
                };
                let now = read::<T>(self.ivars, i);
                write!(
                    out,
                    "waiting for element {i} (value {against:?}): current {now:?}"
                )
            }
            None => write!(out, "no active element satisfies it yet"),
        };
    }

    fn any_active(&self) -> bool {
        (0..self.nelems).any(|i| self.active(i))
    }

    /// `_all`: every active element satisfies the comparison (waiting for each in turn if `block`).
    fn all(&self, block: bool) -> bool {
        for i in (0..self.nelems).filter(|&i| self.active(i)) {
            if block {
                wait::until_as_served(|| self.ready(i), |out| self.describe(out, Some(i)));
            } else if !self.ready(i) {
                return false;
            }
        }
        true
    }

    /// `_any`: the index of an active element that satisfies the comparison, `usize::MAX` if none
    /// does (or, if `block`, none is active). The scan starts after the index the previous `_any`
    /// call of this thread on the same array returned (see the module notes).
    fn any(&self, block: bool) -> usize {
        let key = self.ivars.addr();
        let start = cursor::start(self.call, key, self.nelems);
        let scan = || {
            (start..self.nelems)
                .chain(0..start)
                .find(|&i| self.active(i) && self.ready(i))
                .unwrap_or(usize::MAX)
        };
        let found = if !block || !self.any_active() {
            scan()
        } else {
            let mut found = usize::MAX;
            wait::until_as_served(
                || {
                    found = scan();
                    found != usize::MAX
                },
                |out| self.describe(out, None),
            );
            found
        };
        if found != usize::MAX {
            cursor::returned(self.call, key, found);
        }
        found
    }

    /// `_some`: writes the indices of the active elements that satisfy the comparison to
    /// `indices` (`None`: the program passed NULL), returns how many (if `block`, at least one
    /// unless none is active).
    fn some(&self, call: &'static str, indices: Option<Dst<'_>>, block: bool) -> usize {
        if self.nelems == 0 {
            return 0;
        }
        let Some(out) = indices else {
            null(call, "indices", self.nelems)
        };
        let scan = || {
            let mut n = 0;
            for i in (0..self.nelems).filter(|&i| self.active(i) && self.ready(i)) {
                out.write::<usize>(n * size_of::<usize>(), i);
                n += 1;
            }
            n
        };
        if !block || !self.any_active() {
            return scan();
        }
        let mut n = 0;
        let ivars = self.ivars.addr();
        let (nelems, cmp) = (self.nelems, self.cmp.name());
        wait::until_as_served(
            || {
                n = scan();
                n > 0
            },
            |out| {
                let _ = write!(
                    out,
                    "{call}: ivars={ivars:#x} nelems={nelems} cmp={cmp}: no active element satisfies it yet"
                );
            },
        );
        n
    }
}

/// `shmem_wait_until_all` family: returns when every active element satisfies the comparison.
pub fn wait_until_all<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_value: T,
) {
    Set::new(call, ivars, nelems, status, cmp, Ok(cmp_value)).all(true);
}

/// `shmem_wait_until_all_vector` family: as [`wait_until_all`], one comparison value per element.
pub fn wait_until_all_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_values: Option<&[T]>,
) {
    Set::new(call, ivars, nelems, status, cmp, Err(cmp_values)).all(true);
}

/// `shmem_test_all` family: 1 if every active element satisfies the comparison now.
pub fn test_all<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_value: T,
) -> c_int {
    Set::new(call, ivars, nelems, status, cmp, Ok(cmp_value)).all(false) as c_int
}

/// `shmem_test_all_vector` family.
pub fn test_all_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_values: Option<&[T]>,
) -> c_int {
    Set::new(call, ivars, nelems, status, cmp, Err(cmp_values)).all(false) as c_int
}

/// `shmem_wait_until_any` family: the index of a satisfying active element; `SIZE_MAX` if no
/// element is active.
pub fn wait_until_any<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Ok(cmp_value)).any(true)
}

/// `shmem_wait_until_any_vector` family.
pub fn wait_until_any_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_values: Option<&[T]>,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Err(cmp_values)).any(true)
}

/// `shmem_test_any` family: the index of a satisfying active element, `SIZE_MAX` if none.
pub fn test_any<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Ok(cmp_value)).any(false)
}

/// `shmem_test_any_vector` family.
pub fn test_any_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_values: Option<&[T]>,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Err(cmp_values)).any(false)
}

/// `shmem_wait_until_some` family: the indices of the satisfying active elements (at least one),
/// and how many; 0 if no element is active.
pub fn wait_until_some<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: Option<Dst<'_>>,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Ok(cmp_value)).some(call, indices, true)
}

/// `shmem_wait_until_some_vector` family.
pub fn wait_until_some_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: Option<Dst<'_>>,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_values: Option<&[T]>,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Err(cmp_values)).some(call, indices, true)
}

/// `shmem_test_some` family: the indices of the satisfying active elements now, and how many.
pub fn test_some<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: Option<Dst<'_>>,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_value: T,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Ok(cmp_value)).some(call, indices, false)
}

/// `shmem_test_some_vector` family.
pub fn test_some_vector<T: Ivar>(
    call: &'static str,
    ivars: *mut T,
    nelems: usize,
    indices: Option<Dst<'_>>,
    status: Option<&[c_int]>,
    cmp: Program<c_int>,
    cmp_values: Option<&[T]>,
) -> usize {
    Set::new(call, ivars, nelems, status, cmp, Err(cmp_values)).some(call, indices, false)
}
