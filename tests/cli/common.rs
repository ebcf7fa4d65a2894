//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use spanreview::formats::DataFile;
use spanreview::model::Record;
use spanreview::review::decision::OutcomeKind;
use spanreview::store::RecordState;

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under the crate's `data/`.
pub fn data(rel: &str) -> PathBuf {
    root().join("data").join(rel)
}

/// A path under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// A path under the workspace's read-only `shared/data/`, or `None` (with a message on stderr)
/// when it is not there, so tests that need it can skip clearly.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = root().join("../shared/data").join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "SKIP: {} is absent (tests reading ../shared/data skip without it)",
            p.display()
        );
        None
    }
}

/// The binary under test.
pub fn bin() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("spanreview").expect("binary built")
}

/// Every subcommand, in the order `--help` lists them.
pub const SUBCOMMANDS: [&str; 14] = [
    "review",
    "validate",
    "compare",
    "decisions",
    "export",
    "stats",
    "assign",
    "apply",
    "triage",
    "judge",
    "merge-db",
    "convert",
    "completions",
    "man",
];

/// What `spanreview SUB --help` prints (run without `SPANREVIEW_DB`, so the defaults it
/// shows are the built-in ones); it exits 0.
pub fn help(sub: &str) -> String {
    let out = bin()
        .args([sub, "--help"])
        .env_remove("SPANREVIEW_DB")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{sub}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every record of a file, as the library reads it.
pub fn records(path: &Path) -> Vec<Record> {
    let f = DataFile::open(path, None, None).expect("open");
    (0..f.len()).map(|i| f.record(i).expect("record")).collect()
}

/// The JSON values of a JSONL file, one a line (blank lines skipped).
pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// What a finished command wrote to standard error.
pub fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// Write `lines` to `path` as JSONL.
pub fn write_jsonl(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).expect("write fixture");
}

/// Write `lines` as JSONL to the file `name` in `dir`; its path.
pub fn write(dir: &Path, name: &str, lines: &[Value]) -> PathBuf {
    let p = dir.join(name);
    write_jsonl(&p, lines);
    p
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The state of a record reviewed and left open (not flagged, not stale).
pub fn reviewed() -> RecordState {
    RecordState {
        reviewed: true,
        flagged: false,
        outcome: OutcomeKind::Open,
        stale: false,
    }
}

/// Whether `program` is on the PATH; when not, says on stderr that the test skips for it.
pub fn installed(program: &str) -> bool {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIP: {program} is not installed");
    }
    found
}

/// Run `compare --json` and parse its lines.
pub fn compare_json(args: &[&std::ffi::OsStr]) -> Vec<Value> {
    let out = bin()
        .arg("compare")
        .arg("--json")
        .args(args)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).expect("utf-8");
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// The value cell of a Markdown report's row `| name | value |`.
pub fn cell(report: &str, name: &str) -> String {
    row(report, name).first().cloned().expect("value cell")
}

/// The cells after the first of the row whose first cell is `name`.
pub fn row(report: &str, name: &str) -> Vec<String> {
    let line = report
        .lines()
        .find(|l| l.starts_with(&format!("| {name} |")))
        .unwrap_or_else(|| panic!("no row {name:?} in\n{report}"));
    line.trim_matches('|')
        .split(" | ")
        .skip(1)
        .map(|c| c.trim().trim_end_matches('|').trim().to_owned())
        .collect()
}
