//! Which other reviewer's decision a new one overrides: what the review screen's "overrides
//! ana's accept of …" notice names.
//!
//! The log before the new decision is followed in log order (decisions in force on the same
//! content), keeping for each span the decision that last settled it — a span decision on it,
//! else the first `accept_all` (which accepted every span still pending) — and the
//! reclassification (`clean`, `remove`) in effect until a decision reopens the record. A new
//! span decision overrides what settled its span, or the reclassification it reopens; a new
//! `clean` or `remove` overrides the reclassification in effect, else the latest decision that
//! kept a span; a new `accept_all` overrides the reclassification it reopens. The same result
//! is agreement, not an override: both drop, both reclassify, or both keep the span as it is.

use std::collections::HashMap;

use super::{active_ids, ActionKind, Decision, SpanValue};

/// What a decision leaves of the span (or record) it is about.
#[derive(Debug, PartialEq)]
enum Effect<'a> {
    Dropped,
    /// Kept as it was shown.
    AsIs,
    /// Kept with this value.
    As(&'a SpanValue),
    Clean,
    Removed,
    Other,
}

fn effect(d: &Decision) -> Effect<'_> {
    match (d.action, &d.after) {
        (ActionKind::Drop, _) | (ActionKind::Resolve, None) => Effect::Dropped,
        (ActionKind::Accept | ActionKind::AcceptAll, _) => Effect::AsIs,
        (ActionKind::Adjust | ActionKind::Relabel | ActionKind::Resolve, Some(a))
            if d.before.as_ref() == Some(a) =>
        {
            Effect::AsIs
        }
        (
            ActionKind::Adjust | ActionKind::Relabel | ActionKind::Add | ActionKind::Resolve,
            Some(a),
        ) => Effect::As(a),
        (ActionKind::Clean, _) => Effect::Clean,
        (ActionKind::Remove, _) => Effect::Removed,
        _ => Effect::Other,
    }
}

/// `d` keeps a span (a reclassified record is then open again).
fn keeps(d: &Decision) -> bool {
    matches!(effect(d), Effect::AsIs | Effect::As(_))
}

/// `d` settles the span its key names.
fn on_span(d: &Decision) -> bool {
    d.span_key.is_some()
        && matches!(
            d.action,
            ActionKind::Accept
                | ActionKind::Drop
                | ActionKind::Adjust
                | ActionKind::Relabel
                | ActionKind::Add
                | ActionKind::Resolve
        )
}

/// `d`, after `outcome` (a reclassification in effect), reopens the record, as replay does.
fn reopens(outcome: &Decision, d: &Decision) -> bool {
    keeps(d) && (d.action == ActionKind::Resolve || outcome.reviewer != d.reviewer)
}

/// Another reviewer's decision in force in `prior` (the record's log before `new`, in log
/// order) that `new`, made by `me`, overrides (see the module doc); `None` when it overrides
/// nobody's, or agrees.
#[must_use]
pub fn overridden<'a>(prior: &'a [Decision], new: &Decision, me: &str) -> Option<&'a Decision> {
    let active = active_ids(prior);
    let mut by_span: HashMap<&str, &Decision> = HashMap::new();
    let mut accept_all: Option<&Decision> = None;
    let mut outcome: Option<&Decision> = None;
    for d in prior {
        if d.action.is_meta() || !active.contains(d.id) || d.record_hash != new.record_hash {
            continue;
        }
        if outcome.is_some_and(|o| reopens(o, d)) {
            outcome = None;
        }
        match d.action {
            ActionKind::Clean | ActionKind::Remove => outcome = Some(d),
            ActionKind::AcceptAll => {
                accept_all.get_or_insert(d);
            }
            _ => {}
        }
        if let (true, Some(k)) = (on_span(d), d.span_key.as_deref()) {
            by_span.insert(k, d);
        }
    }
    let reopened = outcome.filter(|o| reopens(o, new));
    let last = match new.action {
        _ if reopened.is_some() => reopened,
        ActionKind::Add => None,
        _ if on_span(new) => new
            .span_key
            .as_deref()
            .and_then(|k| by_span.get(k).copied())
            .or(accept_all),
        ActionKind::Clean | ActionKind::Remove => outcome.or_else(|| {
            by_span
                .values()
                .copied()
                .chain(accept_all)
                .filter(|d| keeps(d))
                .max_by_key(|d| d.id)
        }),
        _ => None,
    }?;
    let (was, now) = (effect(last), effect(new));
    let agrees = was == now || (now == Effect::AsIs && keeps(last));
    (last.reviewer != me && !agrees).then_some(last)
}
