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
