//! The command line: one module per subcommand, each an `Args` struct and a `run`.

pub mod apply;
pub mod assign;
pub mod compare;
pub mod completions;
pub mod convert;
pub mod db_args;
pub mod decisions;
pub mod export;
mod help;
pub mod hub_args;
pub mod judge;
pub mod judge_args;
pub mod log;
pub mod man;
pub mod merge_db;
mod par;
pub mod review;
pub mod review_alarm;
mod review_unsaved;
pub mod sample;
pub mod stats;
pub mod triage;
pub mod validate;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::tui::theme::ColorChoice;

pub use crate::model::escape::line_to_stderr;
/// A line to standard error, escaped for the terminal (defined beside the escaping rule, so
/// the layers below cli warn the same way).
pub(crate) use crate::model::escape::to_stderr;

/// Review span-level hallucination annotations: accept, tighten, relabel, drop and add spans,
/// arbitrate between judges, and export the reviewed data in its own schema.
#[derive(Debug, Parser)]
#[command(name = "spanreview", version, about, long_about = None, after_help = help::TOP)]
pub struct Cli {
    /// Colour in the review screen and in help: auto (unless NO_COLOR is set), always, never.
    /// 24-bit colour where COLORTERM is truecolor or 24bit, else the nearest of 256.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    pub color: ColorChoice,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open records in the review screen (no FILE: the bundled sample).
    #[command(after_help = help::REVIEW, after_long_help = help::REVIEW_LONG)]
    Review(review::Args),
    /// Check files for every problem the dataset validator knows, and more.
    #[command(after_help = help::VALIDATE)]
    Validate(validate::Args),
    /// Agreement of two annotation sources over the same records.
    #[command(after_help = help::COMPARE)]
    Compare(compare::Args),
    /// Print the decision log.
    #[command(after_help = help::DECISIONS)]
    Decisions(decisions::Args),
    /// Write the reviewed records in the input's own schema.
    #[command(after_help = help::EXPORT)]
    Export(export::Args),
    /// Agreement of every source with the reviewed result, judges' upheld rates, reviewers'
    /// agreement and pace.
    #[command(after_help = help::STATS)]
    Stats(stats::Args),
    /// Split the records among reviewers (with overlap for agreement) and store the plan.
    #[command(after_help = help::ASSIGN)]
    Assign(assign::Args),
    /// Append decisions from a file of JSON lines, each checked as the review screen checks a key.
    #[command(after_help = help::APPLY)]
    Apply(apply::Args),
    /// Check every record's spans against its evidence: one flag decision per finding, for apply.
    #[command(after_help = help::TRIAGE)]
    Triage(triage::Args),
    /// A model's first pass: every record to an OpenAI-compatible endpoint, its verdicts
    /// written as a judge file for `--judge`.
    #[command(after_help = help::JUDGE)]
    Judge(judge::Args),
    /// Combine reviewers' databases into one.
    #[command(after_help = help::MERGE_DB)]
    MergeDb(merge_db::Args),
    /// Convert records between formats (RAGTruth, Label Studio, Prodigy), or put converted
    /// spans back onto the original records.
    #[command(after_help = help::CONVERT)]
    Convert(convert::Args),
    /// Print the shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = help::COMPLETIONS)]
    Completions(completions::Args),
    /// Print the manual page, or write one per subcommand into a folder.
    #[command(after_help = help::MAN)]
    Man(man::Args),
}

/// The command line's definition: the derived one, with every `--db` reading `SPANREVIEW_DB`
/// (shown in `--help` as `[env: SPANREVIEW_DB=]`). Completions and man pages are made from it.
/// Set to the empty string the variable counts as unset (as `Store::default_path` reads it):
/// clap would take it for an empty `--db`.
#[must_use]
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    if std::env::var_os(crate::store::DB_ENV).is_some_and(|v| v.is_empty()) {
        return cmd;
    }
    let with_db: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| s.get_arguments().any(|a| a.get_id() == "db"))
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in with_db {
        cmd = cmd.mut_subcommand(name, |s| s.mut_arg("db", |a| a.env(crate::store::DB_ENV)));
    }
    cmd
}

impl Cli {
    /// Parse `args` (the program's name first) with [`command`]; clap's own help and errors are
    /// coloured as `--color` says.
    ///
    /// # Errors
    /// Help, version, or a usage error, for the caller to print.
    pub fn try_parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Self, clap::Error> {
        let args: Vec<OsString> = args.into_iter().collect();
        let mut cmd = command().color(clap_color(color_arg(&args)));
        let mut matches = cmd.try_get_matches_from_mut(&args)?;
        Self::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
    }
}

/// The last `--color WHEN` (or `--color=WHEN`) before `--`, read ahead of parsing so that clap's
/// help and usage errors follow it too; a bad value is left to the parser to report.
fn color_arg(args: &[OsString]) -> ColorChoice {
    let mut choice = ColorChoice::Auto;
    let mut it = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        let value = match a.as_ref() {
            "--" => break,
            "--color" => it.next().map(|v| v.into_owned()),
            other => other.strip_prefix("--color=").map(str::to_owned),
        };
        if let Some(c) = value.and_then(|v| clap::ValueEnum::from_str(&v, true).ok()) {
            choice = c;
        }
    }
    choice
}

fn clap_color(c: ColorChoice) -> clap::ColorChoice {
    match c {
        ColorChoice::Auto => clap::ColorChoice::Auto,
        ColorChoice::Always => clap::ColorChoice::Always,
        ColorChoice::Never => clap::ColorChoice::Never,
    }
}

pub(crate) use crate::export::dest::write_stdout_whole;
use crate::export::dest::{stdout_failed, write_all_stdout};
pub use crate::export::{is_closed_pipe, ClosedPipe};

/// The outcome of printing a report on standard output: a reader that stopped early
/// (`| head`) is no error; any other failure is, naming standard output.
///
/// # Errors
/// Standard output cannot be written.
pub(crate) fn printed(r: std::io::Result<()>) -> anyhow::Result<()> {
    match r {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(stdout_failed(e)),
        _ => Ok(()),
    }
}

/// Write a report to standard output; a reader that closed the pipe (`| head`) is no error.
///
/// # Errors
/// Standard output cannot be written (the message says so: a full disk names no file).
pub(crate) fn write_stdout(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    printed(write_all_stdout(bytes))?;
    Ok(ExitCode::SUCCESS)
}

/// Run a parsed command line; the exit code is the command's.
///
/// # Errors
/// Usage and I/O errors (the binary exits 2 on them).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let env_db = std::env::var("SPANREVIEW_DB").ok();
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    for w in db_args::secret_warnings(&args, env_db.as_deref()) {
        to_stderr!("warning: {w}");
    }
    match cli.command {
        // A dataset folder among the files becomes the file of its --config and --split
        // (`validate` reads every config and split itself).
        Command::Review(mut a) => {
            a.hub.select(&mut a.files, Some(&mut a.db.dataset))?;
            review::run(a, cli.color)
        }
        Command::Validate(a) => validate::run(a),
        Command::Compare(mut a) => {
            a.hub.select(&mut a.files, None)?;
            compare::run(a)
        }
        Command::Decisions(a) => decisions::run(a),
        Command::Export(mut a) => {
            if let Some(code) = export::folder(&a)? {
                return Ok(code);
            }
            a.hub.select(&mut a.files, Some(&mut a.db.dataset))?;
            export::run(a)
        }
        Command::Stats(mut a) => {
            a.hub.select(&mut a.files, Some(&mut a.db.dataset))?;
            stats::run(a)
        }
        Command::Assign(mut a) => {
            a.hub.select(&mut a.files, Some(&mut a.db.dataset))?;
            assign::run(a)
        }
        Command::Apply(mut a) => {
            a.hub.select(&mut a.files, Some(&mut a.db.dataset))?;
            apply::run(a)
        }
        Command::Triage(mut a) => {
            a.hub.select(&mut a.files, Some(&mut a.dataset))?;
            triage::run(a)
        }
        Command::Judge(mut a) => {
            a.hub.select(&mut a.files, None)?;
            judge::run(a)
        }
        Command::MergeDb(a) => merge_db::run(a),
        Command::Convert(a) => convert::run(a),
        Command::Completions(a) => completions::run(&a),
        Command::Man(a) => man::run(&a),
    }
}

/// The message the binary prints for an error: the error and each cause, except causes whose
/// text the message already holds (the library's errors quote their cause, so anyhow's `{:#}`
/// would print it twice: `x.jsonl: No such file or directory (os error 2): No such file ...`).
#[must_use]
pub fn error_message(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}

/// A score with 4 decimals for the tables of `compare` and `stats`, `-` when undefined; a
/// negative score that rounds to zero prints as `0.0000`, not `-0.0000`.
pub(crate) fn score4(x: Option<f64>) -> String {
    x.map_or_else(
        || "-".to_owned(),
        |v| {
            let s = format!("{v:.4}");
            if s == "-0.0000" {
                "0.0000".to_owned()
            } else {
                s
            }
        },
    )
}

#[cfg(test)]
mod tests {
    /// Every message to standard error in src/cli, src/tui, src/export and src/main.rs goes through
    /// `to_stderr!` or `line_to_stderr`: std's `eprintln!` prints escape sequences raw and
    /// panics (exit 101) on a closed or full standard error (as `println!` does on standard
    /// output, where `write_stdout` says the failure instead). Test code (after `#[cfg(test)]`,
    /// or a `tests.rs`) may use it.
    #[test]
    fn every_message_to_stderr_goes_through_to_stderr() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("src") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src.join("main.rs")];
        walk(&src.join("cli"), &mut files);
        walk(&src.join("tui"), &mut files);
        walk(&src.join("export"), &mut files);
        assert!(files.len() > 20, "{files:?}");
        for f in files {
            if f.ends_with("tests.rs") || f.components().any(|c| c.as_os_str() == "tests") {
                continue;
            }
            let text = std::fs::read_to_string(&f).expect("read");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for std_macro in ["eprintln!(", "eprint!("] {
                assert!(
                    !code.contains(std_macro),
                    "{} writes to standard error with {std_macro}...): use \
                     `crate::cli::to_stderr!` (or `line_to_stderr`) instead",
                    f.display()
                );
            }
            for std_macro in ["println!(", " print!("] {
                assert!(
                    !code.contains(std_macro),
                    "{} writes to standard output with {std_macro}...), which panics when it \
                     cannot: use `crate::cli::write_stdout` instead",
                    f.display()
                );
            }
        }
    }

    #[test]
    fn scores_print_with_four_decimals_and_no_negative_zero() {
        for (x, want) in [
            (None, "-"),
            (Some(0.5), "0.5000"),
            (Some(-0.0), "0.0000"),
            (Some(-0.000_04), "0.0000"),
            (Some(-0.25), "-0.2500"),
            (Some(1.0), "1.0000"),
        ] {
            assert_eq!(super::score4(x), want, "{x:?}");
        }
    }
}
