//! Undo and redo: rows appended to the log like any decision, aimed at this reviewer's last
//! decision (or the last undone one), on whichever record it was made.

use super::{App, Status};
use crate::review::decision::{redo_target, undo_target, ActionKind, Decision};
use crate::tui::strings;

impl App {
    pub(super) fn undo(&mut self) {
        self.meta(ActionKind::Undo);
    }

    pub(super) fn redo(&mut self) {
        self.meta(ActionKind::Redo);
    }

    /// Undo or redo: find the target in this reviewer's log, go to its record (it may be
    /// another one), and append the undo/redo row there. The rows of one arbitration
    /// resolution (same [`Decision::group`]) are undone and redone together, in one
    /// transaction: a database lost meanwhile keeps them all for the retry, never half a
    /// resolution. Auto-accepts of other records than the one on screen are skipped: they are
    /// made in the background and would otherwise stand between the reviewer and their own
    /// last decision.
    fn meta(&mut self, kind: ActionKind) {
        // Its target may be a decision kept for a retry, not in the log yet.
        if let Some(refusal) = self.unsaved_refusal(true) {
            self.status = Status::Error(refusal);
            return;
        }
        let log = match self.log.reviewer_log(&self.dataset.name, &self.reviewer) {
            Ok(l) => l,
            Err(e) => {
                self.status = Status::Error(e);
                return;
            }
        };
        let here_id = self.cur.as_ref().ok().map(|c| c.record.id.clone());
        let mut log: Vec<Decision> = log
            .into_iter()
            .filter(|d| !d.auto || Some(&d.record_id) == here_id.as_ref())
            .collect();
        let Some(first) = next_target(&log, kind) else {
            self.status = Status::Info(
                if kind == ActionKind::Undo {
                    strings::NOTHING_TO_UNDO
                } else {
                    strings::NOTHING_TO_REDO
                }
                .to_owned(),
            );
            return;
        };
        if here_id.as_deref() != Some(first.record_id.as_str()) {
            match self.find_id(&first.record_id) {
                Some(idx) => self.go_index(idx),
                None => {
                    self.status =
                        Status::Error(strings::target_elsewhere(first.id, &first.record_id));
                    return;
                }
            }
        }
        // The targets one after the other, as the log will have them once the rows before are
        // in it (provisional ids past any saved one): the whole resolution, or the one row.
        let mut rows: Vec<Decision> = Vec::new();
        let mut target = Some(first.clone());
        while let Some(td) = target.take() {
            let Some(mut d) = self.decision(kind) else {
                return;
            };
            d.target = Some(td.id);
            d.span_key.clone_from(&td.span_key);
            let mut provisional = d.clone();
            provisional.id = crate::store::PROVISIONAL + i64::try_from(rows.len()).unwrap_or(0);
            log.push(provisional);
            rows.push(d);
            if let Some(g) = &first.group {
                target = next_target(&log, kind)
                    .filter(|n| n.group.as_ref() == Some(g) && n.record_id == first.record_id);
            }
        }
        let Some(saved) = self.commit_all(&rows) else {
            return;
        };
        if let Some(last) = saved.last() {
            self.status = Status::Saved(strings::saved(last.id, last.action.name(), last.target));
            self.add_notice();
        }
        if let (Ok(c), Some(k)) = (&mut self.cur, first.key()) {
            c.reorder(Some(&k));
        }
        self.refresh_hits();
    }
}

/// The decision an undo (or redo) of `kind` would act on next in `log`.
fn next_target(log: &[Decision], kind: ActionKind) -> Option<Decision> {
    let t = if kind == ActionKind::Undo {
        undo_target(log)
    } else {
        redo_target(log)
    }?;
    log.iter().find(|d| d.id == t).cloned()
}
