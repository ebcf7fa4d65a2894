//! `spanreview export`: its flags, and their mapping to [`ExportOptions`]; the export itself
//! is the [`crate::export`] layer's (what it writes and the rules it follows are told there).

use std::path::PathBuf;
use std::process::ExitCode;

use super::db_args::DbArgs;
use super::judge_args::JudgeArgs;
use crate::export::{export, ExportOptions};
use crate::formats::Format;

/// Arguments of `spanreview export`.
#[derive(Debug, Clone, clap::Args)]
#[allow(clippy::struct_excessive_bools)]
pub struct Args {
    /// Records (and prediction files joined by `id`); the first file with answer text is
    /// exported, in its own format.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// A dataset folder's `--config` and `--split`.
    #[command(flatten)]
    pub hub: crate::cli::hub_args::HubArgs,
    /// Judge sources (`--judge NAME=FILE`, shared with compare and stats). Export reads
    /// resolutions from the log, so the files are only checked and protected (and, with
    /// --contested, read for their sides and verdicts); each NAME is listed in the report's
    /// per-judge table even when no resolution names it.
    #[command(flatten)]
    pub judges: JudgeArgs,
    /// The database and the dataset in it.
    #[command(flatten)]
    pub db: DbArgs,
    /// Where to write the records (with --split-by: the stem and extension of the files). `-`
    /// is standard output; a FIFO or device is written as a stream, never replaced. A parquet
    /// input to a .parquet PATH is written as parquet with the input's schema. A dataset folder
    /// to a folder (PATH/ or an existing folder): every shard of the config (and --split) into
    /// PATH under its own relative path, and the card README.md without its dataset_info.
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Write one JSON object per record with decisions: outcomes (kept, tightened, widened,
    /// shifted, relabeled, dropped, added, ...), labels before and after, upheld and dismissed
    /// sources, reviewers, time, notes and every decision's reason; every key on every line.
    #[arg(long, value_name = "PATH")]
    pub verdicts: Option<PathBuf>,
    /// Write the Markdown review report.
    #[arg(long, value_name = "PATH.md")]
    pub report: Option<PathBuf>,
    /// Write one JSON object per disputed cluster (or judge claim) arbitration settled: record
    /// id, cluster range and text, every source's spans there (the records file's, --judge
    /// files', reviewer:NAME), the judges' verdicts and reasoning, the resolution in force
    /// (spans kept or none, label, arbiter, time, reason code, note) and the resolutions it
    /// superseded, with their times; every key on every line.
    #[arg(long, value_name = "PATH.jsonl")]
    pub contested: Option<PathBuf>,
    /// The report's rubber-stamp alarm: warn about a reviewer whose median time per record is
    /// under this many seconds.
    #[arg(long, value_name = "S", default_value_t = crate::review::second_pass::DEFAULT_MIN_SECONDS)]
    pub min_seconds: f64,
    /// Write the types of every field of the exported records as a `datasets` Features
    /// dictionary (JSON), so that the record files load together whatever their order:
    /// `load_dataset("json", data_files=..., features=Features.from_dict(json.load(...)))`.
    #[arg(long, value_name = "PATH.json")]
    pub features: Option<PathBuf>,
    /// Write the types of every field of the --verdicts line as a `datasets` Features
    /// dictionary (JSON), so that verdict files of several exports load together whatever
    /// their order (a file whose notes are all `[]` first, say).
    #[arg(long, value_name = "PATH.json", requires = "verdicts")]
    pub verdicts_features: Option<PathBuf>,
    /// Drop labels whose type is not the record's corruption_type (the published rule); they
    /// are counted in the report.
    #[arg(long)]
    pub strict: bool,
    /// Write one file per value of this field (dotted path, e.g. meta.corruption_type):
    /// <out-stem>.<value>.<out-ext>.
    #[arg(long, value_name = "FIELD")]
    pub split_by: Option<String>,
    /// With --split-by: write clean records into every other value's file.
    #[arg(long, requires = "split_by")]
    pub clean_in_all: bool,
    /// Keep removed records, marked with meta.review.removed = "<reason>".
    #[arg(long)]
    pub keep_removed: bool,
    /// Leave out records with no verdict in force (accept, drop, adjust, relabel, add, clean,
    /// remove, resolve; a flag or a note alone is none).
    #[arg(long)]
    pub reviewed_only: bool,
    /// Export even when some decisions are stale (they are listed and not applied).
    #[arg(long)]
    pub skip_stale: bool,
    /// Exit 1 and write nothing while a reviewed record keeps a hallucination type but no span
    /// (an open item: every span dropped, as a "drop all" resolution leaves it); label it,
    /// reclassify it clean or remove it in review.
    #[arg(long)]
    pub require_settled: bool,
    /// Add meta.review (reviewers, time, outcome) to reviewed records.
    #[arg(long)]
    pub provenance: bool,
    /// Read every file in this format instead of detecting it.
    #[arg(long, value_enum, value_name = "F")]
    pub format: Option<Format>,
    /// The rubric (reason codes and their descriptions): the report's "Decisions per reason"
    /// describes each code by it, and the file is copied beside the export (into --report's
    /// folder, else --out's) as part of the output set.
    #[arg(long, value_name = "FILE.toml")]
    pub rubric: Option<PathBuf>,
    /// Write a dataset-card section (Markdown for a Hugging Face card): a paragraph with the
    /// report's numbers, outcomes per label, decisions per reason, upheld rates, boundary
    /// corrections, the reviewers' agreement on the overlap and per-reviewer figures; its
    /// charts go beside it as SVG files (PATH's stem + -outcomes.svg, -upheld.svg,
    /// -boundaries.svg, -agreement.svg; one with nothing to show is not written), linked from it.
    #[arg(long, value_name = "PATH.md")]
    pub card: Option<PathBuf>,
}

/// Run the subcommand: [`export`] with the options the flags give.
///
/// # Errors
/// As [`export`].
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    export(&ExportOptions::from(args))
}

/// `export D --out OUT/` (a dataset folder into a folder: `OUT` exists as a folder or ends
/// with `/`): every shard of the config (and `--split`) into `OUT` under its own path, and the
/// card ([`crate::export::folder`]); `None` when the export is not of a folder into one.
///
/// # Errors
/// The folder's card or selection errors, or the export's.
pub fn folder(a: &Args) -> anyhow::Result<Option<ExitCode>> {
    let Some(dir) = a
        .files
        .first()
        .filter(|f| crate::formats::hub::is_folder(f))
    else {
        return Ok(None);
    };
    let into_folder = a.out.is_dir() || a.out.to_string_lossy().ends_with('/');
    if !into_folder {
        return Ok(None);
    }
    let files = a.hub.files_of(dir, false)?;
    let name = super::hub_args::folder_name(dir);
    let opts = ExportOptions::from(a.clone());
    crate::export::folder::export_folder(&opts, dir, &files, &name).map(Some)
}

impl From<Args> for ExportOptions {
    fn from(a: Args) -> Self {
        Self {
            judges: a
                .judges
                .judges
                .iter()
                .map(|j| (j.name.clone(), j.path.clone()))
                .collect(),
            judge_options: a.judges.options(),
            db: a.db.db_path(),
            dataset: a.db.dataset,
            files: a.files,
            format: a.format,
            out: a.out,
            out_named: None,
            verdicts: a.verdicts,
            report: a.report,
            contested: a.contested,
            min_seconds: a.min_seconds,
            features: a.features,
            verdicts_features: a.verdicts_features,
            strict: a.strict,
            split_by: a.split_by,
            clean_in_all: a.clean_in_all,
            keep_removed: a.keep_removed,
            reviewed_only: a.reviewed_only,
            skip_stale: a.skip_stale,
            require_settled: a.require_settled,
            provenance: a.provenance,
            rubric: a.rubric,
            card: a.card,
        }
    }
}
