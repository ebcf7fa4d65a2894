//! `spanreview decisions`: print the decision log, as a table or one JSON object per decision.
//!
//! A read command: it never creates a database (a missing one is an error, exit 2).

use std::io::{self, Write};
use std::process::ExitCode;

use super::db_args::{no_decisions, DbArgs};
use super::to_stderr;
use crate::model::escape;
use crate::model::width::{self as text, pad};
use crate::review::decision::{ActionKind, Decision, SpanValue};
use crate::review::rubric::Rubric;
use crate::store::Store;

/// Arguments of `spanreview decisions`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("dataset", |a| a.help("Only decisions on this dataset")))]
pub struct Args {
    /// The database and, as a filter, the dataset.
    #[command(flatten)]
    pub db: DbArgs,
    /// Only this reviewer's decisions.
    #[arg(long, value_name = "R")]
    pub reviewer: Option<String>,
    /// Print one JSON object per decision (the log's own fields and its origin) instead of the
    /// table.
    #[arg(long)]
    pub json: bool,
    /// Show each reason's code with its description from this rubric in the table
    /// (`V1 (span text is supported by the context): note`); --json keeps the reason as logged.
    #[arg(long, value_name = "FILE.toml")]
    pub rubric: Option<std::path::PathBuf>,
}

/// Run the subcommand.
///
/// # Errors
/// No database at the path, a database that cannot be read, or stdout failing (exit 2).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let rubric = args
        .rubric
        .as_deref()
        .map(crate::formats::rubric::read)
        .transpose()?;
    let path = args.db.db_path();
    let store = Store::open_existing(&path)?;
    let rows = store.decisions_with_origin(args.db.dataset.as_deref(), args.reviewer.as_deref())?;
    let log: Vec<Decision> = rows.iter().map(|(d, _)| d.clone()).collect();
    if let Some(ds) = args.db.dataset.as_deref().filter(|_| log.is_empty()) {
        let known = store.datasets()?;
        if !known.iter().any(|k| k == ds) {
            to_stderr!("warning: {}", no_decisions(&path, ds, &known));
        }
    }
    let out = io::stdout().lock();
    let written = if args.json {
        write_json(out, &rows)
    } else {
        write_table(out, &log, rubric.as_ref())
    };
    // `spanreview decisions | head` is fine; a full disk says standard output.
    super::printed(written)?;
    Ok(ExitCode::SUCCESS)
}

/// A decision as `--json` prints it: the log's fields and the row's origin (what `apply`
/// recognises to add a decision once however often it is given).
#[derive(serde::Serialize)]
struct JsonRow<'a> {
    #[serde(flatten)]
    decision: &'a Decision,
    origin: &'a str,
}

pub(super) fn write_json(out: impl Write, rows: &[(Decision, String)]) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    for (decision, origin) in rows {
        let text = serde_json::to_string(&JsonRow { decision, origin })?;
        writeln!(out, "{}", escape::json(&text))?;
    }
    out.flush()
}

const HEADER: [&str; 9] = [
    "id",
    "time",
    "reviewer",
    "dataset",
    "record",
    "action",
    "span",
    "change",
    "reason / note",
];

fn write_table(out: impl Write, log: &[Decision], rubric: Option<&Rubric>) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    if log.is_empty() {
        writeln!(out, "no decisions")?;
        return out.flush();
    }
    let rows: Vec<[String; 9]> = log.iter().map(|d| row(d, rubric)).collect();
    let mut widths = HEADER.map(text::width);
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(text::width(cell));
        }
    }
    let header = HEADER.map(str::to_owned);
    for r in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in r.iter().zip(widths).enumerate() {
            if i + 1 == r.len() {
                line.push_str(cell);
            } else {
                line.push_str(&pad(cell, w + 2));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    out.flush()
}

/// One decision as table cells, control and bidirectional characters escaped (one decision
/// stays on one line, and shows in its own order); its reason's code described by `rubric`.
fn row(d: &Decision, rubric: Option<&Rubric>) -> [String; 9] {
    let span = match (d.target, &d.span_key) {
        (Some(t), _) => format!("#{t}"),
        (None, Some(k)) => k.clone(),
        (None, None) => String::new(),
    };
    let change = match (&d.before, &d.after) {
        (None, None) => match (&d.record_type, d.flag_on) {
            (Some(t), _) => format!("type → {t}"),
            (None, Some(on)) => (if on { "on" } else { "off" }).to_owned(),
            (None, None) => String::new(),
        },
        // An accept keeps the span as it is: no "→ –", which reads as a drop.
        (Some(b), None) if d.action == ActionKind::Accept => show_span(Some(b)),
        (b, a) => format!("{} → {}", show_span(b.as_ref()), show_span(a.as_ref())),
    };
    let mut why = Vec::new();
    if let Some(u) = &d.unit {
        why.push(u.to_string());
    }
    if let Some(r) = &d.reason {
        let r = crate::review::rubric::described_by(rubric, r);
        why.push(format!("reason: {r}"));
    }
    if let Some(n) = &d.note {
        why.push(format!("note: {n}"));
    }
    if !d.upheld.is_empty() {
        why.push(format!("upheld: {}", d.upheld.join(",")));
    }
    if !d.dismissed.is_empty() {
        why.push(format!("dismissed: {}", d.dismissed.join(",")));
    }
    [
        d.id.to_string(),
        d.time.clone(),
        d.reviewer.clone(),
        d.dataset.clone(),
        d.record_id.clone(),
        d.action.name().to_owned(),
        span,
        change,
        why.join("; "),
    ]
    .map(|c| escape::line(&c).into_owned())
}

fn show_span(s: Option<&SpanValue>) -> String {
    let Some(s) = s else {
        return "–".to_owned();
    };
    format!("[{},{}) {}", s.start, s.end, s.label_name())
}
