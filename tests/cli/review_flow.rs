//! The review screen without a terminal: actions fed into `App`, the database checked
//! afterwards; views rendered into ratatui's `TestBackend` and snapshotted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use predicates::prelude::*;
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;
use ratatui::Terminal;
use spanreview::formats::Dataset;
use spanreview::review::decision::OutcomeKind;
use spanreview::review::decision::{ActionKind, Decision, SpanStatus};
use spanreview::store::{RecordState, Store};
use spanreview::tui::app::{App, ModeState, Opening, Status};
use spanreview::tui::config::Config;
use spanreview::tui::log::DecisionLog;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::{terminal, Action};

use super::app_harness::{cell_of, feed, goto, id, mem, open_all, open_as, picked, render, typed};
use super::common::fixture;

const DS: &str = "records";

fn files_in(dir: &Path) -> Vec<PathBuf> {
    vec![
        dir.join("records.jsonl"),
        dir.join("predictions_detector.jsonl"),
    ]
}

/// The review fixture copied into `dir` (to be changed there); its files.
fn review_fixture_in(dir: &Path) -> Vec<PathBuf> {
    for f in ["records.jsonl", "predictions_detector.jsonl"] {
        std::fs::copy(fixture("review").join(f), dir.join(f)).expect("copy");
    }
    files_in(dir)
}

/// Change the answer of the first record in `dir`'s copy (same length, span offsets still
/// valid): its decisions become stale.
fn change_first_answer(dir: &Path) {
    let path = dir.join("records.jsonl");
    let text = std::fs::read_to_string(&path).expect("read");
    let changed = text.replacen("25°C today", "26°C today", 1);
    assert_ne!(text, changed);
    std::fs::write(&path, changed).expect("write");
}

fn fixture_files() -> Vec<PathBuf> {
    files_in(&fixture("review"))
}

fn app_on(files: &[PathBuf], log: Box<dyn DecisionLog>, queue: QueueKind) -> App {
    let ds = Dataset::open(files, None).expect("fixture opens");
    App::new(ds, log, "tester", queue, Config::defaults(true), None).expect("app")
}

fn app(store: &Rc<Store>) -> App {
    open_all(&fixture_files(), store)
}

fn log(store: &Store) -> Vec<Decision> {
    store.decisions(Some(DS)).expect("log reads")
}

fn selected_text(app: &App) -> String {
    let c = app.cur.as_ref().expect("a record");
    let i = c.selected_span().expect("selection");
    let v = &c.review.spans[i].current;
    c.record
        .output
        .chars()
        .skip(v.start)
        .take(v.end - v.start)
        .collect()
}

fn assert_saved(app: &App, n: i64) {
    match &app.status {
        Status::Saved(m) => assert!(m.starts_with(&format!("saved #{n} ")), "{m}"),
        other => panic!("expected saved #{n}, got {other:?}"),
    }
}

#[test]
fn accept_is_saved_with_the_record_hash_then_shown() {
    let store = mem();
    let mut app = app(&store);
    assert_eq!(id(&app), "uni_1__contradiction");
    app.update(Action::Accept);
    assert_saved(&app, 1);
    let rows = log(&store);
    assert_eq!(rows.len(), 1);
    let d = &rows[0];
    assert_eq!(d.action, ActionKind::Accept);
    assert_eq!(d.span_key.as_deref(), Some("gold:0"));
    assert_eq!(d.reviewer, "tester");
    let c = app.cur.as_ref().expect("record");
    assert_eq!(d.record_hash, c.record.content_hash());
    assert_eq!(d.before.as_ref().map(|b| (b.start, b.end)), Some((29, 34)));
    assert_eq!(c.review.spans[0].status, SpanStatus::Accepted);
    let states = store.record_states(DS).expect("states");
    assert!(states["uni_1__contradiction"].reviewed);
}

#[test]
fn drop_with_and_without_a_reason() {
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    assert_eq!(
        selected_text(&app),
        "Comparable airlines have shown similar delays recently."
    );
    app.update(Action::Drop);
    assert!(matches!(app.mode, ModeState::Prompt { .. }));
    typed(&mut app, "supported by nothing");
    app.update(Action::Confirm);
    assert_saved(&app, 1);
    // The selection moved on to the next pending span; Enter alone drops without a reason.
    assert_eq!(selected_text(&app), "Enjoy the trip!");
    feed(&mut app, &[Action::Drop, Action::Confirm]);
    // Esc cancels a drop: nothing saved.
    feed(&mut app, &[Action::Drop, Action::Cancel]);
    let rows = log(&store);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].action, ActionKind::Drop);
    assert_eq!(rows[0].reason.as_deref(), Some("supported by nothing"));
    assert_eq!(rows[1].reason, None);
    assert_eq!(rows[1].span_key.as_deref(), Some("gold:1"));
    assert!(store.record_states(DS).expect("states")["plain_2__overgeneration"].reviewed);
}

#[test]
fn adjust_moves_boundaries_by_char_and_word_trims_and_cancels() {
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    // Esc: nothing saved.
    feed(
        &mut app,
        &[Action::Adjust, Action::StartRight, Action::Cancel],
    );
    assert!(log(&store).is_empty());
    feed(
        &mut app,
        &[
            Action::Adjust,
            Action::StartWordRight,
            Action::EndLeft,
            Action::EndWordLeft,
            Action::EndWordRight,
            Action::StartLeft,
            Action::StartRight,
            Action::EndRight,
            Action::EndLeft,
            Action::Confirm,
        ],
    );
    assert_saved(&app, 1);
    assert_eq!(
        selected_text(&app),
        "airlines have shown similar delays recently"
    );
    let rows = log(&store);
    let d = &rows[0];
    assert_eq!(d.action, ActionKind::Adjust);
    let (b, a) = (
        d.before.clone().expect("before"),
        d.after.clone().expect("after"),
    );
    assert_eq!((a.start, a.end), (b.start + 11, b.end - 1));
    assert_eq!(a.label, b.label);
    // Trim: widen over the space and the full stop, then T takes them off again.
    feed(
        &mut app,
        &[
            Action::Adjust,
            Action::StartLeft,
            Action::EndRight,
            Action::Trim,
            Action::Confirm,
        ],
    );
    assert!(matches!(&app.status, Status::Info(m) if m.contains("unchanged")));
    assert_eq!(log(&store).len(), 1);
    feed(
        &mut app,
        &[
            Action::Adjust,
            Action::StartWordLeft,
            Action::Trim,
            Action::Confirm,
        ],
    );
    assert_eq!(
        selected_text(&app),
        "Comparable airlines have shown similar delays recently"
    );
}

#[test]
fn add_a_span_by_keys_in_code_points_after_cjk_emoji_and_combining_marks() {
    let store = mem();
    let mut app = app(&store);
    feed(
        &mut app,
        &[
            Action::Add,
            Action::Mark,
            Action::CursorWordRight,
            Action::CursorWordRight,
            Action::Mark,
        ],
    );
    assert_eq!(picked(&app), (29, 38));
    app.update(Action::Confirm);
    assert_saved(&app, 1);
    let d = &log(&store)[0];
    assert_eq!(d.action, ActionKind::Add);
    assert!(d
        .span_key
        .as_deref()
        .is_some_and(|k| k.starts_with("added:")));
    let after = d.after.clone().expect("after");
    assert_eq!((after.start, after.end), (29, 38));
    assert_eq!(after.label, "contradiction");
    let c = app.cur.as_ref().expect("record");
    let text: String = c.record.output.chars().skip(29).take(9).collect();
    assert_eq!(text, "rainy and");
    assert_eq!(c.review.spans.len(), 2);
    assert!(c.review.spans[1].added());
}

#[test]
fn relabel_by_picker_moves_and_digits() {
    let store = mem();
    let mut app = app(&store);
    app.update(Action::Relabel);
    match &app.mode {
        ModeState::Picker { items, sel, .. } => {
            assert_eq!(items, &["contradiction", "missing_tool", "overgeneration"]);
            assert_eq!(*sel, 0);
        }
        other => panic!("expected a picker, got {other:?}"),
    }
    feed(&mut app, &[Action::Down, Action::Confirm]);
    feed(&mut app, &[Action::Relabel, Action::Input('3')]);
    // Choosing the label it already has saves nothing.
    feed(&mut app, &[Action::Relabel, Action::Input('3')]);
    let rows = log(&store);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].action, ActionKind::Relabel);
    assert_eq!(
        rows[0].after.as_ref().map(|a| a.label.as_str()),
        Some("missing_tool")
    );
    assert_eq!(
        rows[1].before.as_ref().map(|a| a.label.as_str()),
        Some("missing_tool")
    );
    assert_eq!(
        rows[1].after.as_ref().map(|a| a.label.as_str()),
        Some("overgeneration")
    );
}

#[test]
fn clean_and_remove_with_reasons() {
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "tool_4__missing_tool");
    app.update(Action::Clean);
    assert_eq!(
        store.record_states(DS).expect("s")["tool_4__missing_tool"].outcome,
        OutcomeKind::Clean
    );
    feed(&mut app, &[Action::Remove, Action::Input('1')]);
    feed(
        &mut app,
        &[
            Action::Remove,
            Action::Down,
            Action::Down,
            Action::Down,
            Action::Confirm,
        ],
    );
    assert!(matches!(app.mode, ModeState::Prompt { .. }));
    typed(&mut app, "duplicate of plain_2");
    app.update(Action::Confirm);
    let rows = log(&store);
    let acts: Vec<ActionKind> = rows.iter().map(|d| d.action).collect();
    assert_eq!(
        acts,
        [ActionKind::Clean, ActionKind::Remove, ActionKind::Remove]
    );
    assert_eq!(rows[1].reason.as_deref(), Some("question/answer mismatch"));
    assert_eq!(rows[2].reason.as_deref(), Some("duplicate of plain_2"));
    let st = &store.record_states(DS).expect("s")["tool_4__missing_tool"];
    assert_eq!(st.outcome, OutcomeKind::Removed);
    assert!(st.reviewed);
}

#[test]
fn flag_toggles_and_notes_are_kept() {
    let store = mem();
    let mut app = app(&store);
    app.update(Action::Flag);
    assert!(store.record_states(DS).expect("s")["uni_1__contradiction"].flagged);
    assert!(matches!(&app.status, Status::Saved(m) if m == "saved #1 (flag)"));
    app.update(Action::Note);
    typed(&mut app, "check the unit: °C vs °F");
    app.update(Action::Confirm);
    app.update(Action::Flag);
    // Taking the flag off says so (it said "saved #3 (flag)").
    assert!(
        matches!(&app.status, Status::Saved(m) if m == "saved #3 (flag off)"),
        "{:?}",
        app.status
    );
    let rows = log(&store);
    assert_eq!(rows[0].action, ActionKind::Flag);
    assert_eq!(rows[0].reason, None);
    assert_eq!(rows[1].note.as_deref(), Some("check the unit: °C vs °F"));
    assert_eq!(rows[2].reason.as_deref(), Some("off"));
    assert_eq!(
        (rows[0].flag_on, rows[2].flag_on),
        (Some(true), Some(false))
    );
    assert!(!store.record_states(DS).expect("s")["uni_1__contradiction"].flagged);
    assert_eq!(app.cur.as_ref().expect("r").review.notes.len(), 1);
}

#[test]
fn undo_and_redo_cross_records_and_restarts() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    {
        let store = Rc::new(Store::open(&db).expect("db"));
        let mut app = app(&store);
        app.update(Action::Accept); // #1 on uni_1
        app.update(Action::NextRecord);
        app.update(Action::Accept); // #2 on plain_2
        app.update(Action::Undo); // #3 undoes #2, here
        assert_eq!(id(&app), "plain_2__overgeneration");
        assert_saved(&app, 3);
        app.update(Action::Undo); // #4 undoes #1: jumps back to uni_1
        assert_eq!(id(&app), "uni_1__contradiction");
        let c = app.cur.as_ref().expect("r");
        assert_eq!(c.review.spans[0].status, SpanStatus::Pending);
        app.update(Action::Redo); // #5 restores #1
        assert_eq!(
            app.cur.as_ref().expect("r").review.spans[0].status,
            SpanStatus::Accepted
        );
    }
    // A new session: undo and redo reach back into the previous one.
    let store = Rc::new(Store::open(&db).expect("db"));
    let mut app = app(&store);
    app.update(Action::Undo); // #6 undoes #1 again
    assert_eq!(id(&app), "uni_1__contradiction");
    app.update(Action::Redo); // #7 restores #1
    app.update(Action::Redo); // #8 restores #2, on the other record
    assert_eq!(id(&app), "plain_2__overgeneration");
    app.update(Action::Redo);
    assert!(matches!(&app.status, Status::Info(m) if m.contains("nothing to redo")));
    app.update(Action::Undo); // #9 undoes #2
    let rows = log(&store);
    let summary: Vec<(ActionKind, Option<i64>)> =
        rows.iter().map(|d| (d.action, d.target)).collect();
    assert_eq!(
        summary,
        [
            (ActionKind::Accept, None),
            (ActionKind::Accept, None),
            (ActionKind::Undo, Some(2)),
            (ActionKind::Undo, Some(1)),
            (ActionKind::Redo, Some(1)),
            (ActionKind::Undo, Some(1)),
            (ActionKind::Redo, Some(1)),
            (ActionKind::Redo, Some(2)),
            (ActionKind::Undo, Some(2)),
        ]
    );
    assert_eq!(rows[2].record_id, "plain_2__overgeneration");
    assert_eq!(rows[3].record_id, "uni_1__contradiction");
    let states = store.record_states(DS).expect("s");
    assert!(states["uni_1__contradiction"].reviewed);
    assert!(!states["plain_2__overgeneration"].reviewed);
}

#[test]
fn decisions_on_changed_content_are_stale_not_applied() {
    let dir = tempfile::tempdir().expect("tmp");
    let files = review_fixture_in(dir.path());
    let db = dir.path().join("review.sqlite");
    {
        let store = Rc::new(Store::open(&db).expect("db"));
        let mut app = app_on(&files, Box::new(store), QueueKind::All);
        app.update(Action::Accept);
        assert_saved(&app, 1);
    }
    // Unchanged content: the decision applies.
    {
        let store = Rc::new(Store::open(&db).expect("db"));
        let mut app = app_on(&files, Box::new(store), QueueKind::All);
        goto(&mut app, "uni_1__contradiction");
        let c = app.cur.as_ref().expect("r");
        assert_eq!(c.review.stale.len(), 0);
        assert_eq!(c.review.spans[0].status, SpanStatus::Accepted);
    }
    change_first_answer(dir.path());
    let store = Rc::new(Store::open(&db).expect("db"));
    let mut app = open_all(&files, &store);
    goto(&mut app, "uni_1__contradiction");
    let c = app.cur.as_ref().expect("r");
    assert_eq!(c.review.stale.len(), 1, "the old accept is stale");
    assert_eq!(
        c.review.spans[0].status,
        SpanStatus::Pending,
        "and not applied"
    );
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("1 stale"), "{screen}");
    assert!(screen.contains("#1 accept"), "{screen}");
    // The queue of unreviewed records does not skip it silently: its stored state says
    // reviewed, the background check finds the decisions stale and puts it back.
    let mut fresh = app_on(&files, Box::new(Rc::clone(&store)), QueueKind::Unreviewed);
    assert_eq!(id(&fresh), "plain_2__overgeneration");
    assert_eq!(fresh.pos, 0);
    let mut rounds = 0;
    while fresh.idle() {
        rounds += 1;
        assert!(rounds < 100, "idle work ends");
    }
    assert!(!fresh.busy());
    assert!(
        matches!(&fresh.status, Status::Info(m) if m.contains("uni_1__contradiction") && m.contains("stale")),
        "{:?}",
        fresh.status
    );
    assert_eq!(
        id(&fresh),
        "plain_2__overgeneration",
        "the screen stays put"
    );
    assert_eq!(fresh.pos, 1, "the stale record was inserted before it");
    fresh.update(Action::PrevRecord);
    assert_eq!(id(&fresh), "uni_1__contradiction");
    assert_eq!(fresh.cur.as_ref().expect("r").review.stale.len(), 1);
    // The next decision stores the stale flag with the record's state.
    app.update(Action::Flag);
    assert!(store.record_states(DS).expect("s")["uni_1__contradiction"].stale);
}

/// A record stored as flagged and reclassified whose content changed: once the background
/// check finds its decisions stale, the screen's states say what its replay says (neither
/// flagged nor clean: stale decisions are not applied), so the stats screen does not count a
/// flag the record no longer shows.
#[test]
fn a_record_found_stale_loses_its_stored_flag_and_outcome_on_screen() {
    let dir = tempfile::tempdir().expect("tmp");
    let files = review_fixture_in(dir.path());
    let store = Rc::new(Store::open(&dir.path().join("review.sqlite")).expect("db"));
    {
        let mut app = open_all(&files, &store);
        goto(&mut app, "uni_1__contradiction");
        app.update(Action::Flag);
        app.update(Action::Clean);
        assert_saved(&app, 2);
    }
    let stored = &store.record_states(DS).expect("s")["uni_1__contradiction"];
    assert!(stored.reviewed && stored.flagged && stored.outcome == OutcomeKind::Clean);
    change_first_answer(dir.path());
    let mut app = open_all(&files, &store);
    let mut rounds = 0;
    while app.idle() {
        rounds += 1;
        assert!(rounds < 100, "idle work ends");
    }
    app.update(Action::Stats);
    let st = app.stats.clone().expect("stats");
    assert_eq!((st.reviewed, st.clean, st.flagged), (0, 0, 0), "{st:?}");
}

/// A log that reads fine and refuses every write.
struct FailingLog;

impl DecisionLog for FailingLog {
    fn append(&self, _: &Decision, _: &RecordState) -> Result<Decision, String> {
        Err("disk full".into())
    }
    fn record_decisions(&self, _: &str, _: &str) -> Result<Vec<Decision>, String> {
        Ok(Vec::new())
    }
    fn reviewer_log(&self, _: &str, _: &str) -> Result<Vec<Decision>, String> {
        Ok(Vec::new())
    }
    fn record_states(&self, _: &str) -> Result<HashMap<String, RecordState>, String> {
        Ok(HashMap::new())
    }
}

#[test]
fn a_failed_write_is_reported_and_changes_nothing() {
    let mut app = app_on(&fixture_files(), Box::new(FailingLog), QueueKind::All);
    for a in [
        Action::Accept,
        Action::Clean,
        Action::Flag,
        Action::AcceptAll,
    ] {
        app.update(a);
        match &app.status {
            Status::Error(m) => assert!(m.contains("NOT saved") && m.contains("disk full"), "{m}"),
            other => panic!("{a:?}: expected an error, got {other:?}"),
        }
    }
    let c = app.cur.as_ref().expect("r");
    assert_eq!(
        id(&app),
        "uni_1__contradiction",
        "accept-all did not move on"
    );
    assert_eq!(c.review.spans[0].status, SpanStatus::Pending);
    assert!(!c.review.flagged);
    assert!(app.states.is_empty());
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("NOT saved: disk full"), "{screen}");
}

#[test]
fn reopening_resumes_at_the_first_unreviewed_record() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    {
        let store = Rc::new(Store::open(&db).expect("db"));
        let mut app = app_on(&fixture_files(), Box::new(store), QueueKind::Unreviewed);
        app.update(Action::AcceptAll);
        assert_eq!(id(&app), "plain_2__overgeneration");
        app.update(Action::AcceptAll);
        assert_eq!(id(&app), "clean_3__clean");
        assert_eq!(app.progress(), (2, 4, true));
    }
    let store = Rc::new(Store::open(&db).expect("db"));
    let app2 = app_on(
        &fixture_files(),
        Box::new(Rc::clone(&store)),
        QueueKind::Unreviewed,
    );
    assert_eq!(id(&app2), "clean_3__clean");
    assert_eq!(app2.pos, 0);
    let (_, n, _) = app2.progress();
    assert_eq!(n, 2);
    let app3 = app_on(
        &fixture_files(),
        Box::new(Rc::clone(&store)),
        QueueKind::All,
    );
    assert_eq!(id(&app3), "clean_3__clean");
    assert_eq!(app3.pos, 2);
    let app4 = app_on(
        &fixture_files(),
        Box::new(store),
        QueueKind::Type("missing_tool".into()),
    );
    assert_eq!(id(&app4), "tool_4__missing_tool");
}

#[test]
fn navigation_goto_and_search() {
    let store = mem();
    let mut app = app(&store);
    feed(&mut app, &[Action::LastRecord]);
    assert_eq!(id(&app), "tool_4__missing_tool");
    app.update(Action::NextRecord);
    assert!(matches!(&app.status, Status::Info(m) if m.contains("end of the queue")));
    feed(&mut app, &[Action::FirstRecord]);
    assert_eq!(id(&app), "uni_1__contradiction");
    app.update(Action::Goto);
    typed(&mut app, "2");
    app.update(Action::Confirm);
    assert_eq!(id(&app), "plain_2__overgeneration");
    feed(
        &mut app,
        &[Action::NextSpan, Action::NextSpan, Action::PrevSpan],
    );
    assert_eq!(
        selected_text(&app),
        "Comparable airlines have shown similar delays recently."
    );
    app.update(Action::PrevRecord);
    assert_eq!(id(&app), "uni_1__contradiction");
    app.update(Action::Search);
    typed(&mut app, "sunny");
    app.update(Action::Confirm);
    let c = app.cur.as_ref().expect("r");
    assert_eq!(c.hits.context.len(), 1);
    assert!(matches!(&app.status, Status::Info(m) if m.starts_with("1 match of \"sunny\"")));
    // Evidence for the selected span: the context has the city; the number is found.
    app.update(Action::Cancel);
    app.update(Action::NextEvidence);
    assert!(log(&store).is_empty(), "navigation saves nothing");
}

#[test]
fn evidence_of_the_selected_span_is_found_in_the_context() {
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    app.update(Action::Add);
    // Select "09:30" via add mode would save; instead check the evidence of the first span of
    // the flight record: its words are not in the context.
    let c = app.cur.as_ref().expect("r");
    assert!(c.hits.context.is_empty());
    app.update(Action::Cancel);
    // The CJK record's contradiction "rainy" is not in the context: the value it contradicts
    // is shown first, ranked, and `e` says why.
    goto(&mut app, "uni_1__contradiction");
    let c = app.cur.as_ref().expect("r");
    let first = c.hits.current_context().expect("a candidate");
    let h = c.hits.context[first];
    assert_eq!(&c.context[h.start..h.end], "sunny ☀️");
    assert!(!c.hits.ranked.order.is_empty());
    let n = c.hits.ranked.order.len();
    for _ in 1..n {
        app.update(Action::NextEvidence);
        assert!(
            matches!(&app.status, Status::Info(m) if m.starts_with("candidate: ")),
            "{:?}",
            app.status
        );
    }
    // Past the ranking the walk goes on in reading order, and wraps to the best candidate.
    let visited = app.cur.as_ref().expect("r").hits.visited();
    for _ in 0..visited {
        app.update(Action::NextEvidence);
    }
    let c = app.cur.as_ref().expect("r");
    assert_eq!(c.hits.current_context(), Some(first));
    assert!(matches!(&app.status, Status::Info(m) if m.starts_with("candidate: ")));
}

#[test]
fn the_command_refuses_bad_usage_and_a_missing_terminal() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("x.sqlite");
    let rec = fixture("review/records.jsonl");
    super::common::bin()
        .args(["review", "--queue", "later"])
        .arg(&rec)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown queue \"later\""));
    super::common::bin()
        .args(["review", "/nonexistent/records.jsonl"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/records.jsonl"));
    super::common::bin()
        .arg("review")
        .arg(&rec)
        .arg("--db")
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("needs a terminal"));
    assert!(!db.exists(), "no database is created without a terminal");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[keymap.normal]\nz = \"fly\"\n").expect("write");
    super::common::bin()
        .arg("review")
        .arg(&rec)
        .env("SPANREVIEW_CONFIG", &bad)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad.toml").and(predicates::str::contains("fly")));
}

#[test]
fn the_sample_opens_with_two_detectors_as_other_sources() {
    let files = spanreview::cli::review::sample_files();
    let store = mem();
    let mut app = app_on(&files, Box::new(Rc::clone(&store)), QueueKind::Unreviewed);
    let c = app.cur.as_ref().expect("record");
    assert_eq!(app.dataset.len(), 175);
    assert!(c.record.sources.len() >= 3, "{:?}", c.record.sources.len());
    let screen = render(&mut app, 120, 40);
    assert!(screen.contains("1 / 175"), "{screen}");
}

#[test]
fn evidence_scrolls_the_context_to_the_first_occurrence_and_cycles() {
    // The sample's first record: the password in the span is the tool's random sequence.
    let files = spanreview::cli::review::sample_files();
    let store = mem();
    let mut app = app_on(&files, Box::new(store), QueueKind::All);
    let c = app.cur.as_ref().expect("record");
    assert_eq!(
        selected_text(&app),
        "Your generated password is: **H4G8fb9A3eKt2LpO**"
    );
    let first = c.hits.current_context().expect("an occurrence");
    let hit = c.hits.context[first];
    assert_eq!(&c.context[hit.start..hit.end], "H4G8fb9A3eKt2LpO");
    let screen = render(&mut app, 120, 20);
    assert!(app.layout.context_scroll > 0, "scrolled to the evidence");
    assert!(
        screen.contains("\"randomSequence\": \"H4G8fb9A3eKt2LpO\""),
        "{screen}"
    );
    assert!(screen.contains("evidence 1/"), "{screen}");
    assert!(
        screen.contains("underlined: ensemble, modernbert_ft"),
        "{screen}"
    );
    // Scrolling by hand starts from what the evidence jump put on screen.
    let shown = app.layout.context_scroll;
    app.update(Action::ContextDown);
    assert_eq!(
        app.scroll.context,
        (shown + 10).min(app.layout.context_rows - 1)
    );
    app.update(Action::NextEvidence);
    assert!(matches!(&app.status, Status::Info(m) if m.starts_with("occurrence")));
    // Moving to the other span recomputes the evidence.
    app.update(Action::NextSpan);
    assert_eq!(
        selected_text(&app),
        "Comparable services in the region have shown similar behavior recently."
    );
}

#[test]
fn help_and_hints_follow_the_active_keymap() {
    let store = mem();
    let ds = Dataset::open(&fixture_files(), None).expect("fixture");
    let mut config = Config::defaults(true);
    config
        .apply_str("[keymap.normal]\nz = \"accept\"\na = \"none\"\n")
        .expect("valid override");
    let mut app = App::new(
        ds,
        Box::new(Rc::clone(&store)),
        "tester",
        QueueKind::All,
        config,
        None,
    )
    .expect("app");
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("z accept"), "{screen}");
    assert!(!screen.contains("a accept"), "{screen}");
    app.update(Action::Help);
    let help = render(&mut app, 100, 40);
    let keys_of = |desc: &str| -> Vec<String> {
        help.lines()
            .filter(|l| l.contains(desc))
            .map(|l| {
                let inner = l.trim_matches(|c| c == '"' || c == '│');
                inner.split_whitespace().next().unwrap_or("").to_owned()
            })
            .collect()
    };
    assert_eq!(keys_of("accept the selected span"), ["z"], "{help}");
    assert_eq!(keys_of("next span"), ["j"], "{help}");
}

#[test]
fn styles_set_apart_selected_other_source_and_dropped_spans() {
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    let mut t = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let style_at = |t: &Terminal<TestBackend>, app: &App, cp: usize| {
        let (x, y) = cell_of(app, cp);
        t.backend().buffer()[(x, y)].modifier
    };
    // Selected (36..91): bold + underlined + reversed (monochrome theme).
    let sel = style_at(&t, &app, 40);
    assert!(sel.contains(Modifier::BOLD | Modifier::UNDERLINED | Modifier::REVERSED));
    // The other span (92..107): reversed, not bold.
    let other = style_at(&t, &app, 95);
    assert!(other.contains(Modifier::REVERSED) && !other.contains(Modifier::BOLD));
    // Plain text: nothing.
    assert!(style_at(&t, &app, 2).is_empty());
    // The detector's span "similar delays" inside the selected one is underlined; outside a
    // gold span it would be underlined only: check the detector marks its own cells.
    app.update(Action::NextSpan);
    terminal::frame(&mut t, &mut app).expect("draw");
    let det = style_at(&t, &app, 72);
    assert!(det.contains(Modifier::UNDERLINED) && det.contains(Modifier::REVERSED));
    // Dropped: struck through.
    feed(&mut app, &[Action::Drop, Action::Confirm, Action::PrevSpan]);
    terminal::frame(&mut t, &mut app).expect("draw");
    assert!(style_at(&t, &app, 95).contains(Modifier::CROSSED_OUT));
    // With colours: the selected span's background is its label's Okabe-Ito colour.
    let store = mem();
    let ds = Dataset::open(&fixture_files(), None).expect("fixture");
    let mut app = App::new(
        ds,
        Box::new(store),
        "t",
        QueueKind::All,
        Config::defaults(false),
        None,
    )
    .expect("app");
    terminal::frame(&mut t, &mut app).expect("draw");
    let (x, y) = cell_of(&app, 29);
    assert_eq!(
        t.backend().buffer()[(x, y)].bg,
        ratatui::style::Color::Rgb(0xD5, 0x5E, 0x00)
    );
}

#[test]
fn mouse_click_selects_and_drag_adds_a_span() {
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    render(&mut app, 100, 30);
    // Click inside the second span ("Enjoy the trip!" starts at 92).
    let (x, y) = cell_of(&app, 95);
    feed(&mut app, &[Action::MouseDown(x, y), Action::MouseUp(x, y)]);
    assert_eq!(selected_text(&app), "Enjoy the trip!");
    assert!(log(&store).is_empty());
    // Drag across "09:30" (29..34).
    let (x0, y0) = cell_of(&app, 29);
    let (x1, y1) = cell_of(&app, 33);
    feed(
        &mut app,
        &[
            Action::MouseDown(x0, y0),
            Action::MouseDrag(x1, y1),
            Action::MouseUp(x1, y1),
        ],
    );
    assert_eq!(picked(&app), (29, 34));
    app.update(Action::Confirm);
    let d = &log(&store)[0];
    assert_eq!(d.action, ActionKind::Add);
    let a = d.after.clone().expect("after");
    assert_eq!(
        (a.start, a.end, a.label.as_str()),
        (29, 34, "overgeneration")
    );
    // The wheel over the context scrolls it.
    let ctx = app.layout.context;
    app.update(Action::Scroll(ctx.x + 1, ctx.y + 1, 1));
    assert_eq!(app.scroll.context_anchor, None);
}

#[test]
fn wide_characters_and_combining_marks_keep_the_span_aligned() {
    let store = mem();
    let mut app = app(&store);
    let mut t = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let buf = t.backend().buffer().clone();
    let (x, y) = cell_of(&app, 29);
    assert_eq!(buf[(x, y)].symbol(), "r");
    let sel = Modifier::BOLD | Modifier::UNDERLINED;
    for (i, ch) in "rainy".chars().enumerate() {
        let cell = &buf[(x + u16::try_from(i).expect("small"), y)];
        assert_eq!(cell.symbol(), ch.to_string());
        assert!(cell.modifier.contains(sel), "{ch} is highlighted");
    }
    assert!(
        !buf[(x - 1, y)].modifier.contains(sel),
        "the space before is not"
    );
    assert!(
        !buf[(x + 5, y)].modifier.contains(sel),
        "the space after is not"
    );
    // The tab is shown escaped, the combining mark stays on its letter.
    let row: String = (0..100).map(|i| buf[(i, y)].symbol().to_owned()).collect();
    assert!(
        row.contains("cafe\u{301} naïve\\tnote: it is rainy"),
        "{row}"
    );
}

#[test]
fn never_panics_from_40x10_down_and_up_in_every_mode() {
    let store = mem();
    let mut app = app(&store);
    let modes: Vec<Vec<Action>> = vec![
        vec![],
        vec![Action::Help],
        vec![Action::Tools],
        vec![Action::Relabel],
        vec![Action::Adjust, Action::StartRight],
        vec![Action::Add, Action::Mark, Action::CursorRight],
        vec![Action::Remove],
        vec![Action::Note],
    ];
    for (k, m) in modes.iter().enumerate() {
        for rec in 0..4 {
            app.go(rec);
            feed(&mut app, m);
            for (w, h) in [
                (1, 1),
                (3, 2),
                (10, 4),
                (20, 6),
                (40, 10),
                (41, 11),
                (60, 15),
                (79, 20),
                (80, 24),
                (100, 30),
                (160, 50),
            ] {
                render(&mut app, w, h);
            }
            app.update(Action::Cancel);
            assert!(
                matches!(app.mode, ModeState::Normal),
                "mode set {k} on record {rec}"
            );
        }
    }
}

mod snapshots {
    use super::*;

    fn snap(app: &mut App, w: u16, h: u16) -> String {
        render(app, w, h)
    }

    /// The review fixture's screen at `w` × `h`, on `record` (the first when `None`) after
    /// `keys`: snapshot `name`.
    #[rstest::rstest]
    #[case::main_screen_with_cjk_emoji_and_combining_marks("main_unicode_100x30", None, &[], 100, 30)]
    #[case::help_is_generated_from_the_keymap("help_100x76", None, &[Action::Help], 100, 76)]
    #[case::relabel_picker("relabel_picker_80x24", None, &[Action::Relabel, Action::Down], 80, 24)]
    #[case::adjust_mode_shows_the_diff(
        "adjust_100x30",
        Some("plain_2__overgeneration"),
        &[Action::Adjust, Action::StartWordRight, Action::EndLeft],
        100,
        30
    )]
    #[case::tools_panel("tools_80x20", None, &[Action::Tools], 80, 20)]
    fn screen(
        #[case] name: &str,
        #[case] record: Option<&str>,
        #[case] keys: &[Action],
        #[case] w: u16,
        #[case] h: u16,
    ) {
        let store = mem();
        let mut app = app(&store);
        if let Some(record) = record {
            goto(&mut app, record);
        }
        feed(&mut app, keys);
        insta::assert_snapshot!(name, snap(&mut app, w, h));
    }

    #[test]
    fn main_screen_narrow_and_tiny() {
        let store = mem();
        let mut app = app(&store);
        goto(&mut app, "plain_2__overgeneration");
        insta::assert_snapshot!("main_plain_60x20", snap(&mut app, 60, 20));
        insta::assert_snapshot!("main_plain_40x10", snap(&mut app, 40, 10));
    }

    #[test]
    fn add_mode_and_a_prompt() {
        let store = mem();
        let mut app = app(&store);
        feed(
            &mut app,
            &[
                Action::Add,
                Action::Mark,
                Action::CursorWordRight,
                Action::CursorWordRight,
            ],
        );
        insta::assert_snapshot!("add_100x30", snap(&mut app, 100, 30));
        feed(&mut app, &[Action::Cancel, Action::Drop]);
        typed(&mut app, "not in the tool output");
        insta::assert_snapshot!("drop_prompt_80x12", snap(&mut app, 80, 12));
    }

    #[test]
    fn unreadable_spans_and_joined_file_notes_on_their_own_lines() {
        let store = mem();
        let mut app = joined_app(&store);
        goto(&mut app, "j1");
        insta::assert_snapshot!("joined_notes_120x24", snap(&mut app, 120, 24));
    }
}

#[test]
fn character_moves_and_marks_never_split_a_letter_from_its_combining_mark() {
    // A boundary between "e" and U+0301, or inside an emoji sequence, is a span `validate`
    // rejects (grapheme_split): adjusting and adding step over whole characters.
    let store = mem();
    let mut app = open_all(&[fixture("export/records.jsonl")], &store);
    // "Naïve résumé é test.": the lone "é" is e + U+0301, code points [13, 15).
    goto(&mut app, "f06__contradiction");
    feed(
        &mut app,
        &[
            Action::Adjust,
            Action::EndRight,
            Action::EndRight,
            Action::Confirm,
        ],
    );
    let after = log(&store).last().and_then(|d| d.after.clone());
    assert_eq!(after.map(|a| (a.start, a.end)), Some((6, 15)));
    feed(
        &mut app,
        &[Action::Adjust, Action::EndLeft, Action::Confirm],
    );
    let after = log(&store).last().and_then(|d| d.after.clone());
    assert_eq!(after.map(|a| (a.start, a.end)), Some((6, 13)));
    // "... a 👩‍👩‍👧 family.": the family is five code points [26, 31), one character.
    goto(&mut app, "f10__overgeneration");
    feed(&mut app, &[Action::Add, Action::Mark, Action::Mark]);
    assert_eq!(picked(&app), (26, 31));
    app.update(Action::Cancel);
    feed(
        &mut app,
        &[
            Action::Add,
            Action::CursorRight,
            Action::CursorLeft,
            Action::CursorLeft,
            Action::Mark,
            Action::CursorRight,
            Action::Mark,
        ],
    );
    assert_eq!(picked(&app), (25, 31));
}

#[test]
fn labels_that_cannot_be_read_are_shown_not_hidden() {
    // Line 7 of the fixture labels `"start": 14.0`: the reader skips that span. The screen
    // must say so rather than show a labeled record as having no spans.
    let store = mem();
    let files = vec![fixture("validate/mixed.jsonl")];
    let mut app = open_all(&files, &store);
    goto(&mut app, "toolace_fixture_00006__contradiction");
    let screen = render(&mut app, 200, 40);
    assert!(
        screen.contains("not read: hallucination_labels[0]"),
        "{screen}"
    );
    assert!(
        screen.contains("14.0"),
        "the message quotes the value: {screen}"
    );
    goto(&mut app, "toolace_fixture_00008__contradiction");
    let screen = render(&mut app, 200, 40);
    assert!(!screen.contains("not read:"), "{screen}");
}

/// `tests/fixtures/review/joined`, by paths relative to the crate root (the tests' working
/// directory) so that the notes naming a file read the same on every machine.
fn joined_files() -> Vec<PathBuf> {
    let dir = Path::new("tests/fixtures/review/joined");
    vec![dir.join("records.jsonl"), dir.join("predictions.jsonl")]
}

fn joined_app(store: &Rc<Store>) -> App {
    open_all(&joined_files(), store)
}

/// The screen's row that contains `what`, if any.
fn row_with<'a>(screen: &'a str, what: &str) -> Option<&'a str> {
    screen.lines().find(|l| l.contains(what))
}

#[test]
fn notes_about_joined_files_are_not_called_unread_spans() {
    // j1: its second label has `"start": 35.0` (not read); the predictions file has j1 on
    // three lines, the third with another answer text. j2: only a joined note.
    let store = mem();
    let mut app = joined_app(&store);
    goto(&mut app, "j1");
    let screen = render(&mut app, 400, 30);
    let unread = row_with(&screen, "⚠ not read:").expect("the unread span is listed");
    assert!(unread.contains("hallucination_labels[1]"), "{screen}");
    assert!(!unread.contains("predictions.jsonl"), "{screen}");
    let joined = row_with(&screen, "⚠ joined files:").expect("the joined notes are listed");
    assert!(
        joined.contains("predictions.jsonl: the id \"j1\" is on 3 lines (1, 2, 3)"),
        "{screen}"
    );
    // Both lines fit under the one span: the list's height counts them.
    assert!(row_with(&screen, "14 juillet").is_some(), "{screen}");
    let c = app.cur.as_ref().expect("record");
    assert!(c.record.warnings.iter().any(|w| w
        .starts_with("tests/fixtures/review/joined/predictions.jsonl:3: the answer text differs")));
    goto(&mut app, "j2");
    let screen = render(&mut app, 400, 30);
    assert!(!screen.contains("not read:"), "{screen}");
    let joined = row_with(&screen, "⚠ joined files:").expect("the joined note is listed");
    assert!(
        joined.contains("predictions.jsonl:4: the answer text differs"),
        "{screen}"
    );
    // The record's own unread span alone: no joined line.
    let files = vec![fixture("validate/mixed.jsonl")];
    let mut app = open_all(&files, &store);
    goto(&mut app, "toolace_fixture_00006__contradiction");
    let screen = render(&mut app, 200, 40);
    assert!(screen.contains("⚠ not read:"), "{screen}");
    assert!(!screen.contains("joined files"), "{screen}");
}

#[test]
fn a_judge_file_made_on_another_answer_is_a_note_about_that_file() {
    // The joined fixture's predictions as a `--judge` file, j2's answer edited in it (one
    // character before every span): its spans are not attached, and the note names the file.
    let dir = tempfile::tempdir().expect("tmp");
    let preds = dir.path().join("preds.jsonl");
    let text = std::fs::read_to_string(fixture("review/joined/predictions.jsonl")).expect("read");
    let edited: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
            if v["id"] == "j2" {
                v["output"] = format!("« {}", v["output"].as_str().expect("output")).into();
            }
            v.to_string()
        })
        .collect();
    std::fs::write(&preds, edited.join("\n") + "\n").expect("write");
    let ds = Dataset::open(&[fixture("review/joined/records.jsonl")], None).expect("open");
    let spec = format!("det={}", preds.display()).parse().expect("spec");
    let args = spanreview::cli::judge_args::JudgeArgs {
        judges: vec![spec],
        ..Default::default()
    };
    let name = ds.name.clone();
    let (judges, _) = args.load(&ds, &name, None).expect("judges");
    let store = mem();
    let mut app = App::open(
        ds,
        Box::new(Rc::clone(&store)),
        "tester",
        Opening {
            arb: spanreview::tui::clustering::ArbConfig {
                judges: Some(std::sync::Arc::new(judges)),
                ..Default::default()
            },
            ..Opening::new(QueueKind::All, Config::defaults(true))
        },
    )
    .expect("app");
    goto(&mut app, "j2");
    let c = app.cur.as_ref().expect("record");
    assert!(
        c.record.source("det").is_none(),
        "no spans at the wrong offsets"
    );
    let screen = render(&mut app, 400, 30);
    let joined = row_with(&screen, "⚠ joined files:").expect("the note is listed");
    assert!(
        joined.contains(&format!("{}:", preds.display())) && joined.contains("answer text differs"),
        "{screen}"
    );
    assert!(!screen.contains("not read:"), "{screen}");
    goto(&mut app, "j1");
    let c = app.cur.as_ref().expect("record");
    assert!(c.record.source("det").is_some(), "j1's answer is the same");
}

#[test]
fn evidence_key_visits_the_query_then_the_context_in_reading_order() {
    // e1's span is "14 juillet"; the query has it twice ("14 JUILLET", "14 juillet") after
    // CJK, an emoji, a combining mark and accented letters, the context once ("14 Juillet").
    let store = mem();
    let mut app = joined_app(&store);
    goto(&mut app, "e1");
    assert_eq!(selected_text(&app), "14 juillet");
    let c = app.cur.as_ref().expect("record");
    assert_eq!((c.hits.query.len(), c.hits.context.len()), (2, 1));
    // Opening shows the context's hit, as before.
    assert_eq!(c.hits.current_context(), Some(0));
    let shown = |app: &App| -> (String, String) {
        let c = app.cur.as_ref().expect("record");
        let (text, h) = match (c.hits.current_query(), c.hits.current_context()) {
            (Some(i), None) => (&c.record.query, c.hits.query[i]),
            (None, Some(i)) => (&c.context, c.hits.context[i]),
            other => panic!("one current hit, got {other:?}"),
        };
        let Status::Info(m) = &app.status else {
            panic!("{:?}", app.status)
        };
        (text[h.start..h.end].to_owned(), m.clone())
    };
    let want = [
        ("14 JUILLET", "occurrence 1 / 3 · in the query"),
        ("14 juillet", "occurrence 2 / 3 · in the query"),
        ("14 Juillet", "occurrence 3 / 3 · in the context"),
        ("14 JUILLET", "occurrence 1 / 3 · in the query"),
    ];
    for (hit, status) in want {
        app.update(Action::NextEvidence);
        assert_eq!(shown(&app), (hit.to_owned(), status.to_owned()));
    }
    // The query's hit is in code points where the user sees it.
    let c = app.cur.as_ref().expect("record");
    let q = &c.record.query;
    let at = q.chars().collect::<Vec<_>>();
    let cp = spanreview::model::offsets::char_of(q, c.hits.query[0].start).expect("boundary");
    assert_eq!(at[cp..cp + 10].iter().collect::<String>(), "14 JUILLET");
    // The query pane marks the current hit and says which; the context says it has one.
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("Query · evidence 1/2"), "{screen}");
    assert!(screen.contains("Context · evidence –/1"), "{screen}");
    feed(&mut app, &[Action::NextEvidence, Action::NextEvidence]);
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("Context · evidence 1/1"), "{screen}");
    assert!(!screen.contains("Query · evidence"), "{screen}");
    assert!(log(&store).is_empty(), "evidence saves nothing");
}

/// Screen cell of output code point `cp` on the arbitration lanes: its text row, or with
/// `lane` = k its k-th lane row under it.
fn lanes_cell_of(app: &App, cp: usize, lane: usize) -> (u16, u16) {
    let l = &app.layout;
    let c = app.cur.as_ref().expect("r");
    let byte = c.map.byte_of(cp).expect("in range");
    for (r, row) in l.lanes_rows.rows.iter().enumerate() {
        let mut x = l.lanes_gutter + row.indent;
        for cell in &row.cells {
            if cell.byte == byte {
                let y = r * l.lanes_per + lane;
                return (
                    l.lanes.x + u16::try_from(x).expect("small"),
                    l.lanes.y + u16::try_from(y).expect("small"),
                );
            }
            x += cell.width;
        }
    }
    panic!("code point {cp} is not on the lanes");
}

#[test]
fn mouse_on_the_lanes_selects_a_cluster_and_never_decides() {
    let store = mem();
    let files: Vec<PathBuf> = [
        "records.jsonl",
        "predictions_alpha.jsonl",
        "predictions_beta.jsonl",
    ]
    .iter()
    .map(|f| fixture(&format!("arbitrate/{f}")))
    .collect();
    let mut app = open_all(&files, &store);
    // CJK, an emoji and combining marks before the clusters.
    goto(&mut app, "ja_1__contradiction");
    app.update(Action::Arbitrate);
    assert!(matches!(app.mode, ModeState::Arbitrate));
    render(&mut app, 110, 30);
    let clusters: Vec<(usize, usize)> = app
        .arb
        .as_ref()
        .expect("arb")
        .d
        .clusters
        .iter()
        .map(|cl| (cl.start, cl.end))
        .collect();
    assert!(clusters.len() >= 2, "{clusters:?}");
    let selected = |app: &App| app.arb.as_ref().expect("arb").cluster;
    assert_eq!(selected(&app), 0);
    // A click on the second cluster's third lane row selects it.
    let (x, y) = lanes_cell_of(&app, clusters[1].0, 3);
    feed(&mut app, &[Action::MouseDown(x, y), Action::MouseUp(x, y)]);
    assert_eq!(selected(&app), 1);
    // A click on the first cluster's text row selects it back.
    render(&mut app, 110, 30);
    let (x, y) = lanes_cell_of(&app, clusters[0].0 + 1, 0);
    feed(&mut app, &[Action::MouseDown(x, y), Action::MouseUp(x, y)]);
    assert_eq!(selected(&app), 0);
    render(&mut app, 110, 30);
    // Clicks outside every cluster change nothing: text before the first cluster, the lane
    // labels, past the end of a row, the cluster panel, the border.
    let outside = [
        lanes_cell_of(&app, 0, 1),
        (app.layout.lanes.x + 1, app.layout.lanes.y + 1),
        (
            app.layout.lanes.right() - 1,
            app.layout.lanes.y + u16::try_from(app.layout.lanes_per).expect("small"),
        ),
        (app.layout.lanes.right() + 5, app.layout.lanes.y + 1),
        (app.layout.lanes.x - 1, app.layout.lanes.y),
    ];
    assert!(clusters[0].0 > 0, "text before the first cluster");
    for (x, y) in outside {
        feed(&mut app, &[Action::MouseDown(x, y), Action::MouseUp(x, y)]);
        assert_eq!(selected(&app), 0, "click at ({x}, {y})");
    }
    // The wheel over the lanes moves the selection, as j/k do.
    let (x, y) = (app.layout.lanes.x + 2, app.layout.lanes.y + 2);
    app.update(Action::Scroll(x, y, 1));
    assert_eq!(selected(&app), 1);
    app.update(Action::Scroll(x, y, -1));
    assert_eq!(selected(&app), 0);
    // A drag across the lanes does not add or resolve anything either.
    let (x0, y0) = lanes_cell_of(&app, clusters[0].0, 0);
    let (x1, y1) = lanes_cell_of(&app, clusters[0].1 - 1, 0);
    feed(
        &mut app,
        &[
            Action::MouseDown(x0, y0),
            Action::MouseDrag(x1, y1),
            Action::MouseUp(x1, y1),
        ],
    );
    assert!(matches!(app.mode, ModeState::Arbitrate), "{:?}", app.mode);
    assert!(log(&store).is_empty(), "clicks never decide");
}

#[test]
fn two_reviewers_finishing_a_record_together_leave_it_reviewed() {
    // Two processes on one database: ann accepts one span, bob (who read the record before)
    // the other. The record state saved with bob's decision must count ann's too.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("two.sqlite");
    let ann_db = Rc::new(Store::open(&path).expect("db"));
    let bob_db = Rc::new(Store::open(&path).expect("db"));
    let mut ann = open_as(&fixture_files(), &ann_db, "ann");
    let mut bob = open_as(&fixture_files(), &bob_db, "bob");
    goto(&mut ann, "plain_2__overgeneration");
    goto(&mut bob, "plain_2__overgeneration");
    ann.update(Action::Accept);
    feed(&mut bob, &[Action::NextSpan, Action::Accept]);
    assert!(matches!(&bob.status, Status::Saved(_)), "{:?}", bob.status);
    let states = ann_db.record_states(DS).expect("states");
    assert!(
        states["plain_2__overgeneration"].reviewed,
        "both spans are accepted: {:?}",
        states["plain_2__overgeneration"]
    );
}

#[test]
fn spans_of_a_record_reclassified_clean_are_shown_cleared() {
    // `c` drops every span of the record: the list must not go on calling them pending.
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    app.update(Action::Clean);
    let screen = render(&mut app, 160, 40);
    assert!(screen.contains("cleared: record clean"), "{screen}");
    assert!(!screen.contains("pending"), "{screen}");
    app.update(Action::Undo);
    let screen = render(&mut app, 160, 40);
    assert!(screen.contains("pending"), "{screen}");
}

/// The text of screen row `y`, cell symbols joined.
fn screen_row(t: &Terminal<TestBackend>, y: u16) -> String {
    let buf = t.backend().buffer();
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_owned())
        .collect()
}

#[test]
fn the_adjust_diff_keeps_combining_marks_and_emoji_sequences_whole() {
    // The old/new diff is drawn in runs: a run made of a lone combining mark or joiner would be
    // drawn without its letter, or not at all.
    let store = mem();
    let mut app = open_all(&[fixture("export/records.jsonl")], &store);
    // "Naïve résumé é test.": the span "résumé" [6, 12) grows over " e\u{301}" [12, 15).
    goto(&mut app, "f06__contradiction");
    feed(
        &mut app,
        &[Action::Adjust, Action::EndRight, Action::EndRight],
    );
    let mut t = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let rows: Vec<String> = (0..30).map(|y| screen_row(&t, y)).collect();
    let new = rows
        .iter()
        .find(|r| r.contains("│new "))
        .expect("the new line");
    assert!(new.contains("new résumé e\u{301}"), "{new}");
    app.update(Action::Cancel);
    // "... a 👩‍👩‍👧 family.": the family [26, 31) is one character; its end moves over " family".
    goto(&mut app, "f10__overgeneration");
    feed(&mut app, &[Action::Adjust, Action::EndWordRight]);
    terminal::frame(&mut t, &mut app).expect("draw");
    let rows: Vec<String> = (0..30).map(|y| screen_row(&t, y)).collect();
    for which in ["│old ", "│new "] {
        let row = rows.iter().find(|r| r.contains(which)).expect(which);
        assert!(
            row.contains("\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}"),
            "{which}: {row}"
        );
    }
}

#[test]
fn the_adjust_panel_shows_the_change_at_the_end_of_a_long_span() {
    // A 511-character span: its old text filled the panel, the new line and the end being
    // moved were never on screen.
    let store = mem();
    let files = vec![super::common::data(
        "toolace/test_records_reconstructed.jsonl",
    )];
    let mut app = open_all(&files, &store);
    app.update(Action::Goto);
    typed(&mut app, "toolace_train_00258__clean__recovered");
    app.update(Action::Confirm);
    feed(
        &mut app,
        &[
            Action::Adjust,
            Action::EndLeft,
            Action::EndLeft,
            Action::EndLeft,
        ],
    );
    let mut t = Terminal::new(TestBackend::new(160, 45)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let rows: Vec<String> = (0..45).map(|y| screen_row(&t, y)).collect();
    let old = rows.iter().find(|r| r.contains("│old ")).expect("old line");
    let new = rows
        .iter()
        .find(|r| r.contains("│new "))
        .unwrap_or_else(|| panic!("the new line is on screen:\n{}", rows.join("\n")));
    assert!(old.contains("owned in the collection: 15"), "{old}");
    assert!(new.contains("owned in the collection:"), "{new}");
    assert!(!new.contains("collection: 15"), "{new}");
    // What is left out is marked.
    assert!(old.contains("│old …"), "{old}");
}

#[test]
fn the_output_follows_the_end_of_a_long_span_while_it_moves() {
    // The output pane stayed on the span's start: moving the end of a span longer than the
    // pane changed nothing on screen.
    let store = mem();
    let files = vec![super::common::data(
        "toolace/test_records_reconstructed.jsonl",
    )];
    let mut app = open_all(&files, &store);
    goto(&mut app, "toolace_train_00258__clean__recovered");
    feed(
        &mut app,
        &[Action::Adjust, Action::EndLeft, Action::EndLeft],
    );
    render(&mut app, 100, 30);
    let (x, y) = cell_of(&app, 509);
    let pane = app.layout.output;
    assert!(y < pane.y + pane.height, "the end is in the output pane");
    let mut t = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    terminal::frame(&mut t, &mut app).expect("draw");
    let buf = t.backend().buffer();
    assert!(
        buf[(x - 1, y)].modifier.contains(Modifier::BOLD),
        "the new last character is highlighted"
    );
    assert!(
        !buf[(x, y)].modifier.contains(Modifier::BOLD),
        "what was cut off is not"
    );
}

#[test]
fn a_small_terminal_still_shows_the_span_list_and_the_adjust_and_add_panels() {
    // Below 9 rows for output and panel together, the panel was left out: at 60x20 nothing
    // said which span was selected, what it was adjusted to, or what was being added.
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    let screen = render(&mut app, 60, 20);
    assert!(screen.contains("▶ overgeneration [36, 91)"), "{screen}");
    feed(&mut app, &[Action::Adjust, Action::EndLeft]);
    let screen = render(&mut app, 60, 20);
    assert!(screen.contains("Adjust [36, 91) → [36, 90)"), "{screen}");
    assert!(
        screen.contains("│new … similar delays recently "),
        "{screen}"
    );
    // Room for one line: the new text.
    let screen = render(&mut app, 60, 15);
    assert!(screen.contains("│new "), "{screen}");
    app.update(Action::Cancel);
    feed(&mut app, &[Action::Add, Action::Mark]);
    let screen = render(&mut app, 60, 20);
    assert!(screen.contains("[36, 37) C"), "{screen}");
}

#[test]
fn span_decisions_on_a_record_reclassified_clean_or_removed_are_refused_not_saved() {
    // A clean or removed record keeps no span whatever its spans' decisions say: an accept
    // after `c` was saved as "saved #2 (accept)" and changed nothing, on screen or in export.
    let store = mem();
    let mut app = app(&store);
    goto(&mut app, "plain_2__overgeneration");
    render(&mut app, 100, 30);
    let (x0, y0) = cell_of(&app, 29);
    let (x1, y1) = cell_of(&app, 33);
    for (decide, what) in [
        (vec![Action::Clean], "reclassified clean"),
        (vec![Action::Remove, Action::Confirm], "removed"),
    ] {
        feed(&mut app, &decide);
        let n = log(&store).len();
        for a in [Action::Accept, Action::Relabel, Action::Adjust, Action::Add] {
            app.update(a);
            assert!(
                matches!(app.mode, ModeState::Normal),
                "{a:?}: {:?}",
                app.mode
            );
            assert!(
                matches!(&app.status, Status::Info(m) if m.contains(what) && m.contains("undo")),
                "{a:?}: {:?}",
                app.status
            );
        }
        feed(
            &mut app,
            &[
                Action::MouseDown(x0, y0),
                Action::MouseDrag(x1, y1),
                Action::MouseUp(x1, y1),
            ],
        );
        assert!(matches!(app.mode, ModeState::Normal), "{:?}", app.mode);
        assert_eq!(log(&store).len(), n, "nothing saved");
        // Undoing the reclassification makes the spans decidable again.
        app.update(Action::Undo);
        app.update(Action::Accept);
        assert_eq!(
            log(&store).last().map(|d| d.action),
            Some(ActionKind::Accept)
        );
        app.update(Action::Undo);
    }
}

#[test]
fn the_records_notes_are_shown_under_the_span_list() {
    // `m` saved a note and the header counted it ("1 note"), but its text was nowhere on the
    // review screen.
    let store = mem();
    let mut app = app(&store);
    app.update(Action::Note);
    typed(&mut app, "check the °C against the tool");
    app.update(Action::Confirm);
    app.update(Action::Note);
    typed(&mut app, "東京 ok");
    app.update(Action::Confirm);
    assert_saved(&app, 2);
    let screen = render(&mut app, 100, 30);
    assert!(
        screen.contains("✎ notes: check the °C against the tool · 東京 ok"),
        "{screen}"
    );
    assert!(screen.contains("▶ contradiction [29, 34)"), "{screen}");
}

#[test]
fn a_decision_another_process_saves_on_the_record_on_screen_is_shown() {
    // Two processes on one database: ann accepted the span, bob then dropped it. Ann's screen
    // kept showing "accepted" (and the record reviewed as she left it) while the log, and the
    // export, had it dropped.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("two.sqlite");
    let ann_db = Rc::new(Store::open(&path).expect("db"));
    let bob_db = Rc::new(Store::open(&path).expect("db"));
    // One clock for both, moved by hand (the screen follows by the log's clock).
    let now = std::sync::Arc::new(std::sync::Mutex::new(std::time::SystemTime::now()));
    for db in [&ann_db, &bob_db] {
        let now = std::sync::Arc::clone(&now);
        db.set_clock(std::sync::Arc::new(move || *now.lock().expect("clock")));
    }
    let tick = || *now.lock().expect("clock") += std::time::Duration::from_secs(1);
    let mut ann = app_on(
        &fixture_files(),
        Box::new(Rc::clone(&ann_db)),
        QueueKind::All,
    );
    let mut bob = app_on(
        &fixture_files(),
        Box::new(Rc::clone(&bob_db)),
        QueueKind::All,
    );
    ann.update(Action::Accept);
    feed(&mut bob, &[Action::Drop, Action::Confirm]);
    assert!(matches!(&bob.status, Status::Saved(_)), "{:?}", bob.status);
    // The screen re-reads the log of its record when idle, about once a second.
    tick();
    ann.idle();
    let c = ann.cur.as_ref().expect("record");
    assert!(
        matches!(c.review.spans[0].status, SpanStatus::Dropped { .. }),
        "{:?}",
        c.review.spans[0].status
    );
    // Who did what, beside her own "saved".
    assert_eq!(
        ann.status,
        Status::Saved("saved #1 (accept) · tester dropped “rainy” [29, 34) a moment ago".into())
    );
    assert!(render(&mut ann, 100, 30).contains("“rainy”  dropped"));
    // Nothing new: nothing said.
    ann.update(Action::Cancel);
    tick();
    ann.idle();
    assert_eq!(ann.status, Status::None);
}

#[test]
fn the_stats_screen_leaves_removed_records_out_of_the_agreement_as_stats_does() {
    // A removed record is not in the reviewed result (`spanreview stats` leaves it out); the
    // stats screen compared it as a record with no span, so the gold's labels on it counted
    // as false positives (char F1 0.00 over one removed record).
    let store = mem();
    let mut app = app(&store);
    feed(&mut app, &[Action::Remove, Action::Confirm]);
    goto(&mut app, "plain_2__overgeneration");
    app.update(Action::AcceptAll);
    app.update(Action::Stats);
    let st = app.stats.clone().expect("stats");
    assert_eq!((st.reviewed, st.removed), (2, 1));
    assert_eq!(st.compared, 1, "the accepted record only");
    let gold = st.sources.iter().find(|s| s.name == "gold").expect("gold");
    assert_eq!(gold.overall.records, 1);
    assert!((gold.overall.char_level.f1 - 1.0).abs() < 1e-9, "{gold:?}");
}

#[test]
fn labels_takes_the_embedded_taxonomies_by_name_as_validate_does() {
    // `validate --labels lettucedetect` works; `review --labels lettucedetect` said
    // "lettucedetect: No such file or directory".
    let l = spanreview::tui::labels::read_file(Path::new("lettucedetect")).expect("embedded");
    assert!(
        l.iter()
            .any(|c| spanreview::tui::labels::shown(c) == "contradiction / numerical"),
        "{l:?}"
    );
    let t = spanreview::tui::labels::read_file(Path::new("toolace")).expect("embedded");
    assert!(t.iter().any(|c| c.label == "missing_tool"), "{t:?}");
    // The labels are read before the terminal is needed.
    let rec = fixture("review/records.jsonl");
    super::common::bin()
        .args(["review", "--labels", "lettucedetect"])
        .arg(&rec)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("needs a terminal"));
    super::common::bin()
        .args(["review", "--labels", "lettuce"])
        .arg(&rec)
        .assert()
        .code(2)
        .stderr(
            predicates::str::contains("lettuce")
                .and(predicates::str::contains("toolace or lettucedetect")),
        );
}

#[test]
fn an_empty_queue_has_no_position_in_the_header() {
    let store = mem();
    let mut app = app_on(
        &fixture_files(),
        Box::new(Rc::clone(&store)),
        QueueKind::Flagged,
    );
    assert!(app.cur.is_err(), "nothing is flagged");
    let screen = render(&mut app, 100, 20);
    let header = screen.lines().next().expect("a header row");
    assert!(
        header.contains("records · – / 0 · queue flagged"),
        "{header}"
    );
    assert!(screen.contains("the queue is empty"), "{screen}");
}

#[test]
fn adding_a_span_that_is_already_there_adds_nothing() {
    // Marking "rainy" [29, 34) again as contradiction saved a second, identical span: two
    // identical labels in the export.
    let store = mem();
    let mut app = app(&store);
    let mark_rainy = [
        Action::Add,
        Action::Mark,
        Action::CursorWordRight,
        Action::Mark,
    ];
    feed(&mut app, &mark_rainy);
    assert_eq!(picked(&app), (29, 34));
    app.update(Action::Confirm);
    assert!(log(&store).is_empty(), "nothing saved");
    assert!(
        matches!(&app.status, Status::Info(m) if m.contains("already there")),
        "{:?}",
        app.status
    );
    assert_eq!(selected_text(&app), "rainy");
    // Another label is another span.
    feed(&mut app, &mark_rainy);
    typed(&mut app, "3");
    let rows = log(&store);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].after.as_ref().map(|a| a.label.as_str()),
        Some("overgeneration")
    );
}

#[test]
fn another_reviewers_reclassification_does_not_stop_a_span_decision() {
    // Replay reopens a record another reviewer reclassified when this one keeps a span (a
    // merged database): the review screen must not refuse that decision as it refuses one's
    // own after one's own `c`.
    let store = mem();
    let ds = |who: &str| {
        let d = Dataset::open(&fixture_files(), None).expect("fixture opens");
        App::new(
            d,
            Box::new(Rc::clone(&store)),
            who,
            QueueKind::All,
            Config::defaults(true),
            None,
        )
        .expect("app")
    };
    let mut ann = ds("ann");
    ann.update(Action::Clean);
    let mut bob = ds("bob");
    goto(&mut bob, "uni_1__contradiction");
    bob.update(Action::Accept);
    assert_saved(&bob, 2);
    let c = bob.cur.as_ref().expect("record");
    assert_eq!(
        c.review.outcome,
        spanreview::review::decision::RecordOutcome::Open
    );
    assert_eq!(c.review.spans[0].status, SpanStatus::Accepted);
}
