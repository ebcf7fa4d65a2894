//! Failures that were silent or misnamed: a review log that cannot be written is said once
//! on stderr before the screen opens, and the review goes on (it was disabled silently);
//! `merge-db` of many inputs opens them one at a time (under `ulimit -n 32`, forty inputs
//! failed with "switching to WAL mode failed").

use super::common;

#[test]
fn a_review_log_that_cannot_be_written_is_warned_about_once() {
    if !common::installed("script") {
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let records = dir.path().join("records°.jsonl");
    std::fs::copy(common::fixture("review/records.jsonl"), &records).expect("copy");
    // Its folder is a file: the log cannot be made.
    let log = records.join("review.log");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("(sleep 2; printf q; sleep 1) | timeout 30 script -qec '\"$SR_BIN\" review \"$SR_REC\" --db \"$SR_DB\"; echo exit=$?' /dev/null")
        .env("SR_BIN", env!("CARGO_BIN_EXE_spanreview"))
        .env("SR_REC", &records)
        .env("SR_DB", dir.path().join("t.sqlite"))
        .env("SPANREVIEW_LOG", &log)
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("SPANREVIEW_CONFIG", "")
        .env("TERM", "xterm-256color");
    let out = cmd.output().expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let warning = format!(
        "warning: the review log {} cannot be written",
        log.display()
    );
    assert_eq!(text.matches(&warning).count(), 1, "{text}");
    assert!(text.contains("without a log"), "{text}");
    assert!(
        text.contains("exit=0"),
        "the review went on and quit: {text}"
    );
}

#[test]
fn merge_db_of_forty_inputs_runs_under_an_open_file_limit_of_32() {
    use serde_json::json;
    let dir = tempfile::tempdir().expect("tmp");
    let records = dir.path().join("records.jsonl");
    let rec = json!({"id": "r1", "query": "q", "context": "c", "output": "It’s 25°C in 東京 👋",
        "hallucination_labels": []});
    std::fs::write(&records, format!("{rec}\n")).expect("records");
    let mut inputs = Vec::new();
    for i in 0..40 {
        let d = dir.path().join(format!("d{i}.jsonl"));
        let line = json!({"record_id": "r1", "action": "note", "note": format!("n°{i}")});
        std::fs::write(&d, format!("{line}\n")).expect("d");
        let db = dir.path().join(format!("in{i}.sqlite"));
        common::bin()
            .arg("apply")
            .arg(&records)
            .arg("--decisions")
            .arg(&d)
            .args(["--reviewer", "ana", "--db"])
            .arg(&db)
            .assert()
            .success();
        inputs.push(db);
    }
    let list: String = inputs
        .iter()
        .map(|p| format!(" '{}'", p.display()))
        .collect();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 32 && exec \"$SR_BIN\" merge-db '{}'{list}",
            dir.path().join("out.sqlite").display()
        ))
        .env("SR_BIN", env!("CARGO_BIN_EXE_spanreview"))
        .output()
        .expect("sh");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(said.matches("1 added").count(), 40, "{said}");
}
