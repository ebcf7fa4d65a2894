//! Reading a decision log: which decisions are in force (undo and redo), replaying them onto
//! a record (also as one reviewer saw it, [`replay_seen`]), and what the next undo or redo would
//! target.

use std::collections::{HashMap, HashSet};

use super::{ActionKind, Decision, RecordReview, SpanStatus, SpanValue, Unit};
use crate::model::Record;

/// Which decisions of a log are in force ([`active_ids`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InForce(HashMap<i64, bool>);

impl InForce {
    /// True when decision `id` is in force: made (not undo or redo), and not reverted by an
    /// undo that no later redo restored. An id the log does not hold is not in force.
    #[must_use]
    pub fn contains(&self, id: i64) -> bool {
        self.0.get(&id).copied().unwrap_or(false)
    }

    /// True when an undo reverted decision `id` and no later redo restored it.
    #[must_use]
    pub fn undone(&self, id: i64) -> bool {
        self.0.get(&id) == Some(&false)
    }
}

/// Which decisions of a log are in force: every non-meta decision unless an undo reverted it
/// and no later redo restored it.
#[must_use]
pub fn active_ids(log: &[Decision]) -> InForce {
    let mut active = HashMap::new();
    for d in log {
        match (d.action, d.target) {
            (ActionKind::Undo, Some(t)) => {
                active.insert(t, false);
            }
            (ActionKind::Redo, Some(t)) => {
                active.insert(t, true);
            }
            (a, _) if !a.is_meta() => {
                active.insert(d.id, true);
            }
            _ => {}
        }
    }
    InForce(active)
}

/// Replay the decisions about `record` (any order; applied by id) onto its original spans.
/// Decisions whose hash differs from the record's are listed as stale and not applied.
#[must_use]
pub fn replay(record: &Record, decisions: &[Decision]) -> RecordReview {
    let mut review = replay_in_order(record, decisions);
    drop_duplicate_adds(&mut review);
    review
}

/// [`replay`] before duplicate added spans are dropped: the state the decisions, applied in
/// id order, leave (what a decision joining the end of the log is applied to: see `live.rs`).
pub(super) fn replay_in_order(record: &Record, decisions: &[Decision]) -> RecordReview {
    let mut review = RecordReview::fresh(record);
    let mut log: Vec<&Decision> = decisions
        .iter()
        .filter(|d| d.record_id == record.id)
        .collect();
    log.sort_by_key(|d| d.id);
    let owned: Vec<Decision> = log.iter().map(|d| (*d).clone()).collect();
    let active = active_ids(&owned);
    let hash = record.content_hash();
    let named = named_by_group(&log, &active, &hash);
    for d in owned {
        if d.action.is_meta() || !active.contains(d.id) {
            continue;
        }
        if d.record_hash != hash {
            review.stale.push(d);
            continue;
        }
        review.apply(&d);
        if let (Some(Unit::Cluster { start, end }), Some(g)) = (d.unit, &d.group) {
            settle_cluster(&mut review, &d, (start, end), named.get(g.as_str()));
        }
        review.applied.push(d);
    }
    review
}

/// Why an added span is left out: another kept span is the same (two reviewers on a shared
/// record each added it; they agree, and a record holds a label once).
pub const DUPLICATE: &str = "the same span is kept already";

/// Drop each kept added span whose value (range, label, category, subcategory) an earlier
/// kept span has, so the export, the report and the screen all hold it once.
pub(super) fn drop_duplicate_adds(review: &mut RecordReview) {
    let mut seen: Vec<SpanValue> = Vec::new();
    for s in &mut review.spans {
        if !s.kept() {
            continue;
        }
        if s.original.is_none() && seen.contains(&s.current) {
            s.status = SpanStatus::Dropped {
                reason: Some(DUPLICATE.to_owned()),
            };
        } else {
            seen.push(s.current.clone());
        }
    }
}

/// The span keys each resolution (its rows in force, by group) names.
fn named_by_group<'a>(
    log: &[&'a Decision],
    active: &InForce,
    hash: &str,
) -> HashMap<&'a str, HashSet<&'a str>> {
    let mut named: HashMap<&str, HashSet<&str>> = HashMap::new();
    for &d in log {
        if d.action != ActionKind::Resolve || !active.contains(d.id) || d.record_hash != hash {
            continue;
        }
        if let Some(g) = &d.group {
            named.entry(g).or_default().extend(d.span_key.as_deref());
        }
    }
    named
}

/// A resolution settles every span of its cluster, whoever made it: a span still kept that
/// overlaps the cluster and that no row of the resolution names (a reviewer's added span
/// beside the result its rows add) is dropped, with the resolution's reason.
fn settle_cluster(
    review: &mut RecordReview,
    d: &Decision,
    (start, end): (usize, usize),
    named: Option<&HashSet<&str>>,
) {
    for s in &mut review.spans {
        let overlaps = s.current.start < end && start < s.current.end;
        let key = s.key.to_string();
        if s.kept() && overlaps && !named.is_some_and(|n| n.contains(key.as_str())) {
            s.status = SpanStatus::Dropped {
                reason: d.reason.clone(),
            };
        }
    }
}

/// One reviewer's result on `record`: `reviewer`'s decisions in `log` (the record's log of the
/// reviewers' decisions, any order; the caller leaves out the arbiter's) replayed, in log order,
/// onto what their screen showed them: every other reviewer's decision in `log` made before
/// their last verdict in force ([`ActionKind::is_verdict`]). A decision means what the reviewer
/// saw: an `A` after ana's drop keeps the span dropped, an `a` or `A` after bo's widening keeps
/// the widened span, an `a` of bo's added span keeps it; decisions made after their last
/// verdict were not on screen when they decided; nor were any when that verdict was made blind
/// ([`BLIND_GROUP`]: an `A` then keeps the spans as read). Only their own decisions are listed
/// as applied or stale.
/// A decision made while blind review hid the other reviewers' decisions carries a `group`
/// starting with this ([`replay_seen`] then shows its reviewer nothing of the others').
pub const BLIND_GROUP: &str = "blind-";

#[must_use]
pub fn replay_seen(record: &Record, reviewer: &str, log: &[Decision]) -> RecordReview {
    let mine: Vec<Decision> = log
        .iter()
        .filter(|d| d.reviewer == reviewer && d.record_id == record.id)
        .cloned()
        .collect();
    let active = active_ids(&mine);
    let hash = record.content_hash();
    let last = mine
        .iter()
        .filter(|d| d.action.is_verdict() && active.contains(d.id) && d.record_hash == hash)
        .max_by_key(|d| d.id)
        .filter(|d| {
            !d.group
                .as_deref()
                .is_some_and(|g| g.starts_with(BLIND_GROUP))
        })
        .map(|d| d.id);
    let shown: Vec<Decision> = log
        .iter()
        .filter(|d| d.reviewer == reviewer || last.is_some_and(|l| d.id < l))
        .cloned()
        .collect();
    let mut review = replay(record, &shown);
    review.applied.retain(|d| d.reviewer == reviewer);
    review.stale.retain(|d| d.reviewer == reviewer);
    review
}

/// The decision `u` reverts: the latest decision in force in `log` (one reviewer's log for one
/// dataset, in id order), or `None`.
#[must_use]
pub fn undo_target(log: &[Decision]) -> Option<i64> {
    undo_target_of(log.iter().rev())
}

/// [`undo_target`] of the log `newest_first` walks back over (newest first). It walks only as
/// far back as the latest decision in force, so an undo at the end of a long log costs the
/// rows it passes (the undo rows and what they reverted), not the log's length.
pub fn undo_target_of<'a>(newest_first: impl Iterator<Item = &'a Decision>) -> Option<i64> {
    // The latest undo or redo (met first, walking back) of each decision ahead.
    let mut latest: HashMap<i64, ActionKind> = HashMap::new();
    for d in newest_first {
        if d.action.is_meta() {
            if let Some(t) = d.target {
                latest.entry(t).or_insert(d.action);
            }
        } else if latest.get(&d.id) != Some(&ActionKind::Undo) {
            return Some(d.id);
        }
    }
    None
}

/// The decision `Ctrl-r` restores: the one most recently undone, as long as no new decision
/// was made since that undo (a new decision clears the redo stack, as in any editor).
#[must_use]
pub fn redo_target(log: &[Decision]) -> Option<i64> {
    redo_target_of(log.iter().rev())
}

/// [`redo_target`] of the log `newest_first` walks back over (newest first): over the undo and
/// redo rows at its end only (the first other row ends the redo stack).
pub fn redo_target_of<'a>(newest_first: impl Iterator<Item = &'a Decision>) -> Option<i64> {
    let mut restored: Vec<i64> = Vec::new();
    for d in newest_first {
        match d.action {
            ActionKind::Redo => {
                if let Some(t) = d.target {
                    restored.push(t);
                }
            }
            // The latest undo of `t` (a later one would have been met first) with no redo of
            // `t` after it: `t` is undone.
            ActionKind::Undo => {
                if let Some(t) = d.target {
                    if !restored.contains(&t) {
                        return Some(t);
                    }
                }
            }
            _ => return None,
        }
    }
    None
}
