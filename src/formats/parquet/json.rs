//! Arrow values as JSON, the way `datasets` reads them back: a struct is an object (its fields
//! in schema order), a list is an array, a null is `null` (a field `datasets` filled with null
//! stays, as null), and a column of the `arrow.json` extension type (what `datasets` 5 writes
//! for a field whose shape varies between rows) is the JSON value its text holds.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field};
use serde_json::{Map, Value};

/// The field metadata key that names an Arrow extension type.
pub const EXTENSION_NAME: &str = "ARROW:extension:name";
/// The canonical extension type of a column of JSON text.
pub const JSON_EXTENSION: &str = "arrow.json";

/// True when `field` holds JSON text to be read as the value it holds.
#[must_use]
pub fn is_json(field: &Field) -> bool {
    field.metadata().get(EXTENSION_NAME).map(String::as_str) == Some(JSON_EXTENSION)
}

/// Each row of `batch` as the bytes of one JSON object, appended to `out`; the error names the
/// column (its path, `meta.tools`) and the row of the batch.
///
/// # Errors
/// A value that has no JSON form here (binary, dates), or an `arrow.json` value that is not JSON.
pub fn rows(batch: &RecordBatch, out: &mut Vec<Vec<u8>>) -> Result<(), String> {
    let schema = batch.schema();
    for row in 0..batch.num_rows() {
        let mut obj = Map::with_capacity(schema.fields().len());
        for (field, col) in schema.fields().iter().zip(batch.columns()) {
            let v = value(field, field.name(), col.as_ref(), row)
                .map_err(|e| format!("row {} of the batch: {e}", row + 1))?;
            obj.insert(field.name().clone(), v);
        }
        out.push(serde_json::to_vec(&Value::Object(obj)).map_err(|e| e.to_string())?);
    }
    Ok(())
}

/// Value `i` of `a`, the column of `field` at `path`.
fn value(field: &Field, path: &str, a: &dyn Array, i: usize) -> Result<Value, String> {
    if a.is_null(i) {
        return Ok(Value::Null);
    }
    if is_json(field) {
        let text = string(a, i).ok_or_else(|| {
            format!(
                "column {path} is of the arrow.json type but holds {}, not text",
                a.data_type()
            )
        })?;
        return serde_json::from_str(text).map_err(|e| {
            format!(
                "column {path} (arrow.json) holds {} ({e})",
                crate::formats::quote_str(text)
            )
        });
    }
    Ok(match a.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(a.as_boolean().value(i)),
        DataType::Int8 => a.as_primitive::<Int8Type>().value(i).into(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt8 => a.as_primitive::<UInt8Type>().value(i).into(),
        DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
        DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Float32 => {
            let v = a.as_primitive::<arrow_array::types::Float32Type>().value(i);
            // Its shortest decimal form (0.1, not 0.10000000149011612), as Python prints it.
            number(v.to_string().parse::<f64>().unwrap_or(f64::NAN))
        }
        DataType::Float64 => number(a.as_primitive::<arrow_array::types::Float64Type>().value(i)),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            Value::String(string(a, i).unwrap_or_default().to_owned())
        }
        DataType::List(f) => list(f, path, &a.as_list::<i32>().value(i))?,
        DataType::LargeList(f) => list(f, path, &a.as_list::<i64>().value(i))?,
        DataType::FixedSizeList(f, _) => list(f, path, &a.as_fixed_size_list().value(i))?,
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let mut obj = Map::with_capacity(fields.len());
            for (f, col) in fields.iter().zip(s.columns()) {
                let sub = format!("{path}.{}", f.name());
                obj.insert(f.name().clone(), value(f, &sub, col.as_ref(), i)?);
            }
            Value::Object(obj)
        }
        DataType::Map(entries, _) => {
            let m = a.as_map();
            let kv = m.value(i);
            let fields = match entries.data_type() {
                DataType::Struct(f) if f.len() == 2 => f.clone(),
                t => return Err(format!("column {path} is a map of {t}")),
            };
            let mut obj = Map::with_capacity(kv.len());
            for j in 0..kv.len() {
                let key = match value(&fields[0], path, kv.column(0).as_ref(), j)? {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                let v = value(&fields[1], path, kv.column(1).as_ref(), j)?;
                obj.insert(key, v);
            }
            Value::Object(obj)
        }
        DataType::Dictionary(_, values) => {
            let d = a.as_any_dictionary();
            let k = d.normalized_keys()[i];
            let f = Field::new(path, (**values).clone(), true);
            value(&f, path, d.values().as_ref(), k)?
        }
        t => {
            return Err(format!(
                "column {path} is of type {t}, which has no JSON form here (the readable \
                 types: text, numbers, booleans, lists, structs, maps, arrow.json)"
            ))
        }
    })
}

/// The elements of one list value `items`, whose element field is `f`.
fn list(f: &Field, path: &str, items: &arrow_array::ArrayRef) -> Result<Value, String> {
    let sub = format!("{path}[]");
    (0..items.len())
        .map(|j| value(f, &sub, items.as_ref(), j))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// Text value `i` of a string column (`None` for other types).
fn string(a: &dyn Array, i: usize) -> Option<&str> {
    match a.data_type() {
        DataType::Utf8 => Some(a.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => Some(a.as_string::<i64>().value(i)),
        DataType::Utf8View => Some(a.as_string_view().value(i)),
        _ => None,
    }
}

/// A float as JSON (NaN and the infinities have no JSON form: null, as pandas writes them).
fn number(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}
