//! Record scores: how much of an answer is in dispute, and the queues built on it.

use serde::Serialize;

use super::{Disagreement, JudgeSays, Range};
use crate::model::offsets;
use crate::review::ranges::{merge, total};

/// How disputed a record is; orders the arbitration queue.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RecordScore {
    /// Code points in the answer.
    pub output_chars: usize,
    /// Characters any participating source covers.
    pub covered_chars: usize,
    /// Characters in dispute: the union of the disputed clusters' disputed characters (which
    /// include judge-disputed gold spans and claimed text outside the gold), plus the length of
    /// unplaced claims' text.
    pub disputed_chars: usize,
    /// Clusters.
    pub clusters: usize,
    /// Disputed clusters.
    pub disputed_clusters: usize,
    /// Judge verdicts with `label_correct == false`.
    pub judge_disputes: usize,
    /// Judge claims of missed hallucinations the gold does not cover (placed or not).
    pub judge_claims: usize,
    /// Of those, claims that could not be located.
    pub unplaced_claims: usize,
    /// Defective spans.
    pub problems: usize,
    /// Opinions on the record: participating sources plus distinct judges.
    pub opinions: usize,
    /// `disputed_chars / output_chars`, at most 1 (0 for an empty answer).
    pub share: f64,
}

impl RecordScore {
    /// Something is in dispute: a cluster, a judge's verdict or claim.
    #[must_use]
    pub fn is_disputed(&self) -> bool {
        self.disputed_clusters + self.judge_disputes + self.judge_claims > 0
    }

    /// At least two opinions, nothing in dispute and no defective span: safe to accept
    /// without a look (`--auto-accept-unanimous`). A record with a single opinion is never
    /// unanimous.
    #[must_use]
    pub fn is_unanimous(&self) -> bool {
        self.opinions >= 2 && !self.is_disputed() && self.problems == 0
    }

    /// Queue order: larger share first, then more disputed items, then more disputed characters.
    #[must_use]
    pub fn queue_cmp(&self, other: &Self) -> std::cmp::Ordering {
        let items = |s: &Self| s.disputed_clusters + s.judge_disputes + s.judge_claims;
        other
            .share
            .total_cmp(&self.share)
            .then_with(|| items(other).cmp(&items(self)))
            .then_with(|| other.disputed_chars.cmp(&self.disputed_chars))
    }
}

/// Score one record's disagreement (judges included when it was made by
/// [`cluster_judged`](super::cluster_judged)).
#[must_use]
pub fn score(d: &Disagreement) -> RecordScore {
    let n = d.output_chars;
    let ranges: Vec<Range> = d
        .disputed()
        .flat_map(|(_, c)| c.disputed_ranges.iter().copied())
        .collect();
    let placed_claims = d
        .clusters
        .iter()
        .flat_map(|c| &c.judges)
        .filter(|m| m.says == JudgeSays::Claim && m.disputes)
        .count();
    let unplaced_chars: usize = d.unplaced.iter().map(|u| offsets::char_len(&u.text)).sum();
    let disputed_chars = total(&merge(ranges)) + unplaced_chars;
    #[allow(clippy::cast_precision_loss)] // answer lengths are far below 2^52
    let share = if n == 0 {
        0.0
    } else {
        (disputed_chars as f64 / n as f64).min(1.0)
    };
    RecordScore {
        output_chars: n,
        covered_chars: d.covered_chars(),
        disputed_chars,
        clusters: d.clusters.len(),
        disputed_clusters: d.disputed().count(),
        judge_disputes: d.judge_disputes,
        judge_claims: placed_claims + d.unplaced.len(),
        unplaced_claims: d.unplaced.len(),
        problems: d.problems.len(),
        opinions: d.participants.len() + d.judges.len(),
        share,
    }
}

/// Indices of the disputed records, most disputed first (`--queue disputed`); ties keep
/// their order.
#[must_use]
pub fn disputed_queue(scores: &[RecordScore]) -> Vec<usize> {
    let mut q: Vec<usize> = (0..scores.len())
        .filter(|&i| scores[i].is_disputed())
        .collect();
    q.sort_by(|&a, &b| scores[a].queue_cmp(&scores[b]));
    q
}

/// Indices of the unanimous records (`--auto-accept-unanimous`).
#[must_use]
pub fn unanimous(scores: &[RecordScore]) -> Vec<usize> {
    (0..scores.len())
        .filter(|&i| scores[i].is_unanimous())
        .collect()
}
