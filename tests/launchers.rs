//! The 4-PE put/AMO/barrier program (`c-tests/launch_ring.c`) under every launcher rshmem supports,
//! and faults (`c-tests/launch_fault.c`) under the site launchers:
//!
//! | launcher | command | bootstrap |
//! |---|---|---|
//! | oshrun | `oshrun -np 4 prog` | PMI-1 over `PMI_FD` |
//! | MPICH Hydra | `mpiexec.hydra -n 4 prog` | PMI-1 over `PMI_FD` |
//! | MPICH Hydra | `mpiexec.hydra -pmi-port -n 4 prog` | PMI-1 over TCP (`PMI_PORT`, `PMI_ID`) |
//! | Open MPI | `mpirun --oversubscribe -np 4 prog` | PMIx (libpmix loaded at run time) |
//! | Slurm | `srun -n 4 --overcommit --mpi=pmix prog` | PMIx |
//!
//! A missing launcher fails its test with the package to install; `srun` needs the one-node
//! cluster of `scripts/slurm-cluster`, which the test starts (and stops) if it is not running.
//! Jobs run one at a time (a lock), so that `/dev/shm` can be compared before and after each.
//!
//! Under the site launchers a fault must end the job with a non-zero status, bounded in time, with
//! no PE left. A PE that exits non-zero without `shmem_finalize` aborts the job through the
//! bootstrap, so every launcher ends it. A PE killed inside `shmem_init` leaves its peers'
//! segments in `/dev/shm` (the site launchers do not know them); the next rshmem job on the node
//! removes them, which the test checks.

#[path = "support/launch.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};
use support::{built, leftover_processes, marker, require, segments};

/// Longest a job may take before the test fails.
const LIMIT: Duration = Duration::from_secs(45);
/// A faulty job under a site launcher must be over this soon after the fault (Open MPI and Slurm
/// wait a grace period before SIGKILL).
const FAULT_TO_END: f64 = 10.0;

/// One job at a time.
static ONE_JOB: Mutex<()> = Mutex::new(());

fn hydra(extra: &[&str]) -> Command {
    require("mpiexec.hydra", "mpich");
    let mut cmd = Command::new("mpiexec.hydra");
    cmd.args(extra).args(["-n", "4"]);
    cmd
}

fn mpirun() -> Command {
    require("mpirun.openmpi", "openmpi-bin");
    let mut cmd = Command::new("mpirun.openmpi");
    // Root needs both variables; the machines have fewer cores than PEs.
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-np", "4"]);
    cmd
}

fn srun(conf: &str) -> Command {
    let mut cmd = Command::new("srun");
    cmd.env("SLURM_CONF", conf).args([
        "-n",
        "4",
        "--overcommit",
        "--mpi=pmix",
        "--kill-on-bad-exit=1",
        "--time=1",
    ]);
    cmd
}

/// Runs the ring under `cmd` and checks it passed, left nothing, and its segments are gone.
fn ring(mut cmd: Command) {
    let _one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let before = segments();
    let mark = marker("ring");
    cmd.arg(&built().ring).args(["4", &mark]);
    let run = support::run(&mut cmd, LIMIT);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout.contains("launch_ring: 4 PEs passed"),
        "{}",
        run.describe()
    );
    assert_eq!(leftover_processes(&mark, Duration::from_secs(2)), []);
    let new: Vec<String> = segments()
        .into_iter()
        .filter(|s| !before.contains(s))
        .collect();
    assert!(new.is_empty(), "segments left: {new:?}");
}

/// Runs `launch_fault <fault>` under `make()` and checks the job ended non-zero (`code` if given)
/// and soon, with no PE left.
fn fault(mut cmd: Command, fault: &str, code: Option<i32>) -> support::Run {
    let _one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let before = segments();
    let mark = marker(fault);
    cmd.arg(&built().fault).args([fault, "1", &mark]);
    let run = support::run(&mut cmd, LIMIT);
    assert_ne!(run.code, 0, "{fault}: {}", run.describe());
    if let Some(code) = code {
        assert_eq!(run.code, code, "{fault}: {}", run.describe());
    }
    // A launcher that aborts a job may drop the victim's last output (Hydra sometimes does):
    // then the whole run, an upper bound, has to fit.
    let after = run
        .seconds_after_fault()
        .unwrap_or(run.elapsed.as_secs_f64());
    assert!(
        after < FAULT_TO_END,
        "{fault}: ended {after:.2} s after the fault\n{}",
        run.describe()
    );
    let left = leftover_processes(&mark, Duration::from_secs(3));
    assert!(
        left.is_empty(),
        "{fault}: PEs left: {left:?}\n{}",
        run.describe()
    );
    let new: Vec<String> = segments()
        .into_iter()
        .filter(|s| !before.contains(s))
        .collect();
    if fault == "early-kill" || fault == "early-exit0" {
        // The peers were killed between creating their segments and unlinking them; only oshrun
        // removes those. The next rshmem job on the node must: run one (a singleton) and check.
        let mut next = Command::new(&built().ring);
        next.arg("1");
        let run = support::run(&mut next, LIMIT);
        assert_eq!(
            run.code,
            0,
            "{fault}: the next job failed: {}",
            run.describe()
        );
        let still: Vec<&String> = new
            .iter()
            .filter(|n| Path::new("/dev/shm").join(n).exists())
            .collect();
        assert!(
            still.is_empty(),
            "{fault}: the next job did not remove the dead job's segments: {still:?}"
        );
    } else {
        assert!(new.is_empty(), "{fault}: segments left: {new:?}");
    }
    println!(
        "{:?} {fault}: exit {} {after:.2} s after the fault",
        cmd.get_program(),
        run.code
    );
    run
}

/// A PE whose launcher was killed must be gone this soon.
const ORPHAN_TO_END: f64 = 2.0;

/// Starts `launch_fault <fault>` under `cmd` (`orphan`: every PE waiting in the library; `hang`:
/// every PE outside it), kills the launcher with SIGKILL once the four PEs run, and checks that
/// every PE is gone within [`ORPHAN_TO_END`] (a PE whose launcher is gone notices inside its
/// wait, dies with its parent, or is ended by its watch of the parent: `runtime::orphan`).
fn launcher_killed(mut cmd: Command, fault: &str) {
    let _one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let mark = marker(fault);
    cmd.arg(&built().fault).args([fault, "1", &mark]);
    let child = support::spawn(&mut cmd);
    let launcher = child.id();
    // The launcher has the marker among its arguments too.
    let pes = || -> Vec<u32> {
        support::processes_with(&mark)
            .into_iter()
            .filter(|&p| p != launcher)
            .collect()
    };
    // What is tested is the end, not the start: Open MPI's mpirun once took 20 s to start the
    // PEs of the second job of `mpirun_killed` during a full `scripts/test`.
    let started = Instant::now();
    while pes().len() < 4 && started.elapsed() < Duration::from_secs(60) {
        thread::sleep(Duration::from_millis(20));
    }
    let running = pes();
    assert!(
        running.len() >= 4,
        "the PEs did not start in {:.0?}: {running:?}",
        started.elapsed()
    );
    thread::sleep(Duration::from_millis(500));
    let _ = Command::new("kill")
        .args(["-s", "KILL", &launcher.to_string()])
        .status();
    let killed = Instant::now();
    let until = killed + Duration::from_secs(10);
    let mut gone = None;
    while Instant::now() < until {
        if pes().is_empty() {
            gone = Some(killed.elapsed().as_secs_f64());
            break;
        }
        thread::sleep(Duration::from_millis(20));
    }
    let left = pes();
    support::signal_group(launcher as i32, "KILL");
    let run = support::wait(child, Instant::now(), LIMIT);
    assert!(
        left.is_empty(),
        "{fault}: PEs left 10 s after the launcher was killed: {left:?}\n{}",
        run.describe()
    );
    let after = gone.unwrap_or(10.0);
    println!(
        "{:?} launcher killed ({fault}): PEs gone {after:.2} s later",
        cmd.get_program()
    );
    assert!(
        after < ORPHAN_TO_END,
        "{fault}: PEs gone only {after:.2} s after the launcher was killed\n{}",
        run.describe()
    );
}

/// The launcher killed while every PE waits in the library (`orphan`) and while every PE is
/// outside it (`hang`: computing, or sleeping, as far as the library can tell).
#[test]
fn oshrun_killed() {
    for fault in ["orphan", "hang"] {
        let mut cmd = Command::new(&built().oshrun);
        cmd.args(["-np", "4"]);
        launcher_killed(cmd, fault);
    }
}

#[test]
fn mpirun_killed() {
    for fault in ["orphan", "hang"] {
        launcher_killed(mpirun(), fault);
    }
}

#[test]
fn hydra_killed() {
    for fault in ["orphan", "hang"] {
        launcher_killed(hydra(&[]), fault);
    }
}

#[test]
fn oshrun_ring() {
    let mut cmd = Command::new(&built().oshrun);
    cmd.args(["-np", "4", "--timeout", "30"]);
    ring(cmd);
}

#[test]
fn hydra_ring() {
    ring(hydra(&[]));
}

#[test]
fn hydra_pmi_port_ring() {
    ring(hydra(&["-pmi-port"]));
}

#[test]
fn mpirun_ring() {
    ring(mpirun());
}

#[test]
fn hydra_faults() {
    fault(hydra(&[]), "segv", None);
    fault(hydra(&[]), "kill", None);
    fault(hydra(&[]), "exit3", Some(3));
    fault(hydra(&[]), "global_exit", Some(7));
    fault(hydra(&[]), "early-kill", None);
}

/// PE 1 returns 0 from main before shmem_init while the others wait in it. Hydra does not end
/// the job for an exit 0, with or without its auto-cleanup: the PEs waiting in its barrier see
/// that PE 1 is no longer among the processes of their node and end the job naming it (they
/// used to wait for ever; the test would fail at its time limit). Open MPI's mpirun ends the job
/// itself.
#[test]
fn exit_zero_before_init_under_site_launchers() {
    for extra in [&[][..], &["-disable-auto-cleanup"]] {
        let run = fault(hydra(extra), "early-exit0", Some(1));
        // Hydra, once a PE aborts, drops what it has not read of the PEs' output: the abort
        // waits until it has read the line (before that wait, the line was missing in 1 run in 2
        // with -disable-auto-cleanup).
        assert!(
            run.stderr.contains(
                "shmem_init: launcher exchange failed: the launcher's barrier can never complete: \
                 PE 1 has ended without entering it"
            ),
            "{}",
            run.describe()
        );
    }
    fault(mpirun(), "early-exit0", None);
}

#[test]
fn mpirun_faults() {
    fault(mpirun(), "segv", None);
    fault(mpirun(), "kill", None);
    fault(mpirun(), "exit3", Some(3));
    fault(mpirun(), "global_exit", Some(7));
    fault(mpirun(), "early-kill", None);
}

/// The Slurm cluster of `scripts/slurm-cluster`: started here (and stopped on drop) unless it
/// already runs.
struct Cluster {
    conf: String,
    started_here: bool,
}

impl Cluster {
    fn get() -> Cluster {
        require("srun", "slurm-client (or slurm-wlm)");
        require("slurmd", "slurmd (or slurm-wlm)");
        require("munged", "munge");
        let script = Path::new(support::ROOT).join("scripts/slurm-cluster");
        let env = Command::new(&script)
            .arg("env")
            .output()
            .expect("slurm-cluster env");
        let conf = String::from_utf8_lossy(&env.stdout)
            .trim()
            .trim_start_matches("export SLURM_CONF=")
            .to_string();
        let running = Command::new(&script)
            .arg("status")
            .status()
            .is_ok_and(|s| s.success());
        if !running {
            let out = Command::new(&script)
                .arg("start")
                .output()
                .expect("slurm-cluster start");
            assert!(
                out.status.success(),
                "scripts/slurm-cluster start failed:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Cluster {
            conf,
            started_here: !running,
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.started_here {
            let script = Path::new(support::ROOT).join("scripts/slurm-cluster");
            let _ = Command::new(script).arg("stop").status();
        }
    }
}

#[test]
fn srun_ring_and_faults() {
    let cluster = Cluster::get();
    ring(srun(&cluster.conf));
    fault(srun(&cluster.conf), "segv", None);
    fault(srun(&cluster.conf), "kill", None);
    fault(srun(&cluster.conf), "exit3", None);
    fault(srun(&cluster.conf), "global_exit", Some(7));
    fault(srun(&cluster.conf), "early-kill", None);
    // Slurm waits for every task, and a PE that returned 0 before shmem_init never joins the
    // PMIx fence: the others watch their node's tasks and end the job naming it.
    let run = fault(srun(&cluster.conf), "early-exit0", Some(1));
    assert!(
        run.stderr.contains("PE 1 has ended without entering it"),
        "{}",
        run.describe()
    );
}

/// `SHMEM_HANG_REPORT` under Hydra (no oshrun): the PEs of a deadlocked job that are blocked in
/// the library say where they are by themselves; Hydra's own timeout then ends the job.
#[test]
fn hydra_hang_report() {
    let _one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let mark = marker("deadlock");
    let mut cmd = hydra(&[]);
    cmd.env("SHMEM_HANG_REPORT", "1")
        .env("MPIEXEC_TIMEOUT", "5")
        .arg(&built().fault)
        .args(["deadlock", "1", &mark]);
    let run = support::run(&mut cmd, LIMIT);
    assert_ne!(run.code, 0, "{}", run.describe());
    support::assert_barrier_report(&run.stderr, &run.describe());
    let line = "[PE 2] shmem_int_wait_until: ivar=0x";
    assert!(run.stderr.contains(line), "no `{line}`\n{}", run.describe());
    assert_eq!(leftover_processes(&mark, Duration::from_secs(3)), []);
}
