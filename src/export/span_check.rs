//! Export's check of what it writes: the line built for a reviewed record is checked as
//! `validate` checks it ([`span_problems`]: the same code, the default label set and the
//! format's own), and a span a decision set that it would reject (a label that is a record's
//! type, missing, empty or not in the label set; offsets that do not slice the output) refuses
//! the export, naming the record and the decision that set the span. A span kept as read from
//! the input with such a label is warned about (the input fails `validate` already, and a
//! record without decisions is copied with it too).

use serde_json::Value;

use crate::formats::validate::span_problems;
use crate::formats::Format;
use crate::model::{Record, Span};
use crate::review::decision::{RecordReview, SpanKey};

/// Who set the span `key` of `review`: the last decision in force that gave it a value, or
/// the input.
pub(super) fn set_by(review: &RecordReview, key: &SpanKey) -> String {
    match review
        .applied
        .iter()
        .rev()
        .find(|d| d.after.is_some() && d.key().as_ref() == Some(key))
    {
        Some(d) => format!(
            "set by decision #{} ({} by {})",
            d.id,
            d.action.name(),
            d.reviewer
        ),
        None => "as read from the input, and kept by the review".to_owned(),
    }
}

/// True when a decision in force gave span `key` of `review` its value (an add, adjust,
/// relabel or resolution), so the review made it what it is.
fn decided(review: &RecordReview, key: &SpanKey) -> bool {
    review
        .applied
        .iter()
        .any(|d| d.after.is_some() && d.key().as_ref() == Some(key))
}

/// The problems of the spans of `value` as written (other lists' problems, which come from the
/// input, are the same with no span written and are left out).
fn problems(format: Format, value: &Value) -> Vec<String> {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    span_problems(&bytes, format)
        .into_iter()
        .map(|(_, m)| m)
        .collect()
}

/// What [`refused`] found: the spans a decision set that `validate` would reject (the export
/// is refused), and those kept as read from the input (the input fails `validate` the same
/// way already: warned about, as a record without decisions is copied with its spans).
#[derive(Default)]
pub(super) struct Found {
    /// Set by a decision: `at: record …: span KEY [s, e) "label": why; set by decision #N (…)`.
    pub(super) refused: Vec<String>,
    /// Kept as read from the input, in the same shape.
    pub(super) as_read: Vec<String>,
}

/// The spans of `written` (the spans exported into `rec`, whose line is `value`, its type set
/// to `set_type`) that `validate` would reject. Nothing when the line passes (one check; each
/// span is checked alone only then, to say which it is).
pub(super) fn refused(
    format: Format,
    at: &str,
    (rec, review): (&Record, &RecordReview),
    (value, written, set_type): (&Value, &[Span], Option<&str>),
) -> Found {
    let without = problems(format, &format.write(&rec.raw, &[], set_type));
    let new = |v: &Value| -> Vec<String> {
        problems(format, v)
            .into_iter()
            .filter(|p| !without.contains(p))
            .collect()
    };
    let mut out = Found::default();
    if new(value).is_empty() {
        return out;
    }
    for span in written {
        let alone = format.write(&rec.raw, std::slice::from_ref(span), set_type);
        let whys = new(&alone);
        if whys.is_empty() {
            continue;
        }
        let key = review
            .spans
            .iter()
            .find(|s| {
                s.kept()
                    && (s.current.start, s.current.end) == (span.start, span.end)
                    && s.current.label == span.label
            })
            .map(|s| s.key.clone());
        let (name, from) = match &key {
            Some(k) => (k.to_string(), set_by(review, k)),
            None => ("?".to_owned(), "kept by the review".to_owned()),
        };
        let decided = key.as_ref().is_none_or(|k| decided(review, k));
        for why in whys {
            let why = why.split_once(": ").map_or(why.as_str(), |(_, w)| w);
            let list = if decided {
                &mut out.refused
            } else {
                &mut out.as_read
            };
            list.push(format!(
                "{at}: record {:?}: span {name} [{}, {}) {}: {why}; {from}",
                rec.id,
                span.start,
                span.end,
                crate::formats::quote_str(&span.label),
            ));
        }
    }
    out
}
