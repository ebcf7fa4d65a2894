//! What happened to one span of a review: kept, tightened, widened, shifted, relabeled,
//! dropped or added.
//!
//! A boundary change from `[s0, e0)` to `[s1, e1)` is **tightened** when both new ends are
//! inside the old span or on its ends (`s0 <= s1 && e1 <= e0`), **widened** when both are
//! outside it or on its ends (`s1 <= s0 && e0 <= e1`), and **shifted** otherwise: one end moved
//! in and the other out, or the span moved elsewhere (disjoint). With one end equal, the other
//! end decides: moved in is tightened, moved out is widened.

use super::super::decision::ReviewSpan;
use crate::model::Span;

/// How a span's boundaries changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// Both ends inside the old span (or on its ends).
    Tightened,
    /// Both ends outside the old span (or on its ends).
    Widened,
    /// One end in and one out, or moved elsewhere.
    Shifted,
}

impl Boundary {
    /// How `[start, end)` became `[new_start, new_end)`; `None` when unchanged.
    #[must_use]
    pub fn of(old: (usize, usize), new: (usize, usize)) -> Option<Self> {
        let ((s0, e0), (s1, e1)) = (old, new);
        if old == new {
            None
        } else if s0 <= s1 && e1 <= e0 {
            Some(Self::Tightened)
        } else if s1 <= s0 && e0 <= e1 {
            Some(Self::Widened)
        } else {
            Some(Self::Shifted)
        }
    }
}

/// What happened to one span of a record that stays open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanFate {
    /// Kept unchanged (accepted or pending).
    pub kept: bool,
    /// Boundaries changed, and how (see the module doc).
    pub boundary: Option<Boundary>,
    /// Label, category or subcategory changed.
    pub relabeled: bool,
    /// Dropped.
    pub dropped: bool,
    /// Dropped, and its original offsets or text were invalid.
    pub invalid: bool,
    /// Added in review and kept.
    pub added: bool,
}

impl SpanFate {
    /// Boundaries moved inward ([`Boundary::Tightened`]).
    #[must_use]
    pub fn tightened(&self) -> bool {
        self.boundary == Some(Boundary::Tightened)
    }

    /// Boundaries moved outward ([`Boundary::Widened`]).
    #[must_use]
    pub fn widened(&self) -> bool {
        self.boundary == Some(Boundary::Widened)
    }

    /// Boundaries moved one in and one out, or elsewhere ([`Boundary::Shifted`]).
    #[must_use]
    pub fn shifted(&self) -> bool {
        self.boundary == Some(Boundary::Shifted)
    }
}

/// Classify one span of a review (see the module doc of [`super`]).
#[must_use]
pub fn span_fate(span: &ReviewSpan, output: &str) -> SpanFate {
    let dropped = !span.kept();
    let invalid = dropped
        && span
            .original
            .as_ref()
            .is_some_and(|o| original_invalid(o, output));
    let boundary = span
        .original
        .as_ref()
        .filter(|_| !dropped)
        .and_then(|o| Boundary::of((o.start, o.end), (span.current.start, span.current.end)));
    let relabeled = !dropped && span.relabeled();
    let added = !dropped && span.added();
    SpanFate {
        kept: !dropped && boundary.is_none() && !relabeled && !added,
        boundary,
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
    span.problem(output).is_some() || (stated && !span.text_matches(output))
}
