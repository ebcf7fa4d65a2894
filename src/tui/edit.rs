//! Boundary moves for adjusting and adding spans, over the output's code points: by a
//! character (a whole grapheme cluster: a letter with its combining marks, an emoji sequence),
//! by a word, and trimming whitespace and punctuation.

use unicode_segmentation::UnicodeSegmentation;

use super::action::Action;

/// A word character: letters, digits, marks and `_`.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || is_mark(c)
}

/// Combining marks stay with their letter.
fn is_mark(c: char) -> bool {
    matches!(
        u32::from(c),
        0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
    )
}

/// Whitespace or punctuation, trimmed by `T`.
fn is_trim(c: char) -> bool {
    c.is_whitespace()
        || c.is_ascii_punctuation()
        || matches!(
            c,
            '’' | '‘' | '“' | '”' | '…' | '—' | '–' | '。' | '、' | '«' | '»' | '¿' | '¡'
        )
}

/// Start of the next word after `pos` (a boundary), or the end of the text.
#[must_use]
pub fn next_word_start(chars: &[char], pos: usize) -> usize {
    let n = chars.len();
    let mut i = pos.min(n);
    while i < n && is_word(chars[i]) {
        i += 1;
    }
    while i < n && !is_word(chars[i]) {
        i += 1;
    }
    i
}

/// Start of the word before `pos` (a boundary), or 0.
#[must_use]
pub fn prev_word_start(chars: &[char], pos: usize) -> usize {
    let mut i = pos.min(chars.len());
    while i > 0 && !is_word(chars[i - 1]) {
        i -= 1;
    }
    while i > 0 && is_word(chars[i - 1]) {
        i -= 1;
    }
    i
}

/// End (one past the last character) of the next word after boundary `pos`.
#[must_use]
pub fn next_word_end(chars: &[char], pos: usize) -> usize {
    let n = chars.len();
    let mut i = pos.min(n);
    while i < n && !is_word(chars[i]) {
        i += 1;
    }
    while i < n && is_word(chars[i]) {
        i += 1;
    }
    i
}

/// End of the word before boundary `pos`.
#[must_use]
pub fn prev_word_end(chars: &[char], pos: usize) -> usize {
    let mut i = pos.min(chars.len());
    while i > 0 && is_word(chars[i - 1]) {
        i -= 1;
    }
    while i > 0 && !is_word(chars[i - 1]) {
        i -= 1;
    }
    i
}

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
mod tests {
    use super::*;

    #[test]
    fn boundaries_far_into_a_long_text_are_those_of_the_whole_text() {
        let text = format!(
            "{}👨\u{200D}👩\u{200D}👧 e\u{301}nd",
            "ab e\u{301}क्ष ".repeat(50_000)
        );
        let chars: Vec<char> = text.chars().collect();
        let mut all = vec![0];
        for g in text.graphemes(true) {
            all.push(all[all.len() - 1] + g.chars().count());
        }
        let n = chars.len();
        for pos in [
            0,
            1,
            2,
            3,
            5,
            300,
            123_457,
            n - 9,
            n - 8,
            n - 3,
            n - 2,
            n - 1,
            n,
        ] {
            let next = all.iter().copied().find(|&x| x > pos).unwrap_or(n);
            let prev = all.iter().copied().rev().find(|&x| x < pos).unwrap_or(0);
            assert_eq!(next_boundary(&chars, pos), next, "next of {pos}");
            assert_eq!(prev_boundary(&chars, pos), prev, "prev of {pos}");
        }
        let (a, b) = (123_457, n - 3);
        let start = all.iter().copied().rev().find(|&x| x <= a).unwrap_or(0);
        let end = all.iter().copied().find(|&x| x > b).unwrap_or(n);
        assert_eq!(marked(&chars, b, a), (start, end));
        assert_eq!(next_boundary(&chars, n + 5), n);
    }
    use rstest::rstest;

    fn c(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[rstest]
    #[case("It is 25°C today", 0, 3)]
    #[case("It is 25°C today", 3, 6)]
    #[case("It is 25°C today", 6, 9)]
    #[case("It is 25°C today", 16, 16)]
    fn next_starts(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(next_word_start(&c(s), pos), want);
    }

    #[rstest]
    #[case("It is 25°C today", 16, 11)]
    #[case("It is 25°C today", 11, 9)]
    #[case("It is 25°C today", 3, 0)]
    #[case("It is", 0, 0)]
    fn prev_starts(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(prev_word_start(&c(s), pos), want);
    }

    #[rstest]
    #[case("It is 25°C today", 0, 2)]
    #[case("It is 25°C today", 2, 5)]
    #[case("東京 は", 0, 2)]
    fn next_ends(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(next_word_end(&c(s), pos), want);
    }

    #[rstest]
    #[case("It is 25°C today", 16, 10)]
    #[case("It is 25°C today", 5, 2)]
    #[case("It", 2, 0)]
    fn prev_ends(#[case] s: &str, #[case] pos: usize, #[case] want: usize) {
        assert_eq!(prev_word_end(&c(s), pos), want);
    }

    #[rstest]
    #[case(" «rainy», ", 0, 10, Some((2, 7)))]
    #[case("**H4G8**\n", 0, 9, Some((2, 6)))]
    #[case(" .. ", 0, 4, None)]
    #[case("café\u{301}!", 0, 6, Some((0, 5)))]
    fn trims(
        #[case] s: &str,
        #[case] a: usize,
        #[case] b: usize,
        #[case] want: Option<(usize, usize)>,
    ) {
        assert_eq!(trim(&c(s), a, b), want);
    }

    // "e\u{301}" is one character of two code points, the family emoji one of five.
    #[rstest]
    #[case("ne\u{301} x", 1, 3, 0)]
    #[case("ne\u{301} x", 2, 3, 1)]
    #[case("ne\u{301} x", 3, 4, 1)]
    #[case("a \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}!", 2, 7, 1)]
    #[case("a \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}!", 7, 8, 2)]
    #[case("ab", 2, 2, 1)]
    #[case("ab", 0, 1, 0)]
    fn character_steps_keep_grapheme_clusters_whole(
        #[case] s: &str,
        #[case] pos: usize,
        #[case] next: usize,
        #[case] prev: usize,
    ) {
        assert_eq!(next_boundary(&c(s), pos), next);
        assert_eq!(prev_boundary(&c(s), pos), prev);
    }

    #[rstest]
    #[case("ne\u{301} x", 1, 1, (1, 3))]
    #[case("ne\u{301} x", 2, 0, (0, 3))]
    #[case("a \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}!", 2, 2, (2, 7))]
    #[case("東京", 0, 1, (0, 2))]
    fn marks_cover_whole_characters(
        #[case] s: &str,
        #[case] a: usize,
        #[case] b: usize,
        #[case] want: (usize, usize),
    ) {
        assert_eq!(marked(&c(s), a, b), want);
    }

    #[test]
    fn bounds_step_over_combining_marks_and_stay_non_empty() {
        let t = c("ne\u{301} x");
        let mut b = Bounds { start: 0, end: 1 };
        b.step_end(&t, true);
        assert_eq!(b.end, 3, "e and its accent together");
        b.step_start(&t, true);
        assert_eq!(b.start, 1);
        b.step_start(&t, true);
        assert_eq!(b.start, 1, "the start never reaches the end");
        b.step_end(&t, false);
        assert_eq!(b.end, 3, "the end never reaches the start");
        b.step_start(&t, false);
        b.step_end(&t, false);
        assert_eq!(b, Bounds { start: 0, end: 1 });
        // A reversed span (a defect of the file) is brought into shape by any move.
        let mut r = Bounds { start: 4, end: 2 };
        r.step_start(&t, false);
        assert_eq!(r, Bounds { start: 1, end: 2 });
        let mut r = Bounds { start: 4, end: 2 };
        r.step_end(&t, true);
        assert_eq!(r, Bounds { start: 4, end: 5 });
    }

    #[test]
    fn bounds_never_empty_or_out_of_range() {
        let mut b = Bounds { start: 2, end: 4 };
        b.set_start(9);
        assert_eq!(b, Bounds { start: 3, end: 4 });
        b.set_end(0, 10);
        assert_eq!(b, Bounds { start: 3, end: 4 });
        b.set_end(99, 10);
        assert_eq!(b.end, 10);
    }
}
