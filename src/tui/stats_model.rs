//! The stats screen's numbers: review progress by outcome, each source's agreement with the
//! reviewed result (character F1, example F1, mean IoU, kappa, and label-aware character F1 and
//! kappa — [`crate::review::metrics`]), and how often arbitration upheld each source (one vote
//! per source per disputed cluster, [`votes::count`], as `stats` and the export report count).
//! Computed when the screen opens, from what the
//! app already has; the view only draws them.

use std::collections::{BTreeMap, HashMap};

use crate::model::Record;
use crate::review::decision::{Decision, OutcomeKind, RecordOutcome, RecordReview};
use crate::review::metrics::{Agreement, RecordAgreement, Scores};
use crate::review::outcome::{votes, Tally, TypeCounts};
use crate::store::RecordState;

/// One source's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceStats {
    /// Source name.
    pub name: String,
    /// Agreement with the reviewed result over the records compared (reviewed ones the source
    /// is present on), as `stats` reports it.
    pub overall: Scores,
    /// Disputed clusters (and judge claims) whose resolution upheld it.
    pub upheld: usize,
    /// Disputed clusters (and judge claims) whose resolution dismissed it.
    pub dismissed: usize,
}

/// Everything the stats screen shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatsView {
    /// Records in the dataset.
    pub total: usize,
    /// Reviewed records (stored states).
    pub reviewed: usize,
    /// Of those, reclassified clean.
    pub clean: usize,
    /// Of those, removed.
    pub removed: usize,
    /// Flagged records.
    pub flagged: usize,
    /// Records read this session (the scope of the agreement numbers): on screen, or
    /// auto-accepted in the background.
    pub read: usize,
    /// Of those, reviewed and not removed (compared).
    pub compared: usize,
    /// Per source, by name.
    pub sources: Vec<SourceStats>,
    /// Per label, over the reviewed records read this session: before and after review and
    /// what changed, counted as the export report counts them ([`Tally`]).
    pub labels: BTreeMap<String, TypeCounts>,
    /// Spans whose boundaries changed, by code points their start moved, and by those their
    /// end moved (the report's and the card's boundary changes).
    pub moved: (BTreeMap<usize, usize>, BTreeMap<usize, usize>),
    /// Each pair of reviewers' label-aware character F1 on the records both decided on, over
    /// the whole log (`stats`' and the card's team figures), as `a vs b`.
    pub pairs: Vec<(String, f64)>,
}

impl StatsView {
    /// Compute from the stored `states` (progress), the `records` read this session with their
    /// reviews (agreement, over the reviewed ones only), the per-source agreements of records
    /// auto-accepted this session (`auto`, compared in the background) and the active
    /// `resolutions` (upheld).
    #[must_use]
    pub fn compute(
        total: usize,
        states: &HashMap<String, RecordState>,
        records: &[(Record, RecordReview)],
        auto: &[&[(String, RecordAgreement)]],
        resolutions: &[&Decision],
    ) -> Self {
        let mut v = Self {
            total,
            read: records.len() + auto.len(),
            ..Self::default()
        };
        for s in states.values() {
            if s.reviewed {
                v.reviewed += 1;
                match s.outcome {
                    OutcomeKind::Clean => v.clean += 1,
                    OutcomeKind::Removed => v.removed += 1,
                    OutcomeKind::Open => {}
                }
            }
            v.flagged += usize::from(s.flagged);
        }
        let mut agree: BTreeMap<String, Agreement> = BTreeMap::new();
        let mut tally = Tally::default();
        for (r, review) in records {
            tally.add(r, review, true);
            // A removed record is not in the reviewed result at all (as `stats` counts it): a
            // source that labeled it neither gained nor lost by it.
            if !review.is_reviewed() || matches!(review.outcome, RecordOutcome::Removed { .. }) {
                continue;
            }
            v.compared += 1;
            let result = review.kept_spans(&r.output);
            // Judges come as the spans their verdicts stand for (`judges_as_spans`).
            for src in &r.sources {
                let a = RecordAgreement::new(&r.output, &result, &src.spans);
                agree.entry(src.name.clone()).or_default().add(&a);
            }
        }
        for rec in auto {
            v.compared += 1;
            for (name, a) in *rec {
                agree.entry(name.clone()).or_default().add(a);
            }
        }
        let counts = votes::count(resolutions.iter().copied());
        let mut names: Vec<String> = agree.keys().chain(counts.keys()).cloned().collect();
        names.sort();
        names.dedup();
        v.sources = names
            .into_iter()
            .map(|name| {
                let overall = agree.get(&name).cloned().unwrap_or_default().scores();
                let c = counts.get(&name).copied().unwrap_or_default();
                SourceStats {
                    name,
                    overall,
                    upheld: c.upheld,
                    dismissed: c.dismissed,
                }
            })
            .collect();
        v.moved = (tally.start_moved, tally.end_moved);
        v.labels = tally.by_type;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Span;

    /// A source that relabels the reviewed span agrees on every character label-blind and on
    /// none label-aware.
    #[test]
    fn a_relabeling_source_has_label_aware_f1_0() {
        let out = "It is 25°C and rainy";
        let result = [Span::new(out, 6, 10, "overgeneration")];
        let same = [Span::new(out, 6, 10, "overgeneration")];
        let other = [Span::new(out, 6, 10, "contradiction")];
        let rec = [
            ("same".to_owned(), RecordAgreement::new(out, &result, &same)),
            (
                "other".to_owned(),
                RecordAgreement::new(out, &result, &other),
            ),
        ];
        let v = StatsView::compute(1, &HashMap::new(), &[], &[&rec], &[]);
        let by = |n: &str| v.sources.iter().find(|s| s.name == n).expect("source");
        let (same, other) = (by("same").overall, by("other").overall);
        let f1s = |s: Scores| (s.char_level.f1, s.char_level_labeled.f1);
        assert_eq!(f1s(same), (1.0, 1.0));
        assert_eq!(f1s(other), (1.0, 0.0));
        assert_eq!(other.kappa, Some(1.0));
        assert!(other.kappa_labeled.expect("kappa") < 1.0);
    }

    /// The labels chart's counts are the report's: a dropped label and an added one over the
    /// reviewed records read, a record read but not reviewed counted nowhere.
    #[test]
    fn labels_are_counted_before_and_after_as_the_report_counts_them() {
        use crate::review::decision::{replay, ActionKind, SpanValue};
        let out = "Il fait 25°C à 東京 👋";
        let gold = vec![
            Span::new(out, 8, 12, "東京型"),
            Span::new(out, 15, 17, "東京型"),
        ];
        let rec = crate::test_util::gold_record("r", out, Some("東京型"), gold.clone());
        let untouched = crate::test_util::gold_record("u", out, Some("東京型"), gold);
        let mut drop = Decision::new(&rec, "ds", "ann", ActionKind::Drop);
        drop.span_key = Some("gold:0".to_owned());
        let mut add = Decision::new(&rec, "ds", "ann", ActionKind::Add);
        add.id = 2;
        add.span_key = Some("added:a".to_owned());
        add.after = Some(SpanValue::new(18, 19, "missing_tool"));
        let review = replay(&rec, &[drop, add]);
        let none = replay(&untouched, &[]);
        let v = StatsView::compute(
            2,
            &HashMap::new(),
            &[(rec, review), (untouched, none)],
            &[],
            &[],
        );
        let got: Vec<(&str, [usize; 4])> = v
            .labels
            .iter()
            .map(|(l, c)| (l.as_str(), [c.before, c.after, c.dropped, c.added]))
            .collect();
        assert_eq!(
            got,
            [("missing_tool", [0, 1, 0, 1]), ("東京型", [2, 1, 1, 0])]
        );
    }
}
