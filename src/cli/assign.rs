//! `spanreview assign`: split a dataset's records among reviewers and store the plan in the
//! database; `assign --show` prints the standing plan.
//!
//! The plan is [`crate::review::assign::plan`]'s: every record to one reviewer, a share
//! `--overlap` of them (spread over corruption types) to `--overlap-k`; a base's variants
//! (`meta.base_id`) together; loads balanced. Run again with a new `--reviewers` (someone
//! leaves, someone joins) it moves only records nobody has decided on: a record keeps every
//! reviewer with a decision in force on it. Each run that changes the plan saves a new
//! generation; the one it replaced stays in the database.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::Value;

use super::db_args::DbArgs;
use super::to_stderr;
use crate::formats::{Dataset, Format};
use crate::model::escape;
use crate::model::width::{self as text, pad};
use crate::review::assign::{self, Assigned, Item, Options};
use crate::review::team::{decided_by, Arbiter};
use crate::store::Store;

/// Arguments of `spanreview assign`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The records to assign (joined files: the leading one's records).
    #[arg(value_name = "FILE", required_unless_present = "show")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
    /// The team, comma-separated (ana,bo,cy).
    #[arg(
        long,
        value_name = "A,B,...",
        value_delimiter = ',',
        required_unless_present = "show",
        conflicts_with = "show"
    )]
    pub reviewers: Vec<String>,
    /// Share of the records (0 to 1) reviewed by several reviewers, to measure agreement.
    #[arg(
        long,
        value_name = "SHARE",
        default_value_t = 0.0,
        conflicts_with = "show"
    )]
    pub overlap: f64,
    /// Reviewers of each overlap record.
    #[arg(long, value_name = "K", default_value_t = 2, conflicts_with = "show")]
    pub overlap_k: usize,
    /// Seed of the shuffles: the same seed, records and team give the same plan.
    #[arg(long, value_name = "N", default_value_t = 0, conflicts_with = "show")]
    pub seed: u64,
    /// The database and the dataset in it.
    #[command(flatten)]
    pub db: DbArgs,
    /// Print the plan as one JSON object per record, `{"record_id": ..., "reviewers": [...]}`,
    /// instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Print the standing plan instead of making one.
    #[arg(long)]
    pub show: bool,
    /// Read every FILE in this format instead of detecting it.
    #[arg(long, value_enum, value_name = "F")]
    pub format: Option<Format>,
}

/// Run the subcommand.
///
/// # Errors
/// Unusable team or options, files or database that cannot be read or written (exit 2).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.show {
        return show(&args);
    }
    let opts = Options {
        overlap: args.overlap,
        k: args.overlap_k,
        seed: args.seed,
    };
    assign::check(&args.reviewers, &opts)?;
    let dataset = Dataset::open(&args.files, args.format)?;
    for p in &dataset.problems {
        to_stderr!("{p}");
    }
    let name = args.db.dataset_name(&dataset);
    let (items, left_out) = items(&dataset);
    let db = args.db.db_path();
    let store = Store::open(&db)?;
    super::db_args::tell_set_aside(&store);
    let previous: Vec<Assigned> = store.plan(&name)?.unwrap_or_default();
    let log = store.decisions(Some(&name))?;
    let arbiter = Arbiter::of(&log);
    let decided = decided_by(&log, |d| arbiter.made(d));
    let plan = assign::plan(&items, &args.reviewers, &opts, &previous, &decided)?;
    let before: HashMap<&str, &Vec<String>> = previous
        .iter()
        .map(|a| (a.record_id.as_str(), &a.reviewers))
        .collect();
    let moved = plan
        .iter()
        .filter(|a| before.get(a.record_id.as_str()) != Some(&&a.reviewers))
        .count();
    let note = if !previous.is_empty() && moved == 0 && plan.len() == previous.len() {
        format!("plan of dataset {name} unchanged; nothing saved")
    } else {
        let generation = store.save_plan(&name, &plan)?;
        let kept = plan
            .iter()
            .filter(|a| decided.contains_key(&a.record_id))
            .count();
        let mut s = format!(
            "plan generation {generation} of dataset {name} saved in {}",
            crate::store::shown(&db)
        );
        if !previous.is_empty() {
            let _ = write!(
                s,
                "; {moved} record(s) placed anew, {kept} decided record(s) kept with their \
                 reviewers"
            );
        }
        s
    };
    let written = if args.json {
        to_stderr!("{note}");
        super::write_stdout(json_lines(&plan).as_bytes())?
    } else {
        let mut out = format!("{}\n", escape::line(&note));
        out.push_str(&summary(&plan, &decided, Some(&args.reviewers)));
        super::write_stdout(out.as_bytes())?
    };
    if left_out > 0 {
        to_stderr!("{left_out} line(s) without a readable id were left out of the plan (listed)");
        return Ok(ExitCode::from(1));
    }
    Ok(written)
}

/// `--show`: the standing plan.
fn show(args: &Args) -> anyhow::Result<ExitCode> {
    let name = match (&args.db.dataset, args.files.is_empty()) {
        (Some(n), _) => n.clone(),
        (None, false) => Dataset::open(&args.files, args.format)?.name,
        (None, true) => anyhow::bail!("name the dataset: give FILE or --dataset"),
    };
    let db = args.db.db_path();
    let store = Store::open_existing(&db)?;
    let plan: Vec<Assigned> = store.plan(&name)?.with_context(|| {
        format!(
            "{} holds no plan for dataset {name:?}: make one with `spanreview assign FILE \
             --reviewers A,B`",
            crate::store::shown(&db)
        )
    })?;
    if args.json {
        return super::write_stdout(json_lines(&plan).as_bytes());
    }
    let log = store.decisions(Some(&name))?;
    let arbiter = Arbiter::of(&log);
    let decided = decided_by(&log, |d| arbiter.made(d));
    let head = format!("plan of dataset {name} in {}", crate::store::shown(&db));
    let out = format!(
        "{}\n{}",
        escape::line(&head),
        summary(&plan, &decided, None)
    );
    super::write_stdout(out.as_bytes())
}

/// The records as the planner sees them, in file order; an unreadable record is planned by
/// its id when that can be read (its reviewer will see the error), else left out with a
/// warning. Also the number left out.
fn items(dataset: &Dataset) -> (Vec<Item>, usize) {
    let primary = dataset.primary();
    let mut out = Vec::with_capacity(primary.len());
    let mut left_out = 0;
    let mut first: HashMap<String, u32> = HashMap::new();
    for i in 0..primary.len() {
        let item = match primary.record(i) {
            Ok(r) => {
                let base = r
                    .meta()
                    .and_then(|m| m.get("base_id"))
                    .and_then(Value::as_str)
                    .map_or_else(|| r.id.clone(), str::to_owned);
                Item {
                    id: r.id,
                    base,
                    kind: r.corruption_type,
                }
            }
            Err(e) => match primary.id(i) {
                Ok(id) => {
                    to_stderr!("{e} (assigned by its id, as a base of its own)");
                    Item {
                        base: id.clone(),
                        id,
                        kind: None,
                    }
                }
                Err(_) => {
                    to_stderr!("{e} (no id: not assigned)");
                    left_out += 1;
                    continue;
                }
            },
        };
        let line = primary.line(i);
        if let Some(at) = first.get(&item.id) {
            to_stderr!(
                "{}:{line}: record id {:?} was seen on line {at}; assigned once",
                primary.path().display(),
                item.id
            );
            continue;
        }
        first.insert(item.id.clone(), line);
        out.push(item);
    }
    (out, left_out)
}

/// One JSON object per record.
fn json_lines(plan: &[Assigned]) -> String {
    let mut s = String::new();
    for a in plan {
        let v = serde_json::json!({"record_id": a.record_id, "reviewers": a.reviewers});
        s.push_str(&escape::json(&v.to_string()));
        s.push('\n');
    }
    s
}

/// Per reviewer: records assigned, of them overlap records, of them decided. `team` orders
/// the rows (others after it, by name). Names are escaped cell by cell (a newline in one
/// cannot start a row of its own).
fn summary(
    plan: &[Assigned],
    decided: &HashMap<String, BTreeSet<String>>,
    team: Option<&[String]>,
) -> String {
    #[derive(Default)]
    struct Row {
        assigned: usize,
        overlap: usize,
        decided: usize,
    }
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for t in team.unwrap_or_default() {
        rows.entry(t).or_default();
    }
    for a in plan {
        for r in &a.reviewers {
            let row = rows.entry(r).or_default();
            row.assigned += 1;
            row.overlap += usize::from(a.reviewers.len() >= 2);
            row.decided += usize::from(decided.get(&a.record_id).is_some_and(|d| d.contains(r)));
        }
    }
    let order = |r: &str| {
        team.and_then(|t| t.iter().position(|x| x == r))
            .unwrap_or(usize::MAX)
    };
    let mut names: Vec<&str> = rows.keys().copied().collect();
    names.sort_by_key(|r| (order(r), *r));
    let overlap = plan.iter().filter(|a| a.reviewers.len() >= 2).count();
    let width = names
        .iter()
        .map(|n| text::width(n))
        .chain([text::width("reviewer")])
        .max()
        .unwrap_or(0);
    let mut s = format!(
        "{} records, {overlap} of them overlap (reviewed by several)\n",
        plan.len()
    );
    let _ = writeln!(
        s,
        "{} {:>8} {:>8} {:>8}",
        pad("reviewer", width),
        "assigned",
        "overlap",
        "decided"
    );
    for n in names {
        let r = &rows[n];
        let _ = writeln!(
            s,
            "{} {:>8} {:>8} {:>8}",
            pad(&escape::line(n), width),
            r.assigned,
            r.overlap,
            r.decided
        );
    }
    s
}
