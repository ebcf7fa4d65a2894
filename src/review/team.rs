//! Team review figures: who decided on which record, how far reviewers agree on the records
//! several of them decided on (`stats`), and each reviewer's pace (`stats --by-reviewer`).
//!
//! A reviewer's **opinion** on a record is the record's gold spans with only their own
//! decisions replayed (their undo and redo respected) onto what their screen showed them
//! ([`super::decision::replay_seen`]): their kept spans, none when they
//! reclassified it clean or removed it. They have one when a decision of theirs other than
//! flags and notes is in force there ([`RecordReview::has_verdict`]), as the `reviewer:NAME`
//! sources read it; arbitration ([`Arbiter`]) is left out first, so an arbiter has none. On a record with two or more opinions each pair of reviewers is compared with the
//! label-aware figures of [`super::metrics`] (character F1, kappa) and Krippendorff's alpha
//! ([`super::alpha`]); the team's F1 and kappa pool every pair's counts, its alpha takes every
//! reviewer as a coder. A record is a **disagreement** when the reviewers' spans dispute under
//! the clustering options ([`disagreement::cluster`]) or some removed it and others kept it.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

use super::alpha::{Alpha, AlphaScores};
use super::decision::{active_ids, replay, ActionKind, Decision, RecordOutcome, RecordReview};
use super::disagreement::{self, Options};
use super::labeled::LabelName;
use super::metrics::{Agreement, RecordAgreement, Scores};
use crate::model::offsets::char_len;
use crate::model::{Record, Source, SourceRole, Span};

/// The `group` prefix the arbitration screen gives every decision it saves that is not a
/// resolution row (a clean, retype or remove made there): it is the arbiter's
/// ([`Arbiter`]), whether or not a resolution of the record exists.
pub const ARBITRATION_GROUP: &str = "arbitration-";

/// Which decisions of a log are **arbitration**, never a reviewer's review: no opinion, no
/// `reviewer:NAME` source, no agreement rater, no side of a reviewer conflict, no planned
/// reviewer. A decision is arbitration when
/// - it is a `resolve` row, or
/// - the arbitration screen saved it (its `group` starts with [`ARBITRATION_GROUP`], or it
///   shares its `group` with a `resolve` row of the record), or
/// - its author made a `resolve` row on that record (in force or not): on a record they
///   arbitrated, the arbiter's other decisions (a clean after a "no span" resolution, an undo)
///   go with their resolutions, also in logs written before the screen marked them.
///
/// So an arbiter who never reviewed a record on the review screen is no reviewer of it; a
/// reviewer who also arbitrates is a reviewer only on the records they did not arbitrate.
#[derive(Debug, Clone, Default)]
pub struct Arbiter {
    /// (record id, reviewer) pairs with a `resolve` row.
    arbiters: HashSet<(String, String)>,
    /// (record id, group) of the `resolve` rows.
    groups: HashSet<(String, String)>,
}

impl Arbiter {
    /// The arbitration of `log` (any order, any records).
    #[must_use]
    pub fn of<'a>(log: impl IntoIterator<Item = &'a Decision>) -> Self {
        let mut out = Self::default();
        for d in log {
            if d.action == ActionKind::Resolve {
                out.arbiters
                    .insert((d.record_id.clone(), d.reviewer.clone()));
                if let Some(g) = &d.group {
                    out.groups.insert((d.record_id.clone(), g.clone()));
                }
            }
        }
        out
    }

    /// True when `d` is arbitration (see [`Arbiter`]).
    #[must_use]
    pub fn made(&self, d: &Decision) -> bool {
        let key = |x: &str| (d.record_id.clone(), x.to_owned());
        d.action == ActionKind::Resolve
            || d.group
                .as_deref()
                .is_some_and(|g| g.starts_with(ARBITRATION_GROUP) || self.groups.contains(&key(g)))
            || self.arbiters.contains(&key(&d.reviewer))
    }
}

/// Per record id, the reviewers with a verdict decision in force on it (undo and redo
/// respected), leaving out the decisions `skip` says are no reviewer's own work (arbitration,
/// [`Arbiter::made`]).
#[must_use]
pub fn decided_by(
    log: &[Decision],
    skip: impl Fn(&Decision) -> bool,
) -> HashMap<String, BTreeSet<String>> {
    let active = active_ids(log);
    let mut out: HashMap<String, BTreeSet<String>> = HashMap::new();
    for d in log {
        if d.action.is_verdict() && active.contains(d.id) && !skip(d) {
            out.entry(d.record_id.clone())
                .or_default()
                .insert(d.reviewer.clone());
        }
    }
    out
}

/// **Blind review**: what `me`'s screen may show of a record's `log`. Until `me`'s own
/// decisions leave the record reviewed, only those (`Some`): the others' decisions, their
/// results and the arbiter's are hidden, so a reviewer judges the record on their own. Once
/// `me` has decided it, `None`: the whole log may be shown.
#[must_use]
pub fn blind_view(record: &Record, log: &[Decision], me: &str) -> Option<Vec<Decision>> {
    if log.iter().all(|d| d.reviewer == me) {
        return None;
    }
    let own: Vec<Decision> = log.iter().filter(|d| d.reviewer == me).cloned().collect();
    (!replay(record, &own).is_reviewed()).then_some(own)
}

/// One reviewer's result on one record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Opinion {
    /// The reviewer.
    pub reviewer: String,
    /// They removed the record (it has no span then).
    pub removed: bool,
    /// Their kept spans (none for a record they reclassified clean or removed).
    #[serde(serialize_with = "spans_json")]
    pub spans: Vec<Span>,
}

impl Opinion {
    /// `reviewer`'s opinion on `record` from their `decisions` on it; `None` when none of
    /// their verdict decisions is in force (a stale decision is not).
    #[must_use]
    pub fn of(record: &Record, reviewer: &str, decisions: &[Decision]) -> Option<Self> {
        Self::from_review(&record.output, reviewer, &replay(record, decisions))
    }

    /// As [`Opinion::of`], from `reviewer`'s decisions already replayed on the record whose
    /// answer text is `output` (for a caller that also wants the replay's stale decisions).
    #[must_use]
    pub fn from_review(output: &str, reviewer: &str, review: &RecordReview) -> Option<Self> {
        if !review.has_verdict() {
            return None;
        }
        Some(Self {
            reviewer: reviewer.to_owned(),
            removed: matches!(review.outcome, RecordOutcome::Removed { .. }),
            spans: review.kept_spans(output),
        })
    }
}

/// A span as the disagreement list writes it: code-point range, label (with category and
/// subcategory), text.
fn spans_json<S: serde::Serializer>(spans: &[Span], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(spans.len()))?;
    for sp in spans {
        seq.serialize_element(&serde_json::json!({
            "start": sp.start,
            "end": sp.end,
            "label": LabelName::of(sp).to_string(),
            "text": sp.text,
        }))?;
    }
    seq.end()
}

/// A record the reviewers disagree on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    /// The record.
    pub record_id: String,
    /// Each reviewer's result, by name.
    pub opinions: Vec<Opinion>,
}

/// Whether reviewers' `opinions` on the record whose answer is `output` disagree: some removed
/// it and others kept it, or their spans dispute under the clustering `options`. The one rule
/// for `stats`' disagreements and the review screen's arbitration between reviewers.
#[must_use]
pub fn disagree<'a>(
    output: &str,
    opinions: impl IntoIterator<Item = &'a Opinion>,
    options: &Options,
) -> bool {
    let mut removed = 0;
    let lanes: Vec<Source> = opinions
        .into_iter()
        .map(|o| {
            removed += usize::from(o.removed);
            Source::new(o.reviewer.clone(), SourceRole::Annotator, o.spans.clone())
        })
        .collect();
    if removed > 0 && removed < lanes.len() {
        return true;
    }
    disagreement::cluster(output, &lanes, options).is_disputed()
}

/// Two reviewers on the records both decided on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairAgreement {
    /// One reviewer (the reference of P and R; F1 and kappa are symmetric).
    pub a: String,
    /// The other.
    pub b: String,
    /// Character, example and span figures, label-blind and label-aware.
    pub scores: Scores,
    /// Krippendorff's alpha between the two.
    pub alpha: AlphaScores,
}

/// Everything the team section of `stats` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TeamAgreement {
    /// Records with opinions from two or more reviewers.
    pub records: usize,
    /// The reviewers with an opinion on any of them, by name.
    pub reviewers: Vec<String>,
    /// Per pair of reviewers, by names.
    pub pairs: Vec<PairAgreement>,
    /// Every pair's counts pooled.
    pub team: Scores,
    /// Krippendorff's alpha with every reviewer a coder.
    pub alpha: AlphaScores,
    /// The records they disagree on, in the order added.
    pub disagreements: Vec<Disagreement>,
}

/// Accumulates [`TeamAgreement`] over records.
#[derive(Debug, Default)]
pub struct Team {
    records: usize,
    reviewers: BTreeSet<String>,
    pairs: BTreeMap<(String, String), (Agreement, Alpha)>,
    pooled: Agreement,
    alpha: Alpha,
    disagreements: Vec<Disagreement>,
}

impl Team {
    /// Add a record with its reviewers' opinions (fewer than two: nothing to compare).
    pub fn add(&mut self, record_id: &str, output: &str, opinions: &[Opinion], options: &Options) {
        if opinions.len() < 2 {
            return;
        }
        let mut ops: Vec<&Opinion> = opinions.iter().collect();
        ops.sort_by(|a, b| a.reviewer.cmp(&b.reviewer));
        self.records += 1;
        let len = char_len(output);
        for (i, a) in ops.iter().enumerate() {
            self.reviewers.insert(a.reviewer.clone());
            for b in &ops[i + 1..] {
                let r = RecordAgreement::new(output, &a.spans, &b.spans);
                self.pooled.add(&r);
                let (ag, al) = self
                    .pairs
                    .entry((a.reviewer.clone(), b.reviewer.clone()))
                    .or_default();
                ag.add(&r);
                al.add_record(len, &[(&a.reviewer, &a.spans), (&b.reviewer, &b.spans)]);
            }
        }
        let coders: Vec<(&str, &[Span])> = ops
            .iter()
            .map(|o| (o.reviewer.as_str(), o.spans.as_slice()))
            .collect();
        self.alpha.add_record(len, &coders);
        if disagree(output, ops.iter().copied(), options) {
            self.disagreements.push(Disagreement {
                record_id: record_id.to_owned(),
                opinions: ops.into_iter().cloned().collect(),
            });
        }
    }

    /// The figures; `None` when no record had two opinions.
    #[must_use]
    pub fn report(&self) -> Option<TeamAgreement> {
        if self.records == 0 {
            return None;
        }
        Some(TeamAgreement {
            records: self.records,
            reviewers: self.reviewers.iter().cloned().collect(),
            pairs: self
                .pairs
                .iter()
                .map(|((a, b), (ag, al))| PairAgreement {
                    a: a.clone(),
                    b: b.clone(),
                    scores: ag.scores(),
                    alpha: al.scores(),
                })
                .collect(),
            team: self.pooled.scores(),
            alpha: self.alpha.scores(),
            disagreements: self.disagreements.clone(),
        })
    }
}

/// A gap between two decisions longer than this is a break: it counts as this much work.
pub const IDLE_SECS: u64 = 600;

/// One reviewer's pace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pace {
    /// The reviewer.
    pub reviewer: String,
    /// Records the plan gives them (`None` without a plan).
    pub assigned: Option<usize>,
    /// Records they decided on.
    pub done: usize,
    /// Records the plan gives them that they have not decided on (`None` without a plan).
    pub left: Option<usize>,
    /// Hours of work: the gaps between their decisions, each at most [`IDLE_SECS`].
    pub hours: f64,
    /// Records decided per hour of work (`None` before an hour can be measured: fewer than
    /// two decisions).
    pub rate_per_hour: Option<f64>,
    /// `left` at that rate, in hours.
    pub hours_left: Option<f64>,
}

impl Pace {
    /// `reviewer`'s pace from the times of their decisions (seconds, any order), the records
    /// they decided on, and, with a plan, those it gives them.
    #[must_use]
    pub fn of(
        reviewer: &str,
        times: &[u64],
        done: &BTreeSet<&str>,
        assigned: Option<&BTreeSet<&str>>,
    ) -> Self {
        let mut t = times.to_vec();
        t.sort_unstable();
        let secs: u64 = t.windows(2).map(|w| (w[1] - w[0]).min(IDLE_SECS)).sum();
        #[allow(clippy::cast_precision_loss)] // seconds and records are far below 2^52
        let hours = secs as f64 / 3600.0;
        #[allow(clippy::cast_precision_loss)]
        let rate = (hours > 0.0).then(|| done.len() as f64 / hours);
        let left = assigned.map(|a| a.difference(done).count());
        #[allow(clippy::cast_precision_loss)]
        let hours_left = match (left, rate) {
            (Some(0), _) => Some(0.0),
            (Some(l), Some(r)) if r > 0.0 => Some(l as f64 / r),
            _ => None,
        };
        Self {
            reviewer: reviewer.to_owned(),
            assigned: assigned.map(BTreeSet::len),
            done: done.len(),
            left,
            hours,
            rate_per_hour: rate,
            hours_left,
        }
    }
}

#[cfg(test)]
mod tests;
