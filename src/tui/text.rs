//! Laying text out in terminal cells: grapheme clusters measured the way terminals advance the
//! cursor over them, control characters escaped, word wrap with hanging indent. Pure: byte
//! ranges in, rows of cells out; views put the cells on screen, the app maps clicks back to text
//! positions. The widths themselves are [`crate::model::width`]'s, shared with the CLI's tables.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;

use crate::model::width::cols;
pub use crate::model::width::{cluster_width, display, escape_line, pad, truncate, width};

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

/// The cell for grapheme `g` at byte `byte`.
fn cell(g: &str, byte: usize) -> Cell {
    if g.len() == 1 && !g.as_bytes()[0].is_ascii_control() {
        return Cell {
            byte,
            len: 1,
            width: 1,
            escaped: false,
        };
    }
    let d = display(g);
    Cell {
        byte,
        len: g.len(),
        width: cols(&d),
        escaped: matches!(d, Cow::Owned(_)),
    }
}

/// Leading blank columns of the rows a line wraps onto after its first: its own leading
/// whitespace, at most half the width.
#[must_use]
pub fn hang_of(line: &str, width: usize) -> usize {
    let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
    lead.min(width.max(1) / 2)
}

/// Where the row of `line` (no `\n` in it) starting at its byte `from` ends, `width` columns
/// wide with its first `indent` columns blank: as many clusters as fit, broken after the last
/// space when a word does not fit (a row holds at least one cluster; spaces may hang past the
/// edge). A row depends only on where it starts, so any row can be laid out again without the
/// rows before it.
#[must_use]
pub fn row_end(line: &str, from: usize, indent: usize, width: usize) -> usize {
    if let Some(end) = ascii_row_end(line, from, indent, width) {
        return end;
    }
    let b = line.as_bytes();
    let plain = |x: u8| (0x20..0x7f).contains(&x);
    let mut used = indent;
    let mut brk: Option<usize> = None;
    let mut any = false;
    let mut at = from;
    while at < b.len() {
        // A printable ASCII byte before another ASCII byte is a cluster of its own (only
        // non-ASCII marks and joiners extend one): segment only around other text.
        let (len, w) = if plain(b[at]) && b.get(at + 1).is_none_or(u8::is_ascii) {
            (1, 1)
        } else {
            let g = line[at..].graphemes(true).next().unwrap_or("");
            (g.len().max(1), cell(g, at).width)
        };
        let is_space = len == 1 && b[at] == b' ';
        if used + w > width && any && !is_space {
            return match brk {
                Some(k) if k < at => k,
                _ => at,
            };
        }
        used += w;
        any = true;
        at += len;
        if is_space {
            brk = Some(at);
        }
    }
    line.len()
}

/// `row_end` for a row of plain ASCII (one column a byte, only the break to find), looking at
/// no more of the line than the row can hold; `None` when the row is not plain ASCII.
fn ascii_row_end(line: &str, from: usize, indent: usize, width: usize) -> Option<usize> {
    let b = line.as_bytes();
    let room = width.saturating_sub(indent).max(1);
    let lim = line.len().min(from + room + 1);
    let plain = |x: &u8| x.is_ascii() && !x.is_ascii_control();
    if !b[from..lim].iter().all(plain) {
        return None;
    }
    if line.len() - from <= room {
        return Some(line.len());
    }
    let cut = from + room;
    if b[cut] == b' ' {
        // Spaces hang past the edge; the row ends after them (unless a mark joins the last).
        let end = cut + b[cut..].iter().take_while(|&&x| x == b' ').count();
        return (end == b.len() || plain(&b[end])).then_some(end);
    }
    Some(match line[from..cut].rfind(' ') {
        Some(i) => from + i + 1,
        None => cut,
    })
}

/// The cells of `line[from..end]`, byte offsets shifted by `base`.
#[must_use]
pub fn row_cells(line: &str, from: usize, end: usize, base: usize) -> Vec<Cell> {
    line[from..end]
        .grapheme_indices(true)
        .map(|(off, g)| cell(g, base + from + off))
        .collect()
}

/// Indent of a row that continues a wrapped line at `from`: the hang, unless the first cluster
/// does not fit beside it.
#[must_use]
pub fn continuation_indent(line: &str, from: usize, hang: usize, width: usize) -> usize {
    let first = line[from..]
        .graphemes(true)
        .next()
        .map_or(0, |g| cell(g, 0).width);
    if hang + first > width {
        0
    } else {
        hang
    }
}

/// Rows of one line (`\r` already cut), byte offsets shifted by `base`.
fn wrap_line(line: &str, base: usize, width: usize, rows: &mut Vec<Row>) {
    let hang = hang_of(line, width);
    let (mut from, mut indent) = (0, 0);
    loop {
        let end = row_end(line, from, indent, width);
        rows.push(Row {
            indent,
            cells: row_cells(line, from, end, base),
            byte: base + from,
        });
        if end >= line.len() {
            return;
        }
        from = end;
        indent = continuation_indent(line, from, hang, width);
    }
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

    /// `row_end` as first written: every cluster through `grapheme_indices`.
    fn row_end_reference(line: &str, from: usize, indent: usize, width: usize) -> usize {
        let (mut used, mut brk, mut any) = (indent, None, false);
        for (off, g) in line[from..].grapheme_indices(true) {
            let c = cell(g, from + off);
            let is_space = g == " ";
            if used + c.width > width && any && !is_space {
                return match brk {
                    Some(b) if b < c.byte => b,
                    _ => c.byte,
                };
            }
            used += c.width;
            any = true;
            if is_space {
                brk = Some(c.byte + 1);
            }
        }
        line.len()
    }

    proptest::proptest! {
        #[test]
        fn row_end_equals_the_cluster_by_cluster_walk(
            line in "[a b.\u{301}\u{93e}\u{915}\u{94d}東😀\u{200d}\u{1f3fd}\t\u{7}]{0,40}",
            indent in 0usize..4,
            width in 1usize..12,
        ) {
            let mut from = 0;
            while from < line.len() {
                let want = row_end_reference(&line, from, indent, width);
                proptest::prop_assert_eq!(row_end(&line, from, indent, width), want);
                if want <= from {
                    break;
                }
                from = want;
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
