//! A verdict as halu-toolace decision lines (`formats::judge_decisions` reads them back): one
//! line per labeled span with its `label_correct`, and one per unlabeled hallucination the
//! judge quoted (`labeled_span: null`, `extra_hallucination: true`, `extra_text` the quote);
//! a record with neither gets one line saying so. Every line keeps the raw reply
//! (`judge_raw`) and the model; a quote's placement in the answer is `extra_placed`.

use serde_json::{json, Map, Value};

use super::reply::{Claim, Verdict};
use crate::model::Record;
use crate::review::locate::{locate, Located, MatchKind};

/// The decision lines of `record` and the quotes that could not be placed in its answer
/// (written all the same: the reviewer places them by hand or dismisses them). `threshold` is
/// the fuzzy match's (see [`crate::review::locate`]).
#[must_use]
pub fn lines(
    record: &Record,
    verdict: &Verdict,
    raw: &str,
    model: &str,
    threshold: f64,
) -> (Vec<Value>, Vec<String>) {
    let mut out = Vec::new();
    let base = |labeled_span: Value, judge: Value, placed: Option<Value>| {
        let mut m = Map::new();
        m.insert("id".into(), json!(record.id));
        m.insert("corruption_type".into(), json!(record.corruption_type));
        m.insert("labeled_span".into(), labeled_span);
        m.insert("judge".into(), judge);
        if let Some(p) = placed {
            m.insert("extra_placed".into(), p);
        }
        m.insert("judge_raw".into(), json!(raw));
        m.insert("judge_model".into(), json!(model));
        Value::Object(m)
    };
    for (i, span) in record.gold_spans().iter().enumerate() {
        // The reply's last word on a span counts; a span it skipped is `unknown`, said so.
        let v = verdict.labeled.iter().rev().find(|v| v.span == i);
        let (label_correct, reasoning) = v.map_or_else(
            || {
                (
                    "unknown",
                    "the reply gave no verdict on this span".to_owned(),
                )
            },
            |v| (v.label_correct, coded(&v.code, &v.reason)),
        );
        let text = span.slice(&record.output).unwrap_or(&span.text);
        let labeled = json!({"start": span.start, "end": span.end, "label": span.label,
                             "text": text});
        let judge = json!({"label_correct": label_correct, "extra_hallucination": false,
                           "extra_text": "", "reasoning": reasoning});
        out.push(base(labeled, judge, None));
    }
    let mut unplaced = Vec::new();
    for claim in &verdict.unlabeled {
        let placed = locate(&record.output, &claim.quote, threshold);
        if placed.is_none() {
            unplaced.push(claim.quote.clone());
        }
        let judge = json!({"label_correct": "unknown", "extra_hallucination": true,
                           "extra_text": claim.quote, "reasoning": claim_reason(claim)});
        out.push(base(
            Value::Null,
            judge,
            Some(placement(&record.output, placed, claim)),
        ));
    }
    if out.is_empty() {
        let judge = json!({"label_correct": "unknown", "extra_hallucination": false,
                           "extra_text": "", "reasoning": verdict.reasoning});
        out.push(base(Value::Null, judge, None));
    }
    (out, unplaced)
}

/// `CODE: reason`, or the reason alone without a code.
fn coded(code: &str, reason: &str) -> String {
    match (code.is_empty(), reason.is_empty()) {
        (true, _) => reason.to_owned(),
        (false, true) => code.to_owned(),
        (false, false) => format!("{code}: {reason}"),
    }
}

/// A claim's reasoning: its code and reason, and the label the model gave it.
fn claim_reason(c: &Claim) -> String {
    let r = coded(&c.code, &c.reason);
    if c.label.is_empty() {
        r
    } else if r.is_empty() {
        format!("[{}]", c.label)
    } else {
        format!("[{}] {r}", c.label)
    }
}

/// Where a quote was placed (code points of the answer), how, with what score and label;
/// `null` offsets when it was not found.
fn placement(output: &str, placed: Option<Located>, c: &Claim) -> Value {
    match placed {
        Some(l) => {
            let text: String = output.chars().skip(l.start).take(l.end - l.start).collect();
            let kind = match l.kind {
                MatchKind::Exact => "exact",
                MatchKind::CaseInsensitive => "case_insensitive",
                MatchKind::Fuzzy => "fuzzy",
            };
            json!({"start": l.start, "end": l.end, "text": text, "label": c.label,
                   "match": kind, "similarity": (l.similarity * 1e4).round() / 1e4})
        }
        None => json!({"start": null, "end": null, "label": c.label, "match": "not_found"}),
    }
}

#[cfg(test)]
mod tests;
