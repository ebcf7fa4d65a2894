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
use crate::model::offsets::char_len;
use crate::model::{Record, Span};

/// Key of [`Comparison::by_type`] for records without a corruption type.
pub const UNTYPED: &str = "(none)";

/// The characters one side covers in one answer: sorted, disjoint, non-empty `[start, end)`
/// code-point intervals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    intervals: Vec<(usize, usize)>,
    /// Spans that were empty, reversed or out of range (clamped or dropped).
    pub invalid: usize,
}

impl Coverage {
    /// The union of `spans` over an answer of `len_chars` code points.
    #[must_use]
    pub fn new(spans: &[Span], len_chars: usize) -> Self {
        let mut invalid = 0;
        let mut raw: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for s in spans {
            if !s.in_bounds(len_chars) {
                invalid += 1;
            }
            let start = s.start.min(len_chars);
            let end = s.end.min(len_chars);
            if start < end {
                raw.push((start, end));
            }
        }
        raw.sort_unstable();
        let mut intervals: Vec<(usize, usize)> = Vec::with_capacity(raw.len());
        for (start, end) in raw {
            match intervals.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => intervals.push((start, end)),
            }
        }
        Self { intervals, invalid }
    }

    /// The merged intervals.
    #[must_use]
    pub fn intervals(&self) -> &[(usize, usize)] {
        &self.intervals
    }

    /// Number of characters covered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.intervals.iter().map(|(a, b)| b - a).sum()
    }

    /// True when no character is covered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// Number of characters both cover.
    #[must_use]
    pub fn intersection(&self, other: &Coverage) -> usize {
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < self.intervals.len() && j < other.intervals.len() {
            let (a0, a1) = self.intervals[i];
            let (b0, b1) = other.intervals[j];
            let lo = a0.max(b0);
            let hi = a1.min(b1);
            if lo < hi {
                n += hi - lo;
            }
            if a1 <= b1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        n
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
            let m = self.labeled_marginals.entry(k.clone()).or_default();
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
        let r = RecordAgreement::new(output, a, b);
        self.overall.add(&r);
        self.by_type
            .entry(corruption_type.unwrap_or(UNTYPED).to_owned())
            .or_default()
            .add(&r);
        let mut names: Vec<LabelName> = a.iter().chain(b).map(LabelName::of).collect();
        names.sort();
        names.dedup();
        for name in names {
            let only = |spans: &[Span]| -> Vec<Span> {
                spans.iter().filter(|s| name.matches(s)).cloned().collect()
            };
            let r = RecordAgreement::new(output, &only(a), &only(b));
            self.labels.entry(name).or_default().add(&r);
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
mod tests {
    use super::*;
    use crate::model::{Source, SourceRole, GOLD};
    use rstest::rstest;

    fn spans(v: &[(usize, usize)]) -> Vec<Span> {
        v.iter()
            .map(|&(start, end)| Span {
                start,
                end,
                text: String::new(),
                label: "x".into(),
                category: None,
                subcategory: None,
                confidence: None,
                raw: serde_json::Map::new(),
            })
            .collect()
    }

    /// (output, A, B) → (tp, fp, fn, invalid A, invalid B)
    #[rstest]
    // ASCII, exact match
    #[case("abcdef", &[(0, 3)], &[(0, 3)], (3, 0, 0, 0, 0))]
    // ° is one code point (two UTF-8 bytes): "25°C" is [6, 10)
    #[case("It is 25°C and rainy", &[(6, 10)], &[(5, 10)], (4, 1, 0, 0, 0))]
    // ’ (three bytes)
    #[case("it’s fine", &[(0, 4)], &[(2, 9)], (2, 5, 2, 0, 0))]
    // CJK
    #[case("東京は晴れです", &[(3, 5)], &[(2, 4)], (1, 1, 1, 0, 0))]
    // emoji (astral: one code point, two UTF-16 units, four bytes)
    #[case("hi 👋 there", &[(3, 4)], &[(3, 10)], (1, 6, 0, 0, 0))]
    // combining mark: e + U+0301 are two code points
    #[case("cafe\u{301} ok", &[(3, 5)], &[(4, 5)], (1, 0, 1, 0, 0))]
    // nested spans count each character once
    #[case("abcdefghij", &[(0, 10), (2, 4)], &[(3, 5), (4, 6)], (3, 0, 7, 0, 0))]
    // overlapping
    #[case("abcdefghij", &[(0, 5), (3, 8)], &[(7, 10)], (1, 2, 7, 0, 0))]
    // adjacent spans merge without double counting
    #[case("abcdefghij", &[(0, 3), (3, 6)], &[(2, 4)], (2, 0, 4, 0, 0))]
    // duplicates
    #[case("abcdef", &[(1, 3), (1, 3)], &[(1, 3)], (2, 0, 0, 0, 0))]
    // empty inputs
    #[case("", &[], &[], (0, 0, 0, 0, 0))]
    #[case("abc", &[], &[], (0, 0, 0, 0, 0))]
    #[case("abc", &[(0, 3)], &[], (0, 0, 3, 0, 0))]
    // empty and reversed spans cover nothing and are counted
    #[case("abc", &[(1, 1)], &[(2, 1)], (0, 0, 0, 1, 1))]
    // out of range: clamped to the answer, counted
    #[case("a°b", &[(1, 5)], &[(7, 9)], (0, 0, 2, 1, 1))]
    #[case("", &[(0, 1)], &[(0, 0)], (0, 0, 0, 1, 1))]
    fn char_counts(
        #[case] output: &str,
        #[case] a: &[(usize, usize)],
        #[case] b: &[(usize, usize)],
        #[case] want: (usize, usize, usize, usize, usize),
    ) {
        let r = RecordAgreement::new(output, &spans(a), &spans(b));
        assert_eq!((r.tp, r.fp, r.fn_, r.invalid_a, r.invalid_b), want);
        // Swapping the sides swaps fp and fn.
        let s = RecordAgreement::new(output, &spans(b), &spans(a));
        assert_eq!((s.tp, s.fp, s.fn_), (want.0, want.2, want.1));
    }

    /// Brute force over a vector of code points agrees with the interval sweep.
    #[rstest]
    #[case("東京は晴れです👋 ok", &[(0, 2), (1, 4), (8, 12)], &[(3, 9), (11, 30)])]
    #[case("ab", &[(0, 0), (5, 1)], &[(0, 2), (1, 2)])]
    fn sweep_equals_brute_force(
        #[case] output: &str,
        #[case] a: &[(usize, usize)],
        #[case] b: &[(usize, usize)],
    ) {
        let n = output.chars().count();
        let mark = |v: &[(usize, usize)]| {
            let mut m = vec![false; n];
            for &(s, e) in v {
                for x in m.iter_mut().take(e.min(n)).skip(s) {
                    *x = true;
                }
            }
            m
        };
        let (ma, mb) = (mark(a), mark(b));
        let both = ma.iter().zip(&mb).filter(|(x, y)| **x && **y).count();
        let only_b = ma.iter().zip(&mb).filter(|(x, y)| !**x && **y).count();
        let only_a = ma.iter().zip(&mb).filter(|(x, y)| **x && !**y).count();
        let r = RecordAgreement::new(output, &spans(a), &spans(b));
        assert_eq!((r.tp, r.fp, r.fn_), (both, only_b, only_a));
        assert_eq!(r.chars, n);
    }

    #[rstest]
    #[case(3, 1, 2, 4, Some(0.4))] // Po 0.7, Pe 0.5·0.4 + 0.5·0.6 = 0.5
    #[case(20, 5, 10, 15, Some(0.4))] // Po 0.7, Pe 0.6·0.5 + 0.4·0.5 = 0.5
    #[case(5, 0, 0, 5, Some(1.0))]
    #[case(0, 5, 5, 0, Some(-1.0))]
    #[case(0, 0, 0, 10, None)] // both say "no" everywhere: undefined
    #[case(10, 0, 0, 0, None)]
    #[case(0, 0, 0, 0, None)]
    fn kappa_by_hand(
        #[case] tp: usize,
        #[case] fp: usize,
        #[case] fn_: usize,
        #[case] tn: usize,
        #[case] want: Option<f64>,
    ) {
        let got = kappa(tp, fp, fn_, tn);
        match (got, want) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{g} != {w}"),
            (g, w) => assert_eq!(g, w),
        }
    }

    #[rstest]
    #[case(0, 0, 0, 0.0, 0.0, 0.0)]
    #[case(0, 131, 0, 0.0, 0.0, 0.0)] // the published `clean` row
    #[case(0, 0, 5, 0.0, 0.0, 0.0)]
    #[case(1, 1, 0, 0.5, 1.0, 2.0 / 3.0)]
    #[case(
        11271,
        67169,
        4889,
        0.143_689_444_161_142_27,
        0.697_462_871_287_128_7,
        0.238_287_526_427_061_3
    )]
    fn prf(
        #[case] tp: usize,
        #[case] fp: usize,
        #[case] fn_: usize,
        #[case] p: f64,
        #[case] r: f64,
        #[case] f: f64,
    ) {
        let c = Counts { tp, fp, fn_ };
        assert!((c.precision() - p).abs() < 1e-15);
        assert!((c.recall() - r).abs() < 1e-15);
        assert!((c.f1() - f).abs() < 1e-15);
    }

    fn record(
        id: &str,
        ty: Option<&str>,
        output: &str,
        a: &[(usize, usize)],
        b: Option<&[(usize, usize)]>,
    ) -> Record {
        let mut sources = vec![Source::new(GOLD, SourceRole::Gold, spans(a))];
        if let Some(b) = b {
            sources.push(Source::new("det", SourceRole::Detector, spans(b)));
        }
        Record {
            id: id.into(),
            query: String::new(),
            context: String::new(),
            output: output.into(),
            corruption_type: ty.map(str::to_owned),
            sources,
            raw: serde_json::Value::Null,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn example_level_iou_kappa_and_by_type() {
        let recs = [
            // tp example; IoU 2/6
            record(
                "1",
                Some("contradiction"),
                "25°C today",
                &[(0, 4)],
                Some(&[(2, 6)]),
            ),
            // fn example; IoU 0
            record("2", Some("contradiction"), "東京", &[(0, 2)], Some(&[])),
            // fp example; IoU 0
            record("3", Some("clean"), "ok 👋", &[], Some(&[(3, 4)])),
            // tn example; not in IoU
            record("4", Some("clean"), "fine", &[], Some(&[])),
            // only empty spans: tn, both invalid
            record("5", None, "abc", &[(1, 1)], Some(&[(4, 9)])),
            // no B source: left out
            record("6", Some("clean"), "abc", &[(0, 1)], None),
        ];
        let c = compare(&recs, GOLD, "det");
        let o = &c.overall;
        assert_eq!(o.records, 5);
        assert_eq!(o.chars, 10 + 2 + 4 + 4 + 3);
        assert_eq!(
            o.char_counts,
            Counts {
                tp: 2,
                fp: 2 + 1,
                fn_: 2 + 2
            }
        );
        assert_eq!(o.char_tn(), 23 - 9);
        assert_eq!(
            o.example_counts,
            Counts {
                tp: 1,
                fp: 1,
                fn_: 1
            }
        );
        assert_eq!(o.example_tn, 2);
        assert_eq!(o.iou_records, 3);
        assert!((o.mean_iou().expect("iou") - (2.0 / 6.0) / 3.0).abs() < 1e-12);
        assert_eq!((o.invalid_a, o.invalid_b), (1, 1));
        // kappa by hand: tp 2, fp 3, fn 4, tn 14, n 23
        let (n, po) = (23.0, 16.0 / 23.0);
        let pe = (6.0 / n) * (5.0 / n) + (17.0 / n) * (18.0 / n);
        assert!((o.kappa().expect("kappa") - (po - pe) / (1.0 - pe)).abs() < 1e-12);

        let types: Vec<&str> = c.by_type.keys().map(String::as_str).collect();
        assert_eq!(types, [UNTYPED, "clean", "contradiction"]);
        let clean = &c.by_type["clean"];
        assert_eq!(
            clean.char_counts,
            Counts {
                tp: 0,
                fp: 1,
                fn_: 0
            }
        );
        assert_eq!(clean.scores().char_level.recall, 0.0);
        assert_eq!(clean.scores().char_level.f1, 0.0);
        let mut sum = Agreement::default();
        for a in c.by_type.values() {
            sum.merge(a);
        }
        assert_eq!(&sum, o);
    }

    fn labeled(v: &[(usize, usize, &str)]) -> Vec<Span> {
        v.iter().map(|&(s, e, l)| Span::new("", s, e, l)).collect()
    }

    /// The case: one side accepts an `overgeneration` span, the other relabels it
    /// `contradiction`. Label-blind: F1 1 and kappa 1; label-aware: no true positive.
    #[test]
    fn relabeled_span_agrees_blind_but_not_labeled() {
        let out = "It is 25°C and rainy";
        let mut c = Comparison::default();
        c.add(
            Some("overgeneration"),
            out,
            &labeled(&[(6, 10, "overgeneration")]),
            &labeled(&[(6, 10, "contradiction")]),
        );
        let s = c.overall.scores();
        assert_eq!(s.char_level.f1, 1.0);
        assert_eq!(s.kappa, Some(1.0));
        let l = s.char_level_labeled;
        assert_eq!((l.tp, l.fp, l.fn_), (0, 4, 4));
        assert_eq!(l.f1, 0.0);
        // 16 of 20 code points agree ("none"); expected (16·16 + 4·0 + 0·4) / 400.
        let pe = 256.0 / 400.0;
        let want = (16.0 / 20.0 - pe) / (1.0 - pe);
        let k = s.kappa_labeled.expect("kappa");
        assert!((k - want).abs() < 1e-12, "{k} != {want}");
        let v = serde_json::to_value(s).expect("json");
        assert_eq!(v["char_level_labeled"]["fn"], 4);
        assert_eq!(v["char_level_labeled"]["tp"], 0);
        assert!(v["kappa_labeled"].is_number());
    }

    /// With one label on every span the label-aware figures are the label-blind ones.
    #[test]
    fn one_label_makes_labeled_equal_blind() {
        let recs = [
            record("1", None, "25°C today", &[(0, 4)], Some(&[(2, 6)])),
            record("2", None, "東京は晴れ", &[(0, 2), (1, 4)], Some(&[(3, 5)])),
            record("3", None, "ok 👋", &[], Some(&[(3, 4)])),
        ];
        let s = compare(&recs, GOLD, "det").overall.scores();
        assert_eq!(
            (s.char_level.tp, s.char_level.fp, s.char_level.fn_),
            (
                s.char_level_labeled.tp,
                s.char_level_labeled.fp,
                s.char_level_labeled.fn_
            )
        );
        let (k, kl) = (s.kappa.expect("k"), s.kappa_labeled.expect("kl"));
        assert!((k - kl).abs() < 1e-12);
    }

    #[test]
    fn by_label_counts_every_record() {
        let mut c = Comparison::default();
        // a: A and B agree on [0,3); b: B only on [5,7)
        c.add(
            None,
            "abcdefghij",
            &labeled(&[(0, 3, "a")]),
            &labeled(&[(0, 3, "a"), (5, 7, "b")]),
        );
        // a record that uses no label: a true negative for both labels
        c.add(None, "東京", &[], &[]);
        // b relabeled a → b: fn for a, fp for b
        c.add(
            None,
            "xyz",
            &labeled(&[(0, 2, "a")]),
            &labeled(&[(0, 2, "b")]),
        );
        let by = c.by_label();
        assert_eq!(by.keys().collect::<Vec<_>>(), ["a", "b"]);
        let (a, b) = (&by["a"], &by["b"]);
        for ag in [a, b] {
            assert_eq!((ag.records, ag.chars), (3, 15));
        }
        assert_eq!(
            a.char_counts,
            Counts {
                tp: 3,
                fp: 0,
                fn_: 2
            }
        );
        assert_eq!(
            b.char_counts,
            Counts {
                tp: 0,
                fp: 4,
                fn_: 0
            }
        );
        assert_eq!(
            (a.example_counts.tp, a.example_counts.fn_, a.example_tn),
            (1, 1, 1)
        );
        assert_eq!((b.example_counts.fp, b.example_tn), (2, 1));
        // kappa over all 15 code points: a: tp 3, fn 2, tn 10
        let want = kappa(3, 0, 2, 10).expect("k");
        assert!((a.kappa().expect("ka") - want).abs() < 1e-12);
        assert!((a.kappa_labeled().expect("kla") - want).abs() < 1e-12);
        assert_eq!(
            c.overall.labeled_counts,
            Counts {
                tp: 3,
                fp: 4,
                fn_: 2
            }
        );
    }

    #[test]
    fn empty_comparison_is_defined() {
        let c = compare(std::iter::empty(), GOLD, "det");
        let s = c.overall.scores();
        assert_eq!(s.records, 0);
        assert_eq!(s.char_level.f1, 0.0);
        assert_eq!(s.mean_iou, None);
        assert_eq!(s.kappa, None);
        assert!(c.by_type.is_empty());
    }

    #[test]
    fn scores_serialise_with_fn_key() {
        let mut a = Agreement::default();
        a.add(&RecordAgreement::new(
            "abcd",
            &spans(&[(0, 2)]),
            &spans(&[(1, 3)]),
        ));
        let v = serde_json::to_value(a.scores()).expect("json");
        assert_eq!(v["char_level"]["fn"], 1);
        assert_eq!(v["char_level"]["tp"], 1);
        assert_eq!(v["example_level"]["n"], 1);
        assert!(v["kappa"].is_number());
    }
}
