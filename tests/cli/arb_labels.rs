//! The arbitration screen's labels and reclassify keys (issue 21, defects 2 and 9): a
//! resolution's span keeps the label of the side it starts from and never takes the record's
//! type; with no side's label the picker asks; `r` relabels a resolution's span; `c`, `T`, `R`
//! as on the review screen; a record left typed with no span is said on screen. On the toolace
//! sample, with the team's reviewers as sources (`reviewer:ana`, `reviewer:bo`).

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use spanreview::cli::judge_args::JudgeArgs;
use spanreview::formats::Dataset;
use spanreview::model::Record;
use spanreview::review::decision::{ActionKind, Decision, RecordOutcome, SpanValue};
use spanreview::store::Store;
use spanreview::tui::app::{App, ModeState, Opening, PickerKind, Status};
use spanreview::tui::clustering::ArbConfig;
use spanreview::tui::config::Config;
use spanreview::tui::keymap::Mode;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{bound, finish, goto, id, mem, open_all, render};
use super::common::data;

/// The typed record the reviewers disagree on: its gold span (`missing_tool`) is the
/// reminder sentence; bo relabels it `contradiction`, ana accepts it.
const TYPED: &str = "toolace_train_00285__missing_tool";
/// A clean record the ensemble alone marks, with its `ensemble` label (no hallucination type).
const CLEAN_ONE: &str = "toolace_train_00027__clean";

fn records() -> PathBuf {
    data("toolace/test_records_reconstructed.jsonl")
}

fn toolace_with_detectors() -> Vec<PathBuf> {
    vec![
        records(),
        data("toolace/ensemble/predictions_combined.jsonl"),
        data("toolace/modernbert_ft/predictions_combined.jsonl"),
    ]
}

fn record(ds: &Dataset, id: &str) -> Record {
    let i = (0..ds.len())
        .find(|&i| ds.primary().id(i).is_ok_and(|x| x == id))
        .expect("record in the sample");
    ds.record(i).expect("readable")
}

/// A team database in memory: ana accepts [`TYPED`] whole, bo relabels its gold span
/// `contradiction`; then the arbitration screen of `lead` on it, disputed queue, with the
/// reviewers as sources.
fn team() -> (Rc<Store>, App) {
    let ds = Dataset::open(&[records()], None).expect("open");
    let store = mem();
    let rec = record(&ds, TYPED);
    store
        .append(
            &Decision::new(&rec, &ds.name, "ana", ActionKind::AcceptAll),
            None,
        )
        .expect("ana");
    let mut d = Decision::new(&rec, &ds.name, "bo", ActionKind::Relabel);
    let gold = SpanValue::of(&rec.gold_spans()[0]);
    d.span_key = Some("gold:0".to_owned());
    d.before = Some(gold.clone());
    d.after = Some(SpanValue {
        label: "contradiction".to_owned(),
        ..gold
    });
    store.append(&d, None).expect("bo");
    let judges = JudgeArgs::default()
        .load(&ds, &ds.name, Some(&store))
        .expect("load")
        .0
        .for_arbitration();
    let arb = ArbConfig {
        judges: Some(Arc::new(judges)),
        ..ArbConfig::default()
    };
    let opening = Opening {
        arb,
        ..Opening::new(QueueKind::Disputed, Config::defaults(true))
    };
    let mut app = App::open(ds, Box::new(Rc::clone(&store)), "lead", opening).expect("app");
    finish(&mut app);
    assert_eq!(id(&app), TYPED, "{:?}", app.cur.as_ref().err());
    (store, app)
}

/// The lanes' source names, lane 1 first.
fn lanes(app: &App) -> Vec<String> {
    let c = app.cur.as_ref().expect("record");
    let arb = app.arb.as_ref().expect("arbitration");
    arb.lanes
        .iter()
        .map(|&s| c.record.sources[s].name.clone())
        .collect()
}

fn log(store: &Store) -> Vec<Decision> {
    store.decisions(None).expect("log")
}

/// The kept spans of the record on screen: (start, end, label).
fn kept(app: &App) -> Vec<(usize, usize, String)> {
    let c = app.cur.as_ref().expect("record");
    c.review
        .kept_spans(&c.record.output)
        .into_iter()
        .map(|s| (s.start, s.end, s.label))
        .collect()
}

#[test]
fn an_edit_keeps_the_label_of_the_side_it_starts_from() {
    let (store, mut app) = team();
    assert_eq!(lanes(&app), ["gold", "reviewer:ana", "reviewer:bo"]);
    // `t`, then Tab twice: the edit starts from bo's version (`contradiction`), not the gold's.
    app.update(Action::Adjust);
    app.update(Action::NextVersion);
    app.update(Action::NextVersion);
    assert!(
        matches!(&app.status, Status::Info(m) if m.contains("reviewer:bo")),
        "{:?}",
        app.status
    );
    assert_eq!(app.edit_label().as_deref(), Some("contradiction"));
    let screen = render(&mut app, 140, 40);
    assert!(screen.contains("contradiction"), "{screen}");
    app.update(Action::Confirm);
    let rows = log(&store);
    let last = rows.last().expect("a row");
    assert_eq!(last.action, ActionKind::Resolve, "{rows:?}");
    let after = last.after.as_ref().expect("the edited span");
    assert_eq!(
        after.label, "contradiction",
        "the side the edit started from, not the gold's missing_tool: {last:?}"
    );
    // From the gold's version, the gold's label.
    app.update(Action::Adjust);
    app.update(Action::EndLeft);
    app.update(Action::Confirm);
    let rows = log(&store);
    let last = rows.last().expect("a row");
    assert_eq!(last.after.as_ref().expect("span").label, "missing_tool");
}

#[test]
fn a_side_without_a_label_asks_for_one_and_never_gives_the_records_type() {
    let store = mem();
    let mut app = open_all(&toolace_with_detectors(), &store);
    finish(&mut app);
    goto(&mut app, CLEAN_ONE);
    app.update(Action::Arbitrate);
    assert_eq!(lanes(&app)[1], "ensemble");
    // Take the ensemble's span: no source here has a hallucination type; the record's is
    // `clean`, which is no span's label. The picker asks; nothing is saved yet.
    app.update(Action::Take2);
    assert!(
        matches!(
            &app.mode,
            ModeState::Picker {
                kind: PickerKind::ResolutionLabel { .. },
                items,
                ..
            } if !items.iter().any(|i| i == "clean")
        ),
        "{:?}",
        app.mode
    );
    assert!(log(&store).is_empty(), "nothing saved before a label");
    // Esc: still nothing saved, back on the arbitration screen.
    app.update(Action::Cancel);
    assert_eq!(app.mode, ModeState::Arbitrate);
    assert!(log(&store).is_empty());
    // The edit (`t`, Enter) asks too; the label chosen is saved.
    app.update(Action::Adjust);
    app.update(Action::Confirm);
    let ModeState::Picker { items, .. } = app.mode.clone() else {
        panic!("the picker asks: {:?}", app.mode);
    };
    let row = items
        .iter()
        .position(|i| i == "overgeneration")
        .expect("offered");
    for _ in 0..row {
        app.update(Action::Down);
    }
    app.update(Action::Confirm);
    let rows = log(&store);
    assert!(!rows.is_empty() && rows.iter().all(|d| d.action == ActionKind::Resolve));
    let labels: Vec<&str> = rows
        .iter()
        .filter_map(|d| d.after.as_ref())
        .map(|a| a.label.as_str())
        .collect();
    assert_eq!(labels, ["overgeneration"], "{rows:?}");
}

#[test]
fn r_relabels_the_span_a_resolution_keeps() {
    let (store, mut app) = team();
    // Not resolved yet: r says so and saves nothing.
    app.update(Action::Relabel);
    assert!(
        matches!(&app.status, Status::Info(m) if m.contains("resolve the cluster first")),
        "{:?}",
        app.status
    );
    let n0 = log(&store).len();
    assert_eq!(app.mode, ModeState::Arbitrate);
    // Take the gold (missing_tool), then relabel the result contradiction with `r`.
    app.update(Action::Take1);
    let (start, end, label) = kept(&app)[0].clone();
    assert_eq!(label, "missing_tool");
    while app.arb.as_ref().expect("arb").cluster != 0 {
        app.update(Action::PrevSpan);
    }
    app.update(Action::Relabel);
    let ModeState::Picker {
        kind: PickerKind::ResolutionLabel { spans, .. },
        items,
        sel,
        ..
    } = app.mode.clone()
    else {
        panic!("the label picker: {:?}", app.mode);
    };
    assert_eq!(spans, [(start, end)]);
    assert_eq!(items[sel], "missing_tool", "the current label is selected");
    let row = items
        .iter()
        .position(|i| i == "contradiction")
        .expect("offered");
    app.update(Action::Input(
        char::from_digit(u32::try_from(row + 1).expect("row"), 10).expect("digit"),
    ));
    let rows = log(&store)[n0..].to_vec();
    let last = rows.last().expect("rows");
    assert_eq!(last.action, ActionKind::Resolve, "{rows:?}");
    assert_eq!(last.reason.as_deref(), Some("relabel"));
    assert_eq!(kept(&app), [(start, end, "contradiction".to_owned())]);
}

#[test]
fn the_arbitration_screen_has_the_reclassify_keys_and_says_when_no_span_is_left() {
    let (store, mut app) = team();
    for (key, action) in [
        ("c", Action::Clean),
        ("T", Action::Retype),
        ("R", Action::Remove),
        ("r", Action::Relabel),
        ("C", Action::NextClaim),
    ] {
        assert_eq!(
            bound(&app, Mode::Arbitrate, key),
            Some(action),
            "{key} as on the review screen"
        );
        if key != "C" {
            assert_eq!(bound(&app, Mode::Normal, key), Some(action), "{key}");
        }
    }
    // Drop all: the record keeps its type (missing_tool) and no span. Said on screen.
    app.update(Action::Drop);
    assert!(kept(&app).is_empty());
    let said = "typed missing_tool with no span left";
    assert!(
        matches!(&app.status, Status::Saved(m) if m.contains(said)),
        "{:?}",
        app.status
    );
    assert_eq!(app.typed_without_span().as_deref(), Some("missing_tool"));
    let screen = render(&mut app, 160, 45);
    assert!(screen.contains(said), "{screen}");
    // `T`: the retype picker, as on the review screen.
    app.update(Action::Retype);
    assert!(
        matches!(
            &app.mode,
            ModeState::Picker {
                kind: PickerKind::Retype { .. },
                ..
            }
        ),
        "{:?}",
        app.mode
    );
    app.update(Action::Cancel);
    // `c`: reclassified clean (a `clean` decision of lead's): nothing more to say.
    app.update(Action::Clean);
    let last = log(&store).pop().expect("row");
    assert_eq!(last.action, ActionKind::Clean);
    assert_eq!(last.reviewer, "lead");
    let c = app.cur.as_ref().expect("record");
    assert_eq!(c.review.outcome, RecordOutcome::Clean);
    assert_eq!(app.typed_without_span(), None);
    assert_eq!(app.mode, ModeState::Arbitrate);
    let screen = render(&mut app, 160, 45);
    assert!(!screen.contains(said), "{screen}");
    // `R`: the remove picker; a reason removes the record.
    app.update(Action::Remove);
    assert!(
        matches!(
            &app.mode,
            ModeState::Picker {
                kind: PickerKind::RemoveReason,
                ..
            }
        ),
        "{:?}",
        app.mode
    );
    app.update(Action::Confirm);
    assert_eq!(log(&store).pop().expect("row").action, ActionKind::Remove);
}
