//! Reading the log and the record states back.

use std::collections::HashMap;

use super::engine::{vals, Row, Value};
use super::{row, RecordState, Store, StoreError};
use crate::review::decision::Decision;

impl Store {
    fn select(
        &self,
        what: &str,
        filter: &str,
        args: &[Value],
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
        args: &[Value],
    ) -> Result<Vec<(Decision, String)>, StoreError> {
        let sql = format!("SELECT {} FROM decision {filter} ORDER BY id", row::COLUMNS);
        let rows: Vec<_> = self
            .conn
            .query(&sql, args)
            .and_then(|rows| rows.iter().map(row::read).collect())
            .map_err(|e| self.err(what, e))?;
        // A read command told "no decisions" of a damaged file (one a stale log was replayed
        // into): an empty answer is checked, which costs little when the log is small.
        if rows.is_empty() && self.guard.verify_empty {
            self.check_whole()?;
        }
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
                &vals![ds],
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
            &vals![dataset, record_id],
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
            &vals![dataset, reviewer],
        )
    }

    /// The decision with this id.
    ///
    /// # Errors
    /// SQLite fails, or the row cannot be read back.
    pub fn decision(&self, id: i64) -> Result<Option<Decision>, StoreError> {
        Ok(self
            .select(
                &format!("reading decision #{id}"),
                "WHERE id = ?1",
                &vals![id],
            )?
            .into_iter()
            .next())
    }

    /// The summary state of every record of `dataset` that has one, by record id.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn record_states(&self, dataset: &str) -> Result<HashMap<String, RecordState>, StoreError> {
        let what = format!("reading the record states of dataset {dataset:?}");
        self.conn
            .query(
                "SELECT record_id, reviewed, flagged, outcome, stale FROM record_state \
                 WHERE dataset = ?1",
                &vals![dataset],
            )
            .and_then(|rows| {
                rows.iter()
                    .map(|r| Ok((r.get::<String>(0)?, state_at(r, 1)?)))
                    .collect()
            })
            .map_err(|e| self.err(what, e))
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
            .query_opt(
                "SELECT reviewed, flagged, outcome, stale FROM record_state \
                 WHERE dataset = ?1 AND record_id = ?2",
                &vals![dataset, record_id],
            )
            .and_then(|r| r.map(|r| state_at(&r, 0)).transpose())
            .map_err(|e| self.err(format!("reading the state of record {record_id:?}"), e))
    }

    /// How far the log of `dataset` is: its number of decisions and its last id (0 when none),
    /// which change with every decision appended (a `--judge` database's stand-in for a hash).
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn log_stamp(&self, dataset: &str) -> Result<(i64, i64), StoreError> {
        self.conn
            .query_opt(
                "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM decision WHERE dataset = ?1",
                &vals![dataset],
            )
            .and_then(|r| r.map_or(Ok((0, 0)), |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(|e| self.err(format!("reading how far dataset {dataset:?} is"), e))
    }

    /// Names of the datasets with decisions or record states, sorted.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn datasets(&self) -> Result<Vec<String>, StoreError> {
        self.conn
            .query(
                "SELECT dataset FROM decision UNION SELECT dataset FROM record_state ORDER BY 1",
                &[],
            )
            .and_then(|rows| rows.iter().map(|r| r.get(0)).collect())
            // Sorted here: PostgreSQL's ORDER BY follows the database's collation.
            .map(|mut names: Vec<String>| {
                names.sort_unstable();
                names
            })
            .map_err(|e| self.err("listing the datasets", e))
    }
}

/// The record state in the four columns from `at` (reviewed, flagged, outcome, stale).
pub(super) fn state_at(r: &Row, at: usize) -> Result<RecordState, super::DbError> {
    Ok(RecordState {
        reviewed: r.get(at)?,
        flagged: r.get(at + 1)?,
        outcome: row::outcome(r, at + 2)?,
        stale: r.get(at + 3)?,
    })
}
