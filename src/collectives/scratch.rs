//! Buffers a collective needs for the length of one call (a leader's partial result, a partner's
//! message), kept by each thread for its next call.
//!
//! Why: a buffer of a mebibyte or more freed at the end of each call goes back to the system
//! (glibc trims its heap, or unmaps the block), and the next call's buffer faults in and zeroes
//! every page again. A reduction of 1 MiB across two nodes spent about a fifth of its time in
//! those faults.
//!
//! Invariants: a kept block is owned by one thread's pool or one [`Scratch`], never both; the pool
//! holds at most [`KEPT`] blocks of at most [`KEPT_BYTES`] each. The elements are `Plain`, so a
//! block's old bytes are values of any type: a buffer is typed by safe casts alone.

use crate::transport::shm::Plain;
use crate::transport::shm::memory::{units_as, units_as_mut};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::mem::size_of;

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

impl<T: Plain> Scratch<T> {
    /// A buffer of `n` elements.
    pub fn new(n: usize) -> Scratch<T> {
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
}

impl<T: Plain> std::ops::Deref for Scratch<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &units_as(&self.block)[..self.n]
    }
}

impl<T: Plain> std::ops::DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut units_as_mut(&mut self.block)[..self.n]
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
        let mut a = Scratch::<u64>::new(1000);
        a[999] = 7;
        let at = a.as_ptr();
        drop(a);
        let b = Scratch::<u64>::new(500);
        assert_eq!(b.as_ptr(), at, "the kept block serves a smaller buffer");
        assert_eq!(b.len(), 500);
    }

    #[test]
    fn two_at_once_get_two_blocks_and_huge_ones_are_not_kept() {
        let (a, b) = (Scratch::<u32>::new(10), Scratch::<f64>::new(10));
        assert_ne!(a.as_ptr() as usize, b.as_ptr() as usize);
        drop((a, b));
        let huge = Scratch::<u8>::new(KEPT_BYTES + 1);
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
