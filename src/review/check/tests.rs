use rstest::rstest;

use super::*;
use crate::model::Span;
use crate::test_util::gold_record;

/// 14 code points, 21 bytes; one label over `25°C` and a reversed one read from a file.
const OUT: &str = "It’s 25°C 東京 👋";

fn record() -> Record {
    let mut reversed = Span::new(OUT, 0, 2, "x");
    (reversed.start, reversed.end) = (9, 5);
    let gold = vec![Span::new(OUT, 5, 9, "contradiction"), reversed];
    gold_record("r", OUT, Some("contradiction"), gold)
}

fn dec(who: &str, action: ActionKind, id: i64) -> Decision {
    let mut d = Decision::new(&record(), "ds", who, action);
    d.id = id;
    d
}

fn on(mut d: Decision, key: &str) -> Decision {
    d.span_key = Some(key.into());
    d
}

#[rstest]
#[case::whole_answer(0, 14, true)]
#[case::last_code_point(13, 14, true)]
#[case::one_past_in_code_points(13, 15, false)]
#[case::empty(3, 3, false)]
fn an_added_span_must_slice_the_answer_in_code_points(
    #[case] start: usize,
    #[case] end: usize,
    #[case] ok: bool,
) {
    let mut d = on(dec("ana", ActionKind::Add, 0), "added:a");
    d.after = Some(SpanValue::new(start, end, "x"));
    assert_eq!(
        check(&record(), &[], &[], &d).is_ok(),
        ok,
        "[{start}, {end})"
    );
}

#[test]
fn before_is_filled_from_the_span_now_and_left_out_for_a_reversed_one() {
    let d = check(
        &record(),
        &[],
        &[],
        &on(dec("ana", ActionKind::Drop, 0), "gold:0"),
    );
    assert_eq!(
        d.expect("ok").before,
        Some(SpanValue::new(5, 9, "contradiction"))
    );
    let d = check(
        &record(),
        &[],
        &[],
        &on(dec("ana", ActionKind::Drop, 0), "gold:1"),
    );
    assert_eq!(d.expect("ok").before, None);
    // Accepting the reversed span is refused, as `a` refuses it.
    let e = check(
        &record(),
        &[],
        &[],
        &on(dec("ana", ActionKind::Accept, 0), "gold:1"),
    );
    assert!(matches!(
        e,
        Err(Refusal::CannotKeep {
            problem: RangeProblem::Reversed,
            ..
        })
    ));
}

#[test]
fn only_ones_own_reclassification_stops_span_edits() {
    let log = [dec("bo", ActionKind::Clean, 1)];
    let review = replay(&record(), &log);
    assert_eq!(closed_to(&review, "bo"), Some(OutcomeKind::Clean));
    assert_eq!(closed_to(&review, "ana"), None);
    let accept = |who: &str| {
        check(
            &record(),
            &log,
            &[],
            &on(dec(who, ActionKind::Accept, 0), "gold:0"),
        )
    };
    assert!(accept("ana").is_ok());
    assert!(matches!(accept("bo"), Err(Refusal::Closed { .. })));
    // A drop changes nothing kept: the screen allows it on a closed record.
    let drop = on(dec("bo", ActionKind::Drop, 0), "gold:0");
    assert!(check(&record(), &log, &[], &drop).is_ok());
}

#[test]
fn undo_and_redo_take_what_the_keys_would() {
    let mine = vec![dec("ana", ActionKind::Flag, 1), {
        let mut n = dec("ana", ActionKind::Note, 2);
        n.note = Some("n".into());
        n
    }];
    let meta = |action, target| {
        let mut d = dec("ana", action, 0);
        d.target = Some(target);
        check(&record(), &mine, &mine, &d)
    };
    assert!(meta(ActionKind::Undo, 2).is_ok());
    assert!(matches!(
        meta(ActionKind::Undo, 1),
        Err(Refusal::Target { .. })
    ));
    assert!(matches!(
        meta(ActionKind::Redo, 2),
        Err(Refusal::Target { .. })
    ));
    let mut undone = mine.clone();
    let mut u = dec("ana", ActionKind::Undo, 3);
    u.target = Some(2);
    undone.push(u);
    let mut redo = dec("ana", ActionKind::Redo, 0);
    redo.target = Some(2);
    assert!(check(&record(), &undone, &undone, &redo).is_ok());
    // Someone else's decision is not ana's to undo.
    let theirs = vec![dec("bo", ActionKind::Flag, 1)];
    let mut d = dec("ana", ActionKind::Undo, 0);
    d.target = Some(1);
    assert!(check(&record(), &theirs, &theirs, &d).is_err());
}

#[test]
fn a_stale_hash_is_refused() {
    let mut d = dec("ana", ActionKind::Clean, 0);
    d.record_hash = "old".into();
    assert!(matches!(
        check(&record(), &[], &[], &d),
        Err(Refusal::Stale { .. })
    ));
}

/// The screen offers no retype to the type the record has now (its picker leaves it out):
/// such a retype changes nothing, and `apply` refuses it as it refuses an unchanged relabel.
#[rstest]
#[case::the_type_read("contradiction", false)]
#[case::another_type("overgeneration", true)]
fn a_retype_must_change_the_type(#[case] to: &str, #[case] ok: bool) {
    let mut d = dec("ana", ActionKind::Retype, 0);
    d.record_type = Some(to.into());
    let got = check(&record(), &[], &[], &d);
    assert_eq!(got.is_ok(), ok, "{got:?}");
    // Once retyped, the new type is the one a retype must change.
    let mut done = dec("bo", ActionKind::Retype, 1);
    done.record_type = Some("missing_tool".into());
    let mut again = dec("ana", ActionKind::Retype, 0);
    again.record_type = Some("missing_tool".into());
    assert!(check(&record(), &[done], &[], &again).is_err());
}

/// `clean` is a record's type: no span may carry it, added or relabeled (the screen's pickers
/// leave it out, and `validate` refuses it).
#[rstest]
#[case::add(ActionKind::Add, "added:a", 0, 2)]
#[case::relabel(ActionKind::Relabel, "gold:0", 5, 9)]
fn no_span_is_labeled_clean(
    #[case] action: ActionKind,
    #[case] key: &str,
    #[case] start: usize,
    #[case] end: usize,
) {
    let mut d = on(dec("ana", action, 0), key);
    d.after = Some(SpanValue::new(start, end, "clean"));
    assert!(matches!(
        check(&record(), &[], &[], &d),
        Err(Refusal::CleanLabel)
    ));
    d.after = Some(SpanValue::new(start, end, "overgeneration"));
    assert!(check(&record(), &[], &[], &d).is_ok());
}

/// A note or reason is kept as the screen keeps what is typed: trimmed, a blank one none (a
/// removal's then `other`).
#[rstest]
#[case::note(ActionKind::Note, None, Some(" x\t"), None, Some("x"))]
#[case::drop_reason(ActionKind::Drop, Some(" dup "), None, Some("dup"), None)]
#[case::blank_drop_reason(ActionKind::Drop, Some("  "), None, None, None)]
#[case::removal_reason(ActionKind::Remove, Some(" spam\n"), None, Some("spam"), None)]
#[case::blank_removal_reason(ActionKind::Remove, Some(" "), None, Some("other"), None)]
fn notes_and_reasons_are_kept_trimmed(
    #[case] action: ActionKind,
    #[case] reason: Option<&str>,
    #[case] note: Option<&str>,
    #[case] kept_reason: Option<&str>,
    #[case] kept_note: Option<&str>,
) {
    let mut d = dec("ana", action, 0);
    if action == ActionKind::Drop {
        d = on(d, "gold:0");
    }
    d.reason = reason.map(str::to_owned);
    d.note = note.map(str::to_owned);
    let got = check(&record(), &[], &[], &d).expect("kept");
    assert_eq!(
        (got.reason.as_deref(), got.note.as_deref()),
        (kept_reason, kept_note)
    );
}

/// The undo and redo targets as the whole log defines them (every row's state in force, then
/// the latest in force; the undo rows at the end), as they were computed before the walks back.
fn whole_log_targets(log: &[Decision]) -> (Option<i64>, Option<i64>) {
    use crate::review::decision::active_ids;
    let active = active_ids(log);
    let undo = log
        .iter()
        .rev()
        .find(|d| !d.action.is_meta() && active.contains(d.id))
        .map(|d| d.id);
    let mut restored = Vec::new();
    let mut redo = None;
    for d in log.iter().rev() {
        match (d.action, d.target) {
            (ActionKind::Redo, Some(t)) => restored.push(t),
            (ActionKind::Undo, Some(t)) => {
                if !restored.contains(&t) && active.undone(t) {
                    redo = Some(t);
                    break;
                }
            }
            (ActionKind::Undo | ActionKind::Redo, None) => {}
            _ => break,
        }
    }
    (undo, redo)
}

/// Every log of up to six rows (a decision, or an undo or redo of any earlier row): the walks
/// back from the end give the targets the whole log defines.
#[test]
fn the_undo_and_redo_walks_back_agree_with_the_whole_log() {
    use crate::review::decision::{redo_target, undo_target};
    fn grow(log: &mut Vec<Decision>, left: usize, seen: &mut usize) {
        assert_eq!(
            (undo_target(log), redo_target(log)),
            whole_log_targets(log),
            "{:?}",
            log.iter()
                .map(|d| (d.id, d.action, d.target))
                .collect::<Vec<_>>()
        );
        *seen += 1;
        if left == 0 {
            return;
        }
        let id = i64::try_from(log.len()).expect("small") + 1;
        let mut next = vec![dec("ana", ActionKind::Note, id)];
        for t in 1..id {
            for action in [ActionKind::Undo, ActionKind::Redo] {
                let mut d = dec("ana", action, id);
                d.target = Some(t);
                next.push(d);
            }
        }
        for d in next {
            log.push(d);
            grow(log, left - 1, seen);
            log.pop();
        }
    }
    let mut seen = 0;
    grow(&mut Vec::new(), 6, &mut seen);
    assert!(seen > 10_000, "{seen} logs");
}
