//! The idle tick's reads of a shared decision log: following the record on screen and polling
//! the team are fed by one query.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::formats::Dataset;
use crate::review::decision::Decision;
use crate::store::claims::Claim;
use crate::store::{Assignment, RecordState, Store};
use crate::tui::app::{App, Status};
use crate::tui::config::Config;
use crate::tui::log::DecisionLog;
use crate::tui::queue::QueueKind;
use crate::tui::team::TeamLog;
use crate::tui::Action;

/// A store that lists its reads of decisions: `after` for the team poll's read of the new
/// decisions, a record id for a read of that record's log.
struct Counting {
    store: Store,
    reads: RefCell<Vec<String>>,
}

impl DecisionLog for Counting {
    fn append(&self, d: &Decision, state: &RecordState) -> Result<Decision, String> {
        DecisionLog::append(&self.store, d, state)
    }
    fn append_then_origins(
        &self,
        rows: &[(Decision, String)],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, (String, bool)> {
        self.store.append_then_origins(rows, state_of)
    }
    fn record_decisions(&self, dataset: &str, record_id: &str) -> Result<Vec<Decision>, String> {
        self.reads.borrow_mut().push(record_id.to_owned());
        DecisionLog::record_decisions(&self.store, dataset, record_id)
    }
    fn reviewer_log(&self, dataset: &str, reviewer: &str) -> Result<Vec<Decision>, String> {
        DecisionLog::reviewer_log(&self.store, dataset, reviewer)
    }
    fn record_states(&self, dataset: &str) -> Result<HashMap<String, RecordState>, String> {
        DecisionLog::record_states(&self.store, dataset)
    }
    fn now(&self) -> SystemTime {
        self.store.now()
    }
    fn team(&self) -> Option<&dyn TeamLog> {
        Some(self)
    }
}

impl TeamLog for Counting {
    fn plan(&self, dataset: &str) -> Result<Option<Vec<Assignment>>, String> {
        TeamLog::plan(&self.store, dataset)
    }
    fn claim(
        &self,
        dataset: &str,
        record_id: &str,
        reviewer: &str,
        leaving: Option<&str>,
    ) -> Result<Claim, String> {
        TeamLog::claim(&self.store, dataset, record_id, reviewer, leaving)
    }
    fn release_claims(&self, dataset: &str, reviewer: &str) -> Result<(), String> {
        TeamLog::release_claims(&self.store, dataset, reviewer)
    }
    fn claims_of_others(
        &self,
        dataset: &str,
        reviewer: &str,
    ) -> Result<HashMap<String, String>, String> {
        TeamLog::claims_of_others(&self.store, dataset, reviewer)
    }
    fn last_decision_id(&self) -> Result<i64, String> {
        TeamLog::last_decision_id(&self.store)
    }
    fn decisions_after(&self, dataset: &str, after: i64) -> Result<Vec<Decision>, String> {
        self.reads.borrow_mut().push("after".to_owned());
        TeamLog::decisions_after(&self.store, dataset, after)
    }
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/review");
    vec![
        dir.join("records.jsonl"),
        dir.join("predictions_detector.jsonl"),
    ]
}

fn screen(log: Box<dyn DecisionLog>, who: &str) -> App {
    let ds = Dataset::open(&files(), None).expect("fixture opens");
    App::new(ds, log, who, QueueKind::All, Config::defaults(true), None).expect("app")
}

/// Its store's clock set to `clock`.
fn store(db: &Path, clock: &Arc<Mutex<SystemTime>>) -> Store {
    let s = Store::open(db).expect("db");
    let c = Arc::clone(clock);
    s.set_clock(Arc::new(move || *c.lock().expect("clock")));
    s
}

fn reads(log: &Rc<Counting>) -> Vec<String> {
    log.reads.take()
}

#[test]
fn the_idle_tick_reads_the_log_once_and_both_the_follow_and_the_poll_see_a_new_decision() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("team °.sqlite");
    let clock = Arc::new(Mutex::new(SystemTime::now()));
    let tick = || *clock.lock().expect("clock") += Duration::from_secs(1);
    let ana_log = Rc::new(Counting {
        store: store(&db, &clock),
        reads: RefCell::default(),
    });
    let mut ana = screen(Box::new(Rc::clone(&ana_log)), "ana");
    let mut bo = screen(Box::new(Rc::new(store(&db, &clock))), "bo");
    let here = ana.cur.as_ref().expect("a record").record.id.clone();
    assert_eq!(here, "uni_1__contradiction");
    ana.idle();
    reads(&ana_log);

    // Nothing new: one read, of the new decisions.
    tick();
    ana.idle();
    assert_eq!(reads(&ana_log), ["after"]);

    // Bo accepts the record on ana's screen whole, then the next one.
    bo.update(Action::AcceptAll);
    bo.update(Action::AcceptAll);
    let next = "plain_2__overgeneration";
    assert!(!ana.states.get(next).is_some_and(|s| s.reviewed));
    tick();
    ana.idle();
    // Each record's log is read once: the record on screen's serves the follow too.
    assert_eq!(reads(&ana_log), ["after", here.as_str(), next]);
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
    assert_eq!(reads(&ana_log), ["after"]);
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
