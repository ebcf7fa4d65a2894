//! The review screen's behaviours from the "Numbers" and "Hardening" issues: the header's
//! progress after a restart, pickers past nine rows, `a` and `A` under one rule for spans,
//! what `--blind` may show, and what the span list and header say about removed records and
//! records typed clean. Actions are fed into `App` without a terminal; views are rendered into
//! ratatui's `TestBackend`.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::json;
use spanreview::review::decision::{replay, ActionKind, Decision, SpanStatus};
use spanreview::store::Store;
use spanreview::tui::app::{ModeState, Status};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{feed, goto, id, mem, open, open_all, render, review_files, review_queue};
use super::common::write_jsonl;

fn log(store: &Store) -> Vec<Decision> {
    store.decisions(None).expect("log reads")
}

#[test]
fn header_progress_after_a_restart_is_the_datasets() {
    let dir = tempfile::tempdir().expect("tmp");
    let db = dir.path().join("review.sqlite");
    {
        let store = Rc::new(Store::open(&db).expect("db"));
        let mut app = review_queue(&store, QueueKind::Unreviewed);
        feed(&mut app, &[Action::AcceptAll, Action::AcceptAll]);
        assert_eq!(id(&app), "clean_3__clean");
    }
    // Reopened, the unreviewed queue holds the two records left: the header said "0/2
    // reviewed" with two of the four done.
    let store = Rc::new(Store::open(&db).expect("db"));
    let mut app = review_queue(&store, QueueKind::Unreviewed);
    let s = render(&mut app, 100, 30);
    assert!(s.contains("1 / 2 "), "the position is the queue's:\n{s}");
    assert!(s.contains("2/4 reviewed"), "{s}");
    app.update(Action::AcceptAll);
    let s = render(&mut app, 100, 30);
    assert!(s.contains("3/4 reviewed"), "{s}");
    // A filtered queue shows the dataset's progress too.
    let mut typed_queue = review_queue(&store, QueueKind::Type("missing_tool".into()));
    let s = render(&mut typed_queue, 100, 30);
    assert!(s.contains("3/4 reviewed"), "{s}");
}

/// A Mu-SHROOM record with the gold and eleven annotators, each marking a different end of
/// the same words: one disputed cluster, twelve versions.
fn twelve_sources(dir: &Path) -> PathBuf {
    let output =
        "Pétra van Stövèren won a silver medal in the 2008 Summer Olympics in Beijing, 中国.";
    let annotations: serde_json::Map<String, serde_json::Value> = (1..=11)
        .map(|k| (format!("ann{k:02}"), json!([[25, 31 + k]])))
        .collect();
    let path = dir.join("mushroom.en-val.jsonl");
    write_jsonl(
        &path,
        &[json!({
            "id": "val-en-1", "lang": "EN", "model_input": "What did Petra van Staveren win?",
            "model_output_text": output, "hard_labels": [[25, 31]], "soft_labels": [],
            "annotations": annotations,
        })],
    );
    path
}

#[test]
fn digits_in_a_picker_build_the_number_of_a_source_past_nine() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = mem();
    let mut app = open_all(&[twelve_sources(dir.path())], &store);
    app.update(Action::Arbitrate);
    let (first, twelfth) = {
        let arb = app.arb.as_ref().expect("arbitration state");
        assert_eq!(arb.lanes.len(), 12, "gold and eleven annotators");
        let sources = &app.cur.as_ref().expect("record").record.sources;
        // Which version was taken shows in the result's bounds (every version overlaps the
        // others with the same label, so all are upheld whichever is taken).
        let bounds = |lane: usize| {
            let sp = &sources[arb.lanes[lane]].spans[0];
            Some((sp.start, sp.end))
        };
        (bounds(0), bounds(11))
    };
    app.update(Action::TakeOther);
    // `1` could start 10, 11 or 12: it selects row 1 and waits.
    app.update(Action::Input('1'));
    match &app.mode {
        ModeState::Picker { sel, .. } => assert_eq!(*sel, 0),
        other => panic!("`1` of twelve rows chose at once: {other:?}"),
    }
    assert!(log(&store).is_empty(), "nothing saved yet");
    assert!(
        render(&mut app, 120, 40).contains("1…"),
        "the digits typed are shown"
    );
    app.update(Action::Input('2'));
    assert_eq!(
        app.mode,
        ModeState::Arbitrate,
        "12 can start no longer number"
    );
    let rows = log(&store);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].action, ActionKind::Resolve);
    let taken = |d: &Decision| d.after.as_ref().map(|a| (a.start, a.end));
    assert_eq!(taken(&rows[0]), twelfth, "{rows:?}");
    assert_ne!(first, twelfth);
    // `1` then Enter is row 1; backspace takes a digit back.
    feed(&mut app, &[Action::Undo, Action::TakeOther]);
    feed(
        &mut app,
        &[Action::Input('1'), Action::DeleteChar, Action::Input('1')],
    );
    assert!(matches!(app.mode, ModeState::Picker { .. }));
    app.update(Action::Confirm);
    let last = log(&store).last().cloned().expect("a row");
    assert_eq!(last.action, ActionKind::Resolve);
    assert_eq!(taken(&last), first, "{last:?}");
    // A number no row has chooses nothing and says so.
    feed(
        &mut app,
        &[Action::TakeOther, Action::Input('1'), Action::Input('3')],
    );
    assert!(matches!(app.mode, ModeState::Picker { .. }));
    assert!(
        matches!(&app.status, Status::Info(m) if m.contains("no row 13")),
        "{:?}",
        app.status
    );
}

/// Records whose first has a valid span (`rainy`), a reversed one `[40, 10)` and one that
/// ends past the answer (76 code points, more bytes).
fn defective_spans(dir: &Path) -> PathBuf {
    let output = "東京 👋 café: it is rainy and 25°C, then sunny later today in Tōkyō, they said.";
    let label = |s: usize, e: usize| json!({"start": s, "end": e, "label": "contradiction"});
    let path = dir.join("records.jsonl");
    write_jsonl(
        &path,
        &[
            json!({"id": "bad_1__contradiction", "query": "Weather?", "context": "",
                   "output": output,
                   "hallucination_labels": [label(17, 22), label(40, 10), label(73, 80)],
                   "meta": {"corruption_type": "contradiction"}}),
            json!({"id": "next_2__contradiction", "query": "Weather?", "context": "",
                   "output": output, "hallucination_labels": [label(17, 22)],
                   "meta": {"corruption_type": "contradiction"}}),
        ],
    );
    path
}

#[test]
fn accept_all_skips_the_spans_that_accept_refuses() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = mem();
    let mut app = open_all(&[defective_spans(dir.path())], &store);
    // Spans in text order: [17, 22), [40, 10), [73, 80).
    app.update(Action::NextSpan);
    app.update(Action::Accept);
    assert!(
        matches!(&app.status, Status::Info(m) if m.contains("[40, 10) is reversed")),
        "{:?}",
        app.status
    );
    app.update(Action::NextSpan);
    app.update(Action::Accept);
    assert!(
        matches!(&app.status, Status::Info(m) if m.contains("[73, 80) ends past the answer (76 characters)")),
        "{:?}",
        app.status
    );
    assert!(log(&store).is_empty(), "`a` saves neither");
    app.update(Action::AcceptAll);
    assert_eq!(
        id(&app),
        "bad_1__contradiction",
        "the record stays: it is not reviewed"
    );
    let rows = log(&store);
    let kinds: Vec<ActionKind> = rows.iter().map(|d| d.action).collect();
    assert_eq!(
        kinds,
        [ActionKind::Accept],
        "only the valid span is accepted"
    );
    assert_eq!(
        rows[0].before.as_ref().map(|b| (b.start, b.end)),
        Some((17, 22))
    );
    match &app.status {
        Status::Saved(m) => {
            assert!(m.contains("[40, 10) is reversed"), "{m}");
            assert!(m.contains("[73, 80) ends past the answer"), "{m}");
            assert!(m.contains("adjust") && m.contains("drop"), "{m}");
        }
        other => panic!("expected saved with the skipped spans named, got {other:?}"),
    }
    let c = app.cur.as_ref().expect("record");
    let review = replay(&c.record, &rows);
    let states: Vec<(usize, usize, bool)> = review
        .spans
        .iter()
        .map(|s| {
            (
                s.current.start,
                s.current.end,
                s.status == SpanStatus::Pending,
            )
        })
        .collect();
    assert_eq!(states, [(17, 22, false), (40, 10, true), (73, 80, true)]);
    let i = c.selected_span().expect("a selection");
    assert_eq!(
        (
            c.review.spans[i].current.start,
            c.review.spans[i].current.end
        ),
        (40, 10),
        "the first span to fix is selected"
    );
    assert!(!store.record_states("records").expect("states")["bad_1__contradiction"].reviewed);
    // The reversed one dropped (the log keeps no reversed `before`) and the other moved back
    // inside the answer with `t`, they no longer stand in the way.
    feed(&mut app, &[Action::Drop, Action::Confirm]);
    assert!(matches!(app.status, Status::Saved(_)), "{:?}", app.status);
    let dropped = log(&store).last().cloned().expect("a row");
    assert_eq!((dropped.action, dropped.before), (ActionKind::Drop, None));
    feed(
        &mut app,
        &[Action::Adjust, Action::EndLeft, Action::Confirm],
    );
    assert!(matches!(app.status, Status::Saved(_)), "{:?}", app.status);
    let adjusted = log(&store).last().and_then(|d| d.after.clone());
    assert_eq!(adjusted.map(|a| (a.start, a.end)), Some((73, 76)));
    app.update(Action::AcceptAll);
    assert_eq!(id(&app), "next_2__contradiction", "{:?}", app.status);
    assert!(store.record_states("records").expect("states")["bad_1__contradiction"].reviewed);
}

/// A record with a gold span, a detector named by its label (`ensemble`, with confidences)
/// and another detector with confidences: one disputed cluster.
fn named_detectors(dir: &Path) -> Vec<PathBuf> {
    let output = "東京 👋 café: it is rainy and 25°C, then sunny later today in Tōkyō, they said.";
    let gold = json!([{"start": 17, "end": 22, "text": "rainy", "label": "contradiction"}]);
    let records = dir.join("records.jsonl");
    write_jsonl(
        &records,
        &[
            json!({"id": "b1__contradiction", "query": "Weather in Tōkyō?",
                 "context": "{\"content\": {\"temp_c\": 25}, \"name\": \"get_weather\", \"role\": \"tool\"}",
                 "output": output, "hallucination_labels": gold,
                 "meta": {"corruption_type": "contradiction"}}),
        ],
    );
    let preds = |name: &str, spans: serde_json::Value| {
        let p = dir.join(format!("predictions_{name}_combined.jsonl"));
        write_jsonl(
            &p,
            &[json!({"id": "b1__contradiction", "output": output,
                     "corruption_type": "contradiction", "gold_spans": gold,
                     "pred_spans": spans})],
        );
        p
    };
    vec![
        records,
        preds(
            "ensemble",
            json!([{"start": 17, "end": 26, "text": "rainy and", "label": "ensemble", "confidence": 0.93}]),
        ),
        preds(
            "modernbert",
            json!([{"start": 14, "end": 22, "text": "is rainy", "label": "contradiction", "confidence": 0.81}]),
        ),
    ]
}

/// True when a row of the result lane (`✓`) marks something.
fn result_lane_marks(screen: &str) -> bool {
    screen
        .lines()
        .any(|l| l.contains("  ✓ ") && l.contains('▒'))
}

#[test]
fn blind_shows_nothing_that_tells_the_sources_apart_until_resolved() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = mem();
    let mut app = open(
        &named_detectors(dir.path()),
        &store,
        QueueKind::All,
        ArbConfig {
            blind: true,
            ..ArbConfig::default()
        },
    );
    app.update(Action::Arbitrate);
    assert!(!app.names_visible());
    let s = render(&mut app, 140, 40);
    for tell in ["ensemble", "modernbert", "gold", "conf "] {
        assert!(!s.contains(tell), "{tell:?} shown before resolving:\n{s}");
    }
    assert!(
        !result_lane_marks(&s),
        "the result lane matched the gold's lane before any decision:\n{s}"
    );
    assert!(s.contains("A: [") && s.contains("C: ["), "{s}");
    app.update(Action::Take1);
    assert!(matches!(app.status, Status::Saved(_)), "{:?}", app.status);
    assert!(app.names_visible(), "one cluster: resolved, names shown");
    let s = render(&mut app, 140, 40);
    assert!(s.contains("ensemble") && s.contains("conf 0.93"), "{s}");
    assert!(
        result_lane_marks(&s),
        "the result lane shows the result:\n{s}"
    );
}

#[test]
fn spans_of_a_removed_record_are_not_called_pending() {
    let store = mem();
    let mut app = open_all(&review_files(), &store);
    let s = render(&mut app, 160, 30);
    assert!(s.contains("pending"), "{s}");
    feed(&mut app, &[Action::Remove, Action::Input('1')]);
    assert_eq!(
        log(&store).last().map(|d| d.action),
        Some(ActionKind::Remove)
    );
    let s = render(&mut app, 160, 30);
    assert!(!s.contains("pending"), "{s}");
    assert!(s.contains("cleared: record removed"), "{s}");
}

/// On `clean_3__clean`, "Your balance is 120 EUR.": add a span over "balance".
const ADD_BALANCE: [Action; 6] = [
    Action::Add,
    Action::CursorWordRight,
    Action::Mark,
    Action::CursorWordRight,
    Action::Mark,
    Action::Confirm,
];

#[test]
fn a_span_added_to_a_record_typed_clean_is_called_out() {
    let store = mem();
    let mut app = open_all(&review_files(), &store);
    goto(&mut app, "clean_3__clean");
    let s = render(&mut app, 120, 30);
    assert!(!s.contains("typed clean"), "{s}");
    feed(&mut app, &ADD_BALANCE);
    assert_eq!(log(&store).last().map(|d| d.action), Some(ActionKind::Add));
    match &app.status {
        Status::Saved(m) => assert!(m.contains("typed clean") && m.contains("warn"), "{m}"),
        other => panic!("expected saved, got {other:?}"),
    }
    let s = render(&mut app, 120, 30);
    assert!(s.contains("typed clean but keeps 1 span"), "{s}");
    // Reclassified clean, the record keeps no span: nothing to call out.
    app.update(Action::Clean);
    let s = render(&mut app, 120, 30);
    assert!(!s.contains("typed clean but keeps"), "{s}");
}

#[test]
fn a_record_typed_clean_that_keeps_a_span_can_be_retyped_from_the_screen() {
    let store = mem();
    let mut app = open_all(&review_files(), &store);
    goto(&mut app, "clean_3__clean");
    feed(&mut app, &ADD_BALANCE);
    match &app.status {
        Status::Saved(m) => assert!(m.contains("T changes its type"), "{m}"),
        other => panic!("expected saved, got {other:?}"),
    }
    // The key the message names opens a picker of the types seen, without the record's own.
    app.update(Action::Retype);
    let ModeState::Picker { items, .. } = &app.mode else {
        panic!("expected the type picker, got {:?}", app.mode);
    };
    assert!(!items.iter().any(|t| t == "clean"), "{items:?}");
    let k = items
        .iter()
        .position(|t| t == "contradiction")
        .unwrap_or_else(|| panic!("the file's types: {items:?}"));
    for _ in 0..k {
        app.update(Action::Down);
    }
    app.update(Action::Confirm);
    let last = log(&store).pop().expect("a decision");
    assert_eq!(last.action, ActionKind::Retype);
    assert_eq!(last.record_type.as_deref(), Some("contradiction"));
    let c = app.cur.as_ref().expect("a record");
    assert_eq!(c.review.record_type.as_deref(), Some("contradiction"));
    let s = render(&mut app, 120, 30);
    assert!(!s.contains("typed clean but keeps"), "{s}");
    assert!(s.contains("contradiction"), "{s}");
    // Undone, the record is typed clean again and says so.
    app.update(Action::Undo);
    let s = render(&mut app, 120, 30);
    assert!(s.contains("typed clean but keeps 1 span"), "{s}");
    // Help lists the key.
    app.update(Action::Help);
    let s = render(&mut app, 160, 60);
    assert!(s.contains("change the record's type"), "{s}");
}
