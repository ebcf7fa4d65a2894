//! The database's own reviewers as sources (`reviewer:<NAME>`), and the records where their
//! results conflict: what `export` warns about and reports, the review screen's team lanes and
//! `stats`' team figures. The rules are told in `cli::judge_args`' module docs.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{LoadedSource, REVIEWER_PREFIX};
use crate::formats::Dataset;
use crate::model::{Source, SourceRole};
use crate::review::decision::{replay, replay_seen, ActionKind, Decision};
use crate::review::disagreement::Options;
use crate::review::team::{self, Arbiter, Opinion};

/// The reviewers of one dataset's log as sources, and where they conflict (see the module
/// docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reviewers {
    /// One `reviewer:<NAME>` source per reviewer, by name; empty when no record has opinions
    /// from two reviewers.
    pub sources: Vec<LoadedSource>,
    /// Records where every reviewer with an opinion kept the same spans (under the clustering
    /// options).
    pub agreed: HashSet<String>,
    /// Records where reviewers' results differ, in file order.
    pub conflicts: Vec<Conflict>,
    /// Per record id, the opinions the sources hold on it (two or more, by reviewer), with
    /// removals told apart from kept spans (for `stats`' team figures).
    pub opinions: HashMap<String, Vec<Opinion>>,
    /// The team figures over those opinions, as `stats` computes them ([`team::Team`]; `None`
    /// when no record has two).
    pub team: Option<team::TeamAgreement>,
    /// Stale decisions and unreadable records met.
    pub problems: Vec<String>,
}

/// A record on which reviewers' results differ: their kept spans dispute (a cluster where they
/// differ under the clustering options), or some removed it and others kept it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Conflict {
    /// The record.
    pub record_id: String,
    /// The reviewers with an opinion on it, sorted.
    pub reviewers: Vec<String>,
    /// A resolution naming a reviewer source is in force on the record (arbitration settled
    /// it: being later in the log, it overrides the reviewers' decisions on the spans it
    /// settles).
    pub resolved: bool,
}

/// A resolution that upholds or dismisses a reviewer source: arbitration between reviewers.
pub(crate) fn arbitrates_reviewers(d: &Decision) -> bool {
    d.action == ActionKind::Resolve
        && d.upheld
            .iter()
            .chain(&d.dismissed)
            .any(|s| super::is_reviewer_source(s))
}

/// The reviewers of `log` (one dataset's decisions, any order) as sources over `dataset`, and
/// the records where they conflict (see the module docs). Only the records that at least two
/// reviewers decided on are read.
#[must_use]
pub fn reviewers<'a>(
    log: impl IntoIterator<Item = &'a Decision>,
    dataset: &Dataset,
    options: &Options,
) -> Reviewers {
    // References first: a log of one reviewer (the usual case) ends at `candidates`, without
    // copying a decision.
    let log: Vec<&Decision> = log.into_iter().collect();
    let arbiter = Arbiter::of(log.iter().copied());
    let mut all: HashMap<&str, Vec<&Decision>> = HashMap::new();
    let mut own: HashMap<&str, BTreeMap<&str, Vec<&Decision>>> = HashMap::new();
    for d in log {
        all.entry(&d.record_id).or_default().push(d);
        // Arbitration is no reviewer's review (`Arbiter`): the arbiter is not a source.
        if !arbiter.made(d) {
            own.entry(&d.record_id)
                .or_default()
                .entry(&d.reviewer)
                .or_default()
                .push(d);
        }
    }
    let owned = |ds: &[&Decision]| ds.iter().map(|d| (*d).clone()).collect::<Vec<Decision>>();
    let candidates: HashSet<&str> = own
        .iter()
        .filter(|(_, by)| {
            by.values()
                .filter(|ds| ds.iter().any(|d| d.action.is_verdict()))
                .count()
                >= 2
        })
        .map(|(id, _)| *id)
        .collect();
    let mut out = Reviewers::default();
    if candidates.is_empty() {
        return out;
    }
    let mut sources: BTreeMap<String, LoadedSource> = BTreeMap::new();
    let mut figures = team::Team::default();
    let (mut found, mut stale) = (0, 0);
    // The candidates' lines in file order, their ids read as a joined file's are (saved beside
    // the index, else in blocks) rather than with one read per line; an unreadable id is no
    // candidate's.
    let by_id = dataset.primary().by_id(&mut Vec::new()).unwrap_or_default();
    let mut lines: Vec<(usize, &str)> = candidates
        .iter()
        .filter_map(|&id| Some((by_id.get(id)?, id)))
        .flat_map(|(at, id)| at.iter().map(move |&i| (i, id)))
        .collect();
    lines.sort_unstable();
    for (i, id) in lines {
        if found == candidates.len() {
            break;
        }
        found += 1;
        let rec = match dataset.record(i) {
            Ok(r) => r,
            Err(e) => {
                out.problems.push(e.to_string());
                continue;
            }
        };
        let mut opinions: Vec<Opinion> = Vec::new();
        // What each one's screen showed counts: the other reviewers' decisions made before
        // their last verdict (`replay_seen`).
        let shown: Vec<Decision> = own[id].values().flatten().map(|d| (*d).clone()).collect();
        for who in own[id].keys() {
            let review = replay_seen(&rec, who, &shown);
            stale += review.stale.len();
            opinions.extend(Opinion::from_review(&rec.output, who, &review));
        }
        if opinions.len() < 2 {
            continue;
        }
        // Every opinion is a lane, a removal one with no span (`Opinion::spans`): a reviewer
        // who kept spans the other removed disputes them, and the record reaches the
        // arbitration queue.
        let lanes: Vec<Source> = opinions
            .iter()
            .map(|o| {
                let name = format!("{REVIEWER_PREFIX}{}", o.reviewer);
                Source::new(name, SourceRole::Annotator, o.spans.clone())
            })
            .collect();
        let disagree = team::disagree(&rec.output, &opinions, options);
        if !disagree {
            out.agreed.insert(rec.id.clone());
        }
        for s in lanes {
            sources
                .entry(s.name.clone())
                .or_insert_with(|| LoadedSource::new(s.name.clone(), SourceRole::Annotator))
                .spans
                .insert(rec.id.clone(), s.spans);
        }
        if disagree {
            let merged = replay(&rec, &owned(all.get(id).map_or(&[][..], Vec::as_slice)));
            out.conflicts.push(Conflict {
                record_id: rec.id.clone(),
                reviewers: opinions.iter().map(|o| o.reviewer.clone()).collect(),
                resolved: merged.applied.iter().any(arbitrates_reviewers),
            });
        }
        figures.add(&rec.id, &rec.output, &opinions, options);
        out.opinions.insert(rec.id.clone(), opinions);
    }
    if stale > 0 {
        out.problems.push(format!(
            "{stale} stale decision(s) (made on other content of the records) left out of the \
             reviewers' results"
        ));
    }
    out.sources = sources.into_values().collect();
    out.team = figures.report();
    out
}
