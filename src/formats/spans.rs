//! Reading span objects shared by the formats: `{start, end, text, label, ...}`.

use serde_json::Value;

use super::quote;
use crate::model::Span;

/// Read an offset: a non-negative JSON integer.
///
/// # Errors
/// A message quoting the value when it is missing, negative, fractional or not a number.
pub fn offset(obj: &serde_json::Map<String, Value>, key: &str) -> Result<usize, String> {
    match obj.get(key) {
        None => Err(format!("span has no \"{key}\"")),
        Some(v) => as_offset(v)
            .ok_or_else(|| format!("span \"{key}\" is not a non-negative integer: {}", quote(v))),
    }
}

/// The value as an offset, when it is one: a non-negative JSON integer (not `2.0`, not `"2"`).
#[must_use]
pub fn as_offset(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// Read one span object. `label` fills in when the object has no `label` key.
///
/// # Errors
/// A message quoting the value when it is not an object or its offsets are unusable.
pub fn span_object(value: &Value, default_label: &str) -> Result<Span, String> {
    let obj = value
        .as_object()
        .ok_or_else(|| format!("span is not an object: {}", quote(value)))?;
    let start = offset(obj, "start")?;
    let end = offset(obj, "end")?;
    let str_of = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_owned);
    Ok(Span {
        start,
        end,
        text: str_of("text").unwrap_or_default(),
        label: str_of("label").unwrap_or_else(|| default_label.to_owned()),
        category: str_of("category"),
        subcategory: str_of("subcategory"),
        confidence: obj.get("confidence").and_then(Value::as_f64),
        raw: obj.clone(),
    })
}

/// Read a list of span objects under `key`; spans that cannot be read are skipped and reported
/// in `warnings`.
///
/// # Errors
/// When `key` is present but not a list.
pub fn span_list(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    default_label: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<Span>, String> {
    let Some(v) = obj.get(key) else {
        return Ok(Vec::new());
    };
    let Some(items) = v.as_array() else {
        return Err(format!("\"{key}\" is not a list: {}", quote(v)));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match span_object(item, default_label) {
            Ok(s) => out.push(s),
            Err(e) => warnings.push(format!("{key}[{i}]: {e}; the span was skipped")),
        }
    }
    Ok(out)
}

/// A required string field.
///
/// # Errors
/// A message naming the field when it is missing or not a string.
pub fn required_str(obj: &serde_json::Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        None => Err(format!("missing field \"{key}\"")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(format!("field \"{key}\" is not a string: {}", quote(v))),
    }
}

/// An optional string field (absent or null gives the empty string).
///
/// # Errors
/// When present and not a string.
pub fn optional_str(obj: &serde_json::Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(format!("field \"{key}\" is not a string: {}", quote(v))),
    }
}

/// A record's type (`corruption_type`) at `value[key]`: a string, else none (a value of
/// another kind is `validate`'s to report; the record reads as untyped).
#[must_use]
pub fn type_at(value: &Value, key: &str) -> Option<String> {
    value.get(key)?.as_str().map(str::to_owned)
}

/// An id as text: a string as it is, a number in its JSON notation (`7`); `None` for anything
/// else. Every reader of ids (a record's, a task's, an annotator's) takes them this way.
#[must_use]
pub fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The object of a record line.
///
/// # Errors
/// When the value is not an object.
pub fn as_object(value: &Value) -> Result<&serde_json::Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("record is not a JSON object: {}", quote(value)))
}
