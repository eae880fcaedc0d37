//! Starting and reaping PE processes, with `posix_spawnp` so that the child's signal state is
//! set explicitly rather than inherited.
//!
//! oshrun keeps SIGCHLD, SIGINT, SIGTERM and SIGHUP blocked (it reads them from a signalfd), and
//! the Rust runtime ignores SIGPIPE; a PE must start with neither, so every PE is spawned with an
//! empty signal mask and SIGPIPE at its default action. (std's `Command` passes the parent's mask
//! on, and changing that would take an `unsafe` `pre_exec`.)
//!
//! Each PE gets its end of a UNIX socketpair at the descriptor number it has in oshrun, announced
//! as `PMI_FD`: that end is made inheritable just before the spawn and closed in oshrun right
//! after, while every other descriptor oshrun holds is close-on-exec, so no PE inherits another
//! PE's socket. This relies on oshrun spawning from a single thread.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::net::UnixStream;

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::spawn::{PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags, posix_spawnp};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, pipe2};

use crate::cli::Options;

/// How a PE ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// `exit(code)`.
    Code(i32),
    /// Killed by signal `signo`; `core` if it dumped core.
    Signal { signo: i32, core: bool },
    /// Killed by a signal nix cannot name (a real-time signal).
    UnnamedSignal,
}

/// A PE just started: its pid and oshrun's ends of its PMI socket and output pipes.
pub struct Spawned {
    pub pid: Pid,
    pub pmi: UnixStream,
    /// With `--tag-output`: the read ends of the PE's stdout and stderr.
    pub stdout: Option<File>,
    pub stderr: Option<File>,
}

/// Everything that is the same for all PEs of a job, prepared once.
pub struct Launcher {
    program: CString,
    argv: Vec<CString>,
    /// oshrun's environment with `-x` applied, without the `PMI_` variables set per PE.
    env: Vec<CString>,
    npes: u32,
    tag_output: bool,
    attr: PosixSpawnAttr,
    devnull: File,
}

fn c_string(bytes: Vec<u8>) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "contains NUL"))
}

const PER_PE_VARIABLES: [&str; 3] = ["PMI_FD", "PMI_RANK", "PMI_SIZE"];

impl Launcher {
    pub fn new(opts: &Options) -> io::Result<Launcher> {
        let program = c_string(opts.program.clone().into_vec())?;
        let argv = std::iter::once(&opts.program)
            .chain(&opts.args)
            .map(|a| c_string(a.clone().into_vec()))
            .collect::<io::Result<_>>()?;

        let overridden = |key: &OsString| {
            PER_PE_VARIABLES.iter().any(|v| key == v) || opts.env.iter().any(|(k, _)| k == key)
        };
        let env = std::env::vars_os()
            .filter(|(key, _)| !overridden(key))
            .chain(opts.env.iter().cloned())
            .map(|(key, value)| {
                let mut entry = key.into_vec();
                entry.push(b'=');
                entry.extend(value.into_vec());
                c_string(entry)
            })
            .collect::<io::Result<_>>()?;

        let mut attr = PosixSpawnAttr::init()?;
        attr.set_flags(
            PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF,
        )?;
        attr.set_sigmask(&SigSet::empty())?;
        let mut defaults = SigSet::empty();
        defaults.add(Signal::SIGPIPE);
        attr.set_sigdefault(&defaults)?;

        Ok(Launcher {
            program,
            argv,
            env,
            npes: opts.npes,
            tag_output: opts.tag_output,
            attr,
            devnull: File::open("/dev/null")?,
        })
    }

    /// Starts PE `rank`: stdin is oshrun's for PE 0 and `/dev/null` for the others; stdout and
    /// stderr are oshrun's, or pipes with `--tag-output`.
    pub fn spawn(&self, rank: usize) -> io::Result<Spawned> {
        let (ours, theirs) = UnixStream::pair()?;
        // Keep the PE's end off 0..=2, which the stdio set-up could overwrite (possible only if
        // oshrun itself was started with one of them closed); the duplicate is >= 3.
        let theirs = if theirs.as_raw_fd() <= 2 {
            theirs.try_clone()?
        } else {
            theirs
        };
        fcntl(&theirs, FcntlArg::F_SETFD(FdFlag::empty()))?;

        let mut actions = PosixSpawnFileActions::init()?;
        if rank != 0 {
            actions.add_dup2(self.devnull.as_raw_fd(), 0)?;
        }
        // Read ends for oshrun, write ends that must stay open until the spawn is done.
        let mut pipes: Vec<(File, OwnedFd)> = Vec::new();
        if self.tag_output {
            for target in [1, 2] {
                let (read, write) = pipe2(OFlag::O_CLOEXEC)?;
                actions.add_dup2(write.as_raw_fd(), target)?;
                pipes.push((File::from(read), write));
            }
        }

        let mut env = self.env.clone();
        env.push(c_string(
            format!("PMI_FD={}", theirs.as_raw_fd()).into_bytes(),
        )?);
        env.push(c_string(format!("PMI_RANK={rank}").into_bytes())?);
        env.push(c_string(format!("PMI_SIZE={}", self.npes).into_bytes())?);

        let pid = posix_spawnp(&self.program, &actions, &self.attr, &self.argv, &env)?;
        drop(theirs);
        let mut reads = pipes.into_iter().map(|(read, _write)| read);
        Ok(Spawned {
            pid,
            pmi: ours,
            stdout: reads.next(),
            stderr: reads.next(),
        })
    }
}

/// Reaps `pid` if it has ended; `Ok(None)` while it runs.
pub fn try_wait(pid: Pid) -> io::Result<Option<Exit>> {
    match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
        Ok(WaitStatus::Exited(_, code)) => Ok(Some(Exit::Code(code))),
        Ok(WaitStatus::Signaled(_, signal, core)) => Ok(Some(Exit::Signal {
            signo: signal as i32,
            core,
        })),
        // StillAlive, or a stop/continue report (not asked for): still running.
        Ok(_) | Err(Errno::EINTR) => Ok(None),
        // nix reaped the child but could not turn its signal number into a `Signal`.
        Err(Errno::EINVAL) => Ok(Some(Exit::UnnamedSignal)),
        Err(e) => Err(e.into()),
    }
}

/// The kernel's flag of a task whose exit has begun (`PF_EXITING` in `include/linux/sched.h`).
const PF_EXITING: u64 = 0x4;

/// Whether `pid`'s exit has begun: the kernel sets `PF_EXITING` on each thread as it starts to
/// exit, before the process's memory and files go and long before it can be reaped. False when
/// it cannot be told (no `/proc`).
pub fn exiting(pid: Pid) -> bool {
    stat(pid).is_some_and(|(state, flags)| matches!(state, 'Z' | 'X') || flags & PF_EXITING != 0)
}

/// Whether `pid` runs no code of its own any more: stopped by a signal, or its exit over (a
/// zombie, or gone). True when it cannot be told (no `/proc`), so that a wait for it ends.
pub fn halted(pid: Pid) -> bool {
    stat(pid).is_none_or(|(state, _)| matches!(state, 'T' | 't' | 'Z' | 'X'))
}

/// The state letter and the flags of `pid` in `/proc/<pid>/stat`, if it can be read.
fn stat(pid: Pid) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may hold anything, so
    // the fields are counted from its closing parenthesis.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let flags = fields
        .nth(5)
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(0);
    Some((state, flags))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn exiting_tells_a_running_process_from_an_ended_one() {
        assert!(!exiting(Pid::this()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = Pid::from_raw(child.id() as i32);
        // A zombie until reaped: its exit is over.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !exiting(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(exiting(pid));
        child.wait().unwrap();
    }

    #[test]
    fn halted_tells_a_stopped_process_from_a_running_one() {
        assert!(!halted(Pid::this()));
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = Pid::from_raw(child.id() as i32);
        assert!(!halted(pid));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !halted(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(halted(pid));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(halted(pid), "a reaped process is gone");
    }
}
