//! Raw memory made safe to touch: the few types through which the operations and the collectives
//! reach bytes that Rust does not own (the program's buffers, symmetric memory that other PEs map
//! and write, peers' segments mapped here), so that only this module and the places that make
//! them (the C boundary, the mappings) say `unsafe`.
//!
//! - [`Src`] and [`Dst`]: a byte range this process may read (a `Src`) or read and write (a
//!   `Dst`) while the lifetime `'a` lasts. They are `Copy` and may alias each other and other
//!   processes' views of the same pages: every access is a raw copy, an unaligned read or write,
//!   a volatile load or store, or an atomic, never a Rust reference. Each access is checked
//!   against the range (a panic names the offsets; a caller's bug, never a user's: user input is
//!   checked before a range is made).
//! - [`Mapping`]: a segment mapped in this process for the rest of its life (this PE's own, a
//!   peer's on the node, or one a network maps); [`Mapping::at`] gives a `Dst<'static>` of part
//!   of it, checked.
//! - [`Symmetric`]: one symmetric segment as this PE sees it, its own mapping and its peers'
//!   copies; [`Symmetric::locate`] checks an address once and the [`Located`] range it gives is
//!   inside every copy, so the operations' fast path needs no second check.
//! - [`Atom`]: a naturally aligned word of a `Dst`, updated with the CPU's atomics ([`Word`]).
//! - [`Plain`]: the element types whose every bit pattern is a value, which these types read.
//!
//! Invariants: a `Src` or `Dst` is made from a Rust slice (borrowed for `'a`), from a [`Mapping`],
//! or by an `unsafe` constructor whose caller vouches for the range; every method keeps within the
//! range it was made with.

use super::Word;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};
use std::sync::atomic::{AtomicUsize, Ordering};

/// An element type whose every bit pattern is a valid value and which has no padding: integers,
/// floats, and arrays and pairs of them. The memory types read such values out of any bytes.
///
/// # Safety
/// Every `size_of::<Self>()` bytes, whatever they hold, are a valid `Self`, and `Self` has no
/// padding (so its bytes are all initialized).
pub unsafe trait Plain: Copy + 'static {}

macro_rules! plain {
    ($($t:ty),*) => {
        // SAFETY: primitive integers and floats: every bit pattern is a value, no padding.
        $(unsafe impl Plain for $t {})*
    };
}
plain!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64
);
// SAFETY: an array of `Plain` values is `Plain` (no padding between elements of an array).
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// The `T` whose bytes are all 0.
#[inline(always)]
pub fn zeroed<T: Plain>() -> T {
    // SAFETY: every bit pattern is a `T` (`Plain`).
    unsafe { std::mem::zeroed() }
}

/// A byte range this process may read while `'a` lasts (see the module's introduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src<'a> {
    addr: usize,
    len: usize,
    _life: PhantomData<&'a [u8]>,
}

/// A byte range this process may read and write while `'a` lasts (see the module's introduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dst<'a> {
    addr: usize,
    len: usize,
    _life: PhantomData<&'a [u8]>,
}

#[cold]
#[inline(never)]
#[track_caller]
fn outside(what: &str, at: usize, len: usize, range: usize) -> ! {
    panic!("{what}: bytes {at}..{at}+{len} outside a range of {range} bytes")
}

#[cold]
#[inline(never)]
#[track_caller]
fn misaligned(addr: usize, align: usize) -> ! {
    panic!("address {addr:#x} is not aligned to {align} bytes for an atomic or volatile access")
}

/// Checks that `at..at+len` lies within `0..range`.
#[inline(always)]
#[track_caller]
fn within(what: &str, at: usize, len: usize, range: usize) {
    if at > range || len > range - at {
        outside(what, at, len, range)
    }
}

/// The bytes of a slice of `Plain` values: their address and length in bytes.
fn bytes_of<T: Plain>(values: &[T]) -> (usize, usize) {
    (values.as_ptr() as usize, size_of_val(values))
}

macro_rules! common {
    ($t:ident) => {
        impl<'a> $t<'a> {
            /// An empty range.
            pub const fn empty() -> $t<'a> {
                $t {
                    addr: align_of::<u128>(),
                    len: 0,
                    _life: PhantomData,
                }
            }

            /// The address of the first byte (for address arithmetic: a symmetric address's
            /// segment and offset, an overlap test), never dereferenced by the caller.
            #[inline(always)]
            pub fn addr(self) -> usize {
                self.addr
            }

            /// Its length in bytes.
            #[inline(always)]
            pub fn len(self) -> usize {
                self.len
            }

            /// Whether it is empty.
            #[inline(always)]
            pub fn is_empty(self) -> bool {
                self.len == 0
            }

            /// Bytes `at..at+len` of it.
            #[inline(always)]
            #[track_caller]
            pub fn part(self, at: usize, len: usize) -> $t<'a> {
                within("part", at, len, self.len);
                $t {
                    addr: self.addr + at,
                    len,
                    _life: PhantomData,
                }
            }

            /// Bytes `at..` of it.
            #[inline(always)]
            #[track_caller]
            pub fn after(self, at: usize) -> $t<'a> {
                within("after", at, 0, self.len);
                self.part(at, self.len - at)
            }
        }
    };
}
common!(Src);
common!(Dst);

impl<'a> Src<'a> {
    /// The range `addr..addr+len`.
    ///
    /// # Safety
    /// The range is readable while `'a` lasts (by raw reads: others may write it meanwhile, as
    /// OpenSHMEM allows); `addr + len` does not overflow.
    #[inline(always)]
    pub const unsafe fn new(addr: usize, len: usize) -> Src<'a> {
        Src {
            addr,
            len,
            _life: PhantomData,
        }
    }

    /// The bytes of `values`.
    #[inline]
    pub fn of<T: Plain>(values: &'a [T]) -> Src<'a> {
        let (addr, len) = bytes_of(values);
        // SAFETY: the slice is readable while borrowed.
        unsafe { Src::new(addr, len) }
    }

    /// The bytes of one value.
    #[inline]
    pub fn of_value<T: Plain>(value: &'a T) -> Src<'a> {
        Src::of(std::slice::from_ref(value))
    }

    /// Copies the range into `out`, which must be as long.
    #[inline]
    #[track_caller]
    pub fn read_into(self, out: &mut [u8]) {
        within("read_into", 0, out.len(), self.len);
        // SAFETY: `out.len()` bytes of the range are readable (checked); `out` is a
        // distinct Rust buffer (the range cannot alias a `&mut`).
        unsafe { std::ptr::copy((self.addr) as *const u8, out.as_mut_ptr(), out.len()) }
    }

    /// The range's bytes in a new vector.
    pub fn to_vec(self) -> Vec<u8> {
        let mut v = vec![0u8; self.len];
        self.read_into(&mut v);
        v
    }
}

impl<'a> Dst<'a> {
    /// The range `addr..addr+len`.
    ///
    /// # Safety
    /// The range is readable and writable while `'a` lasts (by raw accesses: others may read and
    /// write it meanwhile, as OpenSHMEM allows), and no Rust reference to it is used meanwhile;
    /// `addr + len` does not overflow.
    #[inline(always)]
    pub const unsafe fn new(addr: usize, len: usize) -> Dst<'a> {
        Dst {
            addr,
            len,
            _life: PhantomData,
        }
    }

    /// The bytes of `values`, borrowed for `'a`.
    #[inline]
    pub fn of<T: Plain>(values: &'a mut [T]) -> Dst<'a> {
        // The address from the mutable borrow (a pointer from a shared one may not be written).
        let (addr, len) = (values.as_mut_ptr() as usize, size_of_val(values));
        // SAFETY: the slice is borrowed mutably for `'a`: nothing else uses it meanwhile; any
        // bytes written are a valid `T` (`Plain`).
        unsafe { Dst::new(addr, len) }
    }

    /// The bytes of one value, borrowed for `'a`.
    #[inline]
    pub fn of_value<T: Plain>(value: &'a mut T) -> Dst<'a> {
        Dst::of(std::slice::from_mut(value))
    }

    /// The value of type `T` at byte `at`, loaded with a volatile load (a value another
    /// PE writes: a flag, `shmem_g`); `at` must be aligned for `T`.
    #[inline(always)]
    #[track_caller]
    pub fn load<T: Plain>(self, at: usize) -> T {
        within("load", at, size_of::<T>(), self.len);
        let p = self.addr + at;
        if !p.is_multiple_of(align_of::<T>()) {
            misaligned(p, align_of::<T>());
        }
        // SAFETY: inside the range (checked), readable for `'a`, aligned (checked).
        unsafe { std::ptr::read_volatile(p as *const T) }
    }

    /// The same range, read only.
    #[inline(always)]
    pub fn src(self) -> Src<'a> {
        // SAFETY: a Dst is readable for `'a`.
        unsafe { Src::new(self.addr, self.len) }
    }

    /// Copies `from` to the start of this range (`memmove`: they may overlap).
    #[inline(always)]
    #[track_caller]
    pub fn copy_from(self, from: Src<'_>) {
        within("copy_from", 0, from.len, self.len);
        if from.len > 0 && from.addr != self.addr {
            // SAFETY: `from` is readable, this range writable for `from.len` bytes (checked);
            // `copy` allows the overlap.
            unsafe { std::ptr::copy(from.addr as *const u8, self.addr as *mut u8, from.len) }
        }
    }

    /// Sets every byte to 0.
    #[inline]
    pub fn zero(self) {
        // SAFETY: the range is writable.
        unsafe { std::ptr::write_bytes(self.addr as *mut u8, 0, self.len) }
    }

    /// Writes `value` at byte `at` (unaligned; not volatile).
    #[inline(always)]
    #[track_caller]
    pub fn write<T: Plain>(self, at: usize, value: T) {
        within("write", at, size_of::<T>(), self.len);
        // SAFETY: inside the range (checked), which is writable.
        unsafe { std::ptr::write_unaligned((self.addr + at) as *mut T, value) }
    }

    /// Stores `value` at byte `at` with a volatile store (a value another PE reads: `shmem_p`, a
    /// flag); `at` must be aligned for `T`.
    #[inline(always)]
    #[track_caller]
    pub fn store<T: Plain>(self, at: usize, value: T) {
        within("store", at, size_of::<T>(), self.len);
        let p = self.addr + at;
        if !p.is_multiple_of(align_of::<T>()) {
            misaligned(p, align_of::<T>());
        }
        // SAFETY: inside the range (checked), writable, aligned (checked).
        unsafe { std::ptr::write_volatile(p as *mut T, value) }
    }

    /// The word at byte `at`, for atomics; `at` must be aligned for `W`.
    #[inline(always)]
    #[track_caller]
    pub fn word<W: Word>(self, at: usize) -> Atom<'a, W> {
        within("word", at, size_of::<W>(), self.len);
        let p = self.addr + at;
        if !p.is_multiple_of(align_of::<W>()) {
            misaligned(p, align_of::<W>());
        }
        Atom {
            addr: p,
            _life: PhantomData,
        }
    }

    /// Combines the `T` elements of `x` into those of this range, element by element
    /// (`self[k] = f(self[k], x[k])`), as many as `x` holds; they may not overlap unless equal.
    #[inline]
    #[track_caller]
    pub fn combine<T: Plain>(self, x: Src<'_>, f: impl Fn(T, T) -> T) {
        within("combine", 0, x.len, self.len);
        let n = x.len / size_of::<T>();
        let (acc, x) = (self.addr as *mut T, x.addr as *const T);
        for k in 0..n {
            // SAFETY: element `k` lies inside both ranges (`x` is no longer than this one).
            unsafe {
                let v = f(acc.add(k).read_unaligned(), x.add(k).read_unaligned());
                acc.add(k).write_unaligned(v);
            }
        }
    }

    /// Copies `count` elements of `T` from `from` to this range: element `i` from byte
    /// `src_at + i*src_stride*size` of `from` to byte `dst_at + i*dst_stride*size` of this range
    /// (strides in elements, any sign). Every element must lie in its range.
    #[allow(clippy::too_many_arguments)]
    #[track_caller]
    pub fn copy_strided_from<T: Plain>(
        self,
        dst_at: usize,
        dst_stride: isize,
        from: Src<'_>,
        src_at: usize,
        src_stride: isize,
        count: usize,
    ) {
        if count == 0 {
            return;
        }
        let size = size_of::<T>() as isize;
        let last = |at: usize, stride: isize| {
            (count as isize - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_mul(size))
                .and_then(|x| (at as isize).checked_add(x))
                .filter(|&x| x >= 0)
                .map(|x| x as usize)
                .unwrap_or_else(|| outside("copy_strided_from", at, usize::MAX, 0))
        };
        // The elements' positions are linear in `i`: the first and the last bound them all.
        for (at, stride, len) in [
            (dst_at, dst_stride, self.len),
            (src_at, src_stride, from.len),
        ] {
            within("copy_strided_from", at, size as usize, len);
            within("copy_strided_from", last(at, stride), size as usize, len);
        }
        let dst = (self.addr + dst_at) as *mut T;
        let src = (from.addr + src_at) as *const T;
        for i in 0..count as isize {
            // SAFETY: element `i` lies inside both ranges (first and last checked above).
            unsafe {
                let v = src.offset(i * src_stride).read_unaligned();
                dst.offset(i * dst_stride).write_unaligned(v);
            }
        }
    }
}

/// A naturally aligned word of a [`Dst`], updated with the CPU's atomics (sequentially
/// consistent, see [`Word`]).
#[derive(Clone, Copy, Debug)]
pub struct Atom<'a, W: Word> {
    addr: usize,
    _life: PhantomData<&'a W>,
}

impl<W: Word> Atom<'_, W> {
    #[inline(always)]
    pub fn load(self) -> W {
        // SAFETY: an Atom is an aligned word of a writable range (checked by `Dst::word`).
        unsafe { W::load(self.addr as *mut W) }
    }
    #[inline(always)]
    pub fn load_acquire(self) -> W {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::load_acquire(self.addr as *mut W) }
    }
    #[inline(always)]
    pub fn store(self, v: W) {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::store(self.addr as *mut W, v) }
    }
    #[inline(always)]
    pub fn swap(self, v: W) -> W {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::swap(self.addr as *mut W, v) }
    }
    #[inline(always)]
    pub fn compare_swap(self, cond: W, v: W) -> W {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::compare_swap(self.addr as *mut W, cond, v) }
    }
    #[inline(always)]
    pub fn fetch_add(self, v: W) -> W {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::fetch_add(self.addr as *mut W, v) }
    }
    #[inline(always)]
    pub fn fetch_and(self, v: W) -> W {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::fetch_and(self.addr as *mut W, v) }
    }
    #[inline(always)]
    pub fn fetch_or(self, v: W) -> W {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::fetch_or(self.addr as *mut W, v) }
    }
    #[inline(always)]
    pub fn fetch_xor(self, v: W) -> W {
        // SAFETY: `self.addr` is an aligned word of a writable range (`Dst::word` checked), for
        // the Atom's borrow.
        unsafe { W::fetch_xor(self.addr as *mut W, v) }
    }
}

/// A segment mapped read-write in this process for the rest of its life, from `base` for `len`
/// bytes (this PE's own, an on-node peer's, or one the network maps until it closes: see
/// [`Mapping::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    base: usize,
    len: usize,
}

impl Mapping {
    /// The mapping at `base..base+len`.
    ///
    /// # Safety
    /// The range is mapped read-write, accessed only by raw accesses (shared memory), and stays
    /// mapped for as long as this Mapping or a range made from it is used (for a network's
    /// mapping: its users stop using it before the network unmaps it).
    #[inline(always)]
    pub const unsafe fn new(base: usize, len: usize) -> Mapping {
        Mapping { base, len }
    }

    /// No memory: the mapping of a segment that does not exist (0 bytes at 0).
    pub const EMPTY: Mapping = Mapping { base: 0, len: 0 };

    #[inline(always)]
    pub fn base(self) -> usize {
        self.base
    }

    #[inline(always)]
    pub fn len(self) -> usize {
        self.len
    }

    /// Bytes `off..off+len` of it, or `None` where they do not lie inside.
    #[inline(always)]
    pub fn at(self, off: usize, len: usize) -> Option<Dst<'static>> {
        if off > self.len || len > self.len - off {
            return None;
        }
        // SAFETY: inside the mapping, which is readable and writable for as long as it is used.
        Some(unsafe { Dst::new(self.base + off, len) })
    }

    /// The whole mapping.
    #[inline(always)]
    pub fn all(self) -> Dst<'static> {
        // SAFETY: `base..base+len` is exactly the mapping, readable and writable for as long as
        // it is used.
        unsafe { Dst::new(self.base, self.len) }
    }
}

/// One symmetric segment as this PE sees it: its own mapping, the program's part of it
/// (`start..len`: the heap's control block and guard lie below, see `control`), and each peer's
/// copy where it is mapped here, in two tables: `peers`, the on-node peers' segments (mapped for
/// the life of the process), and `direct`, what this PE reads and writes directly for puts, gets
/// and the collectives' data: `peers`, plus, for a peer on the network route, where the network
/// itself maps its segment while it is connected.
///
/// Invariant: every base in either table is that of a mapping at least `len` bytes long, so a
/// range [`Symmetric::locate`] found inside the segment is inside every peer's copy: the
/// operations' fast path checks an address once.
#[derive(Debug)]
pub struct Symmetric {
    own: Mapping,
    start: usize,
    /// `own.base + start` and `own.len - start`: the program's range, for [`Symmetric::locate`].
    user: usize,
    user_len: usize,
    peers: Box<[usize]>,
    direct: Box<[AtomicUsize]>,
}

impl Symmetric {
    /// The segment `own`, whose program part begins at `start`, with the peers' copies `peers`
    /// (`None`: not mapped here). A peer's mapping shorter than `own` is refused.
    #[track_caller]
    pub fn new(own: Mapping, start: usize, peers: &[Option<Mapping>]) -> Symmetric {
        assert!(
            start <= own.len,
            "a program part from {start} in a segment of {}",
            own.len
        );
        let peers: Box<[usize]> = peers.iter().map(|&m| Self::checked(own.len, m)).collect();
        Symmetric {
            own,
            start,
            user: own.base + start,
            user_len: own.len - start,
            direct: peers.iter().map(|&b| AtomicUsize::new(b)).collect(),
            peers,
        }
    }

    /// The base of `mapping`, 0 for none, after the check that it covers `len` bytes.
    #[track_caller]
    fn checked(len: usize, mapping: Option<Mapping>) -> usize {
        match mapping {
            Some(m) => {
                assert!(
                    m.len >= len && m.base != 0,
                    "a mapping of {} bytes at {:#x} for a segment of {len}",
                    m.len,
                    m.base
                );
                m.base
            }
            None => 0,
        }
    }

    /// A peer's copy as a Mapping of the segment's length.
    fn mapping(&self, base: usize) -> Option<Mapping> {
        // SAFETY: a non-zero base is that of a mapping at least `len` long (invariant).
        (base != 0).then(|| unsafe { Mapping::new(base, self.own.len) })
    }

    /// This PE's own segment.
    #[inline(always)]
    pub fn own(&self) -> Mapping {
        self.own
    }
    #[inline(always)]
    pub fn base(&self) -> usize {
        self.own.base
    }
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.own.len
    }
    /// Where the program's part begins.
    #[inline(always)]
    pub fn start(&self) -> usize {
        self.start
    }

    /// `pe`'s copy, if it is an on-node peer's (or this PE's own, on the shared-memory route).
    #[inline(always)]
    pub fn peer(&self, pe: usize) -> Option<Mapping> {
        self.mapping(self.peers[pe])
    }

    /// `pe`'s copy as this PE reads and writes it directly, if it does (see the type).
    #[inline(always)]
    pub fn direct(&self, pe: usize) -> Option<Mapping> {
        self.mapping(self.direct[pe].load(Ordering::Relaxed))
    }

    /// Sets where `pe`'s copy is read and written directly (`None`: nowhere, the network's).
    #[track_caller]
    pub fn set_direct(&self, pe: usize, mapping: Option<Mapping>) {
        self.direct[pe].store(Self::checked(self.own.len, mapping), Ordering::Relaxed);
    }

    /// The range `addr..addr+len` of this PE's address space, if it lies in the program's part.
    #[inline(always)]
    pub fn locate(&self, addr: usize, len: usize) -> Option<Located<'_>> {
        let off = addr.wrapping_sub(self.user);
        // `then`, not `then_some`: `start + off` is computed only for an `off` inside.
        (off < self.user_len && len <= self.user_len - off).then(|| Located {
            seg: self,
            off: self.start + off,
            len,
        })
    }
}

/// A range inside a [`Symmetric`] segment (found by [`Symmetric::locate`]): the same bytes of
/// this PE's copy and of every peer's.
#[derive(Clone, Copy, Debug)]
pub struct Located<'s> {
    seg: &'s Symmetric,
    off: usize,
    len: usize,
}

impl Located<'_> {
    /// Its offset from the segment's start.
    #[inline(always)]
    pub fn off(self) -> usize {
        self.off
    }

    /// This PE's own copy.
    #[inline(always)]
    pub fn own(self) -> Dst<'static> {
        // SAFETY: inside the segment (`locate`), which `own` maps for the life of the process.
        unsafe { Dst::new(self.seg.own.base + self.off, self.len) }
    }

    /// `pe`'s copy, if it is an on-node peer's ([`Symmetric::peer`]).
    #[inline(always)]
    pub fn peer(self, pe: usize) -> Option<Dst<'static>> {
        self.at(self.seg.peers[pe])
    }

    /// `pe`'s copy as this PE reads and writes it directly ([`Symmetric::direct`]).
    #[inline(always)]
    pub fn direct(self, pe: usize) -> Option<Dst<'static>> {
        self.at(self.seg.direct[pe].load(Ordering::Relaxed))
    }

    #[inline(always)]
    fn at(self, base: usize) -> Option<Dst<'static>> {
        // SAFETY: a non-zero base maps at least the segment's length (the table's invariant), and
        // `off..off+len` lies inside the segment (`locate`).
        (base != 0).then(|| unsafe { Dst::new(base + self.off, self.len) })
    }
}

// What the collectives need beyond the above: their buffers, kept as `u128`s, as `Plain` slices.

/// The `T` elements that fit in `units` (16-byte words, aligned for every `Plain` type), as a
/// slice: a typed view of a buffer kept as `u128`s.
#[inline]
pub fn units_as<T: Plain>(units: &[u128]) -> &[T] {
    const { assert!(align_of::<T>() <= align_of::<u128>() && size_of::<T>() > 0) };
    let n = size_of_val(units) / size_of::<T>();
    // SAFETY: the words are initialized and aligned for `T` (checked above), `n` elements of `T`
    // lie within them, and any bytes are a `T` (`Plain`); the borrow is `units`'.
    unsafe { std::slice::from_raw_parts(units.as_ptr().cast::<T>(), n) }
}

/// [`units_as`], to be written.
#[inline]
pub fn units_as_mut<T: Plain>(units: &mut [u128]) -> &mut [T] {
    const { assert!(align_of::<T>() <= align_of::<u128>() && size_of::<T>() > 0) };
    let n = size_of_val(units) / size_of::<T>();
    // SAFETY: the words are initialized and aligned for `T` (checked above), `n` elements of `T`
    // lie within them, and any bytes are a `T` (`Plain`); the borrow is `units`' mutable one, and
    // whatever is written into the elements leaves valid `u128`s (any bits are).
    unsafe { std::slice::from_raw_parts_mut(units.as_mut_ptr().cast::<T>(), n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_reads_and_writes_stay_inside() {
        let mut a = [0u8; 16];
        let b: Vec<u8> = (0..16).collect();
        let d = Dst::of(&mut a);
        d.part(4, 8).copy_from(Src::of(&b).part(0, 8));
        assert_eq!(d.load::<u8>(4), 0);
        assert_eq!(d.load::<u32>(8), u32::from_le_bytes([4, 5, 6, 7]));
        d.write::<u16>(1, 0xffff);
        assert_eq!(d.src().to_vec()[..3], [0, 255, 255]);
        assert!(std::panic::catch_unwind(|| d.part(10, 7)).is_err());
        assert!(std::panic::catch_unwind(|| d.load::<u64>(9)).is_err());
        assert!(std::panic::catch_unwind(|| d.word::<u32>(2)).is_err());
    }

    #[test]
    fn overlapping_copy_is_a_memmove() {
        let mut a: Vec<u8> = (0..10).collect();
        let d = Dst::of(&mut a);
        d.part(2, 8).copy_from(d.src().part(0, 8));
        assert_eq!(a, [0, 1, 0, 1, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn atomics_and_combine() {
        let mut a = [5u64, 1, 2];
        let d = Dst::of(&mut a);
        assert_eq!(d.word::<u64>(0).fetch_add(3), 5);
        assert_eq!(d.word::<u64>(0).compare_swap(8, 1), 8);
        let x = [10u64, 20];
        d.part(8, 16).combine::<u64>(Src::of(&x), |p, q| p + q);
        assert_eq!(a, [1, 11, 22]);
    }

    #[test]
    fn strided_copies_check_both_ends() {
        let src: Vec<u32> = (0..8).collect();
        let mut dst = [0u32; 8];
        let d = Dst::of(&mut dst);
        // Every other element, backwards into the first four.
        d.copy_strided_from::<u32>(12, -1, Src::of(&src), 0, 2, 4);
        assert_eq!(dst[..4], [6, 4, 2, 0]);
        let d = Dst::of(&mut dst);
        let src = Src::of(&src);
        assert!(
            std::panic::catch_unwind(|| d.copy_strided_from::<u32>(0, 3, src, 0, 1, 4)).is_err()
        );
        assert!(
            std::panic::catch_unwind(|| d.copy_strided_from::<u32>(0, -1, src, 0, 1, 2)).is_err()
        );
    }

    #[test]
    fn a_mapping_gives_only_its_own_bytes() {
        let mut a = [0u8; 32];
        // SAFETY: `a` outlives the mapping's uses in this test.
        let m = unsafe { Mapping::new(a.as_mut_ptr() as usize, a.len()) };
        assert!(m.at(16, 16).is_some());
        assert!(m.at(16, 17).is_none());
        assert!(m.at(33, 0).is_none());
        m.at(0, 4).unwrap().store::<u32>(0, 7);
        assert_eq!(m.all().load::<u32>(0), 7);
    }
}

#[cfg(test)]
mod collective_tests {
    use super::*;

    #[test]
    fn units_are_seen_as_plain_elements() {
        let mut units = [0u128; 2];
        let words = units_as_mut::<u64>(&mut units);
        assert_eq!(words.len(), 4);
        words[3] = 0x0102;
        assert_eq!(units_as::<u32>(&units)[6], 0x0102);
        assert_eq!(units_as::<[u8; 3]>(&units).len(), 10);
        let bytes = units_as::<u8>(&units);
        assert_eq!((bytes.len(), bytes[24], bytes[25]), (32, 2, 1));
    }
}
