//! Verdicts and report numbers from scripted reviews: each number asserted.

use super::*;
use crate::review::decision::{replay, ActionKind, Decision, SpanValue, Unit};
use crate::test_util::gold_record;

/// A record with three labels over non-ASCII text; label 2 is out of range.
fn record(id: &str, ty: &str) -> Record {
    let output = "Il fait 25°C à 東京 👋 aujourd’hui.";
    let mut bad = Span::new(output, 30, 40, ty);
    bad.text = "gone".into();
    let gold = vec![
        Span::new(output, 8, 12, ty),
        Span::new(output, 15, 17, ty),
        bad,
    ];
    gold_record(id, output, Some(ty), gold)
}

fn value(start: usize, end: usize, label: &str) -> SpanValue {
    SpanValue::new(start, end, label)
}

struct Log {
    rows: Vec<Decision>,
}

impl Log {
    fn push(
        &mut self,
        rec: &Record,
        who: &str,
        action: ActionKind,
        f: impl FnOnce(&mut Decision),
    ) -> i64 {
        let mut d = Decision::new(rec, "ds", who, action);
        d.id = i64::try_from(self.rows.len()).expect("small") + 1;
        d.time = format!("2026-01-01T00:00:{:02}Z", d.id);
        f(&mut d);
        self.rows.push(d);
        self.rows.len() as i64
    }
}

fn key(k: &str) -> Option<String> {
    Some(k.to_owned())
}

/// The scripted review the report test checks, record by record:
/// - a: accept gold:0, tighten gold:1, drop gold:2 (invalid), add one span.
/// - b: relabel gold:0 to overgeneration, drop gold:1, resolve gold:2 away (judge_x dismissed,
///   judge_y upheld), resolve an added span in (judge_x upheld), note, flag.
/// - c: clean. d: removed (incoherent). e: removed (no-op edit). f: only a note.
/// - g: a stale drop only. h: no decisions.
fn scripted() -> (Vec<Record>, Vec<Decision>) {
    let recs: Vec<Record> = ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .map(|id| record(id, "contradiction"))
        .collect();
    let mut log = Log { rows: Vec::new() };
    let [a, b, c, d, e, f, g, _h] = &recs[..] else {
        unreachable!()
    };
    log.push(a, "ann", ActionKind::Accept, |d| d.span_key = key("gold:0"));
    log.push(a, "ann", ActionKind::Adjust, |d| {
        d.span_key = key("gold:1");
        d.after = Some(value(15, 16, "contradiction"));
    });
    log.push(a, "bob", ActionKind::Drop, |d| d.span_key = key("gold:2"));
    log.push(a, "ann", ActionKind::Add, |d| {
        d.span_key = key("added:n1");
        d.after = Some(value(18, 19, "contradiction"));
    });
    log.push(b, "ann", ActionKind::Relabel, |d| {
        d.span_key = key("gold:0");
        d.after = Some(value(8, 12, "overgeneration"));
    });
    log.push(b, "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:1");
        d.reason = Some("supported".into());
    });
    log.push(b, "arb", ActionKind::Resolve, |d| {
        d.span_key = key("gold:2");
        d.upheld = vec!["judge_y".into()];
        d.dismissed = vec!["judge_x".into()];
    });
    log.push(b, "arb", ActionKind::Resolve, |d| {
        d.span_key = key("added:r1");
        d.after = Some(value(0, 2, "contradiction"));
        d.upheld = vec!["judge_x".into()];
    });
    log.push(b, "ann", ActionKind::Note, |d| {
        d.note = Some("check 25°C".into())
    });
    log.push(b, "ann", ActionKind::Flag, |_| {});
    log.push(c, "ann", ActionKind::Clean, |_| {});
    log.push(d, "ann", ActionKind::Remove, |d| {
        d.reason = Some("incoherent".into());
    });
    log.push(e, "ann", ActionKind::Remove, |d| {
        d.reason = Some("no-op edit".into());
    });
    log.push(f, "ann", ActionKind::Note, |d| d.note = Some("fine".into()));
    log.push(g, "ann", ActionKind::Drop, |d| {
        d.span_key = key("gold:0");
        d.record_hash = "old".into();
    });
    (recs, log.rows)
}

fn tally(strict: bool) -> (Tally, Vec<Verdict>) {
    let (recs, log) = scripted();
    let mut t = Tally::default();
    let mut verdicts = Vec::new();
    for r in &recs {
        let review = replay(r, &log);
        let removed = matches!(review.outcome, RecordOutcome::Removed { .. });
        let (kept, dropped) = if strict {
            strict_split(review.kept_spans(&r.output), r.corruption_type.as_deref())
        } else {
            (review.kept_spans(&r.output), Vec::new())
        };
        t.add_strict(&dropped);
        t.add(r, &review, !removed);
        if !removed {
            t.add_written(r, &review, &kept);
        }
        if !review.applied.is_empty() || !review.stale.is_empty() {
            let mine: Vec<Decision> = log
                .iter()
                .filter(|d| d.record_id == r.id)
                .cloned()
                .collect();
            verdicts.push(Verdict::new(r, &review, &kept, &dropped).with_log(&mine));
        }
    }
    t.add_orphans(2);
    (t, verdicts)
}

#[test]
fn report_numbers_of_a_scripted_review() {
    let (t, _) = tally(false);
    assert_eq!(t.records_in, 8);
    assert_eq!(t.records_out, 6);
    assert_eq!(t.reviewed, 5); // a b c d e (f has only a note, g only stale)
    assert_eq!(t.reviewed_retained, 3); // a b c
    assert_eq!(t.complete, 5);
    assert_eq!(t.flagged, 1);
    assert_eq!(t.labels_before, 15);
    assert_eq!(t.kept, 1);
    assert_eq!(t.tightened, 1);
    assert_eq!(t.relabeled, 1);
    assert_eq!(t.dropped, 3); // a gold:2, b gold:1, b gold:2 (resolved away)
    assert_eq!(t.invalid_dropped, 2); // gold:2 of a and of b are out of range
    assert_eq!(t.added, 2); // a added:n1, b added:r1 (resolution)
    assert_eq!(t.reclassified_clean, 1);
    assert_eq!(
        t.removed,
        BTreeMap::from([("incoherent".into(), 1), ("no-op edit".into(), 1)])
    );
    assert_eq!(t.removed_total(), 2);
    assert_eq!(t.disputes, 2);
    assert_eq!(t.disputes_upheld, 1);
    assert_eq!(t.disputes_dropped, 1);
    assert_eq!(
        t.judges["judge_x"],
        JudgeCounts {
            upheld: 1,
            dismissed: 1,
            upheld_spans: 1,
            dismissed_spans: 1,
        }
    );
    assert_eq!(
        t.judges["judge_y"],
        JudgeCounts {
            upheld: 1,
            dismissed: 0,
            upheld_spans: 1,
            dismissed_spans: 0,
        }
    );
    assert_eq!(t.judges["judge_x"].rate(), Some(0.5));
    assert_eq!(t.judges["judge_y"].rate(), Some(1.0));
    assert_eq!(t.strict_dropped, 0);
    assert_eq!(t.stale, 1);
    assert_eq!(t.stale_records, 1);
    assert_eq!(t.orphans, 2);
    assert_eq!(
        t.typed_unlabeled, 0,
        "a and b keep labels; c is clean; f has no verdict"
    );
    let c = &t.by_type["contradiction"];
    assert_eq!(
        *c,
        TypeCounts {
            before: 15,
            after: 4, // a: gold:0, gold:1, added; b: added:r1
            tightened: 1,
            widened: 0,
            shifted: 0,
            relabeled_away: 1,
            relabeled_to: 0,
            dropped: 3,
            added: 2,
            cleared: 9,
        }
    );
    let o = &t.by_type["overgeneration"];
    assert_eq!((o.before, o.after, o.relabeled_to, o.added), (0, 1, 1, 0));
    for tc in t.by_type.values() {
        assert_eq!(
            tc.before + tc.relabeled_to + tc.added,
            tc.after + tc.dropped + tc.relabeled_away + tc.cleared
        );
    }
}

#[test]
fn strict_drops_labels_of_another_type_and_counts_them() {
    let (t, verdicts) = tally(true);
    assert_eq!(t.strict_dropped, 1);
    assert_eq!(t.typed_unlabeled, 0, "b keeps its added contradiction span");
    assert_eq!(
        t.strict_by_type,
        BTreeMap::from([("overgeneration".into(), 1)])
    );
    let b = verdicts.iter().find(|v| v.id == "b").expect("b");
    assert_eq!(b.strict_dropped.len(), 1);
    assert_eq!(b.strict_dropped[0].label, "overgeneration");
    assert_eq!(b.labels_after.len(), 1);
    // untyped records keep everything
    let spans = vec![Span::new("abc", 0, 1, "x")];
    assert_eq!(strict_split(spans.clone(), None), (spans, Vec::new()));
}

#[test]
fn verdicts_name_outcomes_sources_reviewers_and_time() {
    let (_, v) = tally(false);
    let ids: Vec<&str> = v.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f", "g"]);
    let by = |id: &str| v.iter().find(|x| x.id == id).expect("verdict");
    let a = by("a");
    assert_eq!(a.outcomes, ["kept", "tightened", "dropped", "added"]);
    assert_eq!(a.reviewers, ["ann", "bob"]);
    assert_eq!(a.time.as_deref(), Some("2026-01-01T00:00:04Z"));
    assert_eq!(a.labels_before.len(), 3);
    let after: Vec<&str> = a.labels_after.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(after, ["25°C", "東", "👋"]);
    assert_eq!(a.decisions, [1, 2, 3, 4]);
    let b = by("b");
    assert_eq!(b.outcomes, ["relabeled", "dropped", "added"]);
    assert_eq!(b.upheld, ["judge_x", "judge_y"]);
    assert_eq!(b.dismissed, ["judge_x"]);
    assert_eq!(b.disputes.len(), 2);
    assert!(!b.disputes[0].upheld_span && b.disputes[1].upheld_span);
    assert_eq!(b.notes, ["check 25°C"]);
    assert!(b.flagged);
    let c = by("c");
    assert_eq!(c.outcomes, ["reclassified_clean"]);
    assert_eq!(c.corruption_type_after.as_deref(), Some("clean"));
    assert!(c.labels_after.is_empty());
    assert_eq!(by("d").outcomes, ["removed:incoherent"]);
    assert_eq!(by("e").outcomes, ["removed:no-op edit"]);
    let f = by("f");
    assert_eq!(f.outcomes, ["kept"]);
    assert!(!f.reviewed);
    let g = by("g");
    assert_eq!(g.stale, [15]);
    assert!(g.decisions.is_empty());
    let json = serde_json::to_value(a).expect("json");
    assert_eq!(json["labels_after"][2]["text"], "👋");
    assert_eq!(json["stale"], serde_json::json!([]), "always a list");
}

#[test]
fn invalid_means_out_of_range_or_text_mismatch() {
    let out = "25°C ok";
    assert!(!original_invalid(&Span::new(out, 0, 4, "x"), out));
    assert!(original_invalid(&Span::new(out, 3, 9, "x"), out));
    let mut s = Span::new(out, 0, 4, "x");
    s.text = "25 C".into();
    assert!(original_invalid(&s, out));
    let mut no_text = Span::new(out, 0, 4, "x");
    no_text.text.clear();
    assert!(!original_invalid(&no_text, out), "formats without text");
}

#[test]
fn typed_records_left_without_labels_are_counted() {
    let r = record("x", "contradiction");
    let mut log = Log { rows: Vec::new() };
    for i in 0..3 {
        log.push(&r, "ann", ActionKind::Drop, |d| {
            d.span_key = key(&format!("gold:{i}"))
        });
    }
    let review = replay(&r, &log.rows);
    let mut t = Tally::default();
    assert!(t.add_written(&r, &review, &review.kept_spans(&r.output)));
    assert_eq!(t.typed_unlabeled, 1);
    // a record nobody reviewed, or one reclassified clean, is not counted
    let fresh = replay(&r, &[]);
    assert!(!t.add_written(&r, &fresh, &[]));
    log.push(&r, "ann", ActionKind::Clean, |_| {});
    assert!(!t.add_written(&r, &replay(&r, &log.rows), &[]));
    assert_eq!(t.typed_unlabeled, 1);
}

#[test]
fn verdicts_list_every_row_of_the_log_once() {
    let r = record("u", "contradiction");
    let mut log = Log { rows: Vec::new() };
    let a = log.push(&r, "ann", ActionKind::Drop, |d| d.span_key = key("gold:0"));
    log.push(&r, "ann", ActionKind::Undo, |d| d.target = Some(a));
    let b = log.push(&r, "ann", ActionKind::Accept, |d| {
        d.span_key = key("gold:1")
    });
    log.push(&r, "ann", ActionKind::Undo, |d| d.target = Some(b));
    log.push(&r, "ann", ActionKind::Redo, |d| d.target = Some(b));
    log.push(&r, "ann", ActionKind::Clean, |d| {
        d.record_hash = "old".into()
    });
    let review = replay(&r, &log.rows);
    let v = Verdict::new(&r, &review, &[], &[]).with_log(&log.rows);
    assert_eq!(v.decisions, [3]);
    assert_eq!(v.stale, [6]);
    assert_eq!(v.undone, [1]);
    assert_eq!(v.undo_redo, [2, 4, 5]);
}

/// A review of `rec` that adjusted gold:0 to `[start, end)`.
fn adjusted(rec: &Record, start: usize, end: usize) -> RecordReview {
    let mut log = Log { rows: Vec::new() };
    log.push(rec, "ann", ActionKind::Adjust, |d| {
        d.span_key = key("gold:0");
        d.after = Some(value(start, end, "contradiction"));
    });
    log.push(rec, "ann", ActionKind::Drop, |d| d.span_key = key("gold:1"));
    log.push(rec, "ann", ActionKind::Drop, |d| d.span_key = key("gold:2"));
    replay(rec, &log.rows)
}

#[test]
fn boundary_changes_are_tightened_widened_or_shifted() {
    // gold:0 is [8, 12) "25°C" in "Il fait 25°C à 東京 👋 aujourd’hui."
    let rec = record("w", "contradiction");
    let cases = [
        ((9, 11), "tightened"), // both ends inside
        ((8, 11), "tightened"), // one end moves in, the other stays
        ((9, 12), "tightened"),
        ((7, 13), "widened"), // both ends outside (`t W W Enter`)
        ((8, 15), "widened"), // one end moves out, the other stays
        ((5, 12), "widened"),
        ((9, 14), "shifted"), // one end in, the other out
        ((6, 10), "shifted"),
        ((15, 17), "shifted"), // moved past the old span: disjoint
        ((0, 3), "shifted"),
    ];
    for ((start, end), want) in cases {
        let review = adjusted(&rec, start, end);
        let got = outcomes(&rec, &review);
        assert_eq!(got, [want, "dropped"], "[8, 12) -> [{start}, {end})");
        let mut t = Tally::default();
        t.add(&rec, &review, true);
        let counts = [t.tightened, t.widened, t.shifted];
        let by = &t.by_type["contradiction"];
        let typed = [by.tightened, by.widened, by.shifted];
        let k = ["tightened", "widened", "shifted"]
            .iter()
            .position(|n| *n == want)
            .expect("kind");
        let mut one = [0; 3];
        one[k] = 1;
        assert_eq!(counts, one, "[{start}, {end})");
        assert_eq!(typed, one, "[{start}, {end})");
        assert_eq!(t.kept, 0);
    }
}

/// Make `d` (a row of resolution `group`) settle the cluster `[start, end)` for `winner`
/// against `loser`.
fn take(d: &mut Decision, (start, end): (usize, usize), winner: &str, loser: &str, group: &str) {
    d.upheld = vec![winner.into()];
    d.dismissed = vec![loser.into()];
    d.reason = Some(format!("cluster {start}-{end}: take {winner}"));
    d.unit = Some(Unit::Cluster { start, end });
    d.group = Some(group.into());
}

#[test]
fn upheld_counts_one_vote_per_source_per_cluster() {
    // One cluster settled into two spans (two rows of one resolution), a second cluster
    // settled once, then re-resolved the other way (the later resolution stands), and a
    // judge's claim dismissed.
    let rec = record("v", "contradiction");
    let mut log = Log { rows: Vec::new() };
    for k in ["gold:0", "gold:1"] {
        log.push(&rec, "arb", ActionKind::Resolve, |d| {
            d.span_key = key(k);
            d.after = Some(value(8, 12, "contradiction"));
            take(d, (8, 17), "two", "one", "t1");
        });
    }
    log.push(&rec, "arb", ActionKind::Resolve, |d| {
        d.span_key = key("gold:2");
        take(d, (30, 40), "one", "two", "t2");
    });
    log.push(&rec, "arb", ActionKind::Resolve, |d| {
        d.span_key = key("gold:2");
        d.after = Some(value(18, 19, "contradiction"));
        take(d, (30, 40), "two", "one", "t3");
    });
    log.push(&rec, "arb", ActionKind::Resolve, |d| {
        d.dismissed = vec!["judge".into()];
        d.reason = Some("claim 0: dismissed".into());
        d.unit = Some(Unit::Claim(0));
        d.group = Some("t4".into());
    });
    let review = replay(&rec, &log.rows);
    let mut t = Tally::default();
    t.add(&rec, &review, true);
    assert_eq!((t.judges["two"].upheld, t.judges["two"].dismissed), (2, 0));
    assert_eq!((t.judges["one"].upheld, t.judges["one"].dismissed), (0, 2));
    assert_eq!(
        (t.judges["judge"].upheld, t.judges["judge"].dismissed),
        (0, 1)
    );
    assert_eq!(t.clusters_resolved, 3);
    assert_eq!(
        t.disputes, 4,
        "per span: the rows of the resolutions in force (t2 is superseded by t3)"
    );
    let v = Verdict::new(&rec, &review, &review.kept_spans(&rec.output), &[]);
    assert_eq!(v.upheld, ["two"], "the later resolution of 30-40 stands");
    assert_eq!(v.dismissed, ["judge", "one"]);
}

#[test]
fn every_reason_and_note_reaches_the_verdict() {
    let (_, v) = tally(false);
    let json =
        |id: &str| serde_json::to_value(v.iter().find(|x| x.id == id).expect("id")).expect("json");
    let a = json("a");
    assert_eq!(a["reasons"], serde_json::json!([]));
    let b = json("b");
    let reasons = b["reasons"].as_array().expect("reasons");
    let drop = reasons
        .iter()
        .find(|r| r["action"] == "drop")
        .expect("the drop's reason");
    assert_eq!(drop["reason"], "supported");
    assert_eq!(drop["span_key"], "gold:1");
    assert_eq!(drop["decision"], 6);
    assert_eq!(b["notes"], serde_json::json!(["check 25°C"]));
    let d = json("d");
    assert_eq!(d["reasons"][0]["action"], "remove");
    assert_eq!(d["reasons"][0]["reason"], "incoherent");
    assert_eq!(d["reasons"][0]["span_key"], serde_json::Value::Null);
}

#[test]
fn a_resolutions_unit_is_its_cluster_else_its_group_else_itself_never_its_text() {
    let rec = record("u", "contradiction");
    let mut d = Decision::new(&rec, "ds", "arb", ActionKind::Resolve);
    d.id = 7;
    // The old text prefixes mean nothing now: the columns do.
    d.reason = Some("cluster 3-9: take 東京".into());
    d.note = Some("resolution 1a".into());
    assert_eq!(votes::unit(&d), "decision 7");
    d.group = Some("1a".into());
    assert_eq!(votes::unit(&d), "resolution 1a");
    d.unit = Some(Unit::Cluster { start: 3, end: 9 });
    assert_eq!(votes::unit(&d), "cluster 3-9");
    d.unit = Some(Unit::Claim(2));
    assert_eq!(votes::unit(&d), "claim 2");
}

/// Issue 21 (5): a cluster resolved, then re-resolved twice (an edit of the resolution, as #340
/// then #341 on `00622__contradiction`): only the resolution in force counts, per span and per
/// cluster; the verdict keeps all three, the earlier ones marked `superseded_by` the one in
/// force.
#[test]
fn a_superseded_resolution_counts_nowhere_and_its_verdict_names_the_one_that_replaced_it() {
    let rec = record("s°", "contradiction");
    let cluster = Some(Unit::Cluster { start: 8, end: 12 });
    let mut log = Log { rows: Vec::new() };
    let resolve = |log: &mut Log, group: &str, end: usize, upheld: &str, dismissed: &str| {
        log.push(&rec, "lead", ActionKind::Resolve, |d| {
            d.span_key = key("gold:0");
            d.after = Some(value(8, end, "contradiction"));
            d.unit = cluster;
            d.group = Some(group.into());
            d.upheld = vec![upheld.into()];
            d.dismissed = vec![dismissed.into()];
        })
    };
    let first = resolve(&mut log, "g1", 11, "det", "gold");
    let second = resolve(&mut log, "g2", 10, "det", "gold");
    let third = resolve(&mut log, "g4", 12, "gold", "det");
    // An unrelated cluster's resolution stands on its own.
    let other = log.push(&rec, "lead", ActionKind::Resolve, |d| {
        d.span_key = key("gold:1");
        d.unit = Some(Unit::Cluster { start: 15, end: 17 });
        d.group = Some("g3".into());
        d.dismissed = vec!["gold".into()];
    });
    let review = replay(&rec, &log.rows);
    let mut t = Tally::default();
    t.add(&rec, &review, true);
    assert_eq!(
        (t.disputes, t.disputes_upheld, t.disputes_dropped),
        (2, 1, 1)
    );
    assert_eq!(t.clusters_resolved, 2);
    assert_eq!(
        t.judges["gold"],
        JudgeCounts {
            upheld: 1,
            dismissed: 1,
            upheld_spans: 1,
            dismissed_spans: 1,
        }
    );
    assert_eq!(
        t.judges["det"],
        JudgeCounts {
            upheld: 0,
            dismissed: 1,
            upheld_spans: 0,
            dismissed_spans: 1,
        }
    );
    let v = Verdict::new(&rec, &review, &review.kept_spans(&rec.output), &[]);
    let marks: Vec<(i64, Option<i64>)> = v
        .disputes
        .iter()
        .map(|d| (d.decision, d.superseded_by))
        .collect();
    // Both earlier resolutions name the one in force.
    assert_eq!(
        marks,
        [
            (first, Some(third)),
            (second, Some(third)),
            (third, None),
            (other, None)
        ]
    );
}

#[test]
fn boundary_changes_are_counted_by_code_points_moved_at_each_end() {
    // gold:0 is [8, 12) "25°C" in "Il fait 25°C à 東京 👋 aujourd’hui.": code points, not bytes
    // (`°`, `à`, `東京`, `👋` are 2 to 4 bytes each).
    let rec = record("m", "contradiction");
    let mut t = Tally::default();
    for (start, end) in [(9, 11), (5, 18), (8, 10)] {
        t.add(&rec, &adjusted(&rec, start, end), true);
    }
    assert_eq!(t.start_moved, BTreeMap::from([(0, 1), (1, 1), (3, 1)]));
    assert_eq!(t.end_moved, BTreeMap::from([(1, 1), (2, 1), (6, 1)]));
    // An unchanged span moves nothing.
    let mut kept = Tally::default();
    kept.add(&rec, &adjusted(&rec, 8, 12), true);
    assert!(kept.start_moved.is_empty() && kept.end_moved.is_empty());
}
