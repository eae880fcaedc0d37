//! Logging through `tracing`, filtered by `SHMEM_LOG`, each line prefixed with the PE.
//!
//! `SHMEM_LOG` is a comma-separated list of directives, each a level (`info`: every target at
//! that level and above) or `target=level` (`ucx=debug`); levels are off, error, warn, info,
//! debug, trace. The targets are `log_filter::TARGETS` (`rshmem::init`, ... spelt with or without
//! the `rshmem::` prefix); an unknown target or level is an error, not a filter that quietly
//! matches nothing. Unset or empty, no subscriber is installed: the events of the library (all on
//! start-up and set-up paths; none on the data path) then cost one check of tracing's global
//! level at each call site.
//!
//! The subscriber is the few lines below rather than `tracing-subscriber`: one line per event to
//! stderr with a `[PE n]` prefix and a per-target level filter is all this needs, and that crate
//! would bring a dozen more dependencies (regex, sharded-slab, thread-local, ANSI colours) into a
//! library that C programs link. Spans are not used: phase durations are fields of events.

use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Instant;

use super::log_filter::Filter;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span;
use tracing::{Event, Metadata, Subscriber};

struct PeSubscriber {
    pe: usize,
    filter: Filter,
    max: LevelFilter,
}

impl Subscriber for PeSubscriber {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.filter.level_of(metadata.target())
    }
    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.max)
    }
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        let target = meta
            .target()
            .strip_prefix("rshmem::")
            .unwrap_or(meta.target());
        let mut line = format!("[PE {}] {:<5} {target}: ", self.pe, meta.level());
        event.record(&mut Line(&mut line));
        super::output::say(&line);
    }
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}

/// Writes the `message` field, then the others as `name=value`.
struct Line<'a>(&'a mut String);

impl Visit for Line<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}

static INSTALLED: OnceLock<()> = OnceLock::new();

/// Installs the subscriber for PE `pe` when `SHMEM_LOG` (or `SMA_LOG`) asks for anything, once
/// per process. A value that does not parse is left to the configuration table, which stops the
/// job naming it.
pub fn init(pe: usize) {
    INSTALLED.get_or_init(|| {
        let text = std::env::var("SHMEM_LOG")
            .or_else(|_| std::env::var("SMA_LOG"))
            .unwrap_or_default();
        let Ok(filter) = Filter::parse(&text) else {
            return;
        };
        let max = filter.max();
        if max == LevelFilter::OFF {
            return;
        }
        let _ = tracing::subscriber::set_global_default(PeSubscriber { pe, filter, max });
    });
}

/// Logs that the start-up phase `name`, begun at `since`, has ended; returns now, the start of
/// the next phase.
pub fn phase(name: &str, since: Instant) -> Instant {
    let now = Instant::now();
    tracing::info!(target: "rshmem::init", "{name}: {:.3} ms", (now - since).as_secs_f64() * 1e3);
    now
}
