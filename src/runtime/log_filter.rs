//! The `SHMEM_LOG` filter: the targets the library logs under, and the parsing and matching of
//! the directives (a level, or `target=level`). The configuration table parses the variable with
//! [`parse_setting`]; `runtime::log` filters its events with [`Filter`]. Kept apart from the
//! logger so that the configuration, which every module reads, depends on nothing that reports.

use tracing::level_filters::LevelFilter;

/// The targets the library logs under, and what each says.
pub const TARGETS: &[(&str, &str)] = &[
    ("rshmem::init", "start-up phases and their durations"),
    (
        "rshmem::route",
        "which PEs are reached by shared memory, which by UCX",
    ),
    ("rshmem::team", "team creation and destruction"),
    ("rshmem::ctx", "context creation and destruction"),
    ("rshmem::ucx", "UCX set-up, wire-up and errors"),
];

/// A parsed `SHMEM_LOG`: the default level and per-target levels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    default: LevelFilter,
    targets: Vec<(&'static str, LevelFilter)>,
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, String> {
        let mut filter = Filter {
            default: LevelFilter::OFF,
            targets: Vec::new(),
        };
        for directive in text.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            match directive.split_once('=') {
                None => filter.default = level(directive)?,
                Some((target, lvl)) => {
                    let target = target.trim();
                    let full = TARGETS
                        .iter()
                        .map(|(t, _)| *t)
                        .find(|t| *t == target || t.strip_prefix("rshmem::") == Some(target))
                        .ok_or_else(|| {
                            let names: Vec<&str> = TARGETS
                                .iter()
                                .map(|(t, _)| &t["rshmem::".len()..])
                                .collect();
                            format!(
                                "names the unknown log target '{target}' (targets: {})",
                                names.join(", ")
                            )
                        })?;
                    filter.targets.push((full, level(lvl.trim())?));
                }
            }
        }
        Ok(filter)
    }

    pub fn level_of(&self, target: &str) -> LevelFilter {
        self.targets
            .iter()
            .rev()
            .find(|(t, _)| *t == target)
            .map_or(self.default, |(_, l)| *l)
    }

    pub fn max(&self) -> LevelFilter {
        self.targets
            .iter()
            .map(|(_, l)| *l)
            .fold(self.default, LevelFilter::max)
    }
}

fn level(text: &str) -> Result<LevelFilter, String> {
    text.parse::<LevelFilter>().map_err(|_| {
        format!("has '{text}', which is not a log level (off, error, warn, info, debug, trace)")
    })
}

/// The parser of the `SHMEM_LOG` row of the configuration table: the text, once it parses.
pub fn parse_setting(text: &str) -> Result<String, String> {
    Filter::parse(text).map(|_| text.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives() {
        let f = Filter::parse("info").unwrap();
        assert_eq!(f.level_of("rshmem::ucx"), LevelFilter::INFO);
        let f = Filter::parse("ucx=debug").unwrap();
        assert_eq!(f.level_of("rshmem::ucx"), LevelFilter::DEBUG);
        assert_eq!(f.level_of("rshmem::init"), LevelFilter::OFF);
        assert_eq!(f.max(), LevelFilter::DEBUG);
        let f = Filter::parse("warn, rshmem::init=trace").unwrap();
        assert_eq!(f.level_of("rshmem::init"), LevelFilter::TRACE);
        assert_eq!(f.level_of("rshmem::team"), LevelFilter::WARN);
        assert_eq!(Filter::parse("").unwrap().max(), LevelFilter::OFF);
        assert!(Filter::parse("loud").is_err());
        assert!(Filter::parse("ucs=debug").unwrap_err().contains("ucs"));
        assert!(Filter::parse("ucx=noisy").is_err());
    }
}
