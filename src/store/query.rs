//! Reading the log and the record states back.

use std::collections::HashMap;

use rusqlite::OptionalExtension;

use super::{row, RecordState, Store, StoreError};
use crate::review::decision::Decision;

impl Store {
    fn select(
        &self,
        what: &str,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<Decision>, StoreError> {
        Ok(self
            .select_with_origin(what, filter, args)?
            .into_iter()
            .map(|(d, _)| d)
            .collect())
    }

    pub(super) fn select_with_origin(
        &self,
        what: &str,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<(Decision, String)>, StoreError> {
        let sql = format!("SELECT {} FROM decision {filter} ORDER BY id", row::COLUMNS);
        let mut st = self
            .conn
            .prepare_cached(&sql)
            .map_err(|e| self.err(what, e))?;
        let rows = st
            .query_map(args, row::read)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|e| self.err(what, e))?;
        Ok(rows)
    }

    /// Every decision, or those of one dataset, in id (log) order.
    ///
    /// # Errors
    /// SQLite fails, or a row cannot be read back.
    pub fn decisions(&self, dataset: Option<&str>) -> Result<Vec<Decision>, StoreError> {
        match dataset {
            Some(ds) => self.select(
                &format!("reading the decisions of dataset {ds:?}"),
                "WHERE dataset = ?1",
                &[&ds],
            ),
            None => self.select("reading the decision log", "", &[]),
        }
    }

    /// The decisions on one record (every reviewer's), in id order.
    ///
    /// # Errors
    /// SQLite fails, or a row cannot be read back.
    pub fn record_decisions(
        &self,
        dataset: &str,
        record_id: &str,
    ) -> Result<Vec<Decision>, StoreError> {
        self.select(
            &format!("reading the decisions on record {record_id:?} of dataset {dataset:?}"),
            "WHERE dataset = ?1 AND record_id = ?2",
            &[&dataset, &record_id],
        )
    }

    /// One reviewer's decisions on a dataset, in id order (the log undo and redo walk).
    ///
    /// # Errors
    /// SQLite fails, or a row cannot be read back.
    pub fn reviewer_log(&self, dataset: &str, reviewer: &str) -> Result<Vec<Decision>, StoreError> {
        self.select(
            &format!("reading the decisions of {reviewer:?} on dataset {dataset:?}"),
            "WHERE dataset = ?1 AND reviewer = ?2",
            &[&dataset, &reviewer],
        )
    }

    /// The decision with this id.
    ///
    /// # Errors
    /// SQLite fails, or the row cannot be read back.
    pub fn decision(&self, id: i64) -> Result<Option<Decision>, StoreError> {
        Ok(self
            .select(&format!("reading decision #{id}"), "WHERE id = ?1", &[&id])?
            .into_iter()
            .next())
    }

    /// The summary state of every record of `dataset` that has one, by record id.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn record_states(&self, dataset: &str) -> Result<HashMap<String, RecordState>, StoreError> {
        let what = format!("reading the record states of dataset {dataset:?}");
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT record_id, reviewed, flagged, outcome, stale FROM record_state \
                 WHERE dataset = ?1",
            )
            .map_err(|e| self.err(&*what, e))?;
        let rows = st
            .query_map([dataset], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    RecordState {
                        reviewed: r.get(1)?,
                        flagged: r.get(2)?,
                        outcome: row::outcome(r, 3)?,
                        stale: r.get(4)?,
                    },
                ))
            })
            .and_then(Iterator::collect::<Result<HashMap<_, _>, _>>)
            .map_err(|e| self.err(&*what, e))?;
        Ok(rows)
    }

    /// One record's summary state, if it has one.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn record_state(
        &self,
        dataset: &str,
        record_id: &str,
    ) -> Result<Option<RecordState>, StoreError> {
        self.conn
            .query_row(
                "SELECT reviewed, flagged, outcome, stale FROM record_state \
                 WHERE dataset = ?1 AND record_id = ?2",
                [dataset, record_id],
                |r| {
                    Ok(RecordState {
                        reviewed: r.get(0)?,
                        flagged: r.get(1)?,
                        outcome: row::outcome(r, 2)?,
                        stale: r.get(3)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(format!("reading the state of record {record_id:?}"), e))
    }

    /// Names of the datasets with decisions or record states, sorted.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn datasets(&self) -> Result<Vec<String>, StoreError> {
        let what = "listing the datasets";
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT dataset FROM decision UNION SELECT dataset FROM record_state ORDER BY 1",
            )
            .map_err(|e| self.err(what, e))?;
        let rows = st
            .query_map([], |r| r.get(0))
            .and_then(Iterator::collect::<Result<Vec<String>, _>>)
            .map_err(|e| self.err(what, e))?;
        Ok(rows)
    }
}
