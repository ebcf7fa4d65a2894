//! Contested cases from a scripted arbitration over non-ASCII text: each field asserted.

use super::*;
use crate::model::Source;
use crate::review::decision::{replay, SpanValue};
use crate::review::disagreement::Claim;
use crate::test_util::gold_record;

const OUTPUT: &str = "Il fait 25°C à 東京 👋 aujourd’hui.";

fn record() -> Record {
    let gold = vec![
        Span::new(OUTPUT, 8, 12, "contradiction"),
        Span::new(OUTPUT, 15, 17, "contradiction"),
    ];
    let mut rec = gold_record("r", OUTPUT, Some("contradiction"), gold);
    rec.sources.push(Source::new(
        "det",
        SourceRole::Detector,
        vec![Span::new(OUTPUT, 15, 19, "contradiction")],
    ));
    rec
}

fn resolve(rec: &Record, id: i64, group: &str, f: impl FnOnce(&mut Decision)) -> Decision {
    let mut d = Decision::new(rec, "ds", "arb", ActionKind::Resolve);
    d.id = id;
    d.time = format!("2026-01-01T00:00:{id:02}Z");
    d.group = Some(group.to_owned());
    d.unit = Some(Unit::Cluster { start: 15, end: 19 });
    f(&mut d);
    d
}

/// The cluster over `東京 👋` resolved to the detector's span, then re-resolved to no span; an
/// unplaced judge claim dismissed.
fn scripted() -> (Record, Vec<Decision>, Vec<JudgeVerdict>) {
    let rec = record();
    let log = vec![
        resolve(&rec, 1, "g1", |d| {
            d.span_key = Some("gold:1".into());
            d.before = Some(SpanValue::new(15, 17, "contradiction"));
            d.after = Some(SpanValue::new(15, 19, "contradiction"));
            d.upheld = vec!["det".into()];
            d.dismissed = vec!["gold".into()];
            d.reason = Some("B1: boundary not minimal".into());
        }),
        // No `before` saved: the dropped span is read from the labels under review.
        resolve(&rec, 2, "g2", |d| {
            d.span_key = Some("gold:1".into());
            d.dismissed = vec!["gold".into(), "det".into(), "llm".into()];
            d.reason = Some("V1".into());
            d.note = Some("the city is in the context".into());
        }),
        resolve(&rec, 3, "g3", |d| {
            d.unit = Some(Unit::Claim(1));
            d.dismissed = vec!["llm".into()];
        }),
    ];
    let verdicts = vec![
        JudgeVerdict {
            source: "llm".into(),
            gold_span: Some((15, 17)),
            label_correct: Some(false),
            extra: None,
            reasoning: "東京 is right".into(),
        },
        JudgeVerdict {
            source: "llm".into(),
            gold_span: Some((8, 12)),
            label_correct: Some(true),
            extra: Some(Claim {
                text: "Ōsaka".into(),
                located: None,
            }),
            reasoning: "missed".into(),
        },
    ];
    (rec, log, verdicts)
}

#[test]
fn a_re_resolved_cluster_shows_the_later_resolution_in_force_and_the_earlier_superseded() {
    let (rec, log, verdicts) = scripted();
    let review = replay(&rec, &log);
    let cases = cases(&rec, &review.applied, &verdicts);
    assert_eq!(cases.len(), 2, "{cases:#?}");
    let c = &cases[0];
    assert_eq!(
        (c.unit.as_str(), c.kind.as_str(), c.start, c.end),
        ("cluster 15-19", "cluster", Some(15), Some(19))
    );
    assert_eq!(c.text.as_deref(), Some("東京 👋"));
    let side = |n: &str| {
        c.sources
            .iter()
            .find(|s| s.source == n)
            .map(|s| s.spans.iter().map(|v| v.text.clone()).collect::<Vec<_>>())
    };
    assert_eq!(side("gold"), Some(vec!["東京".to_owned()]));
    assert_eq!(side("det"), Some(vec!["東京 👋".to_owned()]));
    // In force: the later "no span" resolution; the earlier one superseded by it.
    let r = &c.resolution;
    assert_eq!(
        (r.decisions.clone(), r.kept, r.label.clone()),
        (vec![2], false, None)
    );
    assert_eq!(
        r.dropped
            .iter()
            .map(|v| v.text.as_str())
            .collect::<Vec<_>>(),
        ["東京"]
    );
    assert_eq!(r.dismissed, ["det", "gold", "llm"]);
    assert_eq!(
        (r.reason_code.as_deref(), r.note.as_deref(), r.superseded_by),
        (Some("V1"), Some("the city is in the context"), None)
    );
    assert_eq!(
        (r.arbiter.as_str(), r.time.as_str()),
        ("arb", "2026-01-01T00:00:02Z")
    );
    assert_eq!(c.superseded.len(), 1);
    let s = &c.superseded[0];
    assert_eq!((s.decisions.clone(), s.superseded_by), (vec![1], Some(2)));
    assert_eq!(
        (s.spans[0].start, s.spans[0].end, s.spans[0].text.as_str()),
        (15, 19, "東京 👋")
    );
    assert_eq!(
        (s.reason_code.as_deref(), s.upheld.clone()),
        (Some("B1"), vec!["det".to_owned()])
    );
    // The judge's verdict on the judged span in the cluster (not the one on 25°C).
    assert_eq!(c.judges.len(), 1, "{:?}", c.judges);
    assert_eq!(
        (c.judges[0].says.as_str(), c.judges[0].text.as_str()),
        ("label_wrong", "東京")
    );
    // The unplaced claim: no range, the judge's quote.
    let k = &cases[1];
    assert_eq!(
        (k.kind.as_str(), k.start, k.text.clone()),
        ("claim", None, None)
    );
    assert_eq!(
        (k.judges[0].says.as_str(), k.judges[0].text.as_str()),
        ("claim", "Ōsaka")
    );
    assert!(k.sources.iter().all(|s| s.spans.is_empty()));
}

#[test]
fn every_line_has_every_key() {
    let (rec, log, verdicts) = scripted();
    let lines: Vec<serde_json::Value> = cases(&rec, &log, &verdicts)
        .iter()
        .map(|c| serde_json::to_value(c).expect("serialises"))
        .collect();
    let keys = |v: &serde_json::Value| {
        v.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    assert_eq!(keys(&lines[0]), keys(&lines[1]));
    assert!(lines[1]["start"].is_null() && lines[1]["text"].is_null());
    assert_eq!(keys(&lines[0]["resolution"]), keys(&lines[1]["resolution"]));
    assert!(lines[1]["superseded"].as_array().is_some_and(Vec::is_empty));
}

#[test]
fn a_record_without_resolutions_has_no_case() {
    let (rec, mut log, verdicts) = scripted();
    for d in &mut log {
        d.action = ActionKind::Drop;
    }
    assert!(cases(&rec, &log, &verdicts).is_empty());
}
