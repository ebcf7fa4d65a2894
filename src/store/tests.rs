//! Store tests on in-memory and temporary databases: those about the log run on each engine
//! (`test_db.rs`: SQLite always, PostgreSQL when `SPANREVIEW_TEST_PG` is set); those about a
//! file (WAL, copies, headers) on SQLite only.

use super::engine::vals;
use super::test_db::{assert_log_unchangeable, raw_sqlite, stores};
use super::*;
use crate::review::decision::{ActionKind, OutcomeKind, SpanValue};

fn dec(dataset: &str, record: &str, reviewer: &str, action: ActionKind) -> Decision {
    Decision::about(dataset, reviewer, record, "abc123", action)
}

fn sv(start: usize, end: usize, label: &str) -> SpanValue {
    SpanValue::new(start, end, label)
}

/// Every action, with every optional field it can carry filled in.
fn every_kind() -> Vec<Decision> {
    let all = [
        ActionKind::Accept,
        ActionKind::AcceptAll,
        ActionKind::Drop,
        ActionKind::Adjust,
        ActionKind::Relabel,
        ActionKind::Add,
        ActionKind::Clean,
        ActionKind::Remove,
        ActionKind::Flag,
        ActionKind::Note,
        ActionKind::Undo,
        ActionKind::Redo,
        ActionKind::Resolve,
    ];
    all.iter()
        .enumerate()
        .map(|(i, &a)| {
            let mut d = dec("ds", &format!("r{i}"), "ana", a);
            if !a.is_meta() {
                d.span_key = Some(format!("gold:{i}"));
                d.before = Some(SpanValue {
                    start: i,
                    end: i + 4,
                    label: "wrong_number".into(),
                    category: Some("factual".into()),
                    subcategory: Some("number".into()),
                });
                d.after = Some(sv(i + 1, i + 3, "東京 “quoted” \n"));
                d.reason = Some("no-op edit".into());
                d.note = Some("a note\twith tabs 👋".into());
                d.upheld = vec!["judge_a".into(), "gold".into()];
                d.dismissed = vec!["judge_b".into()];
            }
            d
        })
        .collect()
}

#[test]
fn append_sets_id_and_time_and_round_trips_every_action() {
    for store in stores() {
        let store = &*store;
        let mut saved = Vec::new();
        for mut d in every_kind() {
            if d.action.is_meta() {
                d.target = Some(saved.first().map_or(1, |s: &Decision| s.id));
            }
            let s = store.append(&d, None).expect("append");
            assert!(s.id > 0);
            assert_eq!(s.time.len(), "2026-11-30T05:52:34.123Z".len(), "{}", s.time);
            assert!(s.time.ends_with('Z'));
            assert_eq!(
                Decision {
                    id: 0,
                    time: String::new(),
                    ..s.clone()
                },
                d
            );
            saved.push(s);
        }
        assert_eq!(store.decisions(None).expect("read"), saved);
        for s in &saved {
            assert_eq!(store.decision(s.id).expect("read").as_ref(), Some(s));
        }
        assert_eq!(store.decision(9999).expect("read"), None);
    }
}

#[test]
fn a_given_time_is_kept() {
    for store in stores() {
        let store = &*store;
        let mut d = dec("ds", "r", "ana", ActionKind::Accept);
        d.time = "2020-01-02T03:04:05.000Z".into();
        assert_eq!(store.append(&d, None).expect("append").time, d.time);
    }
}

#[test]
fn queries_filter_by_dataset_record_and_reviewer_in_id_order() {
    for store in stores() {
        let store = &*store;
        let rows = [
            ("a", "r1", "ana"),
            ("b", "r1", "ana"),
            ("a", "r2", "bo"),
            ("a", "r1", "bo"),
            ("a", "r1", "ana"),
        ];
        let ids: Vec<i64> = rows
            .iter()
            .map(|(ds, r, who)| {
                store
                    .append(&dec(ds, r, who, ActionKind::Accept), None)
                    .expect("append")
                    .id
            })
            .collect();
        let pick = |v: Vec<Decision>| v.iter().map(|d| d.id).collect::<Vec<_>>();
        assert_eq!(pick(store.decisions(None).expect("q")), ids);
        assert_eq!(
            pick(store.decisions(Some("a")).expect("q")),
            [ids[0], ids[2], ids[3], ids[4]]
        );
        assert_eq!(
            pick(store.record_decisions("a", "r1").expect("q")),
            [ids[0], ids[3], ids[4]]
        );
        assert_eq!(
            pick(store.reviewer_log("a", "ana").expect("q")),
            [ids[0], ids[4]]
        );
        assert!(store.reviewer_log("c", "ana").expect("q").is_empty());
        assert_eq!(store.datasets().expect("q"), ["a", "b"]);
    }
}

#[test]
fn record_state_is_upserted_with_the_decision() {
    for store in stores() {
        let store = &*store;
        let d = dec("ds", "r1", "ana", ActionKind::Flag);
        let flagged = RecordState {
            flagged: true,
            ..RecordState::default()
        };
        store.append(&d, Some(&flagged)).expect("append");
        let got = store.record_states("ds").expect("states");
        assert_eq!(
            got["r1"],
            RecordState {
                outcome: OutcomeKind::Open,
                ..flagged
            }
        );
        let removed = RecordState {
            reviewed: true,
            flagged: false,
            outcome: OutcomeKind::Removed,
            stale: true,
        };
        store
            .append(&dec("ds", "r1", "ana", ActionKind::Remove), Some(&removed))
            .expect("append");
        store
            .append(&dec("ds", "r2", "ana", ActionKind::Note), None)
            .expect("append");
        let got = store.record_states("ds").expect("states");
        assert_eq!(got.len(), 1);
        assert_eq!(got["r1"], removed);
        assert_eq!(store.record_state("ds", "r1").expect("q"), Some(removed));
        assert_eq!(store.record_state("ds", "r2").expect("q"), None);
        assert!(store.record_states("other").expect("states").is_empty());
    }
}

#[test]
fn a_bad_state_saves_neither_state_nor_decision() {
    // A state's outcome is an enum now, so a bad one cannot be built; what the database holds
    // is still checked where it is read: an unknown name is an error naming it.
    let conn = rusqlite::Connection::open_in_memory().expect("open");
    let conn = Conn::Sqlite(conn);
    let first = |sql: &str, args: &[engine::Value]| conn.query(sql, args).expect("query").remove(0);
    let err = row::outcome(&first("SELECT 'deleted'", &[]), 0).expect_err("refused");
    assert!(err.to_string().contains("\"deleted\""), "{err}");
    let read = |name: &str| row::outcome(&first("SELECT ?1", &vals![name]), 0).expect("known");
    assert_eq!(OutcomeKind::ALL.map(|k| read(k.name())), OutcomeKind::ALL);
    // A refused decision saves neither it nor the state given with it.
    for store in stores() {
        let mut bad = dec("ds", "r1", "ana", ActionKind::Adjust);
        bad.after = Some(SpanValue::new(5, 2, "x"));
        let removed = RecordState {
            outcome: OutcomeKind::Removed,
            ..RecordState::default()
        };
        store.append(&bad, Some(&removed)).expect_err("refused");
        assert!(store.decisions(None).expect("q").is_empty());
        assert!(store.record_states("ds").expect("q").is_empty());
    }
}

#[test]
fn undo_and_redo_need_an_existing_target_and_others_refuse_one() {
    for store in stores() {
        let store = &*store;
        let e = store
            .append(&dec("ds", "r", "ana", ActionKind::Undo), None)
            .expect_err("no target");
        assert!(e.to_string().contains("without the decision"), "{e}");
        let mut undo = dec("ds", "r", "ana", ActionKind::Undo);
        undo.target = Some(42);
        let e = store.append(&undo, None).expect_err("missing target");
        assert!(e.to_string().contains("no decision #42"), "{e}");
        let mut accept = dec("ds", "r", "ana", ActionKind::Accept);
        accept.target = Some(1);
        let e = store.append(&accept, None).expect_err("target on accept");
        assert!(e.to_string().contains("only undo and redo"), "{e}");
        assert!(store.decisions(None).expect("q").is_empty());

        let first = store
            .append(&dec("ds", "r", "ana", ActionKind::Accept), None)
            .expect("append");
        undo.target = Some(first.id);
        let u = store.append(&undo, None).expect("undo");
        assert_eq!(u.target, Some(first.id));
    }
}

#[test]
fn a_reversed_span_is_refused() {
    for store in stores() {
        let store = &*store;
        let mut d = dec("ds", "r", "ana", ActionKind::Adjust);
        d.after = Some(sv(5, 3, "x"));
        let e = store.append(&d, None).expect_err("reversed");
        assert!(e.to_string().contains("[5, 3)"), "{e}");
    }
}

#[test]
fn the_log_refuses_update_and_delete() {
    for store in stores() {
        let store = &*store;
        let d = store
            .append(&dec("ds", "r", "ana", ActionKind::Accept), None)
            .expect("append");
        assert_log_unchangeable(store, d.id, "append-only");
        assert_eq!(store.decisions(None).expect("q"), [d]);
    }
}

#[test]
fn the_schema_enforces_what_append_checks() {
    for store in stores() {
        let store = &*store;
        let raw = |sql: &str| store.conn.batch(sql);
        let base =
            "INSERT INTO decision (origin, reviewer, time, dataset, record_id, record_hash, action";
        assert!(raw(&format!(
            "{base}) VALUES ('o1','a','t','d','r','h','explode')"
        ))
        .is_err());
        assert!(raw(&format!("{base}) VALUES ('o2','a','t','d','r','h','undo')")).is_err());
        assert!(raw(&format!(
            "{base}, start_after) VALUES ('o3','a','t','d','r','h','add', 3)"
        ))
        .is_err());
        assert!(raw(&format!(
            "{base}) VALUES ('o4','a','t','d','r','h','accept')"
        ))
        .is_ok());
        assert!(raw(&format!(
            "{base}) VALUES ('o4','a','t','d','r','h','accept')"
        ))
        .is_err());
    }
}

#[test]
fn a_file_database_is_created_with_its_folder_and_reopened() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nested/deeper/review.sqlite");
    let d = {
        let store = Store::open(&path).expect("open");
        assert_eq!(store.path(), Some(path.as_path()));
        let conn = store.conn.sqlite().expect("sqlite");
        let mode: String = conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "wal");
        let sync: i64 = conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .expect("sync");
        assert_eq!(sync, 2, "synchronous = FULL");
        store
            .append(&dec("ds", "r", "ana", ActionKind::Accept), None)
            .expect("append")
    };
    let store = Store::open(&path).expect("reopen");
    assert_eq!(store.schema_version().expect("v"), SCHEMA_VERSION);
    assert_eq!(store.decisions(None).expect("q"), [d]);
}

#[test]
fn a_newer_database_is_refused_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("new.sqlite");
    // A rollback-journal database, so that switching it to WAL would change it.
    let future = SCHEMA_VERSION + 1;
    raw_sqlite(
        &path,
        &format!("CREATE TABLE future (x); PRAGMA user_version = {future};"),
    );
    let bytes = std::fs::read(&path).expect("read");
    let e = Store::open(&path).expect_err("refused");
    assert!(matches!(e, StoreError::TooNew { found, .. } if found == SCHEMA_VERSION + 1));
    let msg = e.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("newer spanreview"), "{msg}");
    let conn = Connection::open(&path).expect("raw open");
    let v: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .expect("v");
    assert_eq!(v, SCHEMA_VERSION + 1);
    drop(conn);
    assert_eq!(
        std::fs::read(&path).expect("read"),
        bytes,
        "the file is untouched"
    );
}

#[test]
fn open_existing_does_not_create() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("absent.sqlite");
    let e = Store::open_existing(&path).expect_err("missing");
    assert!(matches!(e, StoreError::Missing { .. }));
    assert!(!path.exists());
}

#[test]
fn a_file_that_is_not_a_database_is_named_in_the_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("notes.txt");
    std::fs::write(
        &path,
        "this is not a database, just some text that is long enough",
    )
    .expect("write");
    let e = Store::open(&path).expect_err("not a db");
    assert!(e.to_string().contains("notes.txt"), "{e}");
}

/// A database at schema version 1 (the first migration only) with one decision, WAL mode.
fn version_one_db(path: &Path) {
    let conn = Connection::open(path).expect("raw open");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    conn.execute_batch(MIGRATIONS[0]).expect("migration 1");
    conn.pragma_update(None, "user_version", 1)
        .expect("version");
    // The columns of version 1 only (row::insert writes today's).
    conn.execute(
        "INSERT INTO decision (origin, reviewer, time, dataset, record_id, record_hash, action) \
         VALUES ('origin-1', 'ana', '2026-11-30T06:00:00.000Z', 'ds', 'r1', 'h', 'clean')",
        [],
    )
    .expect("insert");
}

#[test]
fn open_existing_reads_an_older_schema_without_migrating_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("v1.sqlite");
    version_one_db(&path);
    let bytes = std::fs::read(&path).expect("read");
    let store = Store::open_existing(&path).expect("opens");
    // Read through a copy brought up to date in memory: every table a command reads is there.
    assert_eq!(store.schema_version().expect("v"), SCHEMA_VERSION);
    assert_eq!(store.decisions(None).expect("log").len(), 1);
    assert!(store
        .source_by_hash(&"0".repeat(64))
        .expect("sources")
        .is_empty());
    // What is written to the copy stays there.
    store
        .append(&dec("ds", "r2", "ana", ActionKind::Flag), None)
        .expect("append to the copy");
    drop(store);
    assert_eq!(
        std::fs::read(&path).expect("read"),
        bytes,
        "the file is untouched"
    );
    for s in ["-wal", "-shm"] {
        assert!(!sibling(&path, s).exists(), "no {s} left");
    }
    let conn = Connection::open(&path).expect("raw open");
    let v: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .expect("v");
    assert_eq!(v, 1, "not migrated");
}

#[test]
fn the_private_copy_holds_commits_still_in_the_wal_of_an_open_writer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("live.sqlite");
    let writer = Store::open(&path).expect("writer");
    for r in ["r1", "r2", "r3"] {
        writer
            .append(&dec("ds", r, "ana", ActionKind::Clean), None)
            .expect("append");
    }
    let wal = sibling(&path, "-wal");
    assert!(
        std::fs::metadata(&wal).expect("wal").len() > 0,
        "the commits are in the WAL, not yet in the file"
    );
    // mode=ro through the writer's -shm index: every commit is seen.
    let copy = Store::open_copy(&path).expect("copy while the writer is open");
    assert_eq!(copy.decisions(None).expect("log").len(), 3);
    copy.append(&dec("ds", "r4", "bo", ActionKind::Flag), None)
        .expect("append to the copy");
    assert_eq!(
        writer.decisions(None).expect("log").len(),
        3,
        "not in the file"
    );
    drop(writer);
    assert!(
        !wal.exists(),
        "the last writer checkpointed and removed the WAL"
    );
    // immutable=1 once nobody has it open: the file holds every commit.
    let bytes = std::fs::read(&path).expect("read");
    let copy = Store::open_copy(&path).expect("copy of a closed database");
    assert_eq!(copy.decisions(None).expect("log").len(), 3);
    assert_eq!(copy.path(), Some(path.as_path()));
    drop(copy);
    assert_eq!(std::fs::read(&path).expect("read"), bytes);
    assert!(!wal.exists() && !sibling(&path, "-shm").exists());
}

#[test]
fn a_snapshot_leaves_the_file_and_the_wal_of_an_open_writer_as_they_were() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("theirs.sqlite");
    let writer = Store::open(&path).expect("writer");
    for r in ["r1", "r2"] {
        writer
            .append(&dec("ds", r, "bo", ActionKind::Clean), None)
            .expect("append");
    }
    let files = |p: &Path| ["", "-wal"].map(|s| std::fs::read(sibling(p, s)).expect("read"));
    let before = files(&path);
    let snap = Store::open_snapshot(&path).expect("snapshot");
    assert_eq!(snap.decisions(Some("ds")).expect("log").len(), 2);
    drop(snap);
    assert_eq!(files(&path), before, "no checkpoint, no write");
    drop(writer);
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").expect("empty");
    assert!(matches!(
        Store::open_snapshot(&empty),
        Err(StoreError::Empty { .. })
    ));
    assert_eq!(std::fs::metadata(&empty).expect("still there").len(), 0);
}
