//! Label Studio JSON_MIN rows: the converter's shape, ids, regions that do not slice, the
//! regions written back, and `validate`.

use serde_json::{json, Value};

use super::*;
use crate::formats::validate::{validate, Input, Options};
use crate::formats::{Dataset, Format};

const OUTPUT: &str = "été 🙂 👩‍💻 Note 東京";

/// A row as label-studio-converter's `convert_to_json_min` writes one (data fields, the task id
/// over the data's own, the regions under the control's name, the annotation's fields).
fn row(regions: Value) -> Value {
    json!({"rid": "r1", "query": "q", "context": "c", "output": OUTPUT, "corruption_type": "contradiction",
           "id": 12, "label": regions, "annotator": 1, "annotation_id": 5,
           "created_at": "2026-12-01T13:02:35.815217Z", "updated_at": "2026-12-01T13:02:35.815267Z",
           "lead_time": 3.2})
}

fn region(start: usize, end: usize, text: &str) -> Value {
    json!({"start": start, "end": end, "text": text, "labels": ["contradiction"]})
}

#[test]
fn a_rows_regions_are_its_gold_in_code_points() {
    let rec = parse(row(json!([region(6, 14, "👩‍💻 Note"), region(15, 17, "東京")]))).expect("parse");
    assert_eq!(rec.id, "r1", "rid, not the task id");
    assert_eq!((rec.query.as_str(), rec.context.as_str()), ("q", "c"));
    let g: Vec<(&str, &str)> =
        rec.gold_spans().iter().map(|s| (s.text.as_str(), s.label.as_str())).collect();
    assert_eq!(g, [("👩‍💻 Note", "contradiction"), ("東京", "contradiction")]);
    assert!(rec.warnings.is_empty(), "{:?}", rec.warnings);
    // No rid: the task id.
    let mut r = row(json!([]));
    r.as_object_mut().expect("obj").shift_remove("rid");
    assert_eq!(parse(r).expect("parse").id, "12");
}

#[test]
fn a_row_without_annotation_has_no_regions() {
    // The converter's row for a task nobody annotated: no control key, null annotator.
    let r = json!({"rid": "r2", "output": OUTPUT, "id": 3, "annotator": null, "annotation_id": null,
                   "created_at": null, "updated_at": null, "lead_time": null});
    assert_eq!(Format::detect(&r), Some(Format::LabelStudioMin));
    let rec = parse(r.clone()).expect("parse");
    assert!(rec.gold_spans().is_empty());
    assert_eq!(write(&r, &[], None), r, "nothing added for no spans");
}

#[test]
fn a_region_that_does_not_slice_is_reported_and_kept() {
    let rec = parse(row(json!([region(6, 16, "👩‍💻 Note")]))).expect("parse");
    assert_eq!((rec.gold_spans()[0].start, rec.gold_spans()[0].end), (6, 16), "not shifted");
    assert_eq!(rec.warnings.len(), 1, "{:?}", rec.warnings);
    assert!(rec.warnings[0].starts_with("row r1: label[0]: text"), "{}", rec.warnings[0]);
    assert!(rec.warnings[0].contains("not shifted"), "{}", rec.warnings[0]);
}

#[test]
fn a_row_with_another_formats_fields_is_still_a_row() {
    // A task whose data is a RAGTruth record (as `convert --to label-studio` writes) exports
    // its fields flat, `hallucination_labels` included.
    let mut r = row(json!([region(15, 17, "東京")]));
    r["hallucination_labels"] = json!([]);
    assert_eq!(Format::detect(&r), Some(Format::LabelStudioMin));
}

#[test]
fn written_regions_replace_the_rows_and_keep_the_rest() {
    let r = row(json!([region(0, 3, "été")]));
    let rec = parse(r.clone()).expect("parse");
    assert_eq!(write(&r, rec.gold_spans(), None), r, "as read: unchanged");
    let gold = [Span::new(OUTPUT, 4, 5, "overgeneration")];
    let w = write(&r, &gold, None);
    assert_eq!(w["label"], json!([{"start": 4, "end": 5, "text": "🙂", "labels": ["overgeneration"]}]));
    let keys: Vec<&String> = w.as_object().expect("obj").keys().collect();
    let want: Vec<&String> = r.as_object().expect("obj").keys().collect();
    assert_eq!(keys, want);
}

#[test]
fn a_json_min_file_opens_and_validates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("min.json");
    let rows = json!([row(json!([region(0, 3, "été")])), row(json!([region(6, 16, "👩‍💻 Note")]))]);
    std::fs::write(&path, serde_json::to_string_pretty(&rows).expect("json")).expect("write");
    let ds = Dataset::open(std::slice::from_ref(&path), None).expect("open");
    assert_eq!(ds.primary().format, Format::LabelStudioMin);
    assert_eq!(ds.record(0).expect("record").gold_spans()[0].text, "été");
    let report =
        validate(&[Input::open(&path, None).expect("open")], &Options::default()).expect("validate");
    let mismatches: Vec<_> =
        report.problems.iter().filter(|p| p.kind == Kind::TextMismatch).collect();
    assert_eq!(mismatches.len(), 1, "{:?}", report.problems);
    assert!(mismatches[0].line > 2, "the second row's line: {}", mismatches[0].line);
}

/// Issue 22 item 14: a row's region with no label, or two, is reported as a task's is.
#[test]
fn a_region_without_one_label_is_reported() {
    let none = json!({"start": 15, "end": 17, "text": "東京", "labels": []});
    let two = json!({"start": 6, "end": 14, "text": "👩‍💻 Note", "labels": ["a°", "b"]});
    let rec = parse(row(json!([none, two]))).expect("parse");
    assert_eq!(
        rec.warnings,
        [
            "row r1: label[0]: labels holds no label: []; the span was read without a label",
            "row r1: label[1]: labels holds 2 labels [\"a°\",\"b\"]; a span carries one: only \"a°\" was kept",
        ]
    );
    let labels: Vec<&str> = rec.gold_spans().iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["", "a°"]);
}
