//! Buffers a collective needs for the length of one call (a leader's partial result, a partner's
//! message), kept by each thread for its next call.
//!
//! Why: a buffer of a mebibyte or more freed at the end of each call goes back to the system
//! (glibc trims its heap, or unmaps the block), and the next call's buffer faults in and zeroes
//! every page again. A reduction of 1 MiB across two nodes spent about a fifth of its time in
//! those faults.
//!
//! Invariants: a kept block is owned by one thread's pool or one [`Scratch`], never both; the pool
//! holds at most [`KEPT`] blocks of at most [`KEPT_BYTES`] each.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};

/// How many blocks a thread keeps between calls: a reduction by messages uses two at once.
const KEPT: usize = 4;

/// The largest block a thread keeps: a larger one is freed at the end of its call.
const KEPT_BYTES: usize = 16 << 20;

/// The unit of a block: 16 bytes, aligned for every element type of a collective.
type Unit = u128;

thread_local! {
    static POOL: RefCell<Vec<Vec<Unit>>> = const { RefCell::new(Vec::new()) };
}

/// `n` elements of `T` in a block taken from this thread's pool (or allocated), returned to it
/// when dropped. Its contents when taken are whatever the block last held.
pub struct Scratch<T> {
    block: Vec<Unit>,
    n: usize,
    _elements: PhantomData<T>,
}

impl<T: Copy> Scratch<T> {
    /// A buffer of `n` elements.
    ///
    /// # Safety
    /// Every bit pattern is a valid `T` (an integer, a float or a pair of them): the buffer holds
    /// the bytes of an earlier use, or zeros.
    pub unsafe fn new(n: usize) -> Scratch<T> {
        const { assert!(align_of::<T>() <= align_of::<Unit>()) };
        let units = (n * size_of::<T>()).div_ceil(size_of::<Unit>());
        let kept = POOL.with_borrow_mut(|pool| {
            let fit = (0..pool.len())
                .filter(|&k| pool[k].len() >= units)
                .min_by_key(|&k| pool[k].len())?;
            Some(pool.swap_remove(fit))
        });
        Scratch {
            block: kept.unwrap_or_else(|| vec![0; units]),
            n,
            _elements: PhantomData,
        }
    }

    /// The buffer as bytes, `n * size_of::<T>()` of them.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the block holds at least that many initialized bytes.
        unsafe { std::slice::from_raw_parts(self.block.as_ptr().cast(), self.n * size_of::<T>()) }
    }

    /// The buffer as bytes, to be written.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.n * size_of::<T>();
        // SAFETY: as above; every bit pattern is a valid `T` (`new`'s contract).
        unsafe { std::slice::from_raw_parts_mut(self.block.as_mut_ptr().cast(), len) }
    }
}

impl<T> std::ops::Deref for Scratch<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the block is aligned for `T` and holds `n` of them (`new`).
        unsafe { std::slice::from_raw_parts(self.block.as_ptr().cast(), self.n) }
    }
}

impl<T> std::ops::DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts_mut(self.block.as_mut_ptr().cast(), self.n) }
    }
}

impl<T> Drop for Scratch<T> {
    /// Returns the block to the pool, in place of a smaller one if the pool is full.
    fn drop(&mut self) {
        let block = std::mem::take(&mut self.block);
        if block.len() * size_of::<Unit>() > KEPT_BYTES {
            return;
        }
        // At a thread's exit the pool may be gone already: the block is freed then.
        let _ = POOL.try_with(|pool| {
            let mut pool = pool.borrow_mut();
            if pool.len() < KEPT {
                pool.push(block);
            } else if let Some(k) = (0..pool.len()).min_by_key(|&k| pool[k].len())
                && pool[k].len() < block.len()
            {
                pool[k] = block;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_kept_and_given_again() {
        // SAFETY: u64 takes any bits.
        let mut a = unsafe { Scratch::<u64>::new(1000) };
        a[999] = 7;
        let at = a.as_ptr();
        drop(a);
        // SAFETY: as above.
        let b = unsafe { Scratch::<u64>::new(500) };
        assert_eq!(b.as_ptr(), at, "the kept block serves a smaller buffer");
        assert_eq!(b.len(), 500);
        assert_eq!(b.bytes().len(), 4000);
    }

    #[test]
    fn two_at_once_get_two_blocks_and_huge_ones_are_not_kept() {
        // SAFETY: u32 and f64 take any bits.
        let (a, b) = unsafe { (Scratch::<u32>::new(10), Scratch::<f64>::new(10)) };
        assert_ne!(a.as_ptr() as usize, b.as_ptr() as usize);
        drop((a, b));
        // SAFETY: as above.
        let huge = unsafe { Scratch::<u8>::new(KEPT_BYTES + 1) };
        drop(huge);
        POOL.with_borrow(|pool| {
            assert!(pool.len() <= KEPT);
            assert!(
                pool.iter()
                    .all(|b| b.len() * size_of::<Unit>() <= KEPT_BYTES)
            );
        });
    }
}
