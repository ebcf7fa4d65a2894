//! [`SpanReader`]: a dataset's records read with only what clustering needs (each format's
//! skipped fields stepped over, never built), and [`skimmable`], when that gives the same
//! sources as the full reader.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::formats::validate::skim::Top;
use crate::formats::{DataFile, Dataset, Format, FormatError};
use crate::model::Record;

/// The object whose members (key, raw JSON text; the skimmer checked the line is one valid
/// JSON object) are `members`, each parsed but those named in `skip` and `skip_too`: those are
/// never built, and stand as an empty value of their type, so the format's parser refuses a
/// mistyped one as it does in the full record. A repeated key keeps its last value, as
/// `serde_json` does.
fn skimmed(
    members: &[(&str, &str)],
    skip: &[&str],
    skip_too: Option<&str>,
    keep: &[&str],
) -> Result<Value, serde_json::Error> {
    let mut obj = serde_json::Map::new();
    for &(k, raw) in members {
        let v = if (skip.contains(&k) && !keep.contains(&k)) || skip_too == Some(k) {
            placeholder(raw)
        } else {
            serde_json::from_str(raw)?
        };
        obj.insert(k.to_owned(), v);
    }
    Ok(Value::Object(obj))
}

/// An empty value of the type of the JSON text `raw` (scalars as they are: they are short).
fn placeholder(raw: &str) -> Value {
    match raw.as_bytes().first() {
        Some(b'"') => Value::String(String::new()),
        Some(b'{') => Value::Object(serde_json::Map::new()),
        Some(b'[') => Value::Array(Vec::new()),
        _ => serde_json::from_str(raw).unwrap_or(Value::Null),
    }
}

/// True when [`SpanReader`] gives `dataset`'s records the same sources as
/// [`Dataset::record`](Dataset::record): every file's format has explicit ids and one
/// line per id by design ([`FormatSpec::skimmable`](crate::formats::FormatSpec::skimmable)).
#[must_use]
pub fn skimmable(dataset: &Dataset) -> bool {
    dataset.files().all(|f| f.format.spec().skimmable)
}

/// A dataset's records read with only what clustering needs: id, answer, type and every
/// source's spans; each format's [`skim_skips`](crate::formats::FormatSpec::skim_skips) (the context
/// above all) and, in joined files, its [`gold_list`](crate::formats::FormatSpec::gold_list) (whose
/// gold a join drops) are stepped over, never built.
/// Joined files are matched by id: the line at the same position when its id matches (files
/// written in the same order, as halu-toolace's and the generator's are), else through an id
/// map built on first need. A joined line whose answer text is not the record's attaches no
/// span and leaves a warning, as in [`Dataset::record`](Dataset::record); unlike it, the
/// same-position match does not look for other lines with the id (a prediction file that repeats
/// an id is read whole by the dataset only).
///
/// For clustering and the disputed queue only: such a record has no context, query or meta,
/// so its [`Record::content_hash`] is not the real one (never replay decisions onto it).
#[derive(Debug)]
pub struct SpanReader<'d> {
    files: Files<'d>,
    maps: Vec<std::sync::OnceLock<HashMap<String, Vec<usize>>>>,
    keep: &'static [&'static str],
    /// Lines read by their format's borrowing reader where it has one ([`SpanReader::lite`]).
    lite: bool,
}

/// The files a [`SpanReader`] reads: a dataset's, or its own.
#[derive(Debug)]
enum Files<'d> {
    Borrowed(Vec<&'d DataFile>),
    Owned(Vec<DataFile>),
}

impl Files<'_> {
    fn all(&self) -> Vec<&DataFile> {
        match self {
            Self::Borrowed(v) => v.clone(),
            Self::Owned(v) => v.iter().collect(),
        }
    }
}

impl<'d> SpanReader<'d> {
    /// A reader over `dataset`'s files.
    #[must_use]
    pub fn new(dataset: &'d Dataset) -> Self {
        let files: Vec<&DataFile> = dataset.files().collect();
        let maps = files.iter().map(|_| std::sync::OnceLock::new()).collect();
        Self {
            files: Files::Borrowed(files),
            maps,
            keep: &[],
            lite: false,
        }
    }

    /// The same reader, parsing the members named in `keep` although the format skips them
    /// (`compare --by-type` needs the corruption type a RAGTruth record keeps in `meta`).
    #[must_use]
    pub fn keeping(self, keep: &'static [&'static str]) -> Self {
        Self { keep, ..self }
    }

    /// The same reader, reading each line with its format's borrowing reader where it has one
    /// ([`FormatSpec::lite`](crate::formats::FormatSpec::lite)): the same id, answer, type and
    /// spans, but no raw value at all (the record's or its spans'), so only for passes that
    /// read nothing else (`compare`).
    #[must_use]
    pub fn lite(self) -> Self {
        Self { lite: true, ..self }
    }

    /// Open `paths` itself (the first file with answer text leads, as in a
    /// [`Dataset`](Dataset)); unlike a dataset it builds no id map up front (only when a
    /// joined file is not in the leading file's order).
    ///
    /// # Errors
    /// A file cannot be opened or recognised, or none has answer text.
    pub fn open(
        paths: &[PathBuf],
        format: Option<Format>,
    ) -> Result<SpanReader<'static>, FormatError> {
        let mut files = paths
            .iter()
            .map(|p| DataFile::open(p, format, None))
            .collect::<Result<Vec<_>, _>>()?;
        let primary = files.remove(crate::formats::dataset::lead(&files)?);
        files.insert(0, primary);
        let maps = files.iter().map(|_| std::sync::OnceLock::new()).collect();
        Ok(SpanReader {
            files: Files::Owned(files),
            maps,
            keep: &[],
            lite: false,
        })
    }

    /// Number of records (of the leading file).
    #[must_use]
    pub fn len(&self) -> usize {
        self.files.all().first().map_or(0, |f| f.len())
    }

    /// True when there is no record.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn skim(&self, file: &DataFile, i: usize, joined: bool) -> Result<Record, FormatError> {
        /// A buffer larger than this is not kept for the next line (one huge record would
        /// hold its memory for the thread's life).
        const KEPT: usize = 1 << 20;
        thread_local! {
            // One line buffer per thread for every line it reads.
            static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        LINE.with_borrow_mut(|buf| {
            file.index.bytes_into(i, buf)?;
            let read = self.skim_line(file, i, joined, buf);
            if buf.capacity() > KEPT {
                *buf = Vec::new();
            }
            read
        })
    }

    /// [`SpanReader::skim`] of line `i` of `file`, read as `bytes`.
    fn skim_line(
        &self,
        file: &DataFile,
        i: usize,
        joined: bool,
        bytes: &[u8],
    ) -> Result<Record, FormatError> {
        let spec = file.format.spec();
        if let Some(read) = spec.lite.filter(|_| self.lite) {
            if let Some(r) = read(bytes, &file.source, joined) {
                return Ok(r);
            }
        }
        // The skimmer checks the whole line (an invalid byte or a number beyond f64 in a
        // member stepped over makes the full reader refuse it) and hands out the members' raw
        // text in one pass; a line it refuses, or whose keys are written with escapes, goes to
        // the full reader, for its own words.
        let top = simdutf8::basic::from_utf8(bytes)
            .ok()
            .and_then(|t| crate::formats::validate::skim::top(t, "").ok());
        let members = match top {
            Some(Top::Object(m, _)) if m.iter().all(|(k, _)| !k.contains('\\')) => m,
            _ => return file.record_in(i, bytes),
        };
        let skip_too = spec.gold_list.filter(|_| joined);
        // A line it refuses: the full reader's own words (which quote the real value).
        skimmed(&members, spec.skim_skips, skip_too, self.keep)
            .ok()
            .and_then(|v| file.format.parse(v, &file.source).ok())
            .map_or_else(|| file.record_in(i, bytes), Ok)
    }

    /// Record `i`, skimmed, with the sources of every joined file that has its id (a joined
    /// file's unreadable line becomes a warning on the record).
    ///
    /// # Errors
    /// The leading file's record cannot be read.
    pub fn record(&self, i: usize) -> Result<Record, FormatError> {
        let files = self.files.all();
        let Some(primary) = files.first() else {
            return Err(FormatError::NoRecord {
                path: PathBuf::new(),
                index: i,
                len: 0,
            });
        };
        let mut rec = self.skim(primary, i, false)?;
        for (k, f) in files.iter().enumerate().skip(1) {
            // Same position first: one parse when the files share the order.
            let here = (i < f.len())
                .then(|| self.skim(f, i, true).ok())
                .flatten()
                .filter(|o| o.id == rec.id);
            let found: Vec<(usize, Result<Record, FormatError>)> = match here {
                Some(o) => vec![(i, Ok(o))],
                None => {
                    let map = self.maps[k].get_or_init(|| {
                        let mut m: HashMap<String, Vec<usize>> = HashMap::new();
                        for j in 0..f.len() {
                            if let Ok(id) = f.id(j) {
                                m.entry(id).or_default().push(j);
                            }
                        }
                        m
                    });
                    map.get(&rec.id)
                        .map_or(&[][..], Vec::as_slice)
                        .iter()
                        .map(|&j| (j, self.skim(f, j, true)))
                        .collect()
                }
            };
            for (j, other) in found {
                match other {
                    // The same rule as `Dataset::record`: another answer text, no spans.
                    Ok(other) => crate::formats::dataset::join_record(&mut rec, other, f, j),
                    Err(e) => rec.warnings.push(e.to_string()),
                }
            }
        }
        Ok(rec)
    }
}

#[cfg(test)]
mod tests;
