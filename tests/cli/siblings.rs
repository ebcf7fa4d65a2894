//! Sibling variants: a span decision carried with `=` to the other variants of its base that
//! share the span's text (each its own row, with that record's hash), nothing carried to
//! another base or to a record this reviewer closed, and `--queue base:ID` walking one base.

use std::path::PathBuf;
use std::rc::Rc;

use spanreview::formats::Dataset;
use spanreview::review::decision::{ActionKind, Decision, SpanValue};
use spanreview::store::Store;
use spanreview::tui::app::Status;
use spanreview::tui::queue::QueueKind;
use spanreview::tui::Action;

use super::app_harness::{feed, goto, mem, open, open_all, typed, walked};

/// One record line: `output` with its one gold span over `span`, of base `base`.
fn line(id: &str, base: &str, output: &str, span: (usize, usize)) -> String {
    let text: String = output.chars().skip(span.0).take(span.1 - span.0).collect();
    serde_json::json!({
        "id": id, "query": "Wetter in 東京?", "context": "{\"temp\": \"18°C\"}", "output": output,
        "hallucination_labels": [{"start": span.0, "end": span.1, "text": text, "label": "contradiction"}],
        "meta": {"source": "s", "base_id": base, "corruption_type": "contradiction"}
    })
    .to_string()
}

/// Three variants of base `b°1` sharing the error "25°C" at different offsets (the third with
/// it twice but labeled once), and a record of another base with the same text.
fn files() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = [
        line(
            "b°1__contradiction",
            "b°1",
            "Il fait 25°C à 東京 👋 aujourd’hui.",
            (8, 12),
        ),
        line(
            "b°1__overgeneration",
            "b°1",
            "Oui: Il fait 25°C à 東京 👋.",
            (13, 17),
        ),
        line(
            "other__contradiction",
            "other",
            "Il fait 25°C, cafe\u{301}.",
            (8, 12),
        ),
        line("b°1__missing_tool", "b°1", "東京: 25°C 👋", (4, 8)),
    ];
    let path = dir.path().join("variants.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    (dir, vec![path])
}

fn rows(store: &Rc<Store>, id: &str) -> Vec<Decision> {
    store.record_decisions("variants", id).expect("decisions")
}

fn hash_of(files: &[PathBuf], id: &str) -> String {
    let ds = Dataset::open(files, None).expect("opens");
    (0..ds.len())
        .filter_map(|i| ds.record(i).ok())
        .find(|r| r.id == id)
        .map(|r| r.content_hash())
        .expect("record")
}

fn status(app: &spanreview::tui::app::App) -> String {
    match &app.status {
        Status::Saved(m) | Status::Info(m) | Status::Error(m) => m.clone(),
        Status::None => String::new(),
    }
}

#[test]
fn a_drop_is_offered_to_the_siblings_with_the_text_and_saved_on_each_with_its_hash() {
    let (_dir, files) = files();
    let store = mem();
    let mut app = open_all(&files, &store);
    feed(&mut app, &[Action::Drop]);
    typed(&mut app, "supported by the tool");
    app.update(Action::Confirm);
    let said = status(&app);
    assert!(
        said.contains("same text in 2 sibling variants: = applies it there"),
        "{said}"
    );
    // Nothing saved on the siblings until the key.
    assert!(rows(&store, "b°1__overgeneration").is_empty());
    app.update(Action::ToSiblings);
    assert_eq!(status(&app), "saved 2 decisions on 2 sibling variants");
    for (id, at) in [
        ("b°1__overgeneration", (13, 17)),
        ("b°1__missing_tool", (4, 8)),
    ] {
        let saved = rows(&store, id);
        assert_eq!(saved.len(), 1, "{id}");
        let d = &saved[0];
        assert_eq!(d.action, ActionKind::Drop);
        assert_eq!(d.record_hash, hash_of(&files, id));
        assert_eq!(d.span_key.as_deref(), Some("gold:0"));
        assert_eq!(d.before, Some(SpanValue::new(at.0, at.1, "contradiction")));
        assert_eq!(d.reason.as_deref(), Some("supported by the tool"));
        assert_eq!(d.reviewer, "tester");
    }
    // Another base with the same text takes nothing; the offer is spent.
    assert!(rows(&store, "other__contradiction").is_empty());
    app.update(Action::ToSiblings);
    assert!(status(&app).starts_with("no decision to make on the sibling variants"));
    assert_eq!(rows(&store, "b°1__overgeneration").len(), 1);
}

#[test]
fn an_adjust_moves_the_sibling_spans_by_the_same_code_points() {
    let (_dir, files) = files();
    let store = mem();
    let mut app = open_all(&files, &store);
    // 25°C → 25: the end two code points in.
    feed(
        &mut app,
        &[
            Action::Adjust,
            Action::EndLeft,
            Action::EndLeft,
            Action::Confirm,
        ],
    );
    assert!(
        matches!(app.mode, spanreview::tui::app::ModeState::Normal),
        "{:?}",
        app.mode
    );
    assert!(
        status(&app).contains("same text in 2 sibling variants"),
        "{}",
        status(&app)
    );
    app.update(Action::ToSiblings);
    let d = &rows(&store, "b°1__overgeneration")[0];
    assert_eq!(d.action, ActionKind::Adjust);
    assert_eq!(d.after, Some(SpanValue::new(13, 15, "contradiction")));
    let d = &rows(&store, "b°1__missing_tool")[0];
    assert_eq!(d.after, Some(SpanValue::new(4, 6, "contradiction")));
}

#[test]
fn a_sibling_closed_as_clean_or_already_decided_takes_nothing_and_moving_on_ends_the_offer() {
    let (_dir, files) = files();
    let store = mem();
    let mut app = open_all(&files, &store);
    goto(&mut app, "b°1__overgeneration");
    app.update(Action::Clean);
    goto(&mut app, "b°1__missing_tool");
    app.update(Action::Accept);
    goto(&mut app, "b°1__contradiction");
    app.update(Action::Accept);
    let said = status(&app);
    assert!(!said.contains("sibling"), "{said}");
    app.update(Action::ToSiblings);
    assert!(status(&app).starts_with("no decision to make"));
    // An offer made, then another record shown: the key does nothing there.
    let store = mem();
    let mut app = open_all(&files, &store);
    app.update(Action::Accept);
    assert!(status(&app).contains("same text in 2 sibling variants"));
    goto(&mut app, "other__contradiction");
    app.update(Action::ToSiblings);
    assert!(status(&app).starts_with("no decision to make"));
    assert!(rows(&store, "b°1__overgeneration").is_empty());
}

#[test]
fn the_base_queue_walks_one_base_in_file_order() {
    let (_dir, files) = files();
    let store = mem();
    let kind: QueueKind = "base:b°1".parse().expect("queue parses");
    assert_eq!(kind.to_string(), "base:b°1");
    let mut app = open(&files, &store, kind, Default::default());
    assert_eq!(
        walked(&mut app),
        [
            "b°1__contradiction",
            "b°1__overgeneration",
            "b°1__missing_tool"
        ]
    );
    let mut none = open(
        &files,
        &store,
        "base:b".parse().expect("parses"),
        Default::default(),
    );
    assert!(walked(&mut none).is_empty());
}
