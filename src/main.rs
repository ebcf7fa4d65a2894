//! The `spanreview` binary: parse the command line and dispatch.

use std::process::ExitCode;

use clap::Parser;

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
