//! How often the review screen reads a shared database: the idle tick's following of the
//! record on screen and its team poll are fed by one query, and a plan the caller read is not
//! read again at open. A log that lists its reads counts them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use spanreview::formats::Dataset;
use spanreview::review::decision::{ActionKind, Decision, OutcomeKind};
use spanreview::store::claims::Claim;
use spanreview::store::{Assignment, RecordState, Store};
use spanreview::tui::app::{App, Opening, PlanAtOpen, Status};
use spanreview::tui::config::Config;
use spanreview::tui::log::DecisionLog;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::team_model::TeamLog;
use spanreview::tui::Action;

use super::common::fixture;

/// A store that lists its reads: `after` for the team poll's read of the new decisions, a
/// record id for a read of that record's log, `plan` for the assignment plan.
struct Counting {
    store: Store,
    reads: RefCell<Vec<String>>,
}

impl Counting {
    fn new(store: Store) -> Rc<Self> {
        Rc::new(Self {
            store,
            reads: RefCell::default(),
        })
    }

    /// The reads since the last call.
    fn reads(&self) -> Vec<String> {
        self.reads.take()
    }
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
        self.reads.borrow_mut().push("plan".to_owned());
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

/// The review fixture: its records and the detector's predictions.
fn files() -> Vec<PathBuf> {
    vec![
        fixture("review/records.jsonl"),
        fixture("review/predictions_detector.jsonl"),
    ]
}

/// `who`'s screen on [`files`] and `log`, the `all` queue.
fn screen(log: Box<dyn DecisionLog>, who: &str) -> App {
    let ds = Dataset::open(&files(), None).expect("fixture opens");
    App::new(ds, log, who, QueueKind::All, Config::defaults(true), None).expect("app")
}

/// A connection to `db`, its clock set to `clock`.
fn store(db: &Path, clock: &Arc<Mutex<SystemTime>>) -> Store {
    let s = Store::open(db).expect("db");
    let c = Arc::clone(clock);
    s.set_clock(Arc::new(move || *c.lock().expect("clock")));
    s
}

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
    let mut d = Decision::new(&c.record, &ana.dataset.name, "ana", ActionKind::AcceptAll);
    d.auto = true;
    let state = RecordState {
        reviewed: true,
        flagged: false,
        outcome: OutcomeKind::Open,
        stale: false,
    };
    store(&db, &clock).append(&d, Some(&state)).expect("saved");
    *clock.lock().expect("clock") += Duration::from_secs(1);
    ana.idle();
    let c = ana.cur.as_ref().expect("a record");
    assert_eq!(c.decisions.len(), 1);
    assert!(ana.current_state().is_some_and(|s| s.reviewed));
}

fn plan() -> Vec<Assignment> {
    let a = |id: &str, who: &[&str]| Assignment {
        record_id: id.to_owned(),
        reviewers: who.iter().map(|&w| w.to_owned()).collect(),
    };
    vec![
        a("uni_1__contradiction", &["zoë", "bo"]),
        a("plain_2__overgeneration", &["bo"]),
    ]
}

fn open(log: &Rc<Counting>, plan: PlanAtOpen) -> App {
    let ds = Dataset::open(&[fixture("review/records.jsonl")], None).expect("fixture opens");
    let opening = Opening {
        plan,
        ..Opening::new(QueueKind::Mine, Config::defaults(true))
    };
    App::open(ds, Box::new(Rc::clone(log)), "zoë", opening).expect("app")
}

#[test]
fn a_plan_the_caller_read_is_not_read_again_at_open() {
    let dir = tempfile::tempdir().expect("tmp");
    let log = Counting::new(Store::open(&dir.path().join("plan °.sqlite")).expect("db"));
    log.store.save_plan("records", &plan()).expect("plan");
    // Read by the caller (`review`, to choose the default queue): used as given.
    let read = log.store.plan("records").expect("plan");
    let app = open(&log, PlanAtOpen::Read(read));
    assert!(!log.reads().iter().any(|r| r == "plan"));
    assert_eq!(app.queue.members(), [0]);
    assert_eq!(app.team_line().as_deref(), Some("mine 0/1 · team 0/2"));
    // Not read by the caller: read at open, once.
    let app = open(&log, PlanAtOpen::Unread);
    assert_eq!(log.reads().iter().filter(|r| *r == "plan").count(), 1);
    assert_eq!(app.team_line().as_deref(), Some("mine 0/1 · team 0/2"));
}
