//! Issue 21's team rules on the screen: what the arbitration screen saves is the arbiter's
//! (marked, so no reviewer's review), blind review hides the others' work, and which sources
//! count as disputing.

use std::path::PathBuf;

use spanreview::review::decision::ActionKind;
use spanreview::review::team::ARBITRATION_GROUP;
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{finish, mem, open};
use super::common::fixture;

fn fixture_files() -> Vec<PathBuf> {
    [
        "records.jsonl",
        "predictions_alpha.jsonl",
        "predictions_beta.jsonl",
    ]
    .iter()
    .map(|f| fixture(&format!("arbitrate/{f}")))
    .collect()
}

/// A clean pressed on the arbitration screen is saved marked as the arbiter's (its group);
/// the same key on the review screen is a reviewer's decision, unmarked.
#[test]
fn the_arbitration_screens_decisions_are_marked_as_the_arbiters() {
    let store = mem();
    let mut app = open(
        &fixture_files(),
        &store,
        QueueKind::Disputed,
        ArbConfig::default(),
    );
    finish(&mut app);
    assert!(app.arbitrating);
    app.update(Action::Clean);
    let log = store.decisions(None).expect("log");
    let last = log.last().expect("saved");
    assert_eq!(last.action, ActionKind::Clean);
    let group = last.group.as_deref().unwrap_or_default();
    assert!(group.starts_with(ARBITRATION_GROUP), "{last:?}");
    app.update(Action::Undo);
    let undo = store.decisions(None).expect("log").pop().expect("undo");
    assert_eq!((undo.action, undo.group), (ActionKind::Undo, None));
    // Back on the review screen: a reviewer's clean.
    app.update(Action::Arbitrate);
    assert!(!app.arbitrating);
    app.update(Action::Clean);
    let last = store.decisions(None).expect("log").pop().expect("saved");
    assert_eq!((last.action, last.group), (ActionKind::Clean, None));
}
