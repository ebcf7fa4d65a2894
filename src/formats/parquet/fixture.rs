//! Parquet files written from JSON records with a given Arrow schema, as `datasets`' `to_parquet`
//! writes them (snappy, the `huggingface` schema metadata, `arrow.json` columns as JSON text):
//! the fixtures of the tests and the benchmarks' large files. Not an export (that keeps the
//! input's own schema); nothing of the program writes parquet.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, NullArray, RecordBatch,
    StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::Value;

use super::json::{is_json, EXTENSION_NAME, JSON_EXTENSION};

/// A text field of the `arrow.json` extension type.
#[must_use]
pub fn json_field(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true).with_metadata(
        [(EXTENSION_NAME.to_owned(), JSON_EXTENSION.to_owned())]
            .into_iter()
            .collect(),
    )
}

fn text(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true)
}

/// The schema `datasets` (5) gives the bundled toolace sample (`load_dataset("json")`): its
/// struct columns, its labels a list of structs, `meta.tools` and `meta.tool_call` of the
/// `arrow.json` type (their shape varies), `meta.reconstruction` the union of its variants'
/// fields (null where a record has none), and the features in the `huggingface` metadata.
#[must_use]
pub fn toolace_schema() -> SchemaRef {
    let label = Fields::from(vec![
        Field::new("end", DataType::Int64, true),
        text("label"),
        Field::new("start", DataType::Int64, true),
        text("text"),
    ]);
    let reconstruction = Fields::from(vec![
        text("method"),
        text("query"),
        text("context"),
        text("tools"),
        text("tool_call"),
        text("validated_accuracy"),
        Field::new("final_answer_verified", DataType::Boolean, true),
        text("exact"),
    ]);
    let meta = Fields::from(vec![
        text("source"),
        text("base_id"),
        text("corruption_type"),
        json_field("tools"),
        json_field("tool_call"),
        Field::new("reconstruction", DataType::Struct(reconstruction), true),
    ]);
    let item = Field::new("item", DataType::Struct(label), true);
    let fields = vec![
        text("id"),
        text("query"),
        text("context"),
        text("output"),
        Field::new("hallucination_labels", DataType::List(Arc::new(item)), true),
        Field::new("meta", DataType::Struct(meta), true),
    ];
    let features = r#"{"info": {"features": {"id": {"dtype": "string", "_type": "Value"}, "query": {"dtype": "string", "_type": "Value"}, "context": {"dtype": "string", "_type": "Value"}, "output": {"dtype": "string", "_type": "Value"}, "hallucination_labels": {"feature": {"end": {"dtype": "int64", "_type": "Value"}, "label": {"dtype": "string", "_type": "Value"}, "start": {"dtype": "int64", "_type": "Value"}, "text": {"dtype": "string", "_type": "Value"}}, "_type": "List"}, "meta": {"source": {"dtype": "string", "_type": "Value"}, "base_id": {"dtype": "string", "_type": "Value"}, "corruption_type": {"dtype": "string", "_type": "Value"}, "tools": {"_type": "Json"}, "tool_call": {"_type": "Json"}, "reconstruction": {"method": {"dtype": "string", "_type": "Value"}, "query": {"dtype": "string", "_type": "Value"}, "context": {"dtype": "string", "_type": "Value"}, "tools": {"dtype": "string", "_type": "Value"}, "tool_call": {"dtype": "string", "_type": "Value"}, "validated_accuracy": {"dtype": "string", "_type": "Value"}, "final_answer_verified": {"dtype": "bool", "_type": "Value"}, "exact": {"dtype": "string", "_type": "Value"}}}}}}"#;
    Arc::new(Schema::new_with_metadata(
        fields,
        [("huggingface".to_owned(), features.to_owned())]
            .into_iter()
            .collect(),
    ))
}

/// Write `records` to `path` with `schema`, `rows_per_group` rows a row group, snappy.
///
/// # Errors
/// A record that does not fit the schema, or writing fails.
pub fn write(
    path: &Path,
    schema: &SchemaRef,
    records: &[Value],
    rows_per_group: usize,
) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_size(rows_per_group.max(1))
        .build();
    let mut w =
        ArrowWriter::try_new(file, Arc::clone(schema), Some(props)).map_err(|e| e.to_string())?;
    for chunk in records.chunks(rows_per_group.max(1)) {
        w.write(&batch(schema, chunk)?).map_err(|e| e.to_string())?;
        w.flush().map_err(|e| e.to_string())?;
    }
    w.close().map_err(|e| e.to_string())?;
    Ok(())
}

/// `records` as one batch of `schema`.
///
/// # Errors
/// A record that does not fit the schema.
pub fn batch(schema: &SchemaRef, records: &[Value]) -> Result<RecordBatch, String> {
    let rows: Vec<&Value> = records.iter().collect();
    let columns = schema
        .fields()
        .iter()
        .map(|f| array(f, &member(&rows, f.name())))
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(Arc::clone(schema), columns).map_err(|e| e.to_string())
}

static NULL: Value = Value::Null;

fn member<'a>(rows: &[&'a Value], name: &str) -> Vec<&'a Value> {
    rows.iter().map(|v| v.get(name).unwrap_or(&NULL)).collect()
}

fn nulls(vals: &[&Value]) -> Option<NullBuffer> {
    let valid: Vec<bool> = vals.iter().map(|v| !v.is_null()).collect();
    valid.contains(&false).then(|| NullBuffer::from(valid))
}

/// The column of `field` holding `vals`.
fn array(field: &Field, vals: &[&Value]) -> Result<ArrayRef, String> {
    if is_json(field) {
        let t: Vec<Option<String>> = vals
            .iter()
            .map(|v| (!v.is_null()).then(|| v.to_string()))
            .collect();
        return Ok(Arc::new(StringArray::from(t)));
    }
    Ok(match field.data_type() {
        DataType::Null => Arc::new(NullArray::new(vals.len())),
        DataType::Utf8 => Arc::new(StringArray::from(
            vals.iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                })
                .collect::<Vec<_>>(),
        )),
        DataType::Int64 => Arc::new(Int64Array::from(
            vals.iter().map(|v| v.as_i64()).collect::<Vec<_>>(),
        )),
        DataType::Float64 => Arc::new(Float64Array::from(
            vals.iter().map(|v| v.as_f64()).collect::<Vec<_>>(),
        )),
        DataType::Boolean => Arc::new(BooleanArray::from(
            vals.iter().map(|v| v.as_bool()).collect::<Vec<_>>(),
        )),
        DataType::Struct(fields) => {
            let children = fields
                .iter()
                .map(|f| array(f, &member(vals, f.name())))
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(
                StructArray::try_new(fields.clone(), children, nulls(vals))
                    .map_err(|e| e.to_string())?,
            )
        }
        DataType::List(f) => {
            let mut items = Vec::new();
            let mut lens = Vec::with_capacity(vals.len());
            for v in vals {
                let list = v.as_array().map_or(&[][..], Vec::as_slice);
                lens.push(list.len());
                items.extend(list.iter());
            }
            let child = array(f, &items)?;
            Arc::new(
                ListArray::try_new(
                    Arc::clone(f),
                    OffsetBuffer::from_lengths(lens),
                    child,
                    nulls(vals),
                )
                .map_err(|e| e.to_string())?,
            )
        }
        t => return Err(format!("{}: type {t} is not written here", field.name())),
    })
}
