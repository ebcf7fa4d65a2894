//! `spanreview apply`: append decisions given as JSON lines (the shape `decisions --json`
//! prints) to the log, each checked as the review screen checks a key
//! ([`crate::review::check`]), all or none.
//!
//! The file is read a line at a time and checked without the write lock, against the log as it
//! stands (other reviewers keep saving meanwhile: a screen's save never waits for the check);
//! what is kept meanwhile is the decisions to save, not the lines or the records
//! ([`plan::Planner`]). The save then takes the write lock: when the log has not moved since
//! the check ([`Store::log_mark`]), the checked decisions are saved; else the file is read and
//! checked again under the lock first. Either way they are saved in one transaction with each
//! record's new state, all or none. A line carrying an `origin` that the
//! database already holds is skipped (applying a file twice adds nothing); a line without one
//! gets one derived from what it says ([`crate::store::derived_origin`]), so such a file applied
//! twice, or regenerated with the same lines, adds nothing either, while a copy of a line later
//! in the file is a decision of its own (an undo, a redo, the same undo again). An undo or redo's `target` that is the `id` of an earlier line of the file
//! means that line's decision; any other target is a decision id in the database.

mod line;
mod plan;

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;

use super::db_args::DbArgs;
use super::to_stderr;
use crate::formats::Dataset;
use crate::store::Store;

use plan::{Line, Planner};

/// Arguments of `spanreview apply`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The records the decisions are on (and files joined to them by `id`), as for review.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
    /// The decisions, one JSON object per line (`-`: standard input).
    #[arg(long, value_name = "D.jsonl")]
    pub decisions: PathBuf,
    /// The database and the dataset the decisions are on.
    #[command(flatten)]
    pub db: DbArgs,
    /// Reviewer of the lines that name none (no default: such a line is refused without it).
    #[arg(long, value_name = "R")]
    pub reviewer: Option<String>,
    /// Check each line's reason code against this rubric: a drop, adjust, relabel, add, clean,
    /// remove or flag whose `reason` does not start with one of the rubric's codes for its
    /// action (`CODE` or `CODE: note`) is refused.
    #[arg(long, value_name = "FILE.toml")]
    pub rubric: Option<PathBuf>,
    /// Check every line and say what would be saved; save nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Append one line per transaction to this file: milliseconds waiting for the write lock,
    /// then holding it (check, save, commit), and the rows saved (for the load benchmark).
    #[arg(long, value_name = "PATH", hide = true)]
    pub timings: Option<PathBuf>,
}

/// Run the subcommand.
///
/// # Errors
/// The records or the decisions cannot be read, or the database cannot be opened or written
/// (exit 2; nothing saved).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let stdin = Path::new("-");
    if args.decisions == stdin && args.files.iter().any(|f| f == stdin) {
        anyhow::bail!(
            "the records and --decisions cannot both be standard input (-): give one a file"
        );
    }
    let rubric = args
        .rubric
        .as_deref()
        .map(crate::formats::rubric::read)
        .transpose()?;
    let dataset = Dataset::open(&args.files, None)?;
    let name = args.db.dataset_name(&dataset);
    let shown = if args.decisions == stdin {
        "<stdin>".to_owned()
    } else {
        args.decisions.display().to_string()
    };
    // Read twice at most (again under the write lock when the log moved meanwhile): standard
    // input is copied to a temporary file first.
    let source = Source::open(&args.decisions, &shown)?;
    let db = args.db.db_path();
    // A database not there yet is made only to save into: until every line passed the check
    // (against its empty log, in memory), no file or folder is made.
    let fresh = !db.exists() && !crate::store::is_url(&db.to_string_lossy());
    let checked_on = if fresh {
        Store::open_in_memory()?
    } else {
        let s = Store::open(&db)?;
        super::db_args::tell_set_aside(&s);
        s
    };
    let reviewer = args.reviewer.as_deref();
    // The check, without the write lock (other reviewers keep saving): against the log as it
    // stands at `mark`.
    let mark = checked_on.log_mark()?;
    let mut planner =
        Planner::new(&dataset, &name, reviewer, args.dry_run)?.with_rubric(rubric.as_ref());
    let total = source.each(|n, line| planner.feed(&checked_on, n, line))?;
    let (batch, mut present) = match planner.finish(&checked_on) {
        Ok(b) => b,
        Err(plan::Refused::Lines(r)) => return Ok(report_refused(&shown, r, total)),
        Err(plan::Refused::Store(e)) => return Err(e.into()),
        Err(plan::Refused::Other(e)) => return Err(e),
    };
    let planned = batch.rows.len();
    if args.dry_run {
        let message = format!(
            "{shown}: {total} lines checked: {planned} would be saved, {present} already in the \
             database (dry run: nothing saved)"
        );
        return super::write_stdout(
            format!("{}\n", crate::model::escape::line(&message)).as_bytes(),
        );
    }
    let store = if fresh {
        drop(checked_on);
        let s = Store::open(&db)?;
        super::db_args::tell_set_aside(&s);
        s
    } else {
        checked_on
    };
    let asked = Instant::now();
    let mut took = asked;
    // The save, under the write lock: the batch as checked when the log has not moved since,
    // else every line checked again now (another process saved meanwhile).
    let result = store.append_batch(|s| {
        took = Instant::now();
        if s.log_mark()? == mark {
            return Ok(batch);
        }
        drop(batch);
        let mut again = Planner::new(&dataset, &name, reviewer, false)
            .map_err(|e| plan::Refused::Other(e.into()))?
            .with_rubric(rubric.as_ref());
        source
            .each(|n, line| again.feed(s, n, line))
            .map_err(plan::Refused::Other)?;
        let (batch, skipped) = again.finish(s)?;
        present = skipped;
        Ok(batch)
    })?;
    let done = Instant::now();
    let saved = match result {
        Ok(saved) => saved,
        Err(plan::Refused::Lines(r)) => return Ok(report_refused(&shown, r, total)),
        Err(plan::Refused::Store(e)) => return Err(e.into()),
        Err(plan::Refused::Other(e)) => return Err(e),
    };
    if let Some(path) = &args.timings {
        let line = format!(
            "{:.3}\t{:.3}\t{}\n",
            (took - asked).as_secs_f64() * 1e3,
            (done - took).as_secs_f64() * 1e3,
            saved
        );
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .with_context(|| format!("writing the timings to {}", path.display()))?;
    }
    let message = format!("{shown}: {saved} decisions saved, {present} already in the database");
    super::write_stdout(format!("{}\n", crate::model::escape::line(&message)).as_bytes())
}

/// Say why each of the `refused` lines (of `total`) was refused, and that nothing was saved.
fn report_refused(shown: &str, mut refused: Vec<(usize, String)>, total: usize) -> ExitCode {
    refused.sort_by_key(|(n, _)| *n);
    for (n, why) in &refused {
        to_stderr!("{shown}:{n}: {why}");
    }
    to_stderr!(
        "nothing saved: {} of {total} line{} refused",
        refused.len(),
        if total == 1 { "" } else { "s" }
    );
    ExitCode::from(1)
}

/// The decisions file, read a line at a time (standard input or a pipe copied to a temporary
/// file first, removed when done, so that it can be read again).
struct Source {
    path: PathBuf,
    shown: String,
    temporary: bool,
}

impl Source {
    fn open(path: &Path, shown: &str) -> anyhow::Result<Self> {
        // A pipe (`-`, or a named one: `<(…)`) cannot be read twice: it is copied.
        let mut input: Box<dyn io::Read> = if path == Path::new("-") {
            Box::new(io::stdin().lock())
        } else {
            let f = std::fs::File::open(path)
                .with_context(|| format!("{shown}: cannot read the decisions"))?;
            if f.metadata().is_ok_and(|m| m.is_file()) {
                return Ok(Self {
                    path: path.to_path_buf(),
                    shown: shown.to_owned(),
                    temporary: false,
                });
            }
            Box::new(f)
        };
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let copy = std::env::temp_dir().join(format!(
            "spanreview-apply-{}-{nanos}.jsonl",
            std::process::id()
        ));
        let mut out = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&copy)
                .with_context(|| format!("{shown}: cannot copy to {}", copy.display()))?
        };
        let source = Self {
            path: copy,
            shown: shown.to_owned(),
            temporary: true,
        };
        io::copy(&mut input, &mut out)
            .and_then(|_| out.flush())
            .with_context(|| format!("{shown}: cannot copy to {}", source.path.display()))?;
        Ok(source)
    }

    /// Call `f` with each non-blank line's number and its decision (or why it is none);
    /// returns how many non-blank lines there were.
    fn each(
        &self,
        mut f: impl FnMut(usize, Result<Line, String>) -> Result<(), crate::store::StoreError>,
    ) -> anyhow::Result<usize> {
        let shown = &self.shown;
        let file = std::fs::File::open(&self.path)
            .with_context(|| format!("{shown}: cannot read the decisions"))?;
        let mut reader = io::BufReader::with_capacity(1 << 16, file);
        let mut buf = Vec::new();
        let (mut n, mut total) = (0, 0);
        loop {
            buf.clear();
            let read = reader
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("{shown}:{}: cannot read the line", n + 1))?;
            if read == 0 {
                break;
            }
            n += 1;
            let text = std::str::from_utf8(&buf)
                .with_context(|| format!("{shown}:{n}: cannot read the line"))?;
            let text = text.strip_suffix('\n').unwrap_or(text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.trim().is_empty() {
                continue;
            }
            total += 1;
            let line =
                serde_json::from_str::<Line>(text).map_err(|e| format!("not a decision: {e}"));
            f(n, line)?;
        }
        Ok(total)
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
