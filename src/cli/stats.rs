//! `spanreview stats`: every annotation source against the reviewed result, sources against
//! each other, how often arbitration upheld each one, and review progress.
//!
//! The **reviewed result** of a record is its gold spans with the database's decisions in force
//! replayed ([`replay`], [`RecordReview::kept_spans`]): a record reclassified clean has no span; a
//! removed record is left out of every comparison (sources and pairs alike); a record nobody
//! reviewed keeps its gold spans (`--reviewed-only` leaves such records out instead).
//!
//! **Sources** are the records' own (`gold` as read, detectors of prediction files given as
//! FILE), every `--judge`, and with several reviewers in the database one `reviewer:<NAME>` per
//! reviewer ([`judge_args::reviewers`]). A judge of halu-toolace decisions is compared through the spans
//! its verdicts stand for ([`judges::verdict_spans`]: the judged gold spans it did not call
//! wrong, plus its located claims). A source is compared on the records it has an opinion on;
//! a pair on the records both have one on. The numbers are [`crate::review::metrics`]'s:
//! character-level P/R/F1 (reviewed result as reference), example-level F1, mean IoU, Cohen's
//! kappa, label-blind and label-aware. With two or more annotators (Mu-SHROOM's, or
//! `reviewer:<NAME>` sources) Krippendorff's alpha among them ([`crate::review::alpha`]).
//!
//! **Upheld** counts come from the applied `resolve` decisions, one vote per source per disputed
//! cluster (or judge claim), however many spans its resolution settled, as the export report and
//! the stats screen count them ([`votes::count`]); the JSON also gives the per-span counts (one
//! per decision) as `upheld_spans`/`dismissed_spans`. Stale decisions (made on other content of a
//! record) are listed on stderr and in the JSON, and counted nowhere.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use serde_json::json;
use unicode_width::UnicodeWidthStr;

use super::db_args::DbArgs;
use super::eprintln;
use super::judge_args::{self, JudgeArgs};
use crate::formats::judges::{self, Arbitration, SpanReader};
use crate::formats::{Dataset, Format};
use crate::model::{Record, SourceRole, Span};
use crate::review::alpha::{Alpha, AlphaScores};
use crate::review::decision::{replay, ActionKind, Decision, RecordOutcome, RecordReview};
use crate::review::metrics::{Agreement, RecordAgreement, Scores};
use crate::review::outcome::{is_verdict_action, votes, JudgeCounts};
use crate::store::Store;

/// Arguments of `spanreview stats`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    spanreview stats data/toolace/test_records_reconstructed.jsonl \\\n    \
    --judge ensemble=data/toolace/ensemble/predictions_combined.jsonl \\\n    \
    --judge modernbert=data/toolace/modernbert_ft/predictions_combined.jsonl\n  \
    spanreview stats records.jsonl --judge alice=alice.sqlite --db review.sqlite --json")]
pub struct Args {
    /// Records and prediction files joined by `id` [default: the bundled sample].
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Judges and tolerance.
    #[command(flatten)]
    pub judges: JudgeArgs,
    /// The database and the dataset in it.
    #[command(flatten)]
    pub db: DbArgs,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Compare only records whose review is complete (no span left undecided).
    #[arg(long)]
    pub reviewed_only: bool,
    /// Read every FILE in this format instead of detecting it.
    #[arg(long, value_enum, value_name = "F")]
    pub format: Option<Format>,
}

/// Review progress.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Progress {
    /// Records in the input.
    pub records: usize,
    /// Records that could not be read (left out).
    pub unreadable: usize,
    /// Records whose review is complete.
    pub reviewed: usize,
    /// Records with at least one decision in force other than flags and notes.
    pub with_decisions: usize,
    /// By outcome: open, clean, removed.
    pub by_outcome: BTreeMap<String, usize>,
    /// Flagged records.
    pub flagged: usize,
    /// Records compared (not removed; with `--reviewed-only`, reviewed).
    pub compared: usize,
    /// Stale decisions (not applied, not counted).
    pub stale_decisions: usize,
    /// Records with stale decisions.
    pub stale_records: usize,
    /// Decisions on ids the input does not have.
    pub orphan_decisions: usize,
}

/// How much the sources disagree, before review.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DisagreementSummary {
    /// Records with something in dispute.
    pub disputed_records: usize,
    /// Clusters.
    pub clusters: usize,
    /// Disputed clusters.
    pub disputed_clusters: usize,
    /// Judge verdicts calling a gold span wrong.
    pub judge_disputes: usize,
    /// Judge claims that could not be located in the answer.
    pub unplaced_claims: usize,
}

/// One source against the reviewed result.
#[derive(Debug, Clone, Serialize)]
pub struct SourceStats {
    /// Source name.
    pub name: String,
    /// What it is.
    pub role: SourceRole,
    /// Agreement with the reviewed result (reference) over the records it has.
    pub overall: Scores,
    /// Disputed clusters whose resolution upheld it (one vote per cluster).
    pub upheld: usize,
    /// Disputed clusters whose resolution dismissed it.
    pub dismissed: usize,
    /// Per span: `resolve` decisions that upheld it.
    pub upheld_spans: usize,
    /// Per span: `resolve` decisions that dismissed it.
    pub dismissed_spans: usize,
}

/// Two sources against each other.
#[derive(Debug, Clone, Serialize)]
pub struct PairStats {
    /// The reference.
    pub a: String,
    /// The other.
    pub b: String,
    /// Agreement over the records both have.
    pub overall: Scores,
}

/// A stale decision, as reported.
#[derive(Debug, Clone, Serialize)]
pub struct StaleNote {
    /// Log id.
    pub id: i64,
    /// Record.
    pub record_id: String,
    /// Action.
    pub action: ActionKind,
    /// Who.
    pub reviewer: String,
    /// When.
    pub time: String,
}

/// Everything `stats` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Dataset name in the log.
    pub dataset: String,
    /// The database.
    pub db: String,
    /// Tolerance options.
    pub tolerance: usize,
    /// `--ignore-edge-punct`.
    pub ignore_edge_punct: bool,
    /// Progress.
    pub progress: Progress,
    /// Disagreement among the sources as read.
    pub disagreement: DisagreementSummary,
    /// Krippendorff's alpha among the annotator sources (`reviewer:<NAME>`, Mu-SHROOM's
    /// annotators) over the records compared; `null` with fewer than two of them.
    pub alpha: Option<AlphaScores>,
    /// Per source, in order of first appearance.
    pub sources: Vec<SourceStats>,
    /// Per pair of sources.
    pub pairs: Vec<PairStats>,
    /// Upheld/dismissed per name named by a resolution or a source (also names no record
    /// carries, e.g. a judge of an earlier session).
    pub upheld: BTreeMap<String, JudgeCounts>,
    /// Stale decisions.
    pub stale: Vec<StaleNote>,
}

/// Run the subcommand.
///
/// # Errors
/// Files or database that cannot be opened (exit 2).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let files = if args.files.is_empty() {
        super::sample::files()?
    } else {
        args.files.clone()
    };
    let dataset = Dataset::open(&files, args.format)?;
    for p in &dataset.problems {
        eprintln!("{p}");
    }
    let name = args
        .db
        .dataset
        .clone()
        .unwrap_or_else(|| dataset.name.clone());
    let db = args.db.db_path();
    let store = Store::open_existing(&db)
        .with_context(|| "stats reads the decisions from the review database (pass --db)")?;
    let (judges, notes) = args.judges.load(&dataset, &name, Some(&store))?;
    judge_args::tell(&notes);
    let log = store.decisions(Some(&name))?;
    let report = compute(
        &dataset,
        &judges,
        &log,
        &args,
        &name,
        &crate::store::shown(&db),
    );
    for s in &report.stale {
        eprintln!(
            "stale: record {:?}: decision #{} ({} by {} at {}) was made on other content of the \
             record; not applied, not counted",
            s.record_id,
            s.id,
            s.action.name(),
            s.reviewer,
            s.time
        );
    }
    if report.progress.orphan_decisions > 0 {
        eprintln!(
            "warning: {} decision(s) name records the input does not have (not counted)",
            report.progress.orphan_decisions
        );
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let text = json!(report).to_string();
        writeln!(out, "{}", crate::model::escape::json(&text)).context("writing to stdout")?;
    } else {
        let table = table(&report);
        write!(out, "{}", crate::model::escape::lines(&table)).context("writing to stdout")?;
    }
    Ok(ExitCode::SUCCESS)
}

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

/// Compute the report (no printing).
fn compute(
    dataset: &Dataset,
    judges: &judges::Judges,
    log: &[Decision],
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
    let mut upheld: BTreeMap<String, JudgeCounts> = BTreeMap::new();
    let mut stale = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    // Records nobody decided on are only compared: read without their context (the bulk of a
    // line). A record with decisions is read in full, as replaying them needs its real hash.
    let reader = judges::skimmable(dataset).then(|| SpanReader::new(dataset));
    for i in 0..dataset.len() {
        progress.records += 1;
        let skimmed = reader
            .as_ref()
            .and_then(|r| r.record(i).ok())
            .filter(|r| !by_record.contains_key(r.id.as_str()));
        let mut rec = match skimmed.map_or_else(|| dataset.record(i), Ok) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{e}");
                progress.unreadable += 1;
                continue;
            }
        };
        judges.attach(&mut rec);
        seen.insert(rec.id.clone());
        let empty = Vec::new();
        let decisions = by_record.get(rec.id.as_str()).unwrap_or(&empty);
        let review = replay(&rec, decisions);
        count_progress(&mut progress, &review);
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
        let a = Arbitration::of(&rec, &options);
        let sc = a.score();
        dis.disputed_records += usize::from(sc.is_disputed());
        dis.clusters += sc.clusters;
        dis.disputed_clusters += sc.disputed_clusters;
        dis.judge_disputes += sc.judge_disputes;
        dis.unplaced_claims += sc.unplaced_claims;
        if matches!(review.outcome, RecordOutcome::Removed { .. })
            || (args.reviewed_only && !review.is_reviewed())
        {
            continue;
        }
        progress.compared += 1;
        let reviewed = review.kept_spans(&rec.output);
        let opinions = opinions(&rec, &a);
        let idx: Vec<usize> = opinions
            .iter()
            .map(|(n, role, _)| acc.index(n, *role))
            .collect();
        for (name, _, spans) in &opinions {
            let r = RecordAgreement::new(&rec.output, &reviewed, spans);
            acc.sources.entry(name.clone()).or_default().add(&r);
        }
        for x in 0..opinions.len() {
            for y in x + 1..opinions.len() {
                let (i, j) = (idx[x].min(idx[y]), idx[x].max(idx[y]));
                let (sa, sb) = if idx[x] < idx[y] {
                    (&opinions[x].2, &opinions[y].2)
                } else {
                    (&opinions[y].2, &opinions[x].2)
                };
                let r = RecordAgreement::new(&rec.output, sa, sb);
                acc.pairs.entry((i, j)).or_default().add(&r);
            }
        }
        let annotators: Vec<(&str, &[Span])> = opinions
            .iter()
            .filter(|(_, role, _)| *role == SourceRole::Annotator)
            .map(|(n, _, spans)| (n.as_str(), spans.as_slice()))
            .collect();
        acc.alpha
            .add_record(crate::model::offsets::char_len(&rec.output), &annotators);
    }
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
    let pairs = acc
        .pairs
        .iter()
        .map(|(&(i, j), ag)| PairStats {
            a: acc.names[i].0.clone(),
            b: acc.names[j].0.clone(),
            overall: ag.scores(),
        })
        .collect();
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
    }
}

fn count_progress(p: &mut Progress, review: &RecordReview) {
    p.reviewed += usize::from(review.is_reviewed());
    p.with_decisions += usize::from(review.applied.iter().any(|d| is_verdict_action(d.action)));
    p.flagged += usize::from(review.flagged);
    let outcome = match review.outcome {
        RecordOutcome::Open => "open",
        RecordOutcome::Clean => "clean",
        RecordOutcome::Removed { .. } => "removed",
    };
    *p.by_outcome.entry(outcome.to_owned()).or_default() += 1;
    p.stale_decisions += review.stale.len();
    p.stale_records += usize::from(!review.stale.is_empty());
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

/// The readable report.
fn table(r: &Report) -> String {
    let p = &r.progress;
    let mut s = String::new();
    let outcomes: Vec<String> = r
        .by_outcome_list()
        .iter()
        .map(|(k, v)| {
            // "open" is the outcome of every record neither reclassified nor removed,
            // reviewed or not: say so, not "open" (read as "still to review").
            let k = match k.as_str() {
                "open" => "kept (not reclassified)",
                "clean" => "reclassified clean",
                other => other,
            };
            format!("{k} {v}")
        })
        .collect();
    s.push_str(&format!(
        "dataset {} ({}): {} of {} records fully reviewed, {} with decisions; {}; {} flagged\n",
        r.dataset,
        r.db,
        p.reviewed,
        p.records,
        p.with_decisions,
        outcomes.join(", "),
        p.flagged
    ));
    if p.stale_decisions > 0 {
        s.push_str(&format!(
            "{} stale decision(s) on {} record(s): not applied, not counted\n",
            p.stale_decisions, p.stale_records
        ));
    }
    let d = &r.disagreement;
    s.push_str(&format!(
        "disagreement (tolerance {}{}): {} disputed record(s), {} of {} cluster(s) disputed, \
         {} judge verdict(s) against the gold, {} unplaced claim(s)\n\n",
        r.tolerance,
        if r.ignore_edge_punct {
            ", edge punctuation ignored"
        } else {
            ""
        },
        d.disputed_records,
        d.disputed_clusters,
        d.clusters,
        d.judge_disputes,
        d.unplaced_claims
    ));
    let rows: Vec<(String, &Scores, String)> = r
        .sources
        .iter()
        .map(|x| {
            let n = x.upheld + x.dismissed;
            let up = if n == 0 {
                "-".to_owned()
            } else {
                format!("upheld {} of {n} clusters", x.upheld)
            };
            (x.name.clone(), &x.overall, up)
        })
        .collect();
    s.push_str(&block(
        &format!("vs reviewed ({} records)", p.compared),
        &rows,
        true,
    ));
    if !r.pairs.is_empty() {
        let rows: Vec<(String, &Scores, String)> = r
            .pairs
            .iter()
            .map(|x| (format!("{} vs {}", x.a, x.b), &x.overall, String::new()))
            .collect();
        s.push('\n');
        s.push_str(&block("pairs (A is the reference)", &rows, false));
    }
    if let Some(a) = &r.alpha {
        s.push_str(&format!(
            "\nKrippendorff's alpha among {} annotators over {} characters of {} records: \
             label-blind {}, label-aware {}\n",
            a.coders.len(),
            a.units,
            a.records,
            super::score4(a.blind),
            super::score4(a.labeled)
        ));
    }
    let others: Vec<_> = r
        .upheld
        .iter()
        .filter(|(n, _)| !r.sources.iter().any(|x| &x.name == *n))
        .filter(|(_, j)| j.upheld + j.dismissed > 0)
        .collect();
    if !others.is_empty() {
        s.push_str("\nalso named by resolutions:\n");
        for (n, j) in others {
            s.push_str(&format!(
                "  {n}: upheld {} of {} clusters\n",
                j.upheld,
                j.upheld + j.dismissed
            ));
        }
    }
    s.push_str(
        "\nchar: code points covered by any span; ex: a record is positive when a span covers \
         a character;\nIoU: mean over the n records where either side marks something; kappa: \
         over every character (- when undefined);\nlbl: label-aware, a character agrees only \
         where both give it the same labels;\nupheld: disputed clusters (and judge \
         claims) whose resolution upheld the source, of those whose resolution named it: one \
         vote per source per cluster\n(however many spans it settled into; --json adds the \
         per-span counts, one per resolve decision)\n",
    );
    s
}

impl Report {
    fn by_outcome_list(&self) -> Vec<(String, usize)> {
        ["open", "clean", "removed"]
            .iter()
            .map(|k| {
                (
                    (*k).to_owned(),
                    self.progress.by_outcome.get(*k).copied().unwrap_or(0),
                )
            })
            .collect()
    }
}

/// One table: a row per entry.
fn block(title: &str, rows: &[(String, &Scores, String)], with_upheld: bool) -> String {
    let width = rows
        .iter()
        .map(|(l, _, _)| l.width())
        .chain(std::iter::once(title.width()))
        .max()
        .unwrap_or(0);
    let mut s = String::new();
    s.push_str(title);
    s.push_str(&" ".repeat(width.saturating_sub(title.width())));
    s.push_str(&format!(
        " {:>7} {:>6} {:>6} {:>6} │ {:>6} │ {:>6} {:>5} │ {:>6} │ {:>6} {:>6}",
        "records", "P", "R", "F1", "ex F1", "IoU", "n", "kappa", "lbl F1", "kappa"
    ));
    if with_upheld {
        s.push_str(" │ arbitration");
    }
    s.push('\n');
    for (label, sc, up) in rows {
        let c = sc.char_level;
        s.push_str(label);
        s.push_str(&" ".repeat(width.saturating_sub(label.width())));
        s.push_str(&format!(
            " {:>7} {:>6.4} {:>6.4} {:>6.4} │ {:>6.4} │ {:>6} {:>5} │ {:>6} │ {:>6.4} {:>6}",
            sc.records,
            c.precision,
            c.recall,
            c.f1,
            sc.example_level.f1,
            super::score4(sc.mean_iou),
            sc.iou_records,
            super::score4(sc.kappa),
            sc.char_level_labeled.f1,
            super::score4(sc.kappa_labeled)
        ));
        if with_upheld {
            s.push_str(&format!(" │ {up}"));
        }
        s.push('\n');
    }
    s
}
