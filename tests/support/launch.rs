//! What `tests/launchers.rs` and `tests/faults.rs` share: building the library, `oshrun` and the two
//! C programs (`c-tests/launch_ring.c`, `c-tests/launch_fault.c`) once; running a job in its own
//! process group with a wall-time bound; and looking for what a job left behind (processes by a
//! marker in their command line, `/dev/shm/rshmem-*` segments).

#![allow(dead_code)] // each test binary uses its own part

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The built artefacts.
pub struct Built {
    pub profile_dir: PathBuf,
    pub oshrun: PathBuf,
    pub ring: PathBuf,
    pub fault: PathBuf,
}

/// Builds the library, oshrun and the C programs once per test binary (with this test's profile).
pub fn built() -> &'static Built {
    static BUILT: OnceLock<Result<Built, String>> = OnceLock::new();
    match BUILT.get_or_init(build) {
        Ok(b) => b,
        Err(e) => panic!("{e}"),
    }
}

fn build() -> Result<Built, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let profile_dir = exe
        .parent()
        .filter(|d| d.file_name() == Some(OsStr::new("deps")))
        .and_then(Path::parent)
        .ok_or("the test binary is not in <target>/<profile>/deps")?
        .to_path_buf();
    let name = profile_dir
        .file_name()
        .and_then(OsStr::to_str)
        .unwrap_or("debug");
    let profile = if name == "debug" { "dev" } else { name };
    let target = profile_dir.parent().unwrap_or(Path::new("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "build",
            "-p",
            "rshmem",
            "-p",
            "oshrun",
            "--profile",
            profile,
        ])
        .arg("--target-dir")
        .arg(target)
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let dir = profile_dir.join("launch-tests");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let compile = |name: &str| -> Result<PathBuf, String> {
        let binary = dir.join(name);
        let out = Command::new(Path::new(ROOT).join("scripts/oshcc"))
            .args([
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Wpedantic",
                "-Werror",
                "-O1",
                "-g",
            ])
            .arg(Path::new(ROOT).join(format!("c-tests/{name}.c")))
            .arg("-o")
            .arg(&binary)
            .env("RSHMEM_LIBDIR", &profile_dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run scripts/oshcc: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "compiling {name}.c failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(binary)
    };
    Ok(Built {
        oshrun: profile_dir.join("oshrun"),
        ring: compile("launch_ring")?,
        fault: compile("launch_fault")?,
        profile_dir,
    })
}

/// Fails the test with an installation hint when `command` is not on the PATH.
pub fn require(command: &str, package: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(command).is_file()));
    assert!(
        found,
        "{command} is not installed: apt-get install -y {package} (CI installs it in .ci/run)"
    );
}

/// A finished job.
#[derive(Debug)]
pub struct Run {
    /// Exit code, or 128 + signal if the launcher itself was killed.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub started: Instant,
    /// When the launcher exited.
    pub ended: SystemTime,
    pub elapsed: Duration,
}

impl Run {
    /// Seconds from the victim's `fault-at` line to the end of the launcher.
    pub fn seconds_after_fault(&self) -> Option<f64> {
        let ns: u128 = self
            .stderr
            .lines()
            .find_map(|l| l.split("fault-at ").nth(1))?
            .trim()
            .parse()
            .ok()?;
        let end = self.ended.duration_since(UNIX_EPOCH).ok()?.as_nanos();
        Some(end.saturating_sub(ns) as f64 / 1e9)
    }

    pub fn describe(&self) -> String {
        format!(
            "exit {} after {:.2} s\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code,
            self.elapsed.as_secs_f64(),
            self.stdout,
            self.stderr
        )
    }
}

/// Starts `cmd` in its own process group with output captured.
pub fn spawn(cmd: &mut Command) -> std::process::Child {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.get_program()))
}

/// Runs `cmd` to its end; after `limit` the whole process group is killed and the test fails.
pub fn run(cmd: &mut Command, limit: Duration) -> Run {
    let started = Instant::now();
    let child = spawn(cmd);
    wait(child, started, limit)
}

/// Waits for a child started by [`spawn`] at `started`.
pub fn wait(mut child: std::process::Child, started: Instant, limit: Duration) -> Run {
    let pgid = child.id() as i32;
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            signal_group(pgid, "KILL");
            let _ = child.wait();
            let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
            panic!(
                "the job did not end within {limit:?}\n--- stdout ---\n{stdout}--- stderr ---\n{stderr}"
            );
        }
        thread::sleep(Duration::from_millis(5));
    };
    let ended = SystemTime::now();
    let elapsed = started.elapsed();
    Run {
        code: status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        started,
        ended,
        elapsed,
    }
}

fn reader(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

pub fn signal_group(pgid: i32, signal: &str) {
    let _ = Command::new("kill")
        .args(["-s", signal, "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// A string unique to one job, passed as an extra argument so that its PEs can be found in /proc.
pub fn marker(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("marker-{name}-{}-{nanos:x}", std::process::id())
}

/// Pids of live processes with `marker` among their arguments (zombies excluded).
pub fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            !zombie
                && cmdline
                    .split(|&b| b == 0)
                    .any(|arg| arg == marker.as_bytes())
        })
        .collect()
}

/// Waits up to `grace` for every process with `marker` to be gone; returns those left.
pub fn leftover_processes(marker: &str, grace: Duration) -> Vec<u32> {
    let until = Instant::now() + grace;
    loop {
        let left = processes_with(marker);
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// The `/dev/shm` entries named like rshmem segments.
pub fn segments() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with("rshmem-"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Checks the hang report of the deadlocked `launch_fault deadlock` job (PEs 0 and 1 in
/// `shmem_barrier_all`, PE 2 in a wait_until, PE 3 computing): PEs 0 and 1 each print a line for
/// the world barrier that names whom it waits for. Dissemination (a PE per core) names the round
/// and PE 3, whose signal each waits for; the counter barrier (PEs outnumber the cores) names PEs
/// 2 and 3, the two that have not arrived.
#[allow(dead_code)]
pub fn assert_barrier_report(stderr: &str, describe: &str) {
    let dissemination = [
        "[PE 0] shmem_barrier_all: barrier of team SHMEM_TEAM_WORLD, round 1 of 2: waiting for PE 3",
        "[PE 1] shmem_barrier_all: barrier of team SHMEM_TEAM_WORLD, round 2 of 2: waiting for PE 3",
    ];
    let counter = [
        "[PE 0] shmem_barrier_all: barrier of team SHMEM_TEAM_WORLD: waiting for PEs 2, 3 (2 of 4 arrived)",
        "[PE 1] shmem_barrier_all: barrier of team SHMEM_TEAM_WORLD: waiting for PEs 2, 3 (2 of 4 arrived)",
    ];
    let has = |lines: &[&str]| lines.iter().all(|l| stderr.contains(l));
    assert!(
        has(&dissemination) || has(&counter),
        "no barrier report naming the missing PEs for PEs 0 and 1\n{describe}"
    );
}
