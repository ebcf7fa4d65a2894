//! The borrowing reader gives the full reader's record, field for field, on every line of the
//! bundled prediction files and fixtures, and gives way (`None`) on each line the full reader
//! reads otherwise: an error, a warning, a duplicate key.

use super::*;
use crate::formats::lite_spans::testing::{self, lines};
use crate::formats::Format;

/// What the full reader gives, without the parts this reader leaves out (`joined`: its gold
/// list read as empty, as the span reader steps over it).
fn full(line: &str, joined: bool) -> Result<Record, String> {
    let mut value: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    if let (true, Some(obj)) = (joined, value.as_object_mut()) {
        if obj.get("gold_spans").is_some_and(Value::is_array) {
            obj.insert("gold_spans".into(), Value::Array(Vec::new()));
        }
    }
    testing::full(Format::Predictions, value, "det")
}

#[test]
fn every_line_it_takes_reads_as_the_full_reader_reads_it() {
    let mut taken = 0;
    for rel in [
        "data/toolace/ensemble/predictions_combined.jsonl",
        "data/toolace/modernbert_ft/predictions_combined.jsonl",
        "tests/fixtures/review/joined/predictions.jsonl",
        "tests/fixtures/review/predictions_detector.jsonl",
        "tests/fixtures/arbitrate/predictions_alpha.jsonl",
    ] {
        for (n, line) in lines(rel).iter().enumerate() {
            for joined in [false, true] {
                if let Some(r) = parse(line.as_bytes(), "det", joined) {
                    assert_eq!(Ok(r), full(line, joined), "{rel}:{} joined {joined}", n + 1);
                    taken += 1;
                }
            }
        }
    }
    assert!(taken > 2 * 175, "{taken}");
}

#[test]
fn a_line_the_full_reader_reads_otherwise_is_left_to_it() {
    let base = r#""id": "a", "output": "25°C 東京""#;
    let own = [
        format!(r#"{{{base}, "gold_spans": {{}}}}"#),
        format!(r#"{{{base}, "gold_spans": null}}"#),
        format!(r#"{{{base}, "gold_spans": [{{"start": -1, "end": 4}}]}}"#),
        format!(r#"{{{base}, "gold_spans": [{{"start": 0, "end": 4, "confidence": "high"}}]}}"#),
        format!(r#"{{{base}, "corruption_type": 3}}"#),
        format!(r#"{{{base}, "x": "\ud800"}}"#),
    ];
    for line in testing::left_to_the_full_reader("pred_spans")
        .into_iter()
        .chain(own)
    {
        for joined in [false, true] {
            let fine = full(&line, joined).is_ok() && line.contains("gold_spans");
            if joined && fine {
                // A warning in the gold list: stepped over when joined, by both readers.
                let taken = parse(line.as_bytes(), "det", joined).ok_or("left");
                assert_eq!(taken, full(&line, joined).map_err(|_| "error"), "{line}");
                continue;
            }
            assert!(
                parse(line.as_bytes(), "det", joined).is_none(),
                "{line} joined {joined}: taken, the full reader gives {:?}",
                full(&line, joined)
            );
        }
    }
}

#[test]
fn nulls_escapes_and_non_ascii_read_as_the_full_reader_reads_them() {
    for line in [
        r#"{"id": "a\u00b0", "output": "25°C 東京 👋 cafe\u0301", "corruption_type": null}"#,
        r#"{"id": "a", "output": "25°C’", "gold_spans": [{"start": 0, "end": 4, "label": null, "text": null, "confidence": 1}], "pred_spans": []}"#,
        r#"{"id": "a", "output": "25°C", "corruption_type": "contradiction", "gold_spans": [], "pred_spans": [{"start": 0, "end": 4, "label": "contradiction", "category": "c", "subcategory": "s", "scores": {"x": 1}, "confidence": 0.25}], "generation": "{\"spans\": []}"}"#,
    ] {
        for joined in [false, true] {
            assert_eq!(
                parse(line.as_bytes(), "det", joined).ok_or("left to the full reader"),
                full(line, joined).map_err(|_| "error"),
                "{line} joined {joined}"
            );
        }
    }
}
