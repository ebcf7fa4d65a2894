//! The queue filters that look past a span's label or source: a confidence range
//! (`confidence:0.3-0.7`), a reviewer (`reviewer:NAME`) and a record's outcome
//! (`outcome:clean|removed|open`). Membership is decided record by record, as for every queue.

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::formats::Dataset;
use crate::review::decision::OutcomeKind;
use crate::store::RecordState;
use crate::tui::log::DecisionLog;

/// A filter of `--queue` beyond the label and the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// Records with a span, from any source, whose confidence is in the range (both ends
    /// included). A span without a confidence is in no range.
    Confidence(Range),
    /// Records this reviewer made a decision on (any decision in the log, undone ones too).
    Reviewer {
        /// The reviewer's name, as in the log.
        name: String,
        /// Ids of the records decided on, read from the log by [`Filter::load`].
        records: HashSet<String>,
    },
    /// Records whose stored outcome is this one; `open` is a record decided on and kept
    /// (reviewed span by span), not one never touched.
    Outcome(OutcomeKind),
}

/// A closed range of confidences, `lo` ≤ `hi`, both finite.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    /// Lowest confidence admitted.
    pub lo: f64,
    /// Highest confidence admitted.
    pub hi: f64,
}

impl Range {
    /// True when `c` is in the range, ends included.
    #[must_use]
    pub fn contains(self, c: f64) -> bool {
        self.lo <= c && c <= self.hi
    }
}

// Parsed ranges are finite (no NaN), so equality is total.
impl PartialEq for Range {
    fn eq(&self, other: &Self) -> bool {
        self.lo.to_bits() == other.lo.to_bits() && self.hi.to_bits() == other.hi.to_bits()
    }
}

impl Eq for Range {}

/// The queue prefixes [`Filter::parse`] takes.
pub const PREFIXES: [&str; 3] = ["confidence", "reviewer", "outcome"];

impl Filter {
    /// The filter of `prefix:value` (`prefix` one of [`PREFIXES`], `value` not empty).
    ///
    /// # Errors
    /// A bad range or outcome, quoted, with what is expected.
    pub fn parse(prefix: &str, value: &str) -> Result<Self, String> {
        match prefix {
            "confidence" => parse_range(value).map(Self::Confidence),
            "reviewer" => Ok(Self::Reviewer {
                name: value.to_owned(),
                records: HashSet::new(),
            }),
            "outcome" => match OutcomeKind::from_name(value) {
                Some(k) => Ok(Self::Outcome(k)),
                None => Err(format!(
                    "unknown outcome {value:?} in --queue outcome:{value} (expected open, clean \
                     or removed)"
                )),
            },
            _ => Err(format!("unknown queue filter {prefix:?}")),
        }
    }

    /// Read what the filter needs from the log: the records a reviewer decided on.
    ///
    /// # Errors
    /// The log cannot be read.
    pub fn load(&mut self, log: &dyn DecisionLog, dataset: &str) -> Result<(), String> {
        if let Self::Reviewer { name, records } = self {
            *records = log
                .reviewer_log(dataset, name)?
                .into_iter()
                .map(|d| d.record_id)
                .collect();
        }
        Ok(())
    }

    /// Whether record `i` is in the queue: `Some(reviewed)` when it is. An unreadable record
    /// is admitted by the confidence filter (the reviewer sees the error), not by the others,
    /// which go by its id.
    pub(super) fn admits(
        &self,
        i: usize,
        ds: &Dataset,
        states: &HashMap<String, RecordState>,
    ) -> Option<bool> {
        let reviewed = |id: &str| states.get(id).is_some_and(|s| s.reviewed);
        match self {
            Self::Confidence(range) => match ds.record(i) {
                Ok(r) => r
                    .sources
                    .iter()
                    .flat_map(|s| &s.spans)
                    .any(|sp| sp.confidence.is_some_and(|c| range.contains(c)))
                    .then(|| reviewed(&r.id)),
                Err(_) => Some(false),
            },
            Self::Reviewer { records, .. } => {
                let id = ds.primary().id(i).ok()?;
                records.contains(&id).then(|| reviewed(&id))
            }
            Self::Outcome(kind) => {
                let id = ds.primary().id(i).ok()?;
                let s = states.get(&id)?;
                (s.outcome == *kind).then_some(s.reviewed)
            }
        }
    }
}

impl super::QueueKind {
    /// This queue with what its filter reads from the log (the records a reviewer decided
    /// on, as of opening).
    ///
    /// # Errors
    /// The log cannot be read.
    pub fn loaded(mut self, log: &dyn DecisionLog, dataset: &str) -> Result<Self, String> {
        if let Self::Filter(f) = &mut self {
            f.load(log, dataset)?;
        }
        Ok(self)
    }
}

fn parse_range(value: &str) -> Result<Range, String> {
    let bad = |why: &str| {
        format!("bad confidence range {value:?} in --queue confidence:{value}: {why} (expected LO-HI, e.g. confidence:0.3-0.7, both ends included)")
    };
    let (lo, hi) = value.split_once('-').ok_or_else(|| bad("no `-`"))?;
    let num = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad(&format!("{s:?} is not a number")))
    };
    let (lo, hi) = (num(lo)?, num(hi)?);
    if lo > hi {
        return Err(bad("the low end is above the high end"));
    }
    Ok(Range { lo, hi })
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Confidence(r) => write!(f, "confidence:{}-{}", r.lo, r.hi),
            Self::Reviewer { name, .. } => write!(f, "reviewer:{name}"),
            Self::Outcome(k) => write!(f, "outcome:{}", k.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_and_say_what_is_wrong() {
        assert_eq!(
            Filter::parse("confidence", "0.3-0.7").map(|f| f.to_string()),
            Ok("confidence:0.3-0.7".to_owned())
        );
        assert_eq!(
            Filter::parse("confidence", " 0 - 1 "),
            Ok(Filter::Confidence(Range { lo: 0.0, hi: 1.0 }))
        );
        for (bad, says) in [
            ("0.7-0.3", "low end is above"),
            ("0.3", "no `-`"),
            ("x-0.3", "\"x\" is not a number"),
            ("0.1-NaN", "not a number"),
            ("0.1-inf", "not a number"),
        ] {
            let e = Filter::parse("confidence", bad).expect_err(bad);
            assert!(e.contains(says) && e.contains(bad), "{bad}: {e}");
        }
        assert_eq!(
            Filter::parse("outcome", "removed").map(|f| f.to_string()),
            Ok("outcome:removed".to_owned())
        );
        let e = Filter::parse("outcome", "closed").expect_err("closed");
        assert!(e.contains("\"closed\"") && e.contains("open, clean or removed"));
        assert_eq!(
            Filter::parse("reviewer", "ana").map(|f| f.to_string()),
            Ok("reviewer:ana".to_owned())
        );
        let r = Range { lo: 0.3, hi: 0.7 };
        assert!(r.contains(0.3) && r.contains(0.7) && r.contains(0.5));
        assert!(!r.contains(0.299_999) && !r.contains(0.700_001));
    }
}
