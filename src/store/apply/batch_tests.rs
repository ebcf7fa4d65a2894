//! A batch (`spanreview apply`) on each engine (`test_db.rs`): PostgreSQL copies its rows
//! (`COPY … FROM STDIN`, binary) and upserts its record states many to a statement, SQLite
//! inserts a row at a time; either way every row is saved once, in order, with the same ids,
//! origins and values, each record's state points at its last row, and a refused row leaves
//! nothing of the batch.

use super::*;
use crate::review::decision::{ActionKind, OutcomeKind, SpanValue};
use crate::store::test_db::stores;

/// Text that must come back as written: a degree sign, a curly apostrophe, CJK, an emoji with
/// a skin tone, a combining acute accent, and a quote and a backslash.
const TEXTS: [&str; 6] = ["25°C", "it’s", "東京", "👍🏽", "e\u{301}", "\"\\"];

/// `n` decisions on 7 records (ids and labels with [`TEXTS`]): notes, adds, flags and, every
/// fourth, an undo of the row before it (a provisional target), each with its origin.
fn rows(n: usize) -> Vec<(Decision, String)> {
    (0..n)
        .map(|i| {
            let text = TEXTS[i % TEXTS.len()];
            let rec = format!("r{} {}", i % 7, TEXTS[i % 7 % TEXTS.len()]);
            let action = match i % 4 {
                0 => ActionKind::Note,
                1 => ActionKind::Add,
                2 => ActionKind::Flag,
                _ => ActionKind::Undo,
            };
            let mut d = Decision::about("ds °", "ana ’", &rec, "h", action);
            d.id = PROVISIONAL + i64::try_from(i).expect("i");
            match action {
                ActionKind::Note => d.note = Some(format!("{i}: {text}")),
                ActionKind::Add => {
                    d.after = Some(SpanValue {
                        start: i,
                        end: i + 3,
                        label: text.to_owned(),
                        category: Some(format!("{text} cat")),
                        subcategory: None,
                    });
                }
                ActionKind::Flag => d.reason = Some(text.to_owned()),
                _ => d.target = Some(d.id - 1),
            }
            (d, format!("origin {i} {text}"))
        })
        .collect()
}

/// One state per record of [`rows`]: reviewed, flagged every other one, removed the last.
fn states() -> Vec<(String, String, RecordState)> {
    (0..7)
        .map(|k| {
            let rec = format!("r{k} {}", TEXTS[k % TEXTS.len()]);
            let st = RecordState {
                reviewed: true,
                flagged: k % 2 == 0,
                outcome: if k == 6 {
                    OutcomeKind::Removed
                } else {
                    OutcomeKind::Open
                },
                stale: k == 3,
            };
            ("ds °".to_owned(), rec, st)
        })
        .collect()
}

/// Each record's state row: record id, state, and the decision it points at.
fn state_rows(store: &Store) -> Vec<(String, bool, bool, String, bool, Option<i64>)> {
    let rows = store
        .conn
        .query(
            "SELECT record_id, reviewed, flagged, outcome, stale, decision_id FROM record_state \
             ORDER BY record_id",
            &[],
        )
        .expect("states");
    rows.iter()
        .map(|r| {
            (
                r.get(0).expect("record"),
                r.get(1).expect("reviewed"),
                r.get(2).expect("flagged"),
                r.get(3).expect("outcome"),
                r.get(4).expect("stale"),
                r.get(5).expect("decision"),
            )
        })
        .collect()
}

fn save(store: &Store, rows: Vec<(Decision, String)>) -> Result<usize, StoreError> {
    store
        .append_batch(|_| {
            Ok::<_, ()>(Batch {
                rows,
                states: states(),
                dry_run: false,
            })
        })
        .map(|r| r.expect("planned"))
}

/// 1,000 rows (many copy buffers' worth): every one saved once, in order, ids 1 to 1,000, the
/// same on both engines, undo targets the ids their rows got, text as given, and each state on
/// its record's last row; saved again over the states of a first batch (an upsert).
#[test]
fn a_batch_saves_every_row_once_with_the_same_ids_and_origins_on_each_engine() {
    let n = 1000;
    let mut logs = Vec::new();
    for store in stores() {
        let _ = save(&store, rows(n)).expect("saved");
        let log = store.decisions_with_origin(None, None).expect("log");
        assert_eq!(log.len(), n, "{:?}", store.conn);
        for (i, ((saved, origin), (given, given_origin))) in log.iter().zip(rows(n)).enumerate() {
            let id = i64::try_from(i).expect("i") + 1;
            assert_eq!(saved.id, id, "{:?}", store.conn);
            assert_eq!(origin, &given_origin);
            assert_eq!(saved.target, given.target.map(|t| t - PROVISIONAL + 1));
            assert_eq!(saved.note, given.note);
            assert_eq!(saved.after, given.after);
            assert_eq!(saved.reason, given.reason);
            assert_eq!(saved.record_id, given.record_id);
            assert_eq!(saved.reviewer, "ana ’");
            assert!(!saved.time.is_empty());
            if given.action == ActionKind::Flag {
                assert_eq!(saved.flag_on, Some(true));
            }
        }
        let st = state_rows(&store);
        assert_eq!(st.len(), 7);
        for (rec, _, _, _, _, decision) in &st {
            let last = log.iter().rev().find(|(d, _)| &d.record_id == rec);
            assert_eq!(*decision, last.map(|(d, _)| d.id), "{rec}");
        }
        // A second batch moves each state to its own last row (the states exist: updated).
        let more: Vec<(Decision, String)> = rows(14)
            .into_iter()
            .map(|(d, o)| (d, format!("again {o}")))
            .collect();
        assert_eq!(save(&store, more).expect("saved again"), 14);
        let again = state_rows(&store);
        assert_eq!(again.len(), 7);
        for ((rec, .., decision), (rec0, ..)) in again.iter().zip(&st) {
            assert_eq!(rec, rec0);
            let last = store
                .decisions(None)
                .expect("log")
                .into_iter()
                .rev()
                .find(|d| &d.record_id == rec)
                .map(|d| d.id);
            assert_eq!(*decision, last);
            assert!(decision.is_some_and(|id| id > 1000));
        }
        logs.push((log, st));
    }
    // SQLite's inserts and PostgreSQL's copy saved the same rows and states.
    if let [(a, sa), (b, sb)] = &logs[..] {
        assert_eq!(a.len(), b.len());
        for ((da, oa), (db, ob)) in a.iter().zip(b) {
            assert_eq!(oa, ob);
            assert_eq!(
                Decision {
                    time: String::new(),
                    ..da.clone()
                },
                Decision {
                    time: String::new(),
                    ..db.clone()
                }
            );
        }
        assert_eq!(sa, sb);
    }
}

/// A row the database refuses late in the batch (its origin is an earlier row's: the log's
/// UNIQUE), after hundreds went out: nothing of the batch is saved, no state written, and the
/// log takes the next batch as if the refused one had never run.
#[test]
fn a_batch_with_a_row_refused_by_the_database_saves_nothing() {
    for store in stores() {
        let mut bad = rows(600);
        bad[590].1 = bad[3].1.clone();
        let e = save(&store, bad).expect_err("refused");
        assert!(!e.is_busy(), "{e}");
        assert!(
            store.decisions(None).expect("log").is_empty(),
            "{:?}",
            store.conn
        );
        assert!(state_rows(&store).is_empty());
        assert_eq!(store.log_mark().expect("mark"), (None, 0));
        // Refused by the plan: nothing either.
        let refused = store.append_batch(|_| Err::<Batch, _>("no")).expect("ran");
        assert_eq!(refused.expect_err("refused"), "no");
        assert!(store.decisions(None).expect("log").is_empty());
        // The connection is usable after the aborted copy, and the next batch saves whole.
        assert_eq!(save(&store, rows(10)).expect("saved"), 10);
        let log = store.decisions_with_origin(None, None).expect("log");
        assert_eq!(log.len(), 10);
        let origins: Vec<String> = rows(10).into_iter().map(|(_, o)| o).collect();
        assert_eq!(
            log.iter().map(|(_, o)| o.clone()).collect::<Vec<_>>(),
            origins
        );
        assert_eq!(state_rows(&store).len(), 7);
    }
}

/// A dry run checks and saves nothing on either engine.
#[test]
fn a_dry_run_batch_saves_nothing() {
    for store in stores() {
        let saved = store
            .append_batch(|_| {
                Ok::<_, ()>(Batch {
                    rows: rows(50),
                    states: states(),
                    dry_run: true,
                })
            })
            .expect("ran")
            .expect("planned");
        assert_eq!(saved, 0);
        assert!(store.decisions(None).expect("log").is_empty());
        assert!(state_rows(&store).is_empty());
    }
}
