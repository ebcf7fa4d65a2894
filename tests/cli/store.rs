//! The store's guarantees across processes: concurrent writers lose nothing, and a writer killed
//! with SIGKILL at any moment loses no decision it acknowledged.
//!
//! The writers are this test binary run again (`current_exe`) with a test-name filter on
//! [`child_writer`], which does nothing unless the parent set [`CHILD_DB`].

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use predicates::prelude::*;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::store::Store;

use super::common::{names, reviewed};

/// Database path for a child writer; the child does nothing without it.
const CHILD_DB: &str = "SPANREVIEW_TEST_CHILD_DB";
/// How many decisions the child appends.
const CHILD_N: &str = "SPANREVIEW_TEST_CHILD_N";
/// The child's reviewer name (also the prefix of its record ids).
const CHILD_TAG: &str = "SPANREVIEW_TEST_CHILD_TAG";
/// When set, the child opens the database, then waits for a line on stdin before writing
/// (a start barrier, so that two writers really overlap).
const CHILD_WAIT: &str = "SPANREVIEW_TEST_CHILD_WAIT";
/// Milliseconds the child pauses after each decision (a reviewer's think time; without it one
/// writer holds the lock nearly all the time and the other mostly waits its turn).
const CHILD_PAUSE_MS: &str = "SPANREVIEW_TEST_CHILD_PAUSE_MS";

fn decision(reviewer: &str, i: usize) -> Decision {
    Decision {
        span_key: Some(format!("gold:{}", i % 7)),
        before: Some(SpanValue::new(i, i + 5, "wrong_number")),
        after: Some(SpanValue::new(i + 1, i + 4, "wrong_number")),
        note: Some(format!("decision {i} of {reviewer}")),
        ..Decision::about(
            "crash",
            reviewer,
            &format!("{reviewer}-{i}"),
            "0123456789abcdef01234567",
            ActionKind::Adjust,
        )
    }
}

/// The writer: appends decisions and prints `ACK <id> <i>` after each `append` returns, the
/// way the review screen shows "saved" only after `append` returns.
#[test]
fn child_writer() {
    let Some(db) = std::env::var_os(CHILD_DB) else {
        return;
    };
    let n: usize = std::env::var(CHILD_N)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let tag = std::env::var(CHILD_TAG).unwrap_or_else(|_| "child".into());
    let store = Store::open(Path::new(&db)).expect("child opens the database");
    if std::env::var_os(CHILD_WAIT).is_some() {
        let mut go = String::new();
        std::io::stdin().read_line(&mut go).expect("start barrier");
    }
    let pause: u64 = std::env::var(CHILD_PAUSE_MS)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut out = std::io::stdout();
    for i in 0..n {
        let saved = store
            .append(&decision(&tag, i), Some(&reviewed()))
            .expect("child appends");
        writeln!(out, "ACK {} {i}", saved.id).expect("stdout");
        out.flush().expect("stdout");
        if pause > 0 {
            std::thread::sleep(std::time::Duration::from_millis(pause));
        }
    }
}

fn spawn_writer(db: &Path, tag: &str, n: Option<usize>, barrier: bool) -> Child {
    let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
    cmd.args([
        "store::child_writer",
        "--exact",
        "--nocapture",
        "--test-threads=1",
        "-q",
    ])
    .env(CHILD_DB, db)
    .env(CHILD_TAG, tag)
    .stdout(Stdio::piped())
    .stderr(Stdio::inherit());
    if let Some(n) = n {
        cmd.env(CHILD_N, n.to_string());
    }
    if barrier {
        cmd.env(CHILD_WAIT, "1")
            .env(CHILD_PAUSE_MS, "1")
            .stdin(Stdio::piped());
    }
    cmd.spawn().expect("spawn writer")
}

/// `(id, i)` from an `ACK <id> <i>` line (the harness may print around it).
fn ack(line: &str) -> Option<(i64, usize)> {
    let rest = &line[line.find("ACK ")? + 4..];
    let mut it = rest.split_whitespace();
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

fn integrity_ok(db: &Path) {
    let conn = rusqlite::Connection::open(db).expect("raw open");
    let r: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check");
    assert_eq!(r, "ok");
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    const N: usize = 150;
    let dir = tempfile::tempdir().expect("tempdir");
    // Both open a database that does not exist yet: migrations race too.
    let db = dir.path().join("shared.sqlite");
    let mut children = [
        spawn_writer(&db, "ana", Some(N), true),
        spawn_writer(&db, "bo", Some(N), true),
    ];
    for child in &mut children {
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(b"go\n").expect("start the writer");
    }
    let mut acked: HashMap<&str, Vec<(i64, usize)>> = HashMap::new();
    for (tag, child) in ["ana", "bo"].into_iter().zip(children) {
        let out = child.wait_with_output().expect("writer runs");
        assert!(out.status.success(), "{tag} failed: {:?}", out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        acked.insert(tag, text.lines().filter_map(ack).collect());
    }
    let store = Store::open(&db).expect("reopen");
    let log = store.decisions(Some("crash")).expect("log");
    assert_eq!(log.len(), 2 * N);
    let ids: HashSet<i64> = log.iter().map(|d| d.id).collect();
    assert_eq!(ids.len(), 2 * N, "ids are distinct");
    for tag in ["ana", "bo"] {
        let acks = &acked[tag];
        assert_eq!(acks.len(), N, "{tag} acknowledged every decision");
        let mine: Vec<&Decision> = log.iter().filter(|d| d.reviewer == tag).collect();
        assert_eq!(
            mine.iter().map(|d| d.id).collect::<Vec<_>>(),
            acks.iter().map(|a| a.0).collect::<Vec<_>>(),
            "{tag}'s rows are the ones it was told were saved, in its order"
        );
        for (d, &(_, i)) in mine.iter().zip(acks) {
            assert_eq!(
                **d,
                Decision {
                    id: d.id,
                    time: d.time.clone(),
                    ..decision(tag, i)
                }
            );
        }
    }
    assert_eq!(store.record_states("crash").expect("states").len(), 2 * N);
    let switches = log
        .windows(2)
        .filter(|w| w[0].reviewer != w[1].reviewer)
        .count();
    eprintln!("the two writers' rows alternate {switches} times in the log");
    assert!(
        switches >= 2,
        "the writers did not overlap; the test proved nothing"
    );
    integrity_ok(&db);
}

#[test]
fn a_writer_killed_with_sigkill_loses_no_acknowledged_decision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("crash.sqlite");
    let mut all_acked: Vec<(i64, String)> = Vec::new();
    for (round, kill_after) in [1usize, 9, 40, 3, 120].into_iter().enumerate() {
        let tag = format!("round{round}");
        let mut child = spawn_writer(&db, &tag, None, false);
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut acked = Vec::new();
        for line in lines.by_ref() {
            if let Some(a) = ack(&line.expect("read child stdout")) {
                acked.push(a);
                if acked.len() == kill_after {
                    break;
                }
            }
        }
        assert_eq!(
            acked.len(),
            kill_after,
            "round {round}: the writer stopped early"
        );
        child.kill().expect("SIGKILL");
        // Lines already in the pipe were printed after their append returned: count them too.
        acked.extend(lines.map_while(Result::ok).filter_map(|l| ack(&l)));
        let status = child.wait().expect("reap");
        assert!(!status.success(), "round {round}: the writer was killed");

        let store = Store::open(&db).expect("reopen after kill");
        let states = store.record_states("crash").expect("states");
        for &(id, i) in &acked {
            let d = store
                .decision(id)
                .expect("read")
                .unwrap_or_else(|| panic!("round {round}: acknowledged decision #{id} is lost"));
            assert_eq!(d.record_id, format!("{tag}-{i}"));
            assert_eq!(states.get(&d.record_id), Some(&reviewed()));
        }
        all_acked.extend(acked.iter().map(|&(id, i)| (id, format!("{tag}-{i}"))));
        drop(store);
        integrity_ok(&db);
    }
    // Earlier rounds survived the later ones too.
    let store = Store::open(&db).expect("reopen");
    let log: HashMap<i64, String> = store
        .decisions(None)
        .expect("log")
        .into_iter()
        .map(|d| (d.id, d.record_id))
        .collect();
    for (id, record) in &all_acked {
        assert_eq!(log.get(id), Some(record));
    }
}

#[test]
fn a_raw_update_or_delete_of_the_log_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("log.sqlite");
    let saved = Store::open(&db)
        .expect("open")
        .append(&decision("ana", 0), None)
        .expect("append");
    let conn = rusqlite::Connection::open(&db).expect("raw open");
    let e = conn
        .execute(
            "UPDATE decision SET label_after = 'relabeled' WHERE id = ?1",
            [saved.id],
        )
        .expect_err("update refused");
    assert!(e.to_string().contains("append-only"), "{e}");
    let e = conn
        .execute("DELETE FROM decision WHERE id = ?1", [saved.id])
        .expect_err("delete refused");
    assert!(e.to_string().contains("append-only"), "{e}");
    drop(conn);
    let store = Store::open(&db).expect("reopen");
    assert_eq!(store.decisions(None).expect("log"), [saved]);
}

#[test]
fn labels_before_and_after_are_columns_sqlite3_can_query() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("cols.sqlite");
    let mut d = decision("ana", 3);
    d.action = ActionKind::Relabel;
    d.after.as_mut().expect("after").label = "wrong_name".into();
    let saved = Store::open(&db)
        .expect("open")
        .append(&d, None)
        .expect("append");
    let conn = rusqlite::Connection::open(&db).expect("raw open");
    let row: (String, String, i64, i64, String) = conn
        .query_row(
            "SELECT label_before, label_after, start_after, end_after, action FROM decision WHERE id = ?1",
            [saved.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .expect("query");
    assert_eq!(
        row,
        (
            "wrong_number".into(),
            "wrong_name".into(),
            4,
            7,
            "relabel".into()
        )
    );
}

/// A reviewer's database: `n` decisions then an undo of the first one.
fn reviewer_db(path: &Path, who: &str, n: usize) -> Vec<Decision> {
    let store = Store::open(path).expect("open");
    let mut saved: Vec<Decision> = (0..n)
        .map(|i| {
            store
                .append(&decision(who, i), Some(&reviewed()))
                .expect("append")
        })
        .collect();
    let mut undo = decision(who, 0);
    undo.action = ActionKind::Undo;
    undo.span_key = None;
    undo.before = None;
    undo.after = None;
    undo.target = Some(saved[0].id);
    saved.push(store.append(&undo, None).expect("undo"));
    saved
}

#[test]
fn merge_db_combines_reviewers_once_and_remaps_undo_targets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b, out) = (
        dir.path().join("ana.sqlite"),
        dir.path().join("bo.sqlite"),
        dir.path().join("team/all.sqlite"),
    );
    let ana = reviewer_db(&a, "ana", 3);
    let bo = reviewer_db(&b, "bo", 5);
    crate::common::bin()
        .arg("merge-db")
        .args([&out, &a, &b])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "ana.sqlite: 4 decisions, 4 added, 0 already present",
        ))
        .stdout(predicates::str::contains(
            "bo.sqlite: 6 decisions, 6 added, 0 already present",
        ));
    crate::common::bin()
        .arg("merge-db")
        .args([&out, &b, &a])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "bo.sqlite: 6 decisions, 0 added, 6 already present",
        ))
        .stdout(predicates::str::contains(
            "ana.sqlite: 4 decisions, 0 added, 4 already present",
        ));

    let store = Store::open(&out).expect("open merged");
    let log = store.decisions(None).expect("log");
    assert_eq!(log.len(), ana.len() + bo.len());
    for (who, theirs) in [("ana", &ana), ("bo", &bo)] {
        let merged = store.reviewer_log("crash", who).expect("log");
        assert_eq!(merged.len(), theirs.len());
        for (m, t) in merged.iter().zip(theirs.iter()) {
            assert_eq!(
                (&m.time, &m.record_id, m.action),
                (&t.time, &t.record_id, t.action)
            );
        }
        let undo = merged.last().expect("undo");
        assert_eq!(
            undo.target,
            Some(merged[0].id),
            "{who}'s undo names its first decision"
        );
    }
    // bo's ids moved (ana's rows came first), so the remapping was needed.
    assert_ne!(
        store.reviewer_log("crash", "bo").expect("log")[0].id,
        bo[0].id
    );
    assert_eq!(store.record_states("crash").expect("states").len(), 3 + 5);
}

/// The same database under another name (a hard link) is OUT itself, as `export` tells a
/// protected file: refused, not merged into itself.
#[test]
fn merge_db_refuses_out_under_another_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("ana’s °.sqlite");
    reviewer_db(&a, "ana", 1);
    let link = dir.path().join("東京.sqlite");
    std::fs::hard_link(&a, &link).expect("link");
    refused_as_itself(&a, &link);
}

/// `merge-db OUT IN` refused (exit 2) as merging OUT into itself.
fn refused_as_itself(out: &Path, input: &Path) {
    crate::common::bin()
        .arg("merge-db")
        .args([out, input])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("into itself"));
}

#[test]
fn merge_db_refuses_a_missing_input_and_merging_into_itself() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("ana.sqlite");
    let out = dir.path().join("out.sqlite");
    reviewer_db(&a, "ana", 1);
    crate::common::bin()
        .arg("merge-db")
        .args([&out, &a, &dir.path().join("absent.sqlite")])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "no database at {}: check this IN.sqlite path (nothing was merged)",
            dir.path().join("absent.sqlite").display()
        )))
        // merge-db has neither --db nor SPANREVIEW_DB.
        .stderr(predicates::str::contains("--db").not())
        .stderr(predicates::str::contains("SPANREVIEW_DB").not());
    assert!(!out.exists(), "nothing is written when an input is missing");
    refused_as_itself(&a, &a);
    assert_eq!(
        Store::open(&a)
            .expect("open")
            .decisions(None)
            .expect("log")
            .len(),
        2
    );
}

/// `PATH-wal` and `PATH-shm`, SQLite's files beside a WAL database.
fn wal_files(db: &Path) -> [std::path::PathBuf; 2] {
    ["-wal", "-shm"].map(|s| {
        let mut p = db.as_os_str().to_owned();
        p.push(s);
        std::path::PathBuf::from(p)
    })
}

/// Every command that only reads a database, pointed at `db` (outputs go under `dir`).
fn read_commands(db: &Path, dir: &Path) -> Vec<(&'static str, assert_cmd::Command)> {
    let records = crate::common::data("toolace/test_records_reconstructed.jsonl");
    let mut decisions = crate::common::bin();
    decisions.arg("decisions").arg("--db").arg(db);
    let mut export = crate::common::bin();
    export
        .arg("export")
        .arg(&records)
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(dir.join("out.jsonl"));
    let mut stats = crate::common::bin();
    stats.arg("stats").arg(&records).arg("--db").arg(db);
    let mut merge = crate::common::bin();
    merge.arg("merge-db").arg(dir.join("team.sqlite")).arg(db);
    vec![
        ("decisions", decisions),
        ("export", export),
        ("stats", stats),
        ("merge-db input", merge),
    ]
}

#[test]
fn read_commands_refuse_an_empty_file_and_leave_it_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("empty.sqlite");
    std::fs::write(&db, b"").expect("empty file");
    for (what, mut cmd) in read_commands(&db, dir.path()) {
        cmd.assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "{} is empty: not a spanreview database",
                db.display()
            )));
        assert_eq!(
            std::fs::metadata(&db).expect("still there").len(),
            0,
            "{what} left the empty file empty"
        );
        for p in wal_files(&db) {
            assert!(!p.exists(), "{what} created {}", p.display());
        }
        for out in ["out.jsonl", "team.sqlite"] {
            assert!(!dir.path().join(out).exists(), "{what} wrote {out}");
        }
    }
    assert!(matches!(
        Store::open_existing(&db),
        Err(spanreview::store::StoreError::Empty { .. })
    ));
}

#[test]
fn read_commands_refuse_a_file_that_is_not_sqlite_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("notes.sqlite");
    let text = b"{\"id\": \"r1\"}\n";
    std::fs::write(&db, text).expect("file");
    for (what, mut cmd) in read_commands(&db, dir.path()) {
        cmd.assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "{} is not a spanreview database",
                db.display()
            )));
        assert_eq!(std::fs::read(&db).expect("read"), text, "{what}");
        for p in wal_files(&db) {
            assert!(!p.exists(), "{what} created {}", p.display());
        }
    }
}

/// How to run the binary as a user the file permissions apply to: root ignores them, so a test
/// running as root runs it as `nobody` (uid 65534) through `setpriv`. `None` when that is not
/// possible (root without `setpriv`): the caller skips, saying why.
pub(super) fn unprivileged() -> Option<Vec<String>> {
    use std::os::unix::fs::MetadataExt;
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root {
        return Some(Vec::new());
    }
    let setpriv = Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !setpriv {
        eprintln!(
            "SKIP: running as root (which ignores permissions) and setpriv is not available to \
             run the binary as nobody"
        );
        return None;
    }
    Some(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
        .map(str::to_owned)
        .to_vec(),
    )
}

/// The read commands of [`read_commands`], run through `prefix` (see [`unprivileged`]), with a
/// cache folder and HOME in `out` (which that user can write).
fn read_commands_as(
    prefix: &[String],
    db: &Path,
    records: &Path,
    out: &Path,
) -> Vec<(&'static str, assert_cmd::Command)> {
    let bin = env!("CARGO_BIN_EXE_spanreview");
    let run = |args: &[&std::ffi::OsStr]| {
        let mut cmd = match prefix.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        cmd.args(args)
            .env("SPANREVIEW_CACHE_DIR", out.join("cache"))
            .env("HOME", out)
            .env_remove("SPANREVIEW_DB");
        assert_cmd::Command::from_std(cmd)
    };
    let (db, records) = (db.as_os_str(), records.as_os_str());
    let o = out.join("o.jsonl");
    let team = out.join("team.sqlite");
    vec![
        (
            "decisions",
            run(&["decisions".as_ref(), "--db".as_ref(), db]),
        ),
        (
            "export",
            run(&[
                "export".as_ref(),
                records,
                "--db".as_ref(),
                db,
                "--out".as_ref(),
                o.as_os_str(),
            ]),
        ),
        (
            "stats",
            run(&["stats".as_ref(), records, "--db".as_ref(), db]),
        ),
        (
            "merge-db input",
            run(&["merge-db".as_ref(), team.as_os_str(), db]),
        ),
    ]
}

pub(super) fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Run every read command on `db` (in `ro`, holding `records` too) and check each one reads it
/// (exit 0, the decisions shown or merged) and leaves the folder exactly as it was.
fn read_commands_leave_no_trace(prefix: &[String], ro: &Path, db: &Path, out: &Path) {
    let records = ro.join("records.jsonl");
    let bytes = std::fs::read(db).expect("read");
    let files = names(ro);
    for (what, mut cmd) in read_commands_as(prefix, db, &records, out) {
        let assert = cmd.assert().code(0);
        let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
        match what {
            "decisions" => assert!(
                stdout.contains("decision 2 of ana") && stdout.lines().count() == 5,
                "{stdout}"
            ),
            "merge-db input" => assert!(
                stdout.contains("4 decisions, 4 added, 0 already present"),
                "{stdout}"
            ),
            _ => {}
        }
        assert_eq!(
            std::fs::read(db).expect("read"),
            bytes,
            "{what}: file changed"
        );
        assert_eq!(
            names(ro),
            files,
            "{what}: files appeared beside the database"
        );
    }
}

/// A temp folder `dir` (0755) with `ro/` holding a database of ana's (3 decisions and an undo)
/// and a copy of the sample records, and `out/` anyone can write.
fn shared_folder() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    set_mode(dir.path(), 0o755);
    let (ro, out) = (dir.path().join("ro"), dir.path().join("out"));
    std::fs::create_dir(&ro).expect("mkdir");
    std::fs::create_dir(&out).expect("mkdir");
    set_mode(&out, 0o777);
    std::fs::copy(
        crate::common::data("toolace/test_records_reconstructed.jsonl"),
        ro.join("records.jsonl"),
    )
    .expect("copy records");
    reviewer_db(&ro.join("shared.sqlite"), "ana", 3);
    assert!(!wal_files(&ro.join("shared.sqlite"))[0].exists());
    (dir, ro, out)
}

#[test]
fn read_commands_read_a_database_in_a_folder_they_cannot_write() {
    let Some(prefix) = unprivileged() else {
        return;
    };
    let (_dir, ro, out) = shared_folder();
    let db = ro.join("shared.sqlite");
    set_mode(&db, 0o644);
    set_mode(&ro, 0o555);
    read_commands_leave_no_trace(&prefix, &ro, &db, &out);
    set_mode(&ro, 0o755);
}

#[test]
fn read_commands_leave_no_files_beside_a_database_they_cannot_write() {
    let Some(prefix) = unprivileged() else {
        return;
    };
    let (_dir, ro, out) = shared_folder();
    let db = ro.join("shared.sqlite");
    // The folder is anyone's (SQLite could create -wal and -shm there), the file is not.
    set_mode(&ro, 0o777);
    set_mode(&db, if prefix.is_empty() { 0o444 } else { 0o644 });
    read_commands_leave_no_trace(&prefix, &ro, &db, &out);
}
