//! Appending a checked batch (`spanreview apply`): the decisions are checked against the log
//! as it is under the write lock, then saved with their origins, all or none, in the same
//! transaction, so no other process's decision slips between the check and the save.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::engine::{vals, Conn, Value};
use super::{row, state_row};
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

/// Origins looked up in one query by [`Store::ids_with_origins`] (SQLite allows 32,766
/// parameters, PostgreSQL 65,535).
pub const ORIGINS_PER_QUERY: usize = 500;

/// Record states a batch upserts in one statement ([`state_row::N`] values each, 7,000 of
/// SQLite's 32,766 and PostgreSQL's 65,535 parameters).
const STATES_PER_INSERT: usize = 1000;

/// The last id saved on each record, by dataset and record id.
type LastIds = HashMap<(String, String), i64>;

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
    /// Returns how many decisions were saved (none for a dry run or a refused plan).
    ///
    /// # Errors
    /// The database is busy beyond the timeout, cannot be read or written. Nothing is saved.
    pub fn append_batch<E>(
        &self,
        plan: impl FnOnce(&Self) -> Result<Batch, E>,
    ) -> Result<Result<usize, E>, StoreError> {
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
    ) -> Result<Result<usize, E>, StoreError> {
        let tx = self.begin()?;
        let batch = match plan(self) {
            Ok(b) => b,
            Err(e) => return Ok(Err(e)),
        };
        for (d, _) in &batch.rows {
            self.check(d)?;
        }
        if batch.dry_run {
            return Ok(Ok(0));
        }
        let saved = batch.rows.len();
        let (last, first) = self.insert_batch(batch.rows)?;
        // Each record's state goes with the last decision saved on it.
        self.write_states(&tx, &batch.states, &last)?;
        // A batch is not kept in memory for a rescue (see `rescue.rs`).
        self.guard.journal.borrow_mut().begin();
        // A COMMIT whose reply was lost is checked by the first row's origin (see `mod.rs`).
        self.commit_checked(tx, &first, "committing the decisions")?;
        Ok(Ok(saved))
    }

    /// Insert a batch's `rows` (in the open transaction), none copied or kept (a batch is not
    /// in the rescue journal): time set to now when empty, provisional targets mapped to the
    /// ids their rows got. Returns the last id saved on each record (by dataset and record id)
    /// and the first row's origin. SQLite: one prepared statement a row (in process, no round
    /// trip); PostgreSQL: the ids taken from the sequence at once, then every row in one
    /// `COPY … FROM STDIN` (binary), streamed without a statement or a reply per row.
    fn insert_batch(
        &self,
        mut rows: Vec<(Decision, String)>,
    ) -> Result<(LastIds, String), StoreError> {
        let mut last: LastIds = HashMap::new();
        let mut saved_ids: HashMap<i64, i64> = HashMap::new();
        let first_origin = rows.first().map(|(_, o)| o.clone()).unwrap_or_default();
        let pg = matches!(self.conn, Conn::Pg(_));
        let ids = if pg && !rows.is_empty() {
            self.next_ids(rows.len())?
        } else {
            Vec::new()
        };
        if pg && ids.len() != rows.len() {
            return Err(self.invalid(format!(
                "internal: {} ids taken from the sequence for {} decisions",
                ids.len(),
                rows.len()
            )));
        }
        let now = self.now_rfc3339();
        for (i, (d, origin)) in rows.iter_mut().enumerate() {
            if d.time.is_empty() {
                d.time.clone_from(&now);
            }
            if let Some(t) = d.target {
                d.target = Some(self.saved_target(t, &saved_ids, d.action)?);
            }
            let id = match ids.get(i) {
                Some(&id) => id,
                None => row::insert(&self.conn, d, origin)
                    .map_err(|e| self.err(format!("saving a {} decision", d.action.name()), e))?,
            };
            if d.id >= PROVISIONAL {
                saved_ids.insert(d.id, id);
            }
            last.insert((d.dataset.clone(), d.record_id.clone()), id);
        }
        if pg {
            let with_ids = ids
                .iter()
                .zip(&rows)
                .map(|(id, (d, o))| (*id, d, o.as_str()));
            row::copy_with_ids(&self.conn, with_ids)
                .map_err(|e| self.err("saving the decisions", e))?;
        }
        Ok((last, first_origin))
    }

    /// Write a batch's record `states` (in `_tx`), each pointing at the last decision saved on
    /// its record (`last`), [`STATES_PER_INSERT`] a statement: an upsert, as a record may have
    /// a state already (which a `COPY` cannot update). No two states of a batch are on one
    /// record.
    fn write_states(
        &self,
        _tx: &super::Tx<'_>,
        states: &[(String, String, RecordState)],
        last: &LastIds,
    ) -> Result<(), StoreError> {
        for chunk in states.chunks(STATES_PER_INSERT) {
            let mut params = Vec::with_capacity(chunk.len() * state_row::N);
            for (ds, rec, st) in chunk {
                let id = last.get(&(ds.clone(), rec.clone())).copied();
                params.extend(state_row::values(ds, rec, id, st));
            }
            self.conn
                .execute(&state_row::upsert(chunk.len()), &params)
                .map_err(|e| self.err("saving the states of the records", e))?;
        }
        Ok(())
    }

    /// `n` new decision ids from the table's sequence (PostgreSQL), ascending: under the write
    /// lock, so every later row gets a higher one. The sequence is looked up once (named in
    /// each row's `nextval`, the lookup made 100,000 times cost 5× the ids themselves), and
    /// the ids read back as one row (as text, comma-separated), not a row an id.
    fn next_ids(&self, n: usize) -> Result<Vec<i64>, StoreError> {
        let what = "taking ids for the decisions";
        let seq: i64 = self
            .conn
            .query_opt(
                "SELECT pg_get_serial_sequence('decision', 'id')::regclass::oid::bigint",
                &[],
            )
            .and_then(|r| r.map_or(Ok(None), |r| r.get(0)))
            .map_err(|e| self.err(what, e))?
            .ok_or_else(|| self.invalid("internal: the log's id has no sequence".to_owned()))?;
        let row = self
            .conn
            .query_opt(
                "SELECT string_agg(v::text, ',' ORDER BY v) FROM \
                 (SELECT nextval(?1::bigint::oid::regclass) AS v \
                 FROM generate_series(1, ?2::bigint)) AS ids",
                &vals![seq, i64::try_from(n).unwrap_or(i64::MAX)],
            )
            .map_err(|e| self.err(what, e))?;
        let text: Option<String> = match row {
            Some(r) => r.get(0).map_err(|e| self.err(what, e))?,
            None => None,
        };
        text.as_deref()
            .unwrap_or_default()
            .split(',')
            .filter(|id| !id.is_empty())
            .map(|id| {
                id.parse::<i64>()
                    .map_err(|e| self.invalid(format!("internal: sequence value {id:?}: {e}")))
            })
            .collect()
    }

    /// The ids of the decisions with these origins, by origin (those the log holds): one
    /// query for a chunk of lines, not one a line (a round trip each on PostgreSQL).
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn ids_with_origins(&self, origins: &[&str]) -> Result<HashMap<String, i64>, StoreError> {
        let mut found = HashMap::new();
        for chunk in origins.chunks(ORIGINS_PER_QUERY) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("?{i}")).collect();
            let sql = format!(
                "SELECT origin, id FROM decision WHERE origin IN ({})",
                marks.join(", ")
            );
            let params: Vec<Value> = chunk.iter().map(|o| Value::Text((*o).to_owned())).collect();
            let rows = self
                .conn
                .query(&sql, &params)
                .map_err(|e| self.err("looking up the origins of the lines", e))?;
            for r in rows {
                let pair: Result<(String, i64), _> = r.get(0).and_then(|o| Ok((o, r.get(1)?)));
                let (o, id) =
                    pair.map_err(|e| self.err("looking up the origins of the lines", e))?;
                found.insert(o, id);
            }
        }
        Ok(found)
    }

    /// Where the log stands: its highest id and its number of rows. The log only grows (rows
    /// are never changed or deleted) and ids are given under the write lock, so a log with the
    /// same mark as before holds the same decisions: `apply` checks its file against the log
    /// without the write lock, then saves under it if the mark has not moved.
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn log_mark(&self) -> Result<(Option<i64>, i64), StoreError> {
        self.conn
            .query_opt("SELECT MAX(id), COUNT(*) FROM decision", &[])
            .and_then(|r| r.map_or(Ok((None, 0)), |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(|e| self.err("reading where the decision log stands", e))
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
mod batch_tests;

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

    /// The mark moves with every decision another connection saves, and only then (what lets
    /// `apply` save what it checked without the lock); origins are found in one query, those
    /// the log lacks left out.
    #[test]
    fn the_log_mark_moves_when_a_decision_is_saved_and_origins_are_found_at_once() {
        use crate::review::decision::ActionKind;
        for store in stores() {
            let empty = store.log_mark().expect("mark");
            assert_eq!(empty, (None, 0));
            assert_eq!(store.log_mark().expect("mark"), empty, "nothing written");
            let mut d = Decision::about("ds", "ana", "東京 👋", "h", ActionKind::Note);
            d.note = Some("’°".into());
            let saved = store.append(&d, None).expect("append");
            let one = store.log_mark().expect("mark");
            assert_eq!(one, (Some(saved.id), 1));
            store.append(&d, None).expect("append");
            assert_ne!(store.log_mark().expect("mark"), one);
            let origins: Vec<(Decision, String)> =
                store.decisions_with_origin(None, None).expect("log");
            let asked: Vec<&str> = origins
                .iter()
                .map(|(_, o)| o.as_str())
                .chain(["content:not-there"])
                .collect();
            let found = store.ids_with_origins(&asked).expect("found");
            assert_eq!(found.len(), 2);
            for (d, o) in &origins {
                assert_eq!(found.get(o), Some(&d.id));
            }
        }
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
        assert_eq!(saved, 2);
        let log = store.decisions(None).expect("log");
        let notes: Vec<_> = log.iter().map(|d| d.note.as_deref()).collect();
        assert_eq!(notes, [Some("’°"), Some("東京")]);
        assert_eq!(
            store.id_with_origin("origin-1").expect("q"),
            Some(log[1].id)
        );
    }
}
