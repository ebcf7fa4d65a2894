//! Integration tests: inputs that are not plain files. A FIFO or a pipe (`/dev/stdin`) is read
//! once as a stream by `validate` and `compare`; a `--judge` file, read more than once, must be
//! a regular file and says so; an empty file or `/dev/zero` is a problem, not "0 records".

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{bin, fixture};

/// A FIFO in `dir`; `None` (with a message) where `mkfifo` is missing.
fn fifo(dir: &Path) -> Option<PathBuf> {
    let p = dir.join("records.fifo");
    match Command::new("mkfifo").arg(&p).status() {
        Ok(s) if s.success() => Some(p),
        _ => {
            eprintln!("SKIP: mkfifo is not available");
            None
        }
    }
}

/// Run `cmd` while a thread writes `bytes` into the FIFO `path`.
fn through_fifo(
    path: &Path,
    bytes: Vec<u8>,
    cmd: &mut assert_cmd::Command,
) -> std::process::Output {
    let p = path.to_path_buf();
    let writer = std::thread::spawn(move || {
        // Blocks until the reader opens its end.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .expect("open fifo");
        // The reader may have given up (a failing run): a broken pipe is its report, not ours.
        let _ = f.write_all(&bytes);
    });
    let out = cmd.output().expect("runs");
    // Opening a FIFO read-write never blocks, and releases a writer still waiting for a reader
    // (when the command failed before opening it).
    let unblock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path);
    writer.join().expect("writer");
    drop(unblock);
    out
}

fn records() -> Vec<u8> {
    std::fs::read(fixture("validate/clean_unicode.jsonl")).expect("fixture")
}

#[test]
fn validate_reads_a_fifo_as_a_stream() {
    let dir = tempfile::tempdir().expect("tmp");
    let Some(f) = fifo(dir.path()) else { return };
    let out = through_fifo(&f, records(), bin().arg("validate").arg(&f));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(text.contains("summary: 6 records in 1 file"), "{text}");
    assert!(text.contains("0 problems"), "{text}");
}

#[test]
fn validate_reads_a_json_array_from_a_fifo() {
    let dir = tempfile::tempdir().expect("tmp");
    let Some(f) = fifo(dir.path()) else { return };
    let lines: Vec<String> = String::from_utf8(records())
        .expect("utf-8")
        .lines()
        .map(str::to_owned)
        .collect();
    let array = format!("[\n{}\n]\n", lines.join(",\n"));
    let out = through_fifo(&f, array.into_bytes(), bin().arg("validate").arg(&f));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(text.contains("summary: 6 records in 1 file"), "{text}");
}

#[test]
fn validate_and_compare_read_a_pipe_through_dev_stdin() {
    let out = bin()
        .args(["validate", "/dev/stdin"])
        .write_stdin(records())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("6 records"));
    let preds = std::fs::read(fixture("review/predictions_detector.jsonl")).expect("fixture");
    let out = bin()
        .args(["compare", "/dev/stdin", "--json"])
        .write_stdin(preds)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(overall(&out.stdout), overall_of_the_file());
}

/// The `overall` scores of the first comparison `compare --json` printed.
fn overall(stdout: &[u8]) -> serde_json::Value {
    let first = stdout.split(|&b| b == b'\n').next().expect("a line");
    let v: serde_json::Value = serde_json::from_slice(first).expect("json");
    assert!(v["records"].as_u64().is_some_and(|n| n > 0), "{v}");
    v["overall"].clone()
}

/// What `compare --json` gives for the prediction fixture read as a plain file.
fn overall_of_the_file() -> serde_json::Value {
    let out = bin()
        .args(["compare", "--json"])
        .arg(fixture("review/predictions_detector.jsonl"))
        .output()
        .expect("runs");
    overall(&out.stdout)
}

#[test]
fn compare_reads_a_fifo() {
    let dir = tempfile::tempdir().expect("tmp");
    let Some(f) = fifo(dir.path()) else { return };
    let preds = std::fs::read(fixture("review/predictions_detector.jsonl")).expect("fixture");
    let out = through_fifo(&f, preds, bin().arg("compare").arg(&f).arg("--json"));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(overall(&out.stdout), overall_of_the_file());
}

#[test]
fn a_judge_file_that_is_a_fifo_needs_a_regular_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let Some(f) = fifo(dir.path()) else { return };
    let out = bin()
        .arg("compare")
        .arg(fixture("review/records.jsonl"))
        .arg("--judge")
        .arg(format!("det={}", f.display()))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs a regular file (it is read twice)"),
        "{err}"
    );
    assert!(err.contains("records.fifo"), "{err}");
    assert!(!err.contains("Illegal seek"), "{err}");
}

#[test]
fn an_empty_file_with_a_format_is_a_problem() {
    let dir = tempfile::tempdir().expect("tmp");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").expect("write");
    let blank = dir.path().join("blank.jsonl");
    std::fs::write(&blank, "\n  \n").expect("write");
    for p in [&empty, &blank] {
        let out = bin()
            .args(["validate", "--format", "ragtruth"])
            .arg(p)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("{}:1: the file holds no record", p.display())),
            "{text}"
        );
        assert!(text.contains("empty 1"), "{text}");
    }
}

#[test]
fn compare_on_an_empty_file_names_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").expect("write");
    let out = bin()
        .args(["compare", "--format", "ragtruth"])
        .arg(&empty)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}: no record to compare", empty.display())),
        "{err}"
    );
}

#[test]
fn dev_zero_with_a_format_is_refused_naming_it() {
    if !Path::new("/dev/zero").exists() {
        eprintln!("SKIP: no /dev/zero");
        return;
    }
    for cmd in ["validate", "compare"] {
        let out = bin()
            .args([cmd, "--format", "ragtruth", "/dev/zero"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{cmd}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("/dev/zero: byte 0 is NUL: not JSON text"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn a_stream_without_a_temporary_folder_says_where_it_needed_one() {
    let dir = tempfile::tempdir().expect("tmp");
    let nowhere = dir.path().join("no such folder");
    let out = bin()
        .args(["validate", "/dev/stdin"])
        .env("TMPDIR", &nowhere)
        .write_stdin(records())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("spanreview: /dev/stdin: a stream is read through a temporary copy"),
        "{err}"
    );
    assert!(err.contains("no such folder"), "{err}");
}
