//! Regression tests for what the monkey test (`monkey.rs`) found, each the shortest sequence
//! that showed the bug.

use std::path::Path;
use std::rc::Rc;

use spanreview::formats::Dataset;
use spanreview::review::decision::{replay, ActionKind, Decision};
use spanreview::store::Store;
use spanreview::tui::app::{App, Opening};
use spanreview::tui::config::Config;
use spanreview::tui::log::state_of;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{finish, id};
use super::common::fixture;

/// The monkey fixture's records (every record, reviewing as `monkey`) on the database `db`.
fn app_on(db: &Path) -> (Rc<Store>, App) {
    let store = Rc::new(Store::open(db).expect("db opens"));
    let ds = Dataset::open(&[fixture("monkey/records.jsonl")], None).expect("files open");
    let opening = Opening::new(QueueKind::All, Config::defaults(true));
    let mut app = App::open(ds, Box::new(Rc::clone(&store)), "monkey", opening).expect("app");
    finish(&mut app);
    (store, app)
}

/// Another reviewer, on its own connection, removes dataset record `i`, as a screen would save
/// it (with the record's state).
fn other_removes(app: &App, db: &Path, i: usize) -> String {
    let other = Store::open(db).expect("db opens");
    let record = app.dataset.record(i).expect("record");
    let mut d = Decision::new(&record, &app.dataset.name, "other", ActionKind::Remove);
    d.reason = Some("duplicate".to_owned());
    other
        .append_all_then(&[d], &|log| state_of(&replay(&record, log)))
        .expect("saved");
    record.id
}

/// Found by the monkey: another reviewer removed a record, and the reviewer moved to it before
/// the screen's next poll. The record showed as removed (its log is read when shown), but the
/// screen's state of it stayed "open": the header counted it as not reviewed, and the poll that
/// followed skipped it (the record on screen is left to the follow, which found nothing new),
/// so it stayed wrong for as long as the record was on screen and after.
#[test]
fn a_record_decided_elsewhere_counts_once_shown_before_the_poll() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("decisions.db");
    let (store, mut app) = app_on(&db);
    let removed = other_removes(&app, &db, 1);
    app.update(Action::NextRecord);
    assert_eq!(id(&app), removed);
    let stored = store.record_states(&app.dataset.name).expect("states");
    assert_eq!(app.states.get(&removed), stored.get(&removed));
    assert_eq!(app.dataset_progress().0, 1, "the header counts it reviewed");
    // The poll after it changes nothing, and leaving the record keeps it counted.
    app.poll_team();
    app.update(Action::NextRecord);
    assert_eq!(app.states.get(&removed), stored.get(&removed));
    assert_eq!(app.dataset_progress().0, 1);
}
