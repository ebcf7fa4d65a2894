//! Files opened for review, and several files joined by record `id` into one dataset.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::index::{FileIndex, Layout};
use super::{Format, FormatError};
use crate::model::{Record, SourceRole};

mod id_member;
mod size;

pub use id_member::id_member;

/// One input file: its index, its format and the name of the source it contributes.
#[derive(Debug)]
pub struct DataFile {
    /// Where each record is.
    pub index: FileIndex,
    /// Detected or given format.
    pub format: Format,
    /// Name of the non-gold source this file contributes (a detector's name).
    pub source: String,
    /// Places JSON errors on long lines without reading each line again per error.
    leads: super::position::Leads,
    /// Records over this many bytes are refused with their size instead of built
    /// ([`DataFile::limit_size`]); none by default.
    max_bytes: Option<u64>,
}

impl DataFile {
    /// Open and index `path`; detect the format from the first record that parses unless
    /// `format` is given. `source` names the file's non-gold source (default: from the path).
    ///
    /// # Errors
    /// I/O errors, or a format that cannot be recognised.
    pub fn open(
        path: &Path,
        format: Option<Format>,
        source: Option<String>,
    ) -> Result<Self, FormatError> {
        Self::with_index(FileIndex::open(path)?, format, source)
    }

    /// A file already indexed (see [`DataFile::open`]).
    ///
    /// # Errors
    /// A format that cannot be recognised.
    pub(crate) fn with_index(
        index: FileIndex,
        format: Option<Format>,
        source: Option<String>,
    ) -> Result<Self, FormatError> {
        let path = index.path().to_path_buf();
        let path = path.as_path();
        let format = match format {
            Some(f) => f,
            None => detect(&index)?,
        };
        let source = source.unwrap_or_else(|| format.default_source(path));
        let leads = super::position::Leads::default();
        Ok(Self {
            index,
            format,
            source,
            leads,
            max_bytes: None,
        })
    }

    /// Path of the file.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.index.path()
    }

    /// Number of records.
    #[must_use]
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when the file holds no record.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// 1-based line where record `i` starts (0 when out of range).
    #[must_use]
    pub fn line(&self, i: usize) -> u32 {
        self.index.entry(i).map_or(0, |e| e.line)
    }

    /// Record `i` as a JSON value.
    ///
    /// # Errors
    /// I/O errors, or the bytes are not valid JSON (the message names file and line).
    pub fn value(&self, i: usize) -> Result<Value, FormatError> {
        self.value_in(i, &self.bytes(i)?)
    }

    /// Record `i`, whose bytes are `bytes`, as a JSON value.
    fn value_in(&self, i: usize, bytes: &[u8]) -> Result<Value, FormatError> {
        serde_json::from_slice(bytes).map_err(|e| self.json_error(i, bytes, &e))
    }

    /// An error for record `i`, whose bytes are `bytes`, that is not JSON: `e` placed in the file.
    pub(crate) fn json_error(&self, i: usize, bytes: &[u8], e: &serde_json::Error) -> FormatError {
        let offset = self.index.entry(i).map_or(0, |e| e.offset);
        let lead = || self.leads.lead(self.index.file(), offset);
        let why = super::position::invalid_json(e, bytes, self.line(i), &lead);
        self.error(i, why)
    }

    /// Record `i`, parsed.
    ///
    /// # Errors
    /// I/O errors, invalid JSON, or a record that does not fit the format.
    pub fn record(&self, i: usize) -> Result<Record, FormatError> {
        self.record_in(i, &self.bytes(i)?)
    }

    /// Record `i`, whose bytes are `bytes` (read already), parsed.
    ///
    /// # Errors
    /// Invalid JSON, or a record that does not fit the format.
    pub fn record_in(&self, i: usize, bytes: &[u8]) -> Result<Record, FormatError> {
        let value = self.value_in(i, bytes)?;
        self.format
            .parse(value, &self.source)
            .map_err(|m| self.error(i, m))
    }

    /// The id of record `i` as its format reads it, without building the record.
    ///
    /// # Errors
    /// I/O errors, invalid JSON, or no id the format can read.
    pub fn id(&self, i: usize) -> Result<String, FormatError> {
        let bytes = self.index.bytes(i)?;
        self.id_in(i, &bytes)
    }

    /// The id of the record whose bytes are `bytes`, as the file's format reads it
    /// ([`FormatSpec::record_id`](super::FormatSpec::record_id)); `None` when it reads none.
    #[must_use]
    pub fn id_of(&self, bytes: &[u8]) -> Option<String> {
        (self.format.spec().record_id)(bytes)
    }

    /// The id of record `i`, whose bytes are `bytes`, as its format reads it
    /// ([`FormatSpec::record_id`](super::FormatSpec::record_id)).
    fn id_in(&self, i: usize, bytes: &[u8]) -> Result<String, FormatError> {
        if let Some(id) = self.id_of(bytes) {
            return Ok(id);
        }
        if let Err(e) = std::str::from_utf8(bytes) {
            return Err(self.error(
                i,
                format!("invalid JSON: not UTF-8 at byte {}", e.valid_up_to()),
            ));
        }
        // Read again only to word the problem.
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| self.json_error(i, bytes, &e))?;
        Err(match value.get("id") {
            _ if !value.is_object() => self.error(i, "record is not a JSON object".to_owned()),
            Some(id) => self.error(i, format!("id {} is not a string", super::quote(id))),
            None => self.error(i, "missing field \"id\"".to_owned()),
        })
    }

    /// Each readable id's records, in file order, as joined files are read ([`id_map`]: the ids
    /// saved beside the index when still right, else read in blocks); why an id cannot be read
    /// goes to `problems`.
    ///
    /// # Errors
    /// I/O errors reading the file.
    pub fn by_id(
        &self,
        problems: &mut Vec<String>,
    ) -> Result<HashMap<String, Vec<usize>>, FormatError> {
        id_map(self, problems)
    }

    /// An error for record `i` of this file (of a parquet file: its row, and its row group).
    #[must_use]
    pub fn error(&self, i: usize, message: String) -> FormatError {
        let message = match self.index.parquet_rows() {
            Some(rows) => format!("{}: {message}", rows.place(self.line(i))),
            None => message,
        };
        FormatError::Record {
            path: self.path().to_path_buf(),
            line: self.line(i),
            message,
        }
    }
}

/// Detect a file's format from its first records ([`Format::detect_first`]).
fn detect(index: &FileIndex) -> Result<Format, FormatError> {
    // An array cut before its first record ends holds none: say where and why.
    if let (true, Some((line, why))) = (index.is_empty(), index.problems.first()) {
        return Err(FormatError::Unknown {
            path: index.path().to_path_buf(),
            reason: format!("line {line}: {why}"),
        });
    }
    let leads = super::position::Leads::default();
    let records = (0..index.len()).map(|i| {
        let e = index.entries()[i];
        let lead = leads.lead(index.file(), e.offset);
        Ok((e.line, lead, index.bytes(i)?))
    });
    Format::detect_first(records)?.map_err(|reason| FormatError::Unknown {
        path: index.path().to_path_buf(),
        reason: super::parquet::with_columns(index.parquet_rows(), reason),
    })
}

/// Save the ids of the JSONL records file at `path`, in `format`, beside its index, on a thread
/// of their own, unless they are saved already: `export` then copies the lines without
/// decisions unread. Nothing is saved when a line has no id the format can read (export reads
/// every line then, and reports the unreadable ones), when the file does not go through the
/// index cache, or when it changes meanwhile. `review` calls this at start; the thread ends
/// with the process.
pub fn save_ids_in_background(path: &Path, format: Format) -> std::thread::JoinHandle<()> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        // Without a cache (turned off) there is nowhere to save them: no second scan. A
        // stream (a FIFO, `/dev/stdin`) was read already and has no sidecar: not opened again.
        let Some(cache) = super::index::Cache::from_env() else {
            return;
        };
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            return;
        }
        if let Ok(index) = FileIndex::open_with(&path, Some(&cache)) {
            save_ids(&index, format);
        }
    })
}

/// Save the ids of a JSONL file's records, as `format` reads them (as every reader of the saved
/// ids does: [`DataFile::id_of`]), beside its index (see [`save_ids_in_background`]); true when
/// they are saved now (read here, or saved before).
fn save_ids(index: &FileIndex, format: Format) -> bool {
    let id = format.spec().record_id;
    // A file below the cache's size threshold has no sidecar: nothing to read for.
    if index.layout() != Layout::Lines || !index.cached() {
        return false;
    }
    if index.saved_ids(|_, b| id(b)).is_some() {
        return true;
    }
    let n = index.len();
    let mut ids = Vec::with_capacity(n);
    for start in (0..n).step_by(4096) {
        let end = (start + 4096).min(n);
        let read = index.for_each_in(start..end, |_, bytes| {
            if let Some(id) = id(bytes) {
                ids.push(id);
            }
        });
        if read.is_err() || ids.len() != end {
            return false;
        }
    }
    index.save_ids(&ids);
    index.saved_ids(|_, b| id(b)).is_some()
}

/// A joined file's records by `id`: from the ids saved beside its index when they are there
/// and still right, else its records read in blocks on two threads (and the ids saved when
/// every one could be read); an id that cannot be read becomes a problem.
fn id_map(
    file: &DataFile,
    problems: &mut Vec<String>,
) -> Result<HashMap<String, Vec<usize>>, FormatError> {
    let mut by_id: HashMap<String, Vec<usize>> = HashMap::with_capacity(file.len());
    if let Some(ids) = file.index.saved_ids(|i, bytes| file.id_in(i, bytes).ok()) {
        for (i, id) in ids.into_iter().enumerate() {
            by_id.entry(id).or_default().push(i);
        }
        return Ok(by_id);
    }
    let ids = |range: std::ops::Range<usize>| {
        let mut ids = Vec::with_capacity(range.len());
        file.index
            .for_each_in(range, |i, bytes| ids.push(file.id_in(i, bytes)))
            .map(|()| ids)
    };
    let n = file.len();
    let mid = if n > 4096 { n / 2 } else { n };
    let (first, second) = std::thread::scope(|s| {
        let second = s.spawn(|| ids(mid..n));
        (ids(0..mid), second.join())
    });
    let second = second.map_err(|_| FormatError::Io {
        path: file.path().to_path_buf(),
        source: std::io::Error::other("a thread reading ids panicked"),
    })?;
    let mut all = Vec::with_capacity(n);
    let mut complete = true;
    for (i, id) in first?.into_iter().chain(second?).enumerate() {
        match id {
            Ok(id) => {
                by_id.entry(id.clone()).or_default().push(i);
                all.push(id);
            }
            Err(e) => {
                complete = false;
                problems.push(e.to_string());
            }
        }
    }
    if complete {
        file.index.save_ids(&all);
    }
    Ok(by_id)
}

/// A file joined to the primary one by `id`.
#[derive(Debug)]
struct Joined {
    file: DataFile,
    by_id: HashMap<String, Vec<usize>>,
}

/// One or more files read as one set of records. The first file that carries answer text leads
/// (its records, in its order, are the dataset); the others add their sources by `id`.
#[derive(Debug)]
pub struct Dataset {
    /// Dataset name (the leading file's stem unless given).
    pub name: String,
    primary: DataFile,
    joined: Vec<Joined>,
    /// Problems met while joining (an id that appears in a joined file but not the primary).
    pub problems: Vec<String>,
}

impl Dataset {
    /// Open `paths` (all in `format`, or each detected).
    ///
    /// # Errors
    /// I/O errors, unknown formats, or no file with answer text.
    pub fn open(paths: &[PathBuf], format: Option<Format>) -> Result<Self, FormatError> {
        let files = paths
            .iter()
            .map(|p| DataFile::open(p, format, None))
            .collect::<Result<Vec<_>, _>>()?;
        Self::from_files(files)
    }

    /// Open `paths` for the review screen: a single JSONL file is opened lazily
    /// ([`FileIndex::open_lazy`]: its first records at once, the rest indexed in the background,
    /// taken in by [`Dataset::poll_index`], its ids saved once complete); several files are
    /// joined by id, which needs every id, so they are indexed in full first ([`Dataset::open`]).
    ///
    /// # Errors
    /// As [`Dataset::open`].
    pub fn open_lazy(
        paths: &[PathBuf],
        format: Option<Format>,
        lazy: super::index::Lazy,
    ) -> Result<Self, FormatError> {
        let [path] = paths else {
            return Self::open(paths, format);
        };
        let cache = super::index::Cache::from_env();
        // The format is known (or detected) once the file is indexed.
        let then = Box::new(move |ix: &FileIndex| {
            if let Some(f) = format.or_else(|| detect(ix).ok()) {
                save_ids(ix, f);
            }
        });
        let mut index = FileIndex::open_lazy(path, cache.as_ref(), lazy, then)?;
        // The format is detected from the first 20 records (a broken first line does not hide
        // it): when those indexed so far do not tell, the others are waited for.
        let format = format.or_else(|| detect(&index).ok());
        while format.is_none() && index.len() < 20 && !index.complete() {
            index.poll(std::time::Duration::from_secs(1))?;
        }
        Self::from_files(vec![DataFile::with_index(index, format, None)?])
    }

    /// True when every record is indexed (see [`Dataset::open_lazy`]).
    #[must_use]
    pub fn indexed(&self) -> bool {
        self.primary.index.complete()
    }

    /// Take in the records indexed in the background since the last call, waiting up to `wait`
    /// when there are none yet; how many ([`FileIndex::poll`]).
    ///
    /// # Errors
    /// As [`FileIndex::poll`].
    pub fn poll_index(&mut self, wait: std::time::Duration) -> Result<usize, FormatError> {
        self.primary.index.poll(wait)
    }

    /// Wait until every record is indexed ([`FileIndex::finish`]).
    ///
    /// # Errors
    /// As [`FileIndex::poll`].
    pub fn finish_index(&mut self) -> Result<(), FormatError> {
        self.primary.index.finish()
    }

    /// Join already opened files.
    ///
    /// # Errors
    /// When no file carries answer text, or reading a joined file's ids fails.
    pub fn from_files(mut files: Vec<DataFile>) -> Result<Self, FormatError> {
        let primary = files.remove(lead(&files)?);
        let name = primary
            .path()
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("dataset")
            .to_owned();
        let mut joined = Vec::new();
        let mut problems = Vec::new();
        for file in files {
            let by_id = id_map(&file, &mut problems)?;
            joined.push(Joined { file, by_id });
        }
        Ok(Self {
            name,
            primary,
            joined,
            problems,
        })
    }

    /// Number of records.
    #[must_use]
    pub fn len(&self) -> usize {
        self.primary.len()
    }

    /// True when there is no record.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.primary.is_empty()
    }

    /// The leading file.
    #[must_use]
    pub fn primary(&self) -> &DataFile {
        &self.primary
    }

    /// Every file, the leading one first.
    pub fn files(&self) -> impl Iterator<Item = &DataFile> {
        std::iter::once(&self.primary).chain(self.joined.iter().map(|j| &j.file))
    }

    /// Record `i` with the sources of every joined file that has its id. A joined line whose
    /// answer text differs from the record's attaches no span (it would sit at the wrong
    /// offsets) and leaves a warning naming the file, the line and the first differing
    /// character; an id on several lines of a file with answer text leaves a warning too.
    ///
    /// # Errors
    /// When the record cannot be read; a joined file's unreadable record becomes a warning on
    /// the record instead.
    pub fn record(&self, i: usize) -> Result<Record, FormatError> {
        let mut rec = self.primary.record(i)?;
        self.join(&mut rec);
        Ok(rec)
    }

    /// Attach to `rec` the sources of every joined file that has its id.
    fn join(&self, rec: &mut Record) {
        for j in &self.joined {
            let Some(lines) = j.by_id.get(&rec.id) else {
                continue;
            };
            if let Some(w) = repeated_id(&j.file, &rec.id, lines) {
                rec.warnings.push(w);
            }
            for &k in lines {
                match j.file.record(k) {
                    Ok(other) => join_record(rec, other, &j.file, k),
                    Err(e) => rec.warnings.push(e.to_string()),
                }
            }
        }
    }
}

/// Which of `files` leads a dataset: the first that carries answer text.
///
/// # Errors
/// When none does.
pub(crate) fn lead(files: &[DataFile]) -> Result<usize, FormatError> {
    files
        .iter()
        .position(|f| f.format.has_output())
        .ok_or_else(|| FormatError::Unknown {
            path: files
                .first()
                .map(|f| f.path().to_path_buf())
                .unwrap_or_default(),
            reason: "no file has answer text to review (judge decisions need a records file)"
                .to_owned(),
        })
}

/// A warning when `id` is on several `lines` of the joined `file` and the file's format carries
/// answer text (one line per record); decisions files repeat an id once per judged span, so
/// they get none. The lines' spans are merged all the same.
fn repeated_id(file: &DataFile, id: &str, lines: &[usize]) -> Option<String> {
    if lines.len() < 2 || !file.format.has_output() {
        return None;
    }
    let numbers: Vec<String> = lines.iter().map(|&k| file.line(k).to_string()).collect();
    Some(format!(
        "{}: the id {id:?} is on {} lines ({}); the spans of every one were joined",
        file.path().display(),
        lines.len(),
        numbers.join(", ")
    ))
}

/// Join `other`, record `k` of the joined `file`, onto `rec`: its sources are merged
/// ([`merge_sources`]) unless it carries an answer text that is not `rec`'s (its spans would
/// sit at the wrong offsets), in which case `rec` gets a warning naming the file, the line and
/// the first differing character instead.
pub(crate) fn join_record(rec: &mut Record, other: Record, file: &DataFile, k: usize) {
    if file.format.has_output() {
        if let Some(diff) = output_difference(&rec.output, &other.output) {
            rec.warnings.push(format!(
                "{}:{}: the answer text differs from the record's {diff}; its spans were not \
                 attached",
                file.path().display(),
                file.line(k)
            ));
            return;
        }
    }
    merge_sources(rec, other);
}

/// Characters quoted on each side of the first difference in [`output_difference`].
const AROUND: usize = 12;

/// `None` when `lead == other`, else where they first differ: `at character N (the line has
/// …"x"…, the record …"y"…)` with N counted in code points (as span offsets are).
#[must_use]
pub fn output_difference(lead: &str, other: &str) -> Option<String> {
    if lead == other {
        return None;
    }
    let at = lead
        .chars()
        .zip(other.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let around = |s: &str| {
        let from = at.saturating_sub(AROUND);
        let n = s.chars().count();
        let piece: String = s.chars().skip(from).take(2 * AROUND).collect();
        let before = if from > 0 { "…" } else { "" };
        let after = if from + 2 * AROUND < n { "…" } else { "" };
        format!("{before}{piece:?}{after}")
    };
    Some(format!(
        "at character {at} (the line has {}, the record {})",
        around(other),
        around(lead)
    ))
}

/// Add `other`'s non-gold sources to `rec` (the leading file's gold stays the labels under
/// review). A source name that is already present gets the file's spans appended.
fn merge_sources(rec: &mut Record, other: Record) {
    for src in other.sources {
        if src.role == SourceRole::Gold {
            continue;
        }
        rec.add_source(src);
    }
    rec.warnings.extend(other.warnings);
}

#[cfg(test)]
mod tests;
