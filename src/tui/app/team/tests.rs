//! The plan at open: read once.

use std::path::Path;
use std::rc::Rc;

use crate::formats::Dataset;
use crate::store::{Assignment, Store};
use crate::tui::app::counting::Counting;
use crate::tui::app::{App, Opening};
use crate::tui::config::Config;
use crate::tui::queue::QueueKind;

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

fn open(log: &Rc<Counting>, plan: Option<Option<Vec<Assignment>>>) -> App {
    let records = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/review/records.jsonl");
    let ds = Dataset::open(&[records], None).expect("fixture opens");
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
    let app = open(&log, Some(read));
    assert!(!log.reads().iter().any(|r| r == "plan"));
    assert_eq!(app.queue.members(), [0]);
    assert_eq!(app.team_line().as_deref(), Some("mine 0/1 · team 0/2"));
    // Not read by the caller: read at open, once.
    let app = open(&log, None);
    assert_eq!(log.reads().iter().filter(|r| *r == "plan").count(), 1);
    assert_eq!(app.team_line().as_deref(), Some("mine 0/1 · team 0/2"));
}
