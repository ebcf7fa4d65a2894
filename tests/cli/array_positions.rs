//! Integration tests: a JSON error inside a record of a pretty-printed array names the file's
//! line and column (code points, from 1), not serde_json's place within the record, in every
//! command that reads the file (`validate` and `--json`, `convert`, `export`, `--judge`, the
//! review screen's reader, format detection); one-line records (JSONL) say the column.

use std::path::{Path, PathBuf};

use serde_json::Value;
use spanreview::formats::dataset::DataFile;
use spanreview::store::Store;
use tempfile::TempDir;

use super::common::{bin, data, fixture};

/// The line of `export_sample.json` broken below: deep in its third task (which opens on line
/// 134), with an emoji before the break.
const BAD_LINE: usize = 150;
const TASK_LINE: usize = 134;
/// `       "text": "Com🔥parable" oops,`: `o` is the 30th code point (the 34th byte).
const BROKEN: &str = "       \"text\": \"Com🔥parable\" oops,";
const WHY: &str = "invalid JSON: expected `,` or `}` at line 150 column 30";

/// The real Label Studio export (pretty-printed) with `BAD_LINE` made invalid JSON.
fn broken_export(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("formats/labelstudio/export_sample.json"))
        .expect("fixture");
    let mut lines: Vec<&str> = text.split('\n').collect();
    assert!(
        lines[TASK_LINE - 1] == " {" && lines[BAD_LINE - 1].contains("\"text\": \"Com🔥parable"),
        "the fixture moved: {:?}",
        &lines[TASK_LINE - 1..BAD_LINE]
    );
    lines[BAD_LINE - 1] = BROKEN;
    let path = dir.join("export.json");
    std::fs::write(&path, lines.join("\n")).expect("write");
    path
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn validate_names_the_file_line_and_code_point_column() {
    let dir = TempDir::new().expect("tmp");
    let path = broken_export(dir.path());
    let out = bin().arg("validate").arg(&path).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let want = format!("{}:{TASK_LINE}: {WHY}", s(&path));
    assert!(text.lines().any(|l| l == want), "want {want}\n{text}");

    let out = bin()
        .args(["validate", "--json"])
        .arg(&path)
        .output()
        .expect("runs");
    let problem: Value = out
        .stdout
        .split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .find(|v| v["kind"] == "invalid_json")
        .expect("an invalid_json problem");
    // The problem stays on the task's line (the record it belongs to); the message places it.
    assert_eq!(problem["line"], TASK_LINE, "{problem}");
    assert_eq!(problem["message"], WHY, "{problem}");
}

#[test]
fn convert_and_judge_loading_name_the_file_line() {
    let dir = TempDir::new().expect("tmp");
    let path = broken_export(dir.path());
    let want = format!("{}:{TASK_LINE}: {WHY}", s(&path));
    let out = bin()
        .arg("convert")
        .arg(&path)
        .args(["--to", "prodigy", "--out", "-"])
        .output()
        .expect("runs");
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));

    let out = bin()
        .args(["compare", "--a", "gold", "--b", "ls"])
        .arg(data("toolace/test_records_reconstructed.jsonl"))
        .arg("--judge")
        .arg(format!("ls={}", s(&path)))
        .output()
        .expect("runs");
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));
}

#[test]
fn export_names_the_file_line() {
    let dir = TempDir::new().expect("tmp");
    let path = broken_export(dir.path());
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    let out = bin()
        .arg("export")
        .arg(&path)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(dir.path().join("out.json"))
        .output()
        .expect("runs");
    let report = std::fs::read_to_string(dir.path().join("out.report.md")).unwrap_or_default();
    let told = format!("{}{report}", stderr(&out));
    assert!(told.contains(WHY), "{told}");
    assert!(!told.contains("at line 17 column"), "{told}");
}

#[test]
fn the_review_reader_names_the_file_line() {
    let dir = TempDir::new().expect("tmp");
    let path = broken_export(dir.path());
    let file = DataFile::open(&path, None, None).expect("open");
    let e = file.record(2).expect_err("task 3 is broken").to_string();
    assert_eq!(e, format!("{}:{TASK_LINE}: {WHY}", s(&path)));
}

#[test]
fn detection_names_the_file_line() {
    // One task, broken on its fourth line after a `’`; nothing else to tell the format by.
    let dir = TempDir::new().expect("tmp");
    let path = dir.path().join("one.json");
    std::fs::write(
        &path,
        "[\n  {\n    \"data\": {\n      \"q’\": @\n    }\n  }\n]\n",
    )
    .expect("write");
    let out = bin().arg("validate").arg(&path).output().expect("runs");
    let told = stderr(&out);
    assert!(
        told.contains("line 2: invalid JSON: expected value at line 4 column 13"),
        "{told}"
    );
}

#[test]
fn jsonl_says_the_column_in_code_points_after_leading_blanks() {
    let dir = TempDir::new().expect("tmp");
    let path = dir.path().join("r.jsonl");
    let good = r#"{"id": "a", "output": "25°C", "hallucination_labels": []}"#;
    // `x` is the 27th code point of line 2 (two blanks, then `°`, CJK and an emoji before it).
    std::fs::write(
        &path,
        format!("{good}\n  {{\"id\": \"°中😀\", \"output\": x}}\n"),
    )
    .expect("write");
    let out = bin().arg("validate").arg(&path).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!("{}:2: invalid JSON: expected value at column 27", s(&path));
    assert!(text.lines().any(|l| l == want), "want {want}\n{text}");
}
