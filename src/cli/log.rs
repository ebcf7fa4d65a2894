//! The review log's writer: every event of `review.log` on one line, with the control and
//! bidirectional characters of its fields escaped ([`crate::model::escape`]), so a record id or
//! a path cannot forge a log line or run an escape sequence in `tail -f review.log`.

use std::io::{self, Write};

use crate::model::escape;

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
