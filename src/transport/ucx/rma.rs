//! Remote keys and the one-sided operations on them: put, get and atomics.
//!
//! Invariants: a [`RemoteKey`] holds an `Arc` of its endpoint, so it is destroyed before the
//! endpoint is closed; every access is an offset into the peer's region `[base, base+len)` that
//! the peer announced with the key, checked here (range, and natural alignment for atomics) before
//! UCX sees an address. Blocking operations wait by progressing the endpoint's worker. On a
//! region UCX maps into this process (memory the peer's shared-memory memory domain allocated:
//! `ucp_rkey_ptr`), puts, gets and atomics are the copies and CPU atomics UCX's shared-memory
//! transports would make, made here without a call into UCX: complete when they return.

use super::worker::{Endpoint, EndpointHandle, Request};
use super::{Error, Result, check};
pub use crate::transport::AmoWord;
use std::os::raw::c_void;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};
use ucx_sys::*;

/// A peer's memory region, reachable through one endpoint.
pub struct RemoteKey {
    raw: ucp_rkey_h,
    base: u64,
    len: usize,
    /// Where the region is mapped in this process when UCX reaches it with loads and stores
    /// (`ucp_rkey_ptr` of its base: memory a shared-memory memory domain of the peer allocated),
    /// else NULL.
    mapped: *mut u8,
    endpoint: Arc<EndpointHandle>,
}

// SAFETY: the key is used only in calls that lock its endpoint's worker (UCS_THREAD_MODE_MULTI),
// which is where UCX updates the key's internal cache.
unsafe impl Send for RemoteKey {}
// SAFETY: `&RemoteKey` uses `raw` only in calls that lock the endpoint's worker
// (UCS_THREAD_MODE_MULTI); `base`, `len` and `mapped` are not mutated after unpacking.
unsafe impl Sync for RemoteKey {}

impl Drop for RemoteKey {
    fn drop(&mut self) {
        // SAFETY: the key came from ucp_ep_rkey_unpack and is destroyed once, before its endpoint
        // (our Arc keeps the endpoint open).
        unsafe { ucp_rkey_destroy(self.raw) }
    }
}

impl Endpoint {
    /// Unpacks the peer's packed key of the region `[base, base+len)` of its address space.
    ///
    /// # Safety
    /// `packed` must be the bytes of a [`super::MemoryRegion::pack_rkey`] of the peer (UCX parses
    /// them without knowing their length), and `base`, `len` describe a range inside that region.
    pub unsafe fn unpack_rkey(&self, packed: &[u8], base: u64, len: usize) -> Result<RemoteKey> {
        let mut raw = ptr::null_mut();
        // SAFETY: the endpoint is live; packed is a packed key (caller's contract); raw writable.
        check("ucp_ep_rkey_unpack", unsafe {
            ucp_ep_rkey_unpack(self.handle.raw, packed.as_ptr().cast(), &mut raw)
        })?;
        let mut mapped = ptr::null_mut();
        // SAFETY: the key was just unpacked; `base` is the peer's region's; mapped is writable.
        if unsafe { ucp_rkey_ptr(raw, base, &mut mapped) } != UCS_OK {
            mapped = ptr::null_mut();
        }
        Ok(RemoteKey {
            raw,
            base,
            len,
            mapped: mapped.cast(),
            endpoint: self.handle.clone(),
        })
    }
}

impl RemoteKey {
    /// The remote address of `offset..offset+len`, if inside the region and aligned to `align`.
    #[inline]
    fn address(&self, call: &'static str, offset: usize, len: usize, align: usize) -> Result<u64> {
        let inside = offset.checked_add(len).is_some_and(|end| end <= self.len);
        let address = self.base.wrapping_add(offset as u64);
        if !inside {
            return Err(Error {
                call,
                status: UCS_ERR_OUT_OF_RANGE,
            });
        }
        if !address.is_multiple_of(align as u64) {
            return Err(Error {
                call,
                status: UCS_ERR_INVALID_PARAM,
            });
        }
        Ok(address)
    }

    /// Whether `offset..offset+len` is inside the region (what a put there checks first).
    #[inline]
    pub(super) fn check_put(&self, offset: usize, len: usize) -> Result<()> {
        self.address("ucp_put_nbx", offset, len, 1).map(|_| ())
    }

    /// Whether `offset..offset+len` is inside the region (what a get from there checks first).
    #[inline]
    pub(super) fn check_get(&self, offset: usize, len: usize) -> Result<()> {
        self.address("ucp_get_nbx", offset, len, 1).map(|_| ())
    }

    /// Whether an access through this key is complete when its call returns: the region is
    /// mapped here and the access was this thread's own copy or CPU atomic (visible to the peer
    /// after a memory fence), so a quiet has nothing to flush for it.
    #[inline]
    pub fn completes_at_once(&self) -> bool {
        !self.mapped.is_null()
    }

    /// Where the region is mapped in this process and its length, if UCX reaches the region
    /// with loads and stores (for as long as the key lives).
    pub fn mapping(&self) -> Option<(usize, usize)> {
        (!self.mapped.is_null()).then_some((self.mapped as usize, self.len))
    }

    /// Where the region's `offset` is mapped in this process, if UCX reaches the region with loads
    /// and stores; `None` if UCX reaches it otherwise (a transport's RMA, or active messages).
    #[cfg(test)]
    pub fn local_ptr(&self, offset: usize) -> Option<*mut u8> {
        self.address("ucp_rkey_ptr", offset, 0, 1).ok()?;
        // SAFETY: `offset` is inside the region, which is mapped contiguously at `mapped`.
        (!self.mapped.is_null()).then(|| unsafe { self.mapped.add(offset) })
    }

    /// Copies `src` to `offset` of the region; returns when `src` may be reused (the data is at the
    /// target after a flush).
    #[cfg(test)]
    pub fn put(&self, offset: usize, src: &[u8]) -> Result<()> {
        // SAFETY: src is borrowed until the request completes, in wait below.
        unsafe { self.put_nbi(offset, src.as_ptr(), src.len()) }?.wait()
    }

    /// Copies the region's `offset..offset+dst.len()` into `dst`; returns with the data.
    pub fn get(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        // SAFETY: dst is borrowed mutably until the request completes, in wait below.
        unsafe { self.get_nbi(offset, dst.as_mut_ptr(), dst.len()) }?.wait()
    }

    /// Starts copying `len` bytes from `src` to `offset` of the region.
    ///
    /// # Safety
    /// `src..src+len` must stay readable and unchanged until the request completes (waited, or the
    /// next flush of the worker or endpoint).
    pub unsafe fn put_nbi(&self, offset: usize, src: *const u8, len: usize) -> Result<Request> {
        let address = self.address("ucp_put_nbx", offset, len, 1)?;
        if !self.mapped.is_null() {
            // SAFETY: the range is inside the region (checked), mapped here for the key's life;
            // src is readable (caller's contract). A copy as UCX's shared-memory put makes it.
            unsafe { ptr::copy(src, self.mapped.add(offset), len) };
            // The stores come before whatever this PE writes next (a signal, a flag).
            fence(Ordering::Release);
            return Ok(Request::done("ucp_put_nbx"));
        }
        let param = ucp_request_param_t::default();
        // SAFETY: endpoint and key are live; src is valid until completion (caller's contract);
        // the remote range was checked against the region.
        let status = unsafe {
            ucp_put_nbx(
                self.endpoint.raw,
                src.cast(),
                len,
                address,
                self.raw,
                &param,
            )
        };
        self.endpoint.request("ucp_put_nbx", status)
    }

    /// Copies `len` bytes from `src` to `offset` of the region if UCX maps it here: then true, and
    /// the put is complete. False where it does not, and nothing was done.
    ///
    /// # Safety
    /// `src..src+len` must be readable.
    #[inline]
    pub unsafe fn put_if_mapped(&self, offset: usize, src: *const u8, len: usize) -> Result<bool> {
        if !self.completes_at_once() {
            return Ok(false);
        }
        // SAFETY: the caller's contract: `src..src+len` is readable for this call, and on a region
        // mapped here `put_nbi` is the copy itself, done before it returns: no read after.
        unsafe { self.put_nbi(offset, src, len) }.map(|_| true)
    }

    /// Starts copying the region's `offset..offset+len` to `dst`.
    ///
    /// # Safety
    /// `dst..dst+len` must stay writable and unread until the request completes (waited, or the
    /// next flush of the worker or endpoint).
    pub unsafe fn get_nbi(&self, offset: usize, dst: *mut u8, len: usize) -> Result<Request> {
        let address = self.address("ucp_get_nbx", offset, len, 1)?;
        if !self.mapped.is_null() {
            // What this PE read before (a flag it waited for) comes before the copy.
            fence(Ordering::Acquire);
            // SAFETY: the range is inside the region (checked), mapped here for the key's life;
            // dst is writable (caller's contract).
            unsafe { ptr::copy(self.mapped.add(offset), dst, len) };
            return Ok(Request::done("ucp_get_nbx"));
        }
        let param = ucp_request_param_t::default();
        // SAFETY: endpoint and key are live; dst is valid until completion (caller's contract);
        // the remote range was checked against the region.
        let status = unsafe {
            ucp_get_nbx(
                self.endpoint.raw,
                dst.cast(),
                len,
                address,
                self.raw,
                &param,
            )
        };
        self.endpoint.request("ucp_get_nbx", status)
    }

    /// One atomic operation on the word at `offset`, waited for. `operand` is UCX's `buffer`;
    /// `reply` (if any) is its `reply_buffer`: the old value on return (for a compare-and-swap it
    /// holds the new value on entry).
    fn atomic<T: AmoWord>(
        &self,
        op: ucp_atomic_op_t,
        offset: usize,
        operand: T,
        reply: Option<&mut T>,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let address = self.address("ucp_atomic_op_nbx", offset, size, size)?;
        if !self.mapped.is_null() {
            // SAFETY: the word is inside the region and aligned (checked above).
            unsafe { self.cpu_atomic(op, offset, operand, reply) };
            return Ok(());
        }
        let mut param = ucp_request_param_t {
            op_attr_mask: UCP_OP_ATTR_FIELD_DATATYPE,
            datatype: ucp_dt_make_contig(size),
            ..Default::default()
        };
        if let Some(reply) = reply {
            param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
            param.reply_buffer = (reply as *mut T).cast::<c_void>();
        }
        // SAFETY: endpoint and key are live; operand and reply live on this frame until the
        // request completes in wait below; the remote word was checked (range and alignment).
        let status = unsafe {
            ucp_atomic_op_nbx(
                self.endpoint.raw,
                op,
                (&operand as *const T).cast(),
                1,
                address,
                self.raw,
                &param,
            )
        };
        self.endpoint.request("ucp_atomic_op_nbx", status)?.wait()
    }

    fn fetching<T: AmoWord>(&self, op: ucp_atomic_op_t, offset: usize, operand: T) -> Result<T> {
        let mut old = operand;
        self.atomic(op, offset, operand, Some(&mut old))?;
        Ok(old)
    }

    /// [`RemoteKey::atomic`] on a region mapped here ([`RemoteKey::mapped`]): the CPU atomic on the
    /// mapping, as UCX's shared-memory transports make it (the same instructions, so atomic with
    /// theirs and with the target's own), without a call into UCX. Also what keeps the fetching
    /// AND, OR and XOR right: UCX 1.13's shared-memory transports apply those with the old value
    /// as the operand (the word stays as it was, or becomes 0 for XOR, while the old value comes
    /// back right; Open MPI's OSHMEM over them shows the same).
    ///
    /// # Safety
    /// The word at `offset` is inside the region and aligned to its size.
    unsafe fn cpu_atomic<T: AmoWord>(
        &self,
        op: ucp_atomic_op_t,
        offset: usize,
        operand: T,
        reply: Option<&mut T>,
    ) {
        macro_rules! apply {
            ($atomic:ty, $word:ty) => {{
                // SAFETY: the caller's word, mapped here for the key's life; peers update it
                // only atomically. T is $word (the AmoWord of its size).
                let word = unsafe { <$atomic>::from_ptr(self.mapped.add(offset).cast()) };
                // SAFETY: `T` is `$word` (sealed `AmoWord`, picked by the size test): the operand is
                // read as its own type.
                let value: $word = unsafe { std::mem::transmute_copy(&operand) };
                let new: $word = match &reply {
                    // SAFETY: `AmoWord` is sealed to u32 and u64 and the size test chose `$word` of
                    // `T`'s size, so `T` is `$word`: `*r` is read as its own type.
                    Some(r) => unsafe { std::mem::transmute_copy(&**r) },
                    None => 0,
                };
                let old = match op {
                    UCP_ATOMIC_OP_ADD => word.fetch_add(value, Ordering::SeqCst),
                    UCP_ATOMIC_OP_AND => word.fetch_and(value, Ordering::SeqCst),
                    UCP_ATOMIC_OP_OR => word.fetch_or(value, Ordering::SeqCst),
                    UCP_ATOMIC_OP_XOR => word.fetch_xor(value, Ordering::SeqCst),
                    UCP_ATOMIC_OP_SWAP => word.swap(value, Ordering::SeqCst),
                    // UCP_ATOMIC_OP_CSWAP (the one op left): compare with the operand, store the
                    // reply's value.
                    _ => {
                        match word.compare_exchange(value, new, Ordering::SeqCst, Ordering::SeqCst)
                        {
                            Ok(old) | Err(old) => old,
                        }
                    }
                };
                if let Some(r) = reply {
                    // SAFETY: `T` is `$word` (sealed `AmoWord`, picked by the size test), so the
                    // `$word` `old` is a valid `T`.
                    *r = unsafe { std::mem::transmute_copy(&old) };
                }
            }};
        }
        if size_of::<T>() == 4 {
            apply!(AtomicU32, u32)
        } else {
            apply!(AtomicU64, u64)
        }
    }

    /// Adds `value` to the word; returns the old value.
    pub fn fetch_add<T: AmoWord>(&self, offset: usize, value: T) -> Result<T> {
        self.fetching(UCP_ATOMIC_OP_ADD, offset, value)
    }

    /// Adds `value` to the word.
    pub fn add<T: AmoWord>(&self, offset: usize, value: T) -> Result<()> {
        self.atomic(UCP_ATOMIC_OP_ADD, offset, value, None)
    }

    /// Stores `value`; returns the old value.
    pub fn swap<T: AmoWord>(&self, offset: usize, value: T) -> Result<T> {
        self.fetching(UCP_ATOMIC_OP_SWAP, offset, value)
    }

    /// Stores the 64-bit `value` at `offset` so that the peer reads the old or the new word, never
    /// a mix, and returns once `value` may go: on a region mapped here an atomic swap (a locked
    /// instruction: the word is visible to the peer when it returns), else an 8-byte put that
    /// lands by the target's progress.
    pub fn store(&self, offset: usize, value: u64) -> Result<()> {
        if !self.mapped.is_null() {
            return self.swap(offset, value).map(drop);
        }
        // SAFETY: `value` lives on this frame until the put completed locally, just below.
        unsafe { self.put_nbi(offset, (&raw const value).cast(), 8) }?.wait()
    }

    /// Raises the 64-bit word at `offset` to at least `value` with a CPU atomic maximum if the
    /// region is mapped here (then true); false if not (the caller sends the raise as a message,
    /// `super::signals`). The word is checked either way.
    pub fn raise_mapped(&self, offset: usize, value: u64) -> Result<bool> {
        self.address("a control signal", offset, 8, 8)?;
        if self.mapped.is_null() {
            return Ok(false);
        }
        // SAFETY: the word is inside the region and aligned (checked), mapped here for the key's
        // life; peers update it only atomically.
        let word = unsafe { AtomicU64::from_ptr(self.mapped.add(offset).cast()) };
        word.fetch_max(value, Ordering::SeqCst);
        Ok(true)
    }

    /// Stores `value` atomically (a swap whose old value is dropped), on every route.
    #[cfg(test)]
    pub fn set<T: AmoWord>(&self, offset: usize, value: T) -> Result<()> {
        self.swap(offset, value).map(|_| ())
    }

    /// Stores `value` if the word equals `cond`; returns the old value either way.
    pub fn compare_swap<T: AmoWord>(&self, offset: usize, cond: T, value: T) -> Result<T> {
        let mut reply = value;
        self.atomic(UCP_ATOMIC_OP_CSWAP, offset, cond, Some(&mut reply))?;
        Ok(reply)
    }

    /// Reads the word atomically (a fetching OR with 0).
    pub fn fetch<T: AmoWord + Default>(&self, offset: usize) -> Result<T> {
        self.fetching(UCP_ATOMIC_OP_OR, offset, T::default())
    }

    /// Bitwise AND with `value`; returns the old value.
    pub fn fetch_and<T: AmoWord>(&self, offset: usize, value: T) -> Result<T> {
        self.fetching(UCP_ATOMIC_OP_AND, offset, value)
    }

    /// Bitwise AND with `value`.
    pub fn and<T: AmoWord>(&self, offset: usize, value: T) -> Result<()> {
        self.atomic(UCP_ATOMIC_OP_AND, offset, value, None)
    }

    /// Bitwise OR with `value`; returns the old value.
    pub fn fetch_or<T: AmoWord>(&self, offset: usize, value: T) -> Result<T> {
        self.fetching(UCP_ATOMIC_OP_OR, offset, value)
    }

    /// Bitwise OR with `value`.
    pub fn or<T: AmoWord>(&self, offset: usize, value: T) -> Result<()> {
        self.atomic(UCP_ATOMIC_OP_OR, offset, value, None)
    }

    /// Bitwise XOR with `value`; returns the old value.
    pub fn fetch_xor<T: AmoWord>(&self, offset: usize, value: T) -> Result<T> {
        self.fetching(UCP_ATOMIC_OP_XOR, offset, value)
    }

    /// Bitwise XOR with `value`.
    pub fn xor<T: AmoWord>(&self, offset: usize, value: T) -> Result<()> {
        self.atomic(UCP_ATOMIC_OP_XOR, offset, value, None)
    }
}
