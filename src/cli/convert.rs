//! `spanreview convert`: its flags, and their mapping to [`ConvertOptions`]; the conversion
//! itself is the export layer's ([`crate::export::convert`]).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::export::convert::ConvertOptions;
use crate::formats::Format;

/// Arguments of `spanreview convert`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input files (JSONL or a JSON array; several are joined by id). `-` is standard input.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// Read every input in this format instead of detecting it.
    #[arg(long, value_enum, value_name = "F")]
    pub format: Option<Format>,
    /// The format to write: ragtruth, label-studio, prodigy (others with --records).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub to: Format,
    /// Where to write. `-` is standard output.
    #[arg(long, value_name = "OUT")]
    pub out: PathBuf,
    /// Write onto these records, matched by id: each is written out in its order, every field
    /// kept, with its spans replaced by those of the input record of its id (untouched when
    /// there is none).
    #[arg(long, value_name = "ORIGINAL")]
    pub records: Option<PathBuf>,
    /// The Label Studio `data` field holding the record's id [default: the first of id, rid,
    /// record_id present]; in JSON_MIN rows, the row's field [default: rid, record_id, id].
    #[arg(long, value_name = "F")]
    pub id_field: Option<String>,
    /// Write the labeling config (--to label-studio) here rather than to standard output.
    #[arg(long, value_name = "OUT.xml")]
    pub config: Option<PathBuf>,
    /// Take this source's spans instead of the gold (a detector, `annotator_<id>`, a Label
    /// Studio prediction's `model_version`; its `gold` is `prediction_gold`).
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
    /// Write even when problems were met (a span skipped, a label lost, a record left out);
    /// each is listed with its record. Without it, a run with problems writes nothing.
    #[arg(long)]
    pub lenient: bool,
}

/// Run the subcommand: [`crate::export::convert::run`] with the options the flags give.
///
/// # Errors
/// As [`crate::export::convert::run`].
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    crate::export::convert::run(&ConvertOptions::from(args))
}

impl From<Args> for ConvertOptions {
    fn from(a: Args) -> Self {
        Self {
            inputs: a.inputs,
            format: a.format,
            to: a.to,
            out: a.out,
            records: a.records,
            id_field: a.id_field,
            config: a.config,
            source: a.source,
            lenient: a.lenient,
        }
    }
}
