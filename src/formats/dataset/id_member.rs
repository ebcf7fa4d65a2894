//! A record's `id` read without building the record.

use serde_json::Value;

/// The string `id` member of a record line, read without building the record: by the skimmer
/// when it is sure, else by `serde_json`. `None` when the line is not one JSON object with a
/// string `id`. The record id of the formats whose id is that member
/// ([`FormatSpec::record_id`](crate::formats::FormatSpec::record_id)).
#[must_use]
pub fn id_member(bytes: &[u8]) -> Option<String> {
    if let Some(id) = crate::formats::validate::string_member(bytes, "id") {
        return Some(id.into_owned());
    }
    // serde_json does not check the UTF-8 of the strings it skips: a line with an invalid byte
    // in its context would pass here and fail every reader of the whole record.
    simdutf8::basic::from_utf8(bytes).ok()?;
    // Read as the record reader reads it (a repeated key: the last value, as Python's too).
    match serde_json::from_slice::<Value>(bytes)
        .ok()?
        .get_mut("id")?
        .take()
    {
        Value::String(id) => Some(id),
        _ => None,
    }
}
