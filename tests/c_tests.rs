//! Runs the self-checking C and Fortran programs of `c-tests/` under `oshrun`, one test per
//! (program, PE count).
//!
//! Before the first test it builds the library and the launcher (`cargo build -p rshmem -p oshrun`)
//! with the profile this test binary was built with, then compiles each program once into
//! `target/<profile>/c-tests/` (`*.c` with `scripts/oshcc`, `*.cpp` with `scripts/oshc++`, `*.f90`
//! and fixed-form `*.f` with `scripts/oshfort`) and runs it as `target/<profile>/oshrun -np N --timeout T prog ARGS`.
//!
//! A program says how it is run in comment lines at the top of the file (before any code), `//`
//! in C and C++ and `!` in Fortran:
//!
//! ```text
//! // pes: 1 2 3 4 8            PE counts to run (default: 1 2 3 4 5)
//! // timeout: 60               seconds, passed to oshrun; the harness kills at T+10 (default 60)
//! // env: NAME=value           set in the job's environment (repeatable)
//! // args: a b c               program arguments, split on whitespace
//! // cflags: -Wno-...          extra compiler flags (C or Fortran), split on whitespace
//! // expect-fail: substring    the job must exit non-zero (not by timeout) with substring in stderr
//! // expect-exit: 7            the job must exit with exactly this code
//! // expect-stderr: substring  stderr must contain substring (repeatable; with any expectation)
//! // expect-stdout: substring  stdout must contain substring (repeatable; with any expectation)
//! ```
//!
//! Any other comment line is prose, except that a line of the form `// lowercase-word: ...` with an
//! unknown word is an error, so that a misspelt directive is not silently ignored. Without
//! `expect-fail` or `expect-exit` the job must exit 0, and its output must not hold UCX's report
//! of a worker destroyed with a request or an endpoint still in it (`ucx_clean`).
//!
//! `RSHMEM_TEST_TRANSPORT` runs the suite on another route instead: `ucx-tcp` (every PE on the
//! UCX route, `SHMEM_TRANSPORT=ucx UCX_TLS=tcp`), `ucx-sm` (`UCX_TLS=sm,self`) or `loopback`
//! (every PE on the route of the test network `transport::loopback`, `SHMEM_TRANSPORT=loopback`:
//! each operation through the network seam), each program at those of its PE counts that are 2 or
//! 4, and 8 over TCP (its count nearest to them if it has none of them). A program's own `env:`
//! lines still win.
//!
//! `RSHMEM_TEST_SANITIZE=1` builds the C and C++ programs with AddressSanitizer and
//! UndefinedBehaviorSanitizer (`-fsanitize=address,undefined`, into `target/<profile>/c-tests-sanitize/`;
//! the library as built, not instrumented; Fortran programs are left out) and runs each at those of
//! its PE counts that are 2 or 4 (nearest otherwise); any sanitizer report in a job's stderr fails
//! its test, whatever the program expects. The library keeps its World and configuration for the
//! life of the process on purpose, so LeakSanitizer is told to ignore allocations made inside
//! librshmem (`tests/support/lsan.supp`); leaks of the programs themselves are still reported.
//!
//! Tests run two at a time unless `--test-threads` or `RUST_TEST_THREADS` says otherwise: the
//! machines have two cores and a test runs up to 8 processes.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Failed, Trial};

const DEFAULT_PES: &[u32] = &[1, 2, 3, 4, 5];
const DEFAULT_TIMEOUT_SECS: u64 = 60;
/// How long after oshrun's own timeout the harness kills the job itself.
const HARNESS_GRACE_SECS: u64 = 10;
const DEFAULT_TEST_THREADS: usize = 2;
const CFLAGS: &[&str] = &[
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-O1",
    "-g",
];
const CXXFLAGS: &[&str] = &[
    "-std=c++17",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-O1",
    "-g",
];
/// `RSHMEM_TEST_SANITIZE=1`: ASan and UBSan in the C and C++ programs, UBSan errors fatal.
const SANITIZE_FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
    "-fno-omit-frame-pointer",
];
/// Fortran: the legacy API's Cray pointers (`SHPALLOC`, `SHMEM_PTR`) need `-fcray-pointer`.
const FFLAGS: &[&str] = &["-Wall", "-Werror", "-fcray-pointer", "-O1", "-g"];
/// The languages of the test programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    C,
    Cxx,
    Fortran,
}

/// Source extensions and their language.
const SOURCES: &[(&str, Lang)] = &[
    ("c", Lang::C),
    ("cpp", Lang::Cxx),
    ("f90", Lang::Fortran),
    ("f", Lang::Fortran),
];
const TAIL_LINES: usize = 40;

fn main() {
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        let from_env = std::env::var("RUST_TEST_THREADS")
            .ok()
            .and_then(|v| v.parse().ok());
        args.test_threads = Some(from_env.unwrap_or(DEFAULT_TEST_THREADS));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut trials = vec![Trial::test("harness::directives", check_directive_parsing)];
    let route = match std::env::var("RSHMEM_TEST_TRANSPORT") {
        Err(_) => Some(Route::default()),
        Ok(name) => Route::named(&name),
    };
    let sanitize = std::env::var("RSHMEM_TEST_SANITIZE").is_ok_and(|v| v == "1");
    let route = route.map(|r| if sanitize { r.sanitized(&root) } else { r });
    let Some(route) = route else {
        trials.push(Trial::test("harness::transport", || {
            Err("RSHMEM_TEST_TRANSPORT must be ucx-tcp, ucx-sm or loopback".into())
        }));
        libtest_mimic::run(&args, trials).exit();
    };
    match discover(&root, &route) {
        Ok(found) => trials.extend(found),
        Err(message) => trials.push(Trial::test(
            "harness::discover",
            move || Err(message.into()),
        )),
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The route the suite runs on: extra environment for every job, and which PE counts to run.
#[derive(Debug, Clone, Default)]
struct Route {
    env: Vec<(String, String)>,
    /// Only these PE counts (all of a program's when empty).
    pes: Vec<u32>,
    /// Build the C and C++ programs with ASan and UBSan (`RSHMEM_TEST_SANITIZE`).
    sanitize: bool,
}

impl Route {
    /// The route `RSHMEM_TEST_TRANSPORT` names.
    fn named(name: &str) -> Option<Route> {
        if name == "loopback" {
            return Some(Route {
                env: vec![("SHMEM_TRANSPORT".into(), "loopback".into())],
                pes: vec![2, 4],
                sanitize: false,
            });
        }
        // Over TCP also at 8 PEs (16 threads with the progress threads, on 2 cores).
        let (tls, pes) = match name {
            "ucx-tcp" => ("tcp", vec![2, 4, 8]),
            "ucx-sm" => ("sm,self", vec![2, 4]),
            _ => return None,
        };
        Some(Route {
            env: vec![
                ("SHMEM_TRANSPORT".into(), "ucx".into()),
                ("UCX_TLS".into(), tls.into()),
            ],
            pes,
            sanitize: false,
        })
    }

    /// This route with the programs built under ASan and UBSan, at 2 and 4 PEs.
    fn sanitized(mut self, root: &Path) -> Route {
        let supp = root.join("tests/support/lsan.supp");
        self.env.extend([
            (
                "LSAN_OPTIONS".into(),
                format!("suppressions={}:print_suppressions=0", supp.display()),
            ),
            ("UBSAN_OPTIONS".into(), "print_stacktrace=1".into()),
        ]);
        if self.pes.is_empty() {
            self.pes = vec![2, 4];
        }
        self.sanitize = true;
        self
    }

    /// Which of a program's PE counts run on this route: those it shares with the route, else
    /// the program's count closest to the route's.
    fn select(&self, pes: &[u32]) -> Vec<u32> {
        if self.pes.is_empty() {
            return pes.to_vec();
        }
        let shared: Vec<u32> = pes
            .iter()
            .copied()
            .filter(|n| self.pes.contains(n))
            .collect();
        if !shared.is_empty() {
            return shared;
        }
        let distance = |n: u32| self.pes.iter().map(|&r| r.abs_diff(n)).min().unwrap_or(0);
        pes.iter()
            .copied()
            .min_by_key(|&n| (distance(n), std::cmp::Reverse(n)))
            .into_iter()
            .collect()
    }
}

/// What a program's header asks for.
#[derive(Debug, Clone)]
struct Directives {
    pes: Vec<u32>,
    timeout_secs: u64,
    env: Vec<(String, String)>,
    args: Vec<String>,
    cflags: Vec<String>,
    expect: Expect,
    expect_stderr: Vec<String>,
    expect_stdout: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Success,
    Fail(String),
    Exit(i32),
}

impl Default for Directives {
    fn default() -> Self {
        Directives {
            pes: DEFAULT_PES.to_vec(),
            timeout_secs: DEFAULT_TIMEOUT_SECS,
            env: Vec::new(),
            args: Vec::new(),
            cflags: Vec::new(),
            expect: Expect::Success,
            expect_stderr: Vec::new(),
            expect_stdout: Vec::new(),
        }
    }
}

/// Parses the leading comment lines (`//` or `!`) of a C or Fortran source.
fn parse_directives(source: &str) -> Result<Directives, String> {
    let mut d = Directives::default();
    let mut expectation_seen = false;
    for (index, line) in source.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix("//").or_else(|| line.strip_prefix('!')) else {
            break;
        };
        let comment = comment.trim();
        let Some((key, value)) = comment.split_once(':') else {
            continue;
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            continue; // prose
        }
        let value = value.trim();
        let at = |msg: String| format!("line {}: {msg}", index + 1);
        match key {
            "pes" => {
                let pes = value
                    .split_whitespace()
                    .map(|w| w.parse::<u32>().ok().filter(|&n| n > 0))
                    .collect::<Option<Vec<_>>>()
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| at(format!("`pes:` wants positive integers, got `{value}`")))?;
                d.pes = pes;
            }
            "timeout" => {
                d.timeout_secs = value
                    .parse()
                    .ok()
                    .filter(|&t| t > 0)
                    .ok_or_else(|| at(format!("`timeout:` wants seconds, got `{value}`")))?;
            }
            "env" => {
                let (name, val) = value
                    .split_once('=')
                    .filter(|(n, _)| !n.is_empty())
                    .ok_or_else(|| at(format!("`env:` wants NAME=value, got `{value}`")))?;
                d.env.push((name.to_string(), val.to_string()));
            }
            "args" => d.args.extend(value.split_whitespace().map(String::from)),
            "cflags" => d.cflags.extend(value.split_whitespace().map(String::from)),
            "expect-fail" | "expect-exit" => {
                if expectation_seen {
                    return Err(at(
                        "only one `expect-fail:` or `expect-exit:` per program".into()
                    ));
                }
                expectation_seen = true;
                d.expect = if key == "expect-fail" {
                    Expect::Fail(value.to_string())
                } else {
                    let code = value
                        .parse::<i32>()
                        .ok()
                        .filter(|&c| c != 0)
                        .ok_or_else(|| {
                            at(format!(
                                "`expect-exit:` wants a non-zero code, got `{value}`"
                            ))
                        })?;
                    Expect::Exit(code)
                };
            }
            "expect-stderr" => {
                if value.is_empty() {
                    return Err(at("`expect-stderr:` wants a substring".into()));
                }
                d.expect_stderr.push(value.to_string());
            }
            "expect-stdout" => {
                if value.is_empty() {
                    return Err(at("`expect-stdout:` wants a substring".into()));
                }
                d.expect_stdout.push(value.to_string());
            }
            other => return Err(at(format!("unknown directive `{other}:`"))),
        }
    }
    Ok(d)
}

/// The harness's own check of the header syntax above.
fn check_directive_parsing() -> Result<(), Failed> {
    let source = "// pes: 2 8\n\n// timeout: 9\n// Note: prose, not a directive\n// env: A=b=c\n\
                  // args: x  y\n// expect-fail: is outside [0,\n// expect-stderr: boom\n#include <x.h>\n// pes: 3\n";
    let d = parse_directives(source)?;
    let ok = d.pes == [2, 8]
        && d.timeout_secs == 9
        && d.env == [("A".to_string(), "b=c".to_string())]
        && d.args == ["x", "y"]
        && d.expect == Expect::Fail("is outside [0,".into())
        && d.expect_stderr == ["boom"];
    if !ok {
        return Err(format!("parsed {d:?}").into());
    }
    let fortran =
        parse_directives("! pes: 1 3\n! Note: prose\n! timeout: 7\nprogram p\n! pes: 2\n")?;
    if fortran.pes != [1, 3] || fortran.timeout_secs != 7 {
        return Err(format!("parsed Fortran header {fortran:?}").into());
    }
    let defaults = parse_directives("int main(void) { return 0; }\n")?;
    if defaults.pes != DEFAULT_PES
        || defaults.timeout_secs != DEFAULT_TIMEOUT_SECS
        || defaults.expect != Expect::Success
    {
        return Err(format!("defaults: {defaults:?}").into());
    }
    let tcp = Route::named("ucx-tcp").ok_or("no ucx-tcp route")?;
    let sm = Route::named("ucx-sm").ok_or("no ucx-sm route")?;
    let loopback = Route::named("loopback").ok_or("no loopback route")?;
    if loopback.env != [("SHMEM_TRANSPORT".to_string(), "loopback".to_string())]
        || loopback.select(&[1, 2, 3, 4, 8]) != [2, 4]
    {
        return Err(format!("the loopback route: {loopback:?}").into());
    }
    if tcp.select(&[1, 2, 3, 4, 8]) != [2, 4, 8]
        || sm.select(&[1, 2, 3, 4, 8]) != [2, 4]
        || sm.select(&[1, 3]) != [3]
        || sm.select(&[4]) != [4]
    {
        return Err("Route::select picks the wrong PE counts".into());
    }
    for bad in [
        "// pse: 1\n",
        "! pse: 1\n",
        "// pes: 0\n",
        "// timeout: soon\n",
        "// env: =x\n",
        "// expect-exit: 0\n",
        "// expect-fail: a\n// expect-exit: 3\n",
    ] {
        if parse_directives(bad).is_ok() {
            return Err(format!("accepted {bad:?}").into());
        }
    }
    let glued = "[PE 1] shmem_int_put: dest is not symmetric[PE 0] shmem_int_put: dest is not";
    if !pe_message_inside(glued)
        || pe_message_inside("[PE 12] shmem_fence: fine")
        || pe_message_inside("see [PE x] and [PE 3]: not a message")
    {
        return Err("pe_message_inside misjudges a line".into());
    }
    Ok(())
}

/// Where cargo put (or will put) the library and the launcher: the directory holding this test
/// binary's `deps/`, i.e. `<target>/<profile>`.
struct BuildDirs {
    target_dir: PathBuf,
    profile_dir: PathBuf,
    /// `--profile` argument for cargo: `dev` for `debug/`, otherwise the directory's name.
    cargo_profile: String,
}

fn build_dirs() -> Result<BuildDirs, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let profile_dir = exe
        .parent()
        .filter(|deps| deps.file_name() == Some(OsStr::new("deps")))
        .and_then(Path::parent)
        .ok_or_else(|| format!("{} is not in <target>/<profile>/deps", exe.display()))?
        .to_path_buf();
    let name = profile_dir
        .file_name()
        .and_then(OsStr::to_str)
        .unwrap_or("debug");
    let cargo_profile = if name == "debug" {
        "dev".to_string()
    } else {
        name.to_string()
    };
    let target_dir = profile_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(BuildDirs {
        target_dir,
        profile_dir,
        cargo_profile,
    })
}

/// Builds librshmem.so and oshrun once per test run; returns the profile directory.
fn build_library(root: &Path) -> Result<PathBuf, String> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dirs = build_dirs()?;
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let mut cmd = Command::new(cargo);
            cmd.args([
                "build",
                "-p",
                "rshmem",
                "-p",
                "oshrun",
                "--profile",
                &dirs.cargo_profile,
            ])
            .arg("--target-dir")
            .arg(&dirs.target_dir)
            .current_dir(root)
            .stdin(Stdio::null());
            let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "building the library failed ({}):\n{}",
                    describe(out.status),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            for file in ["librshmem.so", "oshrun"] {
                if !dirs.profile_dir.join(file).exists() {
                    return Err(format!(
                        "cargo build succeeded but {} is missing",
                        dirs.profile_dir.join(file).display()
                    ));
                }
            }
            Ok(dirs.profile_dir)
        })
        .clone()
}

/// One program and its once-only compilation, shared by its trials.
struct Program {
    name: String,
    source: PathBuf,
    lang: Lang,
    directives: Directives,
    route_env: Vec<(String, String)>,
    sanitize: bool,
    root: PathBuf,
    binary: OnceLock<Result<PathBuf, String>>,
}

impl Program {
    fn compile(&self) -> Result<PathBuf, String> {
        self.binary
            .get_or_init(|| {
                let profile_dir = build_library(&self.root)?;
                let out_dir = profile_dir.join(if self.sanitize {
                    "c-tests-sanitize"
                } else {
                    "c-tests"
                });
                std::fs::create_dir_all(&out_dir)
                    .map_err(|e| format!("{}: {e}", out_dir.display()))?;
                let binary = out_dir.join(&self.name);
                let (wrapper, flags) = match self.lang {
                    Lang::Fortran => ("scripts/oshfort", FFLAGS),
                    Lang::Cxx => ("scripts/oshc++", CXXFLAGS),
                    Lang::C => ("scripts/oshcc", CFLAGS),
                };
                let mut cmd = Command::new(self.root.join(wrapper));
                cmd.args(flags)
                    .arg("-I")
                    .arg(self.root.join("c-tests"))
                    .args(&self.directives.cflags)
                    .args(if self.sanitize { SANITIZE_FLAGS } else { &[] })
                    .arg(&self.source)
                    .arg("-o")
                    .arg(&binary)
                    .env("RSHMEM_LIBDIR", &profile_dir)
                    .stdin(Stdio::null());
                let shown = show_command(&cmd);
                let out = cmd
                    .output()
                    .map_err(|e| format!("cannot run {shown}: {e}"))?;
                if !out.status.success() {
                    return Err(format!(
                        "compiling failed ({}):\n$ {shown}\n{}{}",
                        describe(out.status),
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
                Ok(binary)
            })
            .clone()
    }

    fn run(&self, npes: u32) -> Result<(), Failed> {
        let binary = self.compile()?;
        let profile_dir = build_library(&self.root)?;
        let d = &self.directives;
        let mut cmd = Command::new(profile_dir.join("oshrun"));
        cmd.arg("-np")
            .arg(npes.to_string())
            .arg("--timeout")
            .arg(d.timeout_secs.to_string())
            .arg(&binary)
            .args(&d.args)
            .envs(self.route_env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .envs(d.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(&self.root);
        let shown = show_command(&cmd);
        let limit = Duration::from_secs(d.timeout_secs + HARNESS_GRACE_SECS);
        let run = run_job(cmd, limit).map_err(|e| format!("$ {shown}\ncannot run: {e}"))?;
        let verdict = judge(d, &run)
            .and_then(|()| sanitizer_clean(self.sanitize, &run))
            .and_then(|()| ucx_clean(d, &run));
        match verdict {
            Ok(()) => Ok(()),
            Err(why) => Err(format!(
                "{why}\n$ {shown}\nexit: {}\n--- stdout (last {TAIL_LINES} lines) ---\n{}--- stderr (last {TAIL_LINES} lines) ---\n{}",
                run.describe_end(),
                tail(&run.stdout),
                tail(&run.stderr)
            )
            .into()),
        }
    }
}

/// Decides whether a finished job met its program's expectation.
fn judge(d: &Directives, run: &JobRun) -> Result<(), String> {
    if run.harness_timeout {
        return Err(format!(
            "the harness killed the job after {} s",
            d.timeout_secs + HARNESS_GRACE_SECS
        ));
    }
    if let Some(left) = &run.left_behind {
        return Err(format!(
            "processes were left running after oshrun exited: {left}"
        ));
    }
    let code = run.status.code();
    if code == Some(124) && d.expect != Expect::Exit(124) {
        return Err(format!(
            "the job timed out (oshrun --timeout {})",
            d.timeout_secs
        ));
    }
    match &d.expect {
        Expect::Success if code != Some(0) => return Err("the job failed".into()),
        Expect::Success => {}
        Expect::Exit(want) if code != Some(*want) => {
            return Err(format!("expected exit code {want}"));
        }
        Expect::Exit(_) => {}
        Expect::Fail(_) if code == Some(0) => {
            return Err("the job succeeded but was expected to fail".into());
        }
        Expect::Fail(want) if !run.stderr.contains(want.as_str()) => {
            return Err(format!(
                "the job failed as expected, but stderr does not contain `{want}`"
            ));
        }
        Expect::Fail(_) => {}
    }
    if let Some(line) = run.stderr.lines().find(|l| pe_message_inside(l)) {
        return Err(format!(
            "a PE's message does not start its line (two PEs' lines run together?): `{line}`"
        ));
    }
    for want in &d.expect_stderr {
        if !run.stderr.contains(want.as_str()) {
            return Err(format!("stderr does not contain `{want}`"));
        }
    }
    for want in &d.expect_stdout {
        if !run.stdout.contains(want.as_str()) {
            return Err(format!("stdout does not contain `{want}`"));
        }
    }
    Ok(())
}

/// Whether `line` holds a PE's message (`[PE 3] `) after other text. The library writes each of
/// its lines to stderr in one write, so that the lines of PEs failing together stay apart.
fn pe_message_inside(line: &str) -> bool {
    line.match_indices("[PE ").any(|(at, _)| {
        let rest = &line[at + 4..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        at > 0 && digits > 0 && rest[digits..].starts_with("] ")
    })
}

/// Fails a job expected to succeed whose output holds UCX's report of what a worker still held
/// when the library destroyed it (a request in flight, an endpoint open): what a clean finalize
/// must not leave. UCX logs to stdout unless told otherwise.
fn ucx_clean(d: &Directives, run: &JobRun) -> Result<(), String> {
    const LEFT: &[&str] = &[
        "endpoints were not destroyed",
        "was not returned to mpool",
        "callbacks remain in the queue",
    ];
    let reported = |r: &&str| run.stdout.contains(*r) || run.stderr.contains(*r);
    match LEFT
        .iter()
        .find(|r| matches!(d.expect, Expect::Success) && reported(r))
    {
        Some(r) => Err(format!("UCX reports at exit `{r}`")),
        None => Ok(()),
    }
}

/// Under `RSHMEM_TEST_SANITIZE`, fails a job whose stderr holds a sanitizer report.
fn sanitizer_clean(sanitize: bool, run: &JobRun) -> Result<(), String> {
    const REPORTS: &[&str] = &[
        "ERROR: AddressSanitizer",
        "ERROR: LeakSanitizer",
        "runtime error:",
    ];
    match REPORTS.iter().find(|r| sanitize && run.stderr.contains(*r)) {
        Some(r) => Err(format!("a sanitizer report (`{r}`) in stderr")),
        None => Ok(()),
    }
}

struct JobRun {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    harness_timeout: bool,
    left_behind: Option<String>,
}

impl JobRun {
    fn describe_end(&self) -> String {
        if self.harness_timeout {
            "killed by the harness".into()
        } else {
            describe(self.status)
        }
    }
}

/// Runs the job in its own process group, collecting its output; kills the group at `limit`.
fn run_job(mut cmd: Command, limit: Duration) -> std::io::Result<JobRun> {
    use std::os::unix::process::CommandExt;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn()?;
    let pgid = child.id();
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let start = Instant::now();
    let mut harness_timeout = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > limit {
            harness_timeout = true;
            signal_group(pgid, "TERM");
            thread::sleep(Duration::from_secs(2));
            signal_group(pgid, "KILL");
            break child.wait()?;
        }
        thread::sleep(Duration::from_millis(20));
    };
    // oshrun promises to leave nothing behind; check, and clean up if it did not.
    let mut left_behind = None;
    if !harness_timeout && group_alive(pgid) {
        let deadline = Instant::now() + Duration::from_secs(2);
        while group_alive(pgid) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(50));
        }
        if group_alive(pgid) {
            left_behind = Some(format!(
                "process group {pgid} still had members 2 s later (killed)"
            ));
            signal_group(pgid, "KILL");
        }
    }
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(JobRun {
        status,
        stdout,
        stderr,
        harness_timeout,
        left_behind,
    })
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

fn signal_group(pgid: u32, signal: &str) {
    let _ = Command::new("kill")
        .args(["-s", signal, "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

fn group_alive(pgid: u32) -> bool {
    Command::new("kill")
        .args(["-s", "0", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => status.to_string(),
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    if lines.len() > TAIL_LINES {
        let _ = writeln!(out, "[... {} lines before ...]", lines.len() - TAIL_LINES);
    }
    for line in &lines[lines.len().saturating_sub(TAIL_LINES)..] {
        let _ = writeln!(out, "{line}");
    }
    out
}

fn show_command(cmd: &Command) -> String {
    let mut s = String::new();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            let _ = write!(s, "{}={} ", k.to_string_lossy(), v.to_string_lossy());
        }
    }
    s.push_str(&cmd.get_program().to_string_lossy());
    for arg in cmd.get_args() {
        s.push(' ');
        s.push_str(&arg.to_string_lossy());
    }
    s
}

/// One trial per (program, PE count), programs in name order.
fn discover(root: &Path, route: &Route) -> Result<Vec<Trial>, String> {
    let dir = root.join("c-tests");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            SOURCES
                .iter()
                .any(|(ext, _)| p.extension() == Some(OsStr::new(ext)))
        })
        .collect();
    sources.sort();
    let mut trials = Vec::new();
    for source in sources {
        let name = source
            .file_stem()
            .and_then(OsStr::to_str)
            .unwrap_or("?")
            .to_string();
        let lang = SOURCES
            .iter()
            .find(|(ext, _)| source.extension() == Some(OsStr::new(ext)))
            .map_or(Lang::C, |&(_, lang)| lang);
        let text =
            std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
        let directives = match parse_directives(&text) {
            Ok(d) => d,
            Err(e) => {
                let msg = format!("{}: {e}", source.display());
                trials.push(Trial::test(format!("{name}::directives"), move || {
                    Err(msg.into())
                }));
                continue;
            }
        };
        if route.sanitize && lang == Lang::Fortran {
            continue;
        }
        let program = Arc::new(Program {
            name: name.clone(),
            source,
            lang,
            directives,
            route_env: route.env.clone(),
            sanitize: route.sanitize,
            root: root.to_path_buf(),
            binary: OnceLock::new(),
        });
        for npes in route.select(&program.directives.pes) {
            let program = Arc::clone(&program);
            trials.push(Trial::test(format!("{name}::np{npes}"), move || {
                program.run(npes)
            }));
        }
    }
    Ok(trials)
}
