//! `spanreview apply`: append decisions given as JSON lines (the shape `decisions --json`
//! prints) to the log, each checked as the review screen checks a key
//! ([`crate::review::check`]), all or none.
//!
//! The lines are read and parsed first; the check then runs under the database's write lock,
//! against the log as it is then (other reviewers may be saving), and the decisions are saved in
//! that same transaction with each record's new state. A line carrying an `origin` that the
//! database already holds is skipped (applying a file twice adds nothing); a line without one
//! gets one derived from what it says ([`crate::store::derived_origin`]), so such a file applied
//! twice, or regenerated with the same lines, adds nothing either, while a copy of a line later
//! in the file is a decision of its own (an undo, a redo, the same undo again). An undo or redo's `target` that is the `id` of an earlier line of the file
//! means that line's decision; any other target is a decision id in the database.

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
    let dataset = Dataset::open(&args.files, None)?;
    let name = args.db.dataset_name(&dataset);
    let shown = if args.decisions == stdin {
        "<stdin>".to_owned()
    } else {
        args.decisions.display().to_string()
    };
    let (lines, mut refused) = read_lines(&args.decisions, &shown)?;
    let total = lines.len() + refused.len();
    // A line that is no decision saves nothing of the file; the others are still checked, to
    // report every refused line at once.
    let check_only = args.dry_run || !refused.is_empty();
    let db = args.db.db_path();
    // A database not there yet is made only to save into: until every line passed the check
    // (against its empty log, in memory), no file or folder is made.
    let fresh = !db.exists() && !crate::store::is_url(&db.to_string_lossy());
    if fresh && !check_only {
        let mut trial = Planner::new(&dataset, &name, args.reviewer.as_deref(), true)?;
        trial.read_records(&lines);
        match Store::open_in_memory()?.append_batch(|s| trial.plan(s, &lines))? {
            Ok(_) => {}
            Err(plan::Refused::Lines(r)) => return Ok(report_refused(&shown, r, total)),
            Err(plan::Refused::Store(e)) => return Err(e.into()),
        }
    }
    let store = if fresh && check_only {
        Store::open_in_memory()?
    } else {
        Store::open(&db)?
    };
    super::db_args::tell_set_aside(&store);
    let asked = Instant::now();
    let mut took = asked;
    let mut planner = Planner::new(&dataset, &name, args.reviewer.as_deref(), check_only)?;
    planner.read_records(&lines);
    let result = store.append_batch(|s| {
        took = Instant::now();
        planner.plan(s, &lines)
    })?;
    let done = Instant::now();
    let outcome = match result {
        Ok(saved) => saved,
        Err(plan::Refused::Lines(mut r)) => {
            refused.append(&mut r);
            Vec::new()
        }
        Err(plan::Refused::Store(e)) => return Err(e.into()),
    };
    if let Some(path) = &args.timings {
        let line = format!(
            "{:.3}\t{:.3}\t{}\n",
            (took - asked).as_secs_f64() * 1e3,
            (done - took).as_secs_f64() * 1e3,
            outcome.len()
        );
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .with_context(|| format!("writing the timings to {}", path.display()))?;
    }
    if !refused.is_empty() {
        return Ok(report_refused(&shown, refused, total));
    }
    let present = planner.present();
    let message = if args.dry_run {
        format!(
            "{shown}: {total} lines checked: {} would be saved, {present} already in the \
             database (dry run: nothing saved)",
            planner.planned()
        )
    } else {
        format!(
            "{shown}: {} decisions saved, {present} already in the database",
            outcome.len()
        )
    };
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

/// Lines by number: the parsed ones, and the refused ones with why.
type Parsed = (Vec<(usize, Line)>, Vec<(usize, String)>);

/// The non-blank lines of `path` (`-`: stdin), parsed, with their line numbers; and the lines
/// that are not a decision, with why.
fn read_lines(path: &Path, shown: &str) -> anyhow::Result<Parsed> {
    let reader: Box<dyn BufRead> = if path == Path::new("-") {
        Box::new(io::stdin().lock())
    } else {
        let f = std::fs::File::open(path)
            .with_context(|| format!("{shown}: cannot read the decisions"))?;
        Box::new(io::BufReader::new(f))
    };
    let mut lines = Vec::new();
    let mut refused = Vec::new();
    for (i, text) in reader.lines().enumerate() {
        let text = text.with_context(|| format!("{shown}:{}: cannot read the line", i + 1))?;
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Line>(&text) {
            Ok(l) => lines.push((i + 1, l)),
            Err(e) => refused.push((i + 1, format!("not a decision: {e}"))),
        }
    }
    Ok((lines, refused))
}
