//! Parquet records files (what `datasets`' `to_parquet` and `push_to_hub` write): each row is a
//! record, its columns the record's fields ([`json`]: nested structs and lists as JSON objects
//! and arrays, `arrow.json` columns as the value they hold, nulls as null). A file is told by
//! its magic bytes (`PAR1` at its start and end), not its name.
//!
//! Lazy by row group: opening reads the footer only (the schema and each row group's row
//! count), so the index is (row group, row) for every record at once; a record's bytes are its
//! row group decoded, one row group held at a time (the last one read), so memory is bounded
//! by a row group, not the file.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::reader::{ChunkReader, Length};

use super::entry::Entry;
use super::FormatError;

#[doc(hidden)]
pub mod fixture;
pub mod json;

/// The four bytes a parquet file starts and ends with.
pub const MAGIC: &[u8; 4] = b"PAR1";

/// Rows decoded per Arrow batch.
const BATCH: usize = 8192;

/// One row group decoded: each row's JSON bytes.
type Group = Arc<Vec<Vec<u8>>>;

/// True when `file` starts with the parquet magic.
///
/// # Errors
/// The file cannot be read.
pub fn starts_parquet(file: &File) -> std::io::Result<bool> {
    let mut head = [0u8; 4];
    let mut n = 0;
    while n < 4 {
        match file.read_at(&mut head[n..], n as u64)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n == 4 && &head == MAGIC)
}

/// True when `path` names a `.parquet` file (by its name only: files are told by their bytes).
#[must_use]
pub fn named_parquet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// `reason` a format was not told, with the columns of `rows`' schema when the file is parquet
/// (a schema without the answer or label columns is seen at once).
#[must_use]
pub fn with_columns(rows: Option<&Rows>, reason: String) -> String {
    let Some(rows) = rows else {
        return reason;
    };
    let names: Vec<&str> = rows
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    format!("{reason}; its parquet columns: {}", names.join(", "))
}

/// A parquet file's rows, read by row group.
pub struct Rows {
    path: PathBuf,
    file: At,
    meta: ArrowReaderMetadata,
    /// The first row of each row group, and the number of rows after the last.
    starts: Vec<u64>,
    /// The row group read last.
    last: Mutex<Option<(usize, Group)>>,
}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rows")
            .field("path", &self.path)
            .field("row_groups", &(self.starts.len() - 1))
            .finish_non_exhaustive()
    }
}

impl Rows {
    /// Read the footer of `file` (which starts with [`MAGIC`]), the parquet file at `path`.
    ///
    /// # Errors
    /// The file is cut short (no footer) or its footer is not parquet metadata: the message
    /// names the file and says which.
    pub fn open(path: &Path, file: &File) -> Result<Self, FormatError> {
        let unreadable = |reason: String| FormatError::Unknown {
            path: path.to_path_buf(),
            reason,
        };
        let io = |source: std::io::Error| FormatError::Io {
            path: path.to_path_buf(),
            source,
        };
        let at = At(Arc::new(file.try_clone().map_err(io)?));
        let size = at.len();
        let mut tail = [0u8; 4];
        if size >= 12 {
            file.read_exact_at(&mut tail, size - 4).map_err(io)?;
        }
        if &tail != MAGIC {
            return Err(unreadable(format!(
                "a parquet file cut short: it starts with PAR1 but does not end with it \
                 ({size} bytes; a download or copy that did not finish?), so its footer, which \
                 holds the schema and the row groups, is missing"
            )));
        }
        let meta = ArrowReaderMetadata::load(&at, ArrowReaderOptions::new())
            .map_err(|e| unreadable(format!("a parquet file whose footer cannot be read: {e}")))?;
        let mut starts = Vec::with_capacity(meta.metadata().num_row_groups() + 1);
        let mut row = 0u64;
        for g in meta.metadata().row_groups() {
            starts.push(row);
            row += u64::try_from(g.num_rows()).unwrap_or(0);
        }
        starts.push(row);
        if u32::try_from(row).is_err() {
            return Err(unreadable(format!(
                "{row} rows: more than a file's records can be numbered by"
            )));
        }
        Ok(Self {
            path: path.to_path_buf(),
            file: at,
            meta,
            starts,
            last: Mutex::new(None),
        })
    }

    /// The file's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The Arrow schema stored in the file.
    #[must_use]
    pub fn schema(&self) -> &arrow_schema::SchemaRef {
        self.meta.schema()
    }

    /// The file's footer: its row groups, column chunks (their codecs) and key-value metadata.
    #[must_use]
    pub fn metadata(&self) -> &parquet::file::metadata::ParquetMetaData {
        self.meta.metadata()
    }

    /// Number of row groups.
    #[must_use]
    pub fn row_groups(&self) -> usize {
        self.starts.len() - 1
    }

    /// Every row's place: `offset` its row group, `len` its row in it, `line` its 1-based row
    /// in the file.
    #[must_use]
    pub fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::with_capacity(usize::try_from(self.rows()).unwrap_or(0));
        for (g, w) in self.starts.windows(2).enumerate() {
            for r in 0..(w[1] - w[0]) {
                out.push(Entry {
                    offset: g as u64,
                    len: u32::try_from(r).unwrap_or(u32::MAX),
                    line: u32::try_from(w[0] + r + 1).unwrap_or(u32::MAX),
                });
            }
        }
        out
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(&self) -> u64 {
        self.starts.last().copied().unwrap_or(0)
    }

    /// Where the 1-based row `line` of the file is, in words: `row group 2, row 7` (both from
    /// 0, as parquet tools number them).
    #[must_use]
    pub fn place(&self, line: u32) -> String {
        let row = u64::from(line.max(1) - 1);
        let g = self.starts.partition_point(|&s| s <= row).saturating_sub(1);
        format!("row group {g}, row {}", row - self.starts[g])
    }

    /// Row group `g` decoded (the one read last is kept).
    ///
    /// # Errors
    /// Its pages cannot be read or decoded, or a value has no JSON form: the message names the
    /// row group and its rows.
    pub fn group(&self, g: usize) -> Result<Group, FormatError> {
        if let Ok(last) = self.last.lock() {
            if let Some((k, rows)) = last.as_ref() {
                if *k == g {
                    return Ok(Arc::clone(rows));
                }
            }
        }
        let rows = Arc::new(self.decode(g)?);
        if let Ok(mut last) = self.last.lock() {
            *last = Some((g, Arc::clone(&rows)));
        }
        Ok(rows)
    }

    /// Row group `g` as one Arrow batch of the file's schema (not kept).
    ///
    /// # Errors
    /// Its pages cannot be read or decoded: the message names the row group.
    pub fn arrow_group(&self, g: usize) -> Result<arrow_array::RecordBatch, FormatError> {
        let first = self.starts.get(g).copied().unwrap_or(0);
        let n = self.starts.get(g + 1).copied().unwrap_or(first) - first;
        let bad = |why: String| FormatError::Record {
            path: self.path.clone(),
            line: u32::try_from(first + 1).unwrap_or(u32::MAX),
            message: format!("row group {g} cannot be read: {why}"),
        };
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
            self.file.clone(),
            self.meta.clone(),
        )
        .with_row_groups(vec![g])
        .with_batch_size(usize::try_from(n).unwrap_or(BATCH).max(1))
        .build()
        .map_err(|e| bad(e.to_string()))?;
        let mut batches = Vec::new();
        for b in reader {
            batches.push(b.map_err(|e| bad(e.to_string()))?);
        }
        match batches.len() {
            0 => Ok(arrow_array::RecordBatch::new_empty(Arc::clone(
                self.schema(),
            ))),
            1 => Ok(batches.swap_remove(0)),
            k => Err(bad(format!("{k} batches where one was asked for"))),
        }
    }

    /// Decode row group `g` without keeping it.
    fn decode(&self, g: usize) -> Result<Vec<Vec<u8>>, FormatError> {
        if g >= self.row_groups() {
            return Err(FormatError::NoRecord {
                path: self.path.clone(),
                index: usize::try_from(self.rows()).unwrap_or(0),
                len: usize::try_from(self.rows()).unwrap_or(0),
            });
        }
        let first = self.starts.get(g).copied().unwrap_or(0);
        let n = self.starts.get(g + 1).copied().unwrap_or(first) - first;
        let line = u32::try_from(first + 1).unwrap_or(u32::MAX);
        let bad = |why: String| FormatError::Record {
            path: self.path.clone(),
            line,
            message: format!(
                "row group {g} (rows {}–{} of the file) cannot be read: {why}",
                first + 1,
                first + n
            ),
        };
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
            self.file.clone(),
            self.meta.clone(),
        )
        .with_row_groups(vec![g])
        .with_batch_size(BATCH)
        .build()
        .map_err(|e| bad(e.to_string()))?;
        let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        for batch in reader {
            let batch = batch.map_err(|e| bad(e.to_string()))?;
            let before = out.len();
            json::rows(&batch, &mut out).map_err(|e| {
                // Name the file's row rather than the batch's.
                bad(format!(
                    "{e} (batch from row {})",
                    first + before as u64 + 1
                ))
            })?;
        }
        if out.len() as u64 != n {
            return Err(bad(format!("{} rows read, the footer says {n}", out.len())));
        }
        Ok(out)
    }

    /// Call `f(k, entry, bytes)` for each of `entries` (of this file, in order), one row group
    /// decoded at a time. A row group that cannot be read is handed to `bad` with the entries
    /// of it that were asked for; the other row groups are still read.
    pub fn for_each(
        &self,
        entries: &[Entry],
        mut f: impl FnMut(usize, &Entry, &[u8]),
        mut bad: impl FnMut(&[Entry], FormatError),
    ) {
        let mut k = 0;
        while k < entries.len() {
            let g = entries[k].offset;
            let end = k + entries[k..].partition_point(|e| e.offset == g);
            let g = usize::try_from(g).unwrap_or(usize::MAX);
            // A range in the row group read last is served from it; another is decoded
            // without evicting it (the review screen's row group stays).
            let got = self
                .group_if_last(g)
                .map_or_else(|| self.decode(g).map(Arc::new), Ok);
            match got {
                Ok(rows) => {
                    for (j, e) in entries[k..end].iter().enumerate() {
                        match rows.get(e.len as usize) {
                            Some(bytes) => f(k + j, e, bytes),
                            None => bad(
                                std::slice::from_ref(e),
                                FormatError::NoRecord {
                                    path: self.path.clone(),
                                    index: e.line as usize - 1,
                                    len: usize::try_from(self.rows()).unwrap_or(0),
                                },
                            ),
                        }
                    }
                }
                Err(e) => bad(&entries[k..end], e),
            }
            k = end;
        }
    }

    /// Row group `g` when it is the one read last.
    fn group_if_last(&self, g: usize) -> Option<Group> {
        let last = self.last.lock().ok()?;
        let (k, rows) = last.as_ref()?;
        (*k == g).then(|| Arc::clone(rows))
    }
}

/// A file read at offsets (`pread`), so that readers on several threads do not move each
/// other's position (`File`'s own `ChunkReader` seeks a shared descriptor).
#[derive(Clone)]
struct At(Arc<File>);

impl Length for At {
    fn len(&self) -> u64 {
        self.0.metadata().map_or(0, |m| m.len())
    }
}

/// A reader of [`At`] from a position on.
struct AtRead {
    file: Arc<File>,
    pos: u64,
}

impl std::io::Read for AtRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl ChunkReader for At {
    type T = std::io::BufReader<AtRead>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(std::io::BufReader::new(AtRead {
            file: Arc::clone(&self.0),
            pos: start,
        }))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let mut buf = vec![0u8; length];
        self.0.read_exact_at(&mut buf, start).map_err(|e| {
            parquet::errors::ParquetError::EOF(format!(
                "{length} bytes at offset {start} cannot be read ({e}): the file is shorter \
                 than its footer says"
            ))
        })?;
        Ok(buf.into())
    }
}

#[cfg(test)]
mod tests;
