//! Replay, undo and redo of decision logs.

use super::*;
use crate::test_util::gold_record;

fn record() -> Record {
    let output = "Il fait 25°C à 東京 👋 aujourd’hui.";
    let gold = vec![
        Span::new(output, 8, 12, "contradiction"),
        Span::new(output, 15, 17, "contradiction"),
    ];
    gold_record("r1", output, Some("contradiction"), gold)
}

struct Log {
    rec: Record,
    rows: Vec<Decision>,
}

impl Log {
    fn new() -> Self {
        Self {
            rec: record(),
            rows: Vec::new(),
        }
    }
    fn push(&mut self, action: ActionKind, f: impl FnOnce(&mut Decision)) -> i64 {
        let mut d = Decision::new(&self.rec, "ds", "ann", action);
        d.id = i64::try_from(self.rows.len()).expect("small") + 1;
        f(&mut d);
        self.rows.push(d);
        self.rows.len() as i64
    }
    fn review(&self) -> RecordReview {
        replay(&self.rec, &self.rows)
    }
}

fn value(start: usize, end: usize, label: &str) -> SpanValue {
    SpanValue::new(start, end, label)
}

#[test]
fn fresh_record_is_pending() {
    let log = Log::new();
    let r = log.review();
    assert_eq!(r.spans.len(), 2);
    assert!(!r.is_reviewed());
    assert_eq!(r.kept_spans(&log.rec.output).len(), 2);
}

#[test]
fn accept_drop_adjust_relabel_add() {
    let mut log = Log::new();
    log.push(ActionKind::Accept, |d| d.span_key = Some("gold:0".into()));
    log.push(ActionKind::Adjust, |d| {
        d.span_key = Some("gold:1".into());
        d.after = Some(value(15, 16, "contradiction"));
    });
    log.push(ActionKind::Relabel, |d| {
        d.span_key = Some("gold:1".into());
        d.after = Some(value(15, 16, "overgeneration"));
    });
    log.push(ActionKind::Add, |d| {
        d.span_key = Some("added:x1".into());
        d.after = Some(value(18, 19, "overgeneration"));
    });
    let r = log.review();
    assert!(r.is_reviewed());
    let kept = r.kept_spans(&log.rec.output);
    let texts: Vec<(&str, &str)> = kept
        .iter()
        .map(|s| (s.text.as_str(), s.label.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("25°C", "contradiction"),
            ("東", "overgeneration"),
            ("👋", "overgeneration")
        ]
    );
    assert!(r.spans[1].adjusted() && r.spans[1].relabeled());
    assert!(r.spans[2].added());

    log.push(ActionKind::Drop, |d| {
        d.span_key = Some("gold:0".into());
        d.reason = Some("supported".into());
    });
    let r = log.review();
    assert_eq!(r.kept_spans(&log.rec.output).len(), 2);
    assert_eq!(
        r.spans[0].status,
        SpanStatus::Dropped {
            reason: Some("supported".into())
        }
    );
}

#[test]
fn clean_and_remove_empty_the_record() {
    let mut log = Log::new();
    log.push(ActionKind::Clean, |_| {});
    let r = log.review();
    assert!(r.is_reviewed());
    assert!(r.kept_spans(&log.rec.output).is_empty());
    let mut log = Log::new();
    log.push(ActionKind::Remove, |d| d.reason = Some("incoherent".into()));
    assert_eq!(
        log.review().outcome,
        RecordOutcome::Removed {
            reason: "incoherent".into()
        }
    );
}

#[test]
fn undo_and_redo_walk_the_stack() {
    let mut log = Log::new();
    let a = log.push(ActionKind::Accept, |d| d.span_key = Some("gold:0".into()));
    let b = log.push(ActionKind::Drop, |d| d.span_key = Some("gold:1".into()));
    assert_eq!(undo_target(&log.rows), Some(b));
    log.push(ActionKind::Undo, |d| d.target = Some(b));
    assert_eq!(log.review().spans[1].status, SpanStatus::Pending);
    assert_eq!(undo_target(&log.rows), Some(a));
    log.push(ActionKind::Undo, |d| d.target = Some(a));
    assert_eq!(log.review().spans[0].status, SpanStatus::Pending);
    assert_eq!(undo_target(&log.rows), None);
    // redo restores the most recently undone first
    assert_eq!(redo_target(&log.rows), Some(a));
    log.push(ActionKind::Redo, |d| d.target = Some(a));
    assert_eq!(redo_target(&log.rows), Some(b));
    log.push(ActionKind::Redo, |d| d.target = Some(b));
    assert_eq!(redo_target(&log.rows), None);
    let r = log.review();
    assert!(r.is_reviewed());
    // a new decision after an undo clears the redo stack
    let c = log.push(ActionKind::Flag, |_| {});
    log.push(ActionKind::Undo, |d| d.target = Some(c));
    assert_eq!(redo_target(&log.rows), Some(c));
    log.push(ActionKind::Note, |d| d.note = Some("n".into()));
    assert_eq!(redo_target(&log.rows), None);
}

#[test]
fn stale_decisions_are_not_applied() {
    let mut log = Log::new();
    log.push(ActionKind::Drop, |d| {
        d.span_key = Some("gold:0".into());
        d.record_hash = "different".into();
    });
    let r = log.review();
    assert_eq!(r.stale.len(), 1);
    assert_eq!(r.spans[0].status, SpanStatus::Pending);
}

#[test]
fn span_keys_round_trip() {
    for k in [SpanKey::Gold(3), SpanKey::Added("a-1".into())] {
        assert_eq!(k.to_string().parse::<SpanKey>(), Ok(k));
    }
    assert!("nope".parse::<SpanKey>().is_err());
    assert_eq!(
        ActionKind::from_name("accept_all"),
        Some(ActionKind::AcceptAll)
    );
    assert_eq!(ActionKind::from_name("bogus"), None);
}

#[test]
fn another_reviewers_later_span_decision_or_a_kept_resolution_reopens_the_record() {
    // (first decision, second decision and its reviewer, outcome after both)
    let clean = |d: &mut Decision| d.reviewer = "ana".into();
    let cases: Vec<(ActionKind, ActionKind, &str, Option<SpanValue>, bool)> = vec![
        // Another reviewer's later span decisions stand (log order).
        (ActionKind::Clean, ActionKind::AcceptAll, "bo", None, true),
        (ActionKind::Remove, ActionKind::Accept, "bo", None, true),
        (
            ActionKind::Clean,
            ActionKind::Add,
            "bo",
            Some(value(18, 19, "contradiction")),
            true,
        ),
        // A resolution that keeps a span settles it, whoever arbitrates.
        (
            ActionKind::Clean,
            ActionKind::Resolve,
            "ana",
            Some(value(15, 17, "contradiction")),
            true,
        ),
        // Known-bad the other way: these leave the reclassification as it is.
        (ActionKind::Clean, ActionKind::AcceptAll, "ana", None, false),
        (ActionKind::Remove, ActionKind::Drop, "bo", None, false),
        (ActionKind::Clean, ActionKind::Resolve, "bo", None, false),
        (ActionKind::Clean, ActionKind::Note, "bo", None, false),
    ];
    for (first, second, who, after, reopened) in cases {
        let mut log = Log::new();
        log.push(first, |d| {
            clean(d);
            d.reason = Some("incoherent".into());
        });
        log.push(second, |d| {
            d.reviewer = who.into();
            // On a reclassified record arbitration sees no gold span: its results are new.
            d.span_key = Some(if matches!(second, ActionKind::Add | ActionKind::Resolve) {
                "added:b1".into()
            } else {
                "gold:0".into()
            });
            d.after.clone_from(&after);
            d.note = Some("n".into());
        });
        let r = log.review();
        let what = format!("{first:?} by ana, then {second:?} by {who}");
        assert_eq!(
            r.outcome == RecordOutcome::Open,
            reopened,
            "{what}: {:?}",
            r.outcome
        );
        if reopened {
            let kept = r.kept_spans(&log.rec.output);
            assert!(!kept.is_empty(), "{what}");
            assert_eq!(r.outcome_by, None, "{what}");
            if second == ActionKind::Resolve {
                // Only the resolution's result: the gold spans the arbitration did not see stay
                // out (no duplicate of a span the result repeats).
                let got: Vec<(usize, usize)> = kept.iter().map(|s| (s.start, s.end)).collect();
                assert_eq!(got, [(15, 17)], "{what}");
            }
        } else {
            assert_eq!(r.outcome_by.as_deref(), Some("ana"), "{what}");
        }
    }
}

/// A record without gold spans where a detector marked something: arbitration takes the gold's
/// "no span" (a resolution without a span key).
fn unlabeled() -> Record {
    let mut r = record();
    r.sources[0].spans.clear();
    r
}

#[test]
fn a_resolution_that_keeps_no_span_settles_a_record_without_spans() {
    let rec = unlabeled();
    assert!(!replay(&rec, &[]).is_reviewed(), "nothing decided yet");
    let mut d = Decision::new(&rec, "ds", "arb", ActionKind::Resolve);
    d.id = 1;
    d.reason = Some("cluster 15-17: take gold".into());
    d.upheld = vec!["gold".into()];
    d.dismissed = vec!["det".into()];
    let r = replay(&rec, std::slice::from_ref(&d));
    assert_eq!(r.outcome, RecordOutcome::Open);
    assert!(r.is_reviewed(), "the only cluster is settled");
    // A note or a flag alone settles nothing.
    let mut n = Decision::new(&rec, "ds", "arb", ActionKind::Note);
    n.id = 1;
    n.note = Some("°".into());
    assert!(!replay(&rec, &[n]).is_reviewed());
    // With a gold span still pending elsewhere, the record is not reviewed.
    let mut log = Log::new();
    log.push(ActionKind::Resolve, |d| {
        d.reason = Some("cluster 20-22: take gold".into());
    });
    assert!(!log.review().is_reviewed());
}

/// A resolution of `unit` on a record of `units` units, taking the gold's "no span".
fn no_span(rec: &Record, id: i64, unit: Unit, units: Option<usize>) -> Decision {
    let mut d = Decision::new(rec, "ds", "arb", ActionKind::Resolve);
    d.id = id;
    d.unit = Some(unit);
    d.record_units = units;
    d.group = Some(format!("g{id}"));
    d
}

/// Row `id`, an undo or redo (`action`) of row `target`.
fn meta(rec: &Record, id: i64, action: ActionKind, target: i64) -> Decision {
    let mut d = Decision::new(rec, "ds", "arb", action);
    d.id = id;
    d.target = Some(target);
    d
}

#[test]
fn a_record_is_reviewed_only_once_every_unit_is_settled() {
    let rec = unlabeled();
    let first = Unit::Cluster { start: 8, end: 12 };
    let second = Unit::Cluster { start: 15, end: 17 };
    let a = no_span(&rec, 1, first, Some(3));
    let r = replay(&rec, std::slice::from_ref(&a));
    assert!(!r.is_reviewed(), "two of three units unsettled");
    let b = no_span(&rec, 2, second, Some(3));
    assert!(!replay(&rec, &[a.clone(), b.clone()]).is_reviewed());
    // Resolving the same cluster again settles nothing more.
    let again = no_span(&rec, 3, first, Some(3));
    let log = [a.clone(), b.clone(), again];
    assert!(!replay(&rec, &log).is_reviewed());
    let c = no_span(&rec, 4, Unit::Claim(0), Some(3));
    let mut log = log.to_vec();
    log.push(c);
    assert!(
        replay(&rec, &log).is_reviewed(),
        "both clusters and the claim settled"
    );
    // Undoing one resolution opens the record again.
    log.push(meta(&rec, 5, ActionKind::Undo, 4));
    assert!(
        !replay(&rec, &log).is_reviewed(),
        "the claim is unsettled again"
    );
    log.push(meta(&rec, 6, ActionKind::Redo, 4));
    assert!(replay(&rec, &log).is_reviewed());
}

#[test]
fn two_clusters_one_resolved_leave_the_record_open_until_both_are() {
    let rec = unlabeled();
    let a = no_span(&rec, 1, Unit::Cluster { start: 8, end: 12 }, Some(2));
    let b = no_span(&rec, 2, Unit::Cluster { start: 15, end: 17 }, Some(2));
    assert!(!replay(&rec, std::slice::from_ref(&a)).is_reviewed());
    let mut log = vec![a, b];
    assert!(replay(&rec, &log).is_reviewed());
    log.push(meta(&rec, 3, ActionKind::Undo, 1));
    assert!(
        !replay(&rec, &log).is_reviewed(),
        "undoing one of two reopens it"
    );
}

#[test]
fn resolutions_logged_before_the_unit_count_keep_the_old_rule() {
    let rec = unlabeled();
    let a = no_span(&rec, 1, Unit::Cluster { start: 8, end: 12 }, None);
    assert!(replay(&rec, std::slice::from_ref(&a)).is_reviewed());
    // A record with gold spans, one resolved and one still pending, stays open either way.
    let mut log = Log::new();
    log.push(ActionKind::Resolve, |d| {
        d.span_key = Some("gold:0".into());
        d.after = Some(value(8, 12, "contradiction"));
        d.unit = Some(Unit::Cluster { start: 8, end: 12 });
    });
    assert!(!log.review().is_reviewed());
    log.push(ActionKind::Accept, |d| d.span_key = Some("gold:1".into()));
    assert!(
        log.review().is_reviewed(),
        "no count: no span pending is enough"
    );
}

#[test]
fn a_flag_is_on_or_off_by_its_flag_state_never_by_its_reason() {
    let mut log = Log::new();
    log.push(ActionKind::Flag, |_| {});
    assert!(log.review().flagged, "a flag puts the flag on by default");
    log.push(ActionKind::Flag, |d| d.flag_on = Some(false));
    assert!(!log.review().flagged);
    // The word "off" in the reason is for humans: it decides nothing.
    log.push(ActionKind::Flag, |d| d.reason = Some("off".into()));
    assert!(log.review().flagged);
    log.push(ActionKind::Flag, |d| {
        d.flag_on = Some(false);
        d.reason = Some("°".into());
    });
    assert!(!log.review().flagged);
}

#[test]
fn a_retype_sets_the_records_type_after_review_and_undo_takes_it_back() {
    let mut log = Log::new();
    assert_eq!(log.review().record_type, None, "as read");
    let a = log.push(ActionKind::Retype, |d| {
        d.record_type = Some("Fabrication’".into());
    });
    assert_eq!(log.review().record_type.as_deref(), Some("Fabrication’"));
    log.push(ActionKind::Retype, |d| d.record_type = Some("東京".into()));
    assert_eq!(log.review().record_type.as_deref(), Some("東京"));
    log.push(ActionKind::Undo, |d| d.target = Some(a + 1));
    assert_eq!(log.review().record_type.as_deref(), Some("Fabrication’"));
    // It changes the type only: spans and outcome stay as they were.
    let r = log.review();
    assert_eq!(r.outcome, RecordOutcome::Open);
    assert!(r.spans.iter().all(|s| s.status == SpanStatus::Pending));
}

#[test]
fn a_verdict_is_in_force_only_for_decisions_other_than_flags_notes_undo_and_redo() {
    let mut log = Log::new();
    log.push(ActionKind::Flag, |d| d.reason = Some("on".into()));
    log.push(ActionKind::Note, |d| d.note = Some("°C?".into()));
    assert!(!log.review().has_verdict());
    let accept = log.push(ActionKind::Accept, |d| d.span_key = Some("gold:0".into()));
    assert!(log.review().has_verdict());
    log.push(ActionKind::Undo, |d| d.target = Some(accept));
    assert!(
        !log.review().has_verdict(),
        "an undone verdict is not in force"
    );
}

#[test]
fn in_force_tells_undone_from_unknown() {
    let mut log = Log::new();
    let a = log.push(ActionKind::Accept, |d| d.span_key = Some("gold:0".into()));
    let b = log.push(ActionKind::Drop, |d| d.span_key = Some("gold:1".into()));
    let u = log.push(ActionKind::Undo, |d| d.target = Some(b));
    let active = active_ids(&log.rows);
    assert!(active.contains(a) && !active.contains(b) && !active.contains(u));
    assert!(active.undone(b) && !active.undone(a) && !active.undone(99));
    assert!(!active.contains(99));
    assert_eq!(redo_target(&log.rows), Some(b));
}

#[test]
fn a_resolution_keys_its_rows_and_a_second_one_drops_what_the_first_added() {
    use crate::model::{Source, SourceRole};
    use crate::review::disagreement::{cluster, resolve, Options, Resolution};
    // Gold marks 25°C (8-12); a detector marks 25° (8-11) and 東京 👋 (15-19), which the
    // gold does not: two disputed clusters.
    let mut rec = record();
    rec.sources[0].spans.truncate(1);
    let det = vec![
        Span::new(&rec.output, 8, 11, ""),
        Span::new(&rec.output, 15, 19, ""),
    ];
    rec.sources
        .push(Source::new("det", SourceRole::Detector, det));
    let d = cluster(&rec.output, &rec.sources, &Options::default());
    assert_eq!(d.clusters.len(), 2);
    let base = Decision::new(&rec, "ds", "ann", ActionKind::Resolve);
    let rows_for = |review: &RecordReview, cl: usize, how: Resolution, group: &str| {
        let outcome = resolve(&rec.output, &rec.sources, &d, cl, how).expect("outcome");
        let s = Settling {
            cluster: cl,
            outcome: &outcome,
            reason: "test",
            group,
        };
        resolution_decisions(&rec, review, &d, &s, &base)
    };
    // Taking the detector tightens gold:0 to 25°.
    let rows = rows_for(&replay(&rec, &[]), 0, Resolution::Take(1), "g1");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].span_key.as_deref(), Some("gold:0"));
    assert_eq!(
        rows[0].after.as_ref().map(|a| (a.start, a.end)),
        Some((8, 11))
    );
    assert_eq!(
        rows[0].upheld,
        ["gold", "det"],
        "25° keeps the gold's 25°C too"
    );
    assert_eq!(rows[0].note.as_deref(), Some("resolution g1"));
    // Taking it on the second cluster adds 東京 👋 under the group's key.
    let mut log: Vec<Decision> = Vec::new();
    for (i, mut r) in rows_for(&replay(&rec, &[]), 1, Resolution::Take(1), "g2")
        .into_iter()
        .enumerate()
    {
        r.id = i64::try_from(i).expect("small") + 1;
        log.push(r);
    }
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].span_key.as_deref(), Some("added:g2-0"));
    assert_eq!(
        log[0].after.as_ref().map(|a| (a.start, a.end)),
        Some((15, 19))
    );
    // Changing one's mind (drop all) drops the span the first resolution added; the rows name
    // the cluster, so they count as one vote on it.
    let review = replay(&rec, &log);
    let rows = rows_for(&review, 1, Resolution::DropAll, "g3");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].span_key.as_deref(), Some("added:g2-0"));
    assert!(rows[0].after.is_none());
    assert_eq!(rows[0].unit, log[0].unit);
    assert_eq!(rows[0].dismissed, ["det"]);
    // A cluster that is not one of the disagreement's: nothing.
    assert!(rows_for_missing(&rec, &d, &base).is_empty());
}

fn rows_for_missing(
    rec: &Record,
    d: &crate::review::disagreement::Disagreement,
    base: &Decision,
) -> Vec<Decision> {
    let outcome = crate::review::disagreement::Outcome {
        spans: Vec::new(),
        upheld: Vec::new(),
        dismissed: Vec::new(),
    };
    let s = Settling {
        cluster: d.clusters.len(),
        outcome: &outcome,
        reason: "test",
        group: "g",
    };
    resolution_decisions(rec, &replay(rec, &[]), d, &s, base)
}

/// Issue 21 (1): a resolution settles every span of its cluster, whoever added it. ana adds
/// 東京 (a span the gold lacks); the arbiter's edit of that cluster to the same bounds settles
/// ana's `added:` span instead of adding a second copy beside it.
#[test]
fn a_resolution_settles_a_reviewers_added_span_instead_of_copying_it() {
    use crate::model::{Source, SourceRole};
    use crate::review::disagreement::{cluster, resolve, settle, Options, Resolution};
    let mut rec = record();
    rec.sources[0].spans.truncate(1);
    let mut ana = Decision::new(&rec, "ds", "ana", ActionKind::Add);
    ana.id = 1;
    ana.span_key = Some("added:a1".into());
    ana.after = Some(value(15, 17, "overgeneration"));
    let mine = vec![
        Span::new(&rec.output, 8, 12, "contradiction"),
        Span::new(&rec.output, 15, 17, "overgeneration"),
    ];
    let mut sources = rec.sources.clone();
    sources.push(Source::new("reviewer:ana", SourceRole::Annotator, mine));
    let d = cluster(&rec.output, &sources, &Options::default());
    let (at, _) = d.disputed().next().expect("the added span is disputed");
    let review = replay(&rec, std::slice::from_ref(&ana));
    let base = Decision::new(&rec, "ds", "lead", ActionKind::Resolve);
    let edit = settle(
        &rec.output,
        &sources,
        &d,
        at,
        vec![Span::new(&rec.output, 15, 17, "overgeneration")],
    )
    .expect("cluster");
    let take = resolve(&rec.output, &sources, &d, at, Resolution::Take(1)).expect("cluster");
    let drop = resolve(&rec.output, &sources, &d, at, Resolution::DropAll).expect("cluster");
    for (outcome, kept) in [(&edit, 1), (&take, 1), (&drop, 0)] {
        let s = Settling {
            cluster: at,
            outcome,
            reason: "test",
            group: "g1",
        };
        let mut log = vec![ana.clone()];
        for (i, mut r) in resolution_decisions(&rec, &review, &d, &s, &base)
            .into_iter()
            .enumerate()
        {
            assert_eq!(r.span_key.as_deref(), Some("added:a1"), "{r:?}");
            r.id = 2 + i64::try_from(i).expect("small");
            log.push(r);
        }
        let spans: Vec<(usize, usize)> = replay(&rec, &log)
            .kept_spans(&rec.output)
            .iter()
            .filter(|s| s.start >= 15)
            .map(|s| (s.start, s.end))
            .collect();
        assert_eq!(spans, vec![(15, 17); kept]);
    }
}

/// Issue 21 (4): a decision means what the reviewer saw. ana drops 25°C; bo adds 👋; cy,
/// shown both, presses `A`: cy's result agrees with the drop and keeps bo's span (replaying
/// cy's decisions alone kept 25°C and not 👋). ana's drop of 東京, made after cy's last
/// verdict, was never on cy's screen. dan accepts bo's added span with `a`: dan keeps it.
#[test]
fn a_reviewers_result_is_their_decisions_on_what_their_screen_showed() {
    fn by(who: &'static str) -> impl Fn(&mut Decision) {
        move |d| d.reviewer = who.to_owned()
    }
    let mut log = Log::new();
    log.push(ActionKind::Drop, |d| {
        by("ana")(d);
        d.span_key = Some("gold:0".into());
    });
    log.push(ActionKind::Add, |d| {
        by("bo")(d);
        d.span_key = Some("added:b1".into());
        d.after = Some(value(18, 19, "contradiction"));
    });
    log.push(ActionKind::AcceptAll, by("cy"));
    log.push(ActionKind::Accept, |d| {
        by("dan")(d);
        d.span_key = Some("added:b1".into());
    });
    log.push(ActionKind::Drop, |d| {
        by("ana")(d);
        d.span_key = Some("gold:1".into());
    });
    let texts = |r: &RecordReview| -> Vec<String> {
        r.kept_spans(&log.rec.output)
            .into_iter()
            .map(|s| s.text)
            .collect()
    };
    let cy = replay_seen(&log.rec, "cy", &log.rows);
    assert_eq!(texts(&cy), ["東京", "👋"]);
    assert!(cy.is_reviewed() && cy.has_verdict());
    assert_eq!(cy.applied.len(), 1, "only cy's own decisions are cy's");
    // Alone, cy's `A` keeps the spans as read: what stats used to report.
    let alone: Vec<Decision> = log
        .rows
        .iter()
        .filter(|d| d.reviewer == "cy")
        .cloned()
        .collect();
    assert_eq!(texts(&replay(&log.rec, &alone)), ["25°C", "東京"]);
    let dan = replay_seen(&log.rec, "dan", &log.rows);
    assert!(texts(&dan).contains(&"👋".to_owned()), "{:?}", texts(&dan));
    // ana dropped 東京 with bo's 👋 on her screen, and left it.
    assert_eq!(texts(&replay_seen(&log.rec, "ana", &log.rows)), ["👋"]);
    // Someone with no verdict has no result to speak of.
    assert!(!replay_seen(&log.rec, "eve", &log.rows).has_verdict());
}

/// Issue 21 (1), in a log saved before resolutions named reviewers' added spans (the real run's
/// `00599__clean`): ana adds 東京, the arbiter's resolution of that cluster adds the same span
/// under its own key. Replayed, the resolution settles every span of its cluster: ana's copy
/// is dropped, one span is left; a span outside the cluster (25°C) is untouched.
#[test]
fn a_resolution_drops_the_spans_of_its_cluster_its_rows_do_not_name() {
    let mut log = Log::new();
    log.push(ActionKind::Add, |d| {
        d.reviewer = "ana".into();
        d.span_key = Some("added:a1".into());
        d.after = Some(value(15, 17, "overgeneration"));
    });
    log.push(ActionKind::Resolve, |d| {
        d.reviewer = "lead".into();
        d.span_key = Some("added:g1-0".into());
        d.after = Some(value(15, 17, "overgeneration"));
        d.unit = Some(Unit::Cluster { start: 15, end: 17 });
        d.group = Some("g1".into());
        d.reason = Some("edit".into());
    });
    let r = log.review();
    let kept: Vec<(&str, usize, usize)> = r
        .spans
        .iter()
        .filter(|s| s.kept())
        .map(|s| (s.current.label.as_str(), s.current.start, s.current.end))
        .collect();
    // gold:1 (東京 as read) is in the cluster too, and the resolution did not name it.
    assert_eq!(kept, [("contradiction", 8, 12), ("overgeneration", 15, 17)]);
    let a1 = r.span(&SpanKey::Added("a1".into())).expect("ana's span");
    assert_eq!(
        a1.status,
        SpanStatus::Dropped {
            reason: Some("edit".into())
        }
    );
}

/// Issue 21 (8): the override notice's rule. ana's drop overrides cy's `A` (which accepted the
/// span); cy's accept overrides ana's `c`; agreeing is no override, nor is overriding oneself.
#[test]
fn an_override_of_an_accept_all_or_a_clean_is_found() {
    let rec = record();
    let made = |id: i64, who: &str, action: ActionKind, key: Option<&str>| {
        let mut d = Decision::new(&rec, "ds", who, action);
        d.id = id;
        d.span_key = key.map(str::to_owned);
        d.before = key.map(|_| value(8, 12, "contradiction"));
        d
    };
    let id = |o: Option<&Decision>| o.map(|d| d.id);
    // ana drops 25°C after cy accepted the record whole.
    let prior = [made(1, "cy", ActionKind::AcceptAll, None)];
    let drop = made(2, "ana", ActionKind::Drop, Some("gold:0"));
    assert_eq!(id(overridden(&prior, &drop, "ana")), Some(1));
    let accept = made(2, "ana", ActionKind::Accept, Some("gold:0"));
    assert_eq!(id(overridden(&prior, &accept, "ana")), None, "agrees");
    assert_eq!(id(overridden(&prior, &drop, "cy")), None, "one's own");
    // A span decided after the accept-all: that decision is what a drop overrides.
    let mut later = prior.to_vec();
    later.push(made(2, "bo", ActionKind::Adjust, Some("gold:0")));
    later[1].after = Some(value(8, 11, "contradiction"));
    let drop3 = made(3, "ana", ActionKind::Drop, Some("gold:0"));
    assert_eq!(id(overridden(&later, &drop3, "ana")), Some(2));
    // cy accepts 東京 after ana reclassified the record clean: the accept reopens it.
    let prior = [made(1, "ana", ActionKind::Clean, None)];
    let accept = made(2, "cy", ActionKind::Accept, Some("gold:1"));
    assert_eq!(id(overridden(&prior, &accept, "cy")), Some(1));
    let all = made(2, "cy", ActionKind::AcceptAll, None);
    assert_eq!(id(overridden(&prior, &all, "cy")), Some(1));
    let drop = made(2, "cy", ActionKind::Drop, Some("gold:1"));
    assert_eq!(
        id(overridden(&prior, &drop, "cy")),
        None,
        "a drop keeps it clean"
    );
    // A clean over bo's accept of a span; an undone accept is not in force.
    let mut prior = vec![made(1, "bo", ActionKind::Accept, Some("gold:0"))];
    let clean = made(3, "ana", ActionKind::Clean, None);
    assert_eq!(id(overridden(&prior, &clean, "ana")), Some(1));
    let mut undo = made(2, "bo", ActionKind::Undo, None);
    undo.target = Some(1);
    prior.push(undo);
    assert_eq!(id(overridden(&prior, &clean, "ana")), None);
}

#[test]
fn the_same_span_added_by_two_reviewers_is_kept_once() {
    // ana and bo, on a shared record, each add 👋 as a contradiction: agreement, one label.
    let mut log = Log::new();
    for (who, key) in [("ana", "added:a1"), ("bo", "added:b1")] {
        log.push(ActionKind::Add, |d| {
            d.reviewer = who.to_owned();
            d.span_key = Some(key.into());
            d.after = Some(value(18, 19, "contradiction"));
        });
    }
    let r = replay(&log.rec, &log.rows);
    let kept = r.kept_spans(&log.rec.output);
    let added: Vec<(usize, usize)> = kept
        .iter()
        .filter(|s| s.start == 18)
        .map(|s| (s.start, s.end))
        .collect();
    assert_eq!(added, [(18, 19)], "{kept:?}");
    // The second is dropped as a duplicate, so nothing counts it as added (the report's
    // "Spans added" is 1).
    let adds: Vec<&SpanStatus> = r
        .spans
        .iter()
        .filter(|s| s.original.is_none())
        .map(|s| &s.status)
        .collect();
    assert_eq!(adds.len(), 2);
    assert_eq!(adds[0], &SpanStatus::Accepted);
    assert!(
        matches!(adds[1], SpanStatus::Dropped { reason: Some(r) } if r == replay::DUPLICATE),
        "{adds:?}"
    );
    let counted = r
        .spans
        .iter()
        .filter(|s| crate::review::outcome::span_fate(s, &log.rec.output).added)
        .count();
    assert_eq!(counted, 1);
}

#[test]
fn a_resolution_logged_with_the_records_type_as_label_keeps_the_settled_spans_label() {
    // An older arbitration screen saved the edit of ana's added span as `clean` (the record's
    // type): the replay keeps ana's label, so the export holds no span labeled clean.
    let mut log = Log::new();
    log.push(ActionKind::Add, |d| {
        d.reviewer = "ana".into();
        d.span_key = Some("added:a1".into());
        d.after = Some(value(18, 19, "overgeneration"));
    });
    log.push(ActionKind::Resolve, |d| {
        d.reviewer = "lead".into();
        d.span_key = Some("added:a1".into());
        d.after = Some(value(18, 19, CLEAN));
    });
    let r = replay(&log.rec, &log.rows);
    let labels: Vec<String> = r
        .kept_spans(&log.rec.output)
        .into_iter()
        .filter(|s| s.start == 18)
        .map(|s| s.label)
        .collect();
    assert_eq!(labels, ["overgeneration"]);
}
