//! The decisions that record an arbitration resolution: built here, appended by the store.

use super::{ActionKind, Decision, RecordReview, SpanKey, SpanValue, Unit};
use crate::model::Record;
use crate::review::disagreement::{Disagreement, Outcome};

/// The `resolve` decisions that record `outcome` on cluster `cluster` of `d`.
///
/// `d` must have been computed with the record's **reviewed** gold spans as its gold source
/// (`review.kept_spans(output)`, in that order: what
/// [`Arbitration::reviewed`](crate::formats::judges::Arbitration::reviewed) does), so that
/// gold span `k` of the cluster is the `k`-th kept span of `review`. The result spans are paired
/// with those gold spans by [`Outcome::assign`]: a gold span is adjusted (`span_key` its key,
/// `before` its current value, `after` the result) or dropped (`after` none), and a result with
/// no gold span is added under a fresh `added:<uid>` key. Every decision carries the outcome's
/// upheld and dismissed sources. A resolution that settles no span (everything dropped where
/// the gold had nothing) is still one decision, without a span key and with `before` set to the
/// cluster's range (empty label), so the verdict on the sources is logged; it changes no span.
/// Every row names the cluster it settles ([`Unit::Cluster`]) and shares one group id, as the
/// arbitration screen writes them, so the rows count as one vote per source on the cluster
/// ([`crate::review::outcome::votes`]); the reason `resolved` and note `resolution <uid>` are
/// for humans. `new_id` makes the group id and added spans' uids (the store's `new_origin`;
/// the first 12 characters are used), so this stays pure.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn resolution_decisions(
    record: &Record,
    review: &RecordReview,
    d: &Disagreement,
    cluster: usize,
    outcome: &Outcome,
    dataset: &str,
    reviewer: &str,
    mut new_id: impl FnMut() -> String,
) -> Vec<Decision> {
    let kept: Vec<_> = review.spans.iter().filter(|s| s.kept()).collect();
    let gold_spans = review.kept_spans(&record.output);
    let in_cluster: Vec<usize> = d
        .clusters
        .get(cluster)
        .and_then(|c| d.gold.and_then(|g| c.source(g)))
        .map(|p| p.spans.clone())
        .unwrap_or_default();
    let unit = d.clusters.get(cluster).map(Unit::of_cluster);
    let tag = unit.map(|_| "resolved".to_owned());
    let group: String = new_id().chars().take(12).collect();
    let base = |key: Option<String>| {
        let mut x = Decision::new(record, dataset, reviewer, ActionKind::Resolve);
        x.span_key = key;
        x.reason.clone_from(&tag);
        x.note = Some(format!("resolution {group}"));
        x.unit = unit;
        x.record_units = Some(d.units());
        x.group = Some(group.clone());
        x.upheld.clone_from(&outcome.upheld);
        x.dismissed.clone_from(&outcome.dismissed);
        x
    };
    let mut out = Vec::new();
    for a in outcome.assign(&gold_spans, &in_cluster) {
        let (key, before) = match a.gold.and_then(|k| kept.get(k)) {
            Some(s) => (s.key.to_string(), Some(s.current.clone())),
            None => {
                let uid: String = new_id().chars().take(12).collect();
                (SpanKey::Added(uid).to_string(), None)
            }
        };
        let mut x = base(Some(key));
        x.before = before;
        x.after = a.after.as_ref().map(SpanValue::of);
        out.push(x);
    }
    if out.is_empty() {
        let mut x = base(None);
        if let Some(c) = d.clusters.get(cluster) {
            x.before = Some(SpanValue::new(c.start, c.end, String::new()));
        }
        out.push(x);
    }
    out
}
