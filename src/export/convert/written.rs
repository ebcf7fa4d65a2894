//! Where converted records go as they are made, so that no output is held in memory.
//!
//! A file is written under its temporary name record by record (renamed over at the end, or
//! removed when the run is refused). Standard output and other streams cannot take a line
//! back, so their records wait in an unnamed spool file, copied out once the run is known to
//! write. Records written onto `--records` are made in the input's order and go out in the
//! originals' order: while the two orders agree (the input made from the originals) each goes
//! straight out; from the first that does not, they wait in a spool ([`Placed`]), found by
//! position.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use super::super::dest::{self, stdout_failed, Target};
use super::super::AtomicFile;
use crate::formats::index::Layout;
use crate::model::escape;

/// The `--out` file being written: JSONL, or a JSON array with one element a line.
pub(super) struct Written {
    path: PathBuf,
    /// The temporary file of a regular file; `None` for a stream.
    file: Option<AtomicFile>,
    /// A stream's records until [`Written::finish`].
    spool: Option<BufWriter<File>>,
    array: bool,
    count: usize,
    /// The line being written (kept to spare an allocation a record).
    buf: Vec<u8>,
}

/// `value` as one line into `buf` (cleared first), C1 and bidirectional controls as `\u...`
/// (read back as the same value).
fn line_of<'a>(value: &Value, buf: &'a mut Vec<u8>) -> std::borrow::Cow<'a, [u8]> {
    buf.clear();
    serde_json::to_writer(&mut *buf, value).expect("a JSON value serialises into memory");
    escape::json_bytes(buf)
}

impl Written {
    /// Start writing `path` (`-`: standard output) in `layout`.
    ///
    /// # Errors
    /// The file's folder is not writable, or no spool file can be made.
    pub(super) fn create(path: &Path, layout: Layout) -> anyhow::Result<Self> {
        let stream = path.as_os_str() == "-" || dest::target(path)? == Target::Stream;
        let (file, spool) = if stream {
            let spool = tempfile::tempfile().context("making a spool file for a stream")?;
            (None, Some(BufWriter::with_capacity(1 << 20, spool)))
        } else {
            (Some(AtomicFile::create(path)?), None)
        };
        let mut written = Self {
            path: path.to_path_buf(),
            file,
            spool,
            array: layout == Layout::Array,
            count: 0,
            buf: Vec::new(),
        };
        if written.array {
            written.bytes(b"[\n")?;
        }
        Ok(written)
    }

    /// Records written so far.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// Write `value` as the next record.
    ///
    /// # Errors
    /// The output cannot be written.
    pub(super) fn push(&mut self, value: &Value) -> anyhow::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        let pushed = self.push_line(&line_of(value, &mut buf));
        self.buf = buf;
        pushed
    }

    /// Write `json`, one record's JSON text as `serde_json` writes it, as the next record
    /// (escaped as [`Written::push`] escapes it).
    ///
    /// # Errors
    /// The output cannot be written.
    pub(super) fn push_json(&mut self, json: &[u8]) -> anyhow::Result<()> {
        self.push_line(&escape::json_bytes(json))
    }

    /// Write `line`, one record's JSON text, as the next record.
    fn push_line(&mut self, line: &[u8]) -> anyhow::Result<()> {
        if self.array && self.count > 0 {
            self.bytes(b",\n")?;
        }
        self.bytes(line)?;
        if !self.array {
            self.bytes(b"\n")?;
        }
        self.count += 1;
        Ok(())
    }

    fn bytes(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        let what = || format!("writing {}", self.path.display());
        if let Some(spool) = &mut self.spool {
            return spool.write_all(bytes).context("writing the spool file");
        }
        let file = self
            .file
            .as_mut()
            .expect("a regular file when there is no spool");
        file.writer()
            .and_then(|w| w.write_all(bytes))
            .with_context(what)?;
        // Written back on another thread as it grows, as export's files are.
        file.wrote(bytes.len() as u64)
    }

    /// End the output (a JSON array closed) and copy a stream's spool out: the file to rename
    /// into place with the others, `None` when it went to standard output.
    ///
    /// # Errors
    /// The output cannot be written; standard output's reader went away ([`super::super::ClosedPipe`]).
    pub(super) fn finish(mut self) -> anyhow::Result<Option<AtomicFile>> {
        if self.array {
            let end: &[u8] = if self.count > 0 { b"\n]\n" } else { b"]\n" };
            self.bytes(end)?;
        }
        let Some(spool) = self.spool.take() else {
            return Ok(self.file);
        };
        let mut spool = spool.into_inner().map_err(io::IntoInnerError::into_error)?;
        spool.seek(SeekFrom::Start(0))?;
        if self.path.as_os_str() == "-" {
            let mut out = io::stdout().lock();
            io::copy(&mut spool, &mut out)
                .and_then(|_| out.flush())
                .map_err(stdout_failed)?;
            return Ok(None);
        }
        let mut file = AtomicFile::create(&self.path)?;
        let w = file
            .writer()
            .with_context(|| format!("writing {}", self.path.display()))?;
        io::copy(&mut spool, w)
            .and_then(|_| w.flush())
            .with_context(|| format!("writing {}", self.path.display()))?;
        Ok(Some(file))
    }

    /// Write the originals in their order, each placed record instead of its original (the
    /// others as `original(j)` gives their JSON text).
    ///
    /// # Errors
    /// An original cannot be read, or the output cannot be written.
    pub(super) fn originals(
        &mut self,
        len: usize,
        placed: Placed,
        mut original: impl FnMut(usize) -> anyhow::Result<Vec<u8>>,
    ) -> anyhow::Result<()> {
        let from = placed.next;
        let placed = placed.into_lines()?;
        for j in from..len {
            match placed.get(j)? {
                Some(line) => self.push_line(&line)?,
                None => self.push_json(&original(j)?)?,
            }
        }
        Ok(())
    }
}

/// Records written onto originals, by the original's position: straight to the output while
/// they come in the originals' order, then in a spool file.
pub(super) struct Placed {
    spool: BufWriter<File>,
    at: HashMap<usize, (u64, usize)>,
    end: u64,
    /// Whether records still go straight out (each so far the next original's).
    straight: bool,
    /// The originals written out already: `0..next`.
    next: usize,
    /// A record came for an original written out already: the run must be made again with
    /// [`Placed::new`]`(false)`, for the later record to stand.
    again_written: bool,
}

impl Placed {
    /// An empty spool; with `straight`, records in the originals' order go straight out.
    ///
    /// # Errors
    /// No spool file can be made.
    pub(super) fn new(straight: bool) -> anyhow::Result<Self> {
        let spool = tempfile::tempfile().context("making a spool file")?;
        Ok(Self {
            spool: BufWriter::with_capacity(1 << 20, spool),
            at: HashMap::new(),
            end: 0,
            straight,
            next: 0,
            again_written: false,
        })
    }

    /// True when a record came for an original already written out: the run is to be made
    /// again without writing straight out, so that this later record stands.
    pub(super) fn must_redo(&self) -> bool {
        self.again_written
    }

    /// `json`, a record's JSON text as `serde_json` writes it, as the record at position `j`
    /// (escaped as [`Written::push`] escapes it): into `out` when it is the next original,
    /// else into the spool. True when one was there already (this one stands; when that one
    /// went out already, [`Placed::must_redo`]).
    ///
    /// # Errors
    /// The spool or the output cannot be written.
    pub(super) fn put_json(
        &mut self,
        j: usize,
        json: &[u8],
        out: &mut Written,
    ) -> anyhow::Result<bool> {
        if j < self.next {
            self.again_written = true;
            return Ok(true);
        }
        if self.straight && j == self.next {
            self.next += 1;
            out.push_json(json)?;
            return Ok(false);
        }
        self.straight = false;
        let line = escape::json_bytes(json);
        self.spool
            .write_all(&line)
            .context("writing the spool file")?;
        let again = self.at.insert(j, (self.end, line.len())).is_some();
        self.end += line.len() as u64;
        Ok(again)
    }

    fn into_lines(self) -> anyhow::Result<PlacedLines> {
        let file = self
            .spool
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        Ok(PlacedLines { file, at: self.at })
    }
}

/// A finished [`Placed`], read back by position.
struct PlacedLines {
    file: File,
    at: HashMap<usize, (u64, usize)>,
}

impl PlacedLines {
    fn get(&self, j: usize) -> anyhow::Result<Option<Vec<u8>>> {
        let Some(&(offset, len)) = self.at.get(&j) else {
            return Ok(None);
        };
        let mut line = vec![0; len];
        self.file
            .read_exact_at(&mut line, offset)
            .context("reading the spool file")?;
        Ok(Some(line))
    }
}

#[cfg(test)]
mod tests;
