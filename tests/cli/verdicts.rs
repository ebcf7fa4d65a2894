//! The verdicts file and the report's review numbers, from reviews made on the screen or
//! scripted into a database: boundary changes named apart, every reason carried, one shape for
//! every line of every export, and a record settled by a resolution that keeps no span.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::Value;
use spanreview::model::Record;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::store::Store;
use spanreview::tui::app::App;
use spanreview::tui::Action;
use tempfile::TempDir;

use super::app_harness::open_all;
use super::common::{bin, cell, fixture, records};

/// `export FILE --db DB --skip-stale` with verdicts and report in `dir`: the verdict lines and
/// the report.
fn export(dir: &Path, input: &Path, db: &Path, name: &str) -> (Vec<Value>, String) {
    let verdicts = dir.join(format!("{name}.verdicts.jsonl"));
    let report = dir.join(format!("{name}.md"));
    bin()
        .arg("export")
        .arg(input)
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(dir.join(format!("{name}.jsonl")))
        .arg("--verdicts")
        .arg(&verdicts)
        .arg("--report")
        .arg(&report)
        .arg("--skip-stale")
        .assert()
        .success();
    let lines = fs::read_to_string(&verdicts)
        .expect("verdicts")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    (lines, fs::read_to_string(&report).expect("report"))
}

#[test]
fn widening_a_span_with_t_w_w_enter_is_counted_widened() {
    let dir = TempDir::new().expect("tmp");
    let db = dir.path().join("review.sqlite");
    let records = fixture("review/records.jsonl");
    let store = Rc::new(Store::open(&db).expect("db"));
    let mut app = open_all(std::slice::from_ref(&records), &store);
    for a in [
        Action::Adjust,
        Action::EndWordRight,
        Action::EndWordRight,
        Action::Confirm,
    ] {
        app.update(a);
    }
    let log = store.decisions(None).expect("log");
    let d = log.last().expect("the adjust is saved");
    assert_eq!(d.action, ActionKind::Adjust);
    let (before, after) = (
        d.before.clone().expect("before"),
        d.after.clone().expect("after"),
    );
    assert!(
        after.start == before.start && after.end > before.end,
        "{d:?}"
    );
    drop(app);
    let (verdicts, report) = export(dir.path(), &records, &db, "w");
    let v = verdicts
        .iter()
        .find(|v| v["id"] == d.record_id.as_str())
        .expect("verdict");
    assert_eq!(v["outcomes"], serde_json::json!(["widened"]));
    assert_eq!(cell(&report, "Boundaries widened"), "1");
    assert_eq!(cell(&report, "Boundaries tightened"), "0");
    assert_eq!(cell(&report, "Boundaries shifted"), "0");
}

/// Save decisions on the export fixture's records into `db` (dataset `records`).
fn script(db: &Path, decisions: impl FnOnce(&[Record]) -> Vec<Decision>) {
    let store = Store::open(db).expect("db");
    for d in decisions(&records(&fixture("export/records.jsonl"))) {
        store.append(&d, None).expect("append");
    }
}

fn decision(r: &Record, action: ActionKind, f: impl FnOnce(&mut Decision)) -> Decision {
    let mut d = Decision::new(r, "records", "ann", action);
    f(&mut d);
    d
}

/// Where the JSON types of a file's lines are recorded: per path (`labels_before[].category`),
/// the non-null types met; per object path, the key sets met.
#[derive(Default, Debug)]
struct Shape {
    types: BTreeMap<String, BTreeSet<&'static str>>,
    keys: BTreeMap<String, BTreeSet<Vec<String>>>,
}

impl Shape {
    fn add(&mut self, path: &str, v: &Value) {
        let ty = match v {
            Value::Null => return,
            Value::Bool(_) => "bool",
            Value::Number(n) if n.is_f64() => "float",
            Value::Number(_) => "int",
            Value::String(_) => "string",
            Value::Array(items) => {
                for x in items {
                    self.add(&format!("{path}[]"), x);
                }
                "list"
            }
            Value::Object(m) => {
                self.keys
                    .entry(path.to_owned())
                    .or_default()
                    .insert(m.keys().cloned().collect());
                for (k, x) in m {
                    self.add(&format!("{path}.{k}"), x);
                }
                "object"
            }
        };
        self.types.entry(path.to_owned()).or_default().insert(ty);
    }
}

#[test]
fn verdict_files_of_two_exports_have_one_shape() {
    let dir = TempDir::new().expect("tmp");
    let (rich, plain) = (
        dir.path().join("rich.sqlite"),
        dir.path().join("plain.sqlite"),
    );
    // One review with notes, reasons, a flag, a resolution, an added span and a stale decision;
    // another with nothing but an accept.
    script(&rich, |r| {
        vec![
            decision(&r[0], ActionKind::Note, |d| {
                d.note = Some("checked 25°C".into())
            }),
            decision(&r[0], ActionKind::Drop, |d| {
                d.span_key = Some("gold:0".into());
                d.reason = Some("supported by the tool’s answer".into());
            }),
            decision(&r[1], ActionKind::Remove, |d| {
                d.reason = Some("question/answer mismatch".into());
            }),
            decision(&r[2], ActionKind::Flag, |_| {}),
            decision(&r[2], ActionKind::Add, |d| {
                d.span_key = Some("added:a1".into());
                d.after = Some(SpanValue::new(0, 2, "contradiction"));
            }),
            decision(&r[3], ActionKind::Resolve, |d| {
                d.span_key = Some("gold:0".into());
                d.upheld = vec!["judge_a".into()];
                d.dismissed = vec!["judge_b".into()];
                d.reason = Some("cluster 0-4: take judge_a".into());
                d.note = Some("resolution t1".into());
            }),
            decision(&r[4], ActionKind::Clean, |d| d.record_hash = "old".into()),
        ]
    });
    script(&plain, |r| {
        vec![decision(&r[0], ActionKind::Accept, |d| {
            d.span_key = Some("gold:0".into());
        })]
    });
    let input = fixture("export/records.jsonl");
    let (a, _) = export(dir.path(), &input, &rich, "rich");
    let (b, _) = export(dir.path(), &input, &plain, "plain");
    // Every reason reaches the verdict.
    let by = |id: &str| a.iter().find(|v| v["id"] == id).expect("verdict");
    let first = &by(records(&input)[0].id.as_str())["reasons"][0];
    assert_eq!(first["action"], "drop");
    assert_eq!(first["reason"], "supported by the tool’s answer");
    assert_eq!(first["note"], Value::Null);
    let removed = &by(records(&input)[1].id.as_str())["reasons"][0];
    assert_eq!(removed["reason"], "question/answer mismatch");
    assert_eq!(
        by(records(&input)[0].id.as_str())["notes"][0],
        "checked 25°C"
    );
    let resolved = &by(records(&input)[3].id.as_str())["reasons"][0];
    assert_eq!(resolved["note"], "resolution t1");
    // One shape: the same keys on every object of a path, one non-null type per path.
    let mut shape = Shape::default();
    for v in a.iter().chain(&b) {
        shape.add("", v);
    }
    for (path, sets) in &shape.keys {
        assert_eq!(
            sets.len(),
            1,
            "objects at {path:?} differ in keys: {sets:?}"
        );
    }
    for (path, types) in &shape.types {
        assert_eq!(types.len(), 1, "{path:?} has types {types:?}");
    }
    // Both files alone give the top-level keys of the other.
    let keys = |v: &Value| {
        v.as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&a[0]), keys(&b[0]));
    for list in [
        "reasons",
        "notes",
        "disputes",
        "stale",
        "strict_dropped",
        "undone",
    ] {
        assert!(
            b[0][list].is_array(),
            "{list} is a list in the plain export"
        );
    }
}

/// Record `c1` without labels over `output` and a detector marking `pred_spans`, written to
/// `dir`, opened on the review screen with the database `dir/review.sqlite` and arbitrating:
/// the records file, the database, its store and the app.
fn unlabelled_under_a_detector(
    dir: &Path,
    output: &str,
    pred_spans: Value,
) -> (PathBuf, PathBuf, Rc<Store>, App) {
    let rec = serde_json::json!({
        "id": "c1", "query": "weather?", "context": "{}", "output": output,
        "hallucination_labels": [],
        "meta": {"base_id": "c1", "corruption_type": "contradiction"}
    });
    let pred = serde_json::json!({
        "id": "c1", "output": output, "gold_spans": [], "pred_spans": pred_spans
    });
    let records = dir.join("records.jsonl");
    let preds = dir.join("predictions_det.jsonl");
    fs::write(&records, format!("{rec}\n")).expect("write");
    fs::write(&preds, format!("{pred}\n")).expect("write");
    let db = dir.join("review.sqlite");
    let store = Rc::new(Store::open(&db).expect("db"));
    let mut app = open_all(&[records.clone(), preds], &store);
    app.update(Action::Arbitrate);
    (records, db, store, app)
}

#[test]
fn taking_the_golds_no_span_over_a_detector_reviews_the_record() {
    // A record without labels where a detector marks "25°C": arbitration takes the gold's
    // "no span" (lane 1, the gold). The cluster is settled, so the record is reviewed.
    let dir = TempDir::new().expect("tmp");
    let (records, db, store, mut app) = unlabelled_under_a_detector(
        dir.path(),
        "東京 👋 it is 25°C today.",
        serde_json::json!([{"start": 11, "end": 15, "label": "contradiction", "text": "25°C"}]),
    );
    assert_eq!(app.arb.as_ref().expect("arbitration").d.clusters.len(), 1);
    app.update(Action::Take1);
    let log = store.decisions(None).expect("log");
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(
        (log[0].action, log[0].after.as_ref()),
        (ActionKind::Resolve, None)
    );
    assert!(app.is_resolved(0));
    let c = app.cur.as_ref().expect("record");
    assert!(c.review.is_reviewed(), "the only cluster is settled");
    assert!(app.states["c1"].reviewed, "saved as reviewed");
    drop(app);
    let (verdicts, report) = export(dir.path(), &records, &db, "c");
    assert_eq!(verdicts[0]["reviewed"], true);
    assert_eq!(cell(&report, "Records fully reviewed"), "1");
    assert_eq!(
        cell(&report, "Disputed clusters (and judge claims) resolved"),
        "1"
    );
}

#[test]
fn a_record_with_two_disputed_clusters_is_reviewed_only_once_both_are_settled() {
    // A record without labels where a detector marks "25°C" and "北京": two clusters. Taking
    // the gold's "no span" on the first leaves the second open, so the record is not reviewed
    // until both are; undoing one opens it again.
    let dir = TempDir::new().expect("tmp");
    let (records, db, store, mut app) = unlabelled_under_a_detector(
        dir.path(),
        "東京 👋 it is 25°C today in 北京.",
        serde_json::json!([
            {"start": 11, "end": 15, "label": "contradiction", "text": "25°C"},
            {"start": 25, "end": 27, "label": "contradiction", "text": "北京"}
        ]),
    );
    assert_eq!(app.arb.as_ref().expect("arbitration").d.clusters.len(), 2);
    app.update(Action::Take1);
    let log = store.decisions(None).expect("log");
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0].record_units, Some(2), "the record's two clusters");
    let reviewed = |app: &App| app.cur.as_ref().expect("record").review.is_reviewed();
    assert!(!reviewed(&app), "one cluster of two is settled");
    assert!(!app.states["c1"].reviewed, "saved as open");
    app.update(Action::Take1);
    assert!(app.is_resolved(0) && app.is_resolved(1));
    assert!(reviewed(&app), "both clusters are settled");
    assert!(app.states["c1"].reviewed, "saved as reviewed");
    app.update(Action::Undo);
    assert!(!reviewed(&app), "undoing one resolution opens the record");
    assert!(!app.states["c1"].reviewed, "saved as open again");
    app.update(Action::Redo);
    assert!(reviewed(&app));
    drop(app);
    let (verdicts, report) = export(dir.path(), &records, &db, "c");
    assert_eq!(verdicts[0]["reviewed"], true);
    assert_eq!(cell(&report, "Records fully reviewed"), "1");
}
