//! What a review did to each record, and the numbers of the review report.
//!
//! Pure: takes a record and its replayed [`RecordReview`] (never re-deciding what a decision
//! means) and returns data. `export` writes one [`Verdict`] per record with decisions and adds
//! each record to a [`Tally`], whose fields are every number of the report.
//!
//! Conventions, where the log leaves room:
//!
//! - A span of the record under review is **kept** (accepted or still pending, unchanged),
//!   **tightened**, **widened** or **shifted** (boundaries changed: both ends inside the old
//!   span, both outside, or neither; see [`fate`]), **relabeled** (label, category or
//!   subcategory changed; a span can be both moved and relabeled) or **dropped**; a span the
//!   reviewer added and kept is **added** (added and then dropped, it never existed and counts
//!   nowhere). Span outcomes are counted only for records that stay open: the labels of a record
//!   reclassified clean or removed are counted as **cleared**, under the record's outcome.
//! - A dropped span is **invalid** when its original offsets are out of range or the text the
//!   file stated differs from `output[start:end]`.
//! - A record is **reviewed** when at least one decision other than a flag or a note was applied
//!   to it. Stale decisions are never applied and are counted apart.
//! - **Disputes** are counted two ways, over the resolutions in force only (a resolution of a
//!   cluster re-resolved later is superseded, [`votes::superseded`]). Per span: the `resolve`
//!   rows, one per span a resolution settles, upheld when it keeps a span, dropped when it keeps
//!   none. Per cluster:
//!   a source's upheld rate is `upheld / (upheld + dismissed)` over the disputed clusters (and
//!   judge claims) whose standing resolution names it, one vote per source per cluster
//!   ([`votes`]), so a source whose two-span version was taken counts once.

pub mod fate;
mod verdict;
pub mod votes;

use std::collections::BTreeMap;

use serde::Serialize;

use super::decision::{RecordOutcome, RecordReview, ReviewSpan};
use crate::model::{Record, Span, CLEAN};
use crate::review::rubric::{self, ReasonCounts};
pub use fate::{original_invalid, span_fate, Boundary, SpanFate};
pub use verdict::{Dispute, LabelView, Reason, Verdict};
pub use votes::JudgeCounts;

/// The record-level outcome names of the verdicts file, in the order they are listed.
pub const OUTCOME_ORDER: [&str; 7] = [
    "kept",
    "tightened",
    "widened",
    "shifted",
    "relabeled",
    "dropped",
    "added",
];

/// `--strict`: split `spans` into those whose label equals the record's type and the others.
/// A record without a type keeps every span.
#[must_use]
pub fn strict_split(spans: Vec<Span>, corruption_type: Option<&str>) -> (Vec<Span>, Vec<Span>) {
    match corruption_type {
        None => (spans, Vec::new()),
        Some(t) => spans.into_iter().partition(|s| s.label == t),
    }
}

/// The record's type after review: `clean` when reclassified, else the type a `retype` gave
/// it, otherwise as read.
#[must_use]
pub fn type_after(record: &Record, review: &RecordReview) -> Option<String> {
    match review.outcome {
        RecordOutcome::Clean => Some(CLEAN.to_owned()),
        _ => review.current_type(record).map(str::to_owned),
    }
}

/// The hallucination type `record` is left with and no span to show for it, once reviewed
/// (every span dropped, as a "drop all" resolution leaves it): `validate` rejects such a
/// record, so export lists it as an open item and the arbitration screen says so. `None` when
/// the record is clean, removed, keeps a span or has no verdict yet.
#[must_use]
pub fn typed_without_span(record: &Record, review: &RecordReview) -> Option<String> {
    let open = review.outcome == RecordOutcome::Open && review.has_verdict();
    let kept = review.spans.iter().any(ReviewSpan::kept);
    type_after(record, review).filter(|t| open && !kept && t != CLEAN)
}

/// The type an export writes into the record: the type after review when review changed it
/// (reclassified clean, or retyped), `None` to leave the input's as it is.
#[must_use]
pub fn type_to_write(record: &Record, review: &RecordReview) -> Option<String> {
    let changed = review.outcome == RecordOutcome::Clean || review.record_type.is_some();
    type_after(record, review).filter(|_| changed)
}

/// The record-level outcome names of a review.
#[must_use]
pub fn outcomes(record: &Record, review: &RecordReview) -> Vec<String> {
    match &review.outcome {
        RecordOutcome::Clean => vec!["reclassified_clean".to_owned()],
        RecordOutcome::Removed { reason } => vec![format!("removed:{reason}")],
        RecordOutcome::Open => {
            let mut seen = [false; OUTCOME_ORDER.len()];
            for s in &review.spans {
                let f = span_fate(s, &record.output);
                let hits = [
                    f.kept,
                    f.tightened(),
                    f.widened(),
                    f.shifted(),
                    f.relabeled,
                    f.dropped,
                    f.added,
                ];
                for (i, hit) in hits.into_iter().enumerate() {
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

/// Per-label counts over the reviewed records (labels of clean and removed records are
/// `cleared`). For each label `T`:
/// `before − dropped − relabeled_away − cleared + relabeled_to + added = after`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TypeCounts {
    /// Labels of type T as read.
    pub before: usize,
    /// Labels of type T after review (before `--strict`).
    pub after: usize,
    /// Of type T, boundaries moved inward.
    pub tightened: usize,
    /// Of type T, boundaries moved outward.
    pub widened: usize,
    /// Of type T, boundaries moved one in and one out, or elsewhere.
    pub shifted: usize,
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
    /// Boundaries moved inward (both ends inside the old span).
    pub tightened: usize,
    /// Boundaries moved outward (both ends outside the old span).
    pub widened: usize,
    /// Boundaries moved one end in and one out, or elsewhere.
    pub shifted: usize,
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
    /// Per span: `resolve` decisions of the resolutions in force (one per span a resolution
    /// settles; superseded ones are not counted).
    pub disputes: usize,
    /// Per span: resolve decisions that kept a span.
    pub disputes_upheld: usize,
    /// Per span: resolve decisions that kept none.
    pub disputes_dropped: usize,
    /// Disputed clusters (and judge claims) with a resolution in force.
    pub clusters_resolved: usize,
    /// Per source named by resolutions: per cluster, and per span ([`votes::count`]).
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
    /// Applied decisions of the actions that take a reason code (drop, adjust, relabel, add,
    /// clean, remove, flag on), by action name and the code their reason starts with
    /// ([`crate::review::rubric::reason_code`]; `""`: no code).
    pub by_reason: ReasonCounts,
    /// Second passes and time per record, for the rubber-stamp alarm
    /// ([`crate::review::second_pass`]).
    #[serde(skip)]
    pub second_pass: crate::review::second_pass::SecondPasses,
    /// Spans whose boundaries changed (tightened, widened or shifted), by how many code points
    /// their start moved.
    pub start_moved: BTreeMap<usize, usize>,
    /// The same spans by how many code points their end moved.
    pub end_moved: BTreeMap<usize, usize>,
}

/// Buckets of code points moved at one end of a span: (lowest, highest, name).
pub const BUCKETS: [(usize, usize, &str); 8] = [
    (0, 0, "0"),
    (1, 1, "1"),
    (2, 2, "2"),
    (3, 5, "3–5"),
    (6, 10, "6–10"),
    (11, 20, "11–20"),
    (21, 50, "21–50"),
    (51, usize::MAX, "over 50"),
];

/// Spans per bucket of code points moved, from `moved` (code points → spans).
#[must_use]
pub fn bucket_counts(moved: &BTreeMap<usize, usize>) -> Vec<usize> {
    BUCKETS
        .iter()
        .map(|(lo, hi, _)| moved.range(lo..=hi).map(|(_, n)| n).sum())
        .collect()
}

impl Tally {
    /// Count one record with its review. `written` says whether the record was exported.
    pub fn add(&mut self, record: &Record, review: &RecordReview, written: bool) {
        self.records_in += 1;
        self.records_out += usize::from(written);
        self.stale += review.stale.len();
        self.stale_records += usize::from(!review.stale.is_empty());
        rubric::count_reasons(&mut self.by_reason, &review.applied);
        self.second_pass.add(record, &review.applied);
        if !review.has_verdict() {
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
        for d in votes::standing(&review.applied) {
            self.disputes += 1;
            if d.after.is_some() {
                self.disputes_upheld += 1;
            } else {
                self.disputes_dropped += 1;
            }
        }
        self.clusters_resolved += votes::votes(&review.applied).len();
        votes::add_counts(&mut self.judges, votes::count(&review.applied));
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
            self.tightened += usize::from(f.tightened());
            self.widened += usize::from(f.widened());
            self.shifted += usize::from(f.shifted());
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
            if let (Some(o), Some(_)) = (&s.original, f.boundary) {
                *self
                    .start_moved
                    .entry(o.start.abs_diff(s.current.start))
                    .or_default() += 1;
                *self
                    .end_moved
                    .entry(o.end.abs_diff(s.current.end))
                    .or_default() += 1;
            }
            if let Some(w) = was {
                let t = self.ty(w);
                t.tightened += usize::from(f.tightened());
                t.widened += usize::from(f.widened());
                t.shifted += usize::from(f.shifted());
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
        let typed = type_after(record, review).is_some_and(|t| t != CLEAN);
        // `--strict` may leave out kept spans: the exported ones count here.
        let hit = review.outcome == RecordOutcome::Open
            && typed
            && exported.is_empty()
            && review.has_verdict();
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
        let clean = type_after(record, review).is_some_and(|t| t == CLEAN);
        let hit = clean && !exported.is_empty() && review.has_verdict();
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
