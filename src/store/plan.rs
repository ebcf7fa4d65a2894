//! The assignment plan of team review (`spanreview assign`, migration 0006).
//!
//! Each assignment writes a whole new generation of the dataset's plan in one transaction; the
//! latest generation stands. Rows are never changed, so the plans a re-assignment replaced stay
//! in the database.

use super::engine::vals;
use super::{Store, StoreError};

/// One record's place in a plan: the reviewers who review it (two or more on overlap
/// records), as the planner makes it ([`crate::review::assign::plan`]) and the store keeps it.
pub use crate::review::assign::Assigned as Assignment;

impl Store {
    /// Save `plan` as the dataset's new plan (the next generation), in one transaction. Returns
    /// the generation written.
    ///
    /// # Errors
    /// The database is busy beyond the timeout, or the write fails; nothing is saved then.
    pub fn save_plan(&self, dataset: &str, plan: &[Assignment]) -> Result<i64, StoreError> {
        let what = format!("saving the assignment plan of dataset {dataset:?}");
        let time = self.now_rfc3339();
        let tx = self.begin()?;
        let generation: i64 = self
            .conn
            .query_opt(
                "SELECT COALESCE(MAX(generation), 0) + 1 FROM assignment WHERE dataset = ?1",
                &vals![dataset],
            )
            .and_then(|r| r.map_or(Ok(1), |r| r.get(0)))
            .map_err(|e| self.err(what.clone(), e))?;
        for a in plan {
            for r in &a.reviewers {
                self.conn
                    .execute(
                        "INSERT INTO assignment (dataset, generation, record_id, reviewer, time) \
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                        &vals![dataset, generation, a.record_id, r, time],
                    )
                    .map_err(|e| self.err(what.clone(), e))?;
            }
        }
        tx.commit().map_err(|e| self.err(what, e))?;
        Ok(generation)
    }

    /// The dataset's standing plan (its latest generation), records in the order they were
    /// written; `None` when the dataset was never assigned.
    ///
    /// # Errors
    /// SQLite fails.
    pub fn plan(&self, dataset: &str) -> Result<Option<Vec<Assignment>>, StoreError> {
        let what = format!("reading the assignment plan of dataset {dataset:?}");
        let generation: Option<i64> = self
            .conn
            .query_opt(
                "SELECT MAX(generation) FROM assignment WHERE dataset = ?1",
                &vals![dataset],
            )
            .and_then(|r| r.map_or(Ok(None), |r| r.get(0)))
            .map_err(|e| self.err(what.clone(), e))?;
        let Some(generation) = generation else {
            return Ok(None);
        };
        let rows: Vec<(String, String)> = self
            .conn
            .query(
                "SELECT record_id, reviewer FROM assignment \
                 WHERE dataset = ?1 AND generation = ?2 ORDER BY id",
                &vals![dataset, generation],
            )
            .and_then(|rows| rows.iter().map(|r| Ok((r.get(0)?, r.get(1)?))).collect())
            .map_err(|e| self.err(what, e))?;
        let mut plan: Vec<Assignment> = Vec::new();
        for (record_id, reviewer) in rows {
            match plan.last_mut() {
                Some(a) if a.record_id == record_id => a.reviewers.push(reviewer),
                _ => plan.push(Assignment {
                    record_id,
                    reviewers: vec![reviewer],
                }),
            }
        }
        Ok(Some(plan))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(id: &str, reviewers: &[&str]) -> Assignment {
        Assignment {
            record_id: id.into(),
            reviewers: reviewers.iter().map(|&r| r.to_owned()).collect(),
        }
    }

    #[test]
    fn the_latest_plan_stands_and_the_old_one_is_kept() {
        for store in crate::store::test_db::stores() {
            let store = &*store;
            assert_eq!(store.plan("ds").expect("plan"), None);
            let first = vec![a("r1", &["ana"]), a("r2", &["ana", "bo"])];
            assert_eq!(store.save_plan("ds", &first).expect("save"), 1);
            assert_eq!(store.plan("ds").expect("plan"), Some(first));
            let second = vec![a("r1", &["cy"]), a("r2", &["ana", "cy"])];
            assert_eq!(store.save_plan("ds", &second).expect("save"), 2);
            assert_eq!(store.plan("ds").expect("plan"), Some(second));
            assert_eq!(store.plan("other").expect("plan"), None);
            let kept: i64 = store
                .conn
                .query("SELECT COUNT(*) FROM assignment", &[])
                .expect("count")[0]
                .get(0)
                .expect("count");
            assert_eq!(kept, 6);
        }
    }

    #[test]
    fn a_plan_row_cannot_be_changed_or_deleted() {
        for store in crate::store::test_db::stores() {
            let store = &*store;
            store.save_plan("ds", &[a("r1", &["ana"])]).expect("save");
            for sql in [
                "UPDATE assignment SET reviewer = 'bo'",
                "DELETE FROM assignment",
            ] {
                let e = store.conn.execute(sql, &[]).expect_err("refused");
                assert!(e.to_string().contains("never"), "{sql}: {e}");
            }
        }
    }
}
