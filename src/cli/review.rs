//! `spanreview review`: open records in the review screen.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::db_args::DbArgs;
use super::judge_args::{self, JudgeArgs};
use super::to_stderr;
use crate::formats::index::Lazy;
use crate::formats::{Dataset, Format};
use crate::model::escape;
use crate::review::decision::Decision;
use crate::review::disagreement::{Among, Options};
use crate::store::{Assignment, Store};
use crate::tui::app::{App, Opening, PlanAtOpen};
use crate::tui::clustering::ArbConfig;
use crate::tui::config::Config;
use crate::tui::queue::QueueKind;
use crate::tui::team_model::LiveSources;
use crate::tui::theme::{ColorChoice, Depth, Theme};
use crate::tui::{labels, terminal};

/// Arguments of `spanreview review`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("dataset", |a| a.help(
    "Dataset name in the log [default: the leading file's stem]. Two files with the same stem \
     (`train/records.jsonl`, `test/records.jsonl`) otherwise share their decisions"
)))]
pub struct Args {
    /// Input files: a records file, optionally with prediction files joined by id (`-`:
    /// standard input; none: the bundled sample, written into the user data folder). A dataset
    /// folder (a Hub download, README.md card) is read as the file of its --config and --split.
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
    /// The database and the dataset in it.
    #[command(flatten)]
    pub db: DbArgs,
    /// Add spanreview's tables to the --db file even when it is another program's SQLite
    /// database (refused otherwise; the file is switched to WAL mode).
    #[arg(long)]
    pub db_init: bool,
    /// Reviewer name recorded with each decision (default: $USER).
    #[arg(long, value_name = "NAME")]
    pub reviewer: Option<String>,
    /// Which records: mine (the records the dataset's assignment plan gives --reviewer that they
    /// have not reviewed; the default when the plan gives them any), unreviewed (the default
    /// otherwise), all, flagged, disputed (where the sources disagree, most disputed first, on
    /// the arbitration screen), type:T (a corruption type), label:L (a span of label L from any
    /// source), source:NAME (source NAME has a span), base:ID (the variants of base ID:
    /// meta.base_id, else the id before its last __), confidence:LO-HI (a span whose confidence
    /// is in [LO, HI]; spans without one are in no range), reviewer:NAME (records NAME decided
    /// on) or outcome:open|clean|removed (the stored outcome; open = decided on and kept, not
    /// untouched).
    #[arg(long, value_parser = clap::value_parser!(String))]
    pub queue: Option<String>,
    /// Read every file in this format instead of detecting it.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Label set for the pickers: a taxonomy TOML file as `validate --labels` takes
    /// (`assets/labels/*.toml`), a built-in one (`toolace`, `lettucedetect`), or one label per
    /// line, `category/subcategory` for taxonomies.
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
    /// Reason codes for the drop, remove and flag prompts (a number or the code's letters, then
    /// an optional note), shown with their descriptions where a decision is shown; overrides
    /// `rubric` in the config file.
    #[arg(long, value_name = "FILE.toml")]
    pub rubric: Option<PathBuf>,
    /// Record records where every source agrees as accepted (an `accept_all` with reason
    /// "auto: unanimous", undoable), in the background.
    #[arg(long)]
    pub auto_accept_unanimous: bool,
    /// Blind: on the arbitration screen show sources as A, B, C in a per-record shuffled
    /// order, names hidden until the record's clusters are resolved; on the review screen hide
    /// the other reviewers' decisions, results and lanes on a record (own decisions shown)
    /// until you have decided it.
    #[arg(long)]
    pub blind: bool,
    /// Show the other reviewers' work on overlap records (those the plan gives you and
    /// another) before you have decided them; they are blind by default.
    #[arg(long)]
    pub see_others: bool,
    /// Arbitration: only these sources count as disputing (comma list of source names,
    /// `NAME*` globs: `reviewer:*,llm`), for the disputed queue and which clusters need a
    /// resolution; the others stay lanes and evidence [default: the gold, reviewers,
    /// annotators and judges, not detectors; every source when there are only detectors].
    #[arg(long, value_name = "SPEC", value_parser = parse_among)]
    pub dispute_among: Option<Among>,
    /// Spot check: a queue of N records chosen uniformly at random (the same for the same
    /// `--seed` and file), in file order; the header says `queue sample`. Instead of `--queue`.
    #[arg(long, value_name = "N", conflicts_with = "queue",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: Option<u64>,
    /// The seed of `--sample`.
    #[arg(long, value_name = "S", default_value_t = 0, requires = "sample")]
    pub seed: u64,
    /// `--judge NAME=FILE` sources, `--tolerance`, `--ignore-edge-punct`.
    #[command(flatten)]
    pub judges: JudgeArgs,
    /// The rubber-stamp alarm's time rule: the header warns when your median time per record
    /// is under this many seconds (as `stats` does).
    #[arg(long, value_name = "S", default_value_t = crate::review::second_pass::DEFAULT_MIN_SECONDS)]
    pub min_seconds: f64,
}

impl Args {
    /// The arbitration settings these flags ask for.
    #[must_use]
    pub fn arb_config(&self) -> ArbConfig {
        ArbConfig {
            options: self.judges.options(),
            blind: self.blind,
            auto_accept: self.auto_accept_unanimous,
            among: self.dispute_among.clone().unwrap_or_default(),
            see_others: self.see_others,
            ..ArbConfig::default()
        }
    }
}

/// `--dispute-among SPEC` ([`Among::parse`]).
fn parse_among(spec: &str) -> Result<Among, String> {
    Among::parse(spec)
}

/// The bundled sample as it is in the source tree's `data/` (tests read it there; the binary
/// reads the copy embedded in it, [`super::sample::files`]).
#[must_use]
pub fn sample_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    super::sample::FILES
        .iter()
        .map(|(rel, _)| root.join(rel))
        .collect()
}

/// The reviewer name: `--reviewer`, else `$USER`, else "reviewer".
#[must_use]
pub fn reviewer(given: Option<String>) -> String {
    given
        .filter(|s| !s.trim().is_empty())
        .or_else(|| std::env::var("USER").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "reviewer".to_owned())
}

/// The environment variable naming the log file.
pub const LOG_ENV: &str = "SPANREVIEW_LOG";

/// Log to `$SPANREVIEW_LOG`, else `review.log` in the user state folder
/// (`$XDG_STATE_HOME/spanreview`, `~/.local/state/spanreview`; the data folder where the
/// platform has no state folder), never to the terminal, which the screen owns. Logging is best
/// effort: a file that cannot be opened means no log, said once on stderr.
fn init_logging() -> Option<PathBuf> {
    let path = std::env::var_os(LOG_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            directories::ProjectDirs::from("", "", "spanreview").map(|d| {
                d.state_dir()
                    .unwrap_or_else(|| d.data_dir())
                    .join("review.log")
            })
        })?;
    let file = match super::log::open(&path) {
        Ok(f) => f,
        Err(why) => {
            // Before the screen takes the terminal: seen, not lost behind it.
            to_stderr!("warning: {why}");
            return None;
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(super::log::Escaping(file)))
        .with_ansi(false)
        .try_init()
        .ok()?;
    Some(path)
}

/// True when `log` holds decisions by more than one reviewer.
fn several_reviewers(log: &[Decision]) -> bool {
    log.iter().any(|d| d.reviewer != log[0].reviewer)
}

/// The queue when `--queue` is not given: `mine` when the dataset's plan gives `reviewer`
/// records, else `unreviewed` (saying so on stderr when there is a plan without them).
fn default_queue(plan: Option<&[Assignment]>, reviewer: &str, dataset: &str) -> QueueKind {
    let Some(plan) = plan else {
        return QueueKind::Unreviewed;
    };
    // The share the `mine` queue would serve (the screen's own reading of the plan).
    if !crate::tui::team_model::PlanView::new(plan, reviewer)
        .mine
        .is_empty()
    {
        return QueueKind::Mine;
    }
    to_stderr!(
        "note: the assignment plan of dataset {dataset:?} gives no records to reviewer \
         {reviewer:?}; reviewing the unreviewed queue"
    );
    QueueKind::Unreviewed
}

/// The reviewer sources as `--judge`-less arbitration computes them at start
/// ([`judge_args::reviewers`]), for the screen to refresh them as the team decides.
#[must_use]
pub fn live_reviewer_sources(options: Options) -> LiveSources {
    Box::new(move |log, dataset| {
        let r = judge_args::reviewers(log, dataset, &options);
        (r.sources, r.agreed)
    })
}

/// Run the subcommand.
///
/// # Errors
/// Unreadable files, a bad queue, config or label file, a database that cannot be opened, or
/// no terminal.
pub fn run(args: Args, color: ColorChoice) -> anyhow::Result<ExitCode> {
    let queue: Option<QueueKind> = match args.sample {
        Some(n) => Some(QueueKind::Sample {
            n: usize::try_from(n).unwrap_or(usize::MAX),
            seed: args.seed,
        }),
        None => args
            .queue
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(anyhow::Error::msg)?,
    };
    let reviewer = reviewer(args.reviewer.clone());
    let arb = args.arb_config();
    let files = if args.files.is_empty() {
        super::sample::files()?
    } else {
        args.files
    };
    let mut config = Config::load().map_err(anyhow::Error::msg)?;
    if let Some(r) = &args.rubric {
        config.rubric = Some(crate::formats::rubric::read(r)?);
    }
    config
        .theme
        .set_color(color, Theme::no_color_env(), Depth::from_env());
    // crossterm drops every colour escape under NO_COLOR by itself: `always` overrides it.
    if color == ColorChoice::Always {
        ratatui::crossterm::style::Colored::set_ansi_color_disabled(false);
    }
    let labels = args
        .labels
        .as_deref()
        .map(labels::read_file)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    // A single large file shows its first record at once and is indexed in the background.
    let mut dataset = Dataset::open_lazy(&files, args.format, Lazy::default())?;
    dataset.name = args.db.dataset_name(&dataset);
    dataset.limit_size(crate::tui::SHOW_LIMIT);
    if !std::io::stdout().is_terminal() {
        anyhow::bail!(
            "`review` needs a terminal (stdout is not one); to read the decisions, use \
             `spanreview decisions`"
        );
    }
    let db = args.db.db_path();
    let store = if args.db_init {
        Store::open_init(&db)
    } else {
        Store::open(&db)
    };
    let store =
        std::rc::Rc::new(store.with_context(|| format!("opening {}", crate::store::shown(&db)))?);
    // A key's save waits briefly for another process's write lock (a long apply), then is
    // kept and retried with "waiting for the database" on the status line: never frozen.
    store.set_write_wait(crate::tui::log::SCREEN_WRITE_WAIT)?;
    super::db_args::tell_set_aside(&store);
    let plan = store.plan(&dataset.name)?;
    let queue = queue.unwrap_or_else(|| default_queue(plan.as_deref(), &reviewer, &dataset.name));
    let mut arb = arb;
    // Read once: it tells whether several reviewers share the dataset, and gives their sources.
    let decisions = store.decisions(Some(&dataset.name))?;
    // `--judge` sources and several reviewers' decisions are matched to every record by id; a
    // sample is drawn from the dataset's size.
    if !dataset.indexed()
        && (matches!(queue, QueueKind::Sample { .. })
            || plan.is_some()
            || !args.judges.judges.is_empty()
            || several_reviewers(&decisions))
    {
        dataset.finish_index()?;
    }
    // `--judge` sources, and the database's reviewers when it holds several.
    let (judges, notes) = args
        .judges
        .load_with_log(&dataset, &dataset.name, &store, &decisions)?;
    let alarm = super::review_alarm::warnings(&dataset, &decisions, &reviewer, args.min_seconds);
    drop(decisions);
    let judges = judges.for_arbitration();
    judge_args::tell(&notes);
    if !judges.is_empty() {
        arb.judges = Some(std::sync::Arc::new(judges));
    }
    let log = init_logging();
    tracing::info!(
        dataset = %dataset.name,
        records = dataset.len(),
        db = %crate::store::shown(&db),
        queue = %queue,
        "review opened"
    );
    // The ids of every record, saved beside the index for `export` (which then reads only the
    // records with decisions); a background thread, done in about a second per 1.5 GB.
    // (A file still being indexed gets them saved by its indexer once it is complete.)
    if dataset.indexed() {
        drop(crate::formats::dataset::save_ids_in_background(
            dataset.primary().path(),
            dataset.primary().format,
        ));
    }
    let opening = Opening {
        queue,
        config,
        labels,
        arb,
        plan: PlanAtOpen::Read(plan),
    };
    let mut app = App::open(
        dataset,
        Box::new(std::rc::Rc::clone(&store)),
        &reviewer,
        opening,
    )
    .map_err(anyhow::Error::msg)?;
    app.set_live_sources(live_reviewer_sources(args.judges.options()));
    app.set_alarm(alarm);
    let ran = terminal::run(&mut app).context("the terminal failed");
    app.release_claims();
    // Decisions the database never took (unreachable until quit): into a rescue file for
    // `apply`, named, before anything else is said.
    if app.has_unsaved() {
        let rows = app.unsaved_rows();
        let shown_db = crate::store::shown(&db);
        let file = super::review_unsaved::write(&rows, store.now())
            .map_err(|e| anyhow::anyhow!("{} decision(s) were NOT saved and could not be written to a rescue file either: {e}", rows.len()))?;
        let file = escape::line(&file.display().to_string()).into_owned();
        let records: Vec<String> = files
            .iter()
            .map(|f| escape::line(&f.display().to_string()).into_owned())
            .collect();
        to_stderr!(
            "{}",
            crate::tui::strings::unsaved_rescued(
                rows.len(),
                &file,
                &records.join(" "),
                &escape::line(&shown_db)
            )
        );
        ran?;
        return Ok(ExitCode::from(1));
    }
    ran?;
    let (done, n, _) = app.progress();
    tracing::info!(done, n, "review closed");
    // The file was deleted or replaced during the review: say where the decisions went
    // instead of naming a file that does not hold them.
    if let Err(e) = store.check_in_place() {
        to_stderr!("{done}/{n} reviewed in queue {}; {e}", app.queue.kind);
        return Ok(ExitCode::from(1));
    }
    let db = crate::store::shown(&db);
    let mut summary = format!(
        "{done}/{n} reviewed in queue {}; decisions are in {}\n",
        app.queue.kind,
        escape::line(&db)
    );
    if let Some(p) = log {
        summary += &format!("log: {}\n", escape::line(&p.display().to_string()));
    }
    // As every report: a terminal gone by now is said (exit 2), never a panic.
    super::write_stdout(summary.as_bytes())
}
