//! Second passes and the rubber-stamp alarm: how often a reviewer who decided a record after
//! someone else's first pass ended where that pass did, and how long they spent per record.
//!
//! **First pass** of a record: the author of its earliest decision in force (a verdict or a
//! flag; arbitration, [`Arbiter::made`], left out): another reviewer, a triage source's flags,
//! a model's decisions. Every other reviewer with a verdict in force on the record made a
//! **second pass** over it; it is **blind** when their latest verdict there was saved while
//! blind review hid the others' decisions ([`BLIND_GROUP`]).
//!
//! **Agree**: the second pass's result on the record (their own decisions replayed onto what
//! their screen showed, [`replay_seen`]) equals the first pass's (its author's decisions
//! replayed alone onto the record as read; a pass of flags only leaves it as read): both removed
//! it, or neither did and they keep the same set of spans, each with the same start, end and
//! label.
//!
//! **Time per record**: a reviewer's decisions in force (arbitration left out), in time order, fall into runs on one
//! record; a run took the time from the end of the reviewer's previous run to its own last
//! decision, at most [`IDLE_SECS`] (a longer gap is a break); the reviewer's very first run has
//! no start and is not timed. A record's time is the sum of its runs'; the median is over the
//! records timed.
//!
//! **Reviewers** reported are the authors of a verdict in force other than arbitration: a
//! triage source that only flags, and an arbiter on the records they arbitrated, are not.
//!
//! **The alarm** fires for a reviewer who agrees with the first pass on at least
//! [`STAMP_SHARE`] of at least [`STAMP_RECORDS`] non-blind second passes, or whose median time
//! per record, over at least [`MIN_TIMED`] timed records, is under the `--min-seconds` threshold
//! ([`DEFAULT_MIN_SECONDS`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::decision::{
    replay, replay_seen, ActionKind, Decision, RecordOutcome, RecordReview, BLIND_GROUP,
};
use super::team::{Arbiter, IDLE_SECS};
use crate::model::Record;

/// Non-blind second passes a reviewer needs before their agreement can raise the alarm.
pub const STAMP_RECORDS: usize = 50;
/// The share of agreeing non-blind second passes that raises the alarm.
pub const STAMP_SHARE: f64 = 0.98;
/// Timed records a reviewer needs before their median time can raise the alarm (a median over
/// a handful of records, a quick try of the screen, says nothing).
pub const MIN_TIMED: usize = 10;
/// The default `--min-seconds`: a median time per record under it raises the alarm.
pub const DEFAULT_MIN_SECONDS: f64 = 5.0;

/// One reviewer's second passes and pace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirstPassAgreement {
    /// The reviewer.
    pub reviewer: String,
    /// Records they decided after another's first pass, not blind.
    pub followed: usize,
    /// Of those, the records where they ended where the first pass did.
    pub agreed: usize,
    /// `agreed / followed` (`null` without a non-blind second pass).
    pub agreement: Option<f64>,
    /// Records they decided after another's first pass, blind.
    pub blind: usize,
    /// Of those, the records where they ended where the first pass did.
    pub blind_agreed: usize,
    /// Whose first passes they followed (blind or not), sorted.
    pub first_passes: Vec<String>,
    /// Records with a time (see the module docs).
    pub timed_records: usize,
    /// Median seconds per timed record (`null` when none is timed).
    pub median_seconds: Option<f64>,
    /// The agreement rule fires: at least [`STAMP_SHARE`] of at least [`STAMP_RECORDS`].
    pub rubber_stamp: bool,
    /// The time rule fires: the median is under the threshold.
    pub too_fast: bool,
}

impl FirstPassAgreement {
    /// The warning lines the alarm gives for this reviewer (none when it is silent), each
    /// naming the reviewer and the figures.
    #[must_use]
    pub fn warnings(&self, min_seconds: f64) -> Vec<String> {
        let mut out = Vec::new();
        if self.rubber_stamp {
            out.push(format!(
                "rubber stamp? {} agreed with the first pass ({}) on {} of {} records decided \
                 after it, not blind ({:.1}%; the alarm is at {:.0}% of {} or more): review \
                 them blind",
                self.reviewer,
                self.first_passes.join(", "),
                self.agreed,
                self.followed,
                self.agreement.unwrap_or(0.0) * 100.0,
                STAMP_SHARE * 100.0,
                STAMP_RECORDS
            ));
        }
        if self.too_fast {
            out.push(format!(
                "too fast? {}'s median time per record is {:.1} s over {} records (under \
                 --min-seconds {min_seconds})",
                self.reviewer,
                self.median_seconds.unwrap_or(0.0),
                self.timed_records
            ));
        }
        out
    }
}

/// What a record's decisions say of one reviewer's second pass.
#[derive(Debug, Default, Clone, PartialEq)]
struct Passes {
    followed: usize,
    agreed: usize,
    blind: usize,
    blind_agreed: usize,
    first: BTreeSet<String>,
}

/// Accumulates [`FirstPassAgreement`]s over records.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SecondPasses {
    /// Per reviewer, their second passes.
    passes: BTreeMap<String, Passes>,
    /// Per author: (time as saved, record id) of each decision in force (arbitration left out).
    times: BTreeMap<String, Vec<(String, String)>>,
    /// Authors of a verdict in force other than arbitration: the reviewers reported (a triage
    /// source's flags alone, or an arbiter's resolutions, make none).
    reviewers: BTreeSet<String>,
}

/// A record's result as compared: removed, or the kept spans as `(start, end, label)`.
fn result(record: &Record, review: &RecordReview) -> (bool, BTreeSet<(usize, usize, String)>) {
    if matches!(review.outcome, RecordOutcome::Removed { .. }) {
        return (true, BTreeSet::new());
    }
    let spans = review.kept_spans(&record.output);
    (
        false,
        spans
            .into_iter()
            .map(|s| (s.start, s.end, s.label))
            .collect(),
    )
}

impl SecondPasses {
    /// Add `record` with the decisions in force on it (`applied`, in log order).
    pub fn add(&mut self, record: &Record, applied: &[Decision]) {
        let arbiter = Arbiter::of(applied);
        let own: Vec<Decision> = applied
            .iter()
            .filter(|d| !arbiter.made(d))
            .cloned()
            .collect();
        for d in &own {
            self.times
                .entry(d.reviewer.clone())
                .or_default()
                .push((d.time.clone(), record.id.clone()));
            if d.action.is_verdict() {
                self.reviewers.insert(d.reviewer.clone());
            }
        }
        let Some(first) = own
            .iter()
            .filter(|d| d.action.is_verdict() || d.action == ActionKind::Flag)
            .min_by_key(|d| d.id)
            .map(|d| d.reviewer.clone())
        else {
            return;
        };
        let theirs: Vec<Decision> = own
            .iter()
            .filter(|d| d.reviewer == first)
            .cloned()
            .collect();
        let first_result = result(record, &replay(record, &theirs));
        let others: BTreeSet<&str> = own
            .iter()
            .filter(|d| d.reviewer != first && d.action.is_verdict())
            .map(|d| d.reviewer.as_str())
            .collect();
        for who in others {
            let review = replay_seen(record, who, &own);
            if !review.has_verdict() {
                continue;
            }
            let blind = own
                .iter()
                .filter(|d| d.reviewer == who && d.action.is_verdict())
                .max_by_key(|d| d.id)
                .and_then(|d| d.group.as_deref())
                .is_some_and(|g| g.starts_with(BLIND_GROUP));
            let agrees = result(record, &review) == first_result;
            let p = self.passes.entry(who.to_owned()).or_default();
            if blind {
                p.blind += 1;
                p.blind_agreed += usize::from(agrees);
            } else {
                p.followed += 1;
                p.agreed += usize::from(agrees);
            }
            p.first.insert(first.clone());
        }
    }

    /// Every reviewer's figures, by name; `secs` reads a decision's time (RFC 3339) as seconds,
    /// `min_seconds` is the time rule's threshold.
    #[must_use]
    pub fn report(
        &self,
        secs: impl Fn(&str) -> Option<f64>,
        min_seconds: f64,
    ) -> Vec<FirstPassAgreement> {
        self.reviewers
            .iter()
            .map(|r| {
                let p = self.passes.get(r).cloned().unwrap_or_default();
                let per_record = self
                    .times
                    .get(r)
                    .map(|t| record_times(t, &secs))
                    .unwrap_or_default();
                let median = median(per_record.values().copied().collect());
                #[allow(clippy::cast_precision_loss)] // records are far below 2^52
                let agreement = (p.followed > 0).then(|| p.agreed as f64 / p.followed as f64);
                FirstPassAgreement {
                    reviewer: r.clone(),
                    followed: p.followed,
                    agreed: p.agreed,
                    agreement,
                    blind: p.blind,
                    blind_agreed: p.blind_agreed,
                    first_passes: p.first.into_iter().collect(),
                    timed_records: per_record.len(),
                    median_seconds: median,
                    rubber_stamp: p.followed >= STAMP_RECORDS
                        && agreement.is_some_and(|a| a >= STAMP_SHARE),
                    too_fast: per_record.len() >= MIN_TIMED
                        && median.is_some_and(|m| m < min_seconds),
                }
            })
            .collect()
    }
}

/// Seconds per record from one reviewer's `(time, record)` decisions (see the module docs).
fn record_times(
    decisions: &[(String, String)],
    secs: &impl Fn(&str) -> Option<f64>,
) -> BTreeMap<String, f64> {
    let mut t: Vec<(f64, &str)> = decisions
        .iter()
        .filter_map(|(time, id)| Some((secs(time)?, id.as_str())))
        .collect();
    t.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Runs on one record: (record, last time).
    let mut runs: Vec<(&str, f64)> = Vec::new();
    for (s, id) in t {
        match runs.last_mut() {
            Some((r, last)) if *r == id => *last = s,
            _ => runs.push((id, s)),
        }
    }
    let mut out: BTreeMap<String, f64> = BTreeMap::new();
    #[allow(clippy::cast_precision_loss)] // IDLE_SECS is small
    let idle = IDLE_SECS as f64;
    for w in runs.windows(2) {
        *out.entry(w[1].0.to_owned()).or_default() += (w[1].1 - w[0].1).min(idle);
    }
    out
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        f64::midpoint(v[n / 2 - 1], v[n / 2])
    })
}

#[cfg(test)]
mod tests;
