//! Putting text into the frame one grapheme cluster per cell, at the width a terminal gives
//! the cluster (`text::cluster_width`), instead of through ratatui's `Paragraph`.
//!
//! Why: ratatui draws a cluster two or more columns wide (`घा`, `स्ति`) as one cell followed
//! by blank cells, and when redrawing skips a blank cell that was blank in the last frame too.
//! A terminal, though, keeps such a cluster's vowel sign in a column of its own, so a frame
//! that moves the text left a stale vowel sign in a column ratatui believed blank
//! ("कोीपहली" on the arbitration screen). Here the columns a cluster covers are marked
//! (`CellDiffOption::Skip`), so they never equal a blank cell of the next frame and are
//! always redrawn; and a cluster whose width ratatui would count otherwise carries its width
//! (`CellDiffOption::ForcedWidth`), so the next text is placed where the terminal puts it.

use std::num::NonZeroU16;

use ratatui::buffer::{Buffer, CellDiffOption, CellWidth};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use unicode_segmentation::UnicodeSegmentation;

use crate::tui::text::{self, Row};

/// Drawn before a combining mark that has no letter to sit on (a row starting with one).
const DOTTED_CIRCLE: &str = "\u{25CC}";

/// Writes clusters left to right along one screen row.
pub(crate) struct Pen<'b> {
    buf: &'b mut Buffer,
    x: u16,
    y: u16,
    right: u16,
    /// Column of the last cluster put (a zero-width cluster joins it).
    last: Option<u16>,
}

impl<'b> Pen<'b> {
    /// A pen at row `row` of `area` (nothing is drawn when the row is outside it).
    pub(crate) fn new(buf: &'b mut Buffer, area: Rect, row: usize) -> Self {
        let area = area.intersection(buf.area);
        let y = u16::try_from(row)
            .ok()
            .and_then(|r| area.y.checked_add(r))
            .filter(|&y| y < area.bottom());
        Self {
            buf,
            x: area.x,
            y: y.unwrap_or(area.y),
            right: if y.is_some() { area.right() } else { area.x },
            last: None,
        }
    }

    /// Leave `n` columns as they are (blank in a fresh frame).
    pub(super) fn skip(&mut self, n: usize) {
        let n = u16::try_from(n).unwrap_or(u16::MAX);
        self.x = self.x.saturating_add(n).min(self.right);
    }

    /// Put a string, escaping control characters; `false` once the row is full.
    pub(crate) fn put(&mut self, s: &str, style: Style) -> bool {
        for g in s.graphemes(true) {
            let d = text::display(g);
            let ok = if d.len() == g.len() {
                self.cluster(g, text::cluster_width(g), style)
            } else {
                d.graphemes(true)
                    .all(|e| self.cluster(e, text::cluster_width(e), style))
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// Put one cluster `w` columns wide; `false` when it does not fit.
    pub(super) fn cluster(&mut self, g: &str, w: usize, style: Style) -> bool {
        if w == 0 {
            if let Some(lx) = self.last {
                let cell = &mut self.buf[(lx, self.y)];
                let joined = format!("{}{g}", cell.symbol());
                cell.set_symbol(&joined);
                return true;
            }
            let based = format!("{DOTTED_CIRCLE}{g}");
            return self.cluster(&based, text::cluster_width(&based).max(1), style);
        }
        let Ok(w16) = u16::try_from(w) else {
            return false;
        };
        if self.x.saturating_add(w16) > self.right {
            self.right = self.x;
            return false;
        }
        let (x, y) = (self.x, self.y);
        let cell = &mut self.buf[(x, y)];
        cell.reset();
        cell.set_symbol(g).set_style(style);
        if cell.symbol().cell_width() != w16 {
            if let Some(nz) = NonZeroU16::new(w16) {
                cell.set_diff_option(CellDiffOption::ForcedWidth(nz));
            }
        }
        for i in 1..w16 {
            let t = &mut self.buf[(x + i, y)];
            t.reset();
            t.set_style(style);
            t.set_diff_option(CellDiffOption::Skip);
        }
        self.last = Some(x);
        self.x += w16;
        true
    }
}

/// Put a wrapped row of `src` on row `at` of `area`, `gutter` columns in; `style` gives each
/// cell's style from its byte offset.
pub(super) fn put_row(
    buf: &mut Buffer,
    area: Rect,
    at: usize,
    gutter: usize,
    src: &str,
    r: &Row,
    style: &dyn Fn(usize) -> Style,
) {
    let mut pen = Pen::new(buf, area, at);
    pen.skip(gutter + r.indent);
    for c in &r.cells {
        let g = &src[c.byte..c.byte + c.len];
        let st = style(c.byte);
        let ok = if g == "\t" && !c.escaped {
            // An expanded tab: blank columns to its stop, styled as the tab is.
            (0..c.width).all(|_| pen.cluster(" ", 1, st))
        } else if c.escaped {
            pen.put(g, st)
        } else {
            pen.cluster(g, c.width, st)
        };
        if !ok {
            return;
        }
    }
}

/// Put styled lines, one screen row each, cut at the area's right edge.
pub(super) fn put_lines(buf: &mut Buffer, area: Rect, lines: &[Line<'_>]) {
    for (i, l) in lines.iter().enumerate().take(usize::from(area.height)) {
        let mut pen = Pen::new(buf, area, i);
        for sp in &l.spans {
            if !pen.put(&sp.content, l.style.patch(sp.style)) {
                break;
            }
        }
    }
}

/// Put styled lines word-wrapped to the area (hanging indent as `text::wrap`); the rows past
/// the area's bottom are left out.
pub(super) fn put_wrapped(buf: &mut Buffer, area: Rect, lines: &[Line<'_>]) {
    let mut at = 0usize;
    let h = usize::from(area.height);
    for l in lines {
        if at >= h {
            return;
        }
        let mut s = String::new();
        let mut styles: Vec<(usize, Style)> = Vec::new();
        for sp in &l.spans {
            s.push_str(&sp.content);
            styles.push((s.len(), l.style.patch(sp.style)));
        }
        let style = |b: usize| {
            let i = styles.partition_point(|&(end, _)| end <= b);
            styles.get(i).map_or_else(Style::default, |&(_, st)| st)
        };
        for r in text::wrap(&s, usize::from(area.width)) {
            if at >= h {
                return;
            }
            put_row(buf, area, at, 0, &s, &r, &style);
            at += 1;
        }
    }
}
