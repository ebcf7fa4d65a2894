//! Label Studio JSON_MIN exports: one flat row per annotation, the task's `data` fields at the
//! top level beside the annotation's regions under their control's name (`label`: a list of
//! `{start, end, text, labels}`) and `annotator`, `annotation_id`, `created_at`, `updated_at`,
//! `lead_time` (label-studio-converter's `convert_to_json_min`).
//!
//! The row's regions are its gold (JSON_MIN keeps one annotation a row, so a row is an answer
//! to take or review, not a set of opinions); as a `--judge` file the rows are that judge's
//! opinion. The converter overwrites a `data.id` with Label Studio's task id, so the record's
//! id is `rid`, else `record_id`, else that `id`. `output` is the answer, `query` and `context`
//! the request and evidence. Offsets are code points (Label Studio 1.23 keeps them so); a region
//! whose `text` is not `output[start:end]` is kept as given (never shifted) and reported.

use serde_json::{Map, Value};

use super::spec::{stem_source, FormatSpec};
use super::validate::Kind;
use super::whole::{self, Problem};
use super::{quote, spans, write};
use crate::model::{Record, SourceRole, Span};

/// The control name regions are written under when a row has none (the name in the labeling
/// config `convert --to label-studio` prints).
pub const CONTROL: &str = "label";

/// A row's record id: `rid`, else `record_id`, else the task id the converter wrote over `id`.
fn row_id(obj: &Map<String, Value>) -> Result<String, String> {
    ["rid", "record_id", "id"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(spans::id_text))
        .ok_or_else(|| "missing field \"rid\", \"record_id\" or \"id\"".to_owned())
}

/// Parse one row.
pub(crate) fn parse(value: Value) -> Result<Record, String> {
    whole::parse(value, read)
}

/// True for a list of regions: objects with `labels`.
fn is_regions(v: &Value) -> bool {
    v.as_array()
        .and_then(|a| a.first())
        .is_some_and(|r| r.get("labels").is_some_and(Value::is_array))
}

/// The key of the row's regions: the first list of regions, else [`CONTROL`].
fn control(obj: &Map<String, Value>) -> &str {
    obj.iter()
        .find(|(_, v)| is_regions(v))
        .map_or(CONTROL, |(k, _)| k.as_str())
}

/// The row as a record; what does not read is told in `problems` (the record keeps the rest).
pub(crate) fn read(value: Value, problems: &mut Vec<Problem>) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let output = spans::required_str(obj, "output")?;
    let query = spans::optional_str(obj, "query")?;
    let context = spans::optional_str(obj, "context")?;
    let id = row_id(obj)?;
    let key = control(obj).to_owned();
    for (k, _) in obj.iter().filter(|(k, v)| **k != key && is_regions(v)) {
        problems.push((
            Kind::BadValue,
            format!("row {id}: {k}: a second list of regions is not read (only {key})"),
        ));
    }
    let out = write::Output::new(&output);
    let mut gold = Vec::new();
    let items = match obj.get(&key) {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(v) => return Err(format!("field \"{key}\" is not a list: {}", quote(v))),
    };
    for (j, r) in items.iter().enumerate() {
        let at = format!("row {id}: {key}[{j}]");
        let n = |k: &str| r.get(k).and_then(spans::as_offset);
        let (Some(start), Some(end)) = (n("start"), n("end")) else {
            let msg = format!(
                "{at}: no non-negative start and end: {}; the span was skipped",
                quote(r)
            );
            problems.push((Kind::NonIntegerOffset, msg));
            continue;
        };
        let given = r.get("text").and_then(Value::as_str);
        let region = whole::Region { at: &at, field: "output", text_key: "text", start, end, given };
        whole::check_region(problems, &out, &region);
        let label = whole::region_label(problems, &at, "labels", r.get("labels"));
        let mut span = Span::new(&output, start, end, label);
        if let Some(m) = r.as_object() {
            span.raw = m.clone();
        }
        gold.push(span);
    }
    drop(out);
    let corruption_type = spans::type_at(&value, "corruption_type");
    Ok(Record {
        query,
        context,
        corruption_type,
        ..Record::new(id, output, gold, Vec::new(), value)
    })
}

/// The row `raw` with its regions replaced by `gold` (a region that was read keeps its object,
/// `start`, `end`, `text` and `labels` patched); every other field passes through, key order
/// included. The row has no type field of its own, so `corruption_type` is ignored.
#[must_use]
pub(crate) fn write(raw: &Value, gold: &[Span], _corruption_type: Option<&str>) -> Value {
    let mut out = raw.clone();
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    let key = control(obj).to_owned();
    let text = obj.get("output").and_then(Value::as_str).unwrap_or_default();
    let output = write::Output::new(text);
    let regions: Vec<Value> = gold
        .iter()
        .map(|s| {
            let mut r = Map::new();
            r.insert("start".to_owned(), Value::from(s.start));
            r.insert("end".to_owned(), Value::from(s.end));
            let t = write::span_text(Some(&output), s);
            r.insert("text".to_owned(), Value::from(t));
            r.insert("labels".to_owned(), Value::from(vec![s.label.clone()]));
            // Keys a region was read with keep their place among the four.
            if s.raw.is_empty() {
                return Value::Object(r);
            }
            let mut kept = s.raw.clone();
            for (k, v) in r {
                kept.insert(k, v);
            }
            Value::Object(kept)
        })
        .collect();
    if !regions.is_empty() || obj.contains_key(&key) {
        write::set(obj, &key, Value::Array(regions));
    }
    out
}

/// True for a JSON_MIN row: the converter's `annotator` and `annotation_id` beside the task's
/// data, no `data` object.
fn detect(r: &Map<String, Value>) -> bool {
    r.contains_key("annotator") && r.contains_key("annotation_id") && !r.contains_key("data")
}

/// The format's entry in the registry (`formats::Format`).
pub const SPEC: FormatSpec = FormatSpec {
    record_id: |line| super::spec::id_of_object(line, row_id),
    name: "label-studio-min",
    detect,
    detect_keys: "annotator+annotation_id",
    has_output: true,
    default_source: stem_source,
    parse: |v, _| parse(v),
    write,
    // The regions' key is the labeling config's control name, not a fixed one.
    gold_list: None,
    labels_required: true,
    labels_not_written: None,
    builtin_labels: None,
    check: |c, bytes| whole::check(c, bytes, read),
    judge_role: SourceRole::Annotator,
    // The id may be Label Studio's task id, and rows of one task repeat it.
    skimmable: false,
    skim_skips: &["context", "query"],
    lite: None,
};

/// A row of the format for the registry's tests: one readable region over non-ASCII text and
/// one unreadable (a string offset).
#[cfg(test)]
pub(crate) const SAMPLE: &str = r#"{"rid": "m1", "output": "25°C 東京", "id": 7, "label": [{"start": 0, "end": 4, "text": "25°C", "labels": ["contradiction"]}, {"start": "x", "end": 2, "labels": ["contradiction"]}], "annotator": 1, "annotation_id": 3, "created_at": "2026-12-01T13:02:35Z", "updated_at": "2026-12-01T13:02:35Z", "lead_time": 4.5}"#;

#[cfg(test)]
mod tests;
