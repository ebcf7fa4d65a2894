//! The card's four charts, drawn from the same [`Tally`] and team figures as its tables:
//! outcomes by label, upheld rate per source, boundary change sizes, agreement per reviewer pair.

use super::svg::{Chart, Series};
use crate::review::outcome::{bucket_counts, Tally, BUCKETS};
use crate::review::team::TeamAgreement;

/// The file name ending of each chart, after the card's stem.
pub const OUTCOMES: &str = "-outcomes.svg";
/// Upheld rate per source.
pub const UPHELD: &str = "-upheld.svg";
/// Boundary change sizes.
pub const BOUNDARIES: &str = "-boundaries.svg";
/// Agreement per reviewer pair.
pub const AGREEMENT: &str = "-agreement.svg";

/// A label's name as the card shows it (`(none)` for a span without one).
#[must_use]
pub fn label_name(label: &str) -> &str {
    if label.is_empty() {
        "(none)"
    } else {
        label
    }
}

#[allow(clippy::cast_precision_loss)] // counts are far below 2^52
fn f(n: usize) -> f64 {
    n as f64
}

/// Labels before and after review, and what changed them, one group per label.
#[must_use]
pub fn outcomes(t: &Tally) -> Option<Chart> {
    if t.by_type.is_empty() {
        return None;
    }
    let col = |name: &str, get: &dyn Fn(&crate::review::outcome::TypeCounts) -> usize| Series {
        name: name.to_owned(),
        values: t.by_type.values().map(|c| f(get(c))).collect(),
    };
    Some(Chart {
        title: "Outcomes by label".to_owned(),
        unit: "labels".to_owned(),
        categories: t.by_type.keys().map(|l| label_name(l).to_owned()).collect(),
        series: vec![
            col("before", &|c| c.before),
            col("after", &|c| c.after),
            col("boundaries corrected", &|c| {
                c.tightened + c.widened + c.shifted
            }),
            col("relabeled away", &|c| c.relabeled_away),
            col("dropped", &|c| c.dropped),
            col("added", &|c| c.added),
        ],
        top: None,
        decimals: 0,
    })
}

/// Each source's upheld rate over the disputed clusters that named it (sources no resolution
/// named are left out).
#[must_use]
pub fn upheld(t: &Tally) -> Option<Chart> {
    let rated: Vec<(&String, f64)> = t
        .judges
        .iter()
        .filter_map(|(n, j)| Some((n, j.rate()?)))
        .collect();
    if rated.is_empty() {
        return None;
    }
    Some(Chart {
        title: "Upheld rate per source (disputed clusters)".to_owned(),
        unit: "upheld / (upheld + dismissed)".to_owned(),
        categories: rated.iter().map(|(n, _)| (*n).clone()).collect(),
        series: vec![Series {
            name: "upheld rate".to_owned(),
            values: rated.iter().map(|(_, r)| *r).collect(),
        }],
        top: Some(1.0),
        decimals: 3,
    })
}

/// How far the corrected boundaries moved, at the start and at the end.
#[must_use]
pub fn boundaries(t: &Tally) -> Option<Chart> {
    if t.start_moved.is_empty() {
        return None;
    }
    let series = |name: &str, moved| Series {
        name: name.to_owned(),
        values: bucket_counts(moved).into_iter().map(f).collect(),
    };
    Some(Chart {
        title: "Boundary corrections: code points moved at each end".to_owned(),
        unit: "spans".to_owned(),
        categories: BUCKETS.iter().map(|b| b.2.to_owned()).collect(),
        series: vec![series("start", &t.start_moved), series("end", &t.end_moved)],
        top: None,
        decimals: 0,
    })
}

/// Label-aware agreement of each pair of reviewers on the records both decided on.
#[must_use]
pub fn agreement(team: Option<&TeamAgreement>) -> Option<Chart> {
    let team = team.filter(|t| !t.pairs.is_empty())?;
    let series = |name: &str, get: &dyn Fn(&crate::review::team::PairAgreement) -> f64| Series {
        name: name.to_owned(),
        values: team.pairs.iter().map(get).collect(),
    };
    Some(Chart {
        title: "Agreement per reviewer pair (label-aware)".to_owned(),
        unit: "score".to_owned(),
        categories: team
            .pairs
            .iter()
            .map(|p| format!("{} vs {}", p.a, p.b))
            .collect(),
        series: vec![
            series("char F1", &|p| p.scores.char_level_labeled.f1),
            series("Cohen's kappa", &|p| p.scores.kappa_labeled.unwrap_or(0.0)),
            series("Krippendorff's alpha", &|p| p.alpha.labeled.unwrap_or(0.0)),
        ],
        top: Some(1.0),
        decimals: 3,
    })
}
