//! A parquet file's index: its footer read, one entry per row (row group, row in it), and the
//! rows' bytes as JSON ([`crate::formats::parquet`]).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use super::{Entry, FileIndex, Layout};
use crate::formats::parquet::{named_parquet, starts_parquet, Rows};
use crate::formats::FormatError;

/// A file named `.parquet` that does not start with the magic: said so, rather than read as
/// JSON and refused line by line.
fn misnamed(path: &Path) -> FormatError {
    FormatError::Unknown {
        path: path.to_path_buf(),
        reason: "it is named .parquet but is not a parquet file (it does not start with \
                 PAR1): an HTML error page or a Git LFS pointer saved in its place?"
            .to_owned(),
    }
}

impl FileIndex {
    /// `file` (at `path`) indexed as parquet when it starts with the parquet magic; `Ok(Err(file))`
    /// gives it back when it does not (and is not named `.parquet`).
    ///
    /// # Errors
    /// A file cut short, a footer that is not parquet's, a `.parquet` file that is not parquet.
    pub(crate) fn parquet(path: &Path, file: File) -> Result<Result<Self, File>, FormatError> {
        let is = starts_parquet(&file).map_err(|source| FormatError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if !is {
            return if named_parquet(path) {
                Err(misnamed(path))
            } else {
                Ok(Err(file))
            };
        }
        let rows = Rows::open(path, &file)?;
        Ok(Ok(Self {
            path: path.to_path_buf(),
            file,
            layout: Layout::Parquet,
            entries: rows.entries(),
            problems: Vec::new(),
            from_cache: false,
            cached: None,
            rest: None,
            parquet: Some(Arc::new(rows)),
        }))
    }

    /// The parquet file's rows, when the file is parquet.
    #[must_use]
    pub fn parquet_rows(&self) -> Option<&Rows> {
        self.parquet.as_deref()
    }

    /// Call `f(k, entry, bytes)` for each of `entries` of this file in order (JSONL and
    /// arrays read in blocks of up to `block` bytes, parquet a row group at a time). A part
    /// that cannot be read goes to `bad` with its entries; for parquet the other row groups
    /// are still read, for the others reading stops there.
    pub(crate) fn for_each_entry(
        &self,
        entries: &[Entry],
        block: u64,
        f: impl FnMut(usize, &Entry, &[u8]),
        mut bad: impl FnMut(&[Entry], FormatError),
    ) {
        if let Some(rows) = &self.parquet {
            rows.for_each(entries, f, bad);
            return;
        }
        if let Err(source) = super::read_in_blocks(&self.file, entries, block, f) {
            bad(
                entries,
                FormatError::Io {
                    path: self.path.clone(),
                    source,
                },
            );
        }
    }

    /// The bytes of parquet row `e`.
    pub(super) fn parquet_bytes(rows: &Rows, e: Entry) -> Result<Vec<u8>, FormatError> {
        let group = rows.group(usize::try_from(e.offset).unwrap_or(usize::MAX))?;
        group
            .get(e.len as usize)
            .cloned()
            .ok_or_else(|| FormatError::NoRecord {
                path: rows.path().to_path_buf(),
                index: e.line as usize - 1,
                len: usize::try_from(rows.rows()).unwrap_or(0),
            })
    }
}
