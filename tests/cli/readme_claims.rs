//! The README's and `--help`'s claims, run as a new user runs them: each test takes one claim
//! that a walk through the README found wrong or untested, and checks it on the command or the
//! flow the README shows.

use std::rc::Rc;

use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Status};
use spanreview::tui::edit::Bounds;
use spanreview::tui::Action;

use super::app_harness::{goto, mem, open_all};
use super::common::data;

// ----- review, arbitration keys: "`t` ... (`Tab`/`Shift-Tab`: the next / previous lane's)" -----

/// The bundled sample, its three sources, on the arbitration screen at `record`.
fn arbitrating(store: &Rc<Store>, record: &str) -> App {
    let files = [
        data("toolace/test_records_reconstructed.jsonl"),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ];
    let mut app = open_all(&files, store);
    goto(&mut app, record);
    app.update(Action::Arbitrate);
    assert_eq!(app.mode, ModeState::Arbitrate);
    app
}

/// The arbitration edit's boundaries and the lane its status line says it started from.
fn editing(app: &App) -> (Bounds, String) {
    let ModeState::Settle { bounds, .. } = &app.mode else {
        panic!("not in the arbitration edit: {:?}", app.mode);
    };
    let Status::Info(s) = &app.status else {
        panic!("no status: {:?}", app.status);
    };
    let lane = s
        .split("lane ")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("no lane in {s:?}"));
    (*bounds, lane.to_owned())
}

fn b(start: usize, end: usize) -> Bounds {
    Bounds { start, end }
}

#[test]
fn tab_in_the_arbitration_edit_walks_every_lane_when_two_share_a_version() {
    // toolace_train_00021__overgeneration's second cluster: gold and the ensemble both mark
    // [184, 255), ModernBERT [183, 255). Lanes with equal versions are still two lanes: Tab
    // goes 1 → 2 → 3 → 1, Shift-Tab back.
    let store = mem();
    let mut app = arbitrating(&store, "toolace_train_00021__overgeneration");
    app.update(Action::NextSpan);
    app.update(Action::Adjust);
    assert_eq!(editing(&app), (b(184, 255), "1".into()));
    let mut walk = Vec::new();
    for a in [
        Action::NextVersion,
        Action::NextVersion,
        Action::NextVersion,
        Action::PrevVersion,
        Action::PrevVersion,
    ] {
        app.update(a);
        walk.push(editing(&app));
    }
    assert_eq!(
        walk,
        [
            (b(184, 255), "2".into()),
            (b(183, 255), "3".into()),
            (b(184, 255), "1".into()),
            (b(183, 255), "3".into()),
            (b(184, 255), "2".into()),
        ]
    );
    // Tab to ModernBERT's version, Enter: its version is the one saved.
    app.update(Action::NextVersion);
    assert_eq!(editing(&app).1, "3");
    app.update(Action::Confirm);
    let log = store.decisions(None).expect("log");
    let after = log.last().and_then(|d| d.after.clone()).expect("saved");
    assert_eq!((after.start, after.end), (183, 255));
}

#[test]
fn tab_in_the_arbitration_edit_wraps_over_two_equal_versions() {
    // The first cluster: gold and the ensemble both [0, 48), ModernBERT nothing (no version).
    let store = mem();
    let mut app = arbitrating(&store, "toolace_train_00021__overgeneration");
    app.update(Action::Adjust);
    assert_eq!(editing(&app), (b(0, 48), "1".into()));
    app.update(Action::NextVersion);
    assert_eq!(editing(&app), (b(0, 48), "2".into()));
    app.update(Action::NextVersion);
    assert_eq!(editing(&app), (b(0, 48), "1".into()), "wraps to lane 1");
    app.update(Action::PrevVersion);
    assert_eq!(editing(&app), (b(0, 48), "2".into()), "back to lane 2");
}
