//! Text width in terminal columns, the one measure the review screen and the command line's
//! tables share: grapheme clusters counted the way terminals advance the cursor over them,
//! control characters measured as the escapes they are printed as ([`super::escape`]). Pure;
//! the screen's layout (`tui::text`) and the CLI's table cells both build on it.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::escape;

/// Spacing vowel signs and marks that `unicode-width` counts as no column (they extend a
/// grapheme cluster) but that terminals (`wcwidth`: glibc, tmux, xterm) draw in a column of their
/// own: the Bengali and Tamil vowel sign AA among them. Found by comparing unicode-width 0.2 with
/// glibc 2.36's `wcwidth` over every code point (general category Mc, and a few letters).
const SPACING_MARKS: &[(char, char)] = &[
    ('\u{0D4E}', '\u{0D4E}'),
    ('\u{09BE}', '\u{09BE}'),
    ('\u{09D7}', '\u{09D7}'),
    ('\u{0B3E}', '\u{0B3E}'),
    ('\u{0B57}', '\u{0B57}'),
    ('\u{0BBE}', '\u{0BBE}'),
    ('\u{0BD7}', '\u{0BD7}'),
    ('\u{0CC0}', '\u{0CC0}'),
    ('\u{0CC2}', '\u{0CC2}'),
    ('\u{0CC7}', '\u{0CC8}'),
    ('\u{0CCA}', '\u{0CCB}'),
    ('\u{0CD5}', '\u{0CD6}'),
    ('\u{0D3E}', '\u{0D3E}'),
    ('\u{0D57}', '\u{0D57}'),
    ('\u{0DCF}', '\u{0DCF}'),
    ('\u{0DDF}', '\u{0DDF}'),
    ('\u{1715}', '\u{1715}'),
    ('\u{1734}', '\u{1734}'),
    ('\u{1B35}', '\u{1B35}'),
    ('\u{1B3B}', '\u{1B3B}'),
    ('\u{1B3D}', '\u{1B3D}'),
    ('\u{1B43}', '\u{1B44}'),
    ('\u{1BAA}', '\u{1BAA}'),
    ('\u{1BF2}', '\u{1BF3}'),
    ('\u{A953}', '\u{A953}'),
    ('\u{A9C0}', '\u{A9C0}'),
    ('\u{111C0}', '\u{111C0}'),
    ('\u{11235}', '\u{11235}'),
    ('\u{1133E}', '\u{1133E}'),
    ('\u{1134D}', '\u{1134D}'),
    ('\u{11357}', '\u{11357}'),
    ('\u{114B0}', '\u{114B0}'),
    ('\u{114BD}', '\u{114BD}'),
    ('\u{115AF}', '\u{115AF}'),
    ('\u{116B6}', '\u{116B6}'),
    ('\u{11930}', '\u{11930}'),
    ('\u{1193D}', '\u{1193D}'),
    ('\u{1D165}', '\u{1D166}'),
    ('\u{1D16D}', '\u{1D172}'),
];

/// Columns a terminal gives one code point on its own.
fn char_cols(c: char) -> usize {
    let w = c.width().unwrap_or(0);
    if w == 0 && SPACING_MARKS.iter().any(|&(a, b)| a <= c && c <= b) {
        1
    } else {
        w
    }
}

/// Columns a grapheme cluster takes on screen. Terminals place a cluster code point by code
/// point (a spacing vowel sign gets a column of its own, a code point after a zero width joiner
/// none, as tmux does), while `unicode-width` measures some clusters as a whole (an emoji with
/// a variation selector or a skin tone is two columns). Where the two disagree the wider is
/// taken: text after the cluster is then never overwritten, whichever way the terminal counts.
#[must_use]
pub fn cluster_width(g: &str) -> usize {
    if g.len() == 1 {
        return 1;
    }
    let mut cols = 0;
    let mut joined = false;
    for c in g.chars() {
        if std::mem::take(&mut joined) {
            continue;
        }
        if c == '\u{200D}' {
            joined = true;
            continue;
        }
        cols += char_cols(c);
    }
    cols.max(g.width())
}

/// Columns of an already escaped string, cluster by cluster.
#[must_use]
pub fn cols(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.graphemes(true).map(cluster_width).sum()
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
    s.graphemes(true).map(|g| cols(&display(g))).sum()
}

/// `s` and spaces up to `width` columns as [`width`] measures it (a table's left-aligned
/// cell: `format!("{:<18}")` counts code points, and `東` or `e` + U+0301 are not one column).
#[must_use]
pub fn pad(s: &str, columns: usize) -> String {
    format!("{s}{}", " ".repeat(columns.saturating_sub(width(s))))
}

/// Cut a one-line string to at most `max` columns (escaping control characters), adding `…`
/// when cut.
#[must_use]
pub fn truncate(s: &str, max: usize) -> String {
    let full = escape_line(s);
    if cols(&full) <= max {
        return full;
    }
    let mut out = String::new();
    let mut w = 0;
    for g in full.graphemes(true) {
        let gw = cluster_width(g);
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

#[cfg(test)]
mod tests;
