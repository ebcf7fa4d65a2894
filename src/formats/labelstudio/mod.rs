//! Label Studio JSON exports: tasks with `data`, `annotations[].result[]` and
//! `predictions[].result[]`, each result a `labels` region `value{start, end, text, labels}`.
//!
//! `data.output` is the answer, `data.query` and `data.context` the request and evidence, the id
//! `data.rid` (else the task's `id`). Each annotator (`completed_by`) is an `Annotator` source
//! `annotator_<id>` holding their latest annotation (`updated_at`, then `id`); cancelled ones
//! (`was_cancelled`) are left out. Each prediction's `model_version` is a `Detector` source
//! (`prediction_gold` when it would take the name of the gold). Gold is the annotation of
//! [`REVIEWER`], the one `write` sets, so a written task reads back with its reviewed spans.
//! Label Studio 1.23 stores code points, so a span whose `value.text` is not `output[start:end]`
//! is kept as given (never shifted) and reported, as is a region with no label or several
//! (a span carries one), except `labels: []` in a task `convert` made (`meta.spanreview`), its
//! way of writing a span without a label.

use serde_json::{json, Map, Value};

use super::spec::FormatSpec;
use super::validate::Kind;
use super::whole::{self, Problem};
use super::{quote, spans, write};
use crate::model::{Record, Source, SourceRole, Span, GOLD};

/// `completed_by` of the annotation spanreview writes: the reviewed spans.
pub const REVIEWER: &str = "spanreview";

/// Parse one task.
pub(crate) fn parse(value: Value) -> Result<Record, String> {
    whole::parse(value, read)
}

/// The task as a record; what does not read is told in `problems` (the record keeps the rest).
pub(crate) fn read(value: Value, problems: &mut Vec<Problem>) -> Result<Record, String> {
    let obj = super::spans::as_object(&value)?;
    let data = match obj.get("data") {
        Some(Value::Object(d)) => d,
        None => return Err("missing field \"data\"".to_owned()),
        Some(v) => return Err(format!("field \"data\" is not an object: {}", quote(v))),
    };
    let output = super::spans::required_str(data, "output").map_err(|e| format!("data: {e}"))?;
    let query = super::spans::optional_str(data, "query").map_err(|e| format!("data: {e}"))?;
    let context = super::spans::optional_str(data, "context").map_err(|e| format!("data: {e}"))?;
    let id = task_id(obj)?;
    let task = format!("task {id}");
    let ours = value.pointer("/meta/spanreview").is_some();
    let mut gold = Vec::new();
    let mut sources: Vec<Source> = Vec::new();
    for (i, ann) in latest_annotations(obj, problems, &task) {
        let key = format!("{task}: annotations[{i}]");
        let spans = results(ann.get("result"), &key, &output, ours, problems);
        if is_review(ann) {
            gold = spans;
        } else {
            let by = ann.get("completed_by");
            let name = format!("annotator_{}", annotator(by));
            sources.push(Source::new(name, SourceRole::Annotator, spans));
        }
    }
    for (i, pred) in list(obj, "predictions", problems, &task).iter().enumerate() {
        let key = format!("{task}: predictions[{i}]");
        let spans = results(pred.get("result"), &key, &output, ours, problems);
        let mut name = match pred.get("model_version") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => "prediction".to_owned(),
        };
        if name == GOLD {
            name = format!("prediction_{GOLD}");
        }
        // The later prediction of a model version stands, as the later annotation does.
        sources.retain(|s| s.name != name);
        sources.push(Source::new(name, SourceRole::Detector, spans));
    }
    Ok(Record {
        query,
        context,
        ..Record::new(id, output, gold, sources, value.clone())
    })
}

/// The task's id: `data.rid`, else the task's `id` (each a string or a number).
fn task_id(obj: &Map<String, Value>) -> Result<String, String> {
    let rid = obj.get("data").and_then(|d| d.get("rid"));
    rid.and_then(spans::id_text)
        .or_else(|| obj.get("id").and_then(spans::id_text))
        .ok_or_else(|| "missing field \"data.rid\" or \"id\"".to_owned())
}

/// The list `key` of the task (absent or null: empty).
fn list<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    problems: &mut Vec<Problem>,
    task: &str,
) -> &'v [Value] {
    match obj.get(key) {
        None | Some(Value::Null) => &[],
        Some(Value::Array(a)) => a,
        Some(v) => {
            let msg = format!("{task}: field \"{key}\" is not a list: {}", quote(v));
            problems.push((Kind::WrongType, msg));
            &[]
        }
    }
}

/// `completed_by` as a name: a user id, an email, or `unknown`.
fn annotator(by: Option<&Value>) -> String {
    match by {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(o)) => o
            .get("email")
            .or_else(|| o.get("id"))
            .map_or_else(|| "unknown".to_owned(), |v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)),
        _ => "unknown".to_owned(),
    }
}

/// The annotations that stand, with their index: not cancelled, the latest per annotator
/// (`updated_at`, then `id`), in the order of their annotators' first annotation.
fn latest_annotations<'v>(
    obj: &'v Map<String, Value>,
    problems: &mut Vec<Problem>,
    task: &str,
) -> Vec<(usize, &'v Map<String, Value>)> {
    let mut kept: Vec<(String, usize, &Map<String, Value>)> = Vec::new();
    for (i, ann) in list(obj, "annotations", problems, task).iter().enumerate() {
        let Some(a) = ann.as_object() else {
            let msg = format!("{task}: annotations[{i}] is not an object: {}", quote(ann));
            problems.push((Kind::WrongType, msg));
            continue;
        };
        if a.get("was_cancelled").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let who = annotator(a.get("completed_by"));
        match kept.iter_mut().find(|(w, _, _)| *w == who) {
            Some(slot) if later(a, slot.2) => (slot.1, slot.2) = (i, a),
            Some(_) => {}
            None => kept.push((who, i, a)),
        }
    }
    kept.into_iter().map(|(_, i, a)| (i, a)).collect()
}

/// Where spanreview's annotation of `task` is in its `annotations`: the [`REVIEWER`]'s that
/// stands (not cancelled, the latest, as every annotator's), whose spans the reader takes as
/// the gold and `write` replaces. `None` when there is none.
#[must_use]
pub fn review_annotation(task: &Value) -> Option<usize> {
    let obj = task.as_object()?;
    latest_annotations(obj, &mut Vec::new(), "")
        .into_iter()
        .find(|(_, a)| is_review(a))
        .map(|(i, _)| i)
}

/// True when annotation `a` is [`REVIEWER`]'s.
fn is_review(a: &Map<String, Value>) -> bool {
    a.get("completed_by").and_then(Value::as_str) == Some(REVIEWER)
}

/// True when annotation `a` was updated after `b` (ISO timestamps compare as text; equal or
/// missing times fall back to the id).
fn later(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let at = |m: &Map<String, Value>| m.get("updated_at").and_then(Value::as_str).map(str::to_owned);
    let id = |m: &Map<String, Value>| m.get("id").and_then(Value::as_u64);
    match (at(a), at(b)) {
        (Some(x), Some(y)) if x != y => x > y,
        _ => id(a) > id(b),
    }
}

/// The `labels` regions of an annotation's or a prediction's `result`, as spans.
/// `ours`: the task was made by `convert` (`meta.spanreview`).
fn results(
    result: Option<&Value>,
    key: &str,
    output: &str,
    ours: bool,
    problems: &mut Vec<Problem>,
) -> Vec<Span> {
    let out = write::Output::new(output);
    let mut spans = Vec::new();
    let items = match result {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(v) => {
            let msg = format!("{key}.result is not a list: {}; no span was read from it", quote(v));
            problems.push((Kind::WrongType, msg));
            &[][..]
        }
    };
    for (j, r) in items.iter().enumerate() {
        if r.get("type").and_then(Value::as_str) != Some("labels") {
            continue;
        }
        let at = format!("{key}.result[{j}]");
        let value = r.get("value").and_then(Value::as_object);
        let n = |k: &str| value?.get(k).and_then(spans::as_offset);
        let (Some(start), Some(end)) = (n("start"), n("end")) else {
            let v = r.get("value").map_or_else(|| "none".to_owned(), quote);
            let msg = format!("{at}: value has no non-negative start and end: {v}; the span was skipped");
            problems.push((Kind::NonIntegerOffset, msg));
            continue;
        };
        let labels = value.and_then(|v| v.get("labels"));
        // `convert --to label-studio` writes a span without a label as `labels: []` (its task
        // says so in `meta.spanreview`): read back as written, nothing lost.
        let unlabeled = ours && labels.and_then(Value::as_array).is_some_and(Vec::is_empty);
        let label = if unlabeled {
            String::new()
        } else {
            whole::region_label(problems, &at, "value.labels", labels)
        };
        let given = value.and_then(|v| v.get("text")?.as_str());
        let region = whole::Region { at: &at, field: "data.output", text_key: "value.text", start, end, given };
        whole::check_region(problems, &out, &region);
        let mut span = Span::new(output, start, end, label);
        if let Some(id) = r.get("id") {
            span.raw.insert("id".to_owned(), id.clone());
        }
        spans.push(span);
    }
    spans
}

/// The task `raw` with the annotation of [`REVIEWER`] holding `gold` as its result (added, or
/// replacing the one that stands, [`review_annotation`]; none is added for no spans); every
/// other annotation (a cancelled one of spanreview's too) and prediction passes through. Label Studio
/// has no type field, so `corruption_type` is ignored. The regions name the `from_name` and
/// `to_name` of the task's first region (`label`, `output` when it has none).
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], _corruption_type: Option<&str>) -> Value {
    let mut out = raw.clone();
    let first = ["annotations", "predictions"].iter().find_map(|k| {
        raw.get(*k)?
            .as_array()?
            .iter()
            .find_map(|a| a.get("result")?.as_array()?.first().cloned())
    });
    let name = |k: &str, d: &str| {
        first
            .as_ref()
            .and_then(|r| r.get(k)?.as_str())
            .unwrap_or(d)
            .to_owned()
    };
    let (from, to) = (name("from_name", "label"), name("to_name", "output"));
    let output = raw.get("data").and_then(|d| write::output_of(d, "output"));
    let result: Vec<Value> = gold
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let text = write::span_text(output.as_ref(), s);
            json!({"id": format!("sr{i}"), "from_name": from, "to_name": to, "type": "labels",
                   "value": {"start": s.start, "end": s.end, "text": text, "labels": [s.label]}})
        })
        .collect();
    let ann = json!({"completed_by": REVIEWER, "was_cancelled": false, "result": result});
    let mine = review_annotation(raw);
    if let Some(obj) = out.as_object_mut() {
        let anns = obj
            .entry("annotations")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !anns.is_array() {
            *anns = Value::Array(Vec::new());
        }
        if let Some(list) = anns.as_array_mut() {
            match mine.and_then(|k| list.get_mut(k)) {
                Some(a) => a["result"] = Value::Array(result),
                // No spans and no annotation of ours: the task as read (its gold is empty).
                None if gold.is_empty() => {}
                None => list.push(ann),
            }
        }
    }
    out
}

/// True for a Label Studio task: a `data` object beside `annotations` or `predictions`.
fn detect(r: &Map<String, Value>) -> bool {
    r.get("data").is_some_and(Value::is_object)
        && (r.contains_key("annotations") || r.contains_key("predictions"))
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    name: "label-studio",
    detect,
    detect_keys: "data+annotations/predictions",
    // `data.rid` before the task's `id`, as the reader: from the line.
    record_id: |line| super::spec::id_of_object(line, task_id),
    has_output: true,
    default_source: super::spec::stem_source,
    parse: |v, _| parse(v),
    write,
    // The gold is nested (the reviewer's annotation), not a top-level list.
    gold_list: None,
    labels_required: true,
    labels_not_written: None,
    builtin_labels: None,
    check: |c, bytes| whole::check(c, bytes, read),
    judge_role: SourceRole::Annotator,
    // The id may come from the task's `id` when `data.rid` is absent.
    skimmable: false,
    skim_skips: &["data", "drafts"],
    lite: None,
};

/// A task of the format for the registry's tests: one readable span over non-ASCII text and one
/// unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"id": 7, "data": {"output": "25°C 東京"}, "annotations": [{"id": 1, "completed_by": "spanreview", "result": [{"type": "labels", "value": {"start": 0, "end": 4, "text": "25°C", "labels": ["contradiction"]}}, {"type": "labels", "value": {"start": "x", "end": 2}}]}], "predictions": []}"#;

#[cfg(test)]
mod tests;
