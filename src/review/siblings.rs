//! Sibling variants: the records of one base (`meta.base_id`; ids `BASE__type`) are variants
//! of one answer and often share an error, so a span decision on one can be carried to the
//! spans of the same text in the others, each as its own decision on its own record.

use crate::model::offsets::slice;
use crate::model::Record;

use super::check::twin;
use super::decision::{ActionKind, Decision, RecordReview, SpanKey, SpanStatus, SpanValue};

/// The record's base: `meta.base_id` when it is a string, else the id before its last `__`
/// (ids are `BASE__variant`), else the id itself (a record of its own).
#[must_use]
pub fn base_of(record: &Record) -> &str {
    match record.raw.pointer("/meta/base_id").and_then(|v| v.as_str()) {
        Some(b) if !b.is_empty() => b,
        _ => base_of_id(&record.id),
    }
}

/// The base an id names by the `BASE__variant` convention (the id itself without `__`).
#[must_use]
pub fn base_of_id(id: &str) -> &str {
    id.rsplit_once("__").map_or(id, |(b, _)| b)
}

/// The decisions that carry `d` (a span decision, made on a span whose text was `text`) to
/// `sibling`, whose review as its reviewer sees it is `review`. Accept, drop, relabel and
/// adjust go to every pending span with the same text and value (label, category and
/// subcategory) as `d.before`, an adjust moving each end by as many code points as `d` did;
/// an add goes to every occurrence of its text no kept span of its value already covers, its
/// keys `added_key` and a count. Other actions, and a `sibling` its text is not in, give none.
#[must_use]
pub fn carried(
    d: &Decision,
    text: &str,
    sibling: &Record,
    review: &RecordReview,
    added_key: &str,
) -> Vec<Decision> {
    if text.is_empty() || sibling.id == d.record_id {
        return Vec::new();
    }
    let like = |after: Option<SpanValue>, key: String| {
        let mut c = Decision::new(sibling, &d.dataset, &d.reviewer, d.action);
        c.reason.clone_from(&d.reason);
        c.note.clone_from(&d.note);
        c.after = after;
        c.span_key = Some(key);
        c
    };
    match d.action {
        ActionKind::Add => {
            let Some(v) = &d.after else { return Vec::new() };
            occurrences(&sibling.output, text)
                .map(|start| SpanValue {
                    start,
                    end: start + (v.end - v.start),
                    ..v.clone()
                })
                .filter(|at| twin(review, at).is_none())
                .enumerate()
                .map(|(k, at)| {
                    like(
                        Some(at),
                        SpanKey::Added(format!("{added_key}-{k}")).to_string(),
                    )
                })
                .collect()
        }
        ActionKind::Accept | ActionKind::Drop | ActionKind::Relabel | ActionKind::Adjust => {
            let Some(before) = &d.before else {
                return Vec::new();
            };
            let len = sibling.output.chars().count();
            review
                .spans
                .iter()
                .filter(|s| s.status == SpanStatus::Pending && same_value(&s.current, before))
                .filter(|s| slice(&sibling.output, s.current.start, s.current.end) == Some(text))
                .filter_map(|s| {
                    let after = match (&d.after, d.action) {
                        (Some(a), ActionKind::Adjust) => {
                            Some(moved(&s.current, before, a).filter(|m| m.end <= len)?)
                        }
                        (Some(a), ActionKind::Relabel) => Some(SpanValue {
                            start: s.current.start,
                            end: s.current.end,
                            ..a.clone()
                        }),
                        (a, _) => a.clone(),
                    };
                    let mut c = like(after, s.key.to_string());
                    c.before = Some(s.current.clone());
                    Some(c)
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The same label, category and subcategory (boundaries aside).
fn same_value(a: &SpanValue, b: &SpanValue) -> bool {
    a.label == b.label && a.category == b.category && a.subcategory == b.subcategory
}

/// `span` with each end moved as `before` → `after` moved them; `None` when that would put an
/// end before the answer's start or the start past the end.
fn moved(span: &SpanValue, before: &SpanValue, after: &SpanValue) -> Option<SpanValue> {
    let shift = |at: usize, from: usize, to: usize| (at + to).checked_sub(from);
    let start = shift(span.start, before.start, after.start)?;
    let end = shift(span.end, before.end, after.end)?;
    (start < end).then(|| SpanValue {
        start,
        end,
        ..after.clone()
    })
}

/// Code-point offsets of every occurrence of `needle` in `hay`, not overlapping, left first.
fn occurrences<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut chars = 0;
    let mut last = 0;
    hay.match_indices(needle).map(move |(byte, _)| {
        chars += hay[last..byte].chars().count();
        last = byte;
        chars
    })
}

#[cfg(test)]
mod tests;
