//! `--tag-output`: forwards a PE's output line by line, each line prefixed with `[PE n] `.
//!
//! A [`LineTagger`] sits between one PE pipe and oshrun's stdout or stderr. It writes only whole
//! lines, each in a single `write`, so lines from different PEs never mix; it holds at most
//! [`PENDING_MAX`] bytes of an unfinished line before writing them as a line of their own, and on
//! [`LineTagger::finish`] it writes a final line that lacked its newline.

use std::io::{self, Write};

/// Longest unfinished line held back; more is written out with a newline added.
pub const PENDING_MAX: usize = 1 << 20;

/// Line splitter and prefixer for one output stream of one PE.
#[derive(Debug)]
pub struct LineTagger {
    prefix: Vec<u8>,
    pending: Vec<u8>,
}

impl LineTagger {
    /// A tagger for PE `rank`.
    pub fn new(rank: usize) -> LineTagger {
        LineTagger {
            prefix: format!("[PE {rank}] ").into_bytes(),
            pending: Vec::new(),
        }
    }

    /// Takes bytes read from the PE and writes the lines they complete to `out`.
    pub fn feed(&mut self, data: &[u8], out: &mut impl Write) -> io::Result<()> {
        self.pending.extend_from_slice(data);
        let mut block = Vec::new();
        let mut start = 0;
        while let Some(len) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + len + 1;
            block.extend_from_slice(&self.prefix);
            block.extend_from_slice(&self.pending[start..end]);
            start = end;
        }
        self.pending.drain(..start);
        if self.pending.len() > PENDING_MAX {
            block.extend_from_slice(&self.prefix);
            block.append(&mut self.pending);
            block.push(b'\n');
        }
        if block.is_empty() {
            return Ok(());
        }
        out.write_all(&block)?;
        out.flush()
    }

    /// The stream ended: writes what is left of an unfinished line, with a newline.
    pub fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut block = self.prefix.clone();
        block.append(&mut self.pending);
        block.push(b'\n');
        out.write_all(&block)?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_whole_lines_only() {
        let mut t = LineTagger::new(3);
        let mut out = Vec::new();
        t.feed(b"hel", &mut out).unwrap();
        assert!(out.is_empty());
        t.feed(b"lo\nwor", &mut out).unwrap();
        assert_eq!(out, b"[PE 3] hello\n");
        t.feed(b"ld\n\nx\n", &mut out).unwrap();
        assert_eq!(out, b"[PE 3] hello\n[PE 3] world\n[PE 3] \n[PE 3] x\n");
    }

    #[test]
    fn finish_terminates_the_last_line() {
        let mut t = LineTagger::new(0);
        let mut out = Vec::new();
        t.feed(b"a\nno newline", &mut out).unwrap();
        t.finish(&mut out).unwrap();
        assert_eq!(out, b"[PE 0] a\n[PE 0] no newline\n");
        t.finish(&mut out).unwrap();
        assert_eq!(out, b"[PE 0] a\n[PE 0] no newline\n");
    }

    #[test]
    fn overlong_partial_line_is_flushed() {
        let mut t = LineTagger::new(1);
        let mut out = Vec::new();
        t.feed(&vec![b'z'; PENDING_MAX + 1], &mut out).unwrap();
        assert_eq!(out.len(), "[PE 1] ".len() + PENDING_MAX + 2);
        assert!(out.ends_with(b"z\n"));
    }
}
