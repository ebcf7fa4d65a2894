//! The stats screen.

use super::status::records;

/// Stats screen title.
pub const STATS: &str = "Stats";

/// The stats screen's place for per-source numbers under `--blind`.
pub const STATS_BLIND: &str = "blind review: per-source agreement, upheld counts and the \
records reviewed or flagged by anyone are hidden until the session ends (run `spanreview stats` \
afterwards)";

/// What the stats are computed over.
#[must_use]
pub fn stats_scope(n: usize) -> String {
    format!(
        "agreement over the {} read this session (not the whole file); progress over every record",
        records(n)
    )
}

/// The stats screen's pace row.
#[must_use]
pub fn stats_pace(pace: &str) -> String {
    format!("pace this session: {pace}")
}

/// The stats screen's chart of labels by type (its bars, in order, in each label's group).
pub const STATS_LABELS: &str = "labels before/after/drop/add";

/// The stats screen's chart of upheld rates.
pub const STATS_UPHELD: &str = "upheld rate (clusters)";

/// The stats screen's boundary chart: corrected spans by code points moved, start then end.
pub const STATS_MOVED: &str = "boundaries moved start/end";

/// The stats screen's reviewer-pair chart: label-aware char F1 over the whole log.
pub const STATS_PAIRS: &str = "reviewer pairs: labeled F1";
