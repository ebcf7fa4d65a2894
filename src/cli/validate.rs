//! `spanreview validate`: report every problem of every record, then a summary.
//!
//! Output: one line `FILE:LINE: message` per problem (the message quotes the offending value),
//! in file and line order, then a summary (records by corruption type, problems by kind); with
//! `--json`, one JSON object per problem and a summary object. Exit 0 when there is no
//! problem, 1 when there are problems, 2 on usage or I/O errors.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;

use crate::formats::validate::{self, Input, LabelSet, Options, Report};
use crate::formats::Format;
use crate::model::escape;

/// Arguments of `spanreview validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files to check (JSONL or a JSON array; the format is detected per file).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Accept records that carry no labels whatever their type (by default only `clean`
    /// records may be unlabeled; a clean record must carry no labels either way).
    #[arg(long)]
    pub allow_clean: bool,
    /// Read every file in this format instead of detecting it.
    #[arg(long, value_enum, value_name = "F")]
    pub format: Option<Format>,
    /// Add the labels of a taxonomy: a TOML file (`labels = [...]`,
    /// `[categories.NAME] subcategories = [...]`) or a built-in name (`toolace`,
    /// `lettucedetect`). Repeatable. The default set is clean, contradiction, missing_tool,
    /// overgeneration; lettuce files also accept the LettuceDetect taxonomy.
    #[arg(long, value_name = "FILE")]
    pub labels: Vec<String>,
    /// Require every label to equal the record's corruption type.
    #[arg(long)]
    pub strict: bool,
    /// Print one JSON object per problem and a summary object.
    #[arg(long)]
    pub json: bool,
}

/// The default label set widened by each `--labels` taxonomy (a file, or a built-in name).
///
/// # Errors
/// A taxonomy file that cannot be read or is not a taxonomy.
pub fn label_set(names: &[String]) -> anyhow::Result<LabelSet> {
    let mut labels = LabelSet::toolace();
    for l in names {
        // A file of that name wins over a built-in taxonomy of the same name.
        let set = match (std::path::Path::new(l).exists(), LabelSet::builtin(l)) {
            (false, Some(s)) => s,
            _ => {
                let text = std::fs::read_to_string(l)
                    .with_context(|| format!("{l}: cannot read the label taxonomy"))?;
                LabelSet::from_toml(&text)
                    .map_err(|e| anyhow::anyhow!("{l}: not a label taxonomy: {e}"))?
            }
        };
        labels.extend(&set);
    }
    Ok(labels)
}

/// Run the subcommand.
///
/// # Errors
/// Usage and I/O errors: an unreadable file or taxonomy, a file whose format cannot be told.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let labels = label_set(&args.labels)?;
    let files = args
        .files
        .iter()
        .map(|p| Input::open(p, args.format))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = Options {
        labels,
        strict: args.strict,
        allow_clean: args.allow_clean,
    };
    let report = validate::validate(&files, &opts)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let printed = if args.json {
        print_json(&mut out, &report)
    } else {
        print_text(&mut out, &report)
    }
    .and_then(|()| out.flush());
    // A reader that stops early (`| head`) is not an error; a full disk says standard output.
    super::printed(printed)?;
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn counts<K: std::fmt::Display>(m: impl IntoIterator<Item = (K, usize)>) -> String {
    let parts: Vec<String> = m.into_iter().map(|(k, n)| format!("{k} {n}")).collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(", ")
    }
}

fn print_text(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    // Every line goes through the terminal escaping: paths, ids and types come from the files.
    let mut put = |line: String| writeln!(out, "{}", escape::line(&line));
    for p in &report.problems {
        let path = report.files[p.file].path.display();
        put(format!("{path}:{}: {}", p.line, p.message))?;
    }
    let nfiles = report.files.len();
    let formats = counts(report.files.iter().map(|f| {
        (
            format!("{} ({})", f.path.display(), f.format.name()),
            f.records,
        )
    }));
    put(format!(
        "summary: {} records in {nfiles} file{}: {formats}",
        report.records(),
        if nfiles == 1 { "" } else { "s" },
    ))?;
    put(format!(
        "  records by corruption type: {}",
        counts(report.by_type.iter().map(|(k, n)| (k, *n)))
    ))?;
    put(format!("  problems by kind: {}", counts(report.by_kind())))?;
    put(format!(
        "  {} problems in {} records",
        report.problems.len(),
        report.records_with_problems()
    ))
}

fn print_json(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    for p in &report.problems {
        let v = json!({
            "file": report.files[p.file].path.display().to_string(),
            "line": p.line,
            "kind": p.kind.name(),
            "message": p.message,
        });
        writeln!(out, "{}", escape::json(&v.to_string()))?;
    }
    let files: Vec<_> = report
        .files
        .iter()
        .map(|f| {
            json!({"file": f.path.display().to_string(), "format": f.format.name(), "records": f.records})
        })
        .collect();
    let v = json!({
        "summary": {
            "files": files,
            "records": report.records(),
            "records_with_problems": report.records_with_problems(),
            "by_corruption_type": report.by_type,
            "problems": report.problems.len(),
            "by_kind": report.by_kind(),
        }
    });
    writeln!(out, "{}", escape::json(&v.to_string()))
}
