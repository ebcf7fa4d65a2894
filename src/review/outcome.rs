//! What a review did to each record, and the numbers of the review report.
//!
//! Pure: takes a record and its replayed [`RecordReview`] (never re-deciding what a decision
//! means) and returns data. `export` writes one [`Verdict`] per record with decisions and adds
//! each record to a [`Tally`], whose fields are every number of the report.
//!
//! Conventions, where the log leaves room:
//!
//! - A span of the record under review is **kept** (accepted or still pending, unchanged),
//!   **tightened** (boundaries changed, narrowed or not), **relabeled** (label, category or
//!   subcategory changed; a span can be both tightened and relabeled) or **dropped**; a span the
//!   reviewer added and kept is **added** (added and then dropped, it never existed and counts
//!   nowhere). Span outcomes are counted only for records that stay open: the labels of a record
//!   reclassified clean or removed are counted as **cleared**, under the record's outcome.
//! - A dropped span is **invalid** when its original offsets are out of range or the text the
//!   file stated differs from `output[start:end]`.
//! - A record is **reviewed** when at least one decision other than a flag or a note was applied
//!   to it. Stale decisions are never applied and are counted apart.
//! - **Disputes** are the applied `resolve` decisions, one per span a resolution settles: upheld
//!   when it keeps a span, dropped when it keeps none. A judge's (source's) upheld rate is
//!   `upheld / (upheld + dismissed)` over the `resolve` decisions that name it, so a cluster
//!   settled into two spans counts twice (each span is a disputed label of the dataset).

use std::collections::BTreeMap;

use serde::Serialize;

use super::decision::{ActionKind, Decision, RecordOutcome, RecordReview, ReviewSpan};
use crate::model::offsets::char_len;
use crate::model::{Record, Span};

/// The record-level outcome names of the verdicts file, in the order they are listed.
pub const OUTCOME_ORDER: [&str; 5] = ["kept", "tightened", "relabeled", "dropped", "added"];

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
    /// Category, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Subcategory, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
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
    /// The span it settles (`gold:N` or `added:ID`).
    pub span_key: Option<String>,
    /// Whether the resolution kept a span.
    pub upheld_span: bool,
    /// Sources the resolution upheld.
    pub upheld: Vec<String>,
    /// Sources it dismissed.
    pub dismissed: Vec<String>,
    /// Who resolved it.
    pub reviewer: String,
}

/// What the review did to one record: the line of the verdicts file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Record id.
    pub id: String,
    /// Every span decided, or the record accepted, cleaned or removed.
    pub reviewed: bool,
    /// `kept`, `tightened`, `relabeled`, `dropped`, `added`, `reclassified_clean`,
    /// `removed:<reason>`.
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub strict_dropped: Vec<LabelView>,
    /// Applied resolutions of disputed spans.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disputes: Vec<Dispute>,
    /// Sources upheld by any resolution of this record.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub upheld: Vec<String>,
    /// Sources dismissed by any resolution of this record.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dismissed: Vec<String>,
    /// Who made the applied decisions, sorted.
    pub reviewers: Vec<String>,
    /// Time of the latest applied decision.
    pub time: Option<String>,
    /// Notes, oldest first.
    pub notes: Vec<String>,
    /// Flagged for a second look.
    pub flagged: bool,
    /// Log ids of the applied decisions.
    pub decisions: Vec<i64>,
    /// Log ids of the stale decisions (made on other content; not applied).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<i64>,
    /// Log ids of decisions an undo reverted (not applied).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undone: Vec<i64>,
    /// Log ids of the undo and redo rows themselves.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undo_redo: Vec<i64>,
}

/// What happened to one span of a record that stays open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanFate {
    /// Kept unchanged (accepted or pending).
    pub kept: bool,
    /// Boundaries changed.
    pub tightened: bool,
    /// Label, category or subcategory changed.
    pub relabeled: bool,
    /// Dropped.
    pub dropped: bool,
    /// Dropped, and its original offsets or text were invalid.
    pub invalid: bool,
    /// Added in review and kept.
    pub added: bool,
}

/// Classify one span of a review (see the module doc).
#[must_use]
pub fn span_fate(span: &ReviewSpan, output: &str) -> SpanFate {
    let dropped = !span.kept();
    let invalid = dropped
        && span
            .original
            .as_ref()
            .is_some_and(|o| original_invalid(o, output));
    let tightened = !dropped && span.adjusted();
    let relabeled = !dropped && span.relabeled();
    let added = !dropped && span.added();
    SpanFate {
        kept: !dropped && !tightened && !relabeled && !added,
        tightened,
        relabeled,
        dropped: dropped && !span.added(),
        invalid,
        added,
    }
}

/// True when a span as read is out of range or states a text other than `output[start:end]`.
#[must_use]
pub fn original_invalid(span: &Span, output: &str) -> bool {
    let stated = span.raw.contains_key("text") || !span.text.is_empty();
    !span.in_bounds(char_len(output)) || (stated && !span.text_matches(output))
}

/// True when a decision of this kind is a verdict on the record (flags and notes are not).
#[must_use]
pub fn is_verdict_action(a: ActionKind) -> bool {
    !matches!(
        a,
        ActionKind::Flag | ActionKind::Note | ActionKind::Undo | ActionKind::Redo
    )
}

/// `--strict`: split `spans` into those whose label equals the record's type and the others.
/// A record without a type keeps every span.
#[must_use]
pub fn strict_split(spans: Vec<Span>, corruption_type: Option<&str>) -> (Vec<Span>, Vec<Span>) {
    match corruption_type {
        None => (spans, Vec::new()),
        Some(t) => spans.into_iter().partition(|s| s.label == t),
    }
}

/// The record's type after review: `clean` when reclassified, otherwise as read.
#[must_use]
pub fn type_after(record: &Record, review: &RecordReview) -> Option<String> {
    match review.outcome {
        RecordOutcome::Clean => Some("clean".to_owned()),
        _ => record.corruption_type.clone(),
    }
}

/// The record-level outcome names of a review.
#[must_use]
pub fn outcomes(record: &Record, review: &RecordReview) -> Vec<String> {
    match &review.outcome {
        RecordOutcome::Clean => vec!["reclassified_clean".to_owned()],
        RecordOutcome::Removed { reason } => vec![format!("removed:{reason}")],
        RecordOutcome::Open => {
            let mut seen = [false; 5];
            for s in &review.spans {
                let f = span_fate(s, &record.output);
                for (i, hit) in [f.kept, f.tightened, f.relabeled, f.dropped, f.added]
                    .into_iter()
                    .enumerate()
                {
                    seen[i] |= hit;
                }
            }
            if !seen.iter().any(|&b| b) {
                seen[0] = true;
            }
            OUTCOME_ORDER
                .iter()
                .zip(seen)
                .filter(|(_, hit)| *hit)
                .map(|(n, _)| (*n).to_owned())
                .collect()
        }
    }
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
        let mut reviewers: Vec<String> =
            review.applied.iter().map(|d| d.reviewer.clone()).collect();
        reviewers.sort();
        reviewers.dedup();
        let time = review.applied.iter().map(|d| d.time.clone()).max();
        let disputes: Vec<Dispute> = review
            .applied
            .iter()
            .filter(|d| d.action == ActionKind::Resolve)
            .map(|d| Dispute {
                decision: d.id,
                span_key: d.span_key.clone(),
                upheld_span: d.after.is_some(),
                upheld: d.upheld.clone(),
                dismissed: d.dismissed.clone(),
                reviewer: d.reviewer.clone(),
            })
            .collect();
        let collect = |f: fn(&Dispute) -> &Vec<String>| {
            let mut v: Vec<String> = disputes.iter().flat_map(|d| f(d).iter().cloned()).collect();
            v.sort();
            v.dedup();
            v
        };
        let upheld = collect(|d| &d.upheld);
        let dismissed = collect(|d| &d.dismissed);
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

/// Per-label counts over the reviewed records (labels of clean and removed records are
/// `cleared`). For each label `T`:
/// `before − dropped − relabeled_away − cleared + relabeled_to + added = after`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TypeCounts {
    /// Labels of type T as read.
    pub before: usize,
    /// Labels of type T after review (before `--strict`).
    pub after: usize,
    /// Of type T, boundaries changed.
    pub tightened: usize,
    /// Were T, relabeled to another label.
    pub relabeled_away: usize,
    /// Relabeled from another label to T.
    pub relabeled_to: usize,
    /// Of type T, dropped.
    pub dropped: usize,
    /// Added with type T.
    pub added: usize,
    /// Of type T, in records reclassified clean or removed.
    pub cleared: usize,
}

/// A source's resolutions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct JudgeCounts {
    /// Resolutions that upheld it.
    pub upheld: usize,
    /// Resolutions that dismissed it.
    pub dismissed: usize,
}

impl JudgeCounts {
    /// `upheld / (upheld + dismissed)`, `None` when it was never named.
    #[must_use]
    pub fn rate(&self) -> Option<f64> {
        let n = self.upheld + self.dismissed;
        #[allow(clippy::cast_precision_loss)]
        (n > 0).then(|| self.upheld as f64 / n as f64)
    }
}

/// Every number of the review report, summed over the records of one export.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Records read from the input.
    pub records_in: usize,
    /// Records written (a record written to several split files counts once).
    pub records_out: usize,
    /// Records with at least one applied verdict decision.
    pub reviewed: usize,
    /// Reviewed records written.
    pub reviewed_retained: usize,
    /// Records whose review is complete (every span decided, or the record accepted, cleaned or
    /// removed).
    pub complete: usize,
    /// Records nobody reviewed left out by `--reviewed-only`.
    pub unreviewed_skipped: usize,
    /// Flagged records.
    pub flagged: usize,
    /// Labels in reviewed records, as read.
    pub labels_before: usize,
    /// Labels kept unchanged.
    pub kept: usize,
    /// Boundaries changed.
    pub tightened: usize,
    /// Label, category or subcategory changed.
    pub relabeled: usize,
    /// Labels dropped.
    pub dropped: usize,
    /// Of the dropped labels, those whose offsets or text were invalid.
    pub invalid_dropped: usize,
    /// Spans added.
    pub added: usize,
    /// Records reclassified clean.
    pub reclassified_clean: usize,
    /// Records removed, by reason.
    pub removed: BTreeMap<String, usize>,
    /// Applied resolutions of disputed spans.
    pub disputes: usize,
    /// Resolutions that kept a span.
    pub disputes_upheld: usize,
    /// Resolutions that dropped the span.
    pub disputes_dropped: usize,
    /// Per source named by resolutions.
    pub judges: BTreeMap<String, JudgeCounts>,
    /// Labels `--strict` dropped (over every exported record).
    pub strict_dropped: usize,
    /// `--strict` drops by label.
    pub strict_by_type: BTreeMap<String, usize>,
    /// Per label, over reviewed records.
    pub by_type: BTreeMap<String, TypeCounts>,
    /// Stale decisions (not applied).
    pub stale: usize,
    /// Records with stale decisions.
    pub stale_records: usize,
    /// Decisions on record ids the input does not have.
    pub orphans: usize,
    /// Reviewed records written with a hallucination type but no label (every span dropped, or
    /// left out by `--strict`): the published schema allows no labels only on `clean` records.
    pub typed_unlabeled: usize,
    /// Reviewed records written with type `clean` and labels (a span added to a clean record,
    /// or a detector's span taken in arbitration): the published schema gives clean records
    /// none, so they are to be reclassified in review.
    pub clean_with_labels: usize,
    /// Spans written without a label (in formats whose spans carry one).
    pub unlabeled_spans: usize,
    /// Input lines that could not be read as records, passed through unchanged (left out of
    /// `--split-by` files).
    pub unreadable_lines: usize,
    /// Decisions in force on the ids of unreadable lines (not applied).
    pub unreadable_decisions: usize,
}

impl Tally {
    /// Count one record with its review. `written` says whether the record was exported.
    pub fn add(&mut self, record: &Record, review: &RecordReview, written: bool) {
        self.records_in += 1;
        self.records_out += usize::from(written);
        self.stale += review.stale.len();
        self.stale_records += usize::from(!review.stale.is_empty());
        if !review.applied.iter().any(|d| is_verdict_action(d.action)) {
            self.flagged += usize::from(review.flagged);
            return;
        }
        self.reviewed += 1;
        self.reviewed_retained += usize::from(written);
        self.complete += usize::from(review.is_reviewed());
        self.flagged += usize::from(review.flagged);
        self.labels_before += record.gold_spans().len();
        for s in record.gold_spans() {
            self.ty(&s.label).before += 1;
        }
        for d in review
            .applied
            .iter()
            .filter(|d| d.action == ActionKind::Resolve)
        {
            self.disputes += 1;
            if d.after.is_some() {
                self.disputes_upheld += 1;
            } else {
                self.disputes_dropped += 1;
            }
            for s in &d.upheld {
                self.judges.entry(s.clone()).or_default().upheld += 1;
            }
            for s in &d.dismissed {
                self.judges.entry(s.clone()).or_default().dismissed += 1;
            }
        }
        match &review.outcome {
            RecordOutcome::Clean | RecordOutcome::Removed { .. } => {
                if let RecordOutcome::Removed { reason } = &review.outcome {
                    *self.removed.entry(reason.clone()).or_default() += 1;
                } else {
                    self.reclassified_clean += 1;
                }
                for s in record.gold_spans() {
                    self.ty(&s.label).cleared += 1;
                }
            }
            RecordOutcome::Open => self.add_spans(record, review),
        }
    }

    fn add_spans(&mut self, record: &Record, review: &RecordReview) {
        for s in &review.spans {
            let f = span_fate(s, &record.output);
            let was = s.original.as_ref().map(|o| o.label.as_str());
            let now = s.current.label.as_str();
            self.kept += usize::from(f.kept);
            self.tightened += usize::from(f.tightened);
            self.relabeled += usize::from(f.relabeled);
            self.dropped += usize::from(f.dropped);
            self.invalid_dropped += usize::from(f.invalid);
            self.added += usize::from(f.added);
            if f.dropped {
                if let Some(w) = was {
                    self.ty(w).dropped += 1;
                }
                continue;
            }
            if !s.kept() {
                continue;
            }
            self.ty(now).after += 1;
            if f.added {
                self.ty(now).added += 1;
            }
            if let Some(w) = was {
                if f.tightened {
                    self.ty(w).tightened += 1;
                }
                if w != now {
                    self.ty(w).relabeled_away += 1;
                    self.ty(now).relabeled_to += 1;
                }
            }
        }
    }

    /// Count a reviewed record written with `exported` labels; true when it is left with a
    /// hallucination type and no label ([`Tally::typed_unlabeled`]).
    pub fn add_written(
        &mut self,
        record: &Record,
        review: &RecordReview,
        exported: &[Span],
    ) -> bool {
        let typed = type_after(record, review).is_some_and(|t| t != "clean");
        let hit = review.outcome == RecordOutcome::Open
            && typed
            && exported.is_empty()
            && review.applied.iter().any(|d| is_verdict_action(d.action));
        self.typed_unlabeled += usize::from(hit);
        hit
    }

    /// Count a reviewed record written with `exported` labels; true when it is of type `clean`
    /// and keeps labels ([`Tally::clean_with_labels`]).
    pub fn add_clean_labeled(
        &mut self,
        record: &Record,
        review: &RecordReview,
        exported: &[Span],
    ) -> bool {
        let clean = type_after(record, review).is_some_and(|t| t == "clean");
        let hit = clean
            && !exported.is_empty()
            && review.applied.iter().any(|d| is_verdict_action(d.action));
        self.clean_with_labels += usize::from(hit);
        hit
    }

    /// Count a line that could not be read as a record, `written` through unchanged or not,
    /// with `decisions` in force on its id that could not be applied.
    pub fn add_unreadable(&mut self, written: bool, decisions: usize) {
        self.records_in += 1;
        self.records_out += usize::from(written);
        self.unreadable_lines += 1;
        self.unreadable_decisions += decisions;
    }

    /// Count the labels `--strict` dropped from one record.
    pub fn add_strict(&mut self, dropped: &[Span]) {
        self.strict_dropped += dropped.len();
        for s in dropped {
            *self.strict_by_type.entry(s.label.clone()).or_default() += 1;
        }
    }

    /// Count a record nobody reviewed that `--reviewed-only` left out.
    pub fn add_skipped(&mut self) {
        self.records_in += 1;
        self.unreviewed_skipped += 1;
    }

    /// Count a record without decisions that was written unchanged.
    pub fn add_unchanged(&mut self) {
        self.records_in += 1;
        self.records_out += 1;
    }

    /// List a source in [`Tally::judges`] even if no resolution names it (`--judge NAME=FILE`).
    pub fn name_source(&mut self, name: &str) {
        self.judges.entry(name.to_owned()).or_default();
    }

    /// Count decisions whose record is not in the input.
    pub fn add_orphans(&mut self, n: usize) {
        self.orphans += n;
    }

    /// Records removed, all reasons.
    #[must_use]
    pub fn removed_total(&self) -> usize {
        self.removed.values().sum()
    }

    fn ty(&mut self, label: &str) -> &mut TypeCounts {
        self.by_type.entry(label.to_owned()).or_default()
    }
}

#[cfg(test)]
mod tests;
