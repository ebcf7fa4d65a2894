//! Laying text out in terminal cells: grapheme clusters measured with `unicode-width`, control
//! characters escaped, word wrap with hanging indent. Pure: byte ranges in, rows of cells out;
//! views style the cells, the app maps clicks back to text positions.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;

use crate::model::escape;
use unicode_width::UnicodeWidthStr;

/// One grapheme cluster (or escaped control character) placed on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Byte offset of the grapheme in the source text.
    pub byte: usize,
    /// Its length in bytes.
    pub len: usize,
    /// Columns it takes.
    pub width: usize,
    /// Drawn as an escape (`\t`, `\u{1b}`) instead of itself.
    pub escaped: bool,
}

/// One screen row of wrapped text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    /// Leading blank columns (hanging indent of a wrapped line).
    pub indent: usize,
    /// The cells, left to right.
    pub cells: Vec<Cell>,
    /// Byte offset where the row starts (for empty rows: the line's position).
    pub byte: usize,
}

impl Row {
    /// Byte offset one past the row's last cell.
    #[must_use]
    pub fn end(&self) -> usize {
        self.cells.last().map_or(self.byte, |c| c.byte + c.len)
    }

    /// The cell at screen column `col` (or the last cell before it).
    #[must_use]
    pub fn cell_at(&self, col: usize) -> Option<Cell> {
        let mut x = self.indent;
        let mut last = None;
        for c in &self.cells {
            if col < x + c.width.max(1) {
                return Some(*c);
            }
            x += c.width;
            last = Some(*c);
        }
        last
    }
}

/// How a grapheme is drawn: itself, or escaped by the rule every printed text follows
/// ([`crate::model::escape`]: control and bidirectional control characters).
#[must_use]
pub fn display(g: &str) -> Cow<'_, str> {
    escape::line(g)
}

/// Escape control characters of a one-line string (titles, list rows).
#[must_use]
pub fn escape_line(s: &str) -> String {
    s.graphemes(true).map(display).collect()
}

/// Display width of a one-line string after escaping.
#[must_use]
pub fn width(s: &str) -> usize {
    s.graphemes(true).map(|g| display(g).width()).sum()
}

/// Cut a one-line string to at most `max` columns (escaping control characters), adding `…`
/// when cut.
#[must_use]
pub fn truncate(s: &str, max: usize) -> String {
    let full = escape_line(s);
    if full.width() <= max {
        return full;
    }
    let mut out = String::new();
    let mut w = 0;
    for g in full.graphemes(true) {
        let gw = g.width();
        if w + gw + 1 > max {
            break;
        }
        out.push_str(g);
        w += gw;
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// Wrap `text` into rows at most `width` columns wide. `\n` (and `\r\n`) end lines; other
/// control characters are escaped; a line that wraps continues under its own leading
/// whitespace (hanging indent, capped at half the width). Never loops on tiny widths.
#[must_use]
pub fn wrap(text: &str, width: usize) -> Vec<Row> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut line_start = 0usize;
    for line in text.split('\n') {
        let line_trim = line.strip_suffix('\r').unwrap_or(line);
        wrap_line(line_trim, line_start, width, &mut rows);
        line_start += line.len() + 1;
    }
    rows
}

fn wrap_line(line: &str, base: usize, width: usize, rows: &mut Vec<Row>) {
    let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
    let hang = lead.min(width / 2);
    let mut row = Row {
        indent: 0,
        cells: Vec::new(),
        byte: base,
    };
    let mut used = 0usize;
    // Index in row.cells just after the last whitespace: where the row may break.
    let mut brk: Option<usize> = None;
    for (off, g) in line.grapheme_indices(true) {
        let d = display(g);
        let w = d.width();
        let cell = Cell {
            byte: base + off,
            len: g.len(),
            width: w,
            escaped: matches!(d, Cow::Owned(_)),
        };
        let is_space = g == " ";
        if used + w > width && !row.cells.is_empty() && !is_space {
            let carry: Vec<Cell> = match brk {
                Some(b) if b < row.cells.len() && b > 0 => row.cells.split_off(b),
                _ => Vec::new(),
            };
            let next_byte = carry.first().map_or(cell.byte, |c| c.byte);
            rows.push(std::mem::replace(
                &mut row,
                Row {
                    indent: hang,
                    cells: carry,
                    byte: next_byte,
                },
            ));
            used = hang + row.cells.iter().map(|c| c.width).sum::<usize>();
            if used + w > width && !row.cells.is_empty() {
                // The carried word and this cell do not fit together: break again.
                let next = Row {
                    indent: hang,
                    cells: Vec::new(),
                    byte: cell.byte,
                };
                rows.push(std::mem::replace(&mut row, next));
                used = hang;
            }
            if used + w > width && row.cells.is_empty() {
                // The hanging indent leaves no room: drop it for this row.
                used -= row.indent;
                row.indent = 0;
            }
            brk = None;
        }
        row.cells.push(cell);
        used += w;
        if is_space {
            brk = Some(row.cells.len());
        }
    }
    rows.push(row);
}

/// Index of the row holding byte offset `byte` (the last row starting at or before it).
#[must_use]
pub fn row_of(rows: &[Row], byte: usize) -> usize {
    match rows.binary_search_by(|r| r.byte.cmp(&byte)) {
        Ok(i) => {
            // Several rows can start at the same byte only when empty; take the last.
            let mut i = i;
            while i + 1 < rows.len() && rows[i + 1].byte == byte {
                i += 1;
            }
            i
        }
        Err(i) => i.saturating_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("a\u{202E}b", "a\\u{202e}b")]
    #[case("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}")]
    #[case("\u{7}", "\\u{7}")]
    #[case("東京 é", "東京 é")]
    fn bidi_overrides_and_controls_are_escaped(#[case] s: &str, #[case] want: &str) {
        assert_eq!(escape_line(s), want);
    }

    fn texts(text: &str, rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| {
                let mut s = " ".repeat(r.indent);
                for c in &r.cells {
                    s.push_str(&display(&text[c.byte..c.byte + c.len]));
                }
                s
            })
            .collect()
    }

    #[rstest]
    #[case("hello world", 5, vec!["hello ", "world"])]
    #[case("hello world", 6, vec!["hello ", "world"])]
    #[case("abcdefgh", 3, vec!["abc", "def", "gh"])]
    #[case("a\nb", 10, vec!["a", "b"])]
    #[case("a\r\nb", 10, vec!["a", "b"])]
    #[case("東京は晴れ", 4, vec!["東京", "は晴", "れ"])]
    #[case("cafe\u{301} ok", 5, vec!["cafe\u{301} ", "ok"])]
    #[case("a\tb", 10, vec!["a\\tb"])]
    #[case("  key: long value", 10, vec!["  key: ", "  long ", "  value"])]
    #[case("東", 1, vec!["東"])]
    fn wraps(#[case] text: &str, #[case] w: usize, #[case] want: Vec<&str>) {
        let rows = wrap(text, w);
        let got: Vec<String> = texts(text, &rows)
            .into_iter()
            .map(|s| s.trim_end_matches(' ').to_owned())
            .collect();
        let want: Vec<String> = want
            .into_iter()
            .map(|s| s.trim_end_matches(' ').to_owned())
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn every_byte_is_placed_once_at_any_width() {
        let text = "Il fait 25°C à 東京 👋 e\u{301}\u{1b}[0m done\n\n  indented line that wraps";
        for w in 0..30 {
            let rows = wrap(text, w);
            let mut covered: Vec<(usize, usize)> = rows
                .iter()
                .flat_map(|r| r.cells.iter().map(|c| (c.byte, c.len)))
                .collect();
            covered.sort_unstable();
            let total: usize = covered.iter().map(|c| c.1).sum();
            assert_eq!(total + text.matches('\n').count(), text.len(), "width {w}");
            for r in &rows {
                let mut cells = r.cells.clone();
                while cells
                    .last()
                    .is_some_and(|c| &text[c.byte..c.byte + c.len] == " ")
                {
                    cells.pop();
                }
                let used: usize = r.indent + cells.iter().map(|c| c.width).sum::<usize>();
                assert!(used <= w.max(1) || cells.len() == 1, "w {w}: {used} {r:?}");
            }
        }
    }

    #[test]
    fn row_lookup_and_cell_hit() {
        let text = "hello world again";
        let rows = wrap(text, 6);
        assert_eq!(row_of(&rows, 0), 0);
        assert_eq!(row_of(&rows, 6), 1);
        assert_eq!(row_of(&rows, 13), 2);
        assert_eq!(rows[1].cell_at(2).map(|c| c.byte), Some(8));
        let e = escape_line("a\u{7}b");
        assert_eq!(e, "a\\u{7}b");
        assert_eq!(width("東京"), 4);
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
