//! Team review on one shared database: claims on the records on reviewers' screens (table
//! `claim`, migration 0006), and what the team decided since a screen last looked.
//!
//! A claim says "this record is on ana's screen until `expires`" so that a second reviewer is
//! served another record. Claims are working state, not the log: they are replaced, renewed and
//! deleted. Taking one is a single `INSERT … ON CONFLICT DO UPDATE … WHERE` (same reviewer, or
//! the old claim expired) inside one write transaction (SQLite's `BEGIN IMMEDIATE`, PostgreSQL's
//! advisory lock: see `engine.rs`), so of two processes claiming one record exactly one wins,
//! on either engine. Expiry is judged by the store's clock
//! ([`Store::set_clock`]), so tests step time instead of sleeping.

use std::collections::HashMap;
use std::time::Duration;

use super::engine::{vals, DbError};
use super::{rfc3339, Store, StoreError};
use crate::review::decision::Decision;

/// How long a claim lasts unless renewed: a screen renews it every [`CLAIM_RENEW`] while the
/// record stays on it, so a claim outlives its screen (a killed process, a lost connection) by
/// at most this.
pub const CLAIM_TTL: Duration = Duration::from_secs(5 * 60);

/// How often a screen renews the claim on the record it shows.
pub const CLAIM_RENEW: Duration = Duration::from_secs(60);

/// What claiming a record found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The record is this reviewer's until the time given (RFC 3339 UTC).
    Won {
        /// When the claim lapses unless renewed.
        expires: String,
    },
    /// Another reviewer holds a claim that has not expired.
    Held {
        /// Who.
        by: String,
    },
}

impl Store {
    /// Claim `record_id` of `dataset` for `reviewer` for `ttl` from now (renewing it when the
    /// claim is theirs already, taking it over when the holder's expired), and release their
    /// claim on `leaving` (the record they move away from) in the same transaction.
    ///
    /// # Errors
    /// The database is busy beyond the timeout, or the write fails; nothing changed then.
    pub fn claim(
        &self,
        dataset: &str,
        record_id: &str,
        reviewer: &str,
        ttl: Duration,
        leaving: Option<&str>,
    ) -> Result<Claim, StoreError> {
        let what = format!("claiming record {record_id:?} of dataset {dataset:?}");
        let now = self.now();
        let expires = rfc3339(now + ttl);
        let tx = self.begin()?;
        if let Some(old) = leaving.filter(|&o| o != record_id) {
            self.conn
                .execute(
                    "DELETE FROM claim WHERE dataset = ?1 AND record_id = ?2 AND reviewer = ?3",
                    &vals![dataset, old, reviewer],
                )
                .map_err(|e| self.err(what.clone(), e))?;
        }
        // RFC 3339 stamps of one fixed-width format compare as text in time order (on
        // PostgreSQL under any collation too: they differ only in digits at the same places).
        let won = self
            .conn
            .execute(
                "INSERT INTO claim (dataset, record_id, reviewer, expires) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (dataset, record_id) DO UPDATE SET reviewer = excluded.reviewer, \
                 expires = excluded.expires \
                 WHERE claim.reviewer = excluded.reviewer OR claim.expires <= ?5",
                &vals![dataset, record_id, reviewer, expires, rfc3339(now)],
            )
            .map_err(|e| self.err(what.clone(), e))?
            == 1;
        let out = if won {
            Claim::Won { expires }
        } else {
            let by: String = self
                .conn
                .query_opt(
                    "SELECT reviewer FROM claim WHERE dataset = ?1 AND record_id = ?2",
                    &vals![dataset, record_id],
                )
                .and_then(|r| {
                    r.ok_or_else(|| DbError::Decode {
                        column: 0,
                        message: "internal: the claim that was not taken is not there".into(),
                    })?
                    .get(0)
                })
                .map_err(|e| self.err(what.clone(), e))?;
            Claim::Held { by }
        };
        tx.commit().map_err(|e| self.err(what, e))?;
        Ok(out)
    }

    /// Release `reviewer`'s claim on `record_id` (`None`: every claim of theirs on `dataset`,
    /// when their screen closes). Another reviewer's claim is left alone.
    ///
    /// # Errors
    /// The database is busy beyond the timeout, or the write fails.
    pub fn release_claim(
        &self,
        dataset: &str,
        record_id: Option<&str>,
        reviewer: &str,
    ) -> Result<(), StoreError> {
        let what = format!("releasing the claims of {reviewer:?} on dataset {dataset:?}");
        self.check_in_place()?;
        match record_id {
            Some(id) => self.conn.execute(
                "DELETE FROM claim WHERE dataset = ?1 AND record_id = ?2 AND reviewer = ?3",
                &vals![dataset, id, reviewer],
            ),
            None => self.conn.execute(
                "DELETE FROM claim WHERE dataset = ?1 AND reviewer = ?2",
                &vals![dataset, reviewer],
            ),
        }
        .map_err(|e| self.err(what, e))?;
        Ok(())
    }

    /// Who holds a live (unexpired) claim on `record_id`, if anyone.
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn claim_holder(
        &self,
        dataset: &str,
        record_id: &str,
    ) -> Result<Option<String>, StoreError> {
        self.conn
            .query_opt(
                "SELECT reviewer FROM claim WHERE dataset = ?1 AND record_id = ?2 AND expires > ?3",
                &vals![dataset, record_id, self.now_rfc3339()],
            )
            .and_then(|r| r.map(|r| r.get(0)).transpose())
            .map_err(|e| self.err(format!("reading the claim on record {record_id:?}"), e))
    }

    /// The live claims on `dataset` held by reviewers other than `reviewer`: record id → holder.
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn claims_of_others(
        &self,
        dataset: &str,
        reviewer: &str,
    ) -> Result<HashMap<String, String>, StoreError> {
        self.conn
            .query(
                "SELECT record_id, reviewer FROM claim \
                 WHERE dataset = ?1 AND reviewer <> ?2 AND expires > ?3",
                &vals![dataset, reviewer, self.now_rfc3339()],
            )
            .and_then(|rows| rows.iter().map(|r| Ok((r.get(0)?, r.get(1)?))).collect())
            .map_err(|e| self.err(format!("reading the claims on dataset {dataset:?}"), e))
    }

    /// The id of the last decision saved (0 for an empty log): where a screen starts polling.
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn last_decision_id(&self) -> Result<i64, StoreError> {
        self.conn
            .query_opt("SELECT COALESCE(MAX(id), 0) FROM decision", &[])
            .and_then(|r| r.map_or(Ok(0), |r| r.get(0)))
            .map_err(|e| self.err("reading the last decision id", e))
    }

    /// The decisions on `dataset` saved after decision `after` (every reviewer's, this one's
    /// too), in log order: what a screen polls to follow the team.
    ///
    /// # Errors
    /// The database cannot be read, or a row cannot be read back.
    pub fn decisions_after(&self, dataset: &str, after: i64) -> Result<Vec<Decision>, StoreError> {
        Ok(self
            .select_with_origin(
                &format!("reading the new decisions on dataset {dataset:?}"),
                "WHERE id > ?2 AND dataset = ?1",
                &vals![dataset, after],
            )?
            .into_iter()
            .map(|(d, _)| d)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::decision::ActionKind;
    use crate::store::test_db::{on_each_location, stores};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::{SystemTime, UNIX_EPOCH};

    /// A clock reading `secs` (shared, so a test can move it).
    fn clock_at(store: &Store, secs: &Arc<AtomicU64>) {
        let s = Arc::clone(secs);
        store.set_clock(Arc::new(move || {
            UNIX_EPOCH + Duration::from_secs(s.load(Ordering::SeqCst))
        }));
    }

    const T0: u64 = 1_790_000_000;

    #[test]
    fn a_claim_holds_until_it_expires_and_renewing_extends_it() {
        on_each_location("team °.sqlite", claim_expiry);
    }

    /// Two reviewers' stores on the database at `path`.
    fn claim_expiry(path: &std::path::Path) {
        let (ana, bo) = (
            Store::open(path).expect("ana"),
            Store::open(path).expect("bo"),
        );
        let secs = Arc::new(AtomicU64::new(T0));
        clock_at(&ana, &secs);
        clock_at(&bo, &secs);
        let ttl = Duration::from_secs(300);
        let id = "记录’1";
        assert!(matches!(
            ana.claim("ds", id, "ana", ttl, None).expect("claim"),
            Claim::Won { .. }
        ));
        assert_eq!(
            bo.claim("ds", id, "bo", ttl, None).expect("claim"),
            Claim::Held { by: "ana".into() }
        );
        assert_eq!(bo.claim_holder("ds", id).expect("q"), Some("ana".into()));
        assert_eq!(
            bo.claims_of_others("ds", "bo").expect("q"),
            HashMap::from([(id.to_owned(), "ana".to_owned())])
        );
        assert!(ana.claims_of_others("ds", "ana").expect("q").is_empty());
        // 4 minutes on, ana renews: the claim now runs to 9 minutes after T0.
        secs.store(T0 + 240, Ordering::SeqCst);
        assert!(matches!(
            ana.claim("ds", id, "ana", ttl, None).expect("renew"),
            Claim::Won { .. }
        ));
        secs.store(T0 + 360, Ordering::SeqCst);
        assert_eq!(
            bo.claim("ds", id, "bo", ttl, None).expect("claim"),
            Claim::Held { by: "ana".into() },
            "renewed: not expired at 6 minutes"
        );
        // Past the renewed expiry: the claim is void and bo takes it over.
        secs.store(T0 + 540, Ordering::SeqCst);
        assert_eq!(bo.claim_holder("ds", id).expect("q"), None);
        assert!(bo.claims_of_others("ds", "bo").expect("q").is_empty());
        assert!(matches!(
            bo.claim("ds", id, "bo", ttl, None).expect("claim"),
            Claim::Won { .. }
        ));
        assert_eq!(
            ana.claim("ds", id, "ana", ttl, None).expect("claim"),
            Claim::Held { by: "bo".into() }
        );
        // Another dataset's record of the same id is another record.
        assert!(matches!(
            ana.claim("other", id, "ana", ttl, None).expect("claim"),
            Claim::Won { .. }
        ));
    }

    #[test]
    fn moving_on_and_quitting_release_only_ones_own_claims() {
        for store in stores() {
            release(&store);
        }
    }

    fn release(store: &Store) {
        let ttl = CLAIM_TTL;
        store.claim("ds", "r1", "ana", ttl, None).expect("c");
        store.claim("ds", "r9", "bo", ttl, None).expect("c");
        // Moving from r1 to r2 releases r1 in the same transaction.
        store.claim("ds", "r2", "ana", ttl, Some("r1")).expect("c");
        assert_eq!(store.claim_holder("ds", "r1").expect("q"), None);
        assert_eq!(
            store.claim_holder("ds", "r2").expect("q"),
            Some("ana".into())
        );
        // Leaving a record someone else holds does not release theirs.
        store.claim("ds", "r3", "ana", ttl, Some("r9")).expect("c");
        assert_eq!(
            store.claim_holder("ds", "r9").expect("q"),
            Some("bo".into())
        );
        store.release_claim("ds", Some("r9"), "ana").expect("r");
        assert_eq!(
            store.claim_holder("ds", "r9").expect("q"),
            Some("bo".into())
        );
        store.release_claim("ds", None, "ana").expect("r");
        assert_eq!(store.claim_holder("ds", "r2").expect("q"), None);
        assert_eq!(store.claim_holder("ds", "r3").expect("q"), None);
        assert_eq!(
            store.claim_holder("ds", "r9").expect("q"),
            Some("bo".into())
        );
    }

    #[test]
    fn of_many_processes_claiming_one_record_at_once_exactly_one_wins() {
        on_each_location("race.sqlite", race);
    }

    /// 8 connections (as 8 processes) claim one record at once, five times.
    fn race(path: &std::path::Path) {
        drop(Store::open(path).expect("create"));
        for round in 0..5 {
            let record = format!("r{round}");
            let barrier = Arc::new(std::sync::Barrier::new(8));
            let handles: Vec<_> = (0..8)
                .map(|k| {
                    let (path, record, barrier) =
                        (path.to_owned(), record.clone(), Arc::clone(&barrier));
                    std::thread::spawn(move || {
                        let store = Store::open(&path).expect("open");
                        barrier.wait();
                        let who = format!("reviewer{k}");
                        let c = store
                            .claim("ds", &record, &who, CLAIM_TTL, None)
                            .expect("claim");
                        (who, c)
                    })
                })
                .collect();
            let results: Vec<(String, Claim)> = handles
                .into_iter()
                .map(|h| h.join().expect("thread"))
                .collect();
            let winners: Vec<&String> = results
                .iter()
                .filter(|(_, c)| matches!(c, Claim::Won { .. }))
                .map(|(w, _)| w)
                .collect();
            assert_eq!(winners.len(), 1, "round {round}: {results:?}");
            for (_, c) in &results {
                if let Claim::Held { by } = c {
                    assert_eq!(by, winners[0], "every loser names the winner");
                }
            }
        }
    }

    #[test]
    fn decisions_after_an_id_are_the_new_ones_of_that_dataset() {
        for store in stores() {
            decisions_after(&store);
        }
    }

    fn decisions_after(store: &Store) {
        assert_eq!(store.last_decision_id().expect("empty log"), 0);
        store.set_clock(Arc::new(|| {
            SystemTime::UNIX_EPOCH + Duration::from_secs(T0)
        }));
        let mut ids = Vec::new();
        for (ds, who) in [("ds", "ana"), ("other", "bo"), ("ds", "bo"), ("ds", "ana")] {
            let d = Decision::about(ds, who, "r1", "h", ActionKind::Flag);
            ids.push(store.append(&d, None).expect("append").id);
        }
        let all = store.decisions_after("ds", 0).expect("q");
        assert_eq!(
            all.iter().map(|d| d.id).collect::<Vec<_>>(),
            [ids[0], ids[2], ids[3]]
        );
        let new = store.decisions_after("ds", ids[0]).expect("q");
        assert_eq!(
            new.iter().map(|d| d.id).collect::<Vec<_>>(),
            [ids[2], ids[3]]
        );
        assert!(store.decisions_after("ds", ids[3]).expect("q").is_empty());
        assert_eq!(store.last_decision_id().expect("q"), ids[3]);
    }
}
