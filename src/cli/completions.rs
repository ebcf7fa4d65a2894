//! `spanreview completions SHELL`: the shell's completion script, on standard output.

use std::process::ExitCode;

/// Arguments of `spanreview completions`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The completion script for `shell`.
#[must_use]
pub fn script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut super::command(), "spanreview", &mut out);
    out
}

/// Run the subcommand.
///
/// # Errors
/// Standard output cannot be written (a closed pipe is not an error).
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    super::write_stdout(&script(args.shell))
}
