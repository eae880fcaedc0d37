//! Binaries built for other OpenSHMEM implementations, run with rshmem preloaded
//! (`LD_PRELOAD=librshmem.so`), as docs/ABI.md ("ABI personalities") describes: one test per
//! (program of `c-tests/foreign/`, launcher, PE count), under rshmem's `oshrun` and Open MPI's
//! `mpirun`.
//!
//! A program's header (`//` lines in C, `!` lines in Fortran) says how it is built and run:
//!
//! ```text
//! // build: oshmem            compiled with Open MPI OSHMEM 4.1's oshcc (Debian's openmpi-bin)
//! // build: sos               compiled with rshmem's headers plus c-tests/foreign/sos/sos_abi.h
//! //                          (Sandia OpenSHMEM 1.5's constant values and names) and linked
//! //                          against a stand-in libsma.so (c-tests/foreign/sos/libsma_standin.c)
//! //                          that defines only SOS's handle data symbols
//! // build: lsma              compiled with rshmem's own oshcc and linked as `-lsma`, where
//! //                          libsma.so is a symlink to rshmem (what a build script that
//! //                          hard-codes SOS's library name does); run without preloading
//! // build: mixed-sos         the source twice: with PART_LIBRARY defined, built as for `sos`
//! //                          into a shared library; without, built with rshmem's oshcc into a
//! //                          program linked against that library (one process, two ABIs)
//! // pes: 2 4                 PE counts (default 2 4)
//! // timeout: 60              seconds per job (default 60)
//! // expect-fail: substring   the job must fail with substring in its stderr
//! ```
//!
//! Without `expect-fail` the job must exit 0. SOS itself is not packaged for Debian; the stand-in
//! makes the loaded objects look as they do under a real SOS binary, so that detection selects
//! the SOS personality and its values must be translated for the programs to pass.

#[path = "support/launch.rs"]
mod support;

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const OSHMEM_CC: &str = "/usr/bin/oshcc";
const LAUNCHERS: &[&str] = &["oshrun", "mpirun"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Build {
    Oshmem,
    Sos,
    Lsma,
    MixedSos,
}

#[derive(Clone, Debug)]
struct Program {
    name: String,
    source: PathBuf,
    build: Build,
    pes: Vec<u32>,
    timeout: u64,
    expect_fail: Option<String>,
}

fn parse(name: &str, source: &Path) -> Result<Program, String> {
    let text = std::fs::read_to_string(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let mut p = Program {
        name: name.to_string(),
        source: source.to_path_buf(),
        build: Build::Oshmem,
        pes: vec![2, 4],
        timeout: 60,
        expect_fail: None,
    };
    let mut build = None;
    for line in text
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("//") || l.starts_with('!'))
    {
        let line = line.trim_start_matches('/').trim_start_matches('!');
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key {
            "build" => {
                build = Some(match value {
                    "oshmem" => Build::Oshmem,
                    "sos" => Build::Sos,
                    "lsma" => Build::Lsma,
                    "mixed-sos" => Build::MixedSos,
                    _ => {
                        return Err(format!(
                            "{name}: build: {value} is none of oshmem, sos, lsma, mixed-sos"
                        ));
                    }
                })
            }
            "pes" => {
                p.pes = value
                    .split_whitespace()
                    .map(|w| w.parse().map_err(|_| format!("{name}: pes: {w}")))
                    .collect::<Result<_, _>>()?
            }
            "timeout" => p.timeout = value.parse().map_err(|_| format!("{name}: timeout"))?,
            "expect-fail" => p.expect_fail = Some(value.to_string()),
            k if !k.is_empty() && k.chars().all(|c| c.is_ascii_lowercase() || c == '-') => {
                return Err(format!("{name}: unknown directive {k}"));
            }
            _ => {}
        }
    }
    p.build = build.ok_or_else(|| format!("{name}: no build: directive"))?;
    Ok(p)
}

fn output(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The directory of the built programs and the stand-in libsma.so (built once).
fn out_dir() -> Result<&'static PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = support::built().profile_dir.join("preload-tests");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let root = Path::new(support::ROOT);
        output(
            Command::new("cc")
                .args(["-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(dir.join("libsma.so"))
                .arg(root.join("c-tests/foreign/sos/libsma_standin.c")),
            "cc (stand-in libsma.so)",
        )?;
        // libsma.so as a symlink to rshmem, in a directory of its own (build: lsma).
        let lsma = dir.join("lsma");
        std::fs::create_dir_all(&lsma).map_err(|e| e.to_string())?;
        let link = lsma.join("libsma.so");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(support::built().profile_dir.join("librshmem.so"), &link)
            .map_err(|e| format!("{}: {e}", link.display()))?;
        Ok(dir)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// rshmem's oshcc with the test flags, using the library just built.
fn rshmem_cc() -> Command {
    let mut c = Command::new(Path::new(support::ROOT).join("scripts/oshcc"));
    c.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g"])
        .env("RSHMEM_LIBDIR", &support::built().profile_dir);
    c
}

/// A compiler command that compiles as for Sandia OpenSHMEM: SOS's values (sos_abi.h); the link
/// against the stand-in libsma.so is [`sos_link`].
fn sos_cc() -> Command {
    let mut c = rshmem_cc();
    c.arg("-include")
        .arg(Path::new(support::ROOT).join("c-tests/foreign/sos/sos_abi.h"));
    c
}

fn sos_link(cmd: &mut Command, dir: &Path) {
    cmd.arg(format!("-L{}", dir.display()))
        .args(["-Wl,--no-as-needed", "-lsma", "-ldl"])
        .arg(format!("-Wl,-rpath,{}", dir.display()));
}

/// Compiles `p` once; returns the binary.
fn compile(p: &Program) -> Result<PathBuf, String> {
    let dir = out_dir()?;
    let binary = dir.join(&p.name);
    let mut cmd = match p.build {
        Build::Oshmem => {
            if !Path::new(OSHMEM_CC).exists() {
                return Err(format!(
                    "{OSHMEM_CC} is missing: apt-get install -y openmpi-bin libopenmpi-dev"
                ));
            }
            let mut c = Command::new(OSHMEM_CC);
            c.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g"]);
            c.arg(&p.source);
            c
        }
        Build::Sos if p.source.extension().is_some_and(|e| e == "f90") => {
            // Fortran: the program states SOS's values itself (there is no header to include).
            let mut c = Command::new(Path::new(support::ROOT).join("scripts/oshfort"));
            c.args(["-Wall", "-Werror", "-O1", "-g"])
                .env("RSHMEM_LIBDIR", &support::built().profile_dir)
                .arg(&p.source);
            sos_link(&mut c, dir);
            c
        }
        Build::Sos => {
            let mut c = sos_cc();
            c.arg(&p.source);
            sos_link(&mut c, dir);
            c
        }
        Build::Lsma => {
            // The plain compiler with rshmem's include directory, as a build script does: the
            // wrapper would add -lrshmem, and only -lsma must name the library.
            let lsma = dir.join("lsma");
            let mut c = Command::new("cc");
            c.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g", "-I"])
                .arg(Path::new(support::ROOT).join("include"))
                .arg(&p.source)
                .arg(format!("-L{}", lsma.display()))
                .args(["-Wl,--no-as-needed", "-lsma"])
                .arg(format!("-Wl,-rpath,{}", lsma.display()));
            c
        }
        Build::MixedSos => {
            let part = dir.join(format!("lib{}.so", p.name));
            let mut lib = sos_cc();
            lib.args(["-shared", "-fPIC", "-DPART_LIBRARY"])
                .arg(&p.source)
                .arg("-o")
                .arg(&part);
            sos_link(&mut lib, dir);
            output(&mut lib, &format!("compiling {} (the SOS part)", p.name))?;
            let mut c = rshmem_cc();
            c.arg(&p.source)
                .arg(format!("-L{}", dir.display()))
                .arg(format!("-l{}", p.name))
                .arg(format!("-Wl,-rpath,{}", dir.display()));
            c
        }
    };
    cmd.arg("-o").arg(&binary);
    output(&mut cmd, &format!("compiling {}", p.name))?;
    Ok(binary)
}

fn run(p: &Program, binary: &Path, launcher: &str, pes: u32) -> Result<(), Failed> {
    // What is preloaded: rshmem, but for a program that links it by another name (build: lsma),
    // where preloading would add nothing the loader does not already do.
    let lib = if p.build == Build::Lsma {
        PathBuf::new()
    } else {
        support::built().profile_dir.join("librshmem.so")
    };
    let n = pes.to_string();
    let mut cmd = match launcher {
        "oshrun" => {
            let mut c = Command::new(&support::built().oshrun);
            c.args(["-np", &n, "--timeout", &p.timeout.to_string()])
                .env("LD_PRELOAD", &lib);
            c
        }
        _ => {
            support::require("mpirun.openmpi", "openmpi-bin");
            let mut c = Command::new("mpirun.openmpi");
            c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
                .env("OMPI_MCA_opal_common_ucx_opal_mem_hooks", "0")
                .env("UCX_TLS", "sm,self")
                .args(["--oversubscribe", "-np", &n, "-x"])
                .arg(format!("LD_PRELOAD={}", lib.display()))
                .args([
                    "-x",
                    "UCX_TLS",
                    "-x",
                    "OMPI_MCA_opal_common_ucx_opal_mem_hooks",
                ]);
            c
        }
    };
    cmd.arg(binary);
    let r = support::run(&mut cmd, Duration::from_secs(p.timeout + 15));
    match &p.expect_fail {
        None if r.code == 0 => Ok(()),
        None => Err(format!("expected exit 0: {}", r.describe()).into()),
        Some(text) if r.code != 0 && r.stderr.contains(text.as_str()) => Ok(()),
        Some(text) => Err(format!("expected a failure with {text:?}: {}", r.describe()).into()),
    }
}

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(support::ROOT).join("c-tests/foreign");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("c-tests/foreign")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "f90"))
        .collect();
    sources.sort();
    let mut trials = Vec::new();
    for source in sources {
        let name = source.file_stem().unwrap().to_string_lossy().into_owned();
        let program = match parse(&name, &source) {
            Ok(p) => p,
            Err(e) => {
                trials.push(Trial::test(format!("{name}::directives"), move || {
                    Err(e.into())
                }));
                continue;
            }
        };
        let binary: &'static OnceLock<Result<PathBuf, String>> =
            Box::leak(Box::new(OnceLock::new()));
        for launcher in LAUNCHERS {
            for &pes in &program.pes {
                let p = program.clone();
                trials.push(Trial::test(
                    format!("{name}::{launcher}::{pes}"),
                    move || {
                        let b = binary.get_or_init(|| compile(&p)).clone()?;
                        run(&p, &b, launcher, pes)
                    },
                ));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
