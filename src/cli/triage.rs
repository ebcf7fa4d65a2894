//! `spanreview triage`: deterministic checks of every record's labeled spans against its
//! evidence ([`crate::review::triage`]) and the label set, one `flag` decision per finding in
//! the shape `apply` takes (`reason` = `CODE: explanation`), so a triage pass is brought into a
//! review with `apply` and walked with `review --queue flagged`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::{json, Value};

use super::to_stderr;
use crate::export::{persist_all, AtomicFile, Protected};
use crate::formats::validate::LabelSet;
use crate::formats::{Dataset, Format};
use crate::model::{Record, Span, CLEAN};
use crate::review::triage::{self, Code, Finding};

/// Arguments of `spanreview triage`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The records to check (joined files: the leading one's records and labels).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
    /// Where the flags go, one JSON object per line (`-`: standard output).
    #[arg(long, value_name = "FLAGS.jsonl")]
    pub out: PathBuf,
    /// The reviewer the flags are saved under.
    #[arg(long, value_name = "R", default_value = "triage")]
    pub reviewer: String,
    /// The dataset the flags are on (default: the first file's stem, as review names it).
    #[arg(long, value_name = "NAME")]
    pub dataset: Option<String>,
    /// Add the labels of a taxonomy for the `taxonomy` check, as `validate --labels` takes
    /// it (a file, `toolace` or `lettucedetect`; a format's own set is always in). Repeatable.
    #[arg(long, value_name = "FILE|NAME")]
    pub labels: Vec<String>,
    /// Read every file in this format instead of detecting it.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Run the subcommand.
///
/// # Errors
/// Usage and I/O errors: an unreadable input or taxonomy, an output that cannot be written.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut set = super::validate::label_set(&args.labels)?;
    let ds = Dataset::open(&args.files, args.format)?;
    if let Some(name) = ds.primary().format.spec().builtin_labels {
        set.extend(&LabelSet::builtin(name).unwrap_or_default());
    }
    let dataset = args.dataset.clone().unwrap_or_else(|| ds.name.clone());
    let stdout = args.out.as_os_str() == "-";
    let mut file = if stdout {
        None
    } else {
        let mut inputs = Protected::default();
        for f in &args.files {
            inputs.add(f, "the input file");
        }
        inputs.check(&args.out, "--out")?;
        crate::export::cleanup::install()?;
        Some(AtomicFile::create(&args.out)?)
    };
    // The machine's two cores each check half the records; the flags are written in file
    // order.
    let half = ds.len().div_ceil(2);
    let parts: Vec<anyhow::Result<Part>> = std::thread::scope(|scope| {
        let run = |range: std::ops::Range<usize>| {
            let (ds, set, dataset, reviewer) = (&ds, &set, &dataset, &args.reviewer);
            scope.spawn(move || check_range(ds, range, set, dataset, reviewer))
        };
        let handles = [run(0..half), run(half..ds.len())];
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a triage thread panicked")))
            })
            .collect()
    });
    let mut by_code: BTreeMap<Code, usize> = BTreeMap::new();
    let (mut flagged, mut unreadable) = (0usize, 0usize);
    for part in parts {
        let mut part = part?;
        for e in &part.errors {
            to_stderr!("{e}");
        }
        unreadable += part.errors.len();
        flagged += part.flagged;
        for (c, n) in part.by_code {
            *by_code.entry(c).or_default() += n;
        }
        emit(file.as_mut(), &mut part.lines)?;
    }
    if let Some(f) = file {
        persist_all(vec![(f, "--out")], None)?;
    }
    let findings: usize = by_code.values().sum();
    let summary = if args.json {
        let codes: serde_json::Map<String, Value> = Code::ALL
            .iter()
            .map(|c| {
                (
                    c.name().to_owned(),
                    json!(by_code.get(c).copied().unwrap_or(0)),
                )
            })
            .collect();
        format!(
            "{}\n",
            json!({"records": ds.len(), "unreadable": unreadable, "flagged_records": flagged,
                   "findings": findings, "by_code": codes})
        )
    } else {
        let mut s = format!(
            "{findings} finding{} in {flagged} of {} records\n",
            if findings == 1 { "" } else { "s" },
            ds.len()
        );
        for c in Code::ALL {
            let n = by_code.get(&c).copied().unwrap_or(0);
            s.push_str(&format!("  {:<21} {n:>6}  {}\n", c.name(), c.describe()));
        }
        s
    };
    // Flags on standard output: the summary goes to standard error.
    if stdout {
        to_stderr!("{}", summary.trim_end());
    } else {
        super::write_stdout(summary.as_bytes())?;
    }
    Ok(if unreadable > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What one thread found in its range of records.
#[derive(Default)]
struct Part {
    lines: Vec<u8>,
    by_code: BTreeMap<Code, usize>,
    flagged: usize,
    errors: Vec<String>,
}

/// Check the records `range` of `ds`: their flag lines, in file order, and the counts.
fn check_range(
    ds: &Dataset,
    range: std::ops::Range<usize>,
    set: &LabelSet,
    dataset: &str,
    reviewer: &str,
) -> anyhow::Result<Part> {
    let mut part = Part::default();
    for i in range {
        // Only what the checks read: the evidence when they look in it, the request and the
        // evidence for a record's hash when it is flagged.
        let read = ds.primary().with_partial(i, |p| {
            if triage::reads_context(p.record()) {
                p.with_context()?;
            }
            let mut found = triage::check(p.record());
            found.extend(taxonomy(p.record(), set));
            found.sort_by_key(|f| (f.span, f.code));
            let hash = if found.is_empty() {
                String::new()
            } else {
                p.whole()?.content_hash()
            };
            Ok((p.record().id.clone(), hash, found))
        });
        let (id, hash, found) = match read {
            Ok(r) => r,
            Err(e) => {
                part.errors.push(e.to_string());
                continue;
            }
        };
        part.flagged += usize::from(!found.is_empty());
        for f in &found {
            *part.by_code.entry(f.code).or_default() += 1;
            serde_json::to_writer(&mut part.lines, &flag(&id, &hash, dataset, reviewer, f))?;
            part.lines.push(b'\n');
        }
    }
    Ok(part)
}

/// Write the buffered flag lines to the output file or standard output.
fn emit(file: Option<&mut AtomicFile>, lines: &mut Vec<u8>) -> anyhow::Result<()> {
    match file {
        Some(f) => {
            let dest = f.dest().display().to_string();
            f.writer()
                .and_then(|w| w.write_all(lines))
                .with_context(|| format!("writing {dest}"))?;
        }
        None => super::write_stdout_whole(lines)?,
    }
    lines.clear();
    Ok(())
}

/// The `flag` decision of a finding on record `id` (whose content hash is `hash`), as `apply` takes it (no `time`: a rerun gives the same
/// line, which `apply` adds once).
fn flag(id: &str, hash: &str, dataset: &str, reviewer: &str, f: &Finding) -> Value {
    let mut d = json!({
        "dataset": dataset,
        "reviewer": reviewer,
        "record_id": id,
        "record_hash": hash,
        "action": "flag",
        "flag_on": true,
        "reason": format!("{}: {}", f.code.name(), f.explanation),
    });
    if let Some(i) = f.span {
        d["span_key"] = json!(format!("gold:{i}"));
    }
    d
}

/// The `taxonomy` findings: a span's category not in the label set (or one only a record
/// carries), a subcategory its category does not list, a label unknown to the set.
fn taxonomy(record: &Record, set: &LabelSet) -> Vec<Finding> {
    let why = |s: &Span| -> Option<String> {
        if let Some(c) = s.category.as_deref() {
            if set.is_record_only(c) || !set.has_category(c) {
                return Some(format!(
                    "category \"{c}\" is not a span category ({})",
                    set.describe_categories()
                ));
            }
        } else if s.label == CLEAN || (!s.label.is_empty() && !set.has_label(&s.label)) {
            return Some(format!("label \"{}\" is not in the label set", s.label));
        }
        let sub = s.subcategory.as_deref()?;
        (!set.has_subcategory(s.category.as_deref(), sub)).then(|| {
            let under = s.category.as_deref().unwrap_or("any category");
            format!("subcategory \"{sub}\" is not listed under \"{under}\"")
        })
    };
    record
        .gold_spans()
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            why(s).map(|explanation| Finding {
                code: Code::Taxonomy,
                span: Some(i),
                explanation,
            })
        })
        .collect()
}
