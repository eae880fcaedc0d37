//! Tests against the real UCX of the machine (no mocks): two workers of one process, with TCP over
//! loopback and with shared memory, and two processes over TCP loopback. The target's worker is
//! progressed by a [`ProgressThread`], as a PE's is while it computes.

use super::*;
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};
use std::time::{Duration, Instant};
use ucx_sys::{UCS_ERR_INVALID_PARAM, UCS_ERR_OUT_OF_RANGE};

/// UCX settings for TCP over the loopback device only.
const TCP: &[(&str, &str)] = &[("TLS", "tcp"), ("NET_DEVICES", "lo")];
/// UCX settings for shared memory (and the self loopback).
const SHARED_MEMORY: &[(&str, &str)] = &[("TLS", "sm,self")];

const LEN: usize = 1 << 16;
const DATA: usize = 256;
const DATA_LEN: usize = 3000;
const WORD64: usize = 8192;
const WORD32: usize = 8200;
const WORD64_2: usize = 8208;
const WORD64_3: usize = 8216;

/// Page-aligned zeroed memory that peers write: accessed only through raw pointers and atomics.
struct SharedBuffer {
    ptr: *mut u8,
    layout: Layout,
    /// Whether the buffer is this allocation's (false: a view of memory someone else releases).
    owned: bool,
}

impl SharedBuffer {
    fn new(len: usize) -> SharedBuffer {
        let layout = Layout::from_size_align(len, 4096).unwrap();
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null());
        SharedBuffer {
            ptr,
            layout,
            owned: true,
        }
    }

    /// A view of `len` bytes at `ptr` (page aligned, zeroed) that the caller keeps mapped.
    fn view(ptr: *mut u8, len: usize) -> SharedBuffer {
        SharedBuffer {
            ptr,
            layout: Layout::from_size_align(len, 4096).unwrap(),
            owned: false,
        }
    }

    fn bytes(&self, offset: usize, len: usize) -> Vec<u8> {
        assert!(offset + len <= self.layout.size());
        fence(Ordering::SeqCst);
        // SAFETY: inside the allocation; volatile because peers write the memory.
        (0..len)
            .map(|i| unsafe { self.ptr.add(offset + i).read_volatile() })
            .collect()
    }

    fn u64_at(&self, offset: usize) -> u64 {
        assert!(offset.is_multiple_of(8) && offset + 8 <= self.layout.size());
        // SAFETY: aligned and inside the allocation; an atomic load since peers update the word.
        unsafe { AtomicU64::from_ptr(self.ptr.add(offset).cast()) }.load(Ordering::SeqCst)
    }

    fn u32_at(&self, offset: usize) -> u32 {
        assert!(offset.is_multiple_of(4) && offset + 4 <= self.layout.size());
        // SAFETY: 4-aligned and inside the allocation (asserted); an atomic load since peers
        // update the word.
        unsafe { AtomicU32::from_ptr(self.ptr.add(offset).cast()) }.load(Ordering::SeqCst)
    }

    /// Registers the buffer. The buffer outlives the region in every test below.
    fn map(&self, context: &Context) -> MemoryRegion {
        // SAFETY: the allocation is valid until drop, after every peer's last access; it is only
        // read through volatile loads and atomics.
        unsafe { MemoryRegion::map(context, self.ptr, self.layout.size()) }.unwrap()
    }
}

impl Drop for SharedBuffer {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: allocated with this layout in new.
            unsafe { dealloc(self.ptr, self.layout) }
        }
    }
}

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// Mean time of `f` over `n` calls, in microseconds.
fn mean_us(n: u32, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

/// put, get, non-blocking puts and gets, and every atomic, from `rkey`'s endpoint into `target`'s
/// memory (`target` is the local view of the region `rkey` reaches); `flush` is the initiator's
/// quiet. Checks every value exactly.
fn exercise(rkey: &RemoteKey, endpoint: &Endpoint, initiator: &Worker, target: &SharedBuffer) {
    // Blocking put, then the data is at the target after a flush.
    let data = pattern(7, DATA_LEN);
    rkey.put(DATA, &data).unwrap();
    endpoint.flush().unwrap();
    assert_eq!(target.bytes(DATA, DATA_LEN), data);
    assert_eq!(target.bytes(DATA - 8, 8), [0; 8], "no byte before the put");
    assert_eq!(
        target.bytes(DATA + DATA_LEN, 8),
        [0; 8],
        "no byte after the put"
    );

    // Blocking get of what was put, and of an unaligned piece of it.
    let mut back = vec![0u8; DATA_LEN];
    rkey.get(DATA, &mut back).unwrap();
    assert_eq!(back, data);
    let mut piece = [0u8; 13];
    rkey.get(DATA + 101, &mut piece).unwrap();
    assert_eq!(piece, data[101..114]);

    // Non-blocking puts completed by the worker flush; non-blocking gets waited one by one.
    let chunks: Vec<Vec<u8>> = (0..8).map(|i| pattern(100 + i, 100)).collect();
    let requests: Vec<Request> = chunks
        .iter()
        .enumerate()
        // SAFETY: `chunks` outlives the flush below, which completes every put.
        .map(|(i, c)| unsafe { rkey.put_nbi(DATA + i * 100, c.as_ptr(), c.len()) }.unwrap())
        .collect();
    drop(requests);
    initiator.flush().unwrap();
    assert_eq!(target.bytes(DATA, 800), chunks.concat());
    let mut gets = vec![[0u8; 100]; 8];
    for (i, g) in gets.iter_mut().enumerate() {
        // SAFETY: `g` is not used until the request is waited, just below.
        let request = unsafe { rkey.get_nbi(DATA + i * 100, g.as_mut_ptr(), 100) }.unwrap();
        request.wait().unwrap();
    }
    assert_eq!(gets.concat(), chunks.concat());

    // 64-bit atomics, checked through the returned old values and the target's memory.
    rkey.set(WORD64, 10u64).unwrap();
    assert_eq!(rkey.fetch::<u64>(WORD64).unwrap(), 10);
    assert_eq!(rkey.fetch_add(WORD64, 5u64).unwrap(), 10);
    rkey.add(WORD64, 7u64).unwrap();
    assert_eq!(rkey.fetch::<u64>(WORD64).unwrap(), 22);
    assert_eq!(rkey.swap(WORD64, 100u64).unwrap(), 22);
    assert_eq!(rkey.compare_swap(WORD64, 99u64, 1).unwrap(), 100, "no swap");
    assert_eq!(rkey.compare_swap(WORD64, 100u64, 1).unwrap(), 100, "swap");
    assert_eq!(rkey.fetch_or(WORD64, 0b110u64).unwrap(), 1);
    assert_eq!(rkey.fetch_and(WORD64, 0b101u64).unwrap(), 0b111);
    assert_eq!(rkey.fetch_xor(WORD64, 0xffu64).unwrap(), 0b101);
    rkey.or(WORD64, 1u64 << 40).unwrap();
    rkey.and(WORD64, !0xfu64).unwrap();
    rkey.xor(WORD64, 0x3u64 << 62).unwrap();
    endpoint.flush().unwrap();
    let expected = ((0xfa | (1u64 << 40)) & !0xf) ^ (0x3 << 62);
    assert_eq!(target.u64_at(WORD64), expected);
    assert_eq!(rkey.fetch::<u64>(WORD64).unwrap(), expected);
    assert_eq!(rkey.fetch_add(WORD64, u64::MAX).unwrap(), expected, "wraps");
    assert_eq!(target.u64_at(WORD64), expected - 1);

    // 32-bit atomics touch four bytes only: the word after stays as set.
    rkey.set(WORD32 + 4, 0xdead_beefu32).unwrap();
    rkey.set(WORD32, 0xffff_fffeu32).unwrap();
    assert_eq!(rkey.fetch_add(WORD32, 3u32).unwrap(), 0xffff_fffe);
    assert_eq!(rkey.fetch::<u32>(WORD32).unwrap(), 1, "wraps at 32 bits");
    assert_eq!(rkey.swap(WORD32, 40u32).unwrap(), 1);
    assert_eq!(rkey.compare_swap(WORD32, 41u32, 0).unwrap(), 40, "no swap");
    assert_eq!(rkey.compare_swap(WORD32, 40u32, 42).unwrap(), 40, "swap");
    assert_eq!(rkey.fetch_and(WORD32, 0x0fu32).unwrap(), 42);
    assert_eq!(rkey.fetch_or(WORD32, 0x30u32).unwrap(), 0x0a);
    assert_eq!(rkey.fetch_xor(WORD32, 0xffu32).unwrap(), 0x3a);
    rkey.add(WORD32, 0x100u32).unwrap();
    rkey.and(WORD32, 0xfffu32).unwrap();
    rkey.or(WORD32, 0x1000u32).unwrap();
    rkey.xor(WORD32, 1u32).unwrap();
    endpoint.flush().unwrap();
    assert_eq!(target.u32_at(WORD32), ((0xc5 + 0x100) & 0xfff | 0x1000) ^ 1);
    assert_eq!(target.u32_at(WORD32 + 4), 0xdead_beef);

    // The range and alignment checks of this layer.
    let out = rkey.put(LEN - 4, &[0; 8]).unwrap_err();
    assert_eq!(out.status, UCS_ERR_OUT_OF_RANGE);
    assert_eq!(
        rkey.get(usize::MAX, &mut [0; 1]).unwrap_err().status,
        UCS_ERR_OUT_OF_RANGE
    );
    let misaligned = rkey.fetch_add(WORD64 + 4, 1u64).unwrap_err();
    assert_eq!(misaligned.status, UCS_ERR_INVALID_PARAM);
    assert!(misaligned.to_string().starts_with("ucp_atomic_op_nbx: "));
}

/// Round-trip times: a put of 8 bytes and a flush, a get of 8 bytes, a fetch_add.
fn report_round_trips(label: &str, rkey: &RemoteKey, endpoint: &Endpoint) {
    let n = 500;
    let put = mean_us(n, || {
        rkey.put(DATA, &[1; 8]).unwrap();
        endpoint.flush().unwrap();
    });
    let get = mean_us(n, || rkey.get(DATA, &mut [0; 8]).unwrap());
    let fadd = mean_us(n, || {
        rkey.fetch_add(WORD64, 1u64).unwrap();
    });
    eprintln!("UCX {label}: put+flush {put:.1} us, get {get:.1} us, fetch_add {fadd:.1} us");
}

/// Two workers of one context: the initiator progressed by the calling thread, the target by an
/// event-driven progress thread.
fn two_workers(settings: &[(&str, &str)], label: &str) {
    let context = Context::with_config(settings).unwrap();
    let initiator = Worker::new(&context).unwrap();
    let target = Worker::new(&context).unwrap();
    let progress = ProgressThread::spawn(&target).unwrap();

    let memory = SharedBuffer::new(LEN);
    let region = memory.map(&context);
    assert_eq!((region.base(), region.len()), (memory.ptr, LEN));
    let packed = region.pack_rkey().unwrap();
    let address = target.address().unwrap();
    // SAFETY: the address and the packed key come from UCX just above.
    let endpoint = unsafe { initiator.connect(&address) }.unwrap();
    // SAFETY: `packed` is `region.pack_rkey()` of this context just above, and
    // `memory.ptr..+LEN` is exactly `region`'s range (asserted above).
    let rkey = unsafe { endpoint.unpack_rkey(&packed, memory.ptr as u64, LEN) }.unwrap();

    exercise(&rkey, &endpoint, &initiator, &memory);

    // Two threads on the initiator's worker at once: every fetch_add sees a distinct old value.
    rkey.set(WORD64, 0u64).unwrap();
    let olds: Vec<u64> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    (0..300)
                        .map(|_| rkey.fetch_add(WORD64, 1u64).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect()
    });
    let mut sorted = olds.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..600).collect::<Vec<u64>>());
    assert_eq!(memory.u64_at(WORD64), 600);

    report_round_trips(label, &rkey, &endpoint);

    // Teardown while the target still progresses: key, endpoint (a flushing close), region.
    drop(rkey);
    drop(endpoint);
    drop(region);
    progress.stop().unwrap();
}

#[test]
fn two_workers_over_tcp() {
    two_workers(TCP, "tcp loopback, two workers of one process");
}

#[test]
fn two_workers_over_shared_memory() {
    two_workers(SHARED_MEMORY, "sm,self, two workers of one process");
}

#[test]
fn progress_thread_stops_when_idle() {
    let context = Context::with_config(SHARED_MEMORY).unwrap();
    let worker = Worker::new(&context).unwrap();
    let progress = ProgressThread::spawn(&worker).unwrap();
    // Give the thread time to go to sleep in poll: stop must still wake it.
    std::thread::sleep(std::time::Duration::from_millis(50));
    progress.stop().unwrap();
    assert!(!worker.address().unwrap().is_empty());
}

#[test]
fn bad_settings_are_errors() {
    // (A value UCX cannot parse is refused too, but UCX logs an ERROR line for it: not tried here.)
    let error = Context::with_config(&[("TLS\0", "tcp")])
        .err()
        .expect("a setting with a NUL is refused");
    assert_eq!(error.status, UCS_ERR_INVALID_PARAM);
    assert_eq!(
        error.to_string(),
        "ucp_config_modify (NUL in a setting): Invalid parameter"
    );
}

#[test]
fn contexts_know_their_transports() {
    // The TCP setting of the route (context::TCP_SEGMENTS) goes only where a TCP interface is.
    assert!(Context::with_config(TCP).unwrap().has_resource("tcp/"));
    let shared = Context::with_config(SHARED_MEMORY).unwrap();
    assert!(!shared.has_resource("tcp/"));
    assert!(shared.has_resource("self/"));
}

/// `len` bytes of address space (`PROT_NONE`), as the runtime reserves the heap's.
fn reserve(len: usize) -> *mut u8 {
    // SAFETY: reserving fresh address space, touching nothing that exists.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    p.cast()
}

/// Memory UCX allocated at a fixed address (the heap's under `SHMEM_TRANSPORT=ucx`) is reached
/// by a peer's shared-memory transports directly: the peer's key maps it (`ucp_rkey_ptr`), and
/// puts, gets and atomics land while the target's worker is not progressed at all. Memory the
/// library mapped itself and registered (what the heap was before) is not: the control.
#[test]
fn allocated_memory_is_reached_directly_over_shared_memory() {
    let owner = Context::with_config(&[SHARED_MEMORY[0], network::ALLOC_PRIO]).unwrap();
    let target = Worker::new(&owner).unwrap();
    let progress = ProgressThread::spawn(&target).unwrap();
    let at = reserve(LEN);
    // SAFETY: `at..at+LEN` is the reservation just made; the memory is read below only through
    // volatile loads and atomics, and dropped after the peer's last access.
    let region = unsafe { MemoryRegion::allocate_at(&owner, at, LEN) }.unwrap();
    assert_eq!((region.base(), region.len()), (at, LEN));
    let registered = SharedBuffer::new(LEN);
    let control = registered.map(&owner);

    // The peer: a context of its own, as another process would have.
    let peer = Context::with_config(SHARED_MEMORY).unwrap();
    let initiator = Worker::new(&peer).unwrap();
    let address = target.address().unwrap();
    // SAFETY: the address and the packed keys come from UCX just above; the ranges are theirs.
    let endpoint = unsafe { initiator.connect(&address) }.unwrap();
    // SAFETY: `region.pack_rkey()` is UCX's packed key of `region`, whose range is `at..at+LEN`
    // (asserted above).
    let rkey =
        unsafe { endpoint.unpack_rkey(&region.pack_rkey().unwrap(), at as u64, LEN) }.unwrap();
    // SAFETY: `control.pack_rkey()` is UCX's packed key of `control`, which maps
    // `registered.ptr..+LEN`, the range given.
    let control_key =
        unsafe { endpoint.unpack_rkey(&control.pack_rkey().unwrap(), registered.ptr as u64, LEN) }
            .unwrap();
    endpoint.flush().unwrap();
    assert!(
        control_key.local_ptr(0).is_none(),
        "registered memory is not mapped by the peer's key"
    );
    let mapped = rkey
        .local_ptr(WORD64)
        .expect("the peer's key maps the memory UCX allocated");

    // Nobody progresses the target from here on.
    progress.stop().unwrap();
    let word = |offset: usize| {
        // SAFETY: aligned and inside the allocation; an atomic load since the peer updates it.
        unsafe { AtomicU64::from_ptr(at.add(offset).cast()) }.load(Ordering::SeqCst)
    };
    // SAFETY: `mapped` is the peer's view of the region's word at WORD64, aligned.
    unsafe { AtomicU64::from_ptr(mapped.cast()) }.store(41, Ordering::SeqCst);
    assert_eq!(word(WORD64), 41, "a store through the peer's mapping lands");
    assert_eq!(rkey.fetch_add(WORD64, 1u64).unwrap(), 41);
    let data = pattern(3, DATA_LEN);
    rkey.put(DATA, &data).unwrap();
    endpoint.flush().unwrap();
    let mut back = vec![0u8; DATA_LEN];
    rkey.get(DATA, &mut back).unwrap();
    assert_eq!(back, data);
    assert_eq!(word(WORD64), 42);
    // Every operation and atomic of this layer, values checked exactly (the fetching and, or and
    // xor as CPU atomics on the peer's mapping).
    rkey.put(DATA, &vec![0; DATA_LEN]).unwrap();
    rkey.set(WORD64, 0u64).unwrap();
    endpoint.flush().unwrap();
    exercise(&rkey, &endpoint, &initiator, &SharedBuffer::view(at, LEN));
    report_round_trips(
        "sm,self, memory UCX allocated, target not progressed",
        &rkey,
        &endpoint,
    );

    // Teardown with the target progressed again (the endpoint's close tells it).
    let progress = ProgressThread::spawn(&target).unwrap();
    drop((rkey, control_key));
    drop(endpoint);
    drop((region, control));
    progress.stop().unwrap();
}

/// Without a shared-memory memory domain (TCP only) UCX does not allocate at a fixed address: the
/// runtime then maps the heap itself, as before.
#[test]
fn no_fixed_allocation_over_tcp_only() {
    let context = Context::with_config(&[TCP[0], TCP[1], network::ALLOC_PRIO]).unwrap();
    let at = reserve(LEN);
    // SAFETY: `at..at+LEN` is the reservation just made.
    let refused = unsafe { MemoryRegion::allocate_at(&context, at, LEN) };
    assert!(
        refused.is_err(),
        "UCX allocated without a shared-memory domain"
    );
    // SAFETY: the reservation, untouched by the refused allocation.
    unsafe { libc::munmap(at.cast(), LEN) };
}

// ---- Two processes over TCP loopback -----------------------------------------------------------

/// Set in the child: the fd of its end of the socket pair.
const CHILD_FD: &str = "RSHMEM_UCX_TEST_CHILD_FD";
/// The fd number the socket is given in the child.
const CHILD_SOCKET: i32 = 3;

fn send(socket: &mut UnixStream, bytes: &[u8]) {
    socket
        .write_all(&(bytes.len() as u32).to_le_bytes())
        .unwrap();
    socket.write_all(bytes).unwrap();
}

fn receive(socket: &mut UnixStream) -> Vec<u8> {
    let mut len = [0u8; 4];
    socket.read_exact(&mut len).unwrap();
    let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
    socket.read_exact(&mut bytes).unwrap();
    bytes
}

/// What one process tells the other: its worker address, its region's base, length and key.
struct Card {
    address: Vec<u8>,
    base: u64,
    len: usize,
    rkey: Vec<u8>,
}

fn exchange(socket: &mut UnixStream, mine: &Card) -> Card {
    send(socket, &mine.address);
    send(socket, &mine.base.to_le_bytes());
    send(socket, &(mine.len as u64).to_le_bytes());
    send(socket, &mine.rkey);
    let address = receive(socket);
    let base = u64::from_le_bytes(receive(socket).try_into().unwrap());
    let len = u64::from_le_bytes(receive(socket).try_into().unwrap()) as usize;
    let rkey = receive(socket);
    Card {
        address,
        base,
        len,
        rkey,
    }
}

/// One process's side: both sides serve the other through a progress thread; the parent drives
/// the whole exercise against the child's memory, then the child puts and adds into the parent's.
fn process_side(mut socket: UnixStream, parent: bool) {
    let context = Context::with_config(TCP).unwrap();
    let worker = Worker::new(&context).unwrap();
    let progress = ProgressThread::spawn(&worker).unwrap();
    let memory = SharedBuffer::new(LEN);
    let region = memory.map(&context);
    let mine = Card {
        address: worker.address().unwrap(),
        base: memory.ptr as u64,
        len: LEN,
        rkey: region.pack_rkey().unwrap(),
    };
    let peer = exchange(&mut socket, &mine);
    // SAFETY: the address and key were produced by the peer's UCX and sent unchanged.
    let endpoint = unsafe { worker.connect(&peer.address) }.unwrap();
    // SAFETY: `peer.rkey` is the peer's `pack_rkey` of its region `peer.base..+peer.len`, sent
    // unchanged through `exchange` with that base and length.
    let rkey = unsafe { endpoint.unpack_rkey(&peer.rkey, peer.base, peer.len) }.unwrap();

    let theirs = pattern(if parent { 11 } else { 22 }, DATA_LEN);
    let ours = pattern(if parent { 22 } else { 11 }, DATA_LEN);
    if parent {
        // The exercise sees the child's memory only through gets and fetches.
        let mut view = vec![0u8; DATA_LEN];
        rkey.put(DATA, &theirs).unwrap();
        endpoint.flush().unwrap();
        rkey.get(DATA, &mut view).unwrap();
        assert_eq!(view, theirs);
        for i in 0..100u64 {
            assert_eq!(rkey.fetch_add(WORD64, 3u64).unwrap(), 3 * i);
        }
        report_round_trips("tcp loopback, two processes", &rkey, &endpoint);
        rkey.put(DATA, &theirs).unwrap();
        rkey.set(WORD64, 300u64).unwrap();
        rkey.set(WORD32, 7u32).unwrap();
        // A worker flush through the interfaces (FLUSH_BY_INTERFACES): the child checks that the
        // put and the atomics have landed.
        let late = worker
            .flush_within(Duration::from_secs(60), false, std::iter::once(&endpoint))
            .unwrap();
        assert!(late.is_none(), "the worker flush completed in time");
        send(&mut socket, b"your turn");
        assert_eq!(receive(&mut socket), b"done");
    } else {
        assert_eq!(receive(&mut socket), b"your turn");
        // The parent's data and atomics arrived here.
        assert_eq!(memory.bytes(DATA, DATA_LEN), ours);
        assert_eq!(memory.u64_at(WORD64), 300);
        assert_eq!(memory.u32_at(WORD32), 7);
        rkey.put(DATA, &theirs).unwrap();
        assert_eq!(rkey.fetch_add(WORD64, 5u64).unwrap(), 0);
        assert_eq!(rkey.compare_swap(WORD32, 0u32, 9).unwrap(), 0);
        rkey.set(WORD64_2, 4u64).unwrap();
        // No patience: the worker flush gives way to the endpoints' at once, and is handed back
        // still in flight (or done); a stalled one is not started again.
        let late = worker
            .flush_within(Duration::ZERO, false, std::iter::once(&endpoint))
            .unwrap();
        rkey.set(WORD64_3, 6u64).unwrap();
        worker
            .flush_within(Duration::ZERO, late.is_some(), std::iter::once(&endpoint))
            .unwrap();
        drop(late);
        send(&mut socket, b"done");
    }
    if parent {
        assert_eq!(memory.bytes(DATA, DATA_LEN), ours);
        assert_eq!(memory.u64_at(WORD64), 5);
        assert_eq!(memory.u32_at(WORD32), 9);
        assert_eq!(memory.u64_at(WORD64_2), 4);
        assert_eq!(memory.u64_at(WORD64_3), 6);
    }

    // Teardown: close while the peer still progresses, then tell each other.
    drop(rkey);
    drop(endpoint);
    send(&mut socket, b"closed");
    assert_eq!(receive(&mut socket), b"closed");
    drop(region);
    progress.stop().unwrap();
}

#[test]
fn two_processes_over_tcp() {
    if let Ok(fd) = std::env::var(CHILD_FD) {
        let fd: i32 = fd.parse().unwrap();
        // SAFETY: the parent placed our end of the socket pair at this fd, owned by no one else.
        let socket = unsafe { UnixStream::from_raw_fd(fd) };
        process_side(socket, false);
        return;
    }
    let (socket, child_end) = UnixStream::pair().unwrap();
    let child_fd = child_end.as_raw_fd();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "transport::ucx::tests::two_processes_over_tcp",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_FD, CHILD_SOCKET.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the closure runs in the forked child before exec and calls only dup2 and fcntl,
    // which are async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if child_fd == CHILD_SOCKET {
                // dup2 onto itself keeps close-on-exec: clear it instead.
                if libc::fcntl(child_fd, libc::F_SETFD, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            } else if libc::dup2(child_fd, CHILD_SOCKET) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let child = command.spawn().unwrap();
    drop(child_end);
    process_side(socket, true);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the child process failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("1 passed"),
        "the child ran its side:\n{stdout}"
    );
}

/// The write combiner over TCP with a real target: consecutive puts become one run, a put that
/// does not extend the run sends it first, an eager (blocking) put goes at once unless it
/// continues the last put, a run larger than `RUN_MAX` is split, and a run that nobody sends is
/// sent by the progress thread of the server it was given to after a reminder.
#[test]
fn combined_puts_reach_the_target() {
    use super::combine::{Added, COMBINE_MAX, RUN_MAX};
    let began = |added: Added| matches!(added, Added::Began);
    let context = Context::with_config(TCP).unwrap();
    let initiator = Worker::new(&context).unwrap();
    let target = Worker::new(&context).unwrap();
    let target_progress = ProgressThread::spawn(&target).unwrap();
    // The initiator's own server, whose progress thread sends the runs it is reminded of.
    let own = Worker::new(&context).unwrap();
    let own_progress = ProgressThread::spawn(&own).unwrap();

    let len = 4 * RUN_MAX;
    let memory = SharedBuffer::new(len);
    let region = memory.map(&context);
    let packed = region.pack_rkey().unwrap();
    // SAFETY: the address and the packed key come from UCX just above.
    let endpoint = unsafe { initiator.connect(&target.address().unwrap()) }.unwrap();
    // SAFETY: `packed` is `region.pack_rkey()` just above, and `memory.ptr..+len` is the range
    // `region` maps.
    let rkey = Arc::new(unsafe { endpoint.unpack_rkey(&packed, memory.ptr as u64, len) }.unwrap());
    let combiner = Arc::new(Combiner::new());

    // Puts of 1..=16 bytes back to back from offset 0, then one elsewhere (which sends the first
    // run); then a stream of COMBINE_MAX pieces over the whole region, four runs' worth.
    let data = pattern(3, 4096);
    let mut at = 0;
    for n in 1..=16 {
        // SAFETY: `data` outlives the calls (the combiner copies it).
        let added = unsafe { combiner.add(&rkey, 1, 0, at, data[at..].as_ptr(), n, false) };
        assert_eq!(
            began(added.unwrap()),
            at == 0,
            "only the first put begins the run"
        );
        at += n;
    }
    // SAFETY: `data` holds 8 readable bytes at its start and outlives the run, which is sent and
    // flushed below; 8 <= COMBINE_MAX.
    let added = unsafe { combiner.add(&rkey, 1, 0, 2048, data.as_ptr(), 8, false) }.unwrap();
    assert!(began(added), "a put elsewhere begins a run");
    combiner.send().unwrap();
    initiator.flush().unwrap();
    assert_eq!(memory.bytes(0, at), data[..at]);
    assert_eq!(memory.bytes(2048, 8), data[..8]);
    assert_eq!(memory.bytes(at, 8), [0; 8], "nothing past the run");

    // Eager (a blocking put): one that does not continue the last put goes at once, the next
    // one that does begins a run.
    // SAFETY: `data` holds 8 readable bytes and outlives the request issued, waited just below;
    // 8 <= COMBINE_MAX.
    let added = unsafe { combiner.add(&rkey, 1, 0, 3000, data.as_ptr(), 8, true) }.unwrap();
    let Added::Issued(request) = added else {
        panic!("a lone eager put goes at once")
    };
    request.wait().unwrap();
    // SAFETY: `data[8..]` holds 8 readable bytes and outlives the run, sent and flushed below;
    // 8 <= COMBINE_MAX.
    let added = unsafe { combiner.add(&rkey, 1, 0, 3008, data[8..].as_ptr(), 8, true) }.unwrap();
    assert!(
        began(added),
        "an eager put that continues the last one begins a run"
    );
    combiner.send().unwrap();
    initiator.flush().unwrap();
    assert_eq!(memory.bytes(3000, 16), data[..16]);
    drop(combiner.take_sent());

    // Unlike `pattern`, no period: a run written at a wrong offset would show.
    let whole: Vec<u8> = (0..len).map(|i| (i ^ (i >> 8) ^ (i >> 16)) as u8).collect();
    let mut runs = 0;
    for piece in (0..len).step_by(COMBINE_MAX) {
        // SAFETY: `whole[piece..]` holds COMBINE_MAX readable bytes (`piece` steps by COMBINE_MAX
        // through `len`, `whole`'s length) and outlives the send and flush below.
        let added = unsafe {
            combiner.add(
                &rkey,
                1,
                0,
                piece,
                whole[piece..].as_ptr(),
                COMBINE_MAX,
                false,
            )
        };
        runs += usize::from(began(added.unwrap()));
    }
    assert_eq!(runs, len / RUN_MAX, "runs of RUN_MAX");
    combiner.send().unwrap();
    initiator.flush().unwrap();
    assert_eq!(memory.bytes(0, len), whole);
    drop(combiner.take_sent());

    // A run left alone: the progress thread reminded of it sends it (no send, no flush here).
    own_progress.server().combine_for(&combiner);
    let late = pattern(5, 64);
    // SAFETY: `late` holds 64 readable bytes (<= COMBINE_MAX) and lives until the end of the
    // test, after the progress thread has sent the run.
    unsafe { combiner.add(&rkey, 1, 0, 512, late.as_ptr(), 64, false) }.unwrap();
    own_progress.server().remind();
    let deadline = Instant::now() + Duration::from_secs(10);
    while memory.bytes(512, 64) != late && Instant::now() < deadline {
        // The initiator's worker has to move for the put to go out after UCX queued it; only
        // this test's thread progresses it (a PE's lane is progressed by its waits).
        initiator.progress();
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        memory.bytes(512, 64),
        late,
        "the reminded run was not sent within 10 s"
    );
    own_progress.server().forget(&combiner);

    combiner.clear();
    drop(rkey);
    drop(endpoint);
    drop(region);
    own_progress.stop().unwrap();
    target_progress.stop().unwrap();
}

#[test]
fn an_error_of_a_lost_peer_says_so() {
    let lost = Error {
        call: "ucp_get_nbx",
        status: UCS_ERR_ENDPOINT_TIMEOUT,
    };
    assert_eq!(
        lost.to_string(),
        "ucp_get_nbx: Endpoint timeout (the connection to that PE failed: it may have ended)"
    );
    let own = Error {
        call: "ucp_put_nbx",
        status: UCS_ERR_INVALID_PARAM,
    };
    assert_eq!(own.to_string(), "ucp_put_nbx: Invalid parameter");
}
