//! What an export does, as plain data: the library side of `spanreview export`, free of clap.

use std::path::PathBuf;

use crate::formats::Format;
use crate::review::disagreement::Options;

/// Everything [`super::export`] needs: the files, the database, the outputs and the flags,
/// with the defaults `--db` and `--dataset` leave already taken where they need no input.
#[derive(Debug, Clone)]
#[allow(clippy::struct_excessive_bools)]
pub struct ExportOptions {
    /// Records (and prediction files joined by `id`); the first with answer text is exported.
    pub files: Vec<PathBuf>,
    /// Read every file in this format instead of detecting it.
    pub format: Option<Format>,
    /// The decision database.
    pub db: PathBuf,
    /// Dataset name in the log (`None`: the name the review screen uses).
    pub dataset: Option<String>,
    /// Judge sources, name and file: checked, protected, and named in the report.
    pub judges: Vec<(String, PathBuf)>,
    /// How reviewers' spans are clustered when their conflicts are looked for.
    pub judge_options: Options,
    /// Where the records go (with `split_by`: the stem and extension of the files).
    pub out: PathBuf,
    /// How messages name `out` when it is not where the records end up (a folder export
    /// writes each shard into a staging folder first: the shard's path in `OUT`); `None`: as
    /// it is.
    pub out_named: Option<PathBuf>,
    /// The verdicts file.
    pub verdicts: Option<PathBuf>,
    /// The Markdown report.
    pub report: Option<PathBuf>,
    /// The rubber-stamp alarm's time rule, in seconds per record.
    pub min_seconds: f64,
    /// The contested cases ([`super::contested`]).
    pub contested: Option<PathBuf>,
    /// The records' `datasets` Features.
    pub features: Option<PathBuf>,
    /// The verdicts' `datasets` Features.
    pub verdicts_features: Option<PathBuf>,
    /// Drop labels whose type is not the record's corruption_type.
    pub strict: bool,
    /// One file per value of this dotted field.
    pub split_by: Option<String>,
    /// With `split_by`: clean records into every other value's file.
    pub clean_in_all: bool,
    /// Keep removed records, marked.
    pub keep_removed: bool,
    /// Leave out records with no verdict in force.
    pub reviewed_only: bool,
    /// Export even when some decisions are stale.
    pub skip_stale: bool,
    /// Refuse (exit 1, nothing written) while a reviewed record keeps a hallucination type
    /// and no span (an open item).
    pub require_settled: bool,
    /// Add meta.review to reviewed records.
    pub provenance: bool,
    /// The rubric: the report describes the reason codes by it, and it is copied beside the
    /// export ([`super::rubric_copy`]).
    pub rubric: Option<PathBuf>,
    /// The dataset-card section (Markdown), its SVG charts beside it ([`super::card`]).
    pub card: Option<PathBuf>,
}

impl ExportOptions {
    /// Options writing `files`' records to `out` with the decisions in `db`, every flag off.
    #[must_use]
    pub fn new(files: Vec<PathBuf>, db: PathBuf, out: PathBuf) -> Self {
        Self {
            files,
            format: None,
            db,
            dataset: None,
            judges: Vec::new(),
            judge_options: Options {
                compare_labels: true,
                ..Options::default()
            },
            out,
            out_named: None,
            verdicts: None,
            report: None,
            contested: None,
            min_seconds: crate::review::second_pass::DEFAULT_MIN_SECONDS,
            features: None,
            verdicts_features: None,
            strict: false,
            split_by: None,
            clean_in_all: false,
            keep_removed: false,
            reviewed_only: false,
            skip_stale: false,
            require_settled: false,
            provenance: false,
            rubric: None,
            card: None,
        }
    }
}
