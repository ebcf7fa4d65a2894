//! Prodigy JSONL (`ner_manual`, `spans.manual`, `ner.correct` datasets): `text`, `spans[{start,
//! end, label, token_start, token_end}]`, `answer`, `_input_hash`, `_task_hash`, `meta`.
//!
//! `text` is the answer, span offsets are code points into it (Prodigy is Python). The id is
//! the first of `id`, `meta.id`, `meta.rid`, `meta.record_id`, else `_input_hash`. The request
//! and evidence are the top-level `query` and `context` (else `meta.query` / `meta.context`):
//! `meta` is shown on Prodigy's annotation card, so long evidence is kept out of it. An
//! accepted task's spans are the gold (as is a task with no `answer`); a rejected or ignored
//! task's spans are not anyone's truth, so they become a `Detector` source `prodigy_reject` /
//! `prodigy_ignore` and the gold is empty. A span whose `text` is not `text[start:end]` in code
//! points is kept as given (never shifted) and reported.

use serde_json::{json, Map, Value};

use super::spec::{stem_source, FormatSpec};
use super::validate::Kind;
use super::whole::{self, Problem};
use super::{quote, spans, write};
use crate::model::{Record, Source, SourceRole, Span};

/// Parse one task.
pub(crate) fn parse(value: Value) -> Result<Record, String> {
    whole::parse(value, read)
}

/// A string under `key` at the top level, else in `meta`.
fn field(obj: &Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(_) => spans::optional_str(obj, key),
        None => match obj.get("meta").and_then(Value::as_object) {
            Some(meta) => spans::optional_str(meta, key).map_err(|e| format!("meta: {e}")),
            None => Ok(String::new()),
        },
    }
}

/// The task's id (see the module doc).
fn id_of(obj: &Map<String, Value>) -> Result<String, String> {
    let meta = obj.get("meta").and_then(Value::as_object);
    obj.get("id")
        .and_then(spans::id_text)
        .or_else(|| ["id", "rid", "record_id"].iter().find_map(|k| meta?.get(*k).and_then(spans::id_text)))
        .or_else(|| obj.get("_input_hash").and_then(spans::id_text))
        .ok_or_else(|| "no id: none of \"id\", \"meta.id\", \"meta.rid\", \"meta.record_id\", \"_input_hash\"".to_owned())
}

/// The task as a record; what does not read is told in `problems` (the record keeps the rest).
pub(crate) fn read(value: Value, problems: &mut Vec<Problem>) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let output = spans::required_str(obj, "text")?;
    let id = id_of(obj)?;
    let query = field(obj, "query")?;
    let context = field(obj, "context")?;
    let mut warnings = Vec::new();
    let read = spans::span_list(obj, "spans", "", &mut warnings)?;
    problems.extend(warnings.into_iter().map(|w| (Kind::NonIntegerOffset, w)));
    let out = write::Output::new(&output);
    for (i, s) in read.iter().enumerate() {
        let at = format!("spans[{i}]");
        let given = s.raw.get("text").and_then(Value::as_str);
        let region = whole::Region { at: &at, field: "text", text_key: "text", start: s.start, end: s.end, given };
        whole::check_region(problems, &out, &region);
        if s.raw.get("label").and_then(Value::as_str).is_none_or(str::is_empty) {
            let label = s.raw.get("label").map_or_else(|| "none".to_owned(), quote);
            let msg = format!("{at}: no label: {label}; the span was read without a label");
            problems.push((Kind::MissingLabel, msg));
        }
    }
    let read: Vec<Span> = read
        .into_iter()
        .map(|s| Span {
            text: out.slice(s.start, s.end).map_or(s.text.clone(), str::to_owned),
            ..s
        })
        .collect();
    drop(out);
    let mut sources = Vec::new();
    let gold = match obj.get("answer") {
        None | Some(Value::Null) => read,
        Some(Value::String(a)) if a == "accept" => read,
        Some(Value::String(a)) if a == "reject" || a == "ignore" => {
            sources.push(Source::new(format!("prodigy_{a}"), SourceRole::Detector, read));
            Vec::new()
        }
        Some(v) => {
            problems.push((
                Kind::BadValue,
                format!("answer is not accept, reject or ignore: {}; its spans read as accepted", quote(v)),
            ));
            read
        }
    };
    Ok(Record {
        query,
        context,
        ..Record::new(id, output, gold, sources, value)
    })
}

/// The token indices `[first, last]` that `[start, end)` covers exactly, in Prodigy's
/// `tokens[{start, end}]` (character offsets); `None` when a boundary is inside a token.
fn token_span(tokens: &[Value], start: usize, end: usize) -> Option<(usize, usize)> {
    let at = |t: &Value, k: &str| t.get(k).and_then(spans::as_offset);
    let first = tokens.iter().position(|t| at(t, "start") == Some(start))?;
    let last = tokens.iter().position(|t| at(t, "end") == Some(end))?;
    (first <= last).then_some((first, last))
}

/// The span object of `s` in the task's style: a read span keeps its object with `start`,
/// `end`, `label` (and `text` when it had one) patched; a new one is `{start, end,
/// token_start, token_end, label}`. Token indices are set from `tokens` when the span covers
/// whole tokens, and left out otherwise (Prodigy tokenizes a task that has none).
fn span_value(s: &Span, output: &write::Output<'_>, tokens: Option<&[Value]>) -> Value {
    let mut m = if s.raw.is_empty() {
        let mut m = Map::new();
        m.insert("start".to_owned(), Value::from(s.start));
        m.insert("end".to_owned(), Value::from(s.end));
        m
    } else {
        let mut m = s.raw.clone();
        m.insert("start".to_owned(), Value::from(s.start));
        m.insert("end".to_owned(), Value::from(s.end));
        m
    };
    if m.contains_key("text") {
        m.insert("text".to_owned(), Value::from(write::span_text(Some(output), s)));
    }
    match tokens.and_then(|t| token_span(t, s.start, s.end)) {
        Some((a, b)) => {
            m.insert("token_start".to_owned(), Value::from(a));
            m.insert("token_end".to_owned(), Value::from(b));
        }
        None if tokens.is_some() => {
            m.remove("token_start");
            m.remove("token_end");
        }
        None => {}
    }
    m.insert("label".to_owned(), Value::from(s.label.clone()));
    Value::Object(m)
}

/// The task `raw` with `spans` set to `gold` (every other field passes through, key order
/// included). A rejected or ignored task written with no spans stays as it was (the reviewer
/// agreed nothing in it stands); a task written with spans is accepted (`answer: "accept"`,
/// when it has an `answer`). When the spans change, `_task_hash` is dropped: it hashes the spans,
/// and Prodigy sets a missing one on import, where a stale one would pass the new task for the
/// old. Prodigy has no type field, so `corruption_type` is ignored.
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], _corruption_type: Option<&str>) -> Value {
    let answer = raw.get("answer").and_then(Value::as_str);
    if gold.is_empty() && matches!(answer, Some("reject" | "ignore")) {
        return raw.clone();
    }
    let text = raw.get("text").and_then(Value::as_str).unwrap_or_default();
    let output = write::Output::new(text);
    let tokens = raw.get("tokens").and_then(Value::as_array).map(Vec::as_slice);
    let list = Value::Array(gold.iter().map(|s| span_value(s, &output, tokens)).collect());
    let mut out = raw.clone();
    if let Some(obj) = out.as_object_mut() {
        if obj.get("spans") != Some(&list) {
            obj.shift_remove("_task_hash");
        }
        write::set(obj, "spans", list);
        if answer.is_some() {
            write::set(obj, "answer", json!("accept"));
        }
    }
    out
}

/// A new task for a record read from another format: `text`, the request and evidence
/// (top-level `query` and `context`, when the record has them), `meta.id`, no spans yet (the
/// caller writes them with [`write`]).
#[must_use]
pub fn build(rec: &Record) -> Value {
    let mut obj = Map::new();
    obj.insert("text".to_owned(), Value::from(rec.output.clone()));
    for (k, v) in [("query", &rec.query), ("context", &rec.context)] {
        if !v.is_empty() {
            obj.insert(k.to_owned(), Value::from(v.clone()));
        }
    }
    obj.insert("spans".to_owned(), json!([]));
    obj.insert("meta".to_owned(), json!({"id": rec.id}));
    Value::Object(obj)
}

/// True for a Prodigy task: `text` beside `spans` or Prodigy's hashes.
fn detect(r: &Map<String, Value>) -> bool {
    r.get("text").is_some_and(Value::is_string)
        && ["spans", "_input_hash", "_task_hash"]
            .iter()
            .any(|k| r.contains_key(*k))
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    record_id: |line| super::spec::id_of_object(line, id_of),
    name: "prodigy",
    detect,
    detect_keys: "text+spans/_input_hash",
    has_output: true,
    default_source: stem_source,
    parse: |v, _| parse(v),
    write,
    gold_list: Some("spans"),
    labels_required: true,
    labels_not_written: None,
    builtin_labels: None,
    check: |c, bytes| whole::check(c, bytes, read),
    judge_role: SourceRole::Annotator,
    // The id may come from `meta` or the input hash.
    skimmable: false,
    skim_skips: &["tokens", "query", "context", "meta"],
    lite: None,
};

/// A task of the format for the registry's tests: one readable span over non-ASCII text and one
/// unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"text": "25°C 東京", "spans": [{"start": 0, "end": 4, "token_start": 0, "token_end": 0, "label": "contradiction"}, {"start": "x", "end": 2, "label": "contradiction"}], "_input_hash": 12, "_task_hash": 34, "answer": "accept", "meta": {"id": "p1"}}"#;

#[cfg(test)]
mod tests;
