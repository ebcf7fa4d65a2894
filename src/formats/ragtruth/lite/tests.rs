//! The borrowing reader gives the full reader's record, field for field, on every line of the
//! bundled data and the fixtures it takes, and gives way (`None`) on each line the full reader
//! reads otherwise: an error, a warning, a duplicate key.

use super::*;
use crate::formats::lite_spans::testing::{self, lines};
use crate::formats::Format;

/// What the full reader gives, without the parts this reader leaves out.
fn full(line: &str) -> Result<Record, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    testing::full(Format::Ragtruth, value, "gold")
}

#[test]
fn every_line_it_takes_reads_as_the_full_reader_reads_it() {
    let mut taken = 0;
    for rel in [
        "data/toolace/test_records_reconstructed.jsonl",
        "tests/fixtures/review/records.jsonl",
        "tests/fixtures/validate/clean_unicode.jsonl",
        "tests/fixtures/validate/offsets.jsonl",
        "tests/fixtures/validate/mixed.jsonl",
    ] {
        for (n, line) in lines(rel).iter().enumerate() {
            if let Some(r) = parse(line.as_bytes()) {
                assert_eq!(Ok(r), full(line), "{rel}:{}", n + 1);
                taken += 1;
            }
        }
    }
    assert!(taken > 175, "{taken}");
}

#[test]
fn a_line_the_full_reader_reads_otherwise_is_left_to_it() {
    let base = r#""id": "a", "output": "25°C 東京""#;
    let own = [
        format!(r#"{{{base}, "query": 5}}"#),
        format!(r#"{{{base}, "context": ["a"]}}"#),
        format!(r#"{{{base}, "context": "\ud800"}}"#),
        format!(r#"{{{base}, "meta": "m"}}"#),
        format!(r#"{{{base}, "meta": {{"corruption_type": 3}}}}"#),
        format!(r#"{{{base}, "meta": {{"corruption_type": "a", "corruption_type": "b"}}}}"#),
    ];
    for line in testing::left_to_the_full_reader("hallucination_labels")
        .into_iter()
        .chain(own)
    {
        let lazy = parse_lazy(line.as_bytes()).map(|mut l| (l.query(), l.context()));
        assert!(
            parse(line.as_bytes()).is_none(),
            "{line}: taken ({lazy:?}), the full reader gives {:?}",
            full(&line)
        );
    }
}

#[test]
fn nulls_escapes_and_non_ascii_read_as_the_full_reader_reads_them() {
    for line in [
        r#"{"id": "a\u00b0", "output": "25°C 東京 👋 cafe\u0301", "query": null, "context": "{\"t\": \"18°C\"}\n’", "meta": null}"#,
        r#"{"id": "a", "output": "25°C", "meta": {"corruption_type": null}, "hallucination_labels": [{"start": 0, "end": 4, "label": null, "text": null, "confidence": 1}]}"#,
        r#"{"id": "a", "output": "25°C", "meta": {"corruption_type": "contradiction", "tools": []}, "hallucination_labels": [{"start": 0, "end": 4, "label": "contradiction", "category": "c", "subcategory": "s", "extra": {"x": 1}}], "other": [1, {"y": null}]}"#,
    ] {
        assert_eq!(parse(line.as_bytes()).ok_or("left to the full reader"), full(line).map_err(|_| "error"), "{line}");
    }
}

#[test]
fn the_request_and_evidence_are_read_only_when_asked_for() {
    let line = r#"{"id": "a", "output": "25°C", "query": "Wetter?", "context": "18°C"}"#;
    let mut lazy = parse_lazy(line.as_bytes()).expect("taken");
    assert_eq!((lazy.record.query.as_str(), lazy.record.context.as_str()), ("", ""));
    assert!(lazy.context());
    assert_eq!(lazy.record.context, "18°C");
    assert_eq!(lazy.record.query, "");
    assert!(lazy.query());
    assert_eq!(Ok(lazy.record), full(line));
    // A context of another type is found out when it is read.
    let bad = r#"{"id": "a", "output": "25°C", "context": 5}"#;
    let mut lazy = parse_lazy(bad.as_bytes()).expect("the rest reads");
    assert!(!lazy.context());
}

