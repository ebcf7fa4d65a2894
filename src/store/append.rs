//! Appending several decisions in one transaction: a batch (an arbitration resolution, a
//! claim placed), or one decision per record with each record's new state.

use std::collections::HashMap;

use super::{new_origin, row, RecordState, Store, StoreError, PROVISIONAL};
use crate::review::decision::{ActionKind, Decision};

impl Store {
    /// Append several decisions (and, when given, the record's new state) in one IMMEDIATE
    /// transaction, committed before returning; all or none are saved. Returns them as saved.
    ///
    /// # Errors
    /// As [`Store::append`], for any of them.
    pub fn append_all(
        &self,
        decisions: &[Decision],
        state: Option<&RecordState>,
    ) -> Result<Vec<Decision>, StoreError> {
        for d in decisions {
            self.check(d)?;
        }
        let tx = self.begin()?;
        let (saved, origin) = self.insert_rows(&tx, decisions)?;
        if let (Some(st), Some(last)) = (state, saved.last()) {
            self.upsert_state(&tx, last, st)?;
        }
        self.commit_checked(tx, &origin, "committing the decisions")?;
        Ok(saved)
    }

    /// Append decisions on one record, all or none, with the record's state computed inside
    /// the same IMMEDIATE transaction by `state_of` from the record's whole log as it is then
    /// (every reviewer's decisions, the new ones included with their ids): a decision another
    /// process saved since the caller last read the record is counted, never overwritten by a
    /// state computed without it. Returns the decisions as saved.
    ///
    /// # Errors
    /// As [`Store::append_all`]; also when the decisions are not all on one record. Nothing is
    /// saved on error.
    pub fn append_all_then(
        &self,
        decisions: &[Decision],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, StoreError> {
        let rows: Vec<(Decision, String)> = decisions
            .iter()
            .map(|d| (d.clone(), new_origin()))
            .collect();
        self.append_all_then_with_origins(&rows, state_of)
    }

    /// [`Store::append_all_then`] with the origins given: saving the same rows again (a retry
    /// after a lost connection) saves nothing when the first one's origin is in the log already
    /// (the COMMIT landed, its reply was lost) and returns them as saved then.
    ///
    /// # Errors
    /// As [`Store::append_all_then`].
    pub fn append_all_then_with_origins(
        &self,
        rows: &[(Decision, String)],
        state_of: &dyn Fn(&[Decision]) -> RecordState,
    ) -> Result<Vec<Decision>, StoreError> {
        let Some((first, first_origin)) = rows.first() else {
            return Ok(Vec::new());
        };
        if rows
            .iter()
            .any(|(d, _)| d.dataset != first.dataset || d.record_id != first.record_id)
        {
            return Err(self.invalid(
                "internal: decisions on several records saved with one record state".to_owned(),
            ));
        }
        for (d, _) in rows {
            self.check(d)?;
        }
        let tx = self.begin()?;
        if self.id_with_origin(first_origin)?.is_some() {
            drop(tx);
            return self.saved_with_origins(rows);
        }
        let (saved, origin) = self.insert_with_origins(&tx, rows)?;
        let log = self.record_decisions(&first.dataset, &first.record_id)?;
        let state = state_of(&log);
        if let Some(last) = saved.last() {
            self.upsert_state(&tx, last, &state)?;
        }
        self.commit_checked(tx, &origin, "committing the decisions")?;
        Ok(saved)
    }

    /// Append decisions on different records, each with its record's new state, in one
    /// IMMEDIATE transaction: all or none (one fsync for many, as the review screen's
    /// auto-accepts need). Returns the decisions as saved.
    ///
    /// # Errors
    /// As [`Store::append_all`], for any of them. Nothing is saved on error.
    pub fn append_each(
        &self,
        rows: &[(Decision, RecordState)],
    ) -> Result<Vec<Decision>, StoreError> {
        self.append_rows(rows, false)
    }

    /// The review screen's auto-accepts: [`Store::append_each`] for the rows on records that
    /// still have no decision when the transaction holds the write lock. A record another
    /// reviewer decided on since the screen last looked is left to them: its row is skipped, so
    /// an automatic decision never lands on a human one, nor overwrites its stored state.
    /// Returns the rows saved.
    ///
    /// # Errors
    /// As [`Store::append_each`].
    pub fn append_auto_accepts(
        &self,
        rows: &[(Decision, RecordState)],
    ) -> Result<Vec<Decision>, StoreError> {
        self.append_rows(rows, true)
    }

    /// [`Store::append_each`]; with `only_undecided`, the rows on records with decisions in
    /// the log by the time the transaction holds the write lock are left out.
    fn append_rows(
        &self,
        rows: &[(Decision, RecordState)],
        only_undecided: bool,
    ) -> Result<Vec<Decision>, StoreError> {
        for (d, _) in rows {
            self.check(d)?;
        }
        let tx = self.begin()?;
        let mut kept: Vec<(Decision, String)> = Vec::new();
        let mut states: Vec<&RecordState> = Vec::new();
        for (d, st) in rows {
            if !only_undecided || self.record_decisions(&d.dataset, &d.record_id)?.is_empty() {
                kept.push((d.clone(), new_origin()));
                states.push(st);
            }
        }
        if kept.is_empty() {
            return Ok(Vec::new());
        }
        let (saved, first_origin) = self.insert_with_origins(&tx, &kept)?;
        for (s, st) in saved.iter().zip(states) {
            self.upsert_state(&tx, s, st)?;
        }
        self.commit_checked(tx, &first_origin, "committing the decisions")?;
        Ok(saved)
    }

    /// The rows already in the log, by their origins, as saved (in the given order).
    fn saved_with_origins(&self, rows: &[(Decision, String)]) -> Result<Vec<Decision>, StoreError> {
        let Some((first, _)) = rows.first() else {
            return Ok(Vec::new());
        };
        let log = self.decisions_with_origin(Some(&first.dataset), Some(&first.reviewer))?;
        rows.iter()
            .map(|(_, o)| {
                log.iter()
                    .find(|(_, lo)| lo == o)
                    .map(|(d, _)| d.clone())
                    .ok_or_else(|| self.invalid(format!("internal: origin {o} saved only in part")))
            })
            .collect()
    }

    /// Insert `decisions` in `tx` with new origins (see [`Store::insert_with_origins`]).
    fn insert_rows(
        &self,
        tx: &super::Tx<'_>,
        decisions: &[Decision],
    ) -> Result<(Vec<Decision>, String), StoreError> {
        let rows: Vec<(Decision, String)> = decisions
            .iter()
            .map(|d| (d.clone(), new_origin()))
            .collect();
        self.insert_with_origins(tx, &rows)
    }

    /// Insert `rows` in `tx` (time set to now when empty); returns them with their ids, and the
    /// first one's origin (empty when none). An undo or redo's target is a decision in the log,
    /// or (from [`PROVISIONAL`] up, in a batch) the provisional id of an earlier row, saved as
    /// the id that row got.
    pub(super) fn insert_with_origins(
        &self,
        _tx: &super::Tx<'_>,
        rows: &[(Decision, String)],
    ) -> Result<(Vec<Decision>, String), StoreError> {
        let mut saved = Vec::with_capacity(rows.len());
        let mut first_origin = String::new();
        let mut saved_ids: HashMap<i64, i64> = HashMap::new();
        for (d, origin) in rows {
            let mut s = d.clone();
            if s.time.is_empty() {
                s.time = self.now_rfc3339();
            }
            if let Some(t) = s.target {
                s.target = Some(self.saved_target(t, &saved_ids, s.action)?);
            }
            s.id = row::insert(&self.conn, &s, origin)
                .map_err(|e| self.err(format!("saving a {} decision", s.action.name()), e))?;
            self.guard.journal.borrow_mut().wrote(&s, origin);
            if d.id >= PROVISIONAL {
                saved_ids.insert(d.id, s.id);
            }
            saved.push(s);
            if first_origin.is_empty() {
                first_origin.clone_from(origin);
            }
        }
        Ok((saved, first_origin))
    }

    /// The id an undo or redo (`action`) of decision `t` is saved with: `t` when it is in the
    /// log, the id a provisional `t` was saved with (`saved_ids`).
    pub(super) fn saved_target(
        &self,
        t: i64,
        saved_ids: &HashMap<i64, i64>,
        action: ActionKind,
    ) -> Result<i64, StoreError> {
        if t >= PROVISIONAL {
            return saved_ids.get(&t).copied().ok_or_else(|| {
                self.invalid(format!("internal: provisional target #{t} not saved"))
            });
        }
        if self.decision(t)?.is_none() {
            return Err(self.invalid(format!(
                "cannot save the {} of decision #{t}: there is no decision #{t} in the log",
                action.name()
            )));
        }
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::model::{Record, Source, SourceRole, Span, GOLD};
    use crate::review::decision::{replay, resolution_decisions, ActionKind, Decision, Settling};
    use crate::review::disagreement::{cluster, resolve, Options, Resolution};

    fn spans(out: &str, v: &[(usize, usize, &str)]) -> Vec<Span> {
        v.iter().map(|&(a, b, l)| Span::new(out, a, b, l)).collect()
    }

    #[test]
    fn resolutions_become_decisions_that_replay() {
        let out = "The hotel has a rooftop pool and a spa.";
        let rec = Record {
            id: "r".into(),
            query: String::new(),
            context: String::new(),
            output: out.into(),
            corruption_type: Some("contradiction".into()),
            sources: vec![
                Source::new(
                    GOLD,
                    SourceRole::Gold,
                    spans(out, &[(4, 9, "contradiction")]),
                ),
                Source::new(
                    "det",
                    SourceRole::Detector,
                    spans(out, &[(3, 9, ""), (35, 38, "")]),
                ),
            ],
            raw: Value::Null,
            warnings: Vec::new(),
        };
        let store = Store::open_in_memory().expect("store");
        let review = replay(&rec, &[]);
        let d = cluster(&rec.output, &rec.sources, &Options::default());
        assert_eq!(d.clusters.len(), 2);
        let o = resolve(&rec.output, &rec.sources, &d, 0, Resolution::Take(1)).expect("o");
        let base = Decision::new(&rec, "ds", "me", ActionKind::Resolve);
        let settle = |cluster, outcome| Settling {
            cluster,
            outcome,
            reason: "take det",
            group: "g1",
        };
        let ds = resolution_decisions(&rec, &review, &d, &settle(0, &o), &base);
        let saved = store.append_all(&ds, None).expect("saved");
        assert_eq!(saved.len(), 1);
        assert_eq!(saved[0].span_key.as_deref(), Some("gold:0"));
        // [3, 9) keeps the gold's [4, 9) too (issue 21's one upheld rule).
        assert_eq!(saved[0].upheld, [GOLD, "det"]);
        let o = resolve(&rec.output, &rec.sources, &d, 1, Resolution::DropAll).expect("o");
        let ds = resolution_decisions(&rec, &review, &d, &settle(1, &o), &base);
        let saved2 = store.append_all(&ds, None).expect("saved");
        assert_eq!(saved2[0].span_key, None);
        assert_eq!(saved2[0].dismissed, ["det"]);
        // Tagged as the arbitration screen tags them: one vote per source on each cluster.
        let unit = crate::review::outcome::votes::unit;
        assert_eq!(
            (unit(&saved[0]), unit(&saved2[0])),
            ("cluster 3-9".into(), "cluster 35-38".into())
        );
        let log = store.decisions(Some("ds")).expect("log");
        let r = replay(&rec, &log);
        let kept = r.kept_spans(out);
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].start, kept[0].end), (3, 9));
    }
}
