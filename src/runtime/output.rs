//! The library's own lines on stderr (errors, reports, notices, logs, counts): each written in one
//! `write`, so that PEs sharing one stderr do not cut into each other's lines. A leaf: every module
//! that reports, `runtime::error` included, writes through it.

use std::io::Write;

/// Writes `text` and a newline to stderr in one `write`. The PEs of a job share one stderr (a
/// terminal, a file, a launcher's pipe), and `eprintln!` writes the newline apart: two PEs failing
/// together would print `[PE 1] ...[PE 0] ...` and then two empty lines.
pub fn say(text: &str) {
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    let _ = std::io::stderr().write_all(line.as_bytes());
}
