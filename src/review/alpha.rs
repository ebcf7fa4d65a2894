//! Krippendorff's alpha (nominal) over the code points of records, each source a coder.
//!
//! Units are the code points of every record's answer. Each source present on a record is a
//! coder whose value at a code point is the set of labels its spans give there (label-aware,
//! [`super::labeled`]) or whether any span covers it (label-blind); "no span" is a value like
//! any other. A source absent from a record is a missing value on all its code points. Units
//! with fewer than two values cannot be paired and are left out, as Krippendorff prescribes.
//!
//! Nominal alpha from the coincidence matrix `o_ck = Σ_u Σ_{i≠j} [v_ui = c][v_uj = k] / (m_u−1)`
//! with `n_c = Σ_k o_ck`, `n = Σ_c n_c`: `α = 1 − (n−1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k`
//! (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"). Only the marginals `n_c`
//! and the off-diagonal sum are kept, accumulated per piece of code points whose values are all
//! equal (a piece of `w` code points is `w` identical units), so the cost grows with the number
//! of spans, not with the length of the answers.

use std::collections::{BTreeSet, HashMap};
use std::hash::Hash;

use serde::Serialize;

use super::labeled::{walk, Labels, NONE};
use crate::model::Span;

/// The part of a coincidence matrix nominal alpha needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Coincidence<K: Hash + Eq> {
    /// `n_c`: pairable values per category.
    totals: HashMap<K, u64>,
    /// `n`: pairable values.
    n: u64,
    /// `Σ_{c≠k} o_ck`.
    disagree: f64,
}

impl<K: Hash + Eq> Default for Coincidence<K> {
    fn default() -> Self {
        Self {
            totals: HashMap::new(),
            n: 0,
            disagree: 0.0,
        }
    }
}

impl<K: Hash + Eq> Coincidence<K> {
    /// Add `weight` identical units, each with the values `counts` (a distinct value and how
    /// many coders gave it). A unit with fewer than two values is not pairable: nothing is
    /// added.
    pub fn add_unit(&mut self, counts: impl IntoIterator<Item = (K, u64)> + Clone, weight: u64) {
        let m: u64 = counts.clone().into_iter().map(|(_, c)| c).sum();
        if m < 2 || weight == 0 {
            return;
        }
        let mut same = 0u64;
        for (v, c) in counts {
            same += c * c;
            *self.totals.entry(v).or_default() += c * weight;
        }
        self.n += m * weight;
        self.disagree += weight as f64 * (m * m - same) as f64 / (m - 1) as f64;
    }

    /// Add everything `other` counted, its categories renamed by `key`.
    pub fn merge_mapped<J: Hash + Eq>(&mut self, other: Coincidence<J>, key: impl Fn(J) -> K) {
        for (j, c) in other.totals {
            *self.totals.entry(key(j)).or_default() += c;
        }
        self.n += other.n;
        self.disagree += other.disagree;
    }

    /// Pairable values.
    #[must_use]
    pub fn values(&self) -> u64 {
        self.n
    }

    /// Nominal alpha; `None` when fewer than two values were paired or all of them are one
    /// category (the expected disagreement is 0).
    #[must_use]
    pub fn alpha(&self) -> Option<f64> {
        let n = u128::from(self.n);
        let same: u128 = self
            .totals
            .values()
            .map(|&c| u128::from(c) * u128::from(c))
            .sum();
        let expected = n * n - same;
        (n >= 2 && expected > 0).then(|| 1.0 - (n - 1) as f64 * self.disagree / expected as f64)
    }
}

/// Alpha among several sources accumulated over records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Alpha {
    coders: BTreeSet<String>,
    records: usize,
    units: u64,
    blind: Coincidence<bool>,
    labeled: Coincidence<String>,
}

impl Alpha {
    /// Add one record of `len` code points with the spans of each source present on it
    /// (`(name, spans)`; sources absent from the record are simply not given).
    pub fn add_record(&mut self, len: usize, coders: &[(&str, &[Span])]) {
        for (name, _) in coders {
            if !self.coders.contains(*name) {
                self.coders.insert((*name).to_owned());
            }
        }
        if coders.len() < 2 {
            return;
        }
        self.records += 1;
        self.units += len as u64;
        let mut labels = Labels::new();
        let segs: Vec<_> = coders
            .iter()
            .map(|(_, spans)| labels.segments(spans, len))
            .collect();
        let m = coders.len() as u64;
        let mut local: Coincidence<u32> = Coincidence::default();
        let mut counts: Vec<(u32, u64)> = Vec::with_capacity(coders.len());
        walk(len, &segs, |w, sets| {
            counts.clear();
            for &s in sets {
                match counts.iter_mut().find(|(v, _)| *v == s) {
                    Some((_, c)) => *c += 1,
                    None => counts.push((s, 1)),
                }
            }
            let w = w as u64;
            local.add_unit(counts.iter().copied(), w);
            let marked = sets.iter().filter(|&&s| s != NONE).count() as u64;
            self.blind
                .add_unit([(true, marked), (false, m - marked)], w);
        });
        self.labeled.merge_mapped(local, |id| labels.set_key(id));
    }

    /// The figures, as printed and written to JSON.
    #[must_use]
    pub fn scores(&self) -> AlphaScores {
        AlphaScores {
            coders: self.coders.iter().cloned().collect(),
            records: self.records,
            units: self.units,
            blind: self.blind.alpha(),
            labeled: self.labeled.alpha(),
        }
    }
}

/// Krippendorff's alpha among sources, as written to JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlphaScores {
    /// The sources taken as coders, by name.
    pub coders: Vec<String>,
    /// Records on which at least two of them have spans (the others cannot be paired).
    pub records: usize,
    /// Code points of those records (the units).
    pub units: u64,
    /// Label-blind alpha: the value of a code point is "marked" or "not marked" (`null` when
    /// undefined).
    pub blind: Option<f64>,
    /// Label-aware alpha: the value is the set of labels marking the code point, "no span"
    /// included.
    pub labeled: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers,
    /// 12 units, values 1–5, `0` for a missing value. Nominal alpha = 0.743 (the `krippendorff`
    /// package on PyPI gives 0.743421052631579 for the same matrix).
    #[test]
    fn textbook_example_with_missing_values() {
        let data: [[u32; 12]; 4] = [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],
            [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0],
        ];
        let mut c: Coincidence<u32> = Coincidence::default();
        for u in 0..12 {
            let mut counts: Vec<(u32, u64)> = Vec::new();
            for obs in &data {
                let v = obs[u];
                if v == 0 {
                    continue;
                }
                match counts.iter_mut().find(|(x, _)| *x == v) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((v, 1)),
                }
            }
            c.add_unit(counts, 1);
        }
        // Unit 12 has a single value: not pairable. n = 40 pairable values.
        assert_eq!(c.values(), 40);
        let a = c.alpha().expect("defined");
        assert!((a - 0.743_421_052_631_579).abs() < 1e-12, "{a}");
        assert_eq!(format!("{a:.3}"), "0.743");
    }

    fn spans(v: &[(usize, usize, &str)]) -> Vec<Span> {
        v.iter().map(|&(s, e, l)| Span::new("", s, e, l)).collect()
    }

    /// Three coders, one absent from the second record, the third record coded by one only.
    /// Expected values from the `krippendorff` package (0.9.0), one unit per code point, label
    /// sets numbered as categories, NaN where a coder is absent:
    ///
    /// ```python
    /// import krippendorff, numpy as np
    /// recs = [(12, {"x": [(0,4,"a"),(6,9,"b")], "y": [(0,4,"a"),(6,9,"a")],
    ///               "z": [(1,4,"a"),(2,5,"b")]}),
    ///         (6, {"x": [], "y": [(2,5,"b")]}), (5, {"x": [(0,2,"a")]})]
    /// cats = {}
    /// def code(s, blind):
    ///     return (1.0 if s else 0.0) if blind else float(cats.setdefault(frozenset(s), len(cats)))
    /// for blind in (True, False):
    ///     cols = [[np.nan if c not in ann else code({l for s, e, l in ann[c] if s <= i < e}, blind)
    ///              for c in "xyz"] for n, ann in recs for i in range(n)]
    ///     print(krippendorff.alpha(reliability_data=np.array(cols).T,
    ///                              level_of_measurement="nominal"))
    /// ```
    #[test]
    fn records_match_the_krippendorff_package() {
        let (x1, y1, z1) = (
            spans(&[(0, 4, "a"), (6, 9, "b")]),
            spans(&[(0, 4, "a"), (6, 9, "a")]),
            spans(&[(1, 4, "a"), (2, 5, "b")]),
        );
        let (x2, y2) = (spans(&[]), spans(&[(2, 5, "b")]));
        let x3 = spans(&[(0, 2, "a")]);
        let mut a = Alpha::default();
        a.add_record(12, &[("x", &x1), ("y", &y1), ("z", &z1)]);
        a.add_record(6, &[("x", &x2), ("y", &y2)]);
        a.add_record(5, &[("x", &x3)]);
        let s = a.scores();
        assert_eq!(s.coders, ["x", "y", "z"]);
        assert_eq!((s.records, s.units), (2, 18));
        let (blind, labeled) = (s.blind.expect("blind"), s.labeled.expect("labeled"));
        assert!((blind - 0.336_860_670_194_003_56).abs() < 1e-12, "{blind}");
        assert!(
            (labeled - 0.215_529_753_265_602_2).abs() < 1e-12,
            "{labeled}"
        );
    }

    #[test]
    fn one_label_everywhere_gives_equal_alphas() {
        let (x, y, z) = (
            spans(&[(0, 4, "h")]),
            spans(&[(1, 4, "h"), (3, 6, "h")]),
            spans(&[(5, 9, "h")]),
        );
        let mut a = Alpha::default();
        a.add_record(10, &[("x", &x), ("y", &y), ("z", &z)]);
        let s = a.scores();
        assert_eq!(s.blind, s.labeled);
        assert!(s.blind.is_some());
    }

    #[test]
    fn undefined_without_variation_or_pairs() {
        let mut c: Coincidence<u32> = Coincidence::default();
        assert_eq!(c.alpha(), None);
        c.add_unit([(1, 3)], 5);
        assert_eq!(c.alpha(), None); // one category only
        c.add_unit([(2, 1)], 5); // one value: not pairable
        assert_eq!(c.values(), 15);
        assert_eq!(c.alpha(), None);
    }

    #[test]
    fn weight_equals_repeated_units() {
        let units: [&[(u32, u64)]; 3] = [&[(1, 2), (2, 1)], &[(1, 3)], &[(2, 2)]];
        let (mut once, mut each) = (Coincidence::default(), Coincidence::default());
        for u in units {
            once.add_unit(u.iter().copied(), 7);
            for _ in 0..7 {
                each.add_unit(u.iter().copied(), 1);
            }
        }
        let (a, b) = (once.alpha().expect("a"), each.alpha().expect("b"));
        assert!((a - b).abs() < 1e-12);
    }
}
