//! Team figures on hand-built reviewers: known agreement values (worked out by hand in the
//! comments), a disagreeing pair scoring lower, opinions replayed from decisions, pace.

use super::*;
use crate::review::decision::{ActionKind, SpanValue};
use crate::test_util::gold_record;

/// Ten code points: a b ° c ’ 東 京 x 😀 y.
const OUT: &str = "ab°c’東京x😀y";

fn op(who: &str, spans: &[(usize, usize, &str)]) -> Opinion {
    Opinion {
        reviewer: who.into(),
        removed: false,
        spans: spans
            .iter()
            .map(|&(s, e, l)| Span::new(OUT, s, e, l))
            .collect(),
    }
}

fn close(x: Option<f64>, want: f64) {
    let x = x.expect("defined");
    assert!((x - want).abs() < 1e-12, "{x} != {want}");
}

/// Both mark 東京 `c`: every figure is 1.
fn agreeing() -> [Opinion; 2] {
    [op("ana", &[(5, 7, "c")]), op("bo", &[(5, 7, "c")])]
}

/// ana marks `ab°c` contradiction, bo `°c’東` overgeneration. Per code point: 2 only ana's,
/// 2 both with other labels, 2 only bo's, 4 neither. Label-aware: tp 0, fp 4, fn 4 (F1 0);
/// observed agreement 4/10, expected 0.6·0.6 = 0.36: kappa 0.04/0.64 = 0.0625. Alpha: o(con,
/// none) = o(con, over) = o(none, over) = 2 each way, o(none, none) = 8; n = 20, n_none = 12,
/// n_con = n_over = 4; α = 1 − 19·12/(400 − 176) = −1/56.
fn disagreeing() -> [Opinion; 2] {
    [
        op("ana", &[(0, 4, "contradiction")]),
        op("bo", &[(2, 6, "overgeneration")]),
    ]
}

#[test]
fn agreeing_reviewers_score_one() {
    let mut t = Team::default();
    t.add("good", OUT, &agreeing(), &Options::default());
    let r = t.report().expect("report");
    assert_eq!((r.records, r.pairs.len()), (1, 1));
    let p = &r.pairs[0];
    assert_eq!((p.a.as_str(), p.b.as_str()), ("ana", "bo"));
    assert!((p.scores.char_level_labeled.f1 - 1.0).abs() < 1e-12);
    close(p.scores.kappa_labeled, 1.0);
    close(p.alpha.labeled, 1.0);
    assert!(r.disagreements.is_empty());
}

#[test]
fn disagreeing_reviewers_score_the_known_lower_values() {
    let mut t = Team::default();
    t.add("bad", OUT, &disagreeing(), &Options::default());
    let r = t.report().expect("report");
    let p = &r.pairs[0];
    assert_eq!(
        (
            p.scores.char_level_labeled.tp,
            p.scores.char_level_labeled.fp,
            p.scores.char_level_labeled.fn_
        ),
        (0, 4, 4)
    );
    assert!(p.scores.char_level_labeled.f1.abs() < 1e-12);
    close(p.scores.kappa_labeled, 0.0625);
    close(p.alpha.labeled, -1.0 / 56.0);
    // Label-blind, for contrast: tp 2, fp 2, fn 2, tn 4: F1 0.5, kappa (0.6 − 0.52)/0.48.
    assert!((p.scores.char_level.f1 - 0.5).abs() < 1e-12);
    close(p.scores.kappa, 0.08 / 0.48);
    assert_eq!(r.disagreements.len(), 1);
    let d = &r.disagreements[0];
    assert_eq!(d.record_id, "bad");
    let texts: Vec<&str> = d
        .opinions
        .iter()
        .map(|o| o.spans[0].text.as_str())
        .collect();
    assert_eq!(texts, ["ab°c", "°c’東"]);
    let json = serde_json::to_value(d).expect("json");
    assert_eq!(
        json["opinions"][1]["spans"][0],
        serde_json::json!({"start": 2, "end": 6, "label": "overgeneration", "text": "°c’東"})
    );
}

/// Both records pooled: label-aware tp 2, fp 4, fn 4: F1 4/12; agreement 14/20, expected
/// (2·2 + 14·14)/400 = 0.5: kappa 0.4; alpha: n = 40 (c 4, con 4, over 4, none 28), off-diagonal
/// 12: α = 1 − 39·12/(1600 − 832) = 0.390625. The team of two is its one pair.
#[test]
fn the_pair_and_the_team_pool_the_records() {
    let mut t = Team::default();
    t.add("good", OUT, &agreeing(), &Options::default());
    t.add("bad", OUT, &disagreeing(), &Options::default());
    let r = t.report().expect("report");
    let p = &r.pairs[0];
    assert!((p.scores.char_level_labeled.f1 - 4.0 / 12.0).abs() < 1e-12);
    close(p.scores.kappa_labeled, 0.4);
    close(p.alpha.labeled, 0.390_625);
    close(r.alpha.labeled, 0.390_625);
    assert!((r.team.char_level_labeled.f1 - 4.0 / 12.0).abs() < 1e-12);
    let ids: Vec<&str> = r
        .disagreements
        .iter()
        .map(|d| d.record_id.as_str())
        .collect();
    assert_eq!(ids, ["bad"]);
}

#[test]
fn three_reviewers_give_three_pairs_and_one_alone_nothing() {
    let mut t = Team::default();
    t.add(
        "solo",
        OUT,
        &[op("ana", &[(0, 1, "c")])],
        &Options::default(),
    );
    assert!(t.report().is_none());
    let [a, b] = disagreeing();
    t.add(
        "bad",
        OUT,
        &[b, op("cy", &[(0, 4, "contradiction")]), a],
        &Options::default(),
    );
    let r = t.report().expect("report");
    assert_eq!(r.reviewers, ["ana", "bo", "cy"]);
    let pairs: Vec<(&str, &str)> = r.pairs.iter().map(|p| (&*p.a, &*p.b)).collect();
    assert_eq!(pairs, [("ana", "bo"), ("ana", "cy"), ("bo", "cy")]);
    // ana and cy agree; the team pools 3 pairs: tp 4, fp 8, fn 8 → F1 8/24.
    assert!((r.pairs[1].scores.char_level_labeled.f1 - 1.0).abs() < 1e-12);
    assert!((r.team.char_level_labeled.f1 - 8.0 / 24.0).abs() < 1e-12);
    assert_eq!(r.alpha.coders, ["ana", "bo", "cy"]);
}

#[test]
fn a_removal_against_kept_spans_is_a_disagreement() {
    let mut removed = op("bo", &[]);
    removed.removed = true;
    let mut t = Team::default();
    t.add("r", OUT, &[op("ana", &[]), removed], &Options::default());
    let r = t.report().expect("report");
    assert_eq!(r.disagreements.len(), 1);
}

fn record() -> Record {
    let gold = vec![Span::new(OUT, 5, 7, "contradiction")];
    gold_record("r1", OUT, Some("contradiction"), gold)
}

fn decision(id: i64, who: &str, action: ActionKind) -> Decision {
    let rec = record();
    let mut d = Decision::new(&rec, "ds", who, action);
    d.id = id;
    if matches!(action, ActionKind::Accept | ActionKind::Drop) {
        d.span_key = Some("gold:0".into());
        d.before = Some(SpanValue::of(&rec.gold_spans()[0]));
    }
    d
}

#[test]
fn opinions_replay_each_reviewers_own_decisions() {
    let rec = record();
    let ana = [decision(1, "ana", ActionKind::Accept)];
    let bo = [decision(2, "bo", ActionKind::Drop)];
    let cy = [decision(3, "cy", ActionKind::Remove)];
    let mut flag = decision(4, "dan", ActionKind::Flag);
    flag.flag_on = Some(true);
    let a = Opinion::of(&rec, "ana", &ana).expect("ana");
    assert_eq!((a.removed, a.spans.len()), (false, 1));
    assert_eq!(a.spans[0].text, "東京");
    let b = Opinion::of(&rec, "bo", &bo).expect("bo");
    assert!(b.spans.is_empty() && !b.removed);
    let c = Opinion::of(&rec, "cy", &cy).expect("cy");
    assert!(c.removed && c.spans.is_empty());
    assert_eq!(Opinion::of(&rec, "dan", &[flag]), None);
    // An undone decision is no opinion.
    let mut undo = decision(5, "ana", ActionKind::Undo);
    undo.target = Some(1);
    assert_eq!(Opinion::of(&rec, "ana", &[ana[0].clone(), undo]), None);
}

#[test]
fn decided_by_respects_undo_and_skips_what_it_is_told() {
    let mut undo = decision(3, "bo", ActionKind::Undo);
    undo.target = Some(2);
    let mut flag = decision(4, "cy", ActionKind::Flag);
    flag.flag_on = Some(true);
    let log = [
        decision(1, "ana", ActionKind::Accept),
        decision(2, "bo", ActionKind::Drop),
        undo,
        flag,
        decision(5, "arbiter", ActionKind::AcceptAll),
    ];
    let by = decided_by(&log, |d| d.reviewer == "arbiter");
    assert_eq!(by.len(), 1);
    assert_eq!(by["r1"], BTreeSet::from(["ana".to_owned()]));
}

#[test]
fn pace_counts_gaps_up_to_a_break() {
    // Decisions at 0 s, 60 s, 120 s, then after a 2 h break at 7320 s and 7380 s: 3 minutes of
    // work plus one capped break of 10 minutes: 13 minutes.
    let times = [7380, 0, 60, 120, 7320];
    let done: BTreeSet<&str> = ["r1", "r2"].into();
    let assigned: BTreeSet<&str> = ["r1", "r2", "r3", "r4", "r5"].into();
    let p = Pace::of("ana", &times, &done, Some(&assigned));
    assert!((p.hours - 13.0 / 60.0).abs() < 1e-12, "{}", p.hours);
    let rate = p.rate_per_hour.expect("rate");
    assert!((rate - 2.0 / (13.0 / 60.0)).abs() < 1e-9);
    assert_eq!((p.assigned, p.done, p.left), (Some(5), 2, Some(3)));
    assert!((p.hours_left.expect("left") - 3.0 / rate).abs() < 1e-12);
    let alone = Pace::of("bo", &[5], &done, None);
    assert_eq!(
        (alone.assigned, alone.rate_per_hour, alone.hours_left),
        (None, None, None)
    );
}

/// What is arbitration: every resolve row, a decision of the arbitration screen (its marked
/// group, or a group shared with a resolve), and the arbiter's other decisions on a record they
/// resolved; a reviewer's own decisions elsewhere stay theirs.
#[test]
fn arbitration_is_resolutions_the_arbitration_screen_and_the_arbiters_record() {
    let on = |id: i64, who: &str, record: &str, action: ActionKind| {
        let mut d = decision(id, who, action);
        d.record_id = record.into();
        d
    };
    let mut resolve = on(1, "lead", "r1", ActionKind::Resolve);
    resolve.group = Some("g1".into());
    let mut marked = on(2, "lead", "r2", ActionKind::Clean);
    marked.group = Some(format!("{ARBITRATION_GROUP}7"));
    let mut shared = on(3, "cy", "r3", ActionKind::Retype);
    shared.group = Some("g3".into());
    let mut resolve3 = on(4, "cy", "r3", ActionKind::Resolve);
    resolve3.group = Some("g3".into());
    let after = on(5, "lead", "r1", ActionKind::Clean);
    let own = on(6, "lead", "r4", ActionKind::Accept);
    let ana = on(7, "ana", "r1", ActionKind::Accept);
    let mut same_group_elsewhere = on(8, "ana", "r5", ActionKind::Accept);
    same_group_elsewhere.group = Some("g1".into());
    let log = [
        resolve.clone(),
        marked.clone(),
        shared.clone(),
        resolve3,
        after.clone(),
        own.clone(),
        ana.clone(),
        same_group_elsewhere.clone(),
    ];
    let a = Arbiter::of(&log);
    let made: Vec<i64> = log.iter().filter(|d| a.made(d)).map(|d| d.id).collect();
    assert_eq!(made, [1, 2, 3, 4, 5]);
    let by = decided_by(&log, |d| a.made(d));
    assert_eq!(by["r1"], BTreeSet::from(["ana".to_owned()]));
    assert!(!by.contains_key("r2") && !by.contains_key("r3"));
    assert_eq!(by["r4"], BTreeSet::from(["lead".to_owned()]));
}

/// Blind review shows a reviewer only their own decisions until they have decided the record:
/// ana's drop of `東京` is hidden from bo (who sees the span pending), shown once bo accepts it.
#[test]
fn blind_view_hides_the_others_until_one_has_decided() {
    let rec = record();
    let ana = decision(1, "ana", ActionKind::Drop);
    let log = vec![ana.clone()];
    let seen = blind_view(&rec, &log, "bo").expect("hidden");
    assert!(seen.is_empty());
    assert!(!replay(&rec, &seen).is_reviewed());
    // ana sees all of her own log.
    assert_eq!(blind_view(&rec, &log, "ana"), None);
    // bo accepts: the record is decided by bo, everything shows.
    let log = vec![ana, decision(2, "bo", ActionKind::Accept)];
    assert_eq!(blind_view(&rec, &log, "bo"), None);
    // Half decided (a note alone) is not decided.
    let mut note = decision(3, "bo", ActionKind::Note);
    note.note = Some("25°C ’".into());
    let log = vec![decision(1, "ana", ActionKind::Drop), note.clone()];
    assert_eq!(blind_view(&rec, &log, "bo"), Some(vec![note]));
}
