//! Helpers shared by the `convert` tests (convert.rs, prodigy.rs): running the command and
//! reading what it wrote.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::common::{bin, data};

/// The RAGTruth records both test files convert from and back onto.
pub fn records() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

/// `spanreview convert ARGS`, run to the end.
pub fn convert(args: &[&str]) -> Output {
    bin().arg("convert").args(args).output().expect("runs")
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// What a finished command wrote to standard error.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON values of a JSONL file that `convert` wrote; unlike `common::lines`, a blank line
/// fails (convert writes none).
pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// `convert INPUT --to label-studio --out TASKS --config CONFIG`.
pub fn to_label_studio(input: &Path, tasks: &Path, config: &Path) -> Output {
    convert(&[
        s(input),
        "--to",
        "label-studio",
        "--out",
        s(tasks),
        "--config",
        s(config),
    ])
}

/// `convert INPUT --to TO --records RECORDS --out OUT`: INPUT's spans put onto RECORDS.
pub fn onto(input: &Path, to: &str, records: &Path, out: &Path) -> Output {
    convert(&[
        s(input),
        "--to",
        to,
        "--records",
        s(records),
        "--out",
        s(out),
    ])
}

/// Assert that the command exited with `code`, showing its standard error if not.
#[track_caller]
pub fn exits(o: &Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "{}", stderr(o));
}

/// Assert that the command's standard error contains `text`.
#[track_caller]
pub fn says(o: &Output, text: &str) {
    let err = stderr(o);
    assert!(err.contains(text), "{err}");
}
