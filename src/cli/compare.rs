//! `spanreview compare`: agreement of two annotation sources over the same records.
//!
//! The files are opened as one dataset (a records file and prediction files joined by `id`).
//! A (the reference, default `gold`) is compared with each B (default: every other source), and
//! one row or JSON object is printed per comparison. The numbers come from
//! [`crate::review::metrics`], label-blind and label-aware. `--alpha` adds Krippendorff's alpha
//! among the B sources ([`crate::review::alpha`]; A, the reference, is not a coder: gold is often
//! made from the others, as Mu-SHROOM's hard labels are the annotators' majority).

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{json, Map, Value};

use super::judge_args::{self, JudgeArgs};
use super::to_stderr;
use crate::formats::judges::{self, Judges, SpanReader};
use crate::formats::{Dataset, Format};
use crate::model::width::{self as text, pad};
use crate::model::{Record, Span, GOLD};
use crate::review::alpha::{Alpha, AlphaScores};
use crate::review::metrics::{Agreement, Comparison, RecordComparison};

/// Arguments of `spanreview compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Records and prediction files, joined by `id` (the first file with answer text leads).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
    /// The reference source.
    #[arg(long, value_name = "SOURCE", default_value = GOLD)]
    pub a: String,
    /// The source compared with A; repeat for several. Default: every source other than A.
    #[arg(long, value_name = "SOURCE")]
    pub b: Vec<String>,
    /// Add a row per corruption type under each comparison.
    #[arg(long)]
    pub by_type: bool,
    /// Add a row per span label (with category and subcategory) under each comparison: the
    /// spans with that label only, over every record.
    #[arg(long)]
    pub by_label: bool,
    /// Also report Krippendorff's alpha (nominal, per code point, label-blind and label-aware)
    /// among the B sources (at least two); a source absent from a record is a missing value.
    #[arg(long)]
    pub alpha: bool,
    /// Print one JSON object per comparison (always with `by_type` and `by_label`) instead of
    /// the table; with `--alpha`, a last line `{"alpha": {...}}`.
    #[arg(long)]
    pub json: bool,
    /// Read every file in this format instead of detecting it.
    #[arg(long, value_enum, value_name = "F")]
    pub format: Option<Format>,
    /// More sources by `--judge NAME=FILE` (a judge's decisions are compared through the spans
    /// its verdicts stand for). The numbers are exact characters: `--tolerance` and
    /// `--ignore-edge-punct` only matter to clustering.
    #[command(flatten)]
    pub judges: JudgeArgs,
}

/// One comparison being accumulated.
struct Pair {
    b: String,
    comparison: Comparison,
}

/// Run the subcommand.
///
/// # Errors
/// Files that cannot be opened, an unknown source name, or nothing to compare (exit 2).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dataset = Dataset::open(&args.files, args.format)?;
    for p in &dataset.problems {
        to_stderr!("{p}");
    }
    if dataset.is_empty() {
        let names: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
        anyhow::bail!(
            "{}: no record to compare: the file holds none",
            names.join(", ")
        );
    }
    let (judges, notes) = args.judges.load(&dataset, &dataset.name, None)?;
    judge_args::tell(&notes);
    let mut pairs: Vec<Pair> = args
        .b
        .iter()
        .map(|b| Pair {
            b: b.clone(),
            comparison: Comparison::default(),
        })
        .collect();
    let mut seen: Vec<String> = Vec::new();
    let mut alpha = Alpha::default();
    let mut read = 0usize;
    let mut unreadable = 0usize;
    // The per-label rows are the costliest figures: computed only where they are printed.
    let by_label = args.by_label || args.json;
    // Nothing here needs a record's context or query (the bulk of a line): read without them
    // when every file's format allows, keeping the `meta` that holds a RAGTruth corruption type.
    let reader =
        judges::skimmable(&dataset).then(|| SpanReader::new(&dataset).keeping(&["meta"]).lite());
    let work = |i: usize| -> Read {
        let record = reader
            .as_ref()
            .map_or_else(|| dataset.record(i), |r| r.record(i))
            .map(|mut record| {
                judges.attach(&mut record);
                judges::judges_as_spans(&mut record);
                record
            });
        let compared = record
            .as_ref()
            .map(|r| compare_record(r, &args, by_label))
            .unwrap_or_default();
        Read {
            i,
            record,
            compared,
        }
    };
    super::par::ordered(dataset.len(), work, |r| {
        let record = match r.record {
            Ok(r) => r,
            Err(e) => {
                to_stderr!("{e}");
                unreadable += 1;
                return;
            }
        };
        read += 1;
        report_warnings(&dataset, &judges, r.i, &record);
        for s in &record.sources {
            if !seen.contains(&s.name) {
                seen.push(s.name.clone());
            }
        }
        if args.b.is_empty() {
            for s in &record.sources {
                if s.name != args.a && !pairs.iter().any(|p| p.b == s.name) {
                    pairs.push(Pair {
                        b: s.name.clone(),
                        comparison: Comparison::default(),
                    });
                }
            }
        }
        let mut compared = r.compared;
        for p in &mut pairs {
            if let Some(k) = compared.iter().position(|(b, _)| *b == p.b) {
                let (_, c) = compared.swap_remove(k);
                p.comparison
                    .add_computed(record.corruption_type.as_deref(), c);
            }
        }
        if args.alpha {
            let coders: Vec<(&str, &[Span])> = record
                .sources
                .iter()
                .filter(|s| {
                    if args.b.is_empty() {
                        s.name != args.a
                    } else {
                        args.b.contains(&s.name)
                    }
                })
                .map(|s| (s.name.as_str(), s.spans.as_slice()))
                .collect();
            alpha.add_record(crate::model::offsets::char_len(&record.output), &coders);
        }
    });
    if unreadable > 0 {
        to_stderr!("{unreadable} record(s) could not be read and were skipped");
    }

    let available = if seen.is_empty() {
        "(none: no record could be read)".to_owned()
    } else {
        seen.join(", ")
    };
    for (flag, name) in std::iter::once(("--a", &args.a)).chain(args.b.iter().map(|b| ("--b", b))) {
        if !seen.contains(name) {
            anyhow::bail!("{flag}: unknown source \"{name}\"; the files hold: {available}");
        }
    }
    if pairs.is_empty() {
        anyhow::bail!(
            "nothing to compare \"{}\" with; the files hold: {available} \
             (give a prediction file, or --b)",
            args.a
        );
    }
    let alpha = args.alpha.then(|| alpha.scores());
    if let Some(al) = &alpha {
        if pairs.len() < 2 {
            anyhow::bail!(
                "--alpha needs at least two sources besides \"{}\" (the reference is not a \
                 coder); the files hold: {available}",
                args.a
            );
        }
        if al.records == 0 {
            to_stderr!("alpha: no record has two of the sources; alpha is undefined");
        }
    }
    for p in &pairs {
        let left_out = read - p.comparison.overall.records;
        if left_out > 0 {
            to_stderr!(
                "{} vs {}: {left_out} of {read} record(s) lack one of the two sources and were left out",
                args.a, p.b
            );
        }
        let o = &p.comparison.overall;
        if o.invalid_a + o.invalid_b > 0 {
            to_stderr!(
                "{} vs {}: invalid spans (empty, reversed or past the end of the answer; clamped): \
                 {} in {}, {} in {}",
                args.a, p.b, o.invalid_a, args.a, o.invalid_b, p.b
            );
        }
    }

    let mut out = String::new();
    if args.json {
        for p in &pairs {
            let line = comparison_json(&args.a, &p.b, &p.comparison, read, unreadable);
            out.push_str(&crate::model::escape::json(&line.to_string()));
            out.push('\n');
        }
        if let Some(al) = &alpha {
            out.push_str(&crate::model::escape::json(
                &json!({ "alpha": al }).to_string(),
            ));
            out.push('\n');
        }
    } else {
        let groups = Groups {
            by_type: args.by_type,
            by_label: args.by_label,
        };
        let table = table(&args.a, &pairs, groups);
        out.push_str(&crate::model::escape::lines(&table));
        if let Some(al) = &alpha {
            out.push_str(&crate::model::escape::lines(&alpha_line(al)));
        }
    }
    // A reader that stops early (`| head`) is no error; a full disk says standard output.
    super::write_stdout(out.as_bytes())
}

/// One record as read on a worker thread, with its comparisons.
struct Read {
    /// Its index in the dataset.
    i: usize,
    record: Result<Record, crate::formats::FormatError>,
    /// A against each B the record has (every source but A when no `--b` is given), by name.
    compared: Vec<(String, RecordComparison)>,
}

/// `record`'s A against each of its B sources (none when it lacks A): what
/// [`Comparison::add_record`] would add for each pair.
fn compare_record(record: &Record, args: &Args, by_label: bool) -> Vec<(String, RecordComparison)> {
    let Some(a) = record.source(&args.a) else {
        return Vec::new();
    };
    let mut out: Vec<(String, RecordComparison)> = Vec::new();
    for s in &record.sources {
        let wanted = if args.b.is_empty() {
            s.name != args.a
        } else {
            args.b.contains(&s.name)
        };
        if !wanted || out.iter().any(|(b, _)| *b == s.name) {
            continue;
        }
        // The first source of that name, as `Record::source` finds it.
        let Some(b) = record.source(&s.name) else {
            continue;
        };
        let c = RecordComparison::new(&record.output, &a.spans, &b.spans, by_label);
        out.push((s.name.clone(), c));
    }
    out
}

/// Print a record's reader warnings as `FILE:LINE: message` (warnings from a joined or a
/// `--judge` file already name their own file and line).
fn report_warnings(dataset: &Dataset, judges: &Judges, i: usize, record: &Record) {
    let primary = dataset.primary();
    for w in &record.warnings {
        if judges::from_elsewhere(dataset, Some(judges), w) {
            to_stderr!("{w}");
        } else {
            to_stderr!(
                "{}:{}: {} ({})",
                primary.path().display(),
                primary.line(i),
                w,
                record.id
            );
        }
    }
}

/// One comparison as a JSON object. `read` records were read, `unreadable` could not be.
fn comparison_json(a: &str, b: &str, c: &Comparison, read: usize, unreadable: usize) -> Value {
    let by_type: Map<String, Value> = c
        .by_type
        .iter()
        .map(|(t, ag)| (t.clone(), json!(ag.scores())))
        .collect();
    let by_label: Map<String, Value> = c
        .by_label()
        .iter()
        .map(|(l, ag)| (l.clone(), json!(ag.scores())))
        .collect();
    json!({
        "a": a,
        "b": b,
        "records": c.overall.records,
        "left_out": read - c.overall.records,
        "unreadable": unreadable,
        "overall": c.overall.scores(),
        "by_type": by_type,
        "by_label": by_label,
    })
}

/// Which rows go under each comparison.
#[derive(Debug, Clone, Copy)]
struct Groups {
    by_type: bool,
    by_label: bool,
}

/// The readable table: a row per comparison, and per type and label under it when asked.
fn table(a: &str, pairs: &[Pair], groups: Groups) -> String {
    let mut rows: Vec<(String, Agreement)> = Vec::new();
    for p in pairs {
        let name = format!("{a} vs {}", p.b);
        rows.push((
            crate::model::escape::line(&name).into_owned(),
            p.comparison.overall.clone(),
        ));
        if groups.by_type {
            for (t, ag) in &p.comparison.by_type {
                rows.push((format!("  {}", crate::model::escape::line(t)), ag.clone()));
            }
        }
        if groups.by_label {
            for (l, ag) in p.comparison.by_label() {
                rows.push((format!("  label {}", crate::model::escape::line(&l)), ag));
            }
        }
    }
    let width = rows
        .iter()
        .map(|(l, _)| text::width(l))
        .chain(std::iter::once("comparison".len()))
        .max()
        .unwrap_or(0);
    let mut s = String::new();
    s.push_str(&pad("comparison", width));
    s.push_str(&format!(
        " {:>7} {:>8} {:>8} {:>8} {:>6} {:>6} {:>6} │ {:>6} {:>6} {:>6} │ {:>6} {:>5} {:>6} │ {:>6} {:>6}\n",
        "records", "char tp", "fp", "fn", "P", "R", "F1", "ex P", "R", "F1", "IoU", "n", "kappa",
        "lbl F1", "kappa"
    ));
    for (label, ag) in rows {
        let sc = ag.scores();
        let (c, e) = (sc.char_level, sc.example_level);
        s.push_str(&pad(&label, width));
        s.push_str(&format!(
            " {:>7} {:>8} {:>8} {:>8} {:>6.4} {:>6.4} {:>6.4} │ {:>6.4} {:>6.4} {:>6.4} │ {:>6} {:>5} {:>6} │ {:>6.4} {:>6}\n",
            sc.records,
            c.tp,
            c.fp,
            c.fn_,
            c.precision,
            c.recall,
            c.f1,
            e.precision,
            e.recall,
            e.f1,
            super::score4(sc.mean_iou),
            sc.iou_records,
            super::score4(sc.kappa),
            sc.char_level_labeled.f1,
            super::score4(sc.kappa_labeled),
        ));
    }
    s.push_str(
        "\nchar: code points covered by any span; ex: a record is positive when a span covers \
         a character;\nIoU: mean over the n records where A or B marks something; kappa: over \
         every character (- when undefined);\nlbl: label-aware, a character agrees only where \
         both give it the same labels (relabeled: fp and fn); its kappa counts each label set and \
         \"no span\" as categories\n",
    );
    s
}

/// The `--alpha` summary.
fn alpha_line(al: &AlphaScores) -> String {
    let coders = if al.coders.len() <= 6 {
        format!(": {}", al.coders.join(", "))
    } else {
        String::new()
    };
    format!(
        "\nKrippendorff's alpha (nominal, per character) among {} sources{coders}\nover {} \
         characters of {} records with two or more of them: label-blind {}, label-aware {}\n",
        al.coders.len(),
        al.units,
        al.records,
        super::score4(al.blind),
        super::score4(al.labeled),
    )
}
