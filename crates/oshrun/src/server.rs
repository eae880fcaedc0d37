//! The PMI-1 server state of one job: the key/value space, the barrier, and what each PE said.
//!
//! [`Server::handle_line`] takes one request line from one rank and returns the replies to send
//! (possibly to every rank, for a barrier), an abort request, or a warning; it does no I/O, so the
//! whole protocol is unit-tested here. Invariants: the KVS always holds `PMI_process_mapping`
//! (`(vector,(0,1,N))`, "all N ranks on node 0", as Hydra publishes it); a barrier completes when
//! every one of the N ranks has entered it, and then starts afresh. `put` overwrites. Requests
//! that cannot be served (malformed lines, unknown commands, a wrong KVS name, over-long keys) get
//! an `rc=-1` reply so that the client fails instead of waiting, plus a warning for oshrun's stderr.

use std::collections::HashMap;

use crate::pmi::{self, KEYLEN_MAX, KVSNAME_MAX, Line, Message, VALLEN_MAX};

/// A PE asked for the whole job to stop (`cmd=abort`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abort {
    /// The exit status oshrun should end with, in `1..=255`.
    pub code: i32,
    /// The PE's `error_msg`, if it sent one.
    pub message: Option<String>,
}

/// What handling one request produced.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Lines to send, each with the rank it goes to, in order.
    pub replies: Vec<(usize, String)>,
    /// Set when the request was `cmd=abort`.
    pub abort: Option<Abort>,
    /// A complaint about the request, for oshrun's stderr.
    pub warning: Option<String>,
}

impl Outcome {
    fn reply(rank: usize, fields: &[(&str, &str)]) -> Outcome {
        Outcome {
            replies: vec![(rank, pmi::format(fields))],
            ..Outcome::default()
        }
    }

    fn warn(mut self, warning: String) -> Outcome {
        self.warning = Some(warning);
        self
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct RankState {
    initialized: bool,
    finalized: bool,
    in_barrier: bool,
    /// Whether a put of this rank was refused for a full KVS (reported once).
    kvs_full: bool,
}

/// Most bytes the KVS holds, each entry counted as [`entry_bytes`]: 64 MiB, room for 50,000 puts
/// of the longest key and value, far more than a job of rshmem needs (a few KiB per PE). A put
/// past it is refused (`rc=-1 msg=kvs_full`), so that a broken or hostile client cannot grow
/// oshrun without bound.
pub const KVS_MAX: usize = 64 << 20;

/// What one entry costs the KVS: its key and value, and the map's own share of it.
fn entry_bytes(key: &str, value: &str) -> usize {
    key.len() + value.len() + 64
}

/// PMI state shared by all ranks of a job.
#[derive(Debug)]
pub struct Server {
    size: usize,
    kvsname: String,
    kvs: HashMap<String, String>,
    /// What the KVS holds, counted as [`entry_bytes`]; at most [`KVS_MAX`].
    kvs_bytes: usize,
    ranks: Vec<RankState>,
    waiting: usize,
}

impl Server {
    /// A server for `size` ranks whose single KVS is called `kvsname`.
    pub fn new(size: usize, kvsname: String) -> Server {
        let mut kvs = HashMap::new();
        kvs.insert(
            "PMI_process_mapping".to_owned(),
            format!("(vector,(0,1,{size}))"),
        );
        Server {
            size,
            kvsname,
            kvs_bytes: kvs.iter().map(|(k, v)| entry_bytes(k, v)).sum(),
            kvs,
            ranks: vec![RankState::default(); size],
            waiting: 0,
        }
    }

    /// Whether `rank` has sent `cmd=init`.
    pub fn initialized(&self, rank: usize) -> bool {
        self.ranks.get(rank).is_some_and(|r| r.initialized)
    }

    /// Whether `rank` has sent `cmd=finalize`.
    pub fn finalized(&self, rank: usize) -> bool {
        self.ranks.get(rank).is_some_and(|r| r.finalized)
    }

    /// Whether `rank` waits in the barrier.
    pub fn in_barrier(&self, rank: usize) -> bool {
        self.ranks.get(rank).is_some_and(|r| r.in_barrier)
    }

    /// Handles one line (or over-long line) received from `rank`, which must be `< size`.
    pub fn handle_line(&mut self, rank: usize, line: &Line) -> Outcome {
        let bytes = match line {
            Line::Complete(bytes) => bytes,
            Line::TooLong => {
                return Outcome::reply(
                    rank,
                    &[("cmd", "error"), ("rc", "-1"), ("msg", "line_too_long")],
                )
                .warn(format!(
                    "discarded a PMI request longer than {} bytes",
                    pmi::LINE_MAX
                ));
            }
        };
        match Message::parse(bytes) {
            Ok(message) => self.handle(rank, &message),
            Err(e) => Outcome::reply(
                rank,
                &[("cmd", "error"), ("rc", "-1"), ("msg", "malformed_request")],
            )
            .warn(format!(
                "malformed PMI request ({e}): '{}'",
                pmi::escape(bytes)
            )),
        }
    }

    /// Handles one parsed request from `rank`.
    pub fn handle(&mut self, rank: usize, m: &Message) -> Outcome {
        let size = self.size.to_string();
        match m.cmd() {
            "init" => {
                self.ranks[rank].initialized = true;
                let ok = m.get("pmi_version") == Some("1");
                let reply = Outcome::reply(
                    rank,
                    &[
                        ("cmd", "response_to_init"),
                        ("pmi_version", "1"),
                        ("pmi_subversion", "1"),
                        ("rc", if ok { "0" } else { "-1" }),
                    ],
                );
                if ok {
                    reply
                } else {
                    reply.warn(format!(
                        "asked for PMI version '{}', only 1 is served",
                        pmi::escape(m.get("pmi_version").unwrap_or("(none)").as_bytes())
                    ))
                }
            }
            "get_maxes" => Outcome::reply(
                rank,
                &[
                    ("cmd", "maxes"),
                    ("rc", "0"),
                    ("kvsname_max", &KVSNAME_MAX.to_string()),
                    ("keylen_max", &KEYLEN_MAX.to_string()),
                    ("vallen_max", &VALLEN_MAX.to_string()),
                ],
            ),
            "get_appnum" => {
                Outcome::reply(rank, &[("cmd", "appnum"), ("rc", "0"), ("appnum", "0")])
            }
            "get_universe_size" => Outcome::reply(
                rank,
                &[("cmd", "universe_size"), ("rc", "0"), ("size", &size)],
            ),
            "get_my_kvsname" => Outcome::reply(
                rank,
                &[
                    ("cmd", "my_kvsname"),
                    ("rc", "0"),
                    ("kvsname", &self.kvsname),
                ],
            ),
            "put" => self.put(rank, m),
            "get" => self.get(rank, m),
            "barrier_in" => self.barrier_in(rank),
            "finalize" => {
                self.ranks[rank].finalized = true;
                Outcome::reply(rank, &[("cmd", "finalize_ack"), ("rc", "0")])
            }
            "abort" => Outcome {
                abort: Some(Abort {
                    code: abort_code(m.get("exitcode")),
                    message: m.get("error_msg").map(str::to_owned),
                }),
                ..Outcome::default()
            },
            cmd => Outcome::reply(
                rank,
                &[
                    ("cmd", &format!("{cmd}_result")),
                    ("rc", "-1"),
                    ("msg", "unknown_command"),
                ],
            )
            .warn(format!(
                "unknown PMI command '{}'",
                pmi::escape(cmd.as_bytes())
            )),
        }
    }

    /// Checks the `kvsname` field of a put or get; `Err` holds the error reply.
    fn check_kvsname(&self, rank: usize, m: &Message, reply_cmd: &str) -> Result<(), Outcome> {
        match m.get("kvsname") {
            Some(name) if name == self.kvsname => Ok(()),
            name => Err(Outcome::reply(
                rank,
                &[("cmd", reply_cmd), ("rc", "-1"), ("msg", "unknown_kvsname")],
            )
            .warn(format!(
                "{} names KVS '{}', this job's is '{}'",
                pmi::escape(m.cmd().as_bytes()),
                pmi::escape(name.unwrap_or("(none)").as_bytes()),
                self.kvsname
            ))),
        }
    }

    fn put(&mut self, rank: usize, m: &Message) -> Outcome {
        const CMD: &str = "put_result";
        if let Err(reply) = self.check_kvsname(rank, m, CMD) {
            return reply;
        }
        let (Some(key), Some(value)) = (m.get("key"), m.get("value")) else {
            return Outcome::reply(
                rank,
                &[("cmd", CMD), ("rc", "-1"), ("msg", "missing_key_or_value")],
            );
        };
        if key.len() > KEYLEN_MAX || value.len() > VALLEN_MAX {
            return Outcome::reply(
                rank,
                &[("cmd", CMD), ("rc", "-1"), ("msg", "key_or_value_too_long")],
            )
            .warn(format!(
                "put of a {}-byte key / {}-byte value (limits {KEYLEN_MAX} / {VALLEN_MAX})",
                key.len(),
                value.len()
            ));
        }
        let old = self.kvs.get(key).map_or(0, |v| entry_bytes(key, v));
        let bytes = self.kvs_bytes - old + entry_bytes(key, value);
        if bytes > KVS_MAX {
            let first = !self.ranks[rank].kvs_full;
            self.ranks[rank].kvs_full = true;
            let reply = Outcome::reply(rank, &[("cmd", CMD), ("rc", "-1"), ("msg", "kvs_full")]);
            return if first {
                reply.warn(format!(
                    "put refused: the key/value space is full ({} keys, {KVS_MAX} bytes at most); \
                     later refusals to this PE are not reported",
                    self.kvs.len()
                ))
            } else {
                reply
            };
        }
        self.kvs_bytes = bytes;
        self.kvs.insert(key.to_owned(), value.to_owned());
        Outcome::reply(rank, &[("cmd", CMD), ("rc", "0"), ("msg", "success")])
    }

    fn get(&mut self, rank: usize, m: &Message) -> Outcome {
        const CMD: &str = "get_result";
        if let Err(reply) = self.check_kvsname(rank, m, CMD) {
            return reply;
        }
        let Some(key) = m.get("key") else {
            return Outcome::reply(
                rank,
                &[
                    ("cmd", CMD),
                    ("rc", "-1"),
                    ("msg", "missing_key"),
                    ("value", "unknown"),
                ],
            );
        };
        match self.kvs.get(key) {
            Some(value) => Outcome::reply(
                rank,
                &[
                    ("cmd", CMD),
                    ("rc", "0"),
                    ("msg", "success"),
                    ("value", value),
                ],
            ),
            None => Outcome::reply(
                rank,
                &[
                    ("cmd", CMD),
                    ("rc", "-1"),
                    ("msg", &format!("key_{key}_not_found")),
                    ("value", "unknown"),
                ],
            ),
        }
    }

    fn barrier_in(&mut self, rank: usize) -> Outcome {
        let state = &mut self.ranks[rank];
        if state.in_barrier {
            return Outcome::default().warn("entered the barrier twice".to_owned());
        }
        state.in_barrier = true;
        self.waiting += 1;
        if self.waiting < self.size {
            return Outcome::default();
        }
        self.waiting = 0;
        let line = pmi::format(&[("cmd", "barrier_out"), ("rc", "0")]);
        let replies = (0..self.size).map(|r| (r, line.clone())).collect();
        for state in &mut self.ranks {
            state.in_barrier = false;
        }
        Outcome {
            replies,
            ..Outcome::default()
        }
    }
}

/// The job's exit status for `cmd=abort exitcode=..`: the code modulo 256 as `exit()` would give
/// it, and 1 when missing or unreadable. 0 stays 0: `shmem_global_exit(0)` ends the job through
/// an abort, and the spec makes the job's status one of the values passed (the library's own
/// errors always send a non-zero code).
fn abort_code(exitcode: Option<&str>) -> i32 {
    exitcode
        .and_then(|c| c.parse::<i64>().ok())
        .map_or(1, |c| c.rem_euclid(256) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "oshrun_1_ab";

    fn server(n: usize) -> Server {
        Server::new(n, NAME.to_owned())
    }

    fn send(s: &mut Server, rank: usize, line: &str) -> Outcome {
        s.handle_line(rank, &Line::Complete(line.as_bytes().to_vec()))
    }

    /// Sends a request that must produce exactly one reply, to the sender, and returns it parsed.
    fn ask(s: &mut Server, rank: usize, line: &str) -> Message {
        let out = send(s, rank, line);
        assert_eq!(out.replies.len(), 1, "{line}: {out:?}");
        assert_eq!(out.replies[0].0, rank);
        let reply = &out.replies[0].1;
        assert!(reply.ends_with('\n') && !reply[..reply.len() - 1].contains('\n'));
        Message::parse(reply.trim_end().as_bytes()).unwrap()
    }

    #[test]
    fn init_and_queries() {
        let mut s = server(4);
        assert!(!s.initialized(2));
        let r = ask(&mut s, 2, "cmd=init pmi_version=1 pmi_subversion=1");
        assert_eq!(
            (
                r.cmd(),
                r.get("rc"),
                r.get("pmi_version"),
                r.get("pmi_subversion")
            ),
            ("response_to_init", Some("0"), Some("1"), Some("1"))
        );
        assert!(s.initialized(2));
        assert!(!s.initialized(1));

        let r = ask(&mut s, 2, "cmd=get_maxes");
        assert_eq!(r.cmd(), "maxes");
        assert_eq!(r.get("kvsname_max"), Some("256"));
        assert_eq!(r.get("keylen_max"), Some("256"));
        assert_eq!(r.get("vallen_max"), Some("1024"));
        let r = ask(&mut s, 2, "cmd=get_appnum");
        assert_eq!((r.cmd(), r.get("appnum")), ("appnum", Some("0")));
        let r = ask(&mut s, 2, "cmd=get_universe_size");
        assert_eq!((r.cmd(), r.get("size")), ("universe_size", Some("4")));
        let r = ask(&mut s, 2, "cmd=get_my_kvsname");
        assert_eq!((r.cmd(), r.get("kvsname")), ("my_kvsname", Some(NAME)));
    }

    #[test]
    fn init_with_another_version_fails() {
        let mut s = server(1);
        let out = send(&mut s, 0, "cmd=init pmi_version=2 pmi_subversion=0");
        assert!(out.warning.is_some());
        assert!(out.replies[0].1.contains("rc=-1"));
    }

    #[test]
    fn put_get_overwrite_and_missing() {
        let mut s = server(2);
        let r = ask(
            &mut s,
            0,
            &format!("cmd=put kvsname={NAME} key=k0 value=v=0"),
        );
        assert_eq!(
            (r.cmd(), r.get("rc"), r.get("msg")),
            ("put_result", Some("0"), Some("success"))
        );
        let r = ask(&mut s, 1, &format!("cmd=get kvsname={NAME} key=k0"));
        assert_eq!(
            (r.cmd(), r.get("rc"), r.get("value")),
            ("get_result", Some("0"), Some("v=0"))
        );
        ask(
            &mut s,
            0,
            &format!("cmd=put kvsname={NAME} key=k0 value=new"),
        );
        let r = ask(&mut s, 1, &format!("cmd=get kvsname={NAME} key=k0"));
        assert_eq!(r.get("value"), Some("new"));

        let out = send(&mut s, 1, &format!("cmd=get kvsname={NAME} key=nope"));
        assert_eq!(
            out.replies,
            [(
                1,
                "cmd=get_result rc=-1 msg=key_nope_not_found value=unknown\n".to_owned()
            )]
        );
    }

    #[test]
    fn process_mapping_is_published() {
        let mut s = server(5);
        let r = ask(
            &mut s,
            3,
            &format!("cmd=get kvsname={NAME} key=PMI_process_mapping"),
        );
        assert_eq!(r.get("value"), Some("(vector,(0,1,5))"));
    }

    #[test]
    fn wrong_kvsname_and_limits_are_errors() {
        let mut s = server(1);
        let out = send(&mut s, 0, "cmd=put kvsname=other key=k value=v");
        assert!(out.warning.is_some());
        assert!(out.replies[0].1.starts_with("cmd=put_result rc=-1"));
        let r = ask(&mut s, 0, "cmd=get key=k");
        assert_eq!(r.get("rc"), Some("-1"));

        let long = "x".repeat(VALLEN_MAX + 1);
        let r = ask(
            &mut s,
            0,
            &format!("cmd=put kvsname={NAME} key=k value={long}"),
        );
        assert_eq!(r.get("rc"), Some("-1"));
        let ok = "x".repeat(VALLEN_MAX);
        let r = ask(
            &mut s,
            0,
            &format!("cmd=put kvsname={NAME} key=k value={ok}"),
        );
        assert_eq!(r.get("rc"), Some("0"));
        let r = ask(&mut s, 0, &format!("cmd=put kvsname={NAME} key=k"));
        assert_eq!(r.get("rc"), Some("-1"));
    }

    /// The KVS stops growing at [`KVS_MAX`]: a put past it gets `kvs_full` (and one warning per
    /// PE), an overwrite that does not grow it still succeeds, what was stored stays readable.
    #[test]
    fn the_key_store_is_bounded() {
        let mut s = server(2);
        let value = "v".repeat(VALLEN_MAX);
        let mut stored = 0;
        let refused = loop {
            let out = send(
                &mut s,
                0,
                &format!("cmd=put kvsname={NAME} key=k{stored} value={value}"),
            );
            if out.replies[0].1.contains("rc=-1") {
                break out;
            }
            stored += 1;
            assert!(
                stored <= KVS_MAX / VALLEN_MAX,
                "no bound after {stored} puts"
            );
        };
        assert!(stored >= KVS_MAX / (VALLEN_MAX + 128) - 1, "{stored}");
        assert!(refused.replies[0].1.contains("msg=kvs_full"), "{refused:?}");
        assert!(
            refused
                .warning
                .as_deref()
                .unwrap_or("")
                .contains("key/value space is full"),
            "{refused:?}"
        );
        let again = send(
            &mut s,
            0,
            &format!("cmd=put kvsname={NAME} key=new value={value}"),
        );
        assert!(again.replies[0].1.contains("msg=kvs_full"));
        assert_eq!(again.warning, None, "reported once per PE");
        let other = send(
            &mut s,
            1,
            &format!("cmd=put kvsname={NAME} key=new value={value}"),
        );
        assert!(other.warning.is_some(), "PE 1's first refusal is reported");
        let r = ask(
            &mut s,
            0,
            &format!("cmd=put kvsname={NAME} key=k0 value=short"),
        );
        assert_eq!(r.get("rc"), Some("0"));
        let r = ask(&mut s, 1, &format!("cmd=get kvsname={NAME} key=k1"));
        assert_eq!(r.get("value"), Some(value.as_str()));
    }

    /// Whatever a client sent is shown escaped: no NUL, escape sequence or other control byte
    /// reaches oshrun's stderr.
    #[test]
    fn client_bytes_are_echoed_escaped() {
        let mut s = server(1);
        let out = s.handle_line(0, &Line::Complete(b"\x1b[2J\x00\xff\\ x".to_vec()));
        let warning = out.warning.unwrap();
        assert!(warning.contains("'\\x1b[2J\\x00\\xff\\\\ x'"), "{warning}");
        let out = send(&mut s, 0, "cmd=\x07bell");
        let warning = out.warning.unwrap();
        assert!(warning.contains("'\\x07bell'"), "{warning}");
        assert!(
            warning.bytes().all(|b| (0x20..=0x7e).contains(&b)),
            "{warning}"
        );
        let long = format!("cmd=put kvsname=\x1b{}", "y".repeat(1000));
        let out = send(&mut s, 0, &long);
        let warning = out.warning.unwrap();
        assert!(warning.contains("more bytes)"), "{warning}");
        assert!(warning.len() < 600, "{warning}");
        assert!(
            warning.bytes().all(|b| (0x20..=0x7e).contains(&b)),
            "{warning}"
        );
    }

    #[test]
    fn barrier_releases_everyone_once_all_entered() {
        let n = 64;
        let mut s = server(n);
        for round in 0..3 {
            // Enter in a different order each round.
            for i in 0..n - 1 {
                let rank = (i + round * 7) % n;
                let out = send(&mut s, rank, "cmd=barrier_in");
                assert_eq!(out, Outcome::default(), "round {round}, rank {rank}");
            }
            let last = (n - 1 + round * 7) % n;
            let out = send(&mut s, last, "cmd=barrier_in");
            let mut ranks: Vec<usize> = out.replies.iter().map(|(r, _)| *r).collect();
            ranks.sort_unstable();
            assert_eq!(ranks, (0..n).collect::<Vec<_>>());
            assert!(
                out.replies
                    .iter()
                    .all(|(_, l)| l == "cmd=barrier_out rc=0\n")
            );
        }
    }

    #[test]
    fn barrier_counts_a_rank_once() {
        let mut s = server(2);
        assert!(send(&mut s, 0, "cmd=barrier_in").replies.is_empty());
        let out = send(&mut s, 0, "cmd=barrier_in");
        assert!(out.replies.is_empty() && out.warning.is_some());
        assert_eq!(send(&mut s, 1, "cmd=barrier_in").replies.len(), 2);
    }

    #[test]
    fn single_rank_barrier_is_immediate() {
        let mut s = server(1);
        assert_eq!(
            send(&mut s, 0, "cmd=barrier_in").replies,
            [(0, "cmd=barrier_out rc=0\n".to_owned())]
        );
    }

    #[test]
    fn finalize_is_recorded() {
        let mut s = server(2);
        let r = ask(&mut s, 1, "cmd=finalize");
        assert_eq!((r.cmd(), r.get("rc")), ("finalize_ack", Some("0")));
        assert!(s.finalized(1));
        assert!(!s.finalized(0));
    }

    #[test]
    fn abort_codes() {
        let mut s = server(2);
        let out = send(&mut s, 1, "cmd=abort exitcode=7 error_msg=bad_thing");
        assert!(out.replies.is_empty());
        assert_eq!(
            out.abort,
            Some(Abort {
                code: 7,
                message: Some("bad_thing".to_owned())
            })
        );
        for (line, code) in [
            ("cmd=abort", 1),
            ("cmd=abort exitcode=0", 0),
            ("cmd=abort exitcode=x", 1),
            ("cmd=abort exitcode=-1", 255),
            ("cmd=abort exitcode=256", 0),
            ("cmd=abort exitcode=300", 44),
        ] {
            assert_eq!(send(&mut s, 0, line).abort.unwrap().code, code, "{line}");
        }
    }

    #[test]
    fn bad_input_gets_an_error_reply_and_a_warning() {
        let mut s = server(1);
        for line in ["garbage", "", "cmd=get oops", "key=v"] {
            let out = send(&mut s, 0, line);
            assert_eq!(
                out.replies,
                [(0, "cmd=error rc=-1 msg=malformed_request\n".to_owned())],
                "{line:?}"
            );
            assert!(out.warning.is_some());
        }
        let out = s.handle_line(0, &Line::TooLong);
        assert_eq!(
            out.replies,
            [(0, "cmd=error rc=-1 msg=line_too_long\n".to_owned())]
        );

        let out = send(&mut s, 0, "cmd=spawn nprocs=2");
        assert_eq!(
            out.replies,
            [(0, "cmd=spawn_result rc=-1 msg=unknown_command\n".to_owned())]
        );
        assert!(out.warning.is_some());
    }
}
