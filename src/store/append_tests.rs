//! Appending while another process appends: the record state computed inside the write
//! transaction counts what the other saved, and batches are all or none; on each engine
//! (`test_db.rs`).

use super::test_db::{locations, stores, PgDb};
use super::*;
use crate::review::decision::{ActionKind, OutcomeKind};

fn dec(dataset: &str, record: &str, reviewer: &str, action: ActionKind) -> Decision {
    Decision::about(dataset, reviewer, record, "abc123", action)
}
/// A state that counts what the log holds: removed when any decision removes the record.
fn counted(log: &[Decision]) -> RecordState {
    let removed = log.iter().any(|d| d.action == ActionKind::Remove);
    RecordState {
        reviewed: true,
        flagged: false,
        outcome: if removed {
            OutcomeKind::Removed
        } else {
            OutcomeKind::Open
        },
        stale: false,
    }
}

#[test]
fn append_all_then_counts_decisions_another_process_saved_meanwhile() {
    let dir = tempfile::tempdir().expect("tmp");
    for (db, pg) in locations(dir.path(), "review.sqlite") {
        let (ana, bob) = (
            Store::open(&db).expect("ana"),
            Store::open(&db).expect("bob"),
        );
        // ana reads the record's log (empty), then bob removes the record from another process.
        let seen_by_ana = ana.record_decisions("ds", "r°1").expect("read");
        bob.append(
            &dec("ds", "r°1", "bob", ActionKind::Remove),
            Some(&counted(&[dec("ds", "r°1", "bob", ActionKind::Remove)])),
        )
        .expect("bob");
        let accept = dec("ds", "r°1", "ana", ActionKind::AcceptAll);

        // Known-bad: a state computed from what ana had read overwrites bob's removal.
        let mut stale_view = seen_by_ana.clone();
        stale_view.push(accept.clone());
        // On the same engine: another file, or another PostgreSQL database.
        let other_db = pg.as_ref().and_then(|_| PgDb::create());
        let other = other_db
            .as_ref()
            .map_or_else(|| dir.path().join("other.sqlite"), PgDb::path);
        let (ana2, bob2) = (
            Store::open(&other).expect("ana"),
            Store::open(&other).expect("bob"),
        );
        bob2.append(
            &dec("ds", "r°1", "bob", ActionKind::Remove),
            Some(&counted(&[dec("ds", "r°1", "bob", ActionKind::Remove)])),
        )
        .expect("bob");
        ana2.append_all(std::slice::from_ref(&accept), Some(&counted(&stale_view)))
            .expect("ana");
        assert_eq!(
            ana2.record_state("ds", "r°1")
                .expect("q")
                .expect("state")
                .outcome,
            OutcomeKind::Open,
            "the race append_all_then closes"
        );
        drop((ana2, bob2));

        // append_all_then computes the state from the log inside its transaction.
        let seen = std::cell::RefCell::new(Vec::new());
        let saved = ana
            .append_all_then(&[accept], &|log| {
                seen.replace(log.to_vec());
                counted(log)
            })
            .expect("ana");
        let log = seen.into_inner();
        assert_eq!(log.len(), 2, "bob's removal and ana's accept");
        assert_eq!(log[1].id, saved[0].id, "the new decision with its id");
        assert_eq!(
            ana.record_state("ds", "r°1")
                .expect("q")
                .expect("state")
                .outcome,
            OutcomeKind::Removed
        );
        drop(other_db);
    }
}

#[test]
fn append_all_then_refuses_decisions_on_several_records_and_saves_nothing() {
    for store in stores() {
        let store = &*store;
        let err = store
            .append_all_then(
                &[
                    dec("ds", "r1", "ana", ActionKind::AcceptAll),
                    dec("ds", "r2", "ana", ActionKind::AcceptAll),
                ],
                &counted,
            )
            .expect_err("refused");
        assert!(err.to_string().contains("several records"), "{err}");
        assert!(store.decisions(None).expect("q").is_empty());
    }
}

/// An auto-accept on each record of `ids`, with the state it leaves.
fn auto_accepts(ids: &[&str]) -> Vec<(Decision, RecordState)> {
    ids.iter()
        .map(|id| {
            let d = dec("ds", id, "auto", ActionKind::AcceptAll);
            let st = counted(std::slice::from_ref(&d));
            (d, st)
        })
        .collect()
}

#[test]
fn append_each_saves_many_records_in_one_transaction_or_none() {
    for store in stores() {
        let store = &*store;
        let ids = ["a°", "b’", "c中", "d🙂", "e\u{301}"];
        let rows = auto_accepts(&ids);
        let saved = store.append_each(&rows).expect("append");
        assert_eq!(saved.len(), 5);
        assert!(saved.windows(2).all(|w| w[0].id < w[1].id));
        let states = store.record_states("ds").expect("q");
        assert_eq!(states.len(), 5);
        assert!(ids.iter().all(|id| states[*id].reviewed));

        // One bad row (an undo of a decision not in the log): none of the batch is saved.
        let mut undo = dec("ds", "f", "auto", ActionKind::Undo);
        undo.target = Some(999_999);
        let batch = vec![rows[0].clone(), (undo, RecordState::default())];
        assert!(store.append_each(&batch).is_err());
        assert_eq!(store.decisions(None).expect("q").len(), 5);
    }
}

#[test]
fn auto_accepts_skip_records_someone_decided_on_meanwhile() {
    for store in stores() {
        let store = &*store;
        // Another reviewer removed 東京° after the screen last looked.
        let mut removal = dec("ds", "東京°", "zoë", ActionKind::Remove);
        removal.reason = Some("incoherent".into());
        let theirs = counted(std::slice::from_ref(&removal));
        store
            .append(&removal, Some(&theirs))
            .expect("their decision");
        let rows = auto_accepts(&["東京°", "b’🙂"]);
        let saved = store.append_auto_accepts(&rows).expect("append");
        assert_eq!(
            saved
                .iter()
                .map(|d| d.record_id.as_str())
                .collect::<Vec<_>>(),
            ["b’🙂"]
        );
        let states = store.record_states("ds").expect("q");
        assert_eq!(states["東京°"], theirs, "their state stands");
        assert!(states["b’🙂"].reviewed);
        assert_eq!(store.record_decisions("ds", "東京°").expect("q").len(), 1);
        // Nothing left to accept: nothing saved, no error.
        assert!(store
            .append_auto_accepts(&rows[..1])
            .expect("none")
            .is_empty());
    }
}

#[test]
fn rows_given_again_with_their_origins_are_saved_once() {
    // A retry after a lost COMMIT reply gives the same rows and origins: saved once, and
    // returned as saved (same ids) the second time.
    for store in stores() {
        let store = &*store;
        let rows: Vec<(Decision, String)> = ["o-1°", "o-2中"]
            .iter()
            .map(|o| (dec("ds", "r’", "ana", ActionKind::Flag), (*o).to_owned()))
            .collect();
        let first = store
            .append_all_then_with_origins(&rows, &counted)
            .expect("saved");
        let again = store
            .append_all_then_with_origins(&rows, &counted)
            .expect("found");
        let ids = |v: &[Decision]| v.iter().map(|d| d.id).collect::<Vec<_>>();
        assert_eq!(ids(&again), ids(&first));
        assert_eq!(store.decisions(None).expect("q").len(), 2);
        assert_eq!(store.id_with_origin("o-2中").expect("q"), Some(first[1].id));
    }
}
