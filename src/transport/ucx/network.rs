//! One PE's UCX network: the context, the worker of the default context, the registered
//! symmetric segments, an endpoint and the remote keys of every PE, and the progress thread.
//!
//! Built in two steps so that the runtime can run the exchange through its bootstrap: [`Local`]
//! registers this PE's segments and describes them in a [`Local::card`] (text: worker address,
//! then base, length and packed remote key per segment); [`Network::connect`] takes every PE's
//! card (this PE's included: a PE on the UCX route reaches itself through its own endpoint too),
//! creates the endpoints, unpacks the keys and starts the progress thread.
//!
//! Invariants: every PE has an endpoint and, for each segment it registered, a remote key; segment
//! `s` of the cards is segment `s` of every accessor here. [`Network::shutdown`] closes the
//! endpoints within a deadline before it stops the progress thread, so the PE keeps answering
//! its peers while they close theirs.
//!
//! Ordering: UCX may deliver a get before an earlier put to the same PE (different lanes). The
//! network counts puts issued and the puts a fence has covered; a get or a fetching atomic issued
//! while some put is not covered first fences the worker, so a PE reads what it wrote.

use super::{
    Context, Endpoint, Error, MemoryRegion, ProgressThread, RemoteKey, Request, Result, Worker,
};
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use ucx_sys::UCS_ERR_INVALID_PARAM;

/// This PE's side before connecting: the context, the worker, the registered segments.
pub struct Local {
    context: Context,
    worker: Worker,
    /// Per segment: the region, or `None` for an empty segment.
    regions: Vec<Option<MemoryRegion>>,
}

impl Local {
    /// A context (RMA, AMO32, AMO64, configured by `UCX_*`), its worker, and the segments
    /// `(base, len)` registered (an empty one is skipped).
    ///
    /// # Safety
    /// Every non-empty segment must be mapped, readable and writable for the life of the process,
    /// and accessed locally only as shared memory (see [`MemoryRegion::map`]).
    pub unsafe fn new(segments: &[(usize, usize)]) -> Result<Local> {
        let context = Context::new()?;
        let worker = Worker::new(&context)?;
        let mut regions = Vec::new();
        for &(base, len) in segments {
            regions.push(if len == 0 {
                None
            } else {
                // SAFETY: the caller's contract.
                Some(unsafe { MemoryRegion::map(&context, base as *mut u8, len) }?)
            });
        }
        Ok(Local {
            context,
            worker,
            regions,
        })
    }

    /// What a peer needs to reach this PE: `address/base.len.key/...` in hexadecimal.
    pub fn card(&self) -> Result<String> {
        let mut card = hex(&self.worker.address()?);
        for region in &self.regions {
            match region {
                Some(r) => {
                    let _ = write!(
                        card,
                        "/{:x}.{:x}.{}",
                        r.base() as usize,
                        r.len(),
                        hex(&r.pack_rkey()?)
                    );
                }
                None => card.push_str("/0.0."),
            }
        }
        Ok(card)
    }
}

/// A peer as this PE reaches it.
struct Peer {
    /// Per segment: the key, or `None` for a segment the peer has empty. Dropped before the
    /// endpoint (field order), as UCX requires.
    rkeys: Vec<Option<RemoteKey>>,
    endpoint: Endpoint,
}

/// Every PE reachable over UCX, and the thread that answers them.
pub struct Network {
    peers: Vec<Peer>,
    progress: Option<ProgressThread>,
    worker: Worker,
    _regions: Vec<Option<MemoryRegion>>,
    _context: Context,
    /// Puts issued, and the count of them the last fence covered.
    puts: AtomicU64,
    fenced: AtomicU64,
    /// Non-blocking gets still in flight: [`Network::quiet`] waits for each before it flushes
    /// the worker (a worker flush alone was seen to return before a large get over shared
    /// memory had written all of its destination).
    gets: Mutex<Vec<Request>>,
}

/// A card that does not parse.
fn bad_card() -> Error {
    Error {
        call: "reading a peer's UCX card (not written by this library version)",
        status: UCS_ERR_INVALID_PARAM,
    }
}

impl Network {
    /// Connects to every PE: `cards[pe]` is what PE `pe`'s [`Local::card`] returned.
    pub fn connect(local: Local, cards: &[String]) -> Result<Network> {
        let mut peers = Vec::with_capacity(cards.len());
        for card in cards {
            let mut fields = card.split('/');
            let address = fields.next().and_then(unhex).ok_or_else(bad_card)?;
            // SAFETY: the address is the bytes a peer's Worker::address produced (the card format
            // is checked by the decoding; the bytes are UCX's).
            let endpoint = unsafe { local.worker.connect(&address) }?;
            let mut rkeys = Vec::new();
            for segment in fields {
                let mut parts = segment.split('.');
                let mut number = || {
                    parts
                        .next()
                        .and_then(|t| usize::from_str_radix(t, 16).ok())
                        .ok_or_else(bad_card)
                };
                let (base, len) = (number()?, number()?);
                let packed = parts.next().and_then(unhex).ok_or_else(bad_card)?;
                rkeys.push(if len == 0 {
                    None
                } else {
                    // SAFETY: `packed` is the peer's packed key of the region it registered at
                    // `base..base+len`, as its card says.
                    Some(unsafe { endpoint.unpack_rkey(&packed, base as u64, len) }?)
                });
            }
            if rkeys.len() != local.regions.len() {
                return Err(bad_card());
            }
            peers.push(Peer { rkeys, endpoint });
        }
        let progress = Some(ProgressThread::spawn(&local.worker)?);
        Ok(Network {
            peers,
            progress,
            worker: local.worker,
            _regions: local.regions,
            _context: local.context,
            puts: AtomicU64::new(0),
            fenced: AtomicU64::new(0),
            gets: Mutex::new(Vec::new()),
        })
    }

    /// `pe`'s key of segment `seg` (which the caller checked to be non-empty).
    #[inline]
    pub fn rkey(&self, pe: usize, seg: usize) -> Result<&RemoteKey> {
        self.peers[pe].rkeys[seg].as_ref().ok_or(Error {
            call: "a remote access to an empty segment",
            status: UCS_ERR_INVALID_PARAM,
        })
    }

    /// Starts a put of `len` bytes from `src` to `offset` of `pe`'s segment `seg`; the request
    /// completes when `src` may be reused, the data is at the target after [`Network::quiet`].
    ///
    /// # Safety
    /// `src..src+len` must stay readable and unchanged until the request completes.
    #[inline]
    pub unsafe fn put(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        src: *const u8,
        len: usize,
    ) -> Result<Request> {
        // SAFETY: forwarded contract.
        let request = unsafe { self.rkey(pe, seg)?.put_nbi(offset, src, len) };
        self.puts.fetch_add(1, Ordering::Release);
        request
    }

    /// Starts a get of `len` bytes from `offset` of `pe`'s segment `seg` into `dst`, ordered after
    /// this PE's earlier puts.
    ///
    /// # Safety
    /// `dst..dst+len` must stay writable and unread until the request completes.
    #[inline]
    pub unsafe fn get(
        &self,
        pe: usize,
        seg: usize,
        offset: usize,
        dst: *mut u8,
        len: usize,
    ) -> Result<Request> {
        self.order_reads()?;
        // SAFETY: forwarded contract.
        unsafe { self.rkey(pe, seg)?.get_nbi(offset, dst, len) }
    }

    /// Keeps a non-blocking get's request until the next [`Network::quiet`].
    pub fn track(&self, request: Request) -> Result<()> {
        if !request.is_complete()? {
            self.gets
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(request);
        }
        Ok(())
    }

    /// Fences the worker if a put was issued since the last fence: what follows (a get, a fetching
    /// atomic) sees it.
    #[inline]
    pub fn order_reads(&self) -> Result<()> {
        let issued = self.puts.load(Ordering::Acquire);
        if self.fenced.load(Ordering::Acquire) < issued {
            self.worker.fence()?;
            self.fenced.fetch_max(issued, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Orders every operation issued before after those issued after (`shmem_fence`).
    pub fn fence(&self) -> Result<()> {
        let issued = self.puts.load(Ordering::Acquire);
        self.worker.fence()?;
        self.fenced.fetch_max(issued, Ordering::AcqRel);
        Ok(())
    }

    /// Completes every operation issued, at the targets too (`shmem_quiet`).
    pub fn quiet(&self) -> Result<()> {
        let issued = self.puts.load(Ordering::Acquire);
        let gets = std::mem::take(&mut *self.gets.lock().unwrap_or_else(|e| e.into_inner()));
        for get in gets {
            get.wait()?;
        }
        self.worker.flush()?;
        self.fenced.fetch_max(issued, Ordering::AcqRel);
        Ok(())
    }

    /// Closes every endpoint, waiting until `deadline` at the latest. Call it once the PEs agreed
    /// that no operation targets this PE any more, and keep the progress thread running until
    /// every PE has closed its endpoints too (a bootstrap barrier), then [`Network::stop`] it.
    pub fn close(&mut self, deadline: Instant) -> Result<()> {
        let mut first_error = Ok(());
        for peer in self.peers.drain(..) {
            let Peer { rkeys, endpoint } = peer;
            drop(rkeys);
            let closed = endpoint.close_by(deadline);
            if first_error.is_ok() {
                first_error = closed;
            }
        }
        first_error
    }

    /// Stops the progress thread (after [`Network::close`]).
    pub fn stop(&mut self) -> Result<()> {
        match self.progress.take() {
            Some(thread) => thread.stop(),
            None => Ok(()),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod hex_tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(unhex(&hex(&bytes)).unwrap(), bytes);
        assert_eq!(unhex(""), Some(vec![]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }
}
