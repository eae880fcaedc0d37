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
//! Numbers: every numeric variable reads its number with one grammar ([`number`]): digits with an
//! optional fraction and an optional decimal exponent, no sign (`64`, `2.5`, `.5`, `1e9`, `2.5e-1`
//! are numbers everywhere; `-1`, `+1`, `inf`, `0x10` nowhere), read exactly (no floating point).
//! Then each kind judges the number and what follows it: a size takes a k/M/G/T suffix and rounds
//! up to a byte; seconds take nothing after and round up to a nanosecond; microseconds must be
//! whole. Each row's help text (the `SHMEM_INFO` and `oshinfo` table) says what it accepts.
//!
//! A `SHMEM_`/`SMA_` variable that is not in the table (a misspelling such as
//! `SHMEM_SYMETRIC_SIZE`, or another implementation's setting) is reported once, by PE 0, as a
//! warning with the nearest known name ([`unknown_warning`]); `SHMEM_WARN_UNKNOWN=0` silences it.

use crate::transport::Choice;
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
        "bytes of symmetric heap per PE: a number (64, 1.5, 1e9) with an optional k, M, G or T suffix (powers of 1024), rounded up";
    debug: bool = false, "DEBUG", parse_flag,
        "extra checks and messages (for example why an allocation returned NULL)";
    info: bool = false, "INFO", parse_flag,
        "print this table and the library version at start-up (PE 0)";
    version: bool = false, "VERSION", parse_flag,
        "print the library version at start-up (PE 0)";
    transport: Choice = Choice::Auto, "TRANSPORT", Choice::parse,
        "auto: shared memory on the node, UCX to other nodes; ucx: every PE over UCX, itself too; loopback: every PE of one node over the test network (each operation through the network interface)";
    warn_unknown: bool = true, "WARN_UNKNOWN", parse_flag,
        "warn (PE 0, once) about SHMEM_/SMA_ variables that are not in this table";
    hang_report: Option<Duration> = None, "HANG_REPORT", parse_seconds,
        "seconds (a number: 10, 2.5, 1e3) a wait may block before the PE prints what it waits for (off by default; 0 = off)";
    deadlock: Option<Duration> = Some(Duration::from_secs(20)), "DEADLOCK", parse_seconds,
        "seconds (a number: 20, 2.5, 1e3) every PE may wait in the library with no wait ending before the job is deadlocked: each PE says where it waits and the job ends (exit 1; above SHMEM_THREAD_SINGLE, where another thread may end a wait, it goes on); 0 = off";
    node_aware: bool = true, "NODE_AWARE", parse_flag,
        "node-aware barrier, broadcast, reductions, fcollect, collect and scans for teams on several nodes (0: the flat ones, to compare; the same on every PE)";
    progress_delay: Duration = Duration::from_micros(5000), "PROGRESS_DELAY", parse_micros,
        "microseconds (a whole number from 3 to 10000000: 5000, 1e4): within how long after a PE leaves the library its UCX progress thread answers its peers for it (not before a third of it); shorter answers sooner, longer sets the thread's timer less often";
    spread: bool = true, "SPREAD", parse_flag,
        "where a node's PEs do not outnumber its cores, the thread that called shmem_init has a core of its own (the node's i-th PE the i-th core), moves there at the end of shmem_init and back when a wait finds it sharing another; nothing stays bound. 0 leaves placement to the kernel";
    counts: bool = false, "COUNTS", parse_flag,
        "print each PE's count of network operations (puts, gets, atomics, signals) and of the bytes its puts and gets moved at shmem_finalize";
    log: String = String::new(), "LOG", crate::runtime::log_filter::parse_setting,
        "log filter to stderr, [PE n] first: a level (info) or target=level (ucx=debug), comma-separated";
    ucx_lib: String = String::new(), "UCX_LIB", parse_text,
        "the libucp.so.0 (a path, or its directory) the UCX route loads at its first use; unset: the one the dynamic loader finds (LD_LIBRARY_PATH, the loaded module, the system), else one in SHMEM_UCX_SEARCH or a pip-installed one (libucx/lib beside the library)";
    ucx_search: String = String::new(), "UCX_SEARCH", parse_text,
        "directories (colon-separated) where the UCX route looks for libucp when the dynamic loader finds none, before a pip-installed UCX";
}

/// Any text, without the blanks around it (a path, a list of paths).
pub fn parse_text(text: &str) -> Result<String, String> {
    Ok(text.trim().to_string())
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

/// A non-negative decimal number, read exactly: `digits * 10^power`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decimal {
    digits: u128,
    power: i64,
}

/// Why a number did not read: no number, or one too large for any variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NumberError {
    NotANumber,
    TooLarge,
}

/// The one grammar of numbers of every numeric variable: a non-negative decimal number with an
/// optional fraction and an optional decimal exponent (`20`, `3.1`, `.5`, `1e9`, `2.5e-1`), no
/// sign, no `inf` or `nan`; leading and trailing blanks are ignored. Returns the number and the
/// text after it (a suffix, for the caller to judge).
fn number(text: &str) -> Result<(Decimal, &str), NumberError> {
    let t = text.trim();
    let b = t.as_bytes();
    let digits = |at: &mut usize| {
        let from = *at;
        while *at < b.len() && b[*at].is_ascii_digit() {
            *at += 1;
        }
        &t[from..*at]
    };
    let mut at = 0;
    let int_part = digits(&mut at);
    let frac_part = if b.get(at) == Some(&b'.') {
        at += 1;
        digits(&mut at)
    } else {
        ""
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(NumberError::NotANumber);
    }
    // An exponent only where one follows in full (`1e3`; `1e` is no number).
    let mut exponent: i64 = 0;
    if matches!(b.get(at), Some(b'e' | b'E')) {
        let mut j = at + 1;
        let negative = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let e = digits(&mut j);
        if e.is_empty() {
            return Err(NumberError::NotANumber);
        }
        // Beyond 10^±1000000 no variable's number means more: a larger one is too large, a
        // smaller one rounds as 10^-1000000 does.
        exponent = e.parse::<i64>().unwrap_or(i64::MAX).min(1_000_000);
        if exponent == 1_000_000 && !negative && e.trim_start_matches('0') != "1000000" {
            return Err(NumberError::TooLarge);
        }
        if negative {
            exponent = -exponent;
        }
        at = j;
    }
    let digits: u128 = format!("{int_part}{frac_part}")
        .trim_start_matches('0')
        .parse()
        .or_else(|e: std::num::ParseIntError| match e.kind() {
            std::num::IntErrorKind::Empty => Ok(0),
            _ => Err(NumberError::TooLarge),
        })?;
    let power = exponent - frac_part.len() as i64;
    Ok((Decimal { digits, power }, &t[at..]))
}

impl Decimal {
    /// The number times `unit`, rounded up to a whole number; `None` when too large for `u128`.
    fn ceil_times(self, unit: u128) -> Option<u128> {
        let scaled = self.digits.checked_mul(unit)?;
        let ten = |n: i64| -> Option<u128> { 10u128.checked_pow(u32::try_from(n).ok()?) };
        if scaled == 0 {
            Some(0)
        } else if self.power >= 0 {
            scaled.checked_mul(ten(self.power)?)
        } else {
            match ten(-self.power) {
                Some(p) => Some(scaled.div_ceil(p)),
                None => Some(1), // a positive value far below one unit rounds up to one
            }
        }
    }

    /// The number if it is whole (`1e3`, `1000.0`), else `None` (also when too large).
    fn whole(self) -> Option<u128> {
        let up = self.ceil_times(1)?;
        // Whole exactly when rounding up changed nothing: up * 10^-power == digits.
        if self.power >= 0 {
            return Some(up);
        }
        let p = 10u128.checked_pow(u32::try_from(-self.power).ok()?)?;
        (up.checked_mul(p) == Some(self.digits)).then_some(up)
    }
}

/// A size in bytes, as the spec defines `SHMEM_SYMMETRIC_SIZE`: a number ([`number`]: fraction and
/// exponent allowed), then optionally one scaling character k/K, m/M, g/G or t/T (powers of 1024);
/// whatever follows the scaling character is ignored (`1gb`, `20kk` = `20k`). The result is the
/// ceiling of number times scale (`3.1M` = 3250586), computed exactly. Anything else after the
/// number (`12Q`), a sign, or no digits is an error.
pub fn parse_size(text: &str) -> Result<usize, String> {
    const WHY: &str = "is not a size (a non-negative number such as 64, 1.5 or 1e9, with an optional k, M, G or T suffix)";
    let (n, rest) = number(text).map_err(|e| why(e, WHY))?;
    let shift = match rest.as_bytes().first().map(u8::to_ascii_lowercase) {
        None => 0,
        Some(b'k') => 10,
        Some(b'm') => 20,
        Some(b'g') => 30,
        Some(b't') => 40,
        Some(_) => return Err(WHY.into()),
    };
    n.ceil_times(1 << shift)
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(|| TOO_LARGE.to_string())
}

/// What a number too large for its variable is told.
const TOO_LARGE: &str = "is too large";

/// The message of a number that did not read.
fn why(e: NumberError, what: &str) -> String {
    match e {
        NumberError::NotANumber => what.into(),
        NumberError::TooLarge => TOO_LARGE.into(),
    }
}

/// A time in seconds: a number ([`number`]: `10`, `2.5`, `1e3`), nothing after it; `0` or `off` is
/// none. Rounded up to a whole nanosecond.
pub fn parse_seconds(text: &str) -> Result<Option<Duration>, String> {
    const WHY: &str = "is not a time in seconds (a non-negative number such as 10, 2.5 or 1e3; 0 or off for none)";
    if text.trim().eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let (n, rest) = number(text).map_err(|e| why(e, WHY))?;
    if !rest.is_empty() {
        return Err(WHY.into());
    }
    let nanos = n
        .ceil_times(1_000_000_000)
        .ok_or_else(|| TOO_LARGE.to_string())?;
    let secs = u64::try_from(nanos / 1_000_000_000).map_err(|_| TOO_LARGE.to_string())?;
    Ok((nanos != 0).then(|| Duration::new(secs, (nanos % 1_000_000_000) as u32)))
}

/// A time in whole microseconds, 3 to 10^7 (ten seconds): a number ([`number`]: `750`, `1e4`)
/// that is whole, nothing after it.
pub fn parse_micros(text: &str) -> Result<Duration, String> {
    const WHY: &str =
        "is not a time in microseconds (a whole number such as 750 or 1e4, from 3 to 10000000)";
    let (n, rest) = number(text).map_err(|_| WHY.to_string())?;
    match n.whole() {
        Some(us) if rest.is_empty() && (3..=10_000_000).contains(&us) => {
            Ok(Duration::from_micros(us as u64))
        }
        _ => Err(WHY.into()),
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

impl std::fmt::Display for Show<'_, Choice> {
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

    /// One grammar of numbers for every numeric variable: what is a number for one is a number
    /// for all (`1e9` included), what is not is refused by all.
    #[test]
    fn one_number_grammar_everywhere() {
        assert_eq!(parse_size("1e9"), Ok(1_000_000_000));
        assert_eq!(
            parse_seconds("1e9"),
            Ok(Some(Duration::from_secs(1_000_000_000)))
        );
        assert_eq!(parse_micros("1e4"), Ok(Duration::from_micros(10_000)));
        assert_eq!(parse_micros("1.5e3"), Ok(Duration::from_micros(1500)));
        assert_eq!(parse_micros("7000.0"), Ok(Duration::from_micros(7000)));
        assert_eq!(
            parse_seconds("2.5e-1"),
            Ok(Some(Duration::from_millis(250)))
        );
        assert_eq!(parse_seconds(".5"), Ok(Some(Duration::from_millis(500))));
        assert_eq!(parse_seconds("1e-12"), Ok(Some(Duration::from_nanos(1))));
        assert_eq!(parse_seconds("0.0"), Ok(None));
        assert_eq!(parse_seconds("0e5"), Ok(None));
        for bad in [
            "", " ", "-1", "+1", "inf", "nan", "NaN", "infinity", "0x10", "1e", "e3", ".", "1 2",
            "1_000", "1,5",
        ] {
            assert!(parse_size(bad).is_err(), "size {bad:?}");
            assert!(parse_seconds(bad).is_err(), "seconds {bad:?}");
            assert!(parse_micros(bad).is_err(), "micros {bad:?}");
        }
        // The suffix is a size's only: seconds and microseconds take nothing after the number.
        assert!(parse_seconds("10k").is_err());
        assert!(parse_seconds("10s").is_err());
        assert!(parse_micros("5k").is_err());
        // Too large for the variable, said so.
        assert_eq!(parse_seconds("1e30"), Err("is too large".to_string()));
        assert_eq!(parse_size("1e30"), Err("is too large".to_string()));
        assert_eq!(parse_size("1e99999999"), Err("is too large".to_string()));
        assert_eq!(parse_size("1e-99999999"), Ok(1));
        // Through the table: SHMEM_DEADLOCK and SHMEM_SYMMETRIC_SIZE agree on 1e9.
        let env = |k: &str| match k {
            "SHMEM_DEADLOCK" | "SHMEM_SYMMETRIC_SIZE" => Some("1e9".to_string()),
            _ => None,
        };
        let (c, _) = Config::parse(&env).unwrap();
        assert_eq!(c.symmetric_size, 1_000_000_000);
        assert_eq!(c.deadlock, Some(Duration::from_secs(1_000_000_000)));
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
        assert_eq!(Choice::parse("auto"), Ok(Choice::Auto));
        assert_eq!(Choice::parse(" UCX"), Ok(Choice::Ucx));
        let env = |k: &str| (k == "SHMEM_TRANSPORT").then(|| "tcp".to_string());
        let err = Config::parse(&env).unwrap_err();
        assert!(
            err.starts_with("SHMEM_TRANSPORT = 'tcp' is not a transport (use auto")
                && err.contains("ucx"),
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

/// The table of `docs/guide/environment.md` is rendered from this one and checked against it.
#[cfg(test)]
mod env_table;
