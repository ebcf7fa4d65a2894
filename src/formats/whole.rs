//! The formats read whole, one reader telling each problem's kind (Label Studio, its JSON_MIN
//! rows, Prodigy): `parse` keeps the problems as the record's warnings, `validate` reports them
//! by kind, so `validate` says exactly what the reader warns about. A task is parsed whole
//! (exports are small, and regions may sit deep, as in `annotations[].result[]`).

use serde_json::Value;

use super::validate::check::{utf8, Checker, Facts};
use super::validate::Kind;
use super::{quote, write};
use crate::model::Record;

/// A problem met reading a record, for `validate` (its kind) and the record's warnings.
pub(crate) type Problem = (Kind, String);

/// A format's reader: the record, with what does not read told in the problems (the record
/// keeps the rest), or why there is no record.
pub(crate) type Read = fn(Value, &mut Vec<Problem>) -> Result<Record, String>;

/// Parse one record with `read`, its problems as warnings.
pub(crate) fn parse(value: Value, read: Read) -> Result<Record, String> {
    let mut problems = Vec::new();
    let rec = read(value, &mut problems)?;
    Ok(Record {
        warnings: problems.into_iter().map(|(_, m)| m).collect(),
        ..rec
    })
}

/// Check one record with `read` (a format's [`crate::formats::FormatSpec::check`]).
pub(crate) fn check(c: &mut Checker<'_>, bytes: &[u8], read: Read) -> Option<Facts> {
    let text = utf8(&mut c.sink, bytes)?;
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            c.sink.invalid_json(&e);
            return None;
        }
    };
    let mut problems = Vec::new();
    match read(value, &mut problems) {
        Ok(rec) => {
            for (kind, msg) in problems {
                c.sink.push(kind, msg);
            }
            Some(c.facts(Some(&rec.id), None))
        }
        Err(e) => {
            let kind =
                if e.starts_with("missing") || e.contains(": missing") || e.starts_with("no id") {
                    Kind::MissingField
                } else {
                    Kind::WrongType
                };
            c.sink.push(kind, e);
            None
        }
    }
}

/// Where a region stands and what it says: `at` names it in messages, `field` the answer's
/// field and `text_key` the region's text (as the format spells them).
pub(crate) struct Region<'a> {
    pub at: &'a str,
    pub field: &'a str,
    pub text_key: &'a str,
    pub start: usize,
    pub end: usize,
    /// The region's own `text`, when it has one.
    pub given: Option<&'a str>,
}

/// Report a reversed region, one past the end of the answer, or one whose text is not the answer's slice; the
/// region is kept as given either way (offsets are never shifted).
pub(crate) fn check_region(problems: &mut Vec<Problem>, out: &write::Output<'_>, r: &Region<'_>) {
    let Region {
        at,
        field,
        text_key,
        start,
        end,
        given,
    } = *r;
    match (out.slice(start, end), given) {
        _ if start > end => problems.push((
            Kind::ReversedSpan,
            format!("{at}: [{start}, {end}) is reversed (start after end); kept as given"),
        )),
        (None, _) => problems.push((
            Kind::OutOfRange,
            format!(
                "{at}: [{start}, {end}) is past the end of {field} ({} code points); kept as given",
                out.text().chars().count()
            ),
        )),
        (Some(s), Some(t)) if s != t => problems.push((
            Kind::TextMismatch,
            format!(
                "{at}: {text_key} {} is not {field}[{start}:{end}] {} (code points); kept as given, not shifted",
                quote(&Value::from(t)),
                quote(&Value::from(s))
            ),
        )),
        _ => {}
    }
}

/// The label of a region from its list of labels `labels` (`key` names it in messages, as the
/// format spells it): its one string. No list, an empty one, or a first label that is not a
/// non-empty string is reported (the span reads without a label), and so are labels past the
/// first (a span carries one: only the first is kept).
pub(crate) fn region_label(
    problems: &mut Vec<Problem>,
    at: &str,
    key: &str,
    labels: Option<&Value>,
) -> String {
    let list = labels.and_then(Value::as_array);
    let first = list.and_then(|l| l.first());
    let label = first.and_then(Value::as_str).filter(|l| !l.is_empty());
    let shown = labels.map_or_else(|| "none".to_owned(), quote);
    match (label, list) {
        (None, Some(l)) if !l.is_empty() => problems.push((
            Kind::MissingLabel,
            format!(
                "{at}: {key}[0] is not a label: {}; the span was read without a label",
                first.map_or_else(|| "none".to_owned(), quote)
            ),
        )),
        (None, _) => problems.push((
            Kind::MissingLabel,
            format!("{at}: {key} holds no label: {shown}; the span was read without a label"),
        )),
        (Some(l), Some(list)) if list.len() > 1 => problems.push((
            Kind::ManyLabels,
            format!(
                "{at}: {key} holds {} labels {shown}; a span carries one: only {} was kept",
                list.len(),
                quote(&Value::from(l))
            ),
        )),
        _ => {}
    }
    label.unwrap_or_default().to_owned()
}
