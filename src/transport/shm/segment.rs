//! One POSIX shared-memory segment: created by its owner, mapped by every local peer, unlinked as
//! soon as all of them hold a mapping so that nothing is left in /dev/shm, even after a crash.
//!
//! Names carry a random token (`getrandom`), so another local user cannot predict and squat them;
//! the owner creates with `O_EXCL` and draws a new token when a name is taken
//! ([`Segment::create_unique`]), and peers learn the name from the owner's bootstrap record.
//! A [`Layout`] places a mapping so that one offset in it lands on an aligned address (the heap's
//! user range, for `shmem_align`) and turns a range of it into a guard (`PROT_NONE`).

use std::ffi::CString;
use std::io;

/// A mapping of a shared-memory segment into this process.
pub struct Segment {
    base: *mut u8,
    len: usize,
}

// SAFETY: a Segment is an address range; access to the memory is the user's concern and is
// synchronized by OpenSHMEM semantics, not by this handle.
unsafe impl Send for Segment {}
// SAFETY: `&Segment` gives only the immutable `base` and `len`; the memory behind them is
// shared memory whose accesses OpenSHMEM semantics order, not this handle.
unsafe impl Sync for Segment {}

fn c_name(name: &str) -> io::Result<CString> {
    CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in segment name"))
}

fn last_error(what: &str, name: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what} {name}: {e}"))
}

/// Where a mapping goes: `base + aligned_at` is a multiple of `align` (a power of two, at least
/// the page size), and `guard` (offset, length; page aligned) is made inaccessible.
#[derive(Clone, Copy, Debug, Default)]
pub struct Layout {
    pub aligned_at: usize,
    pub align: usize,
    pub guard: Option<(usize, usize)>,
}

/// How many taken names [`Segment::create_unique`] tries before it reports a squatter.
const NAME_TRIES: usize = 8;

/// 16 random hex digits from the kernel's generator.
pub fn random_token() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    let mut got = 0;
    while got < bytes.len() {
        // SAFETY: writing at most the remaining bytes of `bytes`.
        let n =
            unsafe { libc::getrandom(bytes.as_mut_ptr().add(got).cast(), bytes.len() - got, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(io::Error::new(e.kind(), format!("getrandom: {e}")));
        }
        got += n as usize;
    }
    Ok(u64::from_ne_bytes(bytes)).map(|v| format!("{v:016x}"))
}

/// Address space for a mapping of `len` bytes placed per `layout` (`align` not 0): reserves
/// `len + align` bytes (`PROT_NONE`, no memory), keeps the part where `aligned_at` falls on a
/// multiple of `align`, gives back the rest, and returns its first address. The caller replaces
/// the reservation with a fixed mapping ([`Segment`]'s own, or memory a network allocates there)
/// or gives it back with [`release`].
pub fn reserve(len: usize, layout: Layout, name: &str) -> io::Result<usize> {
    let span = len
        .checked_add(layout.align)
        .ok_or_else(|| io::Error::other(format!("mmap {name}: {len} bytes is too large")))?;
    // SAFETY: reserving fresh address space, touching nothing that exists.
    let reserved = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if reserved == libc::MAP_FAILED {
        return Err(last_error("mmap (reserving address space for)", name));
    }
    let start = reserved as usize;
    let base = (start + layout.aligned_at).next_multiple_of(layout.align) - layout.aligned_at;
    let base = if base < start {
        base + layout.align
    } else {
        base
    };
    // SAFETY: giving back the parts of our own reservation outside [base, base + len).
    unsafe {
        if base > start {
            libc::munmap(reserved, base - start);
        }
        let end = base + len;
        if start + span > end {
            libc::munmap(end as *mut libc::c_void, start + span - end);
        }
    }
    Ok(base)
}

/// Gives back `base..base+len`, a reservation of [`reserve`] that was not mapped over.
pub fn release(base: usize, len: usize) {
    // SAFETY: the caller's reservation, which nothing else uses.
    unsafe { libc::munmap(base as *mut libc::c_void, len) };
}

/// Makes the guard of `layout` inaccessible in the mapping placed at `base`.
pub fn protect_guard(base: usize, layout: Layout, name: &str) -> io::Result<()> {
    if let Some((off, guard)) = layout.guard {
        // SAFETY: a page-aligned range inside the caller's mapping at `base`.
        let r =
            unsafe { libc::mprotect((base + off) as *mut libc::c_void, guard, libc::PROT_NONE) };
        if r != 0 {
            return Err(last_error("mprotect (guard page of)", name));
        }
    }
    Ok(())
}

impl Segment {
    /// Creates a segment of `len` bytes under the first name `name()` returns that does not exist
    /// yet (a fresh random token each call), mapped per `layout`; returns it and its name. A name
    /// that exists belongs to someone else: after `NAME_TRIES` taken names the error says so.
    pub fn create_unique(
        mut name: impl FnMut() -> io::Result<String>,
        len: usize,
        layout: Layout,
    ) -> io::Result<(Segment, String)> {
        let mut taken = Vec::new();
        for _ in 0..NAME_TRIES {
            let candidate = name()?;
            match Self::create_at(&candidate, len, layout) {
                Ok(seg) => return Ok((seg, candidate)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => taken.push(candidate),
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "the shared-memory names {} exist already, though they hold a random token: another process creates segments under this user's names in /dev/shm",
                taken.join(", ")
            ),
        ))
    }

    /// Creates the segment `name` (which must not exist) of `len` bytes and maps it. Pages cost
    /// memory only once touched. (The library creates through [`Segment::create_unique`].)
    #[cfg(test)]
    pub fn create(name: &str, len: usize) -> io::Result<Segment> {
        Self::create_at(name, len, Layout::default())
    }

    /// `Segment::create` (a test helper), mapped per `layout`. An existing name is an error of kind `AlreadyExists`.
    pub fn create_at(name: &str, len: usize, layout: Layout) -> io::Result<Segment> {
        let cname = c_name(name)?;
        // SAFETY: cname is a valid C string; the flags ask for a new object readable by us only.
        let fd = unsafe {
            libc::shm_open(
                cname.as_ptr(),
                libc::O_CREAT | libc::O_EXCL | libc::O_RDWR,
                0o600,
            )
        };
        if fd < 0 {
            return Err(last_error("shm_open", name));
        }
        // SAFETY: fd is the descriptor just opened.
        let sized = unsafe { libc::ftruncate(fd, len as libc::off_t) };
        if sized != 0 {
            let e = last_error("ftruncate", name);
            // SAFETY: closing and unlinking what we created.
            unsafe {
                libc::close(fd);
                libc::shm_unlink(cname.as_ptr());
            }
            return Err(e);
        }
        let mapped = Self::map_laid_out(fd, len, layout, name);
        // SAFETY: the mapping (if any) holds its own reference to the object.
        unsafe { libc::close(fd) };
        if mapped.is_err() {
            // SAFETY: removing the object we created.
            unsafe { libc::shm_unlink(cname.as_ptr()) };
        }
        mapped
    }

    /// Maps the existing segment `name` (created by a peer), which must be `len` bytes long.
    pub fn open(name: &str, len: usize) -> io::Result<Segment> {
        Self::open_at(name, len, Layout::default())
    }

    /// [`Segment::open`], mapped per `layout`.
    pub fn open_at(name: &str, len: usize, layout: Layout) -> io::Result<Segment> {
        let cname = c_name(name)?;
        // SAFETY: cname is a valid C string.
        let fd = unsafe { libc::shm_open(cname.as_ptr(), libc::O_RDWR, 0) };
        if fd < 0 {
            return Err(last_error("shm_open", name));
        }
        let mapped = Self::map_laid_out(fd, len, layout, name);
        // SAFETY: the mapping holds its own reference.
        unsafe { libc::close(fd) };
        mapped
    }

    /// Maps `fd` per `layout` ([`reserve`], then the object mapped over the reservation), then
    /// protects the guard range.
    fn map_laid_out(fd: i32, len: usize, layout: Layout, name: &str) -> io::Result<Segment> {
        let seg = if layout.align == 0 {
            Self::map_fd(fd, len, std::ptr::null_mut(), name)?
        } else {
            let base = reserve(len, layout, name)?;
            // SAFETY: [base, base + len) is the reservation just made, ours to replace.
            match Self::map_fd(fd, len, base as *mut u8, name) {
                Ok(seg) => seg,
                Err(e) => {
                    release(base, len);
                    return Err(e);
                }
            }
        };
        protect_guard(seg.base as usize, layout, name)?;
        Ok(seg)
    }

    /// Creates a segment under the first free name `name()` returns (as
    /// [`Segment::create_unique`]), fills it with the current contents of the executable's global
    /// data `data` and maps it over that range, so the range keeps its contents but becomes
    /// shared memory that peers can map.
    pub fn create_over(
        name: impl FnMut() -> io::Result<String>,
        data: super::data_segment::Range,
    ) -> io::Result<(Segment, String)> {
        let (base, len) = (data.start() as *mut u8, data.len());
        let (staging, name) = Segment::create_unique(name, len, Layout::default())?;
        // SAFETY: `data` is the executable's writable data (a Range only `find` makes), mapped
        // readable, which no other thread writes during shmem_init (OpenSHMEM: symmetric data is
        // not accessed concurrently with it); staging is a fresh mapping of `len` bytes.
        unsafe { copy_raw(base, staging.base, len) };
        let cname = c_name(&name)?;
        // SAFETY: the object exists (created above).
        let fd = unsafe { libc::shm_open(cname.as_ptr(), libc::O_RDWR, 0) };
        if fd < 0 {
            let e = last_error("shm_open", &name);
            Self::unlink(&name);
            return Err(e);
        }
        let over = Self::map_fd(fd, len, base, &name);
        // SAFETY: the mappings hold their own references.
        unsafe { libc::close(fd) };
        drop(staging);
        if over.is_err() {
            Self::unlink(&name);
        }
        over.map(|seg| (seg, name))
    }

    /// Fresh shared memory of `len` bytes (zeros; a `memfd`, never a name in /dev/shm) mapped
    /// over `base..base+len`, and its descriptor, kept open by the caller for as long as this
    /// node's other processes are to map it ([`Segment::open_path`] of `/proc/<pid>/fd/<fd>`).
    ///
    /// # Safety
    /// The range is page aligned and this process's to replace (its contents are lost), used by
    /// nothing else during the call.
    pub unsafe fn create_anonymous_over(
        base: usize,
        len: usize,
    ) -> io::Result<(Segment, std::os::fd::OwnedFd)> {
        use std::os::fd::{FromRawFd, OwnedFd};
        let name = "rshmem-segment";
        // SAFETY: a valid C string; the flags ask for a new object.
        let fd = unsafe { libc::memfd_create(c"rshmem-segment".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(last_error("memfd_create", name));
        }
        // SAFETY: `fd` is the descriptor just made, owned here from now on.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: `fd` is open.
        if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
            return Err(last_error("ftruncate", name));
        }
        let seg = Self::map_fd(fd, len, base as *mut u8, name)?;
        Ok((seg, owned))
    }

    /// Maps the shared memory at `path` (another process's descriptor: `/proc/<pid>/fd/<fd>`,
    /// which this user may open), which must be `len` bytes long.
    pub fn open_path(path: &str, len: usize) -> io::Result<Segment> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("open {path}: {e}")))?;
        let size = file.metadata()?.len();
        if size != len as u64 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{path} holds {size} bytes, not {len}"),
            ));
        }
        // The mapping holds its own reference; the file closes when `file` drops.
        Self::map_fd(file.as_raw_fd(), len, std::ptr::null_mut(), path)
    }

    fn map_fd(fd: i32, len: usize, at: *mut u8, name: &str) -> io::Result<Segment> {
        let mut flags = libc::MAP_SHARED | libc::MAP_NORESERVE;
        if !at.is_null() {
            flags |= libc::MAP_FIXED;
        }
        // SAFETY: mapping a shared-memory object; with MAP_FIXED the caller of create_over or
        // create_anonymous_over guarantees the range is ours to replace.
        let p = unsafe {
            libc::mmap(
                at.cast(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                fd,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(last_error("mmap", name));
        }
        Ok(Segment {
            base: p.cast(),
            len,
        })
    }

    /// Removes the name from /dev/shm; mappings stay valid.
    pub fn unlink(name: &str) {
        if let Ok(cname) = c_name(name) {
            // SAFETY: cname is a valid C string; a missing name is harmless.
            unsafe { libc::shm_unlink(cname.as_ptr()) };
        }
    }

    /// Removes the segments in /dev/shm whose names start with `prefix` (a leading `/` is
    /// ignored) followed by the id of a process that no longer exists: what a PE killed between
    /// creating its segments and unlinking them leaves behind.
    pub fn remove_orphans(prefix: &str) {
        let prefix = prefix.trim_start_matches('/');
        let Ok(entries) = std::fs::read_dir("/dev/shm") else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
                continue;
            };
            let Some(pid) = rest
                .split('-')
                .next()
                .and_then(|p| p.parse::<libc::pid_t>().ok())
            else {
                continue;
            };
            if !process_alive(pid) {
                Self::unlink(&format!("/{}", name.to_string_lossy()));
            }
        }
    }

    #[cfg(test)]
    pub fn base(&self) -> usize {
        self.base as usize
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The segment as a [`super::Mapping`], valid while the segment is mapped: the runtime
    /// keeps every Segment it makes for the life of the process (symmetric addresses outlive
    /// `shmem_finalize`), and drops one only on the error path of its own creation.
    pub fn mapping(&self) -> super::Mapping {
        // SAFETY: mapped read-write by this Segment, which the runtime never unmaps while a
        // range of it is in use (above).
        unsafe { super::Mapping::new(self.base as usize, self.len) }
    }
}

/// Whether `pid` is a live process: it exists and is not a zombie (a killed PE whose launcher has
/// not reaped it yet).
fn process_alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0
        || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH);
    if !exists {
        return false;
    }
    // The state follows the command name, which is in parentheses and may contain anything.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            !matches!(stat.rsplit(')').next().map(str::trim_start), Some(rest) if rest.starts_with(['Z', 'X']))
        }
        Err(_) => false,
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the range this Segment mapped.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// Copies `len` bytes from `from` to `to` without calling `memcpy`. The library copies whole
/// segments of the program's memory (the global data at init, the heap and data in a fork
/// child), the bytes between the program's variables included; in a program built with
/// AddressSanitizer those bytes are redzones, and `memcpy` is the sanitizer's interceptor, which
/// would report the copy as a global-buffer-overflow of the program. Volatile word loads are not
/// turned into a `memcpy` call and are not instrumented (the library is not built with ASan).
///
/// # Safety
/// Both ranges must be mapped (readable, writable) for `len` bytes and must not overlap.
pub unsafe fn copy_raw(from: *const u8, to: *mut u8, len: usize) {
    let words = if (from as usize | to as usize).is_multiple_of(8) {
        len / 8
    } else {
        0
    };
    for i in 0..words {
        // SAFETY: word `i` lies inside both ranges, both 8-byte aligned (checked above).
        unsafe {
            let w = std::ptr::read_volatile(from.cast::<u64>().add(i));
            std::ptr::write_volatile(to.cast::<u64>().add(i), w);
        }
    }
    for i in words * 8..len {
        // SAFETY: byte `i` lies inside both ranges.
        unsafe { std::ptr::write_volatile(to.add(i), std::ptr::read_volatile(from.add(i))) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_name(tag: &str) -> String {
        format!(
            "/rshmem-test-{}-{tag}-{}",
            std::process::id(),
            random_token().unwrap()
        )
    }

    #[test]
    fn tokens_differ() {
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_eq!(a.len(), 16);
        assert_ne!(a, b);
    }

    #[test]
    fn a_taken_name_is_retried_with_a_new_one() {
        let squatted = test_name("squatted");
        let fresh = test_name("fresh");
        let squatter = Segment::create(&squatted, 4096).unwrap();
        let mut names = [squatted.clone(), fresh.clone()].into_iter();
        let (seg, name) =
            Segment::create_unique(|| Ok(names.next().unwrap()), 4096, Layout::default()).unwrap();
        assert_eq!(name, fresh);
        assert_eq!(seg.len(), 4096);
        Segment::unlink(&squatted);
        Segment::unlink(&fresh);
        drop(squatter);
    }

    #[test]
    fn only_taken_names_is_reported_as_squatting() {
        let squatted = test_name("always");
        let _squatter = Segment::create(&squatted, 4096).unwrap();
        let err = Segment::create_unique(|| Ok(squatted.clone()), 4096, Layout::default())
            .err()
            .unwrap();
        Segment::unlink(&squatted);
        assert!(
            err.to_string().contains("another process creates segments"),
            "{err}"
        );
    }

    #[test]
    fn layout_aligns_and_guards() {
        let name = test_name("layout");
        let align = 1 << 24;
        let layout = Layout {
            aligned_at: 3 * 4096,
            align,
            guard: Some((4096, 4096)),
        };
        let seg = Segment::create_at(&name, 8 * 4096, layout).unwrap();
        Segment::unlink(&name);
        assert_eq!((seg.base() + 3 * 4096) % align, 0);
        // The guard is PROT_NONE: mincore does not care, but /proc/self/maps shows it.
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let guard = format!("{:x}-{:x} ---", seg.base() + 4096, seg.base() + 2 * 4096);
        assert!(maps.contains(&guard), "no {guard} in\n{maps}");
    }
}
