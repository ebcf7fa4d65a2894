//! The loopback chat-completions server of the judge tests (tests/cli/judge_server.rs), as a
//! program for `bench/judge.sh`: every request answered at once with a recorded vLLM reply
//! holding a valid verdict. Prints its URL, then serves until killed.
//!
//! ```sh
//! cargo run --release --example judge_server            # http://127.0.0.1:PORT/v1
//! ```

#[path = "../tests/cli/judge_server.rs"]
mod judge_server;

use std::io::Write;
use std::sync::Arc;

fn main() {
    let server = judge_server::start(
        Arc::new(|r: &judge_server::Request, _| {
            judge_server::Reply::verdicts(judge_server::VLLM, r)
        }),
        false,
    );
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", server.url);
    let _ = out.flush();
    drop(out);
    loop {
        std::thread::park();
    }
}
