//! Issue 21 (8): the review screen's "overrides X's …" notice also fires when the decision
//! overridden was an `accept_all` (ana's drop over cy's `A`) or a reclassification (cy's accept
//! over ana's `c`). Two reviewers on one database, on the review fixture's first record (“rainy”
//! [29, 34)).

use std::path::Path;
use std::rc::Rc;

use spanreview::store::Store;
use spanreview::tui::app::{App, Status};
use spanreview::tui::Action;

use super::app_harness::{open_as, review_files};

fn two(dir: &Path) -> (App, App) {
    let path = dir.join("team ’.sqlite");
    let (a, b) = (
        Rc::new(Store::open(&path).expect("db")),
        Rc::new(Store::open(&path).expect("db")),
    );
    (
        open_as(&review_files(), &a, "ana"),
        open_as(&review_files(), &b, "cy"),
    )
}

fn saved(app: &App) -> String {
    match &app.status {
        Status::Saved(m) => m.clone(),
        other => panic!("not saved: {other:?}"),
    }
}

#[test]
fn a_drop_over_another_reviewers_accept_all_says_it_overrides_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut ana, mut cy) = two(dir.path());
    cy.update(Action::AcceptAll);
    for a in [Action::Drop, Action::Confirm] {
        ana.update(a);
    }
    let s = saved(&ana);
    assert!(
        s.contains("overrides cy's accept_all of “rainy” [29, 34)"),
        "{s}"
    );
}

#[test]
fn an_accept_over_another_reviewers_clean_says_it_overrides_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut ana, mut cy) = two(dir.path());
    ana.update(Action::Clean);
    cy.update(Action::Accept);
    let s = saved(&cy);
    assert!(s.contains("overrides ana's clean"), "{s}");
    // Agreeing says nothing of the kind: bo's accept after cy's.
    let path = dir.path().join("team ’.sqlite");
    let mut bo = open_as(
        &review_files(),
        &Rc::new(Store::open(&path).expect("db")),
        "bo",
    );
    bo.update(Action::Accept);
    assert!(!saved(&bo).contains("overrides"), "{}", saved(&bo));
}
