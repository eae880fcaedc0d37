//! PMI-1 "simple" wire protocol client: newline-terminated `key=value` lines over the socket whose
//! descriptor the launcher passes in `PMI_FD`. Served by our `oshrun` and by MPICH Hydra.

use super::{Bootstrap, Error, Result};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;

pub struct Pmi1 {
    rank: usize,
    size: usize,
    kvsname: String,
    job_id: String,
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    finalized: bool,
}

fn env_number(name: &str) -> Result<usize> {
    let text = std::env::var(name).map_err(|_| Error(format!("{name} is not set")))?;
    text.trim()
        .parse()
        .map_err(|_| Error(format!("{name} = '{text}' is not a number")))
}

impl Pmi1 {
    /// Connects on `PMI_FD` and performs the PMI-1 handshake.
    pub fn connect() -> Result<Pmi1> {
        let fd = env_number("PMI_FD")? as i32;
        let rank = env_number("PMI_RANK")?;
        let size = env_number("PMI_SIZE")?;
        // The descriptor must be open and a socket; fstat tells before we take ownership of it.
        // SAFETY: fstat only writes into the local struct; an invalid fd makes it return -1.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::fstat(fd, &mut st) } != 0 || (st.st_mode & libc::S_IFMT) != libc::S_IFSOCK
        {
            return Err(Error(format!("PMI_FD = {fd} is not an open socket")));
        }
        // SAFETY: the launcher handed this descriptor to this process for the PMI conversation and
        // nothing else in the process uses it; we own it from here on.
        let stream = unsafe { UnixStream::from_raw_fd(fd) };
        let writer = stream
            .try_clone()
            .map_err(|e| Error(format!("PMI_FD: {e}")))?;
        let mut pmi = Pmi1 {
            rank,
            size,
            kvsname: String::new(),
            job_id: String::new(),
            reader: BufReader::new(stream),
            writer,
            finalized: false,
        };
        pmi.request(
            "cmd=init pmi_version=1 pmi_subversion=1",
            "response_to_init",
        )?;
        let reply = pmi.request("cmd=get_my_kvsname", "my_kvsname")?;
        pmi.kvsname = field(&reply, "kvsname")
            .ok_or_else(|| Error("no kvsname in reply".into()))?
            .to_string();
        pmi.job_id = pmi
            .kvsname
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        Ok(pmi)
    }

    /// Sends one request line and reads the reply, which must be `cmd=<expect>` with `rc=0`.
    fn request(&mut self, line: &str, expect: &str) -> Result<String> {
        self.send(line)?;
        let reply = self.receive()?;
        if field(&reply, "cmd") != Some(expect) {
            return Err(Error(format!("PMI: sent '{line}', got '{reply}'")));
        }
        match field(&reply, "rc") {
            None | Some("0") => Ok(reply),
            Some(_) => Err(Error(format!("PMI: '{line}' failed: '{reply}'"))),
        }
    }

    fn send(&mut self, line: &str) -> Result<()> {
        let mut msg = String::with_capacity(line.len() + 1);
        msg.push_str(line);
        msg.push('\n');
        self.writer
            .write_all(msg.as_bytes())
            .map_err(|e| Error(format!("PMI write: {e}")))
    }

    fn receive(&mut self) -> Result<String> {
        let mut reply = String::new();
        match self.reader.read_line(&mut reply) {
            Ok(0) => Err(Error("PMI: the launcher closed the connection".into())),
            Ok(_) => Ok(reply.trim_end().to_string()),
            Err(e) => Err(Error(format!("PMI read: {e}"))),
        }
    }
}

/// The value of `key` in a reply line of space-separated `key=value` tokens.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split(' ')
        .find_map(|token| token.strip_prefix(key)?.strip_prefix('='))
}

impl Bootstrap for Pmi1 {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn job_id(&self) -> &str {
        &self.job_id
    }
    fn put(&mut self, key: &str, value: &str) -> Result<()> {
        let line = format!("cmd=put kvsname={} key={key} value={value}", self.kvsname);
        self.request(&line, "put_result").map(|_| ())
    }
    fn get(&mut self, key: &str) -> Result<String> {
        let line = format!("cmd=get kvsname={} key={key}", self.kvsname);
        let reply = self.request(&line, "get_result")?;
        field(&reply, "value")
            .map(str::to_string)
            .ok_or_else(|| Error(format!("PMI: no value in '{reply}'")))
    }
    fn barrier(&mut self) -> Result<()> {
        self.request("cmd=barrier_in", "barrier_out").map(|_| ())
    }
    fn abort(&mut self, code: i32) {
        // Best effort: if the launcher is gone there is nobody left to tell. The reason is on this
        // PE's stderr already (a PMI-1 value cannot carry spaces).
        let _ = self.send(&format!("cmd=abort exitcode={code}"));
    }
    fn finalize(&mut self) {
        if !self.finalized {
            self.finalized = true;
            let _ = self.request("cmd=finalize", "finalize_ack");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn fields() {
        let line = "cmd=get_result rc=0 msg=success value=a=b,c";
        assert_eq!(field(line, "cmd"), Some("get_result"));
        assert_eq!(field(line, "rc"), Some("0"));
        assert_eq!(field(line, "value"), Some("a=b,c"));
        assert_eq!(field(line, "val"), None);
    }
}
