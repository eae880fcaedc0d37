//! The `oshrun` command line: `oshrun [options] [--] prog [args...]`.
//!
//! Options come first; the first argument that is not an option (or the one after `--`) is the
//! program, and everything after it is handed to the program untouched, even if it looks like an
//! option. Parsing never touches the process: it turns the arguments into an [`Invocation`] or a
//! [`UsageError`] whose text the caller prints before exiting with status 2.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::time::Duration;

/// Largest accepted PE count. oshrun is a single-node launcher; a larger number is far more likely
/// a typo than a request.
pub const MAX_PES: u32 = 4096;

/// The text printed by `--help`.
pub const USAGE: &str = "\
Usage: oshrun [options] [--] prog [args...]

Starts N copies of prog on this node as the PEs of one OpenSHMEM job and
serves them the PMI-1 wire protocol (PMI_FD, PMI_RANK, PMI_SIZE).

Options:
  -np N, -n N, --np N   number of PEs to start (default 1); also -np=N
  --timeout SEC         kill the whole job after SEC seconds (exit code 124),
                        after two seconds in which each PE prints where it is
  --tag-output          prefix each line of output with [PE n]
  -x VAR                pass VAR to the PEs (they inherit the environment anyway)
  -x VAR=value          set VAR to value in the PEs' environment
  -h, --help            print this help and exit
  --version             print the version and exit

Exit status: the first non-zero exit code of a PE, 128+n if a PE was killed
by signal n, 124 on timeout, 2 on a usage error, 0 if every PE exited 0.
SIGQUIT to oshrun (kill -QUIT <pid>) makes each PE print where it is; the job
goes on.
";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Invocation {
    /// Launch a job.
    Run(Options),
    /// Print [`USAGE`].
    Help,
    /// Print the version.
    Version,
}

/// Everything needed to launch a job.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Number of PEs, in `1..=MAX_PES`.
    pub npes: u32,
    /// Wall-clock limit for the whole job, in seconds (finite and positive).
    pub timeout: Option<f64>,
    /// Forward the PEs' output through pipes, each line prefixed with `[PE n] `.
    pub tag_output: bool,
    /// Variables set with `-x VAR=value`, in command-line order.
    pub env: Vec<(OsString, OsString)>,
    /// The program each PE runs.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

impl Options {
    /// The timeout as a [`Duration`]; `None` when there is no limit.
    pub fn timeout_duration(&self) -> Option<Duration> {
        self.timeout
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
    }
}

/// A command line that cannot be obeyed; the text explains why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage(msg: impl Into<String>) -> UsageError {
    UsageError(msg.into())
}

/// Options that take a value, as `-opt value` or `-opt=value`.
const VALUE_OPTIONS: [&str; 5] = ["-np", "-n", "--np", "--timeout", "-x"];

/// Parses the arguments that follow the program name (`argv[1..]`).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Invocation, UsageError> {
    let mut args = args.into_iter();
    let mut npes = 1;
    let mut timeout = None;
    let mut tag_output = false;
    let mut env = Vec::new();

    let program = loop {
        let Some(arg) = args.next() else {
            return Err(usage("no program given"));
        };
        if arg == "--" {
            match args.next() {
                Some(program) => break program,
                None => return Err(usage("no program given after '--'")),
            }
        }
        let bytes = arg.as_encoded_bytes();
        if bytes.len() < 2 || bytes[0] != b'-' {
            break arg;
        }
        let Some(text) = arg.to_str() else {
            return Err(usage(format!("unknown option '{}'", arg.to_string_lossy())));
        };

        // Split `-opt=value` for the options that take a value.
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) if VALUE_OPTIONS.contains(&name) => (name, Some(value.to_owned())),
            _ => (text, None),
        };
        if inline.is_some() || VALUE_OPTIONS.contains(&name) {
            let value = match inline {
                Some(value) => value,
                None => match args.next() {
                    Some(value) => value.into_string().map_err(|v| {
                        usage(format!(
                            "invalid value '{}' for {name}",
                            v.to_string_lossy()
                        ))
                    })?,
                    None => return Err(usage(format!("option {name} needs a value"))),
                },
            };
            match name {
                "-np" | "-n" | "--np" => npes = parse_npes(name, &value)?,
                "--timeout" => timeout = Some(parse_timeout(&value)?),
                "-x" => {
                    if let Some(pair) = parse_export(&value)? {
                        env.push(pair);
                    }
                }
                _ => unreachable!("every VALUE_OPTIONS entry is handled"),
            }
            continue;
        }
        match name {
            "-h" | "--help" => return Ok(Invocation::Help),
            "--version" => return Ok(Invocation::Version),
            "--tag-output" => tag_output = true,
            _ => return Err(usage(format!("unknown option '{text}'"))),
        }
    };

    Ok(Invocation::Run(Options {
        npes,
        timeout,
        tag_output,
        env,
        program,
        args: args.collect(),
    }))
}

fn parse_npes(name: &str, value: &str) -> Result<u32, UsageError> {
    let n: u32 = value
        .parse()
        .map_err(|_| usage(format!("{name} expects a number of PEs, not '{value}'")))?;
    if n == 0 || n > MAX_PES {
        return Err(usage(format!(
            "{name} {value}: the number of PEs must be in [1, {MAX_PES}]"
        )));
    }
    Ok(n)
}

fn parse_timeout(value: &str) -> Result<f64, UsageError> {
    match value.parse::<f64>() {
        Ok(s) if s > 0.0 && Duration::try_from_secs_f64(s).is_ok() => Ok(s),
        _ => Err(usage(format!(
            "--timeout expects a positive number of seconds, not '{value}'"
        ))),
    }
}

/// `-x VAR` (nothing to do: the environment is inherited) or `-x VAR=value`.
fn parse_export(value: &str) -> Result<Option<(OsString, OsString)>, UsageError> {
    let (name, val) = match value.split_once('=') {
        Some((name, val)) => (name, Some(val)),
        None => (value, None),
    };
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(usage(format!("-x expects VAR or VAR=value, not '{value}'")));
    }
    Ok(val.map(|v| (OsStr::new(name).to_owned(), OsStr::new(v).to_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Invocation, UsageError> {
        parse(args.iter().map(OsString::from))
    }

    fn run(args: &[&str]) -> Options {
        match parse_strs(args) {
            Ok(Invocation::Run(opts)) => opts,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let opts = run(&["prog"]);
        assert_eq!(opts.npes, 1);
        assert_eq!(opts.timeout, None);
        assert!(!opts.tag_output);
        assert!(opts.env.is_empty());
        assert_eq!(opts.program, "prog");
        assert!(opts.args.is_empty());
    }

    #[test]
    fn every_spelling_of_np() {
        for args in [
            &["-np", "4", "p"][..],
            &["-n", "4", "p"],
            &["--np", "4", "p"],
            &["-np=4", "p"],
            &["-n=4", "p"],
            &["--np=4", "p"],
        ] {
            assert_eq!(run(args).npes, 4, "{args:?}");
        }
    }

    #[test]
    fn bad_np() {
        for args in [
            &["-np", "0", "p"][..],
            &["-np", "-3", "p"],
            &["-np", "x", "p"],
            &["-np", "4097", "p"],
            &["-np=", "p"],
            &["-np"],
        ] {
            assert!(parse_strs(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn program_arguments_are_not_options() {
        let opts = run(&["-np", "2", "prog", "-np", "5", "--bogus"]);
        assert_eq!(opts.npes, 2);
        assert_eq!(opts.program, "prog");
        assert_eq!(opts.args, ["-np", "5", "--bogus"]);
    }

    #[test]
    fn double_dash_ends_options() {
        let opts = run(&["--", "--weird-name", "a"]);
        assert_eq!(opts.program, "--weird-name");
        assert_eq!(opts.args, ["a"]);
        assert!(parse_strs(&["--"]).is_err());
    }

    #[test]
    fn timeout_tag_and_exports() {
        let opts = run(&[
            "--timeout",
            "2.5",
            "--tag-output",
            "-x",
            "A=1=2",
            "-x",
            "PATH",
            "p",
        ]);
        assert_eq!(opts.timeout, Some(2.5));
        assert_eq!(opts.timeout_duration(), Some(Duration::from_millis(2500)));
        assert!(opts.tag_output);
        assert_eq!(opts.env, [(OsString::from("A"), OsString::from("1=2"))]);
        assert_eq!(run(&["--timeout=3", "p"]).timeout, Some(3.0));
    }

    #[test]
    fn bad_values_and_unknown_options() {
        for args in [
            &["--timeout", "0", "p"][..],
            &["--timeout", "-1", "p"],
            &["--timeout", "nan", "p"],
            &["--timeout", "inf", "p"],
            &["-x", "1A=2", "p"],
            &["-x", "=v", "p"],
            &["--bogus", "p"],
            &["-N", "2", "p"],
            &[],
        ] {
            assert!(parse_strs(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn help_and_version() {
        assert_eq!(parse_strs(&["-h"]), Ok(Invocation::Help));
        assert_eq!(parse_strs(&["--help", "p"]), Ok(Invocation::Help));
        assert_eq!(parse_strs(&["--version"]), Ok(Invocation::Version));
        // After the program they belong to the program.
        assert!(matches!(
            parse_strs(&["p", "--help"]),
            Ok(Invocation::Run(_))
        ));
    }

    #[test]
    fn lone_dash_is_a_program() {
        assert_eq!(run(&["-"]).program, "-");
    }
}
