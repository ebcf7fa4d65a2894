//! Computing the `stats` report: every record's review replayed, each source compared with the
//! reviewed result and with the others, arbitration votes counted.

use std::collections::{BTreeMap, HashMap};

use super::to_stderr;
use super::{Args, DisagreementSummary, PairStats, Progress, Report, SourceStats, StaleNote};
use crate::formats::judges::{self, is_reviewer_source, Arbitration, SpanReader, REVIEWER_PREFIX};
use crate::formats::{Dataset, FormatError};
use crate::model::{Record, SourceRole, Span};
use crate::review::alpha::Alpha;
use crate::review::decision::{replay, Decision, RecordOutcome, RecordReview};
use crate::review::disagreement::RecordScore;
use crate::review::metrics::{Agreement, RecordAgreement};
use crate::review::outcome::{votes, JudgeCounts};
use crate::review::team::{Opinion, Team, TeamAgreement};

/// Accumulators, per source and per pair, keyed by name in order of first appearance.
#[derive(Default)]
struct Acc {
    names: Vec<(String, SourceRole)>,
    sources: HashMap<String, Agreement>,
    pairs: BTreeMap<(usize, usize), Agreement>,
    alpha: Alpha,
}

impl Acc {
    fn index(&mut self, name: &str, role: SourceRole) -> usize {
        match self.names.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.names.push((name.to_owned(), role));
                self.names.len() - 1
            }
        }
    }
}

/// One record read, replayed, clustered and compared (on a worker thread), for the sums.
struct Item {
    rec: Record,
    review: RecordReview,
    score: RecordScore,
    /// Not removed (and reviewed, with `--reviewed-only`): compared.
    compared: bool,
    opinions: Vec<(String, SourceRole, Vec<Span>)>,
    /// Each opinion against the reviewed result (the reference), in the order of `opinions`.
    vs_reviewed: Vec<RecordAgreement>,
    /// Opinions `x < y` against each other, `x` the reference.
    pairs: Vec<(usize, usize, RecordAgreement)>,
}

/// Compute the report (no printing); `reviewers` are the reviewers' opinions on the records
/// two or more of them decided on ([`crate::cli::judge_args::Reviewers::opinions`]).
pub(super) fn compute(
    dataset: &Dataset,
    judges: &judges::Judges,
    log: &[Decision],
    reviewers: &HashMap<String, Vec<Opinion>>,
    args: &Args,
    name: &str,
    db: &str,
) -> Report {
    let options = args.judges.options();
    let mut by_record: HashMap<&str, Vec<Decision>> = HashMap::new();
    for d in log {
        by_record.entry(&d.record_id).or_default().push(d.clone());
    }
    let mut progress = Progress::default();
    let mut dis = DisagreementSummary::default();
    let mut acc = Acc::default();
    let mut team = Team::default();
    let mut upheld: BTreeMap<String, JudgeCounts> = BTreeMap::new();
    let mut stale = Vec::new();
    let mut second = crate::review::second_pass::SecondPasses::default();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    // Records nobody decided on are only compared: read without their context (the bulk of a
    // line), by the formats' borrowing readers where they have one (nothing here reads a raw
    // value: that is export's). A record with decisions is read in full, as replaying them
    // needs its real hash.
    let reader = judges::skimmable(dataset).then(|| SpanReader::new(dataset).lite());
    // Reading, replaying, clustering and comparing a record is done on the machine's cores;
    // what is added up is added here, in file order.
    let work = |i: usize| -> Result<Item, FormatError> {
        let skimmed = reader
            .as_ref()
            .and_then(|r| r.record(i).ok())
            .filter(|r| !by_record.contains_key(r.id.as_str()));
        let mut rec = skimmed.map_or_else(|| dataset.record(i), Ok)?;
        judges.attach(&mut rec);
        let decisions = by_record
            .get(rec.id.as_str())
            .map_or(&[][..], Vec::as_slice);
        let review = replay(&rec, decisions);
        let a = Arbitration::of(&rec, &options);
        let score = a.score();
        let compared = !(matches!(review.outcome, RecordOutcome::Removed { .. })
            || (args.reviewed_only && !review.is_reviewed()));
        let opinions = opinions(&rec, &a);
        let mut vs_reviewed = Vec::new();
        let mut pairs = Vec::new();
        if compared {
            let reviewed = review.kept_spans(&rec.output);
            for (_, _, spans) in &opinions {
                vs_reviewed.push(RecordAgreement::new(&rec.output, &reviewed, spans));
            }
            for x in 0..opinions.len() {
                for y in x + 1..opinions.len() {
                    // Two reviewers are compared as the team figures compare them (below).
                    if is_reviewer_source(&opinions[x].0) && is_reviewer_source(&opinions[y].0) {
                        continue;
                    }
                    let r = RecordAgreement::new(&rec.output, &opinions[x].2, &opinions[y].2);
                    pairs.push((x, y, r));
                }
            }
        }
        Ok(Item {
            rec,
            review,
            score,
            compared,
            opinions,
            vs_reviewed,
            pairs,
        })
    };
    crate::cli::par::ordered(dataset.len(), work, |item| {
        progress.records += 1;
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                to_stderr!("{e}");
                progress.unreadable += 1;
                return;
            }
        };
        let (rec, review) = (&item.rec, &item.review);
        seen.insert(rec.id.clone());
        count_progress(&mut progress, review);
        second.add(rec, &review.applied);
        if let Some(o) = reviewers.get(&rec.id) {
            team.add(&rec.id, &rec.output, o, &options);
        }
        for d in &review.stale {
            stale.push(StaleNote {
                id: d.id,
                record_id: d.record_id.clone(),
                action: d.action,
                reviewer: d.reviewer.clone(),
                time: d.time.clone(),
            });
        }
        votes::add_counts(&mut upheld, votes::count(&review.applied));
        let sc = item.score;
        dis.disputed_records += usize::from(sc.is_disputed());
        dis.clusters += sc.clusters;
        dis.disputed_clusters += sc.disputed_clusters;
        dis.judge_disputes += sc.judge_disputes;
        dis.unplaced_claims += sc.unplaced_claims;
        if !item.compared {
            return;
        }
        progress.compared += 1;
        let opinions = &item.opinions;
        let idx: Vec<usize> = opinions
            .iter()
            .map(|(n, role, _)| acc.index(n, *role))
            .collect();
        for ((name, _, _), r) in opinions.iter().zip(&item.vs_reviewed) {
            match acc.sources.get_mut(name) {
                Some(ag) => ag.add(r),
                None => acc.sources.entry(name.clone()).or_default().add(r),
            }
        }
        for (x, y, r) in item.pairs {
            // A pair is keyed by its sources' first appearance, the earlier the reference.
            let (i, j) = (idx[x].min(idx[y]), idx[x].max(idx[y]));
            let r = if idx[x] < idx[y] { r } else { r.swapped() };
            acc.pairs.entry((i, j)).or_default().add(&r);
        }
        let annotators: Vec<(&str, &[Span])> = opinions
            .iter()
            .filter(|(_, role, _)| *role == SourceRole::Annotator)
            .map(|(n, _, spans)| (n.as_str(), spans.as_slice()))
            .collect();
        acc.alpha
            .add_record(crate::model::offsets::char_len(&rec.output), &annotators);
    });
    progress.orphan_decisions = log.iter().filter(|d| !seen.contains(&d.record_id)).count();
    for (n, _) in &acc.names {
        upheld.entry(n.clone()).or_default();
    }
    let sources = acc
        .names
        .iter()
        .map(|(n, role)| {
            let j = upheld.get(n).copied().unwrap_or_default();
            SourceStats {
                name: n.clone(),
                role: *role,
                overall: acc.sources.get(n).cloned().unwrap_or_default().scores(),
                upheld: j.upheld,
                dismissed: j.dismissed,
                upheld_spans: j.upheld_spans,
                dismissed_spans: j.dismissed_spans,
            }
        })
        .collect();
    let team = team.report();
    let pairs = pairs(&acc, team.as_ref());
    Report {
        dataset: name.to_owned(),
        db: db.to_owned(),
        tolerance: options.tolerance,
        ignore_edge_punct: options.ignore_edge_punct,
        progress,
        disagreement: dis,
        alpha: Some(acc.alpha.scores()).filter(|a| a.coders.len() >= 2),
        sources,
        pairs,
        upheld,
        stale,
        team,
        by_reviewer: None,
        reasons: None,
        first_pass: second.report(crate::store::unix_seconds, args.min_seconds),
    }
}

/// Every pair of sources, in order of the sources' first appearance. A pair of reviewers is
/// the team figures' pair ([`Team`]): one definition for both tables, on the records both
/// decided on (a removal is an opinion with no span, whatever the reviewed result), each
/// reviewer's own decisions replayed.
fn pairs(acc: &Acc, team: Option<&TeamAgreement>) -> Vec<PairStats> {
    let at = |name: &str| acc.names.iter().position(|(n, _)| n == name);
    let mut out: Vec<((usize, usize), PairStats)> = acc
        .pairs
        .iter()
        .map(|(&(i, j), ag)| {
            let p = PairStats {
                a: acc.names[i].0.clone(),
                b: acc.names[j].0.clone(),
                overall: ag.scores(),
            };
            ((i, j), p)
        })
        .collect();
    for p in team.map_or(&[][..], |t| t.pairs.as_slice()) {
        let (a, b) = (
            format!("{REVIEWER_PREFIX}{}", p.a),
            format!("{REVIEWER_PREFIX}{}", p.b),
        );
        let key = (at(&a).unwrap_or(usize::MAX), at(&b).unwrap_or(usize::MAX));
        let overall = p.scores;
        out.push((key, PairStats { a, b, overall }));
    }
    out.sort_by_key(|(k, _)| *k);
    out.into_iter().map(|(_, p)| p).collect()
}

fn count_progress(p: &mut Progress, review: &RecordReview) {
    p.reviewed += usize::from(review.is_reviewed());
    p.with_decisions += usize::from(review.has_verdict());
    p.flagged += usize::from(review.flagged);
    let outcome = review.outcome.kind().name();
    *p.by_outcome.entry(outcome.to_owned()).or_default() += 1;
    p.stale_decisions += review.stale.len();
    p.stale_records += usize::from(!review.stale.is_empty());
    crate::review::rubric::count_reasons(&mut p.by_reason, &review.applied);
}

/// Each source's opinion on `rec`: `(name, role, spans)`; judges by their verdicts' spans.
fn opinions(rec: &Record, a: &Arbitration) -> Vec<(String, SourceRole, Vec<Span>)> {
    let mut out = Vec::new();
    for s in &rec.sources {
        if s.role == SourceRole::Judge {
            let mine: Vec<_> = a
                .verdicts
                .iter()
                .filter(|v| v.source == s.name)
                .cloned()
                .collect();
            let spans = judges::verdict_spans(&rec.output, &mine, rec.gold_spans());
            out.push((s.name.clone(), s.role, spans));
        } else {
            out.push((s.name.clone(), s.role, s.spans.clone()));
        }
    }
    out
}
