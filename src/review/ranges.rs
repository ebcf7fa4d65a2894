//! Sorted, disjoint `[start, end)` code-point range lists: merging, subtracting,
//! intersecting. The one interval arithmetic of the metrics' coverage and the disagreement
//! clusters.

/// A half-open `[start, end)` range of code points.
pub type Range = (usize, usize);

/// Append `r` to sorted intervals, merging when it overlaps or touches the last one.
pub(crate) fn push_merged(v: &mut Vec<Range>, r: Range) {
    match v.last_mut() {
        Some(last) if r.0 <= last.1 => last.1 = last.1.max(r.1),
        _ => v.push(r),
    }
}

/// Sort and merge ranges (dropping empty ones).
pub(crate) fn merge(mut v: Vec<Range>) -> Vec<Range> {
    v.retain(|r| r.0 < r.1);
    v.sort_unstable();
    let mut out = Vec::with_capacity(v.len());
    for r in v {
        push_merged(&mut out, r);
    }
    out
}

/// Code points in `v` (sorted and disjoint).
pub(crate) fn total(v: &[Range]) -> usize {
    v.iter().map(|r| r.1 - r.0).sum()
}

/// `r` minus the sorted, disjoint `cover`.
pub(crate) fn subtract(r: Range, cover: &[Range]) -> Vec<Range> {
    let (mut at, mut out) = (r.0, Vec::new());
    for &(a, b) in cover {
        if b <= at || a >= r.1 {
            continue;
        }
        if a > at {
            out.push((at, a));
        }
        at = at.max(b);
    }
    if at < r.1 {
        out.push((at, r.1));
    }
    out
}

/// Intersection of two sorted, disjoint range lists.
pub(crate) fn intersect(a: &[Range], b: &[Range]) -> Vec<Range> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            out.push((lo, hi));
        }
        if a[i].1 <= b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}
