//! Label-aware coverage: which labels each code point of an answer carries, per source.
//!
//! Used by the label-aware figures of [`super::metrics`] and by Krippendorff's alpha
//! ([`super::alpha`]). A span's label is its `label` together with its `category` and
//! `subcategory` when the format has them ([`LabelName`]). Where spans of one source overlap,
//! a code point carries the **set** of their labels; two sources agree on a code point when
//! their sets are equal, the empty set being "no span".
//!
//! Everything is computed on intervals, never per code point: a source's spans become sorted
//! segments of constant label set ([`Labels::segments`]), and sources are compared piece by
//! piece between the union of their boundaries ([`walk`]), so the cost grows with the number of
//! spans, not with the length of the answer.

use std::collections::HashMap;
use std::fmt;

use super::ranges;
use crate::model::Span;

/// A span's label with its taxonomy category and subcategory (owned, for keys that outlive a
/// record).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelName {
    /// `label`.
    pub label: String,
    /// `category`, when the format has one.
    pub category: Option<String>,
    /// `subcategory`.
    pub subcategory: Option<String>,
}

impl LabelName {
    /// A label with no category or subcategory.
    #[must_use]
    pub fn plain(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            ..Self::default()
        }
    }

    /// The name of `span`'s label.
    #[must_use]
    pub fn of(span: &Span) -> Self {
        Self {
            label: span.label.clone(),
            category: span.category.clone(),
            subcategory: span.subcategory.clone(),
        }
    }

    /// True when `span` carries this label.
    #[must_use]
    pub fn matches(&self, span: &Span) -> bool {
        Key::of(span) == Key::of_name(self)
    }
}

impl fmt::Display for LabelName {
    /// `label`, then `/category` and `/subcategory` when present.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)?;
        for part in [&self.category, &self.subcategory].into_iter().flatten() {
            write!(f, "/{part}")?;
        }
        Ok(())
    }
}

/// A borrowed label key. A missing category equals an empty one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key<'a> {
    label: &'a str,
    category: &'a str,
    subcategory: &'a str,
}

impl<'a> Key<'a> {
    fn of(span: &'a Span) -> Self {
        Self {
            label: &span.label,
            category: span.category.as_deref().unwrap_or(""),
            subcategory: span.subcategory.as_deref().unwrap_or(""),
        }
    }

    fn of_name(n: &'a LabelName) -> Self {
        Self {
            label: &n.label,
            category: n.category.as_deref().unwrap_or(""),
            subcategory: n.subcategory.as_deref().unwrap_or(""),
        }
    }
}

/// A run of code points `[start, end)` where one source carries the label set `set` (an id of
/// [`Labels`]; never [`NONE`]).
pub type Segment = (usize, usize, u32);

/// Up to this many labels a key is looked up by scanning [`Labels`]' keys.
const SCAN: usize = 16;

/// The id of the empty label set: no span covers the code point.
pub const NONE: u32 = 0;

/// The labels and label sets of one record, interned to small ids so that a code point's value
/// is compared as an integer.
#[derive(Debug, Default)]
pub struct Labels<'a> {
    keys: Vec<Key<'a>>,
    key_ids: HashMap<Key<'a>, u32>,
    sets: Vec<Vec<u32>>,
    set_ids: HashMap<Vec<u32>, u32>,
}

impl<'a> Labels<'a> {
    /// An empty interner, knowing only the empty set ([`NONE`]).
    #[must_use]
    pub fn new() -> Self {
        let mut l = Self::default();
        l.set_id(Vec::new());
        l
    }

    fn key_id(&mut self, k: Key<'a>) -> u32 {
        // A record has a handful of labels: looked up in place, not hashed (hashing every
        // span's label was 5% of `stats`, comparing the hashed keys 13%).
        if self.keys.len() <= SCAN {
            if let Some(id) = self.keys.iter().position(|x| *x == k) {
                return u32::try_from(id).unwrap_or(u32::MAX);
            }
        } else if let Some(&id) = self.key_ids.get(&k) {
            return id;
        }
        let id = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
        self.keys.push(k);
        self.key_ids.insert(k, id);
        id
    }

    fn set_id(&mut self, set: Vec<u32>) -> u32 {
        if let Some(&id) = self.set_ids.get(&set) {
            return id;
        }
        let id = u32::try_from(self.sets.len()).unwrap_or(u32::MAX);
        self.sets.push(set.clone());
        self.set_ids.insert(set, id);
        id
    }

    /// Number of label sets seen so far (ids run from 0 to this, exclusive).
    #[must_use]
    pub fn set_count(&self) -> usize {
        self.sets.len()
    }

    /// A key for set `id` that is equal across records exactly when the sets are: each label's
    /// parts separated by U+001F and ended by U+001E (control characters no label holds), in
    /// the order of the sorted parts. The empty set is `""`.
    #[must_use]
    pub fn set_key(&self, id: u32) -> String {
        let Some(set) = self.sets.get(id as usize) else {
            return String::new();
        };
        let mut parts: Vec<String> = set
            .iter()
            .filter_map(|&k| self.keys.get(k as usize))
            .map(|k| {
                format!(
                    "{}\u{1f}{}\u{1f}{}\u{1e}",
                    k.label, k.category, k.subcategory
                )
            })
            .collect();
        parts.sort();
        parts.concat()
    }

    /// The segments of constant label set that `spans` cover over an answer of `len` code
    /// points, sorted and disjoint. Spans are clamped to the answer; empty and reversed ones
    /// cover nothing.
    pub fn segments(&mut self, spans: &'a [Span], len: usize) -> Vec<Segment> {
        // (position, +1 opens / -1 closes, label id)
        let mut events: Vec<(usize, i8, u32)> = Vec::with_capacity(spans.len() * 2);
        for s in spans {
            if let Some((start, end)) = ranges::clamp((s.start, s.end), len) {
                let k = self.key_id(Key::of(s));
                events.push((start, 1, k));
                events.push((end, -1, k));
            }
        }
        events.sort_unstable();
        let mut open: Vec<u32> = vec![0; self.keys.len()];
        let mut out: Vec<Segment> = Vec::new();
        let mut i = 0;
        while i < events.len() {
            let pos = events[i].0;
            while i < events.len() && events[i].0 == pos {
                let (_, delta, k) = events[i];
                if let Some(c) = open.get_mut(k as usize) {
                    *c = if delta > 0 {
                        *c + 1
                    } else {
                        c.saturating_sub(1)
                    };
                }
                i += 1;
            }
            let Some(&(next, _, _)) = events.get(i) else {
                break;
            };
            let active: Vec<u32> = (0..open.len())
                .filter(|&k| open[k] > 0)
                .filter_map(|k| u32::try_from(k).ok())
                .collect();
            if active.is_empty() || next <= pos {
                continue;
            }
            let id = self.set_id(active);
            match out.last_mut() {
                Some(last) if last.1 == pos && last.2 == id => last.1 = next,
                _ => out.push((pos, next, id)),
            }
        }
        out
    }
}

/// Walk `[0, len)` in pieces over which every source's label set is constant, calling
/// `f(width, sets)` with one set id per source ([`NONE`] where it marks nothing). Pieces
/// covered by no source are walked too.
pub fn walk(len: usize, sources: &[Vec<Segment>], mut f: impl FnMut(usize, &[u32])) {
    let mut bounds: Vec<usize> =
        Vec::with_capacity(2 + sources.iter().map(Vec::len).sum::<usize>() * 2);
    bounds.push(0);
    bounds.push(len);
    for segs in sources {
        for &(s, e, _) in segs {
            bounds.push(s);
            bounds.push(e);
        }
    }
    bounds.sort_unstable();
    bounds.dedup();
    let mut at = vec![0usize; sources.len()];
    let mut sets = vec![NONE; sources.len()];
    for w in bounds.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        if hi > len {
            break;
        }
        for (k, segs) in sources.iter().enumerate() {
            while at[k] < segs.len() && segs[at[k]].1 <= lo {
                at[k] += 1;
            }
            sets[k] = match segs.get(at[k]) {
                Some(&(s, _, id)) if s <= lo => id,
                _ => NONE,
            };
        }
        f(hi - lo, &sets);
    }
}

/// Label-aware agreement of A (reference) and B on one record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabeledCounts {
    /// Code points both mark with the same label set.
    pub tp: usize,
    /// Code points B marks and A does not, or marks with another label set.
    pub fp: usize,
    /// Code points A marks and B does not, or marks with another label set.
    pub fn_: usize,
    /// Code points where the label sets are equal, "no span" included (kappa's observed
    /// agreement).
    pub agree: usize,
    /// Per label set ([`Labels::set_key`]): code points A gives it, code points B gives it.
    pub marginals: Vec<(String, usize, usize)>,
}

impl LabeledCounts {
    /// Compare `a` and `b` over an answer of `len` code points.
    #[must_use]
    pub fn new(len: usize, a: &[Span], b: &[Span]) -> Self {
        let mut labels = Labels::new();
        let sa = labels.segments(a, len);
        let sb = labels.segments(b, len);
        let mut c = Self::default();
        let mut marg = vec![(0usize, 0usize); labels.set_count()];
        walk(len, &[sa, sb], |w, sets| {
            let (x, y) = (sets[0], sets[1]);
            if x == y {
                c.agree += w;
                if x != NONE {
                    c.tp += w;
                }
            } else {
                if y != NONE {
                    c.fp += w;
                }
                if x != NONE {
                    c.fn_ += w;
                }
            }
            marg[x as usize].0 += w;
            marg[y as usize].1 += w;
        });
        c.marginals = marg
            .into_iter()
            .enumerate()
            .filter(|(_, (x, y))| x + y > 0)
            .filter_map(|(id, (x, y))| Some((labels.set_key(u32::try_from(id).ok()?), x, y)))
            .collect();
        c
    }
}

/// Multi-category Cohen's kappa from the observed agreement `agree` of `n` items and the
/// per-category counts `(a, b)` of each side; `None` when `n` is 0 or the expected agreement
/// is 1.
#[must_use]
pub fn kappa<'m>(
    agree: usize,
    n: usize,
    marginals: impl IntoIterator<Item = &'m (usize, usize)>,
) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let expected: f64 = marginals
        .into_iter()
        .map(|&(a, b)| (a as f64 / nf) * (b as f64 / nf))
        .sum();
    let observed = agree as f64 / nf;
    (expected < 1.0).then(|| (observed - expected) / (1.0 - expected))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn span(start: usize, end: usize, label: &str) -> Span {
        Span::new("", start, end, label)
    }

    /// Per code point, the sorted labels covering it (brute force).
    fn brute(len: usize, spans: &[Span]) -> Vec<Vec<String>> {
        let mut v = vec![Vec::new(); len];
        for s in spans {
            for x in v.iter_mut().take(s.end.min(len)).skip(s.start) {
                x.push(LabelName::of(s).to_string());
            }
        }
        for x in &mut v {
            x.sort();
            x.dedup();
        }
        v
    }

    /// (len, A, B) → (tp, fp, fn, agree); checked against a brute force per code point too.
    #[rstest]
    // same range, same label
    #[case(6, &[(0, 3, "x")], &[(0, 3, "x")], (3, 0, 0, 6))]
    // the case: accepted vs relabeled — blind tp 3, labeled tp 0
    #[case(6, &[(0, 3, "overgeneration")], &[(0, 3, "contradiction")], (0, 3, 3, 3))]
    // partly relabeled
    #[case(10, &[(0, 6, "a")], &[(0, 3, "a"), (3, 6, "b")], (3, 3, 3, 7))]
    // overlapping labels in A: {a,b} on [2,4) vs B's {a}
    #[case(8, &[(0, 4, "a"), (2, 6, "b")], &[(0, 4, "a")], (2, 2, 4, 4))]
    // equal sets agree whatever the spans' order and split
    #[case(8, &[(0, 4, "a"), (0, 4, "b")], &[(0, 2, "b"), (2, 4, "b"), (0, 4, "a")], (4, 0, 0, 8))]
    // out of range and empty spans clamp / cover nothing
    #[case(3, &[(1, 9, "a"), (2, 2, "b")], &[(0, 0, "a")], (0, 0, 2, 1))]
    #[case(0, &[], &[], (0, 0, 0, 0))]
    fn labeled_counts(
        #[case] len: usize,
        #[case] a: &[(usize, usize, &str)],
        #[case] b: &[(usize, usize, &str)],
        #[case] want: (usize, usize, usize, usize),
    ) {
        let a: Vec<Span> = a.iter().map(|&(s, e, l)| span(s, e, l)).collect();
        let b: Vec<Span> = b.iter().map(|&(s, e, l)| span(s, e, l)).collect();
        let c = LabeledCounts::new(len, &a, &b);
        assert_eq!((c.tp, c.fp, c.fn_, c.agree), want);
        let (ba, bb) = (brute(len, &a), brute(len, &b));
        let pairs = || ba.iter().zip(&bb);
        let tp = pairs().filter(|(x, y)| !x.is_empty() && x == y).count();
        let fp = pairs().filter(|(x, y)| !y.is_empty() && x != y).count();
        let fn_ = pairs().filter(|(x, y)| !x.is_empty() && x != y).count();
        let agree = pairs().filter(|(x, y)| x == y).count();
        assert_eq!((c.tp, c.fp, c.fn_, c.agree), (tp, fp, fn_, agree));
        let (sa, sb): (usize, usize) = c
            .marginals
            .iter()
            .fold((0, 0), |s, m| (s.0 + m.1, s.1 + m.2));
        assert_eq!((sa, sb), (len, len));
    }

    #[test]
    fn category_and_subcategory_are_part_of_the_label() {
        let mut a = span(0, 4, "Evident Conflict");
        a.category = Some("contradiction".into());
        a.subcategory = Some("temporal".into());
        let mut b = a.clone();
        b.subcategory = Some("numerical".into());
        let c = LabeledCounts::new(4, &[a.clone()], &[b]);
        assert_eq!((c.tp, c.fp, c.fn_), (0, 4, 4));
        let c = LabeledCounts::new(4, &[a.clone()], &[a.clone()]);
        assert_eq!(c.tp, 4);
        assert_eq!(
            LabelName::of(&a).to_string(),
            "Evident Conflict/contradiction/temporal"
        );
    }

    #[test]
    fn set_keys_tell_an_empty_label_from_no_span() {
        let mut l = Labels::new();
        let spans = [span(0, 2, "")];
        let segs = l.segments(&spans, 4);
        assert_eq!(segs.len(), 1);
        assert_ne!(l.set_key(segs[0].2), l.set_key(NONE));
        assert_eq!(l.set_key(NONE), "");
    }

    #[test]
    fn walk_covers_the_answer_once() {
        let mut l = Labels::new();
        let a = [span(2, 5, "x"), span(4, 8, "y")];
        let b = [span(0, 3, "x")];
        let (sa, sb) = (l.segments(&a, 10), l.segments(&b, 10));
        let mut pieces = Vec::new();
        walk(10, &[sa, sb], |w, s| pieces.push((w, s.to_vec())));
        assert_eq!(pieces.iter().map(|p| p.0).sum::<usize>(), 10);
        // [0,2) [2,3) [3,4) [4,5) [5,8) [8,10)
        assert_eq!(pieces.len(), 6);
        assert_eq!(pieces[5].1, [NONE, NONE]);
    }
}
