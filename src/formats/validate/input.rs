//! The files `validate` reads. A JSON array is indexed (`FileIndex`: elements and their lines);
//! a JSONL file is read once, each of two threads splitting its half into lines while it checks
//! them, with the index's conventions: a UTF-8 byte-order mark is skipped, lines are trimmed of
//! ASCII whitespace (so CRLF ends are fine), blank lines are skipped but counted.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::{check, Part, BLOCK};
use crate::formats::index::{changed, next_line_start, open_input, FileIndex};
use crate::formats::{DataFile, Format, FormatError};

/// One file to validate.
#[derive(Debug)]
pub struct Input {
    path: PathBuf,
    format: Format,
    source: Source,
}

#[derive(Debug)]
enum Source {
    /// A JSON array, indexed.
    Indexed(DataFile),
    /// JSONL: records start after `start` (the byte-order mark), the file has `size` bytes.
    Lines { file: File, start: u64, size: u64 },
}

impl Input {
    /// Open `path`; tell its format from its first records unless `format` is given. A
    /// stream (a FIFO, `/dev/stdin`) is read once, into a temporary copy ([`open_input`]).
    ///
    /// # Errors
    /// I/O errors, or a format that cannot be told.
    pub fn open(path: &Path, format: Option<Format>) -> Result<Self, FormatError> {
        let io = |source: std::io::Error| FormatError::Io {
            path: path.to_path_buf(),
            source,
        };
        let (file, _) = open_input(path)?;
        let file = match FileIndex::parquet(path, file)? {
            Ok(index) => {
                let data = DataFile::with_index(index, format, None)?;
                return Ok(Self {
                    path: path.to_path_buf(),
                    format: data.format,
                    source: Source::Indexed(data),
                });
            }
            Err(file) => file,
        };
        let head = crate::formats::index::head(&file).map_err(io)?;
        let (start, size) = (head.bom, head.size);
        if head.array {
            let data = DataFile::with_index(FileIndex::index(path, file, None)?, format, None)?;
            return Ok(Self {
                path: path.to_path_buf(),
                format: data.format,
                source: Source::Indexed(data),
            });
        }
        let format =
            match format {
                Some(f) => f,
                None => detect_lines(file.try_clone().map_err(io)?, start, DETECT_BYTES).map_err(
                    |e| match e {
                        Detect::Io(source) => FormatError::Io {
                            path: path.to_path_buf(),
                            source,
                        },
                        Detect::Unknown(reason) => FormatError::Unknown {
                            path: path.to_path_buf(),
                            reason,
                        },
                    },
                )?,
            };
        Ok(Self {
            path: path.to_path_buf(),
            format,
            source: Source::Lines { file, start, size },
        })
    }

    /// The path as given.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The format.
    #[must_use]
    pub fn format(&self) -> Format {
        self.format
    }

    /// Check every record on two threads; the parts come in file order, with absolute lines.
    pub(super) fn check(
        &self,
        fi: usize,
        settings: &check::Settings<'_>,
    ) -> Result<Checked, FormatError> {
        let io = |source: std::io::Error| FormatError::Io {
            path: self.path.clone(),
            source,
        };
        let panicked = || FormatError::Io {
            path: self.path.clone(),
            source: std::io::Error::other("a validation thread panicked"),
        };
        match &self.source {
            Source::Indexed(data) => {
                let entries = data.index.entries();
                let mid = super::split_point(entries);
                let (a, b) = std::thread::scope(|s| {
                    let first = s.spawn(|| super::check_range(data, fi, &entries[..mid], settings));
                    let second = super::check_range(data, fi, &entries[mid..], settings);
                    (first.join(), second)
                });
                Ok((a.map_err(|_| panicked())??, b?, data.index.problems.clone()))
            }
            Source::Lines { file, start, size } => {
                let (start, size) = (*start, *size);
                let mid = if size - start > 2 * BLOCK {
                    next_line_start(file, start + (size - start) / 2, size).map_err(io)?
                } else {
                    size
                };
                let (a, b) = std::thread::scope(|s| {
                    let first = s.spawn(|| scan(file, start, mid, fi, settings));
                    let second = scan(file, mid, size, fi, settings);
                    (first.join(), second)
                });
                let a = a.map_err(|_| panicked())?.map_err(io)?;
                let mut b = b.map_err(io)?;
                b.shift_lines(a.lines);
                Ok((a, b, Vec::new()))
            }
        }
    }
}

/// The two threads' parts, in file order, and the index's problems (a truncated array).
pub(super) type Checked = (Part, Part, Vec<(u32, String)>);

enum Detect {
    Io(std::io::Error),
    Unknown(String),
}

/// How far into a JSONL file detection starts new lines: a line begun before is read whole.
const DETECT_BYTES: u64 = 256 << 20;

/// The format of a JSONL file from its first records ([`Format::detect_first`]): its
/// non-blank lines, trimmed, numbered as in the file, those starting in the first `cap` bytes.
/// A line is never cut at `cap` (a record longer than that is valid, and the other subcommands
/// read it whole): cutting it made a valid first line of over 256 MiB invalid JSON.
fn detect_lines(mut file: File, start: u64, cap: u64) -> Result<Format, Detect> {
    file.seek(SeekFrom::Start(start)).map_err(Detect::Io)?;
    let mut reader = BufReader::new(file);
    let mut line_no = 0u32;
    let mut read = 0u64;
    let records = std::iter::from_fn(|| loop {
        if read >= cap {
            return None;
        }
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return None,
            Ok(n) => {
                line_no += 1;
                read += n as u64;
            }
            Err(e) => return Some(Err(e)),
        }
        let rest = line.trim_ascii_start();
        let lead = u32::try_from(line.len() - rest.len()).unwrap_or(u32::MAX);
        let text = rest.trim_ascii_end();
        if !text.is_empty() {
            return Some(Ok((line_no, lead, text.to_vec())));
        }
    });
    Format::detect_first(records)
        .map_err(Detect::Io)?
        .map_err(Detect::Unknown)
}

/// Check the lines of `[from, to)` (which starts at a line start); line numbers are relative
/// to `from`, and `Part::lines` is the number of lines in the range.
fn scan(
    file: &File,
    from: u64,
    to: u64,
    fi: usize,
    settings: &check::Settings<'_>,
) -> std::io::Result<Part> {
    let mut part = Part::default();
    let block = usize::try_from(BLOCK).unwrap_or(1 << 18);
    let mut buf = vec![0u8; block];
    let mut carry: Vec<u8> = Vec::new();
    let mut line: u32 = 0;
    let mut pos = from;
    while pos < to {
        let want = usize::try_from((to - pos).min(BLOCK)).unwrap_or(block);
        let n = file.read_at(&mut buf[..want], pos)?;
        if n == 0 {
            // Shorter than when it was opened: say so rather than check part of it.
            return Err(changed());
        }
        let chunk = &buf[..n];
        let mut i = 0;
        for j in memchr::memchr_iter(b'\n', chunk) {
            line += 1;
            if carry.is_empty() {
                record(&mut part, fi, line, &chunk[i..j], settings);
            } else {
                carry.extend_from_slice(&chunk[i..j]);
                record(&mut part, fi, line, &carry, settings);
                carry.clear();
            }
            i = j + 1;
        }
        carry.extend_from_slice(&chunk[i..]);
        pos += n as u64;
    }
    if !carry.is_empty() {
        line += 1;
        record(&mut part, fi, line, &carry, settings);
    }
    part.lines = line;
    Ok(part)
}

/// One line: trimmed, skipped when blank, else checked.
fn record(part: &mut Part, fi: usize, line: u32, bytes: &[u8], settings: &check::Settings<'_>) {
    let rest = bytes.trim_ascii_start();
    // Blanks before the record: one code point each.
    let lead = u32::try_from(bytes.len() - rest.len()).unwrap_or(u32::MAX);
    let bytes = rest.trim_ascii_end();
    if !bytes.is_empty() {
        part.consume(fi, (line, &|| lead), bytes, settings);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::formats::validate::{validate, Options};

    const RECORD: &str = r#"{"id": "a__clean", "query": "q", "context": "c", "output": "25°C 東京", "hallucination_labels": [], "meta": {"source": "s", "base_id": "a", "corruption_type": "clean", "tools": [], "tool_call": {}}}"#;

    /// Issue 22 item 8: a first line longer than detection's reach is read whole (as the
    /// other subcommands read it), not cut at the cap into invalid JSON.
    #[test]
    fn a_first_line_longer_than_the_detection_cap_is_detected() {
        let mut f = tempfile::NamedTempFile::new().expect("tempfile");
        writeln!(f, "{RECORD}\n{RECORD}").expect("write");
        for cap in [16, RECORD.len() as u64 - 1, RECORD.len() as u64 + 3] {
            let file = File::open(f.path()).expect("open");
            match detect_lines(file, 0, cap) {
                Ok(format) => assert_eq!(format, Format::Ragtruth, "cap {cap}"),
                Err(Detect::Unknown(why)) => panic!("cap {cap}: {why}"),
                Err(Detect::Io(e)) => panic!("cap {cap}: {e}"),
            }
        }
    }

    #[test]
    fn a_file_cut_short_between_open_and_check_says_it_changed() {
        for array in [false, true] {
            let mut f = tempfile::NamedTempFile::new().expect("tempfile");
            let text = if array {
                format!("[{}]", [RECORD; 50].join(",\n"))
            } else {
                format!("{}\n", [RECORD; 50].join("\n"))
            };
            f.write_all(text.as_bytes()).expect("write");
            let input = Input::open(f.path(), None).expect("open");
            f.as_file().set_len(100).expect("truncate");
            let e = validate(&[input], &Options::default()).expect_err("cut short");
            let msg = e.to_string();
            assert!(
                msg.contains("the file changed since it was opened"),
                "{array}: {msg}"
            );
            assert!(msg.starts_with(&f.path().display().to_string()), "{msg}");
        }
    }
}
