//! `spanreview merge-db`: combine reviewers' databases into one.
//!
//! Every decision keeps its reviewer, time and content; a decision already in OUT (same origin:
//! the random id it got when first saved) is not added again, so merging is idempotent and
//! merged databases can be merged further. Undo/redo targets are remapped to OUT's ids.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::export::Protected;
use crate::store::{Store, StoreError};

/// Arguments of `spanreview merge-db`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The database to merge into (created when missing); a file, a postgresql:// URL or a
    /// "host=... dbname=..." string (password from PGPASSWORD or ~/.pgpass; never shown).
    #[arg(value_name = "OUT.sqlite")]
    pub out: PathBuf,
    /// Databases to merge from, in order (only read, never changed; an older schema is brought
    /// up to date in a copy in memory); files or postgresql:// URLs.
    #[arg(required = true, value_name = "IN.sqlite")]
    pub inputs: Vec<PathBuf>,
}

/// Run the subcommand: one line per input on stdout.
///
/// # Errors
/// An input that is missing, is OUT itself, or cannot be read; OUT cannot be written, or is
/// found damaged after the merge (`PRAGMA quick_check`; exit 2).
/// Inputs merged before the failing one stay merged (each input is one transaction).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // OUT is written in place: the same file under another name (a hard link) is OUT too.
    let mut out = Protected::default();
    out.add(&args.out, "OUT");
    for input in &args.inputs {
        if out.which(input).is_some() {
            bail!(
                "cannot merge {} into itself: give a different OUT",
                crate::store::shown(input)
            );
        }
    }
    // Every input is opened (and closed) before anything is merged, so a missing one merges
    // nothing; then each is opened again while it is merged, one at a time: forty inputs do
    // not hold forty databases (and their WAL files) open at once.
    let open = |p: &std::path::Path| match Store::open_existing(p) {
        Err(StoreError::Missing { path }) => bail!(
            "no database at {}: check this IN.sqlite path (nothing was merged)",
            path.display()
        ),
        r => Ok(r?),
    };
    for p in &args.inputs {
        drop(open(p)?);
    }
    let out = Store::open(&args.out)?;
    super::db_args::tell_set_aside(&out);
    let mut stdout = io::stdout().lock();
    for path in &args.inputs {
        let r = out.merge_from(&open(path)?)?;
        let line = format!(
            "{}: {} decisions, {} added, {} already present; {} record states taken",
            crate::store::shown(path),
            r.read,
            r.added,
            r.present,
            r.states
        );
        if let Err(e) = writeln!(stdout, "{}", crate::model::escape::line(&line)) {
            if e.kind() != io::ErrorKind::BrokenPipe {
                // A full disk names no file: say which output it was.
                return Err(anyhow::Error::new(e).context("writing to standard output"));
            }
        }
    }
    // Exit 0 only for an output that is whole (a stale log replayed into it once left it
    // "malformed" after "440 already present").
    out.check_whole()?;
    Ok(ExitCode::SUCCESS)
}
