//! A database's `-wal` and `-shm` left behind: a new database made at their path does not
//! replay them (they are moved aside, and said so), `merge-db` checks what it wrote, and a
//! damaged file is an error (exit 2), never "no decisions".

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use spanreview::review::decision::{ActionKind, Decision};
use spanreview::store::{sibling, RecordState, Store};

use super::common::{bin, fixture, names};

/// What a file holds: its decisions (0 when they cannot be read) and `PRAGMA quick_check`.
fn held(path: &Path) -> (usize, String) {
    let conn = rusqlite::Connection::open(path).expect("raw open");
    let n: usize = conn
        .query_row("SELECT count(*) FROM decision", [], |r| r.get(0))
        .unwrap_or(0);
    let ok: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .unwrap_or_else(|e| e.to_string());
    (n, ok)
}

/// A review killed after `n` decisions, as its files are left: `dir/db.sqlite`, its `-wal`
/// and `-shm` (copied while the review had them open), and a rescue copy of everything
/// (`dir/rescued.sqlite`). Returns the database path.
fn killed_review(dir: &Path, n: usize) -> PathBuf {
    let live = dir.join("live");
    std::fs::create_dir(&live).expect("mkdir");
    let live_db = live.join("db.sqlite");
    let store = Store::open(&live_db).expect("open");
    for i in 0..n {
        let d = Decision::about(
            "ds",
            "ana",
            &format!("r’{i} 東京"),
            "h°",
            ActionKind::Accept,
        );
        store
            .append(&d, Some(&RecordState::default()))
            .expect("saved");
    }
    let db = dir.join("db.sqlite");
    for suffix in ["", "-wal", "-shm"] {
        std::fs::copy(sibling(&live_db, suffix), sibling(&db, suffix)).expect("copy");
    }
    let raw = rusqlite::Connection::open(&live_db).expect("raw");
    raw.execute(
        "VACUUM INTO ?1",
        [dir.join("rescued.sqlite").to_string_lossy()],
    )
    .expect("rescue copy");
    assert!(
        std::fs::metadata(sibling(&db, "-wal")).expect("wal").len() > 0,
        "the log holds commits"
    );
    db
}

fn stale_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".stale-"))
        .collect();
    v.sort();
    v
}

#[test]
fn merge_db_into_a_deleted_database_does_not_replay_its_stale_wal() {
    // The screen's own advice after a deleted database: `merge-db db.sqlite db.rescued-….sqlite`
    // printed "440 already present", exit 0, and left "database disk image is malformed".
    let dir = tempfile::tempdir().expect("tmp");
    let db = killed_review(dir.path(), 440);
    std::fs::remove_file(&db).expect("rm db");
    bin()
        .arg("merge-db")
        .arg(&db)
        .arg(dir.path().join("rescued.sqlite"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "440 decisions, 440 added, 0 already present",
        ))
        .stderr(
            predicate::str::contains(format!("moved {}-wal aside", db.display()))
                .and(predicate::str::contains("would have been replayed")),
        );
    assert_eq!(held(&db), (440, "ok".to_owned()));
    let stale = stale_files(dir.path());
    assert_eq!(stale.len(), 2, "{stale:?}");
    assert!(stale[0].starts_with("db.sqlite-shm.stale-"), "{stale:?}");
    assert!(stale[1].starts_with("db.sqlite-wal.stale-"), "{stale:?}");
}

#[test]
fn apply_into_a_deleted_database_does_not_replay_its_stale_wal() {
    // `rm db` after a killed review, then `apply --db db`: exit 2 and a corrupt file left.
    let dir = tempfile::tempdir().expect("tmp");
    let db = killed_review(dir.path(), 440);
    std::fs::remove_file(&db).expect("rm db");
    let d = dir.path().join("d.jsonl");
    std::fs::write(
        &d,
        "{\"record_id\": \"uni_1__contradiction\", \"action\": \"clean\"}\n",
    )
    .expect("write");
    bin()
        .arg("apply")
        .arg(fixture("review/records.jsonl"))
        .arg("--decisions")
        .arg(&d)
        .arg("--db")
        .arg(&db)
        .args(["--reviewer", "ana"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("aside"));
    assert_eq!(held(&db), (1, "ok".to_owned()));
}

/// A damaged database (another database's log replayed into a new one, as `apply` made it
/// before) is an error for the commands that read it, never an empty log.
#[test]
fn reading_a_damaged_database_fails_with_exit_2() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = killed_review(dir.path(), 440);
    let stale = dir.path().join("stale-wal");
    std::fs::rename(sibling(&db, "-wal"), &stale).expect("keep the log");
    std::fs::remove_file(sibling(&db, "-shm")).expect("rm shm");
    std::fs::remove_file(&db).expect("rm db");
    let damaged = dir.path().join("bad °.sqlite");
    drop(Store::open(&damaged).expect("a new database"));
    std::fs::copy(&stale, sibling(&damaged, "-wal")).expect("the stale log beside it");
    assert_ne!(held(&damaged).1, "ok", "damaged");
    // `stats` said "0 with decisions", exit 0.
    for cmd in [
        vec!["decisions", "--db"],
        vec!["decisions", "--json", "--db"],
        vec!["stats", "--db"],
    ] {
        bin()
            .args(&cmd)
            .arg(&damaged)
            .assert()
            .code(2)
            .stdout(predicate::str::contains("no decisions").not())
            .stderr(
                predicate::str::contains(damaged.display().to_string())
                    .and(predicate::str::contains("is damaged")),
            );
    }
}

/// `sh -c 'ulimit -f BLOCKS; spanreview ARGS…'` in `dir`: the output.
fn under_file_limit(dir: &Path, blocks: u32, args: &str) -> std::process::Output {
    let cmd = format!(
        "ulimit -f {blocks}; exec {} {args}",
        super::terminal::shell_quote(Path::new(super::terminal::bin()))
    );
    std::process::Command::new("sh")
        .args(["-c", &cmd])
        .current_dir(dir)
        .output()
        .expect("sh")
}

/// A write past `ulimit -f` killed `apply` with SIGXFSZ (exit 153), leaving the temporary
/// database it was making; now it is a failed write: exit 2, said so, nothing left behind.
#[test]
fn apply_past_the_file_size_limit_fails_cleanly() {
    let dir = tempfile::tempdir().expect("tmp");
    let records = dir.path().join("records °.jsonl");
    std::fs::copy(fixture("review/records.jsonl"), &records).expect("copy");
    std::fs::write(
        dir.path().join("d.jsonl"),
        "{\"record_id\": \"uni_1__contradiction\", \"action\": \"clean\"}\n",
    )
    .expect("write");
    let out = under_file_limit(
        dir.path(),
        40,
        "apply 'records °.jsonl' --decisions d.jsonl --db new.sqlite --reviewer ana",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("new.sqlite"), "{stderr}");
    assert!(stderr.contains("file-size limit"), "{stderr}");
    assert_eq!(names(dir.path()), ["d.jsonl", "records °.jsonl"]);
}

/// The review screen past `ulimit -f`: it was killed after a few decisions, leaving the terminal
/// in the alternate screen with mouse tracking on. Now a decision that cannot be written is
/// "NOT saved" (the limit named), the screen stays, and quitting restores the terminal; every
/// decision shown saved is in the database.
#[test]
fn the_review_past_the_file_size_limit_says_not_saved_and_restores_the_terminal() {
    use super::terminal::{env, shell_quote, Tmux};
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("limit ’.sqlite");
    drop(Store::open(&db).expect("made before the limit"));
    let files: Vec<String> = super::app_harness::review_files()
        .iter()
        .map(|p| shell_quote(p))
        .collect();
    let cmd = format!(
        "sh -c \"ulimit -f 100; {} review {} --db {} --reviewer e2e --queue all; echo exit=\\$?; sleep 600\"",
        shell_quote(Path::new(super::terminal::bin())),
        files.join(" "),
        shell_quote(&db)
    );
    let Some(t) = Tmux::start("fsize", &cmd, &env(dir.path())) else {
        return;
    };
    t.wait("uni_1__contradiction");
    let mut saved = 0;
    for _ in 0..40 {
        t.keys(&["A"]);
        let screen = t.wait_settled("a decision's status", |s| {
            s.contains(&format!("saved #{}", saved + 1)) || s.contains("NOT saved")
        });
        if screen.contains("NOT saved") {
            assert!(screen.contains("(disk full or fi"), "{screen}");
            break;
        }
        saved += 1;
    }
    assert!(saved < 40, "the limit was never reached");
    t.keys(&["q"]);
    let screen = t.wait("exit=");
    // The shell's own line shows: the alternate screen is left.
    assert!(t.pane("#{alternate_on}") == "0", "{screen}");
    assert!(t.pane("#{mouse_any_flag}") == "0", "{screen}");
    let log = Store::open_existing(&db)
        .expect("db")
        .decisions(None)
        .expect("log");
    assert_eq!(
        log.len(),
        saved,
        "every decision shown saved is in the database"
    );
}
