//! One POSIX shared-memory segment: created by its owner, mapped by every local peer, unlinked as
//! soon as all of them hold a mapping so that nothing is left in /dev/shm, even after a crash.

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
// SAFETY: as above.
unsafe impl Sync for Segment {}

fn c_name(name: &str) -> io::Result<CString> {
    CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in segment name"))
}

fn last_error(what: &str, name: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what} {name}: {e}"))
}

impl Segment {
    /// Creates the segment `name` (which must not exist) of `len` bytes and maps it. Pages cost
    /// memory only once touched.
    pub fn create(name: &str, len: usize) -> io::Result<Segment> {
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
        let mapped = Self::map_fd(fd, len, std::ptr::null_mut(), name);
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
        let cname = c_name(name)?;
        // SAFETY: cname is a valid C string.
        let fd = unsafe { libc::shm_open(cname.as_ptr(), libc::O_RDWR, 0) };
        if fd < 0 {
            return Err(last_error("shm_open", name));
        }
        let mapped = Self::map_fd(fd, len, std::ptr::null_mut(), name);
        // SAFETY: the mapping holds its own reference.
        unsafe { libc::close(fd) };
        mapped
    }

    /// Creates `name`, fills it with the current contents of `base..base+len` (page aligned, in
    /// this process) and maps it over that range, so the range keeps its contents but becomes
    /// shared memory that peers can map. Used for the executable's global data.
    ///
    /// # Safety
    /// The range must be page aligned, mapped read-write, and no other thread may write it during
    /// the call.
    pub unsafe fn create_over(name: &str, base: *mut u8, len: usize) -> io::Result<Segment> {
        let staging = Segment::create(name, len)?;
        // SAFETY: the caller guarantees the source range; staging is a fresh mapping of len bytes.
        unsafe { std::ptr::copy_nonoverlapping(base, staging.base, len) };
        let cname = c_name(name)?;
        // SAFETY: the object exists (created above).
        let fd = unsafe { libc::shm_open(cname.as_ptr(), libc::O_RDWR, 0) };
        if fd < 0 {
            return Err(last_error("shm_open", name));
        }
        let over = Self::map_fd(fd, len, base, name);
        // SAFETY: the mappings hold their own references.
        unsafe { libc::close(fd) };
        drop(staging);
        over
    }

    fn map_fd(fd: i32, len: usize, at: *mut u8, name: &str) -> io::Result<Segment> {
        let mut flags = libc::MAP_SHARED | libc::MAP_NORESERVE;
        if !at.is_null() {
            flags |= libc::MAP_FIXED;
        }
        // SAFETY: mapping a shared-memory object; with MAP_FIXED the caller of create_over
        // guarantees the range is ours to replace.
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

    pub fn base(&self) -> usize {
        self.base as usize
    }

    pub fn len(&self) -> usize {
        self.len
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
