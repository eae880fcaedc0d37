//! Start-up and shutdown: `shmem_init` builds the [`World`] (or brings back the one an earlier
//! `shmem_finalize` retired) and installs it, `shmem_finalize` retires it and takes its network
//! down. Building, in order: the bootstrap (the launcher), the configuration, this PE's segments
//! (the symmetric heap after the control block, and the program's global data: the library's
//! shared-memory segments, or with every PE on the network route memory the network allocated at
//! their addresses), one [`Record`] per PE traded through the launcher and checked against this
//! PE's, the routes, the on-node peers' segments mapped, the segment names unlinked, and last the
//! network, connected when some PE is on the network route.
//!
//! Invariants: every PE runs the same steps in the same order (each exchange is collective); a
//! record another PE published that this library version would not write, or that disagrees with
//! this PE's (heap size, global data size, `SHMEM_TRANSPORT`), is an error naming that PE and the
//! value, before any segment is mapped.

use super::config::Config;
use super::heap::Heap;
use super::world::{self, INIT, RANK, Route, SegmentView, World, bootstrap_lock};
use crate::bootstrap::{self, Bootstrap};
use crate::fatal;
use crate::transport::Choice;
use crate::transport::shm::published::Lent;
use crate::transport::shm::{self, Mapping, Segment, control};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long `shmem_finalize` waits for the network to close before it gives up on a peer.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// `shmem_init`/`shmem_init_thread`: returns true if this call initialized the library (the
/// caller then runs the barrier that ends initialization).
pub fn init(call: &'static str, thread_level: i32) -> bool {
    let _serial = INIT.lock().unwrap_or_else(|e| e.into_inner());
    if world::try_get().is_some() {
        return false;
    }
    let world: &'static World = match world::take_retired() {
        None => Box::leak(Box::new(build(call))),
        Some(w) => {
            w.heap.lock().unwrap_or_else(|e| e.into_inner()).reset();
            connect(w, call);
            w
        }
    };
    world.thread_level.store(thread_level, Ordering::Relaxed);
    world.team_slots.store(0b11, Ordering::Relaxed);
    super::handle::open_predefined_teams(world);
    world::install(world);
    true
}

/// `shmem_finalize`: retires the World (after the caller's quiet and final barrier) and takes
/// down its network: every lane closed (within `CLOSE_TIMEOUT`: a dead peer cannot hold
/// this PE forever), a bootstrap barrier so that every PE keeps answering until all have closed
/// theirs, then the network stopped.
pub fn finalize(call: &'static str) {
    let _serial = INIT.lock().unwrap_or_else(|e| e.into_inner());
    let retired = world::retire();
    super::handle::close_created();
    let Some(w) = retired else {
        return;
    };
    let Some(mut net) = world::take_remote(w) else {
        return;
    };
    w.forget_network_mappings();
    let closed = net.close(Instant::now() + CLOSE_TIMEOUT);
    bootstrap_barrier(call);
    let stopped = net.stop();
    match closed.and(stopped) {
        Ok(()) => drop(net),
        Err(e) => {
            // Leave what the network may still use in place: the process is about to end anyway.
            super::error::say(&format!("[PE {}] {call}: closing the network: {e}", w.me));
            std::mem::forget(net);
        }
    }
}

/// A barrier of the launcher, or the error naming `call`.
fn bootstrap_barrier(call: &'static str) {
    let failed = bootstrap_lock()
        .as_mut()
        .map(|b| b.barrier())
        .and_then(|r| r.err());
    if let Some(e) = failed {
        fatal!(call, "launcher barrier failed: {e}");
    }
}

/// What each PE publishes about itself at init (key `rshmem-<pe>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Record {
    /// Who runs where: PEs with the same host id share memory.
    pub host: String,
    /// Bytes of the heap segment (control block + `SHMEM_SYMMETRIC_SIZE`, page rounded).
    pub heap_len: usize,
    /// Bytes of the global data segment (0: none).
    pub data_len: usize,
    /// The process that created the segments: part of their names.
    pub pid: u32,
    /// `SHMEM_TRANSPORT`.
    pub transport: Choice,
    /// The random tokens in the names of its heap and data segments (empty: no data segment);
    /// peers cannot derive them, they learn them here.
    pub heap_token: String,
    pub data_token: String,
}

impl Record {
    /// `host=..,heap=..,data=..,pid=..,transport=..,heap_token=..,data_token=..`; the host id and
    /// the tokens hold no `,` or `=`.
    pub fn format(&self) -> String {
        format!(
            "host={},heap={},data={},pid={},transport={},heap_token={},data_token={}",
            self.host,
            self.heap_len,
            self.data_len,
            self.pid,
            self.transport.name(),
            self.heap_token,
            self.data_token
        )
    }

    /// The record `format` wrote, or what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Record, String> {
        let mut fields = [None; 7];
        const NAMES: [&str; 7] = [
            "host",
            "heap",
            "data",
            "pid",
            "transport",
            "heap_token",
            "data_token",
        ];
        for field in text.split(',') {
            let (name, value) = field
                .split_once('=')
                .ok_or_else(|| format!("field '{field}' is not name=value"))?;
            let i = NAMES
                .iter()
                .position(|n| *n == name)
                .ok_or_else(|| format!("unknown field '{name}'"))?;
            if fields[i].replace(value).is_some() {
                return Err(format!("field '{name}' appears twice"));
            }
        }
        let field = |i: usize| fields[i].ok_or_else(|| format!("no field '{}'", NAMES[i]));
        let number = |i: usize| {
            let v = field(i)?;
            v.parse::<usize>()
                .map_err(|_| format!("{} = '{v}' is not a number", NAMES[i]))
        };
        let pid = field(3)?;
        Ok(Record {
            host: field(0)?.to_string(),
            heap_len: number(1)?,
            data_len: number(2)?,
            pid: pid
                .parse()
                .map_err(|_| format!("pid = '{pid}' is not a process id"))?,
            transport: Choice::parse(field(4)?)
                .map_err(|why| format!("transport = '{}' {why}", fields[4].unwrap_or("")))?,
            heap_token: field(5)?.to_string(),
            data_token: field(6)?.to_string(),
        })
    }
}

/// `/rshmem-<uid>-<pid of the creator>-<job>-<pe>-<random token>-<heap|data>`: unique per job and
/// PE, not guessable (peers learn the token from the creator's record), and naming its creator so
/// that a later job can remove it if the creator died before unlinking it.
fn segment_name(pid: u32, job: &str, pe: usize, token: &str, seg: &str) -> String {
    format!("{}{pid}-{job}-{pe}-{token}-{seg}", segment_prefix())
}

/// The token of a name made by [`segment_name`].
fn segment_token(name: &str) -> &str {
    name.rsplit('-').nth(1).unwrap_or_default()
}

fn segment_prefix() -> String {
    let uid = shm::process::uid();
    format!("/rshmem-{uid}-")
}

/// Who runs where: PEs with the same host id share memory.
fn host_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    format!("{}:{}", host.trim(), boot.trim())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == ':' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Runs `f` on the installed bootstrap; a failure is the error naming `call`.
fn exchange<R>(
    call: &'static str,
    f: impl FnOnce(&mut dyn Bootstrap) -> bootstrap::Result<R>,
) -> R {
    let mut guard = bootstrap_lock();
    let boot = guard.as_mut().expect("bootstrap installed at init");
    match f(boot.as_mut()) {
        Ok(v) => v,
        Err(e) => {
            drop(guard);
            fatal!(call, "launcher exchange failed: {e}")
        }
    }
}

/// Builds the World: configuration, bootstrap, segments, peers' mappings, the network.
pub(super) fn build(call: &'static str) -> World {
    let t = Instant::now();
    let boot = bootstrap::from_environment()
        .unwrap_or_else(|e| fatal!(call, "cannot reach the launcher: {e}"));
    let (me, npes, job) = (boot.rank(), boot.size(), boot.job_id().to_string());
    RANK.store(me as isize, Ordering::Relaxed);
    super::log::init(me);
    let t = super::log::phase("bootstrap", t);
    *bootstrap_lock() = Some(boot);
    // After the bootstrap, so that a bad value stops the whole job, not just this PE.
    let (config, sources) =
        Config::parse(&|name| std::env::var(name).ok()).unwrap_or_else(|why| fatal!(call, "{why}"));
    super::counters::enable(config.counts);
    crate::transport::configure_libraries(&config.ucx_lib, &config.ucx_search);

    // Our own segments: the heap (control block, guard, SHMEM_SYMMETRIC_SIZE) and the global data.
    let page = 4096;
    let heap_len = config
        .symmetric_size
        .checked_add(control::USER_OFFSET)
        .and_then(|n| n.checked_next_multiple_of(page))
        .unwrap_or_else(|| {
            fatal!(
                call,
                "SHMEM_SYMMETRIC_SIZE = {} is too large",
                config.symmetric_size
            )
        });
    // Segments of this user's jobs whose creator died during its init (between creating and
    // unlinking them) would stay in /dev/shm: remove them.
    Segment::remove_orphans(&segment_prefix());
    let pid = std::process::id();
    let name = |seg: &'static str| {
        let job = job.clone();
        move || shm::segment::random_token().map(|t| segment_name(pid, &job, me, &t, seg))
    };
    // With every PE on the network route, the network allocates both segments if it can (so that
    // its on-node transports reach them directly), or neither.
    let allocation = config.transport.allocation();
    let mut network = match allocation {
        Some(_) => shm::network::heap(config.transport, heap_len),
        None => Err(None),
    };
    let data_range = shm::data_segment::find();
    let mut network_data = None;
    if let (Ok(_), Some(r)) = (&network, data_range) {
        match shm::network::data(config.transport, r) {
            Ok(m) => network_data = Some(m),
            Err(why) => network = Err(Some(why)),
        }
    }
    let (heap, heap_name) = match network {
        Ok(mapping) => (Memory::Network(mapping), String::new()),
        Err(_) => {
            let (seg, name) =
                Segment::create_unique(name("heap"), heap_len, control::HEAP_LAYOUT)
                    .unwrap_or_else(|e| {
                        fatal!(
                            call,
                            "cannot create the symmetric heap of {heap_len} bytes (SHMEM_SYMMETRIC_SIZE): {e}"
                        )
                    });
            (Memory::Segment(seg), name)
        }
    };
    let net_name = config.transport.network_name();
    let heap_memory = match &network {
        Ok(_) => format!(
            "allocated by the network at its address ({})",
            allocation.unwrap_or_default()
        ),
        Err(None) => "this library's shared-memory segment".to_string(),
        Err(Some(why)) => {
            tracing::info!(target: "rshmem::route", "the heap and global data are this library's own segments, registered with {net_name}: {why}");
            format!(
                "this library's shared-memory segment, registered with {net_name}, which did not \
                 allocate it at its address: {why}"
            )
        }
    };
    let mut data_name = String::new();
    let data = data_range.map(|r| {
        if let Some(mapping) = network_data {
            return Memory::Network(mapping);
        }
        let over = Segment::create_over(name("data"), r);
        let (seg, n) = over.unwrap_or_else(|e| {
            Segment::unlink(&heap_name);
            fatal!(
                call,
                "cannot share the program's global data ({} bytes): {e}",
                r.len()
            )
        });
        data_name = n;
        Memory::Segment(seg)
    });
    let data_len = data.as_ref().map_or(0, Memory::len);
    let t = super::log::phase("segments", t);

    // Tell the others, learn about them.
    let mine = Record {
        host: host_id(),
        heap_len,
        data_len,
        pid,
        transport: config.transport,
        heap_token: segment_token(&heap_name).to_string(),
        data_token: segment_token(&data_name).to_string(),
    };
    exchange(call, |b| b.put(&format!("rshmem-{me}"), &mine.format()));
    exchange(call, |b| b.barrier());
    let records: Vec<Record> = (0..npes)
        .map(|pe| {
            if pe == me {
                return mine.clone();
            }
            let theirs = exchange(call, |b| b.get(&format!("rshmem-{pe}")));
            let theirs = Record::parse(&theirs).unwrap_or_else(|why| {
                fatal!(
                    call,
                    "PE {pe} published '{theirs}', not what this library version publishes: {why}"
                )
            });
            check_agrees(call, pe, &theirs, &mine);
            theirs
        })
        .collect();
    // The routes: shared memory for the PEs of this node unless every PE is forced onto the
    // network.
    let routes: Box<[Route]> = records
        .iter()
        .map(|r| {
            if !mine.transport.every_pe() && r.host == mine.host {
                Route::Shm
            } else {
                Route::Net
            }
        })
        .collect();
    let mut first_on_host = std::collections::HashMap::new();
    let nodes: Box<[usize]> = records
        .iter()
        .enumerate()
        .map(|(pe, r)| {
            if mine.transport.every_pe() {
                pe
            } else {
                *first_on_host.entry(r.host.as_str()).or_insert(pe)
            }
        })
        .collect();
    let local_pes = records.iter().filter(|r| r.host == mine.host).count();
    let local_rank = records[..me].iter().filter(|r| r.host == mine.host).count();
    let on_net = routes.iter().filter(|r| **r == Route::Net).count();
    tracing::info!(target: "rshmem::route", "{} PEs by shared memory, {on_net} by the network ({local_pes} on \
        this node; SHMEM_TRANSPORT={})", npes - on_net, mine.transport.name());
    let t = super::log::phase("exchange", t);

    let mut mappings = Vec::new();
    // This PE's own segments (a `Memory` is never unmapped once made); no data segment: none.
    let own_heap = heap.mapping();
    let own_data = data.as_ref().map_or(Mapping::EMPTY, Memory::mapping);
    let mut heap_peers: Vec<Option<Mapping>> = vec![None; npes];
    let mut data_peers: Vec<Option<Mapping>> = vec![None; npes];
    for (pe, record) in records.iter().enumerate() {
        if routes[pe] == Route::Net {
            continue;
        }
        if pe == me {
            heap_peers[pe] = Some(own_heap);
            data_peers[pe] = data.as_ref().map(|_| own_data);
            continue;
        }
        let their_heap = segment_name(record.pid, &job, pe, &record.heap_token, "heap");
        let h = Segment::open_at(&their_heap, heap_len, control::HEAP_LAYOUT)
            .unwrap_or_else(|e| fatal!(call, "cannot map the symmetric heap of PE {pe}: {e}"));
        heap_peers[pe] = Some(h.mapping());
        mappings.push(h);
        if data_len > 0 {
            let their_data = segment_name(record.pid, &job, pe, &record.data_token, "data");
            let d = Segment::open(&their_data, data_len)
                .unwrap_or_else(|e| fatal!(call, "cannot map the global data of PE {pe}: {e}"));
            data_peers[pe] = Some(d.mapping());
            mappings.push(d);
        }
    }
    super::wait::configure(local_pes);
    crate::transport::configure_waits(super::wait::oversubscribed_node(), config.progress_delay);
    // Everyone holds a mapping of its on-node peers' segments: the names can go.
    exchange(call, |b| b.barrier());
    Segment::unlink(&heap_name);
    Segment::unlink(&data_name);
    let t = super::log::phase("mapping", t);

    let heap_view = SegmentView::new(own_heap, control::USER_OFFSET, &heap_peers);
    let data_view = SegmentView::new(own_data, 0, &data_peers);
    for memory in std::iter::once(heap).chain(data) {
        if let Memory::Segment(seg) = memory {
            mappings.push(seg);
        }
    }
    let cpu_atomics = routes.iter().all(|r| *r == Route::Shm);
    let world = World {
        me,
        npes,
        sources,
        heap: Mutex::new(Heap::new(
            control::USER_OFFSET,
            control::USER_OFFSET + config.symmetric_size,
        )),
        config,
        heap_memory,
        segments: [heap_view, data_view],
        thread_level: AtomicI32::new(0),
        team_slots: AtomicU64::new(0b11),
        aset_seen: (0..npes).map(|_| AtomicU64::new(0)).collect(),
        aset_rounds_sent: (0..npes).map(|_| AtomicU64::new(0)).collect(),
        aset_rounds_seen: (0..npes).map(|_| AtomicU64::new(0)).collect(),
        alloc_seq: AtomicU64::new(0),
        routes,
        nodes,
        cpu_atomics,
        remote: Lent::new(),
        generation: AtomicU64::new(0),
        _mappings: mappings,
    };
    connect(&world, call);
    super::log::phase(
        if cpu_atomics {
            "network wire-up (none)"
        } else {
            "network wire-up"
        },
        t,
    );
    if world.config.spread {
        let home = crate::transport::cores::settle(local_rank, local_pes);
        tracing::info!(target: "rshmem::init", "spread: local PE {local_rank} of {local_pes}, home core {}",
            home.map_or("none".to_string(), |core| core.to_string()));
    }
    if me == 0 && (world.config.info || world.config.version) {
        print!("{}", super::info::banner(&world));
    }
    if me == 0 {
        let names = std::env::vars_os().map(|(k, _)| k.to_string_lossy().into_owned());
        eprint!("{}", super::config::unknown_warning(&world.config, names));
    }
    world
}

/// The memory of one of this PE's segments: the library's own shared-memory segment, or memory
/// the network allocated at the segment's address, kept for the life of the process.
enum Memory {
    Segment(Segment),
    Network(Mapping),
}

impl Memory {
    fn mapping(&self) -> Mapping {
        match self {
            Memory::Segment(seg) => seg.mapping(),
            Memory::Network(m) => *m,
        }
    }

    fn len(&self) -> usize {
        self.mapping().len()
    }
}

/// Stops the job unless PE `pe`'s record agrees with this PE's where every PE must agree.
fn check_agrees(call: &'static str, pe: usize, theirs: &Record, mine: &Record) {
    if theirs.heap_len != mine.heap_len {
        fatal!(
            call,
            "PE {pe} has a symmetric heap of {} bytes, this PE {}: SHMEM_SYMMETRIC_SIZE must be the same on every PE",
            theirs.heap_len,
            mine.heap_len
        );
    }
    if theirs.data_len != mine.data_len {
        fatal!(
            call,
            "PE {pe} has {} bytes of global data, this PE {}: every PE must run the same executable",
            theirs.data_len,
            mine.data_len
        );
    }
    if theirs.transport != mine.transport {
        fatal!(
            call,
            "PE {pe} has SHMEM_TRANSPORT = {}, this PE {}: it must be the same on every PE",
            theirs.transport.name(),
            mine.transport.name()
        );
    }
}

/// Connects the network if some PE is on the network route: the transport registers both
/// segments and writes this PE's card, the cards go round through the launcher, and the
/// transport connects to every PE (this one included, since every atomic then goes through it).
/// Also at a repeated `shmem_init` (a new generation of keys).
pub(super) fn connect(w: &World, call: &'static str) {
    if w.cpu_atomics {
        return;
    }
    let generation = w.generation.fetch_add(1, Ordering::Relaxed);
    let segments = w.segments.each_ref().map(|s| s.own());
    let key = |pe: usize| format!("rshmem-net{generation}-{pe}");
    let mut trade = |card: &str| -> Result<Vec<String>, String> {
        let mut guard = bootstrap_lock();
        let boot = guard.as_mut().expect("bootstrap installed at init");
        let mut run = || -> bootstrap::Result<Vec<String>> {
            boot.put_large(&key(w.me), card)?;
            boot.barrier()?;
            (0..w.npes)
                .map(|pe| {
                    if pe == w.me {
                        Ok(card.to_string())
                    } else {
                        boot.get_large(&key(pe))
                    }
                })
                .collect()
        };
        run().map_err(|e| format!("launcher exchange of the network cards failed: {e}"))
    };
    // Which PEs are on another node: the network watches those connections for a peer's failure.
    let elsewhere: Vec<bool> = (0..w.npes).map(|pe| w.nodes[pe] != w.nodes[w.me]).collect();
    let remote = shm::network::connect(
        w.config.transport,
        &segments,
        &elsewhere,
        super::handle::LANES,
        &mut trade,
    )
    .unwrap_or_else(|e| fatal!(call, "cannot connect the network: {e}"));
    w.enter_network_mappings(&remote);
    w.remote.put(Box::new(remote));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Record {
        Record {
            host: "node-3:5d2e-aa.1".into(),
            heap_len: 1 << 30,
            data_len: 8192,
            pid: 4242,
            transport: Choice::Ucx,
            heap_token: "9f3c".into(),
            data_token: String::new(),
        }
    }

    #[test]
    fn record_round_trips() {
        let r = sample();
        assert_eq!(
            r.format(),
            "host=node-3:5d2e-aa.1,heap=1073741824,data=8192,pid=4242,transport=ucx,heap_token=9f3c,data_token="
        );
        assert_eq!(Record::parse(&r.format()), Ok(r));
    }

    #[test]
    fn record_fields_may_come_in_any_order() {
        let text = "pid=7,transport=auto,data=0,heap=4096,host=h,data_token=,heap_token=a1";
        let r = Record::parse(text).unwrap();
        assert_eq!((r.pid, r.heap_len, r.data_len), (7, 4096, 0));
        assert_eq!((r.host.as_str(), r.transport), ("h", Choice::Auto));
    }

    #[test]
    fn bad_records_say_what_is_wrong() {
        let err = |t: &str| Record::parse(t).unwrap_err();
        assert_eq!(err("host=h,heap=1,data=0,pid=7"), "no field 'transport'");
        assert_eq!(
            err("host=h,heap=x,data=0,pid=7,transport=ucx"),
            "heap = 'x' is not a number"
        );
        assert_eq!(
            err("host=h,heap=1,data=0,pid=-1,transport=ucx"),
            "pid = '-1' is not a process id"
        );
        assert_eq!(
            err("host=h,heap=1,data=0,pid=7,transport=ucx,colour=red"),
            "unknown field 'colour'"
        );
        assert_eq!(
            err("host=h,host=h,heap=1,data=0,pid=7,transport=ucx"),
            "field 'host' appears twice"
        );
        // The comma record of earlier versions, fields by position.
        assert_eq!(
            err("h,1073745920,0,4242,auto"),
            "field 'h' is not name=value"
        );
        assert!(err("host=h,heap=1,data=0,pid=7,transport=tcp").starts_with("transport = 'tcp' "));
    }
}
