//! PMI-1 "simple" wire protocol client: newline-terminated `key=value` lines over a socket.
//! Served by our `oshrun` and by MPICH Hydra (`mpiexec.hydra`).
//!
//! Two ways in, as Hydra offers them:
//! - `PMI_FD` (the default of both launchers): an inherited, connected socket; the rank and size
//!   are in `PMI_RANK` and `PMI_SIZE`.
//! - `PMI_PORT=host:port` (`mpiexec.hydra -pmi-port`): a TCP connection to the launcher, opened by
//!   `cmd=initack pmiid=$PMI_ID`; the launcher answers `cmd=initack` then `cmd=set size=N`,
//!   `cmd=set rank=R`, `cmd=set debug=D`.
//!
//! After `cmd=init pmi_version=1 pmi_subversion=1` the client asks for the limits (`get_maxes`:
//! Hydra allows 64-byte keys and 1024-byte values) and the KVS name, which names the job. Node
//! locality is the runtime's own check (host ids in the init exchange).
//!
//! A barrier can wait for a PE that will never come: one that returned 0 before `shmem_init`.
//! oshrun ends such a job itself; Hydra does not, so under Hydra's proxy a PE in a barrier looks
//! at its node's PEs once a second and fails the barrier, naming the PE, once one is gone
//! ([`Siblings`]).

use super::siblings::{LOOK, Siblings};
use super::{Bootstrap, Error, Result};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// Limits assumed when the launcher does not answer `get_maxes` (the PMI-1 reference values).
const DEFAULT_KEYLEN_MAX: usize = 64;
const DEFAULT_VALLEN_MAX: usize = 1024;

/// Longest a PE that sent `cmd=abort` waits to be stopped before it leaves by itself.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// A connected socket of either kind.
trait Stream: Read + Write + Send {
    /// Sets how long a read may wait (`None`: for ever).
    fn read_timeout(&self, timeout: Option<Duration>) -> std::io::Result<()>;
}
impl Stream for UnixStream {
    fn read_timeout(&self, timeout: Option<Duration>) -> std::io::Result<()> {
        self.set_read_timeout(timeout)
    }
}
impl Stream for TcpStream {
    fn read_timeout(&self, timeout: Option<Duration>) -> std::io::Result<()> {
        self.set_read_timeout(timeout)
    }
}

/// Hydra's proxy: it starts the ranks of its node, and nothing else.
const HYDRA_PROXY: &str = "hydra_pmi_proxy";

/// The watch of this node's PEs for a PE waiting in Hydra's barrier: Hydra does not end the job
/// when a PE exits with status 0 before `shmem_init` (it never connected), and the others would
/// wait in the barrier for ever. The node's ranks come from `PMI_process_mapping`, each child's
/// rank from its `PMI_RANK`.
fn hydra_siblings(rank: usize, size: usize, mapping: &str) -> Option<Siblings> {
    let nodes = nodes_of_ranks(mapping, size)?;
    let mine = nodes[rank];
    let ranks = (0..size).filter(|&r| nodes[r] == mine).collect();
    Siblings::new(HYDRA_PROXY, "PMI_RANK", ranks)
}

/// The node of each of `size` ranks from a `PMI_process_mapping` value,
/// `(vector,(start,nodes,ranks_per_node),...)`: each block puts `ranks_per_node` consecutive ranks
/// on each of `nodes` nodes from `start`, the blocks taken in turn until every rank has a node.
fn nodes_of_ranks(mapping: &str, size: usize) -> Option<Vec<usize>> {
    let body = mapping.trim().strip_prefix("(vector,")?.strip_suffix(')')?;
    let mut blocks = Vec::new();
    for block in body.split("),") {
        let block = block.trim().trim_start_matches('(').trim_end_matches(')');
        let numbers: Vec<usize> = block
            .split(',')
            .map(|n| n.trim().parse().ok())
            .collect::<Option<_>>()?;
        let [start, nodes, per] = numbers[..] else {
            return None;
        };
        blocks.push((start, nodes, per));
    }
    let mut out = Vec::with_capacity(size);
    while out.len() < size {
        let before = out.len();
        for &(start, nodes, per) in &blocks {
            for node in start..start + nodes {
                for _ in 0..per {
                    if out.len() < size {
                        out.push(node);
                    }
                }
            }
        }
        if out.len() == before {
            return None;
        }
    }
    Some(out)
}

pub struct Pmi1 {
    rank: usize,
    size: usize,
    kvsname: String,
    job_id: String,
    keylen_max: usize,
    vallen_max: usize,
    reader: BufReader<Box<dyn Stream>>,
    writer: Box<dyn Stream>,
    finalized: bool,
    /// Under Hydra, this node's PEs, watched while this PE waits in a barrier.
    siblings: Option<Siblings>,
}

fn env_number(name: &str) -> Result<usize> {
    let text = std::env::var(name).map_err(|_| Error(format!("{name} is not set")))?;
    text.trim()
        .parse()
        .map_err(|_| Error(format!("{name} = '{text}' is not a number")))
}

/// A PE on an inherited PMI socket is the child of its launcher (oshrun, Hydra's proxy, both
/// single-threaded, so "the thread that forked us" is the launcher's life): the kernel sends it
/// SIGKILL when the launcher dies, even if it never waits in the library. (A launcher that died
/// before this call is caught by the waits, which watch the parent: `runtime::wait`.)
fn die_with_parent() {
    super::ffi::die_with_parent();
}

/// The socket whose descriptor is in `PMI_FD`.
fn inherited_socket() -> Result<(Box<dyn Stream>, Box<dyn Stream>)> {
    let fd = env_number("PMI_FD")? as i32;
    let stream = super::ffi::inherited_socket(fd)?;
    let writer = stream
        .try_clone()
        .map_err(|e| Error(format!("PMI_FD: {e}")))?;
    Ok((Box::new(stream), Box::new(writer)))
}

/// A TCP connection to `PMI_PORT`.
fn port_socket(port: &str) -> Result<(Box<dyn Stream>, Box<dyn Stream>)> {
    let stream =
        TcpStream::connect(port).map_err(|e| Error(format!("PMI_PORT = {port}: connect: {e}")))?;
    let _ = stream.set_nodelay(true);
    let writer = stream
        .try_clone()
        .map_err(|e| Error(format!("PMI_PORT: {e}")))?;
    Ok((Box::new(stream), Box::new(writer)))
}

impl Pmi1 {
    /// Connects through `PMI_FD` or `PMI_PORT` and performs the PMI-1 handshake.
    pub fn connect() -> Result<Pmi1> {
        let port = std::env::var("PMI_PORT").ok();
        let (reader, writer) = match (&port, std::env::var_os("PMI_FD")) {
            (_, Some(_)) => inherited_socket()?,
            (Some(port), None) => port_socket(port)?,
            (None, None) => return Err(Error("neither PMI_FD nor PMI_PORT is set".into())),
        };
        let mut pmi = Pmi1 {
            rank: 0,
            size: 0,
            kvsname: String::new(),
            job_id: String::new(),
            keylen_max: DEFAULT_KEYLEN_MAX,
            vallen_max: DEFAULT_VALLEN_MAX,
            reader: BufReader::new(reader),
            writer,
            finalized: false,
            siblings: None,
        };
        if std::env::var_os("PMI_FD").is_some() {
            pmi.rank = env_number("PMI_RANK")?;
            pmi.size = env_number("PMI_SIZE")?;
            die_with_parent();
        } else {
            pmi.port_handshake()?;
        }
        if pmi.size == 0 || pmi.rank >= pmi.size {
            return Err(Error(format!(
                "PMI: rank {} of {} PEs makes no sense",
                pmi.rank, pmi.size
            )));
        }
        pmi.request(
            "cmd=init pmi_version=1 pmi_subversion=1",
            "response_to_init",
        )?;
        let maxes = pmi.request("cmd=get_maxes", "maxes")?;
        let limit = |name, default| {
            field(&maxes, name)
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        pmi.keylen_max = limit("keylen_max", DEFAULT_KEYLEN_MAX);
        pmi.vallen_max = limit("vallen_max", DEFAULT_VALLEN_MAX);
        let reply = pmi.request("cmd=get_my_kvsname", "my_kvsname")?;
        pmi.kvsname = field(&reply, "kvsname")
            .ok_or_else(|| Error("no kvsname in reply".into()))?
            .to_string();
        pmi.job_id = pmi
            .kvsname
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        if std::env::var_os("PMI_FD").is_some() && super::siblings::parent_is(HYDRA_PROXY) {
            super::ffi::take_failure_notices();
            // Hydra publishes the mapping; without it nothing is watched.
            if let Ok(mapping) = pmi.get("PMI_process_mapping") {
                pmi.siblings = hydra_siblings(pmi.rank, pmi.size, &mapping);
            }
        }
        Ok(pmi)
    }

    /// The `PMI_PORT` greeting: identify with `PMI_ID`, learn the size and the rank.
    fn port_handshake(&mut self) -> Result<()> {
        let id = env_number("PMI_ID")?;
        self.request(&format!("cmd=initack pmiid={id}"), "initack")?;
        let (mut size, mut rank) = (None, None);
        // Hydra sends size, rank, debug, in that order; debug ends the greeting.
        loop {
            let line = self.receive()?;
            if field(&line, "cmd") != Some("set") {
                return Err(Error(format!("PMI_PORT greeting: unexpected '{line}'")));
            }
            let number = |name| field(&line, name).and_then(|v| v.parse::<usize>().ok());
            size = size.or(number("size"));
            rank = rank.or(number("rank"));
            if field(&line, "debug").is_some() {
                break;
            }
        }
        match (size, rank) {
            (Some(size), Some(rank)) => {
                self.size = size;
                self.rank = rank;
                Ok(())
            }
            _ => Err(Error(
                "PMI_PORT greeting: the launcher did not send the size and the rank".into(),
            )),
        }
    }

    /// Sends one request line and reads the reply, which must be `cmd=<expect>` with `rc=0`
    /// (or no `rc`, as Hydra's `barrier_out` and `finalize_ack`).
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
            .and_then(|()| self.writer.flush())
            .map_err(|e| Error(format!("PMI write: {e}")))
    }

    /// [`Pmi1::receive`], looking at this node's PEs every [`LOOK`] ([`Siblings::look`]), and
    /// ending with an error when one has ended or when Hydra reports a failed process.
    fn receive_watching(&mut self) -> Result<String> {
        let set = |pmi: &mut Pmi1, timeout| {
            pmi.reader
                .get_ref()
                .read_timeout(timeout)
                .map_err(|e| Error(format!("PMI: {e}")))
        };
        set(self, Some(LOOK))?;
        let mut reply = String::new();
        let result = loop {
            match self.reader.read_line(&mut reply) {
                Ok(0) => break Err(Error("PMI: the launcher closed the connection".into())),
                Ok(_) => break Ok(reply.trim_end().to_string()),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    // What was read of the line stays in `reply`.
                    if let Some(siblings) = self.siblings.as_mut()
                        && let Err(e) = siblings.look("Hydra", self.rank)
                    {
                        break Err(e);
                    }
                }
                Err(e) => break Err(Error(format!("PMI read: {e}"))),
            }
        };
        set(self, None)?;
        result
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
        if key.len() > self.keylen_max || value.len() > self.vallen_max {
            return Err(Error(format!(
                "PMI: {key} ({} bytes) = {} bytes exceeds the launcher's limits ({} / {})",
                key.len(),
                value.len(),
                self.keylen_max,
                self.vallen_max
            )));
        }
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
        if self.siblings.is_none() {
            return self.request("cmd=barrier_in", "barrier_out").map(|_| ());
        }
        self.send("cmd=barrier_in")?;
        let reply = self.receive_watching()?;
        if field(&reply, "cmd") != Some("barrier_out") {
            return Err(Error(format!("PMI: sent 'cmd=barrier_in', got '{reply}'")));
        }
        Ok(())
    }
    /// PMI-1's abort has no reply: the PE stays until the launcher stops it (at most
    /// [`STOP_WAIT`]), so that the launcher reads the abort before any peer finds this PE gone.
    /// A PE leaving at once closes its connections, and a peer whose UCX was still connecting to
    /// it can die in UCX's error path (UCX 1.13: an assertion, SIGABRT); a launcher that saw
    /// that death first reported it, not the code given to `shmem_global_exit`. oshrun and Hydra
    /// stop the caller of an abort with the rest of the job, within milliseconds.
    fn abort(&mut self, code: i32) {
        // Best effort: if the launcher is gone there is nobody left to tell. The reason is on this
        // PE's stderr already (a PMI-1 value cannot carry spaces).
        if self.send(&format!("cmd=abort exitcode={code}")).is_ok() {
            std::thread::sleep(STOP_WAIT);
        }
    }
    fn finalize(&mut self) {
        if !self.finalized {
            self.finalized = true;
            let _ = self.request("cmd=finalize", "finalize_ack");
        }
    }
    fn max_value_len(&self) -> usize {
        self.vallen_max
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Instant;

    /// A client on one end of a socket pair; the other end plays the launcher.
    fn client() -> (Pmi1, UnixStream) {
        let (ours, launcher) = UnixStream::pair().unwrap();
        let writer = ours.try_clone().unwrap();
        let pmi = Pmi1 {
            rank: 0,
            size: 2,
            kvsname: "kvs".into(),
            job_id: "kvs".into(),
            keylen_max: DEFAULT_KEYLEN_MAX,
            vallen_max: DEFAULT_VALLEN_MAX,
            reader: BufReader::new(Box::new(ours)),
            writer: Box::new(writer),
            finalized: false,
            siblings: None,
        };
        (pmi, launcher)
    }

    #[test]
    fn process_mapping() {
        assert_eq!(nodes_of_ranks("(vector,(0,1,4))", 4), Some(vec![0; 4]));
        assert_eq!(
            nodes_of_ranks("(vector,(0,2,2))", 4),
            Some(vec![0, 0, 1, 1])
        );
        // Round robin: one rank per node, the block repeated.
        assert_eq!(
            nodes_of_ranks("(vector,(0,2,1))", 5),
            Some(vec![0, 1, 0, 1, 0])
        );
        assert_eq!(
            nodes_of_ranks("(vector,(0,1,2),(1,1,1))", 3),
            Some(vec![0, 0, 1])
        );
        for bad in [
            "",
            "(vector,)",
            "(vector,(0,1))",
            "(vector,(0,0,1))",
            "(x,(0,1,1))",
        ] {
            assert_eq!(nodes_of_ranks(bad, 2), None, "{bad}");
        }
    }

    /// `abort` with the time it took, on a thread of its own.
    fn abort_timed(mut pmi: Pmi1, code: i32) -> mpsc::Receiver<Duration> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let t0 = Instant::now();
            pmi.abort(code);
            let _ = tx.send(t0.elapsed());
        });
        rx
    }

    #[test]
    fn abort_stays_until_the_launcher_stops_it() {
        let (pmi, launcher) = client();
        let took = abort_timed(pmi, 3);
        let mut line = String::new();
        BufReader::new(&launcher).read_line(&mut line).unwrap();
        assert_eq!(line, "cmd=abort exitcode=3\n");
        // This launcher stops nobody: the PE leaves by itself, after STOP_WAIT and not before.
        let took = took
            .recv_timeout(STOP_WAIT * 5)
            .expect("abort did not return");
        assert!(took >= STOP_WAIT, "abort returned after {took:?}");
    }

    #[test]
    fn abort_with_the_launcher_gone_returns_at_once() {
        let (pmi, launcher) = client();
        drop(launcher);
        let took = abort_timed(pmi, 3);
        let took = took
            .recv_timeout(STOP_WAIT * 5)
            .expect("abort did not return");
        assert!(took < STOP_WAIT / 2, "abort returned after {took:?}");
    }

    #[test]
    fn fields() {
        let line = "cmd=get_result rc=0 msg=success value=a=b,c";
        assert_eq!(field(line, "cmd"), Some("get_result"));
        assert_eq!(field(line, "rc"), Some("0"));
        assert_eq!(field(line, "value"), Some("a=b,c"));
        assert_eq!(field(line, "val"), None);
    }
}
