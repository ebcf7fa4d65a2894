//! Regression tests for what the fuzz campaign found, one per bug, each with its minimal input.

use std::path::PathBuf;

use crate::formats::validate::Kind;
use crate::formats::{DataFile, Format};

/// `lines` written to a file `name` in a fresh directory.
fn file(name: &str, lines: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join(name);
    std::fs::write(&path, lines.join("\n")).expect("write");
    (dir, path)
}

/// Found by `ragtruth_survives_any_mutation` (a key repeated): the id reader (queues, joins)
/// refused a line whose `id` is repeated while the record reader read it, taking the last
/// value as `serde_json` and Python do. Both now read the last.
#[test]
fn a_repeated_id_key_reads_as_the_record_reads_it() {
    let lines = [
        r#"{"id": -7, "id": "r°1", "output": "25°C 東京", "hallucination_labels": []}"#,
        r#"{"id": "x", "output": "👋 e\u0301", "hallucination_labels": [], "id": "r°2"}"#,
    ];
    let (_dir, path) = file("dup.jsonl", &lines);
    let f = DataFile::open(&path, Some(Format::Ragtruth), None).expect("open");
    for (i, want) in ["r°1", "r°2"].into_iter().enumerate() {
        assert_eq!(f.record(i).expect("record").id, want);
        assert_eq!(f.id(i).expect("id"), want);
    }
}

/// Found by `labelstudio_survives_any_mutation` (an array's first record cut short): the
/// file's error said "the file holds no record" and not where or why; it now names the line
/// where the unclosed array's record starts, and that the file is truncated.
#[test]
fn an_array_cut_in_its_first_record_says_where() {
    let (_dir, path) = file("cut.json", &["[", r#"  {"id": "a", "output": "25°C 東"#]);
    for e in [
        DataFile::open(&path, None, None).err(),
        crate::formats::validate::Input::open(&path, None).err(),
    ] {
        let e = e.expect("an error").to_string();
        assert!(e.starts_with(&format!("{}: ", path.display())), "{e}");
        assert!(e.contains("line 2: the JSON array is not closed"), "{e}");
    }
}

/// Found by `ragtruth_survives_any_mutation` and `predictions_survive_any_mutation` (`1e400`
/// or `"\ud800"` in place of a value): `validate`'s skimmer and borrowed parse, and the span
/// reader, passed a number beyond f64 or a lone surrogate in a member they step over, which
/// the record reader refuses; all now refuse the line, in the record reader's words.
#[test]
fn every_reader_refuses_what_the_record_reader_refuses() {
    let good = r#"{"id": "a", "output": "25°C", "hallucination_labels": [], "meta": {"corruption_type": "clean"}}"#;
    let pred = r#"{"id": "a", "output": "25°C", "gold_spans": [], "pred_spans": []}"#;
    for (good, bad) in [
        (
            good,
            r#"{"id": "b", "output": "東京", "hallucination_labels": [], "meta": {"corruption_type": "clean", "tools": [{"max": 1e400}]}}"#,
        ),
        (
            good,
            r#"{"id": "b", "output": "東京", "hallucination_labels": [], "context": "\ud800", "meta": {"corruption_type": "clean"}}"#,
        ),
        (
            good,
            r#"{"id": "b", "output": "東京", "hallucination_labels": [], "query": "👋 \udc00\ud800"}"#,
        ),
        (
            pred,
            r#"{"id": "b", "output": "東京", "gold_spans": [], "pred_spans": [], "x": -2e308}"#,
        ),
        (
            pred,
            r#"{"id": "b", "output": "東京", "gold_spans": [], "pred_spans": [], "x": ["\ud83d"]}"#,
        ),
    ] {
        let (_dir, path) = file("bad.jsonl", &[good, bad]);
        let f = DataFile::open(&path, None, None).expect("open");
        let refused = f.record(1).expect_err(bad).to_string();
        let ds = crate::formats::Dataset::open(std::slice::from_ref(&path), None).expect("open");
        let skim = crate::formats::judges::SpanReader::new(&ds).record(1);
        assert_eq!(
            skim.map_err(|e| e.to_string()).map(|r| r.id),
            Err(refused.clone())
        );
        let input = crate::formats::validate::Input::open(&path, None).expect("open");
        let report =
            crate::formats::validate::validate(&[input], &Default::default()).expect("run");
        let told: Vec<(u32, String)> = report
            .problems
            .iter()
            .filter(|p| p.line == 2)
            .map(|p| {
                (
                    p.line,
                    format!("{}:{}: {}", path.display(), p.line, p.message),
                )
            })
            .collect();
        assert_eq!(told, vec![(2, refused)], "{bad}");
    }
}

/// Found by `ragtruth_survives_any_mutation` (`"query": -7`): the span reader (clustering,
/// the disputed queue) stepped over the fields clustering does not need without looking at
/// their type, so it read lines the record reader refuses; it now refuses them alike, and
/// still reads the good ones.
#[test]
fn the_span_reader_refuses_a_mistyped_field_it_steps_over() {
    let lines = [
        r#"{"id": "a", "output": "25°C 東京", "hallucination_labels": [{"start": 3, "end": 4, "text": "C", "label": "contradiction"}], "query": "°", "context": "e\u0301", "meta": {"corruption_type": "contradiction"}}"#,
        r#"{"id": "b", "output": "25°C", "hallucination_labels": [], "query": -7}"#,
        r#"{"id": "c", "output": "25°C", "hallucination_labels": [], "context": {"a": "👋"}}"#,
        r#"{"id": "d", "output": "25°C", "hallucination_labels": [], "query": "ok", "query": ["x"]}"#,
    ];
    let (_dir, path) = file("typed.jsonl", &lines);
    let ds = crate::formats::Dataset::open(std::slice::from_ref(&path), None).expect("open");
    let reader = crate::formats::judges::SpanReader::new(&ds);
    let full = ds.record(0).expect("a");
    let skim = reader.record(0).expect("a");
    assert_eq!((&full.id, &full.sources), (&skim.id, &skim.sources));
    for (i, line) in lines.iter().enumerate().skip(1) {
        let refused = ds.record(i).expect_err(line).to_string();
        let skim = reader.record(i).map(|r| r.id).map_err(|e| e.to_string());
        assert_eq!(skim, Err(refused), "{line}");
    }
}

/// Found by `ragtruth_survives_any_mutation` (the first record replaced by `[]`): a JSONL
/// file whose first line is a JSON array was taken for one array, and after that array closed
/// the members of the next records were read as records; not one record was read. A first
/// value that closes on line 1 with more lines after it is JSONL's first (bad) record.
#[test]
fn a_jsonl_file_whose_first_line_is_an_array_keeps_its_other_records() {
    let rec = |id: &str| {
        format!(
            r#"{{"id": "{id}", "output": "25°C 東京", "hallucination_labels": [], "meta": {{"corruption_type": "clean"}}}}"#
        )
    };
    let (a, b) = (rec("a°"), rec("b👋"));
    for first in ["[]", "[1, {\"x\": 2}]", " [\"東\"]  "] {
        let (_dir, path) = file("first.jsonl", &[first, &a, "", &b]);
        let f = DataFile::open(&path, None, None).expect("open");
        assert_eq!(f.len(), 3, "{first}");
        assert_eq!((f.line(1), f.line(2)), (2, 4));
        let e = f.record(0).expect_err(first).to_string();
        assert!(e.starts_with(&format!("{}:1: ", path.display())), "{e}");
        assert_eq!(f.record(1).expect("a").id, "a°");
        assert_eq!(f.record(2).expect("b").id, "b👋");
        let input = crate::formats::validate::Input::open(&path, None).expect("open");
        let report =
            crate::formats::validate::validate(&[input], &Default::default()).expect("run");
        let unread: Vec<(u32, Kind)> = report
            .problems
            .iter()
            .filter(|p| {
                matches!(
                    p.kind,
                    Kind::NotObject | Kind::InvalidJson | Kind::Truncated
                )
            })
            .map(|p| (p.line, p.kind))
            .collect();
        assert_eq!(unread, [(1, Kind::NotObject)], "{:?}", report.problems);
    }
}

/// The same scan: an array over several lines followed by more text keeps its records and
/// says where the rest, not read, starts (it used to read the members of what followed as
/// records).
#[test]
fn text_after_an_array_is_told_not_read_as_records() {
    let rec = r#"{"id": "a", "output": "25°C", "hallucination_labels": []}"#;
    let (_dir, path) = file(
        "after.json",
        &["[", rec, "]", "", r#"{"id": "b", "output": "x"}"#],
    );
    let f = DataFile::open(&path, None, None).expect("open");
    assert_eq!(f.len(), 1);
    assert_eq!(f.record(0).expect("a").id, "a");
    assert_eq!(f.index.problems.len(), 1, "{:?}", f.index.problems);
    assert_eq!(f.index.problems[0].0, 5, "{:?}", f.index.problems);
}

/// Found by `prodigy_survives_any_mutation` (`meta` repeated as `0`): a Prodigy line with no
/// id was told as `wrong_type`, though nothing it has is of a wrong type; it is
/// `missing_field`.
#[test]
fn a_prodigy_line_without_an_id_is_a_missing_field() {
    let lines = [
        r#"{"text": "25°C 東京", "spans": [], "answer": "accept", "meta": {"id": "p°"}}"#,
        r#"{"text": "👋", "spans": [], "answer": "accept", "meta": 0}"#,
    ];
    let (_dir, path) = file("p.jsonl", &lines);
    let input = crate::formats::validate::Input::open(&path, None).expect("open");
    let report = crate::formats::validate::validate(&[input], &Default::default()).expect("run");
    let told: Vec<(u32, Kind)> = report.problems.iter().map(|p| (p.line, p.kind)).collect();
    assert_eq!(told, [(2, Kind::MissingField)], "{:?}", report.problems);
}
