//! `oshrun`: the single-node launcher of rshmem.
//!
//! `oshrun -np N prog args...` starts N copies of `prog` as the PEs of one job, gives each the
//! PMI-1 environment (`PMI_FD`, `PMI_RANK`, `PMI_SIZE`), serves the PMI-1 simple wire protocol on
//! their sockets (the protocol MPICH Hydra also speaks, so the library has one client for both),
//! and ends the job as a whole: the first failing PE decides the exit status and the others are
//! stopped. The modules, from the outside in: `cli` (arguments), `job` (the poll loop and the
//! exit policy), `process` (spawning and reaping PEs), `server` (PMI semantics: KVS and
//! barrier), `pmi` (wire format), `output` (`--tag-output`).

#![forbid(unsafe_code)]

/// Writes one line to oshrun's stderr, in one write: the PEs share that stderr, and a line
/// written in pieces (`eprintln!` writes the newline apart) can take a PE's line into its middle.
/// Unlike `eprintln!` it does not panic when stderr is gone (say, a pipe whose reader has exited):
/// oshrun must still stop the PEs and exit with the job's status.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!("{}\n", format_args!($($arg)*));
        let _ = std::io::stderr().write_all(line.as_bytes());
    }};
}

mod cli;
mod job;
mod output;
mod pmi;
mod process;
mod server;

use cli::Invocation;

fn main() {
    let code = match cli::parse(std::env::args_os().skip(1)) {
        Ok(Invocation::Run(opts)) => job::run(&opts),
        Ok(Invocation::Help) => {
            print!("{}", cli::USAGE);
            0
        }
        Ok(Invocation::Version) => {
            println!("oshrun (rshmem) {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Err(e) => {
            say!("oshrun: {e}\nTry 'oshrun --help' for more information.");
            2
        }
    };
    std::process::exit(code);
}
