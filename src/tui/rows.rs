//! Wrapped text laid out on demand: where each screen row starts is found once per width and
//! only as far as the screen has needed, and the cells of just the rows on screen are made per
//! frame. A 10 M-character answer then costs a frame what a short one does, instead of a
//! `Vec` of cells for every one of its characters on every key.

use std::cell::RefCell;

use crate::tui::text::{self, Row};

/// Where a screen row starts: its byte, its blank columns, and its line (bounds, `\r` cut,
/// and hang), so that laying a row out never searches the text for its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Start {
    byte: usize,
    indent: usize,
    hang: usize,
    line: (usize, usize),
}

/// Row starts of one text at one width, found as far as asked.
#[derive(Debug, Clone)]
pub struct RowIndex {
    width: usize,
    /// Length of the text this index was made for (a guard against mixing texts up).
    len: usize,
    starts: Vec<Start>,
    /// Every row's start is known.
    complete: bool,
    /// Tab stops every `tab` columns (`0`: tabs escaped).
    tab: usize,
}

/// `text`'s line starting at byte `start` (its `\r` cut), as (start, end).
fn line_at(text: &str, start: usize) -> (usize, usize) {
    let end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i);
    let end = if text.as_bytes()[..end].ends_with(b"\r") && end > start {
        end - 1
    } else {
        end
    };
    (start, end)
}

impl RowIndex {
    /// An index of `text` at `width` columns, knowing its first row.
    #[must_use]
    pub fn new(text: &str, width: usize) -> Self {
        Self::with_tab(text, width, 0)
    }

    /// An index of `text` at `width` columns with tabs expanded to stops every `tab` columns
    /// (`0`: escaped).
    #[must_use]
    pub fn with_tab(text: &str, width: usize, tab: usize) -> Self {
        let width = width.max(1);
        let line = line_at(text, 0);
        Self {
            width,
            len: text.len(),
            starts: vec![Start {
                byte: 0,
                indent: 0,
                hang: text::hang_of(&text[..line.1], width),
                line,
            }],
            complete: false,
            tab,
        }
    }

    /// The width it wraps at.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows known so far (all of them once `complete`).
    #[must_use]
    pub fn known(&self) -> usize {
        self.starts.len()
    }

    /// Whether every row is known.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// Find the next row's start; `false` when there is none.
    fn step(&mut self, text: &str) -> bool {
        if self.complete {
            return false;
        }
        let Some(&s) = self.starts.last() else {
            return false;
        };
        let (line_start, line_end) = s.line;
        let line = &text[line_start..line_end];
        let from = s.byte - line_start;
        let end = text::row_end_tab(line, from, s.indent, self.width, self.tab);
        let next = if end < line.len() {
            Start {
                byte: line_start + end,
                indent: text::continuation_indent(line, end, s.hang, self.width),
                hang: s.hang,
                line: s.line,
            }
        } else {
            // The next line, after this one's `\n` (and `\r`).
            let Some(nl) = memchr::memchr(b'\n', &text.as_bytes()[line_start + line.len()..])
            else {
                self.complete = true;
                return false;
            };
            let byte = line_start + line.len() + nl + 1;
            let line = line_at(text, byte);
            Start {
                byte,
                indent: 0,
                hang: text::hang_of(&text[byte..line.1], self.width),
                line,
            }
        };
        self.starts.push(next);
        true
    }

    /// Know at least `n` rows (fewer when the text has fewer).
    pub fn ensure_rows(&mut self, text: &str, n: usize) {
        debug_assert_eq!(text.len(), self.len, "a row index used with another text");
        while self.starts.len() < n && self.step(text) {}
    }

    /// Know every row.
    pub fn ensure_all(&mut self, text: &str) {
        while self.step(text) {}
    }

    /// Index of the row holding byte `byte` (the last row starting at or before it).
    pub fn row_of(&mut self, text: &str, byte: usize) -> usize {
        while self.starts.last().is_some_and(|s| s.byte <= byte) && self.step(text) {}
        let i = self.starts.partition_point(|s| s.byte <= byte);
        i.saturating_sub(1)
    }

    /// Rows `[first, first + n)` with their cells (fewer at the end of the text).
    pub fn rows(&mut self, text: &str, first: usize, n: usize) -> Vec<Row> {
        self.ensure_rows(text, first.saturating_add(n));
        self.starts
            .iter()
            .skip(first)
            .take(n)
            .map(|s| {
                let (line_start, line_end) = s.line;
                let line = &text[line_start..line_end];
                let from = s.byte - line_start;
                let end = text::row_end_tab(line, from, s.indent, self.width, self.tab);
                Row {
                    indent: s.indent,
                    cells: text::row_cells_tab(line, (from, end), line_start, s.indent, self.tab),
                    byte: s.byte,
                }
            })
            .collect()
    }
}

/// Row indexes of one text at the widths it was last drawn at (the review screen and the
/// arbitration screen wrap the output at different widths).
#[derive(Debug, Default)]
pub struct Layouts(RefCell<Vec<RowIndex>>, usize);

/// Widths kept per text.
const KEEP: usize = 3;

impl Clone for Layouts {
    fn clone(&self) -> Self {
        Self(RefCell::new(self.0.borrow().clone()), self.1)
    }
}

impl Layouts {
    /// Layouts of a text whose tabs expand to stops every `tab` columns (`0`: escaped).
    #[must_use]
    pub fn with_tab(tab: usize) -> Self {
        Self(RefCell::new(Vec::new()), tab)
    }

    /// Its tab stops (`0`: tabs escaped).
    #[must_use]
    pub fn tab(&self) -> usize {
        self.1
    }

    /// Run `f` on the index of `text` at `width`, made on first use.
    pub fn with<T>(&self, text: &str, width: usize, f: impl FnOnce(&mut RowIndex) -> T) -> T {
        let width = width.max(1);
        let mut all = self.0.borrow_mut();
        let i = match all
            .iter()
            .position(|x| x.width == width && x.len == text.len())
        {
            Some(i) => i,
            None => {
                if all.len() >= KEEP {
                    all.remove(0);
                }
                all.push(RowIndex::with_tab(text, width, self.1));
                all.len() - 1
            }
        };
        f(&mut all[i])
    }
}

/// The rows a pane drew: the visible ones, numbered from `first`, and how many rows are known
/// (the mouse and scrolling address rows by their number in the whole text).
#[derive(Debug, Clone, Default)]
pub struct Shown {
    /// Number of the first row in `rows`.
    pub first: usize,
    /// The rows on screen.
    pub rows: Vec<Row>,
    /// Rows known in the whole text (all of them, or at least a screenful past `rows`).
    pub total: usize,
}

impl Shown {
    /// Row number `i` of the text, when it is on screen.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&Row> {
        i.checked_sub(self.first).and_then(|k| self.rows.get(k))
    }

    /// Rows known in the whole text.
    #[must_use]
    pub fn len(&self) -> usize {
        self.total
    }

    /// No rows at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn all_rows(text: &str, width: usize) -> Vec<Row> {
        let mut ix = RowIndex::new(text, width);
        ix.ensure_all(text);
        let n = ix.known();
        ix.rows(text, 0, n)
    }

    #[test]
    fn on_demand_rows_equal_the_full_wrap() {
        let texts = [
            "",
            "one line",
            "hello world again and again",
            "a\r\nb\n\n  indented line that wraps around\n",
            "प्रमस्तिष्क अंगघात बीमारी को पहली बार १८८२ में जॉन हॉपकिन्स",
            "東京は晴れ 👨\u{200D}👩\u{200D}👧 e\u{301} \u{1b}[0m tab\there",
        ];
        for t in texts {
            for w in [1, 2, 3, 5, 8, 13, 40] {
                assert_eq!(all_rows(t, w), text::wrap(t, w), "{t:?} at {w}");
            }
        }
    }

    #[test]
    fn rows_are_found_only_as_far_as_asked() {
        let text = "word ".repeat(100_000);
        let mut ix = RowIndex::new(&text, 20);
        let rows = ix.rows(&text, 0, 10);
        assert_eq!(rows.len(), 10);
        assert!(!ix.complete());
        assert!(ix.known() < 100, "{} rows found for 10", ix.known());
        // A row far down is laid out from its own start, the same as a full wrap gives it.
        let r = ix.row_of(&text, 250_000);
        let far = ix.rows(&text, r, 1);
        // "word " is five columns: four to a 20-column row.
        assert_eq!(far[0].byte, 250_000);
        assert!(ix.known() < 13_000);
    }

    proptest! {
        #[test]
        fn any_text_any_width(t in "[a b\\n\u{93e}\u{915}\u{94d}東é\u{301}\t]{0,60}", w in 1usize..12) {
            prop_assert_eq!(all_rows(&t, w), text::wrap(&t, w));
            let mut ix = RowIndex::new(&t, w);
            let full = text::wrap(&t, w);
            for b in 0..=t.len() {
                prop_assert_eq!(ix.row_of(&t, b), text::row_of(&full, b));
            }
        }
    }
}
