//! Combining databases: every decision of another database added to this one, once.
//!
//! A decision is identified across databases by its `origin` (a random 128-bit id given when it
//! was first saved and copied along by merges), so merging the same database twice, or a
//! database that already holds merged rows, adds nothing. Rows keep their reviewer, time and
//! content; ids are new, and undo/redo targets are remapped to the new ids.

use std::collections::HashMap;

use super::engine::vals;
use super::{row, RecordState, Store, StoreError};

/// What one merge did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MergeReport {
    /// Decisions in the source database.
    pub read: usize,
    /// Decisions added.
    pub added: usize,
    /// Decisions already present (same origin).
    pub present: usize,
    /// Record states written (new records, or set by a later decision than the one here).
    pub states: usize,
}

/// A record state of the source database with the decision that set it.
struct SourceState {
    dataset: String,
    record_id: String,
    state: RecordState,
    origin: Option<String>,
    time: Option<String>,
}

impl Store {
    /// Add every decision of `other` not yet in this database, in `other`'s log order, in one
    /// transaction. Undo/redo targets are remapped to this database's ids. A record state is
    /// taken from `other` when this database has none for the record, or when the decision that
    /// set `other`'s is later (by time) than the one that set this database's.
    ///
    /// # Errors
    /// Either database cannot be read, or the write fails (nothing is added then).
    pub fn merge_from(&self, other: &Store) -> Result<MergeReport, StoreError> {
        let incoming = other.select_with_origin("reading the decision log to merge", "", &[])?;
        let states = other.source_states()?;
        let tx = self.begin()?;
        let before = self.count_rows()?;
        let mut report = MergeReport {
            read: incoming.len(),
            ..MergeReport::default()
        };
        // Source id → id here.
        let mut ids: HashMap<i64, i64> = HashMap::with_capacity(incoming.len());
        for (d, origin) in incoming {
            if let Some(id) = self.id_with_origin(&origin)? {
                ids.insert(d.id, id);
                report.present += 1;
                continue;
            }
            let mut d2 = d.clone();
            if let Some(t) = d.target {
                d2.target = Some(*ids.get(&t).ok_or_else(|| {
                    other.invalid(format!(
                        "decision #{} is the {} of decision #{t}, which comes later or is missing",
                        d.id,
                        d.action.name()
                    ))
                })?);
            }
            let id = row::insert(&self.conn, &d2, &origin).map_err(|e| {
                self.err(
                    format!(
                        "adding decision #{} of {} (origin {origin})",
                        d.id, d.reviewer
                    ),
                    e,
                )
            })?;
            ids.insert(d.id, id);
            report.added += 1;
        }
        // What is reported is what was written: the log grew by the rows added, and every row
        // read is added or was there (a file damaged under the merge counts otherwise).
        let grew = self.count_rows()? - before;
        if grew != report.added as i64 || report.added + report.present != report.read {
            return Err(self.invalid(format!(
                "the merge counted {} read, {} added, {} already present, but the log grew by {grew}: nothing was merged",
                report.read, report.added, report.present
            )));
        }
        for s in states {
            if self.take_state(&s)? {
                let decision_id = match &s.origin {
                    Some(o) => self.id_with_origin(o)?,
                    None => None,
                };
                self.write_state(&tx, &s.dataset, &s.record_id, decision_id, &s.state)?;
                report.states += 1;
            }
        }
        tx.commit()
            .map_err(|e| self.err("committing the merge", e))?;
        Ok(report)
    }

    /// The number of rows in the log.
    fn count_rows(&self) -> Result<i64, StoreError> {
        self.conn
            .query_opt("SELECT count(*) FROM decision", &[])
            .and_then(|r| r.map_or(Ok(0), |r| r.get(0)))
            .map_err(|e| self.err("counting the decisions", e))
    }

    /// The id of the decision with this origin, if there is one.
    ///
    /// # Errors
    /// The database cannot be read.
    pub fn id_with_origin(&self, origin: &str) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_opt("SELECT id FROM decision WHERE origin = ?1", &vals![origin])
            .and_then(|r| r.map(|r| r.get(0)).transpose())
            .map_err(|e| self.err(format!("looking up origin {origin}"), e))
    }

    fn source_states(&self) -> Result<Vec<SourceState>, StoreError> {
        self.conn
            .query(
                "SELECT s.dataset, s.record_id, s.reviewed, s.flagged, s.outcome, s.stale, \
                 d.origin, d.time FROM record_state s LEFT JOIN decision d ON d.id = s.decision_id \
                 ORDER BY s.dataset, s.record_id",
                &[],
            )
            .and_then(|rows| {
                rows.iter()
                    .map(|r| {
                        Ok(SourceState {
                            dataset: r.get(0)?,
                            record_id: r.get(1)?,
                            state: super::query::state_at(r, 2)?,
                            origin: r.get(6)?,
                            time: r.get(7)?,
                        })
                    })
                    .collect()
            })
            .map_err(|e| self.err("reading the record states to merge", e))
    }

    /// Should `s` replace this database's state of the record? Yes when there is none, or when
    /// `s` was set by a different decision made later than the one that set ours.
    fn take_state(&self, s: &SourceState) -> Result<bool, StoreError> {
        let ours: Option<(Option<String>, Option<String>)> = self
            .conn
            .query_opt(
                "SELECT d.origin, d.time FROM record_state s \
                 LEFT JOIN decision d ON d.id = s.decision_id \
                 WHERE s.dataset = ?1 AND s.record_id = ?2",
                &vals![s.dataset, s.record_id],
            )
            .and_then(|r| r.map(|r| Ok((r.get(0)?, r.get(1)?))).transpose())
            .map_err(|e| self.err(format!("reading the state of record {:?}", s.record_id), e))?;
        Ok(match ours {
            None => true,
            Some((origin, time)) => origin != s.origin && s.time > time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::decision::{redo_target, undo_target, ActionKind, Decision};

    fn dec(record: &str, reviewer: &str, action: ActionKind, time: &str) -> Decision {
        Decision {
            time: time.into(),
            note: Some(format!("{reviewer} {record} {}", action.name())),
            ..Decision::about("ds", reviewer, record, "h", action)
        }
    }

    /// A store with one reviewer's work: three decisions, an undo, a redo of it and an undo.
    fn reviewer_db(who: &str, minute: u32, flagged: bool) -> Store {
        let s = Store::open_in_memory().expect("open");
        let t = |sec: u32| format!("2026-11-30T06:{minute:02}:{sec:02}.000Z");
        let a = s
            .append(
                &dec("r1", who, ActionKind::Accept, &t(1)),
                Some(&RecordState::marked(true, flagged)),
            )
            .expect("append");
        let b = s
            .append(&dec("r2", who, ActionKind::Drop, &t(2)), None)
            .expect("append");
        s.append(&dec("r3", who, ActionKind::Flag, &t(3)), None)
            .expect("append");
        for (action, target, sec) in [
            (ActionKind::Undo, b.id, 4),
            (ActionKind::Redo, b.id, 5),
            (ActionKind::Undo, a.id, 6),
        ] {
            let mut d = dec("r2", who, action, &t(sec));
            d.target = Some(target);
            s.append(&d, None).expect("append meta");
        }
        s
    }

    /// The log with ids replaced by (reviewer, note) and targets by the target's note, so logs
    /// of different databases compare.
    fn shape(log: &[Decision]) -> Vec<(String, String, Option<String>)> {
        let note = |id: i64| {
            log.iter()
                .find(|d| d.id == id)
                .and_then(|d| d.note.clone())
                .unwrap_or_default()
        };
        log.iter()
            .map(|d| {
                (
                    d.reviewer.clone(),
                    format!("{} {}", d.time, d.note.clone().unwrap_or_default()),
                    d.target.map(note),
                )
            })
            .collect()
    }

    #[test]
    fn merge_keeps_every_decision_and_remaps_targets() {
        let ana = reviewer_db("ana", 1, false);
        let bo = reviewer_db("bo", 2, true);
        let out = Store::open_in_memory().expect("open");
        // Some work of its own first, so that ids shift.
        for r in ["x1", "x2", "x3", "x4"] {
            out.append(
                &dec(r, "cy", ActionKind::Accept, "2026-11-30T05:00:00.000Z"),
                None,
            )
            .expect("append");
        }
        let r1 = out.merge_from(&ana).expect("merge ana");
        assert_eq!(
            r1,
            MergeReport {
                read: 6,
                added: 6,
                present: 0,
                states: 1
            }
        );
        let r2 = out.merge_from(&bo).expect("merge bo");
        assert_eq!((r2.added, r2.present), (6, 0));

        let log = out.decisions(None).expect("log");
        assert_eq!(log.len(), 16);
        for (who, src) in [("ana", &ana), ("bo", &bo)] {
            let theirs = src.reviewer_log("ds", who).expect("src log");
            let merged = out.reviewer_log("ds", who).expect("merged log");
            assert_eq!(shape(&merged), shape(&theirs), "{who}");
            assert!(
                merged.iter().all(|d| d.id > 4),
                "new ids after the existing rows"
            );
            assert!(merged.iter().zip(&theirs).any(|(m, t)| m.id != t.id));
            // Undo and redo walk the merged log as they walked the original.
            let pos = |log: &[Decision], id: Option<i64>| {
                id.and_then(|id| log.iter().position(|d| d.id == id))
            };
            assert_eq!(
                pos(&merged, undo_target(&merged)),
                pos(&theirs, undo_target(&theirs))
            );
            assert_eq!(
                pos(&merged, redo_target(&merged)),
                pos(&theirs, redo_target(&theirs))
            );
        }
        // Every target points at a decision of the same reviewer in the merged log.
        for d in log.iter().filter(|d| d.action.is_meta()) {
            let t = out
                .decision(d.target.expect("target"))
                .expect("q")
                .expect("present");
            assert_eq!(t.reviewer, d.reviewer);
        }
    }

    #[test]
    fn merge_carries_what_a_decision_means() {
        use crate::review::decision::Unit;
        let ana = Store::open_in_memory().expect("open");
        let t = "2026-11-30T06:00:00.000Z";
        let mut rows = Vec::new();
        for (k, unit) in [Unit::Cluster { start: 3, end: 9 }, Unit::Claim(2)]
            .into_iter()
            .enumerate()
        {
            let mut d = dec("r°", "ana", ActionKind::Resolve, t);
            d.unit = Some(unit);
            d.record_units = Some(k + 2);
            d.group = Some(format!("g{k}"));
            rows.push(d);
        }
        let mut off = dec("r°", "ana", ActionKind::Flag, t);
        off.flag_on = Some(false);
        let mut retype = dec("r°", "ana", ActionKind::Retype, t);
        retype.record_type = Some("Fabrication".into());
        rows.extend([off, retype]);
        for d in &rows {
            ana.append(d, None).expect("append");
        }
        let out = Store::open_in_memory().expect("open");
        out.append(&dec("x", "cy", ActionKind::Accept, t), None)
            .expect("shift the ids");
        out.merge_from(&ana).expect("merge");
        let meaning = |s: &Store| -> Vec<_> {
            s.decisions(None)
                .expect("log")
                .into_iter()
                .filter(|d| d.reviewer == "ana")
                .map(|d| {
                    let units = d.record_units;
                    (d.action, d.group, d.unit, units, d.flag_on, d.record_type)
                })
                .collect()
        };
        assert_eq!(meaning(&out), meaning(&ana));
        assert_eq!(meaning(&out).len(), 4);
        let units: Vec<_> = meaning(&out).iter().map(|m| m.3).collect();
        assert_eq!(
            units,
            [Some(2), Some(3), None, None],
            "the unit counts carried"
        );
    }

    #[test]
    fn merging_twice_adds_nothing() {
        let ana = reviewer_db("ana", 1, false);
        let out = Store::open_in_memory().expect("open");
        out.merge_from(&ana).expect("merge");
        let before = out.decisions(None).expect("log");
        let states = out.record_states("ds").expect("states");
        let again = out.merge_from(&ana).expect("merge again");
        assert_eq!(
            again,
            MergeReport {
                read: 6,
                added: 0,
                present: 6,
                states: 0
            }
        );
        assert_eq!(out.decisions(None).expect("log"), before);
        assert_eq!(out.record_states("ds").expect("states"), states);

        // A merge of a merge knows the rows too.
        let out2 = Store::open_in_memory().expect("open");
        out2.merge_from(&out).expect("merge the merge");
        assert_eq!(out2.merge_from(&ana).expect("merge the source").added, 0);
        assert_eq!(out2.decisions(None).expect("log").len(), 6);
    }

    #[test]
    fn the_latest_record_state_wins_whatever_the_order() {
        let early = reviewer_db("ana", 1, false);
        let late = reviewer_db("bo", 2, true);
        for order in [[&early, &late], [&late, &early]] {
            let out = Store::open_in_memory().expect("open");
            for src in order {
                out.merge_from(src).expect("merge");
            }
            assert_eq!(
                out.record_states("ds").expect("states")["r1"],
                RecordState::marked(true, true)
            );
        }
    }
}
