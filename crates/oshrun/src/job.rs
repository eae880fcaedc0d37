//! One job: starts the PEs, serves their PMI requests, forwards their output, and decides how the
//! job ends.
//!
//! Everything runs on one thread around one `poll`: a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP,
//! SIGQUIT are blocked and read from it), oshrun's end of each PE's PMI socket, and with `--tag-output`
//! the PEs' stdout/stderr pipes. How a PE is started is `process`'s business. Nothing in the loop
//! waits for one PE: the PMI sockets are non-blocking, each PE's unread replies are queued up to
//! [`OUT_MAX`] bytes (a PE past it loses its PMI connection), so a client that floods requests
//! without reading the replies neither blocks the loop nor delays a signal to oshrun. What a PE
//! sent is shown escaped (`pmi::escape`), at most [`WARNINGS_MAX`] complaints per PE.
//!
//! Ending: the first PE that fails (non-zero exit, killed by a signal, exit 0 after PMI init but
//! without PMI finalize, or `cmd=abort`, whose code may be 0 for `shmem_global_exit(0)`), the
//! timeout, or a signal to oshrun decides the exit code and starts the stop: every PE still running
//! is frozen (SIGSTOP), sent SIGTERM and let go (SIGCONT), so that none runs on while another ends;
//! SIGKILL to those left after [`GRACE`]. Once stopping, later deaths are
//! consequences and are not reported. One abort is itself a consequence: that of a PE whose
//! connection to a dying PE failed. The kernel closes a dying process's sockets before its exit can
//! be collected, so such an abort can arrive first; a PE found then on its way out (its exit begun,
//! or its launcher connection closed without a finalize) is waited for (at most [`DYING_WAIT`]) and
//! its death reported instead.
//! oshrun returns only when every PE has been reaped, so no zombie is left behind; it then removes
//! the `/dev/shm` entries named after the job's KVS name that the PEs may have left.
//!
//! Hang reports: SIGQUIT to oshrun, and the timeout before it stops the job, send every PE
//! [`REPORT_SIGNAL`], on which rshmem prints where each PE is (the call and what it waits for; see
//! the library's `runtime::hang`); after a timeout the PEs get [`REPORT_TIME`] to print before the
//! stop. The signal's default action is to ignore it, so a PE that does not answer is not harmed.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{SigSet, Signal, kill};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::unistd::Pid;

use crate::cli::Options;
use crate::output::LineTagger;
use crate::pmi::LineBuffer;
use crate::process::{self, Exit, Launcher};
use crate::server::{Abort, Outcome, Server};

/// Time between SIGTERM and SIGKILL when the job is stopped.
pub const GRACE: Duration = Duration::from_secs(1);
/// Longest an abort waits for the exit of a PE found dying when it arrives ([`Job::dying`]): from
/// its sockets' closing to its exit the kernel takes microseconds.
const DYING_WAIT: Duration = Duration::from_millis(500);
/// Between two looks at a dying PE.
const DYING_POLL: Duration = Duration::from_millis(1);
/// Longest a stop waits for the PEs to freeze ([`Job::freeze`]): a stop signal takes hold at the
/// PE's next entry into the kernel, microseconds away unless it sleeps uninterruptibly.
const FREEZE_WAIT: Duration = Duration::from_millis(100);
/// Between two looks at the PEs freezing.
const FREEZE_POLL: Duration = Duration::from_micros(200);
/// Longest sleep in `poll`; a safety net, since SIGCHLD and the clocks wake the loop anyway.
const MAX_WAIT: Duration = Duration::from_secs(1);
/// The signal that asks a PE where it is (rshmem's hang report); ignored by default.
const REPORT_SIGNAL: Signal = Signal::SIGURG;
/// Time the PEs have to print their reports after the timeout, before the stop (naming the call
/// from the stack reads the library's debug information the first time: up to a second on a busy
/// node).
const REPORT_TIME: Duration = Duration::from_secs(2);
/// Exit status when `--timeout` expires (as timeout(1)).
const EXIT_TIMEOUT: i32 = 124;
/// Where POSIX shared memory segments live.
const SHM_DIR: &str = "/dev/shm";

/// oshrun's end of one PE's PMI socket.
struct PmiConn {
    /// Non-blocking: the loop never waits for one PE.
    stream: UnixStream,
    lines: LineBuffer,
    /// Replies the PE has not taken yet, at most [`OUT_MAX`] bytes; written when the socket is
    /// writable.
    out: Vec<u8>,
    /// Complaints about this PE's requests shown so far (at most [`WARNINGS_MAX`]).
    warnings: usize,
}

/// Most reply bytes a PE may leave unread: a PE that sends requests without reading the replies
/// (a broken or hostile client) loses its PMI connection past it, instead of blocking oshrun.
/// rshmem's PEs read each reply before the next request.
const OUT_MAX: usize = 1 << 20;
/// Most complaints shown about one PE's requests; then one line says the rest are not.
const WARNINGS_MAX: usize = 20;

/// One PE output pipe under `--tag-output`.
struct Tagged<R> {
    pipe: R,
    tagger: LineTagger,
}

struct Pe {
    pid: Pid,
    /// Set once the PE has been reaped.
    exit: Option<Exit>,
    pmi: Option<PmiConn>,
    stdout: Option<Tagged<File>>,
    stderr: Option<Tagged<File>>,
}

impl Pe {
    fn running(&self) -> bool {
        self.exit.is_none()
    }

    /// Sends `signal` unless the PE has been reaped (its pid could then belong to anyone).
    fn signal(&self, signal: Signal) {
        if self.running() {
            // ESRCH cannot happen before the reap; anything else changes nothing we could do.
            let _ = kill(self.pid, signal);
        }
    }
}

/// What a ready descriptor in the `poll` set belongs to.
#[derive(Debug, Clone, Copy)]
enum Source {
    Signals,
    Pmi(usize),
    Stdout(usize),
    Stderr(usize),
}

/// The job is being stopped: SIGTERM has been sent; SIGKILL follows at `kill_at`.
struct Stopping {
    kill_at: Instant,
    killed: bool,
}

struct Job {
    pes: Vec<Pe>,
    server: Server,
    kvsname: String,
    signals: SignalFd,
    /// Set together with `stopping`: the status oshrun will exit with.
    exit_code: Option<i32>,
    stopping: Option<Stopping>,
    deadline: Option<Instant>,
    timeout_secs: f64,
    /// Set when the timeout has fired: the PEs print their reports until then, then the stop.
    /// From then on the job's exit status is [`EXIT_TIMEOUT`], whatever the PEs do.
    reports_until: Option<Instant>,
}

/// Runs the job described by `opts` to its end and returns oshrun's exit status.
pub fn run(opts: &Options) -> i32 {
    let signals = match catch_signals() {
        Ok(fd) => fd,
        Err(e) => {
            say!("oshrun: cannot set up signal handling: {e}");
            return 1;
        }
    };
    let npes = opts.npes as usize;
    let kvsname = new_kvsname();
    let mut job = Job {
        pes: Vec::with_capacity(npes),
        server: Server::new(npes, kvsname.clone()),
        kvsname,
        signals,
        exit_code: None,
        stopping: None,
        deadline: opts
            .timeout_duration()
            .and_then(|d| Instant::now().checked_add(d)),
        timeout_secs: opts.timeout.unwrap_or_default(),
        reports_until: None,
    };
    let launcher = match Launcher::new(opts) {
        Ok(launcher) => launcher,
        Err(e) => {
            say!("oshrun: cannot prepare the PEs' command line and environment: {e}");
            return 1;
        }
    };
    for rank in 0..npes {
        match launcher.spawn(rank) {
            Ok(spawned) => job.pes.push(Pe {
                pid: spawned.pid,
                exit: None,
                pmi: match spawned.pmi.set_nonblocking(true) {
                    Ok(()) => Some(PmiConn {
                        stream: spawned.pmi,
                        lines: LineBuffer::default(),
                        out: Vec::new(),
                        warnings: 0,
                    }),
                    Err(e) => {
                        say!("oshrun: PE {rank}: cannot set up its PMI socket: {e}");
                        None
                    }
                },
                stdout: spawned.stdout.map(|pipe| Tagged {
                    pipe,
                    tagger: LineTagger::new(rank),
                }),
                stderr: spawned.stderr.map(|pipe| Tagged {
                    pipe,
                    tagger: LineTagger::new(rank),
                }),
            }),
            Err(e) => {
                say!(
                    "oshrun: cannot start PE {rank} ({}): {e}",
                    opts.program.to_string_lossy()
                );
                let code = match e.kind() {
                    io::ErrorKind::NotFound => 127,
                    io::ErrorKind::PermissionDenied => 126,
                    _ => 1,
                };
                job.fail(code);
                break;
            }
        }
    }
    let code = job.supervise();
    job.remove_segments();
    code
}

/// Blocks the signals oshrun handles and returns the descriptor they are read from.
fn catch_signals() -> nix::Result<SignalFd> {
    let mut mask = SigSet::empty();
    for signal in [
        Signal::SIGCHLD,
        Signal::SIGINT,
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGQUIT,
    ] {
        mask.add(signal);
    }
    mask.thread_block()?;
    SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
}

/// A KVS name unique to this job, made of `[A-Za-z0-9_]` only (PEs name shared memory after it).
fn new_kvsname() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!("oshrun_{}_{nanos:x}", std::process::id())
}

/// "0, 2, 3".
fn list(ranks: &[usize]) -> String {
    let words: Vec<String> = ranks.iter().map(usize::to_string).collect();
    words.join(", ")
}

/// "SIGSEGV" for 11.
fn signal_name(signo: i32) -> &'static str {
    Signal::try_from(signo).map_or("unknown signal", Signal::as_str)
}

fn readable(fd: impl AsFd) -> bool {
    let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
    matches!(poll(&mut fds, PollTimeout::ZERO), Ok(n) if n > 0)
}

/// Reads once from a tagged pipe and forwards the complete lines; closes it at end of stream.
fn forward<R: Read>(slot: &mut Option<Tagged<R>>, out: &mut impl Write) {
    let Some(tagged) = slot else { return };
    let mut buf = [0u8; 16 * 1024];
    match tagged.pipe.read(&mut buf) {
        // Output that cannot be written (oshrun's stdout closed) is dropped; the PE goes on.
        Ok(n) if n > 0 => {
            let _ = tagged.tagger.feed(&buf[..n], out);
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
            ) => {}
        _ => {
            let _ = tagged.tagger.finish(out);
            *slot = None;
        }
    }
}

/// Forwards whatever a tagged pipe holds right now, then closes it.
fn drain<R: Read + AsFd>(slot: &mut Option<Tagged<R>>, out: &mut impl Write) {
    // Bounded: a grandchild that inherited the pipe could keep writing forever.
    for _ in 0..4096 {
        match slot {
            Some(tagged) if readable(&tagged.pipe) => forward(slot, out),
            _ => break,
        }
    }
    if let Some(mut tagged) = slot.take() {
        let _ = tagged.tagger.finish(out);
    }
}

impl Job {
    /// The poll loop; returns the exit status once every PE has been reaped.
    fn supervise(&mut self) -> i32 {
        loop {
            // Signals first: after a Ctrl-C, PEs dying of SIGINT are a consequence, not a failure.
            self.take_signals();
            self.reap();
            if !self.pes.iter().any(Pe::running) {
                break;
            }
            self.check_stranded();
            self.check_clocks();
            for source in self.wait() {
                match source {
                    Source::Signals => {} // read at the top of the loop
                    Source::Pmi(rank) => {
                        self.write_pmi(rank);
                        self.read_pmi(rank);
                    }
                    Source::Stdout(rank) => forward(&mut self.pes[rank].stdout, &mut io::stdout()),
                    Source::Stderr(rank) => forward(&mut self.pes[rank].stderr, &mut io::stderr()),
                }
            }
        }
        for pe in &mut self.pes {
            drain(&mut pe.stdout, &mut io::stdout());
            drain(&mut pe.stderr, &mut io::stderr());
        }
        if self.reports_until.is_some() {
            // Once oshrun has said the job timed out, it did: PEs that end by themselves during
            // the reports, or fail on the stop, change nothing.
            return EXIT_TIMEOUT;
        }
        self.exit_code.unwrap_or(0)
    }

    /// Sleeps in `poll` until a descriptor is ready or a clock (timeout, SIGKILL) is due.
    fn wait(&self) -> Vec<Source> {
        let now = Instant::now();
        let mut until = now + MAX_WAIT;
        if let (Some(deadline), None) = (self.deadline, &self.stopping) {
            until = until.min(deadline);
        }
        if let (Some(reports), None) = (self.reports_until, &self.stopping) {
            until = until.min(reports);
        }
        if let Some(Stopping {
            kill_at,
            killed: false,
        }) = self.stopping
        {
            until = until.min(kill_at);
        }
        // Round up so that the loop wakes after the clock, not just before it.
        let ms = until.saturating_duration_since(now).as_millis() + 1;
        let timeout = PollTimeout::from(u16::try_from(ms).unwrap_or(u16::MAX));

        let mut sources = vec![Source::Signals];
        let mut fds = vec![PollFd::new(self.signals.as_fd(), PollFlags::POLLIN)];
        for (rank, pe) in self.pes.iter().enumerate() {
            if let Some(conn) = &pe.pmi {
                sources.push(Source::Pmi(rank));
                let mut events = PollFlags::POLLIN;
                if !conn.out.is_empty() {
                    events |= PollFlags::POLLOUT;
                }
                fds.push(PollFd::new(conn.stream.as_fd(), events));
            }
            if let Some(tagged) = &pe.stdout {
                sources.push(Source::Stdout(rank));
                fds.push(PollFd::new(tagged.pipe.as_fd(), PollFlags::POLLIN));
            }
            if let Some(tagged) = &pe.stderr {
                sources.push(Source::Stderr(rank));
                fds.push(PollFd::new(tagged.pipe.as_fd(), PollFlags::POLLIN));
            }
        }
        match poll(&mut fds, timeout) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => {
                say!("oshrun: poll failed: {e}");
                std::thread::sleep(Duration::from_millis(10));
                return Vec::new();
            }
        }
        fds.iter()
            .zip(sources)
            .filter(|(fd, _)| fd.revents().is_some_and(|r| !r.is_empty()))
            .map(|(_, source)| source)
            .collect()
    }

    /// Handles the signals that arrived; SIGCHLD needs nothing beyond the `reap` that follows.
    fn take_signals(&mut self) {
        loop {
            match self.signals.read_signal() {
                Ok(Some(info)) => {
                    let signo = i32::try_from(info.ssi_signo).unwrap_or(0);
                    if signo != Signal::SIGCHLD as i32 {
                        self.on_signal(signo);
                    }
                }
                Ok(None) => break,
                Err(Errno::EINTR) => {}
                Err(e) => {
                    say!("oshrun: cannot read signals: {e}");
                    break;
                }
            }
        }
    }

    /// SIGQUIT: ask every PE where it is. SIGINT, SIGTERM or SIGHUP: stop the job, exit
    /// 128+signal; a second one sends SIGKILL now.
    fn on_signal(&mut self, signo: i32) {
        if signo == Signal::SIGQUIT as i32 {
            say!("oshrun: received SIGQUIT, asking every PE where it is");
            self.ask_reports();
            return;
        }
        if self.stopping.is_some() {
            self.kill_all();
            return;
        }
        say!("oshrun: received {}, stopping the job", signal_name(signo));
        self.fail(128 + signo);
    }

    /// Collects the PEs that have exited and judges each exit.
    fn reap(&mut self) {
        for rank in 0..self.pes.len() {
            if !self.pes[rank].running() {
                continue;
            }
            let exit = match process::try_wait(self.pes[rank].pid) {
                Ok(Some(exit)) => exit,
                Ok(None) => continue,
                Err(e) => {
                    say!("oshrun: cannot wait for PE {rank}: {e}");
                    Exit::Code(1)
                }
            };
            self.collected(rank, exit);
        }
    }

    /// PE `rank` has exited with `exit`: serves what it sent before, then judges the exit.
    fn collected(&mut self, rank: usize, exit: Exit) {
        self.pes[rank].exit = Some(exit);
        // A finalize or abort the PE sent just before exiting may still be unread.
        self.drain_pmi(rank);
        self.judge_exit(rank, exit);
    }

    /// Whether PE `rank`, still running and not finalized, is on its way out: the kernel has begun
    /// its exit (which comes before its sockets close), or its launcher connection is closed.
    fn dying(&self, rank: usize) -> bool {
        let pe = &self.pes[rank];
        if !pe.running() || self.server.finalized(rank) {
            return false;
        }
        if process::exiting(pe.pid) {
            return true;
        }
        let Some(conn) = &pe.pmi else {
            return true;
        };
        // A Unix socket whose other end is closed (or shut down both ways) polls as hung up.
        let mut fds = [PollFd::new(conn.stream.as_fd(), PollFlags::empty())];
        matches!(poll(&mut fds, PollTimeout::ZERO), Ok(n) if n > 0)
            && fds[0]
                .revents()
                .is_some_and(|r| r.contains(PollFlags::POLLHUP))
    }

    /// Before an abort by PE `aborting` is acted on: waits (at most [`DYING_WAIT`]) for every
    /// other PE that is dying, and judges its exit, which is then what ends the job.
    fn collect_dying(&mut self, aborting: usize) {
        let until = Instant::now() + DYING_WAIT;
        for rank in 0..self.pes.len() {
            if rank == aborting || !self.dying(rank) {
                continue;
            }
            loop {
                match process::try_wait(self.pes[rank].pid) {
                    Ok(Some(exit)) => {
                        self.collected(rank, exit);
                        break;
                    }
                    Ok(None) if Instant::now() < until => std::thread::sleep(DYING_POLL),
                    // Not gone in time (or not ours to wait for): the abort decides.
                    _ => break,
                }
            }
        }
    }

    fn judge_exit(&mut self, rank: usize, exit: Exit) {
        if self.stopping.is_some() {
            return;
        }
        let pid = self.pes[rank].pid;
        match exit {
            Exit::Signal { signo, core } => {
                let core = if core { " (core dumped)" } else { "" };
                say!(
                    "oshrun: PE {rank} (pid {pid}) was killed by signal {signo} ({}){core}",
                    signal_name(signo)
                );
                self.fail(128 + signo);
            }
            Exit::UnnamedSignal => {
                say!("oshrun: PE {rank} (pid {pid}) was killed by a real-time signal");
                self.fail(1);
            }
            Exit::Code(0) => {
                if self.server.initialized(rank) && !self.server.finalized(rank) {
                    say!("oshrun: PE {rank} (pid {pid}) exited without calling shmem_finalize");
                    self.fail(1);
                }
            }
            Exit::Code(code) => {
                if self.pes.iter().any(Pe::running) {
                    let when = if self.server.initialized(rank) {
                        ""
                    } else {
                        " before shmem_init"
                    };
                    say!("oshrun: PE {rank} (pid {pid}) exited with code {code}{when}");
                }
                self.fail(code);
            }
        }
    }

    /// The job fails with `code` unless it is already stopping: every PE gets SIGTERM now, and
    /// whatever is left gets SIGKILL after [`GRACE`].
    ///
    /// The PEs are first frozen together ([`Job::freeze`]), then told to end, then let go. Ended
    /// one after the other while the rest ran on, a PE whose peer had just closed its connections
    /// could see them fail: UCX then printed errors, and UCX 1.13 sometimes died of an assertion
    /// with a backtrace (`got REP message`: 5 runs in 200 of a `shmem_global_exit` at 4 PEs over
    /// TCP), noise after the job's real end. Frozen, a PE runs no code of its own before its end
    /// (the default action of SIGTERM ends a stopped process at once); one that handles SIGTERM
    /// runs its handler once let go.
    fn fail(&mut self, code: i32) {
        if self.stopping.is_some() {
            return;
        }
        self.exit_code = Some(code);
        self.freeze();
        for pe in &self.pes {
            pe.signal(Signal::SIGTERM);
        }
        for pe in &self.pes {
            pe.signal(Signal::SIGCONT);
        }
        self.stopping = Some(Stopping {
            kill_at: Instant::now() + GRACE,
            killed: false,
        });
    }

    /// Stops every running PE (SIGSTOP) and waits until each has stopped or ended, at most
    /// [`FREEZE_WAIT`] (a PE in an uninterruptible sleep stops only when it wakes).
    fn freeze(&self) {
        for pe in &self.pes {
            pe.signal(Signal::SIGSTOP);
        }
        let until = Instant::now() + FREEZE_WAIT;
        while self
            .pes
            .iter()
            .any(|pe| pe.running() && !process::halted(pe.pid))
            && Instant::now() < until
        {
            std::thread::sleep(FREEZE_POLL);
        }
    }

    /// Sends every running PE the hang-report signal.
    fn ask_reports(&self) {
        for pe in &self.pes {
            pe.signal(REPORT_SIGNAL);
        }
    }

    fn kill_all(&mut self) {
        for pe in &self.pes {
            pe.signal(Signal::SIGKILL);
        }
        if let Some(stopping) = &mut self.stopping {
            stopping.killed = true;
        }
    }

    /// Ends the job when PEs wait in the PMI barrier for a PE that has exited without ever
    /// connecting (it returned or exited before `shmem_init`): that barrier can never complete.
    /// (A PE that exits with a non-zero status, or after connecting without a finalize, already
    /// ends the job.)
    fn check_stranded(&mut self) {
        if self.stopping.is_some() {
            return;
        }
        let waiting: Vec<usize> = (0..self.pes.len())
            .filter(|&r| self.server.in_barrier(r))
            .collect();
        if waiting.is_empty() {
            return;
        }
        let gone = self.pes.iter().enumerate().find(|(rank, pe)| {
            matches!(pe.exit, Some(Exit::Code(_))) && !self.server.initialized(*rank)
        });
        let Some((rank, pe)) = gone else { return };
        let code = match pe.exit {
            Some(Exit::Code(code)) => code,
            _ => 0,
        };
        say!(
            "oshrun: PE {rank} (pid {}) exited with code {code} before shmem_init, and PE{} {} \
             wait{} for it in shmem_init: ending the job",
            pe.pid,
            if waiting.len() == 1 { "" } else { "s" },
            list(&waiting),
            if waiting.len() == 1 { "s" } else { "" },
        );
        self.fail(if code == 0 { 1 } else { code });
    }

    /// Where each PE is as far as oshrun can tell, for the timeout's report: which wait in the
    /// PMI barrier (in `shmem_init`, or `shmem_finalize`), which have not reached `shmem_init`.
    fn say_pmi_state(&self) {
        let running = |r: &usize| self.pes[*r].running();
        let waiting: Vec<usize> = (0..self.pes.len())
            .filter(|&r| self.server.in_barrier(r))
            .filter(running)
            .collect();
        let absent: Vec<usize> = (0..self.pes.len())
            .filter(|&r| !self.server.initialized(r))
            .filter(running)
            .collect();
        if !waiting.is_empty() {
            let missing: Vec<usize> = (0..self.pes.len())
                .filter(|&r| !self.server.in_barrier(r))
                .collect();
            say!(
                "oshrun: PE{} {} wait{} in the launcher's barrier (shmem_init, or shmem_finalize) for PE{} {}",
                if waiting.len() == 1 { "" } else { "s" },
                list(&waiting),
                if waiting.len() == 1 { "s" } else { "" },
                if missing.len() == 1 { "" } else { "s" },
                list(&missing),
            );
        }
        if !absent.is_empty() {
            say!(
                "oshrun: PE{} {} ha{} not reached shmem_init (no PMI connection yet)",
                if absent.len() == 1 { "" } else { "s" },
                list(&absent),
                if absent.len() == 1 { "s" } else { "ve" },
            );
        }
    }

    /// Fires the timeout (the PEs' reports, then the stop) and the SIGKILL that follows a stop.
    fn check_clocks(&mut self) {
        let now = Instant::now();
        if self.stopping.is_none()
            && self.reports_until.is_none()
            && self.deadline.is_some_and(|d| now >= d)
        {
            say!(
                "oshrun: job timed out after {} s; where each PE is:",
                self.timeout_secs
            );
            self.say_pmi_state();
            self.ask_reports();
            self.reports_until = Some(now + REPORT_TIME);
        }
        if self.stopping.is_none() && self.reports_until.is_some_and(|r| now >= r) {
            self.fail(EXIT_TIMEOUT);
        }
        if let Some(Stopping {
            kill_at,
            killed: false,
        }) = self.stopping
        {
            if now >= kill_at {
                self.kill_all();
            }
        }
    }

    /// Reads once from PE `rank`'s PMI socket and serves the complete requests.
    fn read_pmi(&mut self, rank: usize) {
        let Some(conn) = self.pes[rank].pmi.as_mut() else {
            return;
        };
        let mut buf = [0u8; 8192];
        let lines = match conn.stream.read(&mut buf) {
            Ok(n) if n > 0 => conn.lines.push(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) =>
            {
                return;
            }
            // End of stream or a reset: the PE closed its end (after finalize, or by dying).
            _ => {
                self.pes[rank].pmi = None;
                return;
            }
        };
        for line in lines {
            let outcome = self.server.handle_line(rank, &line);
            self.apply(rank, outcome);
        }
    }

    /// Serves whatever PE `rank` sent before it exited.
    fn drain_pmi(&mut self, rank: usize) {
        // Bounded: a grandchild that inherited the socket could keep writing forever.
        for _ in 0..4096 {
            match &self.pes[rank].pmi {
                Some(conn) if readable(&conn.stream) => self.read_pmi(rank),
                _ => break,
            }
        }
    }

    fn apply(&mut self, rank: usize, outcome: Outcome) {
        if let (Some(warning), Some(conn)) = (outcome.warning, self.pes[rank].pmi.as_mut()) {
            conn.warnings += 1;
            if conn.warnings <= WARNINGS_MAX {
                say!("oshrun: PE {rank}: {warning}");
            }
            if conn.warnings == WARNINGS_MAX {
                say!(
                    "oshrun: PE {rank}: {WARNINGS_MAX} complaints about its PMI requests; \
                     further ones are not shown"
                );
            }
        }
        for (to, line) in outcome.replies {
            self.send(to, &line);
        }
        if let Some(abort) = outcome.abort {
            self.abort(rank, abort);
        }
    }

    /// Queues one reply line to PE `to` and writes what the socket takes now; a PE that leaves
    /// more than [`OUT_MAX`] bytes of replies unread loses its PMI connection.
    fn send(&mut self, to: usize, line: &str) {
        let Some(conn) = self.pes.get_mut(to).and_then(|pe| pe.pmi.as_mut()) else {
            return;
        };
        conn.out.extend_from_slice(line.as_bytes());
        self.write_pmi(to);
        let Some(conn) = self.pes[to].pmi.as_ref() else {
            return;
        };
        if conn.out.len() > OUT_MAX {
            if self.stopping.is_none() {
                say!(
                    "oshrun: PE {to}: leaves its PMI replies unread (over {OUT_MAX} bytes); \
                     closing its PMI socket"
                );
            }
            self.pes[to].pmi = None;
        }
    }

    /// Writes what PE `rank`'s socket takes of its queued replies, without waiting; a PE whose
    /// socket fails loses its PMI connection.
    fn write_pmi(&mut self, rank: usize) {
        let Some(conn) = self.pes[rank].pmi.as_mut() else {
            return;
        };
        while !conn.out.is_empty() {
            match conn.stream.write(&conn.out) {
                Ok(0) => break,
                Ok(n) => {
                    conn.out.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    let gone = matches!(
                        e.kind(),
                        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
                    );
                    if !gone && self.stopping.is_none() {
                        say!(
                            "oshrun: PE {rank}: cannot send a PMI reply ({e}); closing its PMI socket"
                        );
                    }
                    self.pes[rank].pmi = None;
                    return;
                }
            }
        }
    }

    /// `cmd=abort` from PE `rank`: stop the job now, unless a dying PE's exit comes first
    /// ([`Self::collect_dying`]). The aborting PE is stopped with the rest: rshmem's waits for
    /// it (PMI-1's abort has no reply), so that no peer finds it gone before the abort is read.
    fn abort(&mut self, rank: usize, abort: Abort) {
        if self.stopping.is_some() {
            return;
        }
        self.collect_dying(rank);
        if self.stopping.is_some() {
            return;
        }
        let detail = abort
            .message
            .map(|m| format!(": {}", crate::pmi::escape(m.as_bytes())))
            .unwrap_or_default();
        // Exit code 0 is `shmem_global_exit(0)`: an end, not a failure.
        let verb = if abort.code == 0 { "ended" } else { "aborted" };
        say!(
            "oshrun: PE {rank} {verb} the job with exit code {}{detail}",
            abort.code
        );
        self.fail(abort.code);
    }

    /// Removes `/dev/shm` entries whose name contains this job's (unique) KVS name.
    fn remove_segments(&self) {
        let Ok(entries) = std::fs::read_dir(SHM_DIR) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().contains(&self.kvsname) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}
