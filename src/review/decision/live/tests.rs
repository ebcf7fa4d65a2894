//! The live replay is the replay of the whole log after every decision that joins it.

use std::cell::Cell;

use super::*;
use crate::model::{Span, CLEAN};
use crate::review::decision::{replay, undo_target, SpanValue};
use crate::test_util::gold_record;

fn record() -> Record {
    let output = "Il fait 25°C à 東京 👋 aujourd’hui.";
    let gold = vec![
        Span::new(output, 8, 12, "contradiction"),
        Span::new(output, 15, 17, "contradiction"),
    ];
    gold_record("r1", output, Some("contradiction"), gold)
}

/// What the checks read of a review.
fn seen(r: &RecordReview) -> impl PartialEq + std::fmt::Debug + '_ {
    (
        &r.spans,
        &r.outcome,
        r.flagged,
        r.confirmed,
        &r.outcome_by,
        &r.record_type,
    )
}

/// A decision to push, made from the record and the log so far.
type Step<'a> = &'a dyn Fn(&Record, &[Decision]) -> Decision;

/// Push each decision `f` makes (given the log so far) and compare the live replay with the
/// replay of the whole log after each; returns how many times the live replay read the log.
fn follow(steps: &[Step<'_>]) -> usize {
    let rec = record();
    let hash = rec.content_hash();
    let mut log: Vec<Decision> = Vec::new();
    let mut live = LiveReplay::default();
    let reads = Cell::new(0);
    for (i, step) in steps.iter().enumerate() {
        let mut d = step(&rec, &log);
        d.id = 1000 + i64::try_from(i).expect("small");
        log.push(d.clone());
        live.push(&d, &hash);
        let got = live.review(&rec, || {
            reads.set(reads.get() + 1);
            log.clone()
        });
        let want = replay(&rec, &log);
        assert_eq!(seen(&got), seen(&want), "after step {i}: {:?}", d.action);
    }
    reads.get()
}

fn on(action: ActionKind, f: impl Fn(&mut Decision)) -> impl Fn(&Record, &[Decision]) -> Decision {
    move |rec, _| {
        let mut d = Decision::new(rec, "ds", "ann", action);
        f(&mut d);
        d
    }
}

fn undo_last(rec: &Record, log: &[Decision]) -> Decision {
    let mut d = Decision::new(rec, "ds", "ann", ActionKind::Undo);
    d.target = undo_target(log);
    d
}

#[test]
fn the_live_replay_is_the_whole_replay_after_each_decision() {
    let key = |k: &str| Some(k.to_owned());
    let accept = on(ActionKind::Accept, |d| d.span_key = key("gold:0"));
    let drop1 = on(ActionKind::Drop, |d| d.span_key = key("gold:1"));
    let relabel = on(ActionKind::Relabel, |d| {
        d.span_key = key("gold:0");
        d.after = Some(SpanValue::new(8, 12, "°’ other"));
    });
    // Added twice (two reviewers): the second is a duplicate while the first is kept.
    let add = on(ActionKind::Add, |d| {
        d.span_key = key("added:東京");
        d.after = Some(SpanValue::new(15, 17, "👋"));
    });
    let add_again = on(ActionKind::Add, |d| {
        d.span_key = key("added:bo");
        d.reviewer = "bo".into();
        d.after = Some(SpanValue::new(15, 17, "👋"));
    });
    let drop_added = on(ActionKind::Drop, |d| d.span_key = key("added:東京"));
    let note = on(ActionKind::Note, |d| d.note = Some("’°".into()));
    let flag = on(ActionKind::Flag, |_| {});
    let stale = on(ActionKind::Accept, |d| {
        d.span_key = key("gold:1");
        d.record_hash = "other content".into();
    });
    let clean = on(ActionKind::Clean, |_| {});
    let retype = on(ActionKind::Retype, |d| d.record_type = Some(CLEAN.into()));
    let undo_first = |rec: &Record, log: &[Decision]| {
        let mut d = Decision::new(rec, "ds", "ann", ActionKind::Undo);
        d.target = log.first().map(|x| x.id);
        d
    };
    let redo = |rec: &Record, log: &[Decision]| {
        let mut d = Decision::new(rec, "ds", "ann", ActionKind::Redo);
        d.target = crate::review::decision::redo_target(log);
        d
    };
    let reads = follow(&[
        &accept,
        &drop1,
        &undo_last,
        &relabel,
        &add,
        &add_again,
        &undo_last,
        &add_again,
        &drop_added,
        &note,
        &flag,
        &stale,
        &undo_last,
        &clean,
        &undo_last,
        &undo_first,
        &redo,
        &retype,
        &accept,
    ]);
    // Read once at the start, after the undo of the first decision (not the last one) and
    // after the redo; every other decision was followed.
    assert_eq!(reads, 3);
}

#[test]
fn a_resolution_is_replayed_from_the_log() {
    let resolve = on(ActionKind::Resolve, |d| {
        d.span_key = Some("gold:0".into());
        d.after = Some(SpanValue::new(8, 11, "contradiction"));
        d.group = Some("g1".into());
        d.unit = Some(Unit::Cluster { start: 0, end: 20 });
    });
    let accept = on(ActionKind::Accept, |d| d.span_key = Some("gold:1".into()));
    assert_eq!(follow(&[&accept, &resolve, &accept]), 2);
}
