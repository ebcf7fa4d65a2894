//! Appending a checked batch (`spanreview apply`): the decisions are checked against the log
//! as it is under the write lock, then saved with their origins, all or none, in the same
//! transaction, so no other process's decision slips between the check and the save.

use std::collections::HashMap;
use std::time::Duration;

use rusqlite::OptionalExtension;

use super::{row, RecordState, Store, StoreError};
use crate::review::decision::Decision;

/// Ids from this one up are provisional: the ids a batch gives its decisions while it is
/// checked (they sort after every saved one), replaced by the saved ids.
pub const PROVISIONAL: i64 = 1 << 60;

/// How long a batch waits for the write lock: a batch is no keystroke, and waiting behind other
/// writers for longer than the screen's timeout is better than failing.
pub const BATCH_BUSY_TIMEOUT: Duration = Duration::from_secs(120);

/// What a checked batch saves.
#[derive(Debug, Default)]
pub struct Batch {
    /// Decisions in order, each with its provisional id (from [`PROVISIONAL`] up) and its
    /// origin; an undo or redo's target may be a provisional id of an earlier one.
    pub rows: Vec<(Decision, String)>,
    /// Each record's state after the batch, by dataset and record id.
    pub states: Vec<(String, String, RecordState)>,
    /// Check only: roll back instead of saving.
    pub dry_run: bool,
}

impl Store {
    /// Take the write lock (waiting up to [`BATCH_BUSY_TIMEOUT`]), let `plan` read the log and
    /// return what to save (or why not), and save it: the rows with their origins (provisional
    /// targets mapped to the saved ids) and the record states, committed before returning.
    /// Returns the decisions as saved (none for a dry run or a refused plan).
    ///
    /// # Errors
    /// The database is busy beyond the timeout, cannot be read or written. Nothing is saved.
    pub fn append_batch<E>(
        &self,
        plan: impl FnOnce(&Self) -> Result<Batch, E>,
    ) -> Result<Result<Vec<Decision>, E>, StoreError> {
        self.conn
            .busy_timeout(BATCH_BUSY_TIMEOUT)
            .map_err(|e| self.err("setting the busy timeout", e))?;
        let tx = self.begin();
        self.conn
            .busy_timeout(super::BUSY_TIMEOUT)
            .map_err(|e| self.err("setting the busy timeout", e))?;
        let tx = tx?;
        let batch = match plan(self) {
            Ok(b) => b,
            Err(e) => return Ok(Err(e)),
        };
        for (d, _) in &batch.rows {
            self.check(d)?;
        }
        if batch.dry_run {
            return Ok(Ok(Vec::new()));
        }
        let mut ids: HashMap<i64, i64> = HashMap::with_capacity(batch.rows.len());
        let mut last: HashMap<(&str, &str), i64> = HashMap::new();
        let mut saved = Vec::with_capacity(batch.rows.len());
        for (d, origin) in &batch.rows {
            let mut s = d.clone();
            if s.time.is_empty() {
                s.time = self.now_rfc3339();
            }
            if let Some(t) = s.target {
                let t = if t >= PROVISIONAL {
                    *ids.get(&t).ok_or_else(|| {
                        self.invalid(format!("internal: provisional target #{t} not saved"))
                    })?
                } else {
                    t
                };
                s.target = Some(t);
            }
            s.id = row::insert(&tx, &s, origin)
                .map_err(|e| self.err(format!("saving a {} decision", s.action.name()), e))?;
            ids.insert(d.id, s.id);
            last.insert((&d.dataset, &d.record_id), s.id);
            saved.push(s);
        }
        for (ds, rec, st) in &batch.states {
            let id = last.get(&(ds.as_str(), rec.as_str())).copied();
            self.write_state(&tx, ds, rec, id, st)?;
        }
        tx.commit()
            .map_err(|e| self.err("committing the decisions", e))?;
        Ok(Ok(saved))
    }

    /// The id of the decision with this origin, if there is one.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn id_with_origin(&self, origin: &str) -> Result<Option<i64>, StoreError> {
        self.conn
            .prepare_cached("SELECT id FROM decision WHERE origin = ?1")
            .and_then(|mut st| st.query_row([origin], |r| r.get(0)).optional())
            .map_err(|e| self.err(format!("looking up origin {origin}"), e))
    }

    /// [`Store::decisions`] (optionally one reviewer's only), each with its origin.
    ///
    /// # Errors
    /// SQLite fails, or a row cannot be read back.
    pub fn decisions_with_origin(
        &self,
        dataset: Option<&str>,
        reviewer: Option<&str>,
    ) -> Result<Vec<(Decision, String)>, StoreError> {
        let what = "reading the decision log";
        match (dataset, reviewer) {
            (Some(ds), Some(r)) => {
                self.select_with_origin(what, "WHERE dataset = ?1 AND reviewer = ?2", &[&ds, &r])
            }
            (Some(ds), None) => self.select_with_origin(what, "WHERE dataset = ?1", &[&ds]),
            (None, Some(r)) => self.select_with_origin(what, "WHERE reviewer = ?1", &[&r]),
            (None, None) => self.select_with_origin(what, "", &[]),
        }
    }
}
