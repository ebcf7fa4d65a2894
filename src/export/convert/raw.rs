//! Record members passed through as the input line has them, instead of decoded and encoded
//! again: a record's request and evidence are most of its line, and nothing in a conversion
//! reads them, it only copies them.
//!
//! A member is passed through only when `serde_json` would write its value as exactly the
//! same bytes ([`canonical`]), so the output does not change: a line written through
//! [`Passed::line`] is byte for byte the line written from the decoded record. The characters
//! convert escapes on output, to a file and to standard output alike (C1, bidirectional
//! controls, the separators, soft hyphen, BOM: [`crate::model::escape::json_bytes`]), are
//! escaped on the whole line afterwards, as on the slow path; a member that has them escaped
//! already (`\u202e`) is not canonical, so it is decoded and written as the slow path writes it.

use serde_json::{Map, Value};

use crate::formats::validate::skim::{self, Top};
use crate::formats::{DataFile, Dataset, Format, FormatError};
use crate::model::Record;

/// What a passed-through member holds in the decoded record until it is written: NUL-led, so
/// no member of a line can hold it (a line with `\u0000` anywhere is never passed through).
pub(super) const MARK: &str = "\u{0}spanreview: the input line's own text\u{0}";

/// [`MARK`] as JSON writes it: found in a finished line, it was moved away from its member.
const MARK_JSON: &[u8] = b"\\u0000spanreview: the input line's own text\\u0000";

/// True when `raw`, a JSON string as a line has it (quotes included, valid JSON), is the text
/// `serde_json` writes for its value: every escape one of `\"`, `\\`, `\n`, `\r`, `\t`, `\b`,
/// `\f`, or `\u00xx` (lowercase hex) for another control character; everything else literal.
#[must_use]
pub(super) fn canonical(raw: &str) -> bool {
    let b = raw.as_bytes();
    // A valid string's escapes are `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` and `\uXXXX`:
    // only the last two kinds can differ from serde_json's. Looking for those two (rare in
    // text) skips the many `\"` of JSON held in a string at memchr's speed.
    let escape = |k: usize| b[..k].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 0;
    if memchr::memmem::find_iter(b, b"\\/").any(escape) {
        return false;
    }
    memchr::memmem::find_iter(b, b"\\u")
        .filter(|&k| escape(k))
        .all(|k| canonical_u(b.get(k + 2..k + 6)))
}

/// True for the four hex digits of a `\u` escape as serde_json writes one: `00xx` in
/// lowercase, for a control character without a short form.
fn canonical_u(hex: Option<&[u8]>) -> bool {
    let Some(&[b'0', b'0', hi @ (b'0' | b'1'), lo]) = hex else {
        return false;
    };
    let lo = match lo {
        b'0'..=b'9' => lo - b'0',
        b'a'..=b'f' => lo - b'a' + 10,
        _ => return false,
    };
    // These have short forms, which serde_json writes instead.
    !matches!((hi - b'0') * 16 + lo, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D)
}

/// The members of a record line passed through: each key and its value's JSON text in the
/// line, while the decoded record holds [`MARK`] there.
#[derive(Debug)]
pub(super) struct Passed<'a> {
    raw: Vec<(&'a str, &'a str)>,
}

impl<'a> Passed<'a> {
    /// `line` as a JSON value with the members `pass(key)` names passed through, when each is
    /// a non-empty string written as `serde_json` writes it (an empty one stays: readers test
    /// for it); `None` when the line needs the full reader: not UTF-8, not one JSON object, a
    /// key written with an escape or repeated, a `\u0000` anywhere.
    pub(super) fn read(line: &'a [u8], pass: impl Fn(&str) -> bool) -> Option<(Value, Self)> {
        let text = simdutf8::basic::from_utf8(line).ok()?;
        if memchr::memmem::find(line, b"\\u0000").is_some() {
            return None;
        }
        let Ok(Top::Object(members, _)) = skim::top(text, "") else {
            return None;
        };
        let mut obj = Map::with_capacity(members.len());
        let mut raw = Vec::new();
        for (k, v) in members {
            if k.contains('\\') || obj.contains_key(k) {
                return None;
            }
            let value = if pass(k) && v.len() > 2 && v.starts_with('"') && canonical(v) {
                raw.push((k, v));
                Value::String(MARK.to_owned())
            } else {
                serde_json::from_str(v).ok()?
            };
            obj.insert(k.to_owned(), value);
        }
        Some((Value::Object(obj), Self { raw }))
    }

    /// `out`, a record made from this one, as its JSON line (unescaped): a top-level member
    /// holding [`MARK`] whose key was passed through written as the line had it. `None` when
    /// a mark went anywhere else (the caller then writes the record the slow way).
    pub(super) fn line(&self, out: &Value, buf: &mut Vec<u8>) -> Option<()> {
        buf.clear();
        let Value::Object(obj) = out else {
            return None;
        };
        buf.push(b'{');
        for (n, (k, v)) in obj.iter().enumerate() {
            if n > 0 {
                buf.push(b',');
            }
            serde_json::to_writer(&mut *buf, k).ok()?;
            buf.push(b':');
            match self.raw.iter().find(|(key, _)| key == k) {
                Some((_, text)) if v.as_str() == Some(MARK) => {
                    buf.extend_from_slice(text.as_bytes())
                }
                _ => serde_json::to_writer(&mut *buf, v).ok()?,
            }
        }
        buf.push(b'}');
        memchr::memmem::find(buf, MARK_JSON).is_none().then_some(())
    }
}

/// Which members of a record line to pass through, by key.
pub(super) type Pass = fn(&str) -> bool;

/// The members of a record of `format` that its reader only copies (nothing reads them):
/// passed through by [`Passed::read`]. `None` for a format whose readers are not known to.
/// `whole` is the record written back onto (`--records`), whose writer touches only its spans
/// and answer; otherwise the record is read to make another record of.
pub(super) fn passable(format: Format, whole: bool) -> Option<Pass> {
    match (format, whole) {
        (Format::Ragtruth, true) => {
            Some(|k| !matches!(k, "id" | "output" | "meta" | "hallucination_labels"))
        }
        (Format::Ragtruth | Format::Prodigy, _) => Some(|k| matches!(k, "query" | "context")),
        _ => None,
    }
}

/// Record `i` of `ds`; with `lean` (the members to pass through and the record's line, of
/// the dataset's only file) read with those passed through, and what was. A line that does
/// not read so is read the full way, for the full reader's own words.
pub(super) fn record<'b>(
    ds: &Dataset,
    i: usize,
    lean: Option<(Pass, &'b [u8])>,
) -> (Result<Record, FormatError>, Option<Passed<'b>>) {
    let Some((pass, bytes)) = lean else {
        return (ds.record(i), None);
    };
    let file = ds.primary();
    if let Some((value, passed)) = Passed::read(bytes, pass) {
        if let Ok(rec) = file.format.parse(value, &file.source) {
            return (Ok(rec), Some(passed));
        }
    }
    (file.record_in(i, bytes), None)
}

/// Record `j` of `file` as its JSON text, unchanged: the members [`passable`] names for its
/// format passed through.
///
/// # Errors
/// The record cannot be read, or is not JSON.
pub(super) fn original(file: &DataFile, j: usize) -> anyhow::Result<Vec<u8>> {
    let bytes = file.bytes(j)?;
    let lean = passable(file.format, true).and_then(|pass| Passed::read(&bytes, pass));
    if let Some((value, passed)) = lean {
        let mut line = Vec::new();
        if passed.line(&value, &mut line).is_some() {
            return Ok(line);
        }
    }
    Ok(serde_json::to_vec(&file.value(j)?)?)
}

#[cfg(test)]
mod tests;
