//! Where in the file a JSON error inside a record is. serde_json counts lines and byte columns
//! from the record's first byte; a record of a pretty-printed array starts deep in the file, and
//! a user counts columns in characters. Messages say the file's line (when it is not the
//! record's first, which the message is told on) and the column in code points, from 1.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::{Mutex, PoisonError};

/// Where a record starts: its line in the file, and how to count the code points before its
/// first byte on that line (asked only when an error sits on that line).
pub(crate) struct Origin<'a> {
    /// 1-based line of the record's first byte (relative to a share of the file is fine for
    /// one-line records: their errors are always on their first line).
    pub line: u32,
    /// Code points before the record's first byte on its line.
    pub lead: &'a dyn Fn() -> u32,
}

/// `invalid JSON: ` and [`json_error`], for a record starting on `line`, `lead` code points in.
pub(crate) fn invalid_json(
    e: &serde_json::Error,
    record: &[u8],
    line: u32,
    lead: &dyn Fn() -> u32,
) -> String {
    format!(
        "invalid JSON: {}",
        json_error(e, record, &Origin { line, lead })
    )
}

/// The words of `e` with serde_json's position (relative to `record`) replaced by the file's:
/// `at column C` on the record's first line, `at line L column C` on a later one. An error with
/// no position (from a value, not text) is worded as serde_json words it.
pub(crate) fn json_error(e: &serde_json::Error, record: &[u8], at: &Origin<'_>) -> String {
    let full = e.to_string();
    if e.line() == 0 {
        return full;
    }
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let what = full.strip_suffix(&suffix).unwrap_or(&full);
    let column = code_point_column(record, e.line(), e.column());
    if e.line() == 1 {
        let column = u32::try_from(column).unwrap_or(u32::MAX);
        format!("{what} at column {}", column.saturating_add((at.lead)()))
    } else {
        let line = u32::try_from(e.line() - 1)
            .unwrap_or(u32::MAX)
            .saturating_add(at.line);
        format!("{what} at line {line} column {column}")
    }
}

/// serde_json's byte column `column` (the 1-based byte of the error) on line `line` of
/// `record`, as a count of code points up to and including that byte.
fn code_point_column(record: &[u8], line: usize, column: usize) -> usize {
    let start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', record)
            .nth(line - 2)
            .map_or(record.len(), |i| i + 1)
    };
    let rest = &record[start..];
    let text = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
    let upto = column.min(text.len());
    // A code point starts at each byte that is not a UTF-8 continuation byte.
    let chars = text[..upto].iter().filter(|&&b| b & 0xC0 != 0x80).count();
    chars + (column - upto)
}

/// The leads ([`lead_in_file`]) of records met in file order, from the last one asked: one
/// long line (a minified array) with many bad records is read once, not once per record.
#[derive(Debug, Default)]
pub(crate) struct Leads(Mutex<Option<(u64, u32)>>);

impl Leads {
    /// Code points before byte `offset` of `file` on its line.
    pub fn lead(&self, file: &File, offset: u64) -> u32 {
        let mut memo = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let lead = match *memo {
            Some((at, lead)) if at <= offset => forward(file, at, offset, lead),
            _ => lead_in_file(file, offset),
        };
        *memo = Some((offset, lead));
        lead
    }
}

/// The lead at `to`, given `lead` at `from` (on or before `to`): the bytes between are read.
fn forward(file: &File, from: u64, to: u64, lead: u32) -> u32 {
    let mut count = u64::from(lead);
    let mut buf = [0u8; 4096];
    let mut at = from;
    while at < to {
        let n = usize::try_from((to - at).min(4096)).unwrap_or(0);
        if file.read_exact_at(&mut buf[..n], at).is_err() {
            return lead_in_file(file, to);
        }
        let block = &buf[..n];
        let part = match memchr::memrchr(b'\n', block) {
            Some(i) => {
                count = 0;
                &block[i + 1..]
            }
            None => block,
        };
        count += part.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
        at += n as u64;
    }
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// Code points between the start of the line holding byte `offset` of `file` and that byte
/// (a byte-order mark at the file's start not counted). Read back in small blocks, only when
/// an error needs it.
pub(crate) fn lead_in_file(file: &File, offset: u64) -> u32 {
    const STEP: u64 = 4096;
    let mut count: u64 = 0;
    let mut end = offset;
    let mut buf = [0u8; 4096];
    while end > 0 {
        let from = end.saturating_sub(STEP);
        let n = usize::try_from(end - from).unwrap_or(0);
        if file.read_exact_at(&mut buf[..n], from).is_err() {
            break;
        }
        let block = &buf[..n];
        let (part, done) = match memchr::memrchr(b'\n', block) {
            Some(i) => (&block[i + 1..], true),
            None => (block, false),
        };
        count += part.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
        if from == 0 && !done && block.starts_with(b"\xEF\xBB\xBF") {
            count = count.saturating_sub(1);
        }
        if done {
            break;
        }
        end = from;
    }
    u32::try_from(count).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> serde_json::Error {
        serde_json::from_str::<serde_json::Value>(text).expect_err("invalid")
    }

    /// A record starting on file line 10 whose third line has `°` and an emoji before the
    /// error: the `,` after `tru` is the 12th code point of its line (its 16th byte). A record
    /// with its error on its first line, after 4 code points of the line before it: `x` is the
    /// record's 7th code point, so the line's 11th.
    #[rstest::rstest]
    #[case::later_line(
        "{\n \"a\": 1,\n \"b°🔥\": tru,\n}",
        10,
        99,
        "expected ident at line 12 column 12"
    )]
    #[case::first_line("{\"é\": x}", 3, 4, "expected value at column 11")]
    fn names_the_file_line_and_the_column_in_code_points(
        #[case] rec: &str,
        #[case] line: u32,
        #[case] lead: u32,
        #[case] want: &str,
    ) {
        let e = error(rec);
        let at = Origin {
            line,
            lead: &|| lead,
        };
        assert_eq!(json_error(&e, rec.as_bytes(), &at), want);
    }

    #[test]
    fn lead_counts_code_points_back_to_the_line_start() {
        let dir = tempfile::tempdir().expect("dir");
        let p = dir.path().join("a.json");
        let text = "\u{feff}[\n  \"x\", 😀 {\"a\": 1}]";
        std::fs::write(&p, text).expect("write");
        let f = File::open(&p).expect("open");
        let at = text.find('{').expect("brace") as u64;
        assert_eq!(lead_in_file(&f, at), 9);
        // The BOM on the first line is no column.
        assert_eq!(lead_in_file(&f, 4), 1);
        // Asked in file order, on the same line and past a line end, and back again.
        let leads = Leads::default();
        let quote = text.find('"').expect("quote") as u64;
        let a = text.find("\"a\"").expect("a") as u64;
        let got: Vec<u32> = [4, quote, at, a, quote]
            .iter()
            .map(|&o| leads.lead(&f, o))
            .collect();
        assert_eq!(got, [1, 2, 9, 10, 2]);
    }
}
