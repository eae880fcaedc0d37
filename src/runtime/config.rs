//! The environment variables rshmem reads, as one declarative table.
//!
//! Each row names the variable (without its `SHMEM_` prefix), its type, its default and what it
//! means. The table produces the [`Config`] struct, its parser (the `SHMEM_` name first, then the
//! legacy `SMA_` one), the `SHMEM_INFO` printout and the list of known names, so they cannot
//! drift apart. A value that does not parse is an error that names the variable and the value; it
//! is never silently ignored.
//!
//! Values follow the spec's table of environment variables (OpenSHMEM 1.6, Environment
//! Variables): `SHMEM_VERSION`, `SHMEM_INFO` and `SHMEM_DEBUG` take any value, so they are flags
//! ([`parse_flag`]: set means on; the usual spellings of "off" turn them off, nothing is an
//! error); `SHMEM_SYMMETRIC_SIZE` is a non-negative integer or floating-point number with an
//! optional scaling suffix, anything after the suffix ignored ([`parse_size`]).
//!
//! A `SHMEM_`/`SMA_` variable that is not in the table (a misspelling such as
//! `SHMEM_SYMETRIC_SIZE`, or another implementation's setting) is reported once, by PE 0, as a
//! warning with the nearest known name ([`unknown_warning`]); `SHMEM_WARN_UNKNOWN=0` silences it.

use std::fmt::Write as _;
use std::time::Duration;

/// Where a configuration value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Default,
    Env(&'static str),
}

macro_rules! config_table {
    ($( $field:ident : $ty:ty = $default:expr, $name:literal, $parse:path, $help:literal; )*) => {
        /// Configuration read once at `shmem_init`.
        #[derive(Clone, Debug)]
        pub struct Config {
            $( pub $field: $ty, )*
        }

        /// The rows of the table, for the `SHMEM_INFO` printout.
        pub const VARIABLES: &[(&str, &str)] = &[ $( (concat!("SHMEM_", $name), $help), )* ];

        /// The names of the table without their prefix (`SYMMETRIC_SIZE`).
        const NAMES: &[&str] = &[ $( $name, )* ];

        impl Config {
            /// Reads every variable through `lookup` (the process environment in the library).
            pub fn parse(lookup: &dyn Fn(&str) -> Option<String>) -> Result<(Config, Vec<Source>), String> {
                let mut sources = Vec::new();
                let config = Config {
                    $( $field: {
                        let (value, source) = read(lookup, $name)?;
                        sources.push(source);
                        match value {
                            None => $default,
                            Some(text) => $parse(&text).map_err(|why| {
                                format!("{} = '{}' {}", source_name(source), text, why)
                            })?,
                        }
                    }, )*
                };
                Ok((config, sources))
            }

            /// Every variable's full name and value as text, in table order (for `oshinfo`).
            pub fn values(&self) -> Vec<(&'static str, String)> {
                vec![ $( (concat!("SHMEM_", $name), Show(&self.$field).to_string()), )* ]
            }

            /// The `SHMEM_INFO` table: every variable, its value, where it came from, what it means.
            pub fn describe(&self, sources: &[Source]) -> String {
                let mut out = String::new();
                let mut i = 0;
                $(
                    let value = Show(&self.$field).to_string();
                    let from = match sources.get(i) { Some(Source::Env(n)) => *n, _ => "default" };
                    let _ = writeln!(out, "  {:<26} {:<14} ({})  {}", concat!("SHMEM_", $name), value, from, $help);
                    i += 1;
                )*
                let _ = i;
                out
            }
        }
    };
}

config_table! {
    symmetric_size: usize = 1 << 30, "SYMMETRIC_SIZE", parse_size,
        "bytes of symmetric heap per PE (a number, fraction allowed, with an optional k, M, G or T suffix)";
    debug: bool = false, "DEBUG", parse_flag,
        "extra checks and messages (for example why an allocation returned NULL)";
    info: bool = false, "INFO", parse_flag,
        "print this table and the library version at start-up (PE 0)";
    version: bool = false, "VERSION", parse_flag,
        "print the library version at start-up (PE 0)";
    transport: Transport = Transport::Auto, "TRANSPORT", parse_transport,
        "auto: shared memory on the node, UCX to other nodes; ucx: every PE over UCX, itself too";
    warn_unknown: bool = true, "WARN_UNKNOWN", parse_flag,
        "warn (PE 0, once) about SHMEM_/SMA_ variables that are not in this table";
    hang_report: Option<Duration> = None, "HANG_REPORT", parse_seconds,
        "seconds a wait may block before the PE prints what it waits for (off by default; 0 = off)";
    deadlock: Option<Duration> = Some(Duration::from_secs(20)), "DEADLOCK", parse_seconds,
        "seconds every PE may wait in the library with no wait ending before the job is deadlocked: each PE says where it waits and the job ends (exit 1; above SHMEM_THREAD_SINGLE, where another thread may end a wait, it goes on); 0 = off";
    node_aware: bool = true, "NODE_AWARE", parse_flag,
        "node-aware barrier, broadcast, reductions, fcollect, collect and scans for teams on several nodes (0: the flat ones, to compare; the same on every PE)";
    progress_delay: Duration = Duration::from_micros(5000), "PROGRESS_DELAY", parse_micros,
        "microseconds: within how long after a PE leaves the library its UCX progress thread answers its peers for it (not before a third of it); shorter answers sooner, longer sets the thread's timer less often";
    spread: bool = true, "SPREAD", parse_flag,
        "where a node's PEs do not outnumber its cores, the thread that called shmem_init has a core of its own (the node's i-th PE the i-th core), moves there at the end of shmem_init and back when a wait finds it sharing another; nothing stays bound. 0 leaves placement to the kernel";
    counts: bool = false, "COUNTS", parse_flag,
        "print each PE's count of network operations (puts, gets, atomics, signals) and of the bytes its puts and gets moved at shmem_finalize";
    log: String = String::new(), "LOG", crate::runtime::log::parse_setting,
        "log filter to stderr, [PE n] first: a level (info) or target=level (ucx=debug), comma-separated";
    ucx_lib: String = String::new(), "UCX_LIB", parse_text,
        "the libucp.so.0 (a path, or its directory) the UCX route loads at its first use; unset: the one the dynamic loader finds (LD_LIBRARY_PATH, the loaded module, the system), else one in SHMEM_UCX_SEARCH or a pip-installed one (libucx/lib beside the library)";
    ucx_search: String = String::new(), "UCX_SEARCH", parse_text,
        "directories (colon-separated) where the UCX route looks for libucp when the dynamic loader finds none, before a pip-installed UCX";
}

/// How PEs reach each other (`SHMEM_TRANSPORT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Shared memory for the PEs of this node, UCX for the others.
    Auto,
    /// UCX for every PE, this one included: each PE behaves as if alone on its node.
    Ucx,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Auto => "auto",
            Transport::Ucx => "ucx",
        }
    }
}

/// Any text, without the blanks around it (a path, a list of paths).
pub fn parse_text(text: &str) -> Result<String, String> {
    Ok(text.trim().to_string())
}

/// `auto` or `ucx` (any case).
pub fn parse_transport(text: &str) -> Result<Transport, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "auto" => Ok(Transport::Auto),
        "ucx" => Ok(Transport::Ucx),
        _ => Err("is not a transport (use auto or ucx)".into()),
    }
}

fn source_name(source: Source) -> &'static str {
    match source {
        Source::Env(name) => name,
        Source::Default => "default",
    }
}

/// Looks up `SHMEM_<name>`, then `SMA_<name>`; the `SHMEM_` one wins when both are set.
fn read(
    lookup: &dyn Fn(&str) -> Option<String>,
    name: &'static str,
) -> Result<(Option<String>, Source), String> {
    // The names are built once per variable at init; leaking two short strings per row keeps
    // `Source` a plain `Copy` value.
    let modern: &'static str = Box::leak(format!("SHMEM_{name}").into_boxed_str());
    let legacy: &'static str = Box::leak(format!("SMA_{name}").into_boxed_str());
    if let Some(v) = lookup(modern) {
        return Ok((Some(v), Source::Env(modern)));
    }
    if let Some(v) = lookup(legacy) {
        return Ok((Some(v), Source::Env(legacy)));
    }
    Ok((None, Source::Default))
}

/// A size in bytes, as the spec defines `SHMEM_SYMMETRIC_SIZE`: a non-negative integer or
/// floating-point number (`20`, `3.1`, `.5`, `1e3`), then optionally one scaling character k/K, m/M,
/// g/G or t/T (powers of 1024); whatever follows the scaling character is ignored (`1gb`, `20kk` =
/// `20k`). The result is the ceiling of number times scale (`3.1M` = 3250586), computed exactly.
/// Anything else after the number (`12Q`), a sign, or no digits is an error.
pub fn parse_size(text: &str) -> Result<usize, String> {
    const WHY: &str = "is not a size (a non-negative number, fraction allowed, with an optional k, M, G or T suffix)";
    const TOO_LARGE: &str = "is too large";
    let t = text.trim();
    let b = t.as_bytes();
    let mut at = 0;
    let digits = |at: &mut usize| {
        let from = *at;
        while *at < b.len() && b[*at].is_ascii_digit() {
            *at += 1;
        }
        &t[from..*at]
    };
    let int_part = digits(&mut at);
    let frac_part = if b.get(at) == Some(&b'.') {
        at += 1;
        digits(&mut at)
    } else {
        ""
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(WHY.into());
    }
    // An exponent only where one follows in full (`1e3`); `e` is no scaling character.
    let mut exponent: i64 = 0;
    if matches!(b.get(at), Some(b'e' | b'E')) {
        let mut j = at + 1;
        let negative = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let e = digits(&mut j);
        if e.is_empty() {
            return Err(WHY.into());
        }
        exponent = e.parse::<i64>().map_err(|_| TOO_LARGE.to_string())?;
        if negative {
            exponent = -exponent;
        }
        at = j;
    }
    let shift = match b.get(at).map(u8::to_ascii_lowercase) {
        None => 0,
        Some(b'k') => 10,
        Some(b'm') => 20,
        Some(b'g') => 30,
        Some(b't') => 40,
        Some(_) => return Err(WHY.into()),
    };
    // value = mantissa * 10^(exponent - decimals) * 2^shift, rounded up.
    let mantissa: u128 = format!("{int_part}{frac_part}")
        .trim_start_matches('0')
        .parse()
        .or_else(|e: std::num::ParseIntError| match e.kind() {
            std::num::IntErrorKind::Empty => Ok(0),
            _ => Err(TOO_LARGE.to_string()),
        })?;
    let scaled = mantissa
        .checked_shl(shift)
        .filter(|v| v >> shift == mantissa)
        .ok_or_else(|| TOO_LARGE.to_string())?;
    let power = exponent - frac_part.len() as i64;
    let ten = |n: i64| -> Option<u128> { 10u128.checked_pow(u32::try_from(n).ok()?) };
    let value = if scaled == 0 {
        0
    } else if power >= 0 {
        ten(power)
            .and_then(|p| scaled.checked_mul(p))
            .ok_or_else(|| TOO_LARGE.to_string())?
    } else {
        match ten(-power) {
            Some(p) => scaled.div_ceil(p),
            None => 1, // a positive value far below one byte rounds up to one
        }
    };
    usize::try_from(value).map_err(|_| TOO_LARGE.to_string())
}

/// A time in seconds (`10`, `2.5`); `0` or `off` is none.
pub fn parse_seconds(text: &str) -> Result<Option<Duration>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err("is not a time in seconds (a positive number, or 0 or off for none)".into()),
    }
}

/// A time in whole microseconds, 3 to 10^7 (ten seconds).
pub fn parse_micros(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<u64>() {
        Ok(us) if (3..=10_000_000).contains(&us) => Ok(Duration::from_micros(us)),
        _ => Err("is not a time in microseconds (a whole number from 3 to 10000000)".into()),
    }
}

/// A flag whose value the spec leaves free ("Any"): set means on, whatever the value (empty,
/// `1`, `yes`, `verbose`), except the usual spellings of off: `0`, `n`, `no`, `false`, `off` (any
/// case). Never an error.
pub fn parse_flag(text: &str) -> Result<bool, String> {
    Ok(!matches!(
        text.trim().to_ascii_lowercase().as_str(),
        "0" | "n" | "no" | "false" | "off"
    ))
}

/// The warning about the `SHMEM_`/`SMA_` variables among `names` (of the environment) that the
/// table does not know, one line each with the nearest known name if one is
/// close; empty when there is none or `config.warn_unknown` is off.
pub fn unknown_warning(config: &Config, names: impl Iterator<Item = String>) -> String {
    if !config.warn_unknown {
        return String::new();
    }
    let mut unknown: Vec<String> = names
        .filter(|name| {
            let rest = name
                .strip_prefix("SHMEM_")
                .or_else(|| name.strip_prefix("SMA_"));
            rest.is_some_and(|r| !NAMES.contains(&r))
        })
        .collect();
    unknown.sort();
    let mut out = String::new();
    for name in unknown {
        let (prefix, rest) = name.split_at(if name.starts_with("SMA_") { 4 } else { 6 });
        let near = NAMES
            .iter()
            .map(|n| (distance(rest, n), n))
            .min()
            .filter(|&(d, _)| d <= 2 || rest.len() >= 8 && d <= 3)
            .map(|(_, n)| format!(" (did you mean {prefix}{n}?)"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "rshmem: warning: {name} is not a variable rshmem knows{near}; it is ignored (SHMEM_INFO=1 lists the known ones, SHMEM_WARN_UNKNOWN=0 silences this)"
        );
    }
    out
}

/// The edit distance (insertions, deletions, substitutions) between `a` and `b`.
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

struct Show<'a, T>(&'a T);

impl std::fmt::Display for Show<'_, usize> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::fmt::Display for Show<'_, Transport> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name())
    }
}

impl std::fmt::Display for Show<'_, String> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_empty() { "off" } else { self.0 })
    }
}

impl std::fmt::Display for Show<'_, Option<Duration>> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            None => f.write_str("off"),
            Some(d) => write!(f, "{} s", d.as_secs_f64()),
        }
    }
}

impl std::fmt::Display for Show<'_, Duration> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} us", self.0.as_micros())
    }
}

impl std::fmt::Display for Show<'_, bool> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if *self.0 { "yes" } else { "no" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds("10"), Ok(Some(Duration::from_secs(10))));
        assert_eq!(
            parse_seconds(" 2.5 "),
            Ok(Some(Duration::from_millis(2500)))
        );
        assert_eq!(parse_seconds("0"), Ok(None));
        assert_eq!(parse_seconds("OFF"), Ok(None));
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("ten").is_err());
        assert!(parse_seconds("inf").is_err());
    }

    #[test]
    fn microseconds() {
        assert_eq!(parse_micros("750"), Ok(Duration::from_micros(750)));
        assert_eq!(parse_micros(" 3 "), Ok(Duration::from_micros(3)));
        assert_eq!(parse_micros("10000000"), Ok(Duration::from_secs(10)));
        for bad in ["", "0", "2", "10000001", "0.5", "-1", "1ms", "x"] {
            assert!(parse_micros(bad).is_err(), "{bad:?}");
        }
        let env = |k: &str| (k == "SHMEM_PROGRESS_DELAY").then(|| "2500".to_string());
        let (config, _) = Config::parse(&env).unwrap();
        assert_eq!(config.progress_delay, Duration::from_micros(2500));
        let (config, _) = Config::parse(&|_| None).unwrap();
        assert_eq!(config.progress_delay, Duration::from_micros(5000));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("2M"), Ok(2 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1gb"), Ok(1 << 30));
        assert_eq!(parse_size("3T"), Ok(3 << 40));
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("+1").is_err());
        assert!(parse_size("k").is_err());
        assert!(parse_size(".").is_err());
        assert!(parse_size("1e").is_err());
        assert!(parse_size("99999999999999999999999").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    /// The spec's own examples and rules for `SHMEM_SYMMETRIC_SIZE`.
    #[test]
    fn sizes_as_the_spec_defines_them() {
        assert_eq!(parse_size("20m"), Ok(20971520));
        assert_eq!(parse_size("3.1M"), Ok(3250586));
        assert_eq!(parse_size(".5m"), parse_size("0.5m"));
        assert_eq!(parse_size(".5m"), Ok(1 << 19));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("20kk"), Ok(20 << 10));
        assert_ne!(parse_size("20kk"), parse_size("20m"));
        assert_eq!(parse_size("1.5"), Ok(2));
        assert_eq!(parse_size("0.1"), Ok(1));
        assert_eq!(parse_size("1e3"), Ok(1000));
        assert_eq!(parse_size("2.5e-1k"), Ok(256));
        assert_eq!(parse_size("1e-30"), Ok(1));
        assert_eq!(parse_size(" 64M "), Ok(64 << 20));
        assert_eq!(parse_size("0.000k"), Ok(0));
    }

    #[test]
    fn flags_take_any_value() {
        for on in [
            "", "1", "yes", "Y", "true", "on", "2", "verbose", "anything",
        ] {
            assert_eq!(parse_flag(on), Ok(true), "{on:?}");
        }
        for off in ["0", "n", "No", "FALSE", "off", " 0 "] {
            assert_eq!(parse_flag(off), Ok(false), "{off:?}");
        }
        let env = |k: &str| match k {
            "SHMEM_INFO" | "SHMEM_DEBUG" | "SHMEM_VERSION" => Some("verbose".to_string()),
            _ => None,
        };
        let (c, _) = Config::parse(&env).unwrap();
        assert!(c.info && c.debug && c.version);
    }

    #[test]
    fn unknown_variables_are_named_with_the_nearest_known_one() {
        let (config, _) = Config::parse(&|_| None).unwrap();
        let vars = [
            "SHMEM_SYMETRIC_SIZE",
            "SHMEM_INFO",
            "SMA_DEBUG",
            "SMA_DEBGU",
            "SHMEM_OFI_PROVIDER",
            "PATH",
            "XSHMEM_FOO",
        ]
        .map(String::from);
        let text = unknown_warning(&config, vars.clone().into_iter());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].contains("SHMEM_OFI_PROVIDER is not a variable rshmem knows;"),
            "{text}"
        );
        assert!(
            lines[1].contains("SHMEM_SYMETRIC_SIZE is not a variable rshmem knows (did you mean SHMEM_SYMMETRIC_SIZE?)"),
            "{text}"
        );
        assert!(
            lines[2].contains("SMA_DEBGU") && lines[2].contains("did you mean SMA_DEBUG?"),
            "{text}"
        );
        let quiet = |k: &str| (k == "SHMEM_WARN_UNKNOWN").then(|| "0".to_string());
        let (config, _) = Config::parse(&quiet).unwrap();
        assert_eq!(unknown_warning(&config, vars.into_iter()), "");
    }

    #[test]
    fn edit_distance() {
        assert_eq!(distance("SYMETRIC_SIZE", "SYMMETRIC_SIZE"), 1);
        assert_eq!(distance("", "ABC"), 3);
        assert_eq!(distance("DEBGU", "DEBUG"), 2);
        assert_eq!(distance("INFO", "INFO"), 0);
    }

    #[test]
    fn shmem_name_wins_over_sma() {
        let env = |k: &str| match k {
            "SHMEM_SYMMETRIC_SIZE" => Some("2M".to_string()),
            "SMA_SYMMETRIC_SIZE" => Some("4M".to_string()),
            "SMA_DEBUG" => Some("1".to_string()),
            _ => None,
        };
        let (c, sources) = Config::parse(&env).unwrap();
        assert_eq!(c.symmetric_size, 2 << 20);
        assert!(c.debug);
        assert_eq!(sources[0], Source::Env("SHMEM_SYMMETRIC_SIZE"));
        assert_eq!(sources[1], Source::Env("SMA_DEBUG"));
    }

    #[test]
    fn transports() {
        assert_eq!(parse_transport("auto"), Ok(Transport::Auto));
        assert_eq!(parse_transport("UCX"), Ok(Transport::Ucx));
        let env = |k: &str| (k == "SHMEM_TRANSPORT").then(|| "tcp".to_string());
        let err = Config::parse(&env).unwrap_err();
        assert!(
            err.starts_with("SHMEM_TRANSPORT = 'tcp' is not a transport"),
            "{err}"
        );
    }

    #[test]
    fn bad_value_names_variable_and_value() {
        let env = |k: &str| (k == "SHMEM_SYMMETRIC_SIZE").then(|| "12Q".to_string());
        let err = Config::parse(&env).unwrap_err();
        assert!(
            err.starts_with("SHMEM_SYMMETRIC_SIZE = '12Q' is not a size"),
            "{err}"
        );
    }
}
