//! Detector prediction files (halu-toolace results): `gold_spans` and one detector's
//! `pred_spans` over `output`. No query or context: join with a records file by `id`.

pub(crate) mod check;
pub mod lite;

use std::path::Path;

use serde_json::Value;

use super::{spans, write};
use super::spec::FormatSpec;
use crate::model::{Record, Source, SourceRole, Span};

/// Parse one prediction line; the predictions become a `Detector` source named `detector`.
pub(crate) fn parse(value: Value, detector: &str) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let mut warnings = Vec::new();
    let id = spans::required_str(obj, "id")?;
    let output = spans::required_str(obj, "output")?;
    let corruption_type = spans::type_at(&value, "corruption_type");
    let gold = spans::span_list(obj, "gold_spans", "", &mut warnings)?;
    let pred = spans::span_list(obj, "pred_spans", "", &mut warnings)?;
    let predicted = Source::new(detector, SourceRole::Detector, pred);
    Ok(Record {
        corruption_type,
        warnings,
        ..Record::new(id, output, gold, vec![predicted], value)
    })
}

/// The line `raw` with `gold_spans` replaced by `gold` and, when given, `corruption_type` set;
/// `pred_spans` and every other field pass through unchanged (see the `formats::write` module).
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], corruption_type: Option<&str>) -> Value {
    let mut out = write::with_list(raw, "output", "gold_spans", gold, true, true);
    if let (Some(obj), Some(t)) = (out.as_object_mut(), corruption_type) {
        write::set(obj, "corruption_type", Value::String(t.to_owned()));
    }
    out
}

/// Name a detector after its file: `predictions_lexical_combined.jsonl` → `lexical`,
/// `ensemble/predictions_combined.jsonl` → `ensemble`,
/// `raw/lettucedect-base-modernbert-en-v1/combined_test.jsonl` → `lettucedect-base-modernbert-en-v1`.
#[must_use]
pub fn detector_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("predictions");
    let mut name = stem.strip_prefix("predictions").unwrap_or(stem);
    name = name.trim_start_matches('_');
    for config in [
        "combined",
        "contradiction",
        "missing_tool",
        "overgeneration",
    ] {
        for suffix in ["_test", ""] {
            let tail = format!("{config}{suffix}");
            if let Some(rest) = name.strip_suffix(tail.as_str()) {
                name = rest.trim_end_matches('_');
            }
        }
    }
    if name.is_empty() || name == "test" {
        path.parent()
            .and_then(Path::file_name)
            .and_then(|s| s.to_str())
            .unwrap_or("predictions")
            .to_owned()
    } else {
        name.to_owned()
    }
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    name: "predictions",
    detect: |r| r.contains_key("pred_spans") || r.contains_key("gold_spans"),
    detect_keys: "pred_spans",
    record_id: super::spec::id_member,
    has_output: true,
    default_source: detector_name,
    parse,
    write,
    gold_list: Some("gold_spans"),
    labels_required: true,
    labels_not_written: None,
    builtin_labels: None,
    check: check::check,
    judge_role: SourceRole::Detector,
    skimmable: true,
    // A generating detector's raw reply (`generation`).
    skim_skips: &["generation"],
    lite: Some(lite::parse),
};

/// A record of the format for the registry's tests: one readable gold span over non-ASCII text
/// and one unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"id": "a", "output": "25°C 東京", "gold_spans": [{"start": 0, "end": 4, "text": "25°C", "label": "contradiction"}, {"start": "x", "end": 2}], "pred_spans": [{"start": "x", "end": 2}]}"#;

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("x/baselines_resentence/predictions_lexical_combined.jsonl", "lexical")]
    #[case("x/ensemble/predictions_combined.jsonl", "ensemble")]
    #[case(
        "r/raw/lettucedect-base-modernbert-en-v1/combined_test.jsonl",
        "lettucedect-base-modernbert-en-v1"
    )]
    #[case("preds.jsonl", "preds")]
    fn detector_names(#[case] path: &str, #[case] want: &str) {
        assert_eq!(detector_name(Path::new(path)), want);
    }

    #[test]
    fn parses_gold_and_predictions_keeping_extra_keys() {
        let v: Value = serde_json::from_str(
            r#"{"id":"a","output":"It is 25°C","corruption_type":"contradiction",
            "gold_spans":[{"end":10,"label":"contradiction","start":6,"text":"25°C"}],
            "pred_spans":[{"start":5,"end":10,"text":" 25°C","confidence":0.9,"scores":{"con":1}}]}"#,
        )
        .expect("json");
        let r = parse(v, "det").expect("parse");
        assert_eq!(r.sources.len(), 2);
        let g = &r.sources[0].spans[0];
        assert!(g.text_matches(&r.output));
        let p = &r.sources[1].spans[0];
        assert_eq!(p.confidence, Some(0.9));
        assert!(p.text_matches(&r.output));
        let keys: Vec<&str> = p.raw.keys().map(String::as_str).collect();
        assert_eq!(keys, ["start", "end", "text", "confidence", "scores"]);
    }
}
