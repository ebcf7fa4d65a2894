//! Boundary moves for adjusting and adding spans, over the output's code points: by a
//! character (a whole grapheme cluster: a letter with its combining marks, an emoji sequence),
//! by a word, and trimming whitespace and punctuation.

mod words;

use words::is_trim;
pub use words::{next_word_end, next_word_start, prev_word_end, prev_word_start};

use unicode_segmentation::UnicodeSegmentation;

use super::action::Action;

/// Code points on each side of a position whose clusters are looked at: a cluster never
/// reaches that far, and a 10 M-character answer is not segmented whole on every key.
const NEAR: usize = 256;

/// Grapheme cluster boundaries of `chars` within [`NEAR`] code points of `at`, in code points
/// (0 and the length included when that close). The window's own ends count as boundaries.
fn boundaries(chars: &[char], at: usize) -> Vec<usize> {
    let at = at.min(chars.len());
    let lo = at.saturating_sub(NEAR);
    let hi = at.saturating_add(NEAR).min(chars.len());
    let text: String = chars[lo..hi].iter().collect();
    let mut at = lo;
    let mut out = vec![lo];
    for g in text.graphemes(true) {
        at += g.chars().count();
        out.push(at);
    }
    out
}

/// The first character boundary after `pos`, or the length: one character right, never
/// between a letter and its combining mark.
#[must_use]
pub fn next_boundary(chars: &[char], pos: usize) -> usize {
    let b = boundaries(chars, pos);
    b.iter().copied().find(|&x| x > pos).unwrap_or(chars.len())
}

/// The last character boundary before `pos`, or 0: one character left.
#[must_use]
pub fn prev_boundary(chars: &[char], pos: usize) -> usize {
    let b = boundaries(chars, pos);
    b.iter().copied().rev().find(|&x| x < pos).unwrap_or(0)
}

/// The first character of the line holding `pos` that is not whitespace (`^`), or the
/// line's start when it is blank. Lines end at `\n`.
#[must_use]
pub fn line_first(chars: &[char], pos: usize) -> usize {
    let pos = pos.min(chars.len());
    let start = line_start(chars, pos);
    let end = line_past(chars, pos);
    (start..end)
        .find(|&i| !chars[i].is_whitespace())
        .unwrap_or(start)
}

/// One past the last character of the line holding `pos` that is not whitespace (`$`), or
/// the line's start when it is blank.
#[must_use]
pub fn line_last(chars: &[char], pos: usize) -> usize {
    let pos = pos.min(chars.len());
    let start = line_start(chars, pos);
    let mut end = line_past(chars, pos);
    while end > start && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    end
}

/// The first character of the line holding `pos` (`pos` at most `chars.len()`).
fn line_start(chars: &[char], pos: usize) -> usize {
    chars[..pos]
        .iter()
        .rposition(|&c| c == '\n')
        .map_or(0, |i| i + 1)
}

/// Index of the `\n` that ends the line holding `pos`, or the length.
fn line_past(chars: &[char], pos: usize) -> usize {
    chars[pos..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(chars.len(), |i| pos + i)
}

/// Where a find-character move from `pos` lands (add mode's `f`, `F`, `t`, `T`, repeated
/// `times`): on the `times`-th next (`forward`) or previous character that is exactly `c` (a
/// whole character: `e` is not the `e` of `e` + U+0301), or with `till` on the character just
/// before it (`forward`) or just after it. `till` skips a `c` right next to `pos`, so that `t`
/// can be repeated. `None` when there are not that many.
#[must_use]
pub fn find_char(
    chars: &[char],
    pos: usize,
    c: char,
    forward: bool,
    till: bool,
    times: usize,
) -> Option<usize> {
    // Only the clusters near each candidate are segmented: a 10 M-character answer is not
    // segmented whole on every key.
    let whole = |i: usize| {
        chars[i] == c && {
            let b = boundaries(chars, i);
            b.contains(&i) && b.contains(&(i + 1))
        }
    };
    // The cluster holding `pos` starts at or before it.
    let here = boundaries(chars, pos)
        .into_iter()
        .rev()
        .find(|&x| x <= pos)
        .unwrap_or(0);
    let mut at = here;
    for i in 0..times.max(1) {
        let skip = till && i == 0;
        at = if forward {
            let from = next_boundary(chars, at);
            let from = if skip && from < chars.len() && whole(from) {
                from + 1
            } else {
                from
            };
            (from..chars.len()).find(|&k| whole(k))?
        } else {
            let to = if skip {
                let p = prev_boundary(chars, at);
                if at > 0 && whole(p) {
                    p
                } else {
                    at
                }
            } else {
                at
            };
            (0..to).rev().find(|&k| whole(k))?
        };
    }
    Some(match (till, forward) {
        (false, _) => at,
        (true, true) => prev_boundary(chars, at),
        (true, false) => next_boundary(chars, at),
    })
}

/// The span marked from the character at `a` to the character at `b` (either order): whole
/// characters, from the start of the first to the end of the last.
#[must_use]
pub fn marked(chars: &[char], a: usize, b: usize) -> (usize, usize) {
    let (lo, hi) = (a.min(b), a.max(b));
    let start = boundaries(chars, lo)
        .into_iter()
        .rev()
        .find(|&x| x <= lo)
        .unwrap_or(0);
    let end = boundaries(chars, hi)
        .into_iter()
        .find(|&x| x > hi)
        .unwrap_or(chars.len());
    (start, end.max(start + 1))
}

/// `[start, end)` without leading and trailing whitespace and punctuation; `None` when nothing
/// would be left.
#[must_use]
pub fn trim(chars: &[char], start: usize, end: usize) -> Option<(usize, usize)> {
    let end = end.min(chars.len());
    let mut s = start.min(end);
    let mut e = end;
    while s < e && is_trim(chars[s]) {
        s += 1;
    }
    while e > s && is_trim(chars[e - 1]) {
        e -= 1;
    }
    (s < e).then_some((s, e))
}

/// A span's boundaries while they are being moved: never empty, never outside the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// First code point.
    pub start: usize,
    /// One past the last.
    pub end: usize,
}

impl Bounds {
    /// Move the start to `to`, kept before the end.
    pub fn set_start(&mut self, to: usize) {
        self.start = to.min(self.end.saturating_sub(1));
    }

    /// Move the end to `to`, kept after the start and within `len`.
    pub fn set_end(&mut self, to: usize, len: usize) {
        self.end = to.clamp(self.start + 1, len.max(self.start + 1));
    }

    /// Move the start one character (grapheme cluster) left or right; it stays where it is
    /// rather than reach the end.
    pub fn step_start(&mut self, chars: &[char], right: bool) {
        let to = if right {
            next_boundary(chars, self.start)
        } else {
            prev_boundary(chars, self.start)
        };
        if to < self.end || self.start >= self.end {
            // A reversed span from the file is clamped into shape, as the word moves do.
            self.set_start(to);
        }
    }

    /// Move the end one character (grapheme cluster) left or right; it stays where it is
    /// rather than reach the start.
    pub fn step_end(&mut self, chars: &[char], right: bool) {
        let to = if right {
            next_boundary(chars, self.end)
        } else {
            prev_boundary(chars, self.end)
        };
        if to > self.start || self.start >= self.end {
            self.set_end(to, chars.len());
        }
    }

    /// Apply a boundary move of the adjust keys (`h`/`l`/`H`/`L`, the word moves, `T`) over
    /// `chars`, shared by the adjust mode and the arbitration edit.
    pub fn apply(&mut self, action: Action, chars: &[char]) -> Moved {
        let len = chars.len();
        match action {
            Action::StartLeft => self.step_start(chars, false),
            Action::StartRight => self.step_start(chars, true),
            Action::EndLeft => self.step_end(chars, false),
            Action::EndRight => self.step_end(chars, true),
            Action::StartWordLeft => self.set_start(prev_word_start(chars, self.start)),
            Action::StartWordRight => self.set_start(next_word_start(chars, self.start)),
            Action::EndWordLeft => self.set_end(prev_word_end(chars, self.end), len),
            Action::EndWordRight => self.set_end(next_word_end(chars, self.end), len),
            // The line of each end: the start to its line's first character, the end past
            // the last character of the line holding the span's last character.
            Action::LineStart => self.set_start(line_first(chars, self.start)),
            Action::LineEnd => {
                let last = self.end.saturating_sub(1).max(self.start);
                self.set_end(line_last(chars, last), len);
            }
            Action::Trim => match trim(chars, self.start, self.end) {
                Some((s, e)) => *self = Bounds { start: s, end: e },
                None => return Moved::WouldEmpty,
            },
            _ => return Moved::NotAMove,
        }
        Moved::Yes
    }
}

/// What [`Bounds::apply`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// The bounds moved (or stayed at a limit).
    Yes,
    /// Trimming would leave nothing: the bounds are unchanged.
    WouldEmpty,
    /// The action is not a boundary move.
    NotAMove,
}

#[cfg(test)]
mod tests;
