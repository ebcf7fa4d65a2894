//! Export's record files (one, or one per value with `--split-by`), and the files an output
//! must not be.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde_json::Value;

use super::parquet::{ParquetOut, Shape};
use crate::formats::entry::Entry;
use crate::formats::index::{FileIndex, Layout};
use crate::formats::parquet::Rows;

pub use super::atomic::{check_dest, check_folder, AtomicFile};
pub use super::dest::{canonical, parent};

/// Files that must not be written to: the inputs, the database, and (under `--split-by`) the
/// other outputs.
#[derive(Debug, Default)]
pub struct Protected {
    paths: Vec<Guarded>,
}

/// A protected file: canonical path, file id (device, inode), and what it is ("the input
/// file", "the --verdicts file").
type Guarded = (PathBuf, Option<(u64, u64)>, String);

fn file_id(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

impl Protected {
    /// Protect `path`, which is `what` ("the input file", say).
    pub fn add(&mut self, path: &Path, what: &str) {
        self.paths
            .push((canonical(path), file_id(path), what.to_owned()));
    }

    /// The protected file `path` is (same canonical path, or the same file under another
    /// name: a hard link): its canonical path and what it is.
    #[must_use]
    pub fn which(&self, path: &Path) -> Option<(&Path, &str)> {
        let c = canonical(path);
        let id = file_id(path);
        self.paths
            .iter()
            .find(|(p, pid, _)| *p == c || (id.is_some() && id == *pid))
            .map(|(p, _, is)| (p.as_path(), is.as_str()))
    }

    /// Refuse `dest` when it is a protected file ([`Protected::which`]).
    ///
    /// # Errors
    /// A message naming both paths.
    pub fn check(&self, dest: &Path, what: &str) -> anyhow::Result<()> {
        if let Some((p, is)) = self.which(dest) {
            bail!(
                "refusing to write {what} {}: it is {is} {} (choose another path)",
                dest.display(),
                p.display()
            );
        }
        Ok(())
    }
}

/// A file of records in the input's layout (JSONL, one JSON array, or parquet).
#[derive(Debug)]
pub struct RecordFile {
    file: AtomicFile,
    layout: Layout,
    /// The parquet writer, when the layout is parquet.
    parquet: Option<Box<ParquetOut>>,
    count: usize,
    /// Input lines waiting to be copied: `start..end` of `source`, consecutive lines.
    run: Option<(u64, u64)>,
    /// The input file lines are copied from.
    source: Option<(PathBuf, File)>,
}

impl RecordFile {
    /// Start writing `dest`.
    ///
    /// # Errors
    /// As [`AtomicFile::create`].
    pub fn create(dest: &Path, layout: Layout) -> anyhow::Result<Self> {
        Ok(Self {
            file: AtomicFile::create(dest)?,
            layout,
            parquet: None,
            count: 0,
            run: None,
            source: None,
        })
    }

    /// Start writing `dest` as parquet of `shape` (JSONL when there is none).
    ///
    /// # Errors
    /// As [`AtomicFile::create`]; the schema cannot be written.
    pub fn create_as(dest: &Path, layout: Layout, shape: Option<&Shape>) -> anyhow::Result<Self> {
        let mut f = Self::create(dest, layout)?;
        if let (Layout::Parquet, Some(shape)) = (layout, shape) {
            let out = ParquetOut::new(shape).with_context(|| dest.display().to_string())?;
            f.parquet = Some(Box::new(out));
        } else if layout == Layout::Parquet {
            f.layout = Layout::Lines;
        }
        Ok(f)
    }

    /// Write the parquet bytes the writer has finished into the file.
    fn write_ready(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let dest = self.file.dest().to_path_buf();
        self.file
            .writer()?
            .write_all(bytes)
            .with_context(|| format!("writing {}", super::dest::shown(&dest)))?;
        self.file.wrote(bytes.len() as u64)
    }

    /// Append the JSONL line at `offset..offset + len` of `source` as it is. Consecutive lines
    /// (one line end apart) are gathered and copied at once, by the kernel where it can
    /// (`std::io::copy` between files uses `copy_file_range`): no read into memory.
    ///
    /// # Errors
    /// Reading or writing fails.
    pub fn push_input(&mut self, source: &FileIndex, offset: u64, len: u32) -> anyhow::Result<()> {
        if self.layout != Layout::Lines {
            bail!("internal: input lines copied into a JSON array");
        }
        let end = offset + u64::from(len);
        let path = source.path();
        let same = self.source.as_ref().is_some_and(|(p, _)| p == path);
        match &mut self.run {
            Some((_, run_end)) if same && *run_end + 1 == offset => *run_end = end,
            _ => {
                self.copy_run()?;
                if !same {
                    // The file that was indexed (its descriptor), not whatever is at its
                    // path now: a file replaced under the export must not be mixed in.
                    let f = source
                        .file()
                        .try_clone()
                        .with_context(|| format!("reading {}", path.display()))?;
                    self.source = Some((path.to_path_buf(), f));
                }
                self.run = Some((offset, end));
            }
        }
        self.count += 1;
        Ok(())
    }

    /// Copy the gathered input lines, and a line end.
    fn copy_run(&mut self) -> anyhow::Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let (Some((start, end)), Some((path, src))) = (self.run.take(), self.source.as_mut())
        else {
            return Ok(());
        };
        let dest = self.file.dest().to_path_buf();
        src.seek(SeekFrom::Start(start))
            .with_context(|| format!("reading {}", path.display()))?;
        let stream = self.file.is_stream();
        let w = self.file.writer()?;
        let copied = if stream {
            // A stream (standard output, a terminal) gets C1 and bidirectional controls as
            // `\u...`, as every JSON output; line by line (no character spans a line end).
            escaped_copy(&mut src.take(end - start), w)
        } else {
            io::copy(&mut src.take(end - start), w)
        };
        let copied = copied
            .and_then(|n| w.write_all(b"\n").map(|()| n))
            .with_context(|| {
                format!(
                    "copying {} into {}",
                    path.display(),
                    super::dest::shown(&dest)
                )
            })?;
        self.file.wrote(copied + 1)?;
        if copied != end - start {
            bail!(
                "{} changed while it was exported (it is shorter than when it was read)",
                path.display()
            );
        }
        Ok(())
    }

    /// Append one record's bytes.
    ///
    /// # Errors
    /// Writing fails.
    pub fn push(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.push(bytes)
                .with_context(|| format!("writing {}", self.file.dest().display()))?;
            let ready = p.ready();
            self.write_ready(&ready)?;
            self.count += 1;
            return Ok(());
        }
        self.copy_run()?;
        let layout = self.layout;
        let first = self.count == 0;
        let dest = self.file.dest().to_path_buf();
        let w = self.file.writer()?;
        let r = match layout {
            Layout::Lines | Layout::Parquet => w.write_all(bytes).and_then(|()| w.write_all(b"\n")),
            Layout::Array => w
                .write_all(if first { b"[\n  " } else { b",\n  " })
                .and_then(|()| w.write_all(bytes)),
        };
        r.with_context(|| format!("writing {}", super::dest::shown(&dest)))?;
        self.file.wrote(bytes.len() as u64 + 4)?;
        self.count += 1;
        Ok(())
    }

    /// Append row `entry` of the parquet input `rows` unchanged (its Arrow values into a
    /// parquet file; `bytes`, its JSON, into any other).
    ///
    /// # Errors
    /// Reading the row group or writing fails.
    pub fn push_row(&mut self, rows: &Rows, entry: &Entry, bytes: &[u8]) -> anyhow::Result<()> {
        let Some(p) = &mut self.parquet else {
            return self.push(&crate::model::escape::json_bytes(bytes));
        };
        let g = usize::try_from(entry.offset).unwrap_or(usize::MAX);
        p.push_row(rows, g, entry.len as usize)
            .with_context(|| format!("writing {}", self.file.dest().display()))?;
        let ready = p.ready();
        self.write_ready(&ready)?;
        self.count += 1;
        Ok(())
    }

    /// Close the layout, flush and sync.
    ///
    /// # Errors
    /// Writing fails.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        if let Some(p) = self.parquet.take() {
            let rest = p
                .finish()
                .with_context(|| format!("writing {}", self.file.dest().display()))?;
            self.write_ready(&rest)?;
            return self.file.finish();
        }
        self.copy_run()?;
        if self.layout == Layout::Array {
            let tail: &[u8] = if self.count == 0 { b"[]\n" } else { b"\n]\n" };
            let dest = self.file.dest().to_path_buf();
            self.file
                .writer()?
                .write_all(tail)
                .with_context(|| format!("writing {}", super::dest::shown(&dest)))?;
        }
        self.file.finish()
    }

    /// Where it goes.
    #[must_use]
    pub fn dest(&self) -> &Path {
        self.file.dest()
    }

    /// The file being written (its temporary file until it is renamed).
    #[must_use]
    pub fn written(&self) -> &Path {
        self.file.written()
    }

    /// Records written.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The file, finished, to be renamed into place ([`persist_all`](super::set::persist_all)).
    #[must_use]
    pub fn into_file(self) -> AtomicFile {
        self.file
    }
}

/// The record output: one file, or one file per value of the `--split-by` field.
#[derive(Debug)]
pub enum Records {
    /// Everything into `--out`.
    One(RecordFile),
    /// One file per value, created when the value is first met.
    Split {
        /// `--out`, whose stem and extension name the files.
        out: PathBuf,
        /// The `--split-by` field (for messages).
        field: String,
        /// Layout of the files.
        layout: Layout,
        /// Their parquet schema and settings, when they are parquet.
        shape: Option<Shape>,
        /// Open files by value.
        files: BTreeMap<String, RecordFile>,
        /// The value each file was opened for: two values whose file names are the same
        /// (`a/b` and `a_b`) are refused, not written into one file.
        names: HashMap<PathBuf, String>,
    },
}

/// The file name part of a split value: characters other than letters, digits, `-`, `_` and
/// `.` become `_`; an empty value is `none`.
#[must_use]
pub fn file_part(value: &str) -> String {
    let s: String = value
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('.').to_owned();
    if s.is_empty() {
        "none".to_owned()
    } else {
        s
    }
}

/// `<out-stem>.<value>.<out-extension>` beside `out`.
#[must_use]
pub fn split_path(out: &Path, value: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "export".into(), |s| s.to_string_lossy());
    let name = match out.extension() {
        Some(ext) => format!("{stem}.{}.{}", file_part(value), ext.to_string_lossy()),
        None => format!("{stem}.{}", file_part(value)),
    };
    parent(out).join(name)
}

impl Records {
    /// Write one record to the file of `route` (ignored when not splitting).
    ///
    /// # Errors
    /// A file cannot be created or written.
    pub fn push(&mut self, route: &str, bytes: &[u8]) -> anyhow::Result<()> {
        match self {
            Self::One(f) => f.push(bytes),
            Self::Split {
                out,
                field,
                layout,
                shape,
                files,
                names,
            } => {
                if !files.contains_key(route) {
                    let path = split_path(out, route);
                    if let Some(other) = names.get(&path) {
                        bail!(
                            "--split-by {field}: the values {other:?} and {route:?} would both be \
                             written to {} (a file name keeps only letters, digits, `-`, `_` and \
                             `.` of a value; an empty one is `none`); nothing was written. Split \
                             by another field, or make the values distinct in the input",
                            path.display()
                        );
                    }
                    let f = RecordFile::create_as(&path, *layout, shape.as_ref())?;
                    names.insert(path, route.to_owned());
                    files.insert(route.to_owned(), f);
                }
                match files.get_mut(route) {
                    Some(f) => f.push(bytes),
                    None => bail!("internal: no file for {route:?}"),
                }
            }
        }
    }

    /// True when the records are written as parquet.
    #[must_use]
    pub fn is_parquet(&self) -> bool {
        match self {
            Self::One(f) => f.parquet.is_some(),
            Self::Split { shape, .. } => shape.is_some(),
        }
    }

    /// Write row `entry` of the parquet input `rows` unchanged (not splitting: split files
    /// get its JSON `bytes`).
    ///
    /// # Errors
    /// Reading or writing fails.
    pub fn push_row(&mut self, rows: &Rows, entry: &Entry, bytes: &[u8]) -> anyhow::Result<()> {
        match self {
            Self::One(f) => f.push_row(rows, entry, bytes),
            Self::Split { .. } => self.push("", &crate::model::escape::json_bytes(bytes)),
        }
    }

    /// Write the JSONL line at `offset..offset + len` of `source` as it is (not splitting).
    ///
    /// # Errors
    /// Reading or writing fails, or the output is split.
    pub fn push_input(&mut self, source: &FileIndex, offset: u64, len: u32) -> anyhow::Result<()> {
        match self {
            Self::One(f) => f.push_input(source, offset, len),
            Self::Split { .. } => bail!("internal: input lines copied into split files"),
        }
    }

    /// No file: what stands in for a set taken out to be finished ([`Records::finish`]).
    #[must_use]
    pub fn none(layout: Layout) -> Self {
        Self::Split {
            out: PathBuf::new(),
            field: String::new(),
            layout,
            shape: None,
            files: BTreeMap::new(),
            names: HashMap::new(),
        }
    }

    /// Finish every file, and return them for renaming.
    ///
    /// # Errors
    /// Writing fails.
    pub fn finish(self) -> anyhow::Result<Vec<RecordFile>> {
        let mut all = match self {
            Self::One(f) => vec![f],
            Self::Split { files, .. } => files.into_values().collect(),
        };
        for f in &mut all {
            f.finish()?;
        }
        Ok(all)
    }
}

/// The value at a dotted path (`meta.corruption_type`) as a file-name-ready string: strings as
/// they are, other values as JSON; `None` when it is missing or null (routed to `none`).
#[must_use]
pub fn route_of(value: &Value, path: &str) -> Option<String> {
    let mut v = value;
    for part in path.split('.') {
        v = v.get(part)?;
    }
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The route of a record without a value in the `--split-by` field.
pub const NO_VALUE: &str = "none";

/// Copy `r` into `w` line by line with [`crate::model::escape::json_bytes`]; the count is of
/// the bytes read.
fn escaped_copy(r: &mut impl io::Read, w: &mut impl Write) -> io::Result<u64> {
    use std::io::BufRead;
    let mut r = io::BufReader::with_capacity(1 << 16, r);
    let mut line = Vec::new();
    let mut n = 0;
    loop {
        line.clear();
        let got = r.read_until(b'\n', &mut line)?;
        if got == 0 {
            return Ok(n);
        }
        n += got as u64;
        w.write_all(&crate::model::escape::json_bytes(&line))?;
    }
}

#[cfg(test)]
mod tests;
