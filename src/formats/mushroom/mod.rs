//! Mu-SHROOM (SemEval-2025 Task 3): `hard_labels` (`[[s, e], ...]`, the majority spans) over
//! `model_output_text`, and each annotator's raw spans under `annotations`.
//!
//! `hard_labels` become the gold source (label `hallucination`: the format has no labels), each
//! annotator an `Annotator` source. Real defects are kept, not dropped: a span one past the end,
//! empty spans `[s, s]`, a boundary that splits a grapheme cluster. `validate` reports them.
//! Only pairs whose offsets are not non-negative integers are skipped (with a warning).

pub(crate) mod check;

use serde_json::Value;

use super::{quote, spans, write};
use super::spec::{FormatSpec, stem_source};
use crate::model::{Record, Source, SourceRole, Span};

/// The label given to Mu-SHROOM spans (the format carries none).
pub const LABEL: &str = "hallucination";

/// Parse one Mu-SHROOM line.
pub(crate) fn parse(value: Value) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let mut warnings = Vec::new();
    let id = spans::required_str(obj, "id")?;
    let output = spans::required_str(obj, "model_output_text")?;
    let query = spans::optional_str(obj, "model_input")?;
    let out = write::Output::new(&output);
    let gold = pairs(obj.get("hard_labels"), "hard_labels", &out, &mut warnings)?;
    let mut annotators = Vec::new();
    match obj.get("annotations") {
        None | Some(Value::Null) => {}
        Some(Value::Object(anns)) => {
            for (name, list) in anns {
                let key = format!("annotations.{name}");
                let spans = pairs(Some(list), &key, &out, &mut warnings)?;
                annotators.push(Source::new(name.clone(), SourceRole::Annotator, spans));
            }
        }
        Some(v) => {
            return Err(format!(
                "field \"annotations\" is not an object: {}",
                quote(v)
            ))
        }
    }
    drop(out);
    Ok(Record {
        query,
        context: evidence(obj),
        warnings,
        ..Record::new(id, output, gold, annotators, value)
    })
}

/// The evidence a reviewer has: the Wikipedia page the question was written from and the
/// question itself (the format carries no retrieved text), one `field: value` line each.
fn evidence(obj: &serde_json::Map<String, Value>) -> String {
    ["wikipedia_url", "model_input"]
        .iter()
        .filter_map(|k| Some((k, obj.get(*k)?.as_str()?)))
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Read a list of `[start, end]` pairs; `text` is taken from the output when in range.
fn pairs(
    list: Option<&Value>,
    key: &str,
    out: &write::Output<'_>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Span>, String> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    let Some(items) = list.as_array() else {
        return Err(format!("\"{key}\" is not a list: {}", quote(list)));
    };
    let mut spans = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let pair = item.as_array().filter(|a| a.len() == 2).and_then(|a| {
            Some((spans::as_offset(&a[0])?, spans::as_offset(&a[1])?))
        });
        match pair {
            Some((start, end)) => spans.push(Span {
                start,
                end,
                text: out.slice(start, end).unwrap_or_default().to_owned(),
                label: LABEL.to_owned(),
                category: None,
                subcategory: None,
                confidence: None,
                raw: serde_json::Map::new(),
            }),
            None => warnings.push(format!(
                "{key}[{i}]: not a [start, end] pair of non-negative integers: {}; the span was skipped",
                quote(item)
            )),
        }
    }
    Ok(spans)
}

/// The line `raw` with `hard_labels` replaced by `gold` as `[start, end]` pairs. Mu-SHROOM has
/// no type field, so `corruption_type` is ignored. `soft_labels` and `annotations` pass through
/// unchanged (they record the annotators' opinions, not the reviewed result).
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], _corruption_type: Option<&str>) -> Value {
    let mut out = raw.clone();
    if let Some(obj) = out.as_object_mut() {
        let pairs = gold
            .iter()
            .map(|s| Value::Array(vec![Value::from(s.start), Value::from(s.end)]))
            .collect();
        write::set(obj, "hard_labels", Value::Array(pairs));
    }
    out
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    name: "mushroom",
    detect: |r| r.contains_key("model_output_text"),
    detect_keys: "model_output_text",
    record_id: super::spec::id_member,
    has_output: true,
    default_source: stem_source,
    parse: |v, _| parse(v),
    write,
    gold_list: Some("hard_labels"),
    labels_required: false,
    labels_not_written: Some("Mu-SHROOM's hard_labels are [start, end] pairs with no label"),
    builtin_labels: None,
    check: check::check,
    judge_role: SourceRole::Annotator,
    skimmable: true,
    skim_skips: &["model_input"],
    lite: None,
};

/// A record of the format for the registry's tests: one readable gold span over non-ASCII text
/// and one unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"id": "a", "model_output_text": "25°C 東京", "hard_labels": [[0, 4], ["x", 2]]}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_defects_and_names_annotators() {
        let v: Value = serde_json::from_str(
            r#"{"id":"val-x-1","lang":"HI","model_input":"q","model_output_text":"नहैं ok",
               "hard_labels":[[0,2],[3,3]],"soft_labels":[{"start":0,"prob":0.5,"end":2}],
               "annotations":{"annotator_a":[[0,7],[1,8]],"annotator_b":[[-1,2],[4,6]]}}"#,
        )
        .expect("json");
        let r = parse(v.clone()).expect("parse");
        let gold = r.gold_spans();
        assert_eq!(gold.len(), 2);
        assert_eq!(gold[0].text, "नह");
        assert_eq!(gold[0].label, LABEL);
        assert!(gold[1].is_empty());
        let a = r.source("annotator_a").expect("annotator");
        assert_eq!(a.role, SourceRole::Annotator);
        assert_eq!(a.spans.len(), 2, "out-of-range span kept");
        assert_eq!(r.source("annotator_b").expect("b").spans.len(), 1);
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].contains("[-1,2]"), "{:?}", r.warnings);
        assert_eq!(write(&v, gold, Some("x")), v);
    }
}
