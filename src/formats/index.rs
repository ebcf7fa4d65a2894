//! Lazy access to the records of one file: index where each record starts without parsing it,
//! read and parse one record only when it is asked for.
//!
//! JSONL files are indexed by scanning for newlines (two threads, a bounded read buffer, so the
//! resident memory is the index only: 16 bytes a record). Files that hold one JSON array are
//! indexed by a small scanner that tracks strings and nesting depth. A UTF-8 byte-order mark, CRLF
//! line ends and blank lines are handled here, so the readers above never see them. The review
//! screen opens a large file lazily ([`FileIndex::open_lazy`], in `lazy.rs`): its first records
//! at once, the rest indexed in the background.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::FormatError;

pub mod cache;
mod lazy;
mod open;
mod parquet;

pub use cache::Cache;
pub use lazy::{Gate, Lazy, Permits, Then};
pub(crate) use open::{changed, head, open_input, read_exact_at};
pub use open::{NEEDS_REGULAR, STDIN};

pub use super::entry::Entry;

/// Layout of a file: one JSON value per line, or one JSON array of values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON value per non-blank line.
    Lines,
    /// A single JSON array; each element is a record.
    Array,
    /// A parquet file; each row is a record (an entry's `offset` is its row group, `len` its
    /// row in it, `line` its row in the file, from 1).
    Parquet,
}

/// An open file and the position of every record in it.
#[derive(Debug)]
pub struct FileIndex {
    path: PathBuf,
    file: File,
    layout: Layout,
    entries: Vec<Entry>,
    /// Problems met while indexing (an unterminated array, say), as `(line, message)`.
    pub problems: Problems,
    /// The entries came from the sidecar cache instead of a scan of the file.
    from_cache: bool,
    /// The cache and the file's key, when the file goes through the cache.
    cached: Option<Box<(Cache, cache::Key)>>,
    /// The rest of the file, being indexed in the background after a lazy open
    /// ([`FileIndex::open_lazy`]); `None` once the index is complete. (A lock only to keep the
    /// index `Sync`: [`FileIndex::poll`] takes `&mut self`.)
    rest: Option<std::sync::Mutex<lazy::Rest>>,
    /// The rows of a parquet file, read by row group.
    parquet: Option<std::sync::Arc<super::parquet::Rows>>,
}

const CHUNK: usize = 4 << 20;

impl FileIndex {
    /// Open `path` and index it, through the user's sidecar cache ([`Cache::from_env`]) when
    /// the file is large.
    ///
    /// # Errors
    /// I/O errors opening or reading the file.
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        Self::open_with(path, Cache::from_env().as_ref())
    }

    /// Open `path` and index it, through `cache` when given: a JSONL file that has a valid
    /// sidecar there is not scanned, and one that is scanned gets a sidecar.
    ///
    /// # Errors
    /// I/O errors opening or reading the file.
    pub fn open_with(path: &Path, cache: Option<&Cache>) -> Result<Self, FormatError> {
        let (file, streamed) = open_input(path)?;
        // A stream's copy is gone at exit: nothing to key a sidecar on.
        Self::index(path, file, cache.filter(|_| !streamed))
    }

    /// Index `file`, already open (from [`open_input`]), as the file at `path`.
    ///
    /// # Errors
    /// I/O errors reading the file.
    pub(crate) fn index(
        path: &Path,
        file: File,
        cache: Option<&Cache>,
    ) -> Result<Self, FormatError> {
        let file = match Self::parquet(path, file)? {
            Ok(parquet) => return Ok(parquet),
            Err(file) => file,
        };
        let io = |e: std::io::Error| FormatError::Io {
            path: path.to_path_buf(),
            source: e,
        };
        let open::Head { size, bom, array } = open::head(&file).map_err(io)?;
        let mut from_cache = false;
        let mut cached = None;
        let one_array = if array {
            index_array(&file, size).map_err(io)?
        } else {
            None
        };
        let (layout, entries, problems) = if let Some((e, p)) = one_array {
            (Layout::Array, e, p)
        } else {
            let cache = cache.filter(|c| c.wants(size));
            let key = cache.and_then(|_| cache::Key::of(&file, path).ok());
            let saved = cache
                .zip(key.as_ref())
                .and_then(|(c, k)| cache::load(c, k, &file));
            let entries = match saved {
                Some(e) => {
                    from_cache = true;
                    e
                }
                None => {
                    let e = index_lines(&file, size, bom).map_err(io)?;
                    if let (Some(c), Some(k)) = (cache, &key) {
                        cache::store(c, k, &file, &e);
                    }
                    e
                }
            };
            cached = cache.cloned().zip(key).map(Box::new);
            (Layout::Lines, entries, Vec::new())
        };
        Ok(Self {
            path: path.to_path_buf(),
            file,
            layout,
            entries,
            problems,
            from_cache,
            cached,
            rest: None,
            parquet: None,
        })
    }

    /// The record ids saved beside the index by [`FileIndex::save_ids`], one per record, when
    /// the file has not changed since and `check(i, bytes)` gives the saved id for a sample of
    /// records (`check` reads an id the way it was read when the ids were saved).
    #[must_use]
    pub fn saved_ids(&self, check: impl Fn(usize, &[u8]) -> Option<String>) -> Option<Vec<String>> {
        let (c, k) = self.cached.as_deref()?;
        let ids = cache::load_ids(c, k, self.len())?;
        let n = ids.len();
        let picks = (0..8.min(n)).map(|j| if n <= 8 { j } else { j * (n - 1) / 7 });
        for i in picks {
            if check(i, &self.bytes(i).ok()?).as_deref() != Some(ids[i].as_str()) {
                return None;
            }
        }
        Some(ids)
    }

    /// Save one id per record beside the index (nothing when the file does not go through the
    /// cache, or has changed since it was indexed).
    pub fn save_ids(&self, ids: &[String]) {
        if let Some((c, k)) = self.cached.as_deref() {
            if ids.len() == self.len() {
                cache::store_ids(c, k, &self.file, ids);
            }
        }
    }

    /// The file, open since it was indexed (the same file even if its path now names another).
    #[must_use]
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Remove the ids saved for this file (found not to match it).
    pub fn forget_ids(&self) {
        if let Some((c, k)) = self.cached.as_deref() {
            cache::remove_ids(c, k);
        }
    }

    /// True when the file goes through the sidecar cache (its index and ids can be saved).
    #[must_use]
    pub fn cached(&self) -> bool {
        self.cached.is_some()
    }

    /// True when the index was read from the sidecar cache, not built by scanning the file.
    #[must_use]
    pub fn from_cache(&self) -> bool {
        self.from_cache
    }

    /// The file's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// JSONL or JSON array.
    #[must_use]
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Number of records (non-blank lines, or array elements).
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the file holds no record.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Position of record `i`.
    #[must_use]
    pub fn entry(&self, i: usize) -> Option<Entry> {
        self.entries.get(i).copied()
    }

    /// All positions.
    #[must_use]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The bytes of record `i`.
    ///
    /// # Errors
    /// I/O errors, or `i` out of range.
    pub fn bytes(&self, i: usize) -> Result<Vec<u8>, FormatError> {
        let mut buf = Vec::new();
        self.bytes_into(i, &mut buf)?;
        Ok(buf)
    }

    /// [`FileIndex::bytes`] into `buf`, replacing what it held: a pass over many records
    /// reuses one buffer instead of taking fresh memory per line.
    ///
    /// # Errors
    /// As [`FileIndex::bytes`].
    pub fn bytes_into(&self, i: usize, buf: &mut Vec<u8>) -> Result<(), FormatError> {
        let e = self.entry(i).ok_or_else(|| FormatError::NoRecord {
            path: self.path.clone(),
            index: i,
            len: self.len(),
        })?;
        if let Some(rows) = &self.parquet {
            *buf = Self::parquet_bytes(rows, e)?;
            return Ok(());
        }
        buf.clear();
        buf.resize(e.len as usize, 0);
        read_exact_at(&self.file, buf, e.offset).map_err(|source| FormatError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

impl FileIndex {
    /// Call `f(i, bytes)` for each record `i` of `range`, in order, reading the file in blocks
    /// of about 1 MiB: one read for many records instead of one per record.
    ///
    /// # Errors
    /// I/O errors; records before the failing block were handed out.
    pub fn for_each_in(
        &self,
        range: std::ops::Range<usize>,
        mut f: impl FnMut(usize, &[u8]),
    ) -> Result<(), FormatError> {
        const BLOCK: u64 = 1 << 20;
        let entries = self.entries.get(range.clone()).unwrap_or_default();
        let mut failed = None;
        self.for_each_entry(
            entries,
            BLOCK,
            |k, _, bytes| f(range.start + k, bytes),
            |_, e| {
                failed.get_or_insert(e);
            },
        );
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(())
    }
}

/// Call `f(k, entry, bytes)` for each of `entries` of `file` in order, reading consecutive
/// entries at once in blocks of up to `block` bytes (a longer record is read alone): one read
/// for many records instead of one each.
///
/// # Errors
/// Reading fails (or the file is shorter than indexed); entries before the failing block were
/// handed out.
pub(crate) fn read_in_blocks(
    file: &File,
    entries: &[Entry],
    block: u64,
    mut f: impl FnMut(usize, &Entry, &[u8]),
) -> std::io::Result<()> {
    let mut buf: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let start = entries[i].offset;
        let mut end = start + u64::from(entries[i].len);
        let mut j = i + 1;
        while let Some(e) = entries.get(j) {
            let e_end = e.offset + u64::from(e.len);
            if e_end - start > block {
                break;
            }
            end = e_end;
            j += 1;
        }
        buf.resize(usize::try_from(end - start).unwrap_or(usize::MAX), 0);
        read_exact_at(file, &mut buf, start)?;
        for (k, e) in entries[i..j].iter().enumerate() {
            let at = usize::try_from(e.offset - start).unwrap_or(0);
            f(i + k, e, &buf[at..at + e.len as usize]);
        }
        i = j;
    }
    Ok(())
}

/// Index a JSONL file: one entry per non-blank line. Two threads each scan half of the file.
fn index_lines(file: &File, size: u64, bom: u64) -> std::io::Result<Vec<Entry>> {
    // Split at a newline near the middle so each half holds whole lines.
    let mid = if size > 2 * CHUNK as u64 {
        next_line_start(file, size / 2, size)?
    } else {
        size
    };
    let (first, second) = std::thread::scope(|s| {
        let a = s.spawn(|| scan_lines(file, bom, mid));
        let b = s.spawn(|| scan_lines(file, mid, size));
        (a.join(), b.join())
    });
    let first = first.map_err(|_| std::io::Error::other("index thread panicked"))??;
    let second = second.map_err(|_| std::io::Error::other("index thread panicked"))??;
    let base_line = first.1;
    let mut entries = first.0;
    entries.extend(second.0.into_iter().map(|mut e| {
        e.line += base_line;
        e
    }));
    Ok(entries)
}

/// Byte offset just after the first newline at or after `from` (or `size`).
pub(crate) fn next_line_start(file: &File, from: u64, size: u64) -> std::io::Result<u64> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut pos = from;
    while pos < size {
        let n = file.read_at(&mut buf, pos)?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
    Ok(size)
}

/// Scan `[from, to)` (which starts at a line start) for lines. Returns the entries with line
/// numbers relative to the start of the range, and the number of lines in the range.
fn scan_lines(file: &File, from: u64, to: u64) -> std::io::Result<(Vec<Entry>, u32)> {
    scan_lines_each(file, from, to, CHUNK, |_| true)
}

/// [`scan_lines`] reading `chunk` bytes at a time and calling `emit` with the entries found so
/// far after each read and at the end (it may take them); it stops early when `emit` says so.
/// Returns the entries left and the number of lines scanned.
fn scan_lines_each(
    file: &File,
    from: u64,
    to: u64,
    chunk: usize,
    mut emit: impl FnMut(&mut Vec<Entry>) -> bool,
) -> std::io::Result<(Vec<Entry>, u32)> {
    let mut entries = Vec::new();
    let mut buf = vec![0u8; chunk.max(1)];
    let mut line_no: u32 = 0;
    let mut line_start = from;
    // Whether the current line has a non-whitespace byte so far, and where it ends
    // (one past the last such byte), to trim trailing `\r` and spaces.
    let mut content = false;
    let mut first_content = from;
    let mut last_content = from;
    let mut pos = from;
    while pos < to {
        let want = usize::try_from((to - pos).min(buf.len() as u64)).unwrap_or(buf.len());
        let n = file.read_at(&mut buf[..want], pos)?;
        if n == 0 {
            return Err(changed());
        }
        let chunk = &buf[..n];
        let mut i = 0;
        while i < n {
            match memchr::memchr(b'\n', &chunk[i..]) {
                Some(j) => {
                    note_content(
                        &chunk[i..i + j],
                        pos + i as u64,
                        &mut content,
                        &mut first_content,
                        &mut last_content,
                    );
                    line_no += 1;
                    if content {
                        entries.push(line_entry(first_content, last_content, line_no));
                    }
                    content = false;
                    i += j + 1;
                    line_start = pos + i as u64;
                    first_content = line_start;
                    last_content = line_start;
                }
                None => {
                    note_content(
                        &chunk[i..],
                        pos + i as u64,
                        &mut content,
                        &mut first_content,
                        &mut last_content,
                    );
                    i = n;
                }
            }
        }
        pos += n as u64;
        if pos < to && !emit(&mut entries) {
            return Ok((entries, line_no));
        }
    }
    if line_start < pos {
        line_no += 1;
        if content {
            entries.push(line_entry(first_content, last_content, line_no));
        }
    }
    emit(&mut entries);
    Ok((entries, line_no))
}

/// The entry of JSONL line `line` whose content runs from `first` to `last` (blank edges and
/// the line end left out).
fn line_entry(first: u64, last: u64, line: u32) -> Entry {
    Entry {
        offset: first,
        len: u32::try_from(last - first).unwrap_or(u32::MAX),
        line,
    }
}

/// Track the first and last non-whitespace byte of the current line across chunk borders.
fn note_content(part: &[u8], base: u64, content: &mut bool, first: &mut u64, last: &mut u64) {
    if let Some(a) = part.iter().position(|b| !b.is_ascii_whitespace()) {
        let b = part
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .unwrap_or(a);
        if !*content {
            *first = base + a as u64;
            *content = true;
        }
        *last = base + b as u64 + 1;
    }
}

/// Problems met while indexing, as `(line, message)`.
type Problems = Vec<(u32, String)>;

/// Index a file holding one JSON array: each top-level element is an entry. A truncated array
/// yields the complete elements and a problem for the rest; text after the array a problem
/// too (it is not read). `None` when the file is JSONL whose first record is an array: the
/// array closes on line 1 and more follows.
fn index_array(file: &File, size: u64) -> std::io::Result<Option<(Vec<Entry>, Problems)>> {
    let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut f = file.try_clone()?;
    f.read_to_end(&mut data)?;
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    let mut line: u32 = 1;
    let mut depth = 0usize;
    let mut in_str = false;
    let mut esc = false;
    let mut elem_start: Option<(usize, u32)> = None;
    let mut last_nonspace = 0usize;
    let mut closed = false;
    // The lines the array opens and closes on: one line with more after it is JSONL's first.
    let (mut opened_on, mut closed_on) = (0, 0);
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            line += 1;
        }
        if closed {
            if b.is_ascii_whitespace() {
                continue;
            }
            if opened_on == closed_on {
                return Ok(None);
            }
            problems.push((
                line,
                "text after the JSON array (which ends before this line) was not read".to_owned(),
            ));
            break;
        }
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
                last_nonspace = i;
            }
            continue;
        }
        match b {
            b'"' => {
                in_str = true;
                if depth == 1 && elem_start.is_none() {
                    elem_start = Some((i, line));
                }
            }
            b'[' | b'{' => {
                if depth == 1 && elem_start.is_none() {
                    elem_start = Some((i, line));
                }
                if depth == 0 {
                    opened_on = line;
                }
                depth += 1;
            }
            b']' | b'}' => {
                if depth == 1 {
                    // end of the array
                    if let Some((s, l)) = elem_start.take() {
                        entries.push(mk_entry(s, last_nonspace + 1, l));
                    }
                    closed = true;
                    closed_on = line;
                    depth = 0;
                    continue;
                }
                depth = depth.saturating_sub(1);
                last_nonspace = i;
            }
            b',' if depth == 1 => {
                if let Some((s, l)) = elem_start.take() {
                    entries.push(mk_entry(s, last_nonspace + 1, l));
                }
            }
            b if b.is_ascii_whitespace() => {}
            b'\xEF' | b'\xBB' | b'\xBF' if i < 3 => {}
            _ => {
                if depth == 1 && elem_start.is_none() {
                    elem_start = Some((i, line));
                }
                last_nonspace = i;
            }
        }
    }
    if !closed {
        let at = elem_start.map_or(line, |(_, l)| l);
        problems.push((
            at,
            "the JSON array is not closed: the file is truncated; the records before this line were read".to_owned(),
        ));
    }
    Ok(Some((entries, problems)))
}

fn mk_entry(start: usize, end: usize, line: u32) -> Entry {
    Entry {
        offset: start as u64,
        len: u32::try_from(end.saturating_sub(start)).unwrap_or(u32::MAX),
        line,
    }
}

#[cfg(test)]
mod tests;
