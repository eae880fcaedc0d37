//! End-to-end tests of the `oshrun` binary: launching, exit policy, signals, stdio, and the PMI-1
//! protocol as a client sees it (a small Python 3 client runs as the PE program).
//!
//! Every run is bounded twice: `--timeout` where the test allows it, and [`LIMIT`] on the Rust
//! side, after which oshrun is killed and the test fails instead of hanging. PEs that must be
//! killed `exec` their `sleep`, so that the pid oshrun signals is the process that sleeps.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const OSHRUN: &str = env!("CARGO_BIN_EXE_oshrun");
/// Longest any single oshrun run may take before the test fails.
const LIMIT: Duration = Duration::from_secs(60);

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

fn start(args: &[&str], stdin: bool) -> Child {
    Command::new(OSHRUN)
        .args(args)
        .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start oshrun")
}

/// Reads a pipe to its end on a thread; the receiver gets the text.
fn collect(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    rx
}

/// Waits for `child` (started at `t0`) to exit, failing the test after [`LIMIT`].
fn wait_within_limit(child: &mut Child, t0: Instant) -> ExitStatus {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if t0.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("oshrun did not finish within {LIMIT:?}");
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// Waits for `child` (started at `t0`) and its output, failing the test after [`LIMIT`].
fn finish(mut child: Child, t0: Instant) -> Run {
    let out = collect(child.stdout.take().unwrap());
    let err = collect(child.stderr.take().unwrap());
    let status = wait_within_limit(&mut child, t0);
    let elapsed = t0.elapsed();
    let left = LIMIT.saturating_sub(t0.elapsed()) + Duration::from_secs(1);
    let stdout = out
        .recv_timeout(left)
        .expect("stdout still open after oshrun exited");
    let stderr = err
        .recv_timeout(left)
        .expect("stderr still open after oshrun exited");
    Run {
        code: status.code(),
        stdout,
        stderr,
        elapsed,
    }
}

fn oshrun(args: &[&str]) -> Run {
    let t0 = Instant::now();
    finish(start(args, false), t0)
}

fn oshrun_with_input(args: &[&str], input: &str) -> Run {
    let t0 = Instant::now();
    let mut child = start(args, true);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    finish(child, t0)
}

fn sorted_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

/// A scratch file unique to this test process and name, removed when dropped.
struct Scratch(String);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("oshrun-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Scratch(path.to_string_lossy().into_owned())
    }

    /// The pids PE scripts appended, one per line.
    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(&self.0)
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn assert_gone(pids: &[u32]) {
    for pid in pids {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "PE process {pid} is still there after oshrun returned"
        );
    }
}

#[test]
fn non_pmi_program_runs_on_every_pe() {
    let run = oshrun(&["--timeout", "20", "-np", "3", "echo", "hello"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "hello\nhello\nhello\n");
    assert_eq!(run.stderr, "");
}

#[test]
fn default_is_one_pe() {
    let run = oshrun(&["sh", "-c", "echo $PMI_RANK/$PMI_SIZE"]);
    assert_eq!(run.code, Some(0));
    assert_eq!(run.stdout, "0/1\n");
}

#[test]
fn pes_get_rank_size_and_fd() {
    let run = oshrun(&[
        "--timeout",
        "20",
        "-np",
        "4",
        "sh",
        "-c",
        "echo $PMI_RANK $PMI_SIZE $PMI_FD",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines = sorted_lines(&run.stdout);
    assert_eq!(lines.len(), 4);
    for (rank, line) in lines.iter().enumerate() {
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(fields[..2], [rank.to_string(), "4".to_owned()]);
        assert!(fields[2].parse::<u32>().unwrap() > 2, "{line}");
    }
}

#[test]
fn every_np_spelling_works() {
    for np in [
        &["-np", "2"][..],
        &["-n", "2"],
        &["--np", "2"],
        &["-np=2"],
        &["--np=2"],
    ] {
        let mut args = np.to_vec();
        args.extend(["--timeout", "20", "echo", "x"]);
        let run = oshrun(&args);
        assert_eq!(run.code, Some(0), "{np:?}: {}", run.stderr);
        assert_eq!(run.stdout, "x\nx\n", "{np:?}");
    }
}

#[test]
fn export_sets_variables() {
    let run = oshrun(&[
        "-x",
        "OSHRUN_TEST_VAR=a=b",
        "-x",
        "HOME",
        "-np",
        "2",
        "sh",
        "-c",
        "echo $OSHRUN_TEST_VAR",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "a=b\na=b\n");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["-np", "0", "echo"][..],
        &["-np", "abc", "echo"],
        &["-np", "-1", "echo"],
        &["-np"],
        &["-np=", "echo"],
        &["--timeout", "0", "echo"],
        &["--timeout", "soon", "echo"],
        &["--bogus", "echo"],
        &["-x", "=1", "echo"],
        &[],
        &["--"],
    ] {
        let run = oshrun(args);
        assert_eq!(run.code, Some(2), "{args:?}");
        assert!(
            run.stderr.starts_with("oshrun: "),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

#[test]
fn help_and_version() {
    let run = oshrun(&["--help"]);
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.starts_with("Usage: oshrun"));
    assert_eq!(oshrun(&["-h"]).stdout, run.stdout);
    let run = oshrun(&["--version"]);
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.stdout,
        format!("oshrun (rshmem) {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn missing_or_unrunnable_program() {
    let run = oshrun(&["-np", "2", "./no/such/program"]);
    assert_eq!(run.code, Some(127));
    assert!(run.stderr.contains("cannot start PE 0"), "{}", run.stderr);
    let run = oshrun(&["-np", "2", "/dev/null"]);
    assert_eq!(run.code, Some(126), "{}", run.stderr);
}

#[test]
fn failing_pe_stops_the_job_with_its_code() {
    let file = Scratch::new("fail-pids");
    let script = format!(
        "if [ $PMI_RANK = 1 ]; then sleep 0.2; exit 3; fi; echo $$ >> {}; exec sleep 30",
        file.0
    );
    let run = oshrun(&["--timeout", "40", "-np", "4", "sh", "-c", &script]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(
        run.elapsed < Duration::from_secs(5),
        "took {:?}",
        run.elapsed
    );
    assert!(
        run.stderr.contains("oshrun: PE 1 (pid ") && run.stderr.contains("exited with code 3"),
        "{}",
        run.stderr
    );
    let pids = file.pids();
    assert_eq!(pids.len(), 3);
    assert_gone(&pids);
}

/// oshrun's stderr is a pipe nobody reads any more (`oshrun ... 2>&1 | head -1`): reporting the
/// failing PE must not stop oshrun before it has stopped the others.
#[test]
fn failing_pe_with_stderr_closed() {
    let file = Scratch::new("closed-stderr-pids");
    let script = format!(
        "if [ $PMI_RANK = 1 ]; then sleep 0.3; exit 3; fi; echo $$ >> {}; exec sleep 30",
        file.0
    );
    let t0 = Instant::now();
    let mut child = Command::new(OSHRUN)
        .args(["--timeout", "40", "-np", "3", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start oshrun");
    drop(child.stderr.take());
    let status = wait_within_limit(&mut child, t0);
    assert_eq!(status.code(), Some(3), "{status:?}");
    let pids = file.pids();
    assert_eq!(pids.len(), 2);
    assert_gone(&pids);
}

#[test]
fn pe_killed_by_a_signal() {
    let script = "if [ $PMI_RANK = 0 ]; then sleep 0.2; kill -SEGV $$; fi; exec sleep 30";
    let run = oshrun(&["--timeout", "40", "-np", "2", "sh", "-c", script]);
    assert_eq!(run.code, Some(128 + 11), "{}", run.stderr);
    assert!(
        run.elapsed < Duration::from_secs(5),
        "took {:?}",
        run.elapsed
    );
    assert!(
        run.stderr.contains("oshrun: PE 0 (pid ")
            && run.stderr.contains("was killed by signal 11 (SIGSEGV)"),
        "{}",
        run.stderr
    );
}

#[test]
fn pe_ignoring_sigterm_gets_sigkill() {
    let file = Scratch::new("stubborn-pids");
    let script = format!(
        "trap '' TERM; if [ $PMI_RANK = 1 ]; then sleep 0.2; exit 5; fi; \
         echo $$ >> {}; exec sleep 30",
        file.0
    );
    let run = oshrun(&["--timeout", "40", "-np", "2", "sh", "-c", &script]);
    assert_eq!(run.code, Some(5), "{}", run.stderr);
    assert!(
        run.elapsed >= Duration::from_millis(1100) && run.elapsed < Duration::from_secs(5),
        "took {:?}",
        run.elapsed
    );
    assert_gone(&file.pids());
}

/// A stop freezes the PEs (SIGSTOP) before it ends them and lets them go (SIGCONT) after, so that
/// none runs on while another ends. The PEs here handle SIGTERM and SIGCONT and note each one;
/// every PE left when PE 2 fails must have been continued.
#[test]
fn a_stop_freezes_the_pes_first() {
    let file = Scratch::new("frozen");
    let script = format!(
        r#"
import os, signal, sys, time
rank = os.environ["PMI_RANK"]
if rank == "2":
    time.sleep(0.3)
    sys.exit(4)
def note(what):
    with open("{}", "a") as f:
        f.write(what + " " + rank + "\n")
signal.signal(signal.SIGTERM, lambda *_: note("term"))
signal.signal(signal.SIGCONT, lambda *_: (note("cont"), os._exit(0)))
time.sleep(30)
"#,
        file.0
    );
    let run = oshrun(&["--timeout", "40", "-np", "4", "python3", "-c", &script]);
    assert_eq!(run.code, Some(4), "{}", run.stderr);
    assert!(
        run.elapsed < Duration::from_secs(5),
        "took {:?}",
        run.elapsed
    );
    let notes = std::fs::read_to_string(&file.0).unwrap_or_default();
    for rank in ["0", "1", "3"] {
        for what in ["term", "cont"] {
            assert!(
                notes.lines().any(|l| l == format!("{what} {rank}")),
                "PE {rank} did not note {what}:\n{notes}"
            );
        }
    }
}

#[test]
fn timeout_kills_the_job() {
    let run = oshrun(&["--timeout", "1", "-np", "2", "sleep", "30"]);
    assert_eq!(run.code, Some(124));
    assert!(
        run.stderr.contains("oshrun: job timed out after 1 s"),
        "{}",
        run.stderr
    );
    assert!(
        run.elapsed >= Duration::from_secs(1) && run.elapsed < Duration::from_secs(5),
        "took {:?}",
        run.elapsed
    );
}

/// Sends `signal` to oshrun once its PEs are running; returns the run and the PEs' pids.
fn signal_oshrun(signal: &str) -> (Run, Vec<u32>) {
    let file = Scratch::new(&format!("signal-{signal}"));
    let script = format!("echo $$ >> {}; exec sleep 30", file.0);
    let t0 = Instant::now();
    let child = start(&["--timeout", "40", "-np", "3", "sh", "-c", &script], false);
    while file.pids().len() < 3 {
        assert!(t0.elapsed() < Duration::from_secs(20), "PEs did not start");
        thread::sleep(Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let run = finish(child, t0);
    (run, file.pids())
}

#[test]
fn sigint_to_oshrun_stops_the_job() {
    let (run, pids) = signal_oshrun("INT");
    assert_eq!(run.code, Some(130), "{}", run.stderr);
    assert!(run.stderr.contains("received SIGINT"), "{}", run.stderr);
    assert!(run.elapsed < Duration::from_secs(20));
    assert_gone(&pids);
}

#[test]
fn sigterm_to_oshrun_stops_the_job() {
    let (run, pids) = signal_oshrun("TERM");
    assert_eq!(run.code, Some(143), "{}", run.stderr);
    assert_gone(&pids);
}

#[test]
fn sighup_to_oshrun_stops_the_job() {
    let (run, pids) = signal_oshrun("HUP");
    assert_eq!(run.code, Some(129), "{}", run.stderr);
    assert_gone(&pids);
}

#[test]
fn tag_output_prefixes_lines() {
    let run = oshrun(&[
        "--timeout",
        "20",
        "--tag-output",
        "-np",
        "2",
        "sh",
        "-c",
        "echo out; echo err >&2; printf 'no newline'",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        sorted_lines(&run.stdout),
        [
            "[PE 0] no newline",
            "[PE 0] out",
            "[PE 1] no newline",
            "[PE 1] out"
        ]
    );
    assert_eq!(sorted_lines(&run.stderr), ["[PE 0] err", "[PE 1] err"]);
}

#[test]
fn stdin_goes_to_pe_0_only() {
    let run = oshrun_with_input(
        &[
            "--timeout",
            "20",
            "-np",
            "2",
            "sh",
            "-c",
            "read x; echo \"$PMI_RANK:$x\"",
        ],
        "hello\n",
    );
    assert_eq!(sorted_lines(&run.stdout), ["0:hello", "1:"]);
}

/// A PMI-1 client: `pmi_client.py KEYS ROUNDS` puts KEYS keys per round, enters the barrier, and
/// checks every rank's keys; it exits 0 only if every reply was right.
const PMI_CLIENT: &str = r#"
import os, re, socket, sys
rank, size = int(os.environ['PMI_RANK']), int(os.environ['PMI_SIZE'])
sock = socket.socket(fileno=int(os.environ['PMI_FD']))
replies = sock.makefile('rb')

def fail(msg):
    print(f'rank {rank}: {msg}', file=sys.stderr)
    sys.exit(1)

def ask(line, **want):
    sock.sendall((line + '\n').encode())
    reply = replies.readline()
    if not reply.endswith(b'\n'):
        fail(f'no reply to {line!r}')
    fields = dict(tok.partition('=')[::2] for tok in reply.decode().split())
    for key, value in want.items():
        if fields.get(key) != value:
            fail(f'{line!r} got {reply!r}, wanted {key}={value}')
    return fields

keys, rounds = int(sys.argv[1]), int(sys.argv[2])
ask('cmd=init pmi_version=1 pmi_subversion=1', cmd='response_to_init', rc='0',
    pmi_version='1', pmi_subversion='1')
ask('cmd=get_maxes', cmd='maxes', rc='0', kvsname_max='256', keylen_max='256',
    vallen_max='1024')
ask('cmd=get_appnum', cmd='appnum', rc='0', appnum='0')
ask('cmd=get_universe_size', cmd='universe_size', rc='0', size=str(size))
kvs = ask('cmd=get_my_kvsname', cmd='my_kvsname', rc='0')['kvsname']
if not re.fullmatch(r'[A-Za-z0-9_]{1,200}', kvs):
    fail(f'bad kvsname {kvs!r}')
ask(f'cmd=get kvsname={kvs} key=PMI_process_mapping', cmd='get_result', rc='0',
    value=f'(vector,(0,1,{size}))')
for r in range(rounds):
    for k in range(keys):
        ask(f'cmd=put kvsname={kvs} key=k{rank}_{k}_{r} value=v=({rank},{k},{r})!',
            cmd='put_result', rc='0')
    ask('cmd=barrier_in', cmd='barrier_out', rc='0')
    for p in range(size):
        for k in range(keys):
            ask(f'cmd=get kvsname={kvs} key=k{p}_{k}_{r}', cmd='get_result', rc='0',
                value=f'v=({p},{k},{r})!')
ask(f'cmd=get kvsname={kvs} key=nobody_put_this', cmd='get_result', rc='-1',
    msg='key_nobody_put_this_not_found')
ask('cmd=barrier_in', cmd='barrier_out', rc='0')
ask('cmd=finalize', cmd='finalize_ack', rc='0')
os.write(1, f'rank {rank} ok {kvs}\n'.encode())  # one write: PEs share the pipe
"#;

fn pmi_job(npes: u32, keys: u32, rounds: u32) {
    let np = npes.to_string();
    let keys = keys.to_string();
    let rounds = rounds.to_string();
    let run = oshrun(&[
        "--timeout",
        "50",
        "-np",
        &np,
        "python3",
        "-c",
        PMI_CLIENT,
        &keys,
        &rounds,
    ]);
    assert_eq!(run.code, Some(0), "stderr:\n{}", run.stderr);
    assert_eq!(run.stderr, "");
    let lines = sorted_lines(&run.stdout);
    assert_eq!(lines.len(), npes as usize, "{}", run.stdout);
    let kvsname = lines[0]
        .split(' ')
        .nth(3)
        .unwrap_or_else(|| panic!("unexpected output:\n{}", run.stdout))
        .to_owned();
    assert!(kvsname.starts_with("oshrun_"), "{kvsname}");
    let mut expected: Vec<String> = (0..npes)
        .map(|r| format!("rank {r} ok {kvsname}"))
        .collect();
    expected.sort();
    assert_eq!(lines, expected);
}

#[test]
fn pmi_single_pe() {
    pmi_job(1, 3, 2);
}

#[test]
fn pmi_many_keys_and_barriers() {
    pmi_job(4, 50, 3);
}

#[test]
fn pmi_64_pes() {
    pmi_job(64, 1, 2);
}

/// A PE script in Python with a PMI connection `ask(line)` and the rank.
fn python_pe(body: &str) -> String {
    format!(
        r#"
import os, socket, sys, time
rank = int(os.environ['PMI_RANK'])
sock = socket.socket(fileno=int(os.environ['PMI_FD']))
replies = sock.makefile('rb')
def ask(line):
    sock.sendall((line + '\n').encode())
    return replies.readline().decode()
ask('cmd=init pmi_version=1 pmi_subversion=1')
kvs = ask('cmd=get_my_kvsname').split('kvsname=')[1].strip()
{body}
"#
    )
}

#[test]
fn pmi_abort_stops_the_job_with_its_code() {
    // The aborting PE prints when it aborts: Python start-up under a loaded test run is slow,
    // and it is the time from the abort to oshrun's exit that is under test.
    let script = python_pe(
        "if rank == 1:\n    \
             os.write(1, f'{time.time()}\\n'.encode())\n    \
             sock.sendall(b'cmd=abort exitcode=7 error_msg=boom\\n')\n    \
             time.sleep(30)\n\
         ask('cmd=barrier_in')\n\
         time.sleep(30)",
    );
    let run = oshrun(&["--timeout", "40", "-np", "3", "python3", "-c", &script]);
    let ended = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    assert_eq!(run.code, Some(7), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("oshrun: PE 1 aborted the job with exit code 7: boom"),
        "{}",
        run.stderr
    );
    let aborted: f64 = run.stdout.trim().parse().unwrap();
    let took = ended.as_secs_f64() - aborted;
    assert!(took < 4.0, "oshrun exited {took} s after the abort");
}

#[test]
fn exit_without_finalize_is_a_failure() {
    let script = python_pe("sys.exit(0)");
    let run = oshrun(&["--timeout", "40", "-np", "2", "python3", "-c", &script]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("exited without calling shmem_finalize"),
        "{}",
        run.stderr
    );
}

#[test]
fn malformed_requests_get_error_replies() {
    let script = python_pe(
        "for line in ['garbage', 'cmd=frobnicate', 'cmd=put kvsname=wrong key=a value=b']:\n    \
             reply = ask(line)\n    \
             if 'rc=-1' not in reply.split():\n        \
                 sys.exit(f'{line!r} got {reply!r}')\n\
         assert ask('cmd=finalize').split()[0] == 'cmd=finalize_ack'",
    );
    let run = oshrun(&["--timeout", "40", "python3", "-c", &script]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("malformed PMI request"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("unknown PMI command 'frobnicate'"),
        "{}",
        run.stderr
    );
}

#[test]
fn shared_memory_named_after_the_job_is_removed() {
    let script = python_pe(
        "path = f'/dev/shm/{kvs}_heap{rank}'\n\
         open(path, 'w').close()\n\
         os.write(1, (path + '\\n').encode())\n\
         ask('cmd=finalize')",
    );
    let run = oshrun(&["--timeout", "40", "-np", "2", "python3", "-c", &script]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let paths = sorted_lines(&run.stdout);
    assert_eq!(paths.len(), 2);
    for path in paths {
        assert!(path.starts_with("/dev/shm/oshrun_"), "{path}");
        assert!(!Path::new(&path).exists(), "{path} left behind");
    }
}

/// A hostile PMI client: PE 0 sends 200,000 requests without reading a reply, PE 1 sends NUL,
/// escape sequences and other binary bytes. oshrun neither blocks (it used to wait up to 10 s in
/// a write to PE 0, a SIGTERM meanwhile taking as long) nor grows without bound: PE 0 loses its
/// PMI connection past 1 MiB of unread replies, SIGTERM then ends the job at once, and what PE 1
/// sent is shown escaped (no control byte on oshrun's stderr), at most 20 complaints of it.
#[test]
fn a_hostile_client_neither_blocks_oshrun_nor_reaches_its_stderr_raw() {
    let file = Scratch::new("hostile");
    let script = python_pe(&format!(
        "if rank == 0:\n    \
             try:\n        \
                 sock.sendall(b'cmd=get_appnum\\n' * 200000)\n    \
             except OSError:\n        \
                 pass\n\
         else:\n    \
             for i in range(30):\n        \
                 sock.sendall(b'\\x00\\x1b[31mred\\x07 \\xff\\xfe cmd=\\x1b]0;title\\x07\\n')\n    \
             sock.sendall(b'cmd=\\x1b[2Jclear\\n')\n\
         open('{}', 'a').write(f'{{os.getpid()}}\\n')\n\
         time.sleep(30)",
        file.0
    ));
    let t0 = Instant::now();
    let child = start(
        &["--timeout", "40", "-np", "2", "python3", "-c", &script],
        false,
    );
    while file.pids().len() < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the PEs did not get through"
        );
        thread::sleep(Duration::from_millis(10));
    }
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let run = finish(child, t0);
    let after = sent.elapsed();
    assert_eq!(run.code, Some(143), "{}", run.stderr);
    assert!(after < Duration::from_secs(2), "SIGTERM took {after:?}");
    println!("oshrun ended {after:?} after SIGTERM, a client flooding it");
    assert!(
        run.stderr
            .contains("oshrun: PE 0: leaves its PMI replies unread (over 1048576 bytes)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("'\\x00\\x1b[31mred\\x07 \\xff\\xfe cmd=\\x1b]0;title\\x07'"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr
            .bytes()
            .any(|b| b < 0x20 && b != b'\n' || b > 0x7e),
        "a raw byte on oshrun's stderr: {:?}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("PE 1: 20 complaints about its PMI requests"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.lines().count() < 30, "{}", run.stderr);
    assert_gone(&file.pids());
}
