//! The queue filters by confidence range, reviewer and outcome, walked through `App` on the
//! review fixture (detector confidences 0.7 on `uni_1`, 0.9 on `plain_2`; the records file's
//! gold spans have none); each with a record that must stay out.

use std::process::Command;
use std::rc::Rc;

use spanreview::formats::Dataset;
use spanreview::review::decision::OutcomeKind;
use spanreview::store::Store;
use spanreview::tui::app::App;
use spanreview::tui::config::Config;
use spanreview::tui::Action;

use super::app_harness::{mem, render, review_files, walked};
use super::common::fixture;
use super::terminal::bin;

fn app_as(store: &Rc<Store>, reviewer: &str, queue: &str) -> App {
    let ds = Dataset::open(&review_files(), None).expect("fixture opens");
    App::new(
        ds,
        Box::new(Rc::clone(store)),
        reviewer,
        queue.parse().expect("queue parses"),
        Config::defaults(true),
        None,
    )
    .expect("app")
}

fn goto(app: &mut App, id: &str) {
    app.update(Action::Goto);
    for c in id.chars() {
        app.update(Action::Input(c));
    }
    app.update(Action::Confirm);
    assert_eq!(app.cur.as_ref().expect("record").record.id, id);
}

#[test]
fn confidence_range_includes_both_ends_and_leaves_out_spans_without_one() {
    let store = mem();
    let mut app = app_as(&store, "tester", "confidence:0.3-0.7");
    // plain_2's 0.9 is out; clean_3 and tool_4 have spans, none with a confidence.
    assert_eq!(walked(&mut app), ["uni_1__contradiction"]);
    assert!(render(&mut app, 120, 30).contains("queue confidence:0.3-0.7"));
    let mut both = app_as(&store, "tester", "confidence:0.7-0.9");
    assert_eq!(
        walked(&mut both),
        ["uni_1__contradiction", "plain_2__overgeneration"]
    );
    let mut between = app_as(&store, "tester", "confidence:0.71-0.89");
    assert!(walked(&mut between).is_empty());
    let mut all = app_as(&store, "tester", "confidence:0-1");
    assert!(!walked(&mut all).contains(&"clean_3__clean".to_owned()));
}

/// `ana` cleans uni_1 and accepts tool_4's span; `bo` removes plain_2; clean_3 is untouched.
fn decided() -> Rc<Store> {
    let store = mem();
    let mut ana = app_as(&store, "ana", "all");
    goto(&mut ana, "uni_1__contradiction");
    ana.update(Action::Clean);
    goto(&mut ana, "tool_4__missing_tool");
    ana.update(Action::Accept);
    let mut bo = app_as(&store, "bo", "all");
    goto(&mut bo, "plain_2__overgeneration");
    bo.update(Action::Remove);
    bo.update(Action::Input('1'));
    let states = store.record_states("records").expect("states");
    assert_eq!(
        states["plain_2__overgeneration"].outcome,
        OutcomeKind::Removed
    );
    assert_eq!(states["tool_4__missing_tool"].outcome, OutcomeKind::Open);
    assert!(!states.contains_key("clean_3__clean"));
    store
}

#[test]
fn reviewer_queue_holds_the_records_that_reviewer_decided_on() {
    let store = decided();
    // Opened by someone else: the queue is ana's records, not the opener's.
    let mut app = app_as(&store, "bo", "reviewer:ana");
    assert_eq!(
        walked(&mut app),
        ["uni_1__contradiction", "tool_4__missing_tool"]
    );
    let mut bo = app_as(&store, "ana", "reviewer:bo");
    assert_eq!(walked(&mut bo), ["plain_2__overgeneration"]);
    let mut nobody = app_as(&store, "ana", "reviewer:nobody");
    assert!(walked(&mut nobody).is_empty());
}

#[test]
fn outcome_queues_follow_the_record_states() {
    let store = decided();
    let mut clean = app_as(&store, "tester", "outcome:clean");
    assert_eq!(walked(&mut clean), ["uni_1__contradiction"]);
    let mut removed = app_as(&store, "tester", "outcome:removed");
    assert_eq!(walked(&mut removed), ["plain_2__overgeneration"]);
    // Open: decided on and kept; clean_3, never touched, is not in it.
    let mut open = app_as(&store, "tester", "outcome:open");
    assert_eq!(walked(&mut open), ["tool_4__missing_tool"]);
}

#[test]
fn a_bad_filter_is_refused_with_the_value_named() {
    for (queue, says) in [
        ("confidence:0.9-0.1", "low end is above the high end"),
        ("confidence:high", "no `-`"),
        ("outcome:closed", "expected open, clean or removed"),
    ] {
        let out = Command::new(bin())
            .args(["review", "--queue", queue, "--db"])
            .arg(std::env::temp_dir().join("spanreview-queue-filters-unused.sqlite"))
            .arg(fixture("review/records.jsonl"))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{queue}");
        assert!(err.contains(queue) && err.contains(says), "{queue}: {err}");
    }
}
