//! Integration tests: `spanreview decisions` prints the log that the store saved.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use spanreview::review::decision::{ActionKind, Decision, SpanValue, Unit};
use spanreview::store::{Store, SCHEMA_VERSION};

use crate::common::bin;

fn dec(dataset: &str, record: &str, reviewer: &str, action: ActionKind) -> Decision {
    Decision::about(dataset, reviewer, record, "feedc0ffee", action)
}

fn span(start: usize, end: usize, label: &str) -> SpanValue {
    SpanValue::new(start, end, label)
}

/// A database with a few decisions by two reviewers on two datasets; returns them as saved.
fn seed(db: &Path) -> Vec<Decision> {
    let mut adjust = dec("toolace", "rec-1", "ana", ActionKind::Adjust);
    adjust.span_key = Some("gold:0".into());
    adjust.before = Some(span(10, 18, "wrong_number"));
    adjust.after = Some(span(12, 16, "wrong_number"));
    let mut drop = dec("toolace", "rec-2", "bo", ActionKind::Drop);
    drop.span_key = Some("gold:1".into());
    drop.before = Some(span(0, 4, "wrong_name"));
    drop.reason = Some("not a hallucination".into());
    let mut note = dec("mushroom", "val-en-3", "ana", ActionKind::Note);
    note.note = Some("line one\nline two".into());
    let mut saved = saved_in(db, &[adjust, drop, note]);
    let mut undo = dec("toolace", "rec-1", "ana", ActionKind::Undo);
    undo.target = Some(saved[0].id);
    saved.extend(saved_in(db, &[undo]));
    saved
}

/// `decisions` appended to the database at `db` (created if need be), as saved.
fn saved_in(db: &Path, decisions: &[Decision]) -> Vec<Decision> {
    let store = Store::open(db).expect("open");
    decisions
        .iter()
        .map(|d| store.append(d, None).expect("append"))
        .collect()
}

fn json_lines(stdout: &str) -> Vec<Decision> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A fresh database `log.sqlite` [`seed`]ed: its folder, its path and the decisions saved.
fn seeded() -> (tempfile::TempDir, PathBuf, Vec<Decision>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("log.sqlite");
    let saved = seed(&db);
    (dir, db, saved)
}

/// What `decisions --db DB ARGS` prints, run to success.
fn printed(db: &Path, args: &[&str]) -> String {
    let out = bin()
        .args(["decisions", "--db"])
        .arg(db)
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn json_prints_every_decision_as_saved() {
    let (_dir, db, saved) = seeded();
    assert_eq!(json_lines(&printed(&db, &["--json"])), saved);
}

#[test]
fn dataset_and_reviewer_filter_the_log() {
    let (_dir, db, saved) = seeded();
    let run = |args: &[&str]| {
        let json = [&["--json"], args].concat();
        json_lines(&printed(&db, &json))
            .iter()
            .map(|d| d.id)
            .collect::<Vec<_>>()
    };
    let ids = |idx: &[usize]| idx.iter().map(|&i| saved[i].id).collect::<Vec<_>>();
    assert_eq!(run(&["--dataset", "toolace"]), ids(&[0, 1, 3]));
    assert_eq!(run(&["--reviewer", "ana"]), ids(&[0, 2, 3]));
    assert_eq!(
        run(&["--dataset", "toolace", "--reviewer", "ana"]),
        ids(&[0, 3])
    );
    assert_eq!(run(&["--dataset", "nope"]), ids(&[]));
}

#[test]
fn the_table_shows_spans_changes_and_escaped_notes() {
    let (_dir, db, saved) = seeded();
    let text = printed(&db, &[]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + saved.len(), "{text}");
    for col in [
        "id", "time", "reviewer", "dataset", "record", "action", "span", "change",
    ] {
        assert!(lines[0].contains(col), "{}", lines[0]);
    }
    assert!(lines[1].contains("rec-1") && lines[1].contains("adjust"));
    assert!(lines[1].contains("gold:0"));
    assert!(
        lines[1].contains("[10,18) wrong_number → [12,16) wrong_number"),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains(&saved[0].time));
    assert!(lines[2].contains("[0,4) wrong_name → –"), "{}", lines[2]);
    assert!(
        lines[2].contains("reason: not a hallucination"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains(r"note: line one\nline two"),
        "{}",
        lines[3]
    );
    assert!(lines[4].contains("undo") && lines[4].contains(&format!("#{}", saved[0].id)));
}

#[test]
fn the_log_shows_a_retype_a_flag_state_and_a_resolutions_unit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("log.sqlite");
    let mut retype = dec("toolace", "rec-°", "ana", ActionKind::Retype);
    retype.record_type = Some("missing_tool’".into());
    let mut off = dec("toolace", "rec-°", "ana", ActionKind::Flag);
    off.flag_on = Some(false);
    let mut claim = dec("toolace", "rec-°", "ana", ActionKind::Resolve);
    claim.unit = Some(Unit::Claim(2));
    claim.group = Some("g1".into());
    let saved = saved_in(&db, &[retype, off, claim]);
    assert_eq!(json_lines(&printed(&db, &["--json"])), saved);
    let text = printed(&db, &[]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[1].contains("retype") && lines[1].contains("type → missing_tool’"),
        "{text}"
    );
    assert!(
        lines[2].contains("flag") && lines[2].contains(" off"),
        "{text}"
    );
    assert!(lines[3].contains("claim 2"), "{text}");
}

#[test]
fn an_empty_log_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("empty.sqlite");
    Store::open(&db).expect("create");
    bin()
        .args(["decisions", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout("no decisions\n");
    bin()
        .args(["decisions", "--json", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout("");
}

#[test]
fn spanreview_db_is_the_default_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("env.sqlite");
    let saved = seed(&db);
    let out = bin()
        .args(["decisions", "--json"])
        .env("SPANREVIEW_DB", &db)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).expect("utf-8");
    assert_eq!(json_lines(&out).len(), saved.len());
}

#[test]
fn a_missing_database_is_an_error_and_is_not_created() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("sub/absent.sqlite");
    bin()
        .args(["decisions", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("no database at")
                .and(predicate::str::contains("absent.sqlite")),
        );
    assert!(!db.exists());
    assert!(!dir.path().join("sub").exists());
}

#[test]
fn a_database_from_a_newer_spanreview_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("future.sqlite");
    seed(&db);
    rusqlite::Connection::open(&db)
        .expect("raw open")
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .expect("bump");
    bin()
        .args(["decisions", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("newer spanreview")
                .and(predicate::str::contains("future.sqlite")),
        );
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("notes.txt");
    std::fs::write(
        &db,
        "plain text, not SQLite at all, long enough to have a header",
    )
    .expect("write");
    bin()
        .args(["decisions", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("notes.txt"));
}

#[test]
fn an_accept_shows_its_span_without_an_arrow() {
    // "[0,4) wrong_name → –" is how a drop reads; an accept keeps the span.
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("log.sqlite");
    let mut accept = dec("toolace", "rec-1", "ana", ActionKind::Accept);
    accept.span_key = Some("gold:0".into());
    accept.before = Some(span(0, 4, "wrong_name"));
    saved_in(&db, &[accept]);
    let text = printed(&db, &[]);
    let line = text.lines().nth(1).expect("a row");
    assert!(
        line.contains("accept") && line.contains("[0,4) wrong_name"),
        "{line}"
    );
    assert!(!line.contains('→'), "{line}");
}

#[test]
fn a_dataset_the_database_lacks_is_named_with_the_ones_it_has() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("review.sqlite");
    seed(&db);
    let warning = format!(
        "warning: {} has no decisions on dataset \"Toolace\" (it has: mushroom, toolace)\n",
        db.display()
    );
    bin()
        .args(["decisions", "--dataset", "Toolace", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout("no decisions\n")
        .stderr(warning.clone());
    bin()
        .args(["decisions", "--json", "--dataset", "Toolace", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout("")
        .stderr(warning);
    // A dataset it has, with no decision by this reviewer: no warning.
    bin()
        .args([
            "decisions",
            "--dataset",
            "toolace",
            "--reviewer",
            "cy",
            "--db",
        ])
        .arg(&db)
        .assert()
        .success()
        .stdout("no decisions\n")
        .stderr("");
}

#[test]
fn a_folder_given_as_the_database_is_called_a_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("reviews");
    std::fs::create_dir(&folder).expect("mkdir");
    bin()
        .args(["decisions", "--db"])
        .arg(&folder)
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "spanreview: {0} is a folder, not a database file: give the database file itself \
             (such as {0}/spanreview.sqlite)\n",
            folder.display()
        ));
    assert_eq!(std::fs::read_dir(&folder).expect("list").count(), 0);
    assert!(matches!(
        Store::open(&folder),
        Err(spanreview::store::StoreError::IsFolder { .. })
    ));
}

#[test]
fn with_a_rubric_the_table_describes_each_reason_code_and_json_keeps_the_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("log.sqlite");
    let mut drop = dec("ds", "rec-°1", "ana", ActionKind::Drop);
    drop.span_key = Some("gold:0".to_owned());
    drop.reason = Some("V2: it’s hedged 東京".to_owned());
    let mut remove = dec("ds", "rec-2", "ana", ActionKind::Remove);
    remove.reason = Some("Z9".to_owned());
    saved_in(&db, &[drop, remove]);
    let rubric = dir.path().join("rubric.toml");
    std::fs::write(&rubric, super::apply_rubric::RUBRIC).expect("write rubric");
    let rubric = rubric.display().to_string();
    let text = printed(&db, &["--rubric", &rubric]);
    assert!(
        text.contains("reason: V2 (not a hallucination: it’s a hedge): it’s hedged 東京"),
        "{text}"
    );
    // A code the rubric lacks is shown as logged.
    assert!(text.contains("reason: Z9"), "{text}");
    let plain = printed(&db, &[]);
    assert!(!plain.contains("(not a hallucination"), "{plain}");
    let json = printed(&db, &["--rubric", &rubric, "--json"]);
    assert!(json_lines(&json)
        .iter()
        .any(|d| d.reason.as_deref() == Some("V2: it’s hedged 東京")));
}
