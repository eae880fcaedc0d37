//! The environment variables rshmem reads, as one declarative table.
//!
//! Each row names the variable (without its `SHMEM_` prefix), its type, its default and what it
//! means. The table produces the [`Config`] struct, its parser (the `SHMEM_` name first, then the
//! legacy `SMA_` one) and the `SHMEM_INFO` printout, so the three cannot drift apart. A value that
//! does not parse is an error that names the variable and the value; it is never silently ignored.

use std::fmt::Write as _;

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
        "bytes of symmetric heap per PE (suffixes k, M, G, T)";
    debug: bool = false, "DEBUG", parse_bool,
        "extra checks and messages (for example when the heap is exhausted)";
    info: bool = false, "INFO", parse_bool,
        "print this table and the library version at start-up (PE 0)";
    version: bool = false, "VERSION", parse_bool,
        "print the library version at start-up (PE 0)";
    transport: Transport = Transport::Auto, "TRANSPORT", parse_transport,
        "auto: shared memory on the node, UCX to other nodes; ucx: every PE over UCX, itself too";
    log: String = String::new(), "LOG", crate::runtime::log::parse_setting,
        "log filter to stderr, [PE n] first: a level (info) or target=level (ucx=debug), comma-separated";
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

/// A size in bytes: a decimal number with an optional k/K, m/M, g/G or t/T suffix (powers of 1024),
/// optionally followed by `b`/`B`.
pub fn parse_size(text: &str) -> Result<usize, String> {
    const WHY: &str = "is not a size (a number with an optional k, M, G or T suffix)";
    let t = text.trim();
    let t = t.strip_suffix(['b', 'B']).unwrap_or(t);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_lowercase() {
                'k' => 10,
                'm' => 20,
                'g' => 30,
                't' => 40,
                _ => return Err(WHY.into()),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(WHY.into());
    }
    let n: usize = digits.parse().map_err(|_| "is too large".to_string())?;
    n.checked_mul(1usize << shift)
        .ok_or_else(|| "is too large".to_string())
}

/// A boolean: 1/0, y/n, yes/no, true/false, on/off (any case); an empty value means true.
pub fn parse_bool(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "" | "1" | "y" | "yes" | "true" | "on" => Ok(true),
        "0" | "n" | "no" | "false" | "off" => Ok(false),
        _ => Err("is not a boolean (use 1/0, yes/no, true/false, on/off)".into()),
    }
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

impl std::fmt::Display for Show<'_, bool> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if *self.0 { "yes" } else { "no" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("2M"), Ok(2 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1gb"), Ok(1 << 30));
        assert_eq!(parse_size("3T"), Ok(3 << 40));
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("k").is_err());
        assert!(parse_size("99999999999999999999999").is_err());
        assert!(parse_size("99999999999T").is_err());
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
