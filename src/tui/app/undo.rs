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
    /// resolution (same [`Decision::group`]) are undone and redone together. Auto-accepts of
    /// other records than the one on screen are skipped: they are made in the background and
    /// would otherwise stand between the reviewer and their own last decision.
    fn meta(&mut self, kind: ActionKind) {
        let Some(first) = self.meta_once(kind, None) else {
            return;
        };
        let group = first.group.clone();
        if let Some(g) = group {
            let mut last = Some(first);
            while last.is_some() {
                last = self.meta_once(kind, Some(&g));
            }
        }
    }

    /// One undo or redo; with `group`, only when its target belongs to that resolution.
    /// Returns the decision it acted on.
    fn meta_once(&mut self, kind: ActionKind, group: Option<&str>) -> Option<Decision> {
        let log = match self.log.reviewer_log(&self.dataset.name, &self.reviewer) {
            Ok(l) => l,
            Err(e) => {
                self.status = Status::Error(e);
                return None;
            }
        };
        let here_id = self.cur.as_ref().ok().map(|c| c.record.id.clone());
        let log: Vec<Decision> = log
            .into_iter()
            .filter(|d| !d.auto || Some(&d.record_id) == here_id.as_ref())
            .collect();
        let target = if kind == ActionKind::Undo {
            undo_target(&log)
        } else {
            redo_target(&log)
        };
        let Some(t) = target else {
            if group.is_none() {
                self.status = Status::Info(
                    if kind == ActionKind::Undo {
                        strings::NOTHING_TO_UNDO
                    } else {
                        strings::NOTHING_TO_REDO
                    }
                    .to_owned(),
                );
            }
            return None;
        };
        let td = log.iter().find(|d| d.id == t).cloned()?;
        if let Some(g) = group {
            if td.group.as_deref() != Some(g) {
                return None;
            }
        }
        let here = here_id.as_deref() == Some(td.record_id.as_str());
        if !here {
            match self.find_id(&td.record_id) {
                Some(idx) => self.go_index(idx),
                None => {
                    self.status = Status::Error(strings::target_elsewhere(t, &td.record_id));
                    return None;
                }
            }
        }
        let mut d = self.decision(kind)?;
        d.target = Some(t);
        d.span_key.clone_from(&td.span_key);
        if self.commit(d).is_some() {
            if let (Ok(c), Some(k)) = (&mut self.cur, td.key()) {
                c.reorder(Some(&k));
            }
            self.refresh_hits();
            return Some(td);
        }
        None
    }
}
