//! The command line: one module per subcommand, each an `Args` struct and a `run`.

pub mod compare;
pub mod decisions;
pub mod export;
pub mod judge_args;
pub mod log;
pub mod merge_db;
pub mod review;
pub mod stats;
pub mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `eprintln!` with the message escaped for the terminal ([`crate::model::escape::line`]): the
/// subcommands import it as `eprintln`, so a warning quoting a path, an id or a value read from
/// a file cannot carry an escape sequence or a line of its own to the user's terminal.
macro_rules! eprintln_escaped {
    ($($arg:tt)*) => {
        ::std::eprintln!("{}", $crate::model::escape::line(&::std::format!($($arg)*)))
    };
}
pub(crate) use eprintln_escaped as eprintln;

/// Review span-level hallucination annotations: accept, tighten, relabel, drop and add spans,
/// arbitrate between judges, and export the reviewed data in its own schema.
#[derive(Debug, Parser)]
#[command(name = "spanreview", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open records in the review screen (no FILE: the bundled sample in data/).
    Review(review::Args),
    /// Check files for every problem the dataset validator knows, and more.
    Validate(validate::Args),
    /// Agreement of two annotation sources over the same records.
    Compare(compare::Args),
    /// Print the decision log.
    Decisions(decisions::Args),
    /// Write the reviewed records in the input's own schema.
    Export(export::Args),
    /// Agreement of every source with the reviewed result, and judges' upheld rates.
    Stats(stats::Args),
    /// Combine reviewers' databases into one.
    MergeDb(merge_db::Args),
}

/// Run a parsed command line; the exit code is the command's.
///
/// # Errors
/// Usage and I/O errors (the binary exits 2 on them).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Review(a) => review::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Decisions(a) => decisions::run(a),
        Command::Export(a) => export::run(a),
        Command::Stats(a) => stats::run(a),
        Command::MergeDb(a) => merge_db::run(a),
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
    /// Every subcommand that prints a warning imports the escaping `eprintln` (a file that
    /// forgot would print std's, raw).
    #[test]
    fn every_cli_file_that_warns_uses_the_escaping_eprintln() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("src/cli") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli"),
            &mut files,
        );
        assert!(files.len() > 5, "{files:?}");
        for f in files {
            let text = std::fs::read_to_string(&f).expect("read");
            if f.ends_with("cli/mod.rs") || !text.contains("eprintln!(") {
                continue;
            }
            let imports = text.lines().any(|l| {
                matches!(
                    l.trim(),
                    "use super::eprintln;" | "use crate::cli::eprintln;"
                )
            });
            assert!(
                imports,
                "{} prints with eprintln! but does not import the escaping one \
                 (`use crate::cli::eprintln;`)",
                f.display()
            );
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
