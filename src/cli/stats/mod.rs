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
//!
//! **Team** ([`crate::review::team`]): on the records two or more reviewers of the database
//! decided on, each pair's and the team's label-aware agreement (character F1, kappa,
//! Krippendorff's alpha), each reviewer's result replayed from their own decisions, and the
//! records where they disagree with every reviewer's spans. The pairs table's row of two
//! reviewers is their team pair, not a comparison over the records compared: one agreement. `--by-reviewer` adds each
//! reviewer's progress against `spanreview assign`'s plan and their pace.

mod compute;
mod csv;
mod table;
mod team;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use super::db_args::DbArgs;
use super::judge_args::{self, JudgeArgs};
use super::to_stderr;
use crate::formats::{Dataset, Format};
use crate::model::SourceRole;
use crate::review::alpha::AlphaScores;
use crate::review::decision::ActionKind;
use crate::review::metrics::Scores;
use crate::review::outcome::JudgeCounts;
use crate::review::team::{Pace, TeamAgreement};
use crate::store::Store;
use anyhow::Context;
use serde::Serialize;
use serde_json::json;

/// Arguments of `spanreview stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Records and prediction files joined by `id` [default: the bundled sample].
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
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
    /// Add each reviewer's progress: records assigned (by `spanreview assign`'s plan; `-`
    /// without one), done, left, records per hour of work, time left at that rate.
    #[arg(long)]
    pub by_reviewer: bool,
    /// Add the decisions in force per reason code, each code described by this rubric (also
    /// `reasons` in --json).
    #[arg(long, value_name = "FILE.toml")]
    pub rubric: Option<PathBuf>,
    /// The rubber-stamp alarm's time rule: warn about a reviewer whose median time per record
    /// is under this many seconds.
    #[arg(long, value_name = "S", default_value_t = crate::review::second_pass::DEFAULT_MIN_SECONDS)]
    pub min_seconds: f64,
    /// Write the tables as CSV instead of printing them: PATH ending in .csv (or `-`) is one
    /// file `table,row,column,value` (a line per cell); any other PATH a folder of one file
    /// per table (progress, sources, pairs, upheld, team, reviewers, reasons.csv).
    #[arg(long, value_name = "DIR_OR_FILE", conflicts_with = "json")]
    pub csv: Option<PathBuf>,
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
    /// Decisions in force that take a reason code, by action and code.
    #[serde(skip)]
    pub by_reason: crate::review::rubric::ReasonCounts,
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
    /// Agreement among the database's reviewers on the records two or more of them decided on
    /// (label-aware char F1, kappa, alpha per pair and for the team) and their disagreements;
    /// `null` when no record has two reviewers' decisions.
    pub team: Option<TeamAgreement>,
    /// With `--by-reviewer`: each reviewer's progress and pace.
    pub by_reviewer: Option<Vec<Pace>>,
    /// With `--rubric`: the decisions in force per reason code, by action, each code with its
    /// description (`null` for a code the rubric lacks; a `null` code counts the decisions
    /// whose reason has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<crate::review::rubric::ReasonRow>>,
    /// Per reviewer, agreement with the first pass on the records they decided after someone
    /// else, and median time per record, with the rubber-stamp alarm's verdicts
    /// ([`crate::review::second_pass`]).
    pub first_pass: Vec<crate::review::second_pass::FirstPassAgreement>,
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
    let rubric = args
        .rubric
        .as_deref()
        .map(crate::formats::rubric::read)
        .transpose()?;
    let dataset = Dataset::open(&files, args.format)?;
    for p in &dataset.problems {
        to_stderr!("{p}");
    }
    let name = args.db.dataset_name(&dataset);
    let db = args.db.db_path();
    let store = Store::open_existing(&db)
        .with_context(|| "stats reads the decisions from the review database (pass --db)")?;
    let log = store.decisions(Some(&name))?;
    // The reviewers' opinions make both their sources and the team figures: replayed once.
    let mut reviewers = judge_args::reviewers(&log, &dataset, &args.judges.options());
    let opinions = std::mem::take(&mut reviewers.opinions);
    let (judges, notes) = args
        .judges
        .load_with_reviewers(&dataset, &name, &store, reviewers)?;
    judge_args::tell(&notes);
    let mut report = compute::compute(
        &dataset,
        &judges,
        &log,
        &opinions,
        &args,
        &name,
        &crate::store::shown(&db),
    );
    if let Some(r) = &rubric {
        report.reasons = Some(crate::review::rubric::reason_rows(
            r,
            &report.progress.by_reason,
        ));
    }
    if args.by_reviewer {
        let plan = store.plan(&name)?;
        report.by_reviewer = Some(team::paces(&log, plan.as_deref()));
    }
    for s in &report.stale {
        to_stderr!(
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
        to_stderr!(
            "warning: {} decision(s) name records the input does not have (not counted)",
            report.progress.orphan_decisions
        );
    }
    let alarms: Vec<String> = report
        .first_pass
        .iter()
        .flat_map(|f| f.warnings(args.min_seconds))
        .collect();
    for w in &alarms {
        to_stderr!("warning: {w}");
    }
    if let Some(path) = &args.csv {
        let what = csv::write(&report, path)?;
        to_stderr!("wrote {what}");
        return Ok(ExitCode::SUCCESS);
    }
    let out = if args.json {
        let text = json!(report).to_string();
        format!("{}\n", crate::model::escape::json(&text))
    } else {
        let mut table = table::table(&report);
        if let Some(t) = &report.team {
            table.push_str(&team::team_table(t));
        }
        if let Some(p) = &report.by_reviewer {
            table.push_str(&team::pace_table(p));
        }
        table.push_str(&team::first_pass_table(&report.first_pass, &alarms));
        if let Some(r) = &report.reasons {
            table.push_str(&table::reasons_table(r));
        }
        crate::model::escape::lines(&table).into_owned()
    };
    // A reader that stops early (`| head`) is no error; a full disk says standard output.
    crate::cli::write_stdout(out.as_bytes())
}
