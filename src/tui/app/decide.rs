//! Decisions: each is built, appended to the log, and applied to the screen only once the log
//! has acknowledged it.

use std::cell::RefCell;
use std::time::{SystemTime, UNIX_EPOCH};

use super::boundary::Edited;
use super::{App, ModeState, PickerKind, Status};
use crate::model::Record;
use crate::review::check::closed_to;
use crate::review::decision::{
    kept_text, replay, ActionKind, Decision, OutcomeKind, SpanKey, SpanStatus, SpanValue,
    BLIND_GROUP, OTHER_REASON,
};
use crate::review::rubric::Group;
use crate::review::team::{blind_view, ARBITRATION_GROUP};
use crate::store::{new_origin, RecordState};
use crate::tui::edit::{self, Bounds};
use crate::tui::log::{state_of, trace_saved};
use crate::tui::{strings, Action};

/// A unique id (hex microseconds) for a resolution's rows and an added span's key
/// ([`SpanKey::Added`]).
pub(super) fn token() -> String {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |t| t.as_micros());
    format!("{t:x}")
}

impl App {
    /// A new decision on the record on screen (`None` when no record is shown).
    pub(super) fn decision(&self, action: ActionKind) -> Option<Decision> {
        let c = self.cur.as_ref().ok()?;
        Some(self.decision_on(&c.record, action))
    }

    /// A new decision of this reviewer on `record` of this dataset. On the arbitration screen
    /// a decision other than a resolution row (which takes its resolution's group) or an undo
    /// or redo is marked as the arbiter's ([`ARBITRATION_GROUP`]): no reviewer's review.
    pub(super) fn decision_on(&self, record: &Record, action: ActionKind) -> Decision {
        let mut d = Decision::new(record, &self.dataset.name, &self.reviewer, action);
        if self.arbitrating && !action.is_meta() && action != ActionKind::Resolve {
            d.group = Some(format!("{ARBITRATION_GROUP}{}", token()));
        } else if !action.is_meta() && self.blind_now(record) {
            // What this reviewer saw had none of the others' decisions: their result is read so.
            d.group = Some(format!("{BLIND_GROUP}{}", token()));
        }
        d
    }

    /// Whether the screen hides the other reviewers' decisions on `record` now (blind review,
    /// the record not yet decided by this reviewer).
    fn blind_now(&self, record: &Record) -> bool {
        let Ok(c) = self.cur.as_ref() else {
            return false;
        };
        c.record.id == record.id
            && self.hides_others(&record.id)
            && blind_view(record, &c.decisions, &self.reviewer).is_some()
    }

    /// A new decision about the selected span, with `before` filled in.
    pub(super) fn span_decision(&mut self, action: ActionKind) -> Option<Decision> {
        let c = self.cur.as_ref().ok()?;
        let Some(i) = c.selected_span() else {
            self.status = Status::Info(strings::NO_SPAN_SELECTED.to_owned());
            return None;
        };
        let s = &c.review.spans[i];
        let mut d = self.decision_on(&c.record, action);
        d.span_key = Some(s.key.to_string());
        // The log cannot hold a reversed span (its schema refuses one): dropping or adjusting
        // one read from the file is saved without `before` (the key names the span).
        d.before = Some(s.current.clone()).filter(|v| v.start <= v.end);
        Some(d)
    }

    /// Append `d` to the log; on success apply it to the screen and say "saved #id".
    /// Returns the saved decision.
    pub(super) fn commit(&mut self, d: Decision) -> Option<Decision> {
        match self.save(std::slice::from_ref(&d)) {
            Ok(mut saved) => {
                let saved = saved.pop()?;
                trace_saved(&saved);
                self.status =
                    Status::Saved(strings::saved(saved.id, saved.action.name(), saved.target));
                self.add_notice();
                self.offer_siblings(&saved);
                Some(saved)
            }
            Err(e) => {
                tracing::error!(action = d.action.name(), record = %d.record_id, error = %e, "decision NOT saved");
                self.status = Status::Error(self.not_saved_status(e));
                None
            }
        }
    }

    /// Append `rows` (decisions on the record on screen) in one transaction; on success apply
    /// them to the screen. Returns them as saved; the status line is left to the caller.
    pub(super) fn commit_all(&mut self, rows: &[Decision]) -> Option<Vec<Decision>> {
        self.siblings = None;
        match self.save(rows) {
            Ok(saved) => {
                saved.iter().for_each(trace_saved);
                Some(saved)
            }
            Err(e) => {
                tracing::error!(rows = rows.len(), error = %e, "resolution NOT saved");
                self.status = Status::Error(self.not_saved_status(e));
                None
            }
        }
    }

    /// Save `rows` (decisions on the record on screen) with the record's state, computed in
    /// the saving transaction from the record's log as it is then: another process (a second
    /// reviewer) may have saved decisions since the record was read, and the state must count
    /// them (else a record both finished reads as open). On success the screen takes that log.
    /// Refused while decisions wait for an unreachable database; kept (`pending.rs`) behind
    /// waiting ones, or when the save fails for now: the error is then the whole status line.
    fn save(&mut self, rows: &[Decision]) -> Result<Vec<Decision>, String> {
        if let Some(refusal) = self.unsaved_refusal(rows.iter().any(|d| d.action.is_meta())) {
            return Err(refusal);
        }
        let c = self
            .cur
            .as_ref()
            .map_err(|_| "no record on screen".to_owned())?;
        // The rule `apply` checks, at the last step: a mode opened before the record was
        // closed (an undo's redo, a picker left open) must not save a span decision into it.
        let span_edit = |d: &Decision| {
            matches!(
                d.action,
                ActionKind::Accept | ActionKind::Adjust | ActionKind::Relabel | ActionKind::Add
            )
        };
        if rows.iter().any(span_edit) {
            match closed_to(&replay(&c.record, &c.decisions), &self.reviewer) {
                Some(OutcomeKind::Clean) => return Err(strings::SPANS_OF_CLEAN.to_owned()),
                Some(OutcomeKind::Removed) => return Err(strings::SPANS_OF_REMOVED.to_owned()),
                Some(OutcomeKind::Open) | None => {}
            }
        }
        let (index, record) = (c.index, c.record.clone());
        let rows: Vec<(Decision, String)> =
            rows.iter().map(|d| (d.clone(), new_origin())).collect();
        // Behind kept ones (the write lock held elsewhere): kept after them, in order.
        if self.must_wait() {
            return Err(self.keep_unsaved(index, record, rows, crate::tui::log::BUSY));
        }
        match self.save_rows(index, &record, &rows) {
            Ok(saved) => Ok(saved),
            Err((e, true)) => Err(self.keep_unsaved(index, record, rows, &e)),
            Err((e, false)) => Err(e),
        }
    }

    /// Save `rows` (decisions on dataset record `index`, `record`, each with its origin) as
    /// [`App::save`] says; the screen takes the log when that record is on it. The error says
    /// whether the database was unreachable.
    pub(super) fn save_rows(
        &mut self,
        index: usize,
        record: &crate::model::Record,
        rows: &[(Decision, String)],
    ) -> Result<Vec<Decision>, (String, bool)> {
        let seen: RefCell<Option<(Vec<Decision>, RecordState)>> = RefCell::new(None);
        let saved = self.log.append_then_origins(rows, &|log| {
            let state = state_of(&replay(record, log));
            seen.replace(Some((log.to_vec(), state.clone())));
            state
        })?;
        let (log, state) = match seen.into_inner() {
            // The log seen ends with the new rows (provisional ids in a test log): take the
            // saved.
            Some((mut log, state)) => {
                log.truncate(log.len().saturating_sub(saved.len()));
                log.extend(saved.iter().cloned());
                (log, state)
            }
            // A retry that found its rows saved already computed no state: read the log now.
            None => {
                let log = self
                    .log
                    .record_decisions(&self.dataset.name, &record.id)
                    .map_err(|e| (e, false))?;
                let state = state_of(&replay(record, &log));
                (log, state)
            }
        };
        self.mark_own(record, &log);
        let was = self.set_state(index, &record.id, state.clone());
        self.pace.mark(index, was, state.reviewed);
        // Decisions still kept on this record (saved after these) stay on the screen.
        let with_kept = self.with_kept(&record.id, log.clone());
        if let Some(c) = self.cur.as_mut().ok().filter(|c| c.index == index) {
            let shown: Vec<i64> = c.decisions.iter().map(|d| d.id).collect();
            c.decisions = with_kept;
            self.reload_review();
            self.note_save(&shown, &log, &saved);
        }
        Ok(saved)
    }

    /// Record `id` (dataset index `index`) has `state` now, as its replay says: the screen's
    /// states, and the queue's and header's counts of reviewed records (the plan's team
    /// count too), take it; the `mine` queue's progress counts the reviewer's own
    /// ([`App::queue_reviewed`]). Returns whether it was reviewed before.
    pub(super) fn set_state(&mut self, index: usize, id: &str, state: RecordState) -> bool {
        let was = self.states.get(id).is_some_and(|s| s.reviewed);
        self.queue.mark(index, was, state.reviewed);
        // A poll counts the plan's records again; this keeps the count right until then.
        if let Some(p) = self.team.plan.as_mut().filter(|p| p.records.contains(id)) {
            match (was, state.reviewed) {
                (false, true) => p.team_done += 1,
                (true, false) => p.team_done = p.team_done.saturating_sub(1),
                _ => {}
            }
        }
        self.queue
            .mark_member(index, self.queue_reviewed(id, state.reviewed));
        self.states.insert(id.to_owned(), state);
        was
    }

    /// The status line of a decision not saved: the kept-for-a-retry line when it was kept
    /// (or refused because others are), else "NOT saved: …".
    fn not_saved_status(&self, e: String) -> String {
        if self.retrying() {
            e
        } else {
            strings::not_saved(&e)
        }
    }

    pub(super) fn accept(&mut self) {
        if !self.selected_keepable() {
            return;
        }
        let Some(d) = self.span_decision(ActionKind::Accept) else {
            return;
        };
        if self.decided(d) {
            self.select_next_pending();
        }
    }

    /// After a span decision, move to the next span still pending (if any).
    fn select_next_pending(&mut self) {
        let Ok(c) = &mut self.cur else { return };
        let n = c.order.len();
        for step in 1..n {
            let p = (c.selected + step) % n;
            if c.review.spans[c.order[p]].status == SpanStatus::Pending {
                c.selected = p;
                self.scroll.output = None;
                self.refresh_hits();
                return;
            }
        }
    }

    pub(super) fn accept_all(&mut self) {
        if self.accept_all_but_unkeepable() {
            return;
        }
        let Some(d) = self.decision(ActionKind::AcceptAll) else {
            return;
        };
        if let Some(saved) = self.commit(d) {
            let msg = self.status.clone();
            if self
                .queue
                .get(self.pos + 1, &self.dataset, &self.states)
                .is_some()
            {
                let to = self.pass_over_claimed(self.pos + 1);
                self.go(to);
                self.status = msg;
            } else {
                self.status = Status::Saved(format!(
                    "{} · {}",
                    strings::saved(saved.id, saved.action.name(), None),
                    strings::QUEUE_END
                ));
            }
        }
    }

    pub(super) fn drop_span(&mut self, reason: &str) {
        let Some(mut d) = self.span_decision(ActionKind::Drop) else {
            return;
        };
        d.reason = kept_text(reason);
        if self.decided(d) {
            self.select_next_pending();
        }
    }

    pub(super) fn note(&mut self, text: &str) {
        let Some(t) = kept_text(text) else { return };
        if let Some(mut d) = self.decision(ActionKind::Note) {
            d.note = Some(t);
            self.commit(d);
        }
    }

    pub(super) fn flag(&mut self) {
        let flagged = self.cur.as_ref().is_ok_and(|c| c.review.flagged);
        if !flagged && self.cur.is_ok() && self.ask_code(Group::Flag) {
            return;
        }
        if let Some(mut d) = self.decision(ActionKind::Flag) {
            if flagged {
                d.flag_on = Some(false);
                d.reason = Some("off".to_owned());
            }
            if let Some(saved) = self.commit(d) {
                if flagged {
                    // Not "(flag)" for taking the flag off.
                    self.status = Status::Saved(strings::saved(saved.id, strings::UNFLAG, None));
                }
            }
        }
    }

    pub(super) fn clean(&mut self) {
        if self.cur.is_ok() && self.ask_code(Group::Clean) {
            return;
        }
        self.clean_for(None);
    }

    /// Reclassify the record as clean, for `reason`.
    pub(super) fn clean_for(&mut self, reason: Option<String>) {
        if let Some(mut d) = self.decision(ActionKind::Clean) {
            d.reason = reason;
            self.commit(d);
        }
    }

    pub(super) fn open_remove(&mut self) {
        if self.cur.is_err() || self.ask_code(Group::Remove) {
            return;
        }
        let items = strings::REMOVE_REASONS
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        self.open_picker(PickerKind::RemoveReason, items, 0);
    }

    pub(super) fn remove(&mut self, reason: &str) {
        let Some(mut d) = self.decision(ActionKind::Remove) else {
            return;
        };
        d.reason = Some(kept_text(reason).unwrap_or_else(|| OTHER_REASON.to_owned()));
        self.commit(d);
    }

    pub(super) fn open_relabel(&mut self) {
        if !self.require_span() || !self.selected_keepable() {
            return;
        }
        let choices = self.label_choices();
        let current = self
            .cur
            .as_ref()
            .ok()
            .and_then(|c| c.selected_span().map(|i| c.review.spans[i].current.clone()));
        let sel = current
            .and_then(|v| {
                choices
                    .iter()
                    .position(|ch| ch.label == v.label && ch.subcategory == v.subcategory)
            })
            .unwrap_or(0);
        let items = choices.iter().map(crate::tui::labels::shown).collect();
        self.open_picker(PickerKind::Relabel, items, sel);
    }

    pub(super) fn picked(&mut self, kind: &PickerKind, i: usize) {
        match kind {
            PickerKind::TakeSource => self.take(i + 1),
            PickerKind::ResolutionLabel {
                cluster,
                spans,
                how,
            } => self.resolution_label_picked(*cluster, spans, how, i),
            PickerKind::Retype { types } => {
                if let Some(t) = types.get(i) {
                    self.retype(t);
                }
            }
            PickerKind::RemoveReason => {
                let reason = strings::REMOVE_REASONS.get(i).copied().unwrap_or("other");
                if reason == strings::OTHER {
                    self.open_prompt(super::PromptKind::RemoveOther);
                } else {
                    self.remove(reason);
                }
            }
            PickerKind::Relabel => {
                if !self.ask_label_code(i, None) {
                    self.relabel_to(i, None);
                }
            }
            PickerKind::AddLabel { start, end } => {
                let Some(choice) = self.label_choices().get(i).cloned() else {
                    return;
                };
                if let Some(claim) = self.placing.take() {
                    self.place_claim_at(claim, *start, *end, &choice);
                    return;
                }
                if !self.ask_label_code(i, Some((*start, *end))) {
                    self.add_labeled(*start, *end, i, None);
                }
            }
        }
    }

    pub(super) fn open_adjust(&mut self) {
        if !self.require_span() {
            return;
        }
        let Ok(c) = &self.cur else { return };
        let Some(i) = c.selected_span() else { return };
        let s = &c.review.spans[i];
        let b = Bounds {
            start: s.current.start,
            end: s.current.end,
        };
        self.mode = ModeState::Adjust {
            key: s.key.clone(),
            bounds: b,
            before: b,
        };
    }

    pub(super) fn adjust(&mut self, action: Action) {
        let Some((Edited::Span(key), bounds, before)) = self.boundary_key(action) else {
            return;
        };
        if bounds == before {
            self.status = Status::Info(strings::UNCHANGED.to_owned());
            return;
        }
        if self.ask_adjust_code(bounds.start, bounds.end) {
            return;
        }
        self.save_adjust(&key, bounds, None);
    }

    /// Save the selected span `key`'s new `bounds` with `reason`.
    pub(super) fn save_adjust(&mut self, key: &SpanKey, bounds: Bounds, reason: Option<String>) {
        let Some(mut d) = self.span_decision(ActionKind::Adjust) else {
            return;
        };
        if d.key().as_ref() != Some(key) {
            return;
        }
        d.reason = reason;
        d.after = d.before.clone().map(|b| SpanValue {
            start: bounds.start,
            end: bounds.end,
            ..b
        });
        if self.commit(d).is_some() {
            self.refresh_hits();
        }
    }

    pub(super) fn open_add(&mut self) {
        let Ok(c) = &self.cur else { return };
        let cursor = c
            .selected_span()
            .map_or(0, |i| c.review.spans[i].current.start)
            .min(c.chars.len().saturating_sub(1));
        self.mode = ModeState::Add {
            anchor: None,
            cursor,
        };
    }

    pub(super) fn add_mode(&mut self, action: Action) {
        let ModeState::Add { anchor, mut cursor } = self.mode.clone() else {
            return;
        };
        let Ok(c) = &self.cur else { return };
        let ch = &c.chars;
        let last = ch.len().saturating_sub(1);
        match action {
            Action::CursorLeft => cursor = edit::prev_boundary(ch, cursor),
            Action::CursorRight => {
                let next = edit::next_boundary(ch, cursor);
                if next < ch.len() {
                    cursor = next;
                }
            }
            Action::CursorWordLeft => cursor = edit::prev_word_start(ch, cursor).min(last),
            Action::CursorWordRight => {
                cursor = if anchor.is_some() {
                    // Setting the end: land on a word's last character.
                    edit::next_word_end(ch, cursor + 1)
                        .saturating_sub(1)
                        .min(last)
                } else {
                    edit::next_word_start(ch, cursor).min(last)
                };
            }
            Action::Cancel => {
                self.mode = ModeState::Normal;
                return;
            }
            Action::Mark => match anchor {
                None => {
                    self.mode = ModeState::Add {
                        anchor: Some(cursor),
                        cursor,
                    };
                    return;
                }
                Some(a) => {
                    if ch.is_empty() {
                        self.status = Status::Info(strings::EMPTY_SPAN.to_owned());
                        self.mode = ModeState::Normal;
                        return;
                    }
                    let (start, end) = edit::marked(ch, a, cursor);
                    self.open_add_label(start, end);
                    return;
                }
            },
            _ => {}
        }
        self.mode = ModeState::Add { anchor, cursor };
    }

    pub(super) fn open_add_label(&mut self, start: usize, end: usize) {
        let choices = self.label_choices();
        let sel = self
            .cur
            .as_ref()
            .ok()
            .and_then(|c| c.record.corruption_type.clone())
            .and_then(|t| choices.iter().position(|ch| ch.label == t))
            .unwrap_or(0);
        let items = choices.iter().map(crate::tui::labels::shown).collect();
        self.open_picker(PickerKind::AddLabel { start, end }, items, sel);
    }
}
