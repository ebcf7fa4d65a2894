//! Input formats: one module per schema, auto-detected per file, read lazily.
//!
//! A file is indexed without parsing ([`index`]); a record is parsed when asked for, by the
//! module of its format. Several files are joined by `id` into one [`Dataset`]: a records file
//! plus prediction files for the same records give one record with many sources.

pub mod dataset;
pub mod decisions;
pub mod index;
pub mod judges;
pub mod lettuce;
pub mod mushroom;
pub mod predictions;
pub mod ragtruth;
pub mod spans;
pub mod validate;
pub mod write;

use std::path::PathBuf;

use serde_json::Value;

use crate::model::{Record, Span};

pub use dataset::{DataFile, Dataset};

/// The schemas spanreview reads (see `FORMATS.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// RAGTruth-compatible records (toolace-hallucination-spans): `hallucination_labels`.
    Ragtruth,
    /// Detector prediction files: `gold_spans` + `pred_spans`.
    Predictions,
    /// halu-toolace LLM-judge `decisions.jsonl`.
    Decisions,
    /// LettuceDetect `HallucinationSample`.
    Lettuce,
    /// Mu-SHROOM: `hard_labels` and per-annotator spans.
    Mushroom,
}

impl Format {
    /// Name as used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Ragtruth => "ragtruth",
            Self::Predictions => "predictions",
            Self::Decisions => "decisions",
            Self::Lettuce => "lettuce",
            Self::Mushroom => "mushroom",
        }
    }

    /// Recognise the format of a record by its keys; `None` when no format fits.
    #[must_use]
    pub fn detect(value: &Value) -> Option<Self> {
        let obj = value.as_object()?;
        let has = |k: &str| obj.contains_key(k);
        if has("hallucination_labels") {
            Some(Self::Ragtruth)
        } else if has("pred_spans") || has("gold_spans") {
            Some(Self::Predictions)
        } else if has("labeled_span") || has("judge") {
            Some(Self::Decisions)
        } else if has("model_output_text") {
            Some(Self::Mushroom)
        } else if has("answer") && has("labels") {
            Some(Self::Lettuce)
        } else {
            None
        }
    }

    /// True when records of this format carry their own answer text (so they can lead a join).
    #[must_use]
    pub fn has_output(self) -> bool {
        !matches!(self, Self::Decisions)
    }

    /// Parse one record. `source` names the non-gold source the file contributes (a detector's
    /// name for prediction files).
    ///
    /// # Errors
    /// A message quoting the missing or mistyped field.
    pub fn parse(self, value: Value, source: &str) -> Result<Record, String> {
        match self {
            Self::Ragtruth => ragtruth::parse(value),
            Self::Predictions => predictions::parse(value, source),
            Self::Decisions => decisions::parse(value, source),
            Self::Lettuce => lettuce::parse(value),
            Self::Mushroom => mushroom::parse(value),
        }
    }

    /// Write one record back in this format: `raw` (the record as read) with its gold spans
    /// replaced by `gold` and, when given and the format has one, its type set to
    /// `corruption_type`. Every other field passes through unchanged, key order included.
    #[must_use]
    pub fn write(self, raw: &Value, gold: &[Span], corruption_type: Option<&str>) -> Value {
        match self {
            Self::Ragtruth => ragtruth::write(raw, gold, corruption_type),
            Self::Predictions => predictions::write(raw, gold, corruption_type),
            Self::Decisions => decisions::write(raw, gold, corruption_type),
            Self::Lettuce => lettuce::write(raw, gold, corruption_type),
            Self::Mushroom => mushroom::write(raw, gold, corruption_type),
        }
    }
}

/// Errors reading input files. Each names the file, and the line where there is one.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A record could not be read.
    #[error("{}:{line}: {message}", path.display())]
    Record {
        /// File.
        path: PathBuf,
        /// 1-based line.
        line: u32,
        /// What is wrong, quoting the value.
        message: String,
    },
    /// A record index past the end.
    #[error("{}: no record {index} (the file has {len})", path.display())]
    NoRecord {
        /// File.
        path: PathBuf,
        /// Asked-for index.
        index: usize,
        /// Number of records.
        len: usize,
    },
    /// The format of a file could not be recognised.
    #[error("{}: cannot tell the format ({reason}); pass --format", path.display())]
    Unknown {
        /// File.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Short, single-line rendering of a JSON value for messages (long values are cut; control and
/// bidirectional characters escaped).
#[must_use]
pub fn quote(value: &Value) -> String {
    let s = crate::model::escape::json(&value.to_string()).into_owned();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}
