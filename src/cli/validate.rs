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
    /// Files to check (JSONL or a JSON array; the format is detected per file), or dataset
    /// folders as the Hugging Face Hub serves them (a README.md card): every config and split,
    /// each config reported on its own, by split.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
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
    let opts = Options {
        labels,
        strict: args.strict,
        allow_clean: args.allow_clean,
    };
    let groups = groups(&args)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut clean = true;
    for g in &groups {
        let files = g
            .files
            .iter()
            .map(|p| Input::open(p, args.format))
            .collect::<Result<Vec<_>, _>>()?;
        let report = validate::validate(&files, &opts)?;
        clean &= report.problems.is_empty();
        let printed = if args.json {
            print_json(&mut out, &report, g)
        } else {
            print_text(&mut out, &report, g)
        };
        // A reader that stops early (`| head`) is not an error; a full disk says standard output.
        super::printed(printed)?;
    }
    super::printed(out.flush())?;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Files validated together (their ids and `meta.base_id`s checked across each other): the
/// files given, or one config of a dataset folder (each config on its own: configs may share
/// records, their splits may not).
struct Group {
    files: Vec<PathBuf>,
    /// The folder and config, for a folder's group.
    config: Option<(PathBuf, String)>,
    /// Each file's split, for a folder's group.
    splits: Vec<String>,
}

/// The groups `args` asks for: the files that are not folders as one group, first, then each
/// folder's configs (the one of --config, else every config) with their splits (--split's,
/// else every split).
fn groups(args: &Args) -> anyhow::Result<Vec<Group>> {
    let plain: Vec<PathBuf> = args
        .files
        .iter()
        .filter(|f| !crate::formats::hub::is_folder(f))
        .cloned()
        .collect();
    let mut out = Vec::new();
    if !plain.is_empty() {
        out.push(Group {
            files: plain,
            config: None,
            splits: Vec::new(),
        });
    }
    for dir in args
        .files
        .iter()
        .filter(|f| crate::formats::hub::is_folder(f))
    {
        for h in args.hub.files_of(dir, true)? {
            let same = out
                .last()
                .and_then(|g: &Group| g.config.as_ref())
                .is_some_and(|(d, c)| d == dir && *c == h.config);
            if !same {
                out.push(Group {
                    files: Vec::new(),
                    config: Some((dir.clone(), h.config.clone())),
                    splits: Vec::new(),
                });
            }
            if let Some(g) = out.last_mut() {
                g.files.push(h.path);
                g.splits.push(h.split);
            }
        }
    }
    if out.iter().all(|g| g.config.is_none())
        && (args.hub.config.is_some() || args.hub.split.is_some())
    {
        anyhow::bail!(
            "--config and --split choose the files of a dataset folder (a folder with a README.md \
             card); none of the files given is a folder"
        );
    }
    Ok(out)
}

fn counts<K: std::fmt::Display>(m: impl IntoIterator<Item = (K, usize)>) -> String {
    let parts: Vec<String> = m.into_iter().map(|(k, n)| format!("{k} {n}")).collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(", ")
    }
}

fn print_text(out: &mut impl Write, report: &Report, group: &Group) -> std::io::Result<()> {
    // Every line goes through the terminal escaping: paths, ids and types come from the files.
    let mut put = |line: String| writeln!(out, "{}", escape::line(&line));
    for p in &report.problems {
        let path = report.files[p.file].path.display();
        let split = group
            .splits
            .get(p.file)
            .map(|s| format!(" [split {s}]"))
            .unwrap_or_default();
        put(format!("{path}:{}:{split} {}", p.line, p.message))?;
    }
    let nfiles = report.files.len();
    let formats = counts(report.files.iter().enumerate().map(|(i, f)| {
        let split = group
            .splits
            .get(i)
            .map(|s| format!("split {s}: "))
            .unwrap_or_default();
        (
            format!("{split}{} ({})", f.path.display(), f.format.name()),
            f.records,
        )
    }));
    let of = group
        .config
        .as_ref()
        .map(|(d, c)| format!(" of {} config {c}", d.display()))
        .unwrap_or_default();
    put(format!(
        "summary{of}: {} records in {nfiles} file{}: {formats}",
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
    ))?;
    if group.config.is_some() {
        // Per split: its problems, in its records.
        let mut seen: Vec<&str> = Vec::new();
        for s in &group.splits {
            if !seen.contains(&s.as_str()) {
                seen.push(s);
            }
        }
        let per: Vec<String> = seen
            .iter()
            .map(|s| {
                let mine = |file: usize| group.splits.get(file).is_some_and(|x| x == s);
                let records: usize = report
                    .files
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mine(*i))
                    .map(|(_, f)| f.records)
                    .sum();
                let problems = report.problems.iter().filter(|p| mine(p.file)).count();
                format!("{s} {records} records, {problems} problems")
            })
            .collect();
        put(format!("  by split: {}", per.join("; ")))?;
    }
    Ok(())
}

fn print_json(out: &mut impl Write, report: &Report, group: &Group) -> std::io::Result<()> {
    for p in &report.problems {
        let mut v = json!({
            "file": report.files[p.file].path.display().to_string(),
            "line": p.line,
            "kind": p.kind.name(),
            "message": p.message,
        });
        if let (Some((_, c)), Some(s)) = (&group.config, group.splits.get(p.file)) {
            v["config"] = json!(c);
            v["split"] = json!(s);
        }
        writeln!(out, "{}", escape::json(&v.to_string()))?;
    }
    let files: Vec<_> = report
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut v = json!({"file": f.path.display().to_string(), "format": f.format.name(), "records": f.records});
            if let Some(s) = group.splits.get(i) {
                v["split"] = json!(s);
            }
            v
        })
        .collect();
    let mut v = json!({
        "summary": {
            "files": files,
            "records": report.records(),
            "records_with_problems": report.records_with_problems(),
            "by_corruption_type": report.by_type,
            "problems": report.problems.len(),
            "by_kind": report.by_kind(),
        }
    });
    if let Some((d, c)) = &group.config {
        v["summary"]["folder"] = json!(d.display().to_string());
        v["summary"]["config"] = json!(c);
    }
    writeln!(out, "{}", escape::json(&v.to_string()))
}
