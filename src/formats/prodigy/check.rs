//! `validate`'s checks of a task: parsed whole and read as the reader reads it, so `validate`
//! reports exactly what the reader warns about.

use serde_json::Value;

use crate::formats::validate::check::{utf8, Checker, Facts};
use crate::formats::validate::Kind;

/// Check one line (the format's [`crate::formats::FormatSpec::check`]).
pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8]) -> Option<Facts> {
    let text = utf8(&mut c.sink, bytes)?;
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            c.sink.push(Kind::InvalidJson, format!("invalid JSON: {e}"));
            return None;
        }
    };
    let mut problems = Vec::new();
    match super::read(value, &mut problems) {
        Ok(rec) => {
            for (kind, msg) in problems {
                c.sink.push(kind, msg);
            }
            Some(c.facts(Some(&rec.id), None))
        }
        Err(e) => {
            let kind = if e.starts_with("missing") || e.contains(": missing") {
                Kind::MissingField
            } else {
                Kind::WrongType
            };
            c.sink.push(kind, e);
            None
        }
    }
}
