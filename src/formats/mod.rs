//! Input formats: one module per schema, auto-detected per file, read lazily.
//!
//! Each format's module holds all it knows (reader, writer, `validate`'s checks, its roles) in a
//! [`FormatSpec`]; the `registry!` list below names the formats, and the rest of the code reaches
//! a format only through [`Format::spec`] (CONTRIBUTING.md, "Adding a format").
//!
//! A file is indexed without parsing ([`index`]); a record is parsed when asked for, by the
//! module of its format. Several files are joined by `id` into one [`Dataset`]: a records file
//! plus prediction files for the same records give one record with many sources.

pub mod dataset;
pub mod entry;
#[cfg(test)]
mod fuzz;
pub mod hub;
pub mod index;
pub mod judges;
pub mod lite_spans;
pub mod parquet;
pub mod partial;
mod position;
pub mod rubric;
pub mod spans;
pub mod spec;
pub mod validate;
mod whole;
pub mod write;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::model::{Record, Span};

pub use dataset::{DataFile, Dataset};
pub use spec::FormatSpec;

/// Declares the formats: for each, its module (which holds its `SPEC`) and its [`Format`]
/// variant. The one list a new format is added to.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)*) => {
        $(pub mod $module;)*

        /// The schemas spanreview reads (see `FORMATS.md`), in the order detection tries them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Format {
            $($(#[$doc])* $variant,)*
        }

        impl Format {
            /// Every format, in registry (detection) order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),*];

            /// What the format is and does (its module's `SPEC`).
            #[must_use]
            pub fn spec(self) -> &'static FormatSpec {
                match self {
                    $(Self::$variant => &$module::SPEC,)*
                }
            }

            /// The module's test record (`SAMPLE`).
            #[cfg(test)]
            pub(crate) fn sample(self) -> &'static str {
                match self {
                    $(Self::$variant => $module::SAMPLE,)*
                }
            }
        }
    };
}

registry! {
    // First: a row holds its task's data fields flat, which may be another format's record.
    /// Label Studio JSON_MIN exports: flat rows, regions under the control's name.
    LabelStudioMin => labelstudio_min,
    /// RAGTruth-compatible records (toolace-hallucination-spans): `hallucination_labels`.
    Ragtruth => ragtruth,
    /// Detector prediction files: `gold_spans` + `pred_spans`.
    Predictions => predictions,
    /// halu-toolace LLM-judge `decisions.jsonl`.
    Decisions => judge_decisions,
    /// Mu-SHROOM: `hard_labels` and per-annotator spans.
    Mushroom => mushroom,
    /// LettuceDetect `HallucinationSample`.
    Lettuce => lettuce,
    /// Label Studio JSON exports: `annotations[].result[]` and `predictions[].result[]`.
    LabelStudio => labelstudio,
    /// Prodigy JSONL: `text` and `spans`.
    Prodigy => prodigy,
}

/// Records looked at to tell a file's format ([`Format::detect_first`]), so that a broken
/// first line does not hide it.
pub const DETECT_RECORDS: usize = 20;

impl Format {
    /// Name as used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Recognise the format of a record by its keys (the first format of the registry that
    /// fits); `None` when no format fits.
    #[must_use]
    pub fn detect(value: &Value) -> Option<Self> {
        let obj = value.as_object()?;
        Self::ALL.iter().copied().find(|f| (f.spec().detect)(obj))
    }

    /// The format of a file from its first records, `(line, lead, bytes)` each (`lead`: the code
    /// points before the record on its line, to place a JSON error): the first of up to
    /// [`DETECT_RECORDS`] that says one; else why none does (the last record's reason), as
    /// `Ok(Err(reason))`. The one rule for a file's format, however its lines are read.
    ///
    /// # Errors
    /// The first error reading a record.
    pub fn detect_first<B: AsRef<[u8]>, E>(
        records: impl IntoIterator<Item = Result<(u32, u32, B), E>>,
    ) -> Result<Result<Self, String>, E> {
        let mut last = String::from("the file holds no record");
        for r in records.into_iter().take(DETECT_RECORDS) {
            let (line, lead, bytes) = r?;
            match serde_json::from_slice::<Value>(bytes.as_ref()) {
                Ok(v) => match Self::detect(&v) {
                    Some(f) => return Ok(Ok(f)),
                    None => last = Self::undetected(),
                },
                Err(e) => {
                    let why = position::invalid_json(&e, bytes.as_ref(), line, &|| lead);
                    last = format!("line {line}: {why}");
                }
            }
        }
        Ok(Err(last))
    }

    /// Why no format fits a record: the keys each format looks for.
    #[must_use]
    pub fn undetected() -> String {
        let keys: Vec<&str> = Self::ALL.iter().map(|f| f.spec().detect_keys).collect();
        format!("no known field ({})", keys.join(", "))
    }

    /// True when records of this format carry their own answer text (so they can lead a join).
    #[must_use]
    pub fn has_output(self) -> bool {
        self.spec().has_output
    }

    /// The name of the non-gold source a file at `path` contributes, when none is given (a
    /// detector's name for prediction files, else the file's stem).
    #[must_use]
    pub fn default_source(self, path: &Path) -> String {
        (self.spec().default_source)(path)
    }

    /// Parse one record. `source` names the non-gold source the file contributes (a detector's
    /// name for prediction files).
    ///
    /// # Errors
    /// A message quoting the missing or mistyped field.
    pub fn parse(self, value: Value, source: &str) -> Result<Record, String> {
        (self.spec().parse)(value, source)
    }

    /// Write one record back in this format: `raw` (the record as read) with its gold spans
    /// replaced by `gold` and, when given and the format has one, its type set to
    /// `corruption_type`. Every other field passes through unchanged, key order included.
    #[must_use]
    pub fn write(self, raw: &Value, gold: &[Span], corruption_type: Option<&str>) -> Value {
        (self.spec().write)(raw, gold, corruption_type)
    }

    /// How many of `rec`'s gold labels could not be read: the reader skipped them with a
    /// warning (`<key>[<i>]: ...; the span was skipped`), so the record's exported line leaves
    /// them out. Skipped spans of other lists (a prediction file's `pred_spans`) pass through
    /// and are not counted.
    #[must_use]
    pub fn unreadable_labels(self, rec: &Record) -> usize {
        let Some(list) = self.spec().gold_list else {
            return 0;
        };
        rec.warnings
            .iter()
            .filter(|w| w.strip_prefix(list).is_some_and(|r| r.starts_with('[')))
            .count()
    }

    /// The spans of `spans` that have no label, in formats whose spans carry labels (the
    /// validator requires one there; the writer writes them as they are).
    pub fn unlabeled(self, spans: &[Span]) -> impl Iterator<Item = &Span> {
        let required = self.spec().labels_required;
        spans.iter().filter(move |s| required && s.label.is_empty())
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

/// Values are quoted in messages to about this many characters.
const QUOTE_CHARS: usize = 80;

/// Short, single-line rendering of a JSON value for messages (long values are cut; control and
/// bidirectional characters escaped). A string is [`quote_str`].
#[must_use]
pub fn quote(value: &Value) -> String {
    if let Value::String(s) = value {
        return quote_str(s);
    }
    let s = crate::model::escape::json(&value.to_string()).into_owned();
    match cut(&s) {
        Some(cut) => format!("{cut}..."),
        None => s,
    }
}

/// A string as a JSON literal, cut to about 80 characters before it is quoted (so the literal
/// closes and no escape is cut in two), control and bidirectional characters escaped
/// (`\u001b`, `\u202e`: [`crate::model::escape::json`]).
#[must_use]
pub fn quote_str(s: &str) -> String {
    let literal = match cut(s) {
        Some(cut) => format!("{}...", Value::String(cut)),
        None => Value::String(s.to_owned()).to_string(),
    };
    crate::model::escape::json(&literal).into_owned()
}

/// The first characters of `s` when it is longer than [`QUOTE_CHARS`] (room left for `...`).
fn cut(s: &str) -> Option<String> {
    (s.chars().count() > QUOTE_CHARS).then(|| s.chars().take(QUOTE_CHARS - 3).collect())
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::validate::Input;
    use super::{quote, quote_str, Dataset, Format, FormatError, DETECT_RECORDS};

    /// A long string is quoted alike whichever reader met it (the validator's borrowed view or
    /// a parsed value): cut before quoting, so the literal closes and no escape is cut in two.
    #[test]
    fn a_long_string_is_quoted_alike_and_whole_escapes_kept() {
        let s = format!("{}\u{202e}{}", "é".repeat(75), "東".repeat(10));
        let q = quote(&Value::from(s.as_str()));
        assert_eq!(q, quote_str(&s));
        assert_eq!(q, format!("\"{}\\u202e東\"...", "é".repeat(75)));
        assert_eq!(quote(&json!("25°C")), "\"25°C\"");
        assert_eq!(quote(&json!([1, "\u{1b}"])), "[1,\"\\u001b\"]");
    }

    /// A file's format is told by one rule whether `review` (through the index) or `validate`
    /// (reading lines) opens it: the first records up to [`DETECT_RECORDS`], blank lines
    /// skipped but counted, the last reason given when none says a format.
    #[test]
    fn review_and_validate_tell_a_files_format_alike() {
        let dir = tempfile::tempdir().expect("tmp");
        let reason = |lines: &[&str]| {
            let p = dir.path().join("x.jsonl");
            std::fs::write(&p, lines.join("\n")).expect("write");
            let r = match Dataset::open(std::slice::from_ref(&p), None) {
                Err(FormatError::Unknown { reason, .. }) => Some(reason),
                _ => None,
            };
            let v = match Input::open(&p, None) {
                Err(FormatError::Unknown { reason, .. }) => Some(reason),
                _ => None,
            };
            assert_eq!(r, v, "{lines:?}");
            r
        };
        let rec = r#"{"id": "a", "output": "25°C", "hallucination_labels": []}"#;
        assert_eq!(reason(&["{\"x\": 1}", "", rec]), None);
        let bad = reason(&["{\"x\": 1}", "", "  {\"é\": "]).expect("unknown");
        assert!(bad.starts_with("line 3: invalid JSON: "), "{bad}");
        let mut late = vec![r#"{"x": 1}"#; DETECT_RECORDS];
        late.push(rec);
        assert_eq!(reason(&late), Some(Format::undetected()));
        let err: Result<(u32, u32, &[u8]), &str> = Err("io");
        assert_eq!(Format::detect_first([err]), Err("io"));
    }
}
