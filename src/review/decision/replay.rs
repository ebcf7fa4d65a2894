//! Reading a decision log: which decisions are in force (undo and redo), replaying them onto
//! a record, and what the next undo or redo would target.

use std::collections::HashMap;

use super::{ActionKind, Decision, RecordReview};
use crate::model::Record;

/// Which decisions of a log are in force: every non-meta decision unless an undo reverted it
/// and no later redo restored it.
#[must_use]
pub fn active_ids(log: &[Decision]) -> HashMap<i64, bool> {
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
    active
}

/// Replay the decisions about `record` (any order; applied by id) onto its original spans.
/// Decisions whose hash differs from the record's are listed as stale and not applied.
#[must_use]
pub fn replay(record: &Record, decisions: &[Decision]) -> RecordReview {
    let mut review = RecordReview::fresh(record);
    let mut log: Vec<&Decision> = decisions
        .iter()
        .filter(|d| d.record_id == record.id)
        .collect();
    log.sort_by_key(|d| d.id);
    let owned: Vec<Decision> = log.iter().map(|d| (*d).clone()).collect();
    let active = active_ids(&owned);
    let hash = record.content_hash();
    for d in owned {
        if d.action.is_meta() || !active.get(&d.id).copied().unwrap_or(false) {
            continue;
        }
        if d.record_hash != hash {
            review.stale.push(d);
            continue;
        }
        review.apply(&d);
        review.applied.push(d);
    }
    review
}

/// The decision `u` reverts: the latest decision in force in `log` (one reviewer's log for one
/// dataset, in id order), or `None`.
#[must_use]
pub fn undo_target(log: &[Decision]) -> Option<i64> {
    let active = active_ids(log);
    log.iter()
        .rev()
        .find(|d| !d.action.is_meta() && active.get(&d.id).copied().unwrap_or(false))
        .map(|d| d.id)
}

/// The decision `Ctrl-r` restores: the one most recently undone, as long as no new decision
/// was made since that undo (a new decision clears the redo stack, as in any editor).
#[must_use]
pub fn redo_target(log: &[Decision]) -> Option<i64> {
    let active = active_ids(log);
    // Walk back over undo/redo rows only; the first non-meta row ends the redo stack.
    let mut restored: Vec<i64> = Vec::new();
    for d in log.iter().rev() {
        match d.action {
            ActionKind::Redo => {
                if let Some(t) = d.target {
                    restored.push(t);
                }
            }
            ActionKind::Undo => {
                if let Some(t) = d.target {
                    if !restored.contains(&t) && !active.get(&t).copied().unwrap_or(true) {
                        return Some(t);
                    }
                }
            }
            _ => return None,
        }
    }
    None
}
