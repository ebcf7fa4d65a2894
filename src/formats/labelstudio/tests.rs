//! Label Studio tasks: the real export (a copy of four tasks, and the whole file under
//! `../shared` when present), annotators, cancelled and repeated annotations, spans that do not
//! slice, and the reviewer's annotation written back.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::*;
use crate::formats::validate::{validate, Input, Options};
use crate::formats::{Dataset, Format};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats/labelstudio/export_sample.json")
}

/// The whole real export, when the shared data is present.
fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/labelstudio/export_full.json");
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: {} is absent", p.display());
        None
    }
}

fn task(annotations: Value) -> Value {
    json!({"id": 3, "data": {"rid": "r1", "query": "q", "context": "c", "output": "été 🙂 👩‍💻 Note 東京"},
           "annotations": annotations, "predictions": []})
}

fn region(start: usize, end: usize, text: &str) -> Value {
    json!({"id": "x", "from_name": "label", "to_name": "output", "type": "labels",
           "value": {"start": start, "end": end, "text": text, "labels": ["contradiction"]}})
}

#[test]
fn reads_the_real_export_in_code_points() {
    for path in std::iter::once(fixture()).chain(shared()) {
        let ds = Dataset::open(std::slice::from_ref(&path), None).expect("open");
        assert_eq!(ds.primary().format, Format::LabelStudio, "{}", path.display());
        let mut emoji = 0;
        for i in 0..ds.len() {
            let rec = ds.record(i).expect("record");
            // The review screen's queue and navigation read ids without building records.
            assert_eq!(ds.primary().id(i).expect("id"), rec.id);
            assert!(rec.warnings.is_empty(), "{}: {:?}", rec.id, rec.warnings);
            assert!(rec.gold_spans().is_empty(), "no reviewer's annotation yet");
            let pred = rec.source("prediction_gold").expect("the gold prediction");
            assert_eq!(pred.role, SourceRole::Detector);
            let regions = rec.raw["predictions"][0]["result"].as_array().expect("result");
            assert_eq!(pred.spans.len(), regions.len());
            for (s, r) in pred.spans.iter().zip(regions) {
                assert_eq!(s.text, r["value"]["text"], "{}", rec.id);
            }
            if rec.id.ends_with("__emoji") && !pred.spans.is_empty() {
                emoji += 1;
            }
        }
        assert!(emoji >= 2, "{}: {emoji} emoji tasks with spans", path.display());
    }
}

#[test]
fn a_span_that_does_not_slice_is_reported_and_kept() {
    // "👩‍💻 Note" is [6, 14) in code points; 16 is where UTF-16 would put its end.
    let t = task(json!([{"id": 1, "completed_by": 5, "result": [region(6, 16, "👩‍💻 Note"), region(0, 3, "été")]}]));
    let rec = parse(t).expect("parse");
    let a = rec.source("annotator_5").expect("annotator");
    assert_eq!((a.spans[0].start, a.spans[0].end), (6, 16), "not shifted");
    assert_eq!(a.spans[1].text, "été");
    assert_eq!(rec.warnings.len(), 1, "{:?}", rec.warnings);
    let w = &rec.warnings[0];
    assert!(w.starts_with("task r1: annotations[0].result[0]: value.text"), "{w}");
    assert!(w.contains("not shifted"), "{w}");
}

#[test]
fn cancelled_annotations_are_left_out_and_the_latest_per_annotator_stands() {
    let t = task(json!([
        {"id": 1, "completed_by": 5, "updated_at": "2026-12-01T10:00:00Z", "result": [region(0, 3, "été")]},
        {"id": 2, "completed_by": 7, "was_cancelled": true, "result": [region(0, 3, "été")]},
        {"id": 3, "completed_by": 5, "updated_at": "2026-12-01T11:00:00Z", "result": [region(4, 5, "🙂")]},
        {"id": 4, "completed_by": 5, "updated_at": "2026-12-01T09:00:00Z", "result": []},
        {"id": 5, "completed_by": {"id": 9, "email": "a@b.c"}, "result": [region(15, 17, "東京")]},
    ]));
    let rec = parse(t).expect("parse");
    assert!(rec.source("annotator_7").is_none(), "cancelled");
    let a = rec.source("annotator_5").expect("annotator 5");
    assert_eq!(a.spans.len(), 1);
    assert_eq!(a.spans[0].text, "🙂");
    assert_eq!(rec.source("annotator_a@b.c").expect("by email").spans[0].text, "東京");
    assert!(rec.warnings.is_empty(), "{:?}", rec.warnings);
}

#[test]
fn the_reviewed_spans_are_written_as_the_reviewers_annotation() {
    let t = task(json!([{"id": 1, "completed_by": 5, "result": [region(0, 3, "été")]}]));
    let rec = parse(t.clone()).expect("parse");
    assert_eq!(write(&t, rec.gold_spans(), None), t, "nothing reviewed: as read");
    let gold = [Span::new(&rec.output, 15, 17, "overgeneration")];
    let w = write(&t, &gold, Some("ignored"));
    assert_eq!(w["annotations"][0], t["annotations"][0], "others kept");
    let back = parse(w.clone()).expect("read back");
    assert_eq!(back.gold_spans()[0].text, "東京");
    assert_eq!(back.gold_spans()[0].label, "overgeneration");
    assert_eq!(back.source("annotator_5").expect("kept").spans.len(), 1);
    // Writing again replaces the reviewer's annotation instead of adding one.
    let again = write(&w, &[], None);
    assert_eq!(again["annotations"].as_array().map(Vec::len), Some(2));
    assert!(parse(again).expect("read").gold_spans().is_empty());
}

#[test]
fn validate_reports_spans_that_do_not_slice_with_the_task() {
    let report = validate(&[Input::open(&fixture(), None).expect("open")], &Options::default())
        .expect("validate");
    assert_eq!(report.records(), 4);
    assert!(report.problems.is_empty(), "{:?}", report.problems);

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.json");
    let bad = task(json!([{"id": 1, "completed_by": 5, "result": [region(6, 16, "👩‍💻 Note"), region(6, 14, "👩‍💻 Note")]}]));
    let mut good = task(json!([]));
    good["data"]["rid"] = json!("r0");
    std::fs::write(&path, serde_json::to_string_pretty(&json!([good, bad])).expect("json"))
        .expect("write");
    let report =
        validate(&[Input::open(&path, None).expect("open")], &Options::default()).expect("validate");
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    let p = &report.problems[0];
    assert_eq!(p.kind, Kind::TextMismatch);
    assert!(p.line > 1, "the second task's line: {}", p.line);
    assert!(p.message.contains("task r1: annotations[0].result[0]"), "{}", p.message);
}

/// A `data.rid` number is the id, as the JSON_MIN reader takes the same row's `rid`: the two
/// exports of one project must name its records alike.
#[test]
fn a_numeric_rid_is_the_id_in_both_exports() {
    let t = json!({"id": 12, "data": {"rid": 7, "output": "été"}, "annotations": [], "predictions": []});
    let line = serde_json::to_vec(&t).expect("line");
    assert_eq!(parse(t).expect("task").id, "7");
    assert_eq!((SPEC.record_id)(&line).as_deref(), Some("7"));
    let row = json!({"rid": 7, "id": 12, "output": "été", "label": []});
    assert_eq!(Format::LabelStudioMin.parse(row, "x").expect("row").id, "7");
}

/// A written region's text is `data.output[start:end]` in code points, as every writer's
/// (`formats::write`), not whatever text the span carries.
#[test]
fn a_written_regions_text_is_the_answers_slice() {
    let t = task(json!([]));
    let mut stale = Span::new("été 🙂 👩‍💻 Note 東京", 4, 5, "contradiction");
    stale.text = "smile".to_owned();
    let w = write(&t, &[stale], None);
    assert_eq!(w["annotations"][0]["result"][0]["value"]["text"], "🙂");
    // Past the end of the answer: the span's own text, as the other writers.
    let past = Span::new("x", 0, 1, "contradiction");
    let past = Span { start: 40, end: 41, ..past };
    let w = write(&t, &[past], None);
    assert_eq!(w["annotations"][0]["result"][0]["value"]["text"], "x");
}

/// A cancelled annotation of spanreview's is not the gold (the reader leaves it out): writing
/// the reviewed spans adds an annotation in force rather than filling the cancelled one, so the
/// task reads back with them.
#[test]
fn reviewed_spans_are_not_written_into_a_cancelled_annotation() {
    let cancelled = json!({"id": 1, "completed_by": REVIEWER, "was_cancelled": true,
                           "result": [region(0, 3, "été")]});
    let t = task(json!([cancelled, {"id": 2, "completed_by": 5, "result": [region(4, 5, "🙂")]}]));
    assert!(parse(t.clone()).expect("parse").gold_spans().is_empty());
    let out = "été 🙂 👩‍💻 Note 東京";
    let gold = vec![Span::new(out, 15, 17, "contradiction")];
    let back = parse(write(&t, &gold, None)).expect("parse");
    let got: Vec<(usize, usize, &str)> =
        back.gold_spans().iter().map(|s| (s.start, s.end, s.text.as_str())).collect();
    assert_eq!(got, [(15, 17, "東京")]);
}

/// A region whose `value.labels` is `labels`, over `東京` in the task's answer.
fn labelled(labels: Value) -> Value {
    json!({"type": "labels", "value": {"start": 15, "end": 17, "text": "東京", "labels": labels}})
}

/// Issue 22 item 14: a region's labels that do not give one label are reported (the span
/// would read as unlabeled, or lose its other labels), each with the value.
#[test]
fn labels_that_are_not_one_label_are_reported_with_the_value() {
    let cases = [
        (json!([]), Kind::MissingLabel, "value.labels holds no label: []", ""),
        (json!(null), Kind::MissingLabel, "value.labels holds no label: null", ""),
        (json!([1, null]), Kind::MissingLabel, "value.labels[0] is not a label: 1", ""),
        (json!([""]), Kind::MissingLabel, "value.labels[0] is not a label: \"\"", ""),
        (
            json!(["a’", "b°"]),
            Kind::ManyLabels,
            "value.labels holds 2 labels [\"a’\",\"b°\"]; a span carries one: only \"a’\" was kept",
            "a’",
        ),
    ];
    for (labels, kind, says, label) in cases {
        let t = task(json!([{"id": 1, "completed_by": 2, "result": [labelled(labels.clone())]}]));
        let mut problems = Vec::new();
        let rec = read(t, &mut problems).expect("read");
        assert_eq!(problems.len(), 1, "{labels}: {problems:?}");
        assert_eq!(problems[0].0, kind, "{labels}");
        assert!(problems[0].1.starts_with("task r1: annotations[0].result[0]: "), "{problems:?}");
        assert!(problems[0].1.contains(says), "{labels}: {}", problems[0].1);
        let spans = &rec.source("annotator_2").expect("annotator").spans;
        assert_eq!((spans[0].text.as_str(), spans[0].label.as_str()), ("東京", label));
    }
    // One string label: nothing to say.
    let t = task(json!([{"id": 1, "completed_by": 2, "result": [labelled(json!(["東京°"]))]}]));
    let mut problems = Vec::new();
    read(t, &mut problems).expect("read");
    assert!(problems.is_empty(), "{problems:?}");
}

/// Issue 22 item 14: a `result` that is an object (not a list) gives no spans: said, with it.
#[test]
fn a_result_that_is_not_a_list_is_reported() {
    let t = task(json!([{"id": 1, "completed_by": 2, "result": labelled(json!(["x"]))}]));
    let mut problems = Vec::new();
    read(t, &mut problems).expect("read");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, Kind::WrongType);
    assert!(
        problems[0].1.starts_with("task r1: annotations[0].result is not a list: {\"type\":\"labels\""),
        "{}",
        problems[0].1
    );
    assert!(problems[0].1.ends_with("no span was read from it"), "{}", problems[0].1);
}

/// Issue 22 item 14: a reversed region is called reversed, not "past the end" (the answer
/// is 17 code points: [5, 2) is inside it).
#[test]
fn a_reversed_region_is_called_reversed() {
    let r = json!({"type": "labels", "value": {"start": 5, "end": 2, "labels": ["x"]}});
    let t = task(json!([{"id": 1, "completed_by": 2, "result": [r]}]));
    let mut problems = Vec::new();
    read(t, &mut problems).expect("read");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, Kind::ReversedSpan);
    assert_eq!(
        problems[0].1,
        "task r1: annotations[0].result[0]: [5, 2) is reversed (start after end); kept as given"
    );
}

/// `convert --to label-studio` writes a span without a label as `labels: []`; its task (marked
/// `meta.spanreview`) reads back without a problem, while the same region elsewhere is told.
#[test]
fn an_unlabeled_span_convert_wrote_reads_back_without_a_problem() {
    let mut t = task(json!([]));
    t["predictions"] = json!([{"model_version": "m°", "result": [labelled(json!([]))]}]);
    let mut problems = Vec::new();
    read(t.clone(), &mut problems).expect("read");
    assert_eq!(problems.len(), 1, "{problems:?}");
    t["meta"] = json!({"spanreview": {"format": "predictions", "added": [], "replaced": {}}});
    let mut problems = Vec::new();
    let rec = read(t, &mut problems).expect("read");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(rec.source("m°").expect("source").spans[0].text, "東京");
}
