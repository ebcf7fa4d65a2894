//! The decisions that record an arbitration resolution: built here (the screen's `r`, `t`,
//! `u` and `i` keys, and the tests that script them), appended by the store.

use super::{ActionKind, Decision, RecordReview, SpanKey, SpanValue, Unit};
use crate::model::{Record, Span};
use crate::review::disagreement::{Disagreement, Outcome};

/// The `note` prefix of a resolution's rows, for humans reading the log (the group is
/// [`Decision::group`]).
const RESOLUTION_NOTE: &str = "resolution ";

/// A reviewer's resolution of one disputed cluster.
#[derive(Debug, Clone, Copy)]
pub struct Settling<'a> {
    /// The cluster's index in the disagreement.
    pub cluster: usize,
    /// What the reviewer chose ([`crate::review::disagreement::resolve`]).
    pub outcome: &'a Outcome,
    /// How, for humans (`take gold`, `drop all`).
    pub reason: &'a str,
    /// The id the rows share (undone and redone together), also in added spans' keys.
    pub group: &'a str,
}

/// The `resolve` rows that record `s` on `record`, reviewed so far as `review`. `d` clusters
/// the record as read (its gold source as the file has it, as the arbitration screen shows it),
/// and `base` is a blank `resolve` decision on the record (dataset, reviewer).
///
/// The result is mapped by [`Outcome::assign`] onto every span of the cluster, whoever made
/// it: the gold spans in it and the spans reviewers added there and still keep. One row per
/// span it adjusts (`gold:i` or the reviewer's `added:<uid>`, `before` its current value,
/// `after` the result) or drops (`after` none), and per new span (`added:<group>-<k>`). Spans an earlier resolution of the same cluster
/// added and that are still kept are dropped, so a change of mind does not leave both results.
/// A resolution that touches no span is one row without a span key, so the verdict on the
/// sources is logged. Every row names the upheld and dismissed sources, the cluster it settles
/// ([`Unit::Cluster`]: one vote per source on it, [`crate::review::outcome::votes`]) and the
/// group. Empty when `s.cluster` is not a cluster of `d`.
#[must_use]
pub fn resolution_decisions(
    record: &Record,
    review: &RecordReview,
    d: &Disagreement,
    s: &Settling,
    base: &Decision,
) -> Vec<Decision> {
    let Some(cl) = d.clusters.get(s.cluster) else {
        return Vec::new();
    };
    // Every span of the cluster is settled, whoever made it: the gold spans in it (as read,
    // also the ones a reviewer dropped) and the spans reviewers added and still keep there.
    // A result over a reviewer's added span then takes its key instead of adding a copy.
    let mut candidates: Vec<(SpanKey, Span)> = d
        .gold
        .and_then(|g| cl.source(g))
        .map(|p| p.spans.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|&g| Some((SpanKey::Gold(g), record.gold_spans().get(g)?.clone())))
        .collect();
    for s in &review.spans {
        let overlaps = s.current.start < cl.end && cl.start < s.current.end;
        if matches!(s.key, SpanKey::Added(_)) && s.kept() && overlaps {
            let v = &s.current;
            candidates.push((
                s.key.clone(),
                Span::new(&record.output, v.start, v.end, &*v.label),
            ));
        }
    }
    let spans: Vec<Span> = candidates.iter().map(|(_, s)| s.clone()).collect();
    let all: Vec<usize> = (0..candidates.len()).collect();
    let row = |key: SpanKey| {
        let mut x = base.clone();
        x.before = review.span(&key).map(|s| s.current.clone());
        x.span_key = Some(key.to_string());
        x
    };
    let mut rows = Vec::new();
    for (k, a) in s.outcome.assign(&spans, &all).iter().enumerate() {
        let key = match a.gold {
            Some(c) => candidates[c].0.clone(),
            None => SpanKey::Added(format!("{}-{k}", s.group)),
        };
        let mut x = row(key);
        x.after = a.after.as_ref().map(SpanValue::of);
        rows.push(x);
    }
    let unit = Unit::of_cluster(cl);
    let earlier: Vec<SpanKey> = review
        .applied
        .iter()
        .filter(|x| x.action == ActionKind::Resolve && x.unit == Some(unit))
        .filter_map(Decision::key)
        .filter(|k| matches!(k, SpanKey::Added(_)))
        .filter(|k| review.span(k).is_some_and(|s| s.kept()))
        .collect();
    for key in earlier {
        let name = key.to_string();
        if !rows.iter().any(|r| r.span_key.as_deref() == Some(&name)) {
            rows.push(row(key));
        }
    }
    if rows.is_empty() {
        rows.push(base.clone());
    }
    for x in &mut rows {
        in_resolution(x, unit, d, s.group);
        x.upheld.clone_from(&s.outcome.upheld);
        x.dismissed.clone_from(&s.outcome.dismissed);
        x.reason = Some(s.reason.to_owned());
    }
    rows
}

/// Make `x` a row of resolution `group`, settling `unit` of `d`'s record: what every
/// resolution row carries, whether it settles a cluster or an unplaced claim.
pub fn in_resolution(x: &mut Decision, unit: Unit, d: &Disagreement, group: &str) {
    x.action = ActionKind::Resolve;
    x.note = Some(format!("{RESOLUTION_NOTE}{group}"));
    x.unit = Some(unit);
    x.record_units = Some(d.units());
    x.group = Some(group.to_owned());
}
