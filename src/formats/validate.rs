//! `validate`: every problem of every record of one or more files, each with its file and line.
//!
//! Checks, per format: each line is a JSON object; required fields are present and of the right
//! type; offsets are integers with `0 <= start < end <= len(output)` in code points (negative,
//! non-integer, reversed, empty and out-of-range spans are told apart); `output[start:end]`
//! equals `text`; no span boundary splits a grapheme cluster; gold labels (and categories,
//! subcategories) are in the label set; the record's type is in the label set; a clean record
//! carries no labels and a record of another type carries at least one (unless
//! [`Options::allow_clean`]); with [`Options::strict`] every gold label equals the record's
//! type; ids are unique within a file and belong to their `meta.base_id`; no `meta.base_id` is
//! in two of the files (split leakage); a file holds at least one record.
//!
//! Speed (the target is 10x a streaming Python validator): a JSONL file is read once in
//! cache-sized blocks, each of two threads splitting its half into lines as it checks them
//! (`input`; a JSON array goes through `FileIndex`); a line is checked as UTF-8 once
//! (`simdutf8`); RAGTruth-compatible records are skimmed once (`skim`) and only the members
//! checked are parsed, into borrowed views (`shape`; each format's own in its `check` module)
//! that skip the rest; each output is measured once and sliced by one walk per span. Problems
//! come out in line order.

pub(crate) mod check;
mod input;
pub mod labels;
pub(crate) mod shape;
pub(crate) mod skim;

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::PathBuf;

pub use input::Input;
pub use labels::LabelSet;
pub use skim::string_member;

use super::index::Entry;
use super::{quote_str, DataFile, Format, FormatError};

/// The kinds of problem, as named in the summary and in `--json` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The line is not valid JSON.
    InvalidJson,
    /// The line is JSON but not an object.
    NotObject,
    /// A required field is absent.
    MissingField,
    /// A field has the wrong JSON type.
    WrongType,
    /// A required text field is empty.
    EmptyField,
    /// A field has a value outside its allowed set.
    BadValue,
    /// An offset is negative.
    NegativeOffset,
    /// An offset is not an integer.
    NonIntegerOffset,
    /// `start > end`.
    ReversedSpan,
    /// `start == end`.
    EmptySpan,
    /// The span reaches past the end of the output.
    OutOfRange,
    /// `output[start:end] != text`.
    TextMismatch,
    /// A span boundary splits a grapheme cluster (a letter from its combining mark).
    GraphemeSplit,
    /// A label, category or subcategory is not in the label set.
    UnknownLabel,
    /// A region carries no label, or one that is not a non-empty string (it would read as a
    /// span without a label).
    MissingLabel,
    /// A region carries more than one label; a span has one.
    ManyLabels,
    /// The record's type is not in the label set.
    UnknownType,
    /// A label differs from the record's type (`--strict`).
    LabelTypeMismatch,
    /// A clean record carries labels.
    CleanWithLabels,
    /// A record of a hallucination type carries no label.
    Unlabeled,
    /// The same id twice in a file.
    DuplicateId,
    /// The id is neither `meta.base_id` nor `<base_id>__<variant>`.
    IdBaseMismatch,
    /// The same `meta.base_id` in two files.
    SplitLeakage,
    /// The file ends inside a JSON array.
    Truncated,
    /// The file holds no record.
    Empty,
    /// Part of the file cannot be read (a parquet row group whose pages do not decode).
    Unreadable,
}

impl Kind {
    /// The snake_case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::InvalidJson => "invalid_json",
            Self::NotObject => "not_object",
            Self::MissingField => "missing_field",
            Self::WrongType => "wrong_type",
            Self::EmptyField => "empty_field",
            Self::BadValue => "bad_value",
            Self::NegativeOffset => "negative_offset",
            Self::NonIntegerOffset => "non_integer_offset",
            Self::ReversedSpan => "reversed_span",
            Self::EmptySpan => "empty_span",
            Self::OutOfRange => "out_of_range",
            Self::TextMismatch => "text_mismatch",
            Self::GraphemeSplit => "grapheme_split",
            Self::UnknownLabel => "unknown_label",
            Self::MissingLabel => "missing_label",
            Self::ManyLabels => "many_labels",
            Self::UnknownType => "unknown_type",
            Self::LabelTypeMismatch => "label_type_mismatch",
            Self::CleanWithLabels => "clean_with_labels",
            Self::Unlabeled => "unlabeled",
            Self::DuplicateId => "duplicate_id",
            Self::IdBaseMismatch => "id_base_mismatch",
            Self::SplitLeakage => "split_leakage",
            Self::Truncated => "truncated",
            Self::Empty => "empty",
            Self::Unreadable => "unreadable",
        }
    }
}

/// What to check.
#[derive(Debug, Clone)]
pub struct Options {
    /// Labels a gold span may carry (default: the toolace corruption types). Files in the
    /// lettuce format also accept the embedded LettuceDetect taxonomy.
    pub labels: LabelSet,
    /// Every gold label must equal the record's type.
    pub strict: bool,
    /// Accept records without labels whatever their type (a clean record must still carry none).
    pub allow_clean: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            labels: LabelSet::toolace(),
            strict: false,
            allow_clean: false,
        }
    }
}

/// One problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Index of the file in the list given.
    pub file: usize,
    /// 1-based line where the record starts.
    pub line: u32,
    /// What kind of problem.
    pub kind: Kind,
    /// The message, quoting the offending value.
    pub message: String,
}

/// One file's part of the report.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The path as given.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
    /// Number of records (non-blank lines, or array elements).
    pub records: usize,
}

/// The outcome of a validation.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The files, in the order given.
    pub files: Vec<FileReport>,
    /// Every problem, by file and line.
    pub problems: Vec<Problem>,
    /// Records by type (`(none)` for records without one).
    pub by_type: BTreeMap<String, usize>,
}

impl Report {
    /// Number of records in all files.
    #[must_use]
    pub fn records(&self) -> usize {
        self.files.iter().map(|f| f.records).sum()
    }

    /// Number of records with at least one problem.
    #[must_use]
    pub fn records_with_problems(&self) -> usize {
        let mut n = 0;
        let mut last = None;
        for p in &self.problems {
            if last != Some((p.file, p.line)) {
                n += 1;
                last = Some((p.file, p.line));
            }
        }
        n
    }

    /// Problems by kind.
    #[must_use]
    pub fn by_kind(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for p in &self.problems {
            *m.entry(p.kind.name()).or_insert(0) += 1;
        }
        m
    }
}

/// What `validate` (with its default label set, and the format's built-in one) says of the
/// spans of one record line of `format`: the problems of its span lists (offsets, text,
/// labels, categories), each `(kind, message)`; problems of the record as a whole (its type,
/// whether it carries labels, its id) are left out. Export checks every line it builds with
/// this before writing it, so that it never writes a span `validate` would reject.
#[must_use]
pub fn span_problems(bytes: &[u8], format: Format) -> Vec<(Kind, String)> {
    let mut labels = LabelSet::toolace();
    if let Some(builtin) = format.spec().builtin_labels {
        labels.extend(&LabelSet::builtin(builtin).unwrap_or_default());
    }
    let settings = check::Settings {
        format,
        labels: &labels,
        strict: false,
        allow_clean: true,
    };
    let lead = || 0;
    let origin = super::position::Origin {
        line: 1,
        lead: &lead,
    };
    let (problems, _) = check::check(bytes, &origin, &settings);
    problems
        .into_iter()
        .filter(|(kind, message)| is_span_problem(*kind, message))
        .collect()
}

/// True for a problem of a span: its message names a span list's item (`key[i]: …`), as every
/// check of [`check::ListSpec`] lists does.
fn is_span_problem(kind: Kind, message: &str) -> bool {
    let item = message
        .split_once(": ")
        .is_some_and(|(at, _)| at.ends_with(']') && at.contains('['));
    item && !matches!(
        kind,
        Kind::UnknownType | Kind::CleanWithLabels | Kind::Unlabeled | Kind::DuplicateId
    )
}

/// A fast non-cryptographic hash for the id and base-id maps (FxHash's multiply-rotate over
/// 8-byte words): ids come from the files being checked, not from an adversary.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(a)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// What one thread found in its share of a file.
#[derive(Default)]
struct Part {
    problems: Vec<Problem>,
    keys: Vec<(u32, Box<str>)>,
    bases: Vec<(u32, Box<str>)>,
    by_type: FastMap<Box<str>, usize>,
    /// Records checked.
    records: usize,
    /// Lines in the share (JSONL), to number the next share's lines.
    lines: u32,
}

impl Part {
    /// Check one record that starts on `line`.
    /// Check one record of file `fi` starting on `line`, `lead` code points into it.
    fn consume(
        &mut self,
        fi: usize,
        (line, lead): (u32, &dyn Fn() -> u32),
        bytes: &[u8],
        settings: &check::Settings<'_>,
    ) {
        let origin = super::position::Origin { line, lead };
        let (problems, facts) = check::check(bytes, &origin, settings);
        for (kind, message) in problems {
            self.problems.push(Problem {
                file: fi,
                line,
                kind,
                message,
            });
        }
        if let Some(k) = facts.key {
            self.keys.push((line, k));
        }
        if let Some(b) = facts.base_id {
            self.bases.push((line, b));
        }
        let t = facts.corruption_type.unwrap_or_else(|| "(none)".into());
        *self.by_type.entry(t).or_insert(0) += 1;
        self.records += 1;
    }

    /// Add `by` to every line number (the share started `by` lines into the file).
    fn shift_lines(&mut self, by: u32) {
        for p in &mut self.problems {
            p.line += by;
        }
        for (l, _) in self.keys.iter_mut().chain(self.bases.iter_mut()) {
            *l += by;
        }
    }
}

/// Bytes read at once: small enough that a block is still in cache when its records are parsed.
const BLOCK: u64 = 256 << 10;

/// Validate `files` (opened with [`Input::open`]).
///
/// # Errors
/// I/O errors reading a file.
pub fn validate(files: &[Input], opts: &Options) -> Result<Report, FormatError> {
    let mut report = Report::default();
    // base_id -> (file, line) where it was first seen.
    let mut bases: FastMap<Box<str>, (usize, u32)> = FastMap::default();
    for (fi, file) in files.iter().enumerate() {
        let mut labels = opts.labels.clone();
        if let Some(builtin) = file.format().spec().builtin_labels {
            labels.extend(&LabelSet::builtin(builtin).unwrap_or_default());
        }
        let settings = check::Settings {
            format: file.format(),
            labels: &labels,
            strict: opts.strict,
            allow_clean: opts.allow_clean,
        };
        let (a, b, index_problems) = file.check(fi, &settings)?;
        let mut problems = Vec::new();
        for (line, message) in index_problems {
            problems.push(Problem {
                file: fi,
                line,
                kind: Kind::Truncated,
                message,
            });
        }
        let mut seen: FastMap<&str, u32> = FastMap::default();
        let mut global = Vec::new();
        for (line, key) in a.keys.iter().chain(&b.keys) {
            if let Some(first) = seen.insert(key, *line) {
                seen.insert(key, first);
                global.push(Problem {
                    file: fi,
                    line: *line,
                    kind: Kind::DuplicateId,
                    message: format!("duplicate id {} (first at line {first})", quote_str(key)),
                });
            }
        }
        for (line, base) in a.bases.iter().chain(&b.bases) {
            match bases.get(base) {
                Some(&(other, other_line)) if other != fi => global.push(Problem {
                    file: fi,
                    line: *line,
                    kind: Kind::SplitLeakage,
                    message: format!(
                        "meta.base_id {} is also in {}:{other_line} (split leakage: all variants of a base belong in one split)",
                        quote_str(base),
                        files[other].path().display()
                    ),
                }),
                Some(_) => {}
                None => {
                    bases.insert(base.clone(), (fi, *line));
                }
            }
        }
        if a.records + b.records == 0 && problems.is_empty() {
            // Zero records is not a clean file: an empty download, a wrong path, `/dev/null`.
            problems.push(Problem {
                file: fi,
                line: 1,
                kind: Kind::Empty,
                message: "the file holds no record".to_owned(),
            });
        }
        problems.extend(a.problems);
        problems.extend(b.problems);
        problems.extend(global);
        problems.sort_by_key(|p| p.line);
        report.problems.extend(problems);
        report.files.push(FileReport {
            path: file.path().to_path_buf(),
            format: file.format(),
            records: a.records + b.records,
        });
        for (t, n) in a.by_type.into_iter().chain(b.by_type) {
            *report.by_type.entry(t.into()).or_insert(0) += n;
        }
    }
    Ok(report)
}

/// Index that splits `entries` into two halves of about equal bytes.
fn split_point(entries: &[Entry]) -> usize {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return 0;
    };
    let half = first.offset + (last.offset - first.offset) / 2;
    entries.partition_point(|e| e.offset < half)
}

/// Check `entries` of `file`, reading them in blocks.
fn check_range(
    file: &DataFile,
    fi: usize,
    entries: &[Entry],
    settings: &check::Settings<'_>,
) -> Result<Part, FormatError> {
    let mut part = Part::default();
    if entries.is_empty() {
        return Ok(part);
    }
    // The file as it was opened and indexed (a stream's copy has no path to open again).
    let handle = file.index.file();
    let leads = super::position::Leads::default();
    let mut failed = None;
    let mut unreadable = Vec::new();
    let parquet = file.index.parquet_rows();
    file.index.for_each_entry(
        entries,
        BLOCK,
        |_, e, bytes| {
            let lead = || leads.lead(handle, e.offset);
            part.consume(fi, (e.line, &lead), bytes, settings);
        },
        |bad, e| match (parquet, e) {
            // A parquet row group that cannot be read is a problem of its rows; the other
            // row groups are still checked.
            (Some(_), FormatError::Record { line, message, .. }) => {
                unreadable.push(Problem {
                    file: fi,
                    line,
                    kind: Kind::Unreadable,
                    message: format!("{message} ({} records not checked)", bad.len()),
                });
            }
            (_, e) => {
                failed.get_or_insert(e);
            }
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    part.problems.extend(unreadable);
    if let Some(rows) = parquet {
        // Rows are named by row group too ("row group 2, row 7"), as parquet tools show them.
        for p in &mut part.problems {
            if p.kind != Kind::Unreadable {
                p.message = format!("{}: {}", rows.place(p.line), p.message);
            }
        }
    }
    Ok(part)
}
