//! Values of `arrow.json` columns back into the JSON text the column holds (the reader made
//! them values: [`crate::formats::parquet::json`]).

use arrow_schema::{DataType, Field, Fields};
use serde_json::Value;

use crate::formats::parquet::json::is_json;

/// True when a field of `fields`, at any depth, is an `arrow.json` column.
pub fn has_json(fields: &Fields) -> bool {
    fields
        .iter()
        .any(|f| is_json(f) || inner(f.data_type()).is_some_and(has_json))
}

/// The fields a value of type `t` holds at one level down (a struct's, a list's struct's).
fn inner(t: &DataType) -> Option<&Fields> {
    match t {
        DataType::Struct(fs) => Some(fs),
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            inner(f.data_type())
        }
        _ => None,
    }
}

/// In the record object `v` of schema `fields`, every non-null value of an `arrow.json`
/// column replaced by its JSON text.
pub fn json_to_text(fields: &Fields, v: &mut Value) {
    let Value::Object(obj) = v else {
        return;
    };
    for f in fields {
        if let Some(x) = obj.get_mut(f.name()) {
            field(f, x);
        }
    }
}

fn field(f: &Field, v: &mut Value) {
    if v.is_null() {
        return;
    }
    if is_json(f) {
        *v = Value::String(v.to_string());
        return;
    }
    match f.data_type() {
        DataType::Struct(fs) => json_to_text(fs, v),
        DataType::List(e) | DataType::LargeList(e) | DataType::FixedSizeList(e, _) => {
            if let Value::Array(items) = v {
                for x in items {
                    field(e, x);
                }
            }
        }
        _ => {}
    }
}
