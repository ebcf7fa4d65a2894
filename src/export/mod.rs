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
//!   written back through the format's writer ([`Format::write`](crate::formats::Format::write)), which patches the record's
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
//! ([`reviewers::reviewers`]) are exported that way too, and listed as a warning and in the
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
//! **As a library**: [`export`] takes an [`ExportOptions`] (plain data; `spanreview export`
//! only converts its flags into one); [`convert::run`] takes a [`convert::ConvertOptions`] the
//! same way. This layer sits between formats/store and tui/cli: it imports neither `cli` nor
//! `tui`.

mod atomic;
mod card;
pub mod cleanup;
mod contested;
pub mod convert;
pub(crate) mod dest;
mod features;
pub mod folder;
mod lenient;
mod manifest;
mod options;
mod output;
pub mod parquet;
mod pipeline;
mod record;
mod report;
mod rubric_copy;
mod set;
mod sink;
mod span_check;
mod staging;
mod style;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};

use crate::formats::index::Layout;
use crate::formats::judges::reviewers::{self, Conflict};
use crate::formats::{DataFile, Dataset};
use crate::model::escape::to_stderr;
use crate::model::SourceRole;
use crate::review::decision::Decision;
use crate::review::outcome::Tally;
use crate::store::{no_decisions, Store};

pub use dest::{closed_pipe_of, is_closed_pipe, ClosedPipe};
pub use output::{AtomicFile, Protected};
use output::{RecordFile, Records};
use record::Exporter;
pub use set::persist_all;
use sink::Sink;

pub use options::ExportOptions;

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
    let from_parquet = dataset.primary().index.layout() == Layout::Parquet;
    let protected = protect(opts, judges, db, from_parquet)?;
    let rubric = rubric_copy::open(opts, &protected)?;
    let manifest = manifest::path_of(opts)?;
    if let Some(m) = &manifest {
        manifest::check(m);
    }
    cleanup::install()?;
    let by_record = load_log(db, &name)?;
    let team = reviewers::reviewers(by_record.values().flatten(), &dataset, &opts.judge_options);
    let figures = opts
        .card
        .as_ref()
        .map(|_| card::TeamFigures::of(&by_record, &team))
        .unwrap_or_default();
    let conflicts: Vec<Conflict> = team.conflicts.into_iter().filter(|c| !c.resolved).collect();
    let contested = contested::Contested::open(opts, team.sources)?;

    let mut ex = Exporter {
        args: opts,
        dataset: &dataset,
        log: &by_record,
        warnings: Vec::new(),
    };
    let primary = dataset.primary();

    // First pass, only for --clean-in-all: the values clean records are copied into.
    let routes = if opts.clean_in_all {
        clean_routes(&mut ex)?
    } else {
        BTreeSet::new()
    };
    let mut sink = sink(opts, primary, &by_record, routes, conflicts)?;
    sink.rubric = rubric;
    sink.contested = contested;
    sink.team = figures;
    for (judge, _) in judges {
        sink.tally.name_source(judge);
    }

    // The records are read and reviewed on two threads and written on this one, in file order.
    // A stream's reader that went away (`--out - | head`) ends the export quietly (exit 2).
    let warnings = pipeline::each_item(opts, &dataset, &by_record, |item| sink.take(item))
        .map_err(closed_pipe_of)
        .inspect_err(|e| {
            let note = dest::streamed_note(opts);
            if !note.is_empty() && !is_closed_pipe(e) {
                to_stderr!("spanreview: the export stopped{note}");
            }
        })?;
    for w in &warnings {
        to_stderr!("warning: {w}");
    }
    sink.finish(&name, &protected, manifest.as_deref())
        .map_err(closed_pipe_of)
}

/// The values of the records that are not clean, read in a first pass (`--clean-in-all`: the
/// files clean records are copied into); its warnings are left to the second.
///
/// # Errors
/// A record cannot be read.
fn clean_routes(ex: &mut Exporter<'_>) -> anyhow::Result<BTreeSet<String>> {
    let mut routes = BTreeSet::new();
    for i in 0..ex.dataset.primary().len() {
        if let Some(line) = ex.item(i)?.line {
            if !line.clean {
                routes.insert(line.route);
            }
        }
    }
    ex.warnings.clear();
    Ok(routes)
}

/// The sink the export writes into: the record files (one, or one per `--split-by` value) and
/// the verdicts opened, every count at zero.
///
/// # Errors
/// An output cannot be created.
fn sink<'a>(
    opts: &'a ExportOptions,
    primary: &'a DataFile,
    log: &'a HashMap<String, Vec<Decision>>,
    routes: BTreeSet<String>,
    conflicts: Vec<Conflict>,
) -> anyhow::Result<Sink<'a>> {
    let layout = written_layout(primary, &opts.out);
    let shape = match (layout, primary.index.parquet_rows()) {
        (Layout::Parquet, Some(rows)) => Some(parquet::Shape::of(rows)),
        _ => None,
    };
    Ok(Sink {
        args: opts,
        primary,
        next: 0,
        lines_of: HashMap::new(),
        log,
        routes,
        records: match &opts.split_by {
            None => Records::One(RecordFile::create_as(&opts.out, layout, shape.as_ref())?),
            Some(field) => Records::Split {
                out: opts.out.clone(),
                field: field.clone(),
                layout,
                shape,
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
        rubric: None,
        contested: None,
        team: card::TeamFigures::default(),
    })
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
/// The layout `file`'s records are written in to `out`: its own, a parquet input's as
/// parquet when `out` is named `.parquet` and as JSONL otherwise.
pub(crate) fn written_layout(file: &DataFile, out: &Path) -> Layout {
    match file.index.layout() {
        Layout::Parquet if crate::formats::parquet::named_parquet(out) => Layout::Parquet,
        Layout::Parquet => Layout::Lines,
        l => l,
    }
}

fn protect(
    args: &ExportOptions,
    judges: &[(String, PathBuf)],
    db: &Path,
    from_parquet: bool,
) -> anyhow::Result<Protected> {
    let mut protected = Protected::default();
    for f in &args.files {
        protected.add(f, "the input file");
    }
    for (name, f) in judges {
        protected.add(f, &format!("the --judge {name} file"));
    }
    protected.add(db, "the database");
    if let Some(r) = &args.rubric {
        protected.add(r, "the --rubric file");
    }
    let dests = destinations(args)?;
    parquet_out(args, from_parquet)?;
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

/// Every file the export writes, with the option that names it; refuses a `--card` or
/// `--features` that cannot be written before anything is.
fn destinations(args: &ExportOptions) -> anyhow::Result<Vec<(&Path, &'static str)>> {
    let mut dests: Vec<(&Path, &'static str)> = Vec::new();
    if args.split_by.is_none() {
        dests.push((&args.out, "--out"));
    }
    if let Some(p) = &args.verdicts {
        dests.push((p, "--verdicts"));
    }
    if let Some(p) = &args.report {
        dests.push((p, "--report"));
    }
    if let Some(p) = &args.contested {
        dests.push((p, "--contested"));
    }
    if let Some(p) = &args.card {
        dests.push((p, "--card"));
        if dest::target(p)? == dest::Target::Stream {
            bail!(
                "--card {} is not a file path: the charts are written beside the card, so give \
                 a file (nothing was written)",
                p.display()
            );
        }
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
    Ok(dests)
}

/// Refuse a parquet `--out` that cannot be written: from records that are not parquet
/// (`from_parquet` false: no schema to write them with), or with `--features` (the schema
/// holds them).
fn parquet_out(args: &ExportOptions, from_parquet: bool) -> anyhow::Result<()> {
    if !crate::formats::parquet::named_parquet(&args.out) {
        return Ok(());
    }
    if !from_parquet {
        bail!(
            "--out {}: export writes parquet from a parquet input only (its schema is the \
             one written); records of {} are exported as JSONL: name a .jsonl file (nothing \
             was written)",
            args.out.display(),
            args.files
                .first()
                .map_or_else(String::new, |f| f.display().to_string())
        );
    }
    if args.features.is_some() {
        bail!(
            "--features describes JSONL records; a parquet export keeps the input's features \
             in its schema (drop --features; nothing was written)"
        );
    }
    Ok(())
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
