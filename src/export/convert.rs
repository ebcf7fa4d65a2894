//! Converting records from one format to another (`spanreview convert`) (RAGTruth, Label Studio, Prodigy,
//! or any format given records of it to write onto).
//!
//! Each input record is read as `review` reads it (several files joined by id), its spans picked
//! ([`pick::spans`]) and written onto the record it came from when that is known: the
//! `--records` file's record of the same id, a Label Studio task's own data ([`tasks::record_of`]),
//! or the input record itself when the format does not change. Otherwise a new record of the
//! target format is made (RAGTruth, Prodigy, Label Studio). An unchanged span keeps its
//! original object, so a round trip gives back the same JSON.

mod pick;
mod raw;
mod tasks;
mod written;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use raw::Passed;
use serde_json::{json, Value};
use written::{Placed, Written};

use super::dest::write_stdout_whole;
use super::{closed_pipe_of, persist_all, AtomicFile, Protected};
use crate::formats::index::Layout;
use crate::formats::{judges, prodigy, DataFile, Dataset, Format};
use crate::model::escape::to_stderr;
use crate::model::{Record, Span};

/// What a conversion does, as plain data (`spanreview convert` maps its flags to it).
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// Input files (JSONL or a JSON array; several are joined by id). `-` is standard input.
    pub inputs: Vec<PathBuf>,
    /// Read every input in this format instead of detecting it.
    pub format: Option<Format>,
    /// The format to write: ragtruth, label-studio, prodigy (others with --records).
    pub to: Format,
    /// Where to write. `-` is standard output.
    pub out: PathBuf,
    /// Write onto these records, matched by id: each is written out in its order, every field
    /// kept, with its spans replaced by those of the input record of its id (untouched when
    /// there is none).
    pub records: Option<PathBuf>,
    /// The Label Studio `data` field holding the record's id [default: the first of id, rid,
    /// record_id present]; in JSON_MIN rows, the row's field [default: rid, record_id, id].
    pub id_field: Option<String>,
    /// Write the labeling config (--to label-studio) here rather than to standard output.
    pub config: Option<PathBuf>,
    /// Take this source's spans instead of the gold (a detector, `annotator_<id>`, a Label
    /// Studio prediction's `model_version`; its `gold` is `prediction_gold`).
    pub source: Option<String>,
    /// Write even when problems were met (a span skipped, a label lost, a record left out);
    /// each is listed with its record. Without it, a run with problems writes nothing.
    pub lenient: bool,
}

/// The target formats that records of other formats can be made into.
const BUILDS: [Format; 3] = [Format::Ragtruth, Format::LabelStudio, Format::Prodigy];

/// The records to write onto (`--records`), by key.
struct Originals {
    file: DataFile,
    by_key: HashMap<String, usize>,
}

impl Originals {
    fn open(path: &Path, to: Format, id_field: Option<&str>) -> anyhow::Result<Self> {
        let file = DataFile::open(path, None, None)?;
        if file.format != to {
            bail!(
                "{}: --records are {} records, and convert writes onto them in their own format: \
                 pass --to {}",
                path.display(),
                file.format.name(),
                file.format.name()
            );
        }
        let mut by_key = HashMap::new();
        // Keyed by the record's id: read without building the record (its 10 KB context).
        let by_id = !matches!(
            (file.format, id_field),
            (Format::LabelStudio, _) | (Format::LabelStudioMin, Some(_))
        );
        for i in 0..file.len() {
            let key = if by_id {
                Some(file.id(i)?)
            } else {
                pick::key(&file.record(i)?, file.format, id_field)
            };
            if let Some(k) = key {
                by_key.entry(k).or_insert(i);
            }
        }
        Ok(Self { file, by_key })
    }
}

/// What a run met: the problems, the labels seen (the records went to [`Written`]).
#[derive(Default)]
struct Made {
    problems: Vec<String>,
    labels: BTreeSet<String>,
    /// Input records nobody annotated, whose originals were left as they were.
    unannotated: usize,
}

/// Convert as `args` says: warnings, problems and the summary go to standard error, as
/// `spanreview convert` prints them.
///
/// # Errors
/// Usage and I/O errors: an unreadable input, a target that cannot be made from the input
/// without `--records`, an output that cannot be written.
pub fn run(args: &ConvertOptions) -> anyhow::Result<ExitCode> {
    match run_once(args, true)? {
        Some(code) => Ok(code),
        // A record for an original written out already: the later stands, so the records
        // all wait in the spool this time.
        None => run_once(args, false)?.context("a conversion made again asked to be made again"),
    }
}

/// [`run`], records onto `--records` written straight out while in the originals' order
/// when `straight`; `None` when such a run met a record for an original written out
/// already (nothing is written: the caller runs again without `straight`).
fn run_once(args: &ConvertOptions, straight: bool) -> anyhow::Result<Option<ExitCode>> {
    check_outputs(args)?;
    let ds = Dataset::open(&args.inputs, args.format)?;
    // Interrupted while writing, the temporary files go (as export's do).
    super::cleanup::install()?;
    let from = ds.primary().format;
    check_target(args, from)?;
    let id_field = args.id_field.as_deref();
    let originals = args
        .records
        .as_deref()
        .map(|p| Originals::open(p, args.to, id_field))
        .transpose()?;
    let mut made = Made {
        problems: ds.problems.clone(),
        ..Made::default()
    };
    // A truncated array: the records after the cut are not in the output.
    for file in ds.files() {
        let path = file.path().display();
        made.problems.extend(
            (file.index.problems.iter()).map(|(line, why)| format!("{path}:{line}: {why}")),
        );
    }
    let layout = match &originals {
        Some(o) => o.file.index.layout(),
        None if matches!(args.to, Format::LabelStudio | Format::LabelStudioMin) => Layout::Array,
        None => Layout::Lines,
    };
    // Records go out as they are made; a refused run's file is removed, a stream's spool dropped.
    let mut out = Written::create(&args.out, layout)?;
    let mut placed = Placed::new(straight && originals.is_some())?;
    let pass = lean_input(args, &ds);
    for i in 0..ds.len() {
        let at = place(ds.primary(), i);
        // Read with its request and evidence left as the line has them, when that can be.
        let bytes = pass.map(|_| ds.primary().bytes(i));
        let lean = pass.zip(bytes.as_ref().and_then(|b| b.as_deref().ok()));
        let (rec, passed) = raw::record(&ds, i, lean);
        let Some((rec, spans)) = read_one(args, &ds, rec, &at, originals.is_some(), &mut made)
        else {
            continue;
        };
        if let Some(o) = &originals {
            let to = (&mut placed, &mut out);
            place_onto(args, o, from, (&rec, &spans), &at, &mut made, to)?;
            continue;
        }
        match convert(&rec, from, args.to, &spans) {
            Some(v) => push_converted(&mut out, &v, passed.as_ref(), || {
                let full = ds.record(i)?;
                Ok(convert(&full, from, args.to, &spans))
            })?,
            None => made.problems.push(format!(
                "{at}: record {}: a {} record cannot be made from it (its task data is no {} \
                 record); pass --records; not converted",
                rec.id,
                args.to.name(),
                args.to.name()
            )),
        }
    }
    if placed.must_redo() {
        return Ok(None);
    }
    if let Some(code) = refused(args, &ds, &made, out.count(), originals.is_some())? {
        return Ok(Some(code));
    }
    if let Some(o) = &originals {
        out.originals(o.file.len(), placed, |j| raw::original(&o.file, j))?;
    }
    write_made(args, &made, out, originals.is_some()).map(Some)
}

/// Refuse `--config` without `--to label-studio`, and a `--config` that is the `--out` file
/// (renamed over the tasks, it would lose them; a stream such as /dev/null is fine).
fn check_outputs(args: &ConvertOptions) -> anyhow::Result<()> {
    if crate::formats::parquet::named_parquet(&args.out) {
        bail!(
            "--out {}: convert writes JSONL or JSON, not parquet yet; name a .jsonl file \
             (export of a parquet input writes parquet, with the input's schema)",
            args.out.display()
        );
    }
    if args.config.is_some() && args.to != Format::LabelStudio {
        bail!("--config is the labeling config of --to label-studio");
    }
    if let Some(config) = &args.config {
        let file = std::fs::metadata(&args.out).map_or(true, |m| m.is_file());
        if args.out.as_os_str() != "-" && file {
            let mut out = Protected::default();
            out.add(&args.out, "the --out file");
            out.check(config, "--config")?;
        }
    }
    Ok(())
}

/// Refuse a target that records of `from` cannot be made into without `--records`.
fn check_target(args: &ConvertOptions, from: Format) -> anyhow::Result<()> {
    if args.records.is_none()
        && !BUILDS.contains(&args.to)
        && from != args.to
        && from != Format::LabelStudio
    {
        bail!(
            "{} records cannot be made from {} records: pass --records FILE of {} records to \
             write onto",
            args.to.name(),
            from.name(),
            args.to.name()
        );
    }
    Ok(())
}

/// Which members of the input's records are passed through as their lines have them
/// ([`raw::passable`]): with one input file, into a format whose writer copies them as
/// top-level members (never into a Label Studio task's `data`).
fn lean_input(args: &ConvertOptions, ds: &Dataset) -> Option<raw::Pass> {
    let one = ds.files().count() == 1;
    let to = matches!(args.to, Format::Ragtruth | Format::Prodigy);
    raw::passable(ds.primary().format, false).filter(|_| one && to)
}

/// Write `v`, a converted record read with the members `passed` passed through (or `None`);
/// should a passed member's mark have gone elsewhere in `v`, `slow` makes it again from the
/// record read the full way.
fn push_converted(
    out: &mut Written,
    v: &Value,
    passed: Option<&Passed<'_>>,
    slow: impl FnOnce() -> anyhow::Result<Option<Value>>,
) -> anyhow::Result<()> {
    let Some(passed) = passed else {
        return out.push(v);
    };
    let mut line = Vec::new();
    if passed.line(v, &mut line).is_some() {
        return out.push_json(&line);
    }
    match slow()? {
        Some(v) => out.push(&v),
        None => bail!("a record converted once could not be converted again"),
    }
}

/// Record `rec` of `ds` (at `at`) and the spans to write for it, its warnings and labels noted
/// in `made`; `None` when it is not converted (unreadable, its spans not readable, or nobody
/// annotated it while `onto_originals` or `--source` leaves such records as they are).
fn read_one(
    args: &ConvertOptions,
    ds: &Dataset,
    rec: Result<Record, crate::formats::FormatError>,
    at: &str,
    onto_originals: bool,
    made: &mut Made,
) -> Option<(Record, Vec<Span>)> {
    let from = ds.primary().format;
    let rec = match rec {
        Ok(r) => r,
        Err(e) => {
            made.problems.push(format!("{e}; not converted"));
            return None;
        }
    };
    // A joined file's warning names its own place already.
    made.problems.extend(rec.warnings.iter().map(|w| {
        if judges::from_elsewhere(ds, None, w) {
            w.clone()
        } else {
            format!("{at}: {w}")
        }
    }));
    let spans = match pick::spans(&rec, from, args.to, args.source.as_deref()) {
        Ok(Some(s)) => s,
        // Nobody annotated it (or not the annotator --source names): an original record
        // keeps its own spans, and another annotator's JSON_MIN row is left out.
        Ok(None) if onto_originals || args.source.is_some() => {
            made.unannotated += 1;
            return None;
        }
        Ok(None) => Vec::new(),
        Err(e) => {
            made.problems.push(format!("{at}: {e}; not converted"));
            return None;
        }
    };
    // The labeling config lists every label a task shows: all sources are predictions.
    let shown = if args.to == Format::LabelStudio {
        &rec.sources[..]
    } else {
        &[]
    };
    let labels = spans.iter().chain(shown.iter().flat_map(|s| &s.spans));
    made.labels
        .extend(labels.map(|s| s.label.clone()).filter(|l| !l.is_empty()));
    Some((rec, spans))
}

/// `spans` written onto the original of `rec` (`--records`), into `placed` by the original's
/// position (or straight to `out`); a record without a key, or whose key no original has, is a
/// problem.
fn place_onto(
    args: &ConvertOptions,
    o: &Originals,
    from: Format,
    (rec, spans): (&Record, &[Span]),
    at: &str,
    made: &mut Made,
    (placed, out): (&mut Placed, &mut Written),
) -> anyhow::Result<()> {
    let id_field = args.id_field.as_deref();
    let Some(k) = pick::key(rec, from, id_field) else {
        made.problems.push(format!(
            "{at}: record {}: no id field {:?}; not placed",
            rec.id,
            id_field.unwrap_or("id")
        ));
        return Ok(());
    };
    let Some(&j) = o.by_key.get(&k) else {
        made.problems.push(format!(
            "{at}: id {k:?} is not in {}; not placed",
            o.file.path().display()
        ));
        return Ok(());
    };
    let line = onto_original(args.to, &o.file, j, spans)?;
    if placed.put_json(j, &line, out)? {
        made.problems.push(format!(
            "{at}: id {k:?} again (JSON_MIN: another annotator's row? pass --source \
             annotator_<id>); this later record stands"
        ));
    }
    Ok(())
}

/// Whether nothing is written (each problem told): no record converted at all, or problems
/// without `--lenient`; the exit code then.
///
/// # Errors
/// No record was converted.
fn refused(
    args: &ConvertOptions,
    ds: &Dataset,
    made: &Made,
    converted: usize,
    onto_originals: bool,
) -> anyhow::Result<Option<ExitCode>> {
    // Records neither converted nor left out as unannotated failed, each reported: when that is
    // every one, there is nothing to write over an existing output (onto --records, the
    // originals would still be written, untouched).
    if !onto_originals && converted == 0 && ds.len() > made.unannotated {
        for p in &made.problems {
            to_stderr!("{p}");
        }
        bail!(
            "none of the {} records was converted (each reported above); nothing written to {}",
            ds.len() - made.unannotated,
            args.out.display()
        );
    }
    // Nothing changed silently: a problem means the output would not say what the input does
    // (a span skipped, a label lost, a record left out, a region kept as given that no reader
    // takes), so it is written only when --lenient asks, each problem listed with its record.
    if !made.problems.is_empty() && !args.lenient {
        for p in &made.problems {
            to_stderr!("{p}");
        }
        to_stderr!(
            "{} problems (each above): nothing written to {}; fix the input, or pass --lenient \
             to write it with the changes listed",
            made.problems.len(),
            args.out.display()
        );
        return Ok(Some(ExitCode::from(1)));
    }
    Ok(None)
}

/// Finish the output, write the labeling config, tell the problems and the summary; exit 1
/// when there were problems.
fn write_made(
    args: &ConvertOptions,
    made: &Made,
    out: Written,
    onto_originals: bool,
) -> anyhow::Result<ExitCode> {
    let count = out.count();
    let xml =
        (args.to == Format::LabelStudio && !onto_originals).then(|| tasks::config(&made.labels));
    // A stream's reader that went away (`--out /dev/stdout | head`) ends it quietly, unwritten.
    write_out(args, out, xml.as_deref()).map_err(closed_pipe_of)?;
    for p in &made.problems {
        to_stderr!("{p}");
    }
    let left = if made.unannotated > 0 {
        let what = if onto_originals {
            "their records left as they were"
        } else {
            "left out"
        };
        format!(
            "; {} not annotated in the input, or not by --source: {what}",
            made.unannotated
        )
    } else {
        String::new()
    };
    to_stderr!(
        "{count} records written as {} to {} ({} problems{left})",
        args.to.name(),
        args.out.display(),
        made.problems.len()
    );
    Ok(if made.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `FILE:LINE` of record `i`, with its place in a JSON array (an export is often one line).
fn place(file: &DataFile, i: usize) -> String {
    let at = format!("{}:{}", file.path().display(), file.line(i));
    match file.index.layout() {
        Layout::Array => format!("{at} (element {})", i + 1),
        Layout::Lines => at,
        Layout::Parquet => match file.index.parquet_rows() {
            Some(rows) => format!("{at} ({})", rows.place(file.line(i))),
            None => at,
        },
    }
}

/// `spans` written onto `original`, a record of `to` whose own spans are `own`: those keep
/// their objects.
fn onto(to: Format, original: &Value, own: &[Span], spans: &[Span]) -> Value {
    to.write(original, &pick::carry(own, spans), None)
}

/// [`onto`] a record of `to` not parsed yet: its own spans read from it (none when it does
/// not read as one).
fn onto_value(to: Format, original: &Value, spans: &[Span]) -> Value {
    let own = to
        .parse(original.clone(), "")
        .map(|r| r.gold_spans().to_vec())
        .unwrap_or_default();
    onto(to, original, &own, spans)
}

/// `spans` written onto record `j` of `file`, read once (a record of `to`), as its JSON
/// text: the spans it already has keep their objects; one that does not read as a record has
/// none. The members its writer leaves alone are passed through ([`raw::passable`]).
fn onto_original(to: Format, file: &DataFile, j: usize, spans: &[Span]) -> anyhow::Result<Vec<u8>> {
    let bytes = file.bytes(j)?;
    let mut line = Vec::new();
    let lean = raw::passable(to, true).and_then(|pass| Passed::read(&bytes, pass));
    if let Some((value, passed)) = lean {
        if let Ok(r) = to.parse(value, &file.source) {
            let v = onto(to, &r.raw, r.gold_spans(), spans);
            if passed.line(&v, &mut line).is_some() {
                return Ok(line);
            }
        }
    }
    let v = match file.record_in(j, &bytes) {
        Ok(r) => onto(to, &r.raw, r.gold_spans(), spans),
        Err(_) => onto(to, &file.value(j)?, &[], spans),
    };
    Ok(serde_json::to_vec(&v)?)
}

/// `rec` (read as `from`) as a record of `to` carrying `spans`; `None` when there is no record
/// of `to` to write onto and none can be made.
fn convert(rec: &Record, from: Format, to: Format, spans: &[Span]) -> Option<Value> {
    if from == to {
        // Read as `to` already: its own spans are the record's gold.
        return Some(onto(to, &rec.raw, rec.gold_spans(), spans));
    }
    if from == Format::LabelStudio {
        if let Some((f, data)) = tasks::record_of(&rec.raw) {
            if f == to {
                return Some(onto_value(to, &data, spans));
            }
        }
    }
    let fresh = pick::carry(&[], spans);
    match to {
        Format::LabelStudio => Some(tasks::task(rec, from)),
        Format::Prodigy => Some(to.write(&prodigy::build(rec), &fresh, None)),
        Format::Ragtruth => {
            let mut r = json!({"id": rec.id, "query": rec.query, "context": rec.context,
                               "output": rec.output, "hallucination_labels": []});
            if let Some(t) = &rec.corruption_type {
                r["meta"] = json!({"corruption_type": t});
            }
            Some(to.write(&r, &fresh, None))
        }
        _ => None,
    }
}

/// Finish `out` (the records, already written as they were made) and write the labeling
/// config `xml` to `--config` or standard output, as `export` writes its files ([`AtomicFile`]:
/// beside them and renamed over, all or none, so a failed run leaves the old ones; through a
/// link; a stream in place). The config goes to standard output before anything is renamed:
/// when that fails, nothing is replaced.
fn write_out(args: &ConvertOptions, out: Written, xml: Option<&str>) -> anyhow::Result<()> {
    let mut files: Vec<(AtomicFile, &str)> =
        out.finish()?.map(|f| (f, "--out")).into_iter().collect();
    if let Some((dest, xml)) = args.config.as_ref().zip(xml) {
        if dest.as_os_str() == "-" {
            write_stdout_whole(xml.as_bytes())?;
        } else {
            let mut file = AtomicFile::create(dest)?;
            file.writer()
                .and_then(|w| std::io::Write::write_all(w, xml.as_bytes()))
                .with_context(|| format!("writing {}", dest.display()))?;
            files.push((file, "--config"));
        }
    }
    match (xml, &args.config) {
        (Some(xml), None) if args.out.as_os_str() != "-" => {
            write_stdout_whole(xml.as_bytes())?;
        }
        (Some(_), None) => to_stderr!(
            "the labeling config is not printed (the tasks are on standard output): pass \
             --config OUT.xml"
        ),
        _ => {}
    }
    persist_all(files, None)
}
