//! The line of the verdicts file: what the review did to one record.
//!
//! Every line has every key, each always of one JSON type, so that files of several exports
//! load together as one table (`datasets.load_dataset("json", data_files=[...])`): lists are
//! always lists (empty when there is nothing), optional strings are always present, as a
//! string or `null`.

use serde::Serialize;

use super::super::decision::{ActionKind, Decision, RecordReview};
use super::votes::{superseded, unit, votes};
use super::{outcomes, type_after};
use crate::model::{Record, Span};

/// A label as the verdicts file shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabelView {
    /// First code point.
    pub start: usize,
    /// One past the last code point.
    pub end: usize,
    /// The text (as the file stated it for labels before; `output[start:end]` after).
    pub text: String,
    /// Label.
    pub label: String,
    /// Category, or `null`.
    pub category: Option<String>,
    /// Subcategory, or `null`.
    pub subcategory: Option<String>,
}

impl LabelView {
    /// The view of a span.
    #[must_use]
    pub fn of(span: &Span) -> Self {
        Self {
            start: span.start,
            end: span.end,
            text: span.text.clone(),
            label: span.label.clone(),
            category: span.category.clone(),
            subcategory: span.subcategory.clone(),
        }
    }
}

/// One applied `resolve` decision, as the verdicts file shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dispute {
    /// Log id of the resolution.
    pub decision: i64,
    /// The span it settles (`gold:N` or `added:ID`), or `null`.
    pub span_key: Option<String>,
    /// What it settles (`cluster S-E`, `claim N`, ...): rows with the same unit settle the
    /// same cluster, the latest standing ([`super::votes`]).
    pub unit: String,
    /// Whether the resolution kept a span.
    pub upheld_span: bool,
    /// Sources the resolution upheld.
    pub upheld: Vec<String>,
    /// Sources it dismissed.
    pub dismissed: Vec<String>,
    /// Who resolved it.
    pub reviewer: String,
    /// The resolution in force that replaced it (the id of its first row), or `null` while it
    /// is in force itself ([`super::votes::superseded`]): a superseded resolution counts
    /// nowhere.
    pub superseded_by: Option<i64>,
}

/// The reason (or note) an applied decision carries, other than a `note` decision's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reason {
    /// Log id of the decision.
    pub decision: i64,
    /// Its action (`drop`, `remove`, `resolve`, `flag`, `accept_all`, ...).
    pub action: String,
    /// The span it is about, or `null`.
    pub span_key: Option<String>,
    /// Its reason, or `null`.
    pub reason: Option<String>,
    /// Its note, or `null`.
    pub note: Option<String>,
}

/// What the review did to one record: the line of the verdicts file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Record id.
    pub id: String,
    /// Every span decided, or the record accepted, cleaned or removed.
    pub reviewed: bool,
    /// `kept`, `tightened`, `widened`, `shifted`, `relabeled`, `dropped`, `added`,
    /// `reclassified_clean`, `removed:<reason>`.
    pub outcomes: Vec<String>,
    /// The record's type as read.
    pub corruption_type_before: Option<String>,
    /// The record's type after review (`clean` when reclassified).
    pub corruption_type_after: Option<String>,
    /// The labels as read.
    pub labels_before: Vec<LabelView>,
    /// The labels as exported (empty for removed records).
    pub labels_after: Vec<LabelView>,
    /// Labels `--strict` left out of the export (type other than the record's).
    pub strict_dropped: Vec<LabelView>,
    /// Applied resolutions of disputed spans, superseded ones too (marked).
    pub disputes: Vec<Dispute>,
    /// Sources the standing resolution of some cluster of this record upheld.
    pub upheld: Vec<String>,
    /// Sources the standing resolution of some cluster of this record dismissed.
    pub dismissed: Vec<String>,
    /// Who made the applied decisions, sorted.
    pub reviewers: Vec<String>,
    /// Time of the latest applied decision, or `null`.
    pub time: Option<String>,
    /// Notes (`note` decisions), oldest first.
    pub notes: Vec<String>,
    /// Every reason and note the other applied decisions carry, in log order.
    pub reasons: Vec<Reason>,
    /// Flagged for a second look.
    pub flagged: bool,
    /// Log ids of the applied decisions.
    pub decisions: Vec<i64>,
    /// Log ids of the stale decisions (made on other content; not applied).
    pub stale: Vec<i64>,
    /// Log ids of decisions an undo reverted (not applied).
    pub undone: Vec<i64>,
    /// Log ids of the undo and redo rows themselves.
    pub undo_redo: Vec<i64>,
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

impl Verdict {
    /// The verdict on `record`: `exported` are the labels written (empty when the record is
    /// not written), `strict_dropped` those `--strict` left out.
    #[must_use]
    pub fn new(
        record: &Record,
        review: &RecordReview,
        exported: &[Span],
        strict_dropped: &[Span],
    ) -> Self {
        let reviewers = sorted(review.applied.iter().map(|d| d.reviewer.clone()).collect());
        let time = review.applied.iter().map(|d| d.time.clone()).max();
        let gone = superseded(&review.applied);
        let disputes: Vec<Dispute> = review
            .applied
            .iter()
            .filter(|d| d.action == ActionKind::Resolve)
            .map(|d| Dispute {
                decision: d.id,
                span_key: d.span_key.clone(),
                unit: unit(d),
                upheld_span: d.after.is_some(),
                upheld: d.upheld.clone(),
                dismissed: d.dismissed.clone(),
                reviewer: d.reviewer.clone(),
                superseded_by: gone.get(&d.id).copied(),
            })
            .collect();
        let standing = votes(&review.applied);
        let upheld = sorted(standing.iter().flat_map(|v| v.upheld.clone()).collect());
        let dismissed = sorted(standing.into_iter().flat_map(|v| v.dismissed).collect());
        Self {
            id: record.id.clone(),
            reviewed: review.is_reviewed(),
            outcomes: outcomes(record, review),
            corruption_type_before: record.corruption_type.clone(),
            corruption_type_after: type_after(record, review),
            labels_before: record.gold_spans().iter().map(LabelView::of).collect(),
            labels_after: exported.iter().map(LabelView::of).collect(),
            strict_dropped: strict_dropped.iter().map(LabelView::of).collect(),
            disputes,
            upheld,
            dismissed,
            reviewers,
            time,
            notes: review.notes.clone(),
            reasons: review.applied.iter().filter_map(reason).collect(),
            flagged: review.flagged,
            decisions: review.applied.iter().map(|d| d.id).collect(),
            stale: review.stale.iter().map(|d| d.id).collect(),
            undone: Vec::new(),
            undo_redo: Vec::new(),
        }
    }

    /// Account for the rest of the record's log (`log`: every row on this record): undo and redo
    /// rows, and the decisions they left reverted. With it, `decisions`, `stale`, `undone` and
    /// `undo_redo` together list every row of the log on the record exactly once.
    #[must_use]
    pub fn with_log(mut self, log: &[Decision]) -> Self {
        for d in log {
            if d.action.is_meta() {
                self.undo_redo.push(d.id);
            } else if !self.decisions.contains(&d.id) && !self.stale.contains(&d.id) {
                self.undone.push(d.id);
            }
        }
        self.undo_redo.sort_unstable();
        self.undone.sort_unstable();
        self
    }
}

/// The reason and note of `d`, when it carries one (a `note` decision's text is in
/// [`Verdict::notes`] instead).
fn reason(d: &Decision) -> Option<Reason> {
    let note = d.note.clone().filter(|_| d.action != ActionKind::Note);
    (d.reason.is_some() || note.is_some()).then(|| Reason {
        decision: d.id,
        action: d.action.name().to_owned(),
        span_key: d.span_key.clone(),
        reason: d.reason.clone(),
        note,
    })
}
