//! A labeled character range of an answer, in code points.

use serde_json::{Map, Value};

use super::offsets;

/// One labeled span: `[start, end)` in code points of the record's `output`.
///
/// `raw` is the span object exactly as it was read (all keys, original order), so that a writer
/// can patch the fields the model manages and pass everything else through unchanged. A span the
/// reviewer added has an empty `raw`.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// First code point covered.
    pub start: usize,
    /// One past the last code point covered.
    pub end: usize,
    /// `output[start:end]` as the file states it (may disagree with the output: `validate` checks).
    pub text: String,
    /// Label (hallucination type or category), empty when the format carries none.
    pub label: String,
    /// Taxonomy category, when the format has one apart from `label`.
    pub category: Option<String>,
    /// Taxonomy subcategory.
    pub subcategory: Option<String>,
    /// Detector confidence, when given.
    pub confidence: Option<f64>,
    /// The span object as read; empty for spans created in review or formats without objects.
    pub raw: Map<String, Value>,
}

impl Span {
    /// A new span over `output[start:end]`; `text` is filled from the output when the range is
    /// valid and left empty otherwise.
    #[must_use]
    pub fn new(output: &str, start: usize, end: usize, label: impl Into<String>) -> Self {
        Self {
            start,
            end,
            text: offsets::slice(output, start, end)
                .unwrap_or_default()
                .to_owned(),
            label: label.into(),
            category: None,
            subcategory: None,
            confidence: None,
            raw: Map::new(),
        }
    }

    /// Number of code points covered (0 for empty or reversed spans).
    #[must_use]
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers no character.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when `0 <= start < end <= len(output)`: [`range_problem_in`] finds nothing.
    #[must_use]
    pub fn in_bounds(&self, output_chars: usize) -> bool {
        range_problem_in(self.start, self.end, output_chars).is_none()
    }

    /// The text the span covers in `output`, or `None` when out of range.
    #[must_use]
    pub fn slice<'a>(&self, output: &'a str) -> Option<&'a str> {
        offsets::slice(output, self.start, self.end)
    }

    /// True when `text` equals `output[start:end]`.
    #[must_use]
    pub fn text_matches(&self, output: &str) -> bool {
        self.slice(output) == Some(self.text.as_str())
    }

    /// Why the span cannot be kept in a reviewed result over `output` ([`range_problem`]), or
    /// `None` when it can.
    #[must_use]
    pub fn problem(&self, output: &str) -> Option<RangeProblem> {
        range_problem(self.start, self.end, output)
    }

    /// True when the two spans share at least one character.
    #[must_use]
    pub fn overlaps(&self, other: &Span) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// Why a span's offsets do not mark a piece of its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeProblem {
    /// `start > end`.
    Reversed,
    /// `start == end`: it covers nothing.
    Empty,
    /// `end` is past the answer, which has `len` code points.
    PastEnd {
        /// The answer's length in code points.
        len: usize,
    },
}

/// The one rule for a span kept in a reviewed result (accepting it one by one or with the
/// rest, exporting it): `0 <= start < end <= len(output)`, in code points. `None` when
/// `[start, end)` obeys it.
#[must_use]
pub fn range_problem(start: usize, end: usize, output: &str) -> Option<RangeProblem> {
    range_problem_in(start, end, offsets::char_len(output))
}

/// [`range_problem`] over an answer of `len` code points (for a caller that has counted them).
#[must_use]
pub fn range_problem_in(start: usize, end: usize, len: usize) -> Option<RangeProblem> {
    if start > end {
        Some(RangeProblem::Reversed)
    } else if start == end {
        Some(RangeProblem::Empty)
    } else {
        (end > len).then_some(RangeProblem::PastEnd { len })
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::inside(15, 20, None)]
    #[case::whole(0, 20, None)]
    #[case::reversed(20, 15, Some(RangeProblem::Reversed))]
    #[case::empty(15, 15, Some(RangeProblem::Empty))]
    #[case::one_past_the_end(15, 21, Some(RangeProblem::PastEnd { len: 20 }))]
    #[case::reversed_and_past_the_end(40, 10, Some(RangeProblem::Reversed))]
    fn range_rule_counts_code_points(
        #[case] start: usize,
        #[case] end: usize,
        #[case] want: Option<RangeProblem>,
    ) {
        // 20 code points, 21 bytes: a byte count would let [15, 21) through.
        let out = "It is 25°C and rainy";
        assert_eq!(range_problem(start, end, out), want);
        let s = Span {
            start,
            end,
            ..Span::new(out, 0, 1, "x")
        };
        assert_eq!(s.problem(out), want);
    }

    #[test]
    fn new_span_takes_text_by_code_points() {
        let out = "It is 25°C and rainy";
        let s = Span::new(out, 15, 20, "contradiction");
        assert_eq!(s.text, "rainy");
        assert!(s.text_matches(out));
        assert!(s.in_bounds(20));
        assert!(!s.in_bounds(19));
    }

    #[test]
    fn text_mismatch_is_detected() {
        let out = "It is 25°C and rainy";
        let mut s = Span::new(out, 15, 20, "contradiction");
        s.text = "sunny".into();
        assert!(!s.text_matches(out));
    }

    #[test]
    fn overlap_is_half_open() {
        let a = Span::new("abcdef", 0, 3, "x");
        let b = Span::new("abcdef", 3, 5, "x");
        let c = Span::new("abcdef", 2, 4, "x");
        assert!(!a.overlaps(&b));
        assert!(a.overlaps(&c));
    }
}
