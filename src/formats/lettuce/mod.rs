//! LettuceDetect `HallucinationSample`s: `labels` over `answer`, usually one JSON array per file.
//!
//! `output` is `answer`, `query` is `question` (or empty), `context` is `context` when it is a
//! string, else `prompt`. Labels keep `label`, `category` and `subcategory`. The format's labels
//! carry no `text`; the span's `text` is filled from the answer (and not written back). Samples
//! have no id: the record id is `id` when present, else `lettuce-` and a hash of prompt and
//! answer (stable when the file is reordered).

pub(crate) mod check;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{quote, spans, write};
use super::spec::{FormatSpec, stem_source};
use crate::model::{Record, SourceRole, Span};

/// A sample's id: `id` (a string or a number), else `lettuce-` and a hash of prompt and answer.
fn record_id(obj: &Map<String, Value>) -> Result<String, String> {
    match obj.get("id") {
        None | Some(Value::Null) => Ok(content_id(
            &spans::optional_str(obj, "prompt")?,
            &spans::required_str(obj, "answer")?,
        )),
        Some(v) => spans::id_text(v)
            .ok_or_else(|| format!("field \"id\" is not a string: {}", quote(v))),
    }
}

/// Parse one sample.
pub(crate) fn parse(value: Value) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let mut warnings = Vec::new();
    let output = spans::required_str(obj, "answer")?;
    let prompt = spans::optional_str(obj, "prompt")?;
    let query = spans::optional_str(obj, "question")?;
    let context = match obj.get("context") {
        Some(Value::String(s)) => s.clone(),
        _ => prompt.clone(),
    };
    let id = record_id(obj)?;
    let mut gold: Vec<Span> = spans::span_list(obj, "labels", "", &mut warnings)?;
    let out = write::Output::new(&output);
    for s in &mut gold {
        if s.text.is_empty() && !s.raw.contains_key("text") {
            s.text = out.slice(s.start, s.end).unwrap_or_default().to_owned();
        }
    }
    drop(out);
    Ok(Record {
        query,
        context,
        warnings,
        ..Record::new(id, output, gold, Vec::new(), value)
    })
}

/// `lettuce-` and the first 12 hex digits of SHA-256 over prompt and answer.
fn content_id(prompt: &str, answer: &str) -> String {
    let mut h = Sha256::new();
    h.update(prompt.len().to_le_bytes());
    h.update(prompt.as_bytes());
    h.update(answer.as_bytes());
    format!("lettuce-{}", crate::model::hex(&h.finalize()[..6]))
}

/// The sample `raw` with `labels` replaced by `gold` (`start, end, label[, category,
/// subcategory]`, no `text` unless the original label objects had one). LettuceDetect has no type
/// field, so `corruption_type` is ignored.
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], _corruption_type: Option<&str>) -> Value {
    write::with_list(raw, "answer", "labels", gold, false, false)
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    name: "lettuce",
    detect: |r| r.contains_key("answer") && r.contains_key("labels"),
    detect_keys: "answer+labels",
    // A string `id` at once; a numeric or missing one (a hash of the content) from the line.
    record_id: |line| {
        super::spec::id_member(line).or_else(|| super::spec::id_of_object(line, record_id))
    },
    has_output: true,
    default_source: stem_source,
    parse: |v, _| parse(v),
    write,
    gold_list: Some("labels"),
    labels_required: true,
    labels_not_written: None,
    builtin_labels: Some("lettucedetect"),
    check: check::check,
    judge_role: SourceRole::Annotator,
    // The id may be derived from the skipped `prompt`.
    skimmable: false,
    skim_skips: &["context", "prompt"],
    lite: None,
};

/// A record of the format for the registry's tests: one readable gold span over non-ASCII text
/// and one unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"answer": "25°C 東京", "labels": [{"start": 0, "end": 4, "label": "contradiction"}, {"start": "x", "end": 2}]}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_answer_labels_and_context() {
        let v: Value = serde_json::from_str(
            r#"{"prompt":"P","answer":"Öldü 1945'te.","labels":[{"start":5,"end":9,"label":"Evident Conflict","category":"contradiction","subcategory":"temporal"}],"context":["a","b"],"question":null}"#,
        )
        .expect("json");
        let r = parse(v.clone()).expect("parse");
        assert_eq!(r.context, "P");
        assert_eq!(r.query, "");
        assert!(r.id.starts_with("lettuce-"));
        let s = &r.gold_spans()[0];
        assert_eq!(s.text, "1945");
        assert_eq!(s.category.as_deref(), Some("contradiction"));
        assert_eq!(write(&v, r.gold_spans(), None), v);
        let mut added = r.gold_spans().to_vec();
        added.push(Span::new(&r.output, 0, 4, "Evident Baseless Info"));
        let w = write(&v, &added, None);
        assert_eq!(
            w["labels"][1].to_string(),
            r#"{"start":0,"end":4,"label":"Evident Baseless Info"}"#
        );
    }
}
