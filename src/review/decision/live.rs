//! A record's replay kept up to date while decisions join the end of its log, for checking each
//! line of a long `apply` file against the record with the lines before it in: replaying the
//! whole log for every line made the check of a file grow with the square of its lines on a
//! record.

use super::replay::{drop_duplicate_adds, replay_in_order};
use super::{ActionKind, Decision, RecordReview, Unit};
use crate::model::Record;

/// The replay of one record's log as it grows (see [`LiveReplay::review`]).
#[derive(Debug, Default, Clone)]
pub struct LiveReplay {
    /// The log replayed so far ([`replay_in_order`]; its `applied`, `stale` and `notes`
    /// left empty), or `None`: replay the whole log when next asked.
    state: Option<RecordReview>,
    /// The state before the last decision joined, with that decision's id: an undo of it goes
    /// back there.
    before_last: Option<(i64, RecordReview)>,
}

/// `r` without what the checks never read and what grows with the log.
fn slim(mut r: RecordReview) -> RecordReview {
    r.applied = Vec::new();
    r.stale = Vec::new();
    r.notes = Vec::new();
    r
}

impl LiveReplay {
    /// The review of `record` after its log (`log` gives it: every decision on the record,
    /// those [`LiveReplay::push`]ed included): what [`super::replay`] gives, but with
    /// `applied`, `stale` and `notes` empty. The log is read only when the state is not known
    /// (the first time, and after an undo, redo or resolution it cannot follow).
    pub fn review(&mut self, record: &Record, log: impl FnOnce() -> Vec<Decision>) -> RecordReview {
        let state = self
            .state
            .get_or_insert_with(|| slim(replay_in_order(record, &log())));
        let mut review = state.clone();
        drop_duplicate_adds(&mut review);
        review
    }

    /// Decision `d` joined the end of the record's log (its id after every id there); `hash`
    /// is the record's content hash now (a decision made on other content is not applied).
    pub fn push(&mut self, d: &Decision, hash: &str) {
        let follows = !d.action.is_meta()
            && d.action != ActionKind::Resolve
            && !matches!(d.unit, Some(Unit::Cluster { .. }));
        if follows {
            if let Some(state) = &mut self.state {
                let before = state.clone();
                if d.record_hash == hash {
                    state.apply(d);
                }
                self.before_last = Some((d.id, before));
                return;
            }
        } else if d.action == ActionKind::Undo {
            // The undo of the decision that joined last: the state before it.
            if let Some((id, before)) = self.before_last.take() {
                if Some(id) == d.target && self.state.is_some() {
                    self.state = Some(before);
                    return;
                }
            }
        }
        // A redo, an undo of an earlier decision, a resolution (its rows name the spans each
        // settles, later rows too): the log is replayed when next asked.
        self.state = None;
        self.before_last = None;
    }
}

#[cfg(test)]
mod tests;
