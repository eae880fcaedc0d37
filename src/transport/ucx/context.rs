//! The UCP context (one per process) and the memory regions registered with it.
//!
//! Invariants: the context is released (`ucp_cleanup`) only after every worker and memory region
//! made from it, which hold an `Arc` of it; a [`MemoryRegion`] is unmapped when its last clone is
//! dropped, and its range was promised valid by the caller of [`MemoryRegion::map`] or allocated by
//! UCX at the address the caller of [`MemoryRegion::allocate_at`] handed over.

use super::{Error, Result, check};
use std::ffi::CString;
use std::ptr;
use std::sync::Arc;
use ucx_sys::*;

/// The owner of a `ucp_context_h`.
pub(super) struct ContextHandle(pub(super) ucp_context_h);

// SAFETY: the context is created with `mt_workers_shared = 1`, which makes UCX serialise the
// context-wide calls (mem_map, rkey_pack, worker creation) made from several threads.
unsafe impl Send for ContextHandle {}
// SAFETY: as above.
unsafe impl Sync for ContextHandle {}

impl Drop for ContextHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from ucp_init; every object made from it held an Arc of this
        // handle and is gone, so nothing uses the context any more.
        unsafe { ucp_cleanup(self.0) }
    }
}

/// A UCP context: the one of the OpenSHMEM route (RMA, 32- and 64-bit atomics, and wake-up: event
/// file descriptors for the progress thread), or one for tagged messages ([`Context::for_messages`]).
#[derive(Clone)]
pub struct Context {
    pub(super) handle: Arc<ContextHandle>,
}

/// How a worker of the OpenSHMEM route flushes (`shmem_quiet`): through its interfaces, not one
/// endpoint after another (UCX's default), unless `UCX_FLUSH_WORKER_EPS` says otherwise.
///
/// Why: where UCX emulates puts and atomics with active messages (TCP), the target answers each
/// with a completion message, and a worker flush waits for those either way. Endpoint by endpoint,
/// the flush also has the TCP transport send every endpoint a zero-length put that the peer
/// acknowledges: a second round trip after the completions, which made a put and quiet cost
/// 24-27 us on TCP loopback where the put's own round trip costs 11. Through the interfaces, the
/// flush is done once every completion has arrived and no interface has anything queued, which is
/// every operation of the worker complete at its target. The price: such a flush also waits for
/// what other threads start on the worker meanwhile, so a stream of them could hold it back;
/// `network::Lane::quiet` then flushes the endpoints one by one, which completes in bounded time.
pub const FLUSH_BY_INTERFACES: (&str, &str) = ("FLUSH_WORKER_EPS", "n");

/// The `ucp_config_t` read from the environment, released when dropped.
struct Config(*mut ucp_config_t);

impl Drop for Config {
    fn drop(&mut self) {
        // SAFETY: the pointer came from ucp_config_read and is released once, here.
        unsafe { ucp_config_release(self.0) }
    }
}

impl Context {
    /// A context configured by the `UCX_*` environment variables.
    pub fn new() -> Result<Context> {
        Context::with_config(&[])
    }

    /// A context configured by the `UCX_*` environment, then by [`FLUSH_BY_INTERFACES`] (unless
    /// the environment sets that variable) and `settings`: pairs of a UCX variable name without
    /// its `UCX_` prefix and a value, e.g. `[("TLS", "tcp")]`.
    pub fn with_config(settings: &[(&str, &str)]) -> Result<Context> {
        let features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
        let mut all = Vec::with_capacity(settings.len() + 1);
        if std::env::var_os(format!("UCX_{}", FLUSH_BY_INTERFACES.0)).is_none() {
            all.push(FLUSH_BY_INTERFACES);
        }
        all.extend_from_slice(settings);
        Context::with_features(features, &all)
    }

    /// A context for tagged messages only (`super::signals`), configured by the `UCX_*`
    /// environment and then by `settings`.
    pub fn for_messages(settings: &[(&str, &str)]) -> Result<Context> {
        Context::with_features(UCP_FEATURE_TAG, settings)
    }

    fn with_features(features: ucp_feature, settings: &[(&str, &str)]) -> Result<Context> {
        let mut raw = ptr::null_mut();
        // SAFETY: NULL prefix and file select the default `UCX_` environment; `raw` is writable.
        check("ucp_config_read", unsafe {
            ucp_config_read(ptr::null(), ptr::null(), &mut raw)
        })?;
        let config = Config(raw);
        for (name, value) in settings {
            let invalid = Error {
                call: "ucp_config_modify (NUL in a setting)",
                status: UCS_ERR_INVALID_PARAM,
            };
            let name = CString::new(*name).map_err(|_| invalid)?;
            let value = CString::new(*value).map_err(|_| invalid)?;
            // SAFETY: config is live; name and value are NUL-terminated and outlive the call.
            check("ucp_config_modify", unsafe {
                ucp_config_modify(config.0, name.as_ptr(), value.as_ptr())
            })?;
        }
        let params = ucp_params_t {
            field_mask: (UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED) as u64,
            features: features as u64,
            mt_workers_shared: 1,
            ..Default::default()
        };
        let mut context = ptr::null_mut();
        // SAFETY: params and config are valid for the call; context is writable.
        check("ucp_init", unsafe {
            ucp_init(&params, config.0, &mut context)
        })?;
        Ok(Context {
            handle: Arc::new(ContextHandle(context)),
        })
    }
}

/// An address range registered with the context, which peers reach through its packed remote key:
/// existing memory ([`MemoryRegion::map`]) or memory UCX allocated for it
/// ([`MemoryRegion::allocate_at`]). Clones share one registration, released with the last.
#[derive(Clone)]
pub struct MemoryRegion {
    handle: Arc<MemHandle>,
    base: *mut u8,
    len: usize,
}

/// The owner of a `ucp_mem_h`: unmapped (and, for allocated memory, freed) when dropped.
struct MemHandle {
    memh: ucp_mem_h,
    context: Arc<ContextHandle>,
}

// SAFETY: the memory handle is only passed to context-wide calls, which the context serialises
// (`mt_workers_shared`).
unsafe impl Send for MemHandle {}
// SAFETY: as above; nothing mutates the handle.
unsafe impl Sync for MemHandle {}

// SAFETY: the handle is Send and Sync (above); the range itself is shared memory by the contract
// of `map` and `allocate_at`.
unsafe impl Send for MemoryRegion {}
// SAFETY: as above; no method mutates the region object.
unsafe impl Sync for MemoryRegion {}

impl MemoryRegion {
    /// Registers `base..base+len` with the context.
    ///
    /// # Safety
    /// The range must be mapped, readable and writable, and stay so for as long as any peer may
    /// access it through a key packed from this region (past the region's own life: a peer's
    /// software-emulated access does not check the registration). Peers write it at any time, so
    /// locally it must be accessed as shared memory (raw pointers, atomics), never through a Rust
    /// reference that assumes no one else writes.
    pub unsafe fn map(context: &Context, base: *mut u8, len: usize) -> Result<MemoryRegion> {
        let params = ucp_mem_map_params_t {
            field_mask: (UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH) as u64,
            address: base.cast(),
            length: len,
            ..Default::default()
        };
        // SAFETY: params describe memory the caller guarantees.
        unsafe { MemoryRegion::mem_map(context, &params, base, len) }
    }

    /// Memory UCX allocates for the region, at exactly `base..base+len` (`ucp_mem_map` with
    /// `UCP_MEM_MAP_ALLOCATE | UCP_MEM_MAP_FIXED`; pages are not populated up front), which the
    /// allocation maps over whatever is there. What allocates is the first of the context's
    /// allocation methods (its `ALLOC_PRIO`) that succeeds: with a shared-memory memory domain
    /// (sysv, posix) that domain's transports reach the region from this node's other processes
    /// with loads, stores and CPU atomics. An allocation UCX placed elsewhere is released and an
    /// error. The memory is released with the region, leaving the range unmapped.
    ///
    /// # Safety
    /// `base..base+len` must be address space of this process that nothing else uses (a
    /// reservation made for it), `base` and `len` page aligned; while the region lives the
    /// contract of [`MemoryRegion::map`] holds for it (peers write it at any time).
    pub unsafe fn allocate_at(
        context: &Context,
        base: *mut u8,
        len: usize,
    ) -> Result<MemoryRegion> {
        let params = ucp_mem_map_params_t {
            field_mask: (UCP_MEM_MAP_PARAM_FIELD_ADDRESS
                | UCP_MEM_MAP_PARAM_FIELD_LENGTH
                | UCP_MEM_MAP_PARAM_FIELD_FLAGS) as u64,
            address: base.cast(),
            length: len,
            flags: UCP_MEM_MAP_ALLOCATE | UCP_MEM_MAP_FIXED | UCP_MEM_MAP_NONBLOCK,
            ..Default::default()
        };
        // SAFETY: the caller hands over the range for the allocation to replace.
        let region = unsafe { MemoryRegion::mem_map(context, &params, base, len) }?;
        let mut attr = ucp_mem_attr_t {
            field_mask: (UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH) as u64,
            ..Default::default()
        };
        // SAFETY: the handle is live (the region holds it); attr is writable.
        check("ucp_mem_query", unsafe {
            ucp_mem_query(region.handle.memh, &mut attr)
        })?;
        if attr.address.cast::<u8>() != base || attr.length < len {
            return Err(Error {
                call: "ucp_mem_map (UCP_MEM_MAP_FIXED: the memory was placed elsewhere)",
                status: UCS_ERR_NO_MEMORY,
            });
        }
        Ok(region)
    }

    /// `ucp_mem_map` with `params`, the region `base..base+len`.
    ///
    /// # Safety
    /// `params` describe memory the caller may register (or hand over for allocation).
    unsafe fn mem_map(
        context: &Context,
        params: &ucp_mem_map_params_t,
        base: *mut u8,
        len: usize,
    ) -> Result<MemoryRegion> {
        let mut memh = ptr::null_mut();
        // SAFETY: the context is live (we hold its Arc), params are the caller's, memh is
        // writable.
        check("ucp_mem_map", unsafe {
            ucp_mem_map(context.handle.0, params, &mut memh)
        })?;
        Ok(MemoryRegion {
            handle: Arc::new(MemHandle {
                memh,
                context: context.handle.clone(),
            }),
            base,
            len,
        })
    }

    /// The first address of the range.
    pub fn base(&self) -> *mut u8 {
        self.base
    }

    /// The length of the range in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The context the region is registered with.
    pub fn context(&self) -> Context {
        Context {
            handle: self.handle.context.clone(),
        }
    }

    /// The remote key of the region, packed into bytes for a peer's [`super::Endpoint::unpack_rkey`].
    pub fn pack_rkey(&self) -> Result<Vec<u8>> {
        let mut buffer = ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: context and memh are live; buffer and size are writable.
        check("ucp_rkey_pack", unsafe {
            ucp_rkey_pack(
                self.handle.context.0,
                self.handle.memh,
                &mut buffer,
                &mut size,
            )
        })?;
        // SAFETY: ucp_rkey_pack returned `size` readable bytes at `buffer`.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.cast::<u8>(), size) }.to_vec();
        // SAFETY: the buffer came from ucp_rkey_pack and is released once, after the copy.
        unsafe { ucp_rkey_buffer_release(buffer) };
        Ok(bytes)
    }
}

impl Drop for MemHandle {
    fn drop(&mut self) {
        // SAFETY: memh came from ucp_mem_map on this context, which is still live (our Arc); it
        // is unmapped once. A failure cannot be reported from drop and leaves only a registration.
        unsafe {
            ucp_mem_unmap(self.context.0, self.memh);
        }
    }
}
