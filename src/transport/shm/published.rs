//! Values every thread reads through one atomic pointer, set and cleared by the rare calls that
//! build and retire them (`shmem_init`, `shmem_finalize`): [`Published`], a `&'static T` that
//! can be swapped (the World), and [`Lent`], a `Box<T>` that threads borrow and the last call
//! takes back (the network). A read costs one acquire load and a test.
//!
//! Invariants: a `Published` holds only `&'static` references (or nothing), so a reference read
//! from it is valid forever; a `Lent` holds a pointer from `Box::into_raw` (or NULL), turned back
//! into a `Box` at most once.

use std::sync::atomic::{AtomicPtr, Ordering};

/// A `&'static T` published to every thread, or nothing.
pub struct Published<T: 'static>(AtomicPtr<T>);

impl<T: Sync + 'static> Published<T> {
    /// Nothing published.
    pub const fn new() -> Published<T> {
        Published(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// What is published (acquire: what was written before it was published is visible).
    #[inline(always)]
    pub fn get(&self) -> Option<&'static T> {
        let p = self.0.load(Ordering::Acquire);
        // SAFETY: the pointer is NULL or came from a `&'static T` (`publish`, `swap`): valid
        // and shared for the rest of the process.
        unsafe { p.as_ref() }
    }

    /// Publishes `value` (`None`: nothing).
    pub fn publish(&self, value: Option<&'static T>) {
        self.0.store(raw(value), Ordering::Release);
    }

    /// Publishes `value` and returns what was published before.
    pub fn swap(&self, value: Option<&'static T>) -> Option<&'static T> {
        let p = self.0.swap(raw(value), Ordering::AcqRel);
        // SAFETY: the old pointer is NULL or came from a `&'static T` (`publish`, `swap`):
        // valid and shared for the rest of the process.
        unsafe { p.as_ref() }
    }
}

fn raw<T>(value: Option<&'static T>) -> *mut T {
    value.map_or(std::ptr::null_mut(), |v| (v as *const T).cast_mut())
}

/// A `Box<T>` lent to every thread between the call that puts it and the one that takes it
/// back: the job's network, which `shmem_init` connects and `shmem_finalize` closes.
///
/// The one rule it rests on is OpenSHMEM's: no call of a PE runs concurrently with its
/// `shmem_finalize` (its operations are complete and its threads have left the library), so no
/// borrow from [`Lent::get`] is in use when [`Lent::take`] gives the box back.
pub struct Lent<T>(AtomicPtr<T>);

impl<T: Send + Sync> Lent<T> {
    /// Nothing lent.
    pub const fn new() -> Lent<T> {
        Lent(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// Lends `value` (anything lent before and not taken stays allocated: never freed).
    pub fn put(&self, value: Box<T>) {
        self.0.store(Box::into_raw(value), Ordering::Release);
    }

    /// What is lent, borrowed.
    #[inline(always)]
    pub fn get(&self) -> Option<&T> {
        let p = self.0.load(Ordering::Acquire);
        // SAFETY: a non-NULL pointer came from `Box::into_raw` in `put` and is freed only by the
        // owner of the `Box` that `take` returns, after no borrow is in use (the type's rule).
        unsafe { p.as_ref() }
    }

    /// Takes back what is lent; nothing is lent afterwards.
    pub fn take(&self) -> Option<Box<T>> {
        let p = self.0.swap(std::ptr::null_mut(), Ordering::AcqRel);
        // SAFETY: a non-NULL pointer came from `Box::into_raw` in `put`; the swap to NULL makes
        // this the one `Box` made of it; no borrow from `get` is in use (the type's rule).
        (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_gives_what_was_published_last() {
        static P: Published<u32> = Published::new();
        static A: u32 = 1;
        static B: u32 = 2;
        assert_eq!(P.get(), None);
        P.publish(Some(&A));
        assert_eq!(P.swap(Some(&B)), Some(&1));
        assert_eq!(P.get(), Some(&2));
        assert_eq!(P.swap(None), Some(&2));
        assert_eq!(P.get(), None);
    }

    #[test]
    fn lent_is_taken_back_once() {
        let lent = Lent::new();
        assert!(lent.get().is_none());
        lent.put(Box::new(String::from("network")));
        assert_eq!(lent.get().map(String::as_str), Some("network"));
        assert_eq!(lent.take().as_deref().map(String::as_str), Some("network"));
        assert!(lent.take().is_none());
        assert!(lent.get().is_none());
    }
}
