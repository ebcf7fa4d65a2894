//! Regression tests for what the monkey test (`monkey.rs`) found, each the shortest sequence
//! that showed the bug.

use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use spanreview::cli::judge_args::JudgeArgs;
use spanreview::formats::Dataset;
use spanreview::review::decision::{replay, ActionKind, Decision};
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Opening, PromptKind, Status};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::log::{state_of, DecisionLog};
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{finish, id};
use super::common::fixture;
use super::monkey::Flaky;

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
    assert_eq!(
        app.dataset_progress().expect("counted").0,
        1,
        "the header counts it reviewed"
    );
    // The poll after it changes nothing, and leaving the record keeps it counted.
    app.poll_team();
    app.update(Action::NextRecord);
    assert_eq!(app.states.get(&removed), stored.get(&removed));
    assert_eq!(app.dataset_progress().expect("counted").0, 1);
}

/// Found by the monkey: undoing a resolution of several rows (a union over two sources'
/// spans) while the database was unreachable kept only the undo of its last row; the retry
/// saved that one, leaving the resolution half undone (one row in force, the other not),
/// which no redo or undo then set right. A resolution is undone whole or not at all.
#[test]
fn a_resolution_undone_while_the_database_is_unreachable_is_undone_whole() {
    let store = Rc::new(Store::open_in_memory().expect("db"));
    let clock = Arc::new(AtomicU64::new(0));
    let c = Arc::clone(&clock);
    store.set_clock(Arc::new(move || {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000 + c.load(Ordering::SeqCst))
    }));
    let down = Rc::new(Cell::new(false));
    let files: Vec<_> = ["records", "predictions_alpha", "predictions_beta"]
        .iter()
        .map(|f| fixture(&format!("monkey/{f}.jsonl")))
        .collect();
    let ds = Dataset::open(&files, None).expect("files open");
    let log = Flaky {
        store: Rc::clone(&store),
        down: Rc::clone(&down),
    };
    let judges = JudgeArgs {
        judges: vec![format!("llm={}", fixture("monkey/judge.jsonl").display())
            .parse()
            .expect("spec")],
        ..JudgeArgs::default()
    };
    let (judges, _) = judges.load(&ds, &ds.name, None).expect("judges load");
    let opening = Opening {
        arb: ArbConfig {
            judges: Some(Arc::new(judges)),
            // The detectors dispute too: the union below is over their spans.
            among: spanreview::review::disagreement::Among::parse("*").expect("spec"),
            ..ArbConfig::default()
        },
        ..Opening::new(QueueKind::Disputed, Config::defaults(true))
    };
    let mut app = App::open(ds, Box::new(log), "monkey", opening).expect("app");
    finish(&mut app);
    // zurich_4 (with the judge): its first cluster taken from the gold, then the second, the
    // union of the sources' spans, saved as two rows.
    app.update(Action::Take1);
    app.update(Action::Union);
    let Status::Saved(msg) = &app.status else {
        panic!("union not saved: {:?}", app.status)
    };
    assert!(msg.contains('–'), "two rows: {msg}");
    let record = app.cur.as_ref().expect("record").record.clone();
    let before = replay(
        &record,
        &store
            .record_decisions(&app.dataset.name, &record.id)
            .expect("log"),
    );
    down.set(true);
    app.update(Action::Undo);
    assert!(matches!(app.status, Status::Error(_)), "{:?}", app.status);
    assert_eq!(app.unsaved_rows().len(), 2, "both rows' undos kept");
    down.set(false);
    clock.fetch_add(5, Ordering::SeqCst);
    app.idle();
    assert!(!app.has_unsaved());
    app.update(Action::Redo);
    assert!(matches!(app.status, Status::Saved(_)), "{:?}", app.status);
    let after = replay(
        &record,
        &store
            .record_decisions(&app.dataset.name, &record.id)
            .expect("log"),
    );
    assert_eq!(
        after.spans, before.spans,
        "undo then redo gives the resolution back"
    );
}

/// Seen while writing the monkey's lone mouse events: a press on the answer, then a key that
/// opens a prompt (a note being typed), then the move and release elsewhere on the answer
/// replaced the prompt with add mode and the label picker of a span to add, throwing away what
/// was typed. A move or release goes on only with a drag the screen is still in (the review
/// screen or add mode).
#[test]
fn a_mouse_release_does_not_replace_a_prompt_opened_during_the_drag() {
    let store = super::app_harness::mem();
    let mut app = super::app_harness::review_app(&store);
    super::app_harness::render(&mut app, 100, 30);
    let (x0, y0) = super::app_harness::cell_of(&app, 0);
    let (x1, y1) = super::app_harness::cell_of(&app, 5);
    app.update(Action::MouseDown(x0, y0));
    app.update(Action::Note);
    super::app_harness::typed(&mut app, "°’東 note");
    app.update(Action::MouseDrag(x1, y1));
    app.update(Action::MouseUp(x1, y1));
    assert_eq!(
        app.mode,
        ModeState::Prompt {
            kind: PromptKind::Note,
            text: "°’東 note".to_owned()
        }
    );
    // The note is still saved as typed.
    app.update(Action::Confirm);
    assert!(matches!(app.status, Status::Saved(_)), "{:?}", app.status);
    assert_eq!(
        app.cur.as_ref().expect("record").review.notes,
        vec!["°’東 note".to_owned()]
    );
}

/// Found by the monkey: the reviewer's own removal reached the screen while a boundary edit
/// was open (saved by their other session, or undone and redone), and confirming the edit
/// saved an adjust into the removed record, which `apply` refuses ("removed by monkey, so it
/// keeps no span"). The save checks the rule itself, whatever mode the key came from.
#[test]
fn an_edit_left_open_is_not_saved_into_a_record_its_reviewer_removed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("closed ’.db");
    let (store, mut app) = app_on(&db);
    let i = (0..app.dataset.len())
        .find(|&i| {
            !app.dataset
                .record(i)
                .expect("record")
                .gold_spans()
                .is_empty()
        })
        .expect("a record with a span");
    let record = app.dataset.record(i).expect("record");
    while id(&app) != record.id {
        app.update(Action::NextRecord);
    }
    app.update(Action::Adjust);
    assert!(
        matches!(app.mode, ModeState::Adjust { .. }),
        "{:?}",
        app.mode
    );
    // The same reviewer removes it from another session; the screen follows.
    let mut d = Decision::new(&record, &app.dataset.name, "monkey", ActionKind::Remove);
    d.reason = Some("duplicate °".to_owned());
    Store::open(&db)
        .expect("db opens")
        .append_all_then(&[d], &|log| state_of(&replay(&record, log)))
        .expect("saved");
    app.poll_team();
    app.update(Action::StartLeft);
    app.update(Action::Confirm);
    let log = store
        .record_decisions(&app.dataset.name, &record.id)
        .expect("log");
    assert!(
        log.iter().all(|d| d.action != ActionKind::Adjust),
        "{log:?}"
    );
    let said = match &app.status {
        Status::Saved(m) | Status::Error(m) | Status::Info(m) => m.clone(),
        other => format!("{other:?}"),
    };
    assert!(said.contains("removed"), "{said}");
}
