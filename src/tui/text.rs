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
    row_end_tab(line, from, indent, width, 0)
}

/// Columns a tab at screen column `col` takes with tab stops every `tab` columns (the row's
/// left edge is column 0): to the next stop.
#[must_use]
pub fn tab_cols(col: usize, tab: usize) -> usize {
    tab - col % tab
}

/// [`row_end`] with tabs expanded to the next of the stops every `tab` columns (`0`: a tab is
/// escaped as `\t`, as in prose).
#[must_use]
pub fn row_end_tab(line: &str, from: usize, indent: usize, width: usize, tab: usize) -> usize {
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
        let (len, w) = if tab > 0 && b[at] == b'\t' {
            (1, tab_cols(used, tab))
        } else if plain(b[at]) && b.get(at + 1).is_none_or(u8::is_ascii) {
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

/// [`row_cells`] of a row starting `indent` columns in, tabs expanded to the stops every
/// `tab` columns (`0`: escaped). A tab is one cell as wide as the gap to its stop, so a span
/// over it covers those columns and a click on any of them finds it.
#[must_use]
pub fn row_cells_tab(
    line: &str,
    (from, end): (usize, usize),
    base: usize,
    indent: usize,
    tab: usize,
) -> Vec<Cell> {
    if tab == 0 || !line[from..end].contains('\t') {
        return row_cells(line, from, end, base);
    }
    let mut col = indent;
    line[from..end]
        .grapheme_indices(true)
        .map(|(off, g)| {
            let c = if g == "\t" {
                Cell {
                    byte: base + from + off,
                    len: 1,
                    width: tab_cols(col, tab),
                    escaped: false,
                }
            } else {
                cell(g, base + from + off)
            };
            col += c.width;
            c
        })
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
mod tests;
