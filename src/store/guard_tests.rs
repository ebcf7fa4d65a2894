//! Tests of the database file's guards: a foreign SQLite file, a read-only file, and the file
//! deleted or replaced while a review writes it.

use std::os::unix::fs::PermissionsExt;

use super::test_db::raw_sqlite;
use super::*;
use crate::review::decision::ActionKind;

fn dec(record: &str) -> Decision {
    Decision::about("ds", "ana", record, "abc123", ActionKind::Accept)
}

fn tables(path: &Path) -> Vec<String> {
    let conn = Connection::open(path).expect("raw open");
    let mut st = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .expect("prepare");
    st.query_map([], |r| r.get(0))
        .and_then(Iterator::collect)
        .expect("tables")
}

#[test]
fn a_foreign_sqlite_file_is_refused_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("café’s notes.sqlite");
    raw_sqlite(&path, "CREATE TABLE notes (x); CREATE TABLE 東京 (y);");
    let bytes = std::fs::read(&path).expect("read");
    let e = Store::open(&path).expect_err("refused");
    let msg = e.to_string();
    assert!(matches!(e, StoreError::Foreign { .. }), "{e:?}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("notes, 東京"), "{msg}");
    assert!(msg.contains("not a spanreview database"), "{msg}");
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "untouched");
    assert_eq!(tables(&path), ["notes", "東京"]);
    assert!(!sibling(&path, "-wal").exists());
    // The commands that read refuse it too, rather than reading it as an empty log.
    let e = Store::open_existing(&path).expect_err("refused");
    assert!(matches!(e, StoreError::Foreign { .. }), "{e:?}");
    // Unless asked to (`review --db-init`): its tables are kept beside spanreview's.
    let store = Store::open_init(&path).expect("adopted");
    store.append(&dec("r"), None).expect("saved");
    drop(store);
    let t = tables(&path);
    assert!(
        t.contains(&"東京".to_owned()) && t.contains(&"decision".to_owned()),
        "{t:?}"
    );
    let store = Store::open(&path).expect("a spanreview database now");
    assert_eq!(store.decisions(None).expect("q").len(), 1);
}

#[test]
fn an_sqlite_file_without_tables_becomes_a_spanreview_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("blank.sqlite");
    // Writes the header: an SQLite file with no table in it.
    raw_sqlite(&path, "CREATE TABLE t (x); DROP TABLE t; VACUUM;");
    assert!(std::fs::metadata(&path).expect("meta").len() > 0);
    let store = Store::open(&path).expect("opened");
    assert_eq!(store.schema_version().expect("v"), SCHEMA_VERSION);
}

#[test]
fn a_read_only_database_file_is_refused_at_open() {
    // Root writes a mode 0444 file anyway, but the review would still write into a file its
    // owner made read-only on purpose; a non-root reviewer got "NOT saved" on every key.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("ro °.sqlite");
    drop(Store::open(&path).expect("create"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let e = Store::open(&path).expect_err("refused");
    let msg = e.to_string();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e:?}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("read-only"), "{msg}");
    // Reading it is fine, through a copy: what a read command caches (`stats` importing a
    // `--judge` file) is not written into the file, even by root.
    let bytes = std::fs::read(&path).expect("read");
    let store = Store::open_existing(&path).expect("read");
    assert!(store.decisions(None).expect("q").is_empty());
    store.append(&dec("r"), None).expect("into the copy");
    drop(store);
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "untouched");
}

fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        std::fs::remove_file(sibling(path, suffix)).expect("rm");
    }
}

#[test]
fn a_deleted_database_stops_saving_and_its_decisions_are_rescued() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("review ’24.sqlite");
    let store = Store::open(&path).expect("open");
    let first = store.append(&dec("r1"), None).expect("first");
    store.check_in_place().expect("in place");
    remove_db(&path);
    let e = store.check_in_place().expect_err("gone");
    let msg = e.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("deleted or replaced"), "{msg}");
    let Some(rescue) = store.rescued() else {
        panic!("no rescue file: {msg}")
    };
    assert!(msg.contains(&rescue.display().to_string()), "{msg}");
    // Saving stopped: nothing more is written anywhere, and the path is not made again.
    let e = store.append(&dec("r2"), None).expect_err("stopped");
    assert!(e.to_string().contains("deleted or replaced"), "{e}");
    assert!(!path.exists());
    let saved = Store::open_existing(&rescue).expect("rescue opens");
    assert_eq!(saved.decisions(None).expect("q"), [first]);
}

#[test]
fn a_replaced_database_is_detected_after_a_commit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db.sqlite");
    let other = dir.path().join("other.sqlite");
    let store = Store::open(&path).expect("open");
    drop(Store::open(&other).expect("other"));
    store.append(&dec("r1"), None).expect("first");
    // `mv other.sqlite db.sqlite` between two decisions (and the old WAL removed: left, it
    // would be read over the new file).
    std::fs::rename(&other, &path).expect("mv");
    for suffix in ["-wal", "-shm"] {
        std::fs::remove_file(sibling(&path, suffix)).expect("rm");
    }
    let e = store.append(&dec("r2"), None).expect_err("replaced");
    assert!(matches!(e, StoreError::Gone { .. }), "{e:?}");
    assert!(
        Store::open_existing(&path)
            .expect("the new file")
            .decisions(None)
            .expect("q")
            .is_empty(),
        "nothing was written into the file that replaced it"
    );
    let rescue = store.rescued().expect("rescued");
    let n = Store::open_existing(&rescue)
        .expect("rescue")
        .decisions(None)
        .expect("q")
        .len();
    assert_eq!(n, 1);
}

#[test]
fn the_injected_clock_stamps_decisions() {
    let store = Store::open_in_memory().expect("open");
    let t = std::time::UNIX_EPOCH + Duration::from_millis(1_700_000_000_250);
    store.set_clock(std::sync::Arc::new(move || t));
    assert_eq!(store.now(), t);
    let d = store.append(&dec("r"), None).expect("saved");
    assert_eq!(d.time, "2023-11-14T22:13:20.250Z");
    let all = store.append_all(&[dec("r")], None).expect("saved");
    assert_eq!(all[0].time, "2023-11-14T22:13:20.250Z");
}

/// Several processes open a new database at once: one reads version 0, another migrates, then
/// the first lists the tables and finds spanreview's. They came with their version (one
/// transaction), so the database is not another program's (a review screen of the team load
/// benchmark was refused so). Run here on a migrated database: the listing after the migration.
#[test]
fn tables_found_after_another_process_migrated_are_not_another_programs() {
    for store in super::test_db::stores() {
        match &store.conn {
            Conn::Sqlite(c) => refuse_foreign_sqlite(c),
            Conn::Pg(c) => assert_eq!(
                super::pg::refuse_foreign(c).expect("listed"),
                Vec::<String>::new()
            ),
        }
    }
}

fn refuse_foreign_sqlite(c: &Connection) {
    guard::refuse_foreign(c, Path::new("shared ’.sqlite")).expect("spanreview's own tables");
    // Another program's tables at version 0 are still refused.
    let other = Connection::open_in_memory().expect("raw");
    other.execute_batch("CREATE TABLE notes (x)").expect("t");
    assert!(matches!(
        guard::refuse_foreign(&other, Path::new("x")),
        Err(StoreError::Foreign { .. })
    ));
}

/// `n` decisions on records `r° 0` … (a non-ASCII id), each committed and checked in place.
fn decide(store: &Store, n: usize) {
    for i in 0..n {
        store
            .append(
                &dec(&format!("r° {i}")),
                Some(&RecordState::marked(true, false)),
            )
            .expect("saved");
        store.check_in_place().expect("in place");
    }
}

/// What a file holds: the number of decisions, and `PRAGMA quick_check`.
fn held(path: &Path) -> (usize, String) {
    let conn = Connection::open(path).expect("raw open");
    let n: usize = conn
        .query_row("SELECT count(*) FROM decision", [], |r| r.get(0))
        .unwrap_or(0);
    let ok: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .unwrap_or_else(|e| e.to_string());
    (n, ok)
}

/// The `-wal` deleted (`rm db.sqlite-wal`) or emptied (`: > db.sqlite-wal`) under a review
/// that saved 40 decisions which are only there: the next write is refused as for a deleted
/// database, and the rescue file holds all 40 (an emptied log cannot be read back: they come
/// from what the store kept in memory).
#[test]
fn a_deleted_or_truncated_wal_stops_saving_and_every_decision_is_rescued() {
    for truncate in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("wal ’東京.sqlite");
        let store = Store::open(&path).expect("open");
        decide(&store, 40);
        assert_eq!(store.guard.journal.borrow().len(), 40);
        let wal = sibling(&path, "-wal");
        if truncate {
            std::fs::File::create(&wal).expect("truncate");
        } else {
            std::fs::remove_file(&wal).expect("rm");
        }
        let e = store.append(&dec("r41"), None).expect_err("refused");
        let msg = e.to_string();
        assert!(matches!(e, StoreError::Gone { .. }), "{e:?}");
        assert!(msg.contains("-wal file"), "{msg}");
        assert!(
            msg.contains(if truncate { "truncated" } else { "deleted" }),
            "{msg}"
        );
        assert!(store.append(&dec("r42"), None).is_err());
        let rescue = store.rescued().expect("rescued");
        assert_eq!(held(&rescue), (40, "ok".to_owned()), "truncate={truncate}");
        drop(store);
        // The file left is not damaged, and reading it is no "disk I/O error".
        let (_, ok) = held(&path);
        assert_eq!(ok, "ok", "truncate={truncate}");
    }
}

/// `cp backup.sqlite db.sqlite` during a review: the same file (inode), other content. Taken
/// after 40 decisions were checkpointed into the file, the backup is the file as it was before
/// them. Either ordering is a replacement: copied in before the next decision (refused), or
/// after the last one (found at quit, where the review checks again). The rescue holds all 40,
/// and the copied-in file is never written over at close.
#[test]
fn content_copied_over_the_database_is_a_replacement_in_either_ordering() {
    for decide_after in [true, false] {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("cp 😀.sqlite");
        let backup = dir.path().join("backup.sqlite");
        let store = Store::open(&path).expect("open");
        decide(&store, 2);
        std::fs::copy(&path, &backup).expect("backup");
        decide(&store, 38);
        // Another process (or this one) checkpoints: the file holds the 40 decisions now.
        Connection::open(&path)
            .expect("raw")
            .execute_batch("PRAGMA wal_checkpoint(PASSIVE)")
            .expect("checkpoint");
        store
            .check_in_place()
            .expect("a checkpoint is no replacement");
        std::fs::copy(&backup, &path).expect("cp backup over");
        let bytes = std::fs::read(&path).expect("read");
        let e = if decide_after {
            store.append(&dec("r41"), None).expect_err("refused")
        } else {
            store.check_in_place().expect_err("found at quit")
        };
        assert!(matches!(e, StoreError::Gone { .. }), "{e:?}");
        assert!(e.to_string().contains("copied over"), "{e}");
        let rescue = store.rescued().expect("rescued");
        assert_eq!(held(&rescue), (40, "ok".to_owned()), "after={decide_after}");
        drop(store);
        assert_eq!(
            std::fs::read(&path).expect("read"),
            bytes,
            "not written over at close"
        );
        let (n, ok) = held(&path);
        assert_eq!(
            (n, ok.as_str()),
            (0, "ok"),
            "the backup as it was, no log replayed"
        );
    }
}

/// The damage check, fed a damaged file (another database's log beside a new one, replayed
/// into it) and a whole one.
#[test]
fn the_damage_check_finds_a_replayed_stale_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = dir.path().join("live ’.sqlite");
    let store = Store::open(&live).expect("open");
    decide(&store, 300);
    let bad = dir.path().join("bad °.sqlite");
    drop(Store::open(&bad).expect("new"));
    std::fs::copy(sibling(&live, "-wal"), sibling(&bad, "-wal")).expect("stale log");
    store.check_whole().expect("whole");
    let e = Store::open_existing(&bad)
        .and_then(|s| s.check_whole())
        .expect_err("damaged");
    assert!(matches!(e, StoreError::Damaged { .. }), "{e:?}");
    assert!(e.to_string().contains("bad °.sqlite is damaged"), "{e}");
}

/// A backup taken right after a checkpoint and copied back right after the next one leaves the
/// header as the review last saw it (in WAL mode a checkpoint moves no change counter): the
/// file no longer holding a decision it was seen holding is what tells (issue 22, 3).
#[test]
fn a_backup_copied_back_after_a_checkpoint_is_found_by_the_decisions_it_lacks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cp 東京.sqlite");
    let backup = dir.path().join("backup.sqlite");
    let store = Store::open(&path).expect("open");
    let checkpoint = || {
        Connection::open(&path)
            .expect("raw")
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .expect("checkpoint");
    };
    decide(&store, 2);
    checkpoint();
    store
        .check_in_place()
        .expect("a checkpoint is no replacement");
    std::fs::copy(&path, &backup).expect("backup");
    decide(&store, 1);
    checkpoint();
    store.check_in_place().expect("still no replacement");
    std::fs::copy(&backup, &path).expect("cp backup over");
    let e = store.append(&dec("r4"), None).expect_err("refused");
    assert!(matches!(e, StoreError::Gone { .. }), "{e:?}");
    let rescue = store.rescued().expect("rescued");
    assert_eq!(held(&rescue), (3, "ok".to_owned()));
}

/// The chaos case: the review's decisions reach the file only through another process's
/// checkpoint, and a backup is copied over it before the review looks again. The `-shm` says
/// every frame is in the file, the file lacks the last decision: content was copied over it.
#[test]
fn a_backup_copied_back_before_the_review_saw_the_checkpoint_is_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cp ’.sqlite");
    let backup = dir.path().join("backup.sqlite");
    let store = Store::open(&path).expect("open");
    decide(&store, 2);
    std::fs::copy(&path, &backup).expect("backup");
    decide(&store, 30);
    Connection::open(&path)
        .expect("raw")
        .execute_batch("PRAGMA wal_checkpoint(PASSIVE)")
        .expect("checkpoint");
    std::fs::copy(&backup, &path).expect("cp backup over");
    let e = store.append(&dec("r33"), None).expect_err("refused");
    assert!(matches!(e, StoreError::Gone { .. }), "{e:?}");
    let rescue = store.rescued().expect("rescued");
    assert_eq!(held(&rescue), (32, "ok".to_owned()));
}

/// Whether another process could take the `-shm`'s "dead man switch" byte (128) exclusively:
/// SQLite holds it shared for as long as any connection of this process has the log open.
fn shm_lock_free(path: &Path) -> bool {
    let script = "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR)\n\
                  try:\n    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 128)\n\
                  except OSError:\n    sys.exit(3)\n";
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(sibling(path, "-shm"))
        .status()
        .expect("python3");
    assert!(matches!(status.code(), Some(0 | 3)), "{status}");
    status.success()
}

/// The guard reads the `-shm` after each commit: closing a descriptor of it would drop the
/// locks SQLite holds on it, and another process would rebuild the index under the
/// connection (four `apply`s at once failed with "locking protocol").
#[test]
fn reading_the_shm_keeps_the_connections_locks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("locks ’.sqlite");
    let store = Store::open(&path).expect("open");
    decide(&store, 3);
    Connection::open(&path)
        .expect("raw")
        .execute_batch("PRAGMA wal_checkpoint(PASSIVE)")
        .expect("checkpoint");
    decide(&store, 2);
    assert!(!shm_lock_free(&path), "the -shm lock was dropped");
    drop(store);
    assert!(!sibling(&path, "-shm").exists() || shm_lock_free(&path));
}
