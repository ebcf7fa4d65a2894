//! Contested cases: one line per disputed cluster (or unplaced judge claim) that arbitration
//! settled, with every source's side, the judges' verdicts, the resolution in force and the
//! resolutions it superseded (`export --contested`).
//!
//! Pure: takes a record (its sources attached: the labels under review, the files joined to it,
//! `--judge` files and the reviewers of the database), the decisions applied to it and its
//! judges' verdicts, and returns data. The units and what stands in each are
//! [`super::outcome::votes`]' own: a unit is what a `resolve` row settles ([`unit`]); per
//! unit, the resolutions (rows sharing a group) in the order of their latest row; the last
//! stands, the earlier ones are superseded ([`superseded`]). So the file has exactly one line
//! per disputed cluster the report counts as resolved, and its upheld and dismissed sources
//! are the report's votes.
//!
//! Every line has every key, each always of one JSON type (a list empty when there is nothing,
//! an optional value `null`), so that `datasets.load_dataset("json", ...)` loads the file.
//! Offsets are code points of the answer, half-open.

use std::collections::HashMap;

use serde::Serialize;

use super::decision::{ActionKind, Decision, SpanKey, SpanValue, Unit};
use super::disagreement::JudgeVerdict;
use super::outcome::votes::{superseded, unit};
use super::outcome::LabelView;
use super::rubric::reason_code;
use crate::model::{Record, SourceRole, Span};

/// One source's spans in the unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Side {
    /// Source name (`gold`, a `--judge` name, `reviewer:NAME`, ...).
    pub source: String,
    /// Its role (`gold`, `annotator`, `detector`).
    pub role: String,
    /// Its spans overlapping the cluster (empty: it says "nothing here"; always empty for a
    /// claim, which has no place in the answer).
    pub spans: Vec<LabelView>,
}

/// What one judge says about the unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeView {
    /// Judge name.
    pub judge: String,
    /// `label_correct`, `label_wrong`, `unknown` (about the judged label) or `claim` (a
    /// hallucination the labels missed).
    pub says: String,
    /// The judged span or the claimed text's first code point (`null`: not located).
    pub start: Option<usize>,
    /// One past its last code point (`null`: not located).
    pub end: Option<usize>,
    /// The judged span's text, or the text the judge quoted.
    pub text: String,
    /// The judge's reasoning.
    pub reasoning: String,
}

/// One resolution of the unit: its rows (one per span it settles) taken together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Settled {
    /// Log ids of its `resolve` rows, in log order.
    pub decisions: Vec<i64>,
    /// Who resolved it.
    pub arbiter: String,
    /// Time of its latest row (RFC 3339 UTC).
    pub time: String,
    /// It keeps a span (a hallucination stays there).
    pub kept: bool,
    /// The spans it keeps, by start.
    pub spans: Vec<LabelView>,
    /// The label of its first kept span (`null` when it keeps none).
    pub label: Option<String>,
    /// The spans it dropped (the settled spans it keeps nothing of: the labels under review
    /// its rows name, or the span a row saved as before), by start.
    pub dropped: Vec<LabelView>,
    /// Sources it upheld, sorted.
    pub upheld: Vec<String>,
    /// Sources it dismissed (never also upheld), sorted.
    pub dismissed: Vec<String>,
    /// The reason code its reason starts with (`CODE: note`), or `null`.
    pub reason_code: Option<String>,
    /// Its reason as saved, or `null`.
    pub reason: Option<String>,
    /// Its note, or `null`.
    pub note: Option<String>,
    /// The resolution that replaced it (the id of its first row), `null` for the one in force.
    pub superseded_by: Option<i64>,
}

/// One contested case: a line of the `--contested` file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Case {
    /// Record id.
    pub id: String,
    /// The unit as the verdicts name it (`cluster S-E`, `claim N`, ...).
    pub unit: String,
    /// `cluster`, `claim` (an unplaced judge claim) or `other` (a resolution saved without
    /// a unit).
    pub kind: String,
    /// The cluster's first code point (`null` for a claim).
    pub start: Option<usize>,
    /// One past its last code point (`null` for a claim).
    pub end: Option<usize>,
    /// `output[start:end]` (`null` for a claim).
    pub text: Option<String>,
    /// Every source of the record but the judges, in the record's order.
    pub sources: Vec<Side>,
    /// The judges' verdicts on it (empty without a `--judge` decisions file).
    pub judges: Vec<JudgeView>,
    /// The resolution in force.
    pub resolution: Settled,
    /// The resolutions it superseded, oldest first.
    pub superseded: Vec<Settled>,
}

/// The contested cases of `record`: one per unit with a resolution among `applied` (the
/// decisions applied to it, in log order), in the order units first appear; `verdicts` are
/// its judges' ([`crate::review::disagreement::JudgeVerdict`], indexed as claims name them).
#[must_use]
pub fn cases(record: &Record, applied: &[Decision], verdicts: &[JudgeVerdict]) -> Vec<Case> {
    let gone = superseded(applied);
    // Per unit, in order of first appearance: its name, what it is and its resolutions (group,
    // rows).
    type Resolutions<'a> = Vec<(String, Vec<&'a Decision>)>;
    let mut units: Vec<(String, Option<Unit>, Resolutions)> = Vec::new();
    for d in applied.iter().filter(|d| d.action == ActionKind::Resolve) {
        let name = unit(d);
        let group = d.group.clone().unwrap_or_else(|| format!("#{}", d.id));
        let at = match units.iter().position(|(n, _, _)| *n == name) {
            Some(i) => i,
            None => {
                units.push((name, d.unit, Vec::new()));
                units.len() - 1
            }
        };
        let list = &mut units[at].2;
        match list.iter_mut().find(|(g, _)| *g == group) {
            Some((_, rows)) => rows.push(d),
            None => list.push((group, vec![d])),
        }
    }
    let mut out = Vec::new();
    for (name, u, mut list) in units {
        list.sort_by_key(|(_, rows)| rows.iter().map(|d| d.id).max());
        let mut settled: Vec<Settled> = list
            .iter()
            .map(|(_, rows)| settle(record, rows, &gone))
            .collect();
        let Some(resolution) = settled.pop() else {
            continue;
        };
        let (kind, range) = match u {
            Some(Unit::Cluster { start, end }) => ("cluster", Some((start, end))),
            Some(Unit::Claim(_)) => ("claim", None),
            None => ("other", None),
        };
        out.push(Case {
            id: record.id.clone(),
            unit: name,
            kind: kind.to_owned(),
            start: range.map(|r| r.0),
            end: range.map(|r| r.1),
            text: range.map(|(a, b)| Span::new(&record.output, a, b, "").text),
            sources: sides(record, range),
            judges: judges(record, u, verdicts),
            resolution,
            superseded: settled,
        });
    }
    out
}

/// Every non-judge source's spans overlapping `range` (none for a unit without one).
fn sides(record: &Record, range: Option<(usize, usize)>) -> Vec<Side> {
    record
        .sources
        .iter()
        .filter(|s| s.role != SourceRole::Judge)
        .map(|s| Side {
            source: s.name.clone(),
            role: role_name(s.role).to_owned(),
            spans: range
                .map(|(a, b)| {
                    s.spans
                        .iter()
                        .filter(|sp| sp.start < b && a < sp.end)
                        .map(LabelView::of)
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

fn role_name(role: SourceRole) -> &'static str {
    match role {
        SourceRole::Gold => "gold",
        SourceRole::Annotator => "annotator",
        SourceRole::Detector => "detector",
        SourceRole::Judge => "judge",
    }
}

/// The verdicts about unit `u`: for a cluster, those whose judged span or located claim
/// overlaps it; for claim `k`, verdict `k`'s claim.
fn judges(record: &Record, u: Option<Unit>, verdicts: &[JudgeVerdict]) -> Vec<JudgeView> {
    let text = |a: usize, b: usize| Span::new(&record.output, a, b, "").text;
    let mut out = Vec::new();
    match u {
        Some(Unit::Cluster { start, end }) => {
            let over = |r: (usize, usize)| r.0 < end && start < r.1;
            for v in verdicts {
                if let Some(g) = v.gold_span.filter(|&g| over(g)) {
                    let says = match v.label_correct {
                        Some(true) => "label_correct",
                        Some(false) => "label_wrong",
                        None => "unknown",
                    };
                    out.push(view(v, says, Some(g), text(g.0, g.1)));
                }
                if let Some(c) = &v.extra {
                    if let Some(l) = c.located.filter(|l| over((l.start, l.end))) {
                        out.push(view(v, "claim", Some((l.start, l.end)), c.text.clone()));
                    }
                }
            }
        }
        Some(Unit::Claim(k)) => {
            if let Some((v, c)) = verdicts.get(k).and_then(|v| Some((v, v.extra.as_ref()?))) {
                let at = c.located.map(|l| (l.start, l.end));
                out.push(view(v, "claim", at, c.text.clone()));
            }
        }
        None => {}
    }
    out
}

fn view(v: &JudgeVerdict, says: &str, at: Option<(usize, usize)>, text: String) -> JudgeView {
    JudgeView {
        judge: v.source.clone(),
        says: says.to_owned(),
        start: at.map(|r| r.0),
        end: at.map(|r| r.1),
        text,
        reasoning: v.reasoning.clone(),
    }
}

/// One resolution from its rows; `gone` maps superseded rows to what replaced them.
fn settle(record: &Record, rows: &[&Decision], gone: &HashMap<i64, i64>) -> Settled {
    let span = |v: &SpanValue| {
        let mut s = Span::new(&record.output, v.start, v.end, v.label.clone());
        s.category.clone_from(&v.category);
        s.subcategory.clone_from(&v.subcategory);
        LabelView::of(&s)
    };
    let mut spans: Vec<LabelView> = rows
        .iter()
        .filter_map(|d| d.after.as_ref())
        .map(span)
        .collect();
    spans.sort_by_key(|s| (s.start, s.end));
    let mut dropped: Vec<LabelView> = rows
        .iter()
        .filter(|d| d.after.is_none())
        .filter_map(|d| {
            d.before
                .clone()
                .or_else(|| match d.span_key.as_deref()?.parse().ok()? {
                    SpanKey::Gold(i) => record.gold_spans().get(i).map(SpanValue::of),
                    SpanKey::Added(_) => None,
                })
        })
        .map(|v| span(&v))
        .collect();
    dropped.sort_by_key(|s| (s.start, s.end));
    // The vote is the resolution's latest row's, as `votes` counts it.
    let last = rows.iter().max_by_key(|d| d.id);
    let mut upheld: Vec<String> = last.map(|d| d.upheld.clone()).unwrap_or_default();
    upheld.sort();
    upheld.dedup();
    let mut dismissed: Vec<String> = last
        .map(|d| d.dismissed.clone())
        .unwrap_or_default()
        .into_iter()
        .filter(|n| !upheld.contains(n))
        .collect();
    dismissed.sort();
    dismissed.dedup();
    let first = rows.first();
    let reason = rows.iter().find_map(|d| d.reason.clone());
    Settled {
        decisions: rows.iter().map(|d| d.id).collect(),
        arbiter: first.map(|d| d.reviewer.clone()).unwrap_or_default(),
        time: rows
            .iter()
            .map(|d| d.time.clone())
            .max()
            .unwrap_or_default(),
        kept: !spans.is_empty(),
        label: spans.first().map(|s| s.label.clone()),
        spans,
        dropped,
        upheld,
        dismissed,
        reason_code: reason.as_deref().and_then(reason_code).map(str::to_owned),
        reason,
        note: rows.iter().find_map(|d| d.note.clone()),
        superseded_by: first.and_then(|d| gone.get(&d.id).copied()),
    }
}

#[cfg(test)]
mod tests;
