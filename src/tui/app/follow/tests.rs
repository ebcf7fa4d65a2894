//! The idle tick's reads of a shared decision log: following the record on screen and polling
//! the team are fed by one query.

use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::review::decision::Decision;
use crate::store::RecordState;
use crate::tui::app::counting::{screen, store, Counting};
use crate::tui::app::Status;
use crate::tui::Action;

#[test]
fn the_idle_tick_reads_the_log_once_and_both_the_follow_and_the_poll_see_a_new_decision() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team °.sqlite");
    let clock = Arc::new(Mutex::new(SystemTime::now()));
    let tick = || *clock.lock().expect("clock") += Duration::from_secs(1);
    let ana_log = Counting::new(store(&db, &clock));
    let mut ana = screen(Box::new(Rc::clone(&ana_log)), "ana");
    let mut bo = screen(Box::new(Rc::new(store(&db, &clock))), "bo");
    let here = ana.cur.as_ref().expect("a record").record.id.clone();
    assert_eq!(here, "uni_1__contradiction");
    ana.idle();
    ana_log.reads();

    // Nothing new: one read, of the new decisions.
    tick();
    ana.idle();
    assert_eq!(ana_log.reads(), ["after"]);

    // Bo accepts the record on ana's screen whole, then the next one.
    bo.update(Action::AcceptAll);
    bo.update(Action::AcceptAll);
    let next = "plain_2__overgeneration";
    assert!(!ana.states.get(next).is_some_and(|s| s.reviewed));
    tick();
    ana.idle();
    // Each record's log is read once: the record on screen's serves the follow too.
    assert_eq!(ana_log.reads(), ["after", here.as_str(), next]);
    // The follow told ana and shows bo's decision on her record ...
    assert_eq!(
        ana.status,
        Status::Info("bo accepted every span a moment ago".into())
    );
    let c = ana.cur.as_ref().expect("a record");
    assert_eq!(c.decisions.len(), 1);
    assert!(ana.states.get(&here).is_some_and(|s| s.reviewed));
    // ... and the poll took in the record off screen.
    assert!(ana.states.get(next).is_some_and(|s| s.reviewed));

    // Nothing new again: nothing more read or said.
    tick();
    ana.idle();
    assert_eq!(ana_log.reads(), ["after"]);
    assert_eq!(
        ana.status,
        Status::Info("bo accepted every span a moment ago".into())
    );
}

#[test]
fn an_auto_accept_under_ones_own_name_elsewhere_on_the_record_on_screen_is_followed() {
    // The poll skips this reviewer's auto-accepts (the screen saved them itself), but one on
    // the record on screen may come from another process under the same name.
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("same name ’.sqlite");
    let clock = Arc::new(Mutex::new(SystemTime::now()));
    let mut ana = screen(Box::new(Rc::new(store(&db, &clock))), "ana");
    ana.idle();
    let c = ana.cur.as_ref().expect("a record");
    let mut d = Decision::new(
        &c.record,
        &ana.dataset.name,
        "ana",
        crate::review::decision::ActionKind::AcceptAll,
    );
    d.auto = true;
    let state = RecordState {
        reviewed: true,
        flagged: false,
        outcome: crate::review::decision::OutcomeKind::Open,
        stale: false,
    };
    store(&db, &clock).append(&d, Some(&state)).expect("saved");
    *clock.lock().expect("clock") += Duration::from_secs(1);
    ana.idle();
    let c = ana.cur.as_ref().expect("a record");
    assert_eq!(c.decisions.len(), 1);
    assert!(ana.current_state().is_some_and(|s| s.reviewed));
}
