//! halu-toolace LLM-judge audit decisions (`decisions.jsonl`): one line per judged record (or
//! per labeled span), no answer text. Join with the records file by `id`.
//!
//! A line becomes a record with an empty `output`, the `labeled_span` as its gold span, and a
//! `Judge` source named after the file. The judge source holds one span per line: the judged
//! span's offsets (an empty `[0, 0)` span when the line judged a record with no label, i.e.
//! `labeled_span: null`), with `raw` set to the **whole decision line** (`judge`, `judge_raw`,
//! `lettuce`, `labeled_span`, ...), so the verdict survives a join into the records file.
//! [`Judgement::of`] reads the verdict back from such a span.

pub(crate) mod check;


use serde_json::{Map, Value};

use super::{quote, spans, write};
use super::spec::{FormatSpec, stem_source};
use crate::model::{Record, Source, SourceRole, Span};

/// What the judge said about `labeled_span` (`judge.label_correct`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelCorrect {
    /// The labeled span is a real hallucination of the stated type.
    True,
    /// The labeled span is not a hallucination: the label is likely wrong.
    False,
    /// The judge could not decide (always for records without a label).
    Unknown,
}

/// The judge's verdict on one decision line.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// `judge.label_correct`.
    pub label_correct: LabelCorrect,
    /// `judge.extra_hallucination`: the judge found a hallucination that is not labeled.
    pub extra_hallucination: bool,
    /// `judge.extra_text`: the text it found (no offsets; locate it in the output).
    pub extra_text: String,
    /// `judge.reasoning`.
    pub reasoning: String,
    /// `judge.parse_error`, when the judge's reply could not be parsed.
    pub parse_error: Option<String>,
}

impl Judgement {
    /// Read the verdict from a decision line (the record's `raw`, or a judge span's `raw`).
    /// `None` when the line has no `judge` object.
    #[must_use]
    pub fn from_line(line: &Map<String, Value>) -> Option<Self> {
        let judge = line.get("judge")?.as_object()?;
        let s = |k: &str| judge.get(k).and_then(Value::as_str).map(str::to_owned);
        let label_correct = match judge.get("label_correct") {
            Some(Value::String(v)) if v == "true" => LabelCorrect::True,
            Some(Value::Bool(true)) => LabelCorrect::True,
            Some(Value::String(v)) if v == "false" => LabelCorrect::False,
            Some(Value::Bool(false)) => LabelCorrect::False,
            _ => LabelCorrect::Unknown,
        };
        Some(Self {
            label_correct,
            extra_hallucination: judge
                .get("extra_hallucination")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            extra_text: s("extra_text").unwrap_or_default(),
            reasoning: s("reasoning").unwrap_or_default(),
            parse_error: s("parse_error"),
        })
    }

    /// The verdict carried by a `Judge` source's span.
    #[must_use]
    pub fn of(span: &Span) -> Option<Self> {
        Self::from_line(&span.raw)
    }
}

/// Parse one decision line. The judge source is named `source`.
pub(crate) fn parse(value: Value, source: &str) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let mut warnings = Vec::new();
    let id = spans::required_str(obj, "id")?;
    let corruption_type = spans::type_at(&value, "corruption_type");
    match obj.get("judge") {
        Some(Value::Object(_)) => {}
        None => return Err("missing field \"judge\"".to_owned()),
        Some(v) => return Err(format!("field \"judge\" is not an object: {}", quote(v))),
    }
    let gold = match obj.get("labeled_span") {
        None | Some(Value::Null) => None,
        Some(v) => match spans::span_object(v, "") {
            Ok(s) => Some(s),
            Err(e) => {
                warnings.push(format!("labeled_span: {e}; the span was skipped"));
                None
            }
        },
    };
    let mut judged = gold.clone().unwrap_or_else(|| Span::new("", 0, 0, ""));
    judged.raw = obj.clone();
    let judge = Source::new(source, SourceRole::Judge, vec![judged]);
    let gold = gold.into_iter().collect();
    Ok(Record {
        corruption_type,
        warnings,
        ..Record::new(id, String::new(), gold, vec![judge], value)
    })
}

/// The decision line `raw` with `labeled_span` set to the first of `gold` (`null` when there is
/// none: a decision line judges one span) and, when given, `corruption_type` set. Every other
/// field passes through unchanged, key order included. There is no output in a decision line, so
/// a span's `text` is written as the span holds it.
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], corruption_type: Option<&str>) -> Value {
    let mut out = raw.clone();
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    let template = obj
        .get("labeled_span")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect::<Vec<_>>());
    let span = gold.first().map_or(Value::Null, |s| {
        Value::Object(write::span_object(
            s,
            None,
            &write::SpanKeys::with_text(template.as_deref()),
        ))
    });
    write::set(obj, "labeled_span", span);
    if let Some(t) = corruption_type {
        write::set(obj, "corruption_type", Value::String(t.to_owned()));
    }
    out
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    name: "decisions",
    detect: |r| r.contains_key("labeled_span") || r.contains_key("judge"),
    detect_keys: "labeled_span",
    record_id: super::spec::id_member,
    has_output: false,
    default_source: stem_source,
    parse,
    write,
    gold_list: None,
    labels_required: false,
    labels_not_written: None,
    builtin_labels: None,
    check: check::check,
    judge_role: SourceRole::Judge,
    // Several lines per id, which the span reader's same-position match would not all join.
    skimmable: false,
    skim_skips: &["judge_raw"],
    lite: None,
};

/// A record of the format for the registry's tests: one readable gold span over non-ASCII text
/// and one unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"id": "a", "labeled_span": {"start": "x", "end": 2}, "judge": {"label_correct": "true", "extra_hallucination": false}}"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> Value {
        serde_json::from_str(s).expect("json")
    }

    #[test]
    fn labeled_line_gives_gold_and_judge() {
        let v = line(
            r#"{"corruption_type":"contradiction","id":"a__contradiction","judge":{"extra_hallucination":true,"extra_text":"sunny","label_correct":"false","reasoning":"r"},"judge_raw":"{}","labeled_span":{"end":37,"label":"contradiction","start":32,"text":"rainy"},"lettuce":{"fired":true,"n_spans":2}}"#,
        );
        let r = parse(v.clone(), "judge").expect("parse");
        assert_eq!(r.output, "");
        assert_eq!(r.gold_spans().len(), 1);
        assert_eq!(r.gold_spans()[0].text, "rainy");
        let j = r.source("judge").expect("judge source");
        assert_eq!(j.role, SourceRole::Judge);
        let verdict = Judgement::of(&j.spans[0]).expect("verdict");
        assert_eq!(verdict.label_correct, LabelCorrect::False);
        assert!(verdict.extra_hallucination);
        assert_eq!(verdict.extra_text, "sunny");
        assert_eq!(write(&v, r.gold_spans(), None), v);
    }

    #[test]
    fn null_labeled_span_keeps_the_verdict() {
        let v = line(
            r#"{"corruption_type":"clean","id":"b__clean","judge":{"extra_hallucination":false,"extra_text":"","label_correct":"unknown","parse_error":"no_json_found","reasoning":""},"judge_raw":"","labeled_span":null,"lettuce":{"fired":false,"n_spans":0}}"#,
        );
        let r = parse(v.clone(), "judge").expect("parse");
        assert!(r.gold_spans().is_empty());
        let j = &r.source("judge").expect("judge").spans[0];
        assert!(j.is_empty());
        let verdict = Judgement::of(j).expect("verdict");
        assert_eq!(verdict.parse_error.as_deref(), Some("no_json_found"));
        assert_eq!(write(&v, &[], None), v);
    }

    #[test]
    fn missing_judge_is_an_error() {
        let e = parse(line(r#"{"id":"x","judge":3}"#), "j").expect_err("bad judge");
        assert!(e.contains("\"judge\" is not an object: 3"), "{e}");
    }
}
