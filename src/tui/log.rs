//! What the review screen needs from the decision database, as a trait so that flow tests can
//! run against a store that fails on purpose. [`Store`] is the real one.

use std::collections::HashMap;
use std::time::SystemTime;

use crate::review::decision::{Decision, RecordReview};
use crate::store::{RecordState, Store};

/// The decision log as the app sees it. Errors are messages for the status line.
pub trait DecisionLog {
    /// Save one decision (and the record's new state), committed before returning.
    ///
    /// # Errors
    /// Nothing was saved.
    fn append(&self, d: &Decision, state: &RecordState) -> Result<Decision, String>;
    /// Save several decisions on one record (and its state after them) in one transaction:
    /// all or none. The default saves them one by one (for test logs).
    ///
    /// # Errors
    /// Nothing was saved (the default: the ones before the failing one were).
    fn append_all(&self, ds: &[Decision], state: &RecordState) -> Result<Vec<Decision>, String> {
        ds.iter().map(|d| self.append(d, state)).collect()
    }
    /// Save several decisions on one record, all or none, with the record's state computed by
    /// `state_of` from the record's whole log as it is when they are saved, the new ones
    /// included (last): a decision another process saved meanwhile is counted. The default
    /// reads the log, then appends (for test logs); [`Store`] does both in one transaction.
    ///
    /// # Errors
    /// Nothing was saved (the default: as [`DecisionLog::append_all`]).
    fn append_then(
        &self,
        ds: &[Decision],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, String> {
        let Some(first) = ds.first() else {
            return Ok(Vec::new());
        };
        let mut log = self.record_decisions(&first.dataset, &first.record_id)?;
        let n = i64::try_from(ds.len()).unwrap_or(i64::MAX);
        for (k, d) in (0_i64..).zip(ds) {
            let mut provisional = d.clone();
            provisional.id = i64::MAX - n + k;
            log.push(provisional);
        }
        self.append_all(ds, &state_of(&log))
    }
    /// [`DecisionLog::append_then`] with each decision's origin given, a lost connection told
    /// apart: `Err((message, true))` when the database was unreachable (nothing saved; the same
    /// rows may be given again and are saved once). The default ignores the origins and never
    /// says lost (test logs).
    ///
    /// # Errors
    /// Nothing was saved.
    fn append_then_origins(
        &self,
        rows: &[(Decision, String)],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, (String, bool)> {
        let ds: Vec<Decision> = rows.iter().map(|(d, _)| d.clone()).collect();
        self.append_then(&ds, state_of).map_err(|e| (e, false))
    }
    /// Save the review screen's auto-accepts, each with its record's state, in one
    /// transaction, skipping the records that have decisions by now (another reviewer's):
    /// returns those saved ([`Store::append_auto_accepts`]). The default saves them one by one.
    ///
    /// # Errors
    /// Nothing was saved ([`Store`]; the default: the ones before the failing one were).
    fn append_auto_accepts(
        &self,
        rows: &[(Decision, RecordState)],
    ) -> Result<Vec<Decision>, String> {
        let mut saved = Vec::new();
        for (d, st) in rows {
            if self.record_decisions(&d.dataset, &d.record_id)?.is_empty() {
                saved.push(self.append(d, st)?);
            }
        }
        Ok(saved)
    }
    /// Decisions about one record, in log order.
    ///
    /// # Errors
    /// The database cannot be read.
    fn record_decisions(&self, dataset: &str, record_id: &str) -> Result<Vec<Decision>, String>;
    /// One reviewer's decisions on a dataset, in log order (for undo and redo).
    ///
    /// # Errors
    /// The database cannot be read.
    fn reviewer_log(&self, dataset: &str, reviewer: &str) -> Result<Vec<Decision>, String>;
    /// Stored record states of a dataset.
    ///
    /// # Errors
    /// The database cannot be read.
    fn record_states(&self, dataset: &str) -> Result<HashMap<String, RecordState>, String>;
    /// Every decision on a dataset, in log order (the stats screen's team figures); none from
    /// a log that keeps no others' (the flow tests' failing stores).
    ///
    /// # Errors
    /// The database cannot be read.
    fn dataset_decisions(&self, _dataset: &str) -> Result<Vec<Decision>, String> {
        Ok(Vec::new())
    }
    /// The log's clock: what decisions are stamped with (the screen's "a moment ago").
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
    /// Check that decisions still go where the reviewer thinks (the database file was not
    /// deleted or replaced); checked after every save and when the screen is idle.
    ///
    /// # Errors
    /// Saving stopped; the message says why and where the decisions went.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
    /// The team side (plan, claims, polling) when the log is a shared database; `None` for
    /// logs without one (test logs).
    fn team(&self) -> Option<&dyn super::team_model::TeamLog> {
        None
    }
}

/// `r`, unless the database file is no longer in place: a commit into a file deleted or
/// replaced meanwhile is not saved where the reviewer thinks (it is in the rescue copy, which
/// was made after it).
fn in_place<T>(store: &Store, r: Result<T, crate::store::StoreError>) -> Result<T, String> {
    let v = r.map_err(|e| e.to_string())?;
    store.check_in_place().map_err(|e| match store.rescued() {
        Some(_) => format!("{e} (the decision just made is in that copy too)"),
        None => e.to_string(),
    })?;
    Ok(v)
}

/// What a save refused as busy says (another process held the write lock past the screen's
/// short wait, [`SCREEN_WRITE_WAIT`]: a long `apply`): kept and tried again as after a lost
/// connection, the status line saying it waits for the database.
pub const BUSY: &str = "the database is busy: another process holds the write lock";

/// How long the review screen's save waits for the write lock before the decision is kept
/// for a retry (a keystroke must not freeze behind a long `apply`).
pub const SCREEN_WRITE_WAIT: std::time::Duration = std::time::Duration::from_millis(250);

impl DecisionLog for Store {
    fn append(&self, d: &Decision, state: &RecordState) -> Result<Decision, String> {
        in_place(self, Store::append(self, d, Some(state)))
    }
    fn append_all(&self, ds: &[Decision], state: &RecordState) -> Result<Vec<Decision>, String> {
        in_place(self, Store::append_all(self, ds, Some(state)))
    }
    fn append_then(
        &self,
        ds: &[Decision],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, String> {
        in_place(self, Store::append_all_then(self, ds, state_of))
    }
    fn append_auto_accepts(
        &self,
        rows: &[(Decision, RecordState)],
    ) -> Result<Vec<Decision>, String> {
        in_place(self, Store::append_auto_accepts(self, rows))
    }
    fn append_then_origins(
        &self,
        rows: &[(Decision, String)],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, (String, bool)> {
        match Store::append_all_then_with_origins(self, rows, state_of) {
            Err(e) if e.is_connection_lost() => Err((e.to_string(), true)),
            Err(e) if e.is_busy() => {
                tracing::info!(error = %e, "the write lock is held elsewhere; kept for a retry");
                Err((BUSY.to_owned(), true))
            }
            r => in_place(self, r).map_err(|e| (e, false)),
        }
    }
    fn record_decisions(&self, dataset: &str, record_id: &str) -> Result<Vec<Decision>, String> {
        Store::record_decisions(self, dataset, record_id).map_err(|e| e.to_string())
    }
    fn reviewer_log(&self, dataset: &str, reviewer: &str) -> Result<Vec<Decision>, String> {
        Store::reviewer_log(self, dataset, reviewer).map_err(|e| e.to_string())
    }
    fn dataset_decisions(&self, dataset: &str) -> Result<Vec<Decision>, String> {
        Store::decisions(self, Some(dataset)).map_err(|e| e.to_string())
    }
    fn record_states(&self, dataset: &str) -> Result<HashMap<String, RecordState>, String> {
        Store::record_states(self, dataset).map_err(|e| e.to_string())
    }
    fn now(&self) -> SystemTime {
        Store::now(self)
    }
    fn check(&self) -> Result<(), String> {
        self.check_in_place().map_err(|e| e.to_string())
    }
    fn team(&self) -> Option<&dyn super::team_model::TeamLog> {
        Some(self)
    }
}

impl<T: DecisionLog + ?Sized> DecisionLog for std::rc::Rc<T> {
    fn append(&self, d: &Decision, state: &RecordState) -> Result<Decision, String> {
        (**self).append(d, state)
    }
    fn append_all(&self, ds: &[Decision], state: &RecordState) -> Result<Vec<Decision>, String> {
        (**self).append_all(ds, state)
    }
    fn append_then(
        &self,
        ds: &[Decision],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, String> {
        (**self).append_then(ds, state_of)
    }
    fn append_auto_accepts(
        &self,
        rows: &[(Decision, RecordState)],
    ) -> Result<Vec<Decision>, String> {
        (**self).append_auto_accepts(rows)
    }
    fn append_then_origins(
        &self,
        rows: &[(Decision, String)],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, (String, bool)> {
        (**self).append_then_origins(rows, state_of)
    }
    fn record_decisions(&self, dataset: &str, record_id: &str) -> Result<Vec<Decision>, String> {
        (**self).record_decisions(dataset, record_id)
    }
    fn reviewer_log(&self, dataset: &str, reviewer: &str) -> Result<Vec<Decision>, String> {
        (**self).reviewer_log(dataset, reviewer)
    }
    fn dataset_decisions(&self, dataset: &str) -> Result<Vec<Decision>, String> {
        (**self).dataset_decisions(dataset)
    }
    fn record_states(&self, dataset: &str) -> Result<HashMap<String, RecordState>, String> {
        (**self).record_states(dataset)
    }
    fn now(&self) -> SystemTime {
        (**self).now()
    }
    fn check(&self) -> Result<(), String> {
        (**self).check()
    }
    fn team(&self) -> Option<&dyn super::team_model::TeamLog> {
        (**self).team()
    }
}

/// The summary stored beside a decision: the record's state after it.
#[must_use]
pub fn state_of(review: &RecordReview) -> RecordState {
    RecordState {
        reviewed: review.is_reviewed(),
        flagged: review.flagged,
        outcome: review.outcome.kind(),
        stale: !review.stale.is_empty(),
    }
}

/// The diagnostic log's line for a decision the database acknowledged: the same fields for every
/// saved decision, whichever path saved it.
pub fn trace_saved(d: &Decision) {
    tracing::info!(
        id = d.id,
        action = d.action.name(),
        record = %d.record_id,
        span = ?d.span_key,
        target = ?d.target,
        upheld = ?d.upheld,
        dismissed = ?d.dismissed,
        "decision saved"
    );
}

#[cfg(test)]
mod tests;
