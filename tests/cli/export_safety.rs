//! `spanreview export` and what is around its outputs: special files (`-`, FIFOs, devices,
//! links) written as streams and never replaced, temporary files removed on signals and after
//! kills, the set's manifest, and spans that do not slice their answer refused.

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use spanreview::model::Record;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::store::Store;
use tempfile::TempDir;

use super::common::{records, stderr};
use crate::common;

/// The export fixture: 11 RAGTruth-compatible records of non-ASCII text.
fn fixture() -> PathBuf {
    common::fixture("export/records.jsonl")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A folder with an empty review database.
fn empty_db() -> (TempDir, PathBuf) {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("db.sqlite");
    Store::open(&db).expect("db");
    (dir, db)
}

fn export(db: &Path, input: &Path) -> assert_cmd::Command {
    let mut cmd = common::bin();
    cmd.arg("export").arg(input).arg("--db").arg(db);
    cmd
}

/// Names in `dir` that are export temporary files.
fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("e").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".spanreview-tmp"))
        .collect()
}

// ---- special files -------------------------------------------------------------------------

#[test]
fn out_dash_writes_standard_output() {
    let (dir, db) = empty_db();
    let a = export(&db, &fixture())
        .current_dir(dir.path())
        .args(["--out", "-"])
        .assert()
        .success();
    assert_eq!(
        a.get_output().stdout,
        fs::read(fixture()).expect("fixture"),
        "records unchanged on stdout"
    );
    assert!(!dir.path().join("-").exists(), "no file named -");
}

#[test]
fn a_fifo_is_written_as_a_stream_not_replaced() {
    let (dir, db) = empty_db();
    let fifo = dir.path().join("pipe°");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(&fifo).expect("read fifo"))
    };
    export(&db, &fixture())
        .args(["--out", s(&fifo)])
        .assert()
        .success();
    let kind = fs::symlink_metadata(&fifo).expect("stat").file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    assert_eq!(
        reader.join().expect("reader"),
        fs::read(fixture()).expect("fixture")
    );
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn a_character_device_is_written_not_replaced() {
    let (dir, db) = empty_db();
    // A device node of our own (the same device as /dev/null), so that a bug replaces it and
    // not the system's.
    let dev = dir.path().join("null");
    let made = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .expect("mknod");
    if !made.success() {
        eprintln!("SKIP: mknod is not permitted here (not root?)");
        return;
    }
    export(&db, &fixture())
        .args(["--out", s(&dev)])
        .assert()
        .success();
    let kind = fs::symlink_metadata(&dev).expect("stat").file_type();
    assert!(kind.is_char_device(), "the device was replaced: {kind:?}");
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn a_link_to_an_open_descriptor_is_written_through() {
    let (dir, db) = empty_db();
    // What /dev/stdout is: a link to this process's descriptor 1 (here a pipe).
    let link = dir.path().join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).expect("symlink");
    let a = export(&db, &fixture())
        .args(["--out", s(&link)])
        .assert()
        .success();
    assert_eq!(a.get_output().stdout, fs::read(fixture()).expect("fixture"));
    let kind = fs::symlink_metadata(&link).expect("stat").file_type();
    assert!(kind.is_symlink(), "the link was replaced: {kind:?}");
    // and the real one (checked only once the links above are known to be kept)
    let a = export(&db, &fixture())
        .args(["--out", "/dev/stdout", "--report", "/dev/stderr"])
        .assert()
        .success();
    assert_eq!(a.get_output().stdout, fs::read(fixture()).expect("fixture"));
    assert!(stderr(&a).contains("# "), "the report on stderr");
    assert!(fs::symlink_metadata("/dev/stdout")
        .expect("stat")
        .file_type()
        .is_symlink());
}

#[test]
fn a_link_to_a_file_is_kept_and_its_target_written() {
    let (dir, db) = empty_db();
    let real = dir.path().join("réel.jsonl");
    fs::write(&real, "old\n").expect("old");
    let link = dir.path().join("lien.jsonl");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    export(&db, &fixture())
        .args(["--out", s(&link)])
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link)
        .expect("stat")
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read(&real).expect("real"),
        fs::read(fixture()).expect("fixture")
    );
    // a link to nothing is refused, not replaced
    let dangling = dir.path().join("nulle.jsonl");
    std::os::unix::fs::symlink(dir.path().join("absent.jsonl"), &dangling).expect("symlink");
    let a = export(&db, &fixture())
        .args(["--out", s(&dangling)])
        .assert()
        .code(2);
    assert!(stderr(&a).contains("does not exist"), "{}", stderr(&a));
    assert!(fs::symlink_metadata(&dangling)
        .expect("stat")
        .file_type()
        .is_symlink());
}

#[test]
fn split_files_need_a_file_path() {
    let (dir, db) = empty_db();
    let a = export(&db, &fixture())
        .current_dir(dir.path())
        .args(["--out", "-", "--split-by", "meta.corruption_type"])
        .assert()
        .code(2);
    assert!(stderr(&a).contains("not a file path"), "{}", stderr(&a));
    assert_eq!(
        fs::read_dir(dir.path()).expect("ls").count(),
        1,
        "only the db"
    );
}

// ---- signals and kills ---------------------------------------------------------------------

/// An input whose export prints one message per line on stderr for 4,000 lines (unreadable
/// lines, passed through): with stderr a pipe nobody reads, the export blocks part way,
/// its temporary files written, until it is signalled.
fn noisy_input(dir: &Path) -> PathBuf {
    let mut text = fs::read_to_string(fixture()).expect("fixture");
    for i in 0..4000 {
        text.push_str(&format!("{{\"id\": \"cut°{i}\", \"output\": \"东京\n"));
    }
    let p = dir.join("noisy.jsonl");
    fs::write(&p, text).expect("write");
    p
}

/// Start the export of the noisy input into `dir`, and return once it is writing (its first
/// message about an unreadable line was read), with its temporary files there.
fn start_blocked_export(dir: &Path, db: &Path) -> (std::process::Child, PathBuf) {
    let input = noisy_input(dir);
    let out = dir.join("out.jsonl");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("spanreview"))
        .arg("export")
        .arg(&input)
        .arg("--db")
        .arg(db)
        .args(["--format", "ragtruth", "--out", s(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    loop {
        line.clear();
        let n = err.read_line(&mut line).expect("read stderr");
        assert!(n > 0, "the export ended before writing");
        if line.contains("passed through unchanged") {
            break;
        }
    }
    // Keep the pipe open and unread: the export blocks once it is full.
    std::mem::forget(err);
    (child, out)
}

#[test]
fn a_signal_removes_the_temporary_files_and_exits_128_plus_its_number() {
    for (sig, n) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        let (dir, db) = empty_db();
        let (mut child, out) = start_blocked_export(dir.path(), &db);
        assert_eq!(temp_files(dir.path()).len(), 1, "SIG{sig}: writing");
        let st = Command::new("kill")
            .args(["-s", sig, &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(st.success());
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(128 + n), "SIG{sig}: {status:?}");
        assert!(temp_files(dir.path()).is_empty(), "SIG{sig}: left behind");
        assert!(!out.exists());
    }
}

#[test]
fn temporary_files_of_a_killed_export_are_removed_by_the_next_one() {
    let (dir, db) = empty_db();
    let (mut child, out) = start_blocked_export(dir.path(), &db);
    let st = Command::new("kill")
        .args(["-s", "KILL", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(st.success());
    child.wait().expect("wait");
    let left = temp_files(dir.path());
    assert_eq!(left.len(), 1, "SIGKILL cannot be caught: {left:?}");
    // a file of a running process (this one) is left alone
    let live = dir
        .path()
        .join(format!(".v.jsonl.{}-0.spanreview-tmp", std::process::id()));
    fs::write(&live, "mine").expect("live");
    let a = export(&db, &fixture())
        .args(["--out", s(&out)])
        .assert()
        .success();
    assert!(
        stderr(&a).contains("removed 1 temporary file(s)"),
        "{}",
        stderr(&a)
    );
    assert_eq!(
        temp_files(dir.path()),
        [live.file_name().expect("name").to_string_lossy()]
    );
}

// ---- the set's manifest ------------------------------------------------------------------

#[test]
fn the_outputs_are_listed_in_a_manifest_and_a_set_cut_in_two_is_reported() {
    let (dir, db) = empty_db();
    let out = dir.path().join("revu.jsonl");
    let verdicts = dir.path().join("verdicts.jsonl");
    let report = dir.path().join("rapport.md");
    let run = || {
        export(&db, &fixture())
            .args(["--out", s(&out), "--verdicts", s(&verdicts)])
            .args(["--report", s(&report)])
            .assert()
            .success()
    };
    run();
    let path = dir.path().join(".revu.jsonl.manifest.json");
    let m: Value = serde_json::from_slice(&fs::read(&path).expect("manifest")).expect("json");
    assert_eq!(m["state"], "complete");
    let files = m["files"].as_array().expect("files");
    let whats: Vec<&str> = files
        .iter()
        .map(|f| f["what"].as_str().expect("what"))
        .collect();
    assert_eq!(whats, ["--out", "--verdicts", "--report"]);
    for f in files {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(f["path"].as_str().expect("path")).expect("listed file");
        assert_eq!(f["inode"], meta.ino());
        assert_eq!(f["bytes"], meta.len());
    }
    // What a kill between two renames leaves: the manifest of the new run still `renaming`,
    // its --out in place, the verdicts and report of the run before.
    let mut cut = m.clone();
    cut["state"] = "renaming".into();
    fs::write(&path, cut.to_string()).expect("manifest");
    for f in [&verdicts, &report] {
        let older = dir.path().join("older");
        fs::write(&older, fs::read(f).expect("read")).expect("older");
        fs::rename(&older, f).expect("replace");
    }
    let a = run();
    let err = stderr(&a);
    assert!(
        err.contains("was stopped while its files were renamed"),
        "{err}"
    );
    assert!(
        err.contains(&format!("--out {} is from that run", out.display())),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "--verdicts {}, --report {} are not",
            verdicts.display(),
            report.display()
        )),
        "{err}"
    );
    let m: Value = serde_json::from_slice(&fs::read(&path).expect("manifest")).expect("json");
    assert_eq!(m["state"], "complete");
    assert_ne!(m["run"], cut["run"]);
    // the next run finds the set whole
    assert!(!stderr(&run()).contains("manifest"));
}

// ---- spans that do not slice the answer ------------------------------------------------------

fn decide(
    db: &Path,
    dataset: &str,
    rec: &Record,
    action: ActionKind,
    f: impl FnOnce(&mut Decision),
) {
    let store = Store::open(db).expect("db");
    let mut d = Decision::new(rec, dataset, "ann", action);
    f(&mut d);
    store.append(&d, None).expect("append");
}

#[test]
fn a_span_that_does_not_slice_the_answer_is_refused_with_its_place() {
    // From the input: record 1's label reversed, [12, 8), accepted as it is.
    let (dir, db) = empty_db();
    let mut text = String::new();
    for (i, line) in fs::read_to_string(fixture())
        .expect("fixture")
        .lines()
        .enumerate()
    {
        let mut v: Value = serde_json::from_str(line).expect("json");
        if i == 0 {
            v["hallucination_labels"][0]["start"] = 12.into();
            v["hallucination_labels"][0]["end"] = 8.into();
        }
        text.push_str(&v.to_string());
        text.push('\n');
    }
    let input = dir.path().join("records.jsonl");
    fs::write(&input, text).expect("input");
    let recs = records(&input);
    decide(&db, "records", &recs[0], ActionKind::Accept, |d| {
        d.span_key = Some("gold:0".into());
    });
    // From the log (whose schema refuses a reversed span, but cannot know the answer's
    // length): a span added past the end of record 2's answer, one tightened past the end of
    // record 3's.
    decide(&db, "records", &recs[1], ActionKind::Add, |d| {
        d.span_key = Some("added:a1".into());
        d.after = Some(SpanValue::new(10, 400, "overgeneration"));
    });
    decide(&db, "records", &recs[2], ActionKind::Adjust, |d| {
        d.span_key = Some("gold:0".into());
        d.before = Some(SpanValue::of(&recs[2].gold_spans()[0]));
        d.after = Some(SpanValue::new(5, 999, "contradiction"));
    });
    let out = dir.path().join("out.jsonl");
    let verdicts = dir.path().join("v.jsonl");
    let a = export(&db, &input)
        .args(["--out", s(&out), "--verdicts", s(&verdicts)])
        .assert()
        .code(1);
    let err = stderr(&a);
    let at = |line: usize| format!("{}:{line}: record ", input.display());
    for want in [
        format!(
            "{}{:?}: span gold:0 [12, 8) does not slice its output",
            at(1),
            recs[0].id
        ),
        format!(
            "{}{:?}: span added:a1 [10, 400) does not slice its output",
            at(2),
            recs[1].id
        ),
        format!(
            "{}{:?}: span gold:0 [5, 999) does not slice its output",
            at(3),
            recs[2].id
        ),
        "the span is reversed); as read from the input".to_owned(),
        "the span reaches past its end); set by decision #3 (adjust by ann)".to_owned(),
        "3 span(s) `validate` would reject (offsets that do not slice their record's output, or a \
         label that is a record's type, missing or not in the label set); nothing was written"
            .to_owned(),
    ] {
        assert!(err.contains(&want), "missing {want:?} in:\n{err}");
    }
    assert!(!out.exists() && !verdicts.exists());
    assert!(temp_files(dir.path()).is_empty());
    // A stream may have got records before the refusal (what was flushed), never those lines,
    // and the message says to discard it.
    let a = export(&db, &input).args(["--out", "-"]).assert().code(1);
    let streamed = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    for r in &recs[..3] {
        assert!(!streamed.contains(&format!("{:?}", r.id)), "{}", r.id);
    }
    assert!(
        stderr(&a).contains("except to the stream(s) --out -"),
        "{}",
        stderr(&a)
    );
}
