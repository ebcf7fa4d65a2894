//! A review screen whose save finds another process holding the SQLite write lock (a long
//! `apply`), in a real terminal: the keys' effects show at once, the status line says the
//! decisions wait for the database, and once the lock goes they are all saved, in order.

use std::path::Path;
use std::time::{Duration, Instant};

use spanreview::review::decision::ActionKind;
use spanreview::store::Store;

use super::common::fixture;
use super::terminal::{bin, env, shell_quote, Tmux};

/// The decisions in `db`, oldest first: (record, action, span key).
fn logged(db: &Path) -> Vec<(String, ActionKind, Option<String>)> {
    let store = Store::open(db).expect("db opens");
    store
        .decisions(None)
        .expect("log")
        .into_iter()
        .map(|d| (d.record_id, d.action, d.span_key))
        .collect()
}

/// Known bad: the screen of before (30 s busy timeout, no retry, kept decisions refusing new
/// ones) froze on the first `a` with the lock held, never showed "(2 pending)", and failed the
/// first decision "database is locked" and refused the second.
#[test]
fn keys_while_another_process_holds_the_write_lock_show_at_once_and_are_saved_after() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("wait ’東京.sqlite");
    let files = [
        fixture("review/records.jsonl"),
        fixture("review/predictions_detector.jsonl"),
    ]
    .iter()
    .map(|p| shell_quote(p))
    .collect::<Vec<_>>()
    .join(" ");
    let cmd = format!(
        "sh -c \"{} review {files} --db {} --reviewer ana --queue all; echo exit=\\$?; sleep 600\"",
        bin(),
        shell_quote(&db),
    );
    let Some(t) = Tmux::start("write-wait", &cmd, &env(dir.path())) else {
        return;
    };
    t.wait("uni_1__contradiction");
    // The record with two spans.
    t.press(&["n"], "plain_2__overgeneration");
    // Another process takes the write lock and holds it (an `apply` inserting).
    let other = rusqlite::Connection::open(&db).expect("other");
    other.execute_batch("BEGIN IMMEDIATE").expect("lock");
    let held = Instant::now();
    // `a` accepts and moves to the next pending span, saved or kept (known bad: kept, it
    // stayed, and the second `a` accepted the same span again).
    t.keys(&["a", "a"]);
    let s = t.wait("(2 pending)");
    assert!(s.contains("another process is writing (apply?)"), "{s}");
    // Both shown as accepted at once.
    assert_eq!(s.matches("”  accepted").count(), 2, "{s}");
    assert!(
        held.elapsed() < Duration::from_secs(10),
        "the keys waited {:?} for the lock",
        held.elapsed()
    );
    // Still taking keys: moving on and back redraws, the decisions still shown and waiting.
    t.press(&["n"], "clean_3__clean");
    t.press(&["p"], "plain_2__overgeneration");
    std::thread::sleep(Duration::from_secs(3));
    let s = t.screen();
    assert!(s.contains("(2 pending)"), "{s}");
    assert!(logged(&db).is_empty(), "nothing saved under the lock");
    other.execute_batch("COMMIT").expect("commit");
    drop(other);
    t.wait("saved #1, #2");
    let log = logged(&db);
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log.iter()
            .all(|(r, a, _)| r == "plain_2__overgeneration" && *a == ActionKind::Accept),
        "{log:?}"
    );
    assert_ne!(log[0].2, log[1].2, "two spans, in order: {log:?}");
    t.keys(&["q"]);
    let s = t.wait("exit=");
    assert!(s.contains("exit=0"), "{s}");
}
