//! `spanreview man`: the manual page (roff, from the same definitions as `--help`), printed,
//! or written into a folder with one page per subcommand.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

/// Arguments of `spanreview man`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write spanreview.1 and a page per subcommand (spanreview-review.1, ...) into this folder
    /// (made if missing) instead of printing spanreview.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The page `spanreview.1`.
///
/// # Errors
/// Never in practice: rendering writes into memory.
pub fn page() -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(super::command()).render(&mut out)?;
    Ok(out)
}

/// Run the subcommand.
///
/// # Errors
/// The folder cannot be made or written, or standard output cannot be written.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let Some(dir) = &args.dir else {
        return super::write_stdout(&page()?);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot make it", dir.display()))?;
    clap_mangen::generate_to(super::command(), dir)
        .with_context(|| format!("{}: cannot write the pages", dir.display()))?;
    Ok(ExitCode::SUCCESS)
}
