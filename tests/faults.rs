//! Faults under `oshrun -np 4`: a PE that segfaults, is killed, exits without finalize, calls
//! `shmem_global_exit(7)` or dies inside `shmem_init`; Ctrl-C and SIGTERM to oshrun; the timeout;
//! two jobs at once. Each test asserts the exit code, the message naming the PE and what happened,
//! that the job ended within 2 s of the fault, and that no PE process and no `/dev/shm` segment of
//! the job is left. The programs are `c-tests/launch_fault.c` and `c-tests/launch_ring.c`. Hang
//! reports: a deadlocked job under `--timeout`, SIGQUIT to oshrun and `SHMEM_HANG_REPORT` print,
//! for every PE, the call and what it waits for.

#[path = "support/launch.rs"]
mod support;

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};
use support::{built, leftover_processes, marker, segments};

/// Longest a job of these tests may take before the test fails.
const LIMIT: Duration = Duration::from_secs(30);
/// The job must be over this soon after the fault.
const FAULT_TO_END: f64 = 2.0;

/// Runs `oshrun -np 4 [extra] launch_fault <fault> 1 <marker>`; returns the run and oshrun's pid.
fn fault_job(fault: &str, extra: &[&str]) -> (support::Run, u32, String) {
    fault_job_of(4, fault, extra)
}

/// As [`fault_job`], with `pes` PEs.
fn fault_job_of(pes: usize, fault: &str, extra: &[&str]) -> (support::Run, u32, String) {
    let b = built();
    let mark = marker(fault);
    let mut cmd = Command::new(&b.oshrun);
    cmd.args(["-np", &pes.to_string(), "--timeout", "20"])
        .args(extra)
        .arg(&b.fault)
        .args([fault, "1", &mark]);
    let started = Instant::now();
    let child = support::spawn(&mut cmd);
    let pid = child.id();
    (support::wait(child, started, LIMIT), pid, mark)
}

/// No PE process and no segment of the job (named after oshrun's KVS name `oshrun_<pid>_...`).
fn assert_nothing_left(run: &support::Run, oshrun_pid: u32, mark: &str) {
    let left = leftover_processes(mark, Duration::from_millis(500));
    assert!(
        left.is_empty(),
        "PE processes left: {left:?}\n{}",
        run.describe()
    );
    let job = format!("oshrun_{oshrun_pid}_");
    let segs: Vec<String> = segments()
        .into_iter()
        .filter(|s| s.contains(&job))
        .collect();
    assert!(
        segs.is_empty(),
        "segments left: {segs:?}\n{}",
        run.describe()
    );
}

/// `oshrun` options that put every PE on the UCX route, over TCP.
const OVER_UCX: &[&str] = &["-x", "SHMEM_TRANSPORT=ucx", "-x", "UCX_TLS=tcp"];

fn check_fault(fault: &str, code: i32, messages: &[&str]) {
    check_fault_with(fault, &[], code, messages)
}

fn check_fault_with(fault: &str, extra: &[&str], code: i32, messages: &[&str]) {
    check_fault_of(4, fault, extra, code, messages)
}

fn check_fault_of(pes: usize, fault: &str, extra: &[&str], code: i32, messages: &[&str]) {
    let (run, pid, mark) = fault_job_of(pes, fault, extra);
    assert_eq!(run.code, code, "{}", run.describe());
    for message in messages {
        assert!(
            run.stderr.contains(message),
            "no `{message}` in stderr\n{}",
            run.describe()
        );
    }
    let after = run
        .seconds_after_fault()
        .unwrap_or_else(|| panic!("no fault-at line\n{}", run.describe()));
    assert!(
        after < FAULT_TO_END,
        "the job ended {after:.2} s after the fault\n{}",
        run.describe()
    );
    assert!(
        !run.stderr.contains("got past a barrier"),
        "{}",
        run.describe()
    );
    assert_nothing_left(&run, pid, &mark);
    println!(
        "oshrun {fault} {}: exit {} {after:.2} s after the fault, nothing left",
        extra.join(" "),
        run.code
    );
}

#[test]
fn segfault() {
    check_fault("segv", 139, &["PE 1 (pid", "killed by signal 11 (SIGSEGV)"]);
}

/// PE 1's launcher connection closes (as a dying process's sockets do before its exit can be
/// collected), PE 2 aborts the job as a peer that saw its connection to PE 1 fail does, and PE 1
/// segfaults 50 ms later: the death is reported, not the abort.
#[test]
fn segfault_seen_late() {
    check_fault(
        "segv-seen-late",
        139,
        &["PE 1 (pid", "killed by signal 11 (SIGSEGV)"],
    );
}

#[test]
fn sigkill() {
    check_fault("kill", 137, &["PE 1 (pid", "killed by signal 9 (SIGKILL)"]);
}

#[test]
fn exit_without_finalize() {
    check_fault(
        "exit3",
        3,
        &[
            "[PE 1] exited with status 3 before shmem_finalize",
            "PE 1 aborted the job with exit code 3",
        ],
    );
}

/// The same faults with every PE on the UCX route: the peers waiting on UCX are stopped as fast.
#[test]
fn segfault_over_ucx() {
    check_fault_with(
        "segv",
        OVER_UCX,
        139,
        &["PE 1 (pid", "killed by signal 11 (SIGSEGV)"],
    );
}

#[test]
fn exit_without_finalize_over_ucx() {
    check_fault_with(
        "exit3",
        OVER_UCX,
        3,
        &["[PE 1] exited with status 3 before shmem_finalize"],
    );
}

#[test]
fn global_exit_over_ucx() {
    check_fault_with(
        "global_exit",
        OVER_UCX,
        7,
        &["PE 1 aborted the job with exit code 7"],
    );
}

#[test]
fn global_exit() {
    check_fault("global_exit", 7, &["PE 1 aborted the job with exit code 7"]);
}

/// PE 1 dies before shmem_init while the others have created their segments and wait in it:
/// oshrun removes the segments they could not.
#[test]
fn killed_during_init() {
    check_fault("early-kill", 137, &["PE 1 (pid", "(SIGKILL)"]);
}

/// PE 1 returns 0 from main before shmem_init while the others wait in it (in the launcher's
/// barrier, which can no longer complete): oshrun ends the job naming PE 1 and its exit (the
/// others used to wait forever).
#[test]
fn exit_zero_before_init() {
    check_fault(
        "early-exit0",
        1,
        &[
            "oshrun: PE 1 (pid",
            "exited with code 0 before shmem_init, and PEs 0, 2, 3 wait for it in shmem_init",
        ],
    );
}

/// PE 1 is still asleep before shmem_init when `--timeout 1` fires: the report says which PEs
/// wait in shmem_init and which has not reached it.
#[test]
fn timeout_names_the_pes_in_init() {
    let (run, pid, mark) = fault_job("late-init", &["--timeout", "1"]);
    assert_eq!(run.code, 124, "{}", run.describe());
    assert_lines(
        &run,
        &[
            "oshrun: PEs 0, 2, 3 wait in the launcher's barrier (shmem_init, or shmem_finalize) for PE 1",
            "oshrun: PE 1 has not reached shmem_init",
        ],
    );
    assert!(run.elapsed < Duration::from_secs(6), "{}", run.describe());
    assert_nothing_left(&run, pid, &mark);
}

/// Waits for PE 0 to print `hanging`, sends `signal` to oshrun, checks the job ends.
fn interrupt(signal: &str, code: i32, name: &str) {
    let b = built();
    let mark = marker(signal);
    let mut cmd = Command::new(&b.oshrun);
    cmd.args(["-np", "4", "--timeout", "20", "--tag-output"])
        .arg(&b.fault)
        .args(["hang", "1", &mark]);
    let started = Instant::now();
    let child = support::spawn(&mut cmd);
    let pid = child.id();
    // Every PE is past shmem_init once all four exist and PE 0 has printed (it prints after a
    // barrier); the processes are the simplest thing to watch from here.
    let until = Instant::now() + Duration::from_secs(10);
    while support::processes_with(&mark).len() < 4 && Instant::now() < until {
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    let _ = Command::new("kill")
        .args(["-s", signal, &pid.to_string()])
        .status();
    let run = support::wait(child, started, LIMIT);
    let after = sent.elapsed().as_secs_f64();
    assert_eq!(run.code, code, "{}", run.describe());
    assert!(run.stdout.contains("[PE 0] hanging"), "{}", run.describe());
    assert!(
        run.stderr.contains(&format!("received {name}")),
        "{}",
        run.describe()
    );
    assert!(after < FAULT_TO_END, "ended {after:.2} s after {signal}");
    assert_nothing_left(&run, pid, &mark);
}

#[test]
fn ctrl_c_ends_every_pe() {
    interrupt("INT", 130, "SIGINT");
}

#[test]
fn sigterm_ends_every_pe() {
    interrupt("TERM", 143, "SIGTERM");
}

#[test]
fn timeout_ends_the_job() {
    let (run, pid, mark) = fault_job("hang", &["--timeout", "1"]);
    assert_eq!(run.code, 124, "{}", run.describe());
    assert!(run.stderr.contains("timed out"), "{}", run.describe());
    // The timeout, the PEs' two seconds to say where they are, the stop.
    assert!(run.elapsed < Duration::from_secs(5), "{}", run.describe());
    assert_nothing_left(&run, pid, &mark);
}

/// Every PE sleeps 3 s and then finalizes under `--timeout 1`: once oshrun has said the job timed
/// out it exits 124, whether the PEs end by themselves during the reports or are stopped (it used
/// to exit 0: the report signal cut their sleeps short and they finished before the stop). Each
/// PE checks that its sleep lasted 3 s (exit 98 otherwise, which would not change the 124).
#[test]
fn timeout_exits_124_whatever_the_pes_do() {
    let (run, pid, mark) = fault_job_of(2, "sleep3", &["--timeout", "1"]);
    assert_eq!(run.code, 124, "{}", run.describe());
    assert!(
        run.stderr.contains("job timed out after 1 s"),
        "{}",
        run.describe()
    );
    assert!(
        !run.stderr.contains("sleep(3) returned after"),
        "{}",
        run.describe()
    );
    assert!(run.elapsed < Duration::from_secs(6), "{}", run.describe());
    assert_nothing_left(&run, pid, &mark);
}

/// Two jobs on the node at once, one of them failing, do not disturb each other.
#[test]
fn two_jobs_at_once() {
    let b = built();
    let ring = |mark: String| {
        let b = built();
        thread::spawn(move || {
            let mut cmd = Command::new(&b.oshrun);
            cmd.args(["-np", "4", "--timeout", "20"])
                .arg(&b.ring)
                .args(["4", &mark]);
            support::run(&mut cmd, LIMIT)
        })
    };
    let (first, second) = (ring(marker("ring-a")), ring(marker("ring-b")));
    let mut cmd = Command::new(&b.oshrun);
    cmd.args(["-np", "4", "--timeout", "20"])
        .arg(&b.fault)
        .args(["segv", "1", &marker("ring-c")]);
    let failing = support::run(&mut cmd, LIMIT);
    assert_eq!(failing.code, 139, "{}", failing.describe());
    for run in [first.join().unwrap(), second.join().unwrap()] {
        assert_eq!(run.code, 0, "{}", run.describe());
        assert!(
            run.stdout.contains("launch_ring: 4 PEs passed"),
            "{}",
            run.describe()
        );
    }
}

/// The library's control block lies below the heap's program range, behind a guard: a put, get
/// or atomic 4 KiB below the first block, and an iput running below it by a negative stride, are
/// refused with the address named (they used to be accepted and corrupt the peers' barriers).
#[test]
fn control_block_is_not_symmetric() {
    for (fault, call) in [
        ("put-below", "shmem_long_put"),
        ("get-below", "shmem_long_get"),
        ("amo-below", "shmem_long_atomic_add"),
        ("iput-negative", "shmem_long_iput"),
    ] {
        check_fault(
            fault,
            1,
            &[
                &format!("[PE 1] {call}: "),
                "lies in the library's own part of the symmetric heap",
            ],
        );
    }
}

/// Python `multiprocessing` with the fork start method, the library loaded with ctypes (as
/// shmem4py loads it): a child's write to a static variable of the interpreter (in the data
/// segment that `shmem_init` shares) does not reach the PE, and a child calling into the library
/// gets the clear error and exit status 1 while the PE's job ends cleanly.
#[test]
fn fork_child_under_python() {
    let b = built();
    support::require("python3", "python3");
    let script = r#"
import ctypes, multiprocessing, sys
lib = ctypes.CDLL(sys.argv[1])
lib.shmem_init()
me = lib.shmem_my_pe()
flag = ctypes.c_int.in_dll(ctypes.pythonapi, "Py_DebugFlag")
def write_static():
    flag.value = 42
def call_library():
    lib.shmem_my_pe()
fork = multiprocessing.get_context("fork")
writer = fork.Process(target=write_static)
writer.start(); writer.join()
caller = fork.Process(target=call_library)
caller.start(); caller.join()
lib.shmem_barrier_all()
print(f"[PE {me}] writer {writer.exitcode} caller {caller.exitcode} flag {flag.value}", flush=True)
lib.shmem_finalize()
"#;
    let mut cmd = Command::new(&b.oshrun);
    cmd.args(["-np", "2", "--timeout", "20", "python3", "-c", script])
        .arg(b.profile_dir.join("librshmem.so"));
    let run = support::run(&mut cmd, LIMIT);
    assert_eq!(run.code, 0, "{}", run.describe());
    for pe in 0..2 {
        assert!(
            run.stdout
                .contains(&format!("[PE {pe}] writer 0 caller 1 flag 0")),
            "{}",
            run.describe()
        );
    }
    assert!(
        run.stderr
            .contains("shmem_my_pe: called in a child process after fork()"),
        "{}",
        run.describe()
    );
}

/// PE 1 returns from main (or calls exit(0)) without shmem_finalize while the others wait for it
/// in a barrier: its implicit finalize does not pair with their barrier (it used to, and they
/// hung); the job ends with an error naming PE 1.
#[test]
fn left_without_finalize() {
    for fault in ["return0", "exit0"] {
        check_fault(
            fault,
            1,
            &["PE 1 has left (shmem_finalize, or returned from main"],
        );
    }
}

/// The same over UCX, where the barrier's signals are messages of their own and PE 1's notice that
/// it left must not overtake its last signal or be missed.
#[test]
fn left_without_finalize_over_ucx() {
    for fault in ["return0", "exit0"] {
        check_fault_with(
            fault,
            OVER_UCX,
            1,
            &["PE 1 has left (shmem_finalize, or returned from main"],
        );
    }
}

/// PE 1 leaves while the others are in a sum of 1 MiB over UCX (the reduction's recursive
/// doubling by messages; from 4 PEs the ring takes it). At 3 PEs, PE 0's message to PE 1 goes by
/// rendezvous, whose sender waits for PE 1 to post the receive; that wait ends the job naming the
/// call and PE 1. At 2, PE 0 is the only PE left, and says so.
#[test]
fn left_during_a_large_reduction_over_ucx() {
    let three =
        "[PE 0] shmem_long_sum_reduce: PE 1 has left (shmem_finalize, or returned from main";
    let two =
        "[PE 0] wait: every other PE has left (shmem_finalize, or exit without it; PE 1 among";
    for (pes, message) in [(3, three), (2, two)] {
        check_fault_of(pes, "return0-reduce", OVER_UCX, 1, &[message]);
    }
}

/// PE 1 waits in a wait_until nobody can satisfy once the others have finalized: the job ends
/// with an error from PE 1, on each route (over UCX the count of PEs that arrived in the finalize
/// and their notices that they left travel apart).
#[test]
fn waiting_alone() {
    for extra in [&[][..], OVER_UCX] {
        check_fault_with(
            "alone",
            extra,
            1,
            &["[PE 1] wait: every other PE has left (shmem_finalize, or exit without it"],
        );
    }
}

/// The lines a deadlocked `launch_fault deadlock` job prints for PEs 0 to 2 (blocked in a barrier
/// waiting for PE 3, and in a wait_until).
const BLOCKED_LINES: &[&str] = &[
    "[PE 2] shmem_int_wait_until: ivar=0x",
    "cmp=EQ value=1: current 0 (blocked",
];
/// What the computing PE 3 answers.
const COMPUTING_LINE: &str = "[PE 3] not blocked in the library (computing";

fn assert_lines(run: &support::Run, lines: &[&str]) {
    for line in lines {
        assert!(
            run.stderr.contains(line),
            "no `{line}` in stderr\n{}",
            run.describe()
        );
    }
}

/// A deadlocked 4-PE job (PEs 0 and 1 in a barrier, PE 2 in a wait_until, PE 3 computing) under
/// `oshrun --timeout`: before the stop every PE says where it is, and the exit code stays 124.
#[test]
fn timeout_reports_where_every_pe_is() {
    let (run, pid, mark) = fault_job("deadlock", &["--timeout", "2"]);
    assert_eq!(run.code, 124, "{}", run.describe());
    assert!(run.stdout.contains("deadlocked"), "{}", run.describe());
    assert!(run.stderr.contains("timed out"), "{}", run.describe());
    assert_lines(&run, BLOCKED_LINES);
    support::assert_barrier_report(&run.stderr, &run.describe());
    assert_lines(&run, &[COMPUTING_LINE]);
    assert!(run.elapsed < Duration::from_secs(8), "{}", run.describe());
    assert_nothing_left(&run, pid, &mark);
}

/// SIGQUIT to oshrun asks every PE where it is and the job goes on (SIGTERM then ends it);
/// `SHMEM_HANG_REPORT` makes the blocked PEs report by themselves, once per wait.
#[test]
fn sigquit_and_hang_report() {
    let b = built();
    let mark = marker("deadlock-quit");
    let mut cmd = Command::new(&b.oshrun);
    cmd.args(["-np", "4", "--timeout", "20", "-x", "SHMEM_HANG_REPORT=0.5"])
        .arg(&b.fault)
        .args(["deadlock", "1", &mark]);
    let started = Instant::now();
    let child = support::spawn(&mut cmd);
    let pid = child.id();
    let until = Instant::now() + Duration::from_secs(10);
    while support::processes_with(&mark).len() < 5 && Instant::now() < until {
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_millis(2000));
    let _ = Command::new("kill")
        .args(["-s", "QUIT", &pid.to_string()])
        .status();
    thread::sleep(Duration::from_millis(3000));
    let still = support::processes_with(&mark).len();
    let _ = Command::new("kill")
        .args(["-s", "TERM", &pid.to_string()])
        .status();
    let run = support::wait(child, started, LIMIT);
    assert_eq!(
        still,
        5,
        "the job did not go on after SIGQUIT\n{}",
        run.describe()
    );
    assert_eq!(run.code, 143, "{}", run.describe());
    assert!(
        run.stderr
            .contains("received SIGQUIT, asking every PE where it is"),
        "{}",
        run.describe()
    );
    assert_lines(&run, BLOCKED_LINES);
    support::assert_barrier_report(&run.stderr, &run.describe());
    assert_lines(&run, &[COMPUTING_LINE]);
    // Each blocked PE: once by itself (SHMEM_HANG_REPORT) and once on request; PE 3 on request.
    for pe in 0..3 {
        let n = run
            .stderr
            .lines()
            .filter(|l| l.starts_with(&format!("[PE {pe}] shmem_")))
            .count();
        assert_eq!(n, 2, "PE {pe} reported {n} times\n{}", run.describe());
    }
    assert_eq!(
        run.stderr.matches(COMPUTING_LINE).count(),
        1,
        "{}",
        run.describe()
    );
    assert_nothing_left(&run, pid, &mark);
}
