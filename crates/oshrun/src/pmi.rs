//! The PMI-1 "simple" wire format, as spoken by MPICH's simple PMI client and Hydra.
//!
//! A message is one line, terminated by `\n`, of space-separated `key=value` tokens; the first `=`
//! of a token separates key from value, so values may hold `=` but never a space or a newline.
//! Every message has a `cmd` field. This module only turns bytes into [`Message`]s and fields into
//! lines; what the commands mean lives in `server`. Nothing here panics on any input.

use std::fmt;

/// Longest KVS name, key and value the server accepts (advertised by `cmd=maxes`).
pub const KVSNAME_MAX: usize = 256;
/// See [`KVSNAME_MAX`].
pub const KEYLEN_MAX: usize = 256;
/// See [`KVSNAME_MAX`].
pub const VALLEN_MAX: usize = 1024;
/// Longest request line accepted; longer lines are discarded and answered with an error.
pub const LINE_MAX: usize = 64 * 1024;

/// Longest piece of a client's bytes [`escape`] shows.
pub const ECHO_MAX: usize = 200;

/// A client's bytes as they may be shown on oshrun's stderr: printable ASCII as is, a backslash
/// doubled, every other byte (control characters, escape sequences, NUL, bytes of UTF-8 or not)
/// as `\xNN`; at most [`ECHO_MAX`] bytes of it, then `...` and how many bytes were left out.
pub fn escape(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for &b in bytes.iter().take(ECHO_MAX) {
        match b {
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    if bytes.len() > ECHO_MAX {
        let _ = write!(out, "... ({} more bytes)", bytes.len() - ECHO_MAX);
    }
    out
}

/// One parsed request: its fields in the order they were sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    fields: Vec<(String, String)>,
}

/// Why a line is not a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The line holds nothing but spaces.
    Empty,
    /// The line is not UTF-8.
    NotUtf8,
    /// A token without `=`, or with nothing before it.
    BadToken(String),
    /// No `cmd=` field.
    MissingCmd,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Empty => f.write_str("empty line"),
            ParseError::NotUtf8 => f.write_str("line is not UTF-8"),
            ParseError::BadToken(t) => {
                write!(f, "token '{}' is not key=value", escape(t.as_bytes()))
            }
            ParseError::MissingCmd => f.write_str("no cmd= field"),
        }
    }
}

impl Message {
    /// Parses one line, without its terminating newline (a trailing `\r` is ignored).
    pub fn parse(line: &[u8]) -> Result<Message, ParseError> {
        let line = std::str::from_utf8(line).map_err(|_| ParseError::NotUtf8)?;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut fields = Vec::new();
        for token in line.split(' ').filter(|t| !t.is_empty()) {
            match token.split_once('=') {
                Some((key, value)) if !key.is_empty() => {
                    fields.push((key.to_owned(), value.to_owned()));
                }
                _ => return Err(ParseError::BadToken(token.to_owned())),
            }
        }
        if fields.is_empty() {
            return Err(ParseError::Empty);
        }
        let message = Message { fields };
        if message.get("cmd").is_none() {
            return Err(ParseError::MissingCmd);
        }
        Ok(message)
    }

    /// The command (the value of the first `cmd` field).
    pub fn cmd(&self) -> &str {
        self.get("cmd").unwrap_or_default()
    }

    /// The value of the first field named `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Formats fields as one newline-terminated line. Values must not contain spaces or newlines;
/// the server only sends values it built itself or received as a single token.
pub fn format(fields: &[(&str, &str)]) -> String {
    let mut line = String::new();
    for (i, (key, value)) in fields.iter().enumerate() {
        debug_assert!(!value.contains([' ', '\n']), "unencodable value {value:?}");
        if i > 0 {
            line.push(' ');
        }
        line.push_str(key);
        line.push('=');
        line.push_str(value);
    }
    line.push('\n');
    line
}

/// One line taken out of a [`LineBuffer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A complete line, without its newline.
    Complete(Vec<u8>),
    /// A line longer than [`LINE_MAX`] was discarded; reported once, when its newline arrives.
    TooLong,
}

/// Cuts a byte stream into lines, holding at most [`LINE_MAX`] bytes of an unfinished line.
#[derive(Debug, Default)]
pub struct LineBuffer {
    pending: Vec<u8>,
    overflowed: bool,
}

impl LineBuffer {
    /// Adds bytes read from the stream and returns the lines they complete.
    pub fn push(&mut self, mut data: &[u8]) -> Vec<Line> {
        let mut lines = Vec::new();
        while let Some(end) = data.iter().position(|&b| b == b'\n') {
            if self.overflowed || self.pending.len() + end > LINE_MAX {
                lines.push(Line::TooLong);
            } else {
                self.pending.extend_from_slice(&data[..end]);
                lines.push(Line::Complete(std::mem::take(&mut self.pending)));
            }
            self.pending.clear();
            self.overflowed = false;
            data = &data[end + 1..];
        }
        if !self.overflowed {
            if self.pending.len() + data.len() > LINE_MAX {
                self.pending = Vec::new();
                self.overflowed = true;
            } else {
                self.pending.extend_from_slice(data);
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_in_order() {
        let m = Message::parse(b"cmd=init pmi_version=1 pmi_subversion=1").unwrap();
        assert_eq!(m.cmd(), "init");
        assert_eq!(m.get("pmi_version"), Some("1"));
        assert_eq!(m.get("pmi_subversion"), Some("1"));
        assert_eq!(m.get("nope"), None);
    }

    #[test]
    fn value_splits_on_first_equals_and_keeps_punctuation() {
        let m = Message::parse(b"cmd=put kvsname=k key=a=b value=x=y,(1,2);\"q\"").unwrap();
        assert_eq!(m.get("key"), Some("a=b"));
        assert_eq!(m.get("value"), Some("x=y,(1,2);\"q\""));
    }

    #[test]
    fn tolerates_extra_spaces_and_cr() {
        let m = Message::parse(b"  cmd=get   key=k  \r").unwrap();
        assert_eq!(m.cmd(), "get");
        assert_eq!(m.get("key"), Some("k"));
    }

    #[test]
    fn empty_value_is_allowed() {
        let m = Message::parse(b"cmd=put key=k value=").unwrap();
        assert_eq!(m.get("value"), Some(""));
    }

    #[test]
    fn rejects_malformed_lines() {
        assert_eq!(Message::parse(b""), Err(ParseError::Empty));
        assert_eq!(Message::parse(b"   "), Err(ParseError::Empty));
        assert_eq!(Message::parse(b"\xff\xfe"), Err(ParseError::NotUtf8));
        assert_eq!(
            Message::parse(b"cmd=get garbage"),
            Err(ParseError::BadToken("garbage".into()))
        );
        assert_eq!(
            Message::parse(b"cmd=get =v"),
            Err(ParseError::BadToken("=v".into()))
        );
        assert_eq!(Message::parse(b"key=v"), Err(ParseError::MissingCmd));
    }

    #[test]
    fn formats_a_line() {
        assert_eq!(
            format(&[("cmd", "barrier_out"), ("rc", "0")]),
            "cmd=barrier_out rc=0\n"
        );
        assert_eq!(format(&[]), "\n");
    }

    #[test]
    fn format_then_parse_round_trips() {
        let line = format(&[("cmd", "get_result"), ("rc", "0"), ("value", "a=b")]);
        let m = Message::parse(line.trim_end().as_bytes()).unwrap();
        assert_eq!(m.cmd(), "get_result");
        assert_eq!(m.get("value"), Some("a=b"));
    }

    #[test]
    fn line_buffer_joins_fragments() {
        let mut b = LineBuffer::default();
        assert_eq!(b.push(b"cmd=ba"), []);
        assert_eq!(b.push(b"rrier_in"), []);
        assert_eq!(
            b.push(b"\ncmd=get key=x\ncmd=fin"),
            [
                Line::Complete(b"cmd=barrier_in".to_vec()),
                Line::Complete(b"cmd=get key=x".to_vec())
            ]
        );
        assert_eq!(
            b.push(b"alize\n"),
            [Line::Complete(b"cmd=finalize".to_vec())]
        );
        assert_eq!(b.push(b"\n"), [Line::Complete(Vec::new())]);
    }

    #[test]
    fn line_buffer_discards_overlong_lines_once() {
        let mut b = LineBuffer::default();
        let chunk = vec![b'a'; LINE_MAX / 2 + 1];
        assert_eq!(b.push(&chunk), []);
        assert_eq!(b.push(&chunk), []);
        assert_eq!(b.push(&chunk), []);
        assert_eq!(
            b.push(b"tail\ncmd=ok\n"),
            [Line::TooLong, Line::Complete(b"cmd=ok".to_vec())]
        );
        // Over-long even when it arrives in one piece with its newline.
        let mut long = vec![b'b'; LINE_MAX + 1];
        long.push(b'\n');
        assert_eq!(b.push(&long), [Line::TooLong]);
        // Exactly LINE_MAX is fine.
        let mut max = vec![b'c'; LINE_MAX];
        max.push(b'\n');
        assert!(matches!(&b.push(&max)[..], [Line::Complete(l)] if l.len() == LINE_MAX));
    }
}
