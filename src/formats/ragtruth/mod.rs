//! RAGTruth-compatible records (toolace-hallucination-spans): `hallucination_labels` over
//! `output`, the type in `meta.corruption_type`.

pub(crate) mod check;
pub mod lite;


use serde_json::Value;

use super::{spans, write};
use super::spec::{FormatSpec, stem_source};
use crate::model::{Record, SourceRole, Span};

/// Parse one record line.
pub(crate) fn parse(value: Value) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let mut warnings = Vec::new();
    let id = spans::required_str(obj, "id")?;
    let output = spans::required_str(obj, "output")?;
    let query = spans::optional_str(obj, "query")?;
    let context = spans::optional_str(obj, "context")?;
    let corruption_type = obj
        .get("meta")
        .and_then(|m| spans::type_at(m, "corruption_type"));
    let gold = spans::span_list(obj, "hallucination_labels", "", &mut warnings)?;
    Ok(Record {
        query,
        context,
        corruption_type,
        warnings,
        ..Record::new(id, output, gold, Vec::new(), value)
    })
}

/// The record `raw` with `hallucination_labels` replaced by `gold` and, when given,
/// `meta.corruption_type` set; everything else passes through unchanged (see the `formats::write` module).
/// New span objects follow the key order of the record's other labels, else sorted
/// (`end, label, start, text`, as the published files are written).
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], corruption_type: Option<&str>) -> Value {
    let mut out = write::with_list(raw, "output", "hallucination_labels", gold, true, true);
    if let (Some(obj), Some(t)) = (out.as_object_mut(), corruption_type) {
        write::set_meta_type(obj, t);
    }
    out
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    name: "ragtruth",
    detect: |r| r.contains_key("hallucination_labels"),
    detect_keys: "hallucination_labels",
    record_id: super::spec::id_member,
    has_output: true,
    default_source: stem_source,
    parse: |v, _| parse(v),
    write,
    gold_list: Some("hallucination_labels"),
    labels_required: true,
    labels_not_written: None,
    builtin_labels: None,
    check: check::check,
    judge_role: SourceRole::Annotator,
    skimmable: true,
    skim_skips: &["context", "query", "meta"],
    lite: Some(lite::spans_only),
};

/// A record of the format for the registry's tests: one readable gold span over non-ASCII text
/// and one unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"id": "a", "output": "25°C 東京", "hallucination_labels": [{"start": 0, "end": 4, "text": "25°C", "label": "contradiction"}, {"start": "x", "end": 2}], "meta": {"corruption_type": "contradiction"}}"#;
