//! RAGTruth-compatible records (toolace-hallucination-spans): `hallucination_labels` over
//! `output`, the type in `meta.corruption_type`.

use serde_json::Value;

use super::spans;
use crate::model::{Record, Source, SourceRole, GOLD};

/// Parse one record line.
///
/// # Errors
/// A message quoting the missing or mistyped field.
pub fn parse(value: Value) -> Result<Record, String> {
    let obj = spans::as_object(&value)?;
    let mut warnings = Vec::new();
    let id = spans::required_str(obj, "id")?;
    let output = spans::required_str(obj, "output")?;
    let query = spans::optional_str(obj, "query")?;
    let context = spans::optional_str(obj, "context")?;
    let corruption_type = obj
        .get("meta")
        .and_then(|m| m.get("corruption_type"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let gold = spans::span_list(obj, "hallucination_labels", "", &mut warnings)?;
    Ok(Record {
        id,
        query,
        context,
        output,
        corruption_type,
        sources: vec![Source::new(GOLD, SourceRole::Gold, gold)],
        raw: value,
        warnings,
    })
}
