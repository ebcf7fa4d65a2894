//! `spanreview review` (not built yet).

use std::process::ExitCode;

/// Arguments of `spanreview review`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input files.
    pub files: Vec<std::path::PathBuf>,
}

/// Run the subcommand.
///
/// # Errors
/// Always, for now: the subcommand is not built yet.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`review` is not built yet")
}
