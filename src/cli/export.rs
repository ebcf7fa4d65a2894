//! `spanreview export`: the reviewed records in the input's own schema, per-record verdicts and
//! a Markdown report, all from the decision log.
//!
//! Records are streamed from the leading input file in file order; the log of one dataset is
//! read once and grouped by record id. For each record:
//!
//! - **No decision in force** (none at all, only flags and notes, only undone or stale ones):
//!   the record's bytes are copied as read (so the exported value equals the input), unless
//!   `--strict` drops a label from it or `--reviewed-only` leaves it out.
//! - **Reviewed**: the log is replayed ([`crate::review::decision::replay`]) and the kept spans
//!   written back through the format's writer ([`Format::write`]), which patches the record's
//!   own JSON: every field the tool does not manage passes through, key order included. Clean records get no labels and
//!   type `clean`; removed records are left out, or with `--keep-removed` written with their span
//!   decisions applied and `meta.review.removed = "<reason>"`. Changed lines are written in the
//!   input line's own JSON style (separators, `\u` escapes).
//! - `--provenance` adds `meta.review = {reviewers, time, outcome}` to reviewed records (`meta`
//!   is created, last, in formats that have none).
//!
//! **Several reviewers** (a `merge-db` database): decisions apply in log order whoever made
//! them, so on a span reviewers disagree on the later decision wins; a resolution made in
//! arbitration comes after the merged decisions and so overrides them. Records where reviewers'
//! results differ and no resolution naming a reviewer source settled them
//! ([`judge_args::reviewers`]) are exported that way too, and listed as a warning and in the
//! report.
//!
//! Every output that is a regular file (or none yet) goes to a temporary file beside its
//! destination and is renamed into place only after all of them were written and synced (a
//! manifest describing the set first, [`manifest`]; signals wait for the renames, [`cleanup`]),
//! every destination checked first (not a folder, in a folder that exists) and a failed rename
//! undoing the ones before it: an error, stale decisions without `--skip-stale` or a kept span
//! `validate` would reject (offsets that do not slice its answer, a label that is a record's
//! type, missing or not in the label set: [`span_check`]; exit 1) leave no output and every
//! existing file untouched.
//! Other destinations (`-`, a FIFO, a device) are streams, written as the export goes
//! ([`dest`]). `--split-by`
//! writes `<out-stem>.<value>.<out-ext>` beside `--out` (a value's characters other than letters,
//! digits, `-`, `_`, `.` become `_`; a missing or null value is `none`, and how many records
//! had none is warned about; two values that would share a
//! file name are refused, exit 2, rather than written into one file); with `--clean-in-all`, records
//! of type `clean` go to every other value's file (read in a first pass) instead of their own.
//!
//! **Unreadable lines** (invalid JSON, a non-string `id`, a record the format cannot read) never
//! stop the export: each is reported as `FILE:LINE: message`, counted in the report, and passed
//! through byte for byte in its place (exit 0). Decisions in force on such a line's id (when the
//! id could be read, for a line cut short from its first bytes) cannot apply: they are listed as not applied and the export, still
//! written, exits 1. Under `--split-by` the line has no route: it is left out of the files, and
//! the export exits 1. A JSON array input cut short (a partial record at its end, which the
//! index leaves out) is reported as `FILE:LINE`, counted in the report, and exits 1 too.
//! Reviewed records of type `clean` left with labels are warned about and counted.
//!
//! **As a library**: [`export`] takes an [`ExportOptions`] (plain data; [`run`] only converts
//! the flags). It stays under `cli/` for now: it finds reviewers' conflicts with
//! [`judge_args::reviewers`] and warns through the cli's escaping `to_stderr!`, both on this
//! floor, so a module below cli would import upwards until those move down.

mod atomic;
pub(crate) mod cleanup;
mod dest;
mod features;
mod lenient;
mod manifest;
mod options;
mod output;
mod pipeline;
mod record;
mod report;
mod sink;
mod span_check;
mod style;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};

use super::db_args::{no_decisions, DbArgs};
use super::judge_args::{self, Conflict, JudgeArgs};
use super::to_stderr;
use crate::formats::index::Layout;
use crate::formats::{Dataset, Format};
use crate::model::SourceRole;
use crate::review::decision::Decision;
use crate::review::outcome::Tally;
use crate::store::Store;

pub(crate) use output::{persist_all, AtomicFile, Protected};
use output::{RecordFile, Records};
use record::Exporter;
use sink::Sink;

pub use options::ExportOptions;

/// Arguments of `spanreview export`.
#[derive(Debug, clap::Args)]
#[allow(clippy::struct_excessive_bools)]
pub struct Args {
    /// Records (and prediction files joined by `id`); the first file with answer text is
    /// exported, in its own format.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Judge sources (`--judge NAME=FILE`, shared with compare and stats). Export reads
    /// resolutions from the log, so the files are only checked and protected; each NAME is
    /// listed in the report's per-judge table even when no resolution names it.
    #[command(flatten)]
    pub judges: JudgeArgs,
    /// The database and the dataset in it.
    #[command(flatten)]
    pub db: DbArgs,
    /// Where to write the records (with --split-by: the stem and extension of the files). `-`
    /// is standard output; a FIFO or device is written as a stream, never replaced.
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Write one JSON object per record with decisions: outcomes (kept, tightened, widened,
    /// shifted, relabeled, dropped, added, ...), labels before and after, upheld and dismissed
    /// sources, reviewers, time, notes and every decision's reason; every key on every line.
    #[arg(long, value_name = "PATH")]
    pub verdicts: Option<PathBuf>,
    /// Write the Markdown review report.
    #[arg(long, value_name = "PATH.md")]
    pub report: Option<PathBuf>,
    /// Write the types of every field of the exported records as a `datasets` Features
    /// dictionary (JSON), so that the record files load together whatever their order:
    /// `load_dataset("json", data_files=..., features=Features.from_dict(json.load(...)))`.
    #[arg(long, value_name = "PATH.json")]
    pub features: Option<PathBuf>,
    /// Write the types of every field of the --verdicts line as a `datasets` Features
    /// dictionary (JSON), so that verdict files of several exports load together whatever
    /// their order (a file whose notes are all `[]` first, say).
    #[arg(long, value_name = "PATH.json", requires = "verdicts")]
    pub verdicts_features: Option<PathBuf>,
    /// Drop labels whose type is not the record's corruption_type (the published rule); they
    /// are counted in the report.
    #[arg(long)]
    pub strict: bool,
    /// Write one file per value of this field (dotted path, e.g. meta.corruption_type):
    /// <out-stem>.<value>.<out-ext>.
    #[arg(long, value_name = "FIELD")]
    pub split_by: Option<String>,
    /// With --split-by: write clean records into every other value's file.
    #[arg(long, requires = "split_by")]
    pub clean_in_all: bool,
    /// Keep removed records, marked with meta.review.removed = "<reason>".
    #[arg(long)]
    pub keep_removed: bool,
    /// Leave out records with no verdict in force (accept, drop, adjust, relabel, add, clean,
    /// remove, resolve; a flag or a note alone is none).
    #[arg(long)]
    pub reviewed_only: bool,
    /// Export even when some decisions are stale (they are listed and not applied).
    #[arg(long)]
    pub skip_stale: bool,
    /// Exit 1 and write nothing while a reviewed record keeps a hallucination type but no span
    /// (an open item: every span dropped, as a "drop all" resolution leaves it); label it,
    /// reclassify it clean or remove it in review.
    #[arg(long)]
    pub require_settled: bool,
    /// Add meta.review (reviewers, time, outcome) to reviewed records.
    #[arg(long)]
    pub provenance: bool,
    /// Read every file in this format instead of detecting it.
    #[arg(long, value_enum, value_name = "F")]
    pub format: Option<Format>,
}

/// Run the subcommand: [`export`] with the options the flags give.
///
/// # Errors
/// As [`export`].
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    export(&ExportOptions::from(args))
}

/// Export the reviewed records (and the verdicts, report and features asked for) as `opts`
/// says; warnings and the summary go to standard error, as `spanreview export` prints them.
///
/// # Errors
/// I/O errors, unreadable records, a missing database, an output that is an input (nothing is
/// written).
pub fn export(opts: &ExportOptions) -> anyhow::Result<ExitCode> {
    let judges = &opts.judges;
    let dataset = Dataset::open(&opts.files, opts.format)?;
    tell_about_inputs(&dataset);
    let name = opts.dataset.clone().unwrap_or_else(|| dataset.name.clone());
    let db = &opts.db;
    let protected = protect(opts, judges, db)?;
    let manifest = manifest::path_of(opts)?;
    if let Some(m) = &manifest {
        manifest::check(m);
    }
    cleanup::install()?;
    let by_record = load_log(db, &name)?;
    let conflicts: Vec<Conflict> =
        judge_args::reviewers(by_record.values().flatten(), &dataset, &opts.judge_options)
            .conflicts
            .into_iter()
            .filter(|c| !c.resolved)
            .collect();

    let mut ex = Exporter {
        args: opts,
        dataset: &dataset,
        log: &by_record,
        warnings: Vec::new(),
    };
    let primary = dataset.primary();

    // First pass, only for --clean-in-all: the values clean records are copied into.
    let mut routes: BTreeSet<String> = BTreeSet::new();
    if opts.clean_in_all {
        for i in 0..primary.len() {
            if let Some(line) = ex.item(i)?.line {
                if !line.clean {
                    routes.insert(line.route);
                }
            }
        }
        ex.warnings.clear();
    }

    // A parquet input is written as JSONL (parquet is not written yet).
    let layout = match primary.index.layout() {
        Layout::Parquet => Layout::Lines,
        l => l,
    };
    let mut sink = Sink {
        args: opts,
        primary,
        next: 0,
        lines_of: HashMap::new(),
        log: &by_record,
        routes,
        records: match &opts.split_by {
            None => Records::One(RecordFile::create(&opts.out, layout)?),
            Some(field) => Records::Split {
                out: opts.out.clone(),
                field: field.clone(),
                layout,
                files: BTreeMap::new(),
                names: HashMap::new(),
            },
        },
        verdicts: opts
            .verdicts
            .as_deref()
            .map(AtomicFile::create)
            .transpose()?,
        tally: Tally::default(),
        stale: Vec::new(),
        seen: HashSet::new(),
        unlabeled: Vec::new(),
        clean_labeled: Vec::new(),
        unreadable: Vec::new(),
        conflicts,
        no_value: 0,
        unreadable_labels: 0,
        bad_spans: Vec::new(),
    };
    for (judge, _) in judges {
        sink.tally.name_source(judge);
    }

    // The records are read and reviewed on two threads and written on this one, in file order.
    // A stream's reader that went away (`--out - | head`) ends the export quietly (exit 2).
    let warnings = pipeline::each_item(opts, &dataset, &by_record, |item| sink.take(item))
        .map_err(crate::cli::closed_pipe_of)
        .inspect_err(|e| {
            let note = dest::streamed_note(opts);
            if !note.is_empty() && !crate::cli::is_closed_pipe(e) {
                to_stderr!("spanreview: the export stopped{note}");
            }
        })?;
    for w in &warnings {
        to_stderr!("warning: {w}");
    }
    sink.finish(&name, &protected, manifest.as_deref())
        .map_err(crate::cli::closed_pipe_of)
}

/// Notes about the inputs: join problems, a second records file that is only joined, an input
/// cut short.
fn tell_about_inputs(dataset: &Dataset) {
    for p in &dataset.problems {
        to_stderr!("{p}");
    }
    let primary = dataset.primary();
    // A second file of the records' format whose gold is its own opinion (not a detector's
    // predictions over the same gold) loses that gold in the join: say so.
    for f in dataset.files().skip(1) {
        if f.format == primary.format && f.format.spec().judge_role == SourceRole::Annotator {
            to_stderr!(
                "note: {} is joined to {} by id (only its extra sources are read); export writes \
                 the records of {} only (run export once per file to export both)",
                f.path().display(),
                primary.path().display(),
                primary.path().display()
            );
        }
    }
    for (line, message) in &primary.index.problems {
        to_stderr!(
            "warning: {}:{line}: {message}; the text from this line on is not in the export (a \
             partial record cannot be written into a valid JSON array)",
            primary.path().display()
        );
    }
}

/// The inputs (and the database) as protected files; refuse `--out`, `--verdicts` or
/// `--report` when one is an input or two are the same file.
fn protect(
    args: &ExportOptions,
    judges: &[(String, PathBuf)],
    db: &Path,
) -> anyhow::Result<Protected> {
    let mut protected = Protected::default();
    for f in &args.files {
        protected.add(f, "the input file");
    }
    for (name, f) in judges {
        protected.add(f, &format!("the --judge {name} file"));
    }
    protected.add(db, "the database");
    let mut dests: Vec<(&Path, &str)> = Vec::new();
    if args.split_by.is_none() {
        dests.push((&args.out, "--out"));
    }
    if let Some(p) = &args.verdicts {
        dests.push((p, "--verdicts"));
    }
    if let Some(p) = &args.report {
        dests.push((p, "--report"));
    }
    if let Some(p) = &args.features {
        dests.push((p, "--features"));
        if args.split_by.is_none() && dest::target(&args.out)? == dest::Target::Stream {
            bail!(
                "--features reads the records back once written, and --out {} is a stream: \
                 write them to a file (nothing was written)",
                args.out.display()
            );
        }
    }
    if let Some(p) = &args.verdicts_features {
        dests.push((p, "--verdicts-features"));
    }
    if args.split_by.is_none() && crate::formats::parquet::named_parquet(&args.out) {
        bail!(
            "--out {}: export writes JSONL (or a JSON array), not parquet yet; name a .jsonl \
             file (a parquet input is exported as JSONL; nothing was written)",
            args.out.display()
        );
    }
    if args.split_by.is_some() {
        if dest::target(&args.out)? == dest::Target::Stream {
            bail!(
                "--split-by writes one file per value named after --out, and {} is not a file \
                 path: give one (nothing was written)",
                args.out.display()
            );
        }
        output::check_folder(&args.out, "--out")?;
    }
    for (i, (p, what)) in dests.iter().enumerate() {
        protected.check(p, what)?;
        output::check_dest(p, what)?;
        for (q, other) in &dests[..i] {
            if output::canonical(p) == output::canonical(q) {
                bail!("{what} and {other} are the same file {}", p.display());
            }
        }
    }
    // Split files are checked by name when they are known; they must not be the verdicts or
    // report either.
    if args.split_by.is_some() {
        for (p, what) in &dests {
            protected.add(p, &format!("the {what} file"));
        }
    }
    Ok(protected)
}

/// The decisions on dataset `name`, by record id (each record's in log order).
fn load_log(db: &Path, name: &str) -> anyhow::Result<HashMap<String, Vec<Decision>>> {
    let store = Store::open_existing(db)
        .with_context(|| "export reads the decisions from the review database (pass --db)")?;
    let log = store.decisions(Some(name))?;
    if log.is_empty() {
        let known = store.datasets().unwrap_or_default();
        to_stderr!(
            "warning: {}; records are exported as read",
            no_decisions(db, name, &known)
        );
    }
    let mut by_record: HashMap<String, Vec<Decision>> = HashMap::new();
    for d in log {
        by_record.entry(d.record_id.clone()).or_default().push(d);
    }
    Ok(by_record)
}
