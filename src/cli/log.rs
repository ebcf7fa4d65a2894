//! The review log's writer: every event of `review.log` on one line, with the control and
//! bidirectional characters of its fields escaped ([`crate::model::escape`]), so a record id or
//! a path cannot forge a log line or run an escape sequence in `tail -f review.log`.

use std::io::{self, Write};
use std::path::Path;

use crate::model::escape;

/// Open the review log at `path` for appending, making its folder.
///
/// # Errors
/// Why it cannot be written, naming it: the review then goes on without a log, and says so.
pub fn open(path: &Path) -> Result<std::fs::File, String> {
    let why = |e: io::Error| {
        format!(
            "the review log {} cannot be written ({e}): the review goes on without a log (set \
             SPANREVIEW_LOG to a writable file)",
            path.display()
        )
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(why)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(why)
}

/// Writes each event it is handed (`tracing` writes one event per call, ending in `\n`) as one
/// escaped line.
#[derive(Debug)]
pub struct Escaping<W>(pub W);

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (body, end) = match text.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (&*text, ""),
        };
        let line = format!("{}{end}", escape::line(body));
        self.0.write_all(line.as_bytes())?;
        // All of `buf` is written: `write_all` hands the whole event over in one call.
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_that_cannot_be_written_is_told_with_its_path() {
        let dir = tempfile::tempdir().expect("tmp");
        let blocker = dir.path().join("file°");
        std::fs::write(&blocker, "").expect("write");
        let e = open(&blocker.join("review.log")).expect_err("a file is no folder");
        assert!(
            e.contains("file°/review.log") && e.contains("without a log"),
            "{e}"
        );
        let e = open(dir.path()).expect_err("a folder is no log");
        assert!(e.contains("cannot be written"), "{e}");
        assert!(open(&dir.path().join("new/review.log")).is_ok());
    }

    #[test]
    fn an_event_stays_one_line_and_its_escapes_are_written_as_text() {
        let mut w = Escaping(Vec::new());
        w.write_all(
            b"INFO decision saved record=a\x1b]52;c;UFdO\x07\nINFO forged \xc2\x9b2J\xe2\x80\xae\n",
        )
        .expect("write");
        w.write_all(b"plain event\n").expect("write");
        let text = String::from_utf8(w.0).expect("utf-8");
        assert_eq!(
            text,
            "INFO decision saved record=a\\u{1b}]52;c;UFdO\\u{7}\\nINFO forged \\u{9b}2J\\u{202e}\n\
             plain event\n"
        );
    }
}
