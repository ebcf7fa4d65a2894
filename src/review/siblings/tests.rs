//! Carrying a decision to sibling variants: the same text and label found at other offsets,
//! an adjust moved by the same code points, an add at each uncovered occurrence, and what is
//! left alone (other text, other label, decided spans, the record itself).

use super::*;
use crate::model::Span;
use crate::review::decision::replay;
use crate::test_util::gold_record;

const FIRST: &str = "Il fait 25°C à 東京 👋 aujourd’hui.";
// The same error three code points later, and once more.
const SECOND: &str = "Oui: Il fait 25°C à 東京 👋, 25°C.";

fn first() -> Record {
    gold_record(
        "b1__contradiction",
        FIRST,
        None,
        vec![Span::new(FIRST, 8, 12, "contradiction")],
    )
}

fn second(label: &str) -> Record {
    let gold = vec![
        Span::new(SECOND, 13, 17, label),
        Span::new(SECOND, 26, 30, label),
    ];
    gold_record("b1__overgeneration", SECOND, None, gold)
}

fn on_first(action: ActionKind, after: Option<SpanValue>) -> Decision {
    let r = first();
    let mut d = Decision::new(&r, "ds", "ana", action);
    d.span_key = Some("gold:0".to_owned());
    d.before = Some(SpanValue::new(8, 12, "contradiction"));
    d.after = after;
    d.reason = Some("B1".to_owned());
    d
}

fn text_of(r: &Record, v: &SpanValue) -> String {
    slice(&r.output, v.start, v.end)
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_drop_goes_to_every_pending_span_of_the_same_text_and_label() {
    let s = second("contradiction");
    let out = carried(
        &on_first(ActionKind::Drop, None),
        "25°C",
        &s,
        &replay(&s, &[]),
        "k",
    );
    let keys: Vec<_> = out.iter().filter_map(|d| d.span_key.clone()).collect();
    assert_eq!(keys, ["gold:0", "gold:1"]);
    for d in &out {
        assert_eq!(d.record_id, s.id);
        assert_eq!(d.record_hash, s.content_hash());
        assert_eq!(d.reason.as_deref(), Some("B1"));
        assert_eq!(
            d.before.as_ref().map(|b| text_of(&s, b)).as_deref(),
            Some("25°C")
        );
    }
}

#[test]
fn another_label_another_text_or_a_decided_span_takes_nothing() {
    let other = second("overgeneration");
    let d = on_first(ActionKind::Drop, None);
    assert!(carried(&d, "25°C", &other, &replay(&other, &[]), "k").is_empty());
    let s = second("contradiction");
    assert!(carried(&d, "東京", &s, &replay(&s, &[]), "k").is_empty());
    // The first span already accepted by this reviewer: only the second is carried to.
    let mut done = Decision::new(&s, "ds", "ana", ActionKind::Accept);
    done.id = 1;
    done.span_key = Some("gold:0".to_owned());
    let out = carried(&d, "25°C", &s, &replay(&s, &[done]), "k");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].span_key.as_deref(), Some("gold:1"));
    // Never back to the record the decision was made on.
    let f = first();
    assert!(carried(&d, "25°C", &f, &replay(&f, &[]), "k").is_empty());
}

#[test]
fn an_adjust_moves_each_end_by_the_same_code_points() {
    let s = second("contradiction");
    // 25°C → 25 (the end one code point in... two: "°C").
    let d = on_first(
        ActionKind::Adjust,
        Some(SpanValue::new(8, 10, "contradiction")),
    );
    let out = carried(&d, "25°C", &s, &replay(&s, &[]), "k");
    let texts: Vec<_> = out
        .iter()
        .filter_map(|d| d.after.as_ref())
        .map(|a| text_of(&s, a))
        .collect();
    assert_eq!(texts, ["25", "25"]);
    assert_eq!(out[0].after, Some(SpanValue::new(13, 15, "contradiction")));
}

#[test]
fn an_adjust_past_the_sibling_answer_is_not_carried() {
    let s = second("contradiction");
    // Widened by 10 code points at the end: past the end of the second answer for its last
    // span (30 + 10 > 31), within it for the first.
    let d = on_first(
        ActionKind::Adjust,
        Some(SpanValue::new(8, 22, "contradiction")),
    );
    let out = carried(&d, "25°C", &s, &replay(&s, &[]), "k");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].after, Some(SpanValue::new(13, 27, "contradiction")));
}

#[test]
fn a_relabel_keeps_each_sibling_span_where_it_is() {
    let s = second("contradiction");
    let d = on_first(
        ActionKind::Relabel,
        Some(SpanValue::new(8, 12, "overgeneration")),
    );
    let out = carried(&d, "25°C", &s, &replay(&s, &[]), "k");
    let after: Vec<_> = out.iter().filter_map(|d| d.after.clone()).collect();
    assert_eq!(
        after,
        [
            SpanValue::new(13, 17, "overgeneration"),
            SpanValue::new(26, 30, "overgeneration")
        ]
    );
}

#[test]
fn an_add_goes_to_each_occurrence_no_kept_span_already_covers() {
    let s = gold_record(
        "b1__x",
        SECOND,
        None,
        vec![Span::new(SECOND, 20, 22, "contradiction")],
    );
    let mut d = on_first(
        ActionKind::Add,
        Some(SpanValue::new(15, 17, "contradiction")),
    );
    d.before = None;
    let mut out = carried(&d, "東京", &s, &replay(&s, &[]), "k");
    // 東京 occurs once in the second answer, at 20: already labeled so there.
    assert!(out.is_empty());
    d.after = Some(SpanValue::new(13, 17, "overgeneration"));
    out = carried(&d, "25°C", &s, &replay(&s, &[]), "k");
    let keys: Vec<_> = out.iter().filter_map(|d| d.span_key.clone()).collect();
    assert_eq!(keys, ["added:k-0", "added:k-1"]);
    let at: Vec<_> = out
        .iter()
        .filter_map(|d| d.after.as_ref())
        .map(|a| (a.start, text_of(&s, a)))
        .collect();
    assert_eq!(at, [(13, "25°C".to_owned()), (26, "25°C".to_owned())]);
}

#[test]
fn the_base_is_meta_base_id_else_the_id_before_its_last_double_underscore() {
    let mut r = first();
    assert_eq!(base_of(&r), "b1");
    r.raw = serde_json::json!({"meta": {"base_id": "toolace__7"}});
    assert_eq!(base_of(&r), "toolace__7");
    assert_eq!(base_of_id("plain"), "plain");
    assert_eq!(base_of_id("a__b__clean"), "a__b");
}

#[test]
fn record_level_decisions_are_not_carried() {
    let s = second("contradiction");
    let r = first();
    let d = Decision::new(&r, "ds", "ana", ActionKind::Clean);
    assert!(carried(&d, "25°C", &s, &replay(&s, &[]), "k").is_empty());
}
