//! A decision log for tests that lists what it reads: how often the screen queries the
//! database.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::formats::Dataset;
use crate::review::decision::Decision;
use crate::store::claims::Claim;
use crate::store::{Assignment, RecordState, Store};
use crate::tui::app::App;
use crate::tui::config::Config;
use crate::tui::log::DecisionLog;
use crate::tui::queue::QueueKind;
use crate::tui::team::TeamLog;

/// A store that lists its reads: `after` for the team poll's read of the new decisions, a
/// record id for a read of that record's log, `plan` for the assignment plan.
pub(super) struct Counting {
    pub(super) store: Store,
    reads: RefCell<Vec<String>>,
}

impl Counting {
    pub(super) fn new(store: Store) -> Rc<Self> {
        Rc::new(Self {
            store,
            reads: RefCell::default(),
        })
    }

    /// The reads since the last call.
    pub(super) fn reads(&self) -> Vec<String> {
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
pub(super) fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/review");
    vec![
        dir.join("records.jsonl"),
        dir.join("predictions_detector.jsonl"),
    ]
}

/// `who`'s screen on [`files`] and `log`, the `all` queue.
pub(super) fn screen(log: Box<dyn DecisionLog>, who: &str) -> App {
    let ds = Dataset::open(&files(), None).expect("fixture opens");
    App::new(ds, log, who, QueueKind::All, Config::defaults(true), None).expect("app")
}

/// A connection to `db`, its clock set to `clock`.
pub(super) fn store(db: &Path, clock: &Arc<Mutex<SystemTime>>) -> Store {
    let s = Store::open(db).expect("db");
    let c = Arc::clone(clock);
    s.set_clock(Arc::new(move || *c.lock().expect("clock")));
    s
}
