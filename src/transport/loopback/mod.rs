//! The loopback network: a second network behind the seam, for the PEs of one node, that proves
//! the seam (`SHMEM_TRANSPORT=loopback` puts every PE on its route, so every put, get, atomic,
//! fence, quiet and control word of the job goes through [`crate::transport::Network`]) and lets
//! the C suite run a network route with no library to load (`RSHMEM_TEST_TRANSPORT=loopback`).
//!
//! Memory: the network allocates each of a PE's segments itself (`Network::allocate_segment`):
//! a `memfd` mapped over the segment's range, whose descriptor stays open for the life of the
//! process. A PE's card says where a peer finds each of its segments: its process id and that
//! descriptor (`/proc/<pid>/fd/<fd>`, which a process of the same user may open), and the
//! length. `Network::connect` maps every PE's segments here (this PE's own too, a second
//! mapping of the same pages) and `Network::close` unmaps them; nothing is ever named in
//! /dev/shm, so nothing is left there.
//!
//! Operations are what the shared-memory route does, on those mappings: puts and gets are
//! copies, complete when they return; atomics and control words are the CPU's atomics on the
//! mapped word (one atomic path: every PE, this one included, reaches every word through here);
//! fence and quiet are memory fences. Lanes need no state. It carries no collective messages and
//! gives the runtime no mapping ([`crate::transport::Network::mapping`]), so that nothing
//! short-cuts the seam.
//!
//! Invariants: `peers[pe][seg]` is PE `pe`'s segment `seg`, mapped from its offset 0 for its
//! whole length, from connect to close; every access is a checked range of such a mapping
//! ([`shm::Mapping::at`]), an offset outside it an error naming the PE, the segment and the
//! range.

use super::shm::{self, Dst, Mapping, Segment, Src};
use super::{AmoWord, Error, Exchange, HEAP, Local, Place, Result, Rmw, Strided};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Mutex;
use std::sync::atomic::{Ordering, fence};
use std::time::Instant;

/// The segments this network allocated, with their descriptors: kept for the life of the
/// process (symmetric addresses outlive `shmem_finalize`; a later `shmem_init` connects them
/// again).
static ALLOCATED: Mutex<Vec<(Segment, OwnedFd)>> = Mutex::new(Vec::new());

/// Every PE's segments, mapped here.
pub(crate) struct Network {
    /// Per PE, per segment: its mapping (`None`: an empty segment).
    peers: Vec<Vec<Option<Mapping>>>,
    /// The mappings themselves, unmapped when dropped (at close).
    maps: Vec<Segment>,
}

impl Network {
    /// Bytes `at.off..at.off+len` of `at.pe`'s segment `at.seg`.
    #[inline]
    fn at(&self, at: Place, len: usize) -> Result<Dst<'static>> {
        self.peers
            .get(at.pe)
            .and_then(|segs| segs.get(at.seg))
            .copied()
            .flatten()
            .and_then(|m| m.at(at.off, len))
            .ok_or_else(|| outside(at, len))
    }

    /// The word of type `W` at `at`.
    #[inline]
    fn word<W: AmoWord>(&self, at: Place) -> Result<shm::memory::Atom<'static, W>> {
        let dst = self.at(at, size_of::<W>())?;
        if !dst.addr().is_multiple_of(align_of::<W>()) {
            let Place { pe, seg, off } = at;
            return Err(Error::new(format!(
                "loopback: an atomic at offset {off} of segment {seg} of PE {pe} is not aligned \
                 to {} bytes",
                align_of::<W>()
            )));
        }
        Ok(dst.word::<W>(0))
    }

    /// The control word at heap offset `off` of `pe`.
    #[inline]
    fn control(&self, pe: usize, off: usize) -> Result<shm::memory::Atom<'static, u64>> {
        self.word::<u64>(Place::new(pe, HEAP, off))
    }
}

#[cold]
#[inline(never)]
fn outside(at: Place, len: usize) -> Error {
    let Place { pe, seg, off } = at;
    Error::new(format!(
        "loopback: bytes {off}..{off}+{len} of segment {seg} of PE {pe} are outside it (or the \
         network is closed)"
    ))
}

/// What the kernel calls the memory of a segment (`/proc/<pid>/fd/<fd>` links to
/// `/memfd:<this> (deleted)`).
const MEMFD: &str = "/memfd:rshmem-segment";

/// This machine's boot id: PEs with the same one run on one kernel.
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// This PE's card: `pid@boot id`, then `fd.len` per segment (`-` for an empty one),
/// `/`-separated.
fn card(segments: &[(usize, usize)]) -> Result<String> {
    let allocated = ALLOCATED.lock().unwrap_or_else(|e| e.into_inner());
    let mut card = format!("{}@{}", std::process::id(), boot_id());
    for &(base, len) in segments {
        if len == 0 {
            card.push_str("/-");
            continue;
        }
        let (_, fd) = allocated
            .iter()
            .find(|(seg, _)| (seg.mapping().base(), seg.mapping().len()) == (base, len))
            .ok_or_else(|| {
                Error::new(format!(
                    "loopback: the segment at {base:#x} ({len} bytes) is not memory this network \
                     allocated (did the library create its own segments?)"
                ))
            })?;
        card.push_str(&format!("/{}.{len}", fd.as_raw_fd()));
    }
    Ok(card)
}

/// Maps PE `pe`'s segments as its card `text` describes them: the mappings, and each segment's.
fn map_card(
    pe: usize,
    text: &str,
    segments: usize,
) -> Result<(Vec<Segment>, Vec<Option<Mapping>>)> {
    let bad = || Error::new(format!("loopback: PE {pe}'s card '{text}' does not parse"));
    let mut fields = text.split('/');
    let (pid, boot) = fields
        .next()
        .and_then(|f| f.split_once('@'))
        .ok_or_else(bad)?;
    let pid: u32 = pid.parse().map_err(|_| bad())?;
    if boot != boot_id() {
        return Err(Error::new(format!(
            "loopback: PE {pe} runs on another machine (boot id {boot}): the loopback network \
             is for the PEs of one node"
        )));
    }
    let (mut maps, mut mappings) = (Vec::new(), Vec::new());
    for field in fields {
        if field == "-" {
            mappings.push(None);
            continue;
        }
        let (fd, len) = field.split_once('.').ok_or_else(bad)?;
        let fd: i32 = fd.parse().map_err(|_| bad())?;
        let len: usize = len.parse().map_err(|_| bad())?;
        let path = format!("/proc/{pid}/fd/{fd}");
        // The descriptor the card names is the peer's segment, not a file that process (or
        // another one with that id) opened since.
        let target = std::fs::read_link(&path).unwrap_or_default();
        if !target.to_string_lossy().starts_with(MEMFD) {
            return Err(Error::new(format!(
                "loopback: {path} of PE {pe} is {}, not a segment of the loopback network",
                target.display()
            )));
        }
        let seg = Segment::open_path(&path, len).map_err(|e| {
            Error::new(format!(
                "loopback: cannot map segment {} of PE {pe}: {e}",
                mappings.len()
            ))
        })?;
        mappings.push(Some(seg.mapping()));
        maps.push(seg);
    }
    if mappings.len() != segments {
        return Err(bad());
    }
    Ok((maps, mappings))
}

impl super::Network for Network {
    const CHOICE: &'static str = "loopback";
    const NAME: &'static str = "loopback";
    const ALLOCATION: Option<&'static str> = Some(
        "the loopback network's memfd, which this node's other PEs map through /proc/<pid>/fd",
    );

    unsafe fn allocate_segment(base: usize, len: usize) -> Result<()> {
        // SAFETY: the caller's contract (the range is ours to replace, page aligned); the
        // memory is kept for the life of the process (`ALLOCATED`).
        let made = unsafe { Segment::create_anonymous_over(base, len) };
        let made = made.map_err(|e| Error::new(format!("loopback: {e}")))?;
        ALLOCATED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(made);
        Ok(())
    }

    unsafe fn connect(
        segments: &[(usize, usize)],
        _elsewhere: &[bool],
        _lanes: usize,
        exchange: &mut Exchange,
    ) -> Result<Network> {
        let mine = card(segments)?;
        let cards = exchange(&mine).map_err(Error::new)?;
        let mut network = Network {
            peers: Vec::with_capacity(cards.len()),
            maps: Vec::new(),
        };
        for (pe, text) in cards.iter().enumerate() {
            let (maps, mappings) = map_card(pe, text, segments.len())?;
            network.maps.extend(maps);
            network.peers.push(mappings);
        }
        Ok(network)
    }

    #[inline]
    fn put(&self, _lane: usize, to: Place, src: Src<'_>) -> Result<()> {
        self.at(to, src.len())?.copy_from(src);
        Ok(())
    }

    #[inline]
    unsafe fn put_nbi(&self, lane: usize, to: Place, src: Src<'_>) -> Result<()> {
        // A copy, complete when it returns: nothing of `src` is kept.
        self.put(lane, to, src)
    }

    #[inline]
    fn get(&self, _lane: usize, from: Place, dst: Dst<'_>) -> Result<()> {
        dst.copy_from(self.at(from, dst.len())?.src());
        Ok(())
    }

    #[inline]
    unsafe fn get_nbi(&self, lane: usize, from: Place, dst: Dst<'_>) -> Result<()> {
        self.get(lane, from, dst)
    }

    fn strided(&self, _lane: usize, remote: Place, local: Local<'_>, shape: Strided) -> Result<()> {
        local.check_blocks(shape);
        for i in 0..shape.count as isize {
            let theirs = self.at(remote.moved(i * shape.rstride), shape.block)?;
            let l = shape.at.wrapping_add_signed(i * shape.lstride);
            match local.part(l, shape.block) {
                Local::Put(s) => theirs.copy_from(s),
                Local::Get(d) => d.copy_from(theirs.src()),
            }
        }
        Ok(())
    }

    fn rmw<W: AmoWord>(
        &self,
        _lane: usize,
        at: Place,
        op: Rmw,
        value: W,
        fetch: bool,
        _landed: bool,
    ) -> Result<W> {
        let word = self.word::<W>(at)?;
        let old = match op {
            Rmw::Add => word.fetch_add(value),
            Rmw::And => word.fetch_and(value),
            Rmw::Or => word.fetch_or(value),
            Rmw::Xor => word.fetch_xor(value),
        };
        Ok(if fetch { old } else { value })
    }

    fn swap<W: AmoWord>(&self, _lane: usize, at: Place, value: W) -> Result<W> {
        Ok(self.word::<W>(at)?.swap(value))
    }

    fn compare_swap<W: AmoWord>(&self, _lane: usize, at: Place, cond: W, value: W) -> Result<W> {
        Ok(self.word::<W>(at)?.compare_swap(cond, value))
    }

    fn fetch<W: AmoWord + Default>(&self, _lane: usize, at: Place) -> Result<W> {
        Ok(self.word::<W>(at)?.load())
    }

    fn fence(&self, _lane: usize) -> Result<()> {
        fence(Ordering::SeqCst);
        Ok(())
    }

    fn quiet(&self, _lane: usize) -> Result<()> {
        fence(Ordering::SeqCst);
        Ok(())
    }

    fn pe_quiet(&self, _lane: usize, _pes: &[usize]) -> Result<()> {
        fence(Ordering::SeqCst);
        Ok(())
    }

    fn control_store(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        self.control(pe, off)?.store(value);
        Ok(())
    }

    fn control_add(&self, pe: usize, off: usize, value: u64) -> Result<()> {
        self.control(pe, off)?.fetch_add(value);
        Ok(())
    }

    fn control_load(&self, pe: usize, off: usize, words: &mut [u64]) -> Result<()> {
        for (i, w) in words.iter_mut().enumerate() {
            *w = self.control(pe, off + 8 * i)?.load();
        }
        Ok(())
    }

    fn poll(&self) {}

    fn close(&mut self, _deadline: Instant) -> Result<()> {
        // The runtime's last operation is behind it (finalize quieted and synchronized).
        fence(Ordering::SeqCst);
        self.peers.clear();
        self.maps.clear();
        Ok(())
    }

    fn stop(&mut self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Network as _;
    use crate::transport::shm::segment::{Layout, reserve};

    /// A network of two PEs that are both this process: PE 1's heap is PE 0's, mapped twice.
    #[test]
    fn operations_reach_the_peer_through_its_mapping() {
        let len = 1 << 16;
        let layout = Layout {
            aligned_at: 0,
            align: 4096,
            guard: None,
        };
        let base = reserve(len, layout, "a loopback test heap").unwrap();
        // SAFETY: the reservation just made, which nothing else uses; kept for the process.
        unsafe { Network::allocate_segment(base, len) }.unwrap();
        let segments = [(base, len), (0, 0)];
        let mut exchange = |card: &str| Ok(vec![card.to_string(), card.to_string()]);
        // SAFETY: the segment is mapped for the life of the process, reached only by the
        // network's raw accesses in this test.
        let mut net =
            unsafe { Network::connect(&segments, &[false, false], 1, &mut exchange) }.unwrap();

        let data: Vec<u8> = (0..64).collect();
        net.put(0, Place::new(1, HEAP, 128), Src::of(&data))
            .unwrap();
        let mut back = [0u8; 64];
        net.get(0, Place::new(0, HEAP, 128), Dst::of(&mut back))
            .unwrap();
        assert_eq!(back[..], data[..]);

        // Every other byte of 8 blocks of 2, strided both ways.
        let mut strided = [0u8; 16];
        let local = Local::Get(Dst::of(&mut strided));
        let shape = Strided {
            rstride: 4,
            at: 0,
            lstride: 2,
            block: 2,
            count: 8,
        };
        net.strided(0, Place::new(1, HEAP, 128), local, shape)
            .unwrap();
        assert_eq!(
            strided,
            [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29]
        );

        let (p0, p1) = (Place::new(0, HEAP, 256), Place::new(1, HEAP, 256));
        assert_eq!(net.rmw::<u64>(0, p1, Rmw::Add, 5, true, false), Ok(0));
        assert_eq!(net.rmw::<u64>(0, p0, Rmw::Or, 2, false, false), Ok(2));
        assert_eq!(net.compare_swap::<u64>(0, p1, 7, 9), Ok(7));
        assert_eq!(net.swap::<u32>(0, p0, 1), Ok(9));
        assert_eq!(net.fetch::<u32>(0, p1), Ok(1));
        net.control_store(1, 512, 11).unwrap();
        net.control_add(0, 520, 3).unwrap();
        let mut words = [0u64; 2];
        net.control_load(1, 512, &mut words).unwrap();
        assert_eq!(words, [11, 3]);

        // Outside the segment, into the empty one, misaligned, to no such PE: errors.
        assert!(
            net.put(0, Place::new(1, HEAP, len - 8), Src::of(&data))
                .is_err()
        );
        assert!(
            net.put(0, Place::new(1, 1, 0), Src::of(&data[..1]))
                .is_err()
        );
        assert!(net.fetch::<u64>(0, Place::new(1, HEAP, 4)).is_err());
        assert!(net.fetch::<u64>(0, Place::new(2, HEAP, 0)).is_err());

        net.close(Instant::now()).unwrap();
        assert!(net.fetch::<u64>(0, Place::new(1, HEAP, 0)).is_err());
        net.stop().unwrap();
    }

    #[test]
    fn a_segment_it_did_not_allocate_is_refused() {
        let mut exchange = |card: &str| Ok(vec![card.to_string()]);
        let own = [0u8; 64];
        let segments = [(own.as_ptr() as usize, own.len())];
        // SAFETY: refused before anything is mapped or accessed.
        let refused = unsafe { Network::connect(&segments, &[false], 1, &mut exchange) };
        let e = refused.err().expect("refused");
        assert!(
            e.to_string().contains("not memory this network allocated"),
            "{e}"
        );
    }

    #[test]
    fn cards_of_another_machine_or_of_another_file_are_refused() {
        let other = map_card(1, "1@not-this-machine/-", 1)
            .err()
            .expect("refused");
        assert!(other.to_string().contains("another machine"), "{other}");
        // Descriptor 0 of this process: not a segment of this network.
        let text = format!("{}@{}/0.4096", std::process::id(), boot_id());
        let file = map_card(1, &text, 1).err().expect("refused");
        assert!(file.to_string().contains("not a segment"), "{file}");
        assert!(map_card(1, "x", 1).is_err() && map_card(1, &text, 2).is_err());
    }
}
