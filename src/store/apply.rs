//! Appending a checked batch (`spanreview apply`): the decisions are checked against the log
//! as it is under the write lock, then saved with their origins, all or none, in the same
//! transaction, so no other process's decision slips between the check and the save.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::engine::{vals, Conn};
use super::{RecordState, Store, StoreError};
use crate::review::decision::Decision;

/// Ids from this one up are provisional: the ids a batch gives its decisions while it is
/// checked (they sort after every saved one), replaced by the saved ids.
pub const PROVISIONAL: i64 = 1 << 60;

/// How long a batch waits for the write lock: a batch is no keystroke, and waiting behind other
/// writers for longer than the screen's timeout is better than failing. SQLite: the busy
/// timeout of the batch's `BEGIN IMMEDIATE`; PostgreSQL: the `lock_timeout` of its wait for the
/// advisory lock (which otherwise waits without limit), so a batch fails rather than hangs.
pub const BATCH_BUSY_TIMEOUT: Duration = Duration::from_secs(120);

/// The origin of a decision given without one (a line of a triage file): `content:` and the
/// SHA-256 of `canonical`, a serialisation of everything the decision says, so that the same
/// decision given again (the file applied twice, or regenerated) has the same origin and is
/// skipped, while decisions that differ in any value do not share one.
#[must_use]
pub fn derived_origin(canonical: &[u8]) -> String {
    let mut out = String::with_capacity(8 + 64);
    out.push_str("content:");
    for b in Sha256::digest(canonical) {
        let _ = write!(out, "{b:02x}");
    }
    out
}

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
        self.lock_wait(Some(BATCH_BUSY_TIMEOUT))?;
        let r = self.append_batch_locked(plan);
        // Restored after the transaction ended, also when it failed. Not restored is no error:
        // the batch's outcome stands (a committed batch must not be reported as failed), and
        // the connection only waits longer (a lost PostgreSQL session takes the setting along).
        if let Err(e) = self.lock_wait(None) {
            tracing::warn!(error = %e, "the wait for the write lock was not restored");
        }
        r
    }

    fn append_batch_locked<E>(
        &self,
        plan: impl FnOnce(&Self) -> Result<Batch, E>,
    ) -> Result<Result<Vec<Decision>, E>, StoreError> {
        let tx = self.begin()?;
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
        let (saved, first) = self.insert_with_origins(&tx, &batch.rows)?;
        // Each record's state goes with the last decision saved on it.
        let last: HashMap<(&str, &str), i64> = saved
            .iter()
            .map(|s| ((s.dataset.as_str(), s.record_id.as_str()), s.id))
            .collect();
        for (ds, rec, st) in &batch.states {
            let id = last.get(&(ds.as_str(), rec.as_str())).copied();
            self.write_state(&tx, ds, rec, id, st)?;
        }
        // A batch is not kept in memory for a rescue (see `rescue.rs`).
        self.guard.journal.borrow_mut().begin();
        // A COMMIT whose reply was lost is checked by the first row's origin (see `mod.rs`).
        self.commit_checked(tx, &first, "committing the decisions")?;
        Ok(Ok(saved))
    }

    /// Wait at most `wait` for the write lock on this connection from now on (the review
    /// screen: a keystroke's save must not freeze behind a long `apply`; a write refused as
    /// busy ([`StoreError::is_busy`]) is kept and tried again). A batch on this connection
    /// sets its own wait, then the usual one ([`super::BUSY_TIMEOUT`]) again.
    ///
    /// # Errors
    /// The setting cannot be made (PostgreSQL unreachable).
    pub fn set_write_wait(&self, wait: Duration) -> Result<(), StoreError> {
        self.lock_wait(Some(wait))
    }

    /// Set how long this connection waits for the write lock (see [`BATCH_BUSY_TIMEOUT`]);
    /// `None`: back to its usual wait. On PostgreSQL a session setting outside any transaction,
    /// so a rollback does not undo it.
    fn lock_wait(&self, wait: Option<std::time::Duration>) -> Result<(), StoreError> {
        match (&self.conn, wait) {
            (Conn::Sqlite(c), w) => c
                .busy_timeout(w.unwrap_or(super::BUSY_TIMEOUT))
                .map_err(Into::into),
            // Milliseconds: the unit `lock_timeout` reads a bare number in.
            (Conn::Pg(_), Some(w)) => self
                .conn
                .batch(&format!("SET lock_timeout = {}", w.as_millis())),
            // The server's (or the role's) setting again.
            (Conn::Pg(_), None) => self.conn.batch("RESET lock_timeout"),
        }
        .map_err(|e| self.err("setting the wait for the write lock", e))
    }

    /// [`Store::decisions`] (optionally one reviewer's only), each with its origin.
    ///
    /// # Errors
    /// The database cannot be read, or a row cannot be read back.
    pub fn decisions_with_origin(
        &self,
        dataset: Option<&str>,
        reviewer: Option<&str>,
    ) -> Result<Vec<(Decision, String)>, StoreError> {
        let what = "reading the decision log";
        match (dataset, reviewer) {
            (Some(ds), Some(r)) => {
                self.select_with_origin(what, "WHERE dataset = ?1 AND reviewer = ?2", &vals![ds, r])
            }
            (Some(ds), None) => self.select_with_origin(what, "WHERE dataset = ?1", &vals![ds]),
            (None, Some(r)) => self.select_with_origin(what, "WHERE reviewer = ?1", &vals![r]),
            (None, None) => self.select_with_origin(what, "", &[]),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::store::test_db::{on_each_location, stores};

    /// How long `store`'s connection waits for the write lock now, in milliseconds (SQLite's
    /// busy timeout; PostgreSQL's `lock_timeout`, 0: no limit).
    fn wait_ms(store: &Store) -> i64 {
        let sql = match &store.conn {
            Conn::Sqlite(_) => "PRAGMA busy_timeout",
            Conn::Pg(_) => "SELECT setting::bigint FROM pg_settings WHERE name = 'lock_timeout'",
        };
        store.conn.query(sql, &[]).expect("wait")[0]
            .get(0)
            .expect("ms")
    }

    #[test]
    fn a_batch_waits_longer_for_the_lock_and_the_wait_is_restored_after() {
        let batch_ms = i64::try_from(BATCH_BUSY_TIMEOUT.as_millis()).expect("ms");
        for store in stores() {
            let usual = wait_ms(&store);
            assert_ne!(usual, batch_ms);
            for dry_run in [false, true] {
                let mut during = 0;
                store
                    .append_batch(|s| {
                        during = wait_ms(s);
                        Ok::<_, ()>(Batch {
                            dry_run,
                            ..Batch::default()
                        })
                    })
                    .expect("batch")
                    .expect("planned");
                assert_eq!(during, batch_ms, "{:?}", store.conn);
                assert_eq!(wait_ms(&store), usual, "restored: {:?}", store.conn);
            }
            // Refused by its plan (rolled back): restored too.
            let refused = store.append_batch(|_| Err::<Batch, _>("no")).expect("ran");
            assert_eq!(refused.expect_err("refused"), "no");
            assert_eq!(wait_ms(&store), usual);
        }
    }

    /// The wait set is the one the write lock is taken with: a writer behind another gives up
    /// after it (1 ms here; the other holds the lock throughout, so this cannot go either way).
    #[test]
    fn a_writer_behind_another_gives_up_after_its_wait() {
        on_each_location("lock ’.sqlite", |path| {
            let (holder, waiter) = (
                Store::open(path).expect("one"),
                Store::open(path).expect("two"),
            );
            let tx = holder.begin().expect("lock");
            waiter
                .lock_wait(Some(Duration::from_millis(1)))
                .expect("wait");
            let e = waiter.begin().map(drop).expect_err("the lock is held");
            assert!(e.to_string().contains("lock"), "{:?}: {e}", waiter.conn);
            drop(tx);
            waiter.lock_wait(None).expect("restore");
            drop(waiter.begin().expect("free again"));
        });
    }

    /// PostgreSQL: a batch whose COMMIT went through but whose reply was lost is saved, and
    /// said so (a retry of the file would then skip it by its origins).
    #[test]
    fn a_batch_whose_commit_reply_was_lost_is_found_by_its_origin() {
        use crate::review::decision::ActionKind;
        let Some(db) = crate::store::test_db::PgDb::create() else {
            return;
        };
        let store = Store::open(&db.path()).expect("open");
        let Conn::Pg(c) = &store.conn else {
            unreachable!("a URL opens PostgreSQL")
        };
        c.lose_commit_reply.set(true);
        let rows: Vec<(Decision, String)> = ["’°", "東京"]
            .iter()
            .enumerate()
            .map(|(i, note)| {
                let mut d = Decision::about("ds", "ana", "r1", "h", ActionKind::Note);
                d.note = Some((*note).to_owned());
                d.id = PROVISIONAL + i64::try_from(i).expect("i");
                (d, format!("origin-{i}"))
            })
            .collect();
        let saved = store
            .append_batch(|_| {
                Ok::<_, ()>(Batch {
                    rows: rows.clone(),
                    ..Batch::default()
                })
            })
            .expect("committed before the reply was lost: saved")
            .expect("planned");
        assert_eq!(saved.len(), 2);
        assert_eq!(store.decisions(None).expect("log"), saved);
        assert_eq!(
            store.id_with_origin("origin-1").expect("q"),
            Some(saved[1].id)
        );
    }
}
