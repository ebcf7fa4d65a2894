//! Integration tests: `spanreview apply` checks its file without the write lock (other
//! reviewers keep saving meanwhile), then saves under it, checking again when the log moved.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::{Batch, Store, PROVISIONAL};

use crate::common::{bin, fixture};

const RECORD: &str = "uni_1__contradiction";

fn write_lines(path: &Path, lines: &[serde_json::Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).expect("write decisions");
}

/// A database holding one note of ana's on [`RECORD`] (`’°` in it); returns the dataset's
/// name and the record's hash.
fn started(dir: &Path) -> (String, String) {
    let d = dir.join("first.jsonl");
    write_lines(
        &d,
        &[json!({"record_id": RECORD, "action": "note", "note": "東京 ’° 👋"})],
    );
    bin()
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(dir.join("db.sqlite"))
        .args(["--reviewer", "ana"])
        .assert()
        .success();
    let log = Store::open(&dir.join("db.sqlite"))
        .expect("db")
        .decisions(None)
        .expect("log");
    (log[0].dataset.clone(), log[0].record_hash.clone())
}

/// While another process holds the write lock (a review screen saving, a long apply), a dry
/// run checks the whole file and answers: it never waits for the lock (it waited up to the
/// batch's two minutes before).
#[test]
fn a_dry_run_checks_while_another_process_holds_the_write_lock() {
    let dir = tempfile::tempdir().expect("tmp");
    started(dir.path());
    let d = dir.path().join("d.jsonl");
    write_lines(
        &d,
        &[
            json!({"record_id": RECORD, "action": "accept", "span_key": "gold:0"}),
            json!({"record_id": RECORD, "action": "note", "note": "25°C ’ 東京"}),
        ],
    );
    let holder = rusqlite::Connection::open(dir.path().join("db.sqlite")).expect("open");
    holder
        .execute_batch("BEGIN IMMEDIATE")
        .expect("the write lock");
    let a = bin()
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(dir.path().join("db.sqlite"))
        .args(["--reviewer", "ana", "--dry-run"])
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("2 would be saved"), "{said}");
    holder.execute_batch("ROLLBACK").expect("release");
}

/// A decision another process saves after the file was checked and before it is saved (here:
/// ana's clean of the record, committed while the apply waits for the lock) is seen: the file
/// is checked again under the lock, its accept is refused, and nothing of it is saved.
#[test]
fn a_decision_saved_between_the_check_and_the_save_is_checked_against() {
    let dir = tempfile::tempdir().expect("tmp");
    let (dataset, hash) = started(dir.path());
    let d = dir.path().join("d.jsonl");
    write_lines(
        &d,
        &[
            json!({"record_id": RECORD, "action": "note", "note": "before ’"}),
            json!({"record_id": RECORD, "action": "accept", "span_key": "gold:0"}),
        ],
    );
    let db = dir.path().join("db.sqlite");
    let other = Store::open(&db).expect("open");
    let mut apply = None;
    other
        .append_batch(|_| {
            let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("spanreview"))
                .arg("apply")
                .arg(fixture("review/records.jsonl"))
                .arg("--decisions")
                .arg(&d)
                .arg("--db")
                .arg(&db)
                .args(["--reviewer", "ana"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn");
            apply = Some(child);
            // Its check (two lines) is done long before this; it waits for the lock then.
            std::thread::sleep(Duration::from_millis(1500));
            let mut clean = Decision::about(&dataset, "ana", RECORD, &hash, ActionKind::Clean);
            clean.id = PROVISIONAL;
            Ok::<_, ()>(Batch {
                rows: vec![(clean, "other-screen-clean".to_owned())],
                ..Batch::default()
            })
        })
        .expect("saved")
        .expect("planned");
    let out = apply.expect("started").wait_with_output().expect("ran");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(":2: record") && stderr.contains("reclassified clean by ana"),
        "{stderr}"
    );
    let log = other.decisions(None).expect("log");
    let actions: Vec<ActionKind> = log.iter().map(|d| d.action).collect();
    assert_eq!(
        actions,
        [ActionKind::Note, ActionKind::Clean],
        "nothing of the file saved"
    );
}

/// Standard input is read once into a temporary file (it may be read again under the lock),
/// which is gone afterwards; its lines are saved as from a file.
#[test]
fn decisions_from_standard_input_are_saved_and_leave_no_copy() {
    let dir = tempfile::tempdir().expect("tmp");
    started(dir.path());
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp dir");
    let lines = format!(
        "{}\n\n{}\n",
        json!({"record_id": RECORD, "action": "note", "note": "stdin ’°"}),
        json!({"record_id": RECORD, "action": "accept", "span_key": "gold:0"})
    );
    let a = bin()
        .env("TMPDIR", &tmp)
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .args(["--decisions", "-", "--db"])
        .arg(dir.path().join("db.sqlite"))
        .args(["--reviewer", "ana"])
        .write_stdin(lines)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(said.contains("<stdin>: 2 decisions saved"), "{said}");
    assert_eq!(
        std::fs::read_dir(&tmp).expect("tmp").count(),
        0,
        "the copy is removed"
    );
}

/// A named pipe (`--decisions <(…)`) is read once too: when another process saves between the
/// check and the save, the file is checked again from the copy (the pipe itself is empty by
/// then, and opening it again would wait for a writer forever), and its lines are saved.
#[test]
fn a_named_pipe_is_read_again_from_its_copy_when_the_log_moved() {
    let dir = tempfile::tempdir().expect("tmp");
    let (dataset, hash) = started(dir.path());
    let fifo = dir.path().join("d.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let lines = format!(
        "{}\n{}\n",
        json!({"record_id": RECORD, "action": "note", "note": "pipe ’°"}),
        json!({"record_id": RECORD, "action": "accept", "span_key": "gold:0"})
    );
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(&fifo, lines).expect("write the pipe"))
    };
    let db = dir.path().join("db.sqlite");
    let other = Store::open(&db).expect("open");
    let mut apply = None;
    other
        .append_batch(|_| {
            let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("spanreview"))
                .arg("apply")
                .arg(fixture("review/records.jsonl"))
                .arg("--decisions")
                .arg(&fifo)
                .arg("--db")
                .arg(&db)
                .args(["--reviewer", "ana"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn");
            apply = Some(child);
            std::thread::sleep(Duration::from_millis(1500));
            // Another reviewer's note: the log moves, the file's lines stay valid.
            let mut note = Decision::about(&dataset, "bo", RECORD, &hash, ActionKind::Note);
            note.note = Some("bo 東京".into());
            note.id = PROVISIONAL;
            Ok::<_, ()>(Batch {
                rows: vec![(note, "other-screen-note".to_owned())],
                ..Batch::default()
            })
        })
        .expect("saved")
        .expect("planned");
    writer.join().expect("writer");
    let mut child = apply.expect("started");
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("apply still running after 60 s (reading the pipe again?)");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("ran");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("2 decisions saved"),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(other.decisions(None).expect("log").len(), 4);
}
