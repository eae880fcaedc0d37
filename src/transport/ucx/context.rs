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
// SAFETY: shared `&ContextHandle` only reaches the context-wide calls, which UCX serialises
// itself (`mt_workers_shared = 1`); the handle is never mutated after creation.
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

/// The OpenSHMEM route's departures from UCX's defaults, each unless the environment sets its
/// variable: [`FLUSH_BY_INTERFACES`], [`TCP_SEGMENTS`] and [`KEEPALIVE_BY_KERNEL`].
pub const ROUTE_DEFAULTS: &[RouteDefault] =
    &[FLUSH_BY_INTERFACES, TCP_SEGMENTS, KEEPALIVE_BY_KERNEL];

/// UCX's own keepalive of connections in peer-failure mode (the watches of
/// `worker::Worker::connect_to_pe`) is off where TCP is the only transport with that mode here
/// (no InfiniBand or RoCE transport: `rc`, `dc`, `ud`): the kernel's keepalive of the watch's
/// socket, which UCX turns on in that mode (`UCX_TCP_KEEPIDLE` 10 s, then probes 2 s apart), finds
/// a host that went silent.
///
/// Why: on TCP, UCX's keepalive writes to the watch's socket every 20 s (`UCX_KEEPALIVE_INTERVAL`).
/// Written after the peer's host went silent (power, kernel, a cut cable: nothing closes the
/// connection), the message waits unacknowledged, and the kernel then retransmits it for up to 15
/// minutes instead of sending keepalive probes (`ss -tno`: the watches' sockets went from
/// `timer:(keepalive,..)` to `timer:(on,..)` after the cut). With a host's link cut while the
/// others waited for it in a barrier, the job ended in 2 runs of 6 with UCX's keepalive, in every
/// run without it (docs/FAULTS.md, "Across hosts"). On InfiniBand UCX's keepalive is what checks
/// an idle connection, and is kept.
pub const KEEPALIVE_BY_KERNEL: RouteDefault = RouteDefault {
    key: "KEEPALIVE_INTERVAL",
    value: "inf",
    variable: "UCX_KEEPALIVE_INTERVAL",
};

/// The resource names of the transports other than TCP with peer-failure handling (InfiniBand,
/// RoCE), as [`Context::has_resource`] matches them.
const CHECKED_BY_UCX: [&str; 3] = ["rc", "dc", "ud"];

/// A UCX setting the route changes: `key` and `value` as `ucp_config_modify` takes them, and the
/// environment variable that sets the key (with a transport's prefix for a transport's key, which
/// `ucp_config_modify` takes without it).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RouteDefault {
    pub key: &'static str,
    pub value: &'static str,
    pub variable: &'static str,
}

/// How large a message UCX's TCP transport sends in one piece: 64 KiB (UCX's default is 8 KiB;
/// it receives pieces of up to 64 KiB either way).
///
/// Why: over TCP, UCX emulates a put or a get with active messages of at most this size, and the
/// target answers every piece of a put with a completion. In pieces of 8 KiB, a put of 1 MiB was
/// 128 messages and 128 answers, each a system call on either side, and took 630 us on TCP loopback
/// (OSHMEM, with UCX's defaults: 600); in pieces of 64 KiB, 16 of each and 210 us. A get of 1 MiB
/// went from 470 us to 190, the bandwidth of `put_nbi` windows of 1 MiB from 1.7 to 4.8 GB/s. What
/// it costs: a send buffer of 64 KiB where one of 8 was, per message in flight.
///
/// Set only where the context has a TCP interface: UCX warns about a transport's setting that no
/// interface of a worker takes. The key's name depends on the UCX version: see [`RENAMED`].
pub const TCP_SEGMENTS: RouteDefault = RouteDefault {
    key: "TX_SEG_SIZE",
    value: "64k",
    variable: "UCX_TCP_TX_SEG_SIZE",
};

/// Settings whose name `ucp_config_modify` takes differs between UCX versions: the name older
/// versions take, then the one newer versions take. UCX 1.13 (Debian 12) takes `TX_SEG_SIZE` for
/// the TCP transport (and warns at each worker that `TCP_TX_SEG_SIZE` is no setting of it); UCX
/// 1.22 (the pip-installed one) refuses `TX_SEG_SIZE` as an invalid parameter. The first name is
/// tried, then the second.
const RENAMED: &[(&str, &str)] = &[("TX_SEG_SIZE", "TCP_TX_SEG_SIZE")];

/// How a worker of the OpenSHMEM route flushes (`shmem_quiet`): through its interfaces, not one
/// endpoint after another (UCX's default).
///
/// Why: where UCX emulates puts and atomics with active messages (TCP), the target answers each
/// with a completion message, and a worker flush waits for those either way. Endpoint by endpoint,
/// the flush also has the TCP transport send every endpoint a zero-length put that the peer
/// acknowledges: a second round trip after the completions, which made a put and quiet cost 11.5
/// us on TCP loopback (OSHMEM's figure; it flushes that way) where the put's own round trip costs
/// 7. Through the interfaces, the
/// flush is done once every completion has arrived and no interface has anything queued, which is
/// every operation of the worker complete at its target. The price: such a flush also waits for
/// what other threads start on the worker meanwhile, so a stream of them could hold it back;
/// `network::Lane::quiet` then flushes the endpoints one by one, which completes in bounded time.
pub const FLUSH_BY_INTERFACES: RouteDefault = RouteDefault {
    key: "FLUSH_WORKER_EPS",
    value: "n",
    variable: "UCX_FLUSH_WORKER_EPS",
};

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

    /// A context configured by the `UCX_*` environment, then by [`ROUTE_DEFAULTS`] (each unless
    /// the environment sets its variable) and `settings`: pairs of a UCX variable name without its
    /// `UCX_` prefix and a value, e.g. `[("TLS", "tcp")]`.
    pub fn with_config(settings: &[(&str, &str)]) -> Result<Context> {
        let features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
        Context::with_defaults(features, ROUTE_DEFAULTS, settings)
    }

    /// A context of `features` configured by the `UCX_*` environment, then by those of
    /// `defaults` that the environment does not set and that apply to the transports found here,
    /// then by `settings`.
    fn with_defaults(
        features: ucp_feature,
        defaults: &[RouteDefault],
        settings: &[(&str, &str)],
    ) -> Result<Context> {
        let mut defaults: Vec<RouteDefault> = defaults
            .iter()
            .filter(|d| std::env::var_os(d.variable).is_none())
            .copied()
            .collect();
        let with = |defaults: &[RouteDefault]| -> Vec<(&str, &str)> {
            let route = defaults.iter().map(|d| (d.key, d.value));
            route.chain(settings.iter().copied()).collect()
        };
        let context = Context::with_features(features, &with(&defaults))?;
        let before = defaults.len();
        // No TCP here: a setting no interface takes makes UCX warn at every worker's creation.
        if defaults.contains(&TCP_SEGMENTS) && !context.has_resource("tcp/") {
            defaults.retain(|d| *d != TCP_SEGMENTS);
        }
        if defaults.contains(&KEEPALIVE_BY_KERNEL)
            && CHECKED_BY_UCX.iter().any(|t| context.has_resource(t))
        {
            defaults.retain(|d| *d != KEEPALIVE_BY_KERNEL);
        }
        if defaults.len() == before {
            return Ok(context);
        }
        drop(context);
        Context::with_features(features, &with(&defaults))
    }

    /// Whether the context has a transport resource whose name (`tcp/eth0`) starts with `prefix`,
    /// as `ucp_context_print_info` lists them (UCX has no query for them); false if the listing
    /// cannot be had.
    pub(super) fn has_resource(&self, prefix: &str) -> bool {
        let mut text: *mut libc::c_char = ptr::null_mut();
        let mut len = 0usize;
        // SAFETY: text and len are writable and live until fclose, which sets them.
        let stream = unsafe { libc::open_memstream(&mut text, &mut len) };
        if stream.is_null() {
            return false;
        }
        // SAFETY: the context is live; the stream is open (a libc FILE, what UCX's FILE is).
        unsafe { ucp_context_print_info(self.handle.0, stream.cast()) };
        // SAFETY: the stream is closed once; it leaves `len` bytes at `text`, freed below.
        unsafe { libc::fclose(stream) };
        if text.is_null() {
            return false;
        }
        // SAFETY: open_memstream left `len` readable bytes at `text`.
        let listing = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
        let found = String::from_utf8_lossy(listing).lines().any(|line| {
            line.split("-- ")
                .nth(1)
                .is_some_and(|r| r.starts_with(prefix))
        });
        // SAFETY: the buffer came from open_memstream and is freed once.
        unsafe { libc::free(text.cast()) };
        found
    }

    /// A context for tagged messages only (`super::signals`), configured by the `UCX_*`
    /// environment, then by [`KEEPALIVE_BY_KERNEL`] (its endpoints have watches too) and
    /// `settings`.
    pub fn for_messages(settings: &[(&str, &str)]) -> Result<Context> {
        Context::with_defaults(UCP_FEATURE_TAG, &[KEEPALIVE_BY_KERNEL], settings)
    }

    fn with_features(features: ucp_feature, settings: &[(&str, &str)]) -> Result<Context> {
        // The first context of the process loads UCX. The route's entry points (the segment
        // allocation, `connect`) try first, and `connect` stops the job with the full message
        // when there is none; this covers any other first use (the unit tests).
        if let Err(why) = super::library::load() {
            tracing::warn!(target: "rshmem::ucx", "{why}");
            return Err(Error {
                call: "loading UCX (libucp)",
                status: UCS_ERR_UNSUPPORTED,
            });
        }
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
            let value = CString::new(*value).map_err(|_| invalid)?;
            let newer = RENAMED
                .iter()
                .find(|(old, _)| old == name)
                .map(|(_, new)| *new);
            let mut status = UCS_ERR_INVALID_PARAM;
            for name in std::iter::once(*name).chain(newer) {
                let name = CString::new(name).map_err(|_| invalid)?;
                // SAFETY: config is live; name and value are NUL-terminated and outlive the call.
                status = unsafe { ucp_config_modify(config.0, name.as_ptr(), value.as_ptr()) };
                if status == UCS_OK {
                    break;
                }
            }
            check("ucp_config_modify", status)?;
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
// SAFETY: `&MemHandle` only passes `memh` to context-wide calls serialised by UCX
// (`mt_workers_shared`); nothing mutates the handle after creation.
unsafe impl Sync for MemHandle {}

// SAFETY: the handle is Send and Sync (above); the range itself is shared memory by the contract
// of `map` and `allocate_at`.
unsafe impl Send for MemoryRegion {}
// SAFETY: `&MemoryRegion` exposes only the immutable `base`, `len` and the Sync `MemHandle`;
// no method mutates the region object, and the range is shared memory (`map`'s contract).
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
