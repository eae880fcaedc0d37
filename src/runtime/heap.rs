//! The symmetric heap allocator: first fit over offsets, with coalescing.
//!
//! Every PE makes the same sequence of calls (the allocation routines are collective), and the
//! allocator is a deterministic function of that sequence, so every PE gets the same offset without
//! communicating. It knows nothing about memory: it hands out offsets in `[start, end)`, aligned
//! relative to `start` (the runtime places `start` on an address aligned to [`MAX_ALIGN`], so an
//! aligned offset is an aligned address), and refuses alignments above `MAX_ALIGN`.
//!
//! The high-water mark (the end of the highest block ever handed out) is kept in an atomic that a
//! `fork()` child handler reads without taking the allocator's lock ([`high_water`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The largest alignment `alloc` provides: that of the heap's start (see `transport::shm::control`).
pub const MAX_ALIGN: usize = crate::transport::shm::control::USER_ALIGN;

/// The end offset of the highest block any heap of this process has handed out.
static HIGH_WATER: AtomicUsize = AtomicUsize::new(0);

/// The end offset of the highest block ever allocated (0 before the first): the heap's bytes
/// above it have never been handed to the program.
pub fn high_water() -> usize {
    HIGH_WATER.load(Ordering::Relaxed)
}

/// Every block starts on, and is sized in, multiples of a cache line.
pub const MIN_ALIGN: usize = 64;

/// Where an offset lies, for the Fortran routines that report a bad address with an error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The start of an allocated block.
    Start,
    /// Inside an allocated block, not at its start.
    Inside,
    /// In the heap, in no allocated block.
    Free,
    /// Not in the heap's range.
    Outside,
}

pub struct Heap {
    start: usize,
    end: usize,
    free: BTreeMap<usize, usize>,
    used: BTreeMap<usize, usize>,
}

impl Heap {
    pub fn new(start: usize, end: usize) -> Heap {
        let mut heap = Heap {
            start,
            end,
            free: BTreeMap::new(),
            used: BTreeMap::new(),
        };
        heap.reset();
        heap
    }

    /// Forgets every allocation (at re-initialization).
    pub fn reset(&mut self) {
        self.free.clear();
        self.used.clear();
        if self.end > self.start {
            self.free.insert(self.start, self.end - self.start);
        }
    }

    /// An offset for `size` bytes aligned to `align` (a power of two, at most [`MAX_ALIGN`])
    /// relative to the heap's start, or `None` if no free block fits.
    pub fn alloc(&mut self, size: usize, align: usize) -> Option<usize> {
        if align > MAX_ALIGN {
            return None;
        }
        let align = align.max(MIN_ALIGN);
        let size = size.max(1).checked_next_multiple_of(MIN_ALIGN)?;
        let start = self.start;
        let (block, len, at) = self.free.iter().find_map(|(&block, &len)| {
            let at = start + (block - start).checked_next_multiple_of(align)?;
            (at.checked_add(size)? <= block + len).then_some((block, len, at))
        })?;
        self.free.remove(&block);
        if at > block {
            self.free.insert(block, at - block);
        }
        if at + size < block + len {
            self.free.insert(at + size, block + len - (at + size));
        }
        self.used.insert(at, size);
        HIGH_WATER.fetch_max(at + size, Ordering::Relaxed);
        Some(at)
    }

    /// The size of the block at `offset`, if it is allocated.
    pub fn size_of(&self, offset: usize) -> Option<usize> {
        self.used.get(&offset).copied()
    }

    /// Where `offset` lies.
    pub fn place(&self, offset: usize) -> Place {
        if offset < self.start || offset >= self.end {
            return Place::Outside;
        }
        match self.used.range(..=offset).next_back() {
            Some((&at, _)) if at == offset => Place::Start,
            Some((&at, &size)) if offset < at + size => Place::Inside,
            _ => Place::Free,
        }
    }

    /// Returns the block at `offset`; `false` if no block starts there.
    pub fn free(&mut self, offset: usize) -> bool {
        let Some(size) = self.used.remove(&offset) else {
            return false;
        };
        self.insert_free(offset, size);
        true
    }

    /// Resizes the block at `offset` in place if it can (shrinking, or growing into a free neighbour).
    pub fn resize_in_place(&mut self, offset: usize, new_size: usize) -> bool {
        let Some(old) = self.used.get(&offset).copied() else {
            return false;
        };
        let Some(new) = new_size.max(1).checked_next_multiple_of(MIN_ALIGN) else {
            return false;
        };
        if new <= old {
            if new < old {
                self.used.insert(offset, new);
                self.insert_free(offset + new, old - new);
            }
            return true;
        }
        let next = offset + old;
        match self.free.get(&next).copied() {
            Some(len) if old + len >= new => {
                self.free.remove(&next);
                if old + len > new {
                    self.free.insert(offset + new, old + len - new);
                }
                self.used.insert(offset, new);
                HIGH_WATER.fetch_max(offset + new, Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }

    fn insert_free(&mut self, mut offset: usize, mut len: usize) {
        if let Some((&prev, &prev_len)) = self.free.range(..offset).next_back()
            && prev + prev_len == offset
        {
            self.free.remove(&prev);
            offset = prev;
            len += prev_len;
        }
        if let Some(next_len) = self.free.remove(&(offset + len)) {
            len += next_len;
        }
        self.free.insert(offset, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_of_an_offset() {
        let mut h = Heap::new(1024, 1024 + 4096);
        let a = h.alloc(100, 1).unwrap();
        assert_eq!(h.place(a), Place::Start);
        assert_eq!(h.place(a + 100), Place::Inside);
        assert_eq!(h.place(a + 128), Place::Free);
        assert_eq!(h.place(0), Place::Outside);
        assert_eq!(h.place(1024 + 4096), Place::Outside);
        assert!(h.free(a));
        assert_eq!(h.place(a), Place::Free);
    }

    #[test]
    fn first_fit_and_coalescing() {
        let mut h = Heap::new(1024, 1024 + 4096);
        let a = h.alloc(100, 1).unwrap();
        let b = h.alloc(64, 1).unwrap();
        let c = h.alloc(1, 1).unwrap();
        assert_eq!((a, b, c), (1024, 1024 + 128, 1024 + 192));
        assert!(h.free(b));
        assert!(!h.free(b));
        assert_eq!(h.alloc(64, 1), Some(b));
        assert!(h.free(a) && h.free(b) && h.free(c));
        assert_eq!(
            h.alloc(4096, 1),
            Some(1024),
            "all blocks coalesced back into one"
        );
        assert_eq!(h.alloc(1, 1), None);
    }

    #[test]
    fn alignment() {
        let mut h = Heap::new(64, 1 << 20);
        let _ = h.alloc(10, 1).unwrap();
        let p = h.alloc(10, 4096).unwrap();
        assert_eq!((p - 64) % 4096, 0);
        let q = h.alloc(10, 1).unwrap();
        assert_eq!(q, 128, "the gap before the aligned block stays usable");
    }

    #[test]
    fn alignment_is_relative_to_the_start() {
        let start = 3 * 4096 + 64;
        let mut h = Heap::new(start, start + (1 << 22));
        let _ = h.alloc(10, 1).unwrap();
        let p = h.alloc(10, 1 << 20).unwrap();
        assert_eq!((p - start) % (1 << 20), 0);
        assert_eq!(
            h.alloc(1, MAX_ALIGN * 2),
            None,
            "above the largest alignment"
        );
        assert!(high_water() >= p + 64);
    }

    #[test]
    fn resize() {
        let mut h = Heap::new(0, 1 << 16);
        let a = h.alloc(64, 1).unwrap();
        assert!(h.resize_in_place(a, 1000));
        assert_eq!(h.size_of(a), Some(1024));
        let b = h.alloc(64, 1).unwrap();
        assert_eq!(b, 1024);
        assert!(!h.resize_in_place(a, 2000), "b is in the way");
        assert!(h.resize_in_place(a, 10));
        assert_eq!(h.alloc(64, 1), Some(64), "the shrunk tail is free again");
    }

    #[test]
    fn deterministic() {
        let run = || {
            let mut h = Heap::new(0, 1 << 20);
            let mut out = vec![];
            let mut live = vec![];
            for i in 0..200usize {
                if i % 3 == 2 {
                    h.free(live.remove(i % live.len()));
                } else {
                    let p = h.alloc((i * 37) % 5000, 1 << (i % 8)).unwrap();
                    live.push(p);
                    out.push(p);
                }
            }
            out
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn exhaustion_and_overflow() {
        let mut h = Heap::new(0, 1024);
        assert_eq!(h.alloc(2048, 1), None);
        assert_eq!(h.alloc(usize::MAX, 1), None);
        assert_eq!(h.alloc(usize::MAX - 10, 1), None);
    }
}
