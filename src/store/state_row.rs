//! A record's review state as a row of `record_state`: one per record, replaced by the next
//! (an upsert), written one at a time by a decision's save and many to a statement by a
//! batch (`apply`).

use std::sync::OnceLock;

use super::engine::{vals, Value};
use super::row::marks;
use super::RecordState;

/// Values of one state row ([`values`]).
pub(super) const N: usize = 7;

/// The upsert of `rows` states, their values ([`values`]) one row after another.
pub(super) fn upsert(rows: usize) -> String {
    let groups: Vec<String> = (0..rows)
        .map(|i| format!("({})", marks(i * N, N)))
        .collect();
    format!(
        "INSERT INTO record_state \
         (dataset, record_id, reviewed, flagged, outcome, stale, decision_id) \
         VALUES {} ON CONFLICT (dataset, record_id) DO UPDATE SET \
         reviewed = excluded.reviewed, flagged = excluded.flagged, \
         outcome = excluded.outcome, stale = excluded.stale, \
         decision_id = excluded.decision_id",
        groups.join(", ")
    )
}

/// The upsert of one state (made once: a screen saves one with every decision).
pub(super) fn upsert_one() -> &'static str {
    static SQL: OnceLock<String> = OnceLock::new();
    SQL.get_or_init(|| upsert(1))
}

/// The values of record `record_id`'s state `s` on `dataset`, pointing at decision
/// `decision_id`.
pub(super) fn values(
    dataset: &str,
    record_id: &str,
    decision_id: Option<i64>,
    s: &RecordState,
) -> [Value; N] {
    vals![
        dataset,
        record_id,
        s.reviewed,
        s.flagged,
        s.outcome.name(),
        s.stale,
        decision_id
    ]
}
