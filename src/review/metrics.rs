//! Agreement of two span sets over the same records: character- and example-level P/R/F1,
//! mean IoU and character-level Cohen's kappa, overall and by corruption type.
//!
//! Pure: takes spans and answers, returns numbers. `stats` (arbitration) and `compare` both use
//! it. Conventions follow the halu-toolace results (`FORMATS.md` §6), so the numbers equal the
//! published ones:
//!
//! - **Character level** (their `span_level`): per record, the set of answer code points covered
//!   by any span of A (the reference) and by any span of B (the hypothesis); `tp = |A∩B|`,
//!   `fp = |B∖A|`, `fn = |A∖B|`, summed over records, then P/R/F1. Overlapping, nested or
//!   duplicated spans count each character once.
//! - **Example level**: a record is positive when at least one of its spans covers a character;
//!   tp/fp/fn/tn over records.
//! - P, R and F1 are 0 when their denominator is 0 (the published files write 0.0, e.g. for the
//!   `clean` type, where recall is 0/0).
//! - **Mean IoU**: per record `|A∩B| / |A∪B|`, averaged over the records where `A∪B` is not
//!   empty. Records where neither side marks anything are left out (their IoU is 0/0; counting
//!   them as 1 would let agreement on clean records hide disagreement on the spans); how many
//!   records were averaged is reported beside the mean.
//! - **Kappa**: Cohen's kappa on the 2×2 table "covered by A / covered by B" over every code point
//!   of every record's answer. Undefined (`None`) when the expected agreement is 1, i.e. both
//!   sides put every character in the same single class.
//!
//! - **Label-aware** figures (`char_level_labeled`, `kappa_labeled`): a code point carries the set
//!   of labels (with category and subcategory) of the spans covering it ([`super::labeled`]);
//!   tp where both sides give the same non-empty set; where both mark it with different sets it
//!   is a false positive (B's label is wrong) **and** a false negative (A's label is missed);
//!   kappa is multi-category Cohen's kappa over every code point, each label set a category and
//!   "no span" one more. With one label everywhere they equal the label-blind figures.
//! - **By label** ([`Comparison::by_label`]): per label, the label-blind figures of the spans
//!   with that label only, over every compared record (a record where neither side uses the
//!   label is an example-level true negative, its characters true negatives).
//!
//! Spans that are empty, reversed or reach past the end of the answer never panic: coverage is
//! clamped to `[0, len(output))` and the span is counted in `invalid_a` / `invalid_b` so that
//! callers can report it. An empty or reversed span covers nothing, so a record whose only spans
//! are empty is not an example-level positive.

use std::collections::BTreeMap;

use serde::Serialize;

use super::labeled::{self, LabelName, LabeledCounts};
use super::ranges::{self, Range};
use crate::model::offsets::char_len;
use crate::model::{Record, Span};

/// Key of [`Comparison::by_type`] for records without a corruption type.
pub const UNTYPED: &str = "(none)";

/// The characters one side covers in one answer: sorted, disjoint, non-empty `[start, end)`
/// code-point intervals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    intervals: Vec<Range>,
    /// Spans that were empty, reversed or out of range (clamped or dropped).
    pub invalid: usize,
}

impl Coverage {
    /// The union of `spans` over an answer of `len_chars` code points.
    #[must_use]
    pub fn new(spans: &[Span], len_chars: usize) -> Self {
        let invalid = spans.iter().filter(|s| !s.in_bounds(len_chars)).count();
        let clamped = spans
            .iter()
            .filter_map(|s| ranges::clamp((s.start, s.end), len_chars))
            .collect();
        Self {
            intervals: ranges::merge(clamped),
            invalid,
        }
    }

    /// The merged intervals.
    #[must_use]
    pub fn intervals(&self) -> &[Range] {
        &self.intervals
    }

    /// Number of characters covered.
    #[must_use]
    pub fn len(&self) -> usize {
        ranges::total(&self.intervals)
    }

    /// True when no character is covered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// Number of characters both cover.
    #[must_use]
    pub fn intersection(&self, other: &Coverage) -> usize {
        ranges::total(&ranges::intersect(&self.intervals, &other.intervals))
    }
}

/// Agreement of A and B on one record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordAgreement {
    /// Code points in the answer.
    pub chars: usize,
    /// Characters both cover.
    pub tp: usize,
    /// Characters only B covers.
    pub fp: usize,
    /// Characters only A covers.
    pub fn_: usize,
    /// A covers at least one character.
    pub a_positive: bool,
    /// B covers at least one character.
    pub b_positive: bool,
    /// A's empty, reversed or out-of-range spans.
    pub invalid_a: usize,
    /// B's empty, reversed or out-of-range spans.
    pub invalid_b: usize,
    /// Label-aware counts.
    pub labeled: LabeledCounts,
}

impl RecordAgreement {
    /// Compare A's and B's spans over `output`.
    #[must_use]
    pub fn new(output: &str, a: &[Span], b: &[Span]) -> Self {
        let chars = char_len(output);
        let ca = Coverage::new(a, chars);
        let cb = Coverage::new(b, chars);
        let tp = ca.intersection(&cb);
        Self {
            chars,
            tp,
            fp: cb.len() - tp,
            fn_: ca.len() - tp,
            a_positive: !ca.is_empty(),
            b_positive: !cb.is_empty(),
            invalid_a: ca.invalid,
            invalid_b: cb.invalid,
            labeled: LabeledCounts::new(chars, a, b),
        }
    }

    /// The same record with B as the reference: what `new(output, b, a)` gives (fp and fn,
    /// the sides' flags and their marginals exchanged).
    #[must_use]
    pub fn swapped(mut self) -> Self {
        std::mem::swap(&mut self.fp, &mut self.fn_);
        std::mem::swap(&mut self.a_positive, &mut self.b_positive);
        std::mem::swap(&mut self.invalid_a, &mut self.invalid_b);
        let l = &mut self.labeled;
        std::mem::swap(&mut l.fp, &mut l.fn_);
        for m in &mut l.marginals {
            std::mem::swap(&mut m.1, &mut m.2);
        }
        self
    }

    /// Characters either side covers.
    #[must_use]
    pub fn union(&self) -> usize {
        self.tp + self.fp + self.fn_
    }

    /// `|A∩B| / |A∪B|`, `None` when neither side covers anything.
    #[must_use]
    pub fn iou(&self) -> Option<f64> {
        let u = self.union();
        (u > 0).then(|| ratio(self.tp, u))
    }
}

/// True/false positives and false negatives, with the derived scores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Both positive.
    pub tp: usize,
    /// B positive, A not.
    pub fp: usize,
    /// A positive, B not.
    pub fn_: usize,
}

impl Counts {
    /// `tp / (tp + fp)`, 0 when nothing is predicted.
    #[must_use]
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    /// `tp / (tp + fn)`, 0 when nothing is to be found.
    #[must_use]
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// Harmonic mean of precision and recall, 0 when both are 0 (computed as `2PR/(P+R)`, as
    /// the published files do, so the floats agree to the last bit).
    #[must_use]
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        }
    }

    fn add(&mut self, other: Counts) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
    }
}

/// Agreement of A and B accumulated over a set of records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Agreement {
    /// Records compared.
    pub records: usize,
    /// Code points in all their answers.
    pub chars: usize,
    /// Character-level counts.
    pub char_counts: Counts,
    /// Example-level counts.
    pub example_counts: Counts,
    /// Records neither side marks.
    pub example_tn: usize,
    /// Sum of per-record IoU over the records in `iou_records`.
    pub iou_sum: f64,
    /// Records where A or B covers something (the ones the mean IoU averages).
    pub iou_records: usize,
    /// A's empty, reversed or out-of-range spans.
    pub invalid_a: usize,
    /// B's empty, reversed or out-of-range spans.
    pub invalid_b: usize,
    /// Label-aware character-level counts.
    pub labeled_counts: Counts,
    /// Code points where both sides give the same label set, "no span" included.
    pub labeled_agree: usize,
    /// Per label set ([`labeled::Labels::set_key`]): code points A gives it, B gives it.
    pub labeled_marginals: BTreeMap<String, (usize, usize)>,
}

impl Agreement {
    /// Add one record.
    pub fn add(&mut self, r: &RecordAgreement) {
        self.records += 1;
        self.chars += r.chars;
        self.char_counts.add(Counts {
            tp: r.tp,
            fp: r.fp,
            fn_: r.fn_,
        });
        match (r.a_positive, r.b_positive) {
            (true, true) => self.example_counts.tp += 1,
            (false, true) => self.example_counts.fp += 1,
            (true, false) => self.example_counts.fn_ += 1,
            (false, false) => self.example_tn += 1,
        }
        if let Some(iou) = r.iou() {
            self.iou_sum += iou;
            self.iou_records += 1;
        }
        self.invalid_a += r.invalid_a;
        self.invalid_b += r.invalid_b;
        let l = &r.labeled;
        self.labeled_counts.add(Counts {
            tp: l.tp,
            fp: l.fp,
            fn_: l.fn_,
        });
        self.labeled_agree += l.agree;
        for (k, a, b) in &l.marginals {
            // The key is copied only the first time a label set is seen.
            let m = match self.labeled_marginals.get_mut(k) {
                Some(m) => m,
                None => self.labeled_marginals.entry(k.clone()).or_default(),
            };
            m.0 += a;
            m.1 += b;
        }
    }

    /// Add everything `other` counted.
    pub fn merge(&mut self, other: &Agreement) {
        self.records += other.records;
        self.chars += other.chars;
        self.char_counts.add(other.char_counts);
        self.example_counts.add(other.example_counts);
        self.example_tn += other.example_tn;
        self.iou_sum += other.iou_sum;
        self.iou_records += other.iou_records;
        self.invalid_a += other.invalid_a;
        self.invalid_b += other.invalid_b;
        self.labeled_counts.add(other.labeled_counts);
        self.labeled_agree += other.labeled_agree;
        for (k, (a, b)) in &other.labeled_marginals {
            let m = self.labeled_marginals.entry(k.clone()).or_default();
            m.0 += a;
            m.1 += b;
        }
    }

    /// Count `records` records of `chars` code points in all, of which the ones not added yet
    /// are records where neither side marks anything (as for a label they do not use).
    fn pad(&mut self, records: usize, chars: usize) {
        let (dr, dc) = (
            records.saturating_sub(self.records),
            chars.saturating_sub(self.chars),
        );
        self.records += dr;
        self.chars += dc;
        self.example_tn += dr;
        self.labeled_agree += dc;
        if dc > 0 {
            let m = self.labeled_marginals.entry(String::new()).or_default();
            m.0 += dc;
            m.1 += dc;
        }
    }

    /// Characters neither side covers.
    #[must_use]
    pub fn char_tn(&self) -> usize {
        let c = self.char_counts;
        self.chars - c.tp - c.fp - c.fn_
    }

    /// Mean per-record IoU over the records where either side covers something.
    #[must_use]
    pub fn mean_iou(&self) -> Option<f64> {
        (self.iou_records > 0).then(|| self.iou_sum / self.iou_records as f64)
    }

    /// Character-level Cohen's kappa; `None` when there is no character or the expected
    /// agreement is 1.
    #[must_use]
    pub fn kappa(&self) -> Option<f64> {
        let c = self.char_counts;
        kappa(c.tp, c.fp, c.fn_, self.char_tn())
    }

    /// Label-aware character-level kappa: multi-category Cohen's kappa, each label set a
    /// category and "no span" one more; `None` when undefined.
    #[must_use]
    pub fn kappa_labeled(&self) -> Option<f64> {
        labeled::kappa(
            self.labeled_agree,
            self.chars,
            self.labeled_marginals.values(),
        )
    }

    /// The derived scores, for printing or serialising.
    #[must_use]
    pub fn scores(&self) -> Scores {
        let prf = |c: Counts| Prf {
            tp: c.tp,
            fp: c.fp,
            fn_: c.fn_,
            precision: c.precision(),
            recall: c.recall(),
            f1: c.f1(),
            n: self.records,
        };
        Scores {
            records: self.records,
            chars: self.chars,
            char_level: prf(self.char_counts),
            char_level_labeled: prf(self.labeled_counts),
            example_level: prf(self.example_counts),
            mean_iou: self.mean_iou(),
            iou_records: self.iou_records,
            kappa: self.kappa(),
            kappa_labeled: self.kappa_labeled(),
            invalid_spans_a: self.invalid_a,
            invalid_spans_b: self.invalid_b,
        }
    }
}

/// Cohen's kappa of a 2×2 table (`tp` both yes, `fp` B only, `fn_` A only, `tn` neither).
#[must_use]
pub fn kappa(tp: usize, fp: usize, fn_: usize, tn: usize) -> Option<f64> {
    let n = (tp + fp + fn_ + tn) as f64;
    if n == 0.0 {
        return None;
    }
    let observed = (tp + tn) as f64 / n;
    let a_yes = (tp + fn_) as f64 / n;
    let b_yes = (tp + fp) as f64 / n;
    let expected = a_yes * b_yes + (1.0 - a_yes) * (1.0 - b_yes);
    (expected < 1.0).then(|| (observed - expected) / (1.0 - expected))
}

/// Counts with precision, recall and F1, as written to JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prf {
    /// True positives.
    pub tp: usize,
    /// False positives.
    pub fp: usize,
    /// False negatives.
    #[serde(rename = "fn")]
    pub fn_: usize,
    /// Precision (0 when undefined).
    pub precision: f64,
    /// Recall (0 when undefined).
    pub recall: f64,
    /// F1 (0 when undefined).
    pub f1: f64,
    /// Records counted (as the published metrics files write `n` at both levels; the number of
    /// characters is [`Scores::chars`]).
    pub n: usize,
}

/// Every score of an [`Agreement`], as written to JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scores {
    /// Records compared.
    pub records: usize,
    /// Code points in their answers.
    pub chars: usize,
    /// Character level (halu-toolace `span_level`).
    pub char_level: Prf,
    /// Character level, label-aware: a code point counts as tp only where both give it the
    /// same labels; marked by both with different labels it is fp and fn.
    pub char_level_labeled: Prf,
    /// Example level.
    pub example_level: Prf,
    /// Mean per-record IoU (`null` when no record has a span on either side).
    pub mean_iou: Option<f64>,
    /// Records the mean IoU averages.
    pub iou_records: usize,
    /// Character-level Cohen's kappa (`null` when undefined).
    pub kappa: Option<f64>,
    /// Label-aware character-level kappa (`null` when undefined).
    pub kappa_labeled: Option<f64>,
    /// A's empty, reversed or out-of-range spans (clamped).
    pub invalid_spans_a: usize,
    /// B's empty, reversed or out-of-range spans (clamped).
    pub invalid_spans_b: usize,
}

/// Agreement overall, split by the records' corruption type and by span label.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Every record.
    pub overall: Agreement,
    /// Per `corruption_type` ([`UNTYPED`] for records without one).
    pub by_type: BTreeMap<String, Agreement>,
    /// Per span label, over the records where either side uses it; [`Comparison::by_label`]
    /// counts the other records in.
    labels: BTreeMap<LabelName, Agreement>,
}

impl Comparison {
    /// Add one record of type `corruption_type` with A's and B's spans over `output`.
    pub fn add(&mut self, corruption_type: Option<&str>, output: &str, a: &[Span], b: &[Span]) {
        self.add_computed(corruption_type, RecordComparison::new(output, a, b, true));
    }

    /// Add one record compared by [`RecordComparison::new`] (maybe on another thread); its
    /// per-label figures only when they were computed.
    pub fn add_computed(&mut self, corruption_type: Option<&str>, r: RecordComparison) {
        self.overall.add(&r.agreement);
        let key = corruption_type.unwrap_or(UNTYPED);
        match self.by_type.get_mut(key) {
            Some(t) => t.add(&r.agreement),
            None => self
                .by_type
                .entry(key.to_owned())
                .or_default()
                .add(&r.agreement),
        }
        for (name, ag) in r.labels {
            self.labels.entry(name).or_default().add(&ag);
        }
    }

    /// Per span label (with category and subcategory): the label-blind figures of the spans
    /// with that label only, over every record compared.
    #[must_use]
    pub fn by_label(&self) -> BTreeMap<String, Agreement> {
        let mut out = BTreeMap::new();
        for (name, ag) in &self.labels {
            let mut ag = ag.clone();
            ag.pad(self.overall.records, self.overall.chars);
            let mut shown = name.to_string();
            // `a/b` could be a label with a slash or label `a` of category `b`: keep both.
            if out.contains_key(&shown) {
                shown = format!("{name:?}");
            }
            out.insert(shown, ag);
        }
        out
    }

    /// Add `record` when it has both sources; returns false (and adds nothing) when either is
    /// missing.
    pub fn add_record(&mut self, record: &Record, a: &str, b: &str) -> bool {
        match (record.source(a), record.source(b)) {
            (Some(sa), Some(sb)) => {
                self.add(
                    record.corruption_type.as_deref(),
                    &record.output,
                    &sa.spans,
                    &sb.spans,
                );
                true
            }
            _ => false,
        }
    }
}

/// One record's comparison of A and B, apart from any accumulator: overall, and per span
/// label when asked ([`Comparison::by_label`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordComparison {
    /// Every span.
    pub agreement: RecordAgreement,
    /// Per label either side uses, the spans with that label only (empty when not asked).
    pub labels: Vec<(LabelName, RecordAgreement)>,
}

impl RecordComparison {
    /// Compare A's and B's spans over `output`; `by_label`: the per-label figures too.
    #[must_use]
    pub fn new(output: &str, a: &[Span], b: &[Span], by_label: bool) -> Self {
        let agreement = RecordAgreement::new(output, a, b);
        let mut labels = Vec::new();
        if by_label {
            let mut names: Vec<LabelName> = a.iter().chain(b).map(LabelName::of).collect();
            names.sort();
            names.dedup();
            for name in names {
                // Offsets and label only: a span's text and raw object can be large.
                let only = |spans: &[Span]| -> Vec<Span> {
                    spans
                        .iter()
                        .filter(|s| name.matches(s))
                        .map(|s| Span {
                            category: s.category.clone(),
                            subcategory: s.subcategory.clone(),
                            ..Span::new("", s.start, s.end, s.label.clone())
                        })
                        .collect()
                };
                let r = RecordAgreement::new(output, &only(a), &only(b));
                labels.push((name, r));
            }
        }
        Self { agreement, labels }
    }
}

/// Compare sources `a` and `b` over `records`; records lacking either source are left out
/// (count them with `overall.records`).
#[must_use]
pub fn compare<'r>(records: impl IntoIterator<Item = &'r Record>, a: &str, b: &str) -> Comparison {
    let mut c = Comparison::default();
    for r in records {
        c.add_record(r, a, b);
    }
    c
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

#[cfg(test)]
mod tests;
