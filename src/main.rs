//! The `spanreview` binary: parse the command line and dispatch.

use std::process::ExitCode;

use clap::Parser;

/// mimalloc: export and the record readers allocate and free many large strings (records'
/// contexts) across threads, where it frees several times faster than the system allocator.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = spanreview::cli::Cli::parse();
    match spanreview::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("spanreview: {}", spanreview::cli::error_message(&e));
            ExitCode::from(2)
        }
    }
}
