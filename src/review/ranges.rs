//! Sorted, disjoint `[start, end)` code-point range lists: merging, subtracting,
//! intersecting. The one interval arithmetic of the metrics' coverage and the disagreement
//! clusters.

/// A half-open `[start, end)` range of code points.
pub type Range = (usize, usize);

/// `r` clamped to an answer of `len` code points; `None` when nothing of it is left (empty,
/// reversed, or wholly past the end). How metrics, labels and judge marks read a span.
pub(crate) fn clamp((start, end): Range, len: usize) -> Option<Range> {
    let (start, end) = (start.min(len), end.min(len));
    (start < end).then_some((start, end))
}

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

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::inside((2, 5), 8, Some((2, 5)))]
    #[case::past_the_end((5, 10), 8, Some((5, 8)))]
    #[case::wholly_past_the_end((9, 12), 8, None)]
    #[case::empty((3, 3), 8, None)]
    #[case::reversed((5, 2), 8, None)]
    fn clamp_keeps_what_is_left_inside_the_answer(
        #[case] r: Range,
        #[case] len: usize,
        #[case] want: Option<Range>,
    ) {
        assert_eq!(clamp(r, len), want);
    }

    #[test]
    fn merge_and_intersect_count_code_points_once() {
        let a = merge(vec![(5, 8), (0, 3), (2, 4), (8, 9), (7, 7)]);
        assert_eq!(a, [(0, 4), (5, 9)]);
        assert_eq!(total(&a), 8);
        assert_eq!(intersect(&a, &[(3, 6)]), [(3, 4), (5, 6)]);
        assert_eq!(subtract((0, 10), &a), [(4, 5), (9, 10)]);
    }
}
